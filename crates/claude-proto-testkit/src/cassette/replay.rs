//! A cassette replayed as the CLI: a source of [`Step`]s for the scripted
//! CLI's engine.

use std::borrow::Cow;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::format::{FrameKind, Header, Line};
use super::read::{CassetteError, CassetteErrorKind, CassetteReader};
use super::redact::ProcessFacts;
use super::restore::Restore;
use crate::step::{Matcher, Outgoing, Step, Steps};

/// The environment variable that makes the `claude-proto-testkit-cli`
/// binary replay the cassette it names, as the CLI.
pub const REPLAY_ENV: &str = "CLAUDE_PROTO_TESTKIT_REPLAY";
/// The environment variable that sets the binary's replay speed:
/// `recorded`, or `fast` (the default).
pub const SPEED_ENV: &str = "CLAUDE_PROTO_TESTKIT_SPEED";
/// The environment variable that makes the binary refuse a cassette
/// recorded with another CLI version ([`ReplayOptions::require_cli_version`]).
pub const CLI_VERSION_ENV: &str = "CLAUDE_PROTO_TESTKIT_CLI_VERSION";

/// How fast a replay sends what the CLI wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Speed {
    /// With the recorded gaps: each CLI line waits as long after the frame
    /// before it as it did when recorded.
    Recorded,
    /// Without waiting.
    #[default]
    AsFastAsPossible,
}

/// How to replay a cassette.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplayOptions {
    /// How fast (default: as fast as possible).
    pub speed: Speed,
    /// Refuse a cassette recorded with another CLI version than this one
    /// (the header's `cli_version` when it has one, and the first recorded
    /// `system`/`init` line's `claude_code_version`), with
    /// [`CassetteErrorKind::CliVersion`]. `None`: any version.
    pub require_cli_version: Option<String>,
    /// Put the default path rules' placeholders back (`$CWD`,
    /// `$CWD_ENCODED`, `$HOME`, `$TMPDIR`) as these directories, in the
    /// CLI's lines and in what the program is expected to send, so that a
    /// session recorded on one machine replays on another. `None`: the
    /// placeholders stay as recorded. The `claude-proto-testkit-cli`
    /// binary puts back its own process's directories, which are the
    /// session's when an adapter spawns it.
    ///
    /// Limits: a line that held the placeholder's text itself when it was
    /// recorded (a shell command `echo $HOME` in a permission answer) is
    /// restored too, and then no longer matches what the program sends;
    /// record such sessions without the path rules. Object keys are not
    /// restored, only string values.
    pub restore: Option<ProcessFacts>,
}

/// A cassette replayed as the CLI: a [`Steps`] source for the scripted
/// CLI's engine, read one frame at a time (a cassette of any size replays
/// in the memory of its longest line).
///
/// Each frame becomes a step:
///
/// | frame | step |
/// |---|---|
/// | a line the CLI wrote | [`Step::Send`] of [`Outgoing::Recorded`] (the recorded text as it is; [`Outgoing::Raw`] for a line that was not JSON), after the recorded gap at [`Speed::Recorded`] |
/// | a line the program wrote | [`Step::Expect`] of [`Matcher::Recorded`], no reply, labelled `cassette line N: ...` so that a mismatch names the recorded frame ([`Matcher::Any`] for a line that was not JSON) |
/// | the program closed stdin | [`Step::ExpectEnd`] |
/// | a stderr line | [`Step::Stderr`] |
/// | the CLI's exit | [`Step::Exit`] |
/// | the CLI closed stdout | nothing itself; [`Step::Exit`]`(0)` at the end if no exit was recorded (a recording made with a tee, which sees no exit code) |
///
/// At [`Speed::Recorded`] a stderr line or the exit is preceded by a
/// [`Step::Pause`] for its recorded gap. Once the CLI has closed stdout
/// or exited, what the program did after is not replayed (the CLI did not
/// read it), but the rest of the file is still read and checked.
///
/// **Initialize.** The program's `initialize` request is in the cassette
/// like any other line: it becomes an `Expect`, and the CLI's recorded
/// answer a `Send`. The engine running a `Replay` must therefore not
/// answer `initialize` itself (its automatic answer must be turned off),
/// or the program would get two answers.
///
/// A cassette that cannot be read further ends the steps with
/// `Some(Err(text))`, the text naming the file and line; then `None`.
#[derive(Debug)]
pub struct Replay<R = BufReader<File>> {
    reader: CassetteReader<R>,
    speed: Speed,
    require_cli_version: Option<String>,
    restore: Restore,
    /// The file, for error texts.
    source: Option<String>,
    /// The time of the frame read last.
    last_at: Duration,
    /// A step waiting behind the pause before it.
    pending: Option<Step>,
    init_seen: bool,
    cli_closed: bool,
    exited: bool,
    done: bool,
}

