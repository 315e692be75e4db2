//! The protocol state machine: one per CLI process (or byte-stream pair).

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use serde::Serialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;

use crate::config::Config;
use crate::envelope::{Envelope, RequestHead, ResponseHead};
use crate::error::{ControlError, ProtocolError, ProtocolErrorKind, RespondError, SendError};
use crate::event::{
    CancelReason, ControlOutcome, ControlSuccess, Event, IncomingRequest, Message, RefusalReason,
};
use crate::framing::{Frame, LineSplitter};
use crate::id::{IncomingId, RequestId, wire_request_id};
use crate::model::MessageType;
use crate::model::control::{ControlCall, ControlRequest, Tagged};
use crate::model::hooks::HookOutput;
use crate::model::incoming::{CliRequest, McpMessageResponse};
use crate::model::initialize::InitializeRequest;
use crate::model::permission::PermissionResult;
use crate::model::user::UserMessage;
use crate::reply::Reply;

/// The sans-IO protocol state machine for one CLI session.
///
/// It owns no IO and reads no clock. Feed it what the CLI writes with
/// [`handle_input`](Self::handle_input) and [`handle_eof`](Self::handle_eof),
/// tell it the time with [`handle_timeout`](Self::handle_timeout), give it
/// commands ([`send_user_message`](Self::send_user_message),
/// [`send_control`](Self::send_control), [`respond`](Self::respond), ...),
/// and after every one of those drain, in this order,
/// [`poll_transmit`](Self::poll_transmit) (bytes for the CLI's stdin),
/// [`poll_timeout`](Self::poll_timeout) (when to call `handle_timeout`
/// next) and [`poll_event`](Self::poll_event) (what happened).
///
/// Guarantees, whatever the CLI writes:
/// - no input makes it panic; a bad line becomes an
///   [`Event::ProtocolError`] and reading goes on;
/// - buffered input never exceeds [`Config::max_line_bytes`], and the
///   events queued never exceed what the last input produced;
/// - every control request it sends ends in exactly one
///   [`Event::Response`], carrying the answer, the CLI's error, a timeout,
///   a cancellation, or the end of output;
/// - every control request from the CLI is answered at most once, never
///   after the CLI cancelled it, and ends in exactly one of: an answer
///   through [`respond`](Self::respond), an [`Event::RequestCancelled`], or
///   an automatic error answer ([`Event::RequestRefused`]).
#[derive(Debug)]
pub struct Session {
    config: Config,
    splitter: LineSplitter,
    message_lines: LineArena,
    events: VecDeque<Event>,
    transmit: Vec<u8>,
    outgoing: HashMap<u64, Outgoing>,
    outgoing_by_wire: HashMap<Box<str>, u64>,
    deadlines: BTreeSet<(Instant, u64)>,
    incoming: HashMap<u64, Incoming>,
    incoming_by_wire: HashMap<Box<str>, u64>,
    next_outgoing: u64,
    next_incoming: u64,
    input_closed: bool,
    output_ended: bool,
    initialized: bool,
    /// Wire ids of CLI requests seen before the `initialize` answer, so the
    /// requests that answer lists as waiting are not delivered twice (one
    /// may have been answered meanwhile). Bounded; cleared at the answer.
    seen_before_init: HashSet<Box<str>>,
}

/// How many request ids [`Session`] remembers before `initialize` is
/// answered (the CLI sends few requests that early).
const MAX_SEEN_BEFORE_INIT: usize = 4096;

#[derive(Debug)]
struct Outgoing {
    wire_id: Box<str>,
    subtype: String,
    deadline: Option<Instant>,
    timeout: Duration,
}

#[derive(Debug)]
struct Incoming {
    wire_id: Box<str>,
    /// For `can_use_tool`: echoed in the answer, as the CLI expects.
    tool_use_id: Option<Box<str>>,
}

/// Parses a CLI request body; an escaped lone surrogate (which serde_json
/// refuses) is read as U+FFFD rather than failing the whole request.
fn parse_cli_request(body: &str) -> Result<CliRequest, serde_json::Error> {
    match crate::model::open_enum::from_slice::<CliRequest>(body.as_bytes()) {
        Err(e) => match crate::json_text::replace_lone_surrogates(body.as_bytes()) {
            Some(repaired) => crate::model::open_enum::from_slice(&repaired),
            None => Err(e),
        },
        other => other,
    }
}

/// Bytes per buffer of [`LineArena`].
const ARENA_BYTES: usize = 64 * 1024;

