//! Turns: matching each prompt to its own `result`, on the reading side.
//!
//! The host stamps every event with the turn it was read in
//! ([`Delivery::turn`]): the number of `result` lines read before it. A
//! prompt sent as the `n`-th user message starts turn `n`, so the reader
//! collects turn `n` by skipping events of earlier turns and stopping at the
//! first `result`. Nothing here depends on the typed model reading a line:
//! a line that fails to decode, a dropped reader, or a `result` of a shape
//! this version does not know cannot shift later turns.

use claude_proto::model::result::{LenientResult, ResultMessage, failure_text};
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
    /// The turn's result. Always there: a `result` line of a shape this
    /// version cannot wholly read (a newer CLI's, say) is read field by
    /// field ([`ResultMessage::read_leniently`]), with defaults for the
    /// fields named in [`unread_result_fields`](Self::unread_result_fields);
    /// the raw line is in [`result_line`](Self::result_line).
    pub result: ResultMessage,
    /// The `result` line as the CLI wrote it.
    pub result_line: Message,
    /// The result's fields that could not be read and hold their defaults
    /// in [`result`](Self::result); empty when the line read whole (see
    /// [`LenientResult::unread_fields`]).
    pub unread_result_fields: Vec<String>,
    /// Messages of the turn that could not be read as JSON values (a
    /// number out of range, say), kept raw.
    pub unreadable: Vec<Message>,
    /// Lines of the turn that were not messages at all.
    pub protocol_errors: Vec<ProtocolError>,
    /// Lines of the turn read after its deadline passed (the adapters'
    /// `TurnStream::finish_by`, or a stream given a deadline) and not kept
    /// here: a streaming reader was handed them as they came, `finish_by`
    /// dropped them, so a CLI that goes on writing after the interrupt
    /// grows no memory. `0` for a turn that ended in time. The `result` is
    /// always kept.
    pub skipped_after_deadline: usize,
    /// The session's running cost when this turn started: the total of the
    /// last `result` read before it.
    total_cost_before: f64,
}

impl Turn {
    /// The result text (`None` for error results without one).
    pub fn text(&self) -> Option<&str> {
        self.result.result.as_deref()
    }

    /// What this turn cost, in USD: the session's running total at its end
    /// minus the total at the end of the turn before it (the CLI reports
    /// only running totals). Never negative.
    ///
    /// A CLI that resumes a session restores its running total, so the
    /// first turn after a resume counts what the session had cost before
    /// (no message tells the restored amount; a program on either official
    /// SDK that subtracts the totals itself gets the same). A `result`
    /// without a readable running total counts as `0.0`, so the turn after
    /// it counts the whole total.
    pub fn cost_usd(&self) -> f64 {
        (self.total_cost_usd() - self.total_cost_before).max(0.0)
    }

    /// The session's running cost in USD at the end of this turn: the
    /// result's `total_cost_usd`, the name the CLI and both official SDKs
    /// give it. For this turn's own cost, [`cost_usd`](Self::cost_usd).
    pub fn total_cost_usd(&self) -> f64 {
        self.result.total_cost_usd()
    }

    /// `true` if the turn ended in an error (anything but subtype `success`
    /// without `is_error`).
    pub fn is_error(&self) -> bool {
        !self.result.is_success()
    }