impl Replay {
    /// Opens the cassette at `path` and checks its header (and, if asked,
    /// its CLI version).
    pub fn open(path: impl AsRef<Path>, options: ReplayOptions) -> Result<Self, CassetteError> {
        let path = path.as_ref();
        let mut replay = Self::new(CassetteReader::open(path)?, options)?;
        replay.source = Some(path.display().to_string());
        Ok(replay)
    }
}

impl<R: BufRead> Replay<R> {
    /// Replays the cassette read from `input`.
    pub fn from_reader(input: R, options: ReplayOptions) -> Result<Self, CassetteError> {
        Self::new(CassetteReader::new(input)?, options)
    }

    fn new(reader: CassetteReader<R>, options: ReplayOptions) -> Result<Self, CassetteError> {
        if let (Some(expected), Some(recorded)) =
            (&options.require_cli_version, &reader.header().cli_version)
        {
            if expected != recorded {
                return Err(CassetteError::new(
                    1,
                    CassetteErrorKind::CliVersion {
                        recorded: recorded.clone(),
                        expected: expected.clone(),
                    },
                ));
            }
        }
        Ok(Self {
            reader,
            speed: options.speed,
            require_cli_version: options.require_cli_version,
            restore: options
                .restore
                .as_ref()
                .map(Restore::new)
                .unwrap_or_default(),
            source: None,
            last_at: Duration::ZERO,
            pending: None,
            init_seen: false,
            cli_closed: false,
            exited: false,
            done: false,
        })
    }

    /// The cassette's header.
    pub fn header(&self) -> &Header {
        self.reader.header()
    }
}

impl<R: BufRead> Steps for Replay<R> {
    fn next_step(&mut self) -> Option<Result<Step, String>> {
        if let Some(step) = self.pending.take() {
            return Some(Ok(step));
        }
        if self.done {
            return None;
        }
        loop {
            let frame = match self.reader.next_frame() {
                Some(Ok(frame)) => frame,
                Some(Err(error)) => {
                    self.done = true;
                    return Some(Err(error_text(self.source.as_deref(), &error)));
                }
                None => {
                    self.done = true;
                    if self.cli_closed && !self.exited {
                        self.exited = true;
                        return Some(Ok(Step::Exit(0)));
                    }
                    return None;
                }
            };
            let gap = frame.at.saturating_sub(self.last_at);
            self.last_at = self.last_at.max(frame.at);
            let delay = match self.speed {
                Speed::Recorded => gap,
                _ => Duration::ZERO,
            };
            if self.exited {
                continue;
            }
            let step = match frame.kind {
                FrameKind::CliLine(line) => {
                    if self.cli_closed {
                        continue;
                    }
                    if let (Line::Json(raw), false, Some(expected)) =
                        (&line, self.init_seen, &self.require_cli_version)
                    {
                        match check_init(raw.get(), frame.line_number, expected) {
                            Ok(seen) => self.init_seen = seen,
                            Err(error) => {
                                self.done = true;
                                return Some(Err(error_text(self.source.as_deref(), &error)));
                            }
                        }
                    }
                    let line = match line {
                        Line::Json(raw) => {
                            // Room for the newline the engine adds.
                            let mut text = String::with_capacity(raw.get().len() + 1);
                            text.push_str(raw.get());
                            Outgoing::Recorded(self.restore.json_text(text))
                        }
                        Line::Text(text) => Outgoing::Raw(self.restore.text(text.into_owned())),
                        Line::Bytes(bytes) => Outgoing::Raw(
                            self.restore
                                .text(String::from_utf8_lossy(&bytes).into_owned()),
                        ),
                    };
                    Step::Send { line, delay }
                }
                FrameKind::ProgramLine(line) => {
                    if self.cli_closed {
                        continue;
                    }
                    expect(&line, frame.line_number, &self.restore)
                }
                FrameKind::ProgramEnd => {
                    if self.cli_closed {
                        continue;
                    }
                    Step::ExpectEnd
                }
                FrameKind::CliEnd => {
                    self.cli_closed = true;
                    continue;
                }
                FrameKind::Stderr(text) => Step::Stderr(self.restore.text(text.into_owned())),
                FrameKind::Exit(code) => {
                    self.exited = true;
                    self.cli_closed = true;
                    Step::Exit(code)
                }
            };
            // A stderr line or the exit waits its gap as a pause of its own.
            if matches!(step, Step::Stderr(_) | Step::Exit(_)) && !delay.is_zero() {
                self.pending = Some(step);
                return Some(Ok(Step::Pause(delay)));
            }
            return Some(Ok(step));
        }
    }
}

