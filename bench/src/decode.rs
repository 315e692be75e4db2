//! The decode loops the benchmarks compare, on the same bytes.
//!
//! Every function feeds the input in [`CHUNK`]-byte pieces, as a pipe
//! delivers it, and returns how many messages it saw so the optimiser cannot
//! drop the work. The baselines split lines with the same
//! incremental splitter shape (a carry-over buffer between chunks) so the
//! only difference is what happens to each line.

use claude_proto::{Config, Event, Session};
use serde::de::IgnoredAny;

/// Bytes per read, as a pipe delivers them (the tokio adapter reads 64 KiB).
pub const CHUNK: usize = 64 * 1024;

/// The session: bytes in, events out (type and subtype read, line kept).
pub fn session(input: &[u8]) -> usize {
    let mut session = Session::new(Config::default());
    let mut n = 0;
    for chunk in input.chunks(CHUNK) {
        session.handle_input(chunk);
        while let Some(event) = session.poll_event() {
            n += matches!(event, Event::Message(_)) as usize;
        }
    }
    session.handle_eof();
    while session.poll_event().is_some() {}
    n
}

/// The session, then the full typed view of every message.
pub fn session_typed(input: &[u8]) -> usize {
    let mut session = Session::new(Config::default());
    let mut n = 0;
    for chunk in input.chunks(CHUNK) {
        session.handle_input(chunk);
        while let Some(event) = session.poll_event() {
            if let Event::Message(m) = event {
                n += m.parse().is_ok() as usize;
            }
        }
    }
    n
}

/// Splits lines across chunks like a reader must, calling `f` per line.
pub fn split_lines(input: &[u8], mut f: impl FnMut(&[u8])) {
    let mut partial: Vec<u8> = Vec::new();
    for mut chunk in input.chunks(CHUNK) {
        while let Some(pos) = chunk.iter().position(|&b| b == b'\n') {
            let (line, rest) = (&chunk[..pos], &chunk[pos + 1..]);
            if partial.is_empty() {
                f(line);
            } else {
                partial.extend_from_slice(line);
                f(&partial);
                partial.clear();
            }
            chunk = rest;
        }
        partial.extend_from_slice(chunk);
    }
    if !partial.is_empty() {
        f(&partial);
    }
}

/// Baseline: `serde_json::from_slice::<Value>` per line.
pub fn value_per_line(input: &[u8]) -> usize {
    let mut n = 0;
    split_lines(input, |line| {
        n += serde_json::from_slice::<serde_json::Value>(line).is_ok() as usize;
    });
    n
}

/// Floor: `serde_json::from_slice::<IgnoredAny>` per line (validates the
/// JSON, builds nothing).
pub fn ignored_per_line(input: &[u8]) -> usize {
    let mut n = 0;
    split_lines(input, |line| {
        n += serde_json::from_slice::<IgnoredAny>(line).is_ok() as usize;
    });
    n
}

/// Just the splitting, for reference.
pub fn split_only(input: &[u8]) -> usize {
    let mut n = 0;
    split_lines(input, |line| n += !line.is_empty() as usize);
    n
}
