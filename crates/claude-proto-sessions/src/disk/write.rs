//! Changing sessions: [`Sessions`]' rename, tag, archive, delete and fork,
//! as one appended line for a title or a tag, a mark beside the
//! transcript, removal, and forks written beside the source.

use std::fs::{File, OpenOptions};
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use claude_proto::transcript::{ArchiveMark, Fork, ForkSource, first_prompt_of, title_of};
use unicode_normalization::UnicodeNormalization as _;

use super::error::{SessionsError, io_error};
use super::fork::{ForkOptions, Forked, plan_fork};
use super::ids::check_session_id;
use super::locate::{all_project_dirs, project_dir, worktrees};
use super::read::{archive_mark_path, read_lite, read_span, scan_lines};
use super::sessions::{Sessions, find_transcript};
use super::stamp::{new_uuid, now_millis};

impl Sessions {
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
        append_line(self, session_id, &title_line(session_id, title))
    }

    /// Tags a session, or clears its tag with `None`: the SDKs'
    /// `tag_session`. The tag is normalized (NFKC) and cleared of invisible
    /// and private-use characters, then trimmed, as the SDKs do for the
    /// CLI's tag filter. Appended as [`rename`](Self::rename) appends.
    pub fn tag(&self, session_id: &str, tag: Option<&str>) -> Result<(), SessionsError> {
        check_session_id(session_id)?;
        let tag = tag_text(tag)?;
        append_line(self, session_id, &tag_line(session_id, &tag))
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
        set_archived(session_id, &path, true)
    }

    /// Unarchives a session: TypeScript's `unarchiveSession`; it then lists
    /// with `archived: Some(false)`.
    pub fn unarchive(&self, session_id: &str) -> Result<(), SessionsError> {
        check_session_id(session_id)?;
        let path = self.require(session_id)?;
        set_archived(session_id, &path, false)
    }

    /// Deletes a session's transcript and its subagents' directory: the
    /// SDKs' `delete_session`. Permanent.
    pub fn delete(&self, session_id: &str) -> Result<(), SessionsError> {
        check_session_id(session_id)?;
        let path = self.require(session_id)?;
        delete(session_id, &path)
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
        fork(session_id, &path, options)
    }

    fn require(&self, session_id: &str) -> Result<PathBuf, SessionsError> {
        find_transcript(self, session_id).ok_or_else(|| SessionsError::NotFound {
            session_id: session_id.to_owned(),
            project: self.project.clone(),
        })
    }
}

fn json(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

pub(super) fn title_line(session_id: &str, title: &str) -> String {
    format!(
        "{{\"type\":\"custom-title\",\"customTitle\":{},\"sessionId\":{}}}\n",
        json(title),
        json(session_id)
    )
}

pub(super) fn tag_line(session_id: &str, tag: &str) -> String {
    format!(
        "{{\"type\":\"tag\",\"tag\":{},\"sessionId\":{}}}\n",
        json(tag),
        json(session_id)
    )
}

/// Appends `line` to the session's transcript, wherever it is found; the
/// file must exist and not be empty (an empty one means "not here").
pub(super) fn append_line(
    sessions: &Sessions,
    session_id: &str,
    line: &str,
) -> Result<(), SessionsError> {
    let file = format!("{session_id}.jsonl");
    let projects = sessions.projects_dir();
    let candidates: Vec<PathBuf> = match &sessions.project {
        Some(project) => {
            let mut dirs: Vec<PathBuf> = project_dir(&projects, project).into_iter().collect();
            if sessions.worktrees {
                dirs.extend(
                    worktrees(project)
                        .iter()
                        .filter(|t| *t != project)
                        .filter_map(|t| project_dir(&projects, t)),
                );
            }
            dirs
        }
        None => all_project_dirs(&projects),
    };
    for dir in candidates {
        let path = dir.join(&file);
        if try_append(&path, line)? {
            return Ok(());
        }
    }
    Err(SessionsError::NotFound {
        session_id: session_id.to_owned(),
        project: sessions.project.clone(),
    })
}

/// `Ok(false)` if there is no non-empty file at `path`.
fn try_append(path: &Path, line: &str) -> Result<bool, SessionsError> {
    // Append mode without create: a missing file fails the open, with no
    // window between a check and the write.
    let file = match OpenOptions::new().read(true).append(true).open(path) {
        Ok(file) => file,
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(false);
        }
        Err(e) => return Err(io_error("open", path)(e)),
    };
    let size = file.metadata().map_err(io_error("stat", path))?.len();
    if size == 0 {
        return Ok(false);
    }
    let mut last = [0u8];
    let torn = claude_proto_process::private::read_exact_at(&file, &mut last, size - 1)
        .map(|()| last[0] != b'\n');
    let mut bytes = Vec::with_capacity(line.len() + 1);
    if torn.unwrap_or(false) {
        bytes.push(b'\n');
    }
    bytes.extend_from_slice(line.as_bytes());
    // One write: in append mode the kernel places it at the end as a
    // whole, between the CLI's own writes.
    (&file)
        .write_all(&bytes)
        .map_err(io_error("append to", path))?;
    Ok(true)
}

