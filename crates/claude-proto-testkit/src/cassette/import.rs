//! Cassettes from the repository's older transcripts: the
//! `{"dir":"in"|"out","line":"..."}` lines of
//! `crates/claude-proto/tests/fixtures/*.ndjson`.

use std::borrow::Cow;
use std::fmt;
use std::io::{self, BufRead, Write};
use std::time::Duration;

use serde::Deserialize;

use super::redact::Redactions;
use super::write::CassetteWriter;

/// How to turn a transcript into a cassette.
#[derive(Clone, Debug, Default)]
pub struct ImportOptions {
    /// The header's `cli_version` (the transcripts' README names it).
    pub cli_version: Option<String>,
    /// Rules applied to every line (the repository's transcripts were
    /// scrubbed when recorded: [`Redactions::none`], the default, keeps
    /// them as they are).
    pub redactions: Redactions,
    /// After the last line, the program closed the CLI's stdin (the
    /// transcripts do not record it).
    pub program_end: bool,
    /// After that, the CLI closed stdout and exited with this code.
    pub exit_code: Option<i32>,
}

/// A transcript that could not be imported.
#[derive(Debug)]
#[non_exhaustive]
pub enum ImportError {
    /// A transcript line is not `{"dir":"in"|"out","line":"..."}`.
    Transcript {
        /// The transcript's line, from 1.
        line: usize,
        /// What is wrong with it.
        what: String,
    },
    /// Reading the transcript or writing the cassette failed.
    Io(io::Error),
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Transcript { line, what } => write!(f, "transcript line {line}: {what}"),
            Self::Io(error) => write!(f, "import failed: {error}"),
        }
    }
}

impl std::error::Error for ImportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io(error) => Some(error),
            Self::Transcript { .. } => None,
        }
    }
}

impl From<io::Error> for ImportError {
    fn from(error: io::Error) -> Self {
        Self::Io(error)
    }
}

#[derive(Deserialize)]
struct TranscriptLine<'a> {
    #[serde(borrow)]
    dir: Cow<'a, str>,
    #[serde(borrow)]
    line: Cow<'a, str>,
}

/// Writes the transcript read from `transcript` as a cassette to `out`,
/// and returns `out`. `"in"` lines (read from the CLI) become the CLI's
/// lines, `"out"` lines (written by the program) the program's, each
/// byte for byte and in order; all at time 0, as the transcripts were not
/// timed. Blank lines are skipped.
pub fn import_fixture<R: BufRead, W: Write>(
    transcript: R,
    out: W,
    options: &ImportOptions,
) -> Result<W, ImportError> {
    let mut writer = CassetteWriter::new(
        out,
        options.cli_version.as_deref(),
        options.redactions.clone(),
    )?;
    let at = Duration::ZERO;
    for (index, line) in transcript.split(b'\n').enumerate() {
        let line = line?;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let bad = |what: String| ImportError::Transcript {
            line: index + 1,
            what,
        };
        let parsed: TranscriptLine<'_> = serde_json::from_slice(&line)
            .map_err(|e| bad(format!("not a {{\"dir\",\"line\"}} object: {e}")))?;
        match parsed.dir.as_ref() {
            "in" => writer.cli_line(at, parsed.line.as_bytes())?,
            "out" => writer.program_line(at, parsed.line.as_bytes())?,
            other => {
                return Err(bad(format!(
                    "`dir` is {other:?}, expected \"in\" or \"out\""
                )));
            }
        }
    }
    if options.program_end {
        writer.program_end(at)?;
    }
    if let Some(code) = options.exit_code {
        writer.cli_end(at)?;
        writer.exit(at, code)?;
    }
    Ok(writer.finish()?)
}
