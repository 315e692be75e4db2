//! The one task that owns a session: stdout, stdin, stderr, timers, user
//! commands and handler answers all meet in a single `poll_fn` loop.
//!
//! Only the async-io glue lives here. Every decision (what to answer, what
//! to wait for, when to close stdin, SIGTERM or SIGKILL, when the loop is
//! over) is the shared [`DriverCore`]'s; this file asks it what to wait
//! for, polls the enabled sources in priority order, and reports what
//! happened. The poll only yields a [`Wake`]; handling happens after it
//! returns. Every source is polled at the `poll_*` level, so nothing is
//! lost when another one wins: a write either happened (and is counted) or
//! did not, and an event is handed to the channel only when it has room
//! (or kept in one pending send that is polled until it goes through).

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::process::ExitStatus;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use async_channel::{Receiver, Sender, TrySendError};
use async_io::Timer;
use async_lock::{OnceCell, Semaphore};
use async_process::Child;
use claude_proto::model::control::ControlRequest;
use claude_proto::model::user::UserMessage;
use claude_proto::{ControlSuccess, IncomingId};
use claude_proto_process::driver::{DriverCore, Interest, Output, ProcessAction, READ_CHUNK};
use claude_proto_process::handlers::{AsyncHandlers, BoxFuture};
use claude_proto_process::host::{Action, Completion, InitFailure, InitState};
use claude_proto_process::{Error, Event, SessionExit, terminate};
use futures_lite::future::{self, poll_fn};
use futures_lite::io::{AsyncRead, AsyncWrite};
use futures_lite::stream::Stream;

use crate::runtime::Runtime;
use claude_proto_process::log;

pub(crate) type BoxRead = Pin<Box<dyn AsyncRead + Send>>;
pub(crate) type BoxWrite = Pin<Box<dyn AsyncWrite + Send>>;
/// A one-shot answer: a channel of capacity one.
pub(crate) type Reply<T> = Sender<Result<T, Error>>;
pub(crate) type Waiter = Reply<ControlSuccess>;

