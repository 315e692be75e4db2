//! Sessions in a [`SessionStore`]: the same questions and changes as
//! [`Sessions`](super::Sessions) asks of the CLI's files, asked of a
//! store's entries — the Python SDK's `*_from_store` and `*_via_store`
//! functions.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use crate::{Entry, SessionKey, SessionStore, StoreError, StoredSession};
use claude_proto::transcript::{
    AgentParents, ForkSource, Lite, SessionInfo, SessionMessage, Span, TranscriptIndex,
    entries_to_jsonl, first_prompt_of, format_iso_millis, summary_to_info,
};
use serde_json::value::RawValue;

use super::error::SessionsError;
use super::fork::{ForkOptions, plan_fork};
use super::ids::{check_agent_id, check_session_id};
use super::jsonl::{head_and_tail, mtime_from_tail};
use super::load_all::load_all;
use super::locate;
use super::page::Page;
use super::stamp::{new_uuid, now_millis};
use super::write::tag_text;

/// The sessions of one project in a session store: list them, read their
/// messages and their subagents', rename, tag, fork and delete them.
///
/// Results equal what [`Sessions`](super::Sessions) gives for the same
/// lines in the CLI's files, except that `file_size` is always `None` (a
/// store has no file; the Python SDK reports the size of its own
/// re-serialization on one of its paths, which means nothing). Every call
/// is a few store calls; nothing is cached, so it sees other machines'
/// appends. The futures are `Send` and need no particular runtime.
#[derive(Clone)]
#[must_use]
pub struct StoreSessions {
    store: Arc<dyn SessionStore>,
    project_key: String,
    /// The cwd reported for sessions that name none.
    project_path: Option<String>,
}

impl std::fmt::Debug for StoreSessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreSessions")
            .field("project_key", &self.project_key)
            .field("project_path", &self.project_path)
            .finish_non_exhaustive()
    }
}

/// A session made by [`StoreSessions::fork`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StoreForked {
    /// The new session's id.
    pub session_id: String,
}

/// One row of a listing being built: its time, and its listing once known.
struct Slot {
    mtime: i64,
    session_id: String,
    info: Option<SessionInfo>,
}

impl StoreSessions {
    /// The sessions of the project in `directory` (resolved as the CLI
    /// resolves a working directory, see
    /// [`project_key_for_directory`](super::project_key_for_directory)),
    /// which is also the cwd reported for a session that names none.
    pub fn new(store: Arc<dyn SessionStore>, directory: impl AsRef<Path>) -> Self {
        let project_path = locate::canonical(directory.as_ref());
        Self {
            store,
            project_key: claude_proto::transcript::project_key(&project_path),
            project_path: Some(project_path),
        }
    }

    /// The sessions stored under `project_key` as it is (no cwd is
    /// reported for a session that names none).
    pub fn with_project_key(store: Arc<dyn SessionStore>, project_key: impl Into<String>) -> Self {
        Self {
            store,
            project_key: project_key.into(),
            project_path: None,
        }
    }

    /// The project key the sessions are stored under.
    pub fn project_key(&self) -> &str {
        &self.project_key
    }

    fn key(&self, session_id: &str) -> SessionKey {
        SessionKey::main(self.project_key.clone(), session_id)
    }

