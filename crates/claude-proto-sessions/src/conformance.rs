//! The behaviour every [`SessionStore`] must have, as a suite a backend's
//! tests call: the contracts of the Python SDK's
//! `claude_agent_sdk.testing.run_session_store_conformance`, with the same
//! numbers and meaning.
//!
//! A contract for an optional method is skipped when the store answers
//! that method with [`StoreError::Unsupported`], as Python skips the
//! methods a store does not override. Entries are compared as JSON values,
//! never as text (a database may reorder an object's keys).

use std::collections::hash_map::RandomState;
use std::fmt;
use std::hash::BuildHasher;

use serde_json::Value;

use claude_proto::transcript::fold_summary;

use crate::SessionKey;
use crate::store::{Entry, SessionStore, SessionSummary, StoreError};

/// The contracts' titles; contract `n` is `CONTRACTS[n - 1]`.
pub const CONTRACTS: &[&str] = &[
    "append then load returns same entries in same order",
    "load unknown key returns None",
    "multiple append calls preserve call order",
    "append([]) is a no-op",
    "subpath keys are stored independently of main",
    "project_key isolation",
    "list_sessions returns session_ids for project",
    "list_sessions excludes subagent subpaths",
    "delete main then load returns None",
    "delete main cascades to subkeys",
    "delete with subpath removes only that subkey",
    "list_subkeys returns subpaths",
    "list_subkeys excludes main transcript",
    "list_session_summaries returns persisted fold output",
];

/// Which contracts a passing run checked, by title in run order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConformanceReport {
    /// The contracts checked, all of which held.
    pub ran: Vec<&'static str>,
    /// The contracts not checked: their optional method is unsupported
    /// by the store.
    pub skipped: Vec<&'static str>,
}

/// The first contract a store broke.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConformanceFailure {
    /// The contract's number, 1-based, as in Python's suite.
    pub number: usize,
    /// The contract's title (`CONTRACTS[number - 1]`).
    pub title: &'static str,
    /// What the store did instead.
    pub detail: String,
}

impl fmt::Display for ConformanceFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "session store contract {} ({}) broken: {}",
            self.number, self.title, self.detail
        )
    }
}

impl std::error::Error for ConformanceFailure {}

/// Checks `store` against every contract, in one store: each contract's
/// keys live under project keys of their own (`conformance-<random>-<n>-…`),
/// so a store that already holds data, or a database shared with other
/// runs, can be checked. Use [`run_with`] for a fresh store per contract,
/// as Python's suite does.
pub async fn run(store: &dyn SessionStore) -> Result<ConformanceReport, ConformanceFailure> {
    Suite::new(|| Fresh::Shared(store)).run().await
}

/// Checks a store against every contract, making a fresh empty store with
/// `fresh` for each (and one more first, to find which optional methods it
/// supports), as Python's suite does with its factory.
pub async fn run_with<S, F>(fresh: F) -> Result<ConformanceReport, ConformanceFailure>
where
    S: SessionStore,
    F: FnMut() -> S,
{
    let mut fresh = fresh;
    Suite::new(move || Fresh::Owned(Box::new(fresh())))
        .run()
        .await
}

/// A store for one contract: the shared one, or one of its own.
enum Fresh<'s> {
    Shared(&'s dyn SessionStore),
    Owned(Box<dyn SessionStore>),
}

impl Fresh<'_> {
    fn store(&self) -> &dyn SessionStore {
        match self {
            Fresh::Shared(store) => *store,
            Fresh::Owned(store) => store.as_ref(),
        }
    }
}

/// The optional methods a store answers (with anything but
/// [`StoreError::Unsupported`]).
#[derive(Debug, Clone, Copy)]
struct Supported {
    list_sessions: bool,
    list_session_summaries: bool,
    delete: bool,
    list_subkeys: bool,
}

struct Suite<F> {
    fresh: F,
    /// Keeps this run's keys apart from any other run's in a shared store.
    run_id: u64,
}

/// The contract being checked, for naming its keys and its failure.
#[derive(Clone, Copy)]
struct Contract {
    number: usize,
    run_id: u64,
}

impl Contract {
    fn fail(self, detail: impl Into<String>) -> ConformanceFailure {
        ConformanceFailure {
            number: self.number,
            title: CONTRACTS[self.number - 1],
            detail: detail.into(),
        }
    }