/// A request from the handle to the driver.
pub(crate) enum Command {
    Send {
        message: Box<UserMessage>,
        done: Reply<()>,
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
#[derive(Debug, Default)]
pub(crate) struct Shared {
    /// Set once, when the process has exited (or the transport ended).
    pub(crate) exit: SessionExit,
    /// Where `initialize` ended up; set once.
    pub(crate) init: OnceCell<InitState>,
}

pub(crate) struct Driver {
    pub(crate) core: DriverCore<Waiter>,
    pub(crate) handlers: Arc<AsyncHandlers>,
    pub(crate) runtime: Runtime,
    pub(crate) reader: BoxRead,
    pub(crate) writer: Option<BoxWrite>,
    pub(crate) stderr: Option<BoxRead>,
    pub(crate) child: Option<Child>,
    pub(crate) commands: Pin<Box<Receiver<Command>>>,
    /// Asks the driver to close (by `close()` or by dropping the handle).
    pub(crate) close: Pin<Box<Receiver<()>>>,
    pub(crate) events: Sender<Event>,
    pub(crate) shared: Arc<Shared>,
    pub(crate) semaphore: Arc<Semaphore>,
    /// Dropped when the driver ends: `close()` waits for that.
    pub(crate) _done: Sender<()>,
}

/// What woke the driver.
enum Wake {
    Completed(Box<Completion>),
    CloseRequested,
    Exited(io::Result<ExitStatus>),
    Output(Output, io::Result<usize>),
    Delivered,
    EventsClosed,
    Command(Option<Command>),
    Stdout(io::Result<usize>),
    Stderr(io::Result<usize>),
    Timer,
}

/// The loop's own state next to the [`Driver`]'s parts.
struct Waits {
    completion_tx: Sender<Completion>,
    completions: Pin<Box<Receiver<Completion>>>,
    /// Dropping a handler's sender cancels it.
    running: HashMap<IncomingId, Sender<()>>,
    exit: Option<BoxFuture<io::Result<ExitStatus>>>,
    /// An event the channel had no room for, on its way.
    delivering: Option<BoxFuture<bool>>,
    timer: Timer,
    timer_at: Option<Instant>,
    read_buf: Vec<u8>,
    err_buf: Vec<u8>,
}

impl Driver {
    pub(crate) async fn run(mut self) {
        let (completion_tx, completions) =
            async_channel::bounded(self.semaphore.available_permits().max(1));
        let mut waits = Waits {
            completion_tx,
            completions: Box::pin(completions),
            running: HashMap::new(),
            exit: self
                .child
                .as_mut()
                .map(|child| Box::pin(child.status()) as BoxFuture<_>),
            delivering: None,
            timer: Timer::never(),
            timer_at: None,
            read_buf: vec![0u8; READ_CHUNK],
            err_buf: vec![0u8; 8 * 1024],
        };
        loop {
            self.pump(&mut waits);
            if self.core.is_done() {
                break;
            }
            let interest = self.core.interest();
            if let Some(at) = interest.wake_at {
                // Never trust the timer alone: an overdue deadline is
                // handled now, however busy the other sources are.
                let now = Instant::now();
                if now >= at {
                    self.on_time(now);
                    continue;
                }
                if waits.timer_at != Some(at) {
                    waits.timer.set_at(at);
                    waits.timer_at = Some(at);
                }
            }
            let wake = poll_fn(|cx| self.poll_wake(cx, interest, &mut waits)).await;
            self.on_wake(wake, &mut waits);
        }
        // Dropping their senders cancels the handlers still running.
        waits.running.clear();
        self.finish(waits.delivering.take()).await;
    }

    /// Drains the core and performs what it asks for.
    fn pump(&mut self, waits: &mut Waits) {
        self.core.pump();
        while let Some(action) = self.core.poll_action() {
            match action {
                Action::Run(job) => {
                    let id = job.id;
                    let (abort, aborted) = async_channel::bounded::<()>(1);
                    let work = self.handlers.run(&job);
                    let done = waits.completion_tx.clone();
                    let semaphore = self.semaphore.clone();
                    let work = async move {
                        let _permit = semaphore.acquire_arc().await;
                        let result = work.await;
                        let _ = done.send((*job).finish(result)).await;
                    };
                    // Whichever ends first: the handler, or its sender being
                    // dropped (the CLI cancelled the request), which drops
                    // the handler's future.
                    self.runtime.spawn(Box::pin(future::or(work, async move {
                        let _ = aborted.recv().await;
                    })));
                    waits.running.insert(id, abort);
                }
                Action::Abort(id) => {
                    waits.running.remove(&id);
                }
                Action::Resolve(waiter, result) => {
                    // The caller may have stopped waiting; that is fine.
                    let _ = waiter.try_send(result);
                }
                Action::Initialized(state) => self.publish_init(state),
                _ => {}
            }
        }
    }

    fn publish_init(&self, state: InitState) {
        // Only the driver sets it, so this never waits.
        let _ = self.shared.init.set_blocking(state);
    }

    /// Polls every enabled source, in priority order, and returns the first
    /// that is ready.
    fn poll_wake(
        &mut self,
        cx: &mut Context<'_>,
        interest: Interest,
        waits: &mut Waits,
    ) -> Poll<Wake> {
        if let Poll::Ready(Some(done)) = waits.completions.as_mut().poll_next(cx) {
            return Poll::Ready(Wake::Completed(Box::new(done)));
        }
        if !self.core.closing() && self.close.as_mut().poll_next(cx).is_ready() {
            // A request, or the handle is gone: close either way.
            return Poll::Ready(Wake::CloseRequested);
        }
        if interest.wait_exit {
            if let Some(exit) = waits.exit.as_mut() {
                if let Poll::Ready(status) = exit.as_mut().poll(cx) {
                    waits.exit = None;
                    return Poll::Ready(Wake::Exited(status));
                }
            }
        }
        if interest.output != Output::Idle {
            if let Poll::Ready(done) = self.poll_output(cx, interest.output) {
                return Poll::Ready(Wake::Output(interest.output, done));
            }
        }
        if let Poll::Ready(wake) = self.poll_deliver(cx, interest, waits) {
            return Poll::Ready(wake);
        }
        if interest.take_commands {
            if let Poll::Ready(command) = self.commands.as_mut().poll_next(cx) {
                return Poll::Ready(Wake::Command(command));
            }
        }
        // One event on its way counts as unread: no reading past it.
        if interest.read_stdout && waits.delivering.is_none() {
            if let Poll::Ready(read) = self.reader.as_mut().poll_read(cx, &mut waits.read_buf) {
                return Poll::Ready(Wake::Stdout(read));
            }
        }
        if interest.read_stderr {
            let read = match self.stderr.as_mut() {
                Some(stderr) => stderr.as_mut().poll_read(cx, &mut waits.err_buf),
                None => Poll::Ready(Ok(0)),
            };
            if let Poll::Ready(read) = read {
                return Poll::Ready(Wake::Stderr(read));
            }
        }
        if interest.wake_at.is_some() && Pin::new(&mut waits.timer).poll(cx).is_ready() {
            return Poll::Ready(Wake::Timer);
        }
        Poll::Pending
    }

    /// Writes (part of) the core's unwritten bytes, flushes, or closes.
    fn poll_output(&mut self, cx: &mut Context<'_>, output: Output) -> Poll<io::Result<usize>> {
        let Some(writer) = self.writer.as_mut() else {
            return Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()));
        };
        match output {
            Output::Write => writer.as_mut().poll_write(cx, self.core.unwritten()),
            Output::Flush => writer.as_mut().poll_flush(cx).map_ok(|()| 0),
            Output::Close => writer.as_mut().poll_close(cx).map_ok(|()| 0),
            _ => Poll::Pending,
        }
    }

