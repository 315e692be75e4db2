//! The cassette's lines as types: the header, the frames, the trailer, and
//! how each is written and read (see the module docs for the format).

use std::borrow::Cow;
use std::io::{self, Write};
use std::time::Duration;

use serde::Deserialize;
use serde_json::value::RawValue;

/// The format version this crate reads and writes (the header's
/// `claude_proto_cassette`).
pub const FORMAT_VERSION: u64 = 1;

/// What the writer puts in the header's `recorded_with`.
pub(crate) const RECORDED_WITH: &str = concat!("claude-proto-testkit ", env!("CARGO_PKG_VERSION"));

/// A cassette's first line.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Header {
    /// The format version ([`FORMAT_VERSION`] for every header a
    /// [`CassetteReader`](super::CassetteReader) returns).
    pub version: u64,
    /// The recorded CLI's version, when the recorder knew it.
    pub cli_version: Option<String>,
    /// What wrote the cassette (`claude-proto-testkit 0.1.0`).
    pub recorded_with: String,
    /// The names of the redaction rules applied when recording.
    pub redacted: Vec<String>,
}

/// One recorded event, borrowed from the reader's current line.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame<'a> {
    /// The cassette file line it was read from (1: the header).
    pub line_number: usize,
    /// When it happened, since the recording started.
    pub at: Duration,
    /// What happened.
    pub kind: FrameKind<'a>,
}

/// What a frame records.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum FrameKind<'a> {
    /// A line the CLI wrote to its stdout.
    CliLine(Line<'a>),
    /// A line the program wrote to the CLI's stdin.
    ProgramLine(Line<'a>),
    /// The program closed the CLI's stdin.
    ProgramEnd,
    /// The CLI closed its stdout.
    CliEnd,
    /// A line the CLI wrote to stderr, without its newline.
    Stderr(Cow<'a, str>),
    /// The CLI exited with this code (128 + n when killed by signal n).
    Exit(i32),
}

/// A recorded line, without its newline.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Line<'a> {
    /// A line that was one JSON value with nothing around it, its text
    /// exactly as recorded.
    Json(&'a RawValue),
    /// A line that was UTF-8 but not (only) JSON.
    Text(Cow<'a, str>),
    /// A line that was not UTF-8.
    Bytes(Vec<u8>),
}

impl PartialEq for Line<'_> {
    /// Lines are equal when they are of the same form with the same bytes.
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Json(a), Self::Json(b)) => a.get() == b.get(),
            (Self::Text(a), Self::Text(b)) => a == b,
            (Self::Bytes(a), Self::Bytes(b)) => a == b,
            _ => false,
        }
    }
}

impl Line<'_> {
    /// The line's bytes exactly as recorded (after redaction), without the
    /// newline.
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            Self::Json(raw) => raw.get().as_bytes(),
            Self::Text(text) => text.as_bytes(),
            Self::Bytes(bytes) => bytes,
        }
    }
}

/// Which side a frame comes from, as written in `from`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    Cli,
    Program,
}

impl Side {
    fn name(self) -> &'static str {
        match self {
            Self::Cli => "cli",
            Self::Program => "program",
        }
    }
}

/// How a line is stored, decided once when it is written.
pub(crate) enum LineForm {
    Json,
    Text,
    Bytes,
}

/// Decides how `line` is stored: embedded as JSON only when it is exactly
/// one JSON value (so the embedded bytes are the line's bytes) and not
/// `null` (which a reader could not tell from a missing payload).
pub(crate) fn line_form(line: &[u8]) -> LineForm {
    let Ok(text) = std::str::from_utf8(line) else {
        return LineForm::Bytes;
    };
    match serde_json::from_str::<&RawValue>(text) {
        Ok(raw) if raw.get().len() == text.len() && text != "null" => LineForm::Json,
        _ => LineForm::Text,
    }
}

