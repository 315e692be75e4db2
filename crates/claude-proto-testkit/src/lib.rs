//! Test your own Claude Code agent without a model, an account or a network.
//!
//! Three levels, each usable from every adapter (tokio, async-std, smol,
//! blocking):
//!
//! 1. **A scripted CLI** ([`Script`]): what the CLI sends, and what it
//!    expects the program under test to send back, step by step. It runs in
//!    process, on a thread of its own behind a socket pair that the
//!    adapters' `connect` accepts, or as a child process (the
//!    `claude-proto-testkit-cli` binary) for tests that go through `spawn`.
//!    A program that does something the script did not expect fails the
//!    test with the step, the expected and actual frames and their first
//!    difference; one that stops talking fails at a deadline.
//! 2. **Record and replay** (`cassette`): a session recorded at the
//!    stream-json boundary, both directions with timing, secrets and paths
//!    redacted, replayed as the CLI.
//! 3. **The real CLI offline** (`model_api`): a loopback stand-in for the
//!    model API with scripted turns, and the options that point the real
//!    CLI at it.
#![deny(missing_docs)]
// A `Failure` ends a run and is made once per run; boxing it would only
// make matching on it clumsier for tests.
#![allow(clippy::result_large_err)]

pub mod ask;
#[cfg(feature = "async-std")]
pub mod async_std;
#[cfg(feature = "blocking")]
pub mod blocking;
pub mod child;
pub mod cli;
mod diff;
mod engine;
pub mod expect;
mod run;
mod script;
mod step;
#[cfg(feature = "tokio")]
pub mod tokio;

pub use engine::{
    DEFAULT_KEEP_RECEIVED_BYTES, DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_QUEUED_BYTES,
    DEFAULT_STEP_DEADLINE, FAILURE_EXIT_CODE, Report, ScriptedCli, Settings,
};
pub use run::{Finish, ProgramEnds, ScriptRun, Stream};
pub use script::{SCRIPT_FORMAT, Script, ScriptError};
pub use step::{CheckFn, Difference, Failure, FailureKind, Matcher, Outgoing, Reply, Step, Steps};
