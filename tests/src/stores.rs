//! The session stores the tests share, and stores that misbehave on
//! purpose.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Poll, Waker};

use claude_proto::transcript::{Entry, SessionKey};
use claude_proto_process::session_store::{
    MemoryStore, SessionStore, StoreError, StoreFuture, StoredSession,
};

/// The store a scenario that spans "machines" uses: in memory for now.
pub fn shared_store(_name: &str) -> Arc<dyn SessionStore> {
    Arc::new(MemoryStore::new())
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
