//! Reading sessions: [`Sessions`]' list, info and messages (a subagent's
//! too), from the transcripts' head and tail for the list and their lines
//! for the conversation.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use claude_proto::transcript::{
    AgentParents, ArchiveMark, LITE_WINDOW, Lite, MAX_ARCHIVE_MARK_BYTES, ReadLine, SessionInfo,
    SessionMessage, Span, TranscriptIndex, is_uuid,
};

use super::error::{SessionsError, io_error};
use super::ids::{check_agent_id, check_session_id};
use super::locate::{all_project_dirs, project_dir, worktrees};
use super::page::Page;
use super::sessions::{Sessions, find_transcript};

impl Sessions {
    /// The sessions, newest first (by modification time), then `page`:
    /// the SDKs' `list_sessions`. A subagent's transcript, or one with
    /// nothing to show (no title, prompt or summary), is not listed; a
    /// session present under several matched project directories is
    /// listed once, its newest copy. Unreadable files and directories are
    /// passed over; a missing projects directory lists nothing.
    pub fn list(&self, page: Page) -> Vec<SessionInfo> {
        page.apply(list(self))
    }

    /// One session's listing: the SDKs' `get_session_info`. `Ok(None)` if
    /// it is not found, or is one [`list`](Self::list) leaves out.
    pub fn info(&self, session_id: &str) -> Result<Option<SessionInfo>, SessionsError> {
        check_session_id(session_id)?;
        Ok(info(self, session_id))
    }

    /// The messages of a session's conversation, in order, then `page`:
    /// the SDKs' `get_session_messages`. Only the messages of the page are
    /// kept: the file is read a run of nearby lines at a time (at most
    /// 2 MiB, or one longer line) per reading thread. Empty for a session that is not found or whose
    /// transcript is empty, as in the Python SDK and as
    /// [`StoreSessions::messages`](crate::StoreSessions::messages) reads a store; an id that is not a
    /// session id is an error ([`SessionsError::InvalidSessionId`]).
    pub fn messages(
        &self,
        session_id: &str,
        page: Page,
    ) -> Result<Vec<SessionMessage>, SessionsError> {
        check_session_id(session_id)?;
        match find_transcript(self, session_id) {
            Some(path) => messages(&path, page),
            None => Ok(Vec::new()),
        }
    }

    /// The ids of a session's subagents, in the order of their files: the
    /// SDKs' `list_subagents`. Empty for a session without subagents, or
    /// one that is not found.
    pub fn subagents(&self, session_id: &str) -> Result<Vec<String>, SessionsError> {
        check_session_id(session_id)?;
        let Some(path) = find_transcript(self, session_id) else {
            return Ok(Vec::new());
        };
        Ok(agent_files(&path).into_iter().map(|(id, _)| id).collect())
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
        match find_transcript(self, session_id) {
            Some(path) => subagent_messages(&path, agent_id, page),
            None => Ok(Vec::new()),
        }
    }

    /// The transcript of a session, if there is a non-empty one.
    pub fn transcript_path(&self, session_id: &str) -> Result<Option<PathBuf>, SessionsError> {
        check_session_id(session_id)?;
        Ok(find_transcript(self, session_id))
    }
}

/// A transcript's head and tail, decoded, with its size and mtime.
pub(super) struct LiteFile {
    pub(super) head: String,
    /// `None` when the file fits in the head.
    tail: Option<String>,
    pub(super) mtime: i64,
    pub(super) size: u64,
}

impl LiteFile {
    pub(super) fn tail(&self) -> &str {
        self.tail.as_deref().unwrap_or(&self.head)
    }

    pub(super) fn lite(&self) -> Lite<'_> {
        Lite {
            head: &self.head,
            tail: self.tail(),
            mtime: self.mtime,
            size: Some(self.size),
        }
    }
}

