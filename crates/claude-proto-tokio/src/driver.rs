//! The one task that owns a session: stdout, stdin, stderr, timers, user
//! commands and handler answers all meet in a single `select!` loop.
//!
//! Only the tokio glue lives here; what to answer, who waits for what and
//! how things settle at exit is the shared [`Host`].
//!
//! Shape of the loop (quinn/str0m style): drain the host (bytes to write,
//! then actions), check the deadline by hand, then wait for whichever input
//! is ready. The `select!` only yields a [`Wake`]; handling happens after
//! every pending future is dropped. Every wait is cancel-safe: writes go out
//! from a buffer with an offset, reads land in a buffer handed to the core
//! whole. Backpressure: stdout is read only once the events of the previous
//! read have been handed to the user, and commands are taken only while the
//! stdin backlog is small.

use std::collections::HashMap;
use std::pin::Pin;
use std::process::ExitStatus;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use claude_proto::model::control::ControlRequest;
use claude_proto::model::user::UserMessage;
use claude_proto::{ControlSuccess, IncomingId};
use claude_proto_process::handlers::AsyncHandlers;
use claude_proto_process::host::{
    Action, Completion, Host, InitState, ShutdownSequence, ShutdownStep,
};
use claude_proto_process::{Error, Event, ExitReport, StderrTail, terminate};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::process::Child;
use tokio::sync::{Notify, Semaphore, mpsc, oneshot, watch};
use tokio::task::AbortHandle;
use tokio::time::{Instant, Sleep, sleep_until};

use crate::log;

/// Bytes read from stdout at a time.
const READ_CHUNK: usize = 64 * 1024;
/// Stop taking commands while this much is still waiting to be written.
const WRITE_HIGH_WATER: usize = 1024 * 1024;
/// How long to wait for the output pipes to close after the process exited
/// (a grandchild can hold them open).
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(200);

pub(crate) type BoxRead = Pin<Box<dyn AsyncRead + Send>>;
pub(crate) type BoxWrite = Pin<Box<dyn AsyncWrite + Send>>;
type Waiter = oneshot::Sender<Result<ControlSuccess, Error>>;

/// A request from the handle to the driver.
pub(crate) enum Command {
    Send {
        message: Box<UserMessage>,
        done: oneshot::Sender<Result<(), Error>>,
    },
    Control {
        request: Box<ControlRequest>,
        timeout: Option<Duration>,
        done: Waiter,
    },
    /// Close stdin once everything queued is written.
    EndInput,
}

/// State shared between the handle and the driver.
#[derive(Debug)]
pub(crate) struct Shared {
    /// Set once, when the process has exited (or the transport ended).
    pub(crate) exit: OnceLock<Option<ExitReport>>,
    /// Asks the driver to close (by `close()` or by dropping the handle).
    pub(crate) close: Notify,
}

impl Shared {
    /// The error for an operation on a session that has ended.
    pub(crate) fn ended_error(&self) -> Error {
        match self.exit.get() {
            Some(Some(report)) => Error::Exited(report.clone()),
            _ => Error::Closed,
        }
    }
}

pub(crate) struct DriverParts {
    pub(crate) host: Host<Waiter>,
    pub(crate) handlers: Arc<AsyncHandlers>,
    pub(crate) reader: BoxRead,
    pub(crate) writer: BoxWrite,
    pub(crate) stderr: Option<BoxRead>,
    pub(crate) child: Option<Child>,
    pub(crate) commands: mpsc::Receiver<Command>,
    pub(crate) events: mpsc::Sender<Event>,
    pub(crate) init: watch::Sender<InitState>,
    pub(crate) shared: Arc<Shared>,
    pub(crate) shutdown: ShutdownSequence,
    pub(crate) max_concurrent_handlers: usize,
    pub(crate) stderr_tail: StderrTail,
}

pub(crate) struct Driver {
    host: Host<Waiter>,
    handlers: Arc<AsyncHandlers>,
    reader: Option<BoxRead>,
    writer: Option<BoxWrite>,
    stderr: Option<BoxRead>,
    child: Option<Child>,
    status: Option<ExitStatus>,
    commands: mpsc::Receiver<Command>,
    commands_open: bool,
    events: mpsc::Sender<Event>,
    events_open: bool,
    init: watch::Sender<InitState>,
    shared: Arc<Shared>,
    running: HashMap<IncomingId, AbortHandle>,
    semaphore: Arc<Semaphore>,
    completion_tx: mpsc::Sender<Completion>,
    completion_rx: mpsc::Receiver<Completion>,
    write_buf: Vec<u8>,
    write_pos: usize,
    needs_flush: bool,
    read_buf: Vec<u8>,
    err_buf: Vec<u8>,
    stderr_tail: StderrTail,
    timer: Pin<Box<Sleep>>,
    timer_deadline: Option<std::time::Instant>,
    shutdown: ShutdownSequence,
    shutdown_timer: Pin<Box<Sleep>>,
    shutdown_armed: bool,
    drain_deadline: Option<Instant>,
}