    /// This contract's spelling of a project key Python's suite uses.
    fn project(self, name: &str) -> String {
        format!("conformance-{:016x}-{}-{name}", self.run_id, self.number)
    }

    fn key(self, project: &str, session: &str) -> SessionKey {
        SessionKey::main(self.project(project), session)
    }

    /// Python's `_KEY`.
    fn main_key(self) -> SessionKey {
        self.key("proj", "sess")
    }

    fn check(self, holds: bool, detail: impl FnOnce() -> String) -> Result<(), ConformanceFailure> {
        if holds {
            Ok(())
        } else {
            Err(self.fail(detail()))
        }
    }

    fn store_call<T>(
        self,
        what: &str,
        result: Result<T, StoreError>,
    ) -> Result<T, ConformanceFailure> {
        result.map_err(|e| self.fail(format!("{what} failed: {e}")))
    }

    async fn append(
        self,
        store: &dyn SessionStore,
        key: &SessionKey,
        entries: &[Value],
    ) -> Result<(), ConformanceFailure> {
        let entries: Vec<Entry> = entries.iter().map(to_entry).collect();
        let result = store.append(key, &entries).await;
        self.store_call(&format!("append({key})"), result)
    }

    async fn load(
        self,
        store: &dyn SessionStore,
        key: &SessionKey,
    ) -> Result<Option<Vec<Value>>, ConformanceFailure> {
        let result = store.load(key).await;
        let loaded = self.store_call(&format!("load({key})"), result)?;
        loaded
            .map(|entries| {
                entries
                    .iter()
                    .map(|entry| {
                        serde_json::from_str(entry.get()).map_err(|e| {
                            self.fail(format!("load({key}) gave an entry that is not JSON: {e}"))
                        })
                    })
                    .collect()
            })
            .transpose()
    }

    async fn expect_loaded(
        self,
        store: &dyn SessionStore,
        key: &SessionKey,
        expected: &[Value],
    ) -> Result<(), ConformanceFailure> {
        let loaded = self.load(store, key).await?;
        self.check(loaded.as_deref() == Some(expected), || {
            format!("load({key}) gave {loaded:?}, expected {expected:?}")
        })
    }

    async fn expect_absent(
        self,
        store: &dyn SessionStore,
        key: &SessionKey,
    ) -> Result<(), ConformanceFailure> {
        let loaded = self.load(store, key).await?;
        self.check(loaded.is_none(), || {
            format!("load({key}) gave {loaded:?}, expected None")
        })
    }

    /// `key` holds exactly one entry (whatever it is).
    async fn expect_one(
        self,
        store: &dyn SessionStore,
        key: &SessionKey,
    ) -> Result<(), ConformanceFailure> {
        let loaded = self.load(store, key).await?;
        self.check(loaded.as_ref().is_some_and(|l| l.len() == 1), || {
            format!("load({key}) gave {loaded:?}, expected one entry")
        })
    }

    async fn session_ids(
        self,
        store: &dyn SessionStore,
        project: &str,
    ) -> Result<Vec<String>, ConformanceFailure> {
        let result = store.list_sessions(project).await;
        let listed = self.store_call(&format!("list_sessions({project})"), result)?;
        Ok(listed.into_iter().map(|s| s.session_id).collect())
    }

    async fn subkeys(
        self,
        store: &dyn SessionStore,
        key: &SessionKey,
    ) -> Result<Vec<String>, ConformanceFailure> {
        let result = store.list_subkeys(key).await;
        self.store_call(&format!("list_subkeys({key})"), result)
    }

    async fn summaries(
        self,
        store: &dyn SessionStore,
        project: &str,
    ) -> Result<Vec<SessionSummary>, ConformanceFailure> {
        let result = store.list_session_summaries(project).await;
        self.store_call(&format!("list_session_summaries({project})"), result)
    }

    async fn delete(
        self,
        store: &dyn SessionStore,
        key: &SessionKey,
    ) -> Result<(), ConformanceFailure> {
        let result = store.delete(key).await;
        self.store_call(&format!("delete({key})"), result)
    }
}

/// Python's `_e`: a test entry (`type` is required of entries; its value
/// does not matter to the contracts).
fn e(fields: Value) -> Value {
    let mut entry = serde_json::json!({"type": "x"});
    if let (Some(entry), Value::Object(fields)) = (entry.as_object_mut(), fields) {
        entry.extend(fields);
    }
    entry
}

