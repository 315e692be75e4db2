//! The driver thread: the one owner of the session's [`Host`].
//!
//! It waits in one place, `recv_timeout` on the input channel until the
//! host's next deadline, and after every input does everything that needs
//! no waiting, in a fixed order (see [`Driver::settle`]): carry out the
//! host's outputs, feed it stdout chunks while it wants them, give the
//! writer thread its next order, hand events over. Nothing it does waits
//! on the CLI or on the user: the writer, the readers and the handlers are
//! other threads, every channel it sends on has room by construction, and
//! the event handoff never blocks it. The one exception is the user's own
//! [`CancelToken::on_cancel`] callbacks, which run here when the CLI
//! withdraws a request.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender};
use std::thread::JoinHandle;
use std::time::Instant;

use claude_proto::IncomingId;
use claude_proto_adapter::SessionDir;
use claude_proto_host::{Command, Host, Job, Output, Signal, Stall, StdinStep};
use claude_proto_process::{ProcessHandle, Stop, log, process_exit};
use claude_proto_sessions::{SessionStore, block_on};

use crate::channels::{Input, Waiter, WriteOp};
use crate::events::{Handoff, Offer};
use crate::handlers::{CancelToken, SyncHandlers};
use crate::shared::Shared;
use crate::workers::Workers;

/// The most the writer thread is handed at once.
const WRITE_CHUNK: usize = 64 * 1024;

/// The session's stdout chunks between the reader thread and the host.
#[derive(Default)]
pub(crate) struct Stdout {
    /// Chunks read, not yet given to the host (at most the reader's
    /// buffer count).
    pending: VecDeque<(Vec<u8>, usize)>,
    /// Buffers the host has used, to give back (the reader's go-ahead).
    spare: Vec<Vec<u8>>,
    /// Where buffers go back; `None` once reading was stopped
    /// ([`Output::StopReading`]).
    back: Option<SyncSender<Vec<u8>>>,
    /// The reader reported the end (after the pending chunks).
    ended: bool,
}

impl Stdout {
    pub(crate) fn new(back: SyncSender<Vec<u8>>) -> Self {
        Self {
            back: Some(back),
            ..Self::default()
        }
    }
}

/// The driver's ends of everything.
pub(crate) struct Driver {
    pub(crate) host: Host<Waiter>,
    pub(crate) input: Receiver<Input>,
    /// For the handler threads it starts.
    pub(crate) sender: SyncSender<Input>,
    pub(crate) shared: Arc<Shared>,
    pub(crate) handoff: Arc<Handoff>,
    pub(crate) handlers: Arc<SyncHandlers>,
    /// The session store the transcript is mirrored to, if any.
    pub(crate) store: Option<Arc<dyn SessionStore>>,
    pub(crate) process: Option<ProcessHandle>,
    /// Ends the pipe threads (spawned sessions only).
    pub(crate) stop: Option<Stop>,
    pub(crate) writer: Option<SyncSender<WriteOp>>,
    pub(crate) stdout: Stdout,
    /// Threads that end once `stop` is stopped, joined at the end.
    pub(crate) pipe_threads: Vec<JoinHandle<()>>,
    pub(crate) tokens: HashMap<IncomingId, CancelToken>,
    pub(crate) write_buf: Option<Vec<u8>>,
    pub(crate) writer_busy: bool,
    pub(crate) stall: Option<Stall>,
    pub(crate) ended: bool,
    /// The temporary config directory of a session resumed from the
    /// store; declared last, so it is removed after the CLI is killed.
    pub(crate) session_dir: Option<SessionDir>,
    /// The threads that run the handlers' jobs.
    pub(crate) workers: Workers,
}

impl Driver {
    pub(crate) fn run(mut self) {
        while !self.ended {
            self.settle();
            if self.ended {
                break;
            }
            let now = Instant::now();
            let received = match self.host.poll_timeout() {
                Some(timeout) if timeout.at <= now => None,
                Some(timeout) => self.input.recv_timeout(timeout.at - now).ok(),
                // `sender` keeps the channel connected.
                None => self.input.recv().ok(),
            };
            match received {
                Some(input) => self.on_input(input),
                None => self.host.handle_timeout(Instant::now()),
            }
        }
        self.finish();
    }

