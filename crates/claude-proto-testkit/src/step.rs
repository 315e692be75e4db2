//! The vocabulary every scripted CLI speaks: the [`Step`]s it takes, how it
//! matches what the program sends ([`Matcher`]), and how it reports a
//! program that did something else ([`Failure`]).
//!
//! A hand-written [`Script`](crate::Script) and a replayed cassette are
//! both a source of steps ([`Steps`]); one engine runs either.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

/// One thing the scripted CLI does, or waits for, in order.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Step {
    /// Write one line to the program, `delay` after the previous step
    /// finished (zero: at once).
    Send {
        /// The line, without its newline.
        line: Outgoing,
        /// How long to wait before writing it.
        delay: Duration,
    },
    /// Read the program's next line (skipping those the script ignores);
    /// it must match. If it is a control request, `reply` answers it with
    /// the request's own `request_id`.
    Expect {
        /// What the line must be.
        matcher: Matcher,
        /// The answer to a control request (none: the script answers it
        /// itself later, or the line is not a request).
        reply: Option<Reply>,
        /// What the step is about, for failure reports (none: the
        /// matcher's description).
        label: Option<String>,
    },
    /// Send a control request of the CLI's own (a fresh `request_id` is
    /// assigned) and expect the program's `control_response` to it (taken
    /// by its id from among the program's lines, wherever it comes).
    ///
    /// A `hook_callback` request without a `callback_id` gets the id the
    /// program registered, in its `initialize` request, for the event
    /// named by `input.hook_event_name` (the first matcher that fits
    /// `input.tool_name`, for tool events; matchers are read in the forms
    /// hooks use: none, `*`, `Write|Edit`, `mcp__calc__.*`): a script need
    /// not know the program's `hook_0`. The step waits for that `initialize` if it has
    /// not come yet.
    Ask {
        /// The request body (`{"subtype": ..., ...}`).
        request: Value,
        /// What the program's answer must be, matched against the whole
        /// `response` object of its `control_response` with the
        /// `request_id` set aside: `{"subtype":"success","response":{...}}`
        /// or `{"subtype":"error","error":"..."}`.
        answer: Matcher,
    },
    /// Do nothing for this long.
    Pause(Duration),
    /// Write this text to stderr (a newline is added).
    Stderr(String),
    /// The program closes its end: the CLI's stdin reaches its end.
    ExpectEnd,
    /// Close stdout and exit with this code.
    Exit(i32),
    /// Stop reading and writing, as a CLI that hangs: the program's
    /// deadlines, not the script's, end the session.
    Hang,
}

/// A line the scripted CLI writes.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Outgoing {
    /// A JSON value, written compactly.
    Json(Value),
    /// Text written as it is (it need not be JSON: a test of a CLI that
    /// writes garbage). It must not contain a newline.
    Raw(String),
    /// A recorded line, written as it is except that the ids the program
    /// chose in the recording (its `request_id`s) are replaced by the ids
    /// it chose this time, as bound by [`Matcher::Recorded`].
    Recorded(String),
}

/// The CLI's answer to one control request of the program's.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Reply {
    /// `{"subtype":"success","request_id":...,"response":<payload>}`.
    Success(Value),
    /// `{"subtype":"error","request_id":...,"error":<text>}`.
    Error(String),
}

