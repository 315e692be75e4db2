//! Copying a session from the CLI's files into a session store: to move
//! existing sessions to a store, or to catch a store up after
//! [`Event::MirrorFailed`](claude_proto_host::Event::MirrorFailed).

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};

use crate::{SessionStore, StoreError};
use claude_proto::transcript::{Entry, SessionKey};
use serde_json::value::RawValue;

/// Appends go out in batches of at most this many entries...
const BATCH_ENTRIES: usize = 500;
/// ...or this many bytes, as the mirror's.
const BATCH_BYTES: usize = 1 << 20;

/// What an import copied.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ImportReport {
    /// Transcript files copied (the session's, then its subagents').
    pub transcripts: usize,
    /// Entries appended.
    pub entries: usize,
    /// Lines skipped: not JSON objects (corrupt, foreign, or the torn last
    /// line of a transcript still being written).
    pub skipped_lines: usize,
}

/// Why an import failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// A transcript could not be read.
    #[error("could not read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The store refused an append.
    #[error("the session store failed on {key}: {source}")]
    Store {
        /// Where the entries were going.
        key: SessionKey,
        /// Why.
        #[source]
        source: StoreError,
    },
}

/// Copies the transcript at `path` into `store` under `key` (the
/// session's main key), and with `include_subagents` the subagent
/// transcripts under `<path without .jsonl>/subagents/` with their
/// `.meta.json` sidecars (stored as an `agent_metadata` entry, as the
/// mirror stores them). Lines are streamed in batches, never the whole
/// file at once; lines that are not JSON objects are skipped and counted.
/// Stores that key on `uuid` make a second import of the same session
/// append nothing twice.
///
/// The files are read on the calling task between appends: run it where
/// blocking file reads are acceptable (a blocking thread, a CLI tool).
pub async fn import_transcripts(
    store: &dyn SessionStore,
    key: &SessionKey,
    path: &Path,
    include_subagents: bool,
) -> Result<ImportReport, ImportError> {
    let mut report = ImportReport::default();
    append_file(store, key, path, &mut report).await?;
    if !include_subagents {
        return Ok(report);
    }
    let session_dir = path.with_extension("");
    let mut files = Vec::new();
    collect_jsonl(&session_dir.join("subagents"), &mut files);
    for file in files {
        let Ok(relative) = file.strip_prefix(&session_dir) else {
            continue;
        };
        let subpath = relative
            .with_extension("")
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        let sub_key = key.with_subpath(subpath);
        append_file(store, &sub_key, &file, &mut report).await?;
        if let Some(meta) = read_sidecar(&file) {
            let entry = agent_metadata_entry(meta);
            append(store, &sub_key, &[entry]).await?;
            report.entries += 1;
        }
    }
    Ok(report)
}

async fn append_file(
    store: &dyn SessionStore,
    key: &SessionKey,
    path: &Path,
    report: &mut ImportReport,
) -> Result<(), ImportError> {
    let io_error = |source| ImportError::Io {
        path: path.to_owned(),
        source,
    };
    let mut reader = BufReader::new(File::open(path).map_err(io_error)?);
    let mut batch: Vec<Entry> = Vec::new();
    let mut bytes = 0;
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line).map_err(io_error)? == 0 {
            break;
        }
        let text = line.trim_ascii();
        if text.is_empty() {
            continue;
        }
        match parse_object(text) {
            Some(entry) => {
                bytes += text.len();
                batch.push(entry);
            }
            None => report.skipped_lines += 1,
        }
        if batch.len() >= BATCH_ENTRIES || bytes >= BATCH_BYTES {
            report.entries += batch.len();
            append(store, key, &std::mem::take(&mut batch)).await?;
            bytes = 0;
        }
    }
    if !batch.is_empty() {
        report.entries += batch.len();
        append(store, key, &batch).await?;
    }
    report.transcripts += 1;
    Ok(())
}

async fn append(
    store: &dyn SessionStore,
    key: &SessionKey,
    entries: &[Entry],
) -> Result<(), ImportError> {
    store
        .append(key, entries)
        .await
        .map_err(|source| ImportError::Store {
            key: key.clone(),
            source,
        })
}

/// The line as an entry, if it is a JSON object.
fn parse_object(text: &[u8]) -> Option<Entry> {
    let text = std::str::from_utf8(text).ok()?;
    if !text.starts_with('{') {
        return None;
    }
    serde_json::from_str::<Box<RawValue>>(text).ok()
}

/// Every `.jsonl` file under `dir`, in name order at each level.
fn collect_jsonl(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            collect_jsonl(&path, out);
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            out.push(path);
        }
    }
}

/// The `.meta.json` beside a subagent transcript, if it holds an object.
fn read_sidecar(transcript: &Path) -> Option<serde_json::Map<String, serde_json::Value>> {
    let name = transcript.file_name()?.to_str()?.strip_suffix(".jsonl")?;
    let text =
        std::fs::read_to_string(transcript.with_file_name(format!("{name}.meta.json"))).ok()?;
    match serde_json::from_str(&text).ok()? {
        serde_json::Value::Object(map) => Some(map),
        _ => None,
    }
}

/// The sidecar as the mirror stores it: its fields, `type` last so a
/// stray `type` in it never hides the marker.
fn agent_metadata_entry(mut meta: serde_json::Map<String, serde_json::Value>) -> Entry {
    meta.remove("type");
    meta.insert("type".into(), "agent_metadata".into());
    // A map of JSON values always serializes.
    serde_json::value::to_raw_value(&meta).unwrap_or_default()
}
