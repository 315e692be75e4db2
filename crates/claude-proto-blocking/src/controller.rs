//! The split handle: everything but reading events, cloneable and usable
//! from any thread.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::time::{Duration, Instant};

use claude_proto::dispatch::McpServerSpec;
use claude_proto::model::control::{
    ContextUsage, ControlCall, ControlRequest, InterruptResponse, McpStatusResponse,
    RewindFilesResult,
};
use claude_proto::model::initialize::InitializeResponse;
use claude_proto::model::permission::PermissionMode;
use claude_proto::model::user::UserMessage;
use claude_proto::{ControlSuccess, DecodeError};
use claude_proto_adapter::handlers::{Blocking, LiveTools};
use claude_proto_host::{CallReply, Claim, Claimed, Command, Error, MAX_DURATION, TurnId};
use serde::de::DeserializeOwned;

use crate::channels::{Input, Waiter};
use crate::handlers::Tool;
use crate::parts::Parts;
use crate::shared::Shared;

/// The control side of a session, split from its events: send prompts,
/// interrupt, switch model or permission mode, make any control call, and
/// start closing, from any thread, while another thread owns the
/// [`Claude`](crate::Claude) and reads its events.
///
/// Get one with [`Claude::controller`](crate::Claude::controller). It is
/// cheap to clone (a channel sender and a reference count) and `Send +
/// Sync`; every clone talks to the same session. A
/// [`Claude`](crate::Claude) dereferences to its controller, so these
/// methods are also called on the session itself: there is one
/// implementation of each.
///
/// A controller does not keep the session alive: dropping the
/// [`Claude`](crate::Claude) closes the session, after which every call
/// here fails with [`Error::Ended`]. No call waits on a CLI that stopped
/// reading its stdin: commands are taken at once, and refused
/// ([`Error::Backlog`]) when the unwritten bytes pass their budget.
#[derive(Debug, Clone)]
pub struct Controller {
    input: SyncSender<Input>,
    shared: Arc<Shared>,
    request_timeout: Duration,
    init_timeout: Duration,
    init_deadline: Option<Instant>,
    tools: LiveTools<Blocking>,
}

impl Controller {
    pub(crate) fn new(parts: &Parts) -> Self {
        Self {
            input: parts.input.clone(),
            shared: parts.shared.clone(),
            request_timeout: parts.request_timeout,
            init_timeout: parts.init_timeout,
            init_deadline: parts.init_deadline,
            tools: parts.tools.clone(),
        }
    }

    /// The session id, from the latest `system`/`init` or `result` message
    /// the session has read (`None` before the first). Pass it to
    /// `Options::resume` to continue the conversation in a new session.
    pub fn session_id(&self) -> Option<String> {
        self.shared.session_id()
    }

    /// The CLI's answer to `initialize` (sent at start): its commands,
    /// models, account and version.
    ///
    /// Waits until the answer comes, the session ends (then the error
    /// carries the exit status and stderr), or the initialize timeout
    /// counted from the start passes, whichever is first. The session
    /// keeps the answer as its JSON (half the memory of the typed value),
    /// so each call decodes it anew: keep the `Arc` if you read it often.
    pub fn initialization(&self) -> Result<Arc<InitializeResponse>, Error> {
        match self.shared.wait_init(self.init_deadline) {
            Some(result) => result?.decode(),
            None => Err(Error::TimedOut {
                subtype: "initialize".into(),
                after: self.init_timeout,
                stall: self.shared.stall(),
            }),
        }
    }

    /// Sends a prompt or any user message, queued after everything sent
    /// before; it does not wait for the turn.
    ///
    /// Waits only for the driver thread to take the message (never for the
    /// CLI to read it). `Ok` means it is queued for stdin and will be
    /// written unless the session ends first; an error means it was not
    /// queued: [`Error::Backlog`] when the bytes waiting for the CLI's
    /// stdin are over their budget (`Limits::max_unwritten_bytes`), because
    /// the CLI is not reading it or because messages are sent faster than
    /// the pipe drains; [`Error::Ended`] after the end.
    pub fn send(&self, message: UserMessage) -> Result<(), Error> {
        self.send_turn(message).map(drop)
    }

    /// Sends a text prompt; see [`send`](Self::send).
    pub fn send_text(&self, text: impl Into<String>) -> Result<(), Error> {
        self.send(UserMessage::text(text))
    }