/// Writes the header line.
pub(crate) fn write_header(
    out: &mut impl Write,
    cli_version: Option<&str>,
    redacted: &[String],
) -> io::Result<()> {
    write!(
        out,
        "{{\"claude_proto_cassette\":{FORMAT_VERSION},\"cli_version\":"
    )?;
    serde_json::to_writer(&mut *out, &cli_version)?;
    out.write_all(b",\"recorded_with\":")?;
    serde_json::to_writer(&mut *out, RECORDED_WITH)?;
    out.write_all(b",\"redacted\":")?;
    serde_json::to_writer(&mut *out, redacted)?;
    out.write_all(b"}\n")
}

fn write_prefix(out: &mut impl Write, micros: u64, side: Side) -> io::Result<()> {
    write!(out, "{{\"t\":{micros},\"from\":\"{}\",", side.name())
}

/// Writes a line frame; `line` has been redacted already.
pub(crate) fn write_line(
    out: &mut impl Write,
    micros: u64,
    side: Side,
    line: &[u8],
) -> io::Result<()> {
    write_prefix(out, micros, side)?;
    match line_form(line) {
        LineForm::Json => {
            out.write_all(b"\"line\":")?;
            out.write_all(line)?;
        }
        LineForm::Text => {
            out.write_all(b"\"text\":")?;
            // line_form saw valid UTF-8.
            let text = String::from_utf8_lossy(line);
            serde_json::to_writer(&mut *out, text.as_ref())?;
        }
        LineForm::Bytes => {
            out.write_all(b"\"bytes\":\"")?;
            for byte in line {
                write!(out, "{byte:02x}")?;
            }
            out.write_all(b"\"")?;
        }
    }
    out.write_all(b"}\n")
}

/// Writes an `eof` frame.
pub(crate) fn write_eof(out: &mut impl Write, micros: u64, side: Side) -> io::Result<()> {
    write_prefix(out, micros, side)?;
    out.write_all(b"\"eof\":true}\n")
}

/// Writes a `stderr` frame.
pub(crate) fn write_stderr(out: &mut impl Write, micros: u64, text: &str) -> io::Result<()> {
    write_prefix(out, micros, Side::Cli)?;
    out.write_all(b"\"stderr\":")?;
    serde_json::to_writer(&mut *out, text)?;
    out.write_all(b"}\n")
}

/// Writes an `exit` frame.
pub(crate) fn write_exit(out: &mut impl Write, micros: u64, code: i32) -> io::Result<()> {
    write_prefix(out, micros, Side::Cli)?;
    writeln!(out, "\"exit\":{code}}}")
}

/// Writes the trailer.
pub(crate) fn write_trailer(out: &mut impl Write, frames: u64) -> io::Result<()> {
    writeln!(out, "{{\"end\":{{\"frames\":{frames}}}}}")
}

/// The header's version alone, read first so that a later version's header
/// of another shape is reported as another version, not as corrupt.
#[derive(Deserialize)]
pub(crate) struct HeaderVersion {
    pub(crate) claude_proto_cassette: Option<serde_json::Value>,
}

/// The rest of a version-1 header (unknown fields ignored).
#[derive(Deserialize)]
pub(crate) struct HeaderV1 {
    #[serde(default)]
    pub(crate) cli_version: Option<String>,
    #[serde(default)]
    pub(crate) recorded_with: String,
    #[serde(default)]
    pub(crate) redacted: Vec<String>,
}

/// Any line after the header, before its shape is checked.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawFrame<'a> {
    pub(crate) t: Option<u64>,
    #[serde(borrow)]
    pub(crate) from: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub(crate) line: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(crate) text: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub(crate) bytes: Option<Cow<'a, str>>,
    pub(crate) eof: Option<bool>,
    #[serde(borrow)]
    pub(crate) stderr: Option<Cow<'a, str>>,
    pub(crate) exit: Option<i32>,
    pub(crate) end: Option<RawTrailer>,
}

