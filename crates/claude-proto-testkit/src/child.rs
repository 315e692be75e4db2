//! The scripted CLI as a child process: the `claude-proto-testkit-cli`
//! binary, for tests that go through an adapter's real `spawn` path.
//!
//! [`Script::child`] saves the script to a file and gives the
//! [`Options`] that start the binary on it; after the session, the
//! binary's verdict is read back with [`ChildScript::outcome`]:
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use claude_proto_testkit::{Script, cli, expect};
//! use claude_proto_tokio::Claude;
//!
//! let child = Script::new()
//!     .expect(expect::user_text("hi"))
//!     .send(cli::system_init())
//!     .send(cli::assistant_text("hello"))
//!     .send(cli::result_success("hello"))
//!     .child()?;
//! let mut claude = Claude::builder(child.options()).spawn().await?;
//! assert_eq!(claude.ask("hi").await?.text(), Some("hello"));
//! claude.close().await?;
//! let verdict = child.outcome()?;
//! verdict.outcome?;
//! # Ok(()) }
//! ```
//!
//! A script that serves (or a behaviour alone, [`serve_options`]) plays
//! what only a process can: its stdout is a pipe (output the program does
//! not read blocks it), it ignores SIGTERM when the behaviour says so (it
//! runs itself again under `sh` with the signal ignored; Unix only), it
//! keeps the session's transcript where the CLI keeps it (only when
//! `CLAUDE_CONFIG_DIR` is set, `--resume` or `--session-mirror` is given;
//! a resumed session reads its history and says `history: N lines`), and
//! [`PID_FILE_ENV`] and [`GRANDCHILD_ENV`] record its pid and leave a
//! process behind.
//!
//! The binary reads the script named by `CLAUDE_PROTO_TESTKIT_SCRIPT`,
//! ignores its arguments (they are recorded in the verdict), serves the
//! script on its stdin and stdout, prints its verdict on stderr, writes it
//! to the file named by `CLAUDE_PROTO_TESTKIT_OUTCOME` if set, and exits 0
//! when the script passed (or with the code of its `exit` step), else
//! [`FAILURE_EXIT_CODE`].

use std::ffi::OsString;
use std::fmt;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use claude_proto::options::Options;
use serde_json::{Value, json};

use crate::engine::{FAILURE_EXIT_CODE, Report, ScriptedCli, Settings};
use crate::script::{Script, ScriptError};
use crate::serve::Signal;
use crate::step::{Difference, Failure, FailureKind, Steps};

/// The environment variable naming the script file the binary runs.
pub const SCRIPT_ENV: &str = "CLAUDE_PROTO_TESTKIT_SCRIPT";
/// The environment variable naming the file the binary writes its verdict
/// to.
pub const OUTCOME_ENV: &str = "CLAUDE_PROTO_TESTKIT_OUTCOME";
/// The environment variable naming the binary itself, for
/// [`cli_binary`] (when it is not next to the test executable).
pub const CLI_ENV: &str = "CLAUDE_PROTO_TESTKIT_CLI";
/// The environment variable holding a [`Behaviour`](crate::Behaviour) as
/// JSON: the binary serves it (a script of no steps that serves), with no
/// file to save or remove. See [`serve_options`].
pub const SERVE_ENV: &str = "CLAUDE_PROTO_TESTKIT_SERVE";
/// The environment variable naming a file the binary writes its pid to
/// (and its grandchild's, see [`GRANDCHILD_ENV`]), one per line: for tests
/// of what outlives a session.
pub const PID_FILE_ENV: &str = "CLAUDE_PROTO_TESTKIT_PID_FILE";
/// Set to `1`, the binary starts `sleep 1000` holding its stdout and
/// stderr, which outlives it: a CLI that leaves a process behind (an MCP
/// server, a background shell).
pub const GRANDCHILD_ENV: &str = "CLAUDE_PROTO_TESTKIT_GRANDCHILD";
/// Set by the binary when it runs itself again under a shell that ignores
/// SIGTERM (a behaviour's `ignore_sigterm`).
const SIGTERM_IGNORED_ENV: &str = "CLAUDE_PROTO_TESTKIT_SIGTERM_IGNORED";
/// The binary's name.
pub const BINARY_NAME: &str = "claude-proto-testkit-cli";

/// The `claude-proto-testkit-cli` binary: the path in
/// `CLAUDE_PROTO_TESTKIT_CLI` if set, else the one cargo built next to the
/// running test executable (`target/debug/claude-proto-testkit-cli`).
///
/// Cargo builds a dependency's binaries only when asked: in a crate of
/// your own, run `cargo build -p claude-proto-testkit --bin
/// claude-proto-testkit-cli` before the tests (or install it and set the
/// variable). The error says where it looked.
pub fn cli_binary() -> Result<PathBuf, ChildError> {
    if let Some(path) = std::env::var_os(CLI_ENV) {
        let path = PathBuf::from(path);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(ChildError::NotFound {
                looked_in: vec![path],
            })
        };
    }
    let name = format!("{BINARY_NAME}{}", std::env::consts::EXE_SUFFIX);
    let exe = std::env::current_exe().map_err(|e| ChildError::Io {
        what: String::from("finding the running executable"),
        source: e,
    })?;
    // Tests run from target/<profile>/deps/, binaries sit in target/<profile>/.
    let looked_in: Vec<PathBuf> = exe
        .ancestors()
        .skip(1)
        .take(2)
        .map(|dir| dir.join(&name))
        .collect();
    match looked_in.iter().find(|path| path.is_file()) {
        Some(path) => Ok(path.clone()),
        None => Err(ChildError::NotFound { looked_in }),
    }
}

/// A script saved for the child-process CLI, with the file its verdict
/// comes back in. Both files are removed when it is dropped.
#[derive(Debug)]
#[must_use = "the verdict comes back through it"]
pub struct ChildScript {
    binary: PathBuf,
    script: PathBuf,
    outcome: PathBuf,
}

