//! The archived mark the TypeScript SDK keeps beside a transcript
//! (`<session id>/archived.json`), and whether a session is archived now:
//! a prompt sent after the mark unarchives it.

use super::info::first_prompt_of;
use super::time::{format_iso_millis, parse_iso_millis};

/// The largest mark read; a bigger file is not a mark.
pub const MAX_ARCHIVE_MARK_BYTES: usize = 4096;

/// A session's archived mark: archived or not, and since when.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ArchiveMark {
    /// Whether the session was archived (`false`: unarchived).
    pub archived: bool,
    /// When, in milliseconds since the epoch.
    pub at_millis: i64,
}

impl ArchiveMark {
    /// A mark set now.
    pub fn new(archived: bool, at_millis: i64) -> Self {
        Self {
            archived,
            at_millis,
        }
    }

    /// The mark in a file's bytes; `None` if they are not one (too long,
    /// not JSON, no boolean `archived` or no date-time `at`).
    pub fn parse(bytes: &[u8]) -> Option<Self> {
        if bytes.len() > MAX_ARCHIVE_MARK_BYTES {
            return None;
        }
        let value: serde_json::Value = serde_json::from_slice(bytes).ok()?;
        Some(Self {
            archived: value.get("archived")?.as_bool()?,
            at_millis: parse_iso_millis(value.get("at")?.as_str()?)?,
        })
    }

    /// The file's contents, as the TypeScript SDK writes them.
    pub fn to_json(&self) -> String {
        serde_json::json!({
            "archived": self.archived,
            "at": format_iso_millis(self.at_millis),
            "by": "sdk",
        })
        .to_string()
    }

    /// Whether the session is archived now, given its transcript's head
    /// and tail: a mark that says archived holds until the user sends a
    /// prompt timestamped after it.
    pub fn is_archived(&self, head: &str, tail: &str) -> bool {
        self.archived
            && !(prompt_after(tail, self.at_millis)
                || (head != tail && prompt_after(head, self.at_millis)))
    }
}

/// Whether `text` holds a line the user typed (a prompt, not a tool
/// result, meta line or command output; or a queued command) timestamped
/// after `millis`.
fn prompt_after(text: &str, millis: i64) -> bool {
    text.split('\n').any(|line| {
        if !(line.contains("\"user\"") || line.contains("\"queued_command\""))
            || line.contains("\"tool_result\"")
        {
            return false;
        }
        let Ok(serde_json::Value::Object(entry)) = serde_json::from_str(line) else {
            return false;
        };
        let flag = |key: &str| {
            entry
                .get(key)
                .is_some_and(|v| v != &serde_json::Value::Bool(false))
        };
        if [
            "isMeta",
            "isSidechain",
            "isCompactSummary",
            "isVirtual",
            "isVisibleInTranscriptOnly",
        ]
        .iter()
        .any(|k| flag(k))
        {
            return false;
        }
        let typed = match entry.get("type").and_then(|t| t.as_str()) {
            Some("user") => {
                let human = entry
                    .get("origin")
                    .is_none_or(|o| o.get("kind").and_then(|k| k.as_str()) == Some("human"));
                human && (first_prompt_of(line).is_some() || has_media(&entry))
            }
            Some("attachment") => entry.get("attachment").is_some_and(|a| {
                a.get("type").and_then(|t| t.as_str()) == Some("queued_command")
                    && a.get("prompt")
                        .is_some_and(|p| p.as_str().is_none_or(|p| !p.trim().is_empty()))
            }),
            _ => false,
        };
        typed
            && entry
                .get("timestamp")
                .and_then(|t| t.as_str())
                .and_then(parse_iso_millis)
                .is_some_and(|at| at > millis)
    })
}

fn has_media(entry: &serde_json::Map<String, serde_json::Value>) -> bool {
    let content = entry
        .get("message")
        .and_then(|m| m.get("content"))
        .and_then(|c| c.as_array());
    content.is_some_and(|blocks| {
        blocks.iter().any(|b| {
            matches!(
                b.get("type").and_then(|t| t.as_str()),
                Some("image" | "document")
            )
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mark_round_trips_and_a_later_prompt_lifts_it() {
        let mark = ArchiveMark::new(true, 1_735_689_600_000);
        assert_eq!(ArchiveMark::parse(mark.to_json().as_bytes()), Some(mark));
        let before =
            r#"{"type":"user","timestamp":"2024-12-31T00:00:00.000Z","message":{"content":"old"}}"#;
        let after =
            r#"{"type":"user","timestamp":"2025-01-02T00:00:00.000Z","message":{"content":"new"}}"#;
        let result = r#"{"type":"user","timestamp":"2025-01-02T00:00:00.000Z","message":{"content":[{"type":"tool_result"}]}}"#;
        assert!(mark.is_archived(before, before));
        assert!(mark.is_archived(result, result));
        assert!(!mark.is_archived(after, after));
        assert!(!ArchiveMark::new(false, 0).is_archived(before, before));
        assert_eq!(ArchiveMark::parse(b"{\"archived\":\"yes\"}"), None);
    }
}
