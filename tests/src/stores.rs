//! The session stores the tests share, and stores that misbehave on
//! purpose.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Poll, Waker};

use claude_proto::transcript::{Entry, SessionKey};
use claude_proto_sessions::{
    MemoryStore, PostgresOptions, PostgresStore, SessionStore, StoreError, StoreFuture,
    StoredSession, block_on,
};

/// The variable naming the PostgreSQL server for the tests (`.ci/postgres.sh`
/// starts one and prints its URL).
pub const POSTGRES_URL_VAR: &str = "CLAUDE_PROTO_TEST_POSTGRES";

/// The table prefix the tests crate's scenarios share; each scenario's
/// sessions have fresh ids and are deleted at its end.
pub const POSTGRES_TABLE_PREFIX: &str = "claude_proto_tests";

/// The PostgreSQL URL, or `None` after saying the scenario falls back to a
/// store in memory. Under CI a missing URL is a failure.
pub fn postgres_url(scenario: &str) -> Option<String> {
    match std::env::var(POSTGRES_URL_VAR) {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            crate::python::skip(&format!(
                "{POSTGRES_URL_VAR} is not set: {scenario} shares a store in memory, not PostgreSQL \
                 (export {POSTGRES_URL_VAR}=\"$(bash .ci/postgres.sh | tail -n 1)\")"
            ));
            None
        }
    }
}

/// The stores of two machines that share one: two connections to the
/// same PostgreSQL database when [`postgres_url`] gives one, else the same
/// store in memory twice.
pub fn two_hosts(scenario: &str) -> (Arc<dyn SessionStore>, Arc<dyn SessionStore>) {
    let Some(url) = postgres_url(scenario) else {
        let store: Arc<dyn SessionStore> = Arc::new(MemoryStore::new());
        return (store.clone(), store);
    };
    let connect = || -> Arc<dyn SessionStore> {
        let options = PostgresOptions::default().table_prefix(POSTGRES_TABLE_PREFIX);
        match block_on(PostgresStore::connect_with(&url, options)) {
            Ok(store) => Arc::new(store),
            Err(e) => panic!("PostgreSQL at {POSTGRES_URL_VAR} does not answer: {e}"),
        }
    };
    (connect(), connect())
}

/// A store in memory whose appends fail every other call (the first
/// included), and can be held shut: an append then waits (without
/// blocking its executor) until [`open`](Self::open).
#[derive(Debug, Default)]
pub struct FlakyStore {
    inner: MemoryStore,
    calls: AtomicUsize,
    /// Fail odd-numbered appends (1st, 3rd, ...).
    pub flaky: bool,
    gate: Mutex<Gate>,
}

#[derive(Debug, Default)]
struct Gate {
    shut: bool,
    waiting: Vec<Waker>,
}

impl FlakyStore {
    /// Fails every other append.
    pub fn flaky() -> Self {
        Self {
            flaky: true,
            ..Self::default()
        }
    }

    /// Holds every append until [`open`](Self::open).
    pub fn shut() -> Self {
        let store = Self::default();
        store.lock().shut = true;
        store
    }

    /// Lets held appends through.
    pub fn open(&self) {
        let waiting = {
            let mut gate = self.lock();
            gate.shut = false;
            std::mem::take(&mut gate.waiting)
        };
        waiting.into_iter().for_each(Waker::wake);
    }

    /// How many appends were attempted.
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Gate> {
        self.gate.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl SessionStore for FlakyStore {
    fn append<'a>(&'a self, key: &'a SessionKey, entries: &'a [Entry]) -> StoreFuture<'a, ()> {
        let call = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
        Box::pin(async move {
            std::future::poll_fn(|cx| {
                let mut gate = self.lock();
                if gate.shut {
                    gate.waiting.push(cx.waker().clone());
                    Poll::Pending
                } else {
                    Poll::Ready(())
                }
            })
            .await;
            if self.flaky && call % 2 == 1 {
                return Err(StoreError::backend(format!("injected failure {call}")));
            }
            self.inner.append(key, entries).await
        })
    }

    fn load<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<Entry>>> {
        self.inner.load(key)
    }

    fn list_sessions<'a>(&'a self, project_key: &'a str) -> StoreFuture<'a, Vec<StoredSession>> {
        self.inner.list_sessions(project_key)
    }
}
