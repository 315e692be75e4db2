//! The `transcript_mirror` line: what the CLI wrote to a transcript file,
//! streamed to the host when it runs with `--session-mirror`.

use serde::Deserialize;

use crate::error::DecodeError;

/// One `transcript_mirror` line: the CLI appended `entries` to the
/// transcript file at `file_path`. The entries are kept as their JSON text,
/// exactly as the CLI wrote them.
#[derive(Debug, Deserialize)]
#[non_exhaustive]
pub struct MirrorFrame {
    /// The transcript file's path, as the CLI sees it (under its config
    /// directory's `projects/`); [`SessionKey::from_file_path`] turns it
    /// into a key.
    ///
    /// [`SessionKey::from_file_path`]: crate::transcript::SessionKey::from_file_path
    #[serde(rename = "filePath")]
    pub file_path: String,
    /// The lines appended, in order.
    pub entries: Vec<super::Entry>,
}

impl MirrorFrame {
    /// Reads a `transcript_mirror` line (a [`Message`](crate::Message)'s
    /// bytes). Fails if `filePath` or `entries` is missing or of another
    /// type; other fields are ignored.
    pub fn parse(line: &[u8]) -> Result<Self, DecodeError> {
        serde_json::from_slice(line).map_err(|source| DecodeError {
            what: "a transcript_mirror line",
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_keeps_its_entries_as_written() {
        let line = br#"{"type":"transcript_mirror","filePath":"/c/projects/p/s.jsonl","entries":[{"type":"user","uuid":"u1"},{"b":1, "a":2}]}"#;
        let frame = MirrorFrame::parse(line).expect("parses");
        assert_eq!(frame.file_path, "/c/projects/p/s.jsonl");
        let texts: Vec<&str> = frame.entries.iter().map(|e| e.get()).collect();
        assert_eq!(
            texts,
            [r#"{"type":"user","uuid":"u1"}"#, r#"{"b":1, "a":2}"#]
        );
        assert!(MirrorFrame::parse(br#"{"type":"transcript_mirror"}"#).is_err());
    }
}