    /// The text of the turn's failure, worded as the Python SDK words the
    /// exception of a failed run (see `ResultMessage::error_message`); read
    /// from the raw result line when its shape is one the typed model
    /// cannot wholly read. `None` when the turn succeeded.
    pub fn error_message(&self) -> Option<String> {
        if self.unread_result_fields.is_empty()
            || self.unread_result_fields == [LenientResult::LINE]
        {
            return self.result.error_message();
        }
        match serde_json::from_slice(self.result_line.as_bytes()) {
            Ok(line) => failure_text(&line),
            Err(_) => self.result.error_message(),
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
///
/// It keeps every line of the turn, decoded, until
/// [`stop_keeping`](Self::stop_keeping); from then on it keeps only the
/// `result` and counts the rest.
#[derive(Debug)]
pub struct TurnCollector {
    turn: TurnId,
    messages: Vec<StdoutMessage>,
    unreadable: Vec<Message>,
    protocol_errors: Vec<ProtocolError>,
    total_cost_before: f64,
    /// Whether the last delivery pushed added a typed message (the last of
    /// `messages`).
    last_was_typed: bool,
    /// `false` once the turn's deadline passed: lines are counted in
    /// `skipped`, not kept (nor decoded).
    keeping: bool,
    skipped: usize,
}

impl TurnCollector {
    /// A collector for turn `turn`. `total_cost_usd` is the session's
    /// running cost as far as the reader has seen
    /// ([`TurnCursor::total_cost_usd`]); a `result` of an earlier turn
    /// pushed later updates it.
    pub fn new(turn: TurnId, total_cost_usd: f64) -> Self {
        Self {
            turn,
            messages: Vec::new(),
            unreadable: Vec::new(),
            protocol_errors: Vec::new(),
            total_cost_before: total_cost_usd,
            last_was_typed: false,
            keeping: true,
            skipped: 0,
        }
    }

    /// From now on, keeps only the turn's `result`: every other line is
    /// counted ([`Turn::skipped_after_deadline`]) and neither decoded nor
    /// kept, so the collector's memory stops growing. Called when the
    /// turn's deadline passes ([`TurnReader`](crate::TurnReader)).
    pub fn stop_keeping(&mut self) {
        self.keeping = false;
    }

    /// `false` once [`stop_keeping`](Self::stop_keeping) was called.
    pub fn is_keeping(&self) -> bool {
        self.keeping
    }

    /// The turn being collected.
    pub fn turn(&self) -> TurnId {
        self.turn
    }

    /// For adapter authors (the adapters' turn streams read it through
    /// [`TurnReader`](crate::TurnReader)): the message the last
    /// [`push`](Self::push) added, typed; `None` if it
    /// added none (an earlier turn's event, an unreadable line, an event
    /// that is not a message, or the `result`, which is in the
    /// [`Turn`]).
    pub fn last_message(&self) -> Option<&StdoutMessage> {
        if self.last_was_typed {
            self.messages.last()
        } else {
            None
        }
    }

    /// Takes the next delivery.
    pub fn push(&mut self, delivery: Delivery) -> Step {
        self.last_was_typed = false;
        if delivery.turn < self.turn {
            if let Event::Message(message) = &delivery.event {
                if message.is_result() {
                    // As the cursor counts it: unreadable is zero.
                    self.total_cost_before = total_cost_of(message).unwrap_or(0.0);
                }
            }
            return Step::Skipped;
        }
        match delivery.event {
            Event::Message(message) => {
                if message.is_result() {
                    let read = ResultMessage::read_leniently(message.as_bytes());
                    if read.is_complete() {
                        self.messages
                            .push(StdoutMessage::Result(Box::new(read.message.clone())));
                    } else {
                        // Kept as the rest are: `Unknown` with its JSON, or
                        // raw; the defaults are only in `result`.
                        self.keep(&message);
                    }
                    return Step::Done(Box::new(Turn {
                        id: self.turn,
                        messages: std::mem::take(&mut self.messages),
                        result: read.message,
                        result_line: message,
                        unread_result_fields: read.unread_fields,
                        unreadable: std::mem::take(&mut self.unreadable),
                        protocol_errors: std::mem::take(&mut self.protocol_errors),
                        skipped_after_deadline: self.skipped,
                        total_cost_before: self.total_cost_before,
                    }));
                }
                if self.keeping {
                    self.last_was_typed = self.keep(&message);
                } else {
                    self.skipped += 1;
                }
            }
            Event::ProtocolError(error) if self.keeping => self.protocol_errors.push(error),
            Event::ProtocolError(_) => self.skipped += 1,
            _ => {}
        }
        Step::Added
    }

    /// Keeps a message typed, or raw if it is not even a JSON value;
    /// `true` if typed.
    fn keep(&mut self, message: &Message) -> bool {
        match message.parse() {
            Ok(parsed) => {
                self.messages.push(parsed);
                true
            }
            Err(_) => {
                self.unreadable.push(message.clone());
                false
            }
        }
    }
}

/// The running cost a `result` line reports, read from that field alone;
/// `None` for any other line, or a result without a readable one.
fn total_cost_of(message: &Message) -> Option<f64> {
    #[derive(serde::Deserialize)]
    struct Total {
        total_cost_usd: f64,
    }
    if !message.is_result() {
        return None;
    }
    serde_json::from_slice::<Total>(message.as_bytes())
        .ok()
        .map(|t| t.total_cost_usd)
}

/// The reading side's turn position: which turn the next unqualified
/// "receive a turn" means. Feed it every delivery the user is handed.
#[derive(Debug, Default, Clone)]
pub struct TurnCursor {
    next: TurnId,
    /// The last `result` handed to the user, kept (a reference count, not
    /// a copy) so that its running cost is read only if a turn asks.
    last_result: Option<Message>,
}

impl TurnCursor {
    /// Notes a delivery handed to the user.
    pub fn observe(&mut self, delivery: &Delivery) {
        match &delivery.event {
            Event::Message(message) if message.is_result() => {
                self.next = self.next.max(delivery.turn + 1);
                self.last_result = Some(message.clone());
            }
            _ => self.next = self.next.max(delivery.turn),
        }
    }

    /// The session's running cost in USD as of the last `result` handed to
    /// the user (`0.0` before the first, or if it had no readable cost):
    /// what a [`TurnCollector`] for the next turn starts from. Reads that
    /// line's `total_cost_usd` on each call; reading events costs nothing
    /// for it.
    pub fn total_cost_usd(&self) -> f64 {
        self.last_result
            .as_ref()
            .and_then(total_cost_of)
            .unwrap_or(0.0)
    }

    /// The turn whose `result` the user has not seen yet.
    pub fn next_turn(&self) -> TurnId {
        self.next
    }
}