fn to_entry(value: &Value) -> Entry {
    serde_json::value::to_raw_value(value).unwrap_or_else(|_| unreachable!("a Value serializes"))
}

fn sorted(mut items: Vec<String>) -> Vec<String> {
    items.sort();
    items
}

impl<'s, F: FnMut() -> Fresh<'s>> Suite<F> {
    fn new(fresh: F) -> Self {
        Self {
            fresh,
            run_id: RandomState::new().hash_one(std::process::id()),
        }
    }

    fn contract(&self, number: usize) -> Contract {
        Contract {
            number,
            run_id: self.run_id,
        }
    }

    /// Asks a store for each optional method, with keys no contract uses.
    async fn probe(&mut self) -> Supported {
        let fresh = (self.fresh)();
        let store = fresh.store();
        let key = SessionKey::main(
            format!("conformance-{:016x}-probe", self.run_id),
            "never-written",
        );
        let answers =
            |result: Result<(), StoreError>| !matches!(result, Err(e) if e.is_unsupported());
        Supported {
            list_sessions: answers(store.list_sessions(&key.project_key).await.map(drop)),
            list_session_summaries: answers(
                store
                    .list_session_summaries(&key.project_key)
                    .await
                    .map(drop),
            ),
            delete: answers(store.delete(&key).await),
            list_subkeys: answers(store.list_subkeys(&key).await.map(drop)),
        }
    }

    async fn run(mut self) -> Result<ConformanceReport, ConformanceFailure> {
        let supported = self.probe().await;
        let mut report = ConformanceReport::default();
        let mut record = |number: usize, ran: bool| {
            let title = CONTRACTS[number - 1];
            if ran {
                report.ran.push(title);
            } else {
                report.skipped.push(title);
            }
        };

        // --- Required: append + load ---
        for number in 1..=6 {
            let fresh = (self.fresh)();
            let c = self.contract(number);
            match number {
                1 => append_then_load(c, fresh.store()).await?,
                2 => load_unknown(c, fresh.store()).await?,
                3 => appends_in_call_order(c, fresh.store()).await?,
                4 => empty_append(c, fresh.store()).await?,
                5 => subpaths_apart(c, fresh.store()).await?,
                _ => projects_apart(c, fresh.store(), supported).await?,
            }
            record(number, true);
        }

        // --- Optional: list_sessions ---
        for number in [7, 8] {
            if supported.list_sessions {
                let fresh = (self.fresh)();
                let c = self.contract(number);
                match number {
                    7 => lists_sessions(c, fresh.store()).await?,
                    _ => lists_no_subpaths(c, fresh.store()).await?,
                }
            }
            record(number, supported.list_sessions);
        }

        // --- Optional: list_session_summaries ---
        // Checked here, between list_sessions and delete, as Python orders
        // it.
        if supported.list_session_summaries {
            let fresh = (self.fresh)();
            summaries_round_trip(self.contract(14), fresh.store(), supported).await?;
        }
        record(14, supported.list_session_summaries);

        // --- Optional: delete ---
        for number in [9, 10, 11] {
            if supported.delete {
                let fresh = (self.fresh)();
                let c = self.contract(number);
                match number {
                    9 => delete_main(c, fresh.store()).await?,
                    10 => delete_cascades(c, fresh.store(), supported).await?,
                    _ => delete_subpath(c, fresh.store(), supported).await?,
                }
            }
            record(number, supported.delete);
        }

        // --- Optional: list_subkeys ---
        for number in [12, 13] {
            if supported.list_subkeys {
                let fresh = (self.fresh)();
                let c = self.contract(number);
                match number {
                    12 => lists_subkeys(c, fresh.store()).await?,
                    _ => subkeys_exclude_main(c, fresh.store()).await?,
                }
            }
            record(number, supported.list_subkeys);
        }

        Ok(report)
    }
}

// 1.
async fn append_then_load(c: Contract, store: &dyn SessionStore) -> Result<(), ConformanceFailure> {
    let key = c.main_key();
    let entries = [
        e(serde_json::json!({"uuid": "b", "n": 1})),
        e(serde_json::json!({"uuid": "a", "n": 2})),
    ];
    c.append(store, &key, &entries).await?;
    c.expect_loaded(store, &key, &entries).await
}