    /// Does everything that needs no waiting, until nothing is left.
    fn settle(&mut self) {
        loop {
            self.drain_outputs();
            if self.ended {
                return;
            }
            let fed = self.feed_stdout();
            let wrote = self.start_write();
            let delivered = self.deliver();
            if !(fed || wrote || delivered) {
                break;
            }
        }
        let stall = self.host.stall();
        if stall != self.stall {
            self.stall = stall;
            self.shared.set_stall(stall);
        }
    }

    fn drain_outputs(&mut self) {
        while let Some(output) = self.host.poll_output() {
            match output {
                Output::StartJob(job) => self.start_job(job),
                Output::AbortJob(id) => {
                    if let Some(token) = self.tokens.remove(&id) {
                        token.cancel();
                    }
                }
                // One slot, sent to once; the caller may have given up.
                Output::Resolve { waiter, result } => {
                    let _ = waiter.try_send(result);
                }
                Output::Initialized(result) => self.shared.publish_init(result),
                Output::Signal(signal) => self.signal(signal),
                Output::StopReading => self.stop_reading(),
                Output::Ended(ended) => {
                    log::debug(format_args!("session ended: {ended}"));
                    self.shared.set_ended(ended);
                }
                Output::MirrorAppend(append) => self.start_append(*append),
                // A thread cannot be stopped: its late outcome is ignored.
                Output::AbortMirrorAppend(_) => {}
                _ => {}
            }
        }
        // Over once the session store has the last transcript lines too
        // (or the host gave up on them).
        self.ended = self.host.is_done();
    }

    /// Runs a session-store append on a thread of its own (one at a time:
    /// the host sends the next once this one is answered or abandoned). A
    /// store call that never returns keeps its thread until it does; the
    /// session no longer waits for it after the append deadline.
    fn start_append(&mut self, append: claude_proto_host::MirrorAppend) {
        let id = append.id;
        let Some(store) = self.store.clone() else {
            let error = "no session store is set".to_owned();
            return self.host.handle_mirror_done(id, Err(error), Instant::now());
        };
        let done = self.sender.clone();
        let started = std::thread::Builder::new()
            .name("claude-store".into())
            .spawn(move || {
                let (id, result) = block_on(claude_proto_adapter::run_append(store, append));
                let _ = done.send(Input::MirrorDone(id, result));
            });
        if let Err(error) = started {
            let error = format!("could not start a thread for the session store: {error}");
            self.host.handle_mirror_done(id, Err(error), Instant::now());
        }
    }

    fn signal(&mut self, signal: Signal) {
        let Some(process) = &self.process else {
            return;
        };
        log::debug(format_args!("sending {signal:?} to the CLI"));
        match signal {
            Signal::Terminate => {
                if process.terminate().is_err() {
                    self.host.handle_signal_failed();
                }
            }
            // Fails only for a process already gone.
            _ => {
                let _ = process.kill();
            }
        }
    }

    /// Runs the job's handler on a thread of its own. The host starts no
    /// more jobs than `max_concurrent_handlers` at once.
    fn start_job(&mut self, job: Box<Job>) {
        let id = job.id;
        let token = CancelToken::new();
        let mcp = crate::handlers::start_mcp(&self.handlers, &job, &token);
        match self
            .workers
            .run(&self.handlers, job, token.clone(), mcp, &self.sender)
        {
            Ok(()) => {
                self.tokens.insert(id, token);
            }
            Err((job, error)) => {
                let message = format!("could not start a handler thread: {error}");
                self.host.handle_completion(job.finish(Err(message)));
            }
        }
    }

    /// The process is gone and something else holds its pipes, or a byte
    /// stream did not end in time: end the pipe threads.
    fn stop_reading(&mut self) {
        self.stdout.back = None;
        self.stdout.pending.clear();
        self.stdout.spare.clear();
        if let Some(stop) = &mut self.stop {
            stop.stop();
        }
    }

    /// Gives the host the chunks read while it wants them; gives buffers
    /// back to the reader only while it does, so reading pauses when the
    /// host's budgets are spent.
    fn feed_stdout(&mut self) -> bool {
        if self.stdout.back.is_none() {
            return false;
        }
        let mut fed = false;
        while self.host.wants_stdout() {
            let Some((buf, len)) = self.stdout.pending.pop_front() else {
                break;
            };
            self.host.handle_stdout(&buf[..len], Instant::now());
            self.stdout.spare.push(buf);
            self.drain_outputs();
            fed = true;
        }
        if self.stdout.ended && self.stdout.pending.is_empty() {
            self.stdout.ended = false;
            self.host.handle_stdout_end(Instant::now());
            fed = true;
        }
        if self.host.wants_stdout() {
            if let Some(back) = &self.stdout.back {
                for buf in self.stdout.spare.drain(..) {
                    // Room for every buffer the reader owns.
                    let _ = back.try_send(buf);
                }
            }
        }
        fed
    }