/// What woke the driver.
enum Wake {
    Completed(Option<Box<Completion>>),
    ShutdownTimer,
    CloseRequested,
    DrainExpired,
    Exited(std::io::Result<ExitStatus>),
    Output(Output, std::io::Result<usize>),
    Delivered,
    EventsClosed,
    Command(Option<Command>),
    Stdout(std::io::Result<usize>),
    Stderr(std::io::Result<usize>),
    Timer,
}

/// The one thing to do with stdin next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Output {
    Idle,
    Write,
    Flush,
    Shutdown,
}

impl Driver {
    pub(crate) fn new(parts: DriverParts) -> Self {
        let capacity = parts.max_concurrent_handlers.max(1);
        let (completion_tx, completion_rx) = mpsc::channel(capacity);
        let now = Instant::now();
        Self {
            host: parts.host,
            handlers: parts.handlers,
            reader: Some(parts.reader),
            writer: Some(parts.writer),
            stderr: parts.stderr,
            child: parts.child,
            status: None,
            commands: parts.commands,
            commands_open: true,
            events: parts.events,
            events_open: true,
            init: parts.init,
            shared: parts.shared,
            running: HashMap::new(),
            semaphore: Arc::new(Semaphore::new(capacity)),
            completion_tx,
            completion_rx,
            write_buf: Vec::new(),
            write_pos: 0,
            needs_flush: false,
            read_buf: vec![0; READ_CHUNK],
            err_buf: vec![0; 8 * 1024],
            stderr_tail: parts.stderr_tail,
            timer: Box::pin(sleep_until(now)),
            timer_deadline: None,
            shutdown: parts.shutdown,
            shutdown_timer: Box::pin(sleep_until(now)),
            shutdown_armed: false,
            drain_deadline: None,
        }
    }

    pub(crate) async fn run(mut self) {
        loop {
            self.pump();
            if self.is_done() {
                break;
            }
            let deadline = self.host.session().poll_timeout();
            if let Some(deadline) = deadline {
                // Never trust the timer alone: an overdue deadline is handled
                // now, whatever the runtime's budget does to the sleep.
                let now = Instant::now().into_std();
                if now >= deadline {
                    self.host.session().handle_timeout(now);
                    continue;
                }
                if self.timer_deadline != Some(deadline) {
                    self.timer.as_mut().reset(Instant::from_std(deadline));
                    self.timer_deadline = Some(deadline);
                }
            }
            let wake = self.wait(deadline.is_some()).await;
            self.on_wake(wake);
        }
        self.finish().await;
    }

    /// Drains the host: bytes to write, then the actions it asks for.
    fn pump(&mut self) {
        if self.write_pos == self.write_buf.len() {
            self.write_buf.clear();
            self.write_pos = 0;
        }
        self.host.pump(&mut self.write_buf);
        while let Some(action) = self.host.poll_action() {
            match action {
                Action::Run(job) => {
                    let future = self.handlers.run(&job);
                    let tx = self.completion_tx.clone();
                    let semaphore = self.semaphore.clone();
                    let id = job.id;
                    let task = tokio::spawn(async move {
                        let Ok(_permit) = semaphore.acquire_owned().await else {
                            return;
                        };
                        let result = future.await;
                        let _ = tx.send((*job).finish(result)).await;
                    });
                    self.running.insert(id, task.abort_handle());
                }
                Action::Abort(id) => {
                    if let Some(task) = self.running.remove(&id) {
                        task.abort();
                    }
                }
                Action::Resolve(waiter, result) => {
                    // The caller may have stopped waiting; that is fine.
                    let _ = waiter.send(result);
                }
                Action::Initialized(state) => {
                    self.init.send_replace(state);
                }
                _ => {}
            }
        }
    }

