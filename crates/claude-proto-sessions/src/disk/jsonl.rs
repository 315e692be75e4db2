//! The head and tail of a store's session, and its time, as the Python
//! SDK reads them from the JSONL it writes the session's entries out to.

use claude_proto::transcript::{Entry, LITE_WINDOW, parse_iso_millis};

/// A JSONL text's head and tail windows, as a file of it would be read
/// (`_jsonl_to_lite`).
pub(super) fn head_and_tail(jsonl: &str) -> (&str, &str) {
    // The text is ASCII, so every byte offset is a character boundary.
    let head = &jsonl[..jsonl.len().min(LITE_WINDOW)];
    let tail = if jsonl.len() > LITE_WINDOW {
        &jsonl[jsonl.len() - LITE_WINDOW..]
    } else {
        head
    };
    (head, tail)
}

/// The session's time from the last entry's `timestamp`, else `now`
/// (`_mtime_from_jsonl_tail`).
pub(super) fn mtime_from_tail(entries: &[Entry], now: i64) -> i64 {
    entries
        .last()
        .and_then(|e| serde_json::from_str::<serde_json::Value>(e.get()).ok())
        .and_then(|e| e.get("timestamp")?.as_str().and_then(parse_iso_millis))
        .unwrap_or(now)
}
