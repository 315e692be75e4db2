//! [`Sessions`]: which sessions are meant (a config directory, maybe one
//! project and its worktrees), and where a session's transcript is among
//! them. Reading them is in `read`, changing them in `write`.

use std::path::{Path, PathBuf};

use super::error::SessionsError;
use super::locate::{all_project_dirs, canonical, default_config_dir, project_dir, worktrees};

/// The sessions under one config directory, optionally narrowed to one
/// project (a working directory).
///
/// Cheap to make and to clone: it holds paths, and every call reads the
/// directory afresh.
#[derive(Debug, Clone)]
#[must_use]
pub struct Sessions {
    config_dir: PathBuf,
    pub(super) project: Option<String>,
    pub(super) worktrees: bool,
}

impl Sessions {
    /// The sessions of the config directory the CLI uses by default:
    /// `CLAUDE_CONFIG_DIR` if set and not empty, else `~/.claude`.
    pub fn from_env() -> Result<Self, SessionsError> {
        default_config_dir()
            .map(Self::at)
            .ok_or(SessionsError::NoConfigDir)
    }

    /// The sessions of the CLI started with `options`: the config directory
    /// its environment names, narrowed to its working directory. Read as the
    /// CLI reads it: `CLAUDE_CONFIG_DIR` in `options`' env (`Options::env`),
    /// else in ours, else `.claude` in the home directory, which is also the
    /// CLI's: `HOME` (on Windows `USERPROFILE`) in `options`' env if set
    /// there (a sandboxed CLI with a home of its own), else ours when the
    /// CLI inherits our environment.
    /// Empty values count as unset.
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
        self.project = Some(canonical(directory.as_ref()));
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
}

/// A session's transcript: a non-empty `<session id>.jsonl` in the
/// project's directory, then in its worktrees' (when narrowed to a
/// project), else in any project directory.
pub(super) fn find_transcript(sessions: &Sessions, session_id: &str) -> Option<PathBuf> {
    let file = format!("{session_id}.jsonl");
    let non_empty = |dir: &Path| {
        let path = dir.join(&file);
        std::fs::metadata(&path)
            .is_ok_and(|m| m.is_file() && m.len() > 0)
            .then_some(path)
    };
    let projects = sessions.projects_dir();
    match &sessions.project {
        Some(project) => {
            if let Some(found) = project_dir(&projects, project).and_then(|d| non_empty(&d)) {
                return Some(found);
            }
            if !sessions.worktrees {
                return None;
            }
            worktrees(project)
                .iter()
                .filter(|wt| *wt != project)
                .find_map(|wt| project_dir(&projects, wt).and_then(|d| non_empty(&d)))
        }
        None => all_project_dirs(&projects)
            .iter()
            .find_map(|d| non_empty(d)),
    }
}
