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

mod from_store;
mod jsonl;
mod load_all;
mod locate;
mod read;
mod write;

use std::io;
use std::path::{Path, PathBuf};

use crate::StoreError;
pub use claude_proto::transcript::{ForkError, SessionInfo, SessionMessage};
pub use from_store::{StoreForked, StoreSessions};
pub use locate::project_key_for_directory;

/// The sessions under one config directory, optionally narrowed to one
/// project (a working directory).
///
/// Cheap to make and to clone: it holds paths, and every call reads the
/// directory afresh.
#[derive(Debug, Clone)]
#[must_use]
pub struct Sessions {
    config_dir: PathBuf,
    project: Option<String>,
    worktrees: bool,
}

/// Which part of a list to return: skip `offset` items, then return at
/// most `limit` (all the rest if `None` or `Some(0)`, as the SDKs read a
/// zero limit).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Page {
    /// The most items to return.
    pub limit: Option<usize>,
    /// How many items to skip first.
    pub offset: usize,
}

impl Page {
    /// Every item.
    pub fn all() -> Self {
        Self::default()
    }

    /// At most `limit` items.
    #[must_use]
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = Some(limit);
        self
    }

    /// Skip the first `offset` items.
    #[must_use]
    pub fn offset(mut self, offset: usize) -> Self {
        self.offset = offset;
        self
    }

    pub(crate) fn apply<T>(self, items: Vec<T>) -> Vec<T> {
        let take = self.limit.filter(|&l| l > 0).unwrap_or(usize::MAX);
        items.into_iter().skip(self.offset).take(take).collect()
    }
}

/// What a fork is made from, beyond the session.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ForkOptions {
    /// Copy the conversation up to and including this message (a uuid);
    /// all of it if `None`.
    pub up_to_message_id: Option<String>,
    /// The fork's title; `<source title> (fork)` if `None` or blank.
    pub title: Option<String>,
}

impl ForkOptions {
    /// Copy up to and including `message_id`.
    #[must_use]
    pub fn up_to(mut self, message_id: impl Into<String>) -> Self {
        self.up_to_message_id = Some(message_id.into());
        self
    }

    /// Title the fork `title`.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }
}

/// A session made by [`Sessions::fork`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Forked {
    /// The new session's id.
    pub session_id: String,
    /// Its transcript.
    pub path: PathBuf,
}

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

impl Sessions {
    /// The sessions of the config directory the CLI uses by default:
    /// `CLAUDE_CONFIG_DIR` if set and not empty, else `~/.claude`.
    pub fn from_env() -> Result<Self, SessionsError> {
        locate::default_config_dir()
            .map(Self::at)
            .ok_or(SessionsError::NoConfigDir)
    }

    /// The sessions of the CLI started with `options`: the config directory
    /// its environment names (`CLAUDE_CONFIG_DIR` in `options`' env, else
    /// ours, else `~/.claude`), narrowed to its working directory.
    pub fn for_options(options: &claude_proto::options::Options) -> Self {
        let sessions = Self::at(crate::config_dir(options));
        let cwd = options
            .cwd
            .as_ref()
            .map(PathBuf::from)
            .or_else(|| std::env::current_dir().ok());
        match cwd {
            Some(cwd) => sessions.in_project(cwd),
            None => sessions,
        }
    }

    /// The sessions under `config_dir` (the directory that holds
    /// `projects/`, as `CLAUDE_CONFIG_DIR` names it).
    pub fn at(config_dir: impl Into<PathBuf>) -> Self {
        Self {
            config_dir: config_dir.into(),
            project: None,
            worktrees: true,
        }
    }

    /// Only the sessions of the project in `directory` (a working
    /// directory; symlinks are resolved as the CLI resolves them), and by
    /// default of the other worktrees of its git repository.
    pub fn in_project(mut self, directory: impl AsRef<Path>) -> Self {
        self.project = Some(locate::canonical(directory.as_ref()));
        self
    }

    /// Leave out the project's other git worktrees (they are included by
    /// default, as in the SDKs).
    pub fn without_worktrees(mut self) -> Self {
        self.worktrees = false;
        self
    }

    /// The `projects` directory searched.
    pub fn projects_dir(&self) -> PathBuf {
        self.config_dir.join("projects")
    }

