//! The one task that owns a session: stdout, stdin, stderr, timers, user
//! commands and handler answers all meet in a single `select!` loop.
//!
//! Shape of the loop (quinn/str0m style): drain the core's outputs (bytes to
//! write, then events), check the deadline by hand, then wait for whichever
//! input is ready. Every wait is cancel-safe: writes go out from a buffer
//! with an offset, reads land in a buffer that is handed to the core whole.
//! Backpressure: stdout is read only when the events from the previous read
//! have all been handed to the user, and commands are taken only while the
//! stdin backlog is small, so no queue grows with the CLI's or the user's
//! speed.

use std::collections::{HashMap, VecDeque};
use std::pin::Pin;
use std::process::ExitStatus;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use claude_proto::dispatch::{
    McpRoute, reply_for_failure, reply_without_handler, route_mcp, tool_call_response,
};
use claude_proto::model::control::ControlRequest;
use claude_proto::model::hooks::HookOutput;
use claude_proto::model::incoming::{CliRequest, McpMessageResponse};
use claude_proto::model::initialize::{InitializeRequest, InitializeResponse};
use claude_proto::model::permission::PermissionResult;
use claude_proto::model::user::UserMessage;
use claude_proto::{
    ControlError, ControlOutcome, ControlSuccess, Event as CoreEvent, IncomingId, IncomingRequest,
    Reply, RequestId, Session,
};
use claude_proto_process::{
    CatchUnwind, Error, ExitReport, ShutdownPolicy, StderrTail, panic_message, terminate,
};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::process::Child;
use tokio::sync::{Notify, Semaphore, mpsc, oneshot, watch};
use tokio::task::AbortHandle;
use tokio::time::{Instant, Sleep, sleep_until};

use crate::event::Event;
use crate::handlers::{HandlerError, Handlers};
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

/// A request from the handle to the driver.
pub(crate) enum Command {
    Send {
        message: Box<UserMessage>,
        done: oneshot::Sender<Result<(), Error>>,
    },
    Control {
        request: Box<ControlRequest>,
        timeout: Option<Duration>,
        done: oneshot::Sender<Result<ControlSuccess, Error>>,
    },
    /// Close stdin once everything queued is written.
    EndInput,
}

/// Where the `initialize` exchange stands.
#[derive(Debug, Clone)]
pub(crate) enum InitState {
    Pending,
    Ready(Arc<InitializeResponse>),
    Failed(InitFailure),
}

/// Why `initialize` did not succeed (cloneable, unlike [`Error`]).
#[derive(Debug, Clone)]
pub(crate) enum InitFailure {
    Control(ControlError),
    Exited(ExitReport),
    Decode(String),
    Closed,
}

impl InitFailure {
    pub(crate) fn into_error(self) -> Error {
        match self {
            InitFailure::Control(e) => Error::Control(e),
            InitFailure::Exited(r) => Error::Exited(r),
            InitFailure::Decode(m) => Error::Io(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("the CLI's initialize answer could not be read: {m}"),
            )),
            InitFailure::Closed => Error::Closed,
        }
    }
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

/// What a finished handler wants to answer.
enum Answer {
    Permission(PermissionResult),
    Hook(HookOutput),
    Mcp(McpMessageResponse),
    Failed { reply: Reply, message: String },
}

struct HandlerDone {
    id: IncomingId,
    subtype: String,
    answer: Answer,
}

/// Where the close sequence stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shutdown {
    Running,
    /// stdin closed; waiting for the CLI to exit by itself.
    Grace,
    /// SIGTERM sent.
    Terminated,
    /// SIGKILL sent; waiting to reap.
    Killed,
}

pub(crate) struct DriverParts {
    pub(crate) session: Session,
    pub(crate) reader: BoxRead,
    pub(crate) writer: BoxWrite,
    pub(crate) stderr: Option<BoxRead>,
    pub(crate) child: Option<Child>,
    pub(crate) handlers: Arc<Handlers>,
    pub(crate) commands: mpsc::Receiver<Command>,
    pub(crate) events: mpsc::Sender<Event>,
    pub(crate) init: watch::Sender<InitState>,
    pub(crate) shared: Arc<Shared>,
    pub(crate) initialize: InitializeRequest,
    pub(crate) init_timeout: Option<Duration>,
    pub(crate) shutdown: ShutdownPolicy,
    pub(crate) max_concurrent_handlers: usize,
    pub(crate) stderr_tail: StderrTail,
}

