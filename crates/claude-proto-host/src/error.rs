//! What can go wrong: how a session ended, why one call failed, why a
//! session could not start.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use claude_proto::discovery::NotFound;
use claude_proto::options::OptionsError;
use claude_proto::{ControlError, DecodeError, SendError};

/// How the CLI process ended, with the end of what it wrote to stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExitReport {
    /// Exit code, if it exited normally.
    pub code: Option<i32>,
    /// Signal number, if a signal ended it (Unix).
    pub signal: Option<i32>,
    /// The last bytes of its stderr (lossy UTF-8), possibly empty.
    pub stderr_tail: String,
}

impl ExitReport {
    /// A report of an exit with `code` or by `signal`, and the stderr tail.
    pub fn new(code: Option<i32>, signal: Option<i32>, stderr_tail: String) -> Self {
        Self {
            code,
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

/// Why a session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum EndReason {
    /// The CLI process exited (on its own, or after the close sequence).
    Exited,
    /// The byte stream of a session without a process ended.
    TransportEnded,
    /// The session was closed by its user; over a byte stream the peer
    /// did not end its output within the close grace.
    Closed,
    /// The CLI left its stdin unread for
    /// [`Limits::stdin_stall_timeout`](crate::Limits::stdin_stall_timeout)
    /// with more than the unwritten budget waiting, so the session closed it.
    StdinStalled,
    /// Hooks meant to fail closed were registered and the CLI's answer to
    /// `initialize` showed it cannot honour them, so the session was closed
    /// before any prompt reached it (see [`Error::HooksNotHonoured`]).
    HooksNotHonoured,
    /// The CLI reported a version known to be incompatible, so the session
    /// was closed at its `initialize` answer (see [`Error::IncompatibleCli`]).
    IncompatibleCli,
    /// The `initialize` request carried fields the CLI reads only at
    /// launch and its answer said they were not applied, so the session was
    /// closed before any prompt reached it (see
    /// [`Error::LaunchFieldsNotApplied`]).
    LaunchFieldsNotApplied,
}

/// A session has ended: every later call fails with this, and it says how.
///
/// Cheap to clone (the report is shared), so every call that was waiting
/// when the session ended carries the same value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionEnded {
    reason: EndReason,
    report: Option<Arc<ExitReport>>,
    failure: Option<Arc<str>>,
}

impl SessionEnded {
    /// An end for `reason`, with the process's exit report if there was one.
    pub fn new(reason: EndReason, report: Option<ExitReport>) -> Self {
        Self {
            reason,
            report: report.map(Arc::new),
            failure: None,
        }
    }

    /// The same end, with the failure the CLI reported in its last
    /// `result` before it ended (see [`failure`](Self::failure)).
    #[must_use]
    pub fn with_failure(mut self, text: impl Into<Arc<str>>) -> Self {
        self.failure = Some(text.into());
        self
    }

    /// When the CLI ended the session itself and the last `result` it
    /// wrote reported a failure: that failure's text, worded as
    /// `ResultMessage::error_message` words it ("Resume rejected by
    /// --resume-drops-turn: ...", "API error (HTTP 529)"). The `Display`
    /// text leads with it. `None` when the session was closed from this
    /// side, or the last result was a success.
    pub fn failure(&self) -> Option<&str> {
        self.failure.as_deref()
    }

    /// Why it ended.
    pub fn reason(&self) -> EndReason {
        self.reason
    }

    /// How the process exited (`None` over a byte stream).
    pub fn report(&self) -> Option<&ExitReport> {
        self.report.as_deref()
    }
}

impl fmt::Display for SessionEnded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(failure) = &self.failure {
            write!(
                f,
                "the CLI reported an error and ended the session: {failure}"
            )?;
            return match &self.report {
                Some(report) => write!(f, "; {report}"),
                None => Ok(()),
            };
        }
        match (&self.report, self.reason) {
            (Some(report), EndReason::Closed) => write!(f, "the session was closed; {report}"),
            (report, EndReason::StdinStalled) => {
                write!(
                    f,
                    "the session was closed because the CLI stopped reading its stdin"
                )?;
                match report {
                    Some(report) => write!(f, "; {report}"),
                    None => Ok(()),
                }
            }
            (report, EndReason::HooksNotHonoured) => {
                write!(
                    f,
                    "the session was closed before any prompt was sent: the CLI cannot \
                     honour the hooks registered to block on failure"
                )?;
                match report {
                    Some(report) => write!(f, "; {report}"),
                    None => Ok(()),
                }
            }
            (report, EndReason::IncompatibleCli) => {
                write!(
                    f,
                    "the session was closed: the CLI's version is incompatible with this \
                     library (see the initialize error for what to install)"
                )?;
                match report {
                    Some(report) => write!(f, "; {report}"),
                    None => Ok(()),
                }
            }
            (report, EndReason::LaunchFieldsNotApplied) => {
                write!(
                    f,
                    "the session was closed before any prompt was sent: the CLI did not \
                     confirm the launch fields of the initialize request"
                )?;
                match report {
                    Some(report) => write!(f, "; {report}"),
                    None => Ok(()),
                }
            }
            (Some(report), _) => write!(f, "the session has ended: {report}"),
            (None, EndReason::TransportEnded) => {
                write!(f, "the session has ended: the CLI's output stream ended")
            }
            (None, _) => write!(f, "the session was closed; start a new session to continue"),
        }
    }
}

