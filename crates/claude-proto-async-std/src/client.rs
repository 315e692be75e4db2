//! The handle users hold: send prompts, read events, control the session.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use async_channel::{Receiver, Sender};
use claude_proto::ControlSuccess;
use claude_proto::model::control::ControlRequest;
use claude_proto::model::initialize::InitializeResponse;
use claude_proto::model::user::UserMessage;
use claude_proto::options::Options;
use claude_proto_process::{Error, Event, ExitReport, SessionExit};
use futures_lite::stream::Stream;

use crate::builder::ClaudeBuilder;
use crate::driver::{Command, Reply, Shared};

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
/// killed if the driver task is dropped by its executor. Prefer
/// [`close`](Self::close) to learn how it exited.
#[derive(Debug)]
pub struct Claude {
    pub(crate) commands: Sender<Command>,
    pub(crate) events: Events,
    pub(crate) close: Sender<()>,
    pub(crate) done: Receiver<()>,
    pub(crate) shared: Arc<Shared>,
    pub(crate) pid: Option<u32>,
}

/// The stream of [`Event`]s of a session; ends when the CLI's output ends.
#[derive(Debug)]
pub struct Events {
    pub(crate) rx: Pin<Box<Receiver<Event>>>,
}

impl Events {
    /// The next event, or `None` once the session has ended.
    pub async fn next(&mut self) -> Option<Event> {
        self.rx.recv().await.ok()
    }
}

impl Stream for Events {
    type Item = Event;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Event>> {
        self.rx.as_mut().poll_next(cx)
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
        let state = self.shared.init.wait().await;
        state.outcome().unwrap_or(Err(Error::Closed))
    }

    /// Sends a prompt or any user message. It is written in order after
    /// everything sent before; it does not wait for the turn.
    pub async fn send(&self, message: UserMessage) -> Result<(), Error> {
        self.ask(|done| Command::Send {
            message: Box::new(message),
            done,
        })
        .await
    }

    /// The next event, or `None` once the session has ended.
    pub async fn next_event(&mut self) -> Option<Event> {
        self.events.next().await
    }

    /// The event stream.
    pub fn events(&mut self) -> &mut Events {
        &mut self.events
    }

    /// Sends any control request and waits for its answer (or its timeout:
    /// `timeout`, else the session's default of 60 s).
    pub async fn control(
        &self,
        request: ControlRequest,
        timeout: Option<Duration>,
    ) -> Result<ControlSuccess, Error> {
        self.ask(|done| Command::Control {
            request: Box::new(request),
            timeout,
            done,
        })
        .await
    }

    claude_proto_process::async_session_methods!();

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
    pub async fn close(self) -> Result<Option<ExitReport>, Error> {
        // Not through the command queue: that one waits while stdin is
        // backed up, and a CLI that stopped reading must still be closable.
        let _ = self.close.try_send(());
        // Stop taking events so the driver never waits on us.
        self.events.rx.close();
        // The driver drops its end of `done` when it is over.
        let _ = self.done.recv().await;
        match self.shared.exit.get() {
            Some(exit) => Ok(exit.clone()),
            None => Err(Error::Io(std::io::Error::other(
                "the session's driver task stopped before the session ended",
            ))),
        }
    }

    fn session_exit(&self) -> &SessionExit {
        &self.shared.exit
    }

    /// Sends a command carrying a one-shot reply channel and waits for the
    /// reply.
    async fn ask<T>(&self, command: impl FnOnce(Reply<T>) -> Command) -> Result<T, Error> {
        let (done, answer) = async_channel::bounded(1);
        self.command(command(done)).await?;
        answer
            .recv()
            .await
            .map_err(|_| self.shared.exit.ended_error())?
    }

    async fn command(&self, command: Command) -> Result<(), Error> {
        self.commands
            .send(command)
            .await
            .map_err(|_| self.shared.exit.ended_error())
    }
}

impl Drop for Claude {
    fn drop(&mut self) {
        // The driver closes the session in the background (and the child is
        // killed if the driver task is dropped first).
        let _ = self.close.try_send(());
    }
}