impl Script {
    /// Saves this script for the `claude-proto-testkit-cli` binary (located
    /// with [`cli_binary`]); start the session with
    /// [`ChildScript::options`]. Fails on a script that cannot be saved (a
    /// [`Matcher::Check`](crate::Matcher::Check)) or a binary not found.
    pub fn child(&self) -> Result<ChildScript, ChildError> {
        ChildScript::new(self, cli_binary()?)
    }

    /// [`child`](Self::child) with the binary at `binary`.
    pub fn child_with(&self, binary: impl Into<PathBuf>) -> Result<ChildScript, ChildError> {
        ChildScript::new(self, binary.into())
    }
}

/// `options` changed so that the session's CLI is `binary` (see
/// [`cli_binary`]) replaying `cassette` as the CLI: a recorded session
/// served back through the adapter's real spawn path. The binary exits 0
/// when the program did what the recording shows, else
/// [`FAILURE_EXIT_CODE`] with the failure on its stderr.
pub fn replay_options(
    options: Options,
    binary: &Path,
    cassette: &Path,
    replay: &crate::cassette::ReplayOptions,
) -> Options {
    let speed = match replay.speed {
        crate::cassette::Speed::Recorded => "recorded",
        _ => "fast",
    };
    let options = options
        .cli_path(binary)
        .env(crate::cassette::REPLAY_ENV, cassette)
        .env(crate::cassette::SPEED_ENV, speed);
    match &replay.require_cli_version {
        Some(version) => options.env(crate::cassette::CLI_VERSION_ENV, version),
        None => options,
    }
}

/// `options` changed so that the session's CLI is `binary` running the
/// real CLI at `real_cli` with the same arguments, and recording the
/// session to `cassette` (redacted by
/// [`Redactions::default_for_this_process`](crate::cassette::Redactions::default_for_this_process)).
/// The cassette is complete once the session has closed.
pub fn record_options(
    options: Options,
    binary: &Path,
    real_cli: &Path,
    cassette: &Path,
) -> Options {
    options
        .cli_path(binary)
        .env(crate::cassette::RECORD_ENV, cassette)
        .env(crate::cassette::REAL_CLI_ENV, real_cli)
}

/// `options` changed so that the session's CLI is `binary` (see
/// [`cli_binary`]) serving `behaviour` by itself: a whole CLI in one
/// environment variable ([`SERVE_ENV`]), for tests that go through an
/// adapter's real spawn path and need no steps. As a child, its stdout is
/// a real pipe: while the program leaves its output unread the CLI is
/// blocked writing, as the real one is (a behaviour's own
/// [`stdout_capacity`](crate::Behaviour::stdout_capacity), if set, is kept).
pub fn serve_options(options: Options, binary: &Path, behaviour: &crate::Behaviour) -> Options {
    options.cli_path(binary).env(
        SERVE_ENV,
        crate::serve::json::to_json(behaviour).to_string(),
    )
}

static FILES: AtomicU64 = AtomicU64::new(0);

/// A new file name in the temp directory, unique to this process and call.
fn temp_path(kind: &str) -> PathBuf {
    let n = FILES.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    std::env::temp_dir().join(format!(
        "claude-proto-testkit-{}-{n}-{nanos:x}.{kind}.json",
        std::process::id()
    ))
}

impl ChildScript {
    fn new(script: &Script, binary: PathBuf) -> Result<Self, ChildError> {
        let text = script.to_json().map_err(ChildError::Script)?.to_string();
        let path = temp_path("script");
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| ChildError::io(format!("creating {}", path.display()), e))?;
        file.write_all(text.as_bytes())
            .map_err(|e| ChildError::io(format!("writing {}", path.display()), e))?;
        Ok(Self {
            binary,
            script: path,
            outcome: temp_path("outcome"),
        })
    }

    /// Default [`Options`] that start the binary on this script.
    pub fn options(&self) -> Options {
        self.apply(Options::default())
    }

    /// `options` changed to start the binary on this script: its path as
    /// the CLI's, the two files in its environment.
    pub fn apply(&self, options: Options) -> Options {
        options
            .cli_path(&self.binary)
            .env(SCRIPT_ENV, &self.script)
            .env(OUTCOME_ENV, &self.outcome)
    }

    /// The environment [`apply`](Self::apply) gives the binary (the
    /// script's file and the verdict's), for a launcher of your own.
    pub fn env(&self) -> [(&'static str, &Path); 2] {
        [(SCRIPT_ENV, &self.script), (OUTCOME_ENV, &self.outcome)]
    }

    /// The binary this script runs on.
    pub fn binary(&self) -> &Path {
        &self.binary
    }

    /// The binary's verdict, once it has exited (close the session
    /// first): its outcome and the arguments it was started with.
    pub fn outcome(&self) -> Result<ChildOutcome, ChildError> {
        outcome_from_file(&self.outcome)
    }
}

/// The verdict the binary wrote to `path` (the file named by
/// [`OUTCOME_ENV`]), read back: call it once the session has closed. For
/// a CLI started with [`serve_options`] and [`OUTCOME_ENV`] set; a
/// [`ChildScript`] reads its own with [`ChildScript::outcome`].
pub fn outcome_from_file(path: &Path) -> Result<ChildOutcome, ChildError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        ChildError::io(
            format!(
                "reading the verdict {} (did the binary run and exit?)",
                path.display()
            ),
            e,
        )
    })?;
    let value: Value =
        serde_json::from_str(&text).map_err(|e| ChildError::Verdict(e.to_string()))?;
    verdict_from_json(&value).map_err(ChildError::Verdict)
}

impl Drop for ChildScript {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.script);
        let _ = std::fs::remove_file(&self.outcome);
    }
}