    /// The sessions, newest first (sessions modified in the same
    /// millisecond by session id, so a listing never changes order between
    /// calls), then `page`: the SDKs' `list_sessions_from_store`. A subagent's session, or one with
    /// nothing to show, is not listed; a session whose load fails is
    /// listed with an empty summary.
    ///
    /// With a store that keeps summaries (`list_session_summaries`) this is
    /// two calls, plus one load per session of the page whose summary is
    /// missing or older than the session (a page may then come out short,
    /// as in the SDKs). Otherwise every session is loaded, at most 16 at
    /// once. Fails with [`StoreError::Unsupported`] if the store lists
    /// neither sessions nor summaries.
    pub async fn list(&self, page: Page) -> Result<Vec<SessionInfo>, SessionsError> {
        let summaries = match self.store.list_session_summaries(&self.project_key).await {
            Ok(summaries) => summaries,
            Err(e) if e.is_unsupported() => {
                let listing = self.store.list_sessions(&self.project_key).await?;
                let mut infos = self.derive_by_loading(&listing).await;
                // Newest first; ties by id, whatever order the store
                // listed them in.
                infos.sort_by(|a, b| {
                    (b.last_modified, &a.session_id).cmp(&(a.last_modified, &b.session_id))
                });
                return Ok(page.apply(infos));
            }
            Err(e) => return Err(e.into()),
        };
        // Without list_sessions, a session without a summary cannot be
        // found, and no summary can be found stale.
        let listing = match self.store.list_sessions(&self.project_key).await {
            Ok(listing) => Some(listing),
            Err(e) if e.is_unsupported() => None,
            Err(e) => return Err(e.into()),
        };
        let known: Option<HashMap<&str, i64>> = listing
            .as_ref()
            .map(|l| l.iter().map(|s| (s.session_id.as_str(), s.mtime)).collect());
        let mut slots = Vec::new();
        let mut fresh = HashSet::new();
        for summary in &summaries {
            if let Some(known) = &known {
                match known.get(summary.session_id.as_str()) {
                    // The session is gone.
                    None => continue,
                    // Appended since: loaded below, like a missing one.
                    Some(&mtime) if summary.mtime < mtime => continue,
                    Some(_) => {}
                }
            }
            fresh.insert(summary.session_id.as_str());
            // Left out here, before paging, as the other paths leave them.
            if let Some(info) = summary_to_info(summary, self.project_path.as_deref()) {
                slots.push(Slot {
                    mtime: summary.mtime,
                    session_id: summary.session_id.clone(),
                    info: Some(info),
                });
            }
        }
        for session in listing.iter().flatten() {
            if !fresh.contains(session.session_id.as_str()) {
                slots.push(Slot {
                    mtime: session.mtime,
                    session_id: session.session_id.clone(),
                    info: None,
                });
            }
        }
        // Newest first; ties by id, whatever order the store listed them in.
        slots.sort_by(|a, b| (b.mtime, &a.session_id).cmp(&(a.mtime, &b.session_id)));
        // Paged before loading, so the loads are bounded by the page.
        let mut slots = page.apply(slots);
        let to_fill: Vec<StoredSession> = slots
            .iter()
            .filter(|slot| slot.info.is_none())
            .map(|slot| StoredSession {
                session_id: slot.session_id.clone(),
                mtime: slot.mtime,
            })
            .collect();
        if !to_fill.is_empty() {
            let mut filled: HashMap<String, SessionInfo> = self
                .derive_by_loading(&to_fill)
                .await
                .into_iter()
                .map(|info| (info.session_id.clone(), info))
                .collect();
            for slot in slots.iter_mut().filter(|slot| slot.info.is_none()) {
                slot.info = filled.remove(&slot.session_id);
            }
        }
        Ok(slots.into_iter().filter_map(|slot| slot.info).collect())
    }

    /// Each session's listing from its loaded entries, in `listing`'s
    /// order, with the listing's time; sessions not listable are left out
    /// and one whose load failed is [`SessionInfo::unreadable`].
    async fn derive_by_loading(&self, listing: &[StoredSession]) -> Vec<SessionInfo> {
        let keys: Vec<SessionKey> = listing.iter().map(|s| self.key(&s.session_id)).collect();
        let loaded = load_all(self.store.as_ref(), &keys).await;
        let mut infos = Vec::new();
        for (session, outcome) in listing.iter().zip(loaded) {
            match outcome {
                Err(_) => infos.push(SessionInfo::unreadable(&session.session_id, session.mtime)),
                Ok(Some(entries)) if !entries.is_empty() => {
                    infos.extend(self.info_of(&session.session_id, &entries, session.mtime));
                }
                Ok(_) => {}
            }
        }
        infos
    }

    /// The listing of a session's entries, as of `mtime`.
    fn info_of(&self, session_id: &str, entries: &[Entry], mtime: i64) -> Option<SessionInfo> {
        let jsonl = entries_to_jsonl(entries);
        let (head, tail) = head_and_tail(&jsonl);
        let lite = Lite {
            head,
            tail,
            mtime,
            size: None,
        };
        SessionInfo::from_lite(session_id, lite, self.project_path.as_deref())
    }

    /// One session's listing: the SDKs' `get_session_info_from_store`.
    /// `Ok(None)` if the store holds nothing for it, or it is one
    /// [`list`](Self::list) leaves out. Its `last_modified` is its last
    /// entry's timestamp (now, if that has none): a store's `load` gives no
    /// time.
    pub async fn info(&self, session_id: &str) -> Result<Option<SessionInfo>, SessionsError> {
        check_session_id(session_id)?;
        let Some(entries) = self.load(&self.key(session_id)).await? else {
            return Ok(None);
        };
        let mtime = mtime_from_tail(&entries, now_millis());
        Ok(self.info_of(session_id, &entries, mtime))
    }

    /// The session's entries; `None` if there are none.
    async fn load(&self, key: &SessionKey) -> Result<Option<Vec<Entry>>, SessionsError> {
        Ok(self.store.load(key).await?.filter(|e| !e.is_empty()))
    }

