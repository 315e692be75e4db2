//! The scripted CLI as a state machine: bytes from the program in, bytes
//! for it out, time as an argument. No IO, no clock, no threads.
//!
//! [`ScriptedCli`] runs [`Step`]s from any [`Steps`] source in order. The
//! in-process runner ([`Script::start`](crate::Script::start)) and the
//! `claude-proto-testkit-cli` binary drive it with a real clock; its unit
//! tests drive it on a virtual one.

use std::collections::{HashSet, VecDeque};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use crate::diff::{self, Bindings, Mode};
use crate::serve::{Behaviour, Signal, Simulation};
use crate::step::{Failure, FailureKind, Matcher, Outgoing, Reply, Step, Steps};

/// How long an expecting step waits by default.
pub const DEFAULT_STEP_DEADLINE: Duration = Duration::from_secs(10);
/// The longest line a program may send by default (16 MiB).
pub const DEFAULT_MAX_LINE_BYTES: usize = 16 << 20;
/// How many bytes of lines the script has not read yet may wait by default
/// (64 MiB).
pub const DEFAULT_MAX_QUEUED_BYTES: usize = 64 << 20;
/// How many bytes of the program's lines a [`Report`] keeps by default
/// (16 MiB).
pub const DEFAULT_KEEP_RECEIVED_BYTES: usize = 16 << 20;
/// How many bytes of output may wait to be drained before sending steps
/// pause: a replay as fast as possible runs ahead of its reader by this
/// much at most, however long the recording.
const MAX_PENDING_OUTPUT: usize = 1 << 20;
/// How many bytes of lines [`ScriptedCli::read_ahead`] prepares at most
/// before their steps run.
const MAX_READ_AHEAD: usize = 1 << 20;
/// The most bytes a serving simulation hands over at once
/// ([`ScriptedCli::poll_stdout`]).
const SERVED_CHUNK: usize = 64 * 1024;
/// The exit code of a scripted CLI whose script failed (`EX_SOFTWARE`):
/// distinct from the codes a script's own [`Step::Exit`] usually gives.
pub const FAILURE_EXIT_CODE: i32 = 70;

/// How a scripted CLI runs its steps: deadlines, limits, what it answers
/// by itself and what it lets pass.
///
/// A [`Script`](crate::Script) carries one; a cassette replay brings its
/// own.
#[derive(Clone, Debug)]
#[must_use]
pub struct Settings {
    pub(crate) step_deadline: Duration,
    pub(crate) initialize: Option<Reply>,
    pub(crate) ignore: Vec<Matcher>,
    pub(crate) max_line_bytes: usize,
    pub(crate) max_queued_bytes: usize,
    pub(crate) allow_trailing_lines: bool,
    pub(crate) keep_received_bytes: usize,
    pub(crate) serve: Option<Behaviour>,
    /// The session's transcript facts, set by the child runner.
    pub(crate) session: Option<crate::serve::transcript::SessionFacts>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            step_deadline: DEFAULT_STEP_DEADLINE,
            initialize: Some(Reply::Success(crate::cli::initialize_response())),
            ignore: Vec::new(),
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            max_queued_bytes: DEFAULT_MAX_QUEUED_BYTES,
            allow_trailing_lines: false,
            keep_received_bytes: DEFAULT_KEEP_RECEIVED_BYTES,
            serve: None,
            session: None,
        }
    }
}

impl Settings {
    /// How long each expecting step ([`Step::Expect`], [`Step::Ask`],
    /// [`Step::ExpectEnd`], and the wait for the program's end after the
    /// last step) waits before failing with [`FailureKind::Timeout`]
    /// (default 10 s).
    pub fn step_deadline(mut self, deadline: Duration) -> Self {
        self.step_deadline = deadline;
        self
    }

    /// Answers the program's `initialize` request with `reply`, wherever
    /// it comes (by default: a success shaped like the real CLI's, from
    /// [`cli::initialize_response`](crate::cli::initialize_response)).
    pub fn initialize(mut self, reply: Reply) -> Self {
        self.initialize = Some(reply);
        self
    }

    /// Does not answer `initialize` by itself: the request is a line like
    /// any other, for a step to expect (a replay serves the recorded
    /// answer this way).
    pub fn no_auto_initialize(mut self) -> Self {
        self.initialize = None;
        self
    }

    /// The settings a replay needs: the program's `initialize` is not
    /// answered by itself, since the recording has the answer to serve.
    pub fn replay() -> Self {
        Self::default().no_auto_initialize()
    }

    /// Lets lines that match `matcher` pass anywhere, unread by the steps.
    pub fn ignore(mut self, matcher: Matcher) -> Self {
        self.ignore.push(matcher);
        self
    }

    /// The longest line the program may send (default 16 MiB); a longer
    /// one fails the run with [`FailureKind::LineTooLong`] without being
    /// held in memory beyond the limit, while steps run and while the CLI
    /// serves ([`serve`](Self::serve)).
    pub fn max_line_bytes(mut self, limit: usize) -> Self {
        self.max_line_bytes = limit.max(1);
        self
    }

    /// How many bytes of the program's lines may wait for the steps to
    /// read them (default 64 MiB); more fails the run with
    /// [`FailureKind::QueueFull`].
    pub fn max_queued_bytes(mut self, limit: usize) -> Self {
        self.max_queued_bytes = limit.max(1);
        self
    }

    /// After the last step, lets the program send more lines (they are
    /// kept in the [`Report`]) instead of failing with
    /// [`FailureKind::Unexpected`] (default: not allowed).
    pub fn allow_trailing_lines(mut self, allow: bool) -> Self {
        self.allow_trailing_lines = allow;
        self
    }

    /// After the last step, serves by itself as `behaviour` says instead
    /// of waiting for the program's end: every prompt is answered with a
    /// turn, every control request as the real CLI answers it (or as the
    /// behaviour's policies say), until it exits (see [`crate::serve`]).
    /// A script of no steps that serves is a whole CLI. The lines the
    /// steps left unread are the first it serves; an `initialize` already
    /// answered stays answered (its hooks and MCP servers are known).
    /// While it serves, [`ScriptedCli::serving_mut`] reaches it. Saved
    /// for the child runner, it serves there too, but for
    /// [`Behaviour::ignore_sigterm`]: a process cannot ignore SIGTERM
    /// without `unsafe`, so the runner refuses it.
    pub fn serve(mut self, behaviour: Behaviour) -> Self {
        self.serve = Some(behaviour);
        self
    }

    /// How many bytes of the program's lines the [`Report`] keeps
    /// (default 16 MiB; 0 keeps none). Lines past the budget are counted
    /// but not kept.
    pub fn keep_received_bytes(mut self, limit: usize) -> Self {
        self.keep_received_bytes = limit;
        self
    }
}