    /// The sessions, newest first (by modification time), then `page`:
    /// the SDKs' `list_sessions`. A subagent's transcript, or one with
    /// nothing to show (no title, prompt or summary), is not listed; a
    /// session present under several matched project directories is
    /// listed once, its newest copy. Unreadable files and directories are
    /// passed over; a missing projects directory lists nothing.
    pub fn list(&self, page: Page) -> Vec<SessionInfo> {
        page.apply(read::list(self))
    }

    /// One session's listing: the SDKs' `get_session_info`. `Ok(None)` if
    /// it is not found, or is one [`list`](Self::list) leaves out.
    pub fn info(&self, session_id: &str) -> Result<Option<SessionInfo>, SessionsError> {
        check_session_id(session_id)?;
        Ok(read::info(self, session_id))
    }

    /// The messages of a session's conversation, in order, then `page`:
    /// the SDKs' `get_session_messages`. Only the messages of the page are
    /// read into memory. Empty for a session that is not found or whose
    /// transcript is empty, as in the Python SDK and as
    /// [`StoreSessions::messages`] reads a store; an id that is not a
    /// session id is an error ([`SessionsError::InvalidSessionId`]).
    pub fn messages(
        &self,
        session_id: &str,
        page: Page,
    ) -> Result<Vec<SessionMessage>, SessionsError> {
        check_session_id(session_id)?;
        match locate::find_transcript(self, session_id) {
            Some(path) => read::messages(&path, page),
            None => Ok(Vec::new()),
        }
    }

    /// The ids of a session's subagents, in the order of their files: the
    /// SDKs' `list_subagents`. Empty for a session without subagents, or
    /// one that is not found.
    pub fn subagents(&self, session_id: &str) -> Result<Vec<String>, SessionsError> {
        check_session_id(session_id)?;
        let Some(path) = locate::find_transcript(self, session_id) else {
            return Ok(Vec::new());
        };
        Ok(read::agent_files(&path)
            .into_iter()
            .map(|(id, _)| id)
            .collect())
    }

    /// A subagent's messages, each naming the tool use that started it:
    /// the SDKs' `get_subagent_messages`. Empty if the session has no such
    /// subagent, or is not found.
    pub fn subagent_messages(
        &self,
        session_id: &str,
        agent_id: &str,
        page: Page,
    ) -> Result<Vec<SessionMessage>, SessionsError> {
        check_session_id(session_id)?;
        check_agent_id(agent_id)?;
        match locate::find_transcript(self, session_id) {
            Some(path) => read::subagent_messages(&path, agent_id, page),
            None => Ok(Vec::new()),
        }
    }

    /// The transcript of a session, if there is a non-empty one.
    pub fn transcript_path(&self, session_id: &str) -> Result<Option<PathBuf>, SessionsError> {
        check_session_id(session_id)?;
        Ok(locate::find_transcript(self, session_id))
    }

    /// Titles a session `title` (trimmed; must not be empty): the SDKs'
    /// `rename_session`. Appends a `custom-title` line; the last one wins.
    ///
    /// Safe while a CLI writes the same transcript: the line is appended
    /// in one write to the file opened in append mode, so it never
    /// interleaves with the CLI's lines, and the file is never replaced
    /// (a CLI holding it open would go on writing to a replaced file and
    /// lose its lines). After a torn last line, the new line starts on a
    /// line of its own (if a CLI's line was landing at that instant, this
    /// leaves a blank line, which every reader skips).
    pub fn rename(&self, session_id: &str, title: &str) -> Result<(), SessionsError> {
        check_session_id(session_id)?;
        let title = title.trim();
        if title.is_empty() {
            return Err(SessionsError::EmptyTitle);
        }
        write::append_line(self, session_id, &write::title_line(session_id, title))
    }

    /// Tags a session, or clears its tag with `None`: the SDKs'
    /// `tag_session`. The tag is normalized (NFKC) and cleared of invisible
    /// and private-use characters, then trimmed, as the SDKs do for the
    /// CLI's tag filter. Appended as [`rename`](Self::rename) appends.
    pub fn tag(&self, session_id: &str, tag: Option<&str>) -> Result<(), SessionsError> {
        check_session_id(session_id)?;
        let tag = match tag {
            Some(tag) => {
                let clean = write::sanitize_tag(tag);
                if clean.is_empty() {
                    return Err(SessionsError::EmptyTag);
                }
                clean
            }
            None => String::new(),
        };
        write::append_line(self, session_id, &write::tag_line(session_id, &tag))
    }

