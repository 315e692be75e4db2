//! Drive the Claude Code CLI from async-std or smol.
//!
//! A [`Claude`] is a live, multi-turn, bidirectional session with the
//! `claude` CLI (`--input-format stream-json --output-format stream-json`):
//! send prompts, read typed events as they stream, answer the CLI's
//! permission prompts, hooks and in-process MCP tool calls with async
//! functions, and interrupt or reconfigure the session mid-turn.
//!
//! All protocol logic lives in the sans-IO core, [`claude_proto`]; this
//! crate owns the child process (or any byte-stream pair) and pumps bytes
//! through one [`claude_proto::Session`] in a single driver task. It is
//! built on `async-process`, `async-io` and `futures-lite`, which async-std
//! and smol share, so one implementation serves both.
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
//! # fn main() -> Result<(), claude_proto_async_std::Error> {
//! use claude_proto::model::permission::PermissionResult;
//! use claude_proto_async_std::{Claude, Options};
//!
//! async_std::task::block_on(async {
//!     let mut claude = Claude::builder(Options::default())
//!         .on_permission(|ask| async move {
//!             Ok(if ask.tool_name == "Read" {
//!                 PermissionResult::allow()
//!             } else {
//!                 PermissionResult::deny("only reading is allowed here")
//!             })
//!         })
//!         .spawn()
//!         .await?;
//!
//!     let turn = claude.query("What is in README.md?").await?;
//!     println!("{}", turn.text().unwrap_or_default());
//!     println!("cost: ${:.4}", turn.result.cost_usd());
//!
//!     claude.close().await?;
//!     Ok(())
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
//! # fn main() -> Result<(), claude_proto_async_std::Error> {
//! use claude_proto::model::permission::PermissionResult;
//! use claude_proto_async_std::{Claude, Options};
//!
//! smol::block_on(async {
//!     let mut claude = Claude::builder(Options::default())
//!         .on_permission(|ask| async move {
//!             Ok(if ask.tool_name == "Read" {
//!                 PermissionResult::allow()
//!             } else {
//!                 PermissionResult::deny("only reading is allowed here")
//!             })
//!         })
//!         .spawn()
//!         .await?;
//!
//!     claude.send_text("What is in README.md?").await?;
//!     // `events()` is also a `futures_core::Stream`.
//!     while let Some(event) = claude.events().next().await {
//!         if let Some(message) = event.as_message() {
//!             println!("{}", String::from_utf8_lossy(message.as_bytes()));
//!             if message.is_result() {
//!                 break;
//!             }
//!         }
//!     }
//!
//!     claude.close().await?;
//!     Ok(())
//! })
//! # }
//! # #[cfg(not(feature = "smol"))]
//! # fn main() {}
//! ```
//!
//! # Guarantees
//!
//! - **Bounded memory, with backpressure.** Events wait in a bounded queue;
//!   stdout is read only as fast as you take events, so a consumer that
//!   stops reading slows the CLI down instead of growing memory. Commands
//!   wait while the CLI is not reading its stdin.
//! - **Handlers never block reading.** Each request from the CLI runs its
//!   handler in its own task (at most
//!   [`ClaudeBuilder::max_concurrent_handlers`] at once). When the CLI
//!   cancels a request, the handler's future is dropped and no answer is
//!   sent. A handler that fails or panics produces an error answer, never a
//!   dead session.
//! - **stderr is always drained**, its tail kept for errors and offered to
//!   [`ClaudeBuilder::on_stderr`].
//! - **No orphans.** [`Claude::close`] closes stdin, then sends SIGTERM,
//!   then SIGKILL after the [`ShutdownPolicy`] grace periods; dropping the
//!   handle does the same in the background, and the child is killed if
//!   the driver task is dropped first (`kill_on_drop`).
//! - **Errors say what happened**: where the CLI was looked for, its exit
//!   status and stderr, which control request timed out.
#![deny(missing_docs)]

mod builder;
mod client;
mod driver;
mod runtime;

pub use builder::ClaudeBuilder;
pub use claude_proto_process::Event;
pub use claude_proto_process::HookOptions;
pub use claude_proto_process::handlers::{BoxFuture, HandlerError, McpServer};
pub use client::{Claude, Events};
pub use runtime::Runtime;

pub use claude_proto;
pub use claude_proto::dispatch::ToolOutput;
pub use claude_proto::options::Options;
pub use claude_proto::{Config, Message};
pub use claude_proto_process::{Error, ExitReport, ShutdownPolicy, Turn};