/// What a scripted run did, when every step passed.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct Report {
    /// Steps run.
    pub steps: usize,
    /// Lines the scripted CLI wrote.
    pub lines_sent: usize,
    /// Lines the program wrote (every one: expected, ignored, `initialize`).
    pub lines_received: usize,
    /// The program's lines, in order, as far as the budget
    /// ([`Settings::keep_received_bytes`]) allowed.
    pub received: Vec<String>,
    /// Whether `received` holds every line the program wrote.
    pub received_complete: bool,
    /// The program's last `initialize` request, if it sent one.
    pub initialize: Option<Value>,
    /// What the scripted CLI wrote to stderr ([`Step::Stderr`]).
    pub stderr: String,
    /// The exit code the scripted CLI ended with (`None`: it hung).
    pub exit_code: Option<i32>,
    /// The control requests the CLI sent while it served by itself (whole
    /// lines, in order; the first 4 MiB of them): with
    /// [`answers_to`](Self::answers_to),
    /// what the program answered to each. Empty for the steps' own asks,
    /// which check their answers themselves.
    pub requests: Vec<Value>,
}

impl Report {
    /// The CLI's requests of `subtype` (see [`requests`](Self::requests)),
    /// each with the `response` object the program answered it with, if
    /// it is among the kept lines: `(request line, Some(response))`.
    pub fn answers_to(&self, subtype: &str) -> Vec<(Value, Option<Value>)> {
        let received = self.received_json();
        self.requests
            .iter()
            .filter(|r| r.pointer("/request/subtype").and_then(Value::as_str) == Some(subtype))
            .map(|request| {
                let answer = received.iter().find(|line| {
                    line["type"] == "control_response"
                        && line.pointer("/response/request_id") == request.get("request_id")
                });
                let response = answer.and_then(|line| line.get("response")).cloned();
                (request.clone(), response)
            })
            .collect()
    }

    /// The kept lines that are JSON, parsed.
    pub fn received_json(&self) -> Vec<Value> {
        self.received
            .iter()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect()
    }

    /// The kept lines that are `user` messages.
    pub fn user_messages(&self) -> Vec<Value> {
        self.received_json()
            .into_iter()
            .filter(|line| line["type"] == "user")
            .collect()
    }
}

/// One line from the program, read once.
#[derive(Debug)]
struct Line {
    text: String,
    value: Option<Value>,
}

/// A line to send, prepared when its step is taken from the source
/// (perhaps ahead of its turn, while the run waits for the program): the
/// scans of the whole line are done then, so that writing it is a move.
#[derive(Debug)]
enum Prepared {
    Line {
        /// The line, without its newline.
        text: String,
        /// The `request_id` when it is a control request of the CLI's.
        asks: Option<String>,
        /// A recorded line with a `request_id` key: the ids bound by then
        /// are put in when it is written.
        rewrite: bool,
    },
    /// A line that holds a newline: the step fails when its turn comes.
    Invalid(String),
}

/// A step taken from the source, its line prepared if it sends one.
#[derive(Debug)]
enum Taken {
    Send { line: Prepared, delay: Duration },
    Other(Step),
}

/// The step being run.
#[derive(Debug)]
enum Active {
    Send {
        line: Prepared,
        due: Instant,
    },
    Pause {
        due: Instant,
    },
    Expect {
        matcher: Matcher,
        reply: Option<Reply>,
        deadline: Instant,
    },
    Ask {
        request: Value,
        answer: Matcher,
        deadline: Instant,
        /// The request id, once the request is written.
        sent: Option<String>,
    },
    ExpectEnd {
        deadline: Instant,
    },
}

/// Where the run is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Steps are running.
    Running,
    /// The steps are done; waiting for the program's end until `deadline`.
    Finished { deadline: Instant },
    /// The outcome is known; the scripted CLI has exited.
    Exited,
    /// A [`Step::Hang`]: nothing more is read or written.
    Hung,
    /// The steps are done and the simulation answers by itself
    /// ([`Settings::serve`]).
    Serving,
}

/// The scripted CLI: runs steps from a [`Steps`] source against a program,
/// as a sans-IO state machine.
///
/// Feed it what the program writes ([`handle_stdin`](Self::handle_stdin),
/// [`handle_stdin_end`](Self::handle_stdin_end)) and the time
/// ([`handle_timeout`](Self::handle_timeout) at
/// [`poll_timeout`](Self::poll_timeout)); after each call drain
/// [`poll_stdout`](Self::poll_stdout) and [`poll_stderr`](Self::poll_stderr).
/// The run is over once [`outcome`](Self::outcome) is `Some`.
///
/// Semantics:
///
/// - Steps run in order. A [`Step::Send`] is written when reached, after
///   its delay (counted from the end of the step before).
/// - The program's lines wait in a queue (bounded,
///   [`Settings::max_queued_bytes`]) and are taken in order by
///   [`Step::Expect`] and [`Step::Ask`]: a line that comes early waits for
///   its step, so the two directions may race as they do with a real CLI.
///   An answer to one of the CLI's own requests (a `control_response` to
///   an [`Step::Ask`], or to a request in a sent line) is taken by its
///   `request_id` wherever it is in the queue, by the step that expects
///   it: a program answers while it also writes lines of its own (its
///   prompt, say), in an order no script can fix.
/// - The program's `initialize` request is answered by itself, wherever it
///   comes, unless [`Settings::no_auto_initialize`]; lines matching
///   [`Settings::ignore`] pass unread.
/// - Each expecting step fails at its deadline ([`Settings::step_deadline`])
///   with [`FailureKind::Timeout`], or with [`FailureKind::ProgramClosed`]
///   when the program's input ends first.
/// - After the last step, the scripted CLI waits for the program to close
///   its input (then succeeds, exit code 0), still answering `initialize`
///   and letting ignored lines pass; any other line fails the run with
///   [`FailureKind::Unexpected`] unless [`Settings::allow_trailing_lines`].
///   A program that does not close within the step deadline fails it with
///   a timeout. A script ending in [`Step::ExpectEnd`] or [`Step::Exit`]
///   ends there.
/// - On failure the scripted CLI stops at once, as a CLI that exits: its
///   output ends ([`stdout_closed`](Self::stdout_closed)) and the exit code
///   is [`FAILURE_EXIT_CODE`].
/// - A [`Step::Hang`] passes the run at once but stops reading and writing
///   without ending the output: the program's own deadlines must end the
///   session.
/// - [`read_ahead`](Self::read_ahead), called while the run waits, takes
///   the next steps from the source early (up to the next step that is not
///   a send, and about 1 MiB of lines) and prepares their lines; they still
///   run in order and at their time, so nothing the program sees changes.
/// - No input makes it panic; a line longer than
///   [`Settings::max_line_bytes`] fails the run instead of growing memory,
///   and sending pauses while more than 1 MiB of output waits to be
///   drained, so however long the steps, memory stays bounded.
pub struct ScriptedCli {
    source: Box<dyn Steps + Send>,
    settings: Settings,
    phase: Phase,
    /// Position of the current (or last) step, from 1.
    step: usize,
    label: String,
    active: Option<Active>,
    /// When the previous step finished: delays count from here.
    since: Instant,
    inbox: VecDeque<Line>,
    inbox_bytes: usize,
    /// The start of a line whose newline has not come yet (only new bytes
    /// are searched for it).
    partial: Vec<u8>,
    stdin_ended: bool,
    stdout: VecDeque<Vec<u8>>,
    /// Bytes in `stdout`.
    stdout_bytes: usize,
    stderr: VecDeque<Vec<u8>>,
    stdout_closed: bool,
    outcome: Option<Result<Report, Failure>>,
    report: Report,
    kept_bytes: usize,
    bindings: Bindings,
    next_id: u64,
    /// Ids of the control requests the CLI wrote and the program has not
    /// answered yet: their answers are taken by id, not in order.
    asked: HashSet<String>,
    /// Steps taken from the source before their turn ([`Self::read_ahead`]).
    ahead: VecDeque<Result<Taken, String>>,
    /// Bytes of lines in `ahead`.
    ahead_bytes: usize,
    /// The source has no more steps.
    source_done: bool,
    /// What answers once the steps are done, with [`Settings::serve`].
    serving: Option<Box<Simulation>>,
    /// Lines the steps had read (and the report counted) that were handed
    /// to the simulation unread.
    handed_over: usize,
    /// Bytes of the line the serving simulation is reading, so far.
    serving_line_bytes: usize,
}

