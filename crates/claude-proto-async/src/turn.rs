//! One turn's events, as a stream.

use std::fmt;
use std::future::poll_fn;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use claude_proto::Message;
use claude_proto_host::{Error, Event, Turn, TurnId, TurnItem, TurnReader};

use crate::events::Events;
use crate::runtime::BoxFuture;

/// What a turn stream needs of its session besides the events: an
/// interrupt and a timer, for a turn read with a deadline
/// ([`TurnStream::with_deadline`]).
pub(crate) trait TurnControl: Send + Sync {
    /// Sends `interrupt` without waiting for its answer: its outcome shows
    /// in the turn's end (or the session's), read meanwhile.
    fn interrupt_now(&self);
    fn sleep_until(&self, deadline: Instant) -> BoxFuture<()>;
    fn now(&self) -> Instant;
}

/// The events of one turn as they arrive, ending with its `result`
/// message; then [`finish`](Self::finish) gives the whole [`Turn`].
///
/// Returned by [`Claude::query`](crate::Claude::query) (the turn of the
/// prompt it sent) and [`Claude::turn`](crate::Claude::turn). Read it as
/// typed items ([`next_item`](Self::next_item)) or as the session's raw
/// events ([`next`](Self::next), also a `futures_core::Stream<Item =
/// Event>`), not both.
///
/// ```no_run
/// # use claude_proto_async::TurnItem;
/// # async fn demo(claude: &mut claude_proto_async::Claude<impl claude_proto_async::Runtime>)
/// # -> Result<(), claude_proto_async::Error> {
/// let mut turn = claude.query("Tell me a story").await?;
/// while let Some(item) = turn.next_item().await {
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
/// [`Controller`](crate::Controller) meanwhile.
///
/// A deadline ([`with_deadline`](Self::with_deadline),
/// [`with_timeout`](Self::with_timeout)) applies to reading it item by
/// item as to [`finish`](Self::finish): printing deltas and giving up at a
/// deadline takes no task of one's own.
///
/// Cancel safety: dropping it mid-turn is safe; the rest of its turn is
/// skipped by the next [`query`](crate::Claude::query) (or read by the
/// next [`receive_turn`](crate::Claude::receive_turn) or events).
#[must_use = "a turn stream reads nothing unless polled; `finish` collects it"]
pub struct TurnStream<'a> {
    events: &'a mut Events,
    control: &'a dyn TurnControl,
    reader: TurnReader,
    /// The timer for the reader's next timeout, and the instant it is for.
    timer: Option<(Instant, BoxFuture<()>)>,
}

impl fmt::Debug for TurnStream<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TurnStream")
            .field("turn", &self.reader.id())
            .field("ended", &self.reader.has_ended())
            .finish_non_exhaustive()
    }
}

impl<'a> TurnStream<'a> {
    pub(crate) fn new(events: &'a mut Events, control: &'a dyn TurnControl, turn: TurnId) -> Self {
        let reader = TurnReader::new(turn, events.cursor());
        Self {
            events,
            control,
            reader,
            timer: None,
        }
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
    /// and [`next`](Self::next) go on yielding what the CLI writes after
    /// the interrupt, as it comes. From the deadline on, nothing more of
    /// the turn is kept for `finish` (only its `result`; see
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
        let deadline = claude_proto_host::deadline(self.control.now(), timeout);
        self.with_deadline(deadline)
    }

    /// `true` once the turn's deadline passed before its end: it was
    /// interrupted, and [`finish`](Self::finish) will say
    /// [`Error::DeadlinePassed`].
    pub fn deadline_passed(&self) -> bool {
        self.reader.deadline_passed()
    }

    /// Which turn of the session this is.
    pub fn id(&self) -> TurnId {
        self.reader.id()
    }

    /// The turn's next event; `None` after its `result` (the last event
    /// yielded), or if the session ended first.
    ///
    /// Cancel-safe: an event is taken only when the future completes.
    pub async fn next(&mut self) -> Option<Event> {
        poll_fn(|cx| self.poll_event(cx)).await
    }

