//! One turn's events, as a stream.

use std::fmt;
use std::future::poll_fn;
use std::pin::Pin;
use std::task::{Context, Poll};

use claude_proto_host::{Error, Event, Step, Turn, TurnCollector, TurnId};

use crate::events::Events;

/// The events of one turn as they arrive, ending with its `result`
/// message; then [`finish`](Self::finish) gives the whole [`Turn`].
///
/// Returned by [`Claude::query`](crate::Claude::query) (the turn of the
/// prompt it sent) and [`Claude::turn`](crate::Claude::turn). Also a
/// `futures_core::Stream<Item = Event>`.
///
/// ```no_run
/// # async fn demo(claude: &mut claude_proto_async::Claude<impl claude_proto_async::Runtime>)
/// # -> Result<(), claude_proto_async::Error> {
/// let mut turn = claude.query("Tell me a story").await?;
/// while let Some(event) = turn.next().await {
///     if let Some(text) = event.text_delta() {
///         print!("{text}");
///     }
/// }
/// let turn = turn.finish().await?;
/// println!("\n{}", turn.text().unwrap_or_default());
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
    collector: TurnCollector,
    /// The turn's end: `Ok` once its `result` was read, `Err` if the
    /// session ended first.
    end: Option<Result<Box<Turn>, Error>>,
}

impl fmt::Debug for TurnStream<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TurnStream")
            .field("turn", &self.collector.turn())
            .field("ended", &self.end.is_some())
            .finish_non_exhaustive()
    }
}

impl<'a> TurnStream<'a> {
    pub(crate) fn new(events: &'a mut Events, turn: TurnId) -> Self {
        Self {
            events,
            collector: TurnCollector::new(turn),
            end: None,
        }
    }

    /// Which turn of the session this is.
    pub fn id(&self) -> TurnId {
        self.collector.turn()
    }

    /// The turn's next event; `None` after its `result` (the last event
    /// yielded), or if the session ended first.
    ///
    /// Cancel-safe: an event is taken only when the future completes.
    pub async fn next(&mut self) -> Option<Event> {
        poll_fn(|cx| self.poll_event(cx)).await
    }

    /// Reads the rest of the turn and returns all of it, also the events
    /// already yielded. Fails if the session ends before the turn's
    /// `result` (the error carries the exit status and stderr).
    ///
    /// Cancel safety: dropping the future drops the turn stream, with
    /// the effect described on [`TurnStream`].
    pub async fn finish(mut self) -> Result<Turn, Error> {
        while self.next().await.is_some() {}
        match self.end.take() {
            Some(Ok(turn)) => Ok(*turn),
            Some(Err(error)) => Err(error),
            None => Err(self.events.ended_error()),
        }
    }

    fn poll_event(&mut self, cx: &mut Context<'_>) -> Poll<Option<Event>> {
        if self.end.is_some() {
            return Poll::Ready(None);
        }
        loop {
            let Some(delivery) = std::task::ready!(self.events.poll_delivery(cx)) else {
                self.end = Some(Err(self.events.ended_error()));
                return Poll::Ready(None);
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
            return Poll::Ready(Some(event));
        }
    }
}

impl futures_core::Stream for TurnStream<'_> {
    type Item = Event;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Event>> {
        self.get_mut().poll_event(cx)
    }
}