/// Which queued line a step takes.
#[derive(Debug)]
enum Want {
    /// The first line that is not an answer to one of the CLI's requests.
    Next,
    /// An answer (`control_response`): to the request with this id, or
    /// the first one.
    Answer(Option<String>),
}

impl std::fmt::Debug for ScriptedCli {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptedCli")
            .field("phase", &self.phase)
            .field("step", &self.step)
            .field("label", &self.label)
            .field("queued_lines", &self.inbox.len())
            .field("outcome", &self.outcome)
            .finish_non_exhaustive()
    }
}

impl ScriptedCli {
    /// A scripted CLI that runs `steps` with `settings`, starting at `now`
    /// (the first step runs at once: drain the outputs after creating it).
    pub fn new(steps: impl Steps + Send + 'static, settings: Settings, now: Instant) -> Self {
        let mut cli = Self {
            source: Box::new(steps),
            settings,
            phase: Phase::Running,
            step: 0,
            label: String::from("before the first step"),
            active: None,
            since: now,
            inbox: VecDeque::new(),
            inbox_bytes: 0,
            partial: Vec::new(),
            stdin_ended: false,
            stdout: VecDeque::new(),
            stdout_bytes: 0,
            stderr: VecDeque::new(),
            stdout_closed: false,
            outcome: None,
            report: Report {
                received_complete: true,
                ..Report::default()
            },
            kept_bytes: 0,
            bindings: Bindings::default(),
            next_id: 0,
            asked: HashSet::new(),
            ahead: VecDeque::new(),
            ahead_bytes: 0,
            source_done: false,
            serving: None,
            handed_over: 0,
            serving_line_bytes: 0,
        };
        cli.advance(now);
        cli
    }

    /// Bytes the program wrote, in any chunking. Ignored once the CLI no
    /// longer reads ([`wants_stdin`](Self::wants_stdin) is false).
    pub fn handle_stdin(&mut self, mut bytes: &[u8], now: Instant) {
        if self.serving.is_some() {
            return self.serve_stdin(bytes, now);
        }
        while !bytes.is_empty() && self.wants_stdin() {
            let newline = claude_proto::find_newline(bytes);
            let take = newline.map_or(bytes.len(), |at| at + 1);
            let (head, rest) = bytes.split_at(take);
            bytes = rest;
            if self.partial.len().saturating_add(head.len())
                > self.settings.max_line_bytes.saturating_add(1)
            {
                let limit = self.settings.max_line_bytes;
                self.partial = Vec::new();
                self.fail(FailureKind::LineTooLong { limit });
                break;
            }
            if newline.is_none() {
                self.partial.extend_from_slice(head);
                continue;
            }
            let line = if self.partial.is_empty() {
                &head[..head.len() - 1]
            } else {
                self.partial.extend_from_slice(head);
                self.partial.pop();
                &self.partial[..]
            };
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.len() > self.settings.max_line_bytes {
                let limit = self.settings.max_line_bytes;
                self.fail(FailureKind::LineTooLong { limit });
                break;
            }
            let blank = line.iter().all(u8::is_ascii_whitespace);
            let line = (!blank).then(|| line.to_vec());
            self.partial.clear();
            if let Some(line) = line {
                self.receive(line);
                self.advance(now);
            }
        }
        self.advance(now);
    }

    /// The program closed its end (the CLI's stdin reached its end). A
    /// partial last line without a newline is taken as a line.
    pub fn handle_stdin_end(&mut self, now: Instant) {
        if let Some(simulation) = self.serving.as_mut() {
            simulation.handle_stdin_end(now);
            return self.settle_serving();
        }
        if !self.wants_stdin() {
            return;
        }
        if !self.partial.is_empty() {
            let line = std::mem::take(&mut self.partial);
            if !line.iter().all(u8::is_ascii_whitespace) {
                self.receive(line);
                self.advance(now);
            }
        }
        self.stdin_ended = true;
        self.advance(now);
    }

    /// Time passed: call at (or after) [`poll_timeout`](Self::poll_timeout).
    pub fn handle_timeout(&mut self, now: Instant) {
        if let Some(simulation) = self.serving.as_mut() {
            simulation.handle_timeout(now);
            return self.settle_serving();
        }
        self.advance(now);
    }

    /// A signal from the program: a serving CLI takes it as its behaviour
    /// says ([`Behaviour::ignore_sigterm`]); otherwise `Term` exits 143 and
    /// `Kill` 137, as a process would. Steps not done by then fail the run
    /// ([`FailureKind::Signalled`]).
    pub fn handle_signal(&mut self, signal: Signal, now: Instant) {
        if let Some(simulation) = self.serving.as_mut() {
            simulation.handle_signal(signal, now);
            return self.settle_serving();
        }
        let code = match signal {
            Signal::Term => 143,
            Signal::Kill => 137,
        };
        match self.phase {
            Phase::Exited => {}
            Phase::Running => {
                let failure = Failure::new(
                    self.step,
                    self.label.clone(),
                    FailureKind::Signalled { signal },
                );
                self.exit(Err(failure), code);
            }
            Phase::Finished { .. } => self.exit(Ok(()), code),
            // The run passed when it hung: only the process ends.
            Phase::Hung | Phase::Serving => {
                self.phase = Phase::Exited;
                self.stdout_closed = true;
                self.report.exit_code = Some(code);
            }
        }
    }

    /// The next line to write to the program, newline included.
    pub fn poll_stdout(&mut self) -> Option<Vec<u8>> {
        self.poll_stdout_at_most(usize::MAX)
    }

    /// Like [`poll_stdout`](Self::poll_stdout), but at most `max` bytes: a
    /// line longer than that comes in pieces, to play a pipe that splits
    /// lines anywhere. `None` when nothing waits (or `max` is 0).
    pub fn poll_stdout_at_most(&mut self, max: usize) -> Option<Vec<u8>> {
        if max == 0 {
            return None;
        }
        if let Some(mut line) = self.stdout.pop_front() {
            if line.len() > max {
                let rest = line.split_off(max);
                self.stdout.push_front(rest);
            }
            self.stdout_bytes -= line.len();
            return Some(line);
        }
        let simulation = self.serving.as_mut()?;
        let bytes = simulation.poll_stdout(max.min(SERVED_CHUNK));
        self.settle_serving();
        bytes
    }