impl std::error::Error for SessionEnded {}

/// Which of the session's byte budgets a stalled call ran into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Stall {
    /// Reading the CLI's output was paused: `queued` bytes of events were
    /// waiting for the user, at or above the read-ahead budget.
    ReadAheadFull {
        /// Bytes of events and waiting requests held when reading paused.
        queued: usize,
        /// The budget (`Limits::read_ahead_bytes`).
        budget: usize,
    },
    /// Reading a spare's output was paused before its claim was answered:
    /// `queued` bytes of events the CLI wrote while the spare waited, at
    /// or above the read-ahead budget. A spare's events are handed out
    /// only once it is claimed, so no one could have read them.
    SpareReadAheadFull {
        /// Bytes of events held when reading paused.
        queued: usize,
        /// The budget (`Limits::read_ahead_bytes`).
        budget: usize,
    },
    /// `unwritten` bytes were waiting to be written to the CLI's stdin, at
    /// or above the budget: either the CLI was not reading its stdin, or
    /// messages were sent faster than the pipe drains. Which of the two
    /// cannot be told from here; the text names both.
    StdinBacklog {
        /// Bytes still to be written.
        unwritten: usize,
        /// The budget (`Limits::max_unwritten_bytes`).
        budget: usize,
    },
}

impl fmt::Display for Stall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Stall::ReadAheadFull { queued, budget } => write!(
                f,
                "reading the CLI's output was paused because {queued} bytes of events were \
                 waiting to be read (read-ahead budget {budget} bytes): read events while \
                 calls are pending, or raise `read_ahead_bytes`"
            ),
            Stall::SpareReadAheadFull { queued, budget } => write!(
                f,
                "reading the spare's output was paused because {queued} bytes of events it \
                 wrote before its claim were held (read-ahead budget {budget} bytes); a \
                 spare's events are handed out only once it is claimed, so raise \
                 `read_ahead_bytes` in the limits its sessions are built with"
            ),
            Stall::StdinBacklog { unwritten, budget } => write!(
                f,
                "{unwritten} bytes wait to be written to the CLI's stdin, at or over the \
                 budget of {budget} bytes (`Limits::max_unwritten_bytes`): either the CLI is \
                 not reading its stdin, or messages are sent faster than the pipe drains; \
                 retry once the CLI has caught up, close the session if it is stuck, or raise \
                 `max_unwritten_bytes` with the builder's `limits` to send bigger bursts"
            ),
        }
    }
}

