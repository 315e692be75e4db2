//! The handle users hold: send prompts, read events, control the session.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use claude_proto::ControlSuccess;
use claude_proto::model::control::{
    ContextUsage, ControlRequest, InterruptResponse, McpStatusResponse, RewindFilesResult,
};
use claude_proto::model::initialize::InitializeResponse;
use claude_proto::model::permission::PermissionMode;
use claude_proto::model::result::ResultMessage;
use claude_proto::model::stdout::StdoutMessage;
use claude_proto::model::user::UserMessage;
use claude_proto::options::Options;
use claude_proto_process::{Error, ExitReport};
use serde::de::DeserializeOwned;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;

use crate::builder::ClaudeBuilder;
use crate::driver::{Command, Shared};
use claude_proto_process::Event;
use claude_proto_process::host::InitState;

/// A live session with the Claude Code CLI.
///
/// Created by [`ClaudeBuilder::spawn`] (a `claude` child process) or
/// [`ClaudeBuilder::connect`] (any byte-stream pair). One background task
/// owns the protocol state; this handle talks to it through bounded
/// channels, so every method is cheap and cancel-safe to drop.
///
/// Read events with [`next_event`](Self::next_event) or the
/// [`Events`] stream: the session reads the CLI's output only as fast as you
/// consume events, so a slow consumer slows the CLI down instead of growing
/// memory. Control traffic (permission prompts, hooks, MCP calls) is handled
/// by the handlers given to the builder and never waits on you reading.
///
/// Dropping the handle closes the session in the background (stdin closed,
/// then SIGTERM, then SIGKILL after the grace periods); the child is also
/// killed if the runtime shuts down. Prefer [`close`](Self::close) to learn
/// how it exited.
#[derive(Debug)]
pub struct Claude {
    pub(crate) commands: mpsc::Sender<Command>,
    pub(crate) events: Events,
    pub(crate) init: watch::Receiver<InitState>,
    pub(crate) shared: Arc<Shared>,
    pub(crate) driver: Option<JoinHandle<()>>,
    pub(crate) pid: Option<u32>,
}

/// The stream of [`Event`]s of a session; ends when the CLI's output ends.
#[derive(Debug)]
pub struct Events {
    pub(crate) rx: mpsc::Receiver<Event>,
}

impl Events {
    /// The next event, or `None` once the session has ended.
    pub async fn next(&mut self) -> Option<Event> {
        self.rx.recv().await
    }
}

impl futures_core::Stream for Events {
    type Item = Event;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Event>> {
        self.rx.poll_recv(cx)
    }
}

/// One turn, from the prompt to its `result`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Turn {
    /// Every message of the turn in order, the result included.
    pub messages: Vec<StdoutMessage>,
    /// The turn's result: outcome, text, cost and usage.
    pub result: ResultMessage,
}

impl Turn {
    /// The result text (`None` for error results without one).
    pub fn text(&self) -> Option<&str> {
        self.result.result.as_deref()
    }
}

impl Claude {
    /// A builder for a session with these options.
    pub fn builder(options: Options) -> ClaudeBuilder {
        ClaudeBuilder::new(options)
    }

    /// Spawns the CLI with `options` and no handlers.
    pub async fn spawn(options: Options) -> Result<Claude, Error> {
        ClaudeBuilder::new(options).spawn().await
    }

    /// The child's process id (`None` over a custom transport).
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Waits for the CLI's answer to `initialize` (sent at start): its
    /// commands, models, account and version. Fails at once if the CLI
    /// exits first, with its exit status and stderr.
    pub async fn initialization(&self) -> Result<Arc<InitializeResponse>, Error> {
        let mut init = self.init.clone();
        let state = init
            .wait_for(|s| !matches!(s, InitState::Pending))
            .await
            .map_err(|_| self.shared.ended_error())?;
        state.outcome().unwrap_or(Err(Error::Closed))
    }

    /// Sends a prompt or any user message. It is written in order after
    /// everything sent before; it does not wait for the turn.
    pub async fn send(&self, message: UserMessage) -> Result<(), Error> {
        let (done, rx) = oneshot::channel();
        self.command(Command::Send {
            message: Box::new(message),
            done,
        })
        .await?;
        rx.await.map_err(|_| self.shared.ended_error())?
    }

    /// Sends a text prompt.
    pub async fn send_text(&self, text: impl Into<String>) -> Result<(), Error> {
        self.send(UserMessage::text(text)).await
    }

    /// The next event, or `None` once the session has ended.
    pub async fn next_event(&mut self) -> Option<Event> {
        self.events.next().await
    }

    /// The event stream.
    pub fn events(&mut self) -> &mut Events {
        &mut self.events
    }

    /// Sends `prompt` and collects the turn up to its `result`.
    pub async fn query(&mut self, prompt: impl Into<String>) -> Result<Turn, Error> {
        self.send_text(prompt).await?;
        self.receive_turn().await
    }