    /// Sends `message` and returns the turn it starts.
    pub(crate) fn send_turn(&self, message: UserMessage) -> Result<TurnId, Error> {
        let (waiter, reply) = sync_channel(1);
        self.command(Command::Send {
            message: Box::new(message),
            waiter,
        })?;
        match reply.recv() {
            Ok(Ok(CallReply::Sent { turn })) => Ok(turn),
            Ok(Err(error)) => Err(error),
            _ => Err(self.shared.ended_error()),
        }
    }

    /// Sends any control request and waits for its answer.
    ///
    /// Returns by the deadline, `timeout` (default: the config's request
    /// timeout, or the CLI's own deadline for the request's work where that
    /// is longer: `mcp_call` waits its `timeout_ms`, 2 min by default)
    /// counted from this call, whatever the CLI or the driver
    /// thread do: with the answer, the CLI's error, the session's end, or
    /// [`Error::TimedOut`] (naming the byte budget that kept the answer
    /// unread, if one did). After a timeout the request may still reach
    /// the CLI and take effect; its late answer is dropped.
    pub fn control(
        &self,
        request: ControlRequest,
        timeout: Option<Duration>,
    ) -> Result<ControlSuccess, Error> {
        let issued_at = Instant::now();
        let subtype = request.subtype().to_owned();
        let timeout =
            Some(timeout.unwrap_or_else(|| request.default_timeout(self.request_timeout)));
        let (waiter, reply) = sync_channel(1);
        self.command(Command::Call {
            request: Box::new(request),
            timeout,
            issued_at,
            waiter,
        })?;
        self.answer(&subtype, issued_at, timeout, &reply)
    }

    /// Waits for the answer to a control request sent at `issued_at`, by
    /// its deadline.
    fn answer(
        &self,
        subtype: &str,
        issued_at: Instant,
        timeout: Option<Duration>,
        reply: &Receiver<Result<CallReply, Error>>,
    ) -> Result<ControlSuccess, Error> {
        let after = timeout.unwrap_or(self.request_timeout).min(MAX_DURATION);
        let left = issued_at
            .checked_add(after)
            .map_or(after, |at| at.saturating_duration_since(Instant::now()));
        match reply.recv_timeout(left) {
            Ok(Ok(CallReply::Answered(success))) => Ok(success),
            Ok(Err(error)) => Err(error),
            Err(RecvTimeoutError::Timeout) => Err(Error::TimedOut {
                subtype: subtype.to_owned(),
                after,
                stall: self.shared.stall(),
            }),
            _ => Err(self.shared.ended_error()),
        }
    }

    /// Sends a typed control request and decodes its answer as the type
    /// the request names (see [`ControlCall`]). Waits as
    /// [`control`](Self::control) does, with the default timeout (give
    /// another to `control` and decode with
    /// [`ControlSuccess::decode_as`]).
    pub fn call<C: ControlCall>(&self, request: C) -> Result<C::Response, Error> {
        Ok(self.control(request.into(), None)?.decode_as::<C>()?)
    }

    fn control_typed<T: DeserializeOwned>(&self, request: ControlRequest) -> Result<T, Error> {
        let success = self.control(request, None)?;
        success.decode().map_err(|e: DecodeError| e.into())
    }

    /// Interrupts the current turn; it ends with an error `result`, which
    /// the thread reading events still receives. Waits
    /// as [`control`](Self::control) does, with the default timeout.
    pub fn interrupt(&self) -> Result<InterruptResponse, Error> {
        self.control_typed(ControlRequest::interrupt())
    }

    /// Sends `interrupt` and returns at once, without its answer: for a
    /// reader that must go on reading while the CLI ends the turn
    /// ([`TurnStream::finish_by`](crate::TurnStream::finish_by)).
    pub(crate) fn interrupt_without_waiting(&self) -> Result<(), Error> {
        let request = ControlRequest::interrupt();
        let timeout = Some(request.default_timeout(self.request_timeout));
        // The answer goes to a channel no one reads: the driver's send to
        // it cannot block (one slot), and its outcome is dropped.
        let (waiter, _reply) = sync_channel(1);
        self.command(Command::Call {
            request: Box::new(request),
            timeout,
            issued_at: Instant::now(),
            waiter,
        })
    }