    /// Gives the writer thread the host's next stdin step, if it is idle.
    fn start_write(&mut self) -> bool {
        if self.writer_busy {
            return false;
        }
        let op = match self.host.poll_stdin() {
            StdinStep::Write(bytes) => {
                let mut buf = self.write_buf.take().unwrap_or_default();
                buf.clear();
                buf.extend_from_slice(&bytes[..bytes.len().min(WRITE_CHUNK)]);
                WriteOp::Write(buf)
            }
            StdinStep::Flush => WriteOp::Flush,
            StdinStep::Close => WriteOp::Close,
            _ => return false,
        };
        // At most one order at a time: the slot is free unless the
        // writer thread is gone.
        match self.writer.as_ref().map(|writer| writer.try_send(op)) {
            Some(Ok(())) => self.writer_busy = true,
            _ => {
                self.writer = None;
                self.host.handle_stdin_failed();
            }
        }
        true
    }

    /// Hands the reader a batch of events if it finished the last one.
    fn deliver(&mut self) -> bool {
        if !self.host.has_events() {
            return false;
        }
        let host = &mut self.host;
        let shared = &self.shared;
        let offer = self.handoff.offer(|| {
            let delivery = host.poll_event()?;
            shared.note_session_id(&delivery.event);
            #[cfg(feature = "tracing")]
            log::event(&delivery.event);
            Some(delivery)
        });
        match offer {
            Offer::Filled => true,
            Offer::Busy => false,
            Offer::Closed => {
                self.host.handle_events_closed();
                true
            }
        }
    }

    fn on_input(&mut self, input: Input) {
        let now = Instant::now();
        match input {
            Input::Stdout(buf, len) if self.stdout.back.is_some() => {
                self.stdout.pending.push_back((buf, len));
            }
            Input::StdoutEnd => self.stdout.ended = self.stdout.back.is_some(),
            Input::Stdout(..) => {}
            Input::Stderr(bytes) => self.host.handle_stderr(&bytes),
            Input::StderrEnd => self.host.handle_stderr_end(),
            Input::Written(buf, Ok(())) => {
                self.writer_busy = false;
                self.host.handle_written(buf.len(), Instant::now());
                self.write_buf = Some(buf);
            }
            Input::Flushed(Ok(())) => {
                self.writer_busy = false;
                self.host.handle_flushed();
            }
            Input::Written(_, Err(_)) | Input::Flushed(Err(_)) => {
                self.writer_busy = false;
                self.writer = None;
                self.host.handle_stdin_failed();
            }
            Input::StdinClosed => {
                self.writer_busy = false;
                self.writer = None;
                self.host.handle_stdin_closed();
            }
            Input::Exited(status) => {
                let exit = status.ok().map(process_exit);
                log::debug(format_args!("the CLI exited: {exit:?}"));
                self.host.handle_exit(exit, now);
            }
            Input::Completed(completion) => {
                self.tokens.remove(&completion.id());
                self.host.handle_completion(*completion);
            }
            Input::MirrorDone(id, result) => self.host.handle_mirror_done(id, result, now),
            Input::Command(command) => self.host.handle_command(command, now),
            Input::Room => {}
            Input::Close => {
                self.host.handle_events_closed();
                self.host.handle_command(Command::Close, now);
            }
        }
    }

    /// The session has ended: hand over the events left, end every thread
    /// the session started that can be ended, and wait for them.
    fn finish(mut self) {
        let host = &mut self.host;
        let shared = &self.shared;
        self.handoff.finish(std::iter::from_fn(|| {
            let delivery = host.poll_event()?;
            shared.note_session_id(&delivery.event);
            Some(delivery)
        }));
        for token in self.tokens.values() {
            token.cancel();
        }
        self.workers.close();
        let Driver {
            input,
            stop,
            writer,
            stdout,
            pipe_threads,
            session_dir,
            ..
        } = self;
        // Nothing can block on the input channel any more, nor wait for a
        // buffer or an order; the pipe threads' polls return.
        drop((input, stop, writer, stdout));
        for thread in pipe_threads {
            let _ = thread.join();
        }
        // The CLI is gone (its handle was dropped above): nothing reads the
        // resumed session's files any more.
        drop(session_dir);
    }
}