/// What the child-process CLI reported.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ChildOutcome {
    /// The run's outcome.
    pub outcome: Result<Report, Failure>,
    /// The arguments the binary was started with (the CLI's flags the
    /// adapter passed).
    pub args: Vec<String>,
    /// The `CLAUDE_CONFIG_DIR` the binary was started with, if any (where a
    /// serving CLI kept the session's transcript).
    pub config_dir: Option<String>,
}

/// Why the child-process CLI could not be set up or its verdict read.
#[derive(Debug)]
#[non_exhaustive]
pub enum ChildError {
    /// The binary was not found where it was looked for.
    NotFound {
        /// Where it was looked for.
        looked_in: Vec<PathBuf>,
    },
    /// The script cannot be saved.
    Script(ScriptError),
    /// A file could not be written or read.
    Io {
        /// What was being done.
        what: String,
        /// The error.
        source: io::Error,
    },
    /// The verdict file is not one the binary writes.
    Verdict(String),
}

impl ChildError {
    fn io(what: String, source: io::Error) -> Self {
        Self::Io { what, source }
    }
}

impl fmt::Display for ChildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotFound { looked_in } => {
                write!(f, "the {BINARY_NAME} binary was not found (looked at ")?;
                for (i, path) in looked_in.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{}", path.display())?;
                }
                write!(
                    f,
                    "); build it with `cargo build -p claude-proto-testkit --bin {BINARY_NAME}` \
                     or set {CLI_ENV} to its path"
                )
            }
            Self::Script(e) => write!(f, "{e}"),
            Self::Io { what, source } => write!(f, "{what}: {source}"),
            Self::Verdict(why) => write!(f, "the scripted CLI's verdict cannot be read: {why}"),
        }
    }
}

impl std::error::Error for ChildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Script(e) => Some(e),
            Self::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// The next event within `wait`: looked for (a [`Look`](crate::pipe::Look)
/// of up to [`SPIN`](crate::pipe::SPIN)) before sleeping on the queue, as
/// the in-process pipes do: the program's answer in a replay usually
/// comes sooner than a sleeping thread wakes. Measured: the tokio replay
/// through this binary went from 338-454k to 449-606k messages/s.
fn recv_soon<T>(queue: &mpsc::Receiver<T>, wait: Duration) -> Result<T, mpsc::RecvTimeoutError> {
    let start = Instant::now();
    let look = crate::pipe::Look::start(true, start);
    loop {
        match queue.try_recv() {
            Ok(event) => return Ok(event),
            Err(mpsc::TryRecvError::Disconnected) => {
                return Err(mpsc::RecvTimeoutError::Disconnected);
            }
            Err(mpsc::TryRecvError::Empty) => {}
        }
        let now = Instant::now();
        if !look.lasts(now) || now.duration_since(start) >= wait {
            break;
        }
        std::thread::yield_now();
    }
    queue.recv_timeout(wait.saturating_sub(start.elapsed()))
}

/// Serves `steps` as the CLI on this process's stdin, stdout and stderr,
/// on the wall clock, until the outcome is known; prints the verdict on
/// stderr (and to the file named by `CLAUDE_PROTO_TESTKIT_OUTCOME`) and
/// returns the exit code. What the binary's modes call.
///
/// A script's write to stdout that the program has not taken within the
/// settings' step deadline ends the run with a [`FailureKind::Timeout`],
/// as every step ends at a deadline; a serving CLI (`settings.serve`)
/// waits on its output as the real CLI does, as long as the program
/// takes (ten minutes at most, for a program stuck for good); and stdin is read only a few chunks ahead of
/// the steps, so [`Settings::max_queued_bytes`] bounds what waits in
/// memory.
pub fn serve_stdio(steps: impl Steps + Send + 'static, settings: Settings) -> i32 {
    serve_stdio_keeping(steps, settings, None)
}

