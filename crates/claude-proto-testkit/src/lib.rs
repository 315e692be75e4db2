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

pub mod model_api;
mod step;

pub use step::{Difference, Failure, FailureKind, Matcher, Outgoing, Reply, Step, Steps};

pub use model_api::ModelApi;
