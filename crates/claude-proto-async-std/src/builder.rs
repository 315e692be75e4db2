//! Configuring and starting a session.

use std::sync::Arc;

use async_lock::Semaphore;
use claude_proto::options::Options;
use claude_proto_process::handlers::AsyncHandlers;
use claude_proto_process::{Error, Settings, build_command};
use futures_lite::io::{AsyncRead, AsyncWrite};

use crate::client::{Claude, Events};
use crate::driver::{BoxRead, BoxWrite, Driver, Shared};
use crate::runtime::Runtime;
use claude_proto_process::log;

/// Configures a session: the CLI's options, the protocol limits, the
/// handlers that answer the CLI's requests, and the [`Runtime`] its tasks
/// run on. Finish with [`spawn`](Self::spawn) or [`connect`](Self::connect).
#[derive(Debug)]
pub struct ClaudeBuilder {
    settings: Settings<AsyncHandlers>,
    runtime: Runtime,
}

impl ClaudeBuilder {
    /// A builder with these CLI options and default limits.
    pub fn new(options: Options) -> Self {
        Self {
            settings: Settings::new(options),
            runtime: Runtime::default(),
        }
    }

    claude_proto_process::async_builder_methods!();

    /// The executor the session's tasks are spawned on (default: smol with
    /// the `smol` feature, async-std otherwise).
    pub fn runtime(mut self, runtime: Runtime) -> Self {
        self.runtime = runtime;
        self
    }

    /// Locates and starts the CLI, sends `initialize`, and returns at once
    /// (use [`Claude::initialization`] to wait for the answer). Works under
    /// async-std, smol, or any executor: the process and its pipes are
    /// driven by the `async-io` reactor.
    pub async fn spawn(self) -> Result<Claude, Error> {
        let (program, command) = build_command(&self.settings.options)?;
        let mut command = async_process::Command::from(command);
        // The conversion forgets the std command's stdio: pipe them again.
        command
            .stdin(async_process::Stdio::piped())
            .stdout(async_process::Stdio::piped())
            .stderr(async_process::Stdio::piped())
            .kill_on_drop(true);
        let mut child = command.spawn().map_err(|source| Error::Spawn {
            program: program.clone(),
            source,
        })?;
        log::debug(format_args!(
            "spawned {} as pid {}",
            program.display(),
            child.id()
        ));
        let missing = || {
            Error::Io(std::io::Error::other(
                "the child's standard streams were not piped",
            ))
        };
        let stdin = child.stdin.take().ok_or_else(missing)?;
        let stdout = child.stdout.take().ok_or_else(missing)?;
        let stderr = child.stderr.take().ok_or_else(missing)?;
        Ok(self.start(
            Box::pin(stdout),
            Box::pin(stdin),
            Some(Box::pin(stderr)),
            Some(child),
        ))
    }

    /// Runs the session over any byte-stream pair instead of a child
    /// process: `reader` carries what the CLI writes, `writer` what it
    /// reads (a socket to a CLI started elsewhere, an SSH channel, an
    /// in-memory pipe). Closing ends the writer and stops after the close
    /// grace.
    pub fn connect<R, W>(self, reader: R, writer: W) -> Claude
    where
        R: AsyncRead + Send + 'static,
        W: AsyncWrite + Send + 'static,
    {
        self.start(Box::pin(reader), Box::pin(writer), None, None)
    }

    fn start(
        self,
        reader: BoxRead,
        writer: BoxWrite,
        stderr: Option<BoxRead>,
        child: Option<async_process::Child>,
    ) -> Claude {
        let pid = child.as_ref().map(async_process::Child::id);
        let Self { settings, runtime } = self;
        let (event_capacity, command_capacity) =
            (settings.event_capacity, settings.command_capacity);
        let semaphore = Arc::new(Semaphore::new(settings.max_concurrent_handlers));
        let capabilities = settings.handlers.capabilities().clone();
        let (core, handlers) = settings.into_core(
            capabilities,
            child.is_some(),
            stderr.is_some(),
            std::time::Instant::now(),
        );
        let (command_tx, command_rx) = async_channel::bounded(command_capacity);
        let (event_tx, event_rx) = async_channel::bounded(event_capacity);
        let (close_tx, close_rx) = async_channel::bounded(1);
        let (done_tx, done_rx) = async_channel::bounded(1);
        let shared = Arc::new(Shared::default());
        let driver = Driver {
            core,
            handlers: Arc::new(handlers),
            runtime: runtime.clone(),
            reader,
            writer: Some(writer),
            stderr,
            child,
            commands: Box::pin(command_rx),
            close: Box::pin(close_rx),
            events: event_tx,
            shared: shared.clone(),
            semaphore,
            _done: done_tx,
        };
        runtime.spawn(Box::pin(driver.run()));
        Claude {
            commands: command_tx,
            events: Events {
                rx: Box::pin(event_rx),
            },
            close: close_tx,
            done: done_rx,
            shared,
            pid,
        }
    }
}
