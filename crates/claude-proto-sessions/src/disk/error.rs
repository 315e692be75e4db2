//! Why a session function failed: [`SessionsError`], and the helper that
//! names the file an IO error came from.

use std::io;
use std::path::{Path, PathBuf};

use claude_proto::transcript::ForkError;

use crate::StoreError;

/// Why a session function failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SessionsError {
    /// Neither `CLAUDE_CONFIG_DIR` nor `HOME` is set, so there is no
    /// default config directory.
    #[error(
        "no config directory: neither CLAUDE_CONFIG_DIR nor HOME is set; set one, or name the directory with Sessions::at"
    )]
    NoConfigDir,
    /// The session id is not a UUID (the only ids the CLI writes; anything
    /// else could name a path outside the projects directory).
    #[error("`{0}` is not a session id (a UUID)")]
    InvalidSessionId(String),
    /// The message id given to a fork is not a UUID.
    #[error("`{0}` is not a message id (a UUID)")]
    InvalidMessageId(String),
    /// The agent id is empty or could name a path outside the session.
    #[error("`{0}` is not a subagent id")]
    InvalidAgentId(String),
    /// The title is empty once trimmed.
    #[error("the title is empty")]
    EmptyTitle,
    /// The tag is empty once invisible characters and whitespace are
    /// removed (pass `None` to clear a tag).
    #[error("the tag is empty once invisible characters are removed (pass None to clear it)")]
    EmptyTag,
    /// No non-empty transcript of the session was found, for a change
    /// (rename, tag, archive, delete, fork); the readers give nothing
    /// instead.
    #[error("session {session_id} not found{}", in_project(project.as_deref()))]
    NotFound {
        /// The session asked for.
        session_id: String,
        /// The project searched, if the search was narrowed to one.
        project: Option<String>,
    },
    /// The session cannot be forked as asked.
    #[error(transparent)]
    Fork(#[from] ForkError),
    /// The session store failed, or cannot do what was asked
    /// ([`StoreError::Unsupported`]).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Reading or writing a file failed.
    #[error("{what} `{}`: {source}", path.display())]
    Io {
        /// What was being done.
        what: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
}

fn in_project(project: Option<&str>) -> String {
    project
        .map(|p| format!(" in the project of {p}"))
        .unwrap_or_default()
}

pub(crate) fn io_error<'a>(
    what: &'static str,
    path: &'a Path,
) -> impl FnOnce(io::Error) -> SessionsError + 'a {
    move |source| SessionsError::Io {
        what,
        path: path.to_owned(),
        source,
    }
}
