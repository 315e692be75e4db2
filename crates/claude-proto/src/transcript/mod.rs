//! The CLI's session transcripts: the JSONL files it writes under its
//! config directory (`projects/<project key>/<session id>.jsonl`), read and
//! changed as pure functions of their bytes.
//!
//! Nothing here touches the file system: reading files, listing
//! directories and writing atomically live in `claude-proto-process`
//! (`sessions`), and external stores in `claude-proto-store`. This module
//! holds what both need: how a session is named ([`SessionKey`]) and how its
//! lines are understood.

mod key;
mod mirror;

pub use key::{SessionKey, SessionKeyError};
pub use mirror::MirrorFrame;

/// One transcript line: a JSON object kept as the text the CLI wrote.
pub type Entry = Box<serde_json::value::RawValue>;
