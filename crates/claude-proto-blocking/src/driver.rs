//! The one thread that owns a session, and the helper threads that feed it.
//!
//! Only the std glue lives here. Every decision (what to answer, what to
//! wait for, when to close stdin, SIGTERM or SIGKILL, when the loop is
//! over) is the shared [`DriverCore`]'s; the driver thread asks it what to
//! wait for, waits on its single bounded input channel, and reports what
//! happened.
//!
//! Threads, and why none of them can make another one wait for long:
//!
//! - **driver**: owns the [`DriverCore`]; blocks only in `recv_timeout` on
//!   the input channel (until [`Interest::wake_at`]). Everything it sends
//!   goes to a channel with room by construction (below), or is a
//!   `try_send`.
//! - **stdout reader**: owns two buffers; fills one, sends it, fills the
//!   other while the driver decodes the first, then waits until the driver
//!   hands a buffer back, which it does only when the core wants stdout
//!   (`read_stdout`): that is the backpressure; nothing is read ahead
//!   beyond two chunks.
//! - **stderr reader**: the same, but the driver consumes stderr at once
//!   (a full stderr pipe stalls the CLI).
//! - **writer**: writes the bytes the driver hands it, flushes, closes, and
//!   reports each; a CLI that stops reading blocks this thread only.
//! - **exit waiter**: waits for the child and reports its status.
//! - **handler workers**: up to `max_concurrent_handlers`, started on
//!   demand, each running one job at a time.

use std::collections::{HashMap, VecDeque};
use std::io::{ErrorKind, Read, Write};
use std::process::ExitStatus;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{
    Receiver, RecvTimeoutError, SyncSender, TryRecvError, TrySendError, sync_channel,
};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use claude_proto::model::control::ControlRequest;
use claude_proto::model::user::UserMessage;
use claude_proto::{ControlSuccess, IncomingId};
use claude_proto_process::driver::{DriverCore, Interest, Output, ProcessAction, READ_CHUNK};
use claude_proto_process::host::{Action, Completion, InitFailure, InitState, Job};
use claude_proto_process::{Error, Event, SessionExit, SharedChild};

use crate::handlers::{CancelToken, SyncHandlers};

/// Messages that may wait in the driver's input channel. Every producer
/// blocks while it is full, and the driver drains it continuously, so the
/// size only trades memory for thread switches. Most producers have at
/// most one message outstanding by design (a reader waits for its buffer,
/// the writer for its next order, the waiter sends once); handler workers
/// one each; the user's doorbells are short-lived.
const INPUT_CAPACITY: usize = 32;

/// Bytes to read from stderr at a time.
const STDERR_CHUNK: usize = 8 * 1024;

/// The most the driver hands the writer thread at once (a copy of the
/// core's queue, so a large backlog is not copied again and again).
const WRITE_CHUNK: usize = 64 * 1024;

/// Someone waiting for a control answer: a one-slot channel, sent to once.
pub(crate) type Waiter = SyncSender<Result<ControlSuccess, Error>>;

/// A request from the handle to the driver.
pub(crate) enum Command {
    Send {
        message: Box<UserMessage>,
        done: SyncSender<Result<(), Error>>,
    },
    Control {
        request: Box<ControlRequest>,
        timeout: Option<Duration>,
        done: Waiter,
    },
    /// Close stdin once everything queued is written.
    EndInput,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stream {
    Stdout,
    Stderr,
}

/// What happened, as reported to the driver.
pub(crate) enum Input {
    /// A reader read `len` bytes into the buffer; hand it back when used.
    Read(Stream, Vec<u8>, usize),
    /// A stream ended (or failed).
    ReadEnd(Stream),
    /// The writer wrote the whole buffer, or failed.
    Written(Vec<u8>, std::io::Result<()>),
    /// The writer flushed.
    Flushed(std::io::Result<()>),
    /// The writer closed stdin.
    WriterClosed,
    /// The child exited.
    Exited(std::io::Result<ExitStatus>),
    /// A handler finished.
    Completed(Box<Completion>),
    /// A command waits in the command channel.
    Command,
    /// The user took an event while the driver waited for room.
    Room,
    /// `close()` or a dropped handle.
    Close,
}

/// State shared between the handle and the driver.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    /// How the session ended, once it has.
    pub(crate) exit: SessionExit,
    init: Mutex<Option<InitState>>,
    init_changed: Condvar,
    /// Set by the driver when the event channel was full: the next
    /// consumer sends [`Input::Room`].
    pub(crate) want_room: AtomicBool,
}