    /// The turn's next item, typed (see [`TurnItem`]); `None` after its
    /// [`TurnItem::Result`] (the last item), or if the session ended first
    /// ([`finish`](Self::finish) then says how).
    ///
    /// Cancel-safe: an event is taken only when the future completes, and
    /// the items it holds stay for the next call.
    pub async fn next_item(&mut self) -> Option<TurnItem> {
        loop {
            if let Some(item) = self.reader.pop_item() {
                return Some(item);
            }
            let event = self.next().await?;
            self.reader.queue_items(event);
        }
    }

    /// The raw message the last event (or item) came from: the line as the
    /// CLI wrote it, for what the typed items leave out. `None` before the
    /// first event, or when the last one was not a message.
    pub fn message(&self) -> Option<&Message> {
        self.reader.message()
    }

    /// Reads the rest of the turn and returns all of it, also the events
    /// already yielded. Fails if the session ends before the turn's
    /// `result` (the error carries the exit status and stderr), and with
    /// [`Error::DeadlinePassed`] if the turn had a deadline that passed
    /// (see [`with_deadline`](Self::with_deadline)).
    ///
    /// Cancel safety: dropping the future drops the turn stream, with
    /// the effect described on [`TurnStream`].
    pub async fn finish(mut self) -> Result<Turn, Error> {
        while self.next().await.is_some() {}
        self.reader.finish(|| self.events.ended_error())
    }

    /// [`finish`](Self::finish), giving up at `deadline`
    /// ([`with_deadline`](Self::with_deadline)`(deadline).finish()`): the
    /// call returns by `deadline` plus [`INTERRUPT_GRACE`](crate::INTERRUPT_GRACE), with the turn,
    /// or [`Error::DeadlinePassed`] (holding the interrupted turn if the
    /// CLI ended it in the grace), or the session's end.
    ///
    /// Cancel safety as [`finish`](Self::finish).
    pub async fn finish_by(self, deadline: Instant) -> Result<Turn, Error> {
        self.with_deadline(deadline).finish().await
    }

    /// [`finish_by`](Self::finish_by) `timeout` from now.
    pub async fn finish_within(self, timeout: Duration) -> Result<Turn, Error> {
        self.with_timeout(timeout).finish().await
    }

    /// Notes the time if the turn has a deadline: interrupts the turn when
    /// the deadline has just passed.
    fn check_deadline(&mut self) {
        if self.reader.poll_timeout().is_some() && self.reader.handle_timeout(self.control.now()) {
            self.control.interrupt_now();
        }
    }

    fn poll_event(&mut self, cx: &mut Context<'_>) -> Poll<Option<Event>> {
        loop {
            // Before each delivery: a CLI that writes without pause never
            // makes this wait, so the timer alone would never fire.
            self.check_deadline();
            if self.reader.has_ended() {
                return Poll::Ready(None);
            }
            match self.events.poll_delivery(cx) {
                Poll::Ready(Some(delivery)) => {
                    if let Some(event) = self.reader.accept(delivery) {
                        return Poll::Ready(Some(event));
                    }
                    continue;
                }
                Poll::Ready(None) => {
                    self.reader.end_with(self.events.ended_error());
                    return Poll::Ready(None);
                }
                Poll::Pending => {}
            }
            let Some(at) = self.reader.poll_timeout() else {
                return Poll::Pending;
            };
            if self.timer.as_ref().is_none_or(|(due, _)| *due != at) {
                self.timer = Some((at, self.control.sleep_until(at)));
            }
            let Some((_, timer)) = self.timer.as_mut() else {
                return Poll::Pending;
            };
            match timer.as_mut().poll(cx) {
                Poll::Ready(()) => self.timer = None,
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

impl futures_core::Stream for TurnStream<'_> {
    type Item = Event;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Event>> {
        self.get_mut().poll_event(cx)
    }
}
