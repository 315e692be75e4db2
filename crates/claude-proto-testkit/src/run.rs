//! The scripted CLI in process: a thread of its own behind two in-memory
//! pipes, on the wall clock.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::Report;
use crate::engine::{ScriptedCli, Settings};
use crate::pipe::{PIPE_CAPACITY, PipeHandle, PipeReader, PipeWriter, pipe};
use crate::script::Script;
use crate::step::{Failure, FailureKind, Steps};

/// The program's ends of a scripted CLI started in process: give them to
/// an adapter's `connect`. They are in-memory pipes, blocking std streams
/// and, with the crate's features, tokio's and futures-io's async
/// streams.
#[derive(Debug)]
#[non_exhaustive]
pub struct ProgramEnds {
    /// What the CLI writes (its stdout): the program reads it.
    pub reader: PipeReader,
    /// What the CLI reads (its stdin): the program writes it. Dropping it
    /// (or shutting it down) is the program closing its end.
    pub writer: PipeWriter,
}

impl Script {
    /// Starts this script in process, on a thread of its own: the program
    /// talks to it through the returned ends, and the [`ScriptRun`] gives
    /// the outcome. See [`ScriptRun::start`].
    pub fn start(self) -> io::Result<(ProgramEnds, ScriptRun)> {
        let (steps, settings) = self.into_parts();
        ScriptRun::start(steps, settings)
    }
}

/// A scripted CLI running in process, on a thread of its own, with the
/// wall clock.
///
/// Get its outcome with [`wait`](Self::wait) (blocking),
/// [`finish`](Self::finish) (a future, on any runtime) or
/// [`assert_ok`](Self::assert_ok) (panics with the failure). Close the
/// program's session first: after its last step the scripted CLI waits for
/// the program to close its end, and fails if it does not within the step
/// deadline.
///
/// Dropping it stops the thread (its ends of the pipes are closed, so a
/// blocked read or write returns) and waits for it: nothing is left
/// running.
#[must_use = "the outcome of a run is its verdict: wait for it"]
pub struct ScriptRun {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
    /// The CLI's own ends, kept to close them on drop.
    cli_ends: CliEnds,
    /// Dropped to wake a thread parked after a hang.
    park: Option<mpsc::Sender<()>>,
}

impl std::fmt::Debug for ScriptRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptRun")
            .field("running", &self.thread.is_some())
            .finish_non_exhaustive()
    }
}

#[derive(Default)]
struct Shared {
    slot: Mutex<Slot>,
    ready: Condvar,
    stop: AtomicBool,
}

#[derive(Default)]
struct Slot {
    outcome: Option<Result<Report, Failure>>,
    waker: Option<Waker>,
}

impl Shared {
    fn publish(&self, outcome: Result<Report, Failure>) {
        let mut slot = self.slot.lock().unwrap_or_else(PoisonError::into_inner);
        slot.outcome = Some(outcome);
        if let Some(waker) = slot.waker.take() {
            waker.wake();
        }
        self.ready.notify_all();
    }
}

