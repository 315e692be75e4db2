//! What the user of a session reads, and the queue that holds it, bounded
//! in bytes.

use std::collections::VecDeque;

use claude_proto::{Message, ProtocolError, RefusalReason};

/// Something the user of a session should see.
///
/// Control traffic (permission prompts, hooks, MCP calls, answers to your
/// control requests) is handled by the session and its handlers and does
/// not appear here.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Event {
    /// A message from the CLI: assistant, user, result, system, stream
    /// events, and types this version does not know. Parse it with
    /// [`Message::parse`].
    Message(Message),
    /// The CLI wrote a line that could not be used; reading goes on.
    ProtocolError(ProtocolError),
    /// A request from the CLI was answered with an error by the session
    /// itself (an unsupported subtype, for example).
    RequestRefused {
        /// The CLI's id of the request.
        request_id: String,
        /// Its subtype, if it had one.
        subtype: Option<String>,
        /// Why it was refused.
        reason: RefusalReason,
    },
    /// One of your handlers failed (returned an error or panicked); the CLI
    /// was given the failure answer described in
    /// [`claude_proto::dispatch::reply_for_failure`].
    HandlerFailed {
        /// The request's subtype.
        subtype: String,
        /// The error or panic message.
        message: String,
    },
    /// The CLI's version is older than this library supports, or it did
    /// not report one: the session runs, but some features may not work.
    /// Given once, right after the `initialize` answer (see
    /// [`Limits::check_cli_version`](crate::Limits::check_cli_version)).
    CliVersion(claude_proto::version::VersionCheck),
    /// Transcript lines did not reach the session store (after the retries,
    /// or at once when they cannot be stored); the session goes on, and
    /// the CLI's own transcript on disk still has them.
    MirrorFailed(crate::mirror::MirrorFailure),
}

impl Event {
    /// The message, if this is one.
    pub fn as_message(&self) -> Option<&Message> {
        match self {
            Event::Message(message) => Some(message),
            _ => None,
        }
    }

    /// The text of a streamed `text_delta` (sent when partial messages are
    /// on, `Options::include_partial_messages`), if this event is one: the
    /// piece of the answer to print as it arrives. Parses only
    /// `stream_event` messages; `None` for everything else.
    pub fn text_delta(&self) -> Option<String> {
        let message = self.as_message()?;
        if *message.message_type() != claude_proto::model::MessageType::StreamEvent {
            return None;
        }
        match message.parse().ok()? {
            claude_proto::model::stdout::StdoutMessage::StreamEvent(stream) => {
                stream.event.text_delta().map(str::to_owned)
            }
            _ => None,
        }
    }

    /// The session id this event names, if it is one of the two messages
    /// that name the session: `system`/`init` (each turn starts with one)
    /// and `result`. Parses only those.
    pub fn session_id(&self) -> Option<String> {
        let message = self.as_message()?;
        let names_session = message.is_result()
            || (*message.message_type() == claude_proto::model::MessageType::System
                && message.subtype() == Some("init"));
        if !names_session {
            return None;
        }
        // Not `parse()`: adapters call this on every event they hand over,
        // and decoding a whole `system/init` (tools, servers, agents) only
        // for its id cost about a tenth of the end-to-end time. Both lines
        // that name the session have the id at the top level, where the
        // typed and the untyped decoding both read it.
        message.session_id()
    }

    /// What holding this event costs, in bytes, for the read-ahead budget:
    /// the line it came from, or a small fixed cost.
    pub fn cost(&self) -> usize {
        const OVERHEAD: usize = 64;
        OVERHEAD
            + match self {
                Event::Message(message) => message.as_bytes().len(),
                Event::ProtocolError(error) => error.line_prefix.len(),
                Event::RequestRefused { request_id, .. } => request_id.len(),
                Event::HandlerFailed { subtype, message } => subtype.len() + message.len(),
                Event::CliVersion(_) => 0,
                Event::MirrorFailed(failure) => failure.error.len(),
            }
    }
}

/// Numbers the turns of a session: turn `n` is the one started by the
/// `n`-th user message sent (counting from 0) and ended by the `n`-th
/// `result` the CLI writes.
pub type TurnId = u64;

/// An event as the host hands it over: with the turn it belongs to.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Delivery {
    /// The turn the event was read in: the number of `result` messages
    /// read before it (a `result` belongs to the turn it ends).
    pub turn: TurnId,
    /// The event.
    pub event: Event,
}

/// Events waiting for the user, counted in bytes.
#[derive(Debug, Default)]
pub(crate) struct EventQueue {
    queue: VecDeque<(Delivery, usize)>,
    bytes: usize,
    discarding: bool,
}

impl EventQueue {
    pub(crate) fn push(&mut self, delivery: Delivery) {
        if self.discarding {
            return;
        }
        let cost = delivery.event.cost();
        self.bytes += cost;
        self.queue.push_back((delivery, cost));
    }

    pub(crate) fn pop(&mut self) -> Option<Delivery> {
        let (delivery, cost) = self.queue.pop_front()?;
        self.bytes -= cost;
        Some(delivery)
    }

    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Gives back the room of a burst once it is read: all of it when
    /// empty, down to twice what waits once that is under a quarter.
    pub(crate) fn trim(&mut self) {
        crate::buffer::trim_deque(&mut self.queue);
    }

    /// Bytes of room in the queue beyond what waits in it.
    pub(crate) fn spare_capacity(&self) -> usize {
        crate::buffer::deque_spare(&self.queue)
    }

    /// Nobody reads any more: drop what waits and everything that follows.
    pub(crate) fn discard(&mut self) {
        self.discarding = true;
        self.queue.clear();
        self.bytes = 0;
    }
}
