//! The one future that runs a session: it feeds the host machine what
//! happened (bytes read, bytes written, the exit, the time, the user's
//! commands, handlers' answers) and carries out what the host asks.
//!
//! `poll` is written by hand rather than with `select!`: each step polls
//! only what the host wants now, every resource registers its own waker,
//! and a step that changed nothing means everything is waiting, so the
//! future returns `Pending`. Work per wake-up is bounded so one busy
//! session cannot starve its executor.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::process::ExitStatus;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use claude_proto_adapter::SessionDir;
use claude_proto_host::{Host, Output, ReadBuffer, Signal, StdinStep};
use claude_proto_process::{ProcessHandle, StderrLines, log, process_exit};
use claude_proto_sessions::SessionStore;

use crate::handlers::AsyncHandlers;
use crate::jobs::Running;
use crate::oneshot;
use crate::runtime::{BoxFuture, BoxReader, BoxWriter, Runtime};
use crate::shared::{Shared, Waiter, wake};

/// How much stdout one read takes while the CLI writes faster than the
/// session reads (a pipe holds 64 KiB).
const READ_CHUNK: usize = 64 * 1024;
/// How much stdout one read takes while the pipe is quiet: all an idle
/// session holds for reading.
const READ_CHUNK_QUIET: usize = 2 * 1024;
/// How much stderr one read takes, at most and when quiet.
const STDERR_CHUNK: usize = 8 * 1024;
const STDERR_CHUNK_QUIET: usize = 256;
/// How long stdout must stay quiet, after a burst of at least a full
/// read, before the session gives back the buffers its traffic needed. A
/// reader slower than the CLI finds the pipe empty right after most reads
/// (the writer has not refilled it yet); shrinking at each of those would
/// cost an allocation and 64 KiB of zeroing per read, for nothing (5% of
/// the instructions of the tokio end-to-end run, by callgrind). After less
/// traffic than that, buffers are given back as soon as a read would
/// block: they grew little, and a session that goes idle after a short
/// answer (most do) should not wait to shrink.
const QUIET_AFTER: Duration = Duration::from_millis(20);
/// Spare room in the host's buffers left alone when stdout goes quiet:
/// freeing a few hundred bytes of queue and stdin buffer after every
/// control answer only to allocate them again for the next call cost the
/// control round trip about 0.1 µs of its 3.4 µs.
const KEEP_SPARE: usize = 2 * 1024;
/// Steps per wake-up before yielding to the executor.
const STEPS_PER_WAKE: usize = 32;

/// The byte streams and process of a session.
pub(crate) struct Pipes {
    pub(crate) stdin: BoxWriter,
    pub(crate) stdout: BoxReader,
    pub(crate) stderr: Option<BoxReader>,
    pub(crate) process: Option<ProcessHandle>,
    pub(crate) exit: Option<oneshot::Receiver<io::Result<ExitStatus>>>,
    /// The temporary config directory of a session resumed from the
    /// store: removed when the driver is dropped, after the CLI.
    pub(crate) session_dir: Option<SessionDir>,
}

pub(crate) struct Driver<R: Runtime> {
    runtime: R,
    host: Host<Waiter>,
    handlers: AsyncHandlers,
    /// The session store the transcript is mirrored to, if any.
    store: Option<Arc<dyn SessionStore>>,
    shared: Arc<Shared>,
    stdin: Option<BoxWriter>,
    stdout: Option<BoxReader>,
    stderr: Option<BoxReader>,
    process: Option<ProcessHandle>,
    exit: Option<oneshot::Receiver<io::Result<ExitStatus>>>,
    stderr_lines: StderrLines,
    timer: Option<(Instant, BoxFuture<()>)>,
    jobs: Running,
    read_buf: ReadBuffer,
    err_buf: ReadBuffer,
    /// When stdout was last read from (bytes, not a would-block).
    last_read: Instant,
    /// Bytes came since the buffers were last trimmed.
    untrimmed: bool,
    /// Bytes read since a read last would have blocked.
    burst: usize,
    /// Fires [`QUIET_AFTER`] after the last read, to trim (armed when a
    /// read would block while untrimmed).
    quiet_timer: Option<BoxFuture<()>>,
    events_closed: bool,
    /// The user's reader, waiting for events already handed over: woken
    /// once half the handoff's room is used or when the driver waits or
    /// yields. Waking it at every read cost a futex call per 40 KB.
    reader_to_wake: Option<Waker>,
    /// The temporary config directory of a session resumed from the
    /// store, removed in `finish`.
    session_dir: Option<SessionDir>,
}