impl ScriptRun {
    /// Starts a scripted CLI running `steps` with `settings` (a
    /// [`Script`]'s, a cassette replay's) on a thread of its own, behind
    /// two pipes of 256 KiB (one per direction, so that the program
    /// closing its writing end is seen as the CLI's stdin ending).
    pub fn start(
        steps: impl Steps + Send + 'static,
        settings: Settings,
    ) -> io::Result<(ProgramEnds, ScriptRun)> {
        let (program_writer, cli_input) = pipe(PIPE_CAPACITY);
        let (cli_output, program_reader) = pipe(PIPE_CAPACITY);
        let cli_ends = CliEnds {
            input: cli_input.handle(),
            output: cli_output.handle(),
        };
        let shared = Arc::new(Shared::default());
        let (park, parked) = mpsc::channel();
        let write_deadline = settings.step_deadline;
        let thread_shared = shared.clone();
        let thread = std::thread::Builder::new()
            .name(String::from("scripted-cli"))
            .spawn(move || {
                // The ends close when dropped, however `serve` ends: a
                // program writing then fails as it would to a CLI that
                // exited, instead of filling a pipe nobody reads.
                let served = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    let cli = ScriptedCli::new(steps, settings, Instant::now());
                    let io = Io {
                        input: cli_input,
                        output: cli_output,
                        write_deadline,
                    };
                    serve(cli, io, &thread_shared, &parked);
                }));
                if let Err(panic) = served {
                    // A panic (in a source of steps of the caller's, say)
                    // is the run's failure, not a wait that never ends.
                    thread_shared.publish(Err(Failure::new(
                        0,
                        "the scripted CLI",
                        FailureKind::Source(format!(
                            "its thread panicked: {}",
                            crate::engine::panic_text(&*panic)
                        )),
                    )));
                }
            })?;
        let run = ScriptRun {
            shared,
            thread: Some(thread),
            cli_ends,
            park: Some(park),
        };
        let ends = ProgramEnds {
            reader: program_reader,
            writer: program_writer,
        };
        Ok((ends, run))
    }

    /// Waits for the outcome, blocking the calling thread: the report when
    /// every step passed, else the failure. Returns within the script's
    /// deadlines.
    pub fn wait(mut self) -> Result<Report, Failure> {
        let outcome = {
            let mut slot = self
                .shared
                .slot
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            loop {
                if let Some(outcome) = slot.outcome.take() {
                    break outcome;
                }
                slot = self
                    .shared
                    .ready
                    .wait(slot)
                    .unwrap_or_else(PoisonError::into_inner);
            }
        };
        self.stop();
        outcome
    }

    /// The outcome as a future, on any runtime (it does not block the
    /// runtime's threads while the program, perhaps on the same runtime,
    /// finishes).
    pub fn finish(self) -> Finish {
        Finish { run: Some(self) }
    }

    /// Waits for the outcome (blocking) and panics with the failure, step,
    /// frames and first difference, if there is one.
    #[track_caller]
    pub fn assert_ok(self) -> Report {
        match self.wait() {
            Ok(report) => report,
            Err(failure) => panic!("{failure}"),
        }
    }

    /// The outcome, if the run is over (without waiting).
    pub fn try_outcome(&mut self) -> Option<Result<Report, Failure>> {
        let mut slot = self
            .shared
            .slot
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        slot.outcome.take()
    }

    fn stop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        self.park = None;
        self.cli_ends.input.close_read();
        self.cli_ends.output.close_write();
        if let Some(thread) = self.thread.take() {
            // The thread only waits in reads, writes and the park, which
            // the closed ends and the dropped sender end: it returns.
            let _ = thread.join();
        }
    }
}

impl Drop for ScriptRun {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The outcome of a [`ScriptRun`], as a future ([`ScriptRun::finish`]).
#[must_use = "futures do nothing unless awaited"]
#[derive(Debug)]
pub struct Finish {
    run: Option<ScriptRun>,
}

impl Future for Finish {
    type Output = Result<Report, Failure>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let Some(run) = self.run.as_mut() else {
            return Poll::Pending;
        };
        let outcome = {
            let mut slot = run
                .shared
                .slot
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            match slot.outcome.take() {
                Some(outcome) => outcome,
                None => {
                    slot.waker = Some(cx.waker().clone());
                    return Poll::Pending;
                }
            }
        };
        if let Some(mut run) = self.run.take() {
            run.stop();
        }
        Poll::Ready(outcome)
    }
}

/// The CLI's side of the pipes.
struct Io {
    input: PipeReader,
    output: PipeWriter,
    write_deadline: Duration,
}

/// Handles on the CLI's ends, to close them from the program's side.
struct CliEnds {
    input: PipeHandle,
    output: PipeHandle,
}