/// [`serve_stdio`], appending the session's transcript entries to
/// `transcript` as they are made.
fn serve_stdio_keeping(
    steps: impl Steps + Send + 'static,
    mut settings: Settings,
    transcript: Option<&Path>,
) -> i32 {
    // A serving CLI is a process blocked on its pipe while a write is
    // pending: it reads nothing then, so what the program writes waits in
    // the pipe, as with a CLI whose output is not read.
    let serving = settings.serve.is_some();
    if let Some(behaviour) = settings.serve.as_mut() {
        // Our stdout is a pipe: a CLI whose output is not read blocks.
        behaviour.stdout_capacity.get_or_insert(PIPE_BYTES);
        // `initialize` reports the CLI's own pid.
        behaviour.pid = std::process::id();
    }
    // A script's write ends at the step deadline, as every step does. A
    // serving CLI plays the real one, which waits on a full pipe as long
    // as the program takes: a program that reads slowly (a busy machine,
    // a large read-ahead drained before it reads again) is not a failure.
    // Only a program stuck for good is, after the hang bound below.
    let write_deadline = if serving {
        HANG_BOUND
    } else {
        settings.step_deadline
    };
    // One queue for all that wakes the loop (input, writes done), bounded
    // so that a reader running ahead of the steps blocks instead of
    // growing memory past the engine's own queue limit.
    let (events, wake) = mpsc::sync_channel::<Event>(QUEUED_EVENTS);
    // Reading stdin blocks with no timeout: a thread of its own does it,
    // one chunk per permit, so that a CLI that does not read leaves the
    // program's writes in the pipe, as the real one does.
    let (permits, permitted) = mpsc::sync_channel::<()>(QUEUED_EVENTS);
    let reader_events = events.clone();
    let reader = std::thread::Builder::new()
        .name(String::from("stdin"))
        .spawn(move || read_stdin(&permitted, &reader_events));
    let mut input = Input::default();
    if reader.is_err() {
        // No thread to read it: the input is as good as closed.
        input.ended = true;
    }
    // Writing stdout blocks with no timeout too: a thread of its own does
    // it, and the loop gives up on a write that does not end in time.
    let (batches, to_write) = mpsc::sync_channel::<Vec<u8>>(1);
    let writer_events = events.clone();
    let writer = std::thread::Builder::new()
        .name(String::from("stdout"))
        .spawn(move || write_stdout(&to_write, &writer_events));
    // Held here so that the queue never disconnects: the loop's waits
    // stay waits once both threads are done.
    let _events = events;
    let mut cli = ScriptedCli::new(steps, settings, Instant::now());
    let mut stderr = io::stderr();
    let mut output_open = writer.is_ok();
    // When the batch the writer holds was handed over; one at a time, so
    // the engine's own output limit bounds what waits to be written.
    let mut writing: Option<Instant> = None;
    let mut engine_ended = false;
    let keep = |cli: &mut ScriptedCli| {
        let (Some(file), Some(simulation)) = (transcript, cli.serving_mut()) else {
            return;
        };
        if let Err(e) = append_transcript(file, &simulation.take_transcript()) {
            let _ = writeln!(
                io::stderr(),
                "{BINARY_NAME}: the transcript {}: {e}",
                file.display()
            );
        }
    };
    let outcome = loop {
        if !(serving && writing.is_some()) {
            input.hand_over(&mut cli);
            input.permit(&cli, &permits);
        }
        // Before the output that mirrors them, as the real CLI writes them.
        keep(&mut cli);
        if writing.is_none() {
            let mut batch = Vec::new();
            while let Some(line) = cli.poll_stdout() {
                batch.extend_from_slice(&line);
            }
            if output_open && !batch.is_empty() {
                if batches.send(batch).is_ok() {
                    writing = Some(Instant::now());
                } else {
                    output_open = false;
                }
            }
        }
        while let Some(text) = cli.poll_stderr() {
            let _ = stderr.write_all(&text);
        }
        // The outcome stands once the program has what was written before
        // it (a result line, say).
        if writing.is_none() {
            if let Some(outcome) = cli.take_outcome() {
                engine_ended = true;
                break outcome;
            }
        }
        let now = Instant::now();
        let write_due = writing.map(|since| crate::engine::deadline(since, write_deadline));
        if write_due.is_some_and(|due| due <= now) {
            break write_timeout(write_deadline);
        }
        let due = match (cli.poll_timeout(), write_due) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        // With no timer, look again once a second: nothing but time may
        // move the engine on once the input has ended.
        let wait = due.map_or(Duration::from_secs(1), |at| {
            at.saturating_duration_since(now)
        });
        // Nothing to do until the program writes or a timer fires: prepare
        // the next steps meanwhile (a replay reads its recording while the
        // program reads what was sent), then look again.
        if !wait.is_zero() && cli.read_ahead() {
            continue;
        }
        match recv_soon(&wake, wait) {
            Ok(Event::Input(bytes)) => input.arrived(Some(bytes)),
            Ok(Event::InputEnd) => input.arrived(None),
            Ok(Event::Wrote) => writing = None,
            // The program closed its reading end: what it does next
            // (closing its writing end, say) decides.
            Ok(Event::WriteFailed) => {
                writing = None;
                output_open = false;
            }
            Err(_) => cli.handle_timeout(Instant::now()),
        }
    };
    keep(&mut cli);
    let code = cli.exit_code();
    verdict(&outcome, &mut stderr);
    if engine_ended && !cli.stdout_closed() {
        // A hang: neither read nor write, and let the program's deadlines
        // end it (with a signal); give up after the hang bound.
        let start = Instant::now();
        while start.elapsed() < HANG_BOUND {
            std::thread::sleep(Duration::from_secs(1));
        }
    }
    // The writer is idle here, or stuck in a write the program will never
    // take: it is not waited for (the process exits with it).
    drop(batches);
    code.unwrap_or(match outcome {
        Ok(_) => 0,
        Err(_) => FAILURE_EXIT_CODE,
    })
}

/// How long a serving CLI waits on a program that takes nothing, and a
/// hung CLI on the program's signal, before it gives up by itself: a
/// safety net for a program gone astray, far past any wait a test makes.
const HANG_BOUND: Duration = Duration::from_secs(600);

/// What a pipe holds on Linux (and macOS), in bytes: the output a serving
/// CLI may have waiting before it is blocked writing.
const PIPE_BYTES: usize = 64 * 1024;

/// Stdin between the reading thread and the engine: chunks read but not
/// yet wanted (at most one per permit) and the permits out.
#[derive(Default)]
struct Input {
    held: std::collections::VecDeque<Vec<u8>>,
    /// The reader saw the end of the input (handed over after `held`).
    ended: bool,
    /// The end was handed to the engine.
    end_given: bool,
    permits_out: usize,
}

impl Input {
    /// What the reader sent: a chunk, or the end (`None`).
    fn arrived(&mut self, chunk: Option<Vec<u8>>) {
        self.permits_out = self.permits_out.saturating_sub(1);
        match chunk {
            Some(bytes) => self.held.push_back(bytes),
            None => self.ended = true,
        }
    }

    /// Hands what was read to the engine while it reads.
    fn hand_over(&mut self, cli: &mut ScriptedCli) {
        while cli.wants_stdin() {
            if let Some(bytes) = self.held.pop_front() {
                cli.handle_stdin(&bytes, Instant::now());
            } else if self.ended && !self.end_given {
                self.end_given = true;
                cli.handle_stdin_end(Instant::now());
            } else {
                return;
            }
        }
    }

    /// Lets the reader read on while the engine reads and nothing waits.
    fn permit(&mut self, cli: &ScriptedCli, permits: &mpsc::SyncSender<()>) {
        while cli.wants_stdin()
            && self.held.is_empty()
            && !self.ended
            && self.permits_out < QUEUED_EVENTS
            && permits.try_send(()).is_ok()
        {
            self.permits_out += 1;
        }
    }
}

