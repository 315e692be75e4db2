//! The Claude Code CLI `stream-json` protocol as a sans-IO state machine.
//!
//! Programs drive the `claude` CLI by starting it with
//! `--input-format stream-json --output-format stream-json` and exchanging
//! newline-delimited JSON over its stdin and stdout: prompts and messages,
//! plus a control channel where requests flow both ways (the CLI asks for
//! permission to use a tool, calls hooks and in-process MCP tools; the
//! program interrupts, switches model or permission mode, ...).
//!
//! This crate is that protocol and nothing else. A [`Session`] takes the
//! bytes the CLI wrote and the current time, and gives back typed
//! [`Event`]s and the bytes to write to the CLI's stdin. It does no IO,
//! spawns nothing, reads no clock and starts no thread, so the same code
//! runs under tokio, async-std, smol, plain threads, a fuzzer, or over a
//! socket to a CLI started elsewhere. The `claude-proto-tokio`,
//! `claude-proto-async-std` and `claude-proto-blocking` crates own the
//! child process and pump bytes through it; use one of them unless you
//! bring your own transport.
//!
//! # The driving loop
//!
//! After every input ([`Session::handle_input`], [`Session::handle_eof`],
//! [`Session::handle_timeout`]) and every command ([`Session::initialize`],
//! [`Session::send_user_message`], [`Session::send_control`],
//! [`Session::send_call`], [`Session::respond`], ...), drain the outputs in
//! this order: bytes to write ([`Session::poll_transmit`]), the next
//! deadline ([`Session::poll_timeout`]), then events
//! ([`Session::poll_event`]).
//!
//! ```
//! use std::time::{Duration, Instant};
//! use claude_proto::model::initialize::InitializeRequest;
//! use claude_proto::model::user::UserMessage;
//! use claude_proto::model::permission::PermissionResult;
//! use claude_proto::model::incoming::CliRequest;
//! use claude_proto::{Config, Event, Reply, Session};
//!
//! let mut session = Session::new(Config::default());
//! let start = Instant::now();
//! session.initialize(&InitializeRequest::default(), None, start)?;
//! session.send_user_message(&UserMessage::text("List the files here"))?;
//!
//! // Bytes for the CLI's stdin: write all of them, in order.
//! let mut to_cli = Vec::new();
//! session.poll_transmit(&mut to_cli);
//! assert!(to_cli.ends_with(b"\n"));
//!
//! // Bytes from the CLI's stdout, in whatever chunks the pipe delivers.
//! // (Here the CLI asks for permission to run a tool.)
//! let stdout = concat!(
//!     r#"{"type":"control_request","request_id":"c1","request":{"subtype":"can_use_tool","#,
//!     r#""tool_name":"Bash","input":{"command":"ls"},"tool_use_id":"toolu_1"}}"#, "\n",
//!     r#"{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"s"}"#, "\n",
//! );
//! let (a, b) = stdout.as_bytes().split_at(50);
//! session.handle_input(a);
//! session.handle_input(b);
//!
//! while let Some(event) = session.poll_event() {
//!     match event {
//!         Event::Request(request) => match request.request() {
//!             // The session echoes the request's tool_use_id in the answer.
//!             CliRequest::CanUseTool(ask) if ask.tool_name == "Bash" => {
//!                 session.respond_permission(request.id(), PermissionResult::allow())?;
//!             }
//!             _ => session.respond(request.id(), Reply::error("not handled here"))?,
//!         },
//!         Event::Message(message) if message.is_result() => {
//!             println!("turn over: {}", String::from_utf8_lossy(message.as_bytes()));
//!         }
//!         Event::Message(_) => {}
//!         Event::Response(outcome) => println!("{} -> {:?}", outcome.subtype, outcome.result.is_ok()),
//!         other => println!("{other:?}"),
//!     }
//! }
//! to_cli.clear();
//! session.poll_transmit(&mut to_cli); // the permission answer
//!
//! // Nothing answered `initialize` yet: its deadline is the next timeout.
//! assert_eq!(session.poll_timeout(), Some(start + Duration::from_secs(60)));
//! session.handle_timeout(start + Duration::from_secs(60));
//! assert!(matches!(session.poll_event(), Some(Event::Response(o)) if o.result.is_err()));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Guarantees
//!
//! - **Never panics, never stalls on input.** Invalid JSON, a JSON value
//!   that is not an object, invalid UTF-8, NUL bytes, a truncated last line:
//!   each becomes an [`Event::ProtocolError`] with the start of the line,
//!   and reading continues.
//! - **Bounded memory.** A line longer than [`Config::max_line_bytes`] is
//!   reported and skipped without being buffered; requests from the CLI
//!   waiting for answers are capped by [`Config::max_pending_incoming`];
//!   events queue only what the last input produced.
//! - **Nothing dropped.** Every line that is not on the control channel is
//!   delivered as an [`Event::Message`], including types this version does
//!   not know. The typed model keeps unknown fields, so decoding and
//!   re-encoding a message gives the same JSON value.
//! - **Exactly one outcome per control request.** Each request sent ends in
//!   one [`Event::Response`] (answer, CLI error, timeout, cancellation, or
//!   end of output). Each request received is answered at most once, never
//!   after the CLI cancelled it, and ends in an answer, an
//!   [`Event::RequestCancelled`], or an automatic refusal
//!   ([`Event::RequestRefused`]) for subtypes nobody can handle.
//! - **One parse per line.** Each line is read once for its routing fields;
//!   [`Message::parse`] gives the typed view only when asked, so relays and
//!   filters pay almost nothing.
//!
//! # The command line
//!
//! [`options::Options`] turns settings into the CLI's arguments and
//! environment as plain data (no shell; values can never be read as flags),
//! and [`discovery::locate`] finds the executable through injected lookups.
// docs.rs: each feature-gated item is labelled with the feature it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
#![recursion_limit = "256"] // wire_struct! recurses once per field attribute; ResultMessage has ~150

mod config;
pub mod discovery;
pub mod dispatch;
mod envelope;
mod error;
mod event;
mod framing;
mod id;
mod json_scan;
mod json_text;
pub mod model;
pub mod options;
mod reply;
mod route;
mod session;
#[cfg(test)]
mod test_fixtures;
pub mod transcript;
pub mod version;

pub use config::Config;
pub use error::{
    ControlError, DecodeError, ProtocolError, ProtocolErrorKind, RespondError, SendError,
};
pub use event::{
    CancelReason, ControlOutcome, ControlSuccess, Event, IncomingRequest, Message, RefusalReason,
};
pub use framing::find_newline;
pub use id::{IncomingId, RequestId};
pub use model::control::ControlCall;
pub use reply::Reply;
pub use session::Session;

// The crate's README, whose examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
