//! The CLI's session transcripts: the JSONL files it writes under its
//! config directory (`projects/<project key>/<session id>.jsonl`), read and
//! changed as pure functions of their bytes.
//!
//! Nothing here touches the file system: reading files, listing
//! directories and writing atomically live in `claude-proto-sessions`,
//! with the stores. This module
//! holds what both need: how a session is named ([`SessionKey`]) and how its
//! lines are understood.

mod archive;
mod chain;
mod fast_probe;
mod fork;
mod info;
mod jsonl;
mod key;
mod message;
mod mirror;
mod probe;
mod project;
mod scan;
mod summary;
mod time;

pub use archive::{ArchiveMark, MAX_ARCHIVE_MARK_BYTES};
pub use chain::{ReadLine, Span, TranscriptIndex};
pub use fork::{Fork, ForkError, ForkSource};
pub use info::{FIRST_PROMPT_CHARS, LITE_WINDOW, Lite, SessionInfo, first_prompt_of, title_of};
pub use jsonl::entries_to_jsonl;
pub use key::{SessionKey, SessionKeyError};
pub use message::{AgentParents, SessionMessage};
pub use mirror::MirrorFrame;
pub use project::{
    MAX_PROJECT_KEY_LEN, is_truncated_key_of, is_uuid, project_key, without_verbatim_prefix,
};
pub use summary::{SessionSummary, fold_summary, summary_to_info};
pub use time::{format_iso_millis, parse_iso_millis};

/// One transcript line: a JSON object kept as the text the CLI wrote.
pub type Entry = Box<serde_json::value::RawValue>;
