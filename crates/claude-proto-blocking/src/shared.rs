//! What the handle and the driver thread share besides the event handoff:
//! the `initialize` answer, how the session ended, and which byte budget
//! holds answers back. Each is a small value behind a mutex that the
//! driver writes and callers read; nobody holds a lock while waiting for
//! anything but the matching condvar.

use std::sync::{Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Instant;

use claude_proto_host::{EndReason, Error, InitAnswer, SessionEnded, Stall};

/// The outcome of `initialize`. The answer is kept as JSON and decoded for each caller (see
/// [`InitAnswer`]).
pub(crate) type InitResult = Result<InitAnswer, Error>;

/// Locks `mutex`, ignoring poisoning: every value here is written in one
/// step, so a panic elsewhere cannot leave it half-updated.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[derive(Debug, Default)]
pub(crate) struct Shared {
    init: Mutex<Option<InitResult>>,
    init_set: Condvar,
    ended: OnceLock<SessionEnded>,
    stall: Mutex<Option<Stall>>,
    session_id: Mutex<Option<String>>,
}

impl Shared {
    /// Records the `initialize` outcome: the first one, or a later answer
    /// (a claimed spare's own replaces the spare's); an error after an
    /// answer (the session's end) does not replace it.
    pub(crate) fn publish_init(&self, result: InitResult) {
        let mut init = lock(&self.init);
        if init.is_none() || result.is_ok() {
            *init = Some(result);
            self.init_set.notify_all();
        }
    }

    /// The `initialize` outcome, waiting for it until `deadline` (`None`:
    /// it did not come in time).
    pub(crate) fn wait_init(&self, deadline: Option<Instant>) -> Option<InitResult> {
        let mut init = lock(&self.init);
        loop {
            if let Some(result) = &*init {
                return Some(result.clone());
            }
            init = match deadline {
                None => self
                    .init_set
                    .wait(init)
                    .unwrap_or_else(PoisonError::into_inner),
                Some(at) => {
                    let left = at.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return None;
                    }
                    self.init_set
                        .wait_timeout(init, left)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0
                }
            };
        }
    }

    /// Records how the session ended; the first record wins.
    pub(crate) fn set_ended(&self, ended: SessionEnded) {
        let _ = self.ended.set(ended);
    }

    /// How the session ended, once it has.
    pub(crate) fn ended(&self) -> Option<SessionEnded> {
        self.ended.get().cloned()
    }

    /// The error for a call made after (or cut short by) the end.
    pub(crate) fn ended_error(&self) -> Error {
        Error::Ended(
            self.ended()
                .unwrap_or_else(|| SessionEnded::new(EndReason::Closed, None)),
        )
    }

    pub(crate) fn set_stall(&self, stall: Option<Stall>) {
        *lock(&self.stall) = stall;
    }

    /// The budget keeping the CLI's output unread right now, if one is.
    pub(crate) fn stall(&self) -> Option<Stall> {
        *lock(&self.stall)
    }

    /// Notes the session id an event handed to the user names, if any.
    pub(crate) fn note_session_id(&self, event: &claude_proto_host::Event) {
        if let Some(id) = event.session_id() {
            *lock(&self.session_id) = Some(id);
        }
    }

    /// The latest session id handed over.
    pub(crate) fn session_id(&self) -> Option<String> {
        lock(&self.session_id).clone()
    }
}
