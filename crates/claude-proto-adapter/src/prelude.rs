//! The part of every adapter's prelude that does not depend on the
//! runtime: configuration, what handlers take and return, what a session
//! hands over, the errors. Each adapter's `prelude` re-exports this and
//! adds its own session types (`Claude`, `ClaudeBuilder`, `Controller`,
//! `McpServer`, `Tool`, `TurnStream`). It holds what a typical program
//! names: the options, the handlers' inputs and answers, a turn's items
//! and result, the messages, the errors, and the two derives a typed
//! tool's arguments take.

pub use crate::ClaimError;
pub use crate::handlers::{HandlerError, with_state};
pub use crate::hook_options::HookOptions;
pub use crate::store::StoreSettings;
pub use crate::{Configure, ToolArgs};
pub use claude_proto::Message;
pub use claude_proto::dispatch::{ToolAnnotations, ToolOutput};
pub use claude_proto::model::Json;
pub use claude_proto::model::content::{ToolResultBlock, ToolUseBlock};
pub use claude_proto::model::hooks::{
    HookEvent, PostToolUse, PostToolUseInput, PostToolUseOutput, PreToolUse, PreToolUseInput,
    PreToolUseOutput,
};
pub use claude_proto::model::incoming::CanUseTool;
pub use claude_proto::model::permission::{PermissionMode, PermissionResult};
pub use claude_proto::model::result::ResultMessage;
pub use claude_proto::model::stdout::StdoutMessage;
pub use claude_proto::model::tools::ToolInput;
pub use claude_proto::options::Options;
pub use claude_proto_host::{Claim, Error, Event, SpawnError, Turn, TurnItem};
/// Derives a tool's arguments schema (needs `schemars` in your Cargo.toml).
pub use schemars::JsonSchema;
/// Derives a tool's arguments reading (needs `serde` in your Cargo.toml).
pub use serde::Deserialize;
