//! Every bound and grace period of a host, checked once at the start.

use std::time::{Duration, Instant};

/// The bounds of one session above the core, in bytes and time.
///
/// Start from [`Limits::default`] and change fields; [`Limits::check`]
/// (called by [`Host::new`](crate::Host::new)) refuses values that cannot
/// work, so a bad value fails at `spawn`, not hours later.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Bytes of events (and of CLI requests waiting for a handler slot) the
    /// host holds for the user before it stops reading the CLI's output.
    /// While below it, stdout is read as fast as the CLI writes, so control
    /// answers and CLI requests are never stuck behind unread events.
    /// One line may overshoot it (a line is never split). Default 4 MiB:
    /// about ten thousand typical stream events of tolerance for a user who
    /// waits on a call without reading (the Python SDK buffers 100
    /// messages), while a session streaming faster than it is read stays
    /// at a few MiB above it (see BENCHMARKS.md). After the process exits,
    /// what is left in its pipe is read up to twice the budget, and when
    /// the session ends a read held back mid-way (one read at most) is
    /// delivered whatever the budget: it is the CLI's last word.
    pub read_ahead_bytes: usize,
    /// Bytes waiting to be written to the CLI's stdin above which new
    /// commands are refused ([`Error::Backlog`](crate::Error::Backlog)) and
    /// reading pauses (reading makes answers to write). One message may
    /// overshoot it. Default 4 MiB.
    pub max_unwritten_bytes: usize,
    /// Handlers running at once; further requests wait, counted in
    /// `read_ahead_bytes`. Default 16.
    pub max_concurrent_handlers: usize,
    /// How long to wait for the `initialize` answer (`None`: the core
    /// config's request timeout).
    pub initialize_timeout: Option<Duration>,
    /// How long the CLI may take to exit after its stdin closes before
    /// SIGTERM (on Windows, which has no SIGTERM, before it is killed).
    /// Default 2 s.
    pub close_grace: Duration,
    /// How long it may take after SIGTERM before SIGKILL, and what is left
    /// of its process group once it has exited. Default 5 s. Unused on
    /// Windows, where terminating is killing.
    pub term_grace: Duration,
    /// How long to keep reading stdout and stderr after the process exited
    /// (a grandchild can hold the pipes open forever). Default 200 ms.
    pub drain_after_exit: Duration,
    /// Bytes of stderr kept for exit reports. Default 8 KiB.
    pub stderr_tail_bytes: usize,
    /// How long the CLI may leave its stdin unread while more than
    /// `max_unwritten_bytes` wait for it. Past that, the session closes
    /// ([`EndReason::StdinStalled`](crate::EndReason::StdinStalled)):
    /// reading has paused to bound memory, so a CLI that neither reads nor
    /// is read from would otherwise wait forever. Default 60 s.
    pub stdin_stall_timeout: Duration,
    /// Check the version the CLI reports in its `initialize` answer
    /// ([`claude_proto::version::VersionCheck`]): a CLI older than the
    /// supported minimum, or one that reports no version, gets an
    /// [`Event::CliVersion`](crate::Event::CliVersion) warning; one known to
    /// be incompatible is refused ([`Error::IncompatibleCli`](crate::Error::IncompatibleCli)).
    /// Default `true`; the adapters turn it off when
    /// `CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK` is set.
    pub check_cli_version: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            read_ahead_bytes: 4 * 1024 * 1024,
            max_unwritten_bytes: 4 * 1024 * 1024,
            max_concurrent_handlers: 16,
            initialize_timeout: None,
            close_grace: Duration::from_secs(2),
            term_grace: Duration::from_secs(5),
            drain_after_exit: Duration::from_millis(200),
            stderr_tail_bytes: 8 * 1024,
            stdin_stall_timeout: Duration::from_secs(60),
            check_cli_version: true,
        }
    }
}

/// The largest duration accepted anywhere: about 30 years, far below what
/// makes `Instant + Duration` overflow on any platform.
pub const MAX_DURATION: Duration = Duration::from_secs(30 * 365 * 24 * 3600);

/// The largest byte budget accepted: 1 TiB where `usize` has 64 bits,
/// 1 GiB where it has 32 (wasm32), so sums of a few budgets never
/// overflow.
pub const MAX_BYTES: usize = if usize::BITS >= 64 { 1 << 40 } else { 1 << 30 };

impl Limits {
    /// Refuses zero or huge capacities and durations too large to add to an
    /// [`Instant`].
    pub fn check(&self) -> Result<(), LimitsError> {
        let bytes = [
            ("read_ahead_bytes", self.read_ahead_bytes),
            ("max_unwritten_bytes", self.max_unwritten_bytes),
            ("max_concurrent_handlers", self.max_concurrent_handlers),
        ];
        for (name, value) in bytes {
            check_count(name, value, 1)?;
        }
        check_count("stderr_tail_bytes", self.stderr_tail_bytes, 0)?;
        let durations = [
            ("initialize_timeout", self.initialize_timeout),
            ("close_grace", Some(self.close_grace)),
            ("term_grace", Some(self.term_grace)),
            ("drain_after_exit", Some(self.drain_after_exit)),
            ("stdin_stall_timeout", Some(self.stdin_stall_timeout)),
        ];
        for (name, value) in durations {
            if let Some(value) = value {
                check_duration(name, value)?;
            }
        }
        Ok(())
    }
}

/// Refuses a count below `min` or above [`MAX_BYTES`].
pub fn check_count(name: &'static str, value: usize, min: usize) -> Result<(), LimitsError> {
    if value < min {
        return Err(LimitsError {
            name,
            problem: format!("must be at least {min}, not {value}"),
        });
    }
    if value > MAX_BYTES {
        return Err(LimitsError {
            name,
            problem: format!("must be at most {MAX_BYTES}, not {value}"),
        });
    }
    Ok(())
}

/// Refuses a duration above [`MAX_DURATION`].
pub fn check_duration(name: &'static str, value: Duration) -> Result<(), LimitsError> {
    if value > MAX_DURATION {
        return Err(LimitsError {
            name,
            problem: format!("must be at most {MAX_DURATION:?}, not {value:?}"),
        });
    }
    Ok(())
}

/// `now + after`, saturating far in the future instead of panicking.
pub fn deadline(now: Instant, after: Duration) -> Instant {
    now.checked_add(after.min(MAX_DURATION))
        .or_else(|| now.checked_add(MAX_DURATION))
        .unwrap_or(now)
}

/// A limit or duration given to a builder that cannot work.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{name}` {problem}")]
pub struct LimitsError {
    /// The setting.
    pub name: &'static str,
    /// What is wrong with its value.
    pub problem: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_pass_and_bad_values_are_named() {
        assert_eq!(Limits::default().check(), Ok(()));
        let zero = Limits {
            read_ahead_bytes: 0,
            ..Limits::default()
        };
        assert_eq!(zero.check().map_err(|e| e.name), Err("read_ahead_bytes"));
        let huge = Limits {
            max_concurrent_handlers: usize::MAX,
            ..Limits::default()
        };
        assert_eq!(
            huge.check().map_err(|e| e.name),
            Err("max_concurrent_handlers")
        );
        let forever = Limits {
            close_grace: Duration::MAX,
            ..Limits::default()
        };
        assert_eq!(forever.check().map_err(|e| e.name), Err("close_grace"));
    }

    #[test]
    fn deadlines_saturate() {
        let now = Instant::now();
        assert!(deadline(now, Duration::MAX) > now);
    }
}