pub(crate) struct Driver {
    session: Session,
    reader: Option<BoxRead>,
    writer: Option<BoxWrite>,
    stderr: Option<BoxRead>,
    child: Option<Child>,
    status: Option<ExitStatus>,
    handlers: Arc<Handlers>,
    commands: mpsc::Receiver<Command>,
    commands_open: bool,
    events: mpsc::Sender<Event>,
    events_open: bool,
    pending_events: VecDeque<Event>,
    init: watch::Sender<InitState>,
    init_id: Option<RequestId>,
    shared: Arc<Shared>,
    waiting: HashMap<RequestId, oneshot::Sender<Result<ControlSuccess, Error>>>,
    running: HashMap<IncomingId, AbortHandle>,
    semaphore: Arc<Semaphore>,
    handler_tx: mpsc::Sender<HandlerDone>,
    handler_rx: mpsc::Receiver<HandlerDone>,
    write_buf: Vec<u8>,
    write_pos: usize,
    needs_flush: bool,
    close_writer: bool,
    read_buf: Vec<u8>,
    err_buf: Vec<u8>,
    stderr_tail: StderrTail,
    timer: Pin<Box<Sleep>>,
    timer_deadline: Option<std::time::Instant>,
    shutdown: Shutdown,
    shutdown_policy: ShutdownPolicy,
    shutdown_timer: Pin<Box<Sleep>>,
    shutdown_armed: bool,
    drain_deadline: Option<Instant>,
}

impl Driver {
    pub(crate) fn new(parts: DriverParts) -> Self {
        let DriverParts {
            mut session,
            reader,
            writer,
            stderr,
            child,
            handlers,
            commands,
            events,
            init,
            shared,
            initialize,
            init_timeout,
            shutdown,
            max_concurrent_handlers,
            stderr_tail,
        } = parts;
        let now = Instant::now();
        let init_id = match session.initialize(&initialize, init_timeout, now.into_std()) {
            Ok(id) => Some(id),
            Err(e) => {
                // A fresh session always accepts initialize; keep the
                // failure visible rather than asserting.
                init.send_replace(InitState::Failed(InitFailure::Decode(e.to_string())));
                None
            }
        };
        let capacity = max_concurrent_handlers.max(1);
        let (handler_tx, handler_rx) = mpsc::channel(capacity);
        Self {
            session,
            reader: Some(reader),
            writer: Some(writer),
            stderr,
            child,
            status: None,
            handlers,
            commands,
            commands_open: true,
            events,
            events_open: true,
            pending_events: VecDeque::new(),
            init,
            init_id,
            shared,
            waiting: HashMap::new(),
            running: HashMap::new(),
            semaphore: Arc::new(Semaphore::new(capacity)),
            handler_tx,
            handler_rx,
            write_buf: Vec::new(),
            write_pos: 0,
            needs_flush: false,
            close_writer: false,
            read_buf: vec![0; READ_CHUNK],
            err_buf: vec![0; 8 * 1024],
            stderr_tail,
            timer: Box::pin(sleep_until(now)),
            timer_deadline: None,
            shutdown: Shutdown::Running,
            shutdown_policy: shutdown,
            shutdown_timer: Box::pin(sleep_until(now)),
            shutdown_armed: false,
            drain_deadline: None,
        }
    }

    pub(crate) async fn run(mut self) {
        loop {
            self.pump_core();
            if self.is_done() {
                break;
            }
            let deadline = self.session.poll_timeout();
            if let Some(deadline) = deadline {
                // Never trust the timer alone: an overdue deadline is handled
                // now, whatever the runtime's budget does to the sleep.
                let now = Instant::now().into_std();
                if now >= deadline {
                    self.session.handle_timeout(now);
                    continue;
                }
                if self.timer_deadline != Some(deadline) {
                    self.timer.as_mut().reset(Instant::from_std(deadline));
                    self.timer_deadline = Some(deadline);
                }
            }
            self.step(deadline.is_some()).await;
        }
        self.finish().await;
    }

