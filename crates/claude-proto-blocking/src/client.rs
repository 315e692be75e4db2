//! The handle users hold: send prompts, read events and turns, control
//! the session, close it.

use std::sync::Arc;
use std::sync::mpsc::{RecvTimeoutError, SyncSender, sync_channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use claude_proto::model::control::{
    ContextUsage, ControlCall, ControlRequest, InterruptResponse, McpStatusResponse,
    RewindFilesResult,
};
use claude_proto::model::initialize::InitializeResponse;
use claude_proto::model::permission::PermissionMode;
use claude_proto::model::user::UserMessage;
use claude_proto::options::Options;
use claude_proto::{ControlSuccess, DecodeError};
use claude_proto_host::{
    CallReply, Command, Error, Event, ExitReport, MAX_DURATION, Step, Turn, TurnCollector, TurnId,
};
use serde::de::DeserializeOwned;

use crate::builder::ClaudeBuilder;
use crate::driver::Input;
use crate::events::{Elapsed, Events, Handoff};
use crate::shared::Shared;

/// A live session with the Claude Code CLI, driven from blocking code.
///
/// Created by [`ClaudeBuilder::spawn`] (a `claude` child process) or
/// [`ClaudeBuilder::connect`] (any reader/writer pair). One driver thread
/// owns the session; this handle hands it commands and reads what it hands
/// back. Each method says what it waits for and for how long at most. None
/// waits on a CLI that stopped reading its stdin: commands are taken at
/// once, and refused ([`Error::Backlog`]) when the unwritten bytes pass
/// their budget.
///
/// Read events with [`next_event`](Self::next_event), the [`Events`]
/// iterator, or a turn at a time with [`query`](Self::query) and
/// [`receive_turn`](Self::receive_turn). The CLI's output is read ahead of
/// you up to [`ClaudeBuilder::read_ahead_bytes`]; beyond that reading
/// pauses, so a slow reader slows the CLI down instead of growing memory.
/// Control traffic (permission prompts, hooks, MCP calls, answers to your
/// control calls) is handled as soon as it is read, never behind events
/// you have not read.
///
/// The handle is `Send` and `Sync`: the `&self` calls (sending, control
/// calls) can be made from several threads at once.
///
/// Dropping the handle closes the session in the background (stdin
/// closed, then SIGTERM, then SIGKILL after the grace periods, and the
/// child reaped). Prefer [`close`](Self::close) to learn how it exited.
#[derive(Debug)]
pub struct Claude {
    parts: Parts,
    events: Events,
    driver: Option<JoinHandle<()>>,
}

/// What the handle needs from the builder.
#[derive(Debug)]
pub(crate) struct Parts {
    pub(crate) input: SyncSender<Input>,
    pub(crate) shared: Arc<Shared>,
    pub(crate) handoff: Arc<Handoff>,
    pub(crate) pid: Option<u32>,
    pub(crate) request_timeout: Duration,
    pub(crate) init_timeout: Duration,
    /// When the initialize timeout, counted from the start, runs out
    /// (`None`: too far to represent).
    pub(crate) init_deadline: Option<Instant>,
}

impl Claude {
    pub(crate) fn new(parts: Parts, driver: JoinHandle<()>) -> Self {
        Self {
            events: Events::new(parts.handoff.clone(), parts.input.clone()),
            parts,
            driver: Some(driver),
        }
    }

    /// A builder for a session with these options.
    pub fn builder(options: Options) -> ClaudeBuilder {
        ClaudeBuilder::new(options)
    }

    /// Spawns the CLI with `options`, no handlers and default limits.
    pub fn spawn(options: Options) -> Result<Claude, claude_proto_host::SpawnError> {
        ClaudeBuilder::new(options).spawn()
    }

    /// The child's process id (`None` over [`ClaudeBuilder::connect`]).
    pub fn pid(&self) -> Option<u32> {
        self.parts.pid
    }

    /// The CLI's answer to `initialize` (sent at start): its commands,
    /// models, account and version.
    ///
    /// Waits until the answer comes, the session ends (then the error
    /// carries the exit status and stderr), or the initialize timeout
    /// counted from the start passes, whichever is first.
    pub fn initialization(&self) -> Result<Arc<InitializeResponse>, Error> {
        match self.parts.shared.wait_init(self.parts.init_deadline) {
            Some(result) => result,
            None => Err(Error::TimedOut {
                subtype: "initialize".into(),
                after: self.parts.init_timeout,
                stall: self.parts.shared.stall(),
            }),
        }
    }

    /// Sends a prompt or any user message, queued after everything sent
    /// before; it does not wait for the turn.
    ///
    /// Waits only for the driver thread to take the message (never for the
    /// CLI to read it). `Ok` means it is queued for stdin and will be
    /// written unless the session ends first; an error means it was not
    /// queued: [`Error::Backlog`] when the CLI is not reading its stdin,
    /// [`Error::Ended`] after the end.
    pub fn send(&self, message: UserMessage) -> Result<(), Error> {
        self.send_turn(message).map(drop)
    }

    /// Sends a text prompt; see [`send`](Self::send).
    pub fn send_text(&self, text: impl Into<String>) -> Result<(), Error> {
        self.send(UserMessage::text(text))
    }

    fn send_turn(&self, message: UserMessage) -> Result<TurnId, Error> {
        let (waiter, reply) = sync_channel(1);
        self.command(Command::Send {
            message: Box::new(message),
            waiter,
        })?;
        match reply.recv() {
            Ok(Ok(CallReply::Sent { turn })) => Ok(turn),
            Ok(Err(error)) => Err(error),
            _ => Err(self.parts.shared.ended_error()),
        }
    }

    /// The next event, waiting for the CLI to write one; `None` once the
    /// session has ended and every event has been read.
    pub fn next_event(&mut self) -> Option<Event> {
        self.events.next()
    }

    /// The next event, waiting at most `timeout`: `Ok(None)` once the
    /// session has ended and every event has been read, `Err(Elapsed)` if
    /// none came in time.
    pub fn next_event_timeout(&mut self, timeout: Duration) -> Result<Option<Event>, Elapsed> {
        self.events.next_timeout(timeout)
    }

    /// The events, as an iterator (`for event in claude.events()`).
    pub fn events(&mut self) -> &mut Events {
        &mut self.events
    }

    /// Sends `prompt` and collects its turn, up to and including its
    /// `result`.
    ///
    /// The turn is the one this prompt starts, whatever was read before:
    /// unread events of earlier turns are skipped (and dropped). Waits for
    /// the CLI to finish the turn, or for the session to end (then the
    /// error carries the exit status and stderr); interrupt it from
    /// another thread to cut it short. If sending fails, nothing was sent.
    /// A line of the turn the typed model cannot read, or a `result` of an
    /// unknown shape, does not fail the turn: see [`Turn`].
    pub fn query(&mut self, prompt: impl Into<String>) -> Result<Turn, Error> {
        let turn = self.send_turn(UserMessage::text(prompt))?;
        self.collect(TurnCollector::new(turn))
    }

    /// Collects the events of the turn whose `result` you have not read
    /// yet, up to and including that `result`; waits as
    /// [`query`](Self::query) does.
    pub fn receive_turn(&mut self) -> Result<Turn, Error> {
        let turn = self.events.cursor().next_turn();
        self.collect(TurnCollector::new(turn))
    }

    fn collect(&mut self, mut collector: TurnCollector) -> Result<Turn, Error> {
        while let Ok(Some(delivery)) = self.events.next_delivery(None) {
            if let Step::Done(turn) = collector.push(delivery) {
                return Ok(*turn);
            }
        }
        Err(self.parts.shared.ended_error())
    }

    /// Sends any control request and waits for its answer.
    ///
    /// Returns by the deadline, `timeout` (default: the config's request
    /// timeout) counted from this call, whatever the CLI or the driver
    /// thread do: with the answer, the CLI's error, the session's end, or
    /// [`Error::TimedOut`] (naming the byte budget that kept the answer
    /// unread, if one did). After a timeout the request may still reach
    /// the CLI and take effect; its late answer is dropped.
    pub fn control(
        &self,
        request: ControlRequest,
        timeout: Option<Duration>,
    ) -> Result<ControlSuccess, Error> {
        let issued_at = Instant::now();
        let after = timeout
            .unwrap_or(self.parts.request_timeout)
            .min(MAX_DURATION);
        let subtype = request.subtype().to_owned();
        let (waiter, reply) = sync_channel(1);
        self.command(Command::Call {
            request: Box::new(request),
            timeout,
            issued_at,
            waiter,
        })?;
        let left = issued_at
            .checked_add(after)
            .map_or(after, |at| at.saturating_duration_since(Instant::now()));
        match reply.recv_timeout(left) {
            Ok(Ok(CallReply::Answered(success))) => Ok(success),
            Ok(Err(error)) => Err(error),
            Err(RecvTimeoutError::Timeout) => Err(Error::TimedOut {
                subtype,
                after,
                stall: self.parts.shared.stall(),
            }),
            _ => Err(self.parts.shared.ended_error()),
        }
    }

    /// Sends a typed control request and decodes its answer as the type
    /// the request names. Waits as [`control`](Self::control) does.
    pub fn call<C: ControlCall>(
        &self,
        request: C,
        timeout: Option<Duration>,
    ) -> Result<C::Response, Error> {
        Ok(self.control(request.into(), timeout)?.decode_as::<C>()?)
    }

    fn control_typed<T: DeserializeOwned>(&self, request: ControlRequest) -> Result<T, Error> {
        let success = self.control(request, None)?;
        success.decode().map_err(|e: DecodeError| e.into())
    }

    /// Interrupts the current turn; it ends with an error `result`. Waits
    /// as [`control`](Self::control) does, with the default timeout.
    pub fn interrupt(&self) -> Result<InterruptResponse, Error> {
        self.control_typed(ControlRequest::interrupt())
    }

    /// Switches the model (`None`: back to the default). Waits as
    /// [`control`](Self::control) does.
    pub fn set_model(&self, model: Option<&str>) -> Result<(), Error> {
        self.control(ControlRequest::set_model(model), None)
            .map(drop)
    }

    /// Switches the permission mode. Waits as [`control`](Self::control)
    /// does.
    pub fn set_permission_mode(&self, mode: PermissionMode) -> Result<(), Error> {
        self.control(ControlRequest::set_permission_mode(mode), None)
            .map(drop)
    }

    /// Sets the thinking budget (`None`: the default). Waits as
    /// [`control`](Self::control) does.
    pub fn set_max_thinking_tokens(&self, tokens: Option<u64>) -> Result<(), Error> {
        self.control(ControlRequest::set_max_thinking_tokens(tokens), None)
            .map(drop)
    }

    /// The status of every MCP server. Waits as [`control`](Self::control)
    /// does.
    pub fn mcp_status(&self) -> Result<McpStatusResponse, Error> {
        self.control_typed(ControlRequest::mcp_status())
    }

    /// How the context window is used. Waits as
    /// [`control`](Self::control) does.
    pub fn get_context_usage(&self) -> Result<ContextUsage, Error> {
        self.control_typed(ControlRequest::get_context_usage())
    }

    /// Rewinds files changed since the given user message (needs file
    /// checkpointing enabled in the options). Waits as
    /// [`control`](Self::control) does.
    pub fn rewind_files(
        &self,
        user_message_id: &str,
        dry_run: bool,
    ) -> Result<RewindFilesResult, Error> {
        self.control_typed(ControlRequest::rewind_files(user_message_id, dry_run))
    }

    /// Stops a background task. Waits as [`control`](Self::control) does.
    pub fn stop_task(&self, task_id: &str) -> Result<(), Error> {
        self.control(ControlRequest::stop_task(task_id), None)
            .map(drop)
    }

    /// Closes the CLI's stdin once everything sent is written: the CLI
    /// finishes its turn and exits, and the events then end. Requests from
    /// the CLI can no longer be answered after this. Does not wait (only
    /// for the driver thread to take the command); fails only once the
    /// session has ended.
    pub fn end_input(&self) -> Result<(), Error> {
        self.command(Command::EndInput)
    }

    /// Closes the session and waits for the end; returns how the CLI exited
    /// (`None` over [`ClaudeBuilder::connect`]). Unread events are dropped.
    ///
    /// Closes stdin, then sends SIGTERM after the close grace and SIGKILL
    /// after the terminate grace (see
    /// [`ShutdownPolicy`](claude_proto_process::ShutdownPolicy)), then
    /// reads what is left in the pipes for at most
    /// [`Limits::drain_after_exit`](claude_proto_host::Limits::drain_after_exit).
    /// So it returns within the sum of those three (plus the time a killed
    /// process takes to go), even if the CLI stopped reading, or a
    /// grandchild holds its pipes. Over `connect` it returns once the
    /// peer's output ends, or after the close grace. When it returns, every
    /// thread of a spawned session has ended except handler threads still
    /// running your closures (their [`CancelToken`](crate::CancelToken)s
    /// are cancelled) and the stderr callback, which it waits for.
    ///
    /// It fails only if the session's driver thread panicked (a bug); the
    /// CLI is killed and reaped all the same.
    pub fn close(mut self) -> Result<Option<ExitReport>, Error> {
        self.shut_down();
        if let Some(driver) = self.driver.take() {
            if driver.join().is_err() {
                return Err(self.parts.shared.ended_error());
            }
        }
        Ok(self
            .parts
            .shared
            .ended()
            .and_then(|ended| ended.report().cloned()))
    }

    /// Stops reading events and starts the close sequence. The input
    /// channel is emptied continuously by the driver, whatever the CLI
    /// does, so this never waits behind a CLI that stopped reading.
    fn shut_down(&mut self) {
        self.parts.handoff.close();
        let _ = self.parts.input.send(Input::Close);
    }

    /// Hands a command to the driver thread.
    fn command(&self, command: Command<crate::driver::Waiter>) -> Result<(), Error> {
        self.parts
            .input
            .send(Input::Command(command))
            .map_err(|_| self.parts.shared.ended_error())
    }
}

impl Drop for Claude {
    fn drop(&mut self) {
        if self.driver.is_some() {
            self.shut_down();
        }
    }
}
