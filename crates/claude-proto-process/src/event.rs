//! What the session's event stream yields.

use claude_proto::{Message, ProtocolError, RefusalReason};

/// Something the user of a session should see.
///
/// Control traffic (permission prompts, hooks, MCP calls, answers to your
/// control requests) is handled by the session and its handlers and does
/// not appear here.
#[derive(Debug)]
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
}

impl Event {
    /// The message, if this is one.
    pub fn as_message(&self) -> Option<&Message> {
        match self {
            Event::Message(message) => Some(message),
            _ => None,
        }
    }
}
