//! Configuring and starting a session.

use std::future::Future;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use claude_proto::Config;
use claude_proto::model::hooks::{HookEvent, HookInput, HookOutput};
use claude_proto::model::incoming::CanUseTool;
use claude_proto::model::initialize::InitializeRequest;
use claude_proto::model::permission::PermissionResult;
use claude_proto::options::Options;
use claude_proto_process::handlers::{AsyncHandlers, HandlerError, McpServer};
use claude_proto_process::host::InitState;
use claude_proto_process::{Error, HookOptions, Settings, ShutdownPolicy, build_command};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{Notify, Semaphore, mpsc, watch};

use crate::client::{Claude, Events};
use crate::driver::{BoxRead, BoxWrite, Driver, Shared};
use crate::log;

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

    /// Protocol limits: line length, request timeout, pending requests.
    pub fn config(mut self, config: Config) -> Self {
        self.settings.config = config;
        self
    }

    /// The `initialize` request's own fields: system prompt, agents, title,
    /// and so on. Hooks and in-process MCP servers registered on this
    /// builder are added to it.
    pub fn initialize_request(mut self, request: InitializeRequest) -> Self {
        self.settings.initialize = request;
        self
    }

    /// How long to wait for the answer to `initialize` (default: the
    /// config's request timeout).
    pub fn initialize_timeout(mut self, timeout: Duration) -> Self {
        self.settings.init_timeout = Some(timeout);
        self
    }

    /// Answers the CLI's permission prompts (`can_use_tool`).
    ///
    /// Registering it makes the CLI ask (`--permission-prompt-tool stdio`).
    /// The request's `tool_use_id` is echoed for you. If the handler fails
    /// or panics, the tool is denied.
    pub fn on_permission<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(CanUseTool) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<PermissionResult, HandlerError>> + Send + 'static,
    {
        self.settings.handlers.set_permission(handler);
        self.settings.options.permission_prompt_stdio = true;
        self
    }

    /// Registers a hook for `event`, called with the hook's input and the
    /// tool use id when there is one. Return `HookOutput::default()` for
    /// "no opinion". If it fails or panics, the CLI applies the matcher's
    /// `on_failure` (by default it continues).
    pub fn hook<F, Fut>(mut self, event: HookEvent, options: HookOptions, handler: F) -> Self
    where
        F: Fn(HookInput, Option<String>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<HookOutput, HandlerError>> + Send + 'static,
    {
        self.settings.handlers.add_hook(
            event,
            options.matcher,
            options.timeout_secs,
            options.on_failure,
            handler,
        );
        self
    }

    /// Hosts an in-process MCP server whose tools the model can call.
    pub fn mcp_server(mut self, server: McpServer) -> Self {
        self.settings.handlers.add_mcp_server(server);
        self
    }

    /// How [`Claude::close`] and dropping the handle end the process.
    pub fn shutdown_policy(mut self, policy: ShutdownPolicy) -> Self {
        self.settings.shutdown = policy;
        self
    }

    /// How many events may wait for you to read them (default 256). The
    /// CLI's output is read no faster than that.
    pub fn event_capacity(mut self, capacity: usize) -> Self {
        self.settings.event_capacity = capacity.max(1);
        self
    }

    /// How many handlers may run at once (default 16); further requests
    /// wait their turn.
    pub fn max_concurrent_handlers(mut self, limit: usize) -> Self {
        self.settings.max_concurrent_handlers = limit.max(1);
        self
    }

    /// Called with each line the CLI writes to stderr. stderr is always
    /// drained, and its last bytes kept for error reports, callback or not.
    pub fn on_stderr(mut self, callback: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.settings.stderr_callback = Some(Arc::new(callback));
        self
    }

    /// How many bytes of stderr to keep for error reports (default 8 KiB).
    pub fn stderr_tail(mut self, bytes: usize) -> Self {
        self.settings.stderr_tail = bytes;
        self
    }

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
            exit: OnceLock::new(),
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
