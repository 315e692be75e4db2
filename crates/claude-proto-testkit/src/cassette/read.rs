//! Reading a cassette one frame at a time, in bounded memory.

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::time::Duration;

use serde_json::value::RawValue;

use super::format::{
    FORMAT_VERSION, Frame, FrameKind, Header, HeaderV1, HeaderVersion, Line, Parsed, RawFrame,
};

/// The longest cassette line a reader accepts unless told otherwise:
/// 256 MiB, room for a line at the core's 64 MiB limit even when it is
/// stored as an escaped string.
pub const DEFAULT_MAX_LINE: usize = 256 * 1024 * 1024;

/// A cassette that cannot be read (further), and the file line where that
/// was found.
#[derive(Debug)]
pub struct CassetteError {
    /// The cassette file line, from 1 (the header).
    pub line: usize,
    /// What is wrong.
    pub kind: CassetteErrorKind,
}

/// What is wrong with a cassette.
#[derive(Debug)]
#[non_exhaustive]
pub enum CassetteErrorKind {
    /// The file was cut off.
    Truncated(Truncation),
    /// The line is not JSON, or not a frame of a known shape; the text says
    /// what.
    Corrupt(String),
    /// The header's format version is not one this crate reads.
    UnsupportedVersion {
        /// The header's version (`None`: not a number).
        found: Option<u64>,
        /// The version this crate reads ([`FORMAT_VERSION`]).
        supported: u64,
    },
    /// The recording is of another CLI version than the replay requires
    /// (the header's `cli_version`, or the recorded `system`/`init` line's
    /// `claude_code_version`).
    CliVersion {
        /// The recorded version.
        recorded: String,
        /// The version the replay required.
        expected: String,
    },
    /// The line is longer than the reader's limit (it was not read into
    /// memory).
    LineTooLong {
        /// The limit in bytes.
        limit: usize,
    },
    /// Reading the file failed.
    Io(io::Error),
}

/// How a cassette turned out to be cut off.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Truncation {
    /// The file is empty: not even a header.
    Empty,
    /// The file's last line does not end in a newline.
    PartialLine,
    /// The file ends without the trailer.
    NoTrailer {
        /// The frames read before the end.
        frames: u64,
    },
    /// The trailer counts other than the frames read.
    FrameCount {
        /// What the trailer says.
        trailer: u64,
        /// The frames read.
        read: u64,
    },
}

impl fmt::Display for CassetteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cassette line {}: ", self.line)?;
        match &self.kind {
            CassetteErrorKind::Truncated(how) => {
                f.write_str("truncated: ")?;
                match how {
                    Truncation::Empty => f.write_str("the file is empty"),
                    Truncation::PartialLine => {
                        f.write_str("the last line has no newline (cut off while written)")
                    }
                    Truncation::NoTrailer { frames } => write!(
                        f,
                        "the file ends after {frames} frames without the trailer \
                         (the recording was cut off, or its writer never finished)"
                    ),
                    Truncation::FrameCount { trailer, read } => write!(
                        f,
                        "the trailer counts {trailer} frames but {read} were read"
                    ),
                }
            }
            CassetteErrorKind::Corrupt(what) => write!(f, "corrupt: {what}"),
            CassetteErrorKind::UnsupportedVersion { found, supported } => {
                match found {
                    Some(found) => write!(f, "cassette format version {found}")?,
                    None => f.write_str("a cassette format version that is not a number")?,
                }
                write!(
                    f,
                    ", but this claude-proto-testkit reads version {supported}"
                )
            }
            CassetteErrorKind::CliVersion { recorded, expected } => write!(
                f,
                "recorded with CLI {recorded}, but the replay requires CLI {expected}"
            ),
            CassetteErrorKind::LineTooLong { limit } => {
                write!(f, "the line is longer than the limit of {limit} bytes")
            }
            CassetteErrorKind::Io(error) => write!(f, "read failed: {error}"),
        }
    }
}

impl std::error::Error for CassetteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            CassetteErrorKind::Io(error) => Some(error),
            _ => None,
        }
    }
}

impl CassetteError {
    pub(crate) fn new(line: usize, kind: CassetteErrorKind) -> Self {
        Self { line, kind }
    }