/// How many events (input chunks of up to 64 KiB, mostly) may wait for
/// the loop: the input read ahead of the steps.
const QUEUED_EVENTS: usize = 4;

/// What wakes [`serve_stdio`]'s loop.
enum Event {
    /// Bytes from stdin.
    Input(Vec<u8>),
    /// Stdin ended (or failed).
    InputEnd,
    /// The writer wrote and flushed its batch.
    Wrote,
    /// Stdout is closed (or failed): nothing more is written.
    WriteFailed,
}

/// Reads stdin into `events`, one chunk per permit, until it ends or the
/// loop is gone.
fn read_stdin(permits: &mpsc::Receiver<()>, events: &mpsc::SyncSender<Event>) {
    let mut stdin = io::stdin().lock();
    let mut buf = vec![0; 64 * 1024];
    while permits.recv().is_ok() {
        let read = loop {
            match stdin.read(&mut buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                other => break other,
            }
        };
        let event = match read {
            Ok(n) if n > 0 => Event::Input(buf[..n].to_vec()),
            _ => Event::InputEnd,
        };
        let ended = matches!(event, Event::InputEnd);
        if events.send(event).is_err() || ended {
            return;
        }
    }
}

/// Writes each batch to stdout, saying in `events` when it is done, until
/// the batches end, a write fails or the loop is gone.
fn write_stdout(batches: &mpsc::Receiver<Vec<u8>>, events: &mpsc::SyncSender<Event>) {
    let mut stdout = io::stdout().lock();
    for batch in batches {
        let written = stdout.write_all(&batch).and_then(|()| stdout.flush());
        let event = match written {
            Ok(()) => Event::Wrote,
            Err(_) => Event::WriteFailed,
        };
        let failed = matches!(event, Event::WriteFailed);
        if events.send(event).is_err() || failed {
            return;
        }
    }
}

/// The failure of a write the program did not take within `waited`: the
/// in-process runner's, word for word.
fn write_timeout(waited: Duration) -> Result<Report, Failure> {
    Err(Failure::new(
        0,
        "writing to the program",
        FailureKind::Timeout {
            expected: String::from("the program to read the CLI's output"),
            waited,
        },
    ))
}

/// Prints the verdict on stderr and to the verdict file, if one is named.
fn verdict(outcome: &Result<Report, Failure>, stderr: &mut impl Write) {
    let _ = match outcome {
        Ok(report) => writeln!(
            stderr,
            "{BINARY_NAME}: the script passed ({} steps, {} lines sent, {} received)",
            report.steps, report.lines_sent, report.lines_received
        ),
        Err(failure) => writeln!(stderr, "{BINARY_NAME}: {failure}"),
    };
    if let Some(path) = std::env::var_os(OUTCOME_ENV) {
        let args: Vec<String> = std::env::args_os()
            .skip(1)
            .map(|a: OsString| a.to_string_lossy().into_owned())
            .collect();
        let text = verdict_to_json(outcome, &args).to_string();
        if let Err(e) = std::fs::write(&path, text) {
            let _ = writeln!(
                stderr,
                "{BINARY_NAME}: cannot write the verdict to {}: {e}",
                PathBuf::from(path).display()
            );
        }
    }
}

fn verdict_to_json(outcome: &Result<Report, Failure>, args: &[String]) -> Value {
    let outcome = match outcome {
        Ok(report) => json!({"passed": {
            "steps": report.steps, "lines_sent": report.lines_sent,
            "lines_received": report.lines_received, "received": report.received,
            "received_complete": report.received_complete, "initialize": report.initialize,
            "stderr": report.stderr, "exit_code": report.exit_code,
            "requests": report.requests,
        }}),
        Err(failure) => json!({"failed": failure_to_json(failure)}),
    };
    let config_dir =
        std::env::var_os("CLAUDE_CONFIG_DIR").map(|d| d.to_string_lossy().into_owned());
    json!({"outcome": outcome, "args": args, "config_dir": config_dir})
}