impl<R: Runtime> Driver<R> {
    pub(crate) fn new(
        runtime: R,
        host: Host<Waiter>,
        handlers: AsyncHandlers,
        store: Option<Arc<dyn SessionStore>>,
        shared: Arc<Shared>,
        pipes: Pipes,
        stderr_lines: StderrLines,
    ) -> Self {
        let last_read = runtime.now();
        Self {
            runtime,
            host,
            handlers,
            store,
            shared,
            stdin: Some(pipes.stdin),
            stdout: Some(pipes.stdout),
            stderr: pipes.stderr,
            process: pipes.process,
            exit: pipes.exit,
            stderr_lines,
            timer: None,
            jobs: Running::default(),
            read_buf: ReadBuffer::new(READ_CHUNK_QUIET, READ_CHUNK),
            err_buf: ReadBuffer::new(STDERR_CHUNK_QUIET, STDERR_CHUNK),
            last_read,
            untrimmed: true,
            burst: 0,
            quiet_timer: None,
            events_closed: false,
            reader_to_wake: None,
            session_dir: pipes.session_dir,
        }
    }

    /// One pass over every source of work; `true` if anything happened.
    fn step(&mut self, cx: &mut Context<'_>) -> bool {
        let mut progress = self.take_shared(cx);
        progress |= self.write_stdin(cx);
        progress |= self.hand_over();
        progress |= self.read_stdout(cx);
        progress |= self.read_stderr(cx);
        progress |= self.wait_exit(cx);
        progress |= self.wait_timer(cx);
        progress |= self.wait_quiet(cx);
        progress
    }

    /// Over once the host has ended, the session store has the last
    /// transcript lines (or the host gave up on them), and every event the
    /// host still held is with the user (or nobody reads them).
    fn done(&self) -> bool {
        self.host.is_done() && (self.events_closed || !self.host.has_events())
    }

    /// Commands, completions and "nobody reads" from the handle's side.
    fn take_shared(&mut self, cx: &mut Context<'_>) -> bool {
        let (commands, completions, mirror_done, events_closed) = {
            let mut state = self.shared.lock();
            register(&mut state.driver, cx.waker());
            (
                std::mem::take(&mut state.commands),
                std::mem::take(&mut state.completions),
                std::mem::take(&mut state.mirror_done),
                state.events_closed && !self.events_closed,
            )
        };
        let progress = !commands.is_empty()
            || !completions.is_empty()
            || !mirror_done.is_empty()
            || events_closed;
        for (id, result) in mirror_done {
            self.jobs.end_append(id);
            self.host.handle_mirror_done(id, result, self.runtime.now());
            self.carry_out();
        }
        for completion in completions {
            self.jobs.finished(completion.id());
            self.host.handle_completion(completion);
            self.carry_out();
        }
        for command in commands {
            // Every command is taken at once: the host refuses what
            // exceeds its budgets, and a call's deadline already runs.
            self.host.handle_command(command, self.runtime.now());
            self.carry_out();
        }
        if events_closed {
            self.events_closed = true;
            self.host.handle_events_closed();
            self.carry_out();
        }
        progress
    }

