//! The host machine: one session above the core, without its IO.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use claude_proto::dispatch::McpServerSpec;
use claude_proto::model::control::ControlRequest;
use claude_proto::model::initialize::{InitializeRequest, InitializeResponse};
use claude_proto::model::mcp::JsonRpcMessage;
use claude_proto::model::result::failure_text;
use claude_proto::model::{Extra, Json, MessageType};

use crate::run_end::RunEnd;
use claude_proto::model::user::UserMessage;
use claude_proto::version::VersionCheck;
use claude_proto::{
    Config, ControlError, ControlOutcome, ControlSuccess, Event as CoreEvent, IncomingId,
    RequestId, SendError, Session,
};
use serde_json::value::RawValue;

use crate::claim::{Claim, Claimed, Spare, Step};
use crate::error::{EndReason, Error, ExitReport, SessionEnded, Stall};
use crate::event::{Delivery, Event, EventQueue, TurnId};
use crate::jobs::{Answer, Capabilities, Completion, DirectAnswer, Job, Jobs, Route, route};
use crate::limits::LimitsError;
use crate::limits::{Limits, MAX_DURATION, check_count, check_duration, deadline};
use crate::mirror::{Mirror, MirrorAppend, MirrorConfig, MirrorId, MirrorOutput};
use crate::stderr::StderrTail;

/// The CLI's answer to `initialize`, kept as the JSON it came as and
/// decoded when asked for.
///
/// A session keeps the answer for its whole life, and typed it is about
/// twice its JSON (CLI 2.1 answers with about 12 KB, mostly the
/// slash-command list; typed, about 23 KiB of strings, lists and unknown
/// fields): held as JSON, an idle session holds half as much. The answer
/// was decoded once already when it came, so [`decode`](Self::decode)
/// fails only if that did (then the session gave the error instead).
#[derive(Debug, Clone)]
pub struct InitAnswer {
    answer: ControlSuccess,
}

impl InitAnswer {
    /// The answer, typed (a new value on every call).
    pub fn decode(&self) -> Result<Arc<InitializeResponse>, Error> {
        Self::decode_success(&self.answer)
    }

    /// The answer's JSON, as the CLI wrote it (`None` for a bare ack).
    pub fn json(&self) -> Option<&str> {
        self.answer.payload()
    }

    fn decode_success(success: &ControlSuccess) -> Result<Arc<InitializeResponse>, Error> {
        let mut init = success.decode::<InitializeResponse>()?;
        // Without the room the lists grew while being read (they double
        // as they fill).
        init.commands.shrink_to_fit();
        init.agents.shrink_to_fit();
        init.available_output_styles.shrink_to_fit();
        init.models.shrink_to_fit();
        Ok(Arc::new(init))
    }
}

/// Why the CLI's `initialize` answer shows it cannot honour hooks meant to
/// fail closed (`on_failure` other than continue), as the official SDKs
/// check it: `None` if it can.
fn hooks_refusal(init: &InitializeResponse) -> Option<Error> {
    if init.hook_on_failure_supported != Some(true) {
        return Some(Error::HooksNotHonoured {
            reason: "the CLI does not honour `on_failure` on hook matchers, so a hook that \
                     fails would not block; update Claude Code, or register the hooks without \
                     a blocking `on_failure`"
                .into(),
        });
    }
    if init.hooks_applied == Some(false) {
        return Some(Error::HooksNotHonoured {
            reason: "the CLI did not register the hooks (the session was already running), so \
                     a hook meant to block would never run; start a new session, or register \
                     the hooks without a blocking `on_failure`"
                .into(),
        });
    }
    None
}

/// What the `initialize` answer must confirm before prompts are written:
/// hooks meant to fail closed are honoured, fields read only at launch
/// were applied. Control traffic (answers to the CLI's requests, our
/// control calls) is not held: the CLI may need answers (an in-process MCP
/// server's handshake) before it answers `initialize`.
#[derive(Debug, Default)]
struct Confirm {
    blocking_hooks: bool,
    launch_fields: Vec<&'static str>,
}

impl Confirm {
    fn needed(&self) -> bool {
        self.blocking_hooks || !self.launch_fields.is_empty()
    }

    /// Why `init` does not confirm what it must, if it does not.
    fn refusal(&self, init: &InitializeResponse) -> Option<(Error, EndReason)> {
        if self.blocking_hooks {
            if let Some(refusal) = hooks_refusal(init) {
                return Some((refusal, EndReason::HooksNotHonoured));
            }
        }
        // A CLI that says a launch field was not applied; one that says
        // nothing about it (the internal fields) is taken at its word.
        let applied = |field: &str| match field {
            "plugins" => init.plugins_applied,
            "mcpServers" => init.mcp_servers_applied,
            _ => None,
        };
        let ignored: Vec<&str> = self
            .launch_fields
            .iter()
            .copied()
            .filter(|field| applied(field) == Some(false))
            .collect();
        (!ignored.is_empty()).then(|| {
            let refusal = Error::LaunchFieldsNotApplied {
                fields: ignored.iter().map(|f| (*f).to_owned()).collect(),
            };
            (refusal, EndReason::LaunchFieldsNotApplied)
        })
    }
}

/// The MCP notification that tells the CLI a server's tools changed.
const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";

/// What carries the CLI's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Transport {
    /// A child process: stdin, stdout and stderr pipes, and an exit to
    /// wait for ([`Host::handle_exit`]).
    Process,
    /// A byte-stream pair without a process (a socket, an in-memory pipe):
    /// no stderr, no exit; the session ends when the output ends.
    Stream,
}

/// Where a session stands. It only ever moves down this list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum State {
    /// `initialize` is sent (or queued) and not answered yet. Prompts and
    /// control calls are accepted; the CLI queues them.
    Starting,
    /// `initialize` was answered (or failed) and the CLI is running.
    Running,
    /// Closing was asked for (or the CLI's output ended while it still
    /// runs): stdin is closed once what is queued is written, then the
    /// process is signalled as the [`CloseStage`] says, until it exits.
    Closing(CloseStage),
    /// The process exited; what is left in its pipes is read until they
    /// close or [`Limits::drain_after_exit`] passes.
    Draining,
    /// Everything is settled: every call resolved, every job aborted or
    /// answered, [`Output::Ended`] given. Undelivered events may remain.
    Ended,
}

/// How far the close sequence has gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CloseStage {
    /// stdin is closed (or closing); waiting [`Limits::close_grace`].
    Grace,
    /// SIGTERM was sent; waiting [`Limits::term_grace`].
    Terminated,
    /// SIGKILL was sent; waiting for the exit.
    Killed,
}

/// A signal to send to the process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Signal {
    /// SIGTERM. If it cannot be sent, call [`Host::handle_signal_failed`].
    Terminate,
    /// SIGKILL.
    Kill,
}

/// How the process exited, as the operating system said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ProcessExit {
    /// Its exit code, if it exited normally.
    pub code: Option<i32>,
    /// The signal that ended it, if one did (Unix).
    pub signal: Option<i32>,
}

impl ProcessExit {
    /// An exit with `code` or by `signal`.
    pub fn new(code: Option<i32>, signal: Option<i32>) -> Self {
        Self { code, signal }
    }
}