    /// The next text to write to stderr, newline included.
    pub fn poll_stderr(&mut self) -> Option<Vec<u8>> {
        self.stderr
            .pop_front()
            .or_else(|| self.serving.as_mut()?.poll_stderr())
    }

    /// When to call [`handle_timeout`](Self::handle_timeout) next; `None`:
    /// only input moves the run on (or it is over). While more than 1 MiB
    /// of output waits to be drained, sending pauses and this is `None`
    /// for a send: drain [`poll_stdout`](Self::poll_stdout), then ask
    /// again (an instant already past means "at once").
    pub fn poll_timeout(&self) -> Option<Instant> {
        match self.phase {
            Phase::Serving => self.serving.as_ref()?.poll_timeout(),
            Phase::Exited | Phase::Hung => None,
            Phase::Finished { deadline } => Some(deadline),
            Phase::Running => match self.active.as_ref()? {
                Active::Send { .. } if self.output_full() => None,
                Active::Send { due, .. } | Active::Pause { due } => Some(*due),
                Active::Expect { deadline, .. }
                | Active::Ask { deadline, .. }
                | Active::ExpectEnd { deadline } => Some(*deadline),
            },
        }
    }

    /// Whether the scripted CLI still reads its stdin: false once it has
    /// exited, failed or hung. Bytes given after that are dropped.
    pub fn wants_stdin(&self) -> bool {
        match &self.serving {
            Some(simulation) => self.phase == Phase::Serving && simulation.wants_stdin(),
            None => {
                matches!(self.phase, Phase::Running | Phase::Finished { .. }) && !self.stdin_ended
            }
        }
    }

    /// Whether the scripted CLI's output has ended (it exited or failed):
    /// once the queued output is written, close the program's reading end.
    /// False while it hangs.
    pub fn stdout_closed(&self) -> bool {
        match &self.serving {
            Some(simulation) if self.phase == Phase::Serving => {
                self.stdout.is_empty() && simulation.stdout_closed()
            }
            _ => self.stdout_closed,
        }
    }

    /// The outcome, once the run is over: the report when every step
    /// passed, else the failure.
    pub fn outcome(&self) -> Option<&Result<Report, Failure>> {
        self.outcome.as_ref()
    }

    /// Takes the outcome, once the run is over.
    pub fn take_outcome(&mut self) -> Option<Result<Report, Failure>> {
        self.outcome.take()
    }

    /// The exit code of the scripted CLI once it has exited: 0 after a
    /// run that passed, the code of a [`Step::Exit`], or
    /// [`FAILURE_EXIT_CODE`]; `None` while it runs or hangs.
    pub fn exit_code(&self) -> Option<i32> {
        match &self.serving {
            Some(simulation) if self.phase == Phase::Serving => simulation.exit_code(),
            _ => self
                .report
                .exit_code
                .filter(|_| self.phase == Phase::Exited),
        }
    }

    /// The simulation answering by itself once the steps are done
    /// ([`Settings::serve`]): write any traffic through it, see what the
    /// program sent. `None` before (or without) serving.
    pub fn serving(&self) -> Option<&Simulation> {
        self.serving
            .as_deref()
            .filter(|_| self.phase == Phase::Serving)
    }

    /// [`serving`](Self::serving), to write through it. Drain the outputs
    /// after using it, as after any input.
    pub fn serving_mut(&mut self) -> Option<&mut Simulation> {
        match self.phase {
            Phase::Serving => self.serving.as_deref_mut(),
            _ => None,
        }
    }

