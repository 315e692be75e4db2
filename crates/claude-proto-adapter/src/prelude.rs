//! The part of every adapter's prelude that does not depend on the
//! runtime: configuration, what handlers take and return, what a session
//! hands over, the errors. Each adapter's `prelude` re-exports this and
//! adds its own session types (`Claude`, `ClaudeBuilder`, `Controller`,
//! `McpServer`, `Tool`, `TurnStream`).

pub use crate::Configure;
pub use crate::handlers::{HandlerError, with_state};
pub use crate::hook_options::HookOptions;
pub use crate::store::StoreSettings;
pub use claude_proto::Message;
pub use claude_proto::dispatch::{ToolAnnotations, ToolArgs, ToolOutput};
pub use claude_proto::model::Json;
pub use claude_proto::model::hooks::{
    HookEvent, PostToolUse, PostToolUseInput, PostToolUseOutput, PreToolUse, PreToolUseInput,
    PreToolUseOutput,
};
pub use claude_proto::model::permission::{PermissionMode, PermissionResult};
pub use claude_proto::model::tools::ToolInput;
pub use claude_proto::options::Options;
pub use claude_proto_host::{Error, Event, SpawnError, Turn};