/// A command from the session's user, handed to [`Host::handle_command`].
/// `W` is whatever the adapter uses to get an answer back to the caller (a
/// oneshot sender, usually); it comes back in [`Output::Resolve`].
#[derive(Debug)]
#[non_exhaustive]
pub enum Command<W> {
    /// Send a user message. Resolves with [`CallReply::Sent`] once it is
    /// queued for stdin.
    Send {
        /// The message.
        message: Box<UserMessage>,
        /// Who gets the outcome.
        waiter: W,
    },
    /// Send a control request and wait for the answer. Resolves with
    /// [`CallReply::Answered`], or an error.
    Call {
        /// The request.
        request: Box<ControlRequest>,
        /// Its timeout (`None`: the core config's request timeout).
        timeout: Option<Duration>,
        /// When the user called: the deadline runs from here, including
        /// any time the command spent reaching the host.
        issued_at: Instant,
        /// Who gets the outcome.
        waiter: W,
    },
    /// Replace the tools of an in-process MCP server registered at start
    /// (the server of the same name) and tell the CLI, which then lists
    /// them again: a `notifications/tools/list_changed` goes to it as an
    /// `mcp_message`. Resolves with [`CallReply::Answered`] once the CLI
    /// acknowledged it, with [`Error::UnknownMcpServer`] if no server of
    /// that name was registered, or with the call's error.
    ///
    /// From the moment this is handled, `tools/call` requests are routed
    /// by the new tool list: a removed tool is answered "Unknown tool"
    /// without a job.
    UpdateMcpServer {
        /// The server's new description (its name selects the server).
        spec: Box<McpServerSpec>,
        /// When the user called (the notification's deadline runs from
        /// here, as for [`Command::Call`]).
        issued_at: Instant,
        /// Who gets the outcome.
        waiter: W,
    },
    /// Wait until every transcript line the CLI mirrored so far is in the
    /// session store or reported as [`Event::MirrorFailed`]: what was
    /// waiting for the turn's end is sent now. Resolves with
    /// [`CallReply::MirrorSettled`] (at once without a mirror; see
    /// [`Host::set_mirror`]).
    FlushMirror {
        /// Who gets the outcome.
        waiter: W,
    },
    /// Claim a parked spare ([`Host::park`]): bind it to the session
    /// `claim` describes. Resolves with [`CallReply::Claimed`] once every
    /// request of the claim is answered, then the prompts held since
    /// parking go out; or with [`Error::ClaimRefused`],
    /// [`Error::ClaimSettingsNotApplied`] or another error, after which no
    /// prompt was written and the spare is let go (see
    /// [`claim`](crate::Claim) for the rules).
    Claim {
        /// What the claim binds the spare to.
        claim: Box<Claim>,
        /// When the user called: each request's deadline runs from here.
        issued_at: Instant,
        /// Who gets the outcome.
        waiter: W,
    },
    /// Close the CLI's stdin once everything queued is written; the CLI
    /// finishes its turn and exits.
    EndInput,
    /// Close the CLI's stdin once the run is over, as the official SDKs'
    /// one-shot runs do (the rules are in [`run_end`](crate::run_end)):
    /// at once if nothing registered can be called back; otherwise when
    /// the CLI reports the session idle after a result with no background
    /// agent in flight, or the `ceiling` (`None`: none) passes between
    /// turns. Until then hooks, permission prompts and in-process MCP
    /// calls of follow-up turns (a background agent's) are answered. Send
    /// it after the run's prompt. Once stdin has closed, the CLI finishes
    /// its background work within the same ceiling and exits; one still
    /// running a `ceiling` later is closed (SIGTERM after the close grace).
    EndInputAtRunEnd {
        /// The ceiling ([`run_end::ceiling_from`](crate::run_end::ceiling_from)
        /// reads it as the CLI does).
        ceiling: Option<Duration>,
    },
    /// Start the close sequence: stdin, then SIGTERM, then SIGKILL.
    Close,
}

/// What a [`Command`] resolved with.
#[derive(Debug)]
#[non_exhaustive]
pub enum CallReply {
    /// The user message is queued for stdin; it starts this turn.
    Sent {
        /// The turn the message starts (see [`TurnId`]).
        turn: TurnId,
    },
    /// The CLI's success answer to a control request.
    Answered(ControlSuccess),
    /// Everything mirrored before [`Command::FlushMirror`] is stored or
    /// reported.
    MirrorSettled,
    /// The spare took the claim ([`Command::Claim`]).
    Claimed(Box<Claimed>),
}

/// Something the adapter must do, from [`Host::poll_output`].
#[derive(Debug)]
#[non_exhaustive]
#[must_use = "every output must be carried out"]
pub enum Output<W> {
    /// Run this handler; hand its result back with
    /// [`Host::handle_completion`].
    StartJob(Box<Job>),
    /// The CLI withdrew the request (or the session ended): drop the
    /// handler's task. No answer will be sent.
    AbortJob(IncomingId),
    /// A command finished: give the result to its waiter.
    Resolve {
        /// The waiter given with the command.
        waiter: W,
        /// The outcome.
        result: Result<CallReply, Error>,
    },
    /// `initialize` was answered, or failed.
    Initialized(Result<InitAnswer, Error>),
    /// Append these transcript lines to the session store; hand the
    /// outcome back with [`Host::handle_mirror_done`].
    MirrorAppend(Box<MirrorAppend>),
    /// The append passed its deadline: drop its task (its outcome is no
    /// longer wanted).
    AbortMirrorAppend(MirrorId),
    /// Signal the process.
    Signal(Signal),
    /// Stop reading stdout and stderr and drop them: the process exited
    /// but something still holds the pipes, or a byte stream did not end
    /// within the close grace.
    StopReading,
    /// The session is over; this is the last output. Deliver the events
    /// still queued, then release everything.
    Ended(SessionEnded),
}

/// The next time the host must be told the time, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Timeout {
    /// When to call [`Host::handle_timeout`].
    pub at: Instant,
    /// What is due then.
    pub reason: TimeoutReason,
}

/// Why the host needs to be woken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TimeoutReason {
    /// A control request's deadline.
    Request,
    /// The close sequence's next step.
    Close,
    /// Stop waiting for the pipes of an exited process.
    Drain,
    /// The CLI has left its stdin unread too long with the unwritten
    /// budget spent.
    StdinStall,
    /// A mirror append's deadline, or its retry.
    Mirror,
    /// The ceiling of a run's wait for its end, or for the CLI's exit
    /// after it ([`Command::EndInputAtRunEnd`]).
    RunEnd,
}