/// Why one call on a live or ended session failed.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The session has ended (how is inside); start a new one.
    #[error(transparent)]
    Ended(#[from] SessionEnded),
    /// The CLI answered the control request with an error.
    #[error("the CLI refused `{subtype}`: {message}")]
    Rejected {
        /// The request's subtype.
        subtype: String,
        /// The CLI's error text (with its code, if any).
        message: String,
    },
    /// The CLI did not answer in time. The deadline ran from the call,
    /// including any time the request waited to be written.
    #[error(
        "the CLI did not answer `{subtype}` within {after:?}{}",
        match stall { Some(stall) => format!(": {stall}"), None => "; it may be busy or hung (give the request a longer timeout if it is expected to take long)".into() }
    )]
    TimedOut {
        /// The request's subtype.
        subtype: String,
        /// The timeout, counted from the call.
        after: Duration,
        /// The budget that held the answer back, if one did.
        stall: Option<Stall>,
    },
    /// A turn read with a deadline (the adapters' `TurnStream::finish_by`)
    /// did not end in time: it was interrupted.
    #[error(
        "the turn did not end by its deadline and was interrupted{}",
        if turn.is_some() { "; it has ended and the session is ready for the next prompt" }
        else { ", but the CLI did not end it within the grace after the interrupt" }
    )]
    DeadlinePassed {
        /// The interrupted turn, read to its end (its `result` is the CLI's
        /// answer to the interrupt): the session is ready for the next
        /// prompt. `None` if the CLI did not end it within the grace; the
        /// next `query` still skips the rest of it.
        turn: Option<Box<crate::Turn>>,
    },
    /// The request was not written: a byte budget would be exceeded.
    #[error("`{what}` was not sent: {stall}")]
    Backlog {
        /// What was being sent (a subtype, or `user message`).
        what: String,
        /// The budget in the way.
        stall: Stall,
    },
    /// The control request ended another way (cancelled, or the output
    /// ended without a process exit to report).
    #[error(transparent)]
    Control(Arc<ControlError>),
    /// The request could not be encoded or the CLI's stdin is closed.
    #[error("could not send: {0}")]
    Send(Arc<SendError>),
    /// An answer did not have the expected shape.
    #[error(transparent)]
    Decode(Arc<DecodeError>),
    /// Hooks were registered to block on failure (`on_failure` other than
    /// continue) and the CLI's answer to `initialize` shows it cannot
    /// honour them: a guard meant to fail closed would fail open. The
    /// session is closed before any prompt reaches the CLI, as the
    /// official SDKs refuse such a session.
    #[error("the session was refused: {reason}")]
    HooksNotHonoured {
        /// What the CLI's answer showed, and what to do.
        reason: String,
    },
    /// The CLI reported a version known to be incompatible with this
    /// library; the message says which and what to install. The session
    /// is closed at once; prompts sent before the answer were already
    /// written, unless hooks meant to fail closed or launch fields held
    /// them.
    #[error("the session was refused: {reason}")]
    IncompatibleCli {
        /// The version found, the versions supported, what to install.
        reason: String,
    },
    /// The `initialize` request carried fields the CLI reads only at launch
    /// (MCP servers, plugins) and its answer says these were not applied:
    /// rather than run without them, the session is closed before any
    /// prompt reaches the CLI, as the TypeScript SDK does.
    #[error(
        "the session was refused: the CLI did not apply {} from the initialize request (it reads them only when started with --await-initialize, which the adapters pass; a CLI that ignores it is too old)",
        fields.join(", ")
    )]
    LaunchFieldsNotApplied {
        /// The wire names of the fields not applied (`mcpServers`, `plugins`).
        fields: Vec<String>,
    },
    /// No in-process MCP server of that name was registered on this
    /// session, so its tools cannot be changed.
    #[error(
        "no in-process MCP server named `{name}` is registered on this session; register it on the builder (`mcp_server`) before changing its tools"
    )]
    UnknownMcpServer {
        /// The name asked for.
        name: String,
    },
    /// The CLI refused to take the session a claim asked for
    /// ([`Command::Claim`](crate::Command::Claim)): no prompt was written,
    /// and the spare is let go (it exits on its own). Start the session
    /// cold.
    #[error(
        "the spare refused the claim: {message}; no prompt was sent and the spare is let go: start this session cold"
    )]
    ClaimRefused {
        /// Why, when the CLI named a reason.
        refusal: Option<claude_proto::model::claim::ClaimRefusal>,
        /// The CLI's words.
        message: String,
    },
    /// The CLI took the claim but refused its settings overlay: no prompt
    /// was written, since the overlay may carry permission rules, and the
    /// spare is let go. Start the session cold.
    #[error(
        "the spare took the claim but refused its settings overlay ({message}); no prompt was sent and the spare is let go: start this session cold"
    )]
    ClaimSettingsNotApplied {
        /// The CLI's words.
        message: String,
        /// The session the claim had opened.
        session_id: String,
    },
    /// A claim was given to a session that is not a parked spare.
    #[error("this session cannot be claimed: {why}")]
    NotParked {
        /// Why.
        why: &'static str,
    },
    /// The session could not start (from the one-call one-shots, which
    /// start a session and use it in one call; `?` converts a
    /// [`SpawnError`] into this).
    #[error(transparent)]
    Spawn(Arc<SpawnError>),
}

impl Error {
    /// The session's end, if this error is one.
    pub fn ended(&self) -> Option<&SessionEnded> {
        match self {
            Error::Ended(ended) => Some(ended),
            _ => None,
        }
    }

