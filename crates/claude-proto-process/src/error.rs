//! The error type every adapter reports.

use std::fmt;
use std::path::PathBuf;
use std::process::ExitStatus;

use claude_proto::discovery::NotFound;
use claude_proto::options::OptionsError;
use claude_proto::{ControlError, DecodeError, SendError};

/// How the CLI process ended, with the end of what it wrote to stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExitReport {
    /// Exit code, if it exited normally.
    pub code: Option<i32>,
    /// Signal number, if a signal ended it (Unix).
    pub signal: Option<i32>,
    /// The last bytes of its stderr (lossy UTF-8), possibly empty.
    pub stderr_tail: String,
}

impl ExitReport {
    /// Builds a report from the process status and the stderr tail.
    pub fn new(status: ExitStatus, stderr_tail: String) -> Self {
        #[cfg(unix)]
        let signal = std::os::unix::process::ExitStatusExt::signal(&status);
        #[cfg(not(unix))]
        let signal = None;
        Self {
            code: status.code(),
            signal,
            stderr_tail,
        }
    }

    /// `true` for exit code 0.
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }
}

impl fmt::Display for ExitReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.code, self.signal) {
            (Some(code), _) => write!(f, "the CLI exited with code {code}")?,
            (None, Some(signal)) => write!(f, "the CLI was killed by signal {signal}")?,
            (None, None) => write!(f, "the CLI exited")?,
        }
        let tail = self.stderr_tail.trim();
        if tail.is_empty() {
            write!(f, " (its stderr was empty)")
        } else {
            write!(f, "; its stderr ended with:\n{tail}")
        }
    }
}

/// What can go wrong driving the CLI.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The `claude` executable was not found; the message lists every place
    /// searched and how to install it.
    #[error(transparent)]
    NotFound(NotFound),
    /// The options cannot be turned into a valid command line.
    #[error("invalid options: {0}")]
    Options(#[source] OptionsError),
    /// The process could not be started.
    #[error(
        "could not start the CLI at {program}: {source} (check that the file is executable and runs on this machine)"
    )]
    Spawn {
        /// The executable that was tried.
        program: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// Reading from or writing to the CLI failed.
    #[error("talking to the CLI failed: {0}")]
    Io(#[from] std::io::Error),
    /// The CLI exited (or its output ended) before the operation completed.
    #[error("{0}")]
    Exited(ExitReport),
    /// The session has ended (closed, or its driver stopped); start a new one.
    #[error("the session is closed; start a new session to continue")]
    Closed,
    /// A control request failed: refused by the CLI, timed out, or cancelled.
    #[error(transparent)]
    Control(#[from] ControlError),
    /// A command could not be sent.
    #[error(transparent)]
    Send(#[from] SendError),
    /// An answer did not have the expected shape.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// A turn ended without a `result` message.
    #[error(
        "the turn ended without a result message: the CLI's output ended first (close() reports how the process exited)"
    )]
    NoResult,
}