    /// Does what the host asks, until it asks nothing more.
    fn carry_out(&mut self) {
        while let Some(output) = self.host.poll_output() {
            match output {
                Output::StartJob(job) => {
                    self.jobs
                        .start(&self.runtime, &self.handlers, &self.shared, *job);
                }
                Output::AbortJob(id) => self.jobs.abort(id),
                Output::MirrorAppend(append) => match &self.store {
                    Some(store) => {
                        self.jobs
                            .start_append(&self.runtime, store.clone(), &self.shared, *append);
                    }
                    None => {
                        let error = "no session store is set".to_owned();
                        self.host
                            .handle_mirror_done(append.id, Err(error), self.runtime.now());
                    }
                },
                Output::AbortMirrorAppend(id) => self.jobs.end_append(id),
                Output::Resolve { waiter, result } => waiter.send(result),
                Output::Initialized(result) => {
                    let waiters = {
                        let mut state = self.shared.lock();
                        state.init = Some(result);
                        std::mem::take(&mut state.init_waiters)
                    };
                    waiters.into_iter().for_each(Waker::wake);
                }
                Output::Signal(signal) => self.signal(signal),
                Output::StopReading => {
                    log::debug(format_args!("giving up on the CLI's pipes"));
                    self.stdout = None;
                    self.stderr = None;
                    self.stderr_lines.finish();
                }
                Output::Ended(ended) => {
                    log::debug(format_args!("{ended}"));
                    let reader = {
                        let mut state = self.shared.lock();
                        state.ended = Some(ended);
                        state.reader.take()
                    };
                    wake(reader);
                    // Nothing more to read, write or wait for.
                    self.stdin = None;
                    self.stdout = None;
                    self.stderr = None;
                    self.exit = None;
                    self.timer = None;
                    self.quiet_timer = None;
                    self.process = None;
                    self.jobs.abort_all();
                }
                _ => {}
            }
        }
    }

    fn signal(&mut self, signal: Signal) {
        let Some(process) = &self.process else {
            return;
        };
        match signal {
            Signal::Terminate => {
                log::debug(format_args!("sending SIGTERM to the CLI"));
                if process.terminate().is_err() {
                    self.host.handle_signal_failed();
                }
            }
            Signal::Kill => {
                log::debug(format_args!("killing the CLI"));
                if let Err(error) = process.kill() {
                    log::warn(format_args!("could not kill the CLI: {error}"));
                }
            }
            _ => {}
        }
    }

    /// One stdin step, if the pipe takes it now.
    fn write_stdin(&mut self, cx: &mut Context<'_>) -> bool {
        let Some(stdin) = self.stdin.as_mut() else {
            return false;
        };
        let done = match self.host.poll_stdin() {
            StdinStep::Write(bytes) => match stdin.as_mut().poll_write(cx, bytes) {
                Poll::Ready(Ok(n)) => Ok(Some(n)),
                Poll::Ready(Err(error)) => Err(error),
                Poll::Pending => return false,
            },
            StdinStep::Flush => match stdin.as_mut().poll_flush(cx) {
                Poll::Ready(Ok(())) => Ok(None),
                Poll::Ready(Err(error)) => Err(error),
                Poll::Pending => return false,
            },
            StdinStep::Close => {
                if stdin.as_mut().poll_close(cx).is_pending() {
                    return false;
                }
                // Whatever closing said, dropping the pipe closes it.
                self.stdin = None;
                self.host.handle_stdin_closed();
                self.carry_out();
                return true;
            }
            _ => return false,
        };
        match done {
            Ok(Some(n)) => self.host.handle_written(n, self.runtime.now()),
            Ok(None) => self.host.handle_flushed(),
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => {
                log::debug(format_args!("the CLI's stdin failed: {error}"));
                self.stdin = None;
                self.host.handle_stdin_failed();
            }
        }
        self.carry_out();
        true
    }

    /// Moves events from the host to the handoff while it has room.
    fn hand_over(&mut self) -> bool {
        if self.events_closed || !self.host.has_events() {
            return false;
        }
        let mut moved = false;
        let reader = {
            let mut state = self.shared.lock();
            if state.events_closed {
                // Taken on the next step.
                return true;
            }
            while state.event_bytes < state.handoff_limit {
                let Some(delivery) = self.host.poll_event() else {
                    break;
                };
                log::event(&delivery.event);
                if let Some(id) = delivery.event.session_id() {
                    state.session_id = Some(id);
                }
                state.event_bytes += delivery.event.cost();
                state.events.push_back(delivery);
                moved = true;
            }
            // The user wakes us once there is room again.
            state.refill_wanted = self.host.has_events();
            if moved {
                if let Some(reader) = state.reader.take() {
                    self.reader_to_wake = Some(reader);
                }
            }
            // A reader on another thread is woken once half the handoff's
            // room is used, or when this wake-up's work is done (see
            // `poll`): not at every read.
            if state.event_bytes >= state.handoff_limit / 2 {
                self.reader_to_wake.take()
            } else {
                None
            }
        };
        wake(reader);
        moved
    }

