//! The runtime-independent half of an adapter's driver loop.
//!
//! An adapter's driver owns the child's pipes, a timer and its channels,
//! and loops: drain the [`DriverCore`] (bytes to write, [`Action`]s to
//! perform), ask it what to wait for ([`Interest`]), wait for the first of
//! those with its runtime's primitives, and report what happened
//! (`on_written`, `on_stdout`, `on_exit`, `on_time`, ...). Every decision
//! (when to read, write, flush or close stdin, when to stop waiting for
//! pipes, when to send SIGTERM or SIGKILL, when the loop is over) is made
//! here, once, for every adapter; the adapter only does the IO.

use std::process::ExitStatus;
use std::time::{Duration, Instant};

use crate::error::ExitReport;
use crate::host::{Action, Host, ShutdownSequence, ShutdownStep};
use crate::stderr::StderrTail;
use crate::{Event, ShutdownPolicy};

/// Stop taking commands while this much is still waiting to be written to
/// the CLI's stdin: a CLI that stops reading slows its callers down instead
/// of growing memory.
pub const WRITE_HIGH_WATER: usize = 1024 * 1024;

/// How long to wait for the output pipes to close after the process exited
/// (a grandchild can hold them open).
pub const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(200);

/// Bytes to read from stdout at a time.
pub const READ_CHUNK: usize = 64 * 1024;

/// The one thing to do with the CLI's stdin next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Output {
    /// Nothing.
    Idle,
    /// Write [`DriverCore::unwritten`] (any part of it), then report
    /// [`DriverCore::on_written`].
    Write,
    /// Flush, then report [`DriverCore::on_flushed`].
    Flush,
    /// Close stdin, then report [`DriverCore::on_writer_closed`].
    Close,
}

/// What the adapter should wait for next. Wait for all the enabled ones at
/// once and handle the first that happens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Interest {
    /// What to do with stdin.
    pub output: Output,
    /// Read stdout (only when the previous events have been handed over:
    /// that is the backpressure).
    pub read_stdout: bool,
    /// Read stderr (always while it is open: a full stderr pipe stalls the
    /// CLI).
    pub read_stderr: bool,
    /// Take the user's next command.
    pub take_commands: bool,
    /// Hand [`DriverCore::pop_event`] to the user when they have room.
    pub deliver_events: bool,
    /// Wait for the child to exit.
    pub wait_exit: bool,
    /// Wake up at this time and call [`DriverCore::on_time`].
    pub wake_at: Option<Instant>,
}

/// Something to do to the child process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProcessAction {
    /// Send SIGTERM; if that is impossible, call
    /// [`DriverCore::terminate_failed`] and kill instead.
    Terminate,
    /// Kill it (SIGKILL).
    Kill,
}

/// The state of one driver loop, without its IO.
#[derive(Debug)]
pub struct DriverCore<W> {
    host: Host<W>,
    out: Vec<u8>,
    out_pos: usize,
    needs_flush: bool,
    writer_open: bool,
    reader_open: bool,
    stderr_open: bool,
    has_child: bool,
    status: Option<ExitStatus>,
    commands_open: bool,
    events_open: bool,
    shutdown: ShutdownSequence,
    shutdown_at: Option<Instant>,
    drain_at: Option<Instant>,
    stderr_tail: StderrTail,
}

impl<W> DriverCore<W> {
    /// A loop around `host`. `has_child` says whether there is a process
    /// to wait for (false over a plain byte stream), `has_stderr` whether
    /// there is a stderr pipe.
    pub fn new(
        host: Host<W>,
        has_child: bool,
        has_stderr: bool,
        policy: ShutdownPolicy,
        stderr_tail: StderrTail,
    ) -> Self {
        Self {
            host,
            out: Vec::new(),
            out_pos: 0,
            needs_flush: false,
            writer_open: true,
            reader_open: true,
            stderr_open: has_stderr,
            has_child,
            status: None,
            commands_open: true,
            events_open: true,
            shutdown: ShutdownSequence::new(policy),
            shutdown_at: None,
            drain_at: None,
            stderr_tail,
        }
    }

    /// The host, for commands (`send`, `control`, `end_input`).
    pub fn host(&mut self) -> &mut Host<W> {
        &mut self.host
    }

    /// Drains the host; then take its actions with
    /// [`poll_action`](Self::poll_action). Call at the top of every loop
    /// turn.
    pub fn pump(&mut self) {
        if self.out_pos == self.out.len() {
            self.out.clear();
            self.out_pos = 0;
        }
        self.host.pump(&mut self.out);
    }

    /// The next thing to do for the host (run or abort a handler, resolve a
    /// waiter, publish the initialize state).
    pub fn poll_action(&mut self) -> Option<Action<W>> {
        self.host.poll_action()
    }