/// Reads `path`'s first and last [`LITE_WINDOW`] bytes; `None` if it
/// cannot be read or is empty.
pub(super) fn read_lite(path: &Path) -> Option<LiteFile> {
    let mut file = File::open(path).ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() {
        return None;
    }
    let size = meta.len();
    let head = read_up_to(&mut file, LITE_WINDOW).ok()?;
    if head.is_empty() {
        return None;
    }
    let tail = if size <= LITE_WINDOW as u64 {
        None
    } else {
        file.seek(SeekFrom::Start(size - LITE_WINDOW as u64)).ok()?;
        Some(decode(read_up_to(&mut file, LITE_WINDOW).ok()?))
    };
    Some(LiteFile {
        head: decode(head),
        tail,
        mtime: mtime_millis(&meta),
        size,
    })
}

/// UTF-8 with bad sequences replaced; no copy when there are none.
fn decode(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

fn read_up_to(file: &mut File, limit: usize) -> io::Result<Vec<u8>> {
    let mut buf = Vec::with_capacity(limit);
    file.take(limit as u64).read_to_end(&mut buf)?;
    Ok(buf)
}

/// The modification time in milliseconds, computed as Python computes
/// `int(st_mtime * 1000)` (a float of seconds), so both agree to the
/// millisecond.
pub(super) fn mtime_millis(meta: &std::fs::Metadata) -> i64 {
    let Ok(since_epoch) = meta
        .modified()
        .map(|m| m.duration_since(std::time::UNIX_EPOCH))
    else {
        return 0;
    };
    let Ok(since_epoch) = since_epoch else {
        return 0;
    };
    let seconds = since_epoch.as_secs() as f64 + f64::from(since_epoch.subsec_nanos()) * 1e-9;
    (seconds * 1000.0) as i64
}

/// The listable sessions of one project directory, in directory order.
///
/// A large directory is read by a few threads (see [`in_parallel`]).
fn sessions_in(dir: &Path, project_path: Option<&str>) -> Vec<SessionInfo> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let ids: Vec<String> = entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let id = name.strip_suffix(".jsonl")?;
            is_uuid(id).then(|| id.to_owned())
        })
        .collect();
    in_parallel(&ids, 256, |id| {
        let lite = read_lite(&dir.join(format!("{id}.jsonl")))?;
        listing(dir, id, &lite, project_path)
    })
}

