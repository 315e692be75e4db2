//! What [`Session::poll_event`](crate::Session::poll_event) yields.

use std::fmt;

use bytes::Bytes;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use crate::error::{ControlError, DecodeError, ProtocolError};
use crate::id::{IncomingId, RequestId};
use crate::model::MessageType;
use crate::model::control::ControlCall;
use crate::model::incoming::CliRequest;
use crate::model::stdout::StdoutMessage;

/// Something the session learned from the CLI or from the passing of time.
///
/// Drain them with [`Session::poll_event`](crate::Session::poll_event) after
/// every input and command. Matching must allow for variants added later.
#[derive(Debug)]
#[non_exhaustive]
pub enum Event {
    /// A line that is not part of the control channel: assistant, user,
    /// result, system, stream events, keep-alives, and every type this
    /// crate does not know yet. Nothing is filtered out.
    Message(Message),
    /// The CLI asks something (permission, hook, in-process MCP call, ...)
    /// and waits for [`Session::respond`](crate::Session::respond).
    Request(IncomingRequest),
    /// A request from the CLI will not take an answer any more: the CLI
    /// withdrew it, or the session can no longer write. Stop its handler;
    /// a late answer is dropped by the session.
    RequestCancelled {
        /// The request.
        id: IncomingId,
        /// Why it ended.
        reason: CancelReason,
    },
    /// A request from the CLI that the session answered with an error by
    /// itself, so the CLI is never left waiting. Informational.
    RequestRefused {
        /// The CLI's wire id of the request.
        request_id: String,
        /// The request's subtype, if it had one.
        subtype: Option<String>,
        /// Why it was refused.
        reason: RefusalReason,
    },
    /// The one outcome of a control request this side sent.
    Response(ControlOutcome),
    /// A line that could not be used. Reading continues.
    ProtocolError(ProtocolError),
}

/// Why a request from the CLI ended without an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CancelReason {
    /// The CLI sent `control_cancel_request` for it.
    CancelledByCli,
    /// [`Session::close_input`](crate::Session::close_input) closed the
    /// channel answers travel on.
    InputClosed,
    /// The CLI's output ended; the process is gone.
    OutputEnded,
}

/// Why the session answered a request from the CLI with an error itself.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RefusalReason {
    /// A subtype this crate does not know; answered with
    /// `error_code: "unsupported_request"`, as the official SDKs do.
    UnsupportedSubtype,
    /// The request body did not match its subtype's schema.
    Malformed(String),
    /// [`Config::max_pending_incoming`](crate::Config) requests were already
    /// waiting for answers.
    TooManyPending,
    /// The CLI's stdin was already closed, so no answer could be written at
    /// all; nothing was sent.
    InputClosed,
}

/// One stdout line that is not part of the control channel.
///
/// Only its `type` and `subtype` have been read. [`Message::parse`] gives
/// the typed view on demand, so a program that only forwards or filters
/// lines never pays for a full parse; [`Message::as_bytes`] is the line
/// exactly as the CLI wrote it.
///
/// The line is a slice of a 64 KiB buffer that the session fills with the
/// message lines it reads one after another (a line longer than that gets
/// a buffer of its own): an allocation per line cost the adapters more
/// than anything else above the decoding. The buffer lives as long as any
/// message in it, so to keep a few messages for long, keep
/// [`detached`](Message::detached) copies of them.
#[derive(Clone)]
pub struct Message {
    pub(crate) line: Bytes,
    pub(crate) message_type: MessageType,
    pub(crate) subtype: Option<Box<str>>,
}

impl Message {
    /// The line's `type` (unknown types included, verbatim).
    pub fn message_type(&self) -> &MessageType {
        &self.message_type
    }

    /// The line's top-level `subtype` (for `system` and `result`), if any.
    pub fn subtype(&self) -> Option<&str> {
        self.subtype.as_deref()
    }

    /// `true` for a `result` line: the end of a turn.
    pub fn is_result(&self) -> bool {
        self.message_type == MessageType::Result
    }

    /// The line exactly as received, without its newline.
    pub fn as_bytes(&self) -> &[u8] {
        &self.line
    }

    /// The line as a shared buffer (cheap to clone and forward).
    pub fn into_bytes(self) -> Bytes {
        self.line
    }

    /// Parses the line into its typed form.
    ///
    /// Never fails for a line that is a JSON object: a type or shape this
    /// crate does not know becomes [`StdoutMessage::Unknown`] holding the
    /// whole object. Writing the result back gives the same JSON value.
    pub fn parse(&self) -> Result<StdoutMessage, DecodeError> {
        StdoutMessage::decode(&self.message_type, self.subtype(), &self.line).map_err(|source| {
            DecodeError {
                what: "a stdout message",
                source,
            }
        })
    }