// 2.
async fn load_unknown(c: Contract, store: &dyn SessionStore) -> Result<(), ConformanceFailure> {
    c.expect_absent(store, &c.key("proj", "nope")).await?;
    let key = c.main_key();
    c.append(store, &key, &[e(serde_json::json!({"uuid": "x", "n": 1}))])
        .await?;
    c.expect_absent(store, &key.with_subpath("nope")).await
}

// 3.
async fn appends_in_call_order(
    c: Contract,
    store: &dyn SessionStore,
) -> Result<(), ConformanceFailure> {
    let key = c.main_key();
    let all: Vec<Value> = [("z", 1), ("a", 2), ("m", 3), ("b", 4)]
        .into_iter()
        .map(|(uuid, n)| e(serde_json::json!({"uuid": uuid, "n": n})))
        .collect();
    c.append(store, &key, &all[..1]).await?;
    c.append(store, &key, &all[1..3]).await?;
    c.append(store, &key, &all[3..]).await?;
    c.expect_loaded(store, &key, &all).await
}

// 4.
async fn empty_append(c: Contract, store: &dyn SessionStore) -> Result<(), ConformanceFailure> {
    let key = c.main_key();
    let entry = [e(serde_json::json!({"uuid": "a", "n": 1}))];
    c.append(store, &key, &entry).await?;
    c.append(store, &key, &[]).await?;
    c.expect_loaded(store, &key, &entry).await
}

// 5.
async fn subpaths_apart(c: Contract, store: &dyn SessionStore) -> Result<(), ConformanceFailure> {
    let key = c.main_key();
    let sub = key.with_subpath("subagents/agent-1");
    let main_entry = [e(serde_json::json!({"uuid": "m", "n": 1}))];
    let sub_entry = [e(serde_json::json!({"uuid": "s", "n": 1}))];
    c.append(store, &key, &main_entry).await?;
    c.append(store, &sub, &sub_entry).await?;
    c.expect_loaded(store, &key, &main_entry).await?;
    c.expect_loaded(store, &sub, &sub_entry).await
}

// 6.
async fn projects_apart(
    c: Contract,
    store: &dyn SessionStore,
    supported: Supported,
) -> Result<(), ConformanceFailure> {
    let a = c.key("A", "s1");
    let b = c.key("B", "s1");
    let from_a = [e(serde_json::json!({"from": "A"}))];
    let from_b = [e(serde_json::json!({"from": "B"}))];
    c.append(store, &a, &from_a).await?;
    c.append(store, &b, &from_b).await?;
    c.expect_loaded(store, &a, &from_a).await?;
    c.expect_loaded(store, &b, &from_b).await?;
    if supported.list_sessions {
        for key in [&a, &b] {
            let ids = c.session_ids(store, &key.project_key).await?;
            c.check(ids.len() == 1, || {
                format!(
                    "list_sessions({}) gave {ids:?}, expected one session",
                    key.project_key
                )
            })?;
        }
    }
    Ok(())
}

// 7.
async fn lists_sessions(c: Contract, store: &dyn SessionStore) -> Result<(), ConformanceFailure> {
    let entry = [e(serde_json::json!({"n": 1}))];
    c.append(store, &c.key("proj", "a"), &entry).await?;
    c.append(store, &c.key("proj", "b"), &entry).await?;
    c.append(store, &c.key("other", "c"), &entry).await?;
    let project = c.project("proj");
    let result = store.list_sessions(&project).await;
    let sessions = c.store_call("list_sessions", result)?;
    let ids = sorted(sessions.iter().map(|s| s.session_id.clone()).collect());
    c.check(ids == ["a", "b"], || {
        format!("list_sessions({project}) gave {ids:?}, expected [\"a\", \"b\"]")
    })?;
    // Epoch milliseconds: more than 1e12 rules out epoch seconds.
    c.check(sessions.iter().all(|s| s.mtime > 1_000_000_000_000), || {
        format!(
            "list_sessions({project}) gave mtimes that are not epoch milliseconds: {sessions:?}"
        )
    })?;
    let never = c.project("never-appended-project");
    let ids = c.session_ids(store, &never).await?;
    c.check(ids.is_empty(), || {
        format!("list_sessions({never}) gave {ids:?}, expected none")
    })
}