/// Drives `cli` on the wall clock until its outcome is known (and, after a
/// hang, until the run is stopped).
fn serve(mut cli: ScriptedCli, mut io: Io, shared: &Shared, parked: &mpsc::Receiver<()>) {
    let mut buf = vec![0; 64 * 1024];
    let mut output_open = true;
    let write_deadline = io.write_deadline;
    let mut batch = Vec::new();
    loop {
        // One write for all that is pending: a replay sends many lines.
        batch.clear();
        while let Some(line) = cli.poll_stdout() {
            batch.extend_from_slice(&line);
        }
        if output_open && !batch.is_empty() {
            match io.output.write_batch(&mut batch, write_deadline) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::TimedOut => {
                    shared.publish(Err(Failure::new(
                        0,
                        "writing to the program",
                        FailureKind::Timeout {
                            expected: String::from("the program to read the CLI's output"),
                            waited: write_deadline,
                        },
                    )));
                    return;
                }
                // The program closed its reading end: what it does next
                // (closing its writing end, say) decides.
                Err(_) => output_open = false,
            }
        }
        // Step::Stderr text is in the report; an in-process CLI has no
        // stderr stream of its own.
        while cli.poll_stderr().is_some() {}
        if cli.stdout_closed() && output_open {
            io.output.close();
            output_open = false;
        }
        if let Some(outcome) = cli.take_outcome() {
            let hung = !cli.stdout_closed();
            if let Err(failure) = &outcome {
                // Seen in the test's output even when the program's own
                // error is what the test reports.
                eprintln!("{failure}");
            }
            shared.publish(outcome);
            if hung {
                // Keep the streams open, unread, until the run is stopped.
                let _ = parked.recv();
            }
            return;
        }
        if shared.stop.load(Ordering::SeqCst) {
            return;
        }
        let now = Instant::now();
        let wait = cli
            .poll_timeout()
            .map(|at| at.saturating_duration_since(now));
        if wait == Some(Duration::ZERO) {
            cli.handle_timeout(now);
            continue;
        }
        // Nothing to do until the program writes or a timer fires: prepare
        // the next steps meanwhile (a replay reads its recording while the
        // program reads what was sent), then look again.
        if cli.read_ahead() {
            continue;
        }
        match io.input.read_timeout(&mut buf, wait) {
            Ok(0) => {
                if shared.stop.load(Ordering::SeqCst) {
                    return;
                }
                cli.handle_stdin_end(Instant::now());
            }
            Ok(n) => cli.handle_stdin(&buf[..n], Instant::now()),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == io::ErrorKind::TimedOut => cli.handle_timeout(Instant::now()),
            Err(_) => cli.handle_stdin_end(Instant::now()),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use std::io::{Read, Write};

    use super::*;
    use crate::{Matcher, Step, cli, expect};

    /// Everything the scripted CLI still writes, once its output ends.
    fn read_to_end(reader: impl Read) -> String {
        let mut rest = String::new();
        io::BufReader::new(reader)
            .read_to_string(&mut rest)
            .expect("the output ends");
        rest
    }

    fn read_line(reader: &mut impl io::BufRead) -> Value {
        let mut line = String::new();
        reader.read_line(&mut line).expect("reads");
        serde_json::from_str(&line).expect("JSON")
    }

    #[test]
    fn a_script_runs_over_the_streams_and_reports() {
        let script = Script::new()
            .expect(expect::user_text("hi"))
            .send(cli::system_init())
            .send(cli::result_success("hello"));
        let (ends, run) = script.start().expect("starts");
        let ProgramEnds { reader, mut writer } = ends;
        let mut reader = io::BufReader::new(reader);
        writer
            .write_all(b"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}}\n")
            .expect("writes");
        assert_eq!(read_line(&mut reader)["subtype"], "init");
        assert_eq!(read_line(&mut reader)["type"], "result");
        drop(writer);
        let report = run.assert_ok();
        assert_eq!(report.steps, 3);
        // The CLI exited: its output ends.
        assert_eq!(read_to_end(reader), "");
    }

    /// A deadline too far for an `Instant` (`Duration::MAX`) is no
    /// deadline, also for a burst larger than the pipe, which is written
    /// in pieces.
    #[test]
    fn an_endless_step_deadline_writes_a_burst_larger_than_the_pipe() {
        let big = "x".repeat(PIPE_CAPACITY + 1024);
        let (ends, run) = Script::new()
            .step_deadline(Duration::MAX)
            .send(cli::assistant_text(&big))
            .send(cli::result_success("done"))
            .start()
            .expect("starts");
        let ProgramEnds { reader, writer } = ends;
        let mut reader = io::BufReader::new(reader);
        let first = read_line(&mut reader);
        assert_eq!(first["message"]["content"][0]["text"], big.as_str());
        assert_eq!(read_line(&mut reader)["type"], "result");
        drop(writer);
        run.assert_ok();
    }

    #[test]
    fn a_failure_ends_the_clis_output_and_is_the_outcome() {
        let (ends, run) = Script::new()
            .expect(expect::user_text("hi"))
            .start()
            .expect("starts");
        let ProgramEnds { reader, mut writer } = ends;
        writer.write_all(b"{\"type\":\"user\"}\n").expect("writes");
        read_to_end(reader);
        let failure = run.wait().expect_err("fails");
        assert_eq!(failure.step, 1);
        assert!(matches!(failure.kind, FailureKind::Mismatch { .. }));
    }

    #[test]
    fn a_check_that_panics_fails_its_step_and_the_run_ends() {
        let (ends, run) = Script::new()
            .expect(Matcher::check("a is 1", |line| {
                assert_eq!(line["a"], 1, "the check's own assertion");
                Ok(())
            }))
            .start()
            .expect("starts");
        let ProgramEnds { reader, mut writer } = ends;
        writer.write_all(b"{\"a\":2}\n").expect("writes");
        read_to_end(reader);
        let failure = run.wait().expect_err("fails");
        assert_eq!(failure.step, 1);
        assert!(
            failure.to_string().contains("the check panicked"),
            "{failure}"
        );
    }

    /// A source of steps that panics: the run's outcome says so, and the
    /// program's output ends, instead of a wait that never returns.
    #[test]
    fn a_panicking_source_of_steps_is_the_runs_failure() {
        struct Panics;
        impl Steps for Panics {
            fn next_step(&mut self) -> Option<Result<Step, String>> {
                panic!("the steps broke")
            }
        }
        let (ends, run) = ScriptRun::start(Panics, Settings::default()).expect("starts");
        read_to_end(ends.reader);
        let failure = run.wait().expect_err("fails");
        assert!(matches!(failure.kind, FailureKind::Source(_)), "{failure}");
        assert!(failure.to_string().contains("the steps broke"), "{failure}");
    }

    /// Once the CLI is done, the program's writes fail as they would to a
    /// CLI that exited, instead of filling a buffer until they block.
    #[cfg(unix)]
    #[test]
    fn writes_after_the_cli_is_done_fail_instead_of_blocking() {
        let (ends, run) = Script::new()
            .send(cli::result_success("done"))
            .exit(0)
            .start()
            .expect("starts");
        let ProgramEnds { reader, mut writer } = ends;
        read_to_end(reader);
        run.assert_ok();
        let chunk = vec![b' '; 64 * 1024];
        let failed = (0..1024).any(|_| writer.write_all(&chunk).is_err());
        assert!(failed, "64 MiB written to a CLI that had exited");
    }

    #[test]
    fn dropping_a_run_stops_its_thread_even_while_it_hangs() {
        let (ends, run) = Script::new()
            .send(cli::system_init())
            .hang()
            .start()
            .expect("starts");
        let mut reader = io::BufReader::new(ends.reader);
        assert_eq!(read_line(&mut reader)["subtype"], "init");
        drop(run);
        // Stopped: the output ends.
        read_to_end(reader);
    }

    #[test]
    fn dropping_a_run_that_waits_for_the_program_stops_it() {
        let (ends, run) = Script::new()
            .expect(expect::any_user())
            .start()
            .expect("starts");
        drop(run);
        read_to_end(ends.reader);
    }

    #[test]
    fn initialize_is_answered_in_process() {
        let (ends, run) = Script::new().start().expect("starts");
        let ProgramEnds { reader, mut writer } = ends;
        let mut reader = io::BufReader::new(reader);
        let request = json!({"type": "control_request", "request_id": "a1",
            "request": {"subtype": "initialize"}});
        writer
            .write_all(format!("{request}\n").as_bytes())
            .expect("writes");
        let answer = read_line(&mut reader);
        assert_eq!(answer["response"]["request_id"], "a1");
        drop(writer);
        run.assert_ok();
    }

    #[test]
    fn try_outcome_does_not_wait() {
        let (ends, mut run) = Script::new()
            .expect(expect::any_user())
            .start()
            .expect("starts");
        assert!(
            run.try_outcome().is_none(),
            "the program has not written yet"
        );
        drop(ends);
        let failure = run.wait().expect_err("the program closed early");
        assert!(matches!(failure.kind, FailureKind::ProgramClosed { .. }));
    }

    #[test]
    fn finish_is_a_future_that_gives_the_outcome() {
        let (ends, run) = Script::new().start().expect("starts");
        drop(ends);
        let outcome = block_on(run.finish());
        assert_eq!(outcome.expect("passes").exit_code, Some(0));
    }

    /// A minimal executor: parks the thread until woken.
    fn block_on<F: Future>(future: F) -> F::Output {
        struct Unpark(std::thread::Thread);
        impl std::task::Wake for Unpark {
            fn wake(self: Arc<Self>) {
                self.0.unpark();
            }
        }
        let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
        let mut cx = Context::from_waker(&waker);
        let mut future = std::pin::pin!(future);
        loop {
            if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
                return output;
            }
            std::thread::park();
        }
    }
}