    async fn wait(&mut self, timer_armed: bool) -> Wake {
        let unwritten = self.write_buf.len() - self.write_pos;
        let output = match &self.writer {
            None => Output::Idle,
            Some(_) if unwritten > 0 => Output::Write,
            Some(_) if self.needs_flush => Output::Flush,
            Some(_) if self.host.session().is_input_closed() => Output::Shutdown,
            Some(_) => Output::Idle,
        };
        let can_read = self.reader.is_some() && !self.host.has_events();
        let can_command = self.commands_open && unwritten < WRITE_HIGH_WATER;
        let can_deliver = self.events_open && self.host.has_events();
        let drain_deadline = self.drain_deadline;
        let waiting_for_exit = self.status.is_none() && self.child.is_some();
        let close_requested = !self.shutdown.started();

        tokio::select! {
            biased;
            done = self.completion_rx.recv() => Wake::Completed(done.map(Box::new)),
            _ = &mut self.shutdown_timer, if self.shutdown_armed => Wake::ShutdownTimer,
            _ = self.shared.close.notified(), if close_requested => Wake::CloseRequested,
            _ = sleep_until_opt(drain_deadline), if drain_deadline.is_some() => Wake::DrainExpired,
            status = wait_child(self.child.as_mut()), if waiting_for_exit => Wake::Exited(status),
            done = output_step(self.writer.as_mut(), &self.write_buf[self.write_pos..], output), if output != Output::Idle => Wake::Output(output, done),
            permit = self.events.reserve(), if can_deliver => match permit {
                Ok(permit) => {
                    if let Some(event) = self.host.pop_event() {
                        log::event(&event);
                        permit.send(event);
                    }
                    Wake::Delivered
                }
                Err(_) => Wake::EventsClosed,
            },
            command = self.commands.recv(), if can_command => Wake::Command(command),
            read = read_some(self.reader.as_mut(), &mut self.read_buf), if can_read => Wake::Stdout(read),
            read = read_some(self.stderr.as_mut(), &mut self.err_buf), if self.stderr.is_some() => Wake::Stderr(read),
            _ = &mut self.timer, if timer_armed => Wake::Timer,
        }
    }

    fn on_wake(&mut self, wake: Wake) {
        match wake {
            Wake::Completed(Some(done)) => {
                self.running.remove(&done.id());
                self.host.complete(*done);
            }
            // The driver holds a sender itself, so this never ends.
            Wake::Completed(None) | Wake::Delivered => {}
            Wake::ShutdownTimer => self.advance_shutdown(),
            Wake::CloseRequested => self.begin_shutdown(),
            Wake::DrainExpired => {
                // The process is gone but a pipe stays open: stop waiting.
                self.reader = None;
                self.stderr = None;
            }
            Wake::Exited(status) => self.on_exit(status),
            Wake::Output(Output::Write, Ok(0) | Err(_)) | Wake::Output(Output::Flush, Err(_)) => {
                self.on_writer_broken();
            }
            Wake::Output(Output::Write, Ok(n)) => {
                self.write_pos += n;
                if self.write_pos == self.write_buf.len() {
                    self.write_buf.clear();
                    self.write_pos = 0;
                    self.needs_flush = true;
                }
            }
            Wake::Output(Output::Flush, Ok(_)) => self.needs_flush = false,
            Wake::Output(Output::Shutdown | Output::Idle, _) => self.writer = None,
            Wake::EventsClosed => {
                // Nobody listens any more; keep reading so the CLI is never
                // blocked, but stop queueing.
                self.events_open = false;
                self.host.discard_events();
            }
            Wake::Command(Some(command)) => self.on_command(command),
            Wake::Command(None) => {
                // The handle was dropped: close as if asked to.
                self.commands_open = false;
                self.begin_shutdown();
            }
            Wake::Stdout(Ok(0) | Err(_)) => self.on_stdout_closed(),
            Wake::Stdout(Ok(n)) => self.host.session().handle_input(&self.read_buf[..n]),
            Wake::Stderr(Ok(0) | Err(_)) => {
                self.stderr_tail.finish();
                self.stderr = None;
            }
            Wake::Stderr(Ok(n)) => self.stderr_tail.push(&self.err_buf[..n]),
            Wake::Timer => self
                .host
                .session()
                .handle_timeout(Instant::now().into_std()),
        }
    }

    fn on_command(&mut self, command: Command) {
        match command {
            Command::Send { message, done } => {
                let _ = done.send(self.host.send(&message));
            }
            Command::Control {
                request,
                timeout,
                done,
            } => {
                let now = Instant::now().into_std();
                self.host.control(&request, timeout, now, done);
            }
            Command::EndInput => self.host.end_input(),
        }
    }

