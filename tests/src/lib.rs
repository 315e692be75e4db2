//! Test support for the `claude-proto` adapters.
//!
//! - The `fake-claude` binary (`src/bin/fake-claude.rs`): a scripted fake of
//!   the Claude Code CLI, independent of the crates it tests.
//! - [`conformance`]: one suite of scenarios, written once and run against
//!   every adapter through its `Harness` implementation (`tests/*.rs`).
//! - [`process`]: checks on child processes (is it still running?).

pub mod conformance;
pub mod process;
