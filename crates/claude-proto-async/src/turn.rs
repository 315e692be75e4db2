//! One turn's events, as a stream.

use std::fmt;
use std::future::poll_fn;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use claude_proto::Message;
use claude_proto_host::{Error, Event, INTERRUPT_GRACE, Turn, TurnId, TurnItem, TurnReader};

use crate::events::Events;
use crate::runtime::BoxFuture;

/// What a turn stream needs of its session besides the events: an
/// interrupt and a timer, for [`TurnStream::finish_by`].
pub(crate) trait TurnControl: Send + Sync {
    fn interrupt(&self) -> BoxFuture<Result<(), Error>>;
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
/// Cancel safety: dropping it mid-turn is safe; the rest of its turn is
/// skipped by the next [`query`](crate::Claude::query) (or read by the
/// next [`receive_turn`](crate::Claude::receive_turn) or events).
#[must_use = "a turn stream reads nothing unless polled; `finish` collects it"]
pub struct TurnStream<'a> {
    events: &'a mut Events,
    control: &'a dyn TurnControl,
    reader: TurnReader,
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
        }
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
    /// `result` (the error carries the exit status and stderr).
    ///
    /// Cancel safety: dropping the future drops the turn stream, with
    /// the effect described on [`TurnStream`].
    pub async fn finish(mut self) -> Result<Turn, Error> {
        while self.next().await.is_some() {}
        self.reader.finish(|| self.events.ended_error())
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
    ///
    /// Cancel safety as [`finish`](Self::finish).
    pub async fn finish_by(mut self, deadline: Instant) -> Result<Turn, Error> {
        if self.read_until(deadline, None).await {
            return self.reader.finish(|| self.events.ended_error());
        }
        // The interrupt's answer is not waited for: its outcome shows in
        // the turn's end (or the session's), read meanwhile.
        let interrupt = self.control.interrupt();
        let grace = claude_proto_host::deadline(self.control.now(), INTERRUPT_GRACE);
        self.read_until(grace, Some(interrupt)).await;
        Err(self.reader.give_up())
    }

    /// [`finish_by`](Self::finish_by) `timeout` from now.
    pub async fn finish_within(self, timeout: Duration) -> Result<Turn, Error> {
        let now = self.control.now();
        let deadline = claude_proto_host::deadline(now, timeout);
        self.finish_by(deadline).await
    }

    /// Reads events until the turn ends (`true`) or `deadline` passes
    /// (`false`), driving `interrupt` meanwhile.
    async fn read_until(
        &mut self,
        deadline: Instant,
        mut interrupt: Option<BoxFuture<Result<(), Error>>>,
    ) -> bool {
        let mut timer = self.control.sleep_until(deadline);
        poll_fn(|cx| {
            if let Some(pending) = interrupt.as_mut() {
                if pending.as_mut().poll(cx).is_ready() {
                    interrupt = None;
                }
            }
            loop {
                match self.poll_event(cx) {
                    Poll::Ready(None) => return Poll::Ready(true),
                    // A CLI that writes without pause never leaves this
                    // loop by `Pending`: the clock is read after each event.
                    Poll::Ready(Some(_)) if self.control.now() < deadline => continue,
                    Poll::Ready(Some(_)) => return Poll::Ready(self.reader.has_ended()),
                    Poll::Pending => {}
                }
                return match timer.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(false),
                    Poll::Pending => Poll::Pending,
                };
            }
        })
        .await
    }

    fn poll_event(&mut self, cx: &mut Context<'_>) -> Poll<Option<Event>> {
        while !self.reader.has_ended() {
            let Some(delivery) = std::task::ready!(self.events.poll_delivery(cx)) else {
                self.reader.end_with(self.events.ended_error());
                break;
            };
            if let Some(event) = self.reader.accept(delivery) {
                return Poll::Ready(Some(event));
            }
        }
        Poll::Ready(None)
    }
}

impl futures_core::Stream for TurnStream<'_> {
    type Item = Event;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Event>> {
        self.get_mut().poll_event(cx)
    }
}
