//! A store in a local (or shared, network-mounted) directory: one JSONL
//! file per transcript, laid out as the CLI lays out its own.

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Component, Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::value::RawValue;

use claude_proto::transcript::fold_summary;
use claude_proto_process::private::private_dir_builder;

use crate::SessionKey;
use crate::store::{Entry, SessionStore, SessionSummary, StoreError, StoreFuture, StoredSession};
use crate::worker::Worker;

/// Keeps transcripts as files under a root directory: the default store,
/// needing no server and no dependency.
///
/// A main transcript is `<root>/<project_key>/<session_id>.jsonl`, a
/// subagent's `<root>/<project_key>/<session_id>/<subpath>.jsonl`, one
/// entry per line. What it guarantees:
///
/// - Keys cannot leave the root: a key part that is empty, `.` or `..`,
///   holds a path separator or NUL, is not a plain file name, or (for the
///   session id and subpath parts) ends in `.jsonl` is refused with
///   [`StoreError::InvalidKey`] before any file is touched.
/// - Directories it creates are `0700` and files `0600` (on Unix), since
///   transcripts hold whatever the session saw.
/// - A batch is one `O_APPEND` write, so batches from several processes
///   on one machine do not interleave within a line. A line left without
///   its newline by a crash is skipped when loading, and the next append
///   starts on a line of its own, so it does not corrupt what follows.
/// - `mtime` is the file's modification time. Entries are not deduplicated
///   by `uuid`: a retried batch is stored twice.
/// - The file IO runs on a thread of the store's own, so its futures never
///   block the runtime polling them; calls take effect in the order they
///   are made. The thread ends when the store is dropped.
pub struct DirectoryStore {
    root: PathBuf,
    worker: Worker<()>,
}

impl fmt::Debug for DirectoryStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DirectoryStore")
            .field("root", &self.root)
            .finish_non_exhaustive()
    }
}

impl DirectoryStore {
    /// A store under `root`, created (with its missing parents) on the
    /// first append. Nothing is read or written until a call is made.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self {
            root: root.into(),
            worker: Worker::spawn("claude-proto-sessions-directory", ()),
        }
    }

    /// The root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The file holding `key`'s transcript, if the key can be stored.
    fn transcript_path(&self, key: &SessionKey) -> Result<PathBuf, StoreError> {
        let mut path = self.project_dir(key)?;
        check_part(key, "session id", &key.session_id)?;
        match &key.subpath {
            None => path.push(format!("{}.jsonl", key.session_id)),
            Some(subpath) => {
                path.push(&key.session_id);
                let segments: Vec<&str> = subpath.split('/').collect();
                for segment in &segments {
                    check_part(key, "subpath segment", segment)?;
                }
                if let Some((last, dirs)) = segments.split_last() {
                    path.extend(dirs);
                    path.push(format!("{last}.jsonl"));
                }
            }
        }
        Ok(path)
    }

    /// The directory holding `key`'s session's subagent transcripts.
    fn session_dir(&self, key: &SessionKey) -> Result<PathBuf, StoreError> {
        check_part(key, "session id", &key.session_id)?;
        Ok(self.project_dir(key)?.join(&key.session_id))
    }

    fn project_dir(&self, key: &SessionKey) -> Result<PathBuf, StoreError> {
        check_plain_name(key, "project key", &key.project_key)?;
        if key.project_key == SUMMARIES {
            return Err(invalid(
                key,
                format!("the project key `{SUMMARIES}` is where this store keeps its summaries"),
            ));
        }
        Ok(self.root.join(&key.project_key))
    }

    /// The directory of a project's summaries.
    fn summaries_dir(&self, key: &SessionKey) -> Result<PathBuf, StoreError> {
        self.project_dir(key)?;
        Ok(self.root.join(SUMMARIES).join(&key.project_key))
    }

    /// The file of the summary of `key`'s session.
    fn summary_path(&self, key: &SessionKey) -> Result<PathBuf, StoreError> {
        check_part(key, "session id", &key.session_id)?;
        Ok(self
            .summaries_dir(key)?
            .join(format!("{}.json", key.session_id)))
    }
}

