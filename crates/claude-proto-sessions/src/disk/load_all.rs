//! Loading many transcripts from a store with a bounded number of loads
//! at once, without a runtime: a hand-written join over the store's boxed
//! futures, so it runs on whatever executor polls it.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::{Entry, SessionKey, SessionStore, StoreError, StoreFuture};

/// At most this many loads are in flight at once: the Python SDK's bound,
/// so a long listing does not exhaust a store's connections or hit its
/// rate limits.
pub(super) const MAX_CONCURRENT_LOADS: usize = 16;

/// What one load gave.
pub(super) type Loaded = Result<Option<Vec<Entry>>, StoreError>;

/// Loads every key, [`MAX_CONCURRENT_LOADS`] at a time, starting the next
/// as soon as one finishes; the results are in the keys' order.
pub(super) fn load_all<'a>(
    store: &'a dyn SessionStore,
    keys: &'a [SessionKey],
) -> impl Future<Output = Vec<Loaded>> + Send + 'a {
    LoadAll {
        store,
        keys,
        next: 0,
        running: Vec::new(),
        results: keys.iter().map(|_| None).collect(),
    }
}

struct LoadAll<'a> {
    store: &'a dyn SessionStore,
    keys: &'a [SessionKey],
    /// The next key to start loading.
    next: usize,
    /// The loads in flight, by the index of their key.
    running: Vec<(usize, StoreFuture<'a, Option<Vec<Entry>>>)>,
    results: Vec<Option<Loaded>>,
}

impl Future for LoadAll<'_> {
    type Output = Vec<Loaded>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // Every field is Unpin (the loads are boxed), so the join is too.
        let this = self.get_mut();
        loop {
            while this.running.len() < MAX_CONCURRENT_LOADS && this.next < this.keys.len() {
                let at = this.next;
                this.running.push((at, this.store.load(&this.keys[at])));
                this.next += 1;
            }
            let results = &mut this.results;
            let before = this.running.len();
            // Each load is polled with the join's context: whichever wakes,
            // the join is polled again and polls them all.
            this.running
                .retain_mut(|(at, load)| match load.as_mut().poll(cx) {
                    Poll::Ready(result) => {
                        results[*at] = Some(result);
                        false
                    }
                    Poll::Pending => true,
                });
            if this.running.is_empty() && this.next == this.keys.len() {
                let results = std::mem::take(&mut this.results);
                return Poll::Ready(results.into_iter().map(|r| r.unwrap_or(Ok(None))).collect());
            }
            // Freed slots start more loads at once; otherwise wait.
            if this.running.len() == before {
                return Poll::Pending;
            }
        }
    }
}