fn verdict_from_json(value: &Value) -> Result<ChildOutcome, String> {
    let args = value["args"]
        .as_array()
        .ok_or("no args")?
        .iter()
        .map(|a| {
            a.as_str()
                .map(str::to_owned)
                .ok_or("an arg is not a string")
        })
        .collect::<Result<Vec<_>, _>>()?;
    let outcome = &value["outcome"];
    let outcome = if let Some(r) = outcome.get("passed") {
        let count = |key: &str| {
            r[key]
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .ok_or(format!("{key} is not a count"))
        };
        Ok(Report {
            steps: count("steps")?,
            lines_sent: count("lines_sent")?,
            lines_received: count("lines_received")?,
            received: r["received"]
                .as_array()
                .map(|lines| {
                    lines
                        .iter()
                        .filter_map(|l| l.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default(),
            received_complete: r["received_complete"].as_bool().unwrap_or(false),
            initialize: r.get("initialize").filter(|v| !v.is_null()).cloned(),
            stderr: r["stderr"].as_str().unwrap_or_default().to_owned(),
            exit_code: r["exit_code"].as_i64().and_then(|c| i32::try_from(c).ok()),
            requests: r["requests"].as_array().cloned().unwrap_or_default(),
        })
    } else if let Some(f) = outcome.get("failed") {
        Err(failure_from_json(f)?)
    } else {
        return Err(String::from("neither passed nor failed"));
    };
    let config_dir = value["config_dir"].as_str().map(str::to_owned);
    Ok(ChildOutcome {
        outcome,
        args,
        config_dir,
    })
}

fn failure_to_json(failure: &Failure) -> Value {
    let difference = |d: &Option<Difference>| {
        d.as_ref()
            .map(|d| json!({"path": d.path, "expected": d.expected, "actual": d.actual}))
    };
    let kind = match &failure.kind {
        FailureKind::Mismatch {
            expected,
            actual,
            difference: d,
        } => json!({"mismatch": {"expected": expected, "actual": actual,
                                  "difference": difference(d)}}),
        FailureKind::Timeout { expected, waited } => {
            json!({"timeout": {"expected": expected, "waited_ms": waited.as_millis() as u64}})
        }
        FailureKind::ProgramClosed { expected } => {
            json!({"program_closed": {"expected": expected}})
        }
        FailureKind::Unexpected { actual } => json!({"unexpected": {"actual": actual}}),
        FailureKind::Source(why) => json!({"source": why}),
        FailureKind::LineTooLong { limit } => json!({"line_too_long": {"limit": limit}}),
        FailureKind::QueueFull { limit } => json!({"queue_full": {"limit": limit}}),
        FailureKind::Unresolved { what } => json!({"unresolved": {"what": what}}),
        FailureKind::InvalidStep(why) => json!({"invalid_step": why}),
        FailureKind::Signalled { signal } => json!({"signalled": {"signal": match signal {
            Signal::Term => "term",
            Signal::Kill => "kill",
        }}}),
    };
    json!({"step": failure.step, "label": failure.label, "kind": kind})
}

fn failure_from_json(value: &Value) -> Result<Failure, String> {
    let text = |v: &Value, key: &str| {
        v[key]
            .as_str()
            .map(str::to_owned)
            .ok_or(format!("{key} is not a string"))
    };
    let size = |v: &Value, key: &str| {
        v[key]
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .ok_or(format!("{key} is not a number"))
    };
    let k = &value["kind"];
    let kind = if let Some(m) = k.get("mismatch") {
        let difference = match m.get("difference") {
            Some(d) if !d.is_null() => Some(Difference {
                path: text(d, "path")?,
                expected: text(d, "expected")?,
                actual: text(d, "actual")?,
            }),
            _ => None,
        };
        FailureKind::Mismatch {
            expected: text(m, "expected")?,
            actual: text(m, "actual")?,
            difference,
        }
    } else if let Some(t) = k.get("timeout") {
        FailureKind::Timeout {
            expected: text(t, "expected")?,
            waited: Duration::from_millis(t["waited_ms"].as_u64().ok_or("waited_ms")?),
        }
    } else if let Some(p) = k.get("program_closed") {
        FailureKind::ProgramClosed {
            expected: text(p, "expected")?,
        }
    } else if let Some(u) = k.get("unexpected") {
        FailureKind::Unexpected {
            actual: text(u, "actual")?,
        }
    } else if k.get("source").is_some() {
        FailureKind::Source(text(k, "source")?)
    } else if let Some(l) = k.get("line_too_long") {
        FailureKind::LineTooLong {
            limit: size(l, "limit")?,
        }
    } else if let Some(q) = k.get("queue_full") {
        FailureKind::QueueFull {
            limit: size(q, "limit")?,
        }
    } else if let Some(u) = k.get("unresolved") {
        FailureKind::Unresolved {
            what: text(u, "what")?,
        }
    } else if let Some(s) = k.get("signalled") {
        FailureKind::Signalled {
            signal: match s["signal"].as_str() {
                Some("kill") => Signal::Kill,
                Some("term") => Signal::Term,
                _ => return Err(String::from("signal is neither kill nor term")),
            },
        }
    } else if k.get("invalid_step").is_some() {
        FailureKind::InvalidStep(text(k, "invalid_step")?)
    } else {
        return Err(format!("an unknown failure kind: {k}"));
    };
    Ok(Failure::new(
        size(value, "step")?,
        text(value, "label")?,
        kind,
    ))
}

/// What the binary is asked to do. A new mode is a variant, a line in
/// `from_env` and an arm in `main`.
enum Mode {
    /// Run a saved script.
    Script(PathBuf),
    /// Serve a behaviour given inline.
    Serve(String),
    /// Replay a cassette.
    Replay(PathBuf, crate::cassette::ReplayOptions),
    /// Run the real CLI (the first path) and record to the cassette.
    Record(PathBuf, PathBuf),
}

impl Mode {
    fn from_env() -> Result<Self, String> {
        if let Some(path) = std::env::var_os(SCRIPT_ENV) {
            return Ok(Self::Script(PathBuf::from(path)));
        }
        if let Some(behaviour) = std::env::var_os(SERVE_ENV) {
            return behaviour.into_string().map(Self::Serve).map_err(|_| {
                format!(
                    "{SERVE_ENV} is not UTF-8: set it to a behaviour's JSON \
                         (Behaviour::to_json, or child::serve_options)"
                )
            });
        }
        if let Some(path) = std::env::var_os(crate::cassette::REPLAY_ENV) {
            let speed = match std::env::var(crate::cassette::SPEED_ENV).as_deref() {
                Ok("recorded") => crate::cassette::Speed::Recorded,
                Ok("fast") | Err(_) => crate::cassette::Speed::AsFastAsPossible,
                Ok(other) => {
                    return Err(format!(
                        "{}={other}: expected `recorded` or `fast`",
                        crate::cassette::SPEED_ENV
                    ));
                }
            };
            let options = crate::cassette::ReplayOptions {
                speed,
                require_cli_version: std::env::var(crate::cassette::CLI_VERSION_ENV).ok(),
                // Spawned as the CLI was: in the session's directory, with
                // its environment, so these are the session's paths.
                restore: Some(crate::cassette::ProcessFacts::of_this_process()),
            };
            return Ok(Self::Replay(PathBuf::from(path), options));
        }
        if let Some(cassette) = std::env::var_os(crate::cassette::RECORD_ENV) {
            let Some(cli) = std::env::var_os(crate::cassette::REAL_CLI_ENV) else {
                return Err(format!(
                    "{} is set but {} is not: name the real CLI to record",
                    crate::cassette::RECORD_ENV,
                    crate::cassette::REAL_CLI_ENV
                ));
            };
            return Ok(Self::Record(PathBuf::from(cli), PathBuf::from(cassette)));
        }
        Err(format!(
            "nothing to do: set {SCRIPT_ENV} to a script file, {SERVE_ENV} to a behaviour, {} to \
             a cassette, or {} and {} \
             (this binary stands in for the claude CLI in tests)",
            crate::cassette::REPLAY_ENV,
            crate::cassette::RECORD_ENV,
            crate::cassette::REAL_CLI_ENV
        ))
    }
}

/// The `claude-proto-testkit-cli` binary's whole work, for a binary of
/// your own package (cargo builds a dependency's binaries only when asked,
/// and `env!("CARGO_BIN_EXE_..")` names only your own): a `src/bin` file
/// whose `main` is
/// `std::process::exit(claude_proto_testkit::child::main_from_env())`.
///
/// The mode comes from the environment: [`SCRIPT_ENV`] runs a saved
/// script, [`REPLAY_ENV`](crate::cassette::REPLAY_ENV) replays a cassette
/// (restoring its path placeholders as this process's directories),
/// [`RECORD_ENV`](crate::cassette::RECORD_ENV) with
/// [`REAL_CLI_ENV`](crate::cassette::REAL_CLI_ENV) records the real CLI.
/// Returns the exit code: the script's or the CLI's, or
/// [`FAILURE_EXIT_CODE`] when the run failed.
pub fn main_from_env() -> i32 {
    if let Err(why) = process_knobs() {
        return fail(&why);
    }
    match Mode::from_env() {
        Ok(Mode::Script(path)) => match Script::load(&path) {
            Ok(script) => serve_script(script),
            Err(e) => fail(&e.to_string()),
        },
        Ok(Mode::Serve(text)) => {
            let behaviour = serde_json::from_str(&text)
                .map_err(|e| e.to_string())
                .and_then(|value| crate::serve::json::from_json(&value));
            match behaviour {
                Ok(behaviour) => serve_script(Script::new().serve(behaviour)),
                Err(why) => fail(&format!(
                    "{SERVE_ENV}: {why} (set it to a behaviour's JSON: Behaviour::to_json, or \
                     child::serve_options)"
                )),
            }
        }
        Ok(Mode::Replay(path, options)) => match crate::cassette::Replay::open(&path, options) {
            Ok(replay) => serve_stdio(replay, Settings::replay()),
            Err(e) => fail(&format!("{}: {e}", path.display())),
        },
        Ok(Mode::Record(cli, cassette)) => {
            let args = std::env::args_os().skip(1);
            match crate::cassette::run_wrapper(
                &cli,
                args,
                &cassette,
                crate::cassette::Redactions::default_for_this_process(),
            ) {
                Ok(code) => code,
                Err(e) => fail(&format!("recording {}: {e}", cli.display())),
            }
        }
        Err(why) => fail(&why),
    }
}

/// The pid file and the grandchild ([`PID_FILE_ENV`], [`GRANDCHILD_ENV`]).
fn process_knobs() -> Result<(), String> {
    let pid_file = std::env::var_os(PID_FILE_ENV).map(PathBuf::from);
    let record = |pid: u32| -> Result<(), String> {
        let Some(path) = &pid_file else {
            return Ok(());
        };
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .and_then(|mut file| writeln!(file, "{pid}"))
            .map_err(|e| format!("{PID_FILE_ENV}: {}: {e}", path.display()))
    };
    // Once: not again when run anew under a shell (ignore_sigterm).
    if std::env::var_os(SIGTERM_IGNORED_ENV).is_some() {
        return Ok(());
    }
    record(std::process::id())?;
    if std::env::var_os(GRANDCHILD_ENV).is_some_and(|v| v == "1") {
        // It inherits our stdout and stderr, and outlives us.
        let child = std::process::Command::new("sleep")
            .arg("1000")
            .stdin(std::process::Stdio::null())
            .spawn()
            .map_err(|e| format!("{GRANDCHILD_ENV}: cannot start sleep: {e}"))?;
        record(child.id())?;
    }
    Ok(())
}

/// Runs `script` on this process's stdio. A behaviour that ignores SIGTERM
/// runs this binary again under a shell that ignores it (std has no signal
/// handling without unsafe code, but an ignored signal stays ignored
/// across `exec`); where there is no such shell, it is refused.
fn serve_script(script: Script) -> i32 {
    let ignores_sigterm = script
        .get_settings()
        .serve
        .as_ref()
        .is_some_and(|b| b.ignore_sigterm);
    if ignores_sigterm && std::env::var_os(SIGTERM_IGNORED_ENV).is_none() {
        return run_ignoring_sigterm();
    }
    let (steps, mut settings) = script.into_parts();
    let session = settings.serve.is_some().then(session_facts).flatten();
    let file = session.as_ref().map(|facts| PathBuf::from(&facts.file));
    settings.session = session;
    serve_stdio_keeping(steps, settings, file.as_deref())
}

/// This binary again, with the same arguments, under `sh` with SIGTERM
/// ignored; returns only on failure.
#[cfg(unix)]
fn run_ignoring_sigterm() -> i32 {
    use std::os::unix::process::CommandExt;
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => return fail(&format!("ignore_sigterm: cannot find this binary: {e}")),
    };
    let error = std::process::Command::new("sh")
        .arg("-c")
        .arg("trap '' TERM; exec \"$0\" \"$@\"")
        .arg(exe)
        .args(std::env::args_os().skip(1))
        .env(SIGTERM_IGNORED_ENV, "1")
        .exec();
    fail(&format!("ignore_sigterm: cannot run sh: {error}"))
}

#[cfg(not(unix))]
fn run_ignoring_sigterm() -> i32 {
    fail(
        "the script serves with ignore_sigterm, which this platform's process cannot play: run \
         it in process (Script::start) or by hand (ScriptedCli)",
    )
}

/// The session's transcript facts, as the real CLI finds them: kept only
/// when `CLAUDE_CONFIG_DIR` is set, `--resume <id>` or `--session-mirror`
/// is given (so that a test run writes nothing in the user's own config
/// directory), in `<config>/projects/<project key>/<session id>.jsonl`
/// (config: `CLAUDE_CONFIG_DIR`, else `~/.claude`; the project key of the
/// working directory, as the CLI makes it).
fn session_facts() -> Option<crate::serve::transcript::SessionFacts> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let resume = flag_value(&args, "--resume");
    let mirror = args.iter().any(|a| a == "--session-mirror");
    let config = std::env::var_os("CLAUDE_CONFIG_DIR").map(PathBuf::from);
    if config.is_none() && resume.is_none() && !mirror {
        return None;
    }
    let config = config
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".claude")))?;
    let cwd = std::env::current_dir().ok()?.display().to_string();
    let key = claude_proto::transcript::project_key(&cwd);
    let session_id = resume.unwrap_or_else(new_session_id);
    let file = config
        .join("projects")
        .join(key)
        .join(format!("{session_id}.jsonl"));
    let history = std::fs::read_to_string(&file)
        .map(|text| text.lines().filter(|l| !l.trim().is_empty()).count())
        .unwrap_or(0);
    Some(crate::serve::transcript::SessionFacts {
        session_id,
        file: file.display().to_string(),
        cwd,
        history,
        mirror,
    })
}

