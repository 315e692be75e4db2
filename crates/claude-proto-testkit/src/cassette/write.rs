//! Writing a cassette as the session happens.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::time::Duration;

use super::format::{
    Side, write_eof, write_exit, write_header, write_line, write_stderr, write_trailer,
};
use super::redact::Redactions;

/// How long frames may wait in the writer's buffer before a frame written
/// later flushes them, so that a recording being watched (or cut off by a
/// crash) is at most this far behind.
const FLUSH_EVERY: Duration = Duration::from_millis(100);

/// Writes a cassette frame by frame, redacting each line as it goes.
///
/// The header is written at construction, each frame when its method is
/// called (buffered, and flushed when 100 ms of recorded time have passed
/// since the last flush, and after every end, stderr and exit frame), the trailer at [`finish`](Self::finish). A writer dropped
/// without `finish` leaves a cassette that reads as truncated.
///
/// Frame times are given by the caller (time since the recording started),
/// so the writer itself reads no clock.
///
/// Its `Debug` names its redaction rules, never the values they replace.
#[must_use = "a cassette without its trailer reads as truncated: call finish()"]
pub struct CassetteWriter<W: Write> {
    out: BufWriter<W>,
    redactions: Redactions,
    frames: u64,
    last_flush: Duration,
}

impl<W: Write> std::fmt::Debug for CassetteWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CassetteWriter")
            .field("redactions", &self.redactions)
            .field("frames", &self.frames)
            .finish_non_exhaustive()
    }
}

impl CassetteWriter<File> {
    /// Creates (or truncates) the file at `path` and writes the header.
    pub fn create(
        path: impl AsRef<Path>,
        cli_version: Option<&str>,
        redactions: Redactions,
    ) -> io::Result<Self> {
        Self::new(File::create(path)?, cli_version, redactions)
    }
}

impl<W: Write> CassetteWriter<W> {
    /// Writes the header to `out`: the format version, `cli_version` (when
    /// known) and the names of the `redactions` rules, which are applied to
    /// every line and stderr text written after.
    pub fn new(out: W, cli_version: Option<&str>, redactions: Redactions) -> io::Result<Self> {
        let mut out = BufWriter::with_capacity(64 * 1024, out);
        write_header(&mut out, cli_version, redactions.rule_names())?;
        Ok(Self {
            out,
            redactions,
            frames: 0,
            last_flush: Duration::ZERO,
        })
    }

    /// Records a line the CLI wrote to stdout, without its newline.
    pub fn cli_line(&mut self, at: Duration, line: &[u8]) -> io::Result<()> {
        self.line(at, Side::Cli, line)
    }

    /// Records a line the program wrote to the CLI's stdin, without its
    /// newline.
    pub fn program_line(&mut self, at: Duration, line: &[u8]) -> io::Result<()> {
        self.line(at, Side::Program, line)
    }

    /// Records that the program closed the CLI's stdin.
    pub fn program_end(&mut self, at: Duration) -> io::Result<()> {
        write_eof(&mut self.out, micros(at), Side::Program)?;
        self.written(at, true)
    }

    /// Records that the CLI closed its stdout.
    pub fn cli_end(&mut self, at: Duration) -> io::Result<()> {
        write_eof(&mut self.out, micros(at), Side::Cli)?;
        self.written(at, true)
    }

    /// Records a line the CLI wrote to stderr, without its newline.
    pub fn stderr(&mut self, at: Duration, text: &str) -> io::Result<()> {
        let text = self.redactions.redact_text(text);
        write_stderr(&mut self.out, micros(at), &text)?;
        self.written(at, true)
    }

    /// Records the CLI's exit code (128 + n for a CLI killed by signal n).
    pub fn exit(&mut self, at: Duration, code: i32) -> io::Result<()> {
        write_exit(&mut self.out, micros(at), code)?;
        self.written(at, true)
    }

    /// The frames written so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// The redaction rules this writer applies.
    pub fn redactions(&self) -> &Redactions {
        &self.redactions
    }

    /// Writes out what is buffered.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// Writes the trailer, flushes (the output too), and returns the
    /// output.
    pub fn finish(mut self) -> io::Result<W> {
        write_trailer(&mut self.out, self.frames)?;
        self.out.flush()?;
        self.out
            .into_inner()
            .map_err(io::IntoInnerError::into_error)
    }

    fn line(&mut self, at: Duration, side: Side, line: &[u8]) -> io::Result<()> {
        let line = self.redactions.redact_line(line);
        write_line(&mut self.out, micros(at), side, &line)?;
        self.written(at, false)
    }

    fn written(&mut self, at: Duration, flush: bool) -> io::Result<()> {
        self.frames += 1;
        if flush || at.saturating_sub(self.last_flush) >= FLUSH_EVERY {
            self.last_flush = at;
            self.out.flush()?;
        }
        Ok(())
    }
}

fn micros(at: Duration) -> u64 {
    u64::try_from(at.as_micros()).unwrap_or(u64::MAX)
}
