//! The typed model of every message and control payload in both directions.
//!
//! Conventions (all modules below follow them):
//!
//! - Every struct has `#[serde(flatten)] pub extra: Extra`: fields this crate
//!   does not model are kept and written back. Decoding then encoding any
//!   value gives the same JSON value (key order aside).
//! - Optional fields are `Option<T>` with
//!   `#[serde(default, skip_serializing_if = "Option::is_none")]`; such a
//!   field reads an explicit `null` (which the CLI's declarations never
//!   allow there) as absent, and writes it back absent: the one place a
//!   round trip changes the JSON value. Fields the
//!   protocol marks as present-but-nullable are `Option<T>` read with
//!   `common::nullable` (the key is required, so a line without it stays
//!   whole in an `Unknown` variant) and always serialized; optional *and*
//!   nullable fields are [`Maybe<T>`].
//! - String enums are open (`string_enum!`): an unknown value is
//!   kept in `Unknown(String)`.
//! - Every struct is declared through `wire_struct!`, which also gives its
//!   [`WireFields`]; every open string enum through `string_enum!`
//!   ([`WireValues`]).
//! - Enums tagged by a field (`type`, `subtype`, `hook_event_name`, ...) are
//!   declared through `open_enum!` ([`WireVariants`]): read in one pass
//!   (no buffering of the object to find its tag), with a last
//!   `Unknown(Json)` variant that keeps an unknown tag, a missing one, or a
//!   value that is not an object. A known tag whose body does not fit fails
//!   the one pass; the crate's decoders ([`from_slice`], [`from_value`],
//!   `Message::parse`, `StdoutMessage::from_slice`) then read the parsed
//!   value again, keeping that one part whole in its `Unknown` while the
//!   message around it stays typed. Reading with serde directly
//!   (`serde_json::from_str`) is the one pass alone, so that case is an
//!   error there; so it is for a model type inside a type of yours that
//!   serde buffers (an untagged enum, a `#[serde(flatten)]` field), even
//!   through [`from_slice`], since serde then reads it from its own copy.
//! - A top-level message carries its `type` as a `wire_tag!`
//!   marker field (`#[serde(rename = "type")] pub kind: AssistantTag`), so the
//!   struct alone serializes to the complete line and a mismatched `type`
//!   fails to decode instead of being absorbed.
//! - Types only the CLI produces are `#[non_exhaustive]`; types a user builds
//!   to send have constructors and public fields.
//!
//! # What a message needs to be typed
//!
//! CLI releases differ in which fields they write, so a message is typed as
//! long as it has what makes it that message; a field missing elsewhere
//! must not turn the whole line into raw JSON.
//!
//! - A field the CLI's TypeScript declarations mark optional (`?:`) is
//!   optional here.
//! - Every field of a nested report object is optional, whatever the
//!   declarations say: token usage ([`assistant::Usage`]), `modelUsage`
//!   entries ([`result::ModelUsage`]), rate-limit info
//!   ([`misc::RateLimitInfo`]), the `get_context_usage` answer with its
//!   categories and breakdowns ([`control::ContextUsage`]), and new report
//!   types as they are added.
//! - A nested part chosen by a tag (a content block, a stream event or
//!   delta, a hook input, a permission update, ...) whose tag is unknown,
//!   or whose body does not fit its known tag, is kept whole in its own
//!   `Unknown` variant; the message around it stays typed (see the
//!   conventions above for how it is read).
//! - What stays required is what identifies a top-level message: its tags
//!   (`type`, `subtype`), `uuid` and `session_id`, and what makes the
//!   message what it is (an assistant or user message's `message`, a
//!   stream event's `event`, a tool call's `id` and `name`, a tool input's
//!   required arguments), plus the fields the declarations require.

pub(crate) mod common;
mod kind;
pub(crate) mod open_enum;
pub(crate) mod wire;

pub use common::{Extra, Json, Maybe};
pub use kind::MessageType;
pub use open_enum::{from_slice, from_value};
pub use wire::{WireFields, WireValues, WireVariants};
pub mod assistant;
pub mod claim;
pub mod content;
pub mod control;
pub mod hooks;
pub mod incoming;
pub mod initialize;
pub mod mcp;
pub mod misc;
pub mod permission;
pub mod result;
pub mod stdout;
pub mod stream;
pub mod system;
pub mod tools;
pub mod user;
