//! The handle users hold: send prompts, read events, control the session.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use claude_proto::ControlSuccess;
use claude_proto::model::control::{
    ContextUsage, ControlRequest, InterruptResponse, McpStatusResponse, RewindFilesResult,
};
use claude_proto::model::initialize::InitializeResponse;
use claude_proto::model::permission::PermissionMode;
use claude_proto::model::user::UserMessage;
use claude_proto::options::Options;
use claude_proto_process::session::TurnCollector;
use claude_proto_process::{Error, Event, ExitReport, Turn};
use serde::de::DeserializeOwned;

use crate::builder::ClaudeBuilder;
use crate::driver::{Command, Input, Shared};

/// A live session with the Claude Code CLI, driven from blocking code.
///
/// Created by [`ClaudeBuilder::spawn`] (a `claude` child process) or
/// [`ClaudeBuilder::connect`] (any reader/writer pair). One driver thread
/// owns the protocol state; this handle talks to it through bounded
/// channels. Every method blocks the calling thread only: until its
/// command is taken, its answer arrives, or the session's timeout for it
/// passes (the core times every control request out, so nothing waits
/// forever on a silent CLI).
///
/// Read events with [`next_event`](Self::next_event) or the [`Events`]
/// iterator: the session reads the CLI's output only as fast as you take
/// events, so a slow consumer slows the CLI down instead of growing memory.
/// Control traffic (permission prompts, hooks, MCP calls) is handled by the
/// builder's handlers on handler threads and never waits on you reading.
///
/// Dropping the handle closes the session in the background (stdin closed,
/// then SIGTERM, then SIGKILL after the grace periods, and the child
/// reaped), on the driver thread. Prefer [`close`](Self::close) to learn
/// how it exited.
#[derive(Debug)]
pub struct Claude {
    pub(crate) commands: SyncSender<Command>,
    pub(crate) input: SyncSender<Input>,
    pub(crate) events: Events,
    pub(crate) shared: Arc<Shared>,
    pub(crate) driver: Option<JoinHandle<()>>,
    pub(crate) pid: Option<u32>,
}

/// The [`Event`]s of a session, as a blocking iterator that ends when the
/// CLI's output ends.
#[derive(Debug)]
pub struct Events {
    // In a mutex only so the handle is `Sync`; reading takes `&mut self`,
    // which never locks.
    pub(crate) rx: Mutex<Receiver<Vec<Event>>>,
    /// The batch being read (events arrive in batches, see the driver).
    pub(crate) batch: VecDeque<Event>,
    pub(crate) input: SyncSender<Input>,
    pub(crate) shared: Arc<Shared>,
}

/// [`Claude::next_event_timeout`] found no event in time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Elapsed;

impl std::fmt::Display for Elapsed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("no event arrived in time")
    }
}

impl std::error::Error for Elapsed {}

impl Events {
    fn rx(&mut self) -> &mut Receiver<Vec<Event>> {
        self.rx.get_mut().unwrap_or_else(PoisonError::into_inner)
    }

    /// Tells the driver there is room again, if it waits for that.
    fn took(&self) {
        if self.shared.want_room.swap(false, Ordering::SeqCst) {
            let _ = self.input.send(Input::Room);
        }
    }

    /// The next event, waiting at most `timeout`: `Ok(None)` once the
    /// session has ended.
    pub fn next_timeout(&mut self, timeout: Duration) -> Result<Option<Event>, Elapsed> {
        if let Some(event) = self.batch.pop_front() {
            return Ok(Some(event));
        }
        match self.rx().recv_timeout(timeout) {
            Ok(batch) => {
                self.took();
                self.batch.extend(batch);
                Ok(self.batch.pop_front())
            }
            Err(RecvTimeoutError::Timeout) => Err(Elapsed),
            Err(RecvTimeoutError::Disconnected) => Ok(None),
        }
    }

    /// Stops reading: the driver drops events from now on (it still reads
    /// the CLI, so the CLI is never blocked).
    fn close(&mut self) {
        *self.rx() = sync_channel(0).1;
        self.batch.clear();
    }
}

impl Iterator for Events {
    type Item = Event;

    /// The next event, or `None` once the session has ended.
    fn next(&mut self) -> Option<Event> {
        if let Some(event) = self.batch.pop_front() {
            return Some(event);
        }
        let batch = self.rx().recv().ok()?;
        self.took();
        self.batch.extend(batch);
        self.batch.pop_front()
    }
}

impl Claude {
    /// A builder for a session with these options.
    pub fn builder(options: Options) -> ClaudeBuilder {
        ClaudeBuilder::new(options)
    }

    /// Spawns the CLI with `options` and no handlers.
    pub fn spawn(options: Options) -> Result<Claude, Error> {
        ClaudeBuilder::new(options).spawn()
    }

    /// The child's process id (`None` over a custom transport).
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Waits for the CLI's answer to `initialize` (sent at start): its
    /// commands, models, account and version. Fails at once if the CLI
    /// exits first, with its exit status and stderr.
    pub fn initialization(&self) -> Result<Arc<InitializeResponse>, Error> {
        self.shared
            .wait_init()
            .outcome()
            .unwrap_or(Err(Error::Closed))
    }

    /// Sends a prompt or any user message. It is written in order after
    /// everything sent before; it does not wait for the turn.
    pub fn send(&self, message: UserMessage) -> Result<(), Error> {
        let (done, rx) = sync_channel(1);
        self.command(Command::Send {
            message: Box::new(message),
            done,
        })?;
        rx.recv().map_err(|_| self.shared.exit.ended_error())?
    }

