//! Serve an [`rmcp`] MCP server in-process to the Claude Code CLI.
//!
//! The CLI sends the JSON-RPC traffic of an in-process ("sdk") MCP server
//! to the host as `mcp_message` control requests. [`RmcpEndpoint`] turns
//! any [`rmcp::ServerHandler`] (for instance one written with
//! `#[tool_router]` and `#[tool_handler]`) into a
//! [`claude_proto_adapter::McpEndpoint`], so typed arguments, annotations,
//! structured output, resources, prompts and cancellation all come from
//! rmcp, unchanged.
//!
//! rmcp's service loop runs on tokio. So that every claude-proto adapter
//! (blocking, tokio, async-std, ...) can use the same endpoint, each
//! endpoint owns one OS thread running a small current-thread tokio
//! runtime; messages cross to it through a channel and answers come back
//! through the [`McpReply`](claude_proto_adapter::McpReply) callbacks.
//! Tools therefore run on that runtime: tokio timers work inside them,
//! the caller's executor does not.

// docs.rs: each feature-gated item is labelled with the feature it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

mod catch_panic;
mod endpoint;
mod inbound;
mod jsonrpc;
mod outbound;
mod pending;
mod transport;

pub use endpoint::RmcpEndpoint;

// The crate's README, whose examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
