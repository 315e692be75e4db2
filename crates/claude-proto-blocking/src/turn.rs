//! One turn's events, as an iterator.

use std::time::{Duration, Instant};

use claude_proto::Message;
use claude_proto_host::{Error, Event, INTERRUPT_GRACE, Turn, TurnId, TurnItem, TurnReader};

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

    /// [`finish`](Self::finish), giving up at `deadline`: if the turn has
    /// not ended by then, it is interrupted and read to its end (the CLI
    /// answers an interrupt by ending the turn), and the call fails with
    /// [`Error::DeadlinePassed`] holding that turn: the session is ready
    /// for the next prompt. If the CLI does not end the turn within
    /// [`INTERRUPT_GRACE`] of the interrupt, the error holds no turn and
    /// the call returns then; the next `query` still skips the rest of
    /// the turn once the CLI ends it.
    ///
    /// The deadline holds however fast the CLI writes: it is checked after
    /// every event, and the turn's events are read while the interrupt
    /// waits for its answer.
    pub fn finish_by(mut self, deadline: Instant) -> Result<Turn, Error> {
        if self.read_until(deadline) {
            return self.reader.finish(|| self.shared.ended_error());
        }
        // Not waiting for the interrupt's answer: its outcome shows in the
        // turn's end (or the session's), read meanwhile.
        let _ = self.controller.interrupt_without_waiting();
        self.read_until(claude_proto_host::deadline(Instant::now(), INTERRUPT_GRACE));
        Err(self.reader.give_up())
    }

    /// [`finish_by`](Self::finish_by) `timeout` from now.
    pub fn finish_within(self, timeout: Duration) -> Result<Turn, Error> {
        self.finish_by(claude_proto_host::deadline(Instant::now(), timeout))
    }

    /// Reads events until the turn ends (`true`) or `deadline` passes
    /// (`false`). A CLI that writes without pause never makes a read wait,
    /// so the clock is read after each event.
    fn read_until(&mut self, deadline: Instant) -> bool {
        while !self.reader.has_ended() {
            if self.read_one(Some(deadline)).is_err() || Instant::now() >= deadline {
                return self.reader.has_ended();
            }
        }
        true
    }

    /// Reads the turn's next event, waiting until `deadline` at most
    /// (`Err` if it passed first); `Ok(None)` once the turn has ended.
    fn read_one(&mut self, deadline: Option<Instant>) -> Result<Option<Event>, Elapsed> {
        while !self.reader.has_ended() {
            let Some(delivery) = self.events.next_delivery(deadline)? else {
                self.reader.end_with(self.shared.ended_error());
                break;
            };
            if let Some(event) = self.reader.accept(delivery) {
                return Ok(Some(event));
            }
        }
        Ok(None)
    }

    /// Which turn of the session this is.
    pub fn id(&self) -> TurnId {
        self.reader.id()
    }

    /// Reads the rest of the turn and returns all of it, also the events
    /// already yielded. Waits for the turn's `result`; fails if the
    /// session ends first (the error carries the exit status and stderr).
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
        // Without a deadline, reading only ends with an event or the end.
        self.read_one(None).ok().flatten()
    }
}