// 8.
async fn lists_no_subpaths(
    c: Contract,
    store: &dyn SessionStore,
) -> Result<(), ConformanceFailure> {
    let entry = [e(serde_json::json!({"n": 1}))];
    let main = c.key("proj", "main");
    c.append(store, &main, &entry).await?;
    c.append(store, &main.with_subpath("subagents/agent-1"), &entry)
        .await?;
    let ids = c.session_ids(store, &main.project_key).await?;
    c.check(ids == ["main"], || {
        format!("list_sessions gave {ids:?}, expected [\"main\"]")
    })
}

// 9.
async fn delete_main(c: Contract, store: &dyn SessionStore) -> Result<(), ConformanceFailure> {
    c.delete(store, &c.key("proj", "never-written")).await?;
    let key = c.main_key();
    c.append(store, &key, &[e(serde_json::json!({"n": 1}))])
        .await?;
    c.delete(store, &key).await?;
    c.expect_absent(store, &key).await
}

// 10.
async fn delete_cascades(
    c: Contract,
    store: &dyn SessionStore,
    supported: Supported,
) -> Result<(), ConformanceFailure> {
    let key = c.main_key();
    let sub1 = key.with_subpath("subagents/agent-1");
    let sub2 = key.with_subpath("subagents/agent-2");
    let other = c.key("proj", "sess2");
    let other_proj = c.key("other-proj", &key.session_id);
    let entry = [e(serde_json::json!({"n": 1}))];
    for k in [&key, &sub1, &sub2, &other, &other_proj] {
        c.append(store, k, &entry).await?;
    }
    c.delete(store, &key).await?;
    for k in [&key, &sub1, &sub2] {
        c.expect_absent(store, k).await?;
    }
    c.expect_one(store, &other).await?;
    c.expect_one(store, &other_proj).await?;
    if supported.list_subkeys {
        let subkeys = c.subkeys(store, &key).await?;
        c.check(subkeys.is_empty(), || {
            format!("list_subkeys({key}) gave {subkeys:?} after deleting it, expected none")
        })?;
    }
    if supported.list_sessions {
        let ids = c.session_ids(store, &key.project_key).await?;
        c.check(!ids.contains(&key.session_id), || {
            format!(
                "list_sessions still lists {} after deleting it: {ids:?}",
                key.session_id
            )
        })?;
    }
    Ok(())
}

// 11.
async fn delete_subpath(
    c: Contract,
    store: &dyn SessionStore,
    supported: Supported,
) -> Result<(), ConformanceFailure> {
    let key = c.main_key();
    let sub1 = key.with_subpath("subagents/agent-1");
    let sub2 = key.with_subpath("subagents/agent-2");
    let entry = [e(serde_json::json!({"n": 1}))];
    for k in [&key, &sub1, &sub2] {
        c.append(store, k, &entry).await?;
    }
    c.delete(store, &sub1).await?;
    c.expect_absent(store, &sub1).await?;
    c.expect_one(store, &sub2).await?;
    c.expect_one(store, &key).await?;
    if supported.list_subkeys {
        let subkeys = c.subkeys(store, &key).await?;
        c.check(subkeys == ["subagents/agent-2"], || {
            format!("list_subkeys({key}) gave {subkeys:?}, expected [\"subagents/agent-2\"]")
        })?;
    }
    Ok(())
}

// 12.
async fn lists_subkeys(c: Contract, store: &dyn SessionStore) -> Result<(), ConformanceFailure> {
    let key = c.main_key();
    let entry = [e(serde_json::json!({"n": 1}))];
    c.append(store, &key, &entry).await?;
    c.append(store, &key.with_subpath("subagents/agent-1"), &entry)
        .await?;
    c.append(store, &key.with_subpath("subagents/agent-2"), &entry)
        .await?;
    let other_session = c
        .key("proj", "other-sess")
        .with_subpath("subagents/agent-x");
    c.append(store, &other_session, &entry).await?;
    let subkeys = sorted(c.subkeys(store, &key).await?);
    c.check(subkeys == ["subagents/agent-1", "subagents/agent-2"], || {
        format!(
            "list_subkeys({key}) gave {subkeys:?}, expected [\"subagents/agent-1\", \"subagents/agent-2\"]"
        )
    })
}

