//! The conformance suite against the in-memory store, and against stores
//! broken on purpose, to show that it catches what it claims to.

use claude_proto_sessions::conformance::{self, CONTRACTS, ConformanceFailure};
use claude_proto_sessions::{
    DirectoryStore, Entry, MemoryStore, SessionKey, SessionStore, SessionSummary, StoreFuture,
    StoredSession, block_on,
};

#[test]
fn memory_store_passes_with_a_fresh_store_per_contract() {
    let report = block_on(conformance::run_with(MemoryStore::new)).expect("MemoryStore conforms");
    assert_eq!(report.ran.len(), 14, "{report:?}");
    assert!(report.skipped.is_empty());
}

#[test]
fn memory_store_passes_in_one_shared_store() {
    let store = MemoryStore::new();
    block_on(conformance::run(&store)).expect("MemoryStore conforms");
    // Twice in the same store: the second run's keys are its own.
    let report = block_on(conformance::run(&store)).expect("MemoryStore conforms again");
    assert_eq!(report.ran.len(), 14);
}

/// A store with only the required methods: the optional contracts are
/// skipped, as Python skips the methods a store does not override.
struct RequiredOnly(MemoryStore);

impl SessionStore for RequiredOnly {
    fn append<'a>(&'a self, key: &'a SessionKey, entries: &'a [Entry]) -> StoreFuture<'a, ()> {
        self.0.append(key, entries)
    }

    fn load<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<Entry>>> {
        self.0.load(key)
    }
}

#[test]
fn unsupported_optional_methods_skip_their_contracts() {
    let report = block_on(conformance::run_with(|| RequiredOnly(MemoryStore::new())))
        .expect("the required contracts hold");
    assert_eq!(report.ran, &CONTRACTS[..6]);
    assert_eq!(report.skipped.len(), 8);
}

/// How [`Broken`] misbehaves.
#[derive(Clone, Copy)]
enum Flaw {
    /// Stores each batch backwards.
    ReversesBatches,
    /// Keeps only the first batch appended to a key.
    DropsLaterBatches,
    /// Lists subagent transcripts as sessions too.
    ListsSubpaths,
    /// Deletes only the main transcript, leaving its subagents.
    DeletesWithoutCascade,
    /// Lists the main transcript among the subkeys, as `""`.
    ListsMainAsSubkey,
    /// Gives the summaries' times in seconds.
    SummariesInSeconds,
}

struct Broken {
    inner: MemoryStore,
    flaw: Flaw,
}

impl SessionStore for Broken {
    fn append<'a>(&'a self, key: &'a SessionKey, entries: &'a [Entry]) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            match self.flaw {
                Flaw::ReversesBatches => {
                    let reversed: Vec<Entry> = entries.iter().rev().cloned().collect();
                    self.inner.append(key, &reversed).await
                }
                Flaw::DropsLaterBatches if self.inner.load(key).await?.is_some() => Ok(()),
                _ => self.inner.append(key, entries).await,
            }
        })
    }

    fn load<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<Entry>>> {
        self.inner.load(key)
    }

    fn list_sessions<'a>(&'a self, project_key: &'a str) -> StoreFuture<'a, Vec<StoredSession>> {
        Box::pin(async move {
            let mut sessions = self.inner.list_sessions(project_key).await?;
            if let Flaw::ListsSubpaths = self.flaw {
                let mains = sessions.clone();
                for session in mains {
                    let key = SessionKey::main(project_key, &session.session_id);
                    for _ in self.inner.list_subkeys(&key).await? {
                        sessions.push(session.clone());
                    }
                }
            }
            Ok(sessions)
        })
    }

    fn list_session_summaries<'a>(
        &'a self,
        project_key: &'a str,
    ) -> StoreFuture<'a, Vec<SessionSummary>> {
        Box::pin(async move {
            let mut summaries = self.inner.list_session_summaries(project_key).await?;
            if let Flaw::SummariesInSeconds = self.flaw {
                for summary in &mut summaries {
                    summary.mtime /= 1000;
                }
            }
            Ok(summaries)
        })
    }

    fn delete<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            if let Flaw::DeletesWithoutCascade = self.flaw {
                // Deletes the main transcript alone, by deleting everything
                // and putting the subagents back.
                let mut kept = Vec::new();
                if key.subpath.is_none() {
                    for subpath in self.inner.list_subkeys(key).await? {
                        let sub = key.with_subpath(subpath);
                        if let Some(entries) = self.inner.load(&sub).await? {
                            kept.push((sub, entries));
                        }
                    }
                }
                self.inner.delete(key).await?;
                for (sub, entries) in kept {
                    self.inner.append(&sub, &entries).await?;
                }
                return Ok(());
            }
            self.inner.delete(key).await
        })
    }

    fn list_subkeys<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Vec<String>> {
        Box::pin(async move {
            let mut subkeys = self.inner.list_subkeys(key).await?;
            if let Flaw::ListsMainAsSubkey = self.flaw {
                if self.inner.load(&key.session()).await?.is_some() {
                    subkeys.push(String::new());
                }
            }
            Ok(subkeys)
        })
    }
}

fn failure_of(flaw: Flaw) -> ConformanceFailure {
    block_on(conformance::run_with(|| Broken {
        inner: MemoryStore::new(),
        flaw,
    }))
    .expect_err("a broken store fails")
}

#[test]
fn broken_stores_fail_the_contract_they_break() {
    for (flaw, number) in [
        (Flaw::ReversesBatches, 1),
        (Flaw::DropsLaterBatches, 3),
        (Flaw::ListsSubpaths, 8),
        (Flaw::DeletesWithoutCascade, 10),
        (Flaw::SummariesInSeconds, 14),
        (Flaw::ListsMainAsSubkey, 11),
    ] {
        let failure = failure_of(flaw);
        assert_eq!(failure.number, number, "{failure}");
        assert_eq!(failure.title, CONTRACTS[number - 1]);
        assert!(
            failure.to_string().contains(&format!("contract {number} ")),
            "{failure}"
        );
    }
}

#[test]
fn the_shared_run_catches_a_broken_store_too() {
    let store = Broken {
        inner: MemoryStore::new(),
        flaw: Flaw::ReversesBatches,
    };
    let failure = block_on(conformance::run(&store)).expect_err("a broken store fails");
    assert_eq!(failure.number, 1, "{failure}");
}

/// A directory of its own under the system's temporary directory, removed
/// when dropped.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        use std::hash::BuildHasher;
        let random = std::collections::hash_map::RandomState::new().hash_one(name);
        Self(std::env::temp_dir().join(format!(
            "claude-proto-sessions-conformance-{name}-{random:016x}"
        )))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn directory_store_passes_with_a_fresh_directory_per_contract() {
    let scratch = Scratch::new("fresh");
    let mut count = 0;
    let report = block_on(conformance::run_with(|| {
        count += 1;
        DirectoryStore::new(scratch.0.join(count.to_string()))
    }))
    .unwrap_or_else(|failure| panic!("{failure}"));
    assert_eq!(report.ran.len(), 14, "{report:?}");
}

#[test]
fn directory_store_passes_in_one_shared_directory() {
    let scratch = Scratch::new("shared");
    let store = DirectoryStore::new(&scratch.0);
    block_on(conformance::run(&store)).unwrap_or_else(|failure| panic!("{failure}"));
    block_on(conformance::run(&store)).unwrap_or_else(|failure| panic!("{failure}"));
}