    /// The messages of a session's conversation, in order, then `page`:
    /// the SDKs' `get_session_messages_from_store`. Empty if the store
    /// holds nothing for the session.
    pub async fn messages(
        &self,
        session_id: &str,
        page: Page,
    ) -> Result<Vec<SessionMessage>, SessionsError> {
        check_session_id(session_id)?;
        let Some(entries) = self.load(&self.key(session_id)).await? else {
            return Ok(Vec::new());
        };
        let index = index_of(&entries);
        Ok(messages_at(
            &entries,
            index.conversation(),
            page,
            &AgentParents::default(),
        ))
    }

    /// The ids of a session's subagents, in the store's order of their
    /// keys: the SDKs' `list_subagents_from_store`. Fails with
    /// [`StoreError::Unsupported`] if the store cannot list subkeys.
    pub async fn subagents(&self, session_id: &str) -> Result<Vec<String>, SessionsError> {
        check_session_id(session_id)?;
        let subkeys = self.store.list_subkeys(&self.key(session_id)).await?;
        let mut seen = HashSet::new();
        Ok(subkeys
            .iter()
            .filter_map(|subkey| agent_of(subkey))
            .filter(|id| seen.insert(*id))
            .map(str::to_owned)
            .collect())
    }

    /// A subagent's messages, each naming the tool use that started it
    /// (from the `agent_metadata` entry the store keeps for it): the SDKs'
    /// `get_subagent_messages_from_store`. Found among the session's
    /// subkeys (nested under `subagents/` at any depth), or at
    /// `subagents/agent-<id>` if the store cannot list them. Empty if there
    /// is no such subagent.
    pub async fn subagent_messages(
        &self,
        session_id: &str,
        agent_id: &str,
        page: Page,
    ) -> Result<Vec<SessionMessage>, SessionsError> {
        check_session_id(session_id)?;
        check_agent_id(agent_id)?;
        let key = self.key(session_id);
        let subpath = match self.store.list_subkeys(&key).await {
            Ok(subkeys) => match subkeys.into_iter().find(|s| agent_of(s) == Some(agent_id)) {
                Some(subpath) => subpath,
                None => return Ok(Vec::new()),
            },
            Err(e) if e.is_unsupported() => format!("subagents/agent-{agent_id}"),
            Err(e) => return Err(e.into()),
        };
        let Some(entries) = self.load(&key.with_subpath(subpath)).await? else {
            return Ok(Vec::new());
        };
        // The metadata entry is the store's copy of the `.meta.json` beside
        // a transcript on disk, not a line of it; the last one wins (it is
        // rewritten on resume).
        let mut metadata = None;
        let mut transcript = Vec::with_capacity(entries.len());
        for entry in entries {
            if kind_of(&entry).as_deref() == Some("agent_metadata") {
                metadata = Some(entry);
            } else {
                transcript.push(entry);
            }
        }
        let parents = metadata
            .map(|m| AgentParents::from_metadata(m.get().as_bytes()))
            .unwrap_or_default();
        let index = index_of(&transcript);
        Ok(messages_at(
            &transcript,
            index.subagent_conversation(),
            page,
            &parents,
        ))
    }

    /// Titles a session `title` (trimmed; must not be empty): the SDKs'
    /// `rename_session_via_store`. Appends a `custom-title` entry (with a
    /// uuid and timestamp, as the SDKs do for stores); the last one wins.
    /// A session the store does not hold is not an error: the entry
    /// creates it, as in the Python SDK.
    pub async fn rename(&self, session_id: &str, title: &str) -> Result<(), SessionsError> {
        check_session_id(session_id)?;
        let title = title.trim();
        if title.is_empty() {
            return Err(SessionsError::EmptyTitle);
        }
        self.append_marker(session_id, "custom-title", "customTitle", title)
            .await
    }

    /// Tags a session, or clears its tag with `None`: the SDKs'
    /// `tag_session_via_store`. The tag is cleaned as
    /// [`Sessions::tag`](super::Sessions::tag) cleans it. A session the
    /// store does not hold is created, as by [`rename`](Self::rename).
    pub async fn tag(&self, session_id: &str, tag: Option<&str>) -> Result<(), SessionsError> {
        check_session_id(session_id)?;
        let tag = tag_text(tag)?;
        self.append_marker(session_id, "tag", "tag", &tag).await
    }

    async fn append_marker(
        &self,
        session_id: &str,
        kind: &str,
        field: &str,
        value: &str,
    ) -> Result<(), SessionsError> {
        let line = serde_json::json!({
            "type": kind,
            field: value,
            "sessionId": session_id,
            "uuid": new_uuid(),
            "timestamp": format_iso_millis(now_millis()),
        });
        let entry = serde_json::value::to_raw_value(&line)
            .map_err(|e| SessionsError::Store(StoreError::backend(e)))?;
        self.store.append(&self.key(session_id), &[entry]).await?;
        Ok(())
    }

