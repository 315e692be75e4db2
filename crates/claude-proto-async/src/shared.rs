//! The state the user's handle and the session's driver share: one mutex,
//! held only to move values across, and the wakers of whoever waits.
//!
//! Everything that crosses between them goes through here: commands and
//! handler completions towards the driver, events, the `initialize`
//! answer and the end towards the handle. Nothing in it grows without a
//! bound: commands are taken by the driver on every wake-up (the host
//! refuses what exceeds its budgets), completions are at most one per
//! running handler, and the event handoff holds at most one batch.

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::task::Waker;

use claude_proto_host::{
    CallReply, Command, Completion, Delivery, EndReason, Error, InitAnswer, MirrorId, SessionEnded,
};

use crate::oneshot;

/// Who gets a command's outcome.
pub(crate) type Waiter = oneshot::Sender<Result<CallReply, Error>>;

/// The most bytes of events in the handoff, ahead of the user, beyond the
/// host's read-ahead budget; the reader's batch holds at most a quarter as
/// much again. Each may exceed its bound by one event only when that event
/// alone is larger.
pub(crate) const HANDOFF_BYTES: usize = 256 * 1024;

#[derive(Default)]
pub(crate) struct Shared {
    state: Mutex<State>,
}

#[derive(Default)]
pub(crate) struct State {
    // ----- towards the driver
    pub(crate) commands: VecDeque<Command<Waiter>>,
    pub(crate) completions: Vec<Completion>,
    /// Session-store appends that finished (at most one runs at a time).
    pub(crate) mirror_done: Vec<(MirrorId, Result<(), String>)>,
    /// Nobody reads events any more.
    pub(crate) events_closed: bool,
    pub(crate) driver: Option<Waker>,

    // ----- towards the user
    pub(crate) events: VecDeque<Delivery>,
    pub(crate) event_bytes: usize,
    /// Most bytes the handoff may hold (see [`HANDOFF_BYTES`]).
    pub(crate) handoff_limit: usize,
    /// Most bytes the reader takes out of the handoff at once (or one
    /// event): a quarter of `handoff_limit`.
    pub(crate) batch_limit: usize,
    /// The driver stopped handing events over for lack of room: wake it
    /// once the user has made some.
    pub(crate) refill_wanted: bool,
    pub(crate) reader: Option<Waker>,
    /// The `initialize` outcome, the answer as JSON (decoded for each
    /// caller: see [`InitAnswer`]).
    pub(crate) init: Option<Result<InitAnswer, Error>>,
    pub(crate) init_waiters: Vec<Waker>,
    pub(crate) session_id: Option<String>,
    /// Buffer room kept the last time stdout went quiet.
    pub(crate) quiet_buffer_bytes: Option<usize>,

    // ----- the end
    pub(crate) ended: Option<SessionEnded>,
    /// The driver is done: every event it will ever hand over is in
    /// `events`, and no command will be taken any more.
    pub(crate) finished: bool,
    pub(crate) finish_waiters: Vec<Waker>,
}

impl Shared {
    pub(crate) fn new(handoff_limit: usize) -> Self {
        let handoff_limit = handoff_limit.clamp(1, HANDOFF_BYTES);
        Self {
            state: Mutex::new(State {
                handoff_limit,
                batch_limit: handoff_limit / 4,
                ..State::default()
            }),
        }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        // Nothing runs user code under this lock, and every update is
        // complete before it is released: poisoning carries no meaning.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Hands a command to the driver; gives it back if the driver is done.
    pub(crate) fn push_command(&self, command: Command<Waiter>) -> Result<(), Command<Waiter>> {
        let waker = {
            let mut state = self.lock();
            if state.finished {
                return Err(command);
            }
            state.commands.push_back(command);
            state.driver.take()
        };
        wake(waker);
        Ok(())
    }

    /// A handler finished.
    pub(crate) fn push_completion(&self, completion: Completion) {
        let waker = {
            let mut state = self.lock();
            if state.finished {
                return;
            }
            state.completions.push(completion);
            state.driver.take()
        };
        wake(waker);
    }

    /// A session-store append finished.
    pub(crate) fn push_mirror_done(&self, id: MirrorId, result: Result<(), String>) {
        let waker = {
            let mut state = self.lock();
            if state.finished {
                return;
            }
            state.mirror_done.push((id, result));
            state.driver.take()
        };
        wake(waker);
    }

    /// The user stopped reading: drop what waits and tell the driver.
    pub(crate) fn close_events(&self) {
        let (waker, dropped) = {
            let mut state = self.lock();
            state.events_closed = true;
            state.event_bytes = 0;
            (state.driver.take(), std::mem::take(&mut state.events))
        };
        drop(dropped);
        wake(waker);
    }

    /// stdout went quiet and the driver gave back what the traffic
    /// before needed, keeping `kept` bytes of buffers: give back the
    /// handoff's room too (see [`claude_proto_host::trim_deque`]) and
    /// record what stays.
    /// Room of at most `kept_spare` bytes is left alone.
    pub(crate) fn quiet(&self, kept: usize, kept_spare: usize) {
        let mut state = self.lock();
        if claude_proto_host::deque_spare(&state.events) > kept_spare {
            claude_proto_host::trim_deque(&mut state.events);
        }
        state.quiet_buffer_bytes = Some(kept + claude_proto_host::deque_spare(&state.events));
    }

    pub(crate) fn quiet_buffer_bytes(&self) -> Option<usize> {
        self.lock().quiet_buffer_bytes
    }

    /// The error for a call on a session that has ended (or whose driver
    /// is gone).
    pub(crate) fn ended_error(&self) -> Error {
        Error::Ended(self.lock().ended.clone().unwrap_or_else(closed))
    }

    pub(crate) fn session_id(&self) -> Option<String> {
        self.lock().session_id.clone()
    }
}

/// The end recorded when the driver went away without reaching one (its
/// runtime shut down).
pub(crate) fn closed() -> SessionEnded {
    SessionEnded::new(EndReason::Closed, None)
}

pub(crate) fn wake(waker: Option<Waker>) {
    if let Some(waker) = waker {
        waker.wake();
    }
}

/// Adds `waker` to `list` unless it is already there.
pub(crate) fn register(list: &mut Vec<Waker>, waker: &Waker) {
    if !list.iter().any(|w| w.will_wake(waker)) {
        list.push(waker.clone());
    }
}