    /// The line's top-level `session_id` string, if it has one, read
    /// without decoding the rest of the line (as [`parse`](Self::parse)
    /// does: much slower for a large `system/init`). A line this cannot
    /// read that way (a duplicate key, an escaped lone surrogate) is
    /// parsed whole instead.
    pub fn session_id(&self) -> Option<String> {
        if let Some(id) = crate::route::top_level_string(&self.line, b"session_id") {
            return id.map(str::to_owned);
        }
        #[derive(serde::Deserialize)]
        struct Only {
            session_id: Option<serde_json::Value>,
        }
        match serde_json::from_slice::<Only>(&self.line) {
            Ok(Only {
                session_id: Some(id),
            }) => match id {
                serde_json::Value::String(id) => Some(id),
                _ => None,
            },
            Ok(_) => None,
            Err(_) => Some(self.parse().ok()?.session_id()?.to_owned()),
        }
    }

    /// This message with a buffer of its own: keep this instead of the
    /// message itself when you keep a few messages for long, so they do
    /// not keep the session's shared line buffers (up to 64 KiB each)
    /// alive.
    #[must_use]
    pub fn detached(&self) -> Message {
        Message {
            line: Bytes::copy_from_slice(&self.line),
            ..self.clone()
        }
    }

    /// Deserializes the line into any type of yours.
    pub fn deserialize<T: DeserializeOwned>(&self) -> Result<T, DecodeError> {
        crate::model::open_enum::from_slice(&self.line).map_err(|source| DecodeError {
            what: "a stdout message",
            source,
        })
    }
}

impl fmt::Debug for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Message")
            .field("type", &self.message_type.as_str())
            .field("subtype", &self.subtype)
            .field("len", &self.line.len())
            .finish()
    }
}

/// A control request from the CLI, waiting for exactly one answer.
///
/// Answer it with [`Session::respond`](crate::Session::respond) (or one of
/// the typed helpers) using [`IncomingRequest::id`]. Until then the CLI
/// waits: dropping it unanswered stalls the tool call, hook or MCP call
/// behind it.
#[derive(Debug)]
#[must_use = "the CLI waits until this request is answered with Session::respond"]
pub struct IncomingRequest {
    pub(crate) id: IncomingId,
    pub(crate) request_id: String,
    pub(crate) subtype: String,
    pub(crate) request: Box<CliRequest>,
    pub(crate) wire_len: usize,
}

impl IncomingRequest {
    /// The handle to answer it with.
    pub fn id(&self) -> IncomingId {
        self.id
    }

    /// The CLI's wire id (`request_id`).
    pub fn request_id(&self) -> &str {
        &self.request_id
    }

    /// The request's `subtype` (`can_use_tool`, `hook_callback`, ...).
    pub fn subtype(&self) -> &str {
        &self.subtype
    }

    /// The typed request.
    pub fn request(&self) -> &CliRequest {
        &self.request
    }

    /// How many bytes the request's body took on the wire: what holding it
    /// costs, for callers that bound their memory in bytes.
    pub fn wire_len(&self) -> usize {
        self.wire_len
    }

    /// Takes the typed request out, keeping the id to answer with.
    pub fn into_parts(self) -> (IncomingId, CliRequest) {
        (self.id, *self.request)
    }
}

/// The single outcome of a control request this side sent.
#[derive(Debug)]
pub struct ControlOutcome {
    /// Which request.
    pub id: RequestId,
    /// Its wire id (`request_id`).
    pub request_id: String,
    /// Its subtype, for messages and dispatch.
    pub subtype: String,
    /// The answer, or why there is none.
    pub result: Result<ControlSuccess, ControlError>,
}

/// A success answer to one of our control requests.
#[derive(Debug, Clone)]
pub struct ControlSuccess {
    /// The `response` payload, if the CLI sent one. Many requests are only
    /// acknowledged and have none.
    pub(crate) payload: Option<Box<RawValue>>,
}

impl ControlSuccess {
    /// A success answer carrying `payload`: for an answer that arrives
    /// inside another (the `initialize` answer a claimed spare sends inside
    /// its `claim_session` answer).
    pub fn with_payload(payload: Box<RawValue>) -> Self {
        Self {
            payload: Some(payload),
        }
    }

    /// The payload as raw JSON text, if there was one.
    pub fn payload(&self) -> Option<&str> {
        self.payload.as_deref().map(RawValue::get)
    }

    /// Decodes the payload; an absent payload reads as `{}`, so response
    /// types whose fields are all optional decode from a bare ack.
    pub fn decode<T: DeserializeOwned>(&self) -> Result<T, DecodeError> {
        let payload = self.payload().unwrap_or("{}");
        crate::model::open_enum::from_slice(payload.as_bytes()).map_err(|source| DecodeError {
            what: "a control response payload",
            source,
        })
    }

    /// Decodes the payload as the answer to a `C` request:
    /// [`decode`](Self::decode) into `C::Response`, so the answer type
    /// follows from the request type.
    pub fn decode_as<C: ControlCall>(&self) -> Result<C::Response, DecodeError> {
        self.decode()
    }
}
