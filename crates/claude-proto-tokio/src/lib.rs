//! Drive the Claude Code CLI from tokio.
//!
//! A [`Claude`] is a live, multi-turn, bidirectional session with the
//! `claude` CLI (`--input-format stream-json --output-format stream-json`):
//! send prompts, read typed events as they stream, answer the CLI's
//! permission prompts, hooks and in-process MCP tool calls with async
//! functions, and interrupt or reconfigure the session mid-turn.
//!
//! All protocol logic lives in the sans-IO core, [`claude_proto`]; this
//! crate owns the child process (or any byte-stream pair) and pumps bytes
//! through one [`claude_proto::Session`] in a single driver task.
//!
//! ```no_run
//! use claude_proto::model::permission::PermissionResult;
//! use claude_proto_tokio::{Claude, Options};
//!
//! # async fn demo() -> Result<(), claude_proto_tokio::Error> {
//! let mut claude = Claude::builder(Options::default())
//!     .on_permission(|ask| async move {
//!         Ok(if ask.tool_name == "Read" {
//!             PermissionResult::allow()
//!         } else {
//!             PermissionResult::deny("only reading is allowed here")
//!         })
//!     })
//!     .spawn()
//!     .await?;
//!
//! let turn = claude.query("What is in README.md?").await?;
//! println!("{}", turn.text().unwrap_or_default());
//! println!("cost: ${:.4}", turn.result.cost_usd());
//!
//! claude.close().await?;
//! # Ok(())
//! # }
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
//!   the runtime goes away first.
//! - **Errors say what happened**: where the CLI was looked for, its exit
//!   status and stderr, which control request timed out.
#![deny(missing_docs)]

mod builder;
mod client;
mod driver;

pub use builder::ClaudeBuilder;
pub use claude_proto_process::Event;
pub use claude_proto_process::HookOptions;
pub use claude_proto_process::handlers::{BoxFuture, HandlerError, McpServer};
pub use client::{Claude, Events};

pub use claude_proto;
pub use claude_proto::dispatch::ToolOutput;
pub use claude_proto::options::Options;
pub use claude_proto::{Config, Message};
pub use claude_proto_process::{Error, ExitReport, ShutdownPolicy, Turn};
