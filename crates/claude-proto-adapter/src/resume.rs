//! Resuming from a session store: the session is loaded from the store
//! and written to a private temporary config directory laid out as the
//! CLI's own, which the CLI is then pointed at (`CLAUDE_CONFIG_DIR`) to
//! resume as from its own files. This is how a session started on one
//! machine continues on another that only shares the store.

use std::ffi::OsString;
use std::fs;
use std::future::Future;
use std::io;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use claude_proto::options::Options;
use claude_proto::transcript::{Entry, SessionKey};
use claude_proto_host::SpawnError;
use claude_proto_sessions::{SessionStore, StoreError, config_dir, configured_config_dir};
use serde_json::Value;

use crate::handlers::BoxFuture;
use claude_proto_process::log;
use claude_proto_process::private::{PrivateDir, write_private};

use crate::store::StoreSettings;

/// A private temporary directory a session keeps until its CLI has exited:
/// the config directory of a session loaded from a store, or a spare's
/// parking directory ([`park`](crate::spare::park)). Dropping it removes it
/// (the CLI that used it has exited by then: the adapters drop it with the
/// session).
#[derive(Debug)]
#[must_use = "dropping it removes the directory the CLI resumes from"]
pub struct SessionDir {
    dir: PrivateDir,
}

impl SessionDir {
    pub(crate) fn new(dir: PrivateDir) -> Self {
        Self { dir }
    }