/// The text of a replay's error: the file (when known) and the error.
fn error_text(source: Option<&str>, error: &CassetteError) -> String {
    match source {
        Some(path) => format!("{path}: {error}"),
        None => error.to_string(),
    }
}

/// Checks the CLI version of a recorded CLI line if it is the
/// `system`/`init` line; `Ok(true)` when it was one.
fn check_init(line: &str, line_number: usize, expected: &str) -> Result<bool, CassetteError> {
    #[derive(Deserialize)]
    struct Init<'a> {
        #[serde(rename = "type", borrow)]
        kind: Option<Cow<'a, str>>,
        #[serde(borrow)]
        subtype: Option<Cow<'a, str>>,
        #[serde(borrow)]
        claude_code_version: Option<Cow<'a, str>>,
    }
    // Most lines are not an init: skip them without parsing.
    if !line.contains("\"init\"") {
        return Ok(false);
    }
    let Ok(init) = serde_json::from_str::<Init<'_>>(line) else {
        return Ok(false);
    };
    if init.kind.as_deref() != Some("system") || init.subtype.as_deref() != Some("init") {
        return Ok(false);
    }
    match init.claude_code_version {
        Some(recorded) if recorded != expected => Err(CassetteError::new(
            line_number,
            CassetteErrorKind::CliVersion {
                recorded: recorded.into_owned(),
                expected: expected.to_owned(),
            },
        )),
        _ => Ok(true),
    }
}

/// The step expecting the program's recorded `line`.
fn expect(line: &Line<'_>, line_number: usize, restore: &Restore) -> Step {
    let value = match line {
        Line::Json(raw) => serde_json::from_str::<Value>(raw.get()).ok(),
        _ => None,
    };
    let value = value.map(|mut value| {
        restore.value(&mut value);
        value
    });
    let (matcher, what) = match value {
        Some(value) => {
            let what = describe(&value);
            (Matcher::Recorded(value), what)
        }
        None => (
            Matcher::Any,
            "the program's line, which was not JSON (any line matches)".to_owned(),
        ),
    };
    Step::Expect {
        matcher,
        reply: None,
        label: Some(format!("cassette line {line_number}: {what}")),
    }
}

/// What a recorded program line is, for a failure report:
/// `the program's control_request (initialize)`.
fn describe(value: &Value) -> String {
    let kind = value.get("type").and_then(Value::as_str);
    let subtype = match kind {
        Some("control_request") => value.pointer("/request/subtype"),
        Some("control_response") => value.pointer("/response/subtype"),
        _ => value.get("subtype"),
    }
    .and_then(Value::as_str);
    match (kind, subtype) {
        (Some(kind), Some(subtype)) => format!("the program's {kind} ({subtype})"),
        (Some(kind), None) => format!("the program's {kind}"),
        (None, _) => "the program's line".to_owned(),
    }
}