    /// Hands the next event over when the channel has room; an event that
    /// met a full channel waits in one pending send, polled until it is
    /// through, before the next is taken.
    fn poll_deliver(
        &mut self,
        cx: &mut Context<'_>,
        interest: Interest,
        waits: &mut Waits,
    ) -> Poll<Wake> {
        if waits.delivering.is_none() && interest.deliver_events {
            // Hand over as many as fit in one go: a consumer on another
            // thread then wakes once per burst instead of once per event.
            let mut delivered = false;
            while let Some(event) = self.core.pop_event() {
                log::event(&event);
                match self.events.try_send(event) {
                    Ok(()) => delivered = true,
                    Err(TrySendError::Closed(_)) => return Poll::Ready(Wake::EventsClosed),
                    Err(TrySendError::Full(event)) => {
                        let events = self.events.clone();
                        waits.delivering =
                            Some(Box::pin(async move { events.send(event).await.is_ok() }));
                        break;
                    }
                }
            }
            if delivered && waits.delivering.is_none() {
                return Poll::Ready(Wake::Delivered);
            }
        }
        let Some(delivering) = waits.delivering.as_mut() else {
            return Poll::Pending;
        };
        let sent = std::task::ready!(delivering.as_mut().poll(cx));
        waits.delivering = None;
        Poll::Ready(if sent {
            Wake::Delivered
        } else {
            Wake::EventsClosed
        })
    }

    fn on_wake(&mut self, wake: Wake, waits: &mut Waits) {
        let now = Instant::now();
        match wake {
            Wake::Completed(done) => {
                waits.running.remove(&done.id());
                self.core.host().complete(*done);
            }
            Wake::Delivered => {}
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
            Wake::Stdout(read) => self.core.on_stdout_read(read, &waits.read_buf, now),
            Wake::Stderr(read) => self.core.on_stderr_read(read, &waits.err_buf),
            Wake::Timer => {
                waits.timer_at = None;
                self.on_time(now);
            }
        }
    }

    fn on_time(&mut self, now: Instant) {
        let Some(action) = self.core.on_time(now) else {
            return;
        };
        let Some(child) = self.child.as_mut() else {
            return;
        };
        let action = match action {
            ProcessAction::Terminate => match terminate(child.id()) {
                Ok(()) => {
                    log::debug(format_args!("CLI still running after close; sent SIGTERM"));
                    return;
                }
                Err(_) => self.core.terminate_failed(),
            },
            other => other,
        };
        if action == ProcessAction::Kill {
            log::debug(format_args!("CLI did not exit; killing it"));
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
                let now = Instant::now();
                self.core.host().control(&request, timeout, now, done);
            }
            Command::EndInput => self.core.host().end_input(),
        }
    }

    /// The loop is over: settle everything still waiting, hand over the
    /// remaining events, and record the exit.
    async fn finish(mut self, delivering: Option<BoxFuture<bool>>) {
        let report = self.core.finish();
        self.shared.exit.set(report);
        while let Some(action) = self.core.poll_action() {
            match action {
                Action::Resolve(waiter, result) => {
                    let _ = waiter.try_send(result);
                }
                Action::Initialized(state) => self.publish_init(state),
                _ => {}
            }
        }
        // Commands that raced with the end get the exit, not silence.
        self.commands.close();
        while let Ok(command) = self.commands.try_recv() {
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
        // Deliver what the user has not read yet (the last result, often);
        // this waits for the user, never for the CLI.
        if let Some(delivering) = delivering {
            if !delivering.await {
                return;
            }
        }
        while let Some(event) = self.core.pop_event() {
            if self.events.send(event).await.is_err() {
                break;
            }
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        // If the driver stopped early (its executor dropped it), nobody
        // waits forever for `initialize`.
        self.publish_init(InitState::Failed(InitFailure::Closed));
    }
}
