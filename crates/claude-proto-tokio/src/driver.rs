//! The one task that owns a session: stdout, stdin, stderr, timers, user
//! commands and handler answers all meet in a single `select!` loop.
//!
//! Only the tokio glue lives here. Every decision (what to answer, what to
//! wait for, when to close stdin, SIGTERM or SIGKILL, when the loop is
//! over) is the shared [`DriverCore`]'s; this file asks it what to wait
//! for, waits with tokio's primitives, and reports what happened. The
//! `select!` only yields a [`Wake`]; handling happens after every pending
//! future is dropped, and every wait is cancel-safe (writes go out from the
//! core's buffer and are reported by count).

use std::collections::HashMap;
use std::pin::Pin;
use std::process::ExitStatus;
use std::sync::Arc;
use std::time::Duration;

use claude_proto::model::control::ControlRequest;
use claude_proto::model::user::UserMessage;
use claude_proto::{ControlSuccess, IncomingId};
use claude_proto_process::driver::{DriverCore, Interest, Output, ProcessAction, READ_CHUNK};
use claude_proto_process::handlers::AsyncHandlers;
use claude_proto_process::host::{Action, Completion, InitState};
use claude_proto_process::{Error, Event, SessionExit, terminate};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::process::Child;
use tokio::sync::{Notify, Semaphore, mpsc, oneshot, watch};
use tokio::task::AbortHandle;
use tokio::time::{Instant, Sleep, sleep_until};

use claude_proto_process::log;

pub(crate) type BoxRead = Pin<Box<dyn AsyncRead + Send>>;
pub(crate) type BoxWrite = Pin<Box<dyn AsyncWrite + Send>>;
pub(crate) type Waiter = oneshot::Sender<Result<ControlSuccess, Error>>;

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
    pub(crate) exit: SessionExit,
    /// Asks the driver to close (by `close()` or by dropping the handle).
    pub(crate) close: Notify,
}

pub(crate) struct Driver {
    pub(crate) core: DriverCore<Waiter>,
    pub(crate) handlers: Arc<AsyncHandlers>,
    pub(crate) reader: BoxRead,
    pub(crate) writer: Option<BoxWrite>,
    pub(crate) stderr: Option<BoxRead>,
    pub(crate) child: Option<Child>,
    pub(crate) commands: mpsc::Receiver<Command>,
    pub(crate) events: mpsc::Sender<Event>,
    pub(crate) init: watch::Sender<InitState>,
    pub(crate) shared: Arc<Shared>,
    pub(crate) semaphore: Arc<Semaphore>,
}

/// What woke the driver.
enum Wake {
    Completed(Option<Box<Completion>>),
    CloseRequested,
    Exited(std::io::Result<ExitStatus>),
    Output(Output, std::io::Result<usize>),
    Delivered,
    EventsClosed,
    Command(Option<Command>),
    Stdout(std::io::Result<usize>),
    Stderr(std::io::Result<usize>),
    Timer,
}

impl Driver {
    pub(crate) async fn run(mut self) {
        let (completion_tx, mut completion_rx) = mpsc::channel(self.semaphore.available_permits());
        let mut running: HashMap<IncomingId, AbortHandle> = HashMap::new();
        let mut read_buf = vec![0u8; READ_CHUNK];
        let mut err_buf = vec![0u8; 8 * 1024];
        let mut timer: Pin<Box<Sleep>> = Box::pin(sleep_until(Instant::now()));
        loop {
            self.pump(&completion_tx, &mut running);
            if self.core.is_done() {
                break;
            }
            let interest = self.core.interest();
            if let Some(at) = interest.wake_at {
                // Never trust the timer alone: an overdue deadline is
                // handled now, whatever the runtime's budget does to it.
                let now = Instant::now();
                if now.into_std() >= at {
                    self.on_time(now);
                    continue;
                }
                if timer.deadline() != Instant::from_std(at) {
                    timer.as_mut().reset(Instant::from_std(at));
                }
            }
            let wake = self
                .wait(
                    interest,
                    &mut completion_rx,
                    &mut timer,
                    &mut read_buf,
                    &mut err_buf,
                )
                .await;
            self.on_wake(wake, &mut running, &read_buf, &err_buf);
        }
        for (_, task) in running.drain() {
            task.abort();
        }
        self.finish().await;
    }

