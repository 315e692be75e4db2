//! One turn as its reader sees it: every decision of the adapters' turn
//! streams that is not a way of waiting.

use std::collections::VecDeque;
use std::time::Duration;

use claude_proto::Message;

use crate::error::Error;
use crate::event::{Delivery, Event, TurnId};
use crate::turn::{Step, Turn, TurnCollector, TurnCursor};
use crate::turn_item::TurnItem;

/// How long a turn stream's `finish_by` waits, after interrupting a turn
/// that passed its deadline, for the CLI to end it. The real CLI ends an
/// interrupted turn at once; this bounds a CLI that does not.
pub const INTERRUPT_GRACE: Duration = Duration::from_secs(10);

/// The state of one turn being read: what the adapters' `TurnStream`s
/// wrap with their way of waiting (a future, a blocking call).
///
/// Feed it the session's deliveries with [`accept`](Self::accept) until
/// [`has_ended`](Self::has_ended) (or [`end_with`](Self::end_with) if the
/// session ends first); hand out what `accept` returns, or the typed items
/// ([`queue_items`](Self::queue_items), [`pop_item`](Self::pop_item));
/// collect the turn with [`finish`](Self::finish), or with
/// [`give_up`](Self::give_up) after interrupting it at a deadline.
#[derive(Debug)]
pub struct TurnReader {
    collector: TurnCollector,
    /// Items of the last event not handed out yet.
    items: VecDeque<TurnItem>,
    /// The message the last event accepted was, if it was one.
    message: Option<Message>,
    /// The turn's end: `Ok` once its `result` was read, `Err` if the
    /// session ended first.
    end: Option<Result<Box<Turn>, Error>>,
}

impl TurnReader {
    /// A reader of turn `turn`, `cursor` the reading side's position (the
    /// running cost the turn's own cost is counted from).
    pub fn new(turn: TurnId, cursor: &TurnCursor) -> Self {
        Self {
            collector: TurnCollector::new(turn, cursor.total_cost_usd()),
            items: VecDeque::new(),
            message: None,
            end: None,
        }
    }

    /// Which turn of the session this is.
    pub fn id(&self) -> TurnId {
        self.collector.turn()
    }

    /// `true` once the turn's `result` was read, or the session ended
    /// first: nothing more to read.
    pub fn has_ended(&self) -> bool {
        self.end.is_some()
    }

    /// Takes the session's next delivery: the event to hand out, or `None`
    /// if it belongs to an earlier turn (skipped).
    pub fn accept(&mut self, delivery: Delivery) -> Option<Event> {
        let event = delivery.event.clone();
        match self.collector.push(delivery) {
            Step::Skipped => return None,
            Step::Done(turn) => self.end = Some(Ok(turn)),
            _ => {}
        }
        self.message = event.as_message().cloned();
        Some(event)
    }

    /// The session ended before the turn's `result`: `error` says how.
    pub fn end_with(&mut self, error: Error) {
        if self.end.is_none() {
            self.end = Some(Err(error));
        }
    }

    /// Queues the typed items of `event`, the one [`accept`](Self::accept)
    /// last returned, reusing the decoding the turn already did.
    pub fn queue_items(&mut self, event: Event) {
        let ended = match &self.end {
            Some(Ok(turn)) => Some(&**turn),
            _ => None,
        };
        TurnItem::extend(&mut self.items, event, &self.collector, ended);
    }

    /// The next queued item, if any.
    pub fn pop_item(&mut self) -> Option<TurnItem> {
        self.items.pop_front()
    }

    /// The raw message the last event accepted was: the line as the CLI
    /// wrote it. `None` before the first, or when it was not a message.
    pub fn message(&self) -> Option<&Message> {
        self.message.as_ref()
    }

    /// The turn, once read to its end; the session's end if it came first.
    /// `ended` gives the error for a reader that never saw either.
    pub fn finish(&mut self, ended: impl FnOnce() -> Error) -> Result<Turn, Error> {
        match self.end.take() {
            Some(Ok(turn)) => Ok(*turn),
            Some(Err(error)) => Err(error),
            None => Err(ended()),
        }
    }

    /// The outcome of a turn given up at its deadline and interrupted:
    /// [`Error::DeadlinePassed`] with the turn if it was then read to its
    /// end, without it if the CLI did not end it within
    /// [`INTERRUPT_GRACE`]; the session's end if it came first.
    pub fn give_up(&mut self) -> Error {
        match self.end.take() {
            Some(Ok(turn)) => Error::DeadlinePassed { turn: Some(turn) },
            Some(Err(error)) => error,
            None => Error::DeadlinePassed { turn: None },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_the_cli_never_ended_is_given_up_without_a_turn() {
        let mut reader = TurnReader::new(0, &TurnCursor::default());
        assert!(!reader.has_ended());
        let error = reader.give_up();
        assert!(matches!(error, Error::DeadlinePassed { turn: None }));
        assert_eq!(
            error.to_string(),
            "the turn did not end by its deadline and was interrupted, \
             but the CLI did not end it within the grace after the interrupt"
        );
    }

    #[test]
    fn a_session_that_ended_first_is_the_outcome_not_the_deadline() {
        let mut reader = TurnReader::new(0, &TurnCursor::default());
        let ended = Error::Rejected {
            subtype: "interrupt".into(),
            message: "the session is over".into(),
        };
        reader.end_with(ended);
        assert!(reader.has_ended());
        assert!(matches!(reader.give_up(), Error::Rejected { .. }));
    }
}
