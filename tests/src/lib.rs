//! Test support for the `claude-proto` adapters.
//!
//! - [`conformance`]: one suite of scenarios, written once and run against
//!   every adapter through its `Harness` implementation (`tests/*.rs`), on
//!   the test kit's scripted CLI (the `testkit-cli` binary of this package).
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
pub mod items;
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

/// The code samples of `docs/guarantees.md`, compiled as doc tests so they
/// cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../../docs/guarantees.md")]
pub struct GuaranteesSamples;

/// The code samples of `docs/compared-with-sdks.md` (its side-by-side is
/// checked against the two programs by `tests/side_by_side.rs`), compiled
/// as doc tests so they cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../../docs/compared-with-sdks.md")]
pub struct ComparedWithSdksSamples;

/// The code samples of `docs/options.md`, compiled as doc tests so they
/// cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../../docs/options.md")]
pub struct OptionsSamples;

/// The code samples of `docs/protocol-coverage.md`, compiled as doc tests
/// so they cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../../docs/protocol-coverage.md")]
pub struct ProtocolCoverageSamples;
