//! The handle users hold: send prompts, read events and turns, control
//! the session, close it.

use std::fmt;
use std::future::poll_fn;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use claude_proto::ControlSuccess;
use claude_proto::model::control::{
    ContextUsage, ControlCall, ControlRequest, InterruptResponse, McpStatusResponse,
    RewindFilesResult,
};
use claude_proto::model::initialize::InitializeResponse;
use claude_proto::model::permission::PermissionMode;
use claude_proto::model::user::UserMessage;
use claude_proto::options::Options;
use claude_proto_host::{
    CallReply, Command, Error, Event, ExitReport, SpawnError, Step, Turn, TurnCollector, TurnId,
};

use crate::builder::ClaudeBuilder;
use crate::events::Events;
use crate::oneshot;
use crate::runtime::Runtime;
use crate::shared::{Shared, closed, register};

/// A live session with the Claude Code CLI, on runtime `R`.
///
/// Created by [`ClaudeBuilder::spawn`] (a `claude` child process) or
/// [`ClaudeBuilder::connect`] (any byte-stream pair). One background task
/// (the driver) runs the session; this handle talks to it through a small
/// shared state, so every call returns as soon as the driver has an
/// answer, and no call waits for you to read events.
///
/// Read events with [`next_event`](Self::next_event), the [`Events`]
/// stream, or a turn at a time with [`query`](Self::query) and
/// [`receive_turn`](Self::receive_turn). The CLI's output is read ahead of
/// you up to a byte budget ([`ClaudeBuilder::read_ahead_bytes`]); control
/// traffic (permission prompts, hooks, MCP calls, answers to your control
/// calls) never waits on you reading.
///
/// Dropping the handle closes the session in the background (stdin
/// closed, then SIGTERM, then SIGKILL after the grace periods); if the
/// runtime shuts down first, the child is killed and reaped. Prefer
/// [`close`](Self::close) to learn how it exited.
pub struct Claude<R: Runtime> {
    shared: Arc<Shared>,
    events: Events,
    runtime: R,
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
    pub(crate) fn new(shared: Arc<Shared>, runtime: R, pid: Option<u32>) -> Self {
        Self {
            events: Events::new(shared.clone()),
            shared,
            runtime,
            pid,
        }
    }

    /// A builder for a session with these CLI options: handlers, limits
    /// and the runtime are set there.
    pub fn builder(options: Options) -> ClaudeBuilder<R> {
        ClaudeBuilder::new(options)
    }

    /// Spawns the CLI with `options`, no handlers and default limits (see
    /// [`ClaudeBuilder::spawn`], cancel-safe like it).
    pub async fn spawn(options: Options) -> Result<Self, SpawnError> {
        ClaudeBuilder::new(options).spawn().await
    }

    /// The child's process id (`None` over a byte-stream pair).
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// The session id, from the latest `system`/`init` or `result` message
    /// the session has read (`None` before the first). Pass it to
    /// `Options::resume` to continue the conversation in a new session.
    pub fn session_id(&self) -> Option<String> {
        self.shared.session_id()
    }

    /// Waits for the CLI's answer to `initialize` (sent at start): its
    /// commands, models, account and version. Fails at once if the CLI
    /// exits first, with its exit status and stderr.
    ///
    /// Cancel-safe: it only waits; call it again at any time.
    pub async fn initialization(&self) -> Result<Arc<InitializeResponse>, Error> {
        poll_fn(|cx| {
            let mut state = self.shared.lock();
            if let Some(result) = &state.init {
                return Poll::Ready(result.clone());
            }
            if state.finished {
                return Poll::Ready(Err(Error::Ended(
                    state.ended.clone().unwrap_or_else(closed),
                )));
            }
            register(&mut state.init_waiters, cx.waker());
            Poll::Pending
        })
        .await
    }

    /// Sends a prompt or any user message, written in order after
    /// everything sent before; it does not wait for the turn. Fails with
    /// [`Error::Backlog`] if the CLI is not reading its stdin and the
    /// unwritten bytes are over their budget.
    ///
    /// Not cancel-safe in effect: once polled, the message is queued, and a
    /// future dropped before it completes may still have been delivered.
    pub async fn send(&self, message: UserMessage) -> Result<(), Error> {
        self.send_message(message).await.map(drop)
    }

    /// Sends a text prompt (see [`send`](Self::send), including what a
    /// dropped call did).
    pub async fn send_text(&self, text: impl Into<String>) -> Result<(), Error> {
        self.send(UserMessage::text(text)).await
    }

    /// Sends `prompt` and collects its turn, up to its `result`.
    ///
    /// The turn is matched to this prompt, not to "the next result": events
    /// of earlier turns still unread are skipped, and a line that fails to
    /// decode or a `result` of an unknown shape cannot shift later turns.
    /// If the session ends first, the error carries the exit status and
    /// stderr.
    ///
    /// Cancel-safe in the sense that turns stay matched: a dropped `query`
    /// may have sent its prompt (see [`send`](Self::send)), and the rest of
    /// its turn is skipped by the next `query`.
    /// [`receive_turn`](Self::receive_turn) would return that rest instead.
    pub async fn query(&mut self, prompt: impl Into<String>) -> Result<Turn, Error> {
        let turn = self.send_message(UserMessage::text(prompt)).await?;
        self.collect(TurnCollector::new(turn)).await
    }

