//! A host and the test kit's scripted CLI (serving by itself) stepped
//! together on a virtual clock, the way quinn-proto's tests pair two
//! endpoints: nothing here sleeps, spawns or reads the clock, so every
//! scenario is deterministic and runs in microseconds.
#![allow(
    dead_code,
    unreachable_pub,
    reason = "each test file uses part of the harness"
)]

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use claude_proto::Config;
use claude_proto::model::control::ControlRequest;
use claude_proto::model::initialize::{InitializeRequest, InitializeResponse};
use claude_proto::model::permission::PermissionResult;
use claude_proto::model::user::UserMessage;
use claude_proto_host::{
    CallReply, Capabilities, Command, Delivery, Error, Host, Job, Limits, MirrorAppend, MirrorId,
    Outcome, Output, ProcessExit, SessionEnded, Signal, State, StdinStep, Transport, TurnCollector,
    TurnId,
};
use claude_proto_testkit::{Behaviour, Script, ScriptedCli, Signal as CliSignal, Simulation};

/// How the test's "user" answers jobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Jobs {
    /// Every job is answered as soon as it starts (permission: allow).
    Answer,
    /// Jobs are held until the test completes or drops them.
    Hold,
}

/// A waiter: the number the test gave a command.
pub type Waiter = u32;

/// The pair and everything observed.
pub struct Pair {
    pub host: Host<Waiter>,
    pub cli: ScriptedCli,
    pub now: Instant,
    /// Read events as they come (`false`: a user who does not read).
    pub reading: bool,
    /// How jobs are answered.
    pub jobs: Jobs,
    /// Largest stdout chunk handed over at once.
    pub chunk: usize,
    /// Events read by the user, in order.
    pub events: Vec<Delivery>,
    /// Jobs held (with [`Jobs::Hold`]).
    pub held: Vec<Job>,
    /// How many jobs were started, and aborted.
    pub started: usize,
    /// Jobs handed back with a completion.
    pub completed: usize,
    pub aborted: Vec<claude_proto::IncomingId>,
    /// Each waiter's outcomes (must end up exactly one).
    pub resolved: HashMap<Waiter, Vec<Result<CallReply, Error>>>,
    pub initialized: Vec<Result<Arc<InitializeResponse>, Error>>,
    pub signals: Vec<Signal>,
    pub stopped_reading: usize,
    pub ended: Vec<SessionEnded>,
    stdout_ended: bool,
    stderr_ended: bool,
    next_waiter: Waiter,
    /// High-water marks, checked against the budgets.
    pub max_queued: usize,
    pub max_unwritten: usize,
    /// Appends to the session store not yet answered, oldest first.
    pub appends: Vec<MirrorAppend>,
    /// Appends abandoned by the host.
    pub mirror_aborts: Vec<MirrorId>,
}

impl Pair {
    /// A process transport with default limits.
    pub fn new(script: Behaviour) -> Self {
        Self::with(
            script,
            Limits::default(),
            Capabilities::default(),
            Transport::Process,
        )
    }

    pub fn with(
        script: Behaviour,
        limits: Limits,
        capabilities: Capabilities,
        transport: Transport,
    ) -> Self {
        Self::with_initialize(
            script,
            limits,
            capabilities,
            transport,
            InitializeRequest::default(),
        )
    }

    /// [`with`](Self::with), sending `initialize` as the request's base.
    pub fn with_initialize(
        script: Behaviour,
        limits: Limits,
        capabilities: Capabilities,
        transport: Transport,
        initialize: InitializeRequest,
    ) -> Self {
        let now = Instant::now();
        let mut config = Config::default();
        config.request_id_seed = 7;
        let host = Host::new(
            config,
            limits,
            Arc::new(capabilities),
            initialize,
            transport,
            now,
        )
        .expect("valid limits");
        Self {
            host,
            cli: {
                let (steps, settings) = Script::new().serve(script).into_parts();
                ScriptedCli::new(steps, settings, now)
            },
            now,
            reading: true,
            jobs: Jobs::Answer,
            chunk: 64 * 1024,
            events: Vec::new(),
            held: Vec::new(),
            started: 0,
            completed: 0,
            aborted: Vec::new(),
            resolved: HashMap::new(),
            initialized: Vec::new(),
            signals: Vec::new(),
            stopped_reading: 0,
            ended: Vec::new(),
            stdout_ended: false,
            stderr_ended: transport == Transport::Stream,
            next_waiter: 0,
            max_queued: 0,
            max_unwritten: 0,
            appends: Vec::new(),
            mirror_aborts: Vec::new(),
        }
    }

    /// Gives the host a command; returns its waiter.
    pub fn command(&mut self, command: impl FnOnce(Waiter) -> Command<Waiter>) -> Waiter {
        let waiter = self.next_waiter;
        self.next_waiter += 1;
        self.host.handle_command(command(waiter), self.now);
        self.drain_outputs();
        waiter
    }

