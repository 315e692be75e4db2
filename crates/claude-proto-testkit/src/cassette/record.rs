//! Recording a live session: a tee around the std `Read`/`Write` pair a
//! program talks to the CLI through, and a wrapper process standing in for
//! the CLI binary.

use std::ffi::OsStr;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::redact::Redactions;
use super::write::CassetteWriter;

/// The environment variable naming the cassette a wrapper records to.
pub const RECORD_ENV: &str = "CLAUDE_PROTO_TESTKIT_RECORD";

/// The environment variable naming the real CLI a wrapper runs.
pub const REAL_CLI_ENV: &str = "CLAUDE_PROTO_TESTKIT_REAL_CLI";

/// Records a session as it passes: lines the CLI writes (through
/// [`tee_reader`](Self::tee_reader)), lines the program writes (through
/// [`tee_writer`](Self::tee_writer)), stderr and the exit, each with the
/// time since the recorder was made.
///
/// Clones share one cassette, so the tees can live on different threads;
/// frames are written in the order their lines completed. Only complete
/// lines are recorded, each when its newline passes (a last line without
/// one when its stream ends).
///
/// Recording never disturbs the session: a cassette that cannot be written
/// leaves the tees passing bytes as before, and the first such error is
/// returned by [`finish`](Self::finish). Frames after `finish` are not
/// recorded.
pub struct Recorder<W: Write> {
    shared: Arc<Mutex<Shared<W>>>,
}

struct Shared<W: Write> {
    writer: Option<CassetteWriter<W>>,
    start: Instant,
    error: Option<io::Error>,
}

impl<W: Write> Clone for Recorder<W> {
    fn clone(&self) -> Self {
        Self {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<W: Write> std::fmt::Debug for Recorder<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder").finish_non_exhaustive()
    }
}

impl<W: Write> Recorder<W> {
    /// Records into `writer`; frame times count from now.
    pub fn new(writer: CassetteWriter<W>) -> Self {
        Self {
            shared: Arc::new(Mutex::new(Shared {
                writer: Some(writer),
                start: Instant::now(),
                error: None,
            })),
        }
    }

    /// Wraps the CLI's stdout: every byte read through it is passed on,
    /// and every complete line recorded as the CLI's before the read
    /// returns it (so before the program can answer it). Its end (a read
    /// of 0 bytes) is recorded as the CLI closing stdout.
    pub fn tee_reader<R: Read>(&self, cli_stdout: R) -> TeeReader<R, W> {
        TeeReader {
            inner: cli_stdout,
            recorder: self.clone(),
            line: Vec::new(),
            ended: false,
        }
    }

    /// Wraps the CLI's stdin: every byte written through it is passed on
    /// (each write is written whole), and every complete line recorded as
    /// the program's, before the CLI can read it. Dropping it (which
    /// closes the CLI's stdin) is recorded as the program's end.
    pub fn tee_writer<T: Write>(&self, cli_stdin: T) -> TeeWriter<T, W> {
        TeeWriter {
            inner: Some(cli_stdin),
            recorder: self.clone(),
            line: Vec::new(),
        }
    }

    /// Records a line the CLI wrote to stderr (without its newline).
    pub fn record_stderr(&self, line: &str) {
        self.record(|w, at| w.stderr(at, line));
    }

    /// Records the CLI's exit code (128 + n for a CLI killed by signal n).
    pub fn record_exit(&self, code: i32) {
        self.record(|w, at| w.exit(at, code));
    }

    /// Writes the cassette's trailer and returns its output; the first
    /// error met while recording, if any, instead. Later calls, and frames
    /// recorded after, find the cassette finished (an error here).
    pub fn finish(&self) -> io::Result<W> {
        let mut shared = lock(&self.shared);
        if let Some(error) = shared.error.take() {
            shared.writer = None;
            return Err(error);
        }
        match shared.writer.take() {
            Some(writer) => writer.finish(),
            None => Err(io::Error::other("the cassette was finished already")),
        }
    }

    fn record(&self, write: impl FnOnce(&mut CassetteWriter<W>, Duration) -> io::Result<()>) {
        let mut shared = lock(&self.shared);
        let at = shared.start.elapsed();
        let shared = &mut *shared;
        if shared.error.is_some() {
            return;
        }
        if let Some(writer) = &mut shared.writer {
            if let Err(error) = write(writer, at) {
                shared.error = Some(error);
            }
        }
    }

