//! The split handle: everything but reading events, cloneable and usable
//! from any task.

use std::fmt;
use std::future::poll_fn;
use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, Instant};

use claude_proto::ControlSuccess;
use claude_proto::dispatch::McpServerSpec;
use claude_proto::model::control::{
    ContextUsage, ControlCall, ControlRequest, InterruptResponse, McpStatusResponse,
    RewindFilesResult,
};
use claude_proto::model::initialize::InitializeResponse;
use claude_proto::model::permission::PermissionMode;
use claude_proto::model::user::UserMessage;
use claude_proto_adapter::handlers::{Async, LiveTools};
use claude_proto_host::{CallReply, Claim, Claimed, Command, Error, TurnId};

use crate::handlers::Tool;

use crate::oneshot;
use crate::runtime::Runtime;
use crate::shared::{Shared, Waiter, closed, register};

/// The control side of a session, split from its events: send prompts,
/// interrupt, switch model or permission mode, make any control call, and
/// start closing, from any task, while another task owns the
/// [`Claude`](crate::Claude) and reads its events.
///
/// Get one with [`Claude::controller`](crate::Claude::controller). It is
/// cheap to clone (a reference count) and `Send + Sync`; every clone
/// talks to the same session. A [`Claude`](crate::Claude) dereferences to
/// its controller, so these methods are also called on the session
/// itself: there is one implementation of each.
///
/// A controller does not keep the session alive: dropping the
/// [`Claude`](crate::Claude) closes the session, after which every call
/// here fails with [`Error::Ended`].
///
/// Cancel safety: a call that sends something (a prompt, a control
/// request) sends it once first polled; dropping its future then only
/// discards the answer. Calls that only read state are cancel-safe.
pub struct Controller<R: Runtime> {
    shared: Arc<Shared>,
    runtime: R,
    tools: LiveTools<Async>,
}

impl<R: Runtime> Clone for Controller<R> {
    fn clone(&self) -> Self {
        Self {
            shared: self.shared.clone(),
            runtime: self.runtime.clone(),
            tools: self.tools.clone(),
        }
    }
}

impl<R: Runtime> fmt::Debug for Controller<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Controller")
            .field("session_id", &self.session_id())
            .finish_non_exhaustive()
    }
}

impl<R: Runtime> Controller<R> {
    pub(crate) fn new(shared: Arc<Shared>, runtime: R, tools: LiveTools<Async>) -> Self {
        Self {
            shared,
            runtime,
            tools,
        }
    }

    /// The session id, from the latest `system`/`init` or `result` message
    /// the session has read (`None` before the first). Pass it to
    /// `Options::resume` to continue the conversation in a new session.
    pub fn session_id(&self) -> Option<String> {
        self.shared.session_id()
    }

    /// Bytes of read and line buffers the session kept the last time the
    /// CLI's output went quiet (a read would have blocked), after giving
    /// back the room the traffic before it needed: the read buffers, the
    /// unused room of the core's and the host's buffers and of the event
    /// handoff. Not counted: bytes in use (events not read yet, a line in
    /// progress, unwritten input) and fixed bookkeeping. `None` until the
    /// output first went quiet. For memory tests and figures: the buffers
    /// grow for a burst or a large line and shrink back after it.
    pub fn quiet_buffer_bytes(&self) -> Option<usize> {
        self.shared.quiet_buffer_bytes()
    }