/// The tag as the CLI's filter expects it: NFKC, without format and
/// private-use characters (zero-width spaces, direction marks, byte-order
/// marks), repeated until stable, then trimmed.
///
/// The SDKs also drop unassigned code points, which depends on the
/// Unicode version of the Python or JavaScript runtime; we keep them.
/// The text a tag is written as: cleaned ([`sanitize_tag`]), refused
/// when nothing is left; `None` (clearing the tag) is the empty text.
/// One rule for sessions on disk and in a store.
pub(super) fn tag_text(tag: Option<&str>) -> Result<String, SessionsError> {
    match tag {
        None => Ok(String::new()),
        Some(tag) => {
            let clean = sanitize_tag(tag);
            if clean.is_empty() {
                Err(SessionsError::EmptyTag)
            } else {
                Ok(clean)
            }
        }
    }
}

fn sanitize_tag(tag: &str) -> String {
    let mut current = tag.to_owned();
    for _ in 0..10 {
        let next: String = current
            .nfkc()
            .filter(|&c| !is_format_or_private(c))
            .collect();
        if next == current {
            break;
        }
        current = next;
    }
    current.trim().to_owned()
}

/// Unicode general categories Cf (format) and Co (private use).
fn is_format_or_private(c: char) -> bool {
    matches!(
        u32::from(c),
        0x00AD
            | 0x0600..=0x0605
            | 0x061C
            | 0x06DD
            | 0x070F
            | 0x0890..=0x0891
            | 0x08E2
            | 0x180E
            | 0x200B..=0x200F
            | 0x202A..=0x202E
            | 0x2060..=0x2064
            | 0x2066..=0x206F
            | 0xFEFF
            | 0xFFF9..=0xFFFB
            | 0x110BD
            | 0x110CD
            | 0x13430..=0x1343F
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0001
            | 0xE0020..=0xE007F
            | 0xE000..=0xF8FF
            | 0xF0000..=0xFFFFD
            | 0x100000..=0x10FFFD
    )
}

/// Writes the archived mark beside the transcript at `path`: to a
/// temporary file renamed into place, so a reader sees the old mark or the
/// new one.
pub(super) fn set_archived(
    session_id: &str,
    path: &Path,
    archived: bool,
) -> Result<(), SessionsError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mark_path = archive_mark_path(dir, session_id);
    let mark_dir = dir.join(session_id);
    claude_proto_process::private::private_dir_builder()
        .recursive(true)
        .create(&mark_dir)
        .map_err(io_error("create", &mark_dir))?;
    let temporary = mark_dir.join(format!(".archived.{}.tmp", new_uuid()));
    let text = ArchiveMark::new(archived, now_millis()).to_json();
    let written = claude_proto_process::private::private_file_options()
        .open(&temporary)
        .and_then(|mut file| file.write_all(text.as_bytes()))
        .and_then(|()| std::fs::rename(&temporary, &mark_path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temporary);
        return Err(io_error("write", &mark_path)(e));
    }
    Ok(())
}

pub(super) fn delete(session_id: &str, path: &Path) -> Result<(), SessionsError> {
    std::fs::remove_file(path).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => SessionsError::NotFound {
            session_id: session_id.to_owned(),
            project: None,
        },
        _ => io_error("delete", path)(e),
    })?;
    if let Some(dir) = path.parent().map(|p| p.join(session_id)) {
        // Subagent transcripts; best effort, as the SDKs.
        let _ = std::fs::remove_dir_all(dir);
    }
    Ok(())
}

pub(super) fn fork(
    session_id: &str,
    source: &Path,
    options: &ForkOptions,
) -> Result<Forked, SessionsError> {
    let mut reader = ForkSource::new(session_id);
    let file = scan_lines(source, |span, line| reader.handle_line(span, line))?;
    let (plan, derived) = plan_fork(reader, options, || {
        let lite = read_lite(source)?;
        title_of(&lite.head, lite.tail()).or_else(|| first_prompt_of(&lite.head))
    })?;
    let dir = source.parent().unwrap_or(Path::new("."));
    let path = dir.join(format!("{}.jsonl", plan.session_id()));
    let temporary = dir.join(format!(".{}.jsonl.tmp", plan.session_id()));
    let written = write_fork(
        &file,
        &plan,
        options.title.as_deref(),
        derived.as_deref(),
        &temporary,
    )
    .and_then(|()| std::fs::rename(&temporary, &path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temporary);
        return Err(io_error("write the fork", &path)(e));
    }
    Ok(Forked {
        session_id: plan.session_id().to_owned(),
        path,
    })
}

fn write_fork(
    source: &File,
    plan: &Fork,
    title: Option<&str>,
    derived: Option<&str>,
    to: &Path,
) -> io::Result<()> {
    let out = claude_proto_process::private::private_file_options().open(to)?;
    let mut out = io::BufWriter::new(out);
    for (n, span) in plan.spans().enumerate() {
        let line = read_span(source, span)
            .and_then(|line| plan.rewrite(n, &line))
            .ok_or_else(|| io::Error::other("the source transcript changed while it was forked"))?;
        out.write_all(line.as_bytes())?;
        out.write_all(b"\n")?;
    }
    let mut uuid = new_uuid;
    for line in plan.closing_lines(title, derived, &mut uuid) {
        out.write_all(line.as_bytes())?;
        out.write_all(b"\n")?;
    }
    out.into_inner()
        .map_err(io::IntoInnerError::into_error)?
        .sync_all()
}