    /// Records the complete lines of `chunk` that `pending` (the line so
    /// far) ends and begins, all at one time; keeps the rest in `pending`.
    fn record_lines(&self, pending: &mut Vec<u8>, chunk: &[u8], cli: bool) {
        let Some(last_newline) = chunk.iter().rposition(|b| *b == b'\n') else {
            pending.extend_from_slice(chunk);
            return;
        };
        let (complete, rest) = chunk.split_at(last_newline + 1);
        self.record(|w, at| {
            let mut lines = complete[..complete.len() - 1].split(|b| *b == b'\n');
            // `split` always yields at least one piece: the first line.
            let first = lines.next().unwrap_or_default();
            let first: &[u8] = if pending.is_empty() {
                first
            } else {
                pending.extend_from_slice(first);
                pending
            };
            let mut one = |line: &[u8]| {
                if cli {
                    w.cli_line(at, line)
                } else {
                    w.program_line(at, line)
                }
            };
            one(first)?;
            for line in lines {
                one(line)?;
            }
            Ok(())
        });
        pending.clear();
        pending.extend_from_slice(rest);
    }

    /// Records what is left of a stream that ended, and its end.
    fn record_end(&self, pending: &mut Vec<u8>, cli: bool) {
        let rest = std::mem::take(pending);
        self.record(|w, at| {
            match (cli, rest.is_empty()) {
                (true, false) => w.cli_line(at, &rest)?,
                (false, false) => w.program_line(at, &rest)?,
                _ => {}
            }
            if cli {
                w.cli_end(at)
            } else {
                w.program_end(at)
            }
        });
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A thread that panicked while recording left the writer usable.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The CLI's stdout, recorded as it is read ([`Recorder::tee_reader`]).
pub struct TeeReader<R, W: Write> {
    inner: R,
    recorder: Recorder<W>,
    line: Vec<u8>,
    ended: bool,
}

impl<R, W: Write> std::fmt::Debug for TeeReader<R, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TeeReader").finish_non_exhaustive()
    }
}

impl<R: Read, W: Write> Read for TeeReader<R, W> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n == 0 {
            if !buf.is_empty() && !self.ended {
                self.ended = true;
                self.recorder.record_end(&mut self.line, true);
            }
            return Ok(0);
        }
        self.recorder.record_lines(&mut self.line, &buf[..n], true);
        Ok(n)
    }
}

/// The CLI's stdin, recorded as it is written ([`Recorder::tee_writer`]).
pub struct TeeWriter<T: Write, W: Write> {
    /// `None` once dropped.
    inner: Option<T>,
    recorder: Recorder<W>,
    line: Vec<u8>,
}

impl<T: Write, W: Write> std::fmt::Debug for TeeWriter<T, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TeeWriter").finish_non_exhaustive()
    }
}

impl<T: Write, W: Write> Write for TeeWriter<T, W> {
    /// Records the complete lines of `buf`, then writes all of it: recorded
    /// before the CLI can read it, a line is always in the cassette before
    /// the CLI's answer to it.
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let Some(inner) = &mut self.inner else {
            return Err(io::Error::from(io::ErrorKind::BrokenPipe));
        };
        self.recorder.record_lines(&mut self.line, buf, false);
        inner.write_all(buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.inner {
            Some(inner) => inner.flush(),
            None => Ok(()),
        }
    }
}

impl<T: Write, W: Write> Drop for TeeWriter<T, W> {
    fn drop(&mut self) {
        // Recorded before the CLI can see it, as lines are.
        self.recorder.record_end(&mut self.line, false);
        drop(self.inner.take());
    }
}