/// The trailer's body.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawTrailer {
    pub(crate) frames: u64,
}

/// What a line after the header turned out to be.
pub(crate) enum Parsed<'a> {
    Frame(Duration, FrameKind<'a>),
    Trailer(u64),
}

impl<'a> RawFrame<'a> {
    /// Checks the frame's shape: `Err` says what is wrong with it.
    pub(crate) fn check(self) -> Result<Parsed<'a>, String> {
        if let Some(end) = self.end {
            let others = self.t.is_some()
                || self.from.is_some()
                || self.line.is_some()
                || self.text.is_some()
                || self.bytes.is_some()
                || self.eof.is_some()
                || self.stderr.is_some()
                || self.exit.is_some();
            if others {
                return Err("a trailer (`end`) with frame fields beside it".into());
            }
            return Ok(Parsed::Trailer(end.frames));
        }
        let t = self
            .t
            .ok_or("a frame without its time `t` (and not a trailer)")?;
        let side = match self.from.as_deref() {
            Some("cli") => Side::Cli,
            Some("program") => Side::Program,
            Some(other) => {
                return Err(format!(
                    "`from` is {other:?}, expected \"cli\" or \"program\""
                ));
            }
            None => return Err("a frame without `from`".into()),
        };
        let payloads = [
            self.line.is_some(),
            self.text.is_some(),
            self.bytes.is_some(),
            self.eof.is_some(),
            self.stderr.is_some(),
            self.exit.is_some(),
        ];
        match payloads.iter().filter(|p| **p).count() {
            1 => {}
            0 => {
                return Err(
                    "a frame without a payload (line, text, bytes, eof, stderr or exit)".into(),
                );
            }
            _ => {
                return Err(
                    "a frame with more than one payload (line, text, bytes, eof, stderr, exit)"
                        .into(),
                );
            }
        }
        let line = if let Some(raw) = self.line {
            Some(Line::Json(raw))
        } else if let Some(text) = self.text {
            Some(Line::Text(text))
        } else if let Some(hex) = self.bytes {
            Some(Line::Bytes(decode_hex(&hex)?))
        } else {
            None
        };
        let kind = match (side, line) {
            (Side::Cli, Some(line)) => FrameKind::CliLine(line),
            (Side::Program, Some(line)) => FrameKind::ProgramLine(line),
            (side, None) => {
                if let Some(eof) = self.eof {
                    if !eof {
                        return Err("`eof` is false; only `\"eof\":true` is a frame".into());
                    }
                    match side {
                        Side::Cli => FrameKind::CliEnd,
                        Side::Program => FrameKind::ProgramEnd,
                    }
                } else if let Some(text) = self.stderr {
                    if side != Side::Cli {
                        return Err("a `stderr` frame from the program".into());
                    }
                    FrameKind::Stderr(text)
                } else if let Some(code) = self.exit {
                    if side != Side::Cli {
                        return Err("an `exit` frame from the program".into());
                    }
                    FrameKind::Exit(code)
                } else {
                    return Err("a frame without a payload".into());
                }
            }
        };
        Ok(Parsed::Frame(Duration::from_micros(t), kind))
    }
}

fn decode_hex(hex: &str) -> Result<Vec<u8>, String> {
    fn digit(b: u8) -> Option<u8> {
        match b {
            b'0'..=b'9' => Some(b - b'0'),
            b'a'..=b'f' => Some(b - b'a' + 10),
            b'A'..=b'F' => Some(b - b'A' + 10),
            _ => None,
        }
    }
    let bytes = hex.as_bytes();
    if bytes.len() % 2 != 0 {
        return Err("`bytes` has an odd number of hex digits".into());
    }
    bytes
        .chunks(2)
        .map(|pair| match (digit(pair[0]), digit(pair[1])) {
            (Some(hi), Some(lo)) => Ok((hi << 4) | lo),
            _ => Err("`bytes` is not hex".to_string()),
        })
        .collect()
}
