//! Record and replay: a session between a program and the CLI, recorded at
//! the stream-json boundary (both directions, with timing) into a
//! versioned *cassette* file, and replayed as the CLI.
//!
//! - Record with a [`Recorder`] (a tee around the std `Read`/`Write` pair a
//!   blocking `connect` takes) or [`run_wrapper`] (a wrapper process
//!   standing in for the CLI binary). Both write through a
//!   [`CassetteWriter`], which redacts paths and secrets ([`Redactions`]).
//! - Replay with [`Replay`], a source of [`Steps`](crate::Steps) for the
//!   scripted CLI: what the CLI wrote is sent again, what the program wrote
//!   is expected again.
//! - Read a cassette frame by frame with [`CassetteReader`]; turn the
//!   repository's older `{"dir":...,"line":...}` transcripts into cassettes
//!   with [`import_fixture`].
//!
//! # The format, version 1
//!
//! A cassette is NDJSON: UTF-8, one JSON object per line, each line ending
//! in `\n`. Line 1 is the header, the last line the trailer, every line
//! between them one *frame*:
//!
//! ```text
//! {"claude_proto_cassette":1,"cli_version":"2.1.330","recorded_with":"claude-proto-testkit 0.1.0","redacted":["home","cwd","tmpdir","anthropic-key","bearer"]}
//! {"t":0,"from":"program","line":{"type":"control_request","request_id":"req_1","request":{"subtype":"initialize"}}}
//! {"t":2817,"from":"cli","line":{"type":"control_response","response":{"subtype":"success","request_id":"req_1","response":{}}}}
//! {"t":2950,"from":"cli","text":"not JSON, kept as a string"}
//! {"t":3100,"from":"cli","stderr":"a line the CLI wrote to stderr"}
//! {"t":9000,"from":"program","eof":true}
//! {"t":9400,"from":"cli","eof":true}
//! {"t":9420,"from":"cli","exit":0}
//! {"end":{"frames":7}}
//! ```
//!
//! **Header.** `claude_proto_cassette` is the format version (this module
//! reads and writes [`FORMAT_VERSION`]; a reader meeting another version
//! stops at line 1 with [`CassetteErrorKind::UnsupportedVersion`]).
//! `cli_version` is the CLI's version when the recorder knew it, else
//! `null` (the recorded `system`/`init` line's `claude_code_version` says
//! it too). `recorded_with` names the writer. `redacted` lists the names of
//! the redaction rules applied (never their values). Readers ignore header
//! fields they do not know.
//!
//! **Frames.** `t` is the time in microseconds since the recording
//! started (not decreasing; imported transcripts, which were not timed,
//! have 0 throughout). `from` is `"cli"` or `"program"`. Then exactly one
//! payload:
//!
//! | payload | from | meaning |
//! |---|---|---|
//! | `"line":<JSON>` | both | a line, which was valid JSON: it is embedded as is, byte for byte |
//! | `"text":"..."` | both | a line that was not JSON (or had spaces around its value), as a JSON string |
//! | `"bytes":"<hex>"` | both | a line that was not even UTF-8, as lowercase hex |
//! | `"eof":true` | program | the program closed the CLI's stdin |
//! | `"eof":true` | cli | the CLI closed its stdout |
//! | `"stderr":"..."` | cli | one line the CLI wrote to stderr, without its newline |
//! | `"exit":<code>` | cli | the CLI exited with this code (killed by a signal *n*: 128 + *n*) |
//!
//! Lines are recorded without their `\n`, and byte-exact: a line with a
//! `\r` or other whitespace around its JSON value is a `text` frame, so
//! that replay writes the very bytes recorded. The writer puts `t` and
//! `from` first and the payload last; readers accept any key order, refuse
//! unknown keys (a frame of unknown shape is [`CassetteErrorKind::Corrupt`],
//! naming what is wrong), and skip blank lines.
//!
//! **Trailer.** `{"end":{"frames":N}}` with `N` the number of frames. A
//! file without it, or whose last line has no `\n`, was cut off
//! ([`CassetteErrorKind::Truncated`]), as is one whose trailer counts
//! other than the frames read. Nothing may follow the trailer.
//!
//! Every error names the file line it is about: `cassette line 17: ...`.

mod format;
mod import;
mod read;
mod record;
mod redact;
mod replay;
mod restore;
mod write;

pub use format::{FORMAT_VERSION, Frame, FrameKind, Header, Line};
pub use import::{ImportError, ImportOptions, import_fixture};
pub use read::{CassetteError, CassetteErrorKind, CassetteReader, DEFAULT_MAX_LINE, Truncation};
pub use record::{
    REAL_CLI_ENV, RECORD_ENV, Recorder, TeeReader, TeeWriter, run_wrapper, run_wrapper_with,
};
pub use redact::{ProcessFacts, Redactions};
pub use replay::{CLI_VERSION_ENV, REPLAY_ENV, Replay, ReplayOptions, SPEED_ENV, Speed};
pub use write::CassetteWriter;