    /// The directory (what the CLI gets as `CLAUDE_CONFIG_DIR`).
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// What [`prepare`] did.
#[derive(Debug)]
#[must_use]
#[non_exhaustive]
pub struct Prepared {
    /// The options to start the CLI with: with a session loaded from the
    /// store, `CLAUDE_CONFIG_DIR` points at [`dir`](Self::dir), `resume` is
    /// the session loaded, and `continue_conversation` is off.
    pub options: Options,
    /// The temporary directory, to keep until the CLI has exited.
    pub dir: Option<SessionDir>,
}

impl Prepared {
    /// `options` as they are, with no directory.
    pub fn unchanged(options: Options) -> Self {
        Self { options, dir: None }
    }
}

/// The load that prepares `options` for a session with `store`, if they
/// resume (`resume`, or `continue_conversation` without it): the session
/// is loaded from the store into a new private temporary config directory
/// and the options point the CLI at it. When the store does not have the
/// session, the options come back unchanged (the CLI then resumes from
/// its own files, or starts afresh). `None` when there is nothing to
/// resume.
///
/// The adapter bounds the load by [`StoreSettings::load_timeout`] on its
/// own timer (the error is [`load_timed_out`]). On failure, or if the
/// future is dropped, nothing is left on disk.
pub fn prepare(
    store: &StoreSettings,
    options: Options,
) -> Option<BoxFuture<Result<Prepared, SpawnError>>> {
    if options.resume.is_none() && !options.continue_conversation {
        return None;
    }
    Some(Box::pin(load(store.store.clone(), options)))
}

/// The error for a load from the store that took longer than `timeout`.
pub fn load_timed_out(timeout: std::time::Duration) -> SpawnError {
    store_error(
        "loading the session",
        io::Error::new(
            io::ErrorKind::TimedOut,
            format!("did not finish within {timeout:?}"),
        ),
    )
}

async fn load(store: Arc<dyn SessionStore>, mut options: Options) -> Result<Prepared, SpawnError> {
    let cwd = match &options.cwd {
        Some(cwd) => PathBuf::from(cwd),
        None => std::env::current_dir().map_err(SpawnError::Io)?,
    };
    let project_key = claude_proto_sessions::project_key_for_directory(&cwd);
    let found = match options.resume.clone() {
        Some(id) => {
            // Used as a file name below: anything but a UUID is passed
            // through to the CLI untouched, as the official SDKs do.
            if !claude_proto::transcript::is_uuid(&id) {
                return Ok(Prepared { options, dir: None });
            }
            let key = SessionKey::main(&project_key, &id);
            load_entries(&*store, &key)
                .await?
                .map(|entries| (id, entries))
        }
        None => newest_session(&*store, &project_key).await?,
    };
    let Some((session_id, entries)) = found else {
        return Ok(Prepared { options, dir: None });
    };
    let dir = create_private_dir()?;
    write_session(&*store, &dir, &project_key, &session_id, &entries, &options)
        .await
        .map_err(|e| match e {
            Materialize::Io(error) => {
                store_error("writing the session to a temporary directory", error)
            }
            Materialize::Store(error) => error,
        })?;
    let config_var = OsString::from("CLAUDE_CONFIG_DIR");
    options.env.retain(|(name, _)| *name != config_var);
    options.env_remove.retain(|name| *name != config_var);
    options
        .env
        .push((config_var, dir.path().as_os_str().to_owned()));
    options.resume = Some(session_id);
    options.continue_conversation = false;
    Ok(Prepared {
        options,
        dir: Some(dir),
    })
}

enum Materialize {
    Io(io::Error),
    Store(SpawnError),
}

impl From<io::Error> for Materialize {
    fn from(error: io::Error) -> Self {
        Self::Io(error)
    }
}

async fn load_entries(
    store: &dyn SessionStore,
    key: &SessionKey,
) -> Result<Option<Vec<Entry>>, SpawnError> {
    let entries = store
        .load(key)
        .await
        .map_err(|e| store_error(&format!("loading {key}"), e))?;
    Ok(entries.filter(|entries| !entries.is_empty()))
}

/// For `continue_conversation`: the most recently written session of the
/// project that is not a subagent's (their transcripts are stored as
/// sessions too, and are often the newest), as the CLI's `--continue`.
async fn newest_session(
    store: &dyn SessionStore,
    project_key: &str,
) -> Result<Option<(String, Vec<Entry>)>, SpawnError> {
    let mut sessions = match store.list_sessions(project_key).await {
        Ok(sessions) => sessions,
        Err(StoreError::Unsupported { .. }) => {
            return Err(store_error(
                "continue_conversation with a session store",
                io::Error::other(
                    "the store cannot list sessions (list_sessions); resume a session by id instead",
                ),
            ));
        }
        Err(error) => return Err(store_error("listing the project's sessions", error)),
    };
    sessions.sort_by_key(|s| std::cmp::Reverse(s.mtime));
    for candidate in sessions {
        if !claude_proto::transcript::is_uuid(&candidate.session_id) {
            continue;
        }
        let key = SessionKey::main(project_key, &candidate.session_id);
        let Some(entries) = load_entries(store, &key).await? else {
            continue;
        };
        let sidechain = serde_json::from_str::<Value>(entries[0].get())
            .is_ok_and(|first| first.get("isSidechain") == Some(&Value::Bool(true)));
        if !sidechain {
            return Ok(Some((candidate.session_id, entries)));
        }
    }
    Ok(None)
}

/// Writes the session, its subagents and the caller's login and settings
/// into `dir`, laid out as the CLI's config directory.
async fn write_session(
    store: &dyn SessionStore,
    dir: &SessionDir,
    project_key: &str,
    session_id: &str,
    entries: &[Entry],
    options: &Options,
) -> Result<(), Materialize> {
    let project_dir = dir.path().join("projects").join(project_key);
    write_jsonl(&project_dir.join(format!("{session_id}.jsonl")), entries)?;
    copy_login_and_settings(dir.path(), options);
    let key = SessionKey::main(project_key, session_id);
    let subkeys = match store.list_subkeys(&key).await {
        Ok(subkeys) => subkeys,
        // Without it only the main transcript is resumed.
        Err(StoreError::Unsupported { .. }) => return Ok(()),
        Err(error) => {
            return Err(Materialize::Store(store_error(
                &format!("listing the subagents of {key}"),
                error,
            )));
        }
    };
    let session_dir = project_dir.join(session_id);
    for subpath in subkeys {
        if !is_safe_subpath(&subpath) {
            log::warn(format_args!(
                "skipping the stored subpath {subpath:?}: it would leave the session's directory"
            ));
            continue;
        }
        let sub_key = key.with_subpath(&subpath);
        let Some(sub_entries) = load_entries(store, &sub_key)
            .await
            .map_err(Materialize::Store)?
        else {
            continue;
        };
        let (metadata, transcript) = split_agent_metadata(sub_entries);
        let file = session_dir.join(format!("{subpath}.jsonl"));
        if !transcript.is_empty() {
            write_jsonl(&file, &transcript)?;
        }
        if let Some(mut metadata) = metadata {
            metadata.remove("type");
            let sidecar = session_dir.join(format!("{subpath}.meta.json"));
            let text = Value::Object(metadata).to_string();
            write_private(&sidecar, text.as_bytes())?;
        }
    }
    Ok(())
}

/// A subagent's stream carries its `.meta.json` sidecar as entries of type
/// `agent_metadata` (the last one wins, as it is rewritten on resume);
/// everything else is a transcript line.
fn split_agent_metadata(
    entries: Vec<Entry>,
) -> (Option<serde_json::Map<String, Value>>, Vec<Entry>) {
    let mut metadata = None;
    let mut transcript = Vec::with_capacity(entries.len());
    for entry in entries {
        match serde_json::from_str::<Value>(entry.get()) {
            Ok(Value::Object(map))
                if map.get("type").and_then(Value::as_str) == Some("agent_metadata") =>
            {
                metadata = Some(map);
            }
            _ => transcript.push(entry),
        }
    }
    (metadata, transcript)
}

/// A subpath from the store names files under the session's directory:
/// nothing absolute, no `.`/`..` part, no drive prefix, no NUL.
fn is_safe_subpath(subpath: &str) -> bool {
    !subpath.is_empty()
        && !subpath.starts_with(['/', '\\'])
        && !subpath.contains('\0')
        && subpath.as_bytes().get(1).is_none_or(|b| *b != b':')
        && subpath
            .split(['/', '\\'])
            .all(|part| !part.is_empty() && part != "." && part != "..")
}

/// Copies what the CLI needs to log in and the user's settings: the
/// credentials file (without its refresh token: a refresh from the
/// temporary directory would revoke the original's), `.claude.json`, and
/// `settings.json` without plugin declarations (they would install into
/// the empty directory) or a `CLAUDE_CONFIG_DIR` of its own. Best effort:
/// what is missing or unreadable is skipped (API-key logins need none).
fn copy_login_and_settings(dir: &Path, options: &Options) {
    let source_config = config_dir(options);
    let credentials = source_config.join(".credentials.json");
    if let Some(bytes) = read_regular(&credentials) {
        let redacted = redact_refresh_token(&bytes).unwrap_or(bytes);
        report(
            write_private(&dir.join(".credentials.json"), &redacted),
            &credentials,
        );
    }
    // `.claude.json` sits in the config directory only when one is set;
    // by default it is beside it, in the home directory.
    let claude_json = match configured_config_dir(options) {
        Some(_) => source_config.join(".claude.json"),
        None => source_config.with_file_name(".claude.json"),
    };
    if let Some(bytes) = read_regular(&claude_json) {
        report(
            write_private(&dir.join(".claude.json"), &bytes),
            &claude_json,
        );
    }
    for name in ["settings.json", "cowork_settings.json"] {
        let path = source_config.join(name);
        if let Some(bytes) = read_regular(&path) {
            let stripped = strip_settings(&bytes).unwrap_or(bytes);
            report(write_private(&dir.join(name), &stripped), &path);
        }
    }
}

fn report(result: io::Result<()>, source: &Path) {
    if let Err(error) = result {
        log::warn(format_args!(
            "resuming from the session store: skipped {}: {error}",
            source.display()
        ));
    }
}

/// The file's bytes if it is a regular file that can be read (a FIFO in
/// its place must not hang the resume).
fn read_regular(path: &Path) -> Option<Vec<u8>> {
    let meta = fs::metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    fs::read(path).ok()
}

fn redact_refresh_token(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut value: Value = serde_json::from_slice(bytes).ok()?;
    let oauth = value.get_mut("claudeAiOauth")?.as_object_mut()?;
    oauth.remove("refreshToken")?;
    serde_json::to_vec(&value).ok()
}

fn strip_settings(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut value: Value = serde_json::from_slice(bytes).ok()?;
    let map = value.as_object_mut()?;
    let mut stripped = map.remove("enabledPlugins").is_some();
    stripped |= map.remove("extraKnownMarketplaces").is_some();
    if let Some(env) = map.get_mut("env").and_then(Value::as_object_mut) {
        stripped |= env.remove("CLAUDE_CONFIG_DIR").is_some();
    }
    stripped.then(|| serde_json::to_vec(&value).ok()).flatten()
}

fn write_jsonl(path: &Path, entries: &[Entry]) -> io::Result<()> {
    let mut text = Vec::with_capacity(entries.iter().map(|e| e.get().len() + 1).sum());
    for entry in entries {
        text.extend_from_slice(entry.get().as_bytes());
        text.push(b'\n');
    }
    write_private(path, &text)
}

/// Writes a new file readable by this user only, creating its directories
/// (also private).
/// A new private directory for a resumed session's config.
fn create_private_dir() -> Result<SessionDir, SpawnError> {
    PrivateDir::create("claude-resume")
        .map(|dir| SessionDir { dir })
        .map_err(|error| store_error("creating a temporary config directory", error))
}

fn store_error(
    what: &str,
    source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
) -> SpawnError {
    SpawnError::SessionStore {
        what: what.to_owned(),
        source: source.into(),
    }
}

/// `work`'s output, or `None` if `sleep` finishes first.
pub fn with_deadline<T>(
    work: BoxFuture<T>,
    sleep: BoxFuture<()>,
) -> impl Future<Output = Option<T>> {
    Deadline { work, sleep }
}

struct Deadline<T> {
    work: BoxFuture<T>,
    sleep: BoxFuture<()>,
}

impl<T> Future for Deadline<T> {
    type Output = Option<T>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        if let Poll::Ready(value) = self.work.as_mut().poll(cx) {
            return Poll::Ready(Some(value));
        }
        match self.sleep.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_subpaths_inside_the_session_are_safe() {
        for good in ["subagents/agent-1", "subagents/workflows/r1/agent-2"] {
            assert!(is_safe_subpath(good), "{good}");
        }
        for bad in [
            "",
            "/etc/passwd",
            "\\x",
            "a/../b",
            "./a",
            "a//b",
            "C:x",
            "a\0b",
            "..",
        ] {
            assert!(!is_safe_subpath(bad), "{bad:?}");
        }
    }

    #[test]
    fn the_refresh_token_is_removed_and_plugins_stripped() {
        let creds = br#"{"claudeAiOauth":{"accessToken":"a","refreshToken":"r"}}"#;
        let out: Value = serde_json::from_slice(&redact_refresh_token(creds).unwrap()).unwrap();
        assert_eq!(
            out,
            serde_json::json!({"claudeAiOauth": {"accessToken": "a"}})
        );
        let settings =
            br#"{"enabledPlugins":{},"env":{"CLAUDE_CONFIG_DIR":"/x","A":"1"},"model":"m"}"#;
        let out: Value = serde_json::from_slice(&strip_settings(settings).unwrap()).unwrap();
        assert_eq!(out, serde_json::json!({"env": {"A": "1"}, "model": "m"}));
        assert!(strip_settings(br#"{"model":"m"}"#).is_none(), "unchanged");
    }
}
