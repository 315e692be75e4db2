//! Test support for the `claude-proto` adapters.
//!
//! - The `fake-claude` binary (`src/bin/fake-claude.rs`): a scripted fake of
//!   the Claude Code CLI, independent of the crates it tests.
//! - [`conformance`]: one suite of scenarios, written once and run against
//!   every adapter through its `Harness` implementation (`tests/*.rs`).
//! - [`handlers`]: the handlers a conformance spec asks for, for every
//!   async adapter.
//! - [`logs`]: what the library logs through `tracing`, captured.
//! - [`process`]: checks on child processes (is it still running?).
//! - The loopback stand-in for the Anthropic Messages API that runs the
//!   real CLI offline is the testkit's `claude_proto_testkit::model_api`.
//! - [`real_cli`]: end-to-end scenarios against the real Claude Code CLI
//!   (pinned in `tests/peer`), run per adapter (`tests/real_cli.rs`).
//! - [`drift`]: a reader of the TypeScript Agent SDK's declarations (pinned
//!   in `tests/peer/sdk`) and their comparison with the model
//!   (`tests/drift.rs`).

pub mod conformance;
pub mod drift;
pub mod endpoint;
pub mod handlers;
pub mod logs;
pub mod process;
pub mod python;
pub mod real_cli;
pub mod stores;
pub mod weather;

/// The code samples of the repository's README, compiled as doc tests so
/// they cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeSamples;
