//! Drive the Claude Code CLI from async-std or smol.
//!
//! A [`Claude`] is a live, multi-turn, bidirectional session with the
//! `claude` CLI (`--input-format stream-json --output-format stream-json`):
//! send prompts, read typed events as they stream, answer the CLI's
//! permission prompts, hooks and in-process MCP tool calls with async
//! functions, and interrupt or reconfigure the session mid-turn.
//!
//! The protocol is the sans-IO core, [`claude_proto`]; the session itself
//! (read-ahead budget, turns, handlers, the close sequence) is written
//! once in `claude-proto-async`. This crate is the glue for the runtimes
//! built on `async-io`: the CLI's pipes and the session's timer live on
//! the `async-io` reactor that async-std and smol share, and only spawning
//! tasks differs between them ([`Runtime`]).
//!
//! # async-std or smol
//!
//! async-std is deprecated in favour of smol, and **smol is a first-class
//! runtime here**: turn on the `smol` feature (and, to keep async-std out
//! of your build, turn the default features off) and sessions spawn their
//! tasks on smol's global executor; nothing else in your code changes.
//!
//! ```toml
//! claude-proto-async-std = { version = "0.1", default-features = false, features = ["smol"] }
//! ```
//!
//! Without it (the default feature `async-std`) tasks go to async-std's
//! executor. With both features smol is the default;
//! [`ClaudeBuilder::runtime`] picks one per session, or any executor of your
//! own through [`Runtime::custom`] (a `smol::Executor`, for instance).
//!
//! On async-std:
//!
//! ```no_run
//! # #[cfg(feature = "async-std")]
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use claude_proto_async_std::prelude::*;
//!
//! async_std::task::block_on(async {
//!     let mut claude = Claude::builder(Options::default())
//!         .on_permission(async |ask| match ask.tool_name.as_str() {
//!             "Read" => PermissionResult::allow(),
//!             _ => PermissionResult::deny("only reading is allowed here"),
//!         })
//!         .spawn()
//!         .await?;
//!
//!     let turn = claude.ask("What is in README.md?").await?;
//!     println!("{}", turn.text().unwrap_or_default());
//!     println!("cost: ${:.4}", turn.cost_usd());
//!
//!     claude.close().await?;
//!     Ok::<_, Box<dyn std::error::Error>>(())
//! })
//! # }
//! # #[cfg(not(feature = "async-std"))]
//! # fn main() {}
//! ```
//!
//! On smol (feature `smol`):
//!
//! ```no_run
//! # #[cfg(feature = "smol")]
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use claude_proto_async_std::prelude::*;
//!
//! smol::block_on(async {
//!     let mut claude = Claude::builder(Options::default().include_partial_messages(true))
//!         .on_permission(async |ask| match ask.tool_name.as_str() {
//!             "Read" => PermissionResult::allow(),
//!             _ => PermissionResult::deny("only reading is allowed here"),
//!         })
//!         .spawn()
//!         .await?;
//!
//!     // The turn as it streams: text deltas, tool calls, the result.
//!     let mut turn = claude.query("What is in README.md?").await?;
//!     while let Some(item) = turn.next_item().await {
//!         match item {
//!             TurnItem::TextDelta(text) => print!("{text}"),
//!             TurnItem::ToolUse(tool) => println!("[{}]", tool.name),
//!             TurnItem::Result(result) => println!("\n${:.4}", result.total_cost_usd()),
//!             _ => {}
//!         }
//!     }
//!
//!     claude.close().await?;
//!     Ok::<_, Box<dyn std::error::Error>>(())
//! })
//! # }
//! # #[cfg(not(feature = "smol"))]
//! # fn main() {}
//! ```
//!
//! # Guarantees
//!
//! - **Control traffic never waits on you reading.** The CLI's output is
//!   read ahead of you up to [`Configure::read_ahead_bytes`] (4 MiB by
//!   default); past it reading pauses (backpressure), and a call then
//!   waiting fails naming the budget.
//! - **Turns cannot shift**: [`Claude::query`] streams its own prompt's
//!   turn, through decode failures, dropped futures and dropped turn
//!   streams.
//! - **Handlers never block reading.** Each request from the CLI runs its
//!   handler in its own task (at most
//!   [`Configure::max_concurrent_handlers`] at once). When the CLI
//!   cancels a request, the handler's future is dropped and no answer is
//!   sent. A handler that fails or panics produces an error answer.
//! - **stderr is always drained**, its tail kept for errors and offered to
//!   [`Configure::on_stderr`] (a panicking callback is contained).
//! - **No orphans.** [`Claude::close`] closes stdin, then sends SIGTERM,
//!   then SIGKILL after the [`ShutdownPolicy`] grace periods; dropping the
//!   handle does the same in the background, and the child is killed and
//!   reaped if the executor drops the session first.
//! - **Errors say what happened**: where the CLI was looked for, its exit
//!   status and stderr, which control request timed out and which budget
//!   held it up.
// docs.rs: each feature-gated item is labelled with the feature it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