    /// Collects the first turn whose `result` you have not read yet, up to
    /// and including that `result` (for prompts sent with
    /// [`send`](Self::send)).
    ///
    /// Cancel-safe in the sense that turns stay matched: the events a
    /// dropped call took are gone, and the next call goes on with the same
    /// turn (or the next one if its `result` was taken).
    pub async fn receive_turn(&mut self) -> Result<Turn, Error> {
        self.collect(TurnCollector::new(self.events.next_turn()))
            .await
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

    /// Sends any control request and waits for its answer, or until
    /// `timeout` (else the config's request timeout, 60 s by default)
    /// counted from this call: time spent queued counts.
    ///
    /// Not cancel-safe in effect: once polled the request is sent, and
    /// dropping the future only discards the answer.
    pub async fn control(
        &self,
        request: ControlRequest,
        timeout: Option<Duration>,
    ) -> Result<ControlSuccess, Error> {
        let issued_at = self.runtime.now();
        let reply = self
            .command(|waiter| Command::Call {
                request: Box::new(request),
                timeout,
                issued_at,
                waiter,
            })
            .await?;
        match reply {
            CallReply::Answered(success) => Ok(success),
            // The host answers a call with `Answered` or an error.
            _ => Err(self.shared.ended_error()),
        }
    }

    /// Sends a typed control request and decodes its answer to the type
    /// the request names (see [`ControlCall`]). Cancel safety as
    /// [`control`](Self::control).
    pub async fn call<C: ControlCall>(&self, request: C) -> Result<C::Response, Error> {
        let success = self.control(request.into(), None).await?;
        Ok(success.decode_as::<C>()?)
    }

    /// Interrupts the current turn; it ends with an error `result`. Cancel
    /// safety as [`control`](Self::control).
    pub async fn interrupt(&self) -> Result<InterruptResponse, Error> {
        let success = self.control(ControlRequest::interrupt(), None).await?;
        Ok(success.decode()?)
    }

    /// Switches the model (`None`: back to the default). Cancel safety as
    /// [`control`](Self::control).
    pub async fn set_model(&self, model: Option<&str>) -> Result<(), Error> {
        self.control(ControlRequest::set_model(model), None)
            .await
            .map(drop)
    }

    /// Switches the permission mode. Cancel safety as
    /// [`control`](Self::control).
    pub async fn set_permission_mode(&self, mode: PermissionMode) -> Result<(), Error> {
        self.control(ControlRequest::set_permission_mode(mode), None)
            .await
            .map(drop)
    }

    /// Sets the thinking budget (`None`: the default). Cancel safety as
    /// [`control`](Self::control).
    pub async fn set_max_thinking_tokens(&self, tokens: Option<u64>) -> Result<(), Error> {
        self.control(ControlRequest::set_max_thinking_tokens(tokens), None)
            .await
            .map(drop)
    }

    /// The status of every MCP server. Cancel-safe: it changes nothing.
    pub async fn mcp_status(&self) -> Result<McpStatusResponse, Error> {
        let success = self.control(ControlRequest::mcp_status(), None).await?;
        Ok(success.decode()?)
    }

    /// How the context window is used. Cancel-safe: it changes nothing.
    pub async fn get_context_usage(&self) -> Result<ContextUsage, Error> {
        let success = self
            .control(ControlRequest::get_context_usage(), None)
            .await?;
        Ok(success.decode()?)
    }

    /// Rewinds files changed since the given user message (needs file
    /// checkpointing enabled in the options). Cancel safety as
    /// [`control`](Self::control).
    pub async fn rewind_files(
        &self,
        user_message_id: &str,
        dry_run: bool,
    ) -> Result<RewindFilesResult, Error> {
        let request = ControlRequest::rewind_files(user_message_id, dry_run);
        Ok(self.control(request, None).await?.decode()?)
    }

    /// Stops a background task. Cancel safety as
    /// [`control`](Self::control).
    pub async fn stop_task(&self, task_id: &str) -> Result<(), Error> {
        self.control(ControlRequest::stop_task(task_id), None)
            .await
            .map(drop)
    }

    /// Closes the CLI's stdin once everything sent is written: the CLI
    /// finishes its turn and exits, and the events then end. Requests from
    /// the CLI can no longer be answered after this.
    ///
    /// Cancel-safe: it takes effect when first polled and waits for
    /// nothing.
    pub async fn end_input(&self) -> Result<(), Error> {
        self.shared
            .push_command(Command::EndInput)
            .map_err(|_| self.shared.ended_error())
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

    async fn send_message(&self, message: UserMessage) -> Result<TurnId, Error> {
        let reply = self
            .command(|waiter| Command::Send {
                message: Box::new(message),
                waiter,
            })
            .await?;
        match reply {
            CallReply::Sent { turn } => Ok(turn),
            // The host answers a message with `Sent` or an error.
            _ => Err(self.shared.ended_error()),
        }
    }

    async fn collect(&mut self, mut collector: TurnCollector) -> Result<Turn, Error> {
        while let Some(delivery) = self.events.next_delivery().await {
            if let Step::Done(turn) = collector.push(delivery) {
                return Ok(*turn);
            }
        }
        Err(self.shared.ended_error())
    }

    async fn command(
        &self,
        command: impl FnOnce(
            oneshot::Sender<Result<CallReply, Error>>,
        ) -> Command<crate::shared::Waiter>,
    ) -> Result<CallReply, Error> {
        let (waiter, answer) = oneshot::channel();
        if self.shared.push_command(command(waiter)).is_err() {
            return Err(self.shared.ended_error());
        }
        answer
            .await
            .unwrap_or_else(|oneshot::Closed| Err(self.shared.ended_error()))
    }
}

impl<R: Runtime> Drop for Claude<R> {
    fn drop(&mut self) {
        // The driver closes the session in the background. An error means
        // it is already done.
        let _ = self.shared.push_command(Command::Close);
    }
}