/// The value after `flag` (`--flag value` or `--flag=value`).
fn flag_value(args: &[String], flag: &str) -> Option<String> {
    let prefix = format!("{flag}=");
    args.iter().enumerate().find_map(|(i, arg)| {
        if arg == flag {
            args.get(i + 1).cloned()
        } else {
            arg.strip_prefix(&prefix).map(str::to_owned)
        }
    })
}

/// A session id of the UUID shape, unique to this process and moment.
fn new_session_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let pid = std::process::id();
    format!(
        "{pid:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        (nanos >> 48) & 0xffff,
        (nanos >> 36) & 0xfff,
        (nanos >> 24) & 0xfff,
        nanos & 0xffff_ffff_ffff
    )
}

/// Appends `entries` to the transcript `file`.
fn append_transcript(file: &Path, entries: &[Value]) -> io::Result<()> {
    if entries.is_empty() {
        return Ok(());
    }
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(file)?;
    let mut text = String::new();
    for entry in entries {
        text.push_str(&entry.to_string());
        text.push('\n');
    }
    out.write_all(text.as_bytes())
}

/// Says why on stderr; the failure exit code.
fn fail(why: &str) -> i32 {
    eprintln!("{BINARY_NAME}: {why}");
    FAILURE_EXIT_CODE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recv_soon_takes_what_comes_and_ends_on_time_or_disconnection() {
        let (events, queue) = mpsc::channel();
        events.send(1).expect("queued");
        assert_eq!(recv_soon(&queue, Duration::from_secs(60)), Ok(1));
        // From another thread, while it looks or sleeps.
        let sending = std::thread::spawn(move || {
            events.send(2).expect("queued");
            events
        });
        assert_eq!(recv_soon(&queue, Duration::from_secs(60)), Ok(2));
        let events = sending.join().expect("sent");
        assert_eq!(
            recv_soon(&queue, Duration::from_millis(1)),
            Err(mpsc::RecvTimeoutError::Timeout)
        );
        drop(events);
        assert_eq!(
            recv_soon(&queue, Duration::from_secs(60)),
            Err(mpsc::RecvTimeoutError::Disconnected)
        );
    }

    #[test]
    fn verdicts_round_trip() {
        let failures = [
            FailureKind::Mismatch {
                expected: "a".into(),
                actual: "b".into(),
                difference: Some(Difference {
                    path: "/x".into(),
                    expected: "1".into(),
                    actual: "2".into(),
                }),
            },
            FailureKind::Mismatch {
                expected: "a".into(),
                actual: "b".into(),
                difference: None,
            },
            FailureKind::Timeout {
                expected: "e".into(),
                waited: Duration::from_millis(1500),
            },
            FailureKind::ProgramClosed {
                expected: "e".into(),
            },
            FailureKind::Unexpected { actual: "x".into() },
            FailureKind::Source("s".into()),
            FailureKind::LineTooLong { limit: 7 },
            FailureKind::QueueFull { limit: 9 },
            FailureKind::Unresolved { what: "w".into() },
            FailureKind::InvalidStep("i".into()),
        ];
        for kind in failures {
            let outcome = Err(Failure::new(3, "label", kind));
            let args = vec![String::from("--verbose")];
            let back = verdict_from_json(&verdict_to_json(&outcome, &args)).expect("reads");
            assert_eq!(back.outcome, outcome);
            assert_eq!(back.args, args);
        }
        let report = Report {
            steps: 2,
            lines_sent: 3,
            lines_received: 4,
            received: vec!["{}".into()],
            received_complete: true,
            initialize: Some(json!({"type": "control_request"})),
            stderr: "e\n".into(),
            exit_code: Some(0),
            requests: vec![json!({"type": "control_request"})],
        };
        let back = verdict_from_json(&verdict_to_json(&Ok(report.clone()), &[])).expect("reads");
        assert_eq!(back.outcome, Ok(report));
    }

    #[test]
    fn a_missing_binary_says_where_it_looked_and_how_to_build_it() {
        let error = ChildError::NotFound {
            looked_in: vec![PathBuf::from("a/b"), PathBuf::from("c")],
        };
        let text = error.to_string();
        assert!(text.contains("a/b, c"), "{text}");
        assert!(
            text.contains("cargo build -p claude-proto-testkit"),
            "{text}"
        );
    }
}
