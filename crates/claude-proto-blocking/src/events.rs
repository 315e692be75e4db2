//! Handing events from the driver thread to the reading thread.
//!
//! The host holds the events nobody has read yet, counted against its
//! read-ahead budget. Outside it there are at most two batches of up to
//! [`BATCH_BYTES`] each (or of a single larger event), 256 KiB in all: the
//! one the reader is reading, which it took whole and reads without
//! locking, and the one the driver put in the [`Handoff`] for it meanwhile.
//! The driver fills the handoff only when it is empty.
//!
//! Why batches: the reader then locks and wakes the driver once per batch,
//! not once per event. Why the second batch: a reader that finishes its
//! batch finds the next one ready instead of waiting for the driver to
//! notice, so it keeps pace; a reader that lags lets the host's queue grow
//! up to its budget, and the cold memory that costs made the end-to-end
//! benchmark about 15% slower. Why no more: everything beyond stays under
//! the host's budget, where a stalled reader pauses reading stdout instead
//! of growing memory.
//!
//! When the session ends, the driver moves whatever the host still holds
//! into the handoff at once and exits: those bytes were already in memory,
//! and the reader gets them without a thread kept alive for it.

use std::collections::VecDeque;
use std::sync::mpsc::SyncSender;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use claude_proto_host::{Delivery, Event, TurnCursor};

use crate::channels::Input;
use crate::shared::lock;

/// The most event bytes (by [`Event::cost`]) in one batch.
pub(crate) const BATCH_BYTES: usize = 128 * 1024;

#[derive(Debug, Default)]
pub(crate) struct Handoff {
    outbox: Mutex<Outbox>,
    filled: Condvar,
}

#[derive(Debug, Default)]
struct Outbox {
    batch: VecDeque<Delivery>,
    /// The driver has more events and waits for the batch to be taken.
    want_room: bool,
    /// No batch will come any more.
    ended: bool,
    /// Nobody reads any more.
    closed: bool,
}

/// What [`Handoff::offer`] did.
pub(crate) enum Offer {
    /// A batch was handed over.
    Filled,
    /// The previous batch has not been taken; the reader will send
    /// [`Input::Room`] when it takes it.
    Busy,
    /// The reader is gone: drop the events.
    Closed,
}

impl Handoff {
    /// Driver side: hands over a batch taken from `next` if the previous
    /// one has been taken.
    pub(crate) fn offer(&self, mut next: impl FnMut() -> Option<Delivery>) -> Offer {
        let mut outbox = lock(&self.outbox);
        if outbox.closed {
            return Offer::Closed;
        }
        if !outbox.batch.is_empty() {
            outbox.want_room = true;
            return Offer::Busy;
        }
        let mut bytes = 0;
        while bytes < BATCH_BYTES {
            let Some(delivery) = next() else { break };
            bytes += delivery.event.cost();
            outbox.batch.push_back(delivery);
        }
        self.filled.notify_one();
        Offer::Filled
    }

    /// Driver side, at the end: hands over everything left and marks the
    /// end. Also run if the driver thread unwinds, so no reader waits
    /// forever.
    pub(crate) fn finish(&self, rest: impl Iterator<Item = Delivery>) {
        let mut outbox = lock(&self.outbox);
        if !outbox.closed {
            outbox.batch.extend(rest);
        }
        outbox.ended = true;
        self.filled.notify_all();
    }

    /// Reader side: stop reading; what waits is dropped.
    pub(crate) fn close(&self) {
        let mut outbox = lock(&self.outbox);
        outbox.closed = true;
        outbox.batch = VecDeque::new();
    }

    /// Reader side, done with its batch: takes the next one into `local`
    /// (empty), waiting for it until `deadline`.
    fn take(
        &self,
        local: &mut VecDeque<Delivery>,
        deadline: Option<Instant>,
    ) -> Result<Took, Elapsed> {
        let mut outbox = lock(&self.outbox);
        loop {
            if !outbox.batch.is_empty() {
                std::mem::swap(local, &mut outbox.batch);
                return Ok(Took::Batch {
                    room: std::mem::take(&mut outbox.want_room),
                });
            }
            if outbox.ended || outbox.closed {
                return Ok(Took::End);
            }
            outbox = match deadline {
                None => self.filled.wait(outbox).unwrap_or_else(|e| e.into_inner()),
                Some(at) => {
                    let left = at.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Err(Elapsed);
                    }
                    self.filled
                        .wait_timeout(outbox, left)
                        .unwrap_or_else(|e| e.into_inner())
                        .0
                }
            };
        }
    }
}

/// What [`Handoff::take`] found.
enum Took {
    /// A batch; `room` if the driver waits to be told it was taken.
    Batch {
        room: bool,
    },
    End,
}

/// The [`Event`]s of a session, as a blocking iterator that ends when the
/// session has ended and every event has been read.
///
/// `next` waits only for the CLI: the driver thread hands events over as
/// soon as it has read them.
#[derive(Debug)]
pub struct Events {
    handoff: Arc<Handoff>,
    /// The batch being read.
    local: VecDeque<Delivery>,
    input: SyncSender<Input>,
    cursor: TurnCursor,
}

/// [`Events::next_timeout`] found no event in time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Elapsed;

impl std::fmt::Display for Elapsed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("no event arrived in time")
    }
}

impl std::error::Error for Elapsed {}

impl Events {
    pub(crate) fn new(handoff: Arc<Handoff>, input: SyncSender<Input>) -> Self {
        Self {
            handoff,
            local: VecDeque::new(),
            input,
            cursor: TurnCursor::default(),
        }
    }

    /// The next event with its turn, noted by the turn cursor.
    pub(crate) fn next_delivery(
        &mut self,
        deadline: Option<Instant>,
    ) -> Result<Option<Delivery>, Elapsed> {
        loop {
            if let Some(delivery) = self.local.pop_front() {
                self.cursor.observe(&delivery);
                return Ok(Some(delivery));
            }
            match self.handoff.take(&mut self.local, deadline)? {
                // Sent outside the lock, which the driver may be waiting
                // for.
                Took::Batch { room: true } => {
                    let _ = self.input.send(Input::Room);
                }
                Took::Batch { room: false } => {}
                Took::End => return Ok(None),
            }
        }
    }

    /// Where the reading side stands in the session's turns.
    pub(crate) fn cursor(&self) -> &TurnCursor {
        &self.cursor
    }

    /// The next event, waiting at most `timeout`: `Ok(None)` once the
    /// session has ended and every event has been read, `Err(Elapsed)` if
    /// none came in time.
    pub fn next_timeout(&mut self, timeout: Duration) -> Result<Option<Event>, Elapsed> {
        let deadline = Instant::now().checked_add(timeout);
        Ok(self.next_delivery(deadline)?.map(|d| d.event))
    }
}

impl Iterator for Events {
    type Item = Event;

    /// The next event, waiting for the CLI to write one; `None` once the
    /// session has ended and every event has been read.
    fn next(&mut self) -> Option<Event> {
        self.next_delivery(None).ok().flatten().map(|d| d.event)
    }
}