    /// Archives a session: TypeScript's `archiveSession`. The transcript
    /// is not changed; a mark beside it (`<session id>/archived.json`, as
    /// the TypeScript SDK keeps it) makes [`list`](Self::list) and
    /// [`info`](Self::info) report `archived: Some(true)` until the session
    /// is unarchived or the user sends a prompt in it. A running CLI is
    /// not stopped.
    pub fn archive(&self, session_id: &str) -> Result<(), SessionsError> {
        check_session_id(session_id)?;
        let path = self.require(session_id)?;
        write::set_archived(session_id, &path, true)
    }

    /// Unarchives a session: TypeScript's `unarchiveSession`; it then lists
    /// with `archived: Some(false)`.
    pub fn unarchive(&self, session_id: &str) -> Result<(), SessionsError> {
        check_session_id(session_id)?;
        let path = self.require(session_id)?;
        write::set_archived(session_id, &path, false)
    }

    /// Deletes a session's transcript and its subagents' directory: the
    /// SDKs' `delete_session`. Permanent.
    pub fn delete(&self, session_id: &str) -> Result<(), SessionsError> {
        check_session_id(session_id)?;
        let path = self.require(session_id)?;
        write::delete(session_id, &path)
    }

    /// Copies a session's conversation into a new session beside it, with
    /// fresh uuids and each entry naming its original (`forkedFrom`): the
    /// SDKs' `fork_session`. The new transcript is written to a temporary
    /// file and renamed into place, so a reader never sees half of it.
    pub fn fork(&self, session_id: &str, options: &ForkOptions) -> Result<Forked, SessionsError> {
        check_session_id(session_id)?;
        if let Some(up_to) = options.up_to_message_id.as_deref() {
            // Refused before the transcript is looked for.
            if !claude_proto::transcript::is_uuid(up_to) {
                return Err(SessionsError::InvalidMessageId(up_to.to_owned()));
            }
        }
        let path = self.require(session_id)?;
        write::fork(session_id, &path, options)
    }

    fn require(&self, session_id: &str) -> Result<PathBuf, SessionsError> {
        locate::find_transcript(self, session_id).ok_or_else(|| SessionsError::NotFound {
            session_id: session_id.to_owned(),
            project: self.project.clone(),
        })
    }
}

/// A subagent id names a file under the session: no separators, no `..`.
pub(crate) fn check_agent_id(agent_id: &str) -> Result<(), SessionsError> {
    if agent_id.is_empty() || agent_id.contains(['/', '\\', '\0']) || agent_id.contains("..") {
        return Err(SessionsError::InvalidAgentId(agent_id.to_owned()));
    }
    Ok(())
}

/// The fork of `source` as `options` ask, and the title to derive it from
/// when they give none (`derive` runs only then): shared by the disk and
/// the store.
pub(crate) fn plan_fork(
    source: claude_proto::transcript::ForkSource,
    options: &ForkOptions,
    derive: impl FnOnce() -> Option<String>,
) -> Result<(claude_proto::transcript::Fork, Option<String>), SessionsError> {
    let up_to = options.up_to_message_id.as_deref();
    if let Some(up_to) = up_to.filter(|id| !claude_proto::transcript::is_uuid(id)) {
        return Err(SessionsError::InvalidMessageId(up_to.to_owned()));
    }
    let plan = claude_proto::transcript::Fork::plan(
        source,
        up_to,
        write::now_millis(),
        &mut write::new_uuid,
    )?;
    let derived = match options.title.as_deref().map(str::trim) {
        Some(title) if !title.is_empty() => None,
        _ => derive(),
    };
    Ok((plan, derived))
}

pub(crate) fn check_session_id(session_id: &str) -> Result<(), SessionsError> {
    if claude_proto::transcript::is_uuid(session_id) {
        Ok(())
    } else {
        Err(SessionsError::InvalidSessionId(session_id.to_owned()))
    }
}
