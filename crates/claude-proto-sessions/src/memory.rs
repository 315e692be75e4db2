//! A store in this process's memory.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::SessionKey;
use claude_proto::transcript::fold_summary;

use crate::store::{Entry, SessionStore, SessionSummary, StoreFuture, StoredSession};

/// Keeps transcripts in memory: for tests, and for programs that resume
/// sessions only within one run. Everything is lost when it is dropped.
///
/// Keeps each session's summary as it appends (as the Python SDK's
/// `InMemorySessionStore` does), so
/// [`list_session_summaries`](SessionStore::list_session_summaries)
/// answers without folding anything.
#[derive(Debug, Default)]
pub struct MemoryStore {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    transcripts: BTreeMap<SessionKey, Stored>,
    /// By project key, then session id: main transcripts only.
    summaries: BTreeMap<(String, String), SessionSummary>,
    last_mtime: i64,
}

#[derive(Debug)]
struct Stored {
    entries: Vec<Entry>,
    mtime: i64,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl State {
    /// Strictly increasing, so back-to-back appends get distinct times.
    fn next_mtime(&mut self) -> i64 {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
        self.last_mtime = now.max(self.last_mtime + 1);
        self.last_mtime
    }
}

fn ready<'a, T: Send + 'a>(value: T) -> StoreFuture<'a, T> {
    Box::pin(std::future::ready(Ok(value)))
}

impl SessionStore for MemoryStore {
    fn append<'a>(&'a self, key: &'a SessionKey, entries: &'a [Entry]) -> StoreFuture<'a, ()> {
        if !entries.is_empty() {
            let mut state = self.lock();
            let mtime = state.next_mtime();
            let stored = state.transcripts.entry(key.clone()).or_insert(Stored {
                entries: Vec::new(),
                mtime,
            });
            stored.entries.extend(entries.iter().cloned());
            stored.mtime = mtime;
            // A subagent's entries say nothing about its session's listing.
            if key.subpath.is_none() {
                let at = (key.project_key.clone(), key.session_id.clone());
                let mut folded = fold_summary(state.summaries.get(&at), key, entries);
                // The transcript's own time: the same clock as
                // `list_sessions`, so the summary is never older than it.
                folded.mtime = mtime;
                state.summaries.insert(at, folded);
            }
        }
        ready(())
    }

    fn load<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<Entry>>> {
        ready(self.lock().transcripts.get(key).map(|s| s.entries.clone()))
    }

    fn list_sessions<'a>(&'a self, project_key: &'a str) -> StoreFuture<'a, Vec<StoredSession>> {
        let listed = self
            .lock()
            .transcripts
            .iter()
            .filter(|(key, _)| key.project_key == project_key && key.subpath.is_none())
            .map(|(key, stored)| StoredSession {
                session_id: key.session_id.clone(),
                mtime: stored.mtime,
            })
            .collect();
        ready(listed)
    }

    fn list_session_summaries<'a>(
        &'a self,
        project_key: &'a str,
    ) -> StoreFuture<'a, Vec<SessionSummary>> {
        let summaries = self
            .lock()
            .summaries
            .iter()
            .filter(|((project, _), _)| project == project_key)
            .map(|(_, summary)| summary.clone())
            .collect();
        ready(summaries)
    }

    fn delete<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, ()> {
        let mut state = self.lock();
        if key.subpath.is_some() {
            state.transcripts.remove(key);
        } else {
            state.transcripts.retain(|k, _| {
                !(k.project_key == key.project_key && k.session_id == key.session_id)
            });
            state
                .summaries
                .remove(&(key.project_key.clone(), key.session_id.clone()));
        }
        ready(())
    }

    fn list_subkeys<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Vec<String>> {
        let subkeys = self
            .lock()
            .transcripts
            .keys()
            .filter(|k| k.project_key == key.project_key && k.session_id == key.session_id)
            .filter_map(|k| k.subpath.clone())
            .collect();
        ready(subkeys)
    }
}