    fn read_stdout(&mut self, cx: &mut Context<'_>) -> bool {
        if !self.host.wants_stdout() {
            return false;
        }
        let Some(stdout) = self.stdout.as_mut() else {
            return false;
        };
        match stdout.as_mut().poll_read(cx, self.read_buf.space()) {
            Poll::Pending => {
                // Drained for now: trim at once after a short burst, once
                // it stays so after a long one.
                let burst = std::mem::take(&mut self.burst);
                if !self.untrimmed {
                } else if burst < READ_CHUNK {
                    self.trim();
                } else if self.quiet_timer.is_none() {
                    let at = self.last_read + QUIET_AFTER;
                    self.quiet_timer = Some(self.runtime.sleep_until(at));
                }
                return false;
            }
            Poll::Ready(Ok(0)) => {
                self.stdout = None;
                self.host.handle_stdout_end(self.runtime.now());
            }
            Poll::Ready(Ok(n)) => {
                let now = self.runtime.now();
                self.last_read = now;
                self.untrimmed = true;
                self.burst += n;
                self.host.handle_stdout(self.read_buf.filled(n), now);
            }
            Poll::Ready(Err(error)) if error.kind() == io::ErrorKind::Interrupted => {}
            Poll::Ready(Err(error)) => {
                log::debug(format_args!("reading the CLI's stdout failed: {error}"));
                self.stdout = None;
                self.host.handle_stdout_end(self.runtime.now());
            }
        }
        self.carry_out();
        true
    }

    fn read_stderr(&mut self, cx: &mut Context<'_>) -> bool {
        if !self.host.wants_stderr() {
            return false;
        }
        let Some(stderr) = self.stderr.as_mut() else {
            return false;
        };
        match stderr.as_mut().poll_read(cx, self.err_buf.space()) {
            Poll::Pending => return false,
            Poll::Ready(Ok(n)) if n > 0 => {
                let bytes = self.err_buf.filled(n);
                self.host.handle_stderr(bytes);
                // The user's callback, its panics contained.
                self.stderr_lines.push(bytes);
            }
            Poll::Ready(Err(error)) if error.kind() == io::ErrorKind::Interrupted => {}
            Poll::Ready(_) => {
                self.stderr = None;
                self.stderr_lines.finish();
                self.host.handle_stderr_end();
            }
        }
        self.carry_out();
        true
    }

    fn wait_exit(&mut self, cx: &mut Context<'_>) -> bool {
        if !self.host.wants_exit() {
            return false;
        }
        let Some(exit) = self.exit.as_mut() else {
            return false;
        };
        let Poll::Ready(status) = Pin::new(exit).poll(cx) else {
            return false;
        };
        self.exit = None;
        let exit = match status {
            Ok(Ok(status)) => Some(process_exit(status)),
            Ok(Err(error)) => {
                log::warn(format_args!("waiting for the CLI failed: {error}"));
                None
            }
            Err(oneshot::Closed) => None,
        };
        log::debug(format_args!("the CLI exited: {exit:?}"));
        self.host.handle_exit(exit, self.runtime.now());
        self.carry_out();
        true
    }