    fn corrupt(line: usize, what: impl Into<String>) -> Self {
        Self::new(line, CassetteErrorKind::Corrupt(what.into()))
    }
}

/// Reads a cassette one frame at a time: memory stays at one line's size
/// (at most the reader's line limit), whatever the file's.
///
/// Construction reads and checks the header; [`next_frame`] then returns
/// the frames in order and checks the trailer at the end. The first error
/// ends the reading: later calls return `None`.
///
/// [`next_frame`]: CassetteReader::next_frame
#[derive(Debug)]
pub struct CassetteReader<R> {
    input: R,
    buf: Vec<u8>,
    /// Lines after the trailer, read while a frame may still borrow `buf`.
    rest: Vec<u8>,
    /// The file line last read (0: none read yet).
    line: usize,
    header: Header,
    frames: u64,
    max_line: usize,
    done: bool,
    /// Bytes of the input's buffer that the last frame was read from in
    /// place, consumed when the next one is read (the frame borrowed them).
    consumed: usize,
}

impl CassetteReader<BufReader<File>> {
    /// Opens the cassette at `path` and reads its header. An error opening
    /// the file is reported as an I/O error at line 1.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, CassetteError> {
        let file = File::open(path).map_err(|e| CassetteError::new(1, CassetteErrorKind::Io(e)))?;
        // Large enough that most lines lie whole in the buffer and are
        // read in place.
        Self::new(BufReader::with_capacity(256 * 1024, file))
    }
}

/// One line read from the input, before it is parsed.
enum Read1 {
    Line,
    Eof,
}

impl<R: BufRead> CassetteReader<R> {
    /// Reads the header from `input`, with the [`DEFAULT_MAX_LINE`] limit.
    pub fn new(input: R) -> Result<Self, CassetteError> {
        Self::with_max_line(input, DEFAULT_MAX_LINE)
    }

    /// Reads the header from `input`; no line may be longer than
    /// `max_line` bytes ([`CassetteErrorKind::LineTooLong`]).
    pub fn with_max_line(input: R, max_line: usize) -> Result<Self, CassetteError> {
        let mut reader = Self {
            input,
            buf: Vec::new(),
            rest: Vec::new(),
            line: 0,
            header: Header {
                version: FORMAT_VERSION,
                cli_version: None,
                recorded_with: String::new(),
                redacted: Vec::new(),
            },
            frames: 0,
            max_line,
            done: false,
            consumed: 0,
        };
        match read_line(
            &mut reader.input,
            &mut reader.buf,
            &mut reader.line,
            max_line,
        )? {
            Read1::Eof => {
                return Err(CassetteError::new(
                    1,
                    CassetteErrorKind::Truncated(Truncation::Empty),
                ));
            }
            Read1::Line => {}
        }
        reader.header = parse_header(&reader.buf)?;
        Ok(reader)
    }

    /// The cassette's header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The file line last read (1: the header).
    pub fn line_number(&self) -> usize {
        self.line
    }

    /// The next frame, borrowed from the reader's line buffer; `None` once
    /// the trailer has been read and checked, or after an error.
    pub fn next_frame(&mut self) -> Option<Result<Frame<'_>, CassetteError>> {
        if self.done {
            return None;
        }
        self.input.consume(std::mem::take(&mut self.consumed));
        if let Some(fast) = self.fast_line() {
            return self.fast_frame(fast);
        }
        loop {
            match read_line(
                &mut self.input,
                &mut self.buf,
                &mut self.line,
                self.max_line,
            ) {
                Err(error) => {
                    self.done = true;
                    return Some(Err(error));
                }
                Ok(Read1::Eof) => {
                    self.done = true;
                    return Some(Err(CassetteError::new(
                        self.line + 1,
                        CassetteErrorKind::Truncated(Truncation::NoTrailer {
                            frames: self.frames,
                        }),
                    )));
                }
                Ok(Read1::Line) if is_blank(&self.buf) => continue,
                Ok(Read1::Line) => break,
            }
        }
        let line = self.line;
        let parsed = match serde_json::from_slice::<RawFrame<'_>>(&self.buf) {
            Ok(raw) => raw.check(),
            Err(error) => Err(describe_json_error(&error)),
        };
        match parsed {
            Ok(Parsed::Frame(at, kind)) => {
                self.frames += 1;
                Some(Ok(Frame {
                    line_number: line,
                    at,
                    kind,
                }))
            }
            Ok(Parsed::Trailer(count)) => {
                self.done = true;
                if count != self.frames {
                    return Some(Err(CassetteError::new(
                        line,
                        CassetteErrorKind::Truncated(Truncation::FrameCount {
                            trailer: count,
                            read: self.frames,
                        }),
                    )));
                }
                match after_trailer(
                    &mut self.input,
                    &mut self.rest,
                    &mut self.line,
                    self.max_line,
                ) {
                    Ok(()) => None,
                    Err(error) => Some(Err(error)),
                }
            }
            Err(what) => {
                self.done = true;
                Some(Err(CassetteError::corrupt(line, what)))
            }
        }
    }
}

