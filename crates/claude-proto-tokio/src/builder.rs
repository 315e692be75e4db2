//! Configuring and starting a session.

use std::sync::Arc;

use claude_proto::options::Options;
use claude_proto_process::handlers::AsyncHandlers;
use claude_proto_process::host::InitState;
use claude_proto_process::{Error, SessionExit, Settings, build_command};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{Notify, Semaphore, mpsc, watch};

use crate::client::{Claude, Events};
use crate::driver::{BoxRead, BoxWrite, Driver, Shared};
use claude_proto_process::log;

/// Configures a session: the CLI's options, the protocol limits, and the
/// handlers that answer the CLI's requests. Finish with
/// [`spawn`](Self::spawn) or [`connect`](Self::connect).
#[derive(Debug)]
pub struct ClaudeBuilder {
    settings: Settings<AsyncHandlers>,
}

impl ClaudeBuilder {
    /// A builder with these CLI options and default limits.
    pub fn new(options: Options) -> Self {
        Self {
            settings: Settings::new(options),
        }
    }

    claude_proto_process::async_builder_methods!();

    /// Locates and starts the CLI, sends `initialize`, and returns at once
    /// (use [`Claude::initialization`] to wait for the answer). Must be
    /// called within a tokio runtime.
    pub async fn spawn(self) -> Result<Claude, Error> {
        let (program, command) = build_command(&self.settings.options)?;
        let mut command = tokio::process::Command::from(command);
        command.kill_on_drop(true);
        let mut child = command.spawn().map_err(|source| Error::Spawn {
            program: program.clone(),
            source,
        })?;
        log::debug(format_args!(
            "spawned {} as pid {:?}",
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
    /// grace. Must be called within a tokio runtime.
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
        child: Option<tokio::process::Child>,
    ) -> Claude {
        let pid = child.as_ref().and_then(tokio::process::Child::id);
        let settings = self.settings;
        let (event_capacity, command_capacity) =
            (settings.event_capacity, settings.command_capacity);
        let semaphore = Arc::new(Semaphore::new(settings.max_concurrent_handlers));
        let capabilities = settings.handlers.capabilities().clone();
        let (core, handlers) = settings.into_core(
            capabilities,
            child.is_some(),
            stderr.is_some(),
            tokio::time::Instant::now().into_std(),
        );
        let (command_tx, command_rx) = mpsc::channel(command_capacity);
        let (event_tx, event_rx) = mpsc::channel(event_capacity);
        let (init_tx, init_rx) = watch::channel(InitState::Pending);
        let shared = Arc::new(Shared {
            exit: SessionExit::default(),
            close: Notify::new(),
        });
        let driver = Driver {
            core,
            handlers: Arc::new(handlers),
            reader,
            writer: Some(writer),
            stderr,
            child,
            commands: command_rx,
            events: event_tx,
            init: init_tx,
            shared: shared.clone(),
            semaphore,
        };
        let driver = tokio::spawn(driver.run());
        Claude {
            commands: command_tx,
            events: Events { rx: event_rx },
            init: init_rx,
            shared,
            driver: Some(driver),
            pid,
        }
    }
}
