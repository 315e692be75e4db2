//! One turn's events, as an iterator.

use std::time::{Duration, Instant};

use claude_proto::Message;
use claude_proto_host::{Error, Event, Turn, TurnId, TurnItem, TurnReader};

use crate::controller::Controller;
use crate::events::{Elapsed, Events};
use crate::shared::Shared;

/// The events of one turn as they arrive, ending with its `result`
/// message; then [`finish`](Self::finish) gives the whole [`Turn`].
///
/// Returned by [`Claude::query`](crate::Claude::query) (the turn of the
/// prompt it sent) and [`Claude::turn`](crate::Claude::turn). `next`
/// waits for the CLI's next event of the turn.
///
/// Read it as typed items ([`next_item`](Self::next_item)) or as the
/// session's raw events (it is an `Iterator<Item = Event>`), not both.
///
/// ```no_run
/// # use claude_proto_blocking::TurnItem;
/// # fn demo(claude: &mut claude_proto_blocking::Claude) -> Result<(), claude_proto_blocking::Error> {
/// let mut turn = claude.query("Tell me a story")?;
/// while let Some(item) = turn.next_item() {
///     match item {
///         TurnItem::TextDelta(text) => print!("{text}"),
///         TurnItem::ToolUse(tool) => println!("\n[{}]", tool.name),
///         TurnItem::ToolResult(result) => println!("[{}]", result.text()),
///         TurnItem::Result(result) => println!("\n${}", result.total_cost_usd()),
///         _ => {}
///     }
/// }
/// # Ok(()) }
/// ```
///
/// It yields exactly its own turn: events of earlier turns still unread
/// are skipped, and lines the typed model cannot read, or a `result` of an
/// unknown shape, cannot shift it. It borrows the session's events, so
/// while it lives nothing else reads them; control calls go through a
/// [`Controller`](crate::Controller) meanwhile (from another thread, to
/// interrupt while this one waits).
///
/// A deadline ([`with_deadline`](Self::with_deadline),
/// [`with_timeout`](Self::with_timeout)) applies to reading it item by
/// item as to [`finish`](Self::finish): printing deltas and giving up at a
/// deadline takes no thread of one's own.
///
/// Dropping it mid-turn is safe: the rest of its turn is skipped by the
/// next [`query`](crate::Claude::query) (or read by the next
/// [`receive_turn`](crate::Claude::receive_turn) or events).
#[derive(Debug)]
#[must_use = "a turn stream reads nothing unless iterated; `finish` collects it"]
pub struct TurnStream<'a> {
    events: &'a mut Events,
    shared: &'a Shared,
    controller: &'a Controller,
    reader: TurnReader,
}

impl<'a> TurnStream<'a> {
    pub(crate) fn new(
        events: &'a mut Events,
        shared: &'a Shared,
        controller: &'a Controller,
        turn: TurnId,
    ) -> Self {
        let reader = TurnReader::new(turn, events.cursor());
        Self {
            events,
            shared,
            controller,
            reader,
        }
    }

    /// The turn's next item, typed (see [`TurnItem`]), waiting for the
    /// CLI; `None` after its [`TurnItem::Result`] (the last item), or if
    /// the session ended first ([`finish`](Self::finish) then says how).
    pub fn next_item(&mut self) -> Option<TurnItem> {
        loop {
            if let Some(item) = self.reader.pop_item() {
                return Some(item);
            }
            let event = self.next()?;
            self.reader.queue_items(event);
        }
    }

    /// The raw message the last event (or item) came from: the line as the
    /// CLI wrote it, for what the typed items leave out. `None` before the
    /// first event, or when the last one was not a message.
    pub fn message(&self) -> Option<&Message> {
        self.reader.message()
    }