/// Where message lines are copied: one buffer for many lines, each line a
/// [`Bytes`] slice of it, instead of one allocation per line. Freeing
/// those one by one, long after (behind the adapters' read-ahead) and
/// often on another thread, was the allocator's large share of the
/// end-to-end profile. Only message lines go in, in order, so a buffer is
/// all message bytes: what holds messages holds at most one buffer more
/// than their bytes at either end of them. A buffer is freed once the
/// last message in it is; one message kept alone keeps its whole buffer
/// (at most [`ARENA_BYTES`], or its own line if longer).
///
/// Buffers start at the size of their first line and double from 8 KiB
/// up to [`ARENA_BYTES`]; [`trim`](Self::trim) starts that over. So a
/// session trimmed between lines (an adapter trims whenever its reads
/// come up short, as they do for a slow stream of small lines) gives each
/// line a buffer of its own size: the messages a consumer has not read yet
/// hold their bytes, not 64 KiB each.
#[derive(Debug, Default)]
struct LineArena {
    /// The unused rest of the current buffer.
    free: BytesMut,
    /// The size of the next buffer, if its line is not longer.
    next: usize,
}

/// The second buffer after a [`LineArena::trim`] (the first is its line's size).
const ARENA_START_BYTES: usize = 8 * 1024;

impl LineArena {
    fn copy(&mut self, line: &[u8]) -> Bytes {
        if self.free.capacity() < line.len() {
            // A new buffer; the old one goes with the last message in it.
            self.free = BytesMut::with_capacity(line.len().max(self.next));
            self.next = (self.next * 2).clamp(ARENA_START_BYTES, ARENA_BYTES);
        }
        self.free.extend_from_slice(line);
        self.free.split().freeze()
    }

    /// Lets go of the unused rest of the current buffer (it is freed with
    /// the last message in it instead of waiting for more lines), and
    /// starts the next buffers small again.
    fn trim(&mut self) {
        self.free = BytesMut::new();
        self.next = 0;
    }
}

impl Session {
    /// A new session with the given limits. Nothing is written until a
    /// command is given; call [`initialize`](Self::initialize) first to
    /// register hooks and in-process MCP servers.
    pub fn new(config: Config) -> Self {
        let splitter = LineSplitter::new(config.max_line_bytes, config.error_prefix_bytes);
        Self {
            config,
            splitter,
            message_lines: LineArena::default(),
            events: VecDeque::new(),
            transmit: Vec::new(),
            outgoing: HashMap::new(),
            outgoing_by_wire: HashMap::new(),
            deadlines: BTreeSet::new(),
            incoming: HashMap::new(),
            incoming_by_wire: HashMap::new(),
            next_outgoing: 0,
            next_incoming: 0,
            input_closed: false,
            output_ended: false,
            initialized: false,
            seen_before_init: HashSet::new(),
        }
    }

    /// The configuration this session runs with.
    pub fn config(&self) -> &Config {
        &self.config
    }

    // ----- inputs -----------------------------------------------------------

    /// Feeds bytes the CLI wrote to its stdout, in any chunking (a byte at a
    /// time or megabytes at once, split anywhere, even inside a UTF-8
    /// character: the events are the same). Never fails: problems become
    /// events. Ignored after [`handle_eof`](Self::handle_eof).
    pub fn handle_input(&mut self, bytes: &[u8]) {
        if self.output_ended {
            return;
        }
        let mut splitter = std::mem::replace(&mut self.splitter, LineSplitter::new(0, 0));
        splitter.push(bytes, &mut |frame| self.handle_frame(frame, false));
        self.splitter = splitter;
    }

    /// [`handle_input`](Self::handle_input) for the bytes of `bytes` up to
    /// and including its first newline (all of them if it has none);
    /// returns how many that is, at least one unless `bytes` is empty.
    ///
    /// For callers that stop between lines (to check a budget after each
    /// one): calling this until the bytes are used up gives the same
    /// events as one `handle_input`, and searches each byte for a newline
    /// once, where finding the line first with
    /// [`find_newline`](crate::find_newline) searches it twice.
    pub fn handle_input_line(&mut self, bytes: &[u8]) -> usize {
        if self.output_ended {
            return bytes.len();
        }
        let mut splitter = std::mem::replace(&mut self.splitter, LineSplitter::new(0, 0));
        let taken = splitter.push_line(bytes, &mut |frame| self.handle_frame(frame, false));
        self.splitter = splitter;
        taken
    }