    /// Reads one complete line: `initialize` answered, ignored lines
    /// dropped, the rest queued for the steps.
    fn receive(&mut self, bytes: Vec<u8>) {
        self.report.lines_received += 1;
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        };
        if self.kept_bytes + text.len() <= self.settings.keep_received_bytes
            && self.report.received_complete
        {
            self.kept_bytes += text.len();
            self.report.received.push(text.clone());
        } else {
            self.report.received_complete = false;
        }
        let value = serde_json::from_str::<Value>(&text).ok();
        if let Some(value) = &value {
            if is_request(value, "initialize") {
                self.report.initialize = Some(value.clone());
                if let Some(reply) = self.settings.initialize.clone() {
                    self.answer(value, &reply);
                    return;
                }
            }
            if self
                .settings
                .ignore
                .iter()
                .any(|m| matches(m, &text, Some(value), None).is_ok())
            {
                return;
            }
        } else if self
            .settings
            .ignore
            .iter()
            .any(|m| matches(m, &text, None, None).is_ok())
        {
            return;
        }
        self.inbox_bytes += text.len();
        self.inbox.push_back(Line { text, value });
        if self.inbox_bytes > self.settings.max_queued_bytes {
            let limit = self.settings.max_queued_bytes;
            self.fail(FailureKind::QueueFull { limit });
        }
    }

    fn pop_line(&mut self) -> Option<Line> {
        let line = self.inbox.pop_front()?;
        self.inbox_bytes -= line.text.len();
        Some(line)
    }

    /// Takes the queued line a step wants: answers to the CLI's requests
    /// by their id (the program answers while it also writes lines of its
    /// own, in an order no script can fix), other lines in order.
    fn take(&mut self, want: &Want) -> Option<Line> {
        let position = match want {
            Want::Next => self.inbox.iter().position(|line| !self.is_answer(line)),
            Want::Answer(id) => self.inbox.iter().position(|line| {
                let value = line.value.as_ref();
                value.is_some_and(|v| {
                    v["type"] == "control_response"
                        && id
                            .as_deref()
                            .is_none_or(|id| v["response"]["request_id"] == id)
                })
            }),
        }?;
        let line = self.inbox.remove(position)?;
        self.inbox_bytes -= line.text.len();
        if let Some(id) = line
            .value
            .as_ref()
            .filter(|v| v["type"] == "control_response")
            .and_then(|v| v["response"]["request_id"].as_str())
        {
            self.asked.remove(id);
        }
        Some(line)
    }

    /// Whether `line` answers a request the CLI wrote.
    fn is_answer(&self, line: &Line) -> bool {
        line.value.as_ref().is_some_and(|v| {
            v["type"] == "control_response"
                && v["response"]["request_id"]
                    .as_str()
                    .is_some_and(|id| self.asked.contains(id))
        })
    }

    /// Runs steps as far as they can go at `now`.
    fn advance(&mut self, now: Instant) {
        loop {
            match self.phase {
                Phase::Exited | Phase::Hung | Phase::Serving => return,
                Phase::Finished { deadline } => {
                    self.finished(now, deadline);
                    return;
                }
                Phase::Running => {}
            }
            if self.active.is_none() {
                match self.next_taken() {
                    None if self.settings.serve.is_some() => {
                        self.start_serving(now);
                        return;
                    }
                    None => {
                        self.step_over("after the last step");
                        self.phase = Phase::Finished {
                            deadline: deadline(now, self.settings.step_deadline),
                        };
                        continue;
                    }
                    Some(Err(why)) => {
                        self.step += 1;
                        self.label = String::from("reading the steps");
                        self.fail(FailureKind::Source(why));
                        return;
                    }
                    Some(Ok(step)) => {
                        self.step += 1;
                        if !self.begin(step, now) {
                            return;
                        }
                        continue;
                    }
                }
            }
            match self.run_active(now) {
                Progress::Done(finished) => {
                    self.active = None;
                    self.report.steps += 1;
                    self.since = finished;
                }
                Progress::Wait => return,
                Progress::Failed(kind) => {
                    self.fail(kind);
                    return;
                }
            }
        }
    }

    /// Marks that the steps are over (failures then say so).
    fn step_over(&mut self, label: &str) {
        self.step = 0;
        self.label = label.to_owned();
    }

    /// The next step: read ahead, or from the source.
    fn next_taken(&mut self) -> Option<Result<Taken, String>> {
        if let Some(taken) = self.ahead.pop_front() {
            if let Ok(Taken::Send {
                line: Prepared::Line { text, .. },
                ..
            }) = &taken
            {
                self.ahead_bytes -= text.len();
            }
            return Some(taken);
        }
        self.take_from_source()
    }

    /// One step from the source, its line prepared.
    fn take_from_source(&mut self) -> Option<Result<Taken, String>> {
        if self.source_done {
            return None;
        }
        let Some(step) = self.source.next_step() else {
            self.source_done = true;
            return None;
        };
        Some(step.map(|step| match step {
            Step::Send { line, delay } => Taken::Send {
                line: prepare(line),
                delay,
            },
            other => Taken::Other(other),
        }))
    }

    /// Works ahead while the run waits: takes the next steps from the
    /// source and prepares the lines they send, up to and including the
    /// next step that is not a send (or about 1 MiB of lines), so that
    /// they are written at once when their turn comes. Call it when the
    /// run would otherwise wait for the program or a timer (after draining
    /// the outputs, before blocking on input); it returns `true` when it
    /// took steps (ask [`poll_timeout`](Self::poll_timeout) again before
    /// blocking) and `false` when there is nothing to read ahead.
    ///
    /// It changes nothing the program sees: steps still run in order and
    /// at their time, a recorded line gets the ids bound when it is
    /// written, and a source that fails fails the run at the failing
    /// step's turn. Reading a recording during the program's turn takes
    /// that work off the round trip of every answer the replay waits for.
    pub fn read_ahead(&mut self) -> bool {
        if self.phase != Phase::Running {
            return false;
        }
        let mut took = false;
        while self.ahead_bytes < MAX_READ_AHEAD {
            // Up to the next step that waits for the program or ends the
            // run: what the next round of sending needs.
            if let Some(last) = self.ahead.back() {
                if !matches!(last, Ok(Taken::Send { .. })) {
                    break;
                }
            }
            let Some(taken) = self.take_from_source() else {
                break;
            };
            if let Ok(Taken::Send {
                line: Prepared::Line { text, .. },
                ..
            }) = &taken
            {
                self.ahead_bytes += text.len();
            }
            self.ahead.push_back(taken);
            took = true;
        }
        took
    }

    /// Starts `step`; false when that ended the run (an exit, a hang, a
    /// failure).
    fn begin(&mut self, taken: Taken, now: Instant) -> bool {
        let start = self.since;
        let wait = deadline(now, self.settings.step_deadline);
        let step = match taken {
            Taken::Send { line, delay } => {
                // Named only if it fails: a replay sends millions.
                self.label.clear();
                self.active = Some(Active::Send {
                    line,
                    due: deadline(start, delay),
                });
                return true;
            }
            Taken::Other(step) => step,
        };
        self.active = match step {
            Step::Send { line, delay } => {
                self.label.clear();
                Some(Active::Send {
                    line: prepare(line),
                    due: deadline(start, delay),
                })
            }
            Step::Pause(pause) => {
                self.label = format!("pause {pause:?}");
                Some(Active::Pause {
                    due: deadline(start, pause),
                })
            }
            Step::Stderr(text) => {
                self.label = String::from("stderr");
                let mut bytes = text.into_bytes();
                bytes.push(b'\n');
                self.report
                    .stderr
                    .push_str(&String::from_utf8_lossy(&bytes));
                self.stderr.push_back(bytes);
                // Takes no time: the next delay still counts from the step before.
                self.report.steps += 1;
                None
            }
            Step::Expect {
                matcher,
                reply,
                label,
            } => {
                self.label = label.unwrap_or_else(|| describe(&matcher));
                Some(Active::Expect {
                    matcher,
                    reply,
                    deadline: wait,
                })
            }
            Step::Ask { request, answer } => {
                self.label = describe_request(&request);
                if !request.is_object() {
                    self.fail(FailureKind::InvalidStep(format!(
                        "the request of an ask is not a JSON object: {}",
                        diff::show(&request)
                    )));
                    return false;
                }
                Some(Active::Ask {
                    request,
                    answer,
                    deadline: wait,
                    sent: None,
                })
            }
            Step::ExpectEnd => {
                self.label = String::from("the program closes its end");
                Some(Active::ExpectEnd { deadline: wait })
            }
            Step::Exit(code) => {
                self.label = format!("exit {code}");
                self.report.steps += 1;
                self.exit(Ok(()), code);
                return false;
            }
            Step::Hang => {
                self.label = String::from("hang");
                self.report.steps += 1;
                self.phase = Phase::Hung;
                self.outcome = Some(Ok(self.report_now()));
                return false;
            }
        };
        true
    }

    fn run_active(&mut self, now: Instant) -> Progress {
        let Some(active) = self.active.as_mut() else {
            return Progress::Wait;
        };
        match active {
            Active::Send { line, due } => {
                if now < *due || self.stdout_bytes >= MAX_PENDING_OUTPUT {
                    return Progress::Wait;
                }
                let due = *due;
                let line = std::mem::replace(line, Prepared::Invalid(String::new()));
                match self.write_prepared(line) {
                    Ok(()) => Progress::Done(due),
                    Err(kind) => Progress::Failed(kind),
                }
            }
            Active::Pause { due } => {
                if now < *due {
                    Progress::Wait
                } else {
                    Progress::Done(*due)
                }
            }
            Active::Expect {
                deadline, matcher, ..
            } => {
                let deadline = *deadline;
                let want = want_of(matcher);
                let Some(line) = self.take(&want) else {
                    return self.nothing_yet(now, deadline);
                };
                let Some(Active::Expect { matcher, reply, .. }) = self.active.as_mut() else {
                    return Progress::Wait;
                };
                let reply = reply.take();
                match matches(
                    matcher,
                    &line.text,
                    line.value.as_ref(),
                    Some(&mut self.bindings),
                ) {
                    Ok(()) => {
                        if let (Some(reply), Some(value)) = (reply, &line.value) {
                            if value["type"] == "control_request" {
                                self.answer(value, &reply);
                            }
                        }
                        Progress::Done(now)
                    }
                    Err(difference) => Progress::Failed(FailureKind::Mismatch {
                        expected: expected_text(matcher),
                        actual: diff::truncate(line.text, diff::SHOWN_LINE),
                        difference,
                    }),
                }
            }
            Active::Ask { sent: None, .. } => self.send_ask(now),
            Active::Ask {
                sent: Some(_),
                deadline,
                ..
            } => {
                let deadline = *deadline;
                let want = match self.active.as_ref() {
                    Some(Active::Ask { sent: Some(id), .. }) => Want::Answer(Some(id.clone())),
                    _ => return Progress::Wait,
                };
                let Some(line) = self.take(&want) else {
                    return self.nothing_yet(now, deadline);
                };
                let Some(Active::Ask {
                    sent: Some(id),
                    answer,
                    ..
                }) = self.active.as_ref()
                else {
                    return Progress::Wait;
                };
                match check_answer(id, answer, &line) {
                    Ok(()) => Progress::Done(now),
                    Err(kind) => Progress::Failed(kind),
                }
            }
            Active::ExpectEnd { deadline } => {
                let deadline = *deadline;
                if let Some(line) = self.pop_line() {
                    return Progress::Failed(FailureKind::Unexpected {
                        actual: diff::truncate(line.text, diff::SHOWN_LINE),
                    });
                }
                if self.stdin_ended {
                    return Progress::Done(now);
                }
                if now >= deadline {
                    return Progress::Failed(FailureKind::Timeout {
                        expected: self.label.clone(),
                        waited: self.settings.step_deadline,
                    });
                }
                Progress::Wait
            }
        }
    }

    /// An expecting step with no line to read: wait, or fail.
    fn nothing_yet(&self, now: Instant, deadline: Instant) -> Progress {
        // Named only when the step fails: a replay waits thousands of
        // times, and the text shows the whole expected line.
        let expected = || match &self.active {
            Some(Active::Expect { matcher, .. }) => expected_text(matcher),
            Some(Active::Ask {
                sent: Some(id),
                answer,
                ..
            }) => expected_answer_text(id, answer),
            _ => self.label.clone(),
        };
        if self.stdin_ended {
            Progress::Failed(FailureKind::ProgramClosed {
                expected: expected(),
            })
        } else if now >= deadline {
            Progress::Failed(FailureKind::Timeout {
                expected: expected(),
                waited: self.settings.step_deadline,
            })
        } else {
            Progress::Wait
        }
    }

    /// Writes the request of the active ask, its hook callback id resolved
    /// first.
    fn send_ask(&mut self, now: Instant) -> Progress {
        let Some(Active::Ask {
            request, deadline, ..
        }) = self.active.as_ref()
        else {
            return Progress::Wait;
        };
        let mut request = request.clone();
        let deadline_before = *deadline;
        if request["subtype"] == "hook_callback" && request.get("callback_id").is_none() {
            let Some(initialize) = self.report.initialize.as_ref() else {
                let expected =
                    String::from("the program's initialize request (to find its hook callback id)");
                return if self.stdin_ended {
                    Progress::Failed(FailureKind::ProgramClosed { expected })
                } else if now >= deadline_before {
                    Progress::Failed(FailureKind::Timeout {
                        expected,
                        waited: self.settings.step_deadline,
                    })
                } else {
                    Progress::Wait
                };
            };
            match hook_callback_id(initialize, &request["input"]) {
                Ok(id) => {
                    if let Some(map) = request.as_object_mut() {
                        map.insert("callback_id".into(), Value::String(id));
                    }
                }
                Err(what) => return Progress::Failed(FailureKind::Unresolved { what }),
            }
        }
        self.next_id += 1;
        let id = format!("00000000-0000-4000-a000-{:012x}", self.next_id);
        let line = json!({"type": "control_request", "request_id": id, "request": request});
        self.write_line(line.to_string());
        let wait = self::deadline(now, self.settings.step_deadline);
        if let Some(Active::Ask { sent, deadline, .. }) = self.active.as_mut() {
            *sent = Some(id);
            *deadline = wait;
        }
        // The answer may already be queued: look at once.
        self.run_active(now)
    }

    /// After the last step: the program's end is success, any other line a
    /// failure (unless allowed).
    fn finished(&mut self, now: Instant, deadline: Instant) {
        while let Some(line) = self.pop_line() {
            if !self.settings.allow_trailing_lines {
                self.fail(FailureKind::Unexpected {
                    actual: diff::truncate(line.text, diff::SHOWN_LINE),
                });
                return;
            }
        }
        if self.stdin_ended {
            self.exit(Ok(()), 0);
        } else if now >= deadline {
            self.fail(FailureKind::Timeout {
                expected: String::from(
                    "the program to close its end (the script is done; close the session \
                     before waiting for the run)",
                ),
                waited: self.settings.step_deadline,
            });
        }
    }

    fn write_prepared(&mut self, line: Prepared) -> Result<(), FailureKind> {
        let (mut text, mut asks, rewrite) = match line {
            Prepared::Line {
                text,
                asks,
                rewrite,
            } => (text, asks, rewrite),
            Prepared::Invalid(text) => return Err(self.holds_newline(text)),
        };
        if rewrite {
            if let Some(rewritten) = self.bindings.rewrite(&text) {
                // A live id may hold anything: check the line again.
                if rewritten.contains('\n') {
                    return Err(self.holds_newline(rewritten));
                }
                asks = asked_id(&rewritten);
                text = rewritten;
            }
        }
        if let Some(id) = asks {
            self.asked.insert(id);
        }
        self.push_line(text);
        Ok(())
    }

    fn holds_newline(&mut self, text: String) -> FailureKind {
        self.label = describe_outgoing(&text);
        FailureKind::InvalidStep(format!(
            "a line to send holds a newline: {}",
            diff::truncate(text, diff::SHOWN_LINE)
        ))
    }

    fn write_line(&mut self, text: String) {
        if let Some(id) = asked_id(&text) {
            self.asked.insert(id);
        }
        self.push_line(text);
    }

    fn push_line(&mut self, text: String) {
        // No copy when the text has room for the newline (a replay's
        // lines do).
        let mut bytes = text.into_bytes();
        bytes.push(b'\n');
        self.report.lines_sent += 1;
        self.stdout_bytes += bytes.len();
        self.stdout.push_back(bytes);
    }

    /// Answers the control request `request` with `reply`.
    fn answer(&mut self, request: &Value, reply: &Reply) {
        let id = request.get("request_id").cloned().unwrap_or(Value::Null);
        let mut response = Map::new();
        match reply {
            Reply::Success(payload) => {
                response.insert("subtype".into(), "success".into());
                response.insert("request_id".into(), id);
                response.insert("response".into(), payload.clone());
                if is_request(request, "initialize") {
                    // Present (empty) on every initialize answer of CLI 2.1.268+.
                    response.insert("pending_permission_requests".into(), json!([]));
                    response.insert("pending_user_dialog_requests".into(), json!([]));
                }
            }
            Reply::Error(message) => {
                response.insert("subtype".into(), "error".into());
                response.insert("request_id".into(), id);
                response.insert("error".into(), message.clone().into());
            }
        }
        let line = json!({"type": "control_response", "response": response});
        self.write_line(line.to_string());
    }

    fn output_full(&self) -> bool {
        self.stdout_bytes >= MAX_PENDING_OUTPUT
    }

    fn report_now(&self) -> Report {
        self.report.clone()
    }

    /// The steps are done: the simulation takes over, with the lines the
    /// steps left unread and what the program has said so far.
    fn start_serving(&mut self, now: Instant) {
        let Some(behaviour) = self.settings.serve.take() else {
            return;
        };
        self.step_over("serving after the last step");
        let mut simulation = Simulation::new(behaviour, now);
        if let Some(facts) = self.settings.session.take() {
            simulation.keep_transcript(facts);
        }
        if let Some(initialize) = &self.report.initialize {
            simulation.adopt_initialize(initialize);
        }
        self.handed_over = self.inbox.len();
        for line in std::mem::take(&mut self.inbox) {
            let mut bytes = line.text.into_bytes();
            bytes.push(b'\n');
            simulation.handle_stdin(&bytes, now);
        }
        self.inbox_bytes = 0;
        let partial = std::mem::take(&mut self.partial);
        if !partial.is_empty() {
            simulation.handle_stdin(&partial, now);
        }
        if self.stdin_ended {
            simulation.handle_stdin_end(now);
        }
        self.serving = Some(Box::new(simulation));
        self.phase = Phase::Serving;
        self.settle_serving();
    }

    /// Bytes for the serving simulation, with the steps' bound on a line
    /// ([`Settings::max_line_bytes`]): a line that outgrows it fails the
    /// run instead of growing memory.
    fn serve_stdin(&mut self, bytes: &[u8], now: Instant) {
        let Some(simulation) = self.serving.as_mut() else {
            return;
        };
        if !simulation.wants_stdin() {
            return;
        }
        self.serving_line_bytes = match bytes.iter().rposition(|&b| b == b'\n') {
            Some(at) => bytes.len() - at - 1,
            None => self.serving_line_bytes.saturating_add(bytes.len()),
        };
        if self.serving_line_bytes > self.settings.max_line_bytes {
            let limit = self.settings.max_line_bytes;
            self.serving = None;
            return self.fail(FailureKind::LineTooLong { limit });
        }
        simulation.handle_stdin(bytes, now);
        self.settle_serving();
    }

    /// Once the simulation has exited, the run's outcome is known: it
    /// passed (a simulation has no steps to fail), with its exit code and
    /// what it read.
    fn settle_serving(&mut self) {
        let Some(simulation) = self.serving.as_ref() else {
            return;
        };
        let Some(code) = simulation.exit_code() else {
            return;
        };
        if self.report.exit_code.is_some() {
            return;
        }
        self.report.exit_code = Some(code);
        // The lines handed over unread are in the report already.
        for line in simulation.received().iter().skip(self.handed_over) {
            self.report.lines_received += 1;
            let text = match line {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            if self.kept_bytes + text.len() <= self.settings.keep_received_bytes
                && self.report.received_complete
            {
                self.kept_bytes += text.len();
                self.report.received.push(text);
            } else {
                self.report.received_complete = false;
            }
        }
        let initialize = simulation
            .received()
            .iter()
            .rev()
            .find(|line| is_request(line, "initialize"));
        if let Some(line) = initialize {
            self.report.initialize = Some(line.clone());
        }
        self.report.requests = simulation.requests().to_vec();
        self.outcome = Some(Ok(self.report_now()));
    }

    /// The scripted CLI exits with `code`: its output ends.
    fn exit(&mut self, outcome: Result<(), Failure>, code: i32) {
        self.phase = Phase::Exited;
        self.active = None;
        self.stdout_closed = true;
        self.report.exit_code = Some(code);
        self.inbox.clear();
        self.inbox_bytes = 0;
        self.partial = Vec::new();
        self.outcome = Some(outcome.map(|()| self.report_now()));
    }

    fn fail(&mut self, kind: FailureKind) {
        if self.outcome.is_some() {
            return;
        }
        let failure = Failure::new(self.step, self.label.clone(), kind);
        self.exit(Err(failure), FAILURE_EXIT_CODE);
    }
}