    /// What to wait for now.
    pub fn interest(&mut self) -> Interest {
        let unwritten = self.out.len() - self.out_pos;
        let output = if !self.writer_open {
            Output::Idle
        } else if unwritten > 0 {
            Output::Write
        } else if self.needs_flush {
            Output::Flush
        } else if self.host.session().is_input_closed() {
            Output::Close
        } else {
            Output::Idle
        };
        let deadlines = [
            self.host.session().poll_timeout(),
            self.shutdown_at,
            self.drain_at,
        ];
        Interest {
            output,
            read_stdout: self.reader_open && !self.host.has_events(),
            read_stderr: self.stderr_open,
            take_commands: self.commands_open && unwritten < WRITE_HIGH_WATER,
            deliver_events: self.events_open && self.host.has_events(),
            wait_exit: self.has_child && self.status.is_none(),
            wake_at: deadlines.into_iter().flatten().min(),
        }
    }

    /// The bytes still to write to stdin.
    pub fn unwritten(&self) -> &[u8] {
        &self.out[self.out_pos..]
    }

    /// `n` bytes of [`unwritten`](Self::unwritten) were written (0 means
    /// the pipe is closed).
    pub fn on_written(&mut self, n: usize) {
        if n == 0 {
            return self.on_write_error();
        }
        self.out_pos = (self.out_pos + n).min(self.out.len());
        if self.out_pos == self.out.len() {
            self.out.clear();
            self.out_pos = 0;
            self.needs_flush = true;
        }
    }

    /// The flush completed.
    pub fn on_flushed(&mut self) {
        self.needs_flush = false;
    }

    /// stdin is closed (as asked by [`Output::Close`]).
    pub fn on_writer_closed(&mut self) {
        self.writer_open = false;
    }

    /// Writing or flushing failed: the CLI closed its stdin (it is exiting).
    /// What was queued is lost; requests fail when its output ends.
    pub fn on_write_error(&mut self) {
        self.writer_open = false;
        self.out.clear();
        self.out_pos = 0;
        self.needs_flush = false;
        self.host.end_input();
    }

    /// Reports the result of the [`Output`] step the adapter performed.
    /// Returns `true` when the adapter must drop its writer now: after
    /// [`Output::Close`] (dropping the pipe is what closes it) or a failure.
    pub fn on_output(&mut self, output: Output, result: std::io::Result<usize>) -> bool {
        match (output, result) {
            (Output::Write, Ok(n)) if n > 0 => {
                self.on_written(n);
                false
            }
            (Output::Flush, Ok(_)) => {
                self.on_flushed();
                false
            }
            (Output::Close, _) => {
                self.on_writer_closed();
                true
            }
            (Output::Idle, _) => false,
            _ => {
                self.on_write_error();
                true
            }
        }
    }

    /// Reports a read from stdout into `buf`: data, or its end (`Ok(0)` or
    /// an error).
    pub fn on_stdout_read(&mut self, result: std::io::Result<usize>, buf: &[u8], now: Instant) {
        match result {
            Ok(n) if n > 0 => self.on_stdout(&buf[..n.min(buf.len())]),
            _ => self.on_stdout_end(now),
        }
    }

    /// Reports a read from stderr into `buf`: data, or its end.
    pub fn on_stderr_read(&mut self, result: std::io::Result<usize>, buf: &[u8]) {
        match result {
            Ok(n) if n > 0 => self.on_stderr(&buf[..n.min(buf.len())]),
            _ => self.on_stderr_end(),
        }
    }

    /// Bytes read from stdout.
    pub fn on_stdout(&mut self, bytes: &[u8]) {
        self.host.session().handle_input(bytes);
    }

    /// stdout reached its end (or failed). If the process is still there it
    /// can no longer talk to us, so the close sequence starts.
    pub fn on_stdout_end(&mut self, now: Instant) {
        self.reader_open = false;
        if self.has_child && self.status.is_none() {
            self.request_close(now);
        }
    }

    /// Bytes read from stderr.
    pub fn on_stderr(&mut self, bytes: &[u8]) {
        self.stderr_tail.push(bytes);
    }

    /// stderr reached its end.
    pub fn on_stderr_end(&mut self) {
        self.stderr_tail.finish();
        self.stderr_open = false;
    }

    /// The child exited (`Err`: waiting for it failed, so stop waiting).
    pub fn on_exit(&mut self, status: std::io::Result<ExitStatus>, now: Instant) {
        match status {
            Ok(status) => self.status = Some(status),
            Err(_) => self.has_child = false,
        }
        self.shutdown_at = None;
        if self.reader_open || self.stderr_open {
            self.drain_at = Some(now + DRAIN_AFTER_EXIT);
        }
    }

    /// The user dropped their command sender: close as if asked to.
    pub fn on_commands_closed(&mut self, now: Instant) {
        self.commands_open = false;
        self.request_close(now);
    }

    /// Nobody reads events any more: keep reading (the CLI must never be
    /// blocked) but stop queueing them.
    pub fn on_events_closed(&mut self) {
        self.events_open = false;
        self.host.discard_events();
    }

    /// Starts the close sequence: stdin is closed once its queue is written,
    /// then SIGTERM and SIGKILL follow at the policy's deadlines.
    pub fn request_close(&mut self, now: Instant) {
        if let Some(grace) = self.shutdown.begin() {
            self.host.end_input();
            self.shutdown_at = Some(now + grace);
        }
    }