/// The directory under the root that holds the summaries; no project key
/// may name it.
const SUMMARIES: &str = ".summaries";

/// Refuses a session id or subpath segment that is not a plain name, or
/// that ends in `.jsonl` (`s.jsonl` the file and `s.jsonl/` the directory
/// of another key would be the same path).
fn check_part(key: &SessionKey, what: &str, part: &str) -> Result<(), StoreError> {
    check_plain_name(key, what, part)?;
    if part.ends_with(".jsonl") {
        return Err(invalid(
            key,
            format!("the {what} `{part}` ends in `.jsonl`"),
        ));
    }
    Ok(())
}

/// Refuses anything but one plain file name: the parts of a key are joined
/// to the root, and must not lead out of it.
fn check_plain_name(key: &SessionKey, what: &str, part: &str) -> Result<(), StoreError> {
    let reason = if part.is_empty() {
        "is empty"
    } else if part == "." || part == ".." {
        "is `.` or `..`"
    } else if part.contains(['/', '\\']) {
        "holds a path separator"
    } else if part.contains('\0') {
        "holds NUL"
    } else if !matches!(
        Path::new(part).components().collect::<Vec<_>>().as_slice(),
        [Component::Normal(name)] if *name == part
    ) {
        // A Windows drive prefix (`C:`), say.
        "is not a plain file name"
    } else {
        return Ok(());
    };
    Err(invalid(key, format!("the {what} `{part}` {reason}")))
}

fn invalid(key: &SessionKey, reason: String) -> StoreError {
    StoreError::InvalidKey {
        key: key.clone(),
        reason,
    }
}

fn failed(action: &str, path: &Path, error: io::Error) -> StoreError {
    StoreError::backend(io::Error::new(
        error.kind(),
        format!("{action} {}: {error}", path.display()),
    ))
}

fn refused<'a, T: Send + 'a>(error: StoreError) -> StoreFuture<'a, T> {
    Box::pin(std::future::ready(Err(error)))
}

/// The batch as the bytes of one write: one line per entry.
fn batch_lines(entries: &[Entry]) -> Vec<u8> {
    let mut lines = Vec::with_capacity(entries.iter().map(|e| e.get().len() + 1).sum());
    for entry in entries {
        // A raw line break in JSON text can only be whitespace between
        // tokens (inside strings it is escaped), so dropping it keeps the
        // entry's value and keeps it on one line.
        lines.extend(entry.get().bytes().filter(|b| *b != b'\n' && *b != b'\r'));
        lines.push(b'\n');
    }
    lines
}

fn create_dirs(dir: &Path) -> Result<(), StoreError> {
    private_dir_builder()
        .recursive(true)
        .create(dir)
        .map_err(|e| failed("creating the directory", dir, e))
}

fn open_for_append(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).append(true).create(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

/// `true` if the file is empty or its last byte is a newline.
fn ends_a_line(file: &mut File) -> io::Result<bool> {
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(true);
    }
    // Reading moves the read position only: appends always go to the end.
    file.seek(SeekFrom::Start(len - 1))?;
    let mut last = [0u8; 1];
    file.read_exact(&mut last)?;
    Ok(last[0] == b'\n')
}

fn append_lines(path: &Path, lines: &[u8]) -> Result<(), StoreError> {
    if let Some(dir) = path.parent() {
        create_dirs(dir)?;
    }
    let mut file = open_for_append(path).map_err(|e| failed("opening", path, e))?;
    let whole = ends_a_line(&mut file).map_err(|e| failed("reading", path, e))?;
    let write = if whole {
        file.write_all(lines)
    } else {
        // The last line was torn (a crash mid-write): end it, so this
        // batch's first entry is a line of its own.
        let mut repaired = Vec::with_capacity(lines.len() + 1);
        repaired.push(b'\n');
        repaired.extend_from_slice(lines);
        file.write_all(&repaired)
    };
    write.map_err(|e| failed("appending to", path, e))
}

