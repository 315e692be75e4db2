//! Drive the Claude Code CLI from ordinary blocking code: no async
//! runtime, std threads only.
//!
//! A [`Claude`] is a live, multi-turn, bidirectional session with the
//! `claude` CLI (`--input-format stream-json --output-format stream-json`):
//! send prompts, read typed events as they stream, answer the CLI's
//! permission prompts, hooks and in-process MCP tool calls with plain
//! closures, and interrupt or reconfigure the session mid-turn.
//!
//! The protocol is the sans-IO core's, [`claude_proto`]; every decision
//! above it (routing requests to handlers, matching answers to calls,
//! turns, byte budgets, the close sequence) is the sans-IO host machine's,
//! [`claude_proto_host`]. This crate is thread plumbing around one host.
//!
//! ```no_run
//! use claude_proto_blocking::prelude::*;
//!
//! # fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let mut claude = Claude::builder(Options::default())
//!     .on_permission(|ask| match ask.tool_name.as_str() {
//!         "Read" => PermissionResult::allow(),
//!         _ => PermissionResult::deny("only reading is allowed here"),
//!     })
//!     .spawn()?;
//!
//! let mut turn = claude.query("What is in README.md?")?;
//! while let Some(item) = turn.next_item() {
//!     match item {
//!         TurnItem::Text(text) => println!("{text}"),
//!         TurnItem::ToolUse(tool) => println!("[{} {}]", tool.name, tool.input),
//!         TurnItem::Result(result) => println!("${:.4}", result.total_cost_usd()),
//!         _ => {}
//!     }
//! }
//!
//! claude.close()?;
//! # Ok(())
//! # }
//! ```
//!
//! # Threads, and what each waits on
//!
//! - **driver** (one per session): owns the [`claude_proto_host::Host`].
//!   It waits in one place, `recv_timeout` on a bounded input channel
//!   until the host's next deadline; everything else it does never waits
//!   (see `driver.rs`). Your commands go through that channel and are
//!   taken at once, whatever the CLI does: the host refuses what exceeds
//!   its budgets rather than making you wait.
//! - **stdout reader**: reads 64 KiB at a time into one of two buffers and
//!   waits for the driver to give a buffer back, which it does only while
//!   the host wants more output: that is the backpressure.
//! - **stderr reader**: reads stderr as fast as it comes, calls your
//!   [`on_stderr`](Configure::on_stderr) callback, and hands the
//!   bytes to the driver for the exit report's tail.
//! - **stdin writer**: writes what the driver orders, one order at a time;
//!   a CLI that stops reading blocks only this thread.
//! - **exit watcher**: waits for the child to exit and reaps it.
//! - **handlers**: one thread per request the CLI makes of your closures,
//!   at most [`max_concurrent_handlers`](Configure::max_concurrent_handlers)
//!   at once (the host starts no more; one whose request the CLI withdrew
//!   no longer counts while it finishes); a panic is caught and answered
//!   as a failure.
//! - **your threads**: reading events waits on a condvar for the driver's
//!   next batch; calls wait on a one-shot reply with their deadline.
//!
//! # Guarantees
//!
//! - **Bounded memory.** Events the host holds are bounded by
//!   [`read_ahead_bytes`](Configure::read_ahead_bytes); on their way to
//!   you there are at most two batches of 128 KiB (each may instead be
//!   one larger event); besides, at most two 64 KiB stdout chunks and one
//!   stdin chunk are in flight. Unwritten stdin is bounded by
//!   [`Limits::max_unwritten_bytes`]. A reader that stops reading pauses
//!   the CLI instead of growing memory.
//! - **Control traffic never waits on you reading**: answers and the CLI's
//!   requests are routed as soon as they are read; only beyond the
//!   read-ahead budget does reading pause, and a call then waiting fails
//!   naming the budget ([`Error::TimedOut`] with a [`Stall`]).
//! - **Deadlines from the call**: a control call returns by its deadline,
//!   counted from when you called, even if the driver is busy or the CLI
//!   does not read.
//! - **Turns cannot shift**: [`Claude::query`] streams the turn its own
//!   prompt started, through lines the typed model cannot read and turns
//!   left half-read.
//! - **Cancelled requests are never answered.** A blocking closure cannot
//!   be stopped: when the CLI withdraws a request (or the session ends)
//!   while its handler runs, the handler's [`CancelToken`] is cancelled
//!   and its result is dropped, not sent.
//! - **Nothing is left behind.** However a session ends ([`Claude::close`],
//!   a dropped handle, a CLI crash, a grandchild holding the pipes, a
//!   panicking callback), the child is reaped and the pipe threads end,
//!   closing their fds: the readers and the writer of a spawned CLI wait
//!   in `poll(2)` beside a wake socket
//!   ([`claude_proto_process::Stop`]), so the end reaches them even while
//!   another process holds the pipes open. If the driver thread itself
//!   dies, dropping the process handle kills the child and a watcher reaps
//!   it. What cannot be ended from outside is your code: a handler that
//!   never returns keeps its thread, and over
//!   [`connect`](ClaudeBuilder::connect) a `read` or `write` that never
//!   returns keeps its thread (see there).
//! - **Errors say what happened**: where the CLI was looked for, its exit
//!   status and stderr, which control request timed out and why.
// docs.rs: each feature-gated item is labelled with the feature it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