    /// The CLI's stdout is closed (the process exited or the stream ended).
    ///
    /// A final line without a newline is still read. Every request we sent
    /// that is still waiting fails with [`ControlError::OutputEnded`]; every
    /// request from the CLI still waiting is cancelled with
    /// [`CancelReason::OutputEnded`]. Commands are refused from now on.
    pub fn handle_eof(&mut self) {
        if self.output_ended {
            return;
        }
        let mut splitter = std::mem::replace(&mut self.splitter, LineSplitter::new(0, 0));
        splitter.finish(&mut |frame| self.handle_frame(frame, true));
        self.splitter = splitter;
        self.output_ended = true;
        let mut pending: Vec<(u64, Outgoing)> = self.outgoing.drain().collect();
        pending.sort_unstable_by_key(|(seq, _)| *seq);
        self.outgoing_by_wire.clear();
        self.deadlines.clear();
        for (seq, out) in pending {
            let subtype = out.subtype.clone();
            self.push_outcome(seq, out, Err(ControlError::OutputEnded { subtype }));
        }
        self.cancel_all_incoming(CancelReason::OutputEnded);
    }

    /// Tells the session the time. Requests whose deadline is at or before
    /// `now` fail with [`ControlError::TimedOut`], and the CLI is told to
    /// stop working on them (`control_cancel_request`). Safe to call at any
    /// time, early or late.
    pub fn handle_timeout(&mut self, now: Instant) {
        while let Some(&(deadline, seq)) = self.deadlines.first() {
            if deadline > now {
                break;
            }
            self.deadlines.pop_first();
            let Some(out) = self.outgoing.remove(&seq) else {
                continue;
            };
            self.outgoing_by_wire.remove(&out.wire_id);
            self.write_cancel(&out.wire_id);
            let err = ControlError::TimedOut {
                subtype: out.subtype.clone(),
                after: out.timeout,
            };
            self.push_outcome(seq, out, Err(err));
        }
    }

    /// Gives back the memory this session holds for input it does not
    /// have: the unused rest of the buffer that message lines are copied
    /// into (up to 64 KiB, freed with the last message in it once those
    /// are dropped), and the partial-line buffer when no line is in
    /// progress. Buffers are allocated again as lines come.
    ///
    /// Call it when the CLI's output goes quiet (a read would block), so
    /// an idle session holds no read-ahead memory; calling it more often
    /// costs an allocation per call at most, and changes no event.
    pub fn trim(&mut self) {
        self.message_lines.trim();
        self.splitter.trim();
        if self.transmit.is_empty() {
            self.transmit = Vec::new();
        }
    }

    /// Bytes of capacity the session's input and output buffers hold
    /// beyond what is in them: the rest of the message-line buffer, the
    /// partial-line buffer, the unsent output. Its bookkeeping (requests
    /// waiting, events not polled) is not counted. For tests and memory
    /// figures: after [`trim`](Self::trim) it is the room of a line in
    /// progress at most.
    pub fn spare_capacity(&self) -> usize {
        self.message_lines.free.capacity()
            + self.splitter.spare_capacity()
            + (self.transmit.capacity() - self.transmit.len())
    }

    // ----- commands ---------------------------------------------------------

    /// Sends the `initialize` control request: hooks, in-process MCP
    /// servers, agents, system prompt. Send it first; a prompt may follow at
    /// once, without waiting for the answer (the CLI queues it).
    ///
    /// Its answer arrives as an [`Event::Response`] like any other request.
    /// If the answer lists permission or dialog requests the CLI already has
    /// waiting, each is delivered as an [`Event::Request`] (once, even if it
    /// was also sent on its own).
    pub fn initialize(
        &mut self,
        request: &InitializeRequest,
        timeout: Option<Duration>,
        now: Instant,
    ) -> Result<RequestId, SendError> {
        self.send_call(request, timeout, now)
    }

    /// `true` once the CLI has answered `initialize` with success.
    pub fn is_initialized(&self) -> bool {
        self.initialized
    }

    /// Sends a user message: a prompt (which starts or queues a turn), or
    /// content blocks such as images and tool results.
    pub fn send_user_message(&mut self, message: &UserMessage) -> Result<(), SendError> {
        self.send_json(message)
    }