    /// Drains the core and performs what it asks for.
    fn pump(
        &mut self,
        completion_tx: &mpsc::Sender<Completion>,
        running: &mut HashMap<IncomingId, AbortHandle>,
    ) {
        self.core.pump();
        while let Some(action) = self.core.poll_action() {
            match action {
                Action::Run(job) => {
                    let future = self.handlers.run(&job);
                    let tx = completion_tx.clone();
                    let semaphore = self.semaphore.clone();
                    let id = job.id;
                    let task = tokio::spawn(async move {
                        let Ok(_permit) = semaphore.acquire_owned().await else {
                            return;
                        };
                        let result = future.await;
                        let _ = tx.send((*job).finish(result)).await;
                    });
                    running.insert(id, task.abort_handle());
                }
                Action::Abort(id) => {
                    if let Some(task) = running.remove(&id) {
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

    async fn wait(
        &mut self,
        interest: Interest,
        completion_rx: &mut mpsc::Receiver<Completion>,
        timer: &mut Pin<Box<Sleep>>,
        read_buf: &mut [u8],
        err_buf: &mut [u8],
    ) -> Wake {
        let closing = self.core.closing();
        tokio::select! {
            biased;
            done = completion_rx.recv() => Wake::Completed(done.map(Box::new)),
            _ = self.shared.close.notified(), if !closing => Wake::CloseRequested,
            status = wait_child(self.child.as_mut()), if interest.wait_exit => Wake::Exited(status),
            done = output_step(self.writer.as_mut(), self.core.unwritten(), interest.output), if interest.output != Output::Idle => Wake::Output(interest.output, done),
            permit = self.events.reserve(), if interest.deliver_events => match permit {
                Ok(permit) => {
                    if let Some(event) = self.core.pop_event() {
                        log::event(&event);
                        permit.send(event);
                    }
                    Wake::Delivered
                }
                Err(_) => Wake::EventsClosed,
            },
            command = self.commands.recv(), if interest.take_commands => Wake::Command(command),
            read = self.reader.read(read_buf), if interest.read_stdout => Wake::Stdout(read),
            read = read_opt(self.stderr.as_mut(), err_buf), if interest.read_stderr => Wake::Stderr(read),
            _ = timer.as_mut(), if interest.wake_at.is_some() => Wake::Timer,
        }
    }

    fn on_wake(
        &mut self,
        wake: Wake,
        running: &mut HashMap<IncomingId, AbortHandle>,
        read_buf: &[u8],
        err_buf: &[u8],
    ) {
        let now = Instant::now().into_std();
        match wake {
            Wake::Completed(Some(done)) => {
                running.remove(&done.id());
                self.core.host().complete(*done);
            }
            // The loop holds a sender itself, so this never ends.
            Wake::Completed(None) | Wake::Delivered => {}
            Wake::CloseRequested => self.core.request_close(now),
            Wake::Exited(status) => {
                if let Ok(status) = &status {
                    log::debug(format_args!("CLI exited: {status}"));
                }
                self.core.on_exit(status, now);
            }
            Wake::Output(output, result) => {
                if self.core.on_output(output, result) {
                    // Dropping the pipe is what closes it.
                    self.writer = None;
                }
            }
            Wake::EventsClosed => self.core.on_events_closed(),
            Wake::Command(Some(command)) => self.on_command(command),
            Wake::Command(None) => self.core.on_commands_closed(now),
            Wake::Stdout(read) => self.core.on_stdout_read(read, read_buf, now),
            Wake::Stderr(read) => self.core.on_stderr_read(read, err_buf),
            Wake::Timer => self.on_time(Instant::now()),
        }
    }

    fn on_time(&mut self, now: Instant) {
        let Some(action) = self.core.on_time(now.into_std()) else {
            return;
        };
        let Some(child) = self.child.as_mut() else {
            return;
        };
        let action = match action {
            ProcessAction::Terminate => match child.id().map(terminate) {
                Some(Ok(())) => {
                    log::debug(format_args!("CLI still running after close; sent SIGTERM"));
                    return;
                }
                _ => self.core.terminate_failed(),
            },
            other => other,
        };
        if action == ProcessAction::Kill {
            log::debug(format_args!("CLI did not exit; killing it"));
            let _ = child.start_kill();
        }
    }

    fn on_command(&mut self, command: Command) {
        match command {
            Command::Send { message, done } => {
                let _ = done.send(self.core.host().send(&message));
            }
            Command::Control {
                request,
                timeout,
                done,
            } => {
                let now = Instant::now().into_std();
                self.core.host().control(&request, timeout, now, done);
            }
            Command::EndInput => self.core.host().end_input(),
        }
    }

    /// The loop is over: settle everything still waiting, hand over the
    /// remaining events, and record the exit.
    async fn finish(mut self) {
        let report = self.core.finish();
        self.shared.exit.set(report);
        while let Some(action) = self.core.poll_action() {
            match action {
                Action::Resolve(waiter, result) => {
                    let _ = waiter.send(result);
                }
                Action::Initialized(state) => {
                    self.init.send_replace(state);
                }
                _ => {}
            }
        }
        // Commands that raced with the end get the exit, not silence.
        self.commands.close();
        while let Ok(command) = self.commands.try_recv() {
            let error = self.core.host().ended_error();
            match command {
                Command::Send { done, .. } => {
                    let _ = done.send(Err(error));
                }
                Command::Control { done, .. } => {
                    let _ = done.send(Err(error));
                }
                Command::EndInput => {}
            }
        }
        // Deliver what the user has not read yet (the last result, often);
        // this waits for the user, never for the CLI.
        while let Some(event) = self.core.pop_event() {
            if self.events.send(event).await.is_err() {
                break;
            }
        }
    }
}

/// Writes (part of) `bytes`, flushes, or closes the writer. Each is
/// cancel-safe: a write either happened (and is counted) or did not.
async fn output_step(
    writer: Option<&mut BoxWrite>,
    bytes: &[u8],
    output: Output,
) -> std::io::Result<usize> {
    let Some(writer) = writer else {
        return Err(std::io::ErrorKind::BrokenPipe.into());
    };
    match output {
        Output::Write => writer.write(bytes).await,
        Output::Flush => writer.flush().await.map(|()| 0),
        Output::Close => writer.shutdown().await.map(|()| 0),
        _ => std::future::pending().await,
    }
}

async fn read_opt(reader: Option<&mut BoxRead>, buf: &mut [u8]) -> std::io::Result<usize> {
    match reader {
        Some(reader) => reader.read(buf).await,
        None => Ok(0),
    }
}

async fn wait_child(child: Option<&mut Child>) -> std::io::Result<ExitStatus> {
    match child {
        Some(child) => child.wait().await,
        None => std::future::pending().await,
    }
}