    /// Switches the model to `model` (a name or alias). Waits as
    /// [`control`](Self::control) does.
    pub fn set_model(&self, model: impl Into<String>) -> Result<(), Error> {
        let model = model.into();
        self.control(ControlRequest::set_model(Some(&model)), None)
            .map(drop)
    }

    /// Switches back to the default model. Waits as
    /// [`control`](Self::control) does.
    pub fn reset_model(&self) -> Result<(), Error> {
        self.control(ControlRequest::set_model(None), None)
            .map(drop)
    }

    /// Switches the permission mode. Waits as [`control`](Self::control)
    /// does.
    pub fn set_permission_mode(&self, mode: PermissionMode) -> Result<(), Error> {
        self.control(ControlRequest::set_permission_mode(mode), None)
            .map(drop)
    }

    /// Sets the thinking budget (`None`: the default). Waits as
    /// [`control`](Self::control) does.
    pub fn set_max_thinking_tokens(&self, tokens: Option<u64>) -> Result<(), Error> {
        self.control(ControlRequest::set_max_thinking_tokens(tokens), None)
            .map(drop)
    }

    /// The status of every MCP server. Waits as [`control`](Self::control)
    /// does.
    pub fn mcp_status(&self) -> Result<McpStatusResponse, Error> {
        self.control_typed(ControlRequest::mcp_status())
    }

    /// How the context window is used. Waits as
    /// [`control`](Self::control) does.
    pub fn get_context_usage(&self) -> Result<ContextUsage, Error> {
        self.control_typed(ControlRequest::get_context_usage())
    }

    /// Rewinds files changed since the given user message (needs file
    /// checkpointing enabled in the options). Waits as
    /// [`control`](Self::control) does.
    pub fn rewind_files(
        &self,
        user_message_id: &str,
        dry_run: bool,
    ) -> Result<RewindFilesResult, Error> {
        self.control_typed(ControlRequest::rewind_files(user_message_id, dry_run))
    }

    /// Stops a background task. Waits as [`control`](Self::control) does.
    pub fn stop_task(&self, task_id: &str) -> Result<(), Error> {
        self.control(ControlRequest::stop_task(task_id), None)
            .map(drop)
    }

    /// Adds `tool` to the in-process MCP server named `server` (one
    /// registered on the builder), replacing a tool of the same name, and
    /// tells the CLI, which lists the server's tools again before the
    /// model's next request. Waits as [`control`](Self::control) does, for
    /// the CLI's acknowledgement; the tool can be called from the moment
    /// the CLI has it, even if this then times out.
    ///
    /// Fails with [`Error::UnknownMcpServer`] if no server of that name
    /// was registered (servers themselves are fixed at start). Any other
    /// error (the session ended, the CLI's stdin backed up, no
    /// acknowledgement in time) leaves the change made in this session but
    /// perhaps untold to the CLI: call again to tell it. A call of a tool
    /// removed while it was on its way is answered `Unknown tool`.
    pub fn add_tool(&self, server: &str, tool: Tool) -> Result<(), Error> {
        let issued_at = Instant::now();
        let (waiter, reply) = sync_channel(1);
        // Queued under the tools' lock, so changes reach the driver in the
        // order they were made.
        let queued = self.tools.add(server, tool, |spec| {
            self.update_server(spec, issued_at, waiter)
        });
        self.tools_changed(server, queued, issued_at, &reply)
    }

    /// Removes the tool `tool` from the in-process MCP server named
    /// `server` and tells the CLI, as [`add_tool`](Self::add_tool) does.
    /// From then on a call of it is answered as an unknown tool (one
    /// already running finishes). Removing a tool the server does not have
    /// changes nothing and tells the CLI nothing.
    pub fn remove_tool(&self, server: &str, tool: &str) -> Result<(), Error> {
        let issued_at = Instant::now();
        let (waiter, reply) = sync_channel(1);
        let queued = match self.tools.remove(server, tool, |spec| {
            self.update_server(spec, issued_at, waiter)
        }) {
            Some(None) => return Ok(()),
            Some(Some(queued)) => Some(queued),
            None => None,
        };
        self.tools_changed(server, queued, issued_at, &reply)
    }

    fn update_server(
        &self,
        spec: McpServerSpec,
        issued_at: Instant,
        waiter: Waiter,
    ) -> Result<(), Error> {
        self.command(Command::UpdateMcpServer {
            spec: Box::new(spec),
            issued_at,
            waiter,
        })
    }