    fn wait_timer(&mut self, cx: &mut Context<'_>) -> bool {
        let due = self.host.poll_timeout().map(|timeout| timeout.at);
        // Never trust the timer alone: a runtime's cooperative budget can
        // keep an elapsed timer pending.
        let now = self.runtime.now();
        if due.is_some_and(|at| now >= at) {
            self.timer = None;
            self.host.handle_timeout(now);
            self.carry_out();
            return true;
        }
        // Re-arm only for an earlier deadline. Every control call brings a
        // later one (its own timeout); a new timer per call would cost an
        // allocation and a timer-wheel entry each, where a timer armed too
        // early costs one spurious wake-up.
        if let Some(at) = due {
            if self.timer.as_ref().is_none_or(|(armed, _)| at < *armed) {
                self.timer = Some((at, self.runtime.sleep_until(at)));
            }
        }
        let Some((_, timer)) = &mut self.timer else {
            return false;
        };
        if timer.as_mut().poll(cx).is_pending() {
            return false;
        }
        self.timer = None;
        // Possibly early, for a deadline that has gone since: then nothing
        // is due and the next step arms the timer again.
        self.host.handle_timeout(self.runtime.now());
        self.carry_out();
        true
    }

    /// Once stdout has been quiet for [`QUIET_AFTER`], gives back what the
    /// traffic before needed: the read buffers' room, the host's and
    /// core's spare buffers, the event handoff's room.
    fn wait_quiet(&mut self, cx: &mut Context<'_>) -> bool {
        let Some(timer) = &mut self.quiet_timer else {
            return false;
        };
        if timer.as_mut().poll(cx).is_pending() {
            return false;
        }
        self.quiet_timer = None;
        let due = self.last_read + QUIET_AFTER;
        if self.runtime.now() < due {
            // Read from since it was armed: wait from that read on.
            self.quiet_timer = Some(self.runtime.sleep_until(due));
            return true;
        }
        if self.untrimmed {
            self.trim();
        }
        true
    }

    /// Gives back the read buffers' room, the host's and core's spare
    /// buffers and the event handoff's room, recording what is kept.
    fn trim(&mut self) {
        self.untrimmed = false;
        self.quiet_timer = None;
        self.read_buf.quiet();
        self.err_buf.quiet();
        if self.host.spare_capacity() > KEEP_SPARE {
            self.host.trim();
        }
        let kept = self.read_buf.capacity() + self.err_buf.capacity() + self.host.spare_capacity();
        self.shared.quiet(kept, KEEP_SPARE);
    }

    /// The driver is done (or dropped): the handle learns there is nothing
    /// more to wait for. Commands still queued are dropped, so their
    /// callers get the session's end.
    fn finish(&mut self) {
        self.jobs.abort_everything();
        // The CLI first (dropping its handle kills it), then the temporary
        // config directory it resumed from: gone before `close` returns,
        // whenever the runtime gets round to dropping this task.
        self.process = None;
        self.session_dir = None;
        let (commands, wakers) = {
            let mut state = self.shared.lock();
            if state.finished {
                return;
            }
            state.finished = true;
            state.driver = None;
            let mut wakers = std::mem::take(&mut state.init_waiters);
            wakers.append(&mut state.finish_waiters);
            wakers.extend(state.reader.take());
            wakers.extend(self.reader_to_wake.take());
            (std::mem::take(&mut state.commands), wakers)
        };
        drop(commands);
        wakers.into_iter().for_each(Waker::wake);
    }
}

// Nothing in the driver is pinned structurally; the runtime value is only
// cloned and called.
impl<R: Runtime> Unpin for Driver<R> {}

impl<R: Runtime> Future for Driver<R> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        for _ in 0..STEPS_PER_WAKE {
            let progress = this.step(cx);
            if this.done() {
                this.finish();
                return Poll::Ready(());
            }
            if !progress {
                // Every source polled registered its waker.
                wake(this.reader_to_wake.take());
                return Poll::Pending;
            }
        }
        wake(this.reader_to_wake.take());
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

impl<R: Runtime> Drop for Driver<R> {
    fn drop(&mut self) {
        // Also when the runtime drops the task unfinished: the process
        // handle, dropped with the driver, kills the CLI and its exit
        // watcher reaps it.
        self.finish();
    }
}

fn register(slot: &mut Option<Waker>, waker: &Waker) {
    match slot {
        Some(w) if w.will_wake(waker) => {}
        slot => *slot = Some(waker.clone()),
    }
}