/// Prepares a line to send: the scans of the whole line, done once.
fn prepare(line: Outgoing) -> Prepared {
    let (text, recorded) = match line {
        // Compact JSON escapes its newlines.
        Outgoing::Json(value) => {
            let text = value.to_string();
            let asks = asked_id(&text);
            return Prepared::Line {
                text,
                asks,
                rewrite: false,
            };
        }
        Outgoing::Raw(text) => (text, false),
        Outgoing::Recorded(text) => (text, true),
    };
    if text.contains('\n') {
        return Prepared::Invalid(text);
    }
    let asks = asked_id(&text);
    let rewrite = recorded && diff::Bindings::may_rewrite(&text);
    Prepared::Line {
        text,
        asks,
        rewrite,
    }
}

/// The `request_id` of a line that is a control request of the CLI's (an
/// ask's, or one in a sent line): its answer will be taken by id.
fn asked_id(text: &str) -> Option<String> {
    /// The two keys wanted, the rest skipped unbuilt (a `Value` of a
    /// whole permission request cost more than every other check of a
    /// replayed line).
    #[derive(serde::Deserialize)]
    struct Head<'a> {
        #[serde(rename = "type", borrow)]
        kind: Option<std::borrow::Cow<'a, str>>,
        #[serde(borrow)]
        request_id: Option<std::borrow::Cow<'a, str>>,
    }
    if !text.contains("\"control_request\"") {
        return None;
    }
    let (kind, id) = match serde_json::from_str::<Head<'_>>(text) {
        Ok(head) => (head.kind, head.request_id),
        // A duplicate key or a non-string value: read as a `Value` reads
        // it (the last duplicate wins; a non-string is no id).
        Err(_) => {
            let value = serde_json::from_str::<Value>(text).ok()?;
            let kind = value["type"].as_str().map(|k| k.to_owned().into());
            let id = value["request_id"].as_str().map(|i| i.to_owned().into());
            (kind, id)
        }
    };
    match (kind.as_deref(), id) {
        (Some("control_request"), Some(id)) => Some(id.into_owned()),
        _ => None,
    }
}