    /// Waits for the CLI's answer to `initialize` (sent at start): its
    /// commands, models, account and version. Fails at once if the CLI
    /// exits first, with its exit status and stderr.
    ///
    /// Cancel-safe: it only waits; call it again at any time. The session
    /// keeps the answer as its JSON (half the memory of the typed value),
    /// so each call decodes it anew: keep the `Arc` if you read it often.
    pub async fn initialization(&self) -> Result<Arc<InitializeResponse>, Error> {
        let answer = poll_fn(|cx| {
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
        .await?;
        // Decoded outside the lock, which the driver takes.
        answer.decode()
    }

    /// Sends a prompt or any user message, written in order after
    /// everything sent before; it does not wait for the turn (read it with
    /// [`Claude::receive_turn`](crate::Claude::receive_turn) or the
    /// events, or use [`Claude::query`](crate::Claude::query) instead).
    /// Fails with [`Error::Backlog`] when the bytes waiting for the CLI's
    /// stdin are over their budget (`Limits::max_unwritten_bytes`): the
    /// CLI is not reading it, or messages are sent faster than the pipe
    /// drains.
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

    /// Sends any control request and waits for its answer, or until
    /// `timeout` (else the config's request timeout, 60 s by default, or
    /// the CLI's own deadline for the request's work where that is longer:
    /// `mcp_call` waits its `timeout_ms`, 2 min by default) counted from
    /// this call: time spent queued counts.
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

    /// Interrupts the current turn; it ends with an error `result`, which
    /// the task reading events still receives. Cancel safety as
    /// [`control`](Self::control).
    pub async fn interrupt(&self) -> Result<InterruptResponse, Error> {
        let success = self.control(ControlRequest::interrupt(), None).await?;
        Ok(success.decode()?)
    }

    /// Switches the model to `model` (a name or alias). Cancel safety as
    /// [`control`](Self::control).
    pub async fn set_model(&self, model: impl Into<String>) -> Result<(), Error> {
        let model = model.into();
        self.control(ControlRequest::set_model(Some(&model)), None)
            .await
            .map(drop)
    }

    /// Switches back to the default model. Cancel safety as
    /// [`control`](Self::control).
    pub async fn reset_model(&self) -> Result<(), Error> {
        self.control(ControlRequest::set_model(None), None)
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

    /// Adds `tool` to the in-process MCP server named `server` (one
    /// registered on the builder), replacing a tool of the same name, and
    /// tells the CLI, which lists the server's tools again before the
    /// model's next request. Waits for the CLI's acknowledgement, or the
    /// config's request timeout; the tool can be called from the moment
    /// the CLI has it.
    ///
    /// Fails with [`Error::UnknownMcpServer`] if no server of that name
    /// was registered (servers themselves are fixed at start). Any other
    /// error (the session ended, the CLI's stdin backed up, no
    /// acknowledgement in time) leaves the change made in this session but
    /// perhaps untold to the CLI: call again to tell it. A call of a tool
    /// removed while it was on its way is answered `Unknown tool`. Cancel
    /// safety as [`control`](Self::control): once polled, the change is
    /// made.
    ///
    /// ```no_run
    /// # async fn demo<R: claude_proto_async::Runtime>(claude: claude_proto_async::Claude<R>) -> Result<(), claude_proto_async::Error> {
    /// use claude_proto_async::Tool;
    /// use claude_proto::model::Json;
    ///
    /// let now = Tool::new("now", "The time on this machine", async |_: Json| {
    ///     Ok(format!("{:?}", std::time::SystemTime::now()))
    /// });
    /// claude.add_tool("clock", now).await?;
    /// claude.remove_tool("clock", "now").await?;
    /// # Ok(()) }
    /// ```
    pub async fn add_tool(&self, server: &str, tool: Tool) -> Result<(), Error> {
        let issued_at = self.runtime.now();
        let (waiter, answer) = oneshot::channel();
        // Queued under the tools' lock, so changes reach the driver in the
        // order they were made.
        let queued = self.tools.add(server, tool, |spec| {
            self.update_server(spec, issued_at, waiter)
        });
        self.tools_changed(server, queued, answer).await
    }

    /// Removes the tool `tool` from the in-process MCP server named
    /// `server` and tells the CLI, as [`add_tool`](Self::add_tool) does.
    /// From then on a call of it is answered as an unknown tool (one
    /// already running finishes). Removing a tool the server does not have
    /// changes nothing and tells the CLI nothing.
    pub async fn remove_tool(&self, server: &str, tool: &str) -> Result<(), Error> {
        let issued_at = self.runtime.now();
        let (waiter, answer) = oneshot::channel();
        let queued = match self.tools.remove(server, tool, |spec| {
            self.update_server(spec, issued_at, waiter)
        }) {
            Some(None) => return Ok(()),
            Some(Some(queued)) => Some(queued),
            None => None,
        };
        self.tools_changed(server, queued, answer).await
    }

    fn update_server(&self, spec: McpServerSpec, issued_at: Instant, waiter: Waiter) -> bool {
        self.shared
            .push_command(Command::UpdateMcpServer {
                spec: Box::new(spec),
                issued_at,
                waiter,
            })
            .is_ok()
    }

    async fn tools_changed(
        &self,
        server: &str,
        queued: Option<bool>,
        answer: oneshot::Receiver<Result<CallReply, Error>>,
    ) -> Result<(), Error> {
        match queued {
            None => Err(Error::UnknownMcpServer {
                name: server.to_owned(),
            }),
            Some(false) => Err(self.shared.ended_error()),
            Some(true) => answer
                .await
                .unwrap_or_else(|oneshot::Closed| Err(self.shared.ended_error()))
                .map(drop),
        }
    }

    /// Waits until every transcript line the CLI has mirrored so far is in
    /// the session store, or reported as
    /// [`Event::MirrorFailed`](claude_proto_host::Event::MirrorFailed):
    /// lines waiting for the turn's end are sent now. Read-your-writes for
    /// a program that lists or loads sessions from the store right after a
    /// turn (the turn's `result` does not wait for the store, so a slow
    /// store never delays a turn). Returns at once without a store.
    ///
    /// Fails with the session's end once its driver has finished (by then
    /// the last lines were stored, or reported).
    pub async fn flush_mirror(&self) -> Result<(), Error> {
        self.command(|waiter| Command::FlushMirror { waiter })
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

    /// Closes the CLI's stdin once the run is over, as the official SDKs'
    /// one-shot runs do: at once if nothing registered can be called back
    /// (hooks, handlers, in-process MCP servers); otherwise when the CLI
    /// reports the session idle after a result with no background agent in
    /// flight, or `ceiling` passes between turns (`None`: no ceiling;
    /// [`run_end_ceiling`](claude_proto_process::run_end_ceiling) reads it
    /// as the CLI does). Until then a background agent's follow-up turns
    /// are served: their hooks, permission prompts and tool calls are
    /// answered. The events then end when the CLI exits. Send it after the
    /// run's prompt; the rules are in [`claude_proto_host::run_end`].
    ///
    /// Cancel-safe: it takes effect when first polled and waits for
    /// nothing.
    pub async fn end_input_at_run_end(&self, ceiling: Option<Duration>) -> Result<(), Error> {
        self.shared
            .push_command(Command::EndInputAtRunEnd { ceiling })
            .map_err(|_| self.shared.ended_error())
    }

    /// Starts the close sequence from any task: stdin closed, then SIGTERM
    /// after the close grace, then SIGKILL after the terminate grace. It
    /// waits for nothing; the task that owns the events keeps reading
    /// them until they end (events still unread are delivered), and its
    /// [`Claude::close`](crate::Claude::close) returns the exit report.
    ///
    /// Idempotent, and a no-op once the session has ended.
    pub fn request_close(&self) {
        // An error means the driver is already done: nothing to close.
        let _ = self.shared.push_command(Command::Close);
    }

    /// Sends `message` and returns the turn it starts.
    pub(crate) async fn send_message(&self, message: UserMessage) -> Result<TurnId, Error> {
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

    /// Claims the parked spare this session is (see
    /// [`Spare::claim`](crate::Spare::claim)).
    pub(crate) async fn claim(&self, claim: Claim) -> Result<Claimed, Error> {
        let issued_at = self.runtime.now();
        let reply = self
            .command(|waiter| Command::Claim {
                claim: Box::new(claim),
                issued_at,
                waiter,
            })
            .await?;
        match reply {
            CallReply::Claimed(claimed) => Ok(*claimed),
            // The host answers a claim with `Claimed` or an error.
            _ => Err(self.shared.ended_error()),
        }
    }

    async fn command(
        &self,
        command: impl FnOnce(Waiter) -> Command<Waiter>,
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

impl<R: Runtime> crate::turn::TurnControl for Controller<R> {
    fn interrupt_now(&self) {
        // The answer goes to a receiver dropped at once: the driver's send
        // to it fails and the outcome is dropped. A session already over
        // has no turn to interrupt.
        let (waiter, _answer) = oneshot::channel();
        let _ = self.shared.push_command(Command::Call {
            request: Box::new(ControlRequest::interrupt()),
            timeout: None,
            issued_at: self.runtime.now(),
            waiter,
        });
    }

    fn sleep_until(&self, deadline: Instant) -> crate::BoxFuture<()> {
        self.runtime.sleep_until(deadline)
    }

    fn now(&self) -> Instant {
        self.runtime.now()
    }
}