// 13.
async fn subkeys_exclude_main(
    c: Contract,
    store: &dyn SessionStore,
) -> Result<(), ConformanceFailure> {
    let key = c.main_key();
    c.append(store, &key, &[e(serde_json::json!({"n": 1}))])
        .await?;
    for k in [&key, &c.key("proj", "never-appended")] {
        let subkeys = c.subkeys(store, k).await?;
        c.check(subkeys.is_empty(), || {
            format!("list_subkeys({k}) gave {subkeys:?}, expected none")
        })?;
    }
    Ok(())
}

// 14. What `list_session_summaries` gives is the fold's output, persisted
// as it is: it folds again, keeps the store's write time (on the clock of
// `list_sessions`), ignores subagents and goes with the session.
async fn summaries_round_trip(
    c: Contract,
    store: &dyn SessionStore,
    supported: Supported,
) -> Result<(), ConformanceFailure> {
    let key = c.key("proj", "summ-sess");
    let stamped = |ts: &str, title: Option<&str>| {
        let mut fields = serde_json::json!({"timestamp": ts});
        if let (Some(title), Some(map)) = (title, fields.as_object_mut()) {
            map.insert("customTitle".into(), title.into());
        }
        e(fields)
    };
    c.append(
        store,
        &key,
        &[
            stamped("2024-01-01T00:00:00.000Z", Some("first")),
            stamped("2024-01-01T00:00:01.000Z", None),
        ],
    )
    .await?;
    c.append(
        store,
        &key,
        &[stamped("2024-01-01T00:00:02.000Z", Some("second"))],
    )
    .await?;
    c.append(
        store,
        &c.key("other", "elsewhere"),
        &[stamped("2024-01-01T00:00:00.000Z", None)],
    )
    .await?;
    let project = &key.project_key;
    let summaries = c.summaries(store, project).await?;
    let ids: Vec<&str> = summaries.iter().map(|s| s.session_id.as_str()).collect();
    c.check(ids == ["summ-sess"], || {
        format!("list_session_summaries({project}) gave {ids:?}, expected [\"summ-sess\"]")
    })?;
    let summary = &summaries[0];
    // Epoch milliseconds: more than 1e12 rules out epoch seconds.
    c.check(summary.mtime > 1_000_000_000_000, || {
        format!(
            "the summary's mtime {} is not in epoch milliseconds",
            summary.mtime
        )
    })?;
    if supported.list_sessions {
        // The summary's time is the store's write time, on the clock of
        // list_sessions: one taken from the entries' timestamps would look
        // stale to a listing and never be used.
        let result = store.list_sessions(project).await;
        let listed = c.store_call(&format!("list_sessions({project})"), result)?;
        let listed_mtime = listed
            .iter()
            .find(|s| s.session_id == "summ-sess")
            .map(|s| s.mtime);
        c.check(listed_mtime.is_some_and(|m| summary.mtime >= m), || {
            format!(
                "the summary's mtime {} is older than list_sessions' {listed_mtime:?}",
                summary.mtime
            )
        })?;
    }
    let refolded = fold_summary(
        Some(summary),
        &key,
        &[to_entry(&stamped("2024-01-01T00:00:03.000Z", None))],
    );
    c.check(
        refolded.session_id == "summ-sess" && refolded.mtime == summary.mtime,
        || format!("the stored summary does not fold again as it is: {summary:?}"),
    )?;
    c.append(
        store,
        &key.with_subpath("subagents/agent-1"),
        &[stamped("2024-01-01T00:00:09.000Z", Some("subagent"))],
    )
    .await?;
    let after = c.summaries(store, project).await?;
    let after_data = after
        .iter()
        .find(|s| s.session_id == "summ-sess")
        .map(|s| &s.data);
    c.check(after_data == Some(&summary.data), || {
        format!(
            "a subagent's append changed its session's summary from {:?} to {after_data:?}",
            summary.data
        )
    })?;
    let never = c.project("never-appended-project");
    let none = c.summaries(store, &never).await?;
    c.check(none.is_empty(), || {
        format!("list_session_summaries({never}) gave {none:?}, expected none")
    })?;
    if supported.delete {
        c.delete(store, &key).await?;
        let left = c.summaries(store, project).await?;
        c.check(left.is_empty(), || {
            format!("list_session_summaries({project}) gave {left:?} after deleting the session")
        })?;
    }
    Ok(())
}
