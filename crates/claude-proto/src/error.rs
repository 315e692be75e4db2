//! Everything that can go wrong, by who has to act on it.

use std::fmt;
use std::time::Duration;

use bytes::Bytes;

/// A stdout line the session could not use. Reading goes on after it.
///
/// Delivered as [`Event::ProtocolError`](crate::Event::ProtocolError); it
/// carries what kind of problem it was and the first bytes of the line (at
/// most [`Config::error_prefix_bytes`](crate::Config)), so logs show what the
/// CLI actually wrote.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind}; the line began: {}", Prefix(&self.line_prefix))]
pub struct ProtocolError {
    /// What was wrong with the line.
    pub kind: ProtocolErrorKind,
    /// The first bytes of the offending line, as received.
    pub line_prefix: Bytes,
}

/// What was wrong with a stdout line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProtocolErrorKind {
    /// Not valid UTF-8, so not JSON; every line delivered is valid UTF-8.
    #[error(
        "the CLI wrote a line that is not valid UTF-8 (first bad byte at offset {valid_up_to})"
    )]
    InvalidUtf8 {
        /// Length of the valid prefix, in bytes.
        valid_up_to: usize,
    },
    /// Not valid JSON (this includes stray NUL and control bytes).
    #[error("the CLI wrote a line that is not valid JSON ({detail})")]
    InvalidJson {
        /// The parser's description, with line and column.
        detail: String,
    },
    /// Valid JSON, but not an object, so it cannot be a message.
    #[error("the CLI wrote a JSON value that is not an object")]
    NotAnObject,
    /// Longer than [`Config::max_line_bytes`](crate::Config); skipped up to
    /// its newline without being buffered.
    #[error(
        "the CLI wrote a line longer than the {limit}-byte limit; it was skipped (raise Config::max_line_bytes if such lines are expected)"
    )]
    LineTooLong {
        /// The limit in force.
        limit: usize,
    },
    /// Output ended in the middle of a line and the remainder is not valid
    /// JSON (the CLI was probably killed while writing).
    #[error("the CLI's output ended inside a line ({detail})")]
    Truncated {
        /// The parser's description.
        detail: String,
    },
    /// A control message without the fields needed to route it (e.g. a
    /// `control_request` without a `request_id`), so it cannot be answered.
    #[error("the CLI wrote a malformed {message_type} ({detail})")]
    MalformedControl {
        /// The message's `type`.
        message_type: String,
        /// What was missing or wrong.
        detail: String,
    },
    /// A `control_response` whose `request_id` matches no request waiting
    /// for an answer: never sent, already answered, timed out or cancelled.
    #[error(
        "the CLI answered request {request_id:?}, which is not waiting for an answer (it may have timed out or been cancelled)"
    )]
    UnmatchedResponse {
        /// The wire id in the response.
        request_id: String,
    },
}

/// Shows a byte prefix as text, escaping what is not printable UTF-8.
struct Prefix<'a>(&'a [u8]);

impl fmt::Display for Prefix<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", String::from_utf8_lossy(self.0))
    }
}

/// Why a command that writes to the CLI's stdin was refused. Nothing was
/// queued when this is returned.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SendError {
    /// [`Session::close_input`](crate::Session::close_input) was called;
    /// the CLI's stdin is closed and nothing more can be written.
    #[error("the CLI's stdin is already closed; start a new session to send more")]
    InputClosed,
    /// The CLI's output ended ([`Session::handle_eof`](crate::Session::handle_eof));
    /// the process is gone or going, so nothing more is sent.
    #[error("the CLI's output has ended (the process exited); start a new session to send more")]
    OutputEnded,
    /// The value did not serialize to a JSON object, so it cannot be a line
    /// of the protocol.
    #[error("only JSON objects can be sent to the CLI")]
    NotAnObject,
    /// The value could not be serialized.
    #[error("could not encode the message as JSON: {0}")]
    Encode(#[from] serde_json::Error),
}

/// Why [`Session::respond`](crate::Session::respond) did not send an answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RespondError {
    /// The request is no longer waiting: it was already answered, the CLI
    /// cancelled it ([`Event::RequestCancelled`](crate::Event)), or the
    /// session ended. The answer was dropped, as the protocol requires.
    #[error(
        "the CLI request is no longer waiting for an answer (already answered, cancelled, or the session ended); the answer was dropped"
    )]
    NotPending,
    /// The answer could not be serialized.
    #[error("could not encode the answer as JSON: {0}")]
    Encode(String),
}

/// How one of our control requests failed. Exactly one
/// [`ControlOutcome`](crate::ControlOutcome) per request carries either its
/// answer or one of these.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ControlError {
    /// The CLI answered with an error response.
    #[error("the CLI refused `{subtype}`: {message}{}", code.as_deref().map(|c| format!(" ({c})")).unwrap_or_default())]
    Rejected {
        /// The request's subtype.
        subtype: String,
        /// The CLI's explanation.
        message: String,
        /// The CLI's machine-readable `error_code`, when it sent one.
        code: Option<String>,
    },
    /// No answer arrived before the request's deadline.
    #[error(
        "the CLI did not answer `{subtype}` within {after:?}; it may be busy or hung (give the request a longer timeout if it is expected to take long)"
    )]
    TimedOut {
        /// The request's subtype.
        subtype: String,
        /// The timeout that ran out.
        after: Duration,
    },
    /// The CLI's output ended before it answered.
    #[error(
        "the CLI's output ended before it answered `{subtype}` (the process probably exited; see its exit status and stderr)"
    )]
    OutputEnded {
        /// The request's subtype.
        subtype: String,
    },
    /// Withdrawn with [`Session::cancel_request`](crate::Session::cancel_request).
    #[error("`{subtype}` was cancelled before the CLI answered")]
    Cancelled {
        /// The request's subtype.
        subtype: String,
    },
}

/// A typed view of a line or payload did not match its schema.
///
/// The raw bytes are still available; only the typed view failed.
#[derive(Debug, thiserror::Error)]
#[error("could not decode {what}: {source}")]
pub struct DecodeError {
    pub(crate) what: &'static str,
    #[source]
    pub(crate) source: serde_json::Error,
}
