//! One turn's events, as an iterator.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use claude_proto::Message;
use claude_proto_host::{Error, Event, Step, Turn, TurnCollector, TurnId, TurnItem};

use crate::controller::Controller;
use crate::events::{Elapsed, Events};
use crate::shared::Shared;

/// How long [`TurnStream::finish_by`] waits, after interrupting a turn,
/// for the CLI to end it. The real CLI ends an interrupted turn at once.
pub const INTERRUPT_GRACE: Duration = Duration::from_secs(10);

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
    collector: TurnCollector,
    /// Items of the last event not handed out yet.
    items: VecDeque<TurnItem>,
    /// The message the last event read was, if it was one.
    message: Option<Message>,
    /// The turn's end: `Ok` once its `result` was read, `Err` if the
    /// session ended first.
    end: Option<Result<Box<Turn>, Error>>,
}

impl<'a> TurnStream<'a> {
    pub(crate) fn new(
        events: &'a mut Events,
        shared: &'a Shared,
        controller: &'a Controller,
        turn: TurnId,
    ) -> Self {
        let total_cost_usd = events.cursor().total_cost_usd();
        Self {
            events,
            shared,
            controller,
            collector: TurnCollector::new(turn, total_cost_usd),
            items: VecDeque::new(),
            message: None,
            end: None,
        }
    }

    /// The turn's next item, typed (see [`TurnItem`]), waiting for the
    /// CLI; `None` after its [`TurnItem::Result`] (the last item), or if
    /// the session ended first ([`finish`](Self::finish) then says how).
    pub fn next_item(&mut self) -> Option<TurnItem> {
        loop {
            if let Some(item) = self.items.pop_front() {
                return Some(item);
            }
            let event = self.next()?;
            let ended = match &self.end {
                Some(Ok(turn)) => Some(&**turn),
                _ => None,
            };
            TurnItem::extend(&mut self.items, event, &self.collector, ended);
        }
    }

    /// The raw message the last event (or item) came from: the line as the
    /// CLI wrote it, for what the typed items leave out. `None` before the
    /// first event, or when the last one was not a message.
    pub fn message(&self) -> Option<&Message> {
        self.message.as_ref()
    }

    /// [`finish`](Self::finish), giving up at `deadline`: if the turn has
    /// not ended by then, it is interrupted and read to its end (the CLI
    /// answers an interrupt by ending the turn), and the call fails with
    /// [`Error::DeadlinePassed`] holding that turn. Either way the session
    /// is ready for the next prompt. If the CLI does not end the turn
    /// within [`INTERRUPT_GRACE`] of the interrupt, the error holds no
    /// turn; the next `query` still skips the rest of it.
    pub fn finish_by(mut self, deadline: Instant) -> Result<Turn, Error> {
        if self.read_until(deadline) {
            return self.ending();
        }
        // An interrupt that fails means the session has ended or the turn
        // already has: reading on tells which.
        let _ = self.controller.interrupt();
        let grace = claude_proto_host::deadline(Instant::now(), INTERRUPT_GRACE);
        if !self.read_until(grace) {
            return Err(Error::DeadlinePassed { turn: None });
        }
        match self.ending() {
            Ok(turn) => Err(Error::DeadlinePassed {
                turn: Some(Box::new(turn)),
            }),
            Err(error) => Err(error),
        }
    }

    /// [`finish_by`](Self::finish_by) `timeout` from now.
    pub fn finish_within(self, timeout: Duration) -> Result<Turn, Error> {
        self.finish_by(claude_proto_host::deadline(Instant::now(), timeout))
    }

    /// Reads events until the turn ends (`true`) or `deadline` passes
    /// (`false`).
    fn read_until(&mut self, deadline: Instant) -> bool {
        while self.end.is_none() {
            if self.read_one(Some(deadline)).is_err() {
                return false;
            }
        }
        true
    }

    /// The turn, once read to its end.
    fn ending(&mut self) -> Result<Turn, Error> {
        match self.end.take() {
            Some(Ok(turn)) => Ok(*turn),
            Some(Err(error)) => Err(error),
            None => Err(self.shared.ended_error()),
        }
    }

    /// Reads the turn's next event, waiting until `deadline` at most
    /// (`Err` if it passed first); `Ok(None)` once the turn has ended.
    fn read_one(&mut self, deadline: Option<Instant>) -> Result<Option<Event>, Elapsed> {
        if self.end.is_some() {
            return Ok(None);
        }
        loop {
            let Some(delivery) = self.events.next_delivery(deadline)? else {
                self.end = Some(Err(self.shared.ended_error()));
                return Ok(None);
            };
            let event = delivery.event.clone();
            match self.collector.push(delivery) {
                // An earlier turn's leftover.
                Step::Skipped => continue,
                Step::Done(turn) => self.end = Some(Ok(turn)),
                _ => {}
            }
            self.message = event.as_message().cloned();
            return Ok(Some(event));
        }
    }

    /// Which turn of the session this is.
    pub fn id(&self) -> TurnId {
        self.collector.turn()
    }

    /// Reads the rest of the turn and returns all of it, also the events
    /// already yielded. Waits for the turn's `result`; fails if the
    /// session ends first (the error carries the exit status and stderr).
    pub fn finish(mut self) -> Result<Turn, Error> {
        for _ in &mut self {}
        self.ending()
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
