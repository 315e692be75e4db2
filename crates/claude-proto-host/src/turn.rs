//! Turns: matching each prompt to its own `result`, on the reading side.
//!
//! The host stamps every event with the turn it was read in
//! ([`Delivery::turn`]): the number of `result` lines read before it. A
//! prompt sent as the `n`-th user message starts turn `n`, so the reader
//! collects turn `n` by skipping events of earlier turns and stopping at the
//! first `result`. Nothing here depends on the typed model reading a line:
//! a line that fails to decode, a dropped reader, or a `result` of a shape
//! this version does not know cannot shift later turns.

use claude_proto::model::result::{ResultMessage, failure_text};
use claude_proto::model::stdout::StdoutMessage;
use claude_proto::{Message, ProtocolError};

use crate::event::{Delivery, Event, TurnId};

/// One turn, from its prompt to its `result`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Turn {
    /// Which turn of the session this is.
    pub id: TurnId,
    /// Every message of the turn in order, the `result` last. Lines the
    /// typed model cannot read are [`StdoutMessage::Unknown`] with their
    /// JSON; lines that are not even JSON values are in
    /// [`unreadable`](Self::unreadable).
    pub messages: Vec<StdoutMessage>,
    /// The turn's result, if its line fits [`ResultMessage`] (a CLI of
    /// another version may send a shape it does not); the raw line is
    /// always in [`result_line`](Self::result_line).
    pub result: Option<ResultMessage>,
    /// The `result` line as the CLI wrote it.
    pub result_line: Message,
    /// Messages of the turn that could not be read as JSON values (a
    /// number out of range, say), kept raw.
    pub unreadable: Vec<Message>,
    /// Lines of the turn that were not messages at all.
    pub protocol_errors: Vec<ProtocolError>,
}

impl Turn {
    /// The result text (`None` for error results without one, or a result
    /// of an unknown shape).
    pub fn text(&self) -> Option<&str> {
        self.result.as_ref()?.result.as_deref()
    }

    /// The session's running cost in USD at the end of this turn (`None`
    /// if the result could not be read). The CLI reports a running total,
    /// not the turn's own cost: subtract the previous turn's figure for that.
    pub fn session_cost_usd(&self) -> Option<f64> {
        Some(self.result.as_ref()?.cost_usd())
    }

    /// `true` if the turn ended in an error (or its result is unreadable).
    pub fn is_error(&self) -> bool {
        self.result.as_ref().is_none_or(|r| !r.is_success())
    }

    /// The text of the turn's failure, worded as the Python SDK words the
    /// exception of a failed run (see `ResultMessage::error_message`); read
    /// from the raw result line when its shape is one the typed model
    /// cannot read. `None` when the turn succeeded, or its result line is
    /// not even a JSON object.
    pub fn error_message(&self) -> Option<String> {
        match &self.result {
            Some(result) => result.error_message(),
            None => failure_text(&serde_json::from_slice(self.result_line.as_bytes()).ok()?),
        }
    }
}

/// What to do with an event while collecting a turn.
#[derive(Debug)]
#[non_exhaustive]
pub enum Step {
    /// The event belongs to an earlier turn: it was skipped.
    Skipped,
    /// The event was added to the turn.
    Added,
    /// The turn's `result` arrived: here is the turn.
    Done(Box<Turn>),
}

/// Collects the events of one turn. Feed it every delivery in order.
#[derive(Debug)]
pub struct TurnCollector {
    turn: TurnId,
    messages: Vec<StdoutMessage>,
    unreadable: Vec<Message>,
    protocol_errors: Vec<ProtocolError>,
}

impl TurnCollector {
    /// A collector for turn `turn`.
    pub fn new(turn: TurnId) -> Self {
        Self {
            turn,
            messages: Vec::new(),
            unreadable: Vec::new(),
            protocol_errors: Vec::new(),
        }
    }

    /// The turn being collected.
    pub fn turn(&self) -> TurnId {
        self.turn
    }

    /// Takes the next delivery.
    pub fn push(&mut self, delivery: Delivery) -> Step {
        if delivery.turn < self.turn {
            return Step::Skipped;
        }
        match delivery.event {
            Event::Message(message) => {
                let parsed = message.parse();
                if message.is_result() {
                    let result = match &parsed {
                        Ok(StdoutMessage::Result(result)) => Some((**result).clone()),
                        _ => None,
                    };
                    self.keep(parsed, &message);
                    return Step::Done(Box::new(Turn {
                        id: self.turn,
                        messages: std::mem::take(&mut self.messages),
                        result,
                        result_line: message,
                        unreadable: std::mem::take(&mut self.unreadable),
                        protocol_errors: std::mem::take(&mut self.protocol_errors),
                    }));
                }
                self.keep(parsed, &message);
            }
            Event::ProtocolError(error) => self.protocol_errors.push(error),
            _ => {}
        }
        Step::Added
    }

    fn keep(
        &mut self,
        parsed: Result<StdoutMessage, claude_proto::DecodeError>,
        message: &Message,
    ) {
        match parsed {
            Ok(parsed) => self.messages.push(parsed),
            Err(_) => self.unreadable.push(message.clone()),
        }
    }
}

/// The reading side's turn position: which turn the next unqualified
/// "receive a turn" means. Feed it every delivery the user is handed.
#[derive(Debug, Default, Clone, Copy)]
pub struct TurnCursor {
    next: TurnId,
}

impl TurnCursor {
    /// Notes a delivery handed to the user.
    pub fn observe(&mut self, delivery: &Delivery) {
        let is_result = matches!(&delivery.event, Event::Message(m) if m.is_result());
        if is_result {
            self.next = self.next.max(delivery.turn + 1);
        } else {
            self.next = self.next.max(delivery.turn);
        }
    }

    /// The turn whose `result` the user has not seen yet.
    pub fn next_turn(&self) -> TurnId {
        self.next
    }
}