/// What a line from the program must be.
#[derive(Clone)]
#[non_exhaustive]
pub enum Matcher {
    /// Any line, JSON or not.
    Any,
    /// JSON that contains this value: objects key by key (the line may
    /// have more keys), arrays element by element (same length), every
    /// other value equal.
    Subset(Value),
    /// JSON equal to this value.
    Exact(Value),
    /// JSON equal to this recorded line once the values that differ from
    /// run to run are set aside: `request_id`s (bound, so that the
    /// recording's later lines use this run's ids), `uuid`s, `session_id`s
    /// and timestamps. Replay uses it.
    Recorded(Value),
    /// JSON that contains `subset` (as [`Subset`](Self::Subset)) and
    /// whose string at the JSON pointer `pointer` contains `text`: an
    /// error message, a user prompt, a denial reason checked by a part of
    /// it. Unlike [`Check`](Self::Check), it can be saved with the script.
    Containing {
        /// What the line must contain, as [`Subset`](Self::Subset).
        subset: Value,
        /// A JSON pointer (`/response/error`) to a string in the line.
        pointer: String,
        /// Text that string must contain.
        text: String,
    },
    /// A check of the caller's: `Err` says what is wrong. It cannot be
    /// saved with the script ([`Script::to_json`](crate::Script::to_json)
    /// refuses it), so a script for the child-process CLI cannot use it.
    Check {
        /// What it checks, for failure reports.
        describe: String,
        /// The check.
        check: Arc<CheckFn>,
    },
}

/// The closure of a [`Matcher::Check`]: `Err` says what is wrong with the
/// line (its JSON; a line that is not JSON comes as a JSON string).
pub type CheckFn = dyn Fn(&Value) -> Result<(), String> + Send + Sync;

impl fmt::Debug for Matcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Any => f.write_str("Any"),
            Self::Subset(value) => f.debug_tuple("Subset").field(value).finish(),
            Self::Exact(value) => f.debug_tuple("Exact").field(value).finish(),
            Self::Recorded(value) => f.debug_tuple("Recorded").field(value).finish(),
            Self::Containing {
                subset,
                pointer,
                text,
            } => f
                .debug_struct("Containing")
                .field("subset", subset)
                .field("pointer", pointer)
                .field("text", text)
                .finish(),
            Self::Check { describe, .. } => f.debug_tuple("Check").field(describe).finish(),
        }
    }
}

impl Matcher {
    /// A check of the caller's, described by `describe` in failure
    /// reports: `check` returns `Err(why)` for a line it refuses.
    pub fn check(
        describe: impl Into<String>,
        check: impl Fn(&Value) -> Result<(), String> + Send + Sync + 'static,
    ) -> Self {
        Self::Check {
            describe: describe.into(),
            check: Arc::new(check),
        }
    }
}

impl Reply {
    /// A success answer with this payload.
    pub fn success(payload: Value) -> Self {
        Self::Success(payload)
    }

    /// An error answer with this message.
    pub fn error(message: impl Into<String>) -> Self {
        Self::Error(message.into())
    }
}

/// A source of steps, taken one at a time so that a recording far larger
/// than memory can be replayed.
pub trait Steps {
    /// The next step; `None` once the script is done. An `Err` ends the run
    /// with a [`FailureKind::Source`] failure (a cassette that cannot be
    /// read further, say).
    fn next_step(&mut self) -> Option<Result<Step, String>>;
}

/// Where two JSON values first differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// A JSON pointer to the first difference (`/message/content/0/text`;
    /// empty: the values themselves).
    pub path: String,
    /// The expected value there (`(absent)` when the key is missing from
    /// the expectation).
    pub expected: String,
    /// The actual value there (`(absent)` when the key is missing).
    pub actual: String,
}

/// Why a scripted run failed: the step, and what happened instead.
///
/// Its `Display` (and its `Debug`, so that `unwrap`, `expect` and a test
/// returning `Result` show the same) puts the step, its label, the
/// expected and actual frames and their first difference on lines of
/// their own.
#[derive(Clone, PartialEq, Eq)]
pub struct Failure {
    /// The failing step's position in the script, from 1 (0: before the
    /// first step, or after the last).
    pub step: usize,
    /// What that step was about.
    pub label: String,
    /// What went wrong.
    pub kind: FailureKind,
}