mod builder;
mod channels;
mod client;
mod controller;
mod driver;
mod events;
mod handlers;
mod parts;
mod pipes;
mod pool;
mod query;
mod shared;
mod spare;
mod turn;
mod workers;

pub use builder::ClaudeBuilder;
pub use claude_proto_adapter::handlers::{HandlerError, with_state};
pub use client::Claude;
pub use controller::Controller;
pub use events::{Elapsed, Events};
pub use handlers::{CancelToken, McpServer, Tool};
pub use pool::{Pool, StartedPool};
pub use query::query;
pub use spare::Spare;
pub use turn::TurnStream;

pub use claude_proto;
pub use claude_proto::dispatch::{ToolAnnotations, ToolOutput};
pub use claude_proto::options::Options;
pub use claude_proto::{Config, Message};
pub use claude_proto_adapter::{
    ClaimError, Configure, HookOptions, PoolStats, ShutdownPolicy, StoreSettings,
};
pub use claude_proto_host::{
    Claim, Claimed, EndReason, Error, Event, ExitReport, INTERRUPT_GRACE, Limits, SessionEnded,
    SpawnError, Stall, Turn, TurnId, TurnItem,
};
/// Sessions on disk and in a store: list, read, rename, tag, fork,
/// delete (`Sessions`, `StoreSessions`); the `SessionStore` trait and its
/// backends (`MemoryStore`, `DirectoryStore`, `PostgresStore`).
pub use claude_proto_sessions as sessions;

/// What a typical program needs, in one import:
///
/// The session ([`Claude`], [`Controller`], [`ClaudeBuilder`],
/// [`TurnStream`], [`Spare`]), [`CancelToken`], in-process tools ([`McpServer`], [`Tool`]),
/// and the part every adapter shares
/// ([`claude_proto_adapter::prelude`]): configuration (`Options`,
/// `PermissionMode`, `Configure`, `HookOptions`), what handlers take and
/// return (`PermissionResult`, `ToolArgs`, `ToolOutput`, `ToolInput`,
/// `HandlerError`, `with_state`, the `PreToolUse`/`PostToolUse` hook types,
/// `Json`), what a session hands over (`Event`, `Message`, `Turn`) and the
/// errors (`Error`, `SpawnError`). The one-shot [`query`] is left out, to
/// keep the name free; call it by its path.
pub mod prelude {
    pub use claude_proto_adapter::prelude::*;

    pub use crate::{
        CancelToken, Claude, ClaudeBuilder, Controller, McpServer, Spare, Tool, TurnStream,
    };
}
pub use claude_proto::dispatch::{IntoHandlerResult, IntoToolResult};
pub use claude_proto::model::hooks::{Hook, IntoHookOutput};
pub use claude_proto_adapter::ToolArgs;

// The crate's README, whose examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