impl Shared {
    fn publish_init(&self, state: InitState) {
        let mut init = self.init.lock().unwrap_or_else(PoisonError::into_inner);
        *init = Some(state);
        self.init_changed.notify_all();
    }

    /// Blocks until `initialize` is answered or failed.
    pub(crate) fn wait_init(&self) -> InitState {
        let mut init = self.init.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            match &*init {
                Some(InitState::Pending) | None => {}
                Some(state) => return state.clone(),
            }
            init = self
                .init_changed
                .wait(init)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// The driver's ends of everything.
pub(crate) struct Driver {
    pub(crate) core: DriverCore<Waiter>,
    pub(crate) input: Receiver<Input>,
    pub(crate) commands: Option<Receiver<Command>>,
    pub(crate) events: SyncSender<Vec<Event>>,
    /// Most events in one batch on `events` (see the builder for the bound).
    pub(crate) batch: usize,
    pub(crate) shared: Arc<Shared>,
    pub(crate) child: Option<Arc<SharedChild>>,
    /// Orders for the writer thread (`None` once stdin is closed or broken).
    pub(crate) writer: Option<SyncSender<WriteOp>>,
    /// Buffers going back to the readers.
    pub(crate) stdout_ack: Option<SyncSender<Vec<u8>>>,
    pub(crate) stderr_ack: Option<SyncSender<Vec<u8>>>,
    pub(crate) pool: Pool,
    /// The writer's reusable buffer, while the writer is idle.
    pub(crate) write_buf: Option<Vec<u8>>,
    pub(crate) writer_busy: bool,
    /// A chunk read but not consumed yet (at most one per stream).
    /// Chunks read from stdout, waiting for the core (at most
    /// [`STDOUT_BUFFERS`]: the reader owns no more buffers than that).
    pub(crate) stdout_chunks: VecDeque<(Vec<u8>, usize)>,
    /// stdout ended while chunks were still waiting: report the end after
    /// them.
    pub(crate) stdout_end_pending: bool,
    pub(crate) stderr_chunk: Option<(Vec<u8>, usize)>,
    /// An event taken from the core while the event channel was full.
    pub(crate) held: Option<Vec<Event>>,
}

impl Driver {
    pub(crate) fn run(mut self) {
        loop {
            self.pump();
            if self.core.is_done() {
                break;
            }
            let interest = self.core.interest();
            if self.step(interest) {
                continue;
            }
            let now = Instant::now();
            let input = match interest.wake_at {
                Some(at) if at <= now => {
                    self.on_time(now);
                    continue;
                }
                Some(at) => match self.input.recv_timeout(at - now) {
                    Ok(input) => input,
                    Err(RecvTimeoutError::Timeout) => {
                        self.on_time(Instant::now());
                        continue;
                    }
                    Err(RecvTimeoutError::Disconnected) => break,
                },
                None => match self.input.recv() {
                    Ok(input) => input,
                    Err(_) => break,
                },
            };
            self.on_input(input);
        }
        self.finish();
    }

    /// Drains the core and performs what it asks for.
    fn pump(&mut self) {
        loop {
            self.core.pump();
            let mut answered = false;
            while let Some(action) = self.core.poll_action() {
                answered |= self.on_action(action);
            }
            // A slot may have been freed since (a handler finished).
            answered |= self.start_jobs();
            if !answered {
                return;
            }
        }
    }

    /// Performs one action; `true` if it answered the CLI (pump again).
    fn on_action(&mut self, action: Action<Waiter>) -> bool {
        match action {
            // Started at once when a slot is free, as the async adapters
            // call their handlers at once: a request withdrawn right after
            // still sees its handler called, and its token cancelled.
            Action::Run(job) => {
                self.pool.submit(job);
                return self.start_jobs();
            }
            Action::Abort(id) => self.pool.abort(id),
            // One slot, sent to once: never full. The caller may be gone.
            Action::Resolve(waiter, result) => {
                let _ = waiter.try_send(result);
            }
            Action::Initialized(state) => self.shared.publish_init(state),
            _ => {}
        }
        false
    }

    /// Starts queued jobs while slots are free; a job no thread could be
    /// started for is answered with a failure (then `true`).
    fn start_jobs(&mut self) -> bool {
        let mut answered = false;
        while let Some(failed) = self.pool.dispatch() {
            self.core.host().complete(*failed);
            answered = true;
        }
        answered
    }

    /// Does one thing that needs no waiting; `false` if there is none.
    fn step(&mut self, interest: Interest) -> bool {
        if interest.read_stdout && self.held.is_none() {
            if let Some((buf, len)) = self.stdout_chunks.pop_front() {
                self.core.on_stdout(&buf[..len]);
                give_back(&self.stdout_ack, buf);
                if self.stdout_chunks.is_empty() && self.stdout_end_pending {
                    self.stdout_end_pending = false;
                    self.core.on_stdout_end(Instant::now());
                }
                return true;
            }
        }
        if interest.read_stderr {
            if let Some((buf, len)) = self.stderr_chunk.take() {
                self.core.on_stderr(&buf[..len]);
                give_back(&self.stderr_ack, buf);
                return true;
            }
        }
        if interest.output != Output::Idle
            && !self.writer_busy
            && self.start_output(interest.output)
        {
            return true;
        }
        if self.deliver(interest) {
            return true;
        }
        if interest.take_commands {
            match self.commands.as_ref().map(Receiver::try_recv) {
                Some(Ok(command)) => {
                    self.on_command(command);
                    return true;
                }
                Some(Err(TryRecvError::Disconnected)) => {
                    self.commands = None;
                    self.core.on_commands_closed(Instant::now());
                    return true;
                }
                Some(Err(TryRecvError::Empty)) | None => {}
            }
        }
        false
    }

    /// Gives the writer thread its next order.
    fn start_output(&mut self, output: Output) -> bool {
        let Some(writer) = &self.writer else {
            self.core.on_write_error();
            return true;
        };
        let op = match output {
            Output::Write => {
                let mut buf = self.write_buf.take().unwrap_or_default();
                let bytes = self.core.unwritten();
                buf.clear();
                buf.extend_from_slice(&bytes[..bytes.len().min(WRITE_CHUNK)]);
                WriteOp::Write(buf)
            }
            Output::Flush => WriteOp::Flush,
            Output::Close => WriteOp::Close,
            _ => return false,
        };
        // The writer has at most one order at a time: never full.
        if writer.try_send(op).is_err() {
            self.writer = None;
            self.core.on_write_error();
            return true;
        }
        self.writer_busy = true;
        true
    }

    /// Hands the user the waiting events, in batches, while there is room;
    /// `true` if it did something.
    ///
    /// Batches, not single events: a consumer on another thread then wakes
    /// once per batch, and the channel's bound in events stays
    /// `capacity * batch`.
    fn deliver(&mut self, interest: Interest) -> bool {
        if !interest.deliver_events && self.held.is_none() {
            return false;
        }
        let mut delivered = false;
        loop {
            let mut batch = self.held.take().unwrap_or_default();
            while batch.len() < self.batch {
                match self.core.pop_event() {
                    Some(event) => batch.push(event),
                    None => break,
                }
            }
            if batch.is_empty() {
                return delivered;
            }
            match self.events.try_send(batch) {
                Ok(()) => delivered = true,
                Err(TrySendError::Disconnected(_)) => {
                    self.core.on_events_closed();
                    return true;
                }
                Err(TrySendError::Full(batch)) => {
                    self.held = Some(batch);
                    break;
                }
            }
        }
        let Some(batch) = self.held.take() else {
            return delivered;
        };
        // Ask for a doorbell, then look again: a consumer that took a batch
        // before the flag was up made room we can see now; one after it
        // sees the flag.
        self.shared.want_room.store(true, Ordering::SeqCst);
        match self.events.try_send(batch) {
            Ok(()) => true,
            Err(TrySendError::Full(batch)) => {
                self.held = Some(batch);
                delivered
            }
            Err(TrySendError::Disconnected(_)) => {
                self.core.on_events_closed();
                true
            }
        }
    }

    fn on_input(&mut self, input: Input) {
        let now = Instant::now();
        match input {
            Input::Read(Stream::Stdout, buf, len) => self.stdout_chunks.push_back((buf, len)),
            Input::Read(Stream::Stderr, buf, len) => self.stderr_chunk = Some((buf, len)),
            Input::ReadEnd(Stream::Stdout) if !self.stdout_chunks.is_empty() => {
                self.stdout_end_pending = true;
            }
            Input::ReadEnd(Stream::Stdout) => self.core.on_stdout_end(now),
            Input::ReadEnd(Stream::Stderr) => self.core.on_stderr_end(),
            Input::Written(buf, Ok(())) => {
                self.writer_busy = false;
                let n = buf.len();
                self.write_buf = Some(buf);
                self.core.on_written(n);
            }
            Input::Flushed(Ok(())) => {
                self.writer_busy = false;
                self.core.on_flushed();
            }
            Input::Written(_, Err(_)) | Input::Flushed(Err(_)) => {
                self.writer_busy = false;
                self.writer = None;
                self.core.on_write_error();
            }
            Input::WriterClosed => {
                self.writer_busy = false;
                self.writer = None;
                self.core.on_writer_closed();
            }
            Input::Exited(status) => self.core.on_exit(status, now),
            Input::Completed(done) => {
                self.pool.completed(done.id());
                self.core.host().complete(*done);
            }
            // Wake-ups only: the next `step` looks.
            Input::Command | Input::Room => {}
            Input::Close => self.core.request_close(now),
        }
    }

    fn on_time(&mut self, now: Instant) {
        let Some(action) = self.core.on_time(now) else {
            return;
        };
        let Some(child) = &self.child else {
            return;
        };
        let action = match action {
            ProcessAction::Terminate => match child.terminate() {
                Ok(()) => return,
                Err(_) => self.core.terminate_failed(),
            },
            other => other,
        };
        if action == ProcessAction::Kill {
            let _ = child.kill();
        }
    }

    fn on_command(&mut self, command: Command) {
        match command {
            Command::Send { message, done } => {
                let _ = done.try_send(self.core.host().send(&message));
            }
            Command::Control {
                request,
                timeout,
                done,
            } => {
                self.core
                    .host()
                    .control(&request, timeout, Instant::now(), done);
            }
            Command::EndInput => self.core.host().end_input(),
        }
    }

    /// The loop is over: settle everything still waiting, hand over the
    /// remaining events, and record the exit.
    fn finish(&mut self) {
        let report = self.core.finish();
        self.shared.exit.set(report);
        while let Some(action) = self.core.poll_action() {
            let _ = self.on_action(action);
        }
        self.pool.shut_down();
        // Commands that raced with the end get the exit, not silence.
        if let Some(commands) = self.commands.take() {
            while let Ok(command) = commands.try_recv() {
                let error = self.core.host().ended_error();
                match command {
                    Command::Send { done, .. } => {
                        let _ = done.try_send(Err(error));
                    }
                    Command::Control { done, .. } => {
                        let _ = done.try_send(Err(error));
                    }
                    Command::EndInput => {}
                }
            }
        }
        // Deliver what the user has not read yet (the last result, often):
        // this waits for the user, never for the CLI, and ends when the
        // handle is dropped or closed.
        let mut batch = self.held.take().unwrap_or_default();
        loop {
            while batch.len() < self.batch {
                match self.core.pop_event() {
                    Some(event) => batch.push(event),
                    None => break,
                }
            }
            if batch.is_empty() || self.events.send(std::mem::take(&mut batch)).is_err() {
                break;
            }
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        // Even if the loop panicked, nobody waits for initialize forever.
        let init = self
            .shared
            .init
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let pending = matches!(*init, None | Some(InitState::Pending));
        drop(init);
        if pending {
            self.shared
                .publish_init(InitState::Failed(InitFailure::Closed));
        }
        self.shared.exit.set(None);
    }
}

fn give_back(ack: &Option<SyncSender<Vec<u8>>>, buf: Vec<u8>) {
    // One buffer per reader: the slot is always free. A reader that is gone
    // does not need it.
    if let Some(ack) = ack {
        let _ = ack.try_send(buf);
    }
}

/// A job handed to a worker, with the token its abort cancels and its
/// place in the order handlers are called.
type Task = (Box<Job>, CancelToken, u64);

/// How many handlers have been called: workers call theirs in the order
/// the CLI asked, as the async adapters do (a worker can start late).
#[derive(Default)]
struct Order {
    called: Mutex<u64>,
    changed: Condvar,
}

impl Order {
    fn wait_turn(&self, place: u64) {
        let mut called = self.called.lock().unwrap_or_else(PoisonError::into_inner);
        while *called != place {
            called = self
                .changed
                .wait(called)
                .unwrap_or_else(PoisonError::into_inner);
        }
        *called += 1;
        self.changed.notify_all();
    }
}

/// The handler jobs: queued until a slot is free, then run by a worker.
pub(crate) struct Pool {
    handlers: Arc<SyncHandlers>,
    /// For the workers it starts (and so the driver's `recv` never
    /// reports a disconnect).
    input: SyncSender<Input>,
    max: usize,
    /// Jobs waiting for a slot. Bounded by the session's
    /// `Config::max_pending_incoming` (the core refuses requests past it).
    queue: VecDeque<Box<Job>>,
    /// Jobs handed to a worker and not completed, with their tokens.
    running: HashMap<IncomingId, CancelToken>,
    workers: usize,
    /// Jobs for the workers: capacity `max`, and at most `max` are ever
    /// handed over and not finished, so sending never blocks.
    jobs: Option<SyncSender<Task>>,
    jobs_rx: Arc<Mutex<Receiver<Task>>>,
    /// Places handed out so far.
    handed: u64,
    order: Arc<Order>,
}

impl Pool {
    pub(crate) fn new(handlers: SyncHandlers, input: SyncSender<Input>, max: usize) -> Self {
        let max = max.max(1);
        let (jobs, jobs_rx) = sync_channel(max);
        Self {
            handlers: Arc::new(handlers),
            input,
            max,
            queue: VecDeque::new(),
            running: HashMap::new(),
            workers: 0,
            jobs: Some(jobs),
            jobs_rx: Arc::new(Mutex::new(jobs_rx)),
            handed: 0,
            order: Arc::default(),
        }
    }

    fn submit(&mut self, job: Box<Job>) {
        self.queue.push_back(job);
    }

    /// The CLI withdrew the request: a queued job is dropped; a running
    /// one is told through its token, and its answer will be dropped.
    fn abort(&mut self, id: IncomingId) {
        if let Some(at) = self.queue.iter().position(|job| job.id == id) {
            self.queue.remove(at);
        } else if let Some(token) = self.running.get(&id) {
            token.cancel();
        }
    }

    fn completed(&mut self, id: IncomingId) {
        self.running.remove(&id);
    }

    /// Starts queued jobs while slots are free. Returns the failure answer
    /// of a job no thread could be started for.
    fn dispatch(&mut self) -> Option<Box<Completion>> {
        while self.running.len() < self.max {
            self.jobs.as_ref()?;
            let job = self.queue.pop_front()?;
            if self.workers == self.running.len() && !self.start_worker() {
                let message = "could not start a handler thread".to_owned();
                return Some(Box::new((*job).finish(Err(message))));
            }
            let token = CancelToken::new();
            self.running.insert(job.id, token.clone());
            if let Some(jobs) = &self.jobs {
                let _ = jobs.try_send((job, token, self.handed));
                self.handed += 1;
            }
        }
        None
    }

    fn start_worker(&mut self) -> bool {
        let jobs = self.jobs_rx.clone();
        let handlers = self.handlers.clone();
        let input = self.input.clone();
        let order = self.order.clone();
        let started = std::thread::Builder::new()
            .name("claude-handler".into())
            .spawn(move || {
                loop {
                    let next = jobs.lock().unwrap_or_else(PoisonError::into_inner).recv();
                    let Ok((job, token, place)) = next else {
                        return;
                    };
                    order.wait_turn(place);
                    let result = handlers.run(&job, &token);
                    let done = (*job).finish(result);
                    if input.send(Input::Completed(Box::new(done))).is_err() {
                        return;
                    }
                }
            });
        self.workers += usize::from(started.is_ok());
        started.is_ok()
    }

    /// The session is over: tell running handlers, drop queued jobs, and
    /// let idle workers exit.
    fn shut_down(&mut self) {
        for token in self.running.values() {
            token.cancel();
        }
        self.queue.clear();
        self.jobs = None;
    }
}

/// An order for the writer thread.
pub(crate) enum WriteOp {
    Write(Vec<u8>),
    Flush,
    Close,
}

/// Writes, flushes and closes the CLI's stdin as the driver orders.
pub(crate) fn writer_loop(
    mut writer: Box<dyn Write + Send>,
    orders: Receiver<WriteOp>,
    input: SyncSender<Input>,
) {
    for order in orders {
        let done = match order {
            WriteOp::Write(buf) => {
                let result = writer.write_all(&buf);
                Input::Written(buf, result)
            }
            WriteOp::Flush => Input::Flushed(writer.flush()),
            WriteOp::Close => {
                // Dropping the pipe is what closes it.
                drop(writer);
                let _ = input.send(Input::WriterClosed);
                return;
            }
        };
        if input.send(done).is_err() {
            return;
        }
    }
}

/// Reads `stream` a chunk at a time; the next read waits until the driver
/// has handed the previous buffer back.
pub(crate) fn reader_loop(
    mut reader: Box<dyn Read + Send>,
    stream: Stream,
    size: usize,
    input: SyncSender<Input>,
    returned: Receiver<Vec<u8>>,
) {
    // Two buffers for stdout: the reader fills one while the driver
    // decodes the other, so reading and decoding overlap; at most two
    // chunks are ever read ahead of the core.
    let count = match stream {
        Stream::Stdout => STDOUT_BUFFERS,
        Stream::Stderr => 1,
    };
    let mut spare: Vec<Vec<u8>> = (0..count).map(|_| vec![0u8; size]).collect();
    loop {
        let mut buf = match spare.pop() {
            Some(buf) => buf,
            None => match returned.recv() {
                Ok(buf) => buf,
                Err(_) => return,
            },
        };
        let len = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(len) => len,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        if input.send(Input::Read(stream, buf, len)).is_err() {
            return;
        }
    }
    let _ = input.send(Input::ReadEnd(stream));
}

/// Buffers the stdout reader owns (see `reader_loop`).
pub(crate) const STDOUT_BUFFERS: usize = 2;

/// The chunk size of each stream.
pub(crate) fn chunk_size(stream: Stream) -> usize {
    match stream {
        Stream::Stdout => READ_CHUNK,
        Stream::Stderr => STDERR_CHUNK,
    }
}

/// Reports the child's exit.
pub(crate) fn wait_loop(child: Arc<SharedChild>, input: SyncSender<Input>) {
    let _ = input.send(Input::Exited(child.wait()));
}

/// The input channel.
pub(crate) fn input_channel() -> (SyncSender<Input>, Receiver<Input>) {
    sync_channel(INPUT_CAPACITY)
}