    /// Deletes a session and (if the store cascades, as this crate's
    /// stores do) its subagents: the SDKs' `delete_session_via_store`.
    /// Does nothing if the store cannot delete.
    pub async fn delete(&self, session_id: &str) -> Result<(), SessionsError> {
        check_session_id(session_id)?;
        match self.store.delete(&self.key(session_id)).await {
            Err(e) if e.is_unsupported() => Ok(()),
            result => Ok(result?),
        }
    }

    /// Copies a session's conversation into a new session of the same
    /// project, as [`Sessions::fork`](super::Sessions::fork) does: the
    /// SDKs' `fork_session_via_store`. The fork is appended in one batch.
    pub async fn fork(
        &self,
        session_id: &str,
        options: &ForkOptions,
    ) -> Result<StoreForked, SessionsError> {
        check_session_id(session_id)?;
        let Some(entries) = self.load(&self.key(session_id)).await? else {
            return Err(SessionsError::NotFound {
                session_id: session_id.to_owned(),
                project: None,
            });
        };
        let mut source = ForkSource::new(session_id);
        for (at, entry) in entries.iter().enumerate() {
            source.handle_line(span_at(at), entry.get().as_bytes());
        }
        let (plan, derived) = plan_fork(source, options, || derive_title(&entries))?;
        let changed = || {
            SessionsError::Store(StoreError::backend(
                "an entry of the source changed while it was forked",
            ))
        };
        let mut lines = Vec::new();
        for (n, span) in plan.spans().enumerate() {
            let entry = usize::try_from(span.start)
                .ok()
                .and_then(|at| entries.get(at))
                .ok_or_else(changed)?;
            lines.push(
                plan.rewrite(n, entry.get().as_bytes())
                    .ok_or_else(changed)?,
            );
        }
        lines.extend(plan.closing_lines(
            options.title.as_deref(),
            derived.as_deref(),
            &mut new_uuid,
        ));
        let forked: Vec<Entry> = lines
            .into_iter()
            .map(RawValue::from_string)
            .collect::<Result<_, _>>()
            .map_err(|e| SessionsError::Store(StoreError::backend(e)))?;
        self.store
            .append(&self.key(plan.session_id()), &forked)
            .await?;
        Ok(StoreForked {
            session_id: plan.session_id().to_owned(),
        })
    }
}

/// Entries are indexed by their position: a span's `start` is the index.
fn span_at(at: usize) -> Span {
    Span {
        start: at as u64,
        len: 0,
    }
}

fn index_of(entries: &[Entry]) -> TranscriptIndex {
    let mut index = TranscriptIndex::new();
    for (at, entry) in entries.iter().enumerate() {
        index.handle_line(span_at(at), entry.get().as_bytes());
    }
    index
}

fn messages_at(
    entries: &[Entry],
    spans: Vec<Span>,
    page: Page,
    parents: &AgentParents,
) -> Vec<SessionMessage> {
    page.apply(spans)
        .into_iter()
        .filter_map(|span| entries.get(usize::try_from(span.start).ok()?))
        .filter_map(|entry| SessionMessage::from_line(entry.get().as_bytes()))
        .map(|message| message.with_parents(parents))
        .collect()
}

/// The agent id of a subagent's subkey: `subagents/…/agent-<id>`.
fn agent_of(subkey: &str) -> Option<&str> {
    if !subkey.starts_with("subagents/") {
        return None;
    }
    subkey.rsplit('/').next()?.strip_prefix("agent-")
}

/// An entry's `type`, if it is an object with a string one.
fn kind_of(entry: &Entry) -> Option<String> {
    let serde_json::Value::Object(mut fields) = serde_json::from_str(entry.get()).ok()? else {
        return None;
    };
    match fields.remove("type")? {
        serde_json::Value::String(kind) => Some(kind),
        _ => None,
    }
}

/// The source's title for a fork's `<title> (fork)`: the last custom
/// title of any entry, else the last AI title, else the first prompt
/// (Python's `_derive_title_from_entries`).
fn derive_title(entries: &[Entry]) -> Option<String> {
    let text = |v: Option<serde_json::Value>| match v {
        Some(serde_json::Value::String(s)) if !s.is_empty() => Some(s),
        _ => None,
    };
    let (mut custom, mut ai) = (None, None);
    for entry in entries {
        if let Ok(serde_json::Value::Object(mut fields)) = serde_json::from_str(entry.get()) {
            custom = text(fields.remove("customTitle")).or(custom);
            ai = text(fields.remove("aiTitle")).or(ai);
        }
    }
    custom
        .or(ai)
        .or_else(|| first_prompt_of(&entries_to_jsonl(entries)))
}