enum Progress {
    /// The step is done; the next one's delay counts from this instant.
    Done(Instant),
    Wait,
    Failed(FailureKind),
}

/// `start + wait`, or far in the future when that overflows (a wait of
/// `Duration::MAX` means no limit, never a panic).
pub(crate) fn deadline(start: Instant, wait: Duration) -> Instant {
    start
        .checked_add(wait)
        .unwrap_or_else(|| start + Duration::from_secs(100 * 365 * 24 * 3600))
}

fn is_request(value: &Value, subtype: &str) -> bool {
    value["type"] == "control_request" && value["request"]["subtype"] == subtype
}

/// Matches one line; the first difference if it does not match.
fn matches(
    matcher: &Matcher,
    text: &str,
    value: Option<&Value>,
    bindings: Option<&mut Bindings>,
) -> Result<(), Option<crate::step::Difference>> {
    fn json(value: Option<&Value>) -> Result<&Value, Option<crate::step::Difference>> {
        value.ok_or(None)
    }
    match matcher {
        Matcher::Any => Ok(()),
        Matcher::Subset(expected) => {
            diff::compare(expected, json(value)?, Mode::Subset, None).map_err(Some)
        }
        Matcher::Exact(expected) => {
            diff::compare(expected, json(value)?, Mode::Exact, None).map_err(Some)
        }
        Matcher::Recorded(expected) => {
            diff::compare(expected, json(value)?, Mode::Recorded, bindings).map_err(Some)
        }
        Matcher::Containing {
            subset,
            pointer,
            text: wanted,
        } => {
            let value = json(value)?;
            diff::compare(subset, value, Mode::Subset, None).map_err(Some)?;
            diff::contains_at(value, pointer, wanted).map_err(Some)
        }
        Matcher::Check { check, .. } => {
            let parsed;
            let value = match value {
                Some(value) => value,
                None => {
                    parsed = Value::String(text.to_owned());
                    &parsed
                }
            };
            // A check that panics (an `assert!` in it) fails the step like
            // one that says no, instead of taking the scripted CLI down.
            let verdict = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(value)))
                .unwrap_or_else(|panic| {
                    Err(format!("the check panicked: {}", panic_text(&*panic)))
                });
            verdict.map_err(|why| {
                Some(crate::step::Difference {
                    path: String::new(),
                    expected: describe(matcher),
                    actual: why,
                })
            })
        }
    }
}