    /// Sends a text prompt.
    pub fn send(&mut self, text: &str) -> Waiter {
        self.command(|waiter| Command::Send {
            message: Box::new(UserMessage::text(text)),
            waiter,
        })
    }

    /// Sends a control request issued now.
    pub fn call(&mut self, request: ControlRequest, timeout: Option<Duration>) -> Waiter {
        let now = self.now;
        self.command(|waiter| Command::Call {
            request: Box::new(request),
            timeout,
            issued_at: now,
            waiter,
        })
    }

    /// The single outcome of `waiter`, if it has one (panics on two).
    pub fn outcome(&self, waiter: Waiter) -> Option<&Result<CallReply, Error>> {
        let outcomes = self.resolved.get(&waiter)?;
        assert_eq!(outcomes.len(), 1, "waiter {waiter} resolved more than once");
        outcomes.first()
    }

    /// The turn a sent prompt starts.
    pub fn turn_of(&self, waiter: Waiter) -> TurnId {
        match self.outcome(waiter) {
            Some(Ok(CallReply::Sent { turn })) => *turn,
            other => panic!("the send did not succeed: {other:?}"),
        }
    }

    /// Steps both sides until neither can make progress without time.
    pub fn run(&mut self) {
        for _ in 0..1_000_000 {
            if !self.step() {
                return;
            }
        }
        panic!("the pair never went idle");
    }

    /// Steps until idle, then moves the clock to the next deadline of
    /// either side; repeats until `done` holds or nothing is due.
    pub fn run_until(&mut self, mut done: impl FnMut(&Self) -> bool) {
        for _ in 0..100_000 {
            self.run();
            if done(self) {
                return;
            }
            if !self.advance() {
                return;
            }
        }
        panic!("the pair never reached the condition");
    }

    /// Moves the clock to the next deadline; `false` if none is set.
    pub fn advance(&mut self) -> bool {
        let next = [
            self.host.poll_timeout().map(|t| t.at),
            self.cli.poll_timeout(),
        ]
        .into_iter()
        .flatten()
        .min();
        let Some(at) = next else {
            return false;
        };
        self.now = self.now.max(at);
        self.host.handle_timeout(self.now);
        self.cli.handle_timeout(self.now);
        true
    }

    /// Moves the clock by `by`.
    pub fn advance_by(&mut self, by: Duration) {
        self.now += by;
        self.host.handle_timeout(self.now);
        self.cli.handle_timeout(self.now);
    }

    /// One round of every transfer; `true` if anything moved.
    pub fn step(&mut self) -> bool {
        let mut moved = self.drain_outputs();
        moved |= self.stdin_step();
        moved |= self.stdout_step();
        moved |= self.stderr_step();
        moved |= self.exit_step();
        moved |= self.read_events();
        moved |= self.drain_outputs();
        self.max_queued = self.max_queued.max(self.host.queued_bytes());
        self.max_unwritten = self.max_unwritten.max(self.host.unwritten_bytes());
        moved
    }

    fn drain_outputs(&mut self) -> bool {
        let mut moved = self.drain_batch();
        while self.jobs == Jobs::Answer && !self.held.is_empty() {
            while !self.held.is_empty() {
                let job = self.held.remove(0);
                let outcome = allow_outcome(&job);
                self.completed += 1;
                self.host.handle_completion(job.finish(Ok(outcome)));
            }
            moved |= self.drain_batch();
        }
        moved
    }

    fn drain_batch(&mut self) -> bool {
        let mut moved = false;
        while let Some(output) = self.host.poll_output() {
            moved = true;
            match output {
                Output::StartJob(job) => {
                    // Answered after the batch, as a task would be: an
                    // AbortJob in the same batch must still win.
                    self.started += 1;
                    self.held.push(*job);
                }
                Output::AbortJob(id) => {
                    self.aborted.push(id);
                    self.held.retain(|job| job.id != id);
                }
                Output::Resolve { waiter, result } => {
                    self.resolved.entry(waiter).or_default().push(result);
                }
                Output::Initialized(result) => {
                    self.initialized
                        .push(result.and_then(|answer| answer.decode()));
                }
                Output::Signal(signal) => {
                    self.signals.push(signal);
                    let signal = match signal {
                        Signal::Terminate => CliSignal::Term,
                        _ => CliSignal::Kill,
                    };
                    self.cli.handle_signal(signal, self.now);
                }
                Output::StopReading => {
                    self.stopped_reading += 1;
                    self.stdout_ended = true;
                    self.stderr_ended = true;
                }
                Output::Ended(ended) => self.ended.push(ended),
                Output::MirrorAppend(append) => self.appends.push(*append),
                Output::AbortMirrorAppend(id) => {
                    self.mirror_aborts.push(id);
                    self.appends.retain(|a| a.id != id);
                }
                other => panic!("unexpected output {other:?}"),
            }
        }
        moved
    }