    /// `true` once the close sequence has started.
    pub fn closing(&self) -> bool {
        self.shutdown.started()
    }

    /// The time is `now` (a deadline of [`Interest::wake_at`] may have
    /// passed): expires control requests, stops waiting on pipes held open
    /// after the exit, and moves the close sequence on.
    pub fn on_time(&mut self, now: Instant) -> Option<ProcessAction> {
        self.host.session().handle_timeout(now);
        if self.drain_at.is_some_and(|at| now >= at) {
            self.drain_at = None;
            self.reader_open = false;
            self.stderr_open = false;
        }
        let at = self.shutdown_at?;
        if now < at {
            return None;
        }
        self.shutdown_at = None;
        if !self.has_child || self.status.is_some() {
            // A byte stream without a process: stop once the grace is over.
            self.reader_open = false;
            self.stderr_open = false;
            return None;
        }
        match self.shutdown.on_deadline() {
            ShutdownStep::Terminate(grace) => {
                self.shutdown_at = Some(now + grace);
                Some(ProcessAction::Terminate)
            }
            ShutdownStep::Kill => Some(ProcessAction::Kill),
            _ => None,
        }
    }

    /// SIGTERM could not be sent: kill instead.
    pub fn terminate_failed(&mut self) -> ProcessAction {
        self.shutdown_at = None;
        self.shutdown.terminate_failed();
        ProcessAction::Kill
    }

    /// `true` when the loop is over: the output has ended and the process
    /// (if any) has exited. Then call [`finish`](Self::finish).
    pub fn is_done(&self) -> bool {
        let process_done = !self.has_child || self.status.is_some();
        !self.reader_open && !self.stderr_open && process_done
    }

    /// Settles everything after the loop: the exit report (also returned),
    /// every waiter, the initialize state, aborted handlers. Take the
    /// actions and the remaining events afterwards.
    pub fn finish(&mut self) -> Option<ExitReport> {
        let report = self
            .status
            .map(|status| ExitReport::new(status, self.stderr_tail.text()));
        self.host.finish(report.clone(), &mut self.out);
        report
    }

    /// The next event for the user (when [`Interest::deliver_events`]).
    pub fn pop_event(&mut self) -> Option<Event> {
        self.host.pop_event()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::Capabilities;
    use claude_proto::model::initialize::InitializeRequest;
    use claude_proto::{Config, Session};
    use std::sync::Arc;

    fn core(has_child: bool) -> (DriverCore<()>, Instant) {
        let now = Instant::now();
        let host = Host::new(
            Session::new(Config::default()),
            Arc::new(Capabilities::default()),
            InitializeRequest::default(),
            None,
            now,
        );
        let mut core = DriverCore::new(
            host,
            has_child,
            true,
            ShutdownPolicy::default(),
            StderrTail::new(1024, None),
        );
        core.pump();
        (core, now)
    }

    #[test]
    fn writes_then_flushes_then_waits() {
        let (mut c, _) = core(true);
        let i = c.interest();
        assert_eq!(i.output, Output::Write, "initialize is queued");
        let n = c.unwritten().len();
        c.on_written(n - 1);
        assert_eq!(c.interest().output, Output::Write);
        c.on_written(1);
        assert_eq!(c.interest().output, Output::Flush);
        c.on_flushed();
        assert_eq!(c.interest().output, Output::Idle);
        assert!(c.interest().read_stdout && c.interest().wait_exit);
    }

    #[test]
    fn close_sequence_escalates_on_time() {
        let (mut c, now) = core(true);
        c.request_close(now);
        let i = c.interest();
        assert_eq!(i.output, Output::Write, "queued bytes still go out first");
        c.on_write_error();
        assert_eq!(c.interest().output, Output::Idle);
        let grace = now + Duration::from_secs(2);
        assert_eq!(c.on_time(grace - Duration::from_millis(1)), None);
        assert_eq!(c.on_time(grace), Some(ProcessAction::Terminate));
        let later = grace + Duration::from_secs(5);
        assert_eq!(c.on_time(later), Some(ProcessAction::Kill));
        assert!(!c.is_done());
    }

    #[test]
    fn done_after_exit_and_pipes_end_or_drain_expires() {
        let (mut c, now) = core(true);
        c.on_stdout_end(now);
        assert!(c.closing(), "a live child that closed stdout gets closed");
        c.on_exit(Ok(exit_status(3)), now);
        assert!(!c.is_done(), "stderr is still open");
        c.on_time(now + DRAIN_AFTER_EXIT);
        assert!(c.is_done());
        let report = c.finish().expect("a report");
        assert_eq!(report.code, Some(3));
    }

    #[test]
    fn a_byte_stream_stops_after_the_grace() {
        let (mut c, now) = core(false);
        c.on_stderr_end();
        c.request_close(now);
        assert!(!c.is_done());
        assert_eq!(c.on_time(now + Duration::from_secs(2)), None);
        assert!(c.is_done());
    }

    #[cfg(unix)]
    fn exit_status(code: i32) -> ExitStatus {
        use std::os::unix::process::ExitStatusExt;
        ExitStatus::from_raw(code << 8)
    }
}
