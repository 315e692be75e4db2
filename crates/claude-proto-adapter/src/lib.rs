//! What every `claude-proto` adapter shares, whatever its runtime: the
//! vocabulary of a session's builder, written once.
//!
//! - [`handlers`]: the registry of what a session answers the CLI with
//!   (the permission callback, hooks, in-process MCP servers and their
//!   tools, elicitation and dialogs), in an async and a blocking flavor,
//!   and [`with_state`](handlers::with_state) for handlers that share
//!   state.
//! - [`Configure`]: the options every builder takes (limits, timeouts, the
//!   stderr callback, a session store, ...), collected in [`Settings`].
//! - [`StoreSettings`] and resume: a session mirrored to a store, and a
//!   resumed one loaded from it first ([`prepare`]).
//! - [`json_schema`]: a tool's arguments checked against its schema
//!   before it runs, as the Python SDK's in-process MCP server checks
//!   them, with its messages.
//! - [`McpEndpoint`]: the seam an in-process MCP server plugs into (the
//!   rmcp bridge implements it).
//! - [`prelude`]: the runtime-independent part of every adapter's prelude.
//!
//! The adapters (`claude-proto-tokio`, `claude-proto-async-std`,
//! `claude-proto-blocking`) re-export what their users need; depend on
//! this crate only to write an adapter or an endpoint of your own.
// docs.rs: each feature-gated item is labelled with the feature it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

mod configure;
pub mod handlers;
mod hook_options;
pub mod json_schema;
pub mod mcp_endpoint;
mod resume;
mod settings;
pub mod spare;
mod store;
mod tool_args;

pub mod prelude;

pub use configure::Configure;
pub use hook_options::HookOptions;
pub use mcp_endpoint::{McpEndpoint, McpOutlet, McpReply, mcp_answer_from_cli, mcp_message_to_cli};
pub use resume::{Prepared, SessionDir, load_timed_out, prepare, with_deadline};
/// The crate that derives a tool's schema ([`ToolArgs`]).
pub use schemars;
pub use settings::{Settings, ShutdownPolicy};
pub use spare::{ClaimError, PoolStats};
pub use store::{StoreSettings, run_append};
pub use tool_args::ToolArgs;

// The crate's README, whose examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
