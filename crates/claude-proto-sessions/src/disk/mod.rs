//! Sessions on disk: list a user's sessions, read their messages and
//! their subagents', rename, tag, fork and delete them, where the CLI
//! keeps them (`<config dir>/projects/<project key>/<session id>.jsonl`).
//!
//! The same vocabulary and results as the Python SDK's `list_sessions`,
//! `get_session_info`, `get_session_messages`, `list_subagents`,
//! `get_subagent_messages`, `rename_session`, `tag_session`,
//! `delete_session` and `fork_session` (TypeScript: the camelCase names,
//! and `archiveSession`/`unarchiveSession`),
//! checked side by side on the same directories. What a transcript means
//! is decided in the core ([`claude_proto::transcript`]); this module
//! reads and writes the files.
//!
//! Robust against what real directories hold: a transcript a running CLI
//! is writing (a torn last line is skipped), lines that are not JSON
//! (skipped, never fatal), huge transcripts (read line by line: memory is
//! the longest line plus a few hundred bytes per entry, and only the page
//! of messages asked for is kept), and a CLI appending while we change a
//! session (see [`Sessions::rename`]).
//!
//! [`Sessions`] is blocking file IO: from async code call it on a
//! blocking thread (`spawn_blocking` and the like). [`StoreSessions`]
//! asks the same of a session store ([`SessionStore`](crate::SessionStore)), with async
//! methods.

mod error;
mod fork;
mod from_store;
mod ids;
mod jsonl;
mod load_all;
mod locate;
mod page;
mod stamp;

// `Sessions` first, then the modules that add its methods: its page of
// documentation lists them in this order (making one, reading, changing).
mod sessions;

mod read;
mod write;

pub use claude_proto::transcript::{ForkError, SessionInfo, SessionMessage};
pub use error::SessionsError;
pub use fork::{ForkOptions, Forked};
pub use from_store::{StoreForked, StoreSessions};
pub use locate::project_key_for_directory;
pub use page::Page;
pub use sessions::Sessions;
