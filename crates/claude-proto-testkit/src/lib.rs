//! Test your own Claude Code agent without a model, an account or a network.
//!
//! Three levels, each usable from every adapter (tokio, async-std, smol,
//! blocking):
//!
//! 1. **A scripted CLI** ([`Script`]): what the CLI sends, and what it
//!    expects the program under test to send back, step by step. It runs in
//!    process, on a thread of its own behind two in-memory pipes that the
//!    adapters' `connect` accepts, or as a child process (the
//!    `claude-proto-testkit-cli` binary) for tests that go through `spawn`.
//!    A program that does something the script did not expect fails the
//!    test with the step, the expected and actual frames and their first
//!    difference; one that stops talking fails at a deadline.
//! 2. **Record and replay** ([`cassette`]): a session recorded at the
//!    stream-json boundary, both directions with timing, secrets and paths
//!    redacted, replayed as the CLI.
//! 3. **The real CLI offline** ([`model_api`]): a loopback stand-in for the
//!    model API with scripted turns, and the options that point the real
//!    CLI at it.
//!
//! The [`guide`] ("Testing your agent") walks through all three, with a
//! complete example per level for tokio and for the blocking adapter.
//!
//! # The scripted CLI
//!
//! A test of a permission callback, in full (feature `tokio`):
//!
//! ```
//! use claude_proto::model::permission::PermissionResult;
//! use claude_proto_testkit::{Script, ask, cli, expect};
//! use claude_proto_tokio::{Claude, Options};
//! use serde_json::json;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let rm = json!({"command": "rm -rf /var/log"});
//! let script = Script::new()
//!     .expect(expect::user_text("Delete the logs"))
//!     .send(cli::system_init())
//!     .send(cli::assistant_tool_use("Bash", rm.clone()))
//!     .ask(ask::can_use_tool("Bash", rm), expect::deny())
//!     .send(cli::assistant_text("I was not allowed to."))
//!     .send(cli::result_success("I was not allowed to."))
//!     .expect_end();
//!
//! // The program under test: a session with its permission callback.
//! let builder = Claude::builder(Options::default()).on_permission(async |ask| {
//!     if ask.tool_name == "Bash" {
//!         PermissionResult::deny("no shell in this agent")
//!     } else {
//!         PermissionResult::allow()
//!     }
//! });
//! let (mut claude, run) = claude_proto_testkit::tokio::connect(builder, script)?;
//! let turn = claude.ask("Delete the logs").await?;
//! assert_eq!(turn.text(), Some("I was not allowed to."));
//! claude.close().await?;
//! run.finish().await?; // the verdict: every step passed
//! # Ok(())
//! # }
//! ```
//!
//! A script is a list of [`Step`]s, written with the builders of [`cli`]
//! (lines the CLI writes: `system/init`, assistant text and tool calls,
//! streamed deltas, results and errors), [`ask`] (requests the CLI sends
//! the program: permission prompts, hook callbacks, MCP messages, dialogs)
//! and [`expect`] (matchers for what the program sends, and for its
//! answers). The scripted CLI runs them in order ([`ScriptedCli`] says
//! exactly how): it answers the program's `initialize` by itself
//! (a realistic answer, [`cli::initialize_response`]), lets lines the
//! program writes early wait for the step that expects them, takes the
//! program's answers to its requests by their id, and puts the program's
//! own hook callback id into a hook callback ([`Step::Ask`]).
//!
//! When the program does something else, the run fails with a [`Failure`]
//! that shows the step, the expected and actual frames and their first
//! difference, as a JSON pointer:
//!
//! ```text
//! scripted CLI, step 1 (user): the program sent a line that does not match
//!   expected: {"message":{"content":[{"text":"Delete the logs","type":"text"}],"role":"user"},"type":"user"}
//!   actual:   {"type":"user","session_id":"","message":{"role":"user","content":[{"type":"text","text":"Delete the cache"}]},"parent_tool_use_id":null}
//!   first difference at /message/content/0/text: expected "Delete the logs", actual "Delete the cache"
//! ```
//!
//! Every expecting step has a deadline ([`Settings::step_deadline`], 10 s
//! by default): a program that stops talking, or a script never finished,
//! fails with [`FailureKind::Timeout`] naming what was awaited, never
//! hangs. After the last step the scripted CLI waits for the program to
//! close its end, so close the session before waiting for the verdict.
//!
//! Ways to run a script:
//!
//! - in process, one call per adapter: `tokio::connect` (feature
//!   `tokio`), `blocking::connect` (feature `blocking`),
//!   `async_std::connect` (feature `async-std`, for async-std and smol);
//! - in process, with the streams in hand: [`Script::start`] gives the
//!   program's ends (in-memory pipes: [`PipeReader`], [`PipeWriter`])
//!   for any `connect`;
//! - as a child process, through an adapter's real `spawn`:
//!   [`Script::child`] and the `claude-proto-testkit-cli` binary (see
//!   [`child`]);
//! - with no IO at all: [`ScriptedCli`] is a sans-IO state machine, fed
//!   bytes and instants.
// docs.rs: each feature-gated item is labelled with the feature it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
// A `Failure` ends a run and is made once per run; boxing it would only
// make matching on it clumsier for tests.
#![allow(clippy::result_large_err)]

pub mod ask;
#[cfg(feature = "async-std")]
pub mod async_std;
#[cfg(feature = "blocking")]
pub mod blocking;
pub mod cassette;
pub mod child;
pub mod cli;
mod diff;
mod engine;
pub mod expect;
#[doc = include_str!("../GUIDE.md")]
pub mod guide {}
pub mod model_api;
mod pipe;
mod run;
mod script;
pub mod serve;
mod step;
#[cfg(feature = "tokio")]
pub mod tokio;

pub use engine::{
    DEFAULT_KEEP_RECEIVED_BYTES, DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_QUEUED_BYTES,
    DEFAULT_STEP_DEADLINE, FAILURE_EXIT_CODE, Report, ScriptedCli, Settings,
};
pub use model_api::ModelApi;
pub use pipe::{PipeReader, PipeWriter};
pub use run::{Finish, ProgramEnds, ScriptRun};
pub use script::{SCRIPT_FORMAT, Script, ScriptError};
pub use serve::{BadLine, Behaviour, Extra, Policy, Signal, Simulation};
pub use step::{CheckFn, Difference, Failure, FailureKind, Matcher, Outgoing, Reply, Step, Steps};

// The crate's README, whose examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