    /// Sends a text prompt.
    pub fn send_text(&self, text: impl Into<String>) -> Result<(), Error> {
        self.send(UserMessage::text(text))
    }

    /// The next event, or `None` once the session has ended.
    pub fn next_event(&mut self) -> Option<Event> {
        self.events.next()
    }

    /// The next event, waiting at most `timeout`: `Ok(None)` once the
    /// session has ended, `Err(Elapsed)` if nothing came in time.
    pub fn next_event_timeout(&mut self, timeout: Duration) -> Result<Option<Event>, Elapsed> {
        self.events.next_timeout(timeout)
    }

    /// The events, as an iterator (`for event in claude.events()`).
    pub fn events(&mut self) -> &mut Events {
        &mut self.events
    }

    /// Sends `prompt` and collects the turn up to its `result`.
    pub fn query(&mut self, prompt: impl Into<String>) -> Result<Turn, Error> {
        self.send_text(prompt)?;
        self.receive_turn()
    }

    /// Collects messages up to and including the next `result`.
    ///
    /// Protocol errors and handler failures on the way are skipped (they are
    /// not part of the conversation); if the CLI exits first, the error
    /// carries its exit status and stderr.
    pub fn receive_turn(&mut self) -> Result<Turn, Error> {
        let mut turn = TurnCollector::default();
        for event in &mut self.events {
            if let Some(done) = turn.push(event)? {
                return Ok(done);
            }
        }
        Err(turn.ended(&self.shared.exit))
    }

    /// Sends any control request and waits for its answer (or its timeout:
    /// `timeout`, else the session's default of 60 s).
    pub fn control(
        &self,
        request: ControlRequest,
        timeout: Option<Duration>,
    ) -> Result<ControlSuccess, Error> {
        let (done, rx) = sync_channel(1);
        self.command(Command::Control {
            request: Box::new(request),
            timeout,
            done,
        })?;
        rx.recv().map_err(|_| self.shared.exit.ended_error())?
    }

    fn control_typed<T: DeserializeOwned>(&self, request: ControlRequest) -> Result<T, Error> {
        Ok(self.control(request, None)?.decode()?)
    }

    /// Interrupts the current turn; it ends with an error `result`.
    pub fn interrupt(&self) -> Result<InterruptResponse, Error> {
        self.control_typed(ControlRequest::interrupt())
    }

    /// Switches the model (`None`: back to the default).
    pub fn set_model(&self, model: Option<&str>) -> Result<(), Error> {
        self.control(ControlRequest::set_model(model), None)?;
        Ok(())
    }

    /// Switches the permission mode.
    pub fn set_permission_mode(&self, mode: PermissionMode) -> Result<(), Error> {
        self.control(ControlRequest::set_permission_mode(mode), None)?;
        Ok(())
    }

    /// Sets the thinking budget (`None`: the default).
    pub fn set_max_thinking_tokens(&self, tokens: Option<u64>) -> Result<(), Error> {
        self.control(ControlRequest::set_max_thinking_tokens(tokens), None)?;
        Ok(())
    }

    /// The status of every MCP server.
    pub fn mcp_status(&self) -> Result<McpStatusResponse, Error> {
        self.control_typed(ControlRequest::mcp_status())
    }

    /// How the context window is used.
    pub fn get_context_usage(&self) -> Result<ContextUsage, Error> {
        self.control_typed(ControlRequest::get_context_usage())
    }

    /// Rewinds files changed since the given user message (needs file
    /// checkpointing enabled in the options).
    pub fn rewind_files(
        &self,
        user_message_id: &str,
        dry_run: bool,
    ) -> Result<RewindFilesResult, Error> {
        self.control_typed(ControlRequest::rewind_files(user_message_id, dry_run))
    }

    /// Stops a background task.
    pub fn stop_task(&self, task_id: &str) -> Result<(), Error> {
        self.control(ControlRequest::stop_task(task_id), None)?;
        Ok(())
    }

    /// Closes the CLI's stdin once everything sent is written: the CLI
    /// finishes its turn and exits, and the events then end. Requests from
    /// the CLI can no longer be answered after this.
    pub fn end_input(&self) -> Result<(), Error> {
        self.command(Command::EndInput)
    }

    /// Closes the session and waits for the end: stdin closed, then SIGTERM
    /// after the close grace, then SIGKILL after the terminate grace (see
    /// [`ShutdownPolicy`](claude_proto_process::ShutdownPolicy)). Returns
    /// how the CLI exited (`None` over a custom transport). Unread events
    /// are dropped.
    pub fn close(mut self) -> Result<Option<ExitReport>, Error> {
        // Not through the command channel: that one waits while stdin is
        // backed up, and a CLI that stopped reading must still be closable.
        let _ = self.input.send(Input::Close);
        // Stop reading events so the driver never waits on us.
        self.events.close();
        if let Some(driver) = self.driver.take() {
            driver.join().map_err(|_| {
                Error::Io(std::io::Error::other(
                    "the session's driver thread panicked",
                ))
            })?;
        }
        Ok(self.shared.exit.report())
    }

    /// Queues a command (waiting while the command channel is full), then
    /// rings the driver.
    fn command(&self, command: Command) -> Result<(), Error> {
        self.commands
            .send(command)
            .map_err(|_| self.shared.exit.ended_error())?;
        let _ = self.input.send(Input::Command);
        Ok(())
    }
}

impl Drop for Claude {
    fn drop(&mut self) {
        // The driver thread closes the session in the background; the
        // dropped event receiver tells it nobody reads events any more.
        let _ = self.input.send(Input::Close);
    }
}