/// The entries of a transcript file: every line that is a JSON object.
/// Anything else is what a crash left of a line, and is skipped.
fn parse_lines(bytes: &[u8]) -> Vec<Entry> {
    bytes
        .split(|b| *b == b'\n')
        .filter(|line| line.first() == Some(&b'{'))
        .filter_map(|line| serde_json::from_slice::<Box<RawValue>>(line).ok())
        .collect()
}

fn load_file(path: &Path) -> Result<Option<Vec<Entry>>, StoreError> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(parse_lines(&bytes))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(failed("reading", path, e)),
    }
}

fn epoch_ms(time: SystemTime) -> i64 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

fn list_transcripts(dir: &Path) -> Result<Vec<StoredSession>, StoreError> {
    let listing = match fs::read_dir(dir) {
        Ok(listing) => listing,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(failed("listing", dir, e)),
    };
    let mut sessions = Vec::new();
    for item in listing {
        let item = item.map_err(|e| failed("listing", dir, e))?;
        let name = item.file_name();
        let Some(session_id) = name.to_str().and_then(|n| n.strip_suffix(".jsonl")) else {
            continue;
        };
        // Symbolic links are not followed: only files this store wrote.
        let is_file = item.file_type().is_ok_and(|t| t.is_file());
        if session_id.is_empty() || !is_file {
            continue;
        }
        let modified = item
            .metadata()
            .and_then(|m| m.modified())
            .map_err(|e| failed("reading the time of", &item.path(), e))?;
        sessions.push(StoredSession {
            session_id: session_id.to_owned(),
            mtime: epoch_ms(modified),
        });
    }
    Ok(sessions)
}

/// Collects the subpaths of the transcripts under `dir`, `prefix` naming
/// `dir` itself.
fn walk_subkeys(dir: &Path, prefix: &str, found: &mut Vec<String>) -> Result<(), StoreError> {
    let listing = match fs::read_dir(dir) {
        Ok(listing) => listing,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(failed("listing", dir, e)),
    };
    for item in listing {
        let item = item.map_err(|e| failed("listing", dir, e))?;
        let Ok(name) = item.file_name().into_string() else {
            continue;
        };
        let Ok(kind) = item.file_type() else {
            continue;
        };
        if kind.is_dir() {
            walk_subkeys(&item.path(), &format!("{prefix}{name}/"), found)?;
        } else if let Some(stem) = name.strip_suffix(".jsonl").filter(|_| kind.is_file()) {
            found.push(format!("{prefix}{stem}"));
        }
    }
    Ok(())
}

fn file_mtime(path: &Path) -> Option<i64> {
    fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .map(epoch_ms)
}

fn read_summary(path: &Path) -> Option<SessionSummary> {
    serde_json::from_slice(&fs::read(path).ok()?).ok()
}

/// Appends a main transcript's batch, then folds it into the session's
/// summary. The summary is folded from the whole transcript when there is
/// none, or when the transcript changed since it was written (appended by
/// something that did not fold), so it never misses entries.
fn append_main(
    path: &Path,
    lines: &[u8],
    summary_path: &Path,
    key: &SessionKey,
    entries: &[Entry],
) -> Result<(), StoreError> {
    let before = file_mtime(path);
    append_lines(path, lines)?;
    let previous = read_summary(summary_path)
        .filter(|summary| before.is_none_or(|mtime| summary.mtime >= mtime));
    let folded = match (&previous, before) {
        (None, Some(_)) => load_file(path)
            .ok()
            .flatten()
            .map(|all| fold_summary(None, key, &all)),
        _ => Some(fold_summary(previous.as_ref(), key, entries)),
    };
    let written = folded.is_some_and(|mut summary| {
        // No earlier than the transcript's own time, on its clock, so a
        // listing finds it fresh.
        let now = epoch_ms(SystemTime::now());
        summary.mtime = file_mtime(path).map_or(now, |mtime| now.max(mtime));
        write_summary(summary_path, &summary).is_ok()
    });
    if !written {
        // A summary that missed this batch must not be folded into later:
        // without one, the next append folds the whole transcript.
        let _ = fs::remove_file(summary_path);
    }
    Ok(())
}

