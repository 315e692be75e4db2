//! How a transcript is named, on disk and in a store.

use std::fmt;

/// Names one transcript: a session's main transcript, or one of its
/// subagents' (`subpath` set, for example `subagents/agent-1`).
///
/// On disk it is `projects/<project_key>/<session_id>.jsonl`, a subagent
/// `projects/<project_key>/<session_id>/<subpath>.jsonl`; a store keeps it
/// under the same three parts, so a session mirrored from one machine is
/// found by the same key on another.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionKey {
    /// The project's key: its working directory as the CLI names its
    /// directory under `projects/`.
    pub project_key: String,
    /// The session's id (a UUID for sessions the CLI wrote).
    pub session_id: String,
    /// The subagent transcript's path under the session, `/`-separated,
    /// without `.jsonl`; `None` for the main transcript.
    pub subpath: Option<String>,
}

/// Why a file path does not name a transcript under a projects directory.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SessionKeyError {
    /// The path is not inside the projects directory.
    #[error("`{path}` is not under the projects directory `{projects_dir}`")]
    OutsideProjects {
        /// The path given.
        path: String,
        /// The projects directory it was resolved against.
        projects_dir: String,
    },
    /// The path is inside, but not shaped like a transcript.
    #[error("`{path}` is not a transcript's path")]
    NotATranscript {
        /// The path given.
        path: String,
    },
}

impl SessionKey {
    /// The key of a session's main transcript.
    pub fn main(project_key: impl Into<String>, session_id: impl Into<String>) -> Self {
        Self {
            project_key: project_key.into(),
            session_id: session_id.into(),
            subpath: None,
        }
    }

    /// The key of a transcript under the same session at `subpath`.
    #[must_use]
    pub fn with_subpath(&self, subpath: impl Into<String>) -> Self {
        Self {
            project_key: self.project_key.clone(),
            session_id: self.session_id.clone(),
            subpath: Some(subpath.into()),
        }
    }

    /// The key of this transcript's session (the main transcript).
    #[must_use]
    pub fn session(&self) -> Self {
        Self::main(self.project_key.clone(), self.session_id.clone())
    }

    /// The key for a transcript file the CLI named by `file_path` (as in a
    /// `transcript_mirror` line), relative to the `projects_dir` the CLI
    /// writes under. Both are plain `/`-separated strings (the CLI's own
    /// form; a Windows path's `\` separators are read as `/` too).
    ///
    /// `<project>/<session>.jsonl` is a main transcript;
    /// `<project>/<session>/<dirs...>/<name>.jsonl` (at least two parts
    /// below the session) a subagent's, its subpath the parts below the
    /// session without `.jsonl`.
    pub fn from_file_path(file_path: &str, projects_dir: &str) -> Result<Self, SessionKeyError> {
        let outside = || SessionKeyError::OutsideProjects {
            path: file_path.to_owned(),
            projects_dir: projects_dir.to_owned(),
        };
        let not_transcript = || SessionKeyError::NotATranscript {
            path: file_path.to_owned(),
        };
        let path = normalise(file_path);
        let base = normalise(projects_dir);
        let base = base.trim_end_matches('/');
        let rest = path
            .strip_prefix(base)
            .and_then(|rest| rest.strip_prefix('/'))
            .ok_or_else(outside)?;
        let parts: Vec<&str> = rest.split('/').filter(|p| !p.is_empty()).collect();
        if parts.iter().any(|p| *p == "." || *p == "..") {
            return Err(outside());
        }
        match parts.as_slice() {
            [project, file] => {
                let session = file.strip_suffix(".jsonl").ok_or_else(not_transcript)?;
                if session.is_empty() {
                    return Err(not_transcript());
                }
                Ok(Self::main(*project, session))
            }
            [project, session, below @ ..] if below.len() >= 2 => {
                let (last, dirs) = below.split_last().ok_or_else(not_transcript)?;
                let last = last.strip_suffix(".jsonl").unwrap_or(last);
                let mut subpath = dirs.join("/");
                subpath.push('/');
                subpath.push_str(last);
                Ok(Self::main(*project, *session).with_subpath(subpath))
            }
            _ => Err(not_transcript()),
        }
    }
}

impl fmt::Display for SessionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.project_key, self.session_id)?;
        if let Some(subpath) = &self.subpath {
            write!(f, "/{subpath}")?;
        }
        Ok(())
    }
}

fn normalise(path: &str) -> String {
    path.replace('\\', "/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn main_and_subagent_paths_become_keys() {
        let dir = "/home/u/.claude/projects";
        assert_eq!(
            SessionKey::from_file_path("/home/u/.claude/projects/-work-app/abc.jsonl", dir),
            Ok(SessionKey::main("-work-app", "abc"))
        );
        assert_eq!(
            SessionKey::from_file_path(
                "/home/u/.claude/projects/-work-app/abc/subagents/workflows/r1/agent-7.jsonl",
                &format!("{dir}/")
            ),
            Ok(SessionKey::main("-work-app", "abc").with_subpath("subagents/workflows/r1/agent-7"))
        );
    }

    #[test]
    fn paths_outside_or_of_other_shapes_are_refused() {
        let dir = "/p";
        for path in ["/q/x/y.jsonl", "/p/../x/y.jsonl", "/px/a/b.jsonl"] {
            assert!(
                matches!(
                    SessionKey::from_file_path(path, dir),
                    Err(SessionKeyError::OutsideProjects { .. })
                ),
                "{path}"
            );
        }
        for path in ["/p/a", "/p/a/b.txt", "/p/a/b/c.jsonl", "/p/a/.jsonl"] {
            assert!(
                matches!(
                    SessionKey::from_file_path(path, dir),
                    Err(SessionKeyError::NotATranscript { .. })
                ),
                "{path}"
            );
        }
    }
}
