//! Drive the Claude Code CLI from ordinary blocking code: no async
//! runtime, std threads and bounded channels only.
//!
//! A [`Claude`] is a live, multi-turn, bidirectional session with the
//! `claude` CLI (`--input-format stream-json --output-format stream-json`):
//! send prompts, read typed events as they stream, answer the CLI's
//! permission prompts, hooks and in-process MCP tool calls with plain
//! closures, and interrupt or reconfigure the session mid-turn.
//!
//! All protocol logic lives in the sans-IO core, [`claude_proto`], and the
//! driver loop's decisions in [`claude_proto_process`]; this crate owns the
//! child process (or any reader/writer pair) and pumps bytes through one
//! [`claude_proto::Session`] on a single driver thread. It speaks the same
//! vocabulary as `claude-proto-tokio`, with blocking methods.
//!
//! ```no_run
//! use claude_proto::model::permission::PermissionResult;
//! use claude_proto_blocking::{Claude, Options};
//!
//! # fn demo() -> Result<(), claude_proto_blocking::Error> {
//! let mut claude = Claude::builder(Options::default())
//!     .on_permission(|ask| {
//!         Ok(if ask.tool_name == "Read" {
//!             PermissionResult::allow()
//!         } else {
//!             PermissionResult::deny("only reading is allowed here")
//!         })
//!     })
//!     .spawn()?;
//!
//! let turn = claude.query("What is in README.md?")?;
//! println!("{}", turn.text().unwrap_or_default());
//! println!("cost: ${:.4}", turn.result.cost_usd());
//!
//! // Or read events as they stream:
//! claude.send_text("And in Cargo.toml?")?;
//! for event in claude.events() {
//!     if let Some(message) = event.as_message() {
//!         if message.is_result() {
//!             break;
//!         }
//!     }
//! }
//!
//! claude.close()?;
//! # Ok(())
//! # }
//! ```
//!
//! # Threads
//!
//! A session runs a driver thread (all protocol state), a stdout reader, a
//! stderr reader, a stdin writer, a thread waiting for the child's exit,
//! and up to [`ClaudeBuilder::max_concurrent_handlers`] handler threads,
//! started when first needed. They talk through bounded channels only.
//!
//! # Guarantees
//!
//! - **Bounded memory, with backpressure.** Events wait in a bounded
//!   channel ([`ClaudeBuilder::event_capacity`]); the CLI's stdout is read
//!   one chunk at a time, the next read only once the driver has used the
//!   previous chunk, and the driver uses it only when the events it made
//!   have been handed over. A consumer that stops reading slows the CLI
//!   down instead of growing memory. Commands wait (the calling thread
//!   blocks) while the CLI is not reading its stdin.
//! - **Handlers never block reading.** Each request from the CLI runs its
//!   closure on a handler thread (at most
//!   [`ClaudeBuilder::max_concurrent_handlers`] at once; further requests
//!   queue, as many as the core accepts), called in the order the CLI
//!   asked. A handler that fails or panics (`catch_unwind`) produces an
//!   error answer, never a dead session.
//! - **Cancelled requests are never answered.** A blocking closure cannot
//!   be stopped: when the CLI withdraws a request (or the session ends)
//!   while its handler runs, the handler's [`CancelToken`] is cancelled and
//!   its result is dropped, not sent. Long-running handlers can watch
//!   [`CancelToken::current`] to return early.
//! - **stderr is always drained**, its tail kept for errors and offered to
//!   [`ClaudeBuilder::on_stderr`].
//! - **No orphans, no zombies.** [`Claude::close`] closes stdin, then sends
//!   SIGTERM, then SIGKILL after the [`ShutdownPolicy`] grace periods, and
//!   reaps the child; dropping the handle does the same on the driver
//!   thread in the background. The child is signalled only while it has
//!   not been reaped ([`claude_proto_process::SharedChild`]), so a reused
//!   pid is never hit. (If your whole program exits first, the CLI sees its
//!   stdin close and exits by itself.)
//! - **Nothing waits forever on the CLI.** Every control request times out
//!   (its own timeout or the config's), so a blocking call returns even if
//!   the CLI goes silent.
//! - **Errors say what happened**: where the CLI was looked for, its exit
//!   status and stderr, which control request timed out.
//!
//! Over [`ClaudeBuilder::connect`], a reader or writer blocked forever in
//! `read` or `write` keeps its own thread until it returns; the session
//! itself still ends after the close grace.
#![deny(missing_docs)]

mod builder;
mod client;
mod driver;
mod handlers;

pub use builder::ClaudeBuilder;
pub use client::{Claude, Elapsed, Events};
pub use handlers::{CancelToken, McpServer};

pub use claude_proto;
pub use claude_proto::dispatch::ToolOutput;
pub use claude_proto::options::Options;
pub use claude_proto::{Config, Message};
pub use claude_proto_process::handlers::HandlerError;
pub use claude_proto_process::{Error, Event, ExitReport, HookOptions, ShutdownPolicy, Turn};