/// Runs the real CLI at `cli` with `args` as a wrapper process would, in
/// place of the CLI: this process's stdin is copied to the CLI's stdin
/// and the CLI's stdout to this process's stdout, both recorded (with the
/// CLI's stderr, passed on to this process's stderr, and its exit) into a
/// new cassette at `cassette`. Returns the CLI's exit code (128 + n when
/// it was killed by signal n), for the caller to exit with.
///
/// The CLI gets this process's environment, less [`RECORD_ENV`] and
/// [`REAL_CLI_ENV`] (so that a CLI that is itself a wrapper does not
/// record again). The header's `cli_version` is left `null`: the recorded
/// `system`/`init` line carries the version.
///
/// Signals are not forwarded: catching SIGTERM or SIGINT takes `unsafe`
/// or a signal crate. A terminal's Ctrl-C reaches the CLI anyway (it is
/// in the same process group); a wrapper killed by SIGTERM leaves the CLI
/// to see its stdin close, which ends it, and the cassette without its
/// trailer (it reads as truncated).
///
/// When the CLI has exited and its stdout and stderr are drained, this
/// returns even if this process's stdin is still open (the thread copying
/// it is left blocked on the read, to end with the process).
pub fn run_wrapper<A: AsRef<OsStr>>(
    cli: &Path,
    args: impl IntoIterator<Item = A>,
    cassette: &Path,
    redactions: Redactions,
) -> io::Result<i32> {
    let writer = CassetteWriter::create(cassette, None, redactions)?;
    let (code, _file) =
        run_wrapper_with(cli, args, writer, io::stdin(), io::stdout(), io::stderr())?;
    Ok(code)
}

/// [`run_wrapper`] with the wrapper's own stdin, stdout and stderr given
/// (tests, or a wrapper inside a larger program), recording into `writer`.
/// Returns the exit code and the finished cassette's output.
pub fn run_wrapper_with<A, W, I, O, E>(
    cli: &Path,
    args: impl IntoIterator<Item = A>,
    writer: CassetteWriter<W>,
    stdin: I,
    stdout: O,
    stderr: E,
) -> io::Result<(i32, W)>
where
    A: AsRef<OsStr>,
    W: Write + Send + 'static,
    I: Read + Send + 'static,
    O: Write + Send + 'static,
    E: Write + Send + 'static,
{
    let mut child = Command::new(cli)
        .args(args)
        .env_remove(RECORD_ENV)
        .env_remove(REAL_CLI_ENV)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let recorder = Recorder::new(writer);
    let missing = || io::Error::other("the CLI's stdio is not piped");
    let child_stdin = child.stdin.take().ok_or_else(missing)?;
    let child_stdout = child.stdout.take().ok_or_else(missing)?;
    let child_stderr = child.stderr.take().ok_or_else(missing)?;

    let tee = recorder.tee_writer(child_stdin);
    // Not joined: a program that never closes its end keeps this blocked.
    std::thread::spawn(move || copy_stdin(stdin, tee));
    let tee = recorder.tee_reader(child_stdout);
    let out = std::thread::spawn(move || copy_stdout(tee, stdout));
    let rec = recorder.clone();
    let err = std::thread::spawn(move || copy_stderr(child_stderr, stderr, &rec));

    let status = child.wait()?;
    // Both end when the CLI's pipes close; a thread that panicked has
    // nothing left to record.
    let _ = out.join();
    let _ = err.join();
    let code = exit_code(status);
    recorder.record_exit(code);
    Ok((code, recorder.finish()?))
}

fn copy_stdin<T: Write, W: Write>(mut from: impl Read, mut tee: TeeWriter<T, W>) {
    let mut buf = vec![0; 64 * 1024];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        if tee.write_all(&buf[..n]).and_then(|()| tee.flush()).is_err() {
            break;
        }
    }
}

fn copy_stdout<R: Read, W: Write>(mut tee: TeeReader<R, W>, mut to: impl Write) {
    let mut buf = vec![0; 64 * 1024];
    // A program that stopped reading must not stall the CLI: its output
    // is still drained and recorded.
    let mut passing = true;
    loop {
        let n = match tee.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        if passing {
            passing = to.write_all(&buf[..n]).and_then(|()| to.flush()).is_ok();
        }
    }
}

fn copy_stderr<W: Write>(from: impl Read, mut to: impl Write, recorder: &Recorder<W>) {
    let mut from = BufReader::new(from);
    let mut line = Vec::new();
    loop {
        line.clear();
        match from.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        }
        let _ = to.write_all(&line).and_then(|()| to.flush());
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        recorder.record_stderr(&String::from_utf8_lossy(text));
    }
}

fn exit_code(status: ExitStatus) -> i32 {
    #[cfg(unix)]
    if let Some(signal) = std::os::unix::process::ExitStatusExt::signal(&status) {
        return 128 + signal;
    }
    status.code().unwrap_or(-1)
}