/// The text a panic carried (`panic!("...")` gives a `&str` or a `String`).
pub(crate) fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = panic.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = panic.downcast_ref::<String>() {
        text.clone()
    } else {
        String::from("(not text)")
    }
}

/// Which line an expect step takes: an expected answer by its id.
fn want_of(matcher: &Matcher) -> Want {
    match matcher {
        Matcher::Subset(value)
        | Matcher::Exact(value)
        | Matcher::Recorded(value)
        | Matcher::Containing { subset: value, .. }
            if value["type"] == "control_response" =>
        {
            Want::Answer(value["response"]["request_id"].as_str().map(str::to_owned))
        }
        _ => Want::Next,
    }
}

/// Checks the program's answer to our request `id`.
fn check_answer(id: &str, answer: &Matcher, line: &Line) -> Result<(), FailureKind> {
    let mismatch = |difference| FailureKind::Mismatch {
        expected: expected_answer_text(id, answer),
        actual: diff::truncate(line.text.clone(), diff::SHOWN_LINE),
        difference,
    };
    let Some(value) = &line.value else {
        return Err(mismatch(None));
    };
    let envelope = json!({"type": "control_response", "response": {"request_id": id}});
    diff::compare(&envelope, value, Mode::Subset, None).map_err(|d| mismatch(Some(d)))?;
    let mut response = value["response"].clone();
    if let Some(map) = response.as_object_mut() {
        map.remove("request_id");
    }
    let text = response.to_string();
    matches(answer, &text, Some(&response), None).map_err(|d| {
        mismatch(d.map(|mut d| {
            d.path.insert_str(0, "/response");
            d
        }))
    })
}

/// The callback id the program registered for the hook event of `input`.
fn hook_callback_id(initialize: &Value, input: &Value) -> Result<String, String> {
    let event = input["hook_event_name"].as_str().unwrap_or_default();
    let tool = input["tool_name"].as_str();
    let matchers = initialize["request"]["hooks"][event].as_array();
    let found = matchers.into_iter().flatten().find_map(|entry| {
        let fits = match (entry["matcher"].as_str(), tool) {
            (None, _) | (Some(_), None) => true,
            (Some(pattern), Some(tool)) => matcher_fits(pattern, tool),
        };
        let id = entry["hookCallbackIds"].as_array()?.first()?.as_str()?;
        fits.then(|| id.to_owned())
    });
    found.ok_or_else(|| match tool {
        Some(tool) => format!(
            "the program registered no hook callback for {event} matching {tool} in its \
             initialize request"
        ),
        None => {
            format!("the program registered no hook callback for {event} in its initialize request")
        }
    })
}

/// Whether a hook matcher fits a tool name, for the patterns hooks use:
/// empty or `*` (every tool), alternatives `Write|Edit`, and a prefix
/// `mcp__calc__.*`. (The CLI reads them as regular expressions; these are
/// the forms seen in practice.)
fn matcher_fits(pattern: &str, tool: &str) -> bool {
    pattern
        .split('|')
        .map(str::trim)
        .any(|alternative| match alternative.strip_suffix(".*") {
            _ if alternative.is_empty() || alternative == "*" || alternative == ".*" => true,
            Some(prefix) => tool.starts_with(prefix),
            None => alternative == tool,
        })
}

/// The expectation of a matcher, as shown in a failure.
fn expected_text(matcher: &Matcher) -> String {
    match matcher {
        Matcher::Any => String::from("any line"),
        Matcher::Subset(value) | Matcher::Exact(value) | Matcher::Recorded(value) => {
            diff::show_line(value)
        }
        Matcher::Containing {
            subset,
            pointer,
            text,
        } => format!(
            "{} with {pointer} containing {}",
            diff::show_line(subset),
            Value::String(text.clone())
        ),
        Matcher::Check { describe, .. } => describe.clone(),
    }
}

fn expected_answer_text(id: &str, answer: &Matcher) -> String {
    format!(
        "a control_response to request {id} whose response is {}",
        expected_text(answer)
    )
}

/// A short name for what a matcher expects: its line's type and subtype.
pub(crate) fn describe(matcher: &Matcher) -> String {
    match matcher {
        Matcher::Any => String::from("any line"),
        Matcher::Subset(value)
        | Matcher::Exact(value)
        | Matcher::Recorded(value)
        | Matcher::Containing { subset: value, .. } => describe_line(value),
        Matcher::Check { describe, .. } => describe.clone(),
    }
}

fn describe_line(value: &Value) -> String {
    let kind = value["type"].as_str();
    match kind {
        Some("control_request") => match value["request"]["subtype"].as_str() {
            Some(subtype) => format!("control_request {subtype}"),
            None => String::from("control_request"),
        },
        Some("control_response") => match value["response"]["subtype"].as_str() {
            Some(subtype) => format!("control_response {subtype}"),
            None => String::from("control_response"),
        },
        Some(kind) => match value["subtype"].as_str() {
            Some(subtype) => format!("{kind} {subtype}"),
            None => kind.to_owned(),
        },
        None => String::from("a line"),
    }
}

/// The label of a send that failed.
fn describe_outgoing(text: &str) -> String {
    match peek_type(text) {
        Some(kind) => format!("send a {kind} line"),
        None => String::from("send a line"),
    }
}

/// The `type` of a JSON line, read without parsing it (the first `"type"`
/// key, at whatever depth: real CLI lines put the top-level one first).
fn peek_type(text: &str) -> Option<&str> {
    let at = text.find("\"type\"")? + "\"type\"".len();
    let (start, end) = diff::string_value_after(text, at)?;
    Some(&text[start..end])
}

fn describe_request(request: &Value) -> String {
    let subtype = request["subtype"].as_str().unwrap_or("a control request");
    let detail = match subtype {
        "can_use_tool" => request["tool_name"].as_str().map(str::to_owned),
        "hook_callback" => request["input"]["hook_event_name"]
            .as_str()
            .map(str::to_owned),
        "mcp_message" => Some(format!(
            "{} {}",
            request["server_name"].as_str().unwrap_or("?"),
            request["message"]["method"].as_str().unwrap_or("?")
        )),
        _ => None,
    };
    match detail {
        Some(detail) => format!("ask {subtype} {detail}"),
        None => format!("ask {subtype}"),
    }
}

#[cfg(test)]
mod tests;