/// Replaces the summary whole: written beside it, then renamed over it.
fn write_summary(path: &Path, summary: &SessionSummary) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        private_dir_builder().recursive(true).create(dir)?;
    }
    let bytes = serde_json::to_vec(summary).map_err(io::Error::other)?;
    // Per process: two processes appending to one session at once do not
    // write the same temporary file.
    let temporary = path.with_extension(format!("json.{}.tmp", std::process::id()));
    let mut options = OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let written = options
        .open(&temporary)
        .and_then(|mut file| file.write_all(&bytes))
        .and_then(|()| fs::rename(&temporary, path));
    if written.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    written
}

fn list_summaries(dir: &Path) -> Result<Vec<SessionSummary>, StoreError> {
    let listing = match fs::read_dir(dir) {
        Ok(listing) => listing,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(failed("listing", dir, e)),
    };
    let mut summaries = Vec::new();
    for item in listing {
        let item = item.map_err(|e| failed("listing", dir, e))?;
        let name = item.file_name();
        let is_summary = name.to_str().is_some_and(|n| n.ends_with(".json"))
            && item.file_type().is_ok_and(|t| t.is_file());
        // One that cannot be read is left out: the listing then loads its
        // session instead.
        if let Some(summary) = is_summary.then(|| read_summary(&item.path())).flatten() {
            summaries.push(summary);
        }
    }
    Ok(summaries)
}

fn remove_file(path: &Path) -> Result<(), StoreError> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(failed("deleting", path, e)),
        _ => Ok(()),
    }
}

