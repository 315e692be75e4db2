//! The user's side of the event handoff.

use std::collections::VecDeque;
use std::fmt;
use std::future::poll_fn;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use claude_proto_host::{Delivery, Event, TurnCursor, TurnId};

use crate::shared::{Shared, wake};

/// The stream of [`Event`]s of a session, in the order the CLI wrote them;
/// it ends once the session has ended and every event was read.
///
/// The session reads the CLI's output ahead of you up to its read-ahead
/// budget (`ClaudeBuilder::read_ahead_bytes`), so answers to control calls
/// and the CLI's own requests never wait for you to read; past the budget
/// it stops reading until you catch up.
///
/// Dropping it (or the [`Claude`](crate::Claude) that owns it) discards
/// what is unread and everything that follows.
pub struct Events {
    shared: Arc<Shared>,
    cursor: TurnCursor,
    /// Events taken from the handoff under one lock, not returned yet: at
    /// most [`BATCH`] of them and the handoff's batch room in bytes (or
    /// one event). They leave the handoff's count when taken, so the
    /// driver refills it meanwhile.
    batch: VecDeque<Delivery>,
}

/// Most events taken from the handoff under one lock: a lock per event
/// was the reader's largest cost and contended with the driver's.
const BATCH: usize = 32;

impl fmt::Debug for Events {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Events")
            .field("next_turn", &self.cursor.next_turn())
            .finish_non_exhaustive()
    }
}

impl Events {
    pub(crate) fn new(shared: Arc<Shared>) -> Self {
        Self {
            shared,
            cursor: TurnCursor::default(),
            batch: VecDeque::new(),
        }
    }

    /// The next event, or `None` once the session has ended and every
    /// event was read.
    ///
    /// Cancel-safe: an event is taken only when the future completes.
    pub async fn next(&mut self) -> Option<Event> {
        poll_fn(|cx| self.poll_delivery(cx))
            .await
            .map(|delivery| delivery.event)
    }

    /// The error for the session's end.
    pub(crate) fn ended_error(&self) -> claude_proto_host::Error {
        self.shared.ended_error()
    }

    /// Where the reading side stands in the session's turns.
    pub(crate) fn cursor(&self) -> &TurnCursor {
        &self.cursor
    }

    /// The turn whose `result` has not been read yet.
    pub(crate) fn next_turn(&self) -> TurnId {
        self.cursor.next_turn()
    }

    pub(crate) fn poll_delivery(&mut self, cx: &mut Context<'_>) -> Poll<Option<Delivery>> {
        loop {
            if let Some(delivery) = self.batch.pop_front() {
                self.cursor.observe(&delivery);
                return Poll::Ready(Some(delivery));
            }
            let waker = {
                let mut state = self.shared.lock();
                if state.events.is_empty() {
                    if state.finished {
                        return Poll::Ready(None);
                    }
                    state.reader = Some(cx.waker().clone());
                    let waker = state.refill_wanted.then(|| state.driver.take()).flatten();
                    state.refill_wanted = false;
                    drop(state);
                    wake(waker);
                    // Nothing held while waiting: an idle session keeps no
                    // batch room (one allocation per wake-up of a reader
                    // that keeps up).
                    self.batch = VecDeque::new();
                    return Poll::Pending;
                }
                let mut taken = 0;
                while let Some(next) = state.events.front() {
                    let cost = next.event.cost();
                    let full = self.batch.len() == BATCH || taken + cost > state.batch_limit;
                    if full && !self.batch.is_empty() {
                        break;
                    }
                    let Some(delivery) = state.events.pop_front() else {
                        break;
                    };
                    taken += cost;
                    self.batch.push_back(delivery);
                }
                state.event_bytes = state.event_bytes.saturating_sub(taken);
                // Refill at half empty: the driver tops up a batch at a
                // time instead of once per event.
                (state.refill_wanted && state.event_bytes <= state.handoff_limit / 2)
                    .then(|| {
                        state.refill_wanted = false;
                        state.driver.take()
                    })
                    .flatten()
            };
            wake(waker);
        }
    }
}

impl futures_core::Stream for Events {
    type Item = Event;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Event>> {
        self.get_mut()
            .poll_delivery(cx)
            .map(|delivery| delivery.map(|d| d.event))
    }
}

impl Drop for Events {
    fn drop(&mut self) {
        self.shared.close_events();
    }
}