/// `f` over `items`, in order, by up to eight threads (the available
/// parallelism), each a contiguous part of at least `per_thread` items;
/// on this thread when there are fewer. Reading transcripts is opening
/// files and scanning JSON, which threads overlap and share.
fn in_parallel<T: Sync, R: Send>(
    items: &[T],
    per_thread: usize,
    f: impl Fn(&T) -> Option<R> + Sync,
) -> Vec<R> {
    const MAX_THREADS: usize = 8;
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(MAX_THREADS)
        .min(items.len() / per_thread.max(1))
        .max(1);
    if threads == 1 {
        return items.iter().filter_map(&f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    let f = &f;
    let run = move |part: &[T]| part.iter().filter_map(f).collect::<Vec<R>>();
    std::thread::scope(|scope| {
        // A thread that cannot be started (the system is out of them) is
        // not an error: its part is done here instead (`scope.spawn` would
        // panic).
        let parts: Vec<Result<_, &[T]>> = items
            .chunks(chunk)
            .map(|part| {
                std::thread::Builder::new()
                    .name("claude-proto-sessions".into())
                    .spawn_scoped(scope, move || run(part))
                    .map_err(|_| part)
            })
            .collect();
        parts
            .into_iter()
            .flat_map(|part| match part {
                Ok(thread) => thread
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                Err(part) => run(part),
            })
            .collect()
    })
}

/// The listing of the session `id` in `dir`, with its archived state.
fn listing(
    dir: &Path,
    id: &str,
    lite: &LiteFile,
    project_path: Option<&str>,
) -> Option<SessionInfo> {
    let mut info = SessionInfo::from_lite(id, lite.lite(), project_path)?;
    info.archived =
        read_archive_mark(dir, id).map(|mark| mark.is_archived(&lite.head, lite.tail()));
    Some(info)
}

/// Where the TypeScript SDK keeps a session's archived mark.
pub(super) fn archive_mark_path(dir: &Path, id: &str) -> PathBuf {
    dir.join(id).join("archived.json")
}

fn read_archive_mark(dir: &Path, id: &str) -> Option<ArchiveMark> {
    let file = File::open(archive_mark_path(dir, id)).ok()?;
    let mut bytes = Vec::new();
    file.take(MAX_ARCHIVE_MARK_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    ArchiveMark::parse(&bytes)
}

/// Keeps each session id once, its newest copy, in first-seen order.
fn dedupe(infos: Vec<SessionInfo>) -> Vec<SessionInfo> {
    let mut at: HashMap<String, usize> = HashMap::new();
    let mut kept: Vec<SessionInfo> = Vec::new();
    for info in infos {
        match at.get(&info.session_id) {
            Some(&i) if info.last_modified > kept[i].last_modified => kept[i] = info,
            Some(_) => {}
            None => {
                at.insert(info.session_id.clone(), kept.len());
                kept.push(info);
            }
        }
    }
    kept
}

/// Newest first; a stable sort, so ties keep directory order (as the
/// SDKs' do).
fn newest_first(mut infos: Vec<SessionInfo>) -> Vec<SessionInfo> {
    infos.sort_by_key(|info| std::cmp::Reverse(info.last_modified));
    infos
}

pub(super) fn list(sessions: &Sessions) -> Vec<SessionInfo> {
    let projects = sessions.projects_dir();
    let Some(project) = &sessions.project else {
        let all = all_project_dirs(&projects)
            .iter()
            .flat_map(|d| sessions_in(d, None))
            .collect();
        return newest_first(dedupe(all));
    };
    let trees = if sessions.worktrees {
        worktrees(project)
    } else {
        Vec::new()
    };
    if trees.len() <= 1 {
        return match project_dir(&projects, project) {
            Some(dir) => newest_first(sessions_in(&dir, Some(project))),
            None => Vec::new(),
        };
    }
    // The project's own directory (it may be a subdirectory of a
    // worktree), then every directory named for a worktree: exactly, or
    // by prefix for long paths; the longest key first, so the most
    // specific worktree claims a directory.
    let mut keyed: Vec<(&String, String)> = trees
        .iter()
        .map(|t| (t, claude_proto::transcript::project_key(t)))
        .collect();
    keyed.sort_by_key(|(_, key)| std::cmp::Reverse(key.len()));
    let mut all = Vec::new();
    let mut seen = Vec::new();
    if let Some(own) = project_dir(&projects, project) {
        seen.push(
            own.file_name()
                .map(|n| n.to_os_string())
                .unwrap_or_default(),
        );
        all.extend(sessions_in(&own, Some(project)));
    }
    for dir in all_project_dirs(&projects) {
        let Some(name) = dir.file_name().map(|n| n.to_os_string()) else {
            continue;
        };
        if seen.contains(&name) {
            continue;
        }
        let name_text = name.to_string_lossy();
        let matched = keyed.iter().find(|(_, key)| {
            *name_text == **key
                || (key.len() >= claude_proto::transcript::MAX_PROJECT_KEY_LEN
                    && name_text.starts_with(&format!("{key}-")))
        });
        if let Some((tree, _)) = matched {
            seen.push(name.clone());
            all.extend(sessions_in(&dir, Some(tree)));
        }
    }
    newest_first(dedupe(all))
}

pub(super) fn info(sessions: &Sessions, session_id: &str) -> Option<SessionInfo> {
    let file = format!("{session_id}.jsonl");
    let projects = sessions.projects_dir();
    let Some(project) = &sessions.project else {
        return all_project_dirs(&projects)
            .iter()
            .find_map(|d| read_lite(&d.join(&file)).map(|lite| (d.clone(), lite)))
            .and_then(|(dir, lite)| listing(&dir, session_id, &lite, None));
    };
    if let Some(dir) = project_dir(&projects, project) {
        if let Some(lite) = read_lite(&dir.join(&file)) {
            return listing(&dir, session_id, &lite, Some(project));
        }
    }
    if !sessions.worktrees {
        return None;
    }
    for tree in worktrees(project).iter().filter(|t| *t != project) {
        if let Some(dir) = project_dir(&projects, tree) {
            if let Some(lite) = read_lite(&dir.join(&file)) {
                return listing(&dir, session_id, &lite, Some(tree));
            }
        }
    }
    None
}

/// Feeds every line of `path` to `handle` with its span; the last line
/// may lack its newline.
pub(super) fn scan_lines(
    path: &Path,
    mut handle: impl FnMut(Span, &[u8]),
) -> Result<File, SessionsError> {
    let file = File::open(path).map_err(io_error("open", path))?;
    let mut reader = BufReader::with_capacity(256 * 1024, &file);
    let mut line = Vec::new();
    let mut start = 0u64;
    loop {
        line.clear();
        let read = reader
            .read_until(b'\n', &mut line)
            .map_err(io_error("read", path))?;
        if read == 0 {
            break;
        }
        let content = line.strip_suffix(b"\n").unwrap_or(&line);
        handle(
            Span {
                start,
                len: content.len() as u64,
            },
            content,
        );
        start += read as u64;
    }
    drop(reader);
    Ok(file)
}

/// The line at `span`, read again; `None` if the file shrank.
pub(super) fn read_span(file: &File, span: Span) -> Option<Vec<u8>> {
    let mut buf = vec![0; usize::try_from(span.len).ok()?];
    claude_proto_process::private::read_exact_at(file, &mut buf, span.start).ok()?;
    Some(buf)
}

/// The messages at `spans` (the page's), in order. Nearby lines are read
/// together, a few MiB at a time (a read per message was a tenth of the
/// time), each run of them by [`in_parallel`]; memory is one run per
/// thread, or the longest line if longer.
fn messages_at(
    file: &File,
    spans: Vec<Span>,
    page: Page,
    parents: &AgentParents,
) -> Vec<SessionMessage> {
    let runs = runs_of(page.apply(spans));
    in_parallel(&runs, 1, |run| {
        let start = run.first()?.start;
        let end = run.iter().map(|s| s.start + s.len).max()?;
        let bytes = read_span(
            file,
            Span {
                start,
                len: end - start,
            },
        )?;
        Some(
            run.iter()
                .filter_map(|span| {
                    let from = usize::try_from(span.start - start).ok()?;
                    let line = bytes.get(from..from + usize::try_from(span.len).ok()?)?;
                    Some(SessionMessage::from_line(line)?.with_parents(parents))
                })
                .collect::<Vec<_>>(),
        )
    })
    .into_iter()
    .flatten()
    .collect()
}

/// `spans` cut into runs read with one read each: lines that follow each
/// other in the file with small gaps, up to [`RUN_BYTES`] from the run's
/// first line.
fn runs_of(spans: Vec<Span>) -> Vec<Vec<Span>> {
    /// What one read covers at most (unless one line is longer).
    const RUN_BYTES: u64 = 2 << 20;
    /// The most bytes between two lines of a run (other lines, unread).
    const MAX_GAP: u64 = 64 << 10;
    let mut runs: Vec<Vec<Span>> = Vec::new();
    let mut run_start = 0;
    let mut run_end = 0;
    for span in spans {
        let end = span.start + span.len;
        let joins = !runs.is_empty()
            && span.start >= run_end
            && span.start - run_end <= MAX_GAP
            && end - run_start <= RUN_BYTES;
        match runs.last_mut() {
            Some(run) if joins => run.push(span),
            _ => {
                runs.push(vec![span]);
                run_start = span.start;
            }
        }
        run_end = end;
    }
    runs
}

pub(super) fn messages(path: &Path, page: Page) -> Result<Vec<SessionMessage>, SessionsError> {
    let (index, file) = index_file(path)?;
    Ok(messages_at(
        &file,
        index.conversation(),
        page,
        &AgentParents::default(),
    ))
}

/// Indexes the transcript at `path` a block at a time: each block's lines
/// are read by [`in_parallel`] and handed to the index in order. Memory is
/// one block (8 MiB) or the longest line if longer.
fn index_file(path: &Path) -> Result<(TranscriptIndex, File), SessionsError> {
    const BLOCK: usize = 8 << 20;
    let file = File::open(path).map_err(io_error("open", path))?;
    let mut index = TranscriptIndex::new();
    // `buf[..filled]` holds bytes read and not yet indexed; it grows only
    // for a line longer than a block.
    let mut buf = vec![0u8; BLOCK];
    let mut filled = 0;
    let mut offset = 0u64;
    let mut eof = false;
    while !eof || filled > 0 {
        while filled < buf.len() && !eof {
            let read = (&file)
                .read(&mut buf[filled..])
                .map_err(io_error("read", path))?;
            filled += read;
            eof = read == 0;
        }
        let block = &buf[..filled];
        // Whole lines only, unless the file ends without a newline.
        let complete = match memchr::memrchr(b'\n', block) {
            _ if eof => filled,
            Some(newline) => newline + 1,
            None => {
                // A line longer than the block: read on.
                buf.resize(buf.len() * 2, 0);
                continue;
            }
        };
        let mut lines = Vec::new();
        let mut start = 0;
        while start < complete {
            let end =
                memchr::memchr(b'\n', &block[start..complete]).map_or(complete, |n| start + n);
            lines.push((start, end));
            start = end + 1;
        }
        let reads = in_parallel(&lines, 64, |&(start, end)| {
            Some(ReadLine::of(&block[start..end]))
        });
        for (&(start, end), read) in lines.iter().zip(reads) {
            let span = Span {
                start: offset + start as u64,
                len: (end - start) as u64,
            };
            index.handle_read(span, read);
        }
        buf.copy_within(complete..filled, 0);
        filled -= complete;
        offset += complete as u64;
    }
    Ok((index, file))
}

/// Every `agent-<id>.jsonl` under the session's `subagents/` directory,
/// nested directories included, each directory in name order.
pub(super) fn agent_files(transcript: &Path) -> Vec<(String, PathBuf)> {
    fn walk(dir: &Path, found: &mut Vec<(String, PathBuf)>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let file_type = entry.file_type();
            if file_type.as_ref().is_ok_and(|t| t.is_file()) {
                if let Some(id) = name
                    .strip_prefix("agent-")
                    .and_then(|n| n.strip_suffix(".jsonl"))
                {
                    found.push((id.to_owned(), path));
                }
            } else if file_type.is_ok_and(|t| t.is_dir()) {
                walk(&path, found);
            }
        }
    }
    let mut found = Vec::new();
    walk(&transcript.with_extension("").join("subagents"), &mut found);
    found
}

pub(super) fn subagent_messages(
    transcript: &Path,
    agent_id: &str,
    page: Page,
) -> Result<Vec<SessionMessage>, SessionsError> {
    let Some((_, path)) = agent_files(transcript)
        .into_iter()
        .find(|(id, _)| id == agent_id)
    else {
        return Ok(Vec::new());
    };
    let meta_path = path.with_file_name(format!("agent-{agent_id}.meta.json"));
    // Optional: an unreadable sidecar reads as none, as in the SDKs.
    let parents = std::fs::read(&meta_path)
        .map(|bytes| AgentParents::from_metadata(&bytes))
        .unwrap_or_default();
    let (index, file) = index_file(&path)?;
    Ok(messages_at(
        &file,
        index.subagent_conversation(),
        page,
        &parents,
    ))
}
