//! One turn as its reader sees it: every decision of the adapters' turn
//! streams that is not a way of waiting, the deadline's included.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use claude_proto::Message;

use crate::error::Error;
use crate::event::{Delivery, Event, TurnId};
use crate::limits::deadline;
use crate::turn::{Step, Turn, TurnCollector, TurnCursor};
use crate::turn_item::TurnItem;

/// How long a turn read with a deadline waits, after interrupting a turn
/// that passed its deadline, for the CLI to end it (the default of
/// [`TurnReader::set_interrupt_grace`]). The real CLI ends an interrupted
/// turn at once; this bounds a CLI that does not.
pub const INTERRUPT_GRACE: Duration = Duration::from_secs(10);

/// Where a turn read with a deadline stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Deadline {
    /// Not passed yet.
    Ahead(Instant),
    /// Passed, and the turn interrupted: it is read on (nothing more
    /// kept) until its `result` or until `grace_until`.
    Interrupted { grace_until: Instant },
}

/// The state of one turn being read: what the adapters' `TurnStream`s
/// wrap with their way of waiting (a future, a blocking call).
///
/// Feed it the session's deliveries with [`accept`](Self::accept) until
/// [`has_ended`](Self::has_ended) (or [`end_with`](Self::end_with) if the
/// session ends first); hand out what `accept` returns, or the typed items
/// ([`queue_items`](Self::queue_items), [`pop_item`](Self::pop_item));
/// collect the turn with [`finish`](Self::finish).
///
/// A turn given a deadline ([`set_deadline`](Self::set_deadline)) also
/// needs the time: call [`handle_timeout`](Self::handle_timeout) before
/// each delivery and whenever [`poll_timeout`](Self::poll_timeout) passes,
/// and interrupt the turn when it says so. Once the deadline passed, the
/// turn's lines are still handed out as they come but no longer kept (the
/// memory a CLI that goes on writing can take is one line); the turn ends
/// at its `result` or, if the CLI does not end it, when the interrupt's
/// grace passes.
#[derive(Debug)]
pub struct TurnReader {
    collector: TurnCollector,
    /// Items of the last event not handed out yet.
    items: VecDeque<TurnItem>,
    /// The message the last event accepted was, if it was one.
    message: Option<Message>,
    /// The turn's end: `Ok` once its `result` was read, `Err` if the
    /// session ended first (or the grace after the interrupt passed).
    end: Option<Result<Box<Turn>, Error>>,
    deadline: Option<Deadline>,
    grace: Duration,
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
            deadline: None,
            grace: INTERRUPT_GRACE,
        }
    }

    /// Which turn of the session this is.
    pub fn id(&self) -> TurnId {
        self.collector.turn()
    }

    /// `true` once the turn's `result` was read, or the session ended
    /// first, or the grace after a deadline's interrupt passed: nothing
    /// more to read.
    pub fn has_ended(&self) -> bool {
        self.end.is_some()
    }

    /// Gives the turn a deadline: when [`handle_timeout`](Self::handle_timeout)
    /// sees it pass before the turn's `result`, the turn is to be
    /// interrupted, and [`finish`](Self::finish) fails with
    /// [`Error::DeadlinePassed`]. Moves a deadline that has not passed
    /// yet; does nothing once one has.
    pub fn set_deadline(&mut self, at: Instant) {
        if !matches!(self.deadline, Some(Deadline::Interrupted { .. })) {
            self.deadline = Some(Deadline::Ahead(at));
        }
    }

    /// How long to read on after the interrupt for the CLI to end the turn
    /// (default [`INTERRUPT_GRACE`]). Takes effect when the deadline
    /// passes.
    pub fn set_interrupt_grace(&mut self, grace: Duration) {
        self.grace = grace;
    }

    /// `true` once the turn's deadline passed before its end.
    pub fn deadline_passed(&self) -> bool {
        matches!(self.deadline, Some(Deadline::Interrupted { .. }))
    }

    /// When to call [`handle_timeout`](Self::handle_timeout) next: the
    /// deadline, then the end of the interrupt's grace. `None` without a
    /// deadline, or once the turn has ended.
    pub fn poll_timeout(&self) -> Option<Instant> {
        if self.has_ended() {
            return None;
        }
        match self.deadline? {
            Deadline::Ahead(at) => Some(at),
            Deadline::Interrupted { grace_until } => Some(grace_until),
        }
    }

    /// The time is `now`. Returns `true` exactly once, when the deadline
    /// has passed before the turn's end: the caller interrupts the turn
    /// then. From then on nothing more of the turn is kept; once the grace
    /// passes too, the turn has ended ([`has_ended`](Self::has_ended)).
    #[must_use = "`true` means the turn must be interrupted now"]
    pub fn handle_timeout(&mut self, now: Instant) -> bool {
        if self.has_ended() {
            return false;
        }
        match self.deadline {
            Some(Deadline::Ahead(at)) if now >= at => {
                self.deadline = Some(Deadline::Interrupted {
                    grace_until: deadline(now, self.grace),
                });
                self.collector.stop_keeping();
                true
            }
            Some(Deadline::Interrupted { grace_until }) if now >= grace_until => {
                self.end = Some(Err(Error::DeadlinePassed { turn: None }));
                false
            }
            _ => false,
        }
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
    /// last returned, reusing the decoding the turn already did (after the
    /// deadline, when lines are no longer kept, decoding it here).
    pub fn queue_items(&mut self, event: Event) {
        let ended = match &self.end {
            Some(Ok(turn)) => Some(&**turn),
            _ => None,
        };
        let decoded;
        let message = if self.collector.is_keeping() {
            self.collector.last_message()
        } else {
            decoded = event.as_message().and_then(|m| m.parse().ok());
            decoded.as_ref()
        };
        TurnItem::extend(&mut self.items, event, message, ended);
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

    /// The outcome of the turn, once read to its end: the turn; the
    /// session's end if it came first; for a turn whose deadline passed,
    /// [`Error::DeadlinePassed`], holding the turn if the CLI ended it
    /// within the grace (its `result` is the CLI's answer to the
    /// interrupt). `ended` gives the error for a reader that saw none of
    /// these.
    pub fn finish(&mut self, ended: impl FnOnce() -> Error) -> Result<Turn, Error> {
        let passed = self.deadline_passed();
        match self.end.take() {
            Some(Ok(turn)) if passed => Err(Error::DeadlinePassed { turn: Some(turn) }),
            Some(Ok(turn)) => Ok(*turn),
            Some(Err(error)) => Err(error),
            None if passed => Err(Error::DeadlinePassed { turn: None }),
            None => Err(ended()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The messages of `lines`, as a session reads them.
    fn messages(lines: &[String]) -> Vec<Message> {
        let mut session = claude_proto::Session::new(claude_proto::Config::default());
        for line in lines {
            session.handle_input(format!("{line}\n").as_bytes());
        }
        std::iter::from_fn(|| session.poll_event())
            .filter_map(|event| match event {
                claude_proto::Event::Message(message) => Some(message),
                _ => None,
            })
            .collect()
    }

    fn delta(text: &str) -> String {
        serde_json::json!({"type": "stream_event", "uuid": "u", "session_id": "s",
            "parent_tool_use_id": null,
            "event": {"type": "content_block_delta", "index": 0,
                      "delta": {"type": "text_delta", "text": text}}})
        .to_string()
    }

    fn result() -> String {
        serde_json::json!({"type": "result", "subtype": "error_during_execution",
            "is_error": true, "duration_ms": 1, "duration_api_ms": 1, "num_turns": 1,
            "session_id": "s", "total_cost_usd": 0.5, "usage": {}})
        .to_string()
    }

    fn accept_all(reader: &mut TurnReader, messages: Vec<Message>) {
        for message in messages {
            let delivery = Delivery {
                turn: 0,
                event: Event::Message(message),
            };
            if let Some(event) = reader.accept(delivery) {
                reader.queue_items(event);
            }
        }
    }

    #[test]
    fn a_turn_the_cli_never_ended_is_given_up_without_a_turn() {
        let start = Instant::now();
        let mut reader = TurnReader::new(0, &TurnCursor::default());
        reader.set_deadline(start);
        assert!(reader.handle_timeout(start), "interrupt at the deadline");
        assert!(!reader.handle_timeout(start), "and only once");
        assert_eq!(reader.poll_timeout(), Some(start + INTERRUPT_GRACE));
        assert!(!reader.has_ended(), "read on during the grace");
        assert!(!reader.handle_timeout(start + INTERRUPT_GRACE));
        assert!(reader.has_ended(), "the grace passed");
        assert_eq!(reader.poll_timeout(), None);
        let error = reader
            .finish(|| unreachable!("the turn ended"))
            .unwrap_err();
        assert!(matches!(error, Error::DeadlinePassed { turn: None }));
        assert_eq!(
            error.to_string(),
            "the turn did not end by its deadline and was interrupted, \
             but the CLI did not end it within the grace after the interrupt"
        );
    }

    #[test]
    fn a_session_that_ended_first_is_the_outcome_not_the_deadline() {
        let start = Instant::now();
        let mut reader = TurnReader::new(0, &TurnCursor::default());
        reader.set_deadline(start);
        assert!(reader.handle_timeout(start));
        let ended = Error::Rejected {
            subtype: "interrupt".into(),
            message: "the session is over".into(),
        };
        reader.end_with(ended);
        assert!(reader.has_ended());
        assert!(matches!(
            reader.finish(|| unreachable!("the turn ended")),
            Err(Error::Rejected { .. })
        ));
    }

    #[test]
    fn a_turn_that_ends_before_its_deadline_is_the_turn() {
        let start = Instant::now();
        let mut reader = TurnReader::new(0, &TurnCursor::default());
        reader.set_deadline(start + Duration::from_secs(1));
        assert!(!reader.handle_timeout(start));
        accept_all(&mut reader, messages(&[delta("a"), result()]));
        assert!(reader.has_ended());
        assert!(!reader.handle_timeout(start + Duration::from_secs(2)));
        let turn = reader.finish(|| unreachable!("the turn ended")).unwrap();
        assert_eq!(turn.messages.len(), 2);
        assert_eq!(turn.skipped_after_deadline, 0);
    }

    /// Finding: a CLI that went on writing after the interrupt had every
    /// line kept until the grace passed (gigabytes in seconds).
    #[test]
    fn lines_after_the_deadline_are_handed_out_but_not_kept() {
        let start = Instant::now();
        let mut reader = TurnReader::new(0, &TurnCursor::default());
        reader.set_deadline(start);
        accept_all(&mut reader, messages(&[delta("before")]));
        assert!(reader.handle_timeout(start));
        let flood: Vec<String> = (0..1_000).map(|i| delta(&i.to_string())).collect();
        accept_all(&mut reader, messages(&flood));
        // A streaming reader still gets them, typed.
        let items: Vec<TurnItem> = std::iter::from_fn(|| reader.pop_item()).collect();
        assert_eq!(items.len(), 1_001);
        assert!(matches!(&items[1_000], TurnItem::TextDelta(text) if text == "999"));
        accept_all(&mut reader, messages(&[result()]));
        assert!(matches!(reader.pop_item(), Some(TurnItem::Result(_))));
        let Err(Error::DeadlinePassed { turn: Some(turn) }) =
            reader.finish(|| unreachable!("the turn ended"))
        else {
            panic!("the deadline passed and the CLI ended the turn");
        };
        assert_eq!(turn.messages.len(), 2, "the line before and the result");
        assert_eq!(turn.skipped_after_deadline, 1_000);
        assert!(turn.is_error());
    }

    #[test]
    fn a_deadline_moves_until_it_passes() {
        let start = Instant::now();
        let mut reader = TurnReader::new(0, &TurnCursor::default());
        reader.set_interrupt_grace(Duration::from_secs(1));
        reader.set_deadline(start);
        reader.set_deadline(start + Duration::from_secs(5));
        assert!(!reader.handle_timeout(start), "moved later");
        assert!(reader.handle_timeout(start + Duration::from_secs(5)));
        reader.set_deadline(start + Duration::from_secs(60));
        assert_eq!(
            reader.poll_timeout(),
            Some(start + Duration::from_secs(6)),
            "a passed deadline stays passed; the grace as set"
        );
    }
}
