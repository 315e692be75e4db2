//! One turn's events, as an iterator.

use claude_proto_host::{Error, Event, Step, Turn, TurnCollector, TurnId};

use crate::events::Events;
use crate::shared::Shared;

/// The events of one turn as they arrive, ending with its `result`
/// message; then [`finish`](Self::finish) gives the whole [`Turn`].
///
/// Returned by [`Claude::query`](crate::Claude::query) (the turn of the
/// prompt it sent) and [`Claude::turn`](crate::Claude::turn). `next`
/// waits for the CLI's next event of the turn.
///
/// ```no_run
/// # fn demo(claude: &mut claude_proto_blocking::Claude) -> Result<(), claude_proto_blocking::Error> {
/// let mut turn = claude.query("Tell me a story")?;
/// for event in &mut turn {
///     if let Some(text) = event.text_delta() {
///         print!("{text}");
///     }
/// }
/// let turn = turn.finish()?;
/// println!("\n{}", turn.text().unwrap_or_default());
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
    collector: TurnCollector,
    /// The turn's end: `Ok` once its `result` was read, `Err` if the
    /// session ended first.
    end: Option<Result<Box<Turn>, Error>>,
}

impl<'a> TurnStream<'a> {
    pub(crate) fn new(events: &'a mut Events, shared: &'a Shared, turn: TurnId) -> Self {
        Self {
            events,
            shared,
            collector: TurnCollector::new(turn),
            end: None,
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
        match self.end.take() {
            Some(Ok(turn)) => Ok(*turn),
            Some(Err(error)) => Err(error),
            None => Err(self.shared.ended_error()),
        }
    }
}

impl Iterator for TurnStream<'_> {
    type Item = Event;

    /// The turn's next event, waiting for the CLI; `None` after its
    /// `result` (the last event yielded), or if the session ended first.
    fn next(&mut self) -> Option<Event> {
        if self.end.is_some() {
            return None;
        }
        loop {
            let Ok(Some(delivery)) = self.events.next_delivery(None) else {
                self.end = Some(Err(self.shared.ended_error()));
                return None;
            };
            if delivery.turn < self.collector.turn() {
                // An earlier turn's leftover.
                continue;
            }
            let event = delivery.event.clone();
            match self.collector.push(delivery) {
                Step::Skipped => continue,
                Step::Done(turn) => self.end = Some(Ok(turn)),
                _ => {}
            }
            return Some(event);
        }
    }
}