    /// One wait for whichever input is ready, then its handling. The wait
    /// only produces a [`Wake`]; handling happens after every pending
    /// future has been dropped.
    async fn step(&mut self, timer_armed: bool) {
        let wake = self.wait(timer_armed).await;
        self.on_wake(wake);
    }

    async fn wait(&mut self, timer_armed: bool) -> Wake {
        let unwritten = self.write_buf.len() - self.write_pos;
        let output = match &self.writer {
            None => Output::Idle,
            Some(_) if unwritten > 0 => Output::Write,
            Some(_) if self.needs_flush => Output::Flush,
            Some(_) if self.close_writer => Output::Shutdown,
            Some(_) => Output::Idle,
        };
        let can_read = self.reader.is_some() && self.pending_events.is_empty();
        let can_command = self.commands_open && unwritten < WRITE_HIGH_WATER;
        let can_deliver = self.events_open && !self.pending_events.is_empty();
        let drain_deadline = self.drain_deadline;
        let waiting_for_exit = self.status.is_none() && self.child.is_some();
        let close_requested = self.shutdown == Shutdown::Running;

        tokio::select! {
            biased;
            done = self.handler_rx.recv() => Wake::HandlerDone(done.map(Box::new)),
            _ = &mut self.shutdown_timer, if self.shutdown_armed => Wake::ShutdownTimer,
            _ = self.shared.close.notified(), if close_requested => Wake::CloseRequested,
            _ = sleep_until_opt(drain_deadline), if drain_deadline.is_some() => Wake::DrainExpired,
            status = wait_child(self.child.as_mut()), if waiting_for_exit => Wake::Exited(status),
            done = output_step(self.writer.as_mut(), &self.write_buf[self.write_pos..], output), if output != Output::Idle => Wake::Output(output, done),
            permit = self.events.reserve(), if can_deliver => match permit {
                Ok(permit) => {
                    if let Some(event) = self.pending_events.pop_front() {
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
            Wake::HandlerDone(Some(done)) => self.finish_handler(*done),
            // The driver holds a sender itself, so this never ends.
            Wake::HandlerDone(None) | Wake::Delivered => {}
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
                self.pending_events.clear();
            }
            Wake::Command(Some(command)) => self.on_command(command),
            Wake::Command(None) => {
                // The handle was dropped: close as if asked to.
                self.commands_open = false;
                self.begin_shutdown();
            }
            Wake::Stdout(Ok(0) | Err(_)) => self.on_stdout_closed(),
            Wake::Stdout(Ok(n)) => self.session.handle_input(&self.read_buf[..n]),
            Wake::Stderr(Ok(0) | Err(_)) => {
                self.stderr_tail.finish();
                self.stderr = None;
            }
            Wake::Stderr(Ok(n)) => self.stderr_tail.push(&self.err_buf[..n]),
            Wake::Timer => self.session.handle_timeout(Instant::now().into_std()),
        }
    }

    /// Drains the core: bytes to write first, then events (whose handling
    /// may queue more bytes), until both are empty.
    fn pump_core(&mut self) {
        loop {
            if self.write_pos == self.write_buf.len() {
                self.write_buf.clear();
                self.write_pos = 0;
            }
            self.session.poll_transmit(&mut self.write_buf);
            let Some(event) = self.session.poll_event() else {
                break;
            };
            self.on_core_event(event);
        }
    }

    fn on_core_event(&mut self, event: CoreEvent) {
        match event {
            CoreEvent::Message(message) => self.emit(Event::Message(message)),
            CoreEvent::Request(request) => self.start_handler(request),
            CoreEvent::RequestCancelled { id, .. } => {
                if let Some(handle) = self.running.remove(&id) {
                    handle.abort();
                }
            }
            CoreEvent::Response(outcome) => self.on_outcome(outcome),
            CoreEvent::ProtocolError(error) => {
                log::warn(format_args!("{error}"));
                self.emit(Event::ProtocolError(error));
            }
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

    fn emit(&mut self, event: Event) {
        if self.events_open {
            self.pending_events.push_back(event);
        }
    }

    fn on_outcome(&mut self, outcome: ControlOutcome) {
        let report = self.shared.exit.get().cloned().flatten();
        if Some(outcome.id) == self.init_id {
            let state = match outcome.result {
                Ok(success) => match success.decode::<InitializeResponse>() {
                    Ok(response) => InitState::Ready(Arc::new(response)),
                    Err(e) => InitState::Failed(InitFailure::Decode(e.to_string())),
                },
                Err(ControlError::OutputEnded { .. }) => match report {
                    Some(report) => InitState::Failed(InitFailure::Exited(report)),
                    None => InitState::Failed(InitFailure::Closed),
                },
                Err(e) => InitState::Failed(InitFailure::Control(e)),
            };
            self.init.send_replace(state);
            return;
        }
        if let Some(done) = self.waiting.remove(&outcome.id) {
            let result = outcome.result.map_err(|e| match (e, report) {
                (ControlError::OutputEnded { .. }, Some(report)) => Error::Exited(report),
                (e, _) => Error::Control(e),
            });
            // The caller may have given up waiting; that is fine.
            let _ = done.send(result);
        }
    }

    fn on_command(&mut self, command: Command) {
        match command {
            Command::Send { message, done } => {
                let result = self
                    .session
                    .send_user_message(&message)
                    .map_err(Error::Send);
                let _ = done.send(result);
            }
            Command::Control {
                request,
                timeout,
                done,
            } => {
                let now = Instant::now().into_std();
                match self.session.send_control(&request, timeout, now) {
                    Ok(id) => {
                        self.waiting.insert(id, done);
                    }
                    Err(e) => {
                        let _ = done.send(Err(Error::Send(e)));
                    }
                }
            }
            Command::EndInput => {
                self.session.close_input();
                self.close_writer = true;
            }
        }
    }

    fn start_handler(&mut self, request: IncomingRequest) {
        let subtype = request.subtype().to_owned();
        let (id, request) = request.into_parts();
        let handlers = self.handlers.clone();
        match &request {
            CliRequest::CanUseTool(ask) => match &handlers.permission {
                Some(handler) => {
                    let fut = handler(ask.clone());
                    self.spawn_handler(id, subtype, request, fut, Answer::Permission);
                }
                None => self.respond(id, reply_without_handler(&request)),
            },
            CliRequest::HookCallback(call) => {
                let hook = handlers
                    .hooks
                    .resolve(&call.callback_id)
                    .and_then(|key| handlers.hook(key));
                match hook {
                    Some(hook) => {
                        let fut = hook(call.input.clone(), call.tool_use_id.clone());
                        self.spawn_handler(id, subtype, request, fut, Answer::Hook);
                    }
                    None => self.respond(id, reply_without_handler(&request)),
                }
            }
            CliRequest::McpMessage(message) => match route_mcp(&handlers.mcp_specs, message) {
                McpRoute::Respond(response) => {
                    let _ = self.session.respond_mcp(id, &response);
                }
                McpRoute::CallTool {
                    server,
                    tool,
                    id: rpc_id,
                    arguments,
                } => match handlers.tool(server, tool) {
                    Some(tool) => {
                        let fut = tool(arguments);
                        self.spawn_handler(id, subtype, request, fut, move |output| {
                            Answer::Mcp(tool_call_response(rpc_id, output))
                        });
                    }
                    None => self.respond(id, reply_without_handler(&request)),
                },
                McpRoute::UnknownServer(reply) => self.respond(id, reply),
                _ => self.respond(id, reply_without_handler(&request)),
            },
            _ => self.respond(id, reply_without_handler(&request)),
        }
    }

    fn respond(&mut self, id: IncomingId, reply: Reply) {
        // NotPending means the CLI cancelled it meanwhile: nothing to send.
        let _ = self.session.respond(id, reply);
    }

    /// Runs a handler off the read path, bounded by the semaphore; its
    /// answer comes back through `handler_rx`. Aborting the task (when the
    /// CLI cancels the request) drops the handler's future.
    fn spawn_handler<T, F>(
        &mut self,
        id: IncomingId,
        subtype: String,
        request: CliRequest,
        fut: F,
        into_answer: impl FnOnce(T) -> Answer + Send + 'static,
    ) where
        T: Send + 'static,
        F: std::future::Future<Output = Result<T, HandlerError>> + Send + 'static,
    {
        let tx = self.handler_tx.clone();
        let semaphore = self.semaphore.clone();
        let task = tokio::spawn(async move {
            let Ok(_permit) = semaphore.acquire_owned().await else {
                return;
            };
            let answer = match CatchUnwind::new(fut).await {
                Ok(Ok(value)) => into_answer(value),
                Ok(Err(error)) => {
                    let message = error.to_string();
                    Answer::Failed {
                        reply: reply_for_failure(&request, &message),
                        message,
                    }
                }
                Err(panic) => {
                    let message = panic_message(&*panic);
                    Answer::Failed {
                        reply: reply_for_failure(&request, &message),
                        message,
                    }
                }
            };
            let _ = tx
                .send(HandlerDone {
                    id,
                    subtype,
                    answer,
                })
                .await;
        });
        self.running.insert(id, task.abort_handle());
    }

    fn finish_handler(&mut self, done: HandlerDone) {
        if self.running.remove(&done.id).is_none() {
            // Cancelled after it finished: the core would drop it anyway.
            return;
        }
        let _ = match done.answer {
            Answer::Permission(result) => self.session.respond_permission(done.id, result),
            Answer::Hook(output) => self.session.respond_hook(done.id, &output),
            Answer::Mcp(response) => self.session.respond_mcp(done.id, &response),
            Answer::Failed { reply, message } => {
                log::warn(format_args!("{} handler failed: {message}", done.subtype));
                self.emit(Event::HandlerFailed {
                    subtype: done.subtype,
                    message,
                });
                self.session.respond(done.id, reply)
            }
        };
    }

    fn on_writer_broken(&mut self) {
        // The CLI closed its stdin (it is exiting): nothing more can be
        // written. What was queued is lost; requests fail at end of output.
        self.writer = None;
        self.write_buf.clear();
        self.write_pos = 0;
        self.needs_flush = false;
        self.session.close_input();
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
        if self.shutdown != Shutdown::Running {
            return;
        }
        self.session.close_input();
        self.close_writer = true;
        self.shutdown = Shutdown::Grace;
        self.arm_shutdown(self.shutdown_policy.close_grace);
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
        match self.shutdown {
            Shutdown::Grace => {
                self.shutdown = Shutdown::Terminated;
                let terminated = child.id().map(terminate);
                if matches!(terminated, Some(Ok(()))) {
                    log::debug(format_args!("CLI still running after close; sent SIGTERM"));
                    self.arm_shutdown(self.shutdown_policy.term_grace);
                } else {
                    self.shutdown = Shutdown::Killed;
                    let _ = child.start_kill();
                }
            }
            Shutdown::Terminated => {
                log::debug(format_args!("CLI ignored SIGTERM; killing it"));
                self.shutdown = Shutdown::Killed;
                let _ = child.start_kill();
            }
            Shutdown::Running | Shutdown::Killed => {}
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
        self.session.handle_eof();
        self.pump_core();
        for (_, handle) in self.running.drain() {
            handle.abort();
        }
        let failure = match &report {
            Some(report) => InitFailure::Exited(report.clone()),
            None => InitFailure::Closed,
        };
        self.init.send_if_modified(|state| {
            if matches!(state, InitState::Pending) {
                *state = InitState::Failed(failure);
                true
            } else {
                false
            }
        });
        // Commands that raced with the end get the exit, not silence.
        self.commands.close();
        while let Ok(command) = self.commands.try_recv() {
            let error = || self.shared.ended_error();
            match command {
                Command::Send { done, .. } => {
                    let _ = done.send(Err(error()));
                }
                Command::Control { done, .. } => {
                    let _ = done.send(Err(error()));
                }
                Command::EndInput => {}
            }
        }
        for (_, done) in self.waiting.drain() {
            let _ = done.send(Err(self.shared.ended_error()));
        }
        // Deliver what the user has not read yet (the last result, often);
        // this waits for the user, never for the CLI.
        while let Some(event) = self.pending_events.pop_front() {
            if self.events.send(event).await.is_err() {
                break;
            }
        }
    }
}

/// What woke the driver.
enum Wake {
    HandlerDone(Option<Box<HandlerDone>>),
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