/// The one thing to do with the CLI's stdin next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum StdinStep<'a> {
    /// Nothing.
    Idle,
    /// Write these bytes (any prefix of them), then
    /// [`Host::handle_written`].
    Write(&'a [u8]),
    /// Flush, then [`Host::handle_flushed`].
    Flush,
    /// Close stdin (drop the pipe), then [`Host::handle_stdin_closed`].
    Close,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stdin {
    Open,
    Closed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Process {
    /// A byte stream: no process.
    None,
    Running,
    /// `None` when waiting for it failed.
    Exited(Option<ProcessExit>),
}

#[derive(Debug)]
struct Call<W> {
    waiter: W,
    timeout: Duration,
}

#[derive(Debug)]
enum Init {
    Pending(RequestId),
    Settled,
}

/// One session above the core, without IO, threads or a clock.
///
/// It owns the core [`Session`], the handler jobs, the user's calls and
/// their outcomes, the turn count, the byte budgets, and the close
/// sequence. An adapter feeds it what happened (`handle_*`), and after
/// every input drains what to do: [`poll_output`](Self::poll_output) until
/// `None`, then [`poll_stdin`](Self::poll_stdin),
/// [`poll_event`](Self::poll_event) when the user has room,
/// [`wants_stdout`](Self::wants_stdout) and friends for what to wait on,
/// and [`poll_timeout`](Self::poll_timeout) for when to wake up.
///
/// Guarantees, whatever the CLI and the user do:
/// - control answers and CLI requests are routed as soon as they are
///   read; stdout is read while the events waiting for the user (plus the
///   requests waiting for a handler slot) stay under
///   [`Limits::read_ahead_bytes`], so they never wait on the user reading;
/// - memory above the core is bounded in bytes: queued events and waiting
///   requests by the read-ahead budget, unwritten stdin by
///   [`Limits::max_unwritten_bytes`] (each may overshoot by one line while
///   the process runs; after its exit, see [`Limits::read_ahead_bytes`]);
/// - every command resolves exactly once ([`Output::Resolve`]), with a
///   deadline counted from the call for control requests;
/// - every job started is answered or aborted exactly once;
/// - once [`State::Ended`] is reached, [`Output::Ended`] was given and
///   nothing waits any more.
#[derive(Debug)]
pub struct Host<W> {
    session: Session,
    capabilities: Arc<Capabilities>,
    limits: Limits,
    transport: Transport,
    state: State,
    process: Process,
    closed_by_user: bool,
    out: Vec<u8>,
    out_pos: usize,
    needs_flush: bool,
    stdin: Stdin,
    stdout_open: bool,
    /// Bytes read from stdout but not yet given to the core because a
    /// budget was spent mid-read: at most one read's worth. The first
    /// `held_pos` of them have been given since: they are dropped once all
    /// are, not after each line (moving the rest down a line at a time
    /// copied most of a read once per line).
    held_input: Vec<u8>,
    held_pos: usize,
    stderr_open: bool,
    stderr_tail: StderrTail,
    events: EventQueue,
    outputs: VecDeque<Output<W>>,
    calls: HashMap<RequestId, Call<W>>,
    init: Init,
    jobs: Jobs,
    prompts_sent: TurnId,
    results_read: TurnId,
    /// The failure text of the last `result` read, if it reported one: the
    /// CLI's own words for why it stopped, carried by [`SessionEnded`]
    /// when the CLI ends the session itself (a refused resume, say).
    last_result_failure: Option<Arc<str>>,
    /// Background work as the CLI reports it, and the wait of a run whose
    /// end was asked for ([`Command::EndInputAtRunEnd`]).
    run_end: RunEnd,
    /// The ceiling of the run whose end was asked for, kept for the wait
    /// after it: once stdin closed at the run's end, the CLI finishes
    /// background work within its own ceiling and exits; past it (plus
    /// the close sequence) the session is closed.
    run_ceiling: Option<Duration>,
    /// When a CLI whose run ended must have exited.
    run_exit_at: Option<Instant>,
    close_at: Option<Instant>,
    drain_at: Option<Instant>,
    /// When the session gives up on a CLI that reads nothing while the
    /// unwritten budget is spent (set when that starts, cleared by any
    /// write progress).
    stdin_stall_at: Option<Instant>,
    stdin_stalled: bool,
    /// What the `initialize` answer must confirm is not confirmed yet:
    /// prompts wait in `held_prompts` (control traffic goes on), so none
    /// reaches a CLI that may not honour the hooks or apply the launch
    /// fields (see [`Error::HooksNotHonoured`]).
    holding: bool,
    /// Prompts sent while `holding`, in order, and their bytes on the wire
    /// (counted against `Limits::max_unwritten_bytes`).
    held_prompts: VecDeque<Box<UserMessage>>,
    held_prompt_bytes: usize,
    /// `EndInput` came while `holding`: close stdin once they are released.
    end_input_held: bool,
    /// Whether this session is a spare waiting for its claim: prompts are
    /// held until it is claimed too.
    spare: Spare<W>,
    /// A spare's `initialize` answer's `*_applied` confirmations, which a
    /// claim's own answer may leave out (it keeps them, as the TypeScript
    /// SDK does).
    init_applied: Extra,
    /// What the `initialize` answer must confirm before prompts go out.
    confirm: Confirm,
    /// Why the session was refused after the `initialize` answer, if it was.
    refused: Option<EndReason>,
    /// The latest time an input carried, for what an input without one
    /// sets in motion (the close after a hooks refusal).
    last_now: Instant,
    ended: Option<SessionEnded>,
    /// The transcript mirror, with a session store (see
    /// [`Host::set_mirror`]).
    mirror: Option<Mirror>,
    /// [`Command::FlushMirror`]s waiting for the mirror to settle this many
    /// frames.
    mirror_waiters: Vec<(u64, W)>,
}

impl<W> Host<W> {
    /// A host over a new core session with `config`, which sends
    /// `initialize` (completed with the hooks and MCP servers of
    /// `capabilities`) at once. Refuses limits that cannot work.
    pub fn new(
        config: Config,
        limits: Limits,
        capabilities: Arc<Capabilities>,
        mut initialize: InitializeRequest,
        transport: Transport,
        now: Instant,
    ) -> Result<Self, LimitsError> {
        limits.check()?;
        check_duration("request_timeout", config.request_timeout)?;
        check_count("max_line_bytes", config.max_line_bytes, 1)?;
        capabilities.complete_initialize(&mut initialize);
        let mut session = Session::new(config);
        let mut outputs = VecDeque::new();
        let (init, state) = match session.initialize(&initialize, limits.initialize_timeout, now) {
            Ok(id) => (Init::Pending(id), State::Starting),
            Err(e) => {
                outputs.push_back(Output::Initialized(Err(e.into())));
                (Init::Settled, State::Running)
            }
        };
        let process = match transport {
            Transport::Process => Process::Running,
            Transport::Stream => Process::None,
        };
        let mut host = Self {
            session,
            capabilities,
            jobs: Jobs::new(limits.max_concurrent_handlers),
            stderr_tail: StderrTail::new(limits.stderr_tail_bytes),
            limits,
            transport,
            state,
            process,
            closed_by_user: false,
            out: Vec::new(),
            out_pos: 0,
            needs_flush: false,
            stdin: Stdin::Open,
            stdout_open: true,
            held_input: Vec::new(),
            held_pos: 0,
            stderr_open: transport == Transport::Process,
            events: EventQueue::default(),
            outputs,
            calls: HashMap::new(),
            init,
            prompts_sent: 0,
            results_read: 0,
            last_result_failure: None,
            run_end: RunEnd::default(),
            run_ceiling: None,
            run_exit_at: None,
            close_at: None,
            drain_at: None,
            stdin_stall_at: None,
            stdin_stalled: false,
            holding: false,
            held_prompts: VecDeque::new(),
            held_prompt_bytes: 0,
            end_input_held: false,
            spare: Spare::No,
            init_applied: Extra::new(),
            confirm: Confirm::default(),
            refused: None,
            last_now: now,
            ended: None,
            mirror: None,
            mirror_waiters: Vec::new(),
        };
        // `initialize` is the first line: with hooks meant to fail closed,
        // or fields the CLI reads only at launch, only it goes out until the
        // CLI confirms them (as the TypeScript SDK holds prompts).
        host.confirm = Confirm {
            blocking_hooks: initialize.has_blocking_hooks(),
            launch_fields: initialize.launch_fields(),
        };
        host.holding = host.confirm.needed() && matches!(host.init, Init::Pending(_));
        host.pump();
        Ok(host)
    }

    /// Makes this session a parked spare (a CLI started with
    /// `--await-claim`): prompts are held until a [`Command::Claim`]
    /// succeeds, since the CLI answers a prompt before its claim with an
    /// error result and exits. Call it right after [`new`](Self::new).
    pub fn park(&mut self) {
        self.spare = Spare::Parked;
    }

    /// Whether this session is a spare not yet claimed.
    pub fn is_parked(&self) -> bool {
        matches!(self.spare, Spare::Parked)
    }

    // ----- state ------------------------------------------------------------

    /// Where the session stands.
    pub fn state(&self) -> State {
        self.state
    }

    /// Mirrors the transcript to a session store: the CLI's
    /// `transcript_mirror` lines (sent when it runs with `--session-mirror`)
    /// no longer reach the user as events but go out as
    /// [`Output::MirrorAppend`]s, batched as `config` says. Call it before
    /// the first input.
    pub fn set_mirror(&mut self, config: MirrorConfig) {
        self.mirror = Some(Mirror::new(config));
    }

    /// `true` once the session has ended and the mirror has nothing left
    /// to store: the adapter may then drop everything. Until then it keeps
    /// carrying out [`Output::MirrorAppend`]s and waking at
    /// [`poll_timeout`](Self::poll_timeout), even after [`Output::Ended`].
    pub fn is_done(&self) -> bool {
        self.state == State::Ended && self.mirror.as_ref().is_none_or(Mirror::is_idle)
    }

    /// The handlers the host routes requests to.
    pub fn capabilities(&self) -> &Arc<Capabilities> {
        &self.capabilities
    }

    /// The bounds it runs with.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// How the session ended, once it has.
    pub fn ended(&self) -> Option<&SessionEnded> {
        self.ended.as_ref()
    }

    /// Bytes of events and waiting requests held for the read-ahead budget.
    pub fn queued_bytes(&self) -> usize {
        self.events.bytes() + self.jobs.waiting_bytes()
    }

    /// Bytes waiting to be written to stdin.
    pub fn unwritten_bytes(&self) -> usize {
        self.out.len() - self.out_pos
    }

    /// Control calls waiting for an answer.
    pub fn pending_calls(&self) -> usize {
        self.calls.len()
    }

    /// Handlers running now.
    pub fn running_jobs(&self) -> usize {
        self.jobs.running()
    }

    // ----- inputs -----------------------------------------------------------

    /// Bytes read from the CLI's stdout, in any chunking. They are given
    /// to the core a line at a time; if a budget is spent mid-read, the
    /// rest is held (and [`wants_stdout`](Self::wants_stdout) is `false`)
    /// until there is room again, so each budget is exceeded by one line at
    /// most.
    pub fn handle_stdout(&mut self, bytes: &[u8], now: Instant) {
        self.last_now = self.last_now.max(now);
        if self.state == State::Ended {
            return;
        }
        if self.held().is_empty() {
            let fed = self.feed(bytes);
            self.held_input.clear();
            self.held_pos = 0;
            self.held_input.extend_from_slice(&bytes[fed..]);
        } else {
            self.held_input.drain(..self.held_pos);
            self.held_pos = 0;
            self.held_input.extend_from_slice(bytes);
            self.feed_held();
        }
        self.watch_stdin(now);
    }

    /// stdout reached its end (or reading it failed). A process that still
    /// runs can no longer talk to us, so the close sequence starts; over a
    /// byte stream the session ends.
    pub fn handle_stdout_end(&mut self, now: Instant) {
        self.last_now = self.last_now.max(now);
        self.stdout_open = false;
        if self.process == Process::Running {
            self.begin_close(now);
        }
        self.finish_if_done();
    }

    /// Bytes read from the CLI's stderr (kept as a bounded tail for the
    /// exit report).
    pub fn handle_stderr(&mut self, bytes: &[u8]) {
        self.stderr_tail.push(bytes);
    }

    /// stderr reached its end.
    pub fn handle_stderr_end(&mut self) {
        self.stderr_open = false;
        self.finish_if_done();
    }

    /// `n` bytes of [`StdinStep::Write`] were written; 0 means the pipe is
    /// closed (as [`handle_stdin_failed`](Self::handle_stdin_failed)).
    pub fn handle_written(&mut self, n: usize, now: Instant) {
        self.last_now = self.last_now.max(now);
        if n == 0 {
            return self.handle_stdin_failed();
        }
        self.out_pos = (self.out_pos + n).min(self.out.len());
        if self.out_pos == self.out.len() {
            self.out.clear();
            self.out_pos = 0;
            self.needs_flush = true;
        }
        // Progress: the CLI reads, so any stall watch starts over.
        self.stdin_stall_at = None;
        self.feed_held();
        self.watch_stdin(now);
    }

    /// The flush asked by [`StdinStep::Flush`] completed.
    pub fn handle_flushed(&mut self) {
        self.needs_flush = false;
    }

    /// stdin was closed as asked by [`StdinStep::Close`].
    pub fn handle_stdin_closed(&mut self) {
        self.stdin = Stdin::Closed;
    }

    /// Writing, flushing or closing stdin failed: the CLI closed it (it is
    /// exiting). What was queued is dropped; nothing more is written, and
    /// requests from the CLI still waiting are withdrawn.
    pub fn handle_stdin_failed(&mut self) {
        self.stdin = Stdin::Closed;
        self.out.clear();
        self.out_pos = 0;
        self.needs_flush = false;
        self.session.close_input();
        self.pump();
        self.feed_held();
    }

    /// The process exited (`None`: waiting for it failed, so it is treated
    /// as gone). What is left in its pipes is read until they close or
    /// [`Limits::drain_after_exit`] passes.
    pub fn handle_exit(&mut self, exit: Option<ProcessExit>, now: Instant) {
        self.last_now = self.last_now.max(now);
        if self.process != Process::Running {
            return;
        }
        self.process = Process::Exited(exit);
        self.close_at = None;
        if self.stdout_open || self.stderr_open {
            self.state = State::Draining;
            self.drain_at = Some(deadline(now, self.limits.drain_after_exit));
            self.feed_held();
        }
        self.finish_if_done();
    }

    /// A command from the user. Every command resolves exactly once
    /// through [`Output::Resolve`] (at once if it cannot be carried out).
    pub fn handle_command(&mut self, command: Command<W>, now: Instant) {
        self.last_now = self.last_now.max(now);
        match command {
            Command::Send { message, waiter } => {
                let result = self.send(&message);
                self.outputs.push_back(Output::Resolve { waiter, result });
            }
            Command::Call {
                request,
                timeout,
                issued_at,
                waiter,
            } => self.call(&request, timeout, issued_at, waiter, now),
            Command::UpdateMcpServer {
                spec,
                issued_at,
                waiter,
            } => self.update_mcp_server(*spec, issued_at, waiter, now),
            Command::FlushMirror { waiter } => self.flush_mirror(waiter, now),
            Command::Claim {
                claim,
                issued_at,
                waiter,
            } => self.claim(&claim, issued_at, waiter, now),
            Command::EndInput => self.end_input(),
            Command::EndInputAtRunEnd { ceiling } => {
                let answered = self.results_read >= self.prompts_sent;
                self.run_ceiling = ceiling;
                self.run_end
                    .watch(self.capabilities.calls_back(), ceiling, answered, now);
                self.settle_run_end();
            }
            Command::Close => {
                self.closed_by_user = true;
                self.begin_close(now);
            }
        }
        self.pump();
        self.watch_stdin(now);
    }

    /// A handler finished. Its answer goes to the CLI, unless the CLI
    /// withdrew the request meanwhile (then it is dropped). A failure is
    /// also reported as [`Event::HandlerFailed`]. The next waiting request,
    /// if any, starts.
    pub fn handle_completion(&mut self, completion: Completion) {
        if !self.jobs.finished(completion.id) {
            return;
        }
        let id = completion.id;
        // An error only means the CLI withdrew the request or stdin is
        // closed: there is no one to tell.
        let _ = match completion.answer {
            Answer::Permission(result) => self.session.respond_permission(id, result),
            Answer::Hook(output) => self.session.respond_hook(id, &output),
            Answer::Mcp(response) => self.session.respond_mcp(id, &response),
            Answer::Reply(reply) => self.session.respond(id, reply),
            Answer::Failed { reply, message } => {
                self.emit(Event::HandlerFailed {
                    subtype: completion.subtype,
                    message,
                });
                self.session.respond(id, reply)
            }
        };
        self.start_waiting_jobs();
        self.pump();
        self.feed_held();
    }

    /// The store finished the append `id`: `Err` with its error message.
    /// A failure is retried as [`MirrorConfig::retry_backoff`] says, then
    /// reported as [`Event::MirrorFailed`]; the next batch goes out.
    pub fn handle_mirror_done(&mut self, id: MirrorId, result: Result<(), String>, now: Instant) {
        self.last_now = self.last_now.max(now);
        if let Some(mirror) = &mut self.mirror {
            mirror.handle_done(id, result, now);
        }
        self.pump_mirror();
    }

    /// Nobody reads events any more: drop those queued and all that follow
    /// (stdout is still read, so the CLI is never blocked).
    pub fn handle_events_closed(&mut self) {
        self.events.discard();
        self.feed_held();
    }

    /// The time is `now`: control requests past their deadline fail, pipes
    /// held open after the exit are given up, and the close sequence moves
    /// on. Safe to call at any time, early or late.
    pub fn handle_timeout(&mut self, now: Instant) {
        self.last_now = self.last_now.max(now);
        self.session.handle_timeout(now);
        self.pump();
        if self.drain_at.is_some_and(|at| now >= at) {
            self.drain_at = None;
            self.stop_reading();
        }
        if self.close_at.is_some_and(|at| now >= at) {
            self.close_at = None;
            self.step_close(now);
        }
        if self.stdin_stall_at.is_some_and(|at| now >= at) {
            self.stdin_stall_at = None;
            self.stdin_stalled = true;
            self.begin_close(now);
        }
        self.run_end.handle_timeout(now);
        self.settle_run_end();
        if self.run_exit_at.is_some_and(|at| now >= at) {
            self.run_exit_at = None;
            self.begin_close(now);
        }
        self.pump();
        self.watch_stdin(now);
        self.finish_if_done();
        if let Some(mirror) = &mut self.mirror {
            mirror.handle_timeout(now);
        }
        self.pump_mirror();
    }

    /// SIGTERM could not be sent: kill instead.
    pub fn handle_signal_failed(&mut self) {
        if self.state == State::Closing(CloseStage::Terminated) {
            self.close_at = None;
            self.state = State::Closing(CloseStage::Killed);
            self.outputs.push_back(Output::Signal(Signal::Kill));
        }
    }

    // ----- outputs ----------------------------------------------------------

    /// The next thing to do. Drain until `None` after every input.
    pub fn poll_output(&mut self) -> Option<Output<W>> {
        self.outputs.pop_front()
    }

    /// What to do with stdin next.
    pub fn poll_stdin(&self) -> StdinStep<'_> {
        if self.stdin != Stdin::Open {
            StdinStep::Idle
        } else if self.out_pos < self.out.len() {
            StdinStep::Write(&self.out[self.out_pos..])
        } else if self.needs_flush {
            StdinStep::Flush
        } else if self.session.is_input_closed() {
            StdinStep::Close
        } else {
            StdinStep::Idle
        }
    }

    /// Gives back memory held for traffic that has passed: the core's
    /// spare buffer room ([`Session::trim`]), the stdin buffer once
    /// everything in it is written, the held-stdout buffer once it is
    /// used up, and the room of the event queue beyond what waits.
    /// Adapters call it when the CLI's stdout goes quiet (a read would
    /// block), so that an idle session holds little; buffers grow again
    /// with the next traffic. It changes nothing else.
    pub fn trim(&mut self) {
        self.session.trim();
        if self.out_pos == self.out.len() {
            self.out = Vec::new();
            self.out_pos = 0;
        }
        if self.held().is_empty() {
            self.held_input = Vec::new();
            self.held_pos = 0;
        }
        self.events.trim();
        crate::buffer::trim_deque(&mut self.outputs);
    }

    /// Bytes of buffer room the host (and its core session) hold beyond
    /// what is in use: what [`trim`](Self::trim) gives back, apart from a
    /// line in progress or bytes still to write. For tests and memory
    /// figures.
    pub fn spare_capacity(&self) -> usize {
        self.session.spare_capacity()
            + (self.out.capacity() - (self.out.len() - self.out_pos))
            + (self.held_input.capacity() - self.held().len())
            + self.events.spare_capacity()
            + crate::buffer::deque_spare(&self.outputs)
    }

    /// The next event for the user, with its turn. Take one when the user
    /// has room: what the host holds counts against the read-ahead budget,
    /// what it handed over no longer does. Taking events may let held
    /// stdout bytes through: drain [`poll_output`](Self::poll_output)
    /// afterwards.
    pub fn poll_event(&mut self) -> Option<Delivery> {
        let delivery = self.events.pop();
        if delivery.is_some() {
            self.feed_held();
        }
        delivery
    }

    /// `true` while events wait for the user.
    pub fn has_events(&self) -> bool {
        !self.events.is_empty()
    }

    /// The next deadline and what is due then.
    pub fn poll_timeout(&self) -> Option<Timeout> {
        let candidates = [
            (self.session.poll_timeout(), TimeoutReason::Request),
            (self.close_at, TimeoutReason::Close),
            (self.drain_at, TimeoutReason::Drain),
            (self.stdin_stall_at, TimeoutReason::StdinStall),
            (self.run_end.poll_timeout(), TimeoutReason::RunEnd),
            (self.run_exit_at, TimeoutReason::RunEnd),
            (
                self.mirror.as_ref().and_then(Mirror::poll_timeout),
                TimeoutReason::Mirror,
            ),
        ];
        candidates
            .into_iter()
            .filter_map(|(at, reason)| at.map(|at| Timeout { at, reason }))
            .min_by_key(|t| t.at)
    }

    /// `true` when stdout should be read now: it is open, the read-ahead
    /// and unwritten budgets have room (after the exit, what is left in
    /// the pipe is read regardless, up to twice the budget).
    pub fn wants_stdout(&self) -> bool {
        self.stdout_open && self.held().is_empty() && self.may_read()
    }

    /// `true` while stderr should be read (always while it is open: a full
    /// stderr pipe stalls the CLI).
    pub fn wants_stderr(&self) -> bool {
        self.stderr_open
    }

    /// `true` while the process's exit should be waited for.
    pub fn wants_exit(&self) -> bool {
        self.process == Process::Running
    }

    // ----- internals --------------------------------------------------------

    /// `true` while the budgets allow reading (after the exit, what is left
    /// in the pipe is read up to twice the read-ahead budget, whatever the
    /// user does: the process will write no more).
    fn may_read(&self) -> bool {
        if self.state == State::Draining {
            return self.queued_bytes() < self.limits.read_ahead_bytes.saturating_mul(2);
        }
        self.stall().is_none()
    }

    /// Gives `bytes` to the core a line at a time while the budgets allow;
    /// returns how many bytes it took. The core finds where each line
    /// ends, so every byte is searched for a newline once.
    fn feed(&mut self, bytes: &[u8]) -> usize {
        let mut rest = bytes;
        while !rest.is_empty() && self.may_read() {
            let taken = self.session.handle_input_line(rest);
            self.pump();
            rest = &rest[taken..];
        }
        bytes.len() - rest.len()
    }

    /// The held stdout bytes not yet given to the core.
    fn held(&self) -> &[u8] {
        &self.held_input[self.held_pos..]
    }

    /// Starts (or stops) watching for a CLI that reads nothing while the
    /// unwritten budget is spent.
    fn watch_stdin(&mut self, now: Instant) {
        let stalled = self.stdin == Stdin::Open
            && matches!(self.state, State::Starting | State::Running)
            && self.unwritten_bytes() >= self.limits.max_unwritten_bytes;
        if !stalled {
            self.stdin_stall_at = None;
        } else if self.stdin_stall_at.is_none() {
            self.stdin_stall_at = Some(deadline(now, self.limits.stdin_stall_timeout));
        }
    }

    /// Feeds held stdout bytes if the budgets now allow.
    fn feed_held(&mut self) {
        if self.held().is_empty() || !self.may_read() {
            return;
        }
        let held = std::mem::take(&mut self.held_input);
        let fed = self.feed(&held[self.held_pos..]);
        self.held_input = held;
        self.held_pos += fed;
        if self.held_pos == self.held_input.len() {
            self.held_input.clear();
            self.held_pos = 0;
        }
    }

    /// The budget that keeps stdout from being read, if one does: what a
    /// call timing out now would name (adapters whose callers time out on
    /// their own clock put it in their error).
    pub fn stall(&self) -> Option<Stall> {
        self.stall_of(self.spare.holds())
    }

    /// [`stall`](Self::stall), `spare` telling whether the session is a
    /// spare not yet claimed (while a claim's answer is handled, the spare
    /// state is out of `self`).
    fn stall_of(&self, spare: bool) -> Option<Stall> {
        let queued = self.queued_bytes();
        let budget = self.limits.read_ahead_bytes;
        if queued >= budget {
            // A spare's events cannot be read before its claim: telling
            // its caller to read them would mislead.
            return Some(if spare {
                Stall::SpareReadAheadFull { queued, budget }
            } else {
                Stall::ReadAheadFull { queued, budget }
            });
        }
        let unwritten = self.unwritten_bytes();
        if unwritten >= self.limits.max_unwritten_bytes {
            return Some(Stall::StdinBacklog {
                unwritten,
                budget: self.limits.max_unwritten_bytes,
            });
        }
        None
    }

    fn ended_error(&self) -> Error {
        Error::Ended(
            self.ended
                .clone()
                .unwrap_or_else(|| SessionEnded::new(EndReason::Closed, None)),
        )
    }

    /// Refuses a new command when the session is over or stdin is backed
    /// up.
    fn check_accepting(&self, what: &str) -> Result<(), Error> {
        if self.state == State::Ended {
            return Err(self.ended_error());
        }
        let unwritten = self.unwritten_bytes();
        if unwritten >= self.limits.max_unwritten_bytes {
            return Err(Error::Backlog {
                what: what.to_owned(),
                stall: Stall::StdinBacklog {
                    unwritten,
                    budget: self.limits.max_unwritten_bytes,
                },
            });
        }
        Ok(())
    }

    fn send_error(&self, error: SendError) -> Error {
        match error {
            SendError::OutputEnded if self.ended.is_some() => self.ended_error(),
            other => other.into(),
        }
    }

    fn send(&mut self, message: &UserMessage) -> Result<CallReply, Error> {
        self.check_accepting("user message")?;
        if self.holds_prompts() {
            return self.hold(message);
        }
        self.session
            .send_user_message(message)
            .map_err(|e| self.send_error(e))?;
        let turn = self.prompts_sent;
        self.prompts_sent += 1;
        self.run_end.handle_prompt_sent();
        Ok(CallReply::Sent { turn })
    }

    /// Keeps a prompt until the `initialize` answer confirms what it must,
    /// within the unwritten budget.
    fn hold(&mut self, message: &UserMessage) -> Result<CallReply, Error> {
        let bytes = message.wire_len();
        let unwritten = self.unwritten_bytes() + self.held_prompt_bytes;
        let budget = self.limits.max_unwritten_bytes;
        if unwritten.saturating_add(bytes) > budget {
            return Err(Error::Backlog {
                what: "user message".into(),
                stall: Stall::StdinBacklog { unwritten, budget },
            });
        }
        self.held_prompts.push_back(Box::new(message.clone()));
        self.held_prompt_bytes += bytes;
        let turn = self.prompts_sent;
        self.prompts_sent += 1;
        self.run_end.handle_prompt_sent();
        Ok(CallReply::Sent { turn })
    }

    /// Whether prompts wait: for the `initialize` answer to confirm what it
    /// must, or for a spare's claim.
    fn holds_prompts(&self) -> bool {
        self.holding || self.spare.holds()
    }

    /// The `initialize` answer confirmed what it had to, or the spare was
    /// claimed: once neither waits, the held prompts go out, in order,
    /// then a held `EndInput`.
    fn release(&mut self) {
        self.holding = false;
        if self.spare.holds() {
            return;
        }
        self.held_prompt_bytes = 0;
        for message in std::mem::take(&mut self.held_prompts) {
            // An error means stdin is closed: the session is ending, and the
            // prompt's turn ends with it.
            let _ = self.session.send_user_message(&message);
        }
        if std::mem::take(&mut self.end_input_held) {
            self.session.close_input();
        }
    }

    fn claim(&mut self, claim: &Claim, issued_at: Instant, waiter: W, now: Instant) {
        if let Err(error) = self.check_accepting("claim_session") {
            self.outputs.push_back(Output::Resolve {
                waiter,
                result: Err(error),
            });
            return;
        }
        let servers = self
            .capabilities
            .mcp_servers
            .iter()
            .map(|server| server.name.clone())
            .collect();
        let elapsed = now.saturating_duration_since(issued_at);
        let mut spare = std::mem::take(&mut self.spare);
        let begun = spare.begin(claim, servers, waiter, |request| {
            let timeout = self.session.default_timeout(request).min(MAX_DURATION);
            if elapsed >= timeout {
                return Err(Error::TimedOut {
                    subtype: request.subtype().to_owned(),
                    after: timeout,
                    stall: None,
                });
            }
            self.session
                .send_control(request, Some(timeout - elapsed), now)
                .map_err(|e| self.send_error(e))
        });
        let failed = matches!(spare, Spare::Failed);
        self.spare = spare;
        if let Err((waiter, error)) = begun {
            self.outputs.push_back(Output::Resolve {
                waiter,
                result: Err(error),
            });
            if failed {
                self.drop_held_and_close();
            }
        }
    }

    /// The claim is decided: its waiter is told, and the held prompts go
    /// out, or, if it failed, are dropped and the spare let go.
    fn claim_decided(&mut self, waiter: W, result: Result<Claimed, Error>) {
        let result = match result {
            Ok(claimed) => {
                if let Some(answer) = self.claimed_initialize(&claimed) {
                    self.outputs.push_back(Output::Initialized(Ok(answer)));
                }
                // Prompts may still wait for the `initialize` answer to
                // confirm what it must (it comes first, in practice).
                if !self.holding {
                    self.release();
                }
                Ok(CallReply::Claimed(Box::new(claimed)))
            }
            Err(error) => {
                self.drop_held_and_close();
                Err(error)
            }
        };
        self.outputs.push_back(Output::Resolve { waiter, result });
    }

    /// The claimed session's `initialize` answer, from the claim's answer,
    /// with the spare's `*_applied` confirmations it leaves out; `None` if
    /// the CLI sent none or it does not read as one.
    fn claimed_initialize(&self, claimed: &Claimed) -> Option<InitAnswer> {
        let Some(Json::Object(fields)) = &claimed.answer.initialize else {
            return None;
        };
        let mut fields = fields.clone();
        for (key, value) in &self.init_applied {
            fields.entry(key.clone()).or_insert_with(|| value.clone());
        }
        let text = serde_json::to_string(&fields).ok()?;
        let payload = RawValue::from_string(text).ok()?;
        let answer = ControlSuccess::with_payload(payload);
        InitAnswer::decode_success(&answer).ok()?;
        Some(InitAnswer { answer })
    }

    fn call(
        &mut self,
        request: &ControlRequest,
        timeout: Option<Duration>,
        issued_at: Instant,
        waiter: W,
        now: Instant,
    ) {
        let timeout = timeout
            .unwrap_or_else(|| self.session.default_timeout(request))
            .min(MAX_DURATION);
        let subtype = request.subtype();
        let elapsed = now.saturating_duration_since(issued_at);
        let sent = self.check_accepting(subtype).and_then(|()| {
            if elapsed >= timeout {
                return Err(Error::TimedOut {
                    subtype: subtype.to_owned(),
                    after: timeout,
                    stall: self.stall(),
                });
            }
            self.session
                .send_control(request, Some(timeout - elapsed), now)
                .map_err(|e| self.send_error(e))
        });
        match sent {
            Ok(id) => {
                self.calls.insert(id, Call { waiter, timeout });
            }
            Err(error) => self.outputs.push_back(Output::Resolve {
                waiter,
                result: Err(error),
            }),
        }
    }

    fn update_mcp_server(
        &mut self,
        spec: McpServerSpec,
        issued_at: Instant,
        waiter: W,
        now: Instant,
    ) {
        let servers = &self.capabilities.mcp_servers;
        let Some(index) = servers.iter().position(|s| s.name == spec.name) else {
            self.outputs.push_back(Output::Resolve {
                waiter,
                result: Err(Error::UnknownMcpServer { name: spec.name }),
            });
            return;
        };
        let name = spec.name.clone();
        Arc::make_mut(&mut self.capabilities).mcp_servers[index] = spec;
        let changed = JsonRpcMessage::notification(TOOLS_LIST_CHANGED, None);
        let request = ControlRequest::mcp_message(name, changed);
        self.call(&request, None, issued_at, waiter, now);
    }

    /// The session cannot go on (the CLI cannot honour hooks meant to fail
    /// closed, or its version is incompatible): what waited to be written
    /// is dropped unwritten and the session closes, ending for `reason`.
    fn refuse(&mut self, reason: EndReason) {
        self.refused = Some(reason);
        self.drop_held_and_close();
    }

    /// Fails closed: the held prompts are dropped unwritten and the
    /// session closes.
    fn drop_held_and_close(&mut self) {
        self.holding = false;
        self.held_prompts.clear();
        self.held_prompt_bytes = 0;
        self.end_input_held = false;
        self.begin_close(self.last_now);
    }

    fn emit(&mut self, event: Event) {
        let turn = self.results_read;
        self.events.push(Delivery { turn, event });
    }

    /// Moves the core's output to the stdin buffer and its events to where
    /// they go. Called after every input.
    fn pump(&mut self) {
        // Drop what was written once it is half the buffer, so a CLI that
        // reads steadily but never catches up does not grow the buffer
        // past twice what is unwritten.
        if self.out_pos > 0 && self.out_pos >= self.out.len() / 2 {
            self.out.drain(..self.out_pos);
            self.out_pos = 0;
        }
        loop {
            if self.stdin == Stdin::Open {
                self.session.poll_transmit(&mut self.out);
            } else {
                let mut dropped = Vec::new();
                self.session.poll_transmit(&mut dropped);
            }
            let Some(event) = self.session.poll_event() else {
                break;
            };
            self.on_core_event(event);
        }
    }

    fn on_core_event(&mut self, event: CoreEvent) {
        match event {
            CoreEvent::Message(message) => {
                if let Some(mirror) = &mut self.mirror {
                    if *message.message_type() == MessageType::TranscriptMirror {
                        mirror.handle_line(message.as_bytes(), self.last_now);
                        return self.pump_mirror();
                    }
                    if message.is_result() {
                        // The turn's lines go to the store now.
                        mirror.flush(self.last_now);
                        self.pump_mirror();
                    }
                }
                self.run_end.handle_message(&message, self.last_now);
                self.settle_run_end();
                if is_host_only(&message) {
                    // Sent only because the adapters ask for session state
                    // (for the run's end); the user did not opt in
                    // (`CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS`), as in both SDKs.
                    return;
                }
                let turn = self.results_read;
                if message.is_result() {
                    self.results_read += 1;
                    self.last_result_failure = serde_json::from_slice(message.as_bytes())
                        .ok()
                        .and_then(|line| failure_text(&line))
                        .map(Arc::from);
                } else if !is_state_change(&message) {
                    // The conversation moved on: an exit now is a fresh
                    // crash, not the one the error result announced (both
                    // official SDKs reset it the same way).
                    self.last_result_failure = None;
                }
                self.events.push(Delivery {
                    turn,
                    event: Event::Message(message),
                });
            }
            CoreEvent::Request(request) => self.dispatch(request),
            CoreEvent::RequestCancelled { id, .. } => self.withdraw(id),
            CoreEvent::Response(outcome) => self.on_outcome(outcome),
            CoreEvent::ProtocolError(error) => self.emit(Event::ProtocolError(error)),
            CoreEvent::RequestRefused {
                request_id,
                subtype,
                reason,
            } => self.emit(Event::RequestRefused {
                request_id,
                subtype,
                reason,
            }),
            _ => {}
        }
    }

    fn dispatch(&mut self, request: claude_proto::IncomingRequest) {
        let cost = request.wire_len();
        let subtype = request.subtype().to_owned();
        let (id, request) = request.into_parts();
        match route(&self.capabilities, id, subtype, request, cost) {
            Route::Job(job) => {
                if let Some(job) = self.jobs.admit(*job) {
                    self.outputs.push_back(Output::StartJob(Box::new(job)));
                }
            }
            // An error only means stdin is closed: the CLI is going away.
            Route::Answer(DirectAnswer::Mcp(response)) => {
                let _ = self.session.respond_mcp(id, &response);
            }
            Route::Answer(DirectAnswer::Reply(reply)) => {
                let _ = self.session.respond(id, reply);
            }
        }
    }

    /// The CLI withdrew a request (or stdin closed): abort its handler if
    /// it runs, forget it if it waits for a slot.
    fn withdraw(&mut self, id: IncomingId) {
        if self.jobs.withdraw(id) == Some(true) {
            self.outputs.push_back(Output::AbortJob(id));
            self.start_waiting_jobs();
        }
    }

    fn start_waiting_jobs(&mut self) {
        while let Some(job) = self.jobs.next() {
            self.outputs.push_back(Output::StartJob(Box::new(job)));
        }
    }

    fn on_outcome(&mut self, outcome: ControlOutcome) {
        if matches!(self.init, Init::Pending(id) if id == outcome.id) {
            self.init = Init::Settled;
            if self.state == State::Starting {
                self.state = State::Running;
            }
            let mut result = match outcome.result {
                Ok(success) => InitAnswer::decode_success(&success)
                    .map(|init| (InitAnswer { answer: success }, init)),
                Err(error) => Err(self.control_error(error, None)),
            };
            if self.limits.check_cli_version {
                if let Ok((_, init)) = &result {
                    let check = VersionCheck::of(init.claude_code_version.as_deref());
                    if let Some(reason) = check.refusal() {
                        result = Err(Error::IncompatibleCli { reason });
                        self.refuse(EndReason::IncompatibleCli);
                    } else if check.warning().is_some() {
                        self.emit(Event::CliVersion(check));
                    }
                }
            }
            if let (Ok((answer, _)), Spare::Parked) = (&result, &self.spare) {
                self.init_applied = applied_fields(answer.json());
            }
            if self.holding {
                // Fail closed: without an answer that confirms what had to
                // be confirmed, no prompt goes out.
                match result.as_ref().map(|(_, init)| self.confirm.refusal(init)) {
                    Ok(None) => self.release(),
                    Ok(Some((refusal, reason))) => {
                        result = Err(refusal);
                        self.refuse(reason);
                    }
                    // The error says why; the session ends as it then does.
                    Err(_) => self.drop_held_and_close(),
                }
            }
            // The typed answer is dropped here: the JSON is what is kept.
            let result = result.map(|(answer, _)| answer);
            self.outputs.push_back(Output::Initialized(result));
            return;
        }
        let mut spare = std::mem::take(&mut self.spare);
        let spare_waits = spare.holds();
        let step = spare.answer(outcome, |error| {
            self.control_error_of(error, None, spare_waits)
        });
        self.spare = spare;
        let outcome = match step {
            Step::NotMine(outcome) => outcome,
            Step::Waiting => return,
            Step::Done(waiter, result) => {
                self.claim_decided(waiter, result);
                return;
            }
        };
        let Some(call) = self.calls.remove(&outcome.id) else {
            return;
        };
        let result = match outcome.result {
            Ok(success) => Ok(CallReply::Answered(success)),
            Err(error) => Err(self.control_error(error, Some(call.timeout))),
        };
        self.outputs.push_back(Output::Resolve {
            waiter: call.waiter,
            result,
        });
    }

    fn control_error(&self, error: ControlError, timeout: Option<Duration>) -> Error {
        self.control_error_of(error, timeout, self.spare.holds())
    }

    /// [`control_error`](Self::control_error), `spare` as in
    /// [`stall_of`](Self::stall_of).
    fn control_error_of(
        &self,
        error: ControlError,
        timeout: Option<Duration>,
        spare: bool,
    ) -> Error {
        match error {
            ControlError::OutputEnded { .. } => self.ended_error(),
            ControlError::TimedOut { subtype, after } => Error::TimedOut {
                subtype,
                after: timeout.unwrap_or(after),
                stall: self.stall_of(spare),
            },
            other => Error::from_control(other),
        }
    }

    fn end_input(&mut self) {
        self.run_end.unwatch();
        if self.holds_prompts() {
            self.end_input_held = true;
        } else {
            self.session.close_input();
        }
    }

    /// Ends input if the run being watched is over.
    /// Callers pump afterwards (the one in `on_core_event` is inside a pump).
    fn settle_run_end(&mut self) {
        if self.run_end.is_ended() {
            self.end_input();
            if let Some(ceiling) = self.run_ceiling {
                self.run_exit_at = Some(deadline(self.last_now, ceiling));
            }
        }
    }

    fn begin_close(&mut self, now: Instant) {
        if !matches!(self.state, State::Starting | State::Running) {
            return;
        }
        self.state = State::Closing(CloseStage::Grace);
        self.session.close_input();
        self.close_at = Some(deadline(now, self.limits.close_grace));
        self.pump();
    }

    fn step_close(&mut self, now: Instant) {
        if self.transport == Transport::Stream {
            // No process to signal: give up on the stream.
            self.stop_reading();
            return;
        }
        match self.state {
            State::Closing(CloseStage::Grace) => {
                self.state = State::Closing(CloseStage::Terminated);
                self.close_at = Some(deadline(now, self.limits.term_grace));
                self.outputs.push_back(Output::Signal(Signal::Terminate));
            }
            State::Closing(CloseStage::Terminated) => {
                self.state = State::Closing(CloseStage::Killed);
                self.outputs.push_back(Output::Signal(Signal::Kill));
            }
            _ => {}
        }
    }

    fn stop_reading(&mut self) {
        if self.stdout_open || self.stderr_open {
            self.stdout_open = false;
            self.stderr_open = false;
            self.outputs.push_back(Output::StopReading);
        }
    }

    fn finish_if_done(&mut self) {
        let process_done = self.process != Process::Running;
        if self.state != State::Ended && process_done && !self.stdout_open && !self.stderr_open {
            self.finish();
        }
    }

    /// Settles everything: the end is recorded, every call and the
    /// initialize exchange fail with it, running jobs are aborted.
    fn finish(&mut self) {
        let report = match self.process {
            Process::Exited(Some(exit)) => Some(ExitReport::new(
                exit.code,
                exit.signal,
                self.stderr_tail.text(),
            )),
            _ => None,
        };
        let reason = if self.stdin_stalled {
            EndReason::StdinStalled
        } else if self.closed_by_user {
            EndReason::Closed
        } else if let Some(reason) = self.refused {
            reason
        } else if self.transport == Transport::Stream {
            EndReason::TransportEnded
        } else {
            EndReason::Exited
        };
        let mut ended = SessionEnded::new(reason, report);
        if matches!(reason, EndReason::Exited | EndReason::TransportEnded) {
            if let Some(text) = &self.last_result_failure {
                ended = ended.with_failure(text.clone());
            }
        }
        self.ended = Some(ended.clone());
        self.state = State::Ended;
        self.close_at = None;
        self.drain_at = None;
        self.run_exit_at = None;
        self.run_end.unwatch();
        // What was read but held back is the CLI's last word: it goes to the
        // user whatever the budget (it is one read at most).
        let held = std::mem::take(&mut self.held_input);
        self.session.handle_input(&held[self.held_pos..]);
        self.held_pos = 0;
        self.session.handle_eof();
        self.pump();
        for id in self.jobs.drain() {
            self.outputs.push_back(Output::AbortJob(id));
        }
        for (_, call) in self.calls.drain() {
            self.outputs.push_back(Output::Resolve {
                waiter: call.waiter,
                result: Err(Error::Ended(ended.clone())),
            });
        }
        if matches!(self.init, Init::Pending(_)) {
            self.init = Init::Settled;
            self.outputs
                .push_back(Output::Initialized(Err(Error::Ended(ended.clone()))));
        }
        self.stdin = Stdin::Closed;
        self.out = Vec::new();
        self.out_pos = 0;
        if let Some(mirror) = &mut self.mirror {
            // The last lines: the adapter stores them before it lets go
            // (see `is_done`).
            mirror.flush(self.last_now);
        }
        self.pump_mirror();
        self.outputs.push_back(Output::Ended(ended));
    }

    fn flush_mirror(&mut self, waiter: W, now: Instant) {
        let Some(mirror) = &mut self.mirror else {
            self.outputs.push_back(Output::Resolve {
                waiter,
                result: Ok(CallReply::MirrorSettled),
            });
            return;
        };
        let mark = mirror.flush(now);
        self.mirror_waiters.push((mark, waiter));
        self.pump_mirror();
    }

    /// Moves the mirror's requests to the outputs and its failures to the
    /// events, and resolves the flushes it has settled.
    fn pump_mirror(&mut self) {
        let Some(mirror) = &mut self.mirror else {
            return;
        };
        let mut failures = Vec::new();
        while let Some(output) = mirror.poll_output() {
            match output {
                MirrorOutput::Append(append) => {
                    self.outputs
                        .push_back(Output::MirrorAppend(Box::new(append)));
                }
                MirrorOutput::Abort(id) => self.outputs.push_back(Output::AbortMirrorAppend(id)),
                MirrorOutput::Failed(failure) => failures.push(failure),
            }
        }
        let settled = mirror.settled();
        let mut i = 0;
        while i < self.mirror_waiters.len() {
            if self.mirror_waiters[i].0 <= settled {
                let (_, waiter) = self.mirror_waiters.swap_remove(i);
                self.outputs.push_back(Output::Resolve {
                    waiter,
                    result: Ok(CallReply::MirrorSettled),
                });
            } else {
                i += 1;
            }
        }
        for failure in failures {
            self.emit(Event::MirrorFailed(failure));
        }
    }
}

/// A `session_state_changed` frame marked `sdk_host_only`: the CLI sent it
/// because the adapters asked for session state, not the user.
/// `true` for `system`/`session_state_changed`.
fn is_state_change(message: &claude_proto::Message) -> bool {
    *message.message_type() == MessageType::System
        && message.subtype() == Some("session_state_changed")
}

fn is_host_only(message: &claude_proto::Message) -> bool {
    #[derive(serde::Deserialize)]
    struct HostOnly {
        #[serde(default)]
        sdk_host_only: Option<serde_json::Value>,
    }
    is_state_change(message)
        && message
            .deserialize::<HostOnly>()
            .is_ok_and(|m| m.sdk_host_only == Some(serde_json::Value::Bool(true)))
}

/// The `*_applied` fields of an `initialize` answer's JSON.
fn applied_fields(json: Option<&str>) -> Extra {
    let Some(Ok(Json::Object(fields))) = json.map(serde_json::from_str::<Json>) else {
        return Extra::new();
    };
    fields
        .into_iter()
        .filter(|(key, _)| key.ends_with("_applied"))
        .collect()
}
