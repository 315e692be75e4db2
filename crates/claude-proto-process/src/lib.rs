//! Process and host plumbing shared by the `claude-proto` adapters.
//!
//! Everything an adapter needs that does not depend on its runtime lives
//! here once: finding the executable, building its
//! [`std::process::Command`] from [`Options`], keeping a bounded tail of its
//! stderr, describing how it exited, sending it SIGTERM, the close sequence,
//! the [`Error`] and [`Event`] types every adapter reports, and the
//! [`host::Host`] that routes the CLI's requests to handler jobs, tracks
//! who waits for which answer, and settles everything at exit. tokio and async-process both build their
//! commands from a `std::process::Command`, so the adapters only add the
//! runtime glue.
#![deny(missing_docs)]

mod child;
mod command;
pub mod driver;
mod error;
mod event;
pub mod handlers;
pub mod host;
pub mod log;
pub mod session;
mod settings;
mod stderr;
mod unwind;

pub use child::SharedChild;
pub use command::{SystemLookup, build_command, locate_cli, terminate};
pub use error::{Error, ExitReport};
pub use event::Event;
pub use session::{SessionExit, Turn};
pub use settings::{HookOptions, Settings};
pub use stderr::{StderrCallback, StderrTail};
pub use unwind::{CatchUnwind, panic_message};

use std::time::Duration;

pub use claude_proto::options::Options;

/// How a session ends its child process when asked to close.
///
/// The sequence is the official SDKs': close stdin (the CLI finishes its
/// turn and exits), wait `close_grace`; if still running send SIGTERM, wait
/// `term_grace`; then SIGKILL. `close()` therefore returns within
/// `close_grace + term_grace` plus the time to reap the process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ShutdownPolicy {
    /// How long the CLI may take to exit after its stdin closes. Default 2 s.
    pub close_grace: Duration,
    /// How long it may take after SIGTERM before SIGKILL. Default 5 s.
    pub term_grace: Duration,
}

impl Default for ShutdownPolicy {
    fn default() -> Self {
        Self {
            close_grace: Duration::from_secs(2),
            term_grace: Duration::from_secs(5),
        }
    }
}

impl ShutdownPolicy {
    /// A policy with the given grace periods.
    pub fn new(close_grace: Duration, term_grace: Duration) -> Self {
        Self {
            close_grace,
            term_grace,
        }
    }
}

/// Bytes kept from the end of the child's stderr for error reports.
pub const DEFAULT_STDERR_TAIL: usize = 8 * 1024;