    /// Collects messages up to and including the next `result`.
    ///
    /// Protocol errors and handler failures on the way are skipped (they are
    /// not part of the conversation); if the CLI exits first, the error
    /// carries its exit status and stderr.
    pub async fn receive_turn(&mut self) -> Result<Turn, Error> {
        let mut messages = Vec::new();
        while let Some(event) = self.events.next().await {
            let Event::Message(message) = event else {
                continue;
            };
            if message.is_result() {
                let result: ResultMessage = message.deserialize()?;
                messages.push(StdoutMessage::Result(result.clone()));
                return Ok(Turn { messages, result });
            }
            messages.push(message.parse()?);
        }
        Err(match self.shared.exit.get() {
            Some(Some(report)) => Error::Exited(report.clone()),
            _ => Error::NoResult,
        })
    }

    /// Sends any control request and waits for its answer (or its timeout:
    /// `timeout`, else the session's default of 60 s).
    pub async fn control(
        &self,
        request: ControlRequest,
        timeout: Option<Duration>,
    ) -> Result<ControlSuccess, Error> {
        let (done, rx) = oneshot::channel();
        self.command(Command::Control {
            request: Box::new(request),
            timeout,
            done,
        })
        .await?;
        rx.await.map_err(|_| self.shared.ended_error())?
    }

    async fn control_typed<T: DeserializeOwned>(
        &self,
        request: ControlRequest,
    ) -> Result<T, Error> {
        Ok(self.control(request, None).await?.decode()?)
    }

    /// Interrupts the current turn; it ends with an error `result`.
    pub async fn interrupt(&self) -> Result<InterruptResponse, Error> {
        self.control_typed(ControlRequest::interrupt()).await
    }

    /// Switches the model (`None`: back to the default).
    pub async fn set_model(&self, model: Option<&str>) -> Result<(), Error> {
        self.control(ControlRequest::set_model(model), None).await?;
        Ok(())
    }

    /// Switches the permission mode.
    pub async fn set_permission_mode(&self, mode: PermissionMode) -> Result<(), Error> {
        self.control(ControlRequest::set_permission_mode(mode), None)
            .await?;
        Ok(())
    }

    /// Sets the thinking budget (`None`: the default).
    pub async fn set_max_thinking_tokens(&self, tokens: Option<u64>) -> Result<(), Error> {
        self.control(ControlRequest::set_max_thinking_tokens(tokens), None)
            .await?;
        Ok(())
    }

    /// The status of every MCP server.
    pub async fn mcp_status(&self) -> Result<McpStatusResponse, Error> {
        self.control_typed(ControlRequest::mcp_status()).await
    }

    /// How the context window is used.
    pub async fn get_context_usage(&self) -> Result<ContextUsage, Error> {
        self.control_typed(ControlRequest::get_context_usage())
            .await
    }

    /// Rewinds files changed since the given user message (needs file
    /// checkpointing enabled in the options).
    pub async fn rewind_files(
        &self,
        user_message_id: &str,
        dry_run: bool,
    ) -> Result<RewindFilesResult, Error> {
        self.control_typed(ControlRequest::rewind_files(user_message_id, dry_run))
            .await
    }

    /// Stops a background task.
    pub async fn stop_task(&self, task_id: &str) -> Result<(), Error> {
        self.control(ControlRequest::stop_task(task_id), None)
            .await?;
        Ok(())
    }

    /// Closes the CLI's stdin once everything sent is written: the CLI
    /// finishes its turn and exits, and the event stream then ends. Requests
    /// from the CLI can no longer be answered after this.
    pub async fn end_input(&self) -> Result<(), Error> {
        self.command(Command::EndInput).await
    }

    /// Closes the session: stdin closed, then SIGTERM after the close
    /// grace, then SIGKILL after the terminate grace (see
    /// [`ShutdownPolicy`](claude_proto_process::ShutdownPolicy)). Returns how
    /// the CLI exited (`None` over a custom transport). Unread events are
    /// dropped.
    pub async fn close(mut self) -> Result<Option<ExitReport>, Error> {
        // Not through the command queue: that one waits while stdin is
        // backed up, and a CLI that stopped reading must still be closable.
        self.shared.close.notify_one();
        // Stop reading events so the driver never waits on us.
        self.events.rx.close();
        while self.events.rx.recv().await.is_some() {}
        if let Some(driver) = self.driver.take() {
            driver.await.map_err(|e| {
                Error::Io(std::io::Error::other(format!(
                    "the session's driver task failed: {e}"
                )))
            })?;
        }
        Ok(self.shared.exit.get().cloned().flatten())
    }

    async fn command(&self, command: Command) -> Result<(), Error> {
        self.commands
            .send(command)
            .await
            .map_err(|_| self.shared.ended_error())
    }
}

impl Drop for Claude {
    fn drop(&mut self) {
        // The driver closes the session in the background (and the child is
        // killed with the runtime if that ends first).
        self.shared.close.notify_one();
    }
}