    fn stdin_step(&mut self) -> bool {
        match self.host.poll_stdin() {
            StdinStep::Write(bytes) => {
                if !self.cli.wants_stdin() || self.cli.exit_code().is_some() {
                    if self.cli.exit_code().is_some() {
                        self.host.handle_stdin_failed();
                        return true;
                    }
                    return false;
                }
                let n = bytes.len().min(self.chunk);
                let bytes = bytes[..n].to_vec();
                self.cli.handle_stdin(&bytes, self.now);
                self.host.handle_written(n, self.now);
                true
            }
            StdinStep::Flush => {
                self.host.handle_flushed();
                true
            }
            StdinStep::Close => {
                self.cli.handle_stdin_end(self.now);
                self.host.handle_stdin_closed();
                true
            }
            _ => false,
        }
    }

    fn stdout_step(&mut self) -> bool {
        if self.stdout_ended || !self.host.wants_stdout() {
            return false;
        }
        if let Some(bytes) = self.cli.poll_stdout_at_most(self.chunk) {
            self.host.handle_stdout(&bytes, self.now);
            return true;
        }
        if self.cli.stdout_closed() {
            self.stdout_ended = true;
            self.host.handle_stdout_end(self.now);
            return true;
        }
        false
    }

    fn stderr_step(&mut self) -> bool {
        if self.stderr_ended {
            return false;
        }
        if let Some(bytes) = self.cli.poll_stderr() {
            self.host.handle_stderr(&bytes);
            return true;
        }
        if self.cli.exit_code().is_some() {
            self.stderr_ended = true;
            self.host.handle_stderr_end();
            return true;
        }
        false
    }

    fn exit_step(&mut self) -> bool {
        match self.cli.exit_code() {
            Some(code) if self.host.wants_exit() => {
                let exit = if code > 128 {
                    ProcessExit::new(None, Some(code - 128))
                } else {
                    ProcessExit::new(Some(code), None)
                };
                self.host.handle_exit(Some(exit), self.now);
                true
            }
            _ => false,
        }
    }

    fn read_events(&mut self) -> bool {
        if !self.reading {
            return false;
        }
        let mut moved = false;
        while let Some(delivery) = self.host.poll_event() {
            self.events.push(delivery);
            moved = true;
        }
        moved
    }

    /// Takes every event read so far and collects turn `turn` from them
    /// (panics if its result has not arrived).
    pub fn collect(&mut self, turn: TurnId) -> claude_proto_host::Turn {
        let mut collector = TurnCollector::new(turn, 0.0);
        for delivery in std::mem::take(&mut self.events) {
            if let claude_proto_host::Step::Done(done) = collector.push(delivery) {
                return *done;
            }
        }
        panic!("turn {turn} has no result yet");
    }

    /// Completes a held job with `outcome`.
    pub fn complete_held(&mut self, index: usize, outcome: Result<Outcome, String>) {
        let job = self.held.remove(index);
        self.completed += 1;
        self.host.handle_completion(job.finish(outcome));
    }

    /// The store answers the oldest append with `result`; returns the
    /// entries it was given.
    pub fn store_answers(
        &mut self,
        result: Result<(), &str>,
    ) -> Arc<[claude_proto::transcript::Entry]> {
        let append = self.appends.remove(0);
        self.host
            .handle_mirror_done(append.id, result.map_err(str::to_owned), self.now);
        self.drain_outputs();
        append.entries
    }

    /// `true` once the host has ended.
    pub fn is_ended(&self) -> bool {
        self.host.state() == State::Ended
    }
}

/// An answer of the right kind for `job`: allow, no opinion, or a tool text.
pub fn allow_outcome(job: &Job) -> Outcome {
    match &job.kind {
        claude_proto_host::JobKind::Permission(_) => Outcome::Permission(PermissionResult::allow()),
        claude_proto_host::JobKind::Hook { .. } => Outcome::Hook(Default::default()),
        _ => Outcome::Tool(claude_proto::dispatch::ToolOutput::text("ok")),
    }
}

/// The text of a turn's result.
pub fn text(turn: &claude_proto_host::Turn) -> String {
    turn.text().unwrap_or_default().to_owned()
}

/// The scripted CLI's simulation, which serves from the start: what the
/// tests write through and read back.
pub trait Served {
    /// The simulation, to read what the host sent.
    fn sim(&self) -> &Simulation;
    /// The simulation, to write through it.
    fn sim_mut(&mut self) -> &mut Simulation;
}

impl Served for ScriptedCli {
    fn sim(&self) -> &Simulation {
        self.serving()
            .expect("the pair's CLI serves from the start")
    }

    fn sim_mut(&mut self) -> &mut Simulation {
        self.serving_mut()
            .expect("the pair's CLI serves from the start")
    }
}