impl SessionStore for DirectoryStore {
    fn append<'a>(&'a self, key: &'a SessionKey, entries: &'a [Entry]) -> StoreFuture<'a, ()> {
        let path = match self.transcript_path(key) {
            Ok(path) => path,
            Err(e) => return refused(e),
        };
        if entries.is_empty() {
            return Box::pin(std::future::ready(Ok(())));
        }
        let lines = batch_lines(entries);
        if key.subpath.is_some() {
            return self.worker.run(move |()| append_lines(&path, &lines));
        }
        let summary_path = match self.summary_path(key) {
            Ok(path) => path,
            Err(e) => return refused(e),
        };
        let (key, entries) = (key.clone(), entries.to_vec());
        self.worker
            .run(move |()| append_main(&path, &lines, &summary_path, &key, &entries))
    }

    fn load<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<Entry>>> {
        match self.transcript_path(key) {
            Ok(path) => self.worker.run(move |()| load_file(&path)),
            Err(e) => refused(e),
        }
    }

    fn list_sessions<'a>(&'a self, project_key: &'a str) -> StoreFuture<'a, Vec<StoredSession>> {
        match self.project_dir(&SessionKey::main(project_key, "")) {
            Ok(dir) => self.worker.run(move |()| list_transcripts(&dir)),
            Err(e) => refused(e),
        }
    }

    fn list_session_summaries<'a>(
        &'a self,
        project_key: &'a str,
    ) -> StoreFuture<'a, Vec<SessionSummary>> {
        match self.summaries_dir(&SessionKey::main(project_key, "")) {
            Ok(dir) => self.worker.run(move |()| list_summaries(&dir)),
            Err(e) => refused(e),
        }
    }

    fn delete<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, ()> {
        let (path, session_dir, summary) = match (
            self.transcript_path(key),
            self.session_dir(key),
            self.summary_path(key),
        ) {
            (Ok(path), Ok(dir), Ok(summary)) => (path, dir, summary),
            (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return refused(e),
        };
        let main = key.subpath.is_none();
        self.worker.run(move |()| {
            if main {
                // The summary first: a summary without its transcript is
                // left out of listings anyway, a transcript without one is
                // loaded instead.
                remove_file(&summary)?;
            }
            remove_file(&path)?;
            if main {
                return match fs::remove_dir_all(&session_dir) {
                    Err(e) if e.kind() != io::ErrorKind::NotFound => {
                        Err(failed("deleting", &session_dir, e))
                    }
                    _ => Ok(()),
                };
            }
            // Tidies the directories the subpath emptied, up to the
            // session's; one still holding something is left alone.
            let mut dir = path.parent();
            while let Some(d) = dir.filter(|d| d.starts_with(&session_dir)) {
                if fs::remove_dir(d).is_err() {
                    break;
                }
                dir = d.parent();
            }
            Ok(())
        })
    }

    fn list_subkeys<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Vec<String>> {
        match self.session_dir(key) {
            Ok(dir) => self.worker.run(move |()| {
                let mut found = Vec::new();
                walk_subkeys(&dir, "", &mut found)?;
                Ok(found)
            }),
            Err(e) => refused(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block_on;

    /// A directory of its own under the system's temporary directory,
    /// removed when dropped.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Self {
            use std::hash::BuildHasher;
            let random = std::collections::hash_map::RandomState::new().hash_one(name);
            Self(std::env::temp_dir().join(format!("claude-proto-sessions-{name}-{random:016x}")))
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn entry(text: &str) -> Entry {
        RawValue::from_string(text.to_owned()).expect("valid JSON")
    }

    fn texts(entries: &[Entry]) -> Vec<&str> {
        entries.iter().map(|e| e.get()).collect()
    }

    #[test]
    fn keys_that_would_leave_the_root_are_refused() {
        let scratch = Scratch::new("keys");
        let store = DirectoryStore::new(&scratch.0);
        let bad = [
            SessionKey::main("..", "s"),
            SessionKey::main("", "s"),
            SessionKey::main("a/b", "s"),
            SessionKey::main("a\\b", "s"),
            SessionKey::main("/etc", "s"),
            SessionKey::main("p", "."),
            SessionKey::main("p", "s\0"),
            SessionKey::main("p", "s.jsonl"),
            SessionKey::main("p", "s").with_subpath("../../x"),
            SessionKey::main("p", "s").with_subpath("/abs"),
            SessionKey::main("p", "s").with_subpath("a//b"),
            SessionKey::main("p", "s").with_subpath(""),
            SessionKey::main("p", "s").with_subpath("a.jsonl/b"),
        ];
        for key in &bad {
            let result = block_on(store.append(key, &[entry("{}")]));
            assert!(
                matches!(result, Err(StoreError::InvalidKey { .. })),
                "{key:?}: {result:?}"
            );
            assert!(matches!(
                block_on(store.load(key)),
                Err(StoreError::InvalidKey { .. })
            ));
            assert!(matches!(
                block_on(store.delete(key)),
                Err(StoreError::InvalidKey { .. })
            ));
        }
        assert!(matches!(
            block_on(store.list_sessions("..")),
            Err(StoreError::InvalidKey { .. })
        ));
        // Nothing was written anywhere.
        assert!(!scratch.0.exists());

        let good = SessionKey::main("-work-app", "abc-123").with_subpath("subagents/agent-1");
        block_on(store.append(&good, &[entry("{}")])).expect("a plain key is stored");
        assert!(
            scratch
                .0
                .join("-work-app/abc-123/subagents/agent-1.jsonl")
                .is_file()
        );
    }

    #[test]
    fn a_torn_last_line_is_skipped_and_does_not_corrupt_the_next_append() {
        let scratch = Scratch::new("torn");
        let store = DirectoryStore::new(&scratch.0);
        let key = SessionKey::main("p", "s");
        block_on(store.append(&key, &[entry(r#"{"n":1}"#)])).expect("appends");
        let path = scratch.0.join("p/s.jsonl");
        // A crash in the middle of writing the next line.
        OpenOptions::new()
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(br#"{"n":2,"tr"#))
            .expect("tears the file");
        let loaded = block_on(store.load(&key)).expect("loads").expect("exists");
        assert_eq!(texts(&loaded), [r#"{"n":1}"#]);

        block_on(store.append(&key, &[entry(r#"{"n":3}"#), entry(r#"{"n":4}"#)])).expect("appends");
        let loaded = block_on(store.load(&key)).expect("loads").expect("exists");
        assert_eq!(texts(&loaded), [r#"{"n":1}"#, r#"{"n":3}"#, r#"{"n":4}"#]);
    }

    #[test]
    fn entries_spread_over_lines_are_kept_on_one() {
        let scratch = Scratch::new("pretty");
        let store = DirectoryStore::new(&scratch.0);
        let key = SessionKey::main("p", "s");
        let pretty = entry("{\n  \"text\": \"a\\nb\",\r\n  \"n\": 1\n}");
        block_on(store.append(&key, &[pretty])).expect("appends");
        let loaded = block_on(store.load(&key)).expect("loads").expect("exists");
        assert_eq!(texts(&loaded), ["{  \"text\": \"a\\nb\",  \"n\": 1}"]);
    }

    #[cfg(unix)]
    #[test]
    fn directories_and_files_are_private() {
        use std::os::unix::fs::PermissionsExt;
        let scratch = Scratch::new("perms");
        let store = DirectoryStore::new(scratch.0.join("root"));
        let key = SessionKey::main("p", "s");
        block_on(store.append(&key, &[entry("{}")])).expect("appends");
        block_on(store.append(&key.with_subpath("subagents/agent-1"), &[entry("{}")]))
            .expect("appends");
        let mode = |p: &str| {
            fs::metadata(scratch.0.join(p))
                .expect("exists")
                .permissions()
                .mode()
                & 0o777
        };
        for dir in ["root", "root/p", "root/p/s", "root/p/s/subagents"] {
            assert_eq!(mode(dir), 0o700, "{dir}");
        }
        for file in ["root/p/s.jsonl", "root/p/s/subagents/agent-1.jsonl"] {
            assert_eq!(mode(file), 0o600, "{file}");
        }
    }

    #[test]
    fn deleting_a_subpath_tidies_its_empty_directories() {
        let scratch = Scratch::new("tidy");
        let store = DirectoryStore::new(&scratch.0);
        let key = SessionKey::main("p", "s");
        let sub = key.with_subpath("subagents/deep/agent-1");
        block_on(store.append(&key, &[entry("{}")])).expect("appends");
        block_on(store.append(&sub, &[entry("{}")])).expect("appends");
        block_on(store.delete(&sub)).expect("deletes");
        assert!(!scratch.0.join("p/s").exists());
        assert!(scratch.0.join("p/s.jsonl").exists());
    }

    #[test]
    fn a_transcript_without_a_summary_is_folded_whole_on_its_next_append() {
        let scratch = Scratch::new("summary");
        let store = DirectoryStore::new(&scratch.0);
        let key = SessionKey::main("p", "s");
        // Written by something that does not fold (an older version).
        fs::create_dir_all(scratch.0.join("p")).expect("creates");
        fs::write(
            scratch.0.join("p/s.jsonl"),
            "{\"type\":\"user\",\"cwd\":\"/w\",\"message\":{\"content\":\"hello\"}}\n",
        )
        .expect("writes");
        assert!(
            block_on(store.list_session_summaries("p"))
                .expect("lists")
                .is_empty()
        );
        block_on(store.append(&key, &[entry(r#"{"type":"tag","tag":"t"}"#)])).expect("appends");
        let summaries = block_on(store.list_session_summaries("p")).expect("lists");
        let data = &summaries[0].data;
        assert_eq!(data["first_prompt"], "hello");
        assert_eq!(data["cwd"], "/w");
        assert_eq!(data["tag"], "t");
        let listed = block_on(store.list_sessions("p")).expect("lists");
        assert!(summaries[0].mtime >= listed[0].mtime);
        // Its directory is not a project.
        assert!(matches!(
            block_on(store.list_sessions(".summaries")),
            Err(StoreError::InvalidKey { .. })
        ));
    }
}