/// What went wrong in a scripted run.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FailureKind {
    /// The program sent a line that does not match the step.
    Mismatch {
        /// The step's expectation, as text.
        expected: String,
        /// The line the program sent.
        actual: String,
        /// Where they first differ (none when the line is not JSON, or the
        /// matcher is a check of the caller's).
        difference: Option<Difference>,
    },
    /// Nothing matching came before the step's deadline.
    Timeout {
        /// The step's expectation, as text.
        expected: String,
        /// How long the step waited.
        waited: Duration,
    },
    /// The program closed its end while the step still expected a line.
    ProgramClosed {
        /// The step's expectation, as text.
        expected: String,
    },
    /// The program sent a line after the script expected its end, or
    /// after the script was done.
    Unexpected {
        /// The line.
        actual: String,
    },
    /// The steps could not be read (a corrupt cassette, say), or the
    /// scripted CLI's thread panicked (in a source of steps of the
    /// caller's, say).
    Source(String),
    /// The program sent a line longer than the limit
    /// ([`Settings::max_line_bytes`](crate::Settings::max_line_bytes)).
    LineTooLong {
        /// The limit, in bytes.
        limit: usize,
    },
    /// The program sent more than the limit of lines the script had not
    /// read yet ([`Settings::max_queued_bytes`](crate::Settings::max_queued_bytes)).
    QueueFull {
        /// The limit, in bytes.
        limit: usize,
    },
    /// The step needs something the program never gave: a hook callback
    /// for an event its `initialize` request did not register, say.
    Unresolved {
        /// What was missing.
        what: String,
    },
    /// The step itself cannot be run (a request that is not a JSON
    /// object, a raw line with a newline in it).
    InvalidStep(String),
    /// The program ended the scripted CLI with a signal
    /// ([`ScriptedCli::handle_signal`](crate::ScriptedCli::handle_signal))
    /// before the steps were done.
    Signalled {
        /// The signal.
        signal: crate::Signal,
    },
}

impl Failure {
    /// A failure of step `step` (from 1; 0 outside the steps).
    pub fn new(step: usize, label: impl Into<String>, kind: FailureKind) -> Self {
        Self {
            step,
            label: label.into(),
            kind,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.step == 0 {
            write!(f, "scripted CLI, {}: ", self.label)?;
        } else {
            write!(f, "scripted CLI, step {} ({}): ", self.step, self.label)?;
        }
        match &self.kind {
            FailureKind::Mismatch {
                expected,
                actual,
                difference,
            } => {
                write!(f, "the program sent a line that does not match")?;
                write!(f, "\n  expected: {expected}\n  actual:   {actual}")?;
                if let Some(difference) = difference {
                    write!(f, "\n  {difference}")?;
                }
                Ok(())
            }
            FailureKind::Timeout { expected, waited } => {
                write!(f, "nothing came within {waited:?}\n  expected: {expected}")
            }
            FailureKind::Signalled { signal } => write!(
                f,
                "the program ended the scripted CLI with {signal:?} before the steps were done"
            ),
            FailureKind::ProgramClosed { expected } => write!(
                f,
                "the program closed its end while the step waited\n  expected: {expected}"
            ),
            FailureKind::Unexpected { actual } => write!(
                f,
                "the program sent a line the script does not expect\n  actual:   {actual}"
            ),
            FailureKind::Source(why) => write!(f, "the steps could not be read: {why}"),
            FailureKind::LineTooLong { limit } => write!(
                f,
                "the program sent a line longer than {limit} bytes (Settings::max_line_bytes)"
            ),
            FailureKind::QueueFull { limit } => write!(
                f,
                "the program sent more than {limit} bytes of lines the script had not read yet \
                 (Settings::max_queued_bytes)"
            ),
            FailureKind::Unresolved { what } => write!(f, "{what}"),
            FailureKind::InvalidStep(why) => write!(f, "the step cannot be run: {why}"),
        }
    }
}

impl fmt::Debug for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for Failure {}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "the top"
        } else {
            &self.path
        };
        write!(
            f,
            "first difference at {path}: expected {}, actual {}",
            self.expected, self.actual
        )
    }
}