    fn tools_changed(
        &self,
        server: &str,
        queued: Option<Result<(), Error>>,
        issued_at: Instant,
        reply: &Receiver<Result<CallReply, Error>>,
    ) -> Result<(), Error> {
        let Some(queued) = queued else {
            return Err(Error::UnknownMcpServer {
                name: server.to_owned(),
            });
        };
        queued?;
        self.answer("mcp_message", issued_at, None, reply).map(drop)
    }

    /// Waits until every transcript line the CLI has mirrored so far is in
    /// the session store, or reported as
    /// [`Event::MirrorFailed`](claude_proto_host::Event::MirrorFailed):
    /// lines waiting for the turn's end are sent now. Read-your-writes for
    /// a program that lists or loads sessions from the store right after a
    /// turn (the turn's `result` does not wait for the store, so a slow
    /// store never delays a turn). Returns at once without a store. Waits
    /// at most as long as the store's append deadline allows.
    ///
    /// Fails with the session's end once its driver has finished (by then
    /// the last lines were stored, or reported).
    pub fn flush_mirror(&self) -> Result<(), Error> {
        let (waiter, reply) = sync_channel(1);
        self.command(Command::FlushMirror { waiter })?;
        match reply.recv() {
            Ok(result) => result.map(drop),
            Err(_) => Err(self.shared.ended_error()),
        }
    }

    /// Closes the CLI's stdin once everything sent is written: the CLI
    /// finishes its turn and exits, and the events then end. Requests from
    /// the CLI can no longer be answered after this. Does not wait (only
    /// for the driver thread to take the command); fails only once the
    /// session has ended.
    pub fn end_input(&self) -> Result<(), Error> {
        self.command(Command::EndInput)
    }

    /// Closes the CLI's stdin once the run is over, as the official SDKs'
    /// one-shot runs do: at once if nothing registered can be called back
    /// (hooks, handlers, in-process MCP servers); otherwise when the CLI
    /// reports the session idle after a result with no background agent in
    /// flight, or `ceiling` passes between turns (`None`: no ceiling;
    /// [`run_end_ceiling`](claude_proto_process::run_end_ceiling) reads it
    /// as the CLI does). Until then a background agent's follow-up turns
    /// are served: their hooks, permission prompts and tool calls are
    /// answered. The events then end when the CLI exits. Send it after the
    /// run's prompt; the rules are in [`claude_proto_host::run_end`]. Does
    /// not wait; fails only once the session has ended.
    pub fn end_input_at_run_end(&self, ceiling: Option<Duration>) -> Result<(), Error> {
        self.command(Command::EndInputAtRunEnd { ceiling })
    }

    /// Starts the close sequence from any thread: stdin closed, then
    /// SIGTERM after the close grace, then SIGKILL after the terminate
    /// grace. It waits for nothing (only for the driver thread to take the
    /// command); the thread that owns the events keeps reading them until
    /// they end (events still unread are delivered), and its
    /// [`Claude::close`](crate::Claude::close) returns the exit report.
    ///
    /// Idempotent, and a no-op once the session has ended.
    pub fn request_close(&self) {
        // An error means the session has ended: nothing to close.
        let _ = self.command(Command::Close);
    }

    /// Hands a command to the driver thread.
    /// Claims the parked spare this session is (see
    /// [`Spare::claim`](crate::Spare::claim)). Waits for the host's
    /// outcome, which comes by the claim's request deadlines at the latest.
    pub(crate) fn claim(&self, claim: Claim) -> Result<Claimed, Error> {
        let (waiter, reply) = sync_channel(1);
        self.command(Command::Claim {
            claim: Box::new(claim),
            issued_at: Instant::now(),
            waiter,
        })?;
        match reply.recv() {
            Ok(Ok(CallReply::Claimed(claimed))) => Ok(*claimed),
            Ok(Err(error)) => Err(error),
            _ => Err(self.shared.ended_error()),
        }
    }

    /// Whether the session has ended.
    pub(crate) fn has_ended(&self) -> bool {
        self.shared.ended().is_some()
    }

    fn command(&self, command: Command<Waiter>) -> Result<(), Error> {
        self.input
            .send(Input::Command(command))
            .map_err(|_| self.shared.ended_error())
    }
}
