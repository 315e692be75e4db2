//! The handle users hold: read events and turns, close the session; the
//! control calls are its [`Controller`]'s.

use claude_proto_adapter::handlers::{Async, LiveTools};
use std::fmt;
use std::future::{Future, poll_fn};
use std::ops::Deref;
use std::sync::Arc;
use std::task::Poll;

use claude_proto::model::user::UserMessage;
use claude_proto_host::{Command, Error, Event, ExitReport, Turn};

use crate::controller::Controller;
use crate::events::Events;
use crate::runtime::Runtime;
use crate::shared::{Shared, closed, register};
use crate::turn::TurnStream;

/// A live session with the Claude Code CLI, on runtime `R`.
///
/// Created by [`ClaudeBuilder::spawn`](crate::ClaudeBuilder::spawn) (a `claude` child process) or
/// [`ClaudeBuilder::connect`](crate::ClaudeBuilder::connect) (any byte-stream pair). One background task
/// (the driver) runs the session; this handle talks to it through a small
/// shared state, so every call returns as soon as the driver has an
/// answer, and no call waits for you to read events.
///
/// Read events with [`next_event`](Self::next_event), the [`Events`]
/// stream, or a turn at a time with [`query`](Self::query) (a
/// [`TurnStream`]) and [`ask`](Self::ask) (a whole [`Turn`]). The CLI's
/// output is read ahead of you up to a byte budget
/// ([`read_ahead_bytes`](crate::Configure::read_ahead_bytes)); control traffic (permission
/// prompts, hooks, MCP calls, answers to your control calls) never waits
/// on you reading.
///
/// The control calls (send, interrupt, set_model, the typed `call`, ...)
/// are [`Controller`] methods: `Claude` dereferences to its controller,
/// and [`controller`](Self::controller) gives a cloneable one for other
/// tasks, so one task can read events while another interrupts.
///
/// Dropping the handle closes the session in the background (stdin
/// closed, then SIGTERM, then SIGKILL after the grace periods); if the
/// runtime shuts down first, the child is killed and reaped. Prefer
/// [`close`](Self::close) to learn how it exited.
pub struct Claude<R: Runtime> {
    controller: Controller<R>,
    shared: Arc<Shared>,
    events: Events,
    pid: Option<u32>,
}

impl<R: Runtime> fmt::Debug for Claude<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Claude")
            .field("pid", &self.pid)
            .field("events", &self.events)
            .finish_non_exhaustive()
    }
}

impl<R: Runtime> Claude<R> {
    pub(crate) fn new(
        shared: Arc<Shared>,
        runtime: R,
        pid: Option<u32>,
        tools: LiveTools<Async>,
    ) -> Self {
        Self {
            controller: Controller::new(shared.clone(), runtime, tools),
            events: Events::new(shared.clone()),
            shared,
            pid,
        }
    }

    /// The child's process id (`None` over a byte-stream pair).
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// A cloneable handle for control calls from other tasks while this
    /// one reads the events (see [`Controller`]): interrupt from a Ctrl-C
    /// task or a watchdog, switch the model from a UI task, and so on.
    /// The session's own control methods are the controller's (`Claude`
    /// dereferences to it).
    pub fn controller(&self) -> Controller<R> {
        self.controller.clone()
    }