mod runtime;

pub use runtime::Runtime;

/// A live session with the Claude Code CLI on async-std or smol (see
/// [`claude_proto_async::Claude`] for every method).
pub type Claude = claude_proto_async::Claude<Runtime>;

/// Configures and starts a [`Claude`] session (see
/// [`claude_proto_async::ClaudeBuilder`]); [`ClaudeBuilder::runtime`]
/// picks the executor.
pub type ClaudeBuilder = claude_proto_async::ClaudeBuilder<Runtime>;

pub use claude_proto_async::{
    BoxFuture, Claim, ClaimError, Claimed, Config, Configure, EndReason, Error, Event, Events,
    ExitReport, HandlerError, HookOptions, INTERRUPT_GRACE, Limits, McpServer, Message, Options,
    SessionEnded, ShutdownPolicy, SpawnError, Stall, StoreSettings, Tool, ToolAnnotations,
    ToolArgs, ToolOutput, Turn, TurnId, TurnItem, TurnStream, claude_proto, sessions, with_state,
};

/// The control side of a [`Claude`] session, cloneable and usable from
/// any task while another reads the events (see
/// [`claude_proto_async::Controller`]); from [`Claude::controller`].
pub type Controller = claude_proto_async::Controller<Runtime>;

/// A parked spare (see [`ClaudeBuilder::prewarm`](claude_proto_async::ClaudeBuilder::prewarm)).
pub type Spare = claude_proto_async::Spare<Runtime>;

/// A pool of spares (see [`claude_proto_async::Pool`]).
pub type Pool = claude_proto_async::Pool<Runtime>;
/// A pool of started sessions (see [`claude_proto_async::StartedPool`]).
pub type StartedPool = claude_proto_async::StartedPool<Runtime>;

/// Asks the CLI one question in one call: spawns it with `options`, sends
/// `prompt`, collects the turn and closes the session (see
/// [`claude_proto_async::query`]). The [`Turn`] has the answer
/// ([`Turn::text`]) and its cost ([`Turn::cost_usd`], the whole
/// session's, which here is this one answer's). Failing to start is
/// [`Error::Spawn`], so one error type covers the whole call.
///
/// ```no_run
/// # async fn demo() -> Result<(), claude_proto_async_std::Error> {
/// use claude_proto_async_std::{Options, query};
///
/// let turn = query("What is 2 + 2?", Options::default()).await?;
/// println!("{}", turn.text().unwrap_or_default());
/// # Ok(()) }
/// ```
pub async fn query(prompt: impl Into<String>, options: Options) -> Result<Turn, Error> {
    claude_proto_async::query::<Runtime>(prompt, options).await
}

/// What a typical program needs, in one import: `use claude_proto_async_std::prelude::*;`.
///
/// The session ([`Claude`], [`Controller`], [`ClaudeBuilder`],
/// [`TurnStream`]), in-process tools ([`McpServer`], [`Tool`]),
/// and the part every adapter shares
/// ([`claude_proto_async::prelude`]): configuration (`Options`,
/// `PermissionMode`, `Configure`, `HookOptions`), what handlers take and
/// return (`PermissionResult`, `ToolArgs`, `ToolOutput`, `ToolInput`,
/// `HandlerError`, `with_state`, the `PreToolUse`/`PostToolUse` hook types,
/// `Json`), what a session hands over (`Event`, `Message`, `Turn`) and the
/// errors (`Error`, `SpawnError`). The one-shot [`query`] is left out, to
/// keep the name free; call it by its path.
pub mod prelude {
    pub use claude_proto_async::prelude::*;

    pub use crate::{Claude, ClaudeBuilder, Controller, McpServer, Spare, Tool, TurnStream};
}

// The crate's README, whose examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