    /// Sends any JSON object as one line: for message types this crate does
    /// not model. The value must serialize to an object; the CLI treats a
    /// line that is not JSON as fatal, so nothing else is accepted.
    pub fn send_json<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), SendError> {
        self.check_writable()?;
        self.write_json(value)
    }

    /// The deadline a request gets when its call gives none: the
    /// [`Config::request_timeout`], or longer when the CLI's own deadline
    /// for the request's work is longer
    /// ([`ControlRequest::cli_deadline`]: `mcp_call` waits up to its
    /// `timeout_ms`, 2 min by default).
    pub fn default_timeout(&self, request: &ControlRequest) -> Duration {
        request.default_timeout(self.config.request_timeout)
    }

    /// Sends a control request and starts its deadline (`timeout`, or
    /// [`default_timeout`](Self::default_timeout) when `None`; a deadline
    /// too far to represent means none).
    ///
    /// The returned id comes back in exactly one [`Event::Response`].
    pub fn send_control(
        &mut self,
        request: &ControlRequest,
        timeout: Option<Duration>,
        now: Instant,
    ) -> Result<RequestId, SendError> {
        let timeout = timeout.unwrap_or_else(|| self.default_timeout(request));
        self.send_request_body(request.subtype(), request, Some(timeout), now)
    }

    /// Sends a typed control call: the same line as
    /// [`send_control`](Self::send_control) with `ControlRequest::from(call)`,
    /// without building the enum.
    ///
    /// With no `timeout`, the deadline is the longer of
    /// [`Config::request_timeout`] and the CLI's own default for the
    /// subtype's work (`mcp_call`: 2 min); give an `mcp_call` with a longer
    /// `timeout_ms` a timeout of its own, or send it with `send_control`,
    /// which reads `timeout_ms`.
    ///
    /// Decode the success answer of the returned id with
    /// [`ControlSuccess::decode_as::<C>`](ControlSuccess::decode_as), which
    /// gives `C::Response`.
    pub fn send_call<C: ControlCall>(
        &mut self,
        call: &C,
        timeout: Option<Duration>,
        now: Instant,
    ) -> Result<RequestId, SendError> {
        let timeout = timeout.unwrap_or_else(|| {
            let cli = crate::model::control::cli_default_deadline(C::SUBTYPE);
            cli.map_or(self.config.request_timeout, |cli| {
                cli.max(self.config.request_timeout)
            })
        });
        self.send_request_body(C::SUBTYPE, &Tagged::new(call), Some(timeout), now)
    }

    /// Withdraws a request we sent: the CLI is told to stop
    /// (`control_cancel_request`), and the request ends now with
    /// [`ControlError::Cancelled`]; an answer arriving later is ignored.
    /// Returns `false` if it was not waiting any more.
    pub fn cancel_request(&mut self, id: RequestId) -> bool {
        let Some(out) = self.outgoing.remove(&id.0) else {
            return false;
        };
        self.outgoing_by_wire.remove(&out.wire_id);
        if let Some(deadline) = out.deadline {
            self.deadlines.remove(&(deadline, id.0));
        }
        if self.check_writable().is_ok() {
            self.write_cancel(&out.wire_id);
        }
        let subtype = out.subtype.clone();
        self.push_outcome(id.0, out, Err(ControlError::Cancelled { subtype }));
        true
    }

    /// Answers a request from the CLI. Exactly one answer is sent per
    /// request; answering one that was already answered, cancelled by the
    /// CLI, or ended with the session sends nothing and returns
    /// [`RespondError::NotPending`].
    pub fn respond(&mut self, id: IncomingId, reply: Reply) -> Result<(), RespondError> {
        #[derive(Serialize)]
        struct Line<'a> {
            #[serde(rename = "type")]
            ty: &'static str,
            response: Body<'a>,
        }
        #[derive(Serialize)]
        struct Body<'a> {
            subtype: &'static str,
            request_id: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            response: Option<&'a RawValue>,
            #[serde(skip_serializing_if = "Option::is_none")]
            error: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            error_code: Option<&'a str>,
        }
        let Some(entry) = self.incoming.get(&id.0) else {
            return Err(RespondError::NotPending);
        };
        let body = match &reply {
            Reply::Success(payload) => Body {
                subtype: "success",
                request_id: &entry.wire_id,
                response: payload.as_deref(),
                error: None,
                error_code: None,
            },
            Reply::Error { message, code } => Body {
                subtype: "error",
                request_id: &entry.wire_id,
                response: None,
                error: Some(message),
                error_code: code.as_deref(),
            },
        };
        let line = Line {
            ty: "control_response",
            response: body,
        };
        let start = self.transmit.len();
        if let Err(e) = serde_json::to_writer(&mut self.transmit, &line) {
            self.transmit.truncate(start);
            return Err(RespondError::Encode(e.to_string()));
        }
        self.transmit.push(b'\n');
        if let Some(entry) = self.incoming.remove(&id.0) {
            self.forget_incoming_wire(&entry.wire_id, id.0);
        }
        Ok(())
    }

    /// Answers a `can_use_tool` request with a permission decision.
    ///
    /// The request's `tool_use_id` is echoed in the answer (`toolUseID`)
    /// unless the result already carries one, as the official SDKs do.
    pub fn respond_permission(
        &mut self,
        id: IncomingId,
        mut result: PermissionResult,
    ) -> Result<(), RespondError> {
        let entry = self.incoming.get(&id.0).ok_or(RespondError::NotPending)?;
        if result.tool_use_id().is_none() {
            if let Some(tool_use_id) = &entry.tool_use_id {
                result = result.with_tool_use_id(&**tool_use_id);
            }
        }
        let reply = Reply::success(&result).map_err(|e| RespondError::Encode(e.to_string()))?;
        self.respond(id, reply)
    }

    /// Answers a `hook_callback` request with the hook's output
    /// (`HookOutput::default()` means "no opinion").
    pub fn respond_hook(
        &mut self,
        id: IncomingId,
        output: &HookOutput,
    ) -> Result<(), RespondError> {
        let reply = Reply::success(output).map_err(|e| RespondError::Encode(e.to_string()))?;
        self.respond(id, reply)
    }

    /// Answers an `mcp_message` request with the in-process server's
    /// JSON-RPC reply (or [`McpMessageResponse::notification_ack`] for a
    /// notification).
    pub fn respond_mcp(
        &mut self,
        id: IncomingId,
        response: &McpMessageResponse,
    ) -> Result<(), RespondError> {
        let reply = Reply::success(response).map_err(|e| RespondError::Encode(e.to_string()))?;
        self.respond(id, reply)
    }

    /// No more writes: the caller will close the CLI's stdin once it has
    /// written what [`poll_transmit`](Self::poll_transmit) still holds.
    ///
    /// Closing stdin tells the CLI to finish its current turn and exit.
    /// Requests from the CLI still waiting can no longer be answered and are
    /// cancelled ([`CancelReason::InputClosed`]); our own requests still
    /// wait for their answers, which the CLI may yet write.
    pub fn close_input(&mut self) {
        if self.input_closed {
            return;
        }
        self.input_closed = true;
        self.cancel_all_incoming(CancelReason::InputClosed);
    }

    /// `true` after [`close_input`](Self::close_input).
    pub fn is_input_closed(&self) -> bool {
        self.input_closed
    }

    /// `true` after [`handle_eof`](Self::handle_eof).
    pub fn is_output_ended(&self) -> bool {
        self.output_ended
    }

    /// How many requests we sent are waiting for an answer.
    pub fn pending_requests(&self) -> usize {
        self.outgoing.len()
    }

    /// How many requests from the CLI are waiting for our answer.
    pub fn pending_incoming(&self) -> usize {
        self.incoming.len()
    }

    /// Bytes held for an unfinished stdout line (at most
    /// [`Config::max_line_bytes`]).
    pub fn buffered_input(&self) -> usize {
        self.splitter.buffered()
    }

    // ----- outputs ----------------------------------------------------------

    /// Appends the bytes to write to the CLI's stdin (whole NDJSON lines)
    /// to `buf`; `false` if there are none. Lines are in command order.
    pub fn poll_transmit(&mut self, buf: &mut Vec<u8>) -> bool {
        if self.transmit.is_empty() {
            return false;
        }
        if buf.is_empty() {
            std::mem::swap(buf, &mut self.transmit);
        } else {
            buf.extend_from_slice(&self.transmit);
            self.transmit.clear();
        }
        true
    }

    /// When [`handle_timeout`](Self::handle_timeout) must be called next,
    /// if any request has a deadline. Re-read it after every input and
    /// command: it moves.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.deadlines.first().map(|&(deadline, _)| deadline)
    }

    /// The next event, oldest first.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    // ----- internals --------------------------------------------------------

    fn check_writable(&self) -> Result<(), SendError> {
        if self.input_closed {
            Err(SendError::InputClosed)
        } else if self.output_ended {
            Err(SendError::OutputEnded)
        } else {
            Ok(())
        }
    }

    /// Serializes one line into the transmit buffer, or nothing at all.
    fn write_json<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), SendError> {
        let start = self.transmit.len();
        if let Err(e) = serde_json::to_writer(&mut self.transmit, value) {
            self.transmit.truncate(start);
            return Err(SendError::Encode(e));
        }
        if self.transmit.get(start) != Some(&b'{') {
            self.transmit.truncate(start);
            return Err(SendError::NotAnObject);
        }
        self.transmit.push(b'\n');
        Ok(())
    }

    fn send_request_body<T: Serialize + ?Sized>(
        &mut self,
        subtype: &str,
        body: &T,
        timeout: Option<Duration>,
        now: Instant,
    ) -> Result<RequestId, SendError> {
        #[derive(Serialize)]
        struct Line<'a, T: ?Sized> {
            #[serde(rename = "type")]
            ty: &'static str,
            request_id: &'a str,
            request: &'a T,
        }
        self.check_writable()?;
        let seq = self.next_outgoing + 1;
        let wire_id = wire_request_id(seq, self.config.request_id_seed);
        self.write_json(&Line {
            ty: "control_request",
            request_id: &wire_id,
            request: body,
        })?;
        self.next_outgoing = seq;
        let timeout = timeout.unwrap_or(self.config.request_timeout);
        let deadline = now.checked_add(timeout);
        if let Some(deadline) = deadline {
            self.deadlines.insert((deadline, seq));
        }
        let wire_id: Box<str> = wire_id.into();
        self.outgoing_by_wire.insert(wire_id.clone(), seq);
        self.outgoing.insert(
            seq,
            Outgoing {
                wire_id,
                subtype: subtype.to_owned(),
                deadline,
                timeout,
            },
        );
        Ok(RequestId(seq))
    }

    fn write_cancel(&mut self, wire_id: &str) {
        if self.check_writable().is_err() {
            return;
        }
        #[derive(Serialize)]
        struct Cancel<'a> {
            #[serde(rename = "type")]
            ty: &'static str,
            request_id: &'a str,
        }
        // Serializing two string fields cannot fail.
        let _ = self.write_json(&Cancel {
            ty: "control_cancel_request",
            request_id: wire_id,
        });
    }

    fn push_outcome(
        &mut self,
        seq: u64,
        out: Outgoing,
        result: Result<ControlSuccess, ControlError>,
    ) {
        self.events.push_back(Event::Response(ControlOutcome {
            id: RequestId(seq),
            request_id: out.wire_id.into(),
            subtype: out.subtype,
            result,
        }));
    }

    fn cancel_all_incoming(&mut self, reason: CancelReason) {
        let mut ids: Vec<u64> = self.incoming.keys().copied().collect();
        ids.sort_unstable();
        self.incoming.clear();
        self.incoming_by_wire.clear();
        for seq in ids {
            self.events.push_back(Event::RequestCancelled {
                id: IncomingId(seq),
                reason,
            });
        }
    }

    fn forget_incoming_wire(&mut self, wire_id: &str, seq: u64) {
        if self.incoming_by_wire.get(wire_id) == Some(&seq) {
            self.incoming_by_wire.remove(wire_id);
        }
    }

    fn protocol_error(&mut self, kind: ProtocolErrorKind, line: &[u8]) {
        let end = line.len().min(self.config.error_prefix_bytes);
        self.events.push_back(Event::ProtocolError(ProtocolError {
            kind,
            line_prefix: Bytes::copy_from_slice(&line[..end]),
        }));
    }

    fn handle_frame(&mut self, frame: Frame<'_>, at_eof: bool) {
        match frame {
            Frame::Line(line) => self.handle_line(line, at_eof),
            Frame::TooLong { prefix } => {
                let limit = self.config.max_line_bytes;
                self.protocol_error(ProtocolErrorKind::LineTooLong { limit }, prefix);
            }
        }
    }

    fn handle_line(&mut self, line: &[u8], at_eof: bool) {
        // Some wrappers (a Windows shell, a logging shim) put a UTF-8 byte
        // order mark before the first line; it is not part of the JSON.
        let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        #[cfg(fuzzing)]
        crate::route::check_route(line);
        // Nearly every line is a plain message: one scan checks it and
        // reads its type. The way below (serde_json after `from_utf8`)
        // read the benchmark transcript 24% slower (`bench-decode`'s
        // session figure: 2.04M lines/s in the run before this scan, 2.68M
        // after) and stays the authority for everything the scan leaves
        // to it.
        if let Some(route) = crate::route::route(line) {
            let message_type = MessageType::from(route.ty.unwrap_or(""));
            if !matches!(
                message_type,
                MessageType::ControlRequest
                    | MessageType::ControlResponse
                    | MessageType::ControlCancelRequest
            ) {
                let subtype = route.subtype.map(Box::<str>::from);
                return self.push_message(line, message_type, subtype);
            }
        }
        // The envelope pass skips most strings without looking inside, so
        // check the encoding here: every delivered line is valid UTF-8.
        // Once checked, the envelope is read from the `str`: serde_json
        // then takes the keys and routing strings it reads as they are,
        // where reading bytes checks each of them again (7 per line, about
        // 100 instructions each: a tenth of the decode, by callgrind).
        let text = match std::str::from_utf8(line) {
            Ok(text) => text,
            Err(e) => {
                let kind = ProtocolErrorKind::InvalidUtf8 {
                    valid_up_to: e.valid_up_to(),
                };
                return self.protocol_error(kind, line);
            }
        };
        // serde would also read a struct from a JSON array; only objects
        // are messages.
        if line.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
            let kind = match serde_json::from_slice::<IgnoredAny>(line) {
                Ok(_) => ProtocolErrorKind::NotAnObject,
                Err(e) if at_eof && e.is_eof() => ProtocolErrorKind::Truncated {
                    detail: e.to_string(),
                },
                Err(e) => ProtocolErrorKind::InvalidJson {
                    detail: e.to_string(),
                },
            };
            return self.protocol_error(kind, line);
        }
        let envelope: Envelope<'_> = match serde_json::from_str(text) {
            Ok(envelope) => envelope,
            Err(e) => {
                let kind = if at_eof && e.is_eof() {
                    ProtocolErrorKind::Truncated {
                        detail: e.to_string(),
                    }
                } else {
                    ProtocolErrorKind::InvalidJson {
                        detail: e.to_string(),
                    }
                };
                self.protocol_error(kind, line);
                return;
            }
        };
        let message_type = MessageType::from(envelope.ty.as_deref().unwrap_or(""));
        match message_type {
            MessageType::ControlRequest => self.handle_control_request(&envelope, line, false),
            MessageType::ControlResponse => self.handle_control_response(&envelope, line),
            MessageType::ControlCancelRequest => self.handle_cancel(&envelope, line),
            _ => {
                let subtype = envelope.subtype.map(|s| s.into_owned().into_boxed_str());
                self.push_message(line, message_type, subtype);
            }
        }
    }

    fn push_message(&mut self, line: &[u8], message_type: MessageType, subtype: Option<Box<str>>) {
        self.events.push_back(Event::Message(Message {
            line: self.message_lines.copy(line),
            message_type,
            subtype,
        }));
    }

    fn handle_control_request(&mut self, envelope: &Envelope<'_>, line: &[u8], replayed: bool) {
        let Some(wire_id) = envelope.request_id.as_deref() else {
            let kind = ProtocolErrorKind::MalformedControl {
                message_type: "control_request".into(),
                detail: "no string request_id, so it cannot be answered".into(),
            };
            return self.protocol_error(kind, line);
        };
        if replayed {
            if self.seen_before_init.contains(wire_id)
                || self.incoming_by_wire.contains_key(wire_id)
            {
                return;
            }
        } else if !self.initialized && self.seen_before_init.len() < MAX_SEEN_BEFORE_INIT {
            self.seen_before_init.insert(wire_id.into());
        }
        if self.input_closed {
            let subtype = envelope
                .request
                .and_then(|body| serde_json::from_str::<RequestHead<'_>>(body.get()).ok())
                .and_then(|head| head.subtype.map(|s| s.into_owned()));
            return self.refuse(wire_id, subtype, RefusalReason::InputClosed);
        }
        let Some(body) = envelope.request else {
            return self.refuse(
                wire_id,
                None,
                RefusalReason::Malformed("no request object".into()),
            );
        };
        let subtype = match serde_json::from_str::<RequestHead<'_>>(body.get()) {
            Ok(RequestHead {
                subtype: Some(subtype),
            }) => subtype.into_owned(),
            Ok(_) => {
                let reason = RefusalReason::Malformed("the request has no subtype".into());
                return self.refuse(wire_id, None, reason);
            }
            Err(_) => {
                let reason = RefusalReason::Malformed("the request is not an object".into());
                return self.refuse(wire_id, None, reason);
            }
        };
        if self.incoming.len() >= self.config.max_pending_incoming {
            return self.refuse(wire_id, Some(subtype), RefusalReason::TooManyPending);
        }
        let request = match parse_cli_request(body.get()) {
            Ok(CliRequest::Unknown(_)) if CliRequest::SUBTYPES.contains(&subtype.as_str()) => {
                let reason = RefusalReason::Malformed(format!(
                    "the {subtype} request does not have the fields it needs"
                ));
                return self.refuse(wire_id, Some(subtype), reason);
            }
            Ok(CliRequest::Unknown(_)) if self.config.refuse_unknown_requests => {
                return self.refuse(wire_id, Some(subtype), RefusalReason::UnsupportedSubtype);
            }
            Ok(request) => request,
            Err(e) => {
                return self.refuse(
                    wire_id,
                    Some(subtype),
                    RefusalReason::Malformed(e.to_string()),
                );
            }
        };
        let seq = self.next_incoming;
        self.next_incoming += 1;
        let wire_id: Box<str> = wire_id.into();
        self.incoming_by_wire.insert(wire_id.clone(), seq);
        let tool_use_id = match &request {
            CliRequest::CanUseTool(ask) => ask.tool_use_id.as_deref().map(Box::from),
            _ => None,
        };
        self.incoming.insert(
            seq,
            Incoming {
                wire_id: wire_id.clone(),
                tool_use_id,
            },
        );
        self.events.push_back(Event::Request(IncomingRequest {
            id: IncomingId(seq),
            request_id: wire_id.into(),
            subtype,
            request: Box::new(request),
            wire_len: body.get().len(),
        }));
    }

    /// Answers a CLI request with an error on the session's own authority.
    fn refuse(&mut self, wire_id: &str, subtype: Option<String>, reason: RefusalReason) {
        let (message, code) = match &reason {
            RefusalReason::UnsupportedSubtype => (
                format!(
                    "Unsupported control request subtype: {}",
                    subtype.as_deref().unwrap_or("")
                ),
                "unsupported_request",
            ),
            RefusalReason::Malformed(detail) => (
                format!("Invalid control request: {detail}"),
                "invalid_request",
            ),
            RefusalReason::TooManyPending => (
                format!(
                    "Too many unanswered control requests (limit {})",
                    self.config.max_pending_incoming
                ),
                "internal_error",
            ),
            RefusalReason::InputClosed => (String::new(), ""),
        };
        if self.check_writable().is_ok() {
            #[derive(Serialize)]
            struct Line<'a> {
                #[serde(rename = "type")]
                ty: &'static str,
                response: Body<'a>,
            }
            #[derive(Serialize)]
            struct Body<'a> {
                subtype: &'static str,
                request_id: &'a str,
                error: &'a str,
                error_code: &'a str,
            }
            // Serializing plain strings cannot fail.
            let _ = self.write_json(&Line {
                ty: "control_response",
                response: Body {
                    subtype: "error",
                    request_id: wire_id,
                    error: &message,
                    error_code: code,
                },
            });
        }
        self.events.push_back(Event::RequestRefused {
            request_id: wire_id.to_owned(),
            subtype,
            reason,
        });
    }

    fn handle_control_response(&mut self, envelope: &Envelope<'_>, line: &[u8]) {
        let malformed = |detail: &str| ProtocolErrorKind::MalformedControl {
            message_type: "control_response".into(),
            detail: detail.into(),
        };
        let Some(body) = envelope.response else {
            return self.protocol_error(malformed("no response object"), line);
        };
        let Ok(head) = serde_json::from_str::<ResponseHead<'_>>(body.get()) else {
            return self.protocol_error(malformed("the response is not an object"), line);
        };
        let Some(wire_id) = head.request_id.as_deref() else {
            return self.protocol_error(malformed("no string request_id"), line);
        };
        let Some(seq) = self.outgoing_by_wire.remove(wire_id) else {
            let kind = ProtocolErrorKind::UnmatchedResponse {
                request_id: wire_id.to_owned(),
            };
            return self.protocol_error(kind, line);
        };
        let Some(out) = self.outgoing.remove(&seq) else {
            return;
        };
        if let Some(deadline) = out.deadline {
            self.deadlines.remove(&(deadline, seq));
        }
        let is_error = match head.subtype.as_deref() {
            Some("success") => false,
            Some("error") => true,
            // An unknown subtype: an error message is the only sign left.
            _ => head.error.is_some(),
        };
        let result = if is_error {
            Err(ControlError::Rejected {
                subtype: out.subtype.clone(),
                message: head
                    .error
                    .as_deref()
                    .unwrap_or("(the CLI gave no message)")
                    .to_owned(),
                code: head.error_code.as_deref().map(str::to_owned),
            })
        } else {
            Ok(ControlSuccess {
                payload: head.response.map(RawValue::to_owned),
            })
        };
        let is_initialize = out.subtype == "initialize";
        if is_initialize && result.is_ok() {
            self.initialized = true;
        }
        self.push_outcome(seq, out, result);
        if is_initialize {
            for list in [
                head.pending_permission_requests,
                head.pending_user_dialog_requests,
                head.pending_elicitation_requests,
            ]
            .into_iter()
            .flatten()
            {
                self.replay_pending_requests(list);
            }
            // Nothing later can be listed as waiting from before the answer.
            self.seen_before_init = HashSet::new();
        }
    }

    /// Delivers requests the CLI lists as already waiting in its
    /// `initialize` answer, skipping any we already hold.
    fn replay_pending_requests(&mut self, list: &RawValue) {
        let Ok(items) = serde_json::from_str::<Vec<&RawValue>>(list.get()) else {
            return;
        };
        for item in items {
            let bytes = item.get().as_bytes();
            if let Ok(envelope) = serde_json::from_slice::<Envelope<'_>>(bytes) {
                if envelope.ty.as_deref() == Some("control_request") {
                    self.handle_control_request(&envelope, bytes, true);
                }
            }
        }
    }

    fn handle_cancel(&mut self, envelope: &Envelope<'_>, line: &[u8]) {
        let Some(wire_id) = envelope.request_id.as_deref() else {
            let kind = ProtocolErrorKind::MalformedControl {
                message_type: "control_cancel_request".into(),
                detail: "no string request_id".into(),
            };
            return self.protocol_error(kind, line);
        };
        // A cancel for a request already answered crossed our answer on the
        // wire; there is nothing left to do.
        if let Some(seq) = self.incoming_by_wire.remove(wire_id) {
            self.incoming.remove(&seq);
            self.events.push_back(Event::RequestCancelled {
                id: IncomingId(seq),
                reason: CancelReason::CancelledByCli,
            });
        }
    }
}