/// A line of the usual shape, `{"t":N,"from":"cli"|"program","line":V}`,
/// lying whole in the input's buffer: read in place, without copying it
/// or walking the frame's keys through serde (a replay reads millions).
struct FastLine {
    /// The line's bytes with its newline.
    len: usize,
    /// Where `V` starts and ends in the line.
    value: (usize, usize),
    at: Duration,
    cli: bool,
}

impl<R: BufRead> CassetteReader<R> {
    /// The next line, if it has the usual shape and lies whole in the
    /// input's buffer; `None` sends the reading down the general path,
    /// which sees the same line.
    fn fast_line(&mut self) -> Option<FastLine> {
        let available = self.input.fill_buf().ok()?;
        let newline = claude_proto::find_newline(available)?;
        let mut end = newline;
        if end > 0 && available[end - 1] == b'\r' {
            end -= 1;
        }
        if end > self.max_line {
            return None;
        }
        let line = &available[..end];
        let rest = line.strip_prefix(br#"{"t":"#)?;
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        // JSON has no leading zeros; the general path names the error.
        if digits == 0 || (digits > 1 && rest[0] == b'0') {
            return None;
        }
        let micros = rest[..digits].iter().try_fold(0u64, |n, d| {
            n.checked_mul(10)?.checked_add(u64::from(d - b'0'))
        })?;
        let rest = rest[digits..].strip_prefix(br#","from":""#)?;
        let (cli, rest) = match rest.strip_prefix(br#"cli""#) {
            Some(rest) => (true, rest),
            None => (false, rest.strip_prefix(br#"program""#)?),
        };
        let rest = rest.strip_prefix(br#","line":"#)?;
        // `null` reads as no `line` at all on the general path.
        let first = rest
            .iter()
            .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
        if first == Some(&b'n') || line.last() != Some(&b'}') {
            return None;
        }
        Some(FastLine {
            len: newline + 1,
            value: (end - rest.len(), end - 1),
            at: Duration::from_micros(micros),
            cli,
        })
    }

    /// The frame of a line found by [`fast_line`](Self::fast_line): its
    /// value is checked to be JSON here. A line that is not (or has more
    /// after its value) is parsed again on the general path, for the same
    /// error or frame as ever.
    fn fast_frame(&mut self, fast: FastLine) -> Option<Result<Frame<'_>, CassetteError>> {
        self.consumed = fast.len;
        self.line += 1;
        let line_number = self.line;
        // The buffer found by `fast_line`, unconsumed: no read happens.
        let available = match self.input.fill_buf() {
            Ok(available) if available.len() >= fast.len => available,
            Ok(_) => {
                self.done = true;
                let error = io::Error::other("the input's buffer shrank without being consumed");
                return Some(Err(CassetteError::new(
                    line_number,
                    CassetteErrorKind::Io(error),
                )));
            }
            Err(error) => {
                self.done = true;
                return Some(Err(CassetteError::new(
                    line_number,
                    CassetteErrorKind::Io(error),
                )));
            }
        };
        let value = &available[fast.value.0..fast.value.1];
        if let Ok(raw) = serde_json::from_slice::<&RawValue>(value) {
            let line = Line::Json(raw);
            self.frames += 1;
            return Some(Ok(Frame {
                line_number,
                at: fast.at,
                kind: if fast.cli {
                    FrameKind::CliLine(line)
                } else {
                    FrameKind::ProgramLine(line)
                },
            }));
        }
        self.buf.clear();
        self.buf.extend_from_slice(&available[..fast.value.1 + 1]);
        let parsed = match serde_json::from_slice::<RawFrame<'_>>(&self.buf) {
            Ok(raw) => raw.check(),
            Err(error) => Err(describe_json_error(&error)),
        };
        match parsed {
            Ok(Parsed::Frame(at, kind)) => {
                self.frames += 1;
                Some(Ok(Frame {
                    line_number,
                    at,
                    kind,
                }))
            }
            // A line with a time `t` is never a trailer.
            Ok(Parsed::Trailer(_)) => {
                self.done = true;
                Some(Err(CassetteError::corrupt(
                    line_number,
                    "a trailer (`end`) with frame fields beside it",
                )))
            }
            Err(what) => {
                self.done = true;
                Some(Err(CassetteError::corrupt(line_number, what)))
            }
        }
    }
}

/// Checks that only blank lines follow the trailer (read into `rest`, as
/// the caller's frame may still borrow its line).
fn after_trailer<R: BufRead>(
    input: &mut R,
    rest: &mut Vec<u8>,
    line: &mut usize,
    max_line: usize,
) -> Result<(), CassetteError> {
    loop {
        match read_line(input, rest, line, max_line)? {
            Read1::Eof => return Ok(()),
            Read1::Line if is_blank(rest) => {}
            Read1::Line => {
                return Err(CassetteError::corrupt(
                    *line,
                    "a line after the trailer (the trailer must be the last line)",
                ));
            }
        }
    }
}

/// Reads the next line into `buf` without its newline (or `\r\n`),
/// counting it in `line`.
fn read_line<R: BufRead>(
    input: &mut R,
    buf: &mut Vec<u8>,
    line: &mut usize,
    max_line: usize,
) -> Result<Read1, CassetteError> {
    buf.clear();
    let number = *line + 1;
    // One more than the limit, so that a line of exactly `max_line` bytes
    // and its newline are read whole and a longer one is seen to be longer
    // without reading all of it.
    let limit = max_line.saturating_add(1) as u64;
    let read = input
        .take(limit)
        .read_until(b'\n', buf)
        .map_err(|e| CassetteError::new(number, CassetteErrorKind::Io(e)))?;
    if read == 0 {
        return Ok(Read1::Eof);
    }
    *line = number;
    if buf.last() == Some(&b'\n') {
        buf.pop();
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
        return Ok(Read1::Line);
    }
    if buf.len() > max_line {
        *buf = Vec::new();
        return Err(CassetteError::new(
            number,
            CassetteErrorKind::LineTooLong { limit: max_line },
        ));
    }
    Err(CassetteError::new(
        number,
        CassetteErrorKind::Truncated(Truncation::PartialLine),
    ))
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

fn describe_json_error(error: &serde_json::Error) -> String {
    // serde_json's own position is the column within this line; the line
    // number it gives is always 1 and is left out.
    let text = error.to_string();
    let text = match text.rfind(" at line ") {
        Some(at) => &text[..at],
        None => &text,
    };
    format!("not a frame: {text} (column {})", error.column())
}

fn parse_header(line: &[u8]) -> Result<Header, CassetteError> {
    let version: HeaderVersion = serde_json::from_slice(line).map_err(|e| {
        CassetteError::corrupt(
            1,
            format!(
                "not a cassette: the first line is not a header object ({})",
                describe_json_error(&e)
            ),
        )
    })?;
    let Some(found) = version.claude_proto_cassette else {
        return Err(CassetteError::corrupt(
            1,
            "not a cassette: the first line has no `claude_proto_cassette` version",
        ));
    };
    let found = found.as_u64();
    if found != Some(FORMAT_VERSION) {
        return Err(CassetteError::new(
            1,
            CassetteErrorKind::UnsupportedVersion {
                found,
                supported: FORMAT_VERSION,
            },
        ));
    }
    let header: HeaderV1 = serde_json::from_slice(line).map_err(|e| {
        CassetteError::corrupt(
            1,
            format!("a header field is wrong: {}", describe_json_error(&e)),
        )
    })?;
    Ok(Header {
        version: FORMAT_VERSION,
        cli_version: header.cli_version,
        recorded_with: header.recorded_with,
        redacted: header.redacted,
    })
}