    /// How the process exited, if the session ended with a process exit.
    pub fn exit_report(&self) -> Option<&ExitReport> {
        self.ended().and_then(SessionEnded::report)
    }

    pub(crate) fn from_control(error: ControlError) -> Self {
        match error {
            ControlError::Rejected {
                subtype,
                message,
                code,
            } => Error::Rejected {
                subtype,
                message: match code {
                    Some(code) => format!("{message} ({code})"),
                    None => message,
                },
            },
            ControlError::TimedOut { subtype, after } => Error::TimedOut {
                subtype,
                after,
                stall: None,
            },
            other => Error::Control(Arc::new(other)),
        }
    }
}

impl From<DecodeError> for Error {
    fn from(error: DecodeError) -> Self {
        Error::Decode(Arc::new(error))
    }
}

impl From<SpawnError> for Error {
    fn from(error: SpawnError) -> Self {
        Error::Spawn(Arc::new(error))
    }
}

impl From<SendError> for Error {
    fn from(error: SendError) -> Self {
        Error::Send(Arc::new(error))
    }
}

/// Why a session could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SpawnError {
    /// The `claude` executable was not found; the message lists every place
    /// searched and how to install it.
    #[error(transparent)]
    NotFound(NotFound),
    /// The options cannot be turned into a valid command line.
    #[error("invalid options: {0}")]
    Options(#[source] OptionsError),
    /// The working directory given in the options does not exist.
    #[error("the working directory {0} does not exist")]
    MissingWorkingDirectory(PathBuf),
    /// A builder value that cannot work.
    #[error(transparent)]
    Limits(#[from] crate::limits::LimitsError),
    /// The operating system refused to start the process.
    #[error(
        "could not start the CLI at {program}: {source} (check that the file is executable and runs on this machine; with a wrapper (Options::wrapper) this is the wrapper)"
    )]
    Spawn {
        /// The executable that was tried: the CLI, or the wrapper it is
        /// started through.
        program: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// Windows: the CLI's command line is longer than Windows takes
    /// (32,767 UTF-16 units; 8,191 when a `.cmd` is started through
    /// `cmd.exe`), or a `.cmd` would be given a line break, which `cmd.exe`
    /// cannot pass on. Checked before starting anything, so the message can
    /// name the arguments to shorten.
    #[error(
        "the CLI's command line cannot be passed on Windows: {why} (the longest arguments: {longest}); give large settings and MCP configurations as objects (they go to private files) or as files, allow tools by pattern rather than one by one, and start the native claude.exe rather than a .cmd"
    )]
    CommandLine {
        /// What Windows refuses: the length and the limit, or the line
        /// break.
        why: String,
        /// The longest arguments, by flag, with their lengths.
        longest: String,
    },
    /// A spare (`prewarm`) was asked for with options that describe a
    /// session, which a spare has none of until it is claimed.
    #[error(
        "a spare cannot be started with {what}: a spare serves a session not known yet; start this session with spawn or query instead"
    )]
    NotForASpare {
        /// The option (`resume`, `continue_conversation`, `fork_session`,
        /// `a session store`).
        what: &'static str,
    },
    /// A pool of started sessions was asked to start sessions that resume,
    /// continue or fork one: every session it hands out would carry on
    /// the same conversation.
    #[error(
        "a pool of started sessions cannot start sessions with {what}: each would carry on the same conversation; start such a session with spawn instead"
    )]
    NotForAPool {
        /// The option (`resume`, `continue_conversation`, `fork_session`).
        what: &'static str,
    },
    /// A pool's cold start for a failed claim could not take the claim's
    /// settings overlay (see
    /// [`Claim::cold_options`](crate::Claim::cold_options)).
    #[error(transparent)]
    ClaimSettings(UnmergeableSettings),
    /// Setting up the child's pipes failed.
    #[error("could not set up the CLI's pipes: {0}")]
    Io(#[from] std::io::Error),
    /// Resuming from the session store failed: the store failed or timed
    /// out, or the temporary config directory could not be written.
    /// Nothing was started and nothing is left on disk.
    #[error("resuming from the session store: {what} failed: {source}")]
    SessionStore {
        /// What was being done.
        what: String,
        /// Why it failed.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

/// A claim's settings overlay cannot be merged into a settings file for a
/// cold start ([`Claim::cold_options`](crate::Claim::cold_options)).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the claim's settings overlay cannot be merged into {what} for a cold start; give the spare's options inline settings (Settings::Inline)"
)]
pub struct UnmergeableSettings {
    /// The spare's settings, as they could not be merged.
    pub what: String,
}
