//! The async implementation of the `claude-proto` adapters, written once
//! over a small [`Runtime`] trait.
//!
//! A [`Claude`] is a live, multi-turn, bidirectional session with the
//! `claude` CLI (`--input-format stream-json --output-format stream-json`):
//! send prompts, read typed events as they stream or a [`Turn`] at a time,
//! answer the CLI's permission prompts, hooks and in-process MCP tool
//! calls with async functions, and interrupt or reconfigure the session
//! mid-turn.
//!
//! Users depend on a runtime's crate, which implements [`Runtime`] and
//! names the types for it: `claude-proto-tokio` (tokio) and
//! `claude-proto-async-std` (async-std or smol). Implement [`Runtime`]
//! yourself to run sessions elsewhere.
//!
//! # How it works
//!
//! Every decision (what to answer, when to read, when to close stdin,
//! SIGTERM or SIGKILL) belongs to the sans-IO host machine,
//! [`claude_proto_host::Host`]. Each session has one driver future,
//! spawned on the runtime, that moves bytes between the pipes and the
//! host and carries out what the host asks; the handle you hold talks to
//! it through a small shared state. Handlers run as tasks of their own.
//!
//! # Guarantees
//!
//! - **Control traffic never waits on you reading.** The CLI's output is
//!   read ahead of you up to [`Configure::read_ahead_bytes`]; answers
//!   and the CLI's requests are routed as soon as they are read. Past the
//!   budget reading pauses, and a call then waiting fails naming the
//!   budget ([`Stall`]).
//! - **Bounded in bytes.** Unread events by the read-ahead budget (plus one
//!   batch of at most 256 KiB handed to the reading side), unwritten stdin
//!   by [`Limits::max_unwritten_bytes`].
//! - **Turns cannot shift.** [`Claude::query`] streams the turn of its own
//!   prompt, through decode failures, dropped futures and results the
//!   typed model cannot read.
//! - **Deadlines run from the call**, including time spent queued.
//! - **Handlers never block reading.** Each runs in its own task (at most
//!   [`Configure::max_concurrent_handlers`] at once); one the CLI
//!   cancels is dropped; one that fails or panics produces an error
//!   answer. A panicking stderr callback is contained too.
//! - **No orphans.** [`Claude::close`] closes stdin, then sends SIGTERM,
//!   then SIGKILL; dropping the handle does the same in the background,
//!   and if the runtime drops the driver first the child is killed and
//!   reaped.
// docs.rs: each feature-gated item is labelled with the feature it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

mod builder;
mod client;
mod controller;
mod driver;
mod events;
mod handlers;
mod jobs;
mod oneshot;
mod pool;
mod query;
mod runtime;
mod shared;
mod spare;
mod turn;

pub use builder::ClaudeBuilder;
pub use claude_proto_adapter::PoolStats;
pub use claude_proto_adapter::handlers::{HandlerError, with_state};
pub use client::Claude;
pub use controller::Controller;
pub use events::Events;
pub use handlers::{McpServer, Tool};
pub use pool::{Pool, StartedPool};
pub use query::query;
pub use runtime::{BoxFuture, BoxReader, BoxWriter, Connect, ReadBytes, Runtime, WriteBytes};
pub use spare::Spare;
pub use turn::TurnStream;

pub use claude_proto;
pub use claude_proto::dispatch::{IntoHandlerResult, IntoToolResult};
pub use claude_proto::dispatch::{ToolAnnotations, ToolOutput};
pub use claude_proto::model::hooks::{Hook, IntoHookOutput};
pub use claude_proto::options::Options;
pub use claude_proto::{Config, Message};
pub use claude_proto_adapter::ToolArgs;
pub use claude_proto_adapter::{ClaimError, Configure, HookOptions, ShutdownPolicy, StoreSettings};
pub use claude_proto_host::{
    Claim, Claimed, EndReason, Error, Event, ExitReport, INTERRUPT_GRACE, Limits, LimitsError,
    SessionEnded, SpawnError, Stall, Turn, TurnId, TurnItem,
};
/// Sessions on disk and in a store: list, read, rename, tag, fork,
/// delete (`Sessions`, `StoreSessions`); the `SessionStore` trait and its
/// backends (`MemoryStore`, `DirectoryStore`, `PostgresStore`).
pub use claude_proto_sessions as sessions;

/// What a typical program needs, in one import, for a runtime of your own:
/// `use claude_proto_async::prelude::*;`. The adapters' preludes
/// (`claude_proto_tokio::prelude`, ...) are this with their runtime filled
/// in.
pub mod prelude {
    pub use claude_proto_adapter::prelude::*;

    pub use crate::{Claude, ClaudeBuilder, Controller, McpServer, Spare, Tool, TurnStream};
}

// The crate's README, whose examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