    /// Gives the turn a deadline: if it has not ended by then, it is
    /// interrupted (the CLI answers an interrupt by ending the turn) and
    /// read on to its end, and [`finish`](Self::finish) fails with
    /// [`Error::DeadlinePassed`] holding that turn: the session is ready
    /// for the next prompt. If the CLI does not end the turn within
    /// [`INTERRUPT_GRACE`](crate::INTERRUPT_GRACE) of the interrupt, the stream ends there (its
    /// last item is then not a result) and the error holds no turn; the
    /// next `query` still skips the rest of the turn once the CLI ends it.
    ///
    /// Applies to every way of reading the turn: [`next_item`](Self::next_item)
    /// and the iterator go on yielding what the CLI writes after the
    /// interrupt, as it comes. From the deadline on, nothing more of the
    /// turn is kept for `finish` (only its `result`; see
    /// [`Turn::skipped_after_deadline`]), so a CLI that goes on writing
    /// grows no memory. The deadline holds however fast the CLI writes:
    /// the clock is read before each event. A later call moves a deadline
    /// that has not passed yet.
    pub fn with_deadline(mut self, deadline: Instant) -> Self {
        self.reader.set_deadline(deadline);
        self
    }

    /// [`with_deadline`](Self::with_deadline) `timeout` from now.
    pub fn with_timeout(self, timeout: Duration) -> Self {
        self.with_deadline(claude_proto_host::deadline(Instant::now(), timeout))
    }

    /// `true` once the turn's deadline passed before its end: it was
    /// interrupted, and [`finish`](Self::finish) will say
    /// [`Error::DeadlinePassed`].
    pub fn deadline_passed(&self) -> bool {
        self.reader.deadline_passed()
    }

    /// [`finish`](Self::finish), giving up at `deadline`
    /// ([`with_deadline`](Self::with_deadline)`(deadline).finish()`): the
    /// call returns by `deadline` plus [`INTERRUPT_GRACE`](crate::INTERRUPT_GRACE), with the turn,
    /// or [`Error::DeadlinePassed`] (holding the interrupted turn if the
    /// CLI ended it in the grace), or the session's end.
    pub fn finish_by(self, deadline: Instant) -> Result<Turn, Error> {
        self.with_deadline(deadline).finish()
    }

    /// [`finish_by`](Self::finish_by) `timeout` from now.
    pub fn finish_within(self, timeout: Duration) -> Result<Turn, Error> {
        self.with_timeout(timeout).finish()
    }

    /// Reads the turn's next event, waiting at most until the reader's
    /// next timeout (the deadline, then the interrupt's grace) when it has
    /// one; `None` once the turn has ended.
    fn read_one(&mut self) -> Option<Event> {
        loop {
            // Before each delivery: a CLI that writes without pause never
            // makes a read wait, so the wait's own timeout would never
            // pass.
            if self.reader.poll_timeout().is_some() && self.reader.handle_timeout(Instant::now()) {
                // A session already over has no turn to interrupt.
                let _ = self.controller.interrupt_without_waiting();
            }
            if self.reader.has_ended() {
                return None;
            }
            match self.events.next_delivery(self.reader.poll_timeout()) {
                Ok(Some(delivery)) => {
                    if let Some(event) = self.reader.accept(delivery) {
                        return Some(event);
                    }
                }
                Ok(None) => {
                    self.reader.end_with(self.shared.ended_error());
                    return None;
                }
                Err(Elapsed) => {}
            }
        }
    }

    /// Which turn of the session this is.
    pub fn id(&self) -> TurnId {
        self.reader.id()
    }

    /// Reads the rest of the turn and returns all of it, also the events
    /// already yielded. Waits for the turn's `result`; fails if the
    /// session ends first (the error carries the exit status and stderr),
    /// and with [`Error::DeadlinePassed`] if the turn had a deadline that
    /// passed (see [`with_deadline`](Self::with_deadline)).
    pub fn finish(mut self) -> Result<Turn, Error> {
        for _ in &mut self {}
        self.reader.finish(|| self.shared.ended_error())
    }
}

impl Iterator for TurnStream<'_> {
    type Item = Event;

    /// The turn's next event, waiting for the CLI; `None` after its
    /// `result` (the last event yielded), or if the session ended first.
    fn next(&mut self) -> Option<Event> {
        self.read_one()
    }
}