    /// Sends `prompt` and returns its turn as a stream of events, ending
    /// with the turn's `result`; [`TurnStream::finish`] collects it into a
    /// [`Turn`] (or use [`ask`](Self::ask) for that in one call).
    ///
    /// The turn is matched to this prompt, not to "the next result": events
    /// of earlier turns still unread are skipped, and a line that fails to
    /// decode or a `result` of an unknown shape cannot shift later turns.
    ///
    /// Cancel safety: a future dropped before it completes may have sent
    /// the prompt (see [`Controller::send`]); a [`TurnStream`] dropped
    /// mid-turn leaves the rest of its turn to be skipped by the next
    /// `query`. Either way later turns stay matched.
    pub async fn query(&mut self, prompt: impl Into<String>) -> Result<TurnStream<'_>, Error> {
        self.query_message(UserMessage::text(prompt)).await
    }

    /// [`query`](Self::query) with any user message (images, several
    /// content blocks).
    pub async fn query_message(&mut self, message: UserMessage) -> Result<TurnStream<'_>, Error> {
        let turn = self.controller.send_message(message).await?;
        Ok(TurnStream::new(&mut self.events, &self.controller, turn))
    }

    /// Sends `prompt` and returns its whole turn once its `result` has
    /// arrived: `query(prompt).await?.finish().await`. If the session ends
    /// first, the error carries the exit status and stderr.
    ///
    /// Cancel safety as [`query`](Self::query): turns stay matched.
    pub async fn ask(&mut self, prompt: impl Into<String>) -> Result<Turn, Error> {
        self.query(prompt).await?.finish().await
    }

    /// The first turn whose `result` you have not read yet, as a stream
    /// (for prompts sent with [`send`](Controller::send)): its events from
    /// where you are, up to and including that `result`.
    ///
    /// Cancel safety as [`TurnStream`]: the events a dropped stream took
    /// are gone, and the next call goes on with the same turn (or the next
    /// one if its `result` was taken).
    pub fn turn(&mut self) -> TurnStream<'_> {
        let turn = self.events.next_turn();
        TurnStream::new(&mut self.events, &self.controller, turn)
    }

    /// Collects the first turn whose `result` you have not read yet:
    /// `turn().finish().await`. Cancel safety as [`turn`](Self::turn).
    pub async fn receive_turn(&mut self) -> Result<Turn, Error> {
        self.turn().finish().await
    }

    /// The next event, or `None` once the session has ended and every
    /// event was read.
    ///
    /// Cancel-safe: an event is taken only when the future completes.
    pub async fn next_event(&mut self) -> Option<Event> {
        self.events.next().await
    }

    /// The event stream (also a `futures_core::Stream`).
    pub fn events(&mut self) -> &mut Events {
        &mut self.events
    }

    /// Closes the session and waits until it is over: stdin closed, then
    /// SIGTERM after the close grace, then SIGKILL after the terminate
    /// grace (see [`ShutdownPolicy`](crate::ShutdownPolicy)). Unread events
    /// are dropped. Returns how the CLI exited (`None` over a byte-stream
    /// pair), also when it had exited on its own before.
    ///
    /// Cancel-safe: the session closes in the background all the same.
    /// Fails only if the driver was stopped before the session ended (its
    /// runtime shut down).
    pub async fn close(self) -> Result<Option<ExitReport>, Error> {
        self.shared.close_events();
        // An error means the driver is already done: nothing to close.
        let _ = self.shared.push_command(Command::Close);
        let ended = poll_fn(|cx| {
            let mut state = self.shared.lock();
            if state.finished {
                return Poll::Ready(state.ended.clone());
            }
            register(&mut state.finish_waiters, cx.waker());
            Poll::Pending
        })
        .await;
        match ended {
            Some(ended) => Ok(ended.report().cloned()),
            None => Err(Error::Ended(closed())),
        }
    }
}

impl<R: Runtime> Claude<R> {
    /// Whether the session has ended (its CLI exited or it was closed).
    pub(crate) fn has_ended(&self) -> bool {
        let state = self.shared.lock();
        state.finished || state.ended.is_some()
    }

    /// Resolves when the session's driver is done (the CLI has exited and
    /// everything is released); it does not borrow the session.
    pub(crate) fn finished(&self) -> impl Future<Output = ()> + Send + 'static {
        let shared = self.shared.clone();
        poll_fn(move |cx| {
            let mut state = shared.lock();
            if state.finished {
                return Poll::Ready(());
            }
            register(&mut state.finish_waiters, cx.waker());
            Poll::Pending
        })
    }
}

impl<R: Runtime> Deref for Claude<R> {
    type Target = Controller<R>;

    /// The session's controller: every control call.
    fn deref(&self) -> &Controller<R> {
        &self.controller
    }
}

impl<R: Runtime> Drop for Claude<R> {
    fn drop(&mut self) {
        // The driver closes the session in the background. An error means
        // it is already done.
        let _ = self.shared.push_command(Command::Close);
    }
}