    fn on_writer_broken(&mut self) {
        // The CLI closed its stdin (it is exiting): nothing more can be
        // written. What was queued is lost; requests fail at end of output.
        self.writer = None;
        self.write_buf.clear();
        self.write_pos = 0;
        self.needs_flush = false;
        self.host.end_input();
    }

    fn on_stdout_closed(&mut self) {
        self.reader = None;
        if self.child.is_some() && self.status.is_none() {
            // The CLI can no longer talk to us; make sure it ends.
            self.begin_shutdown();
        }
    }

    fn on_exit(&mut self, status: std::io::Result<ExitStatus>) {
        match status {
            Ok(status) => {
                log::debug(format_args!("CLI exited: {status}"));
                self.status = Some(status);
            }
            Err(e) => {
                log::warn(format_args!("waiting for the CLI failed: {e}"));
                self.child = None;
            }
        }
        self.shutdown_armed = false;
        if self.reader.is_some() || self.stderr.is_some() {
            self.drain_deadline = Some(Instant::now() + DRAIN_AFTER_EXIT);
        }
    }

    fn begin_shutdown(&mut self) {
        if let Some(grace) = self.shutdown.begin() {
            self.host.end_input();
            self.arm_shutdown(grace);
        }
    }

    fn arm_shutdown(&mut self, after: Duration) {
        self.shutdown_timer.as_mut().reset(Instant::now() + after);
        self.shutdown_armed = true;
    }

    fn advance_shutdown(&mut self) {
        self.shutdown_armed = false;
        let Some(child) = self.child.as_mut().filter(|_| self.status.is_none()) else {
            // A transport without a process: stop once the grace is over.
            self.reader = None;
            self.stderr = None;
            return;
        };
        let mut step = self.shutdown.on_deadline();
        if let ShutdownStep::Terminate(grace) = step {
            match child.id().map(terminate) {
                Some(Ok(())) => {
                    log::debug(format_args!("CLI still running after close; sent SIGTERM"));
                    self.arm_shutdown(grace);
                    return;
                }
                _ => step = self.shutdown.terminate_failed(),
            }
        }
        if step == ShutdownStep::Kill {
            log::debug(format_args!("CLI did not exit; killing it"));
            let _ = child.start_kill();
        }
    }

    fn is_done(&self) -> bool {
        let process_done = self.child.is_none() || self.status.is_some();
        self.reader.is_none() && self.stderr.is_none() && process_done
    }

    /// The process is gone: settle everything still waiting, hand over the
    /// remaining events, and record the exit.
    async fn finish(mut self) {
        let report = self
            .status
            .map(|status| ExitReport::new(status, self.stderr_tail.text()));
        let _ = self.shared.exit.set(report.clone());
        self.host.finish(report, &mut self.write_buf);
        self.pump();
        for (_, task) in self.running.drain() {
            task.abort();
        }
        // Commands that raced with the end get the exit, not silence.
        self.commands.close();
        while let Ok(command) = self.commands.try_recv() {
            match command {
                Command::Send { done, .. } => {
                    let _ = done.send(Err(self.host.ended_error()));
                }
                Command::Control { done, .. } => {
                    let _ = done.send(Err(self.host.ended_error()));
                }
                Command::EndInput => {}
            }
        }
        // Deliver what the user has not read yet (the last result, often);
        // this waits for the user, never for the CLI.
        while let Some(event) = self.host.pop_event() {
            if !self.events_open || self.events.send(event).await.is_err() {
                break;
            }
        }
    }
}

/// Writes (part of) `bytes`, flushes, or shuts the writer down. Each is
/// cancel-safe: a write either happened (and is counted) or did not.
async fn output_step(
    writer: Option<&mut BoxWrite>,
    bytes: &[u8],
    output: Output,
) -> std::io::Result<usize> {
    match (writer, output) {
        (Some(writer), Output::Write) => writer.write(bytes).await,
        (Some(writer), Output::Flush) => writer.flush().await.map(|()| 0),
        (Some(writer), Output::Shutdown) => writer.shutdown().await.map(|()| 0),
        _ => std::future::pending().await,
    }
}

async fn read_some(reader: Option<&mut BoxRead>, buf: &mut [u8]) -> std::io::Result<usize> {
    match reader {
        Some(reader) => reader.read(buf).await,
        None => std::future::pending().await,
    }
}

async fn wait_child(child: Option<&mut Child>) -> std::io::Result<ExitStatus> {
    match child {
        Some(child) => child.wait().await,
        None => std::future::pending().await,
    }
}

async fn sleep_until_opt(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}
