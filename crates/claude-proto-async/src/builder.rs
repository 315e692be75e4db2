//! Configuring and starting a session.

use claude_proto_adapter::handlers::AsyncHandler;
use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use claude_proto::dispatch::IntoHandlerResult;
use claude_proto::model::hooks::{Hook, HookEvent, HookInput, HookOutput, IntoHookOutput};
use claude_proto::model::incoming::{
    CanUseTool, ElicitationRequest, ElicitationResult, UserDialogRequest, UserDialogResult,
};
use claude_proto::model::permission::PermissionResult;
use claude_proto::options::Options;
use claude_proto_adapter::spare;
use claude_proto_adapter::{
    Configure, HookOptions, McpEndpoint, McpOutlet, McpReply, Settings, load_timed_out,
    mcp_answer_from_cli, mcp_message_to_cli, with_deadline,
};
use claude_proto_host::{CallReply, Error, Host, SpawnError, Transport, deadline};
use claude_proto_process::{StderrLines, log};

use crate::client::Claude;
use crate::driver::{Driver, Pipes};
use crate::handlers::{AsyncHandlers, McpServer};
use crate::oneshot;
use crate::runtime::{BoxReader, BoxWriter, Connect, Runtime};
use crate::shared::{Shared, Waiter};
use crate::spare::Spare;

/// What [`ClaudeBuilder::spawn_as`] starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum As {
    Session,
    Spare,
}

/// Configures a session: the CLI's options, the limits, the handlers that
/// answer the CLI's requests, and the runtime. Finish with
/// [`spawn`](Self::spawn) or [`connect`](Self::connect).
///
/// The limits, the close sequence, the stderr callback and the extra
/// fields of `initialize` are set with the methods of [`Configure`], the
/// same on every adapter; bring it into scope (it is in the prelude of
/// each runtime's crate):
///
/// ```no_run
/// # fn demo<R: claude_proto_async::Runtime>() {
/// use claude_proto_async::{ClaudeBuilder, Configure, Options};
///
/// let builder = ClaudeBuilder::<R>::new(Options::default())
///     .read_ahead_bytes(16 << 20)
///     .max_concurrent_handlers(4);
/// # }
/// ```
///
/// Handlers run as tasks of their own on the runtime. The stderr callback
/// ([`Configure::on_stderr`]) runs in the session's driver task, which
/// also routes the CLI's output: a slow one holds the session up, so keep
/// it quick.
///
/// Values that cannot work (a zero or huge budget, a grace period too long
/// to add to a clock reading) are refused by `spawn` and `connect` with
/// [`SpawnError::Limits`], before anything is started.
#[must_use = "a builder starts nothing until `spawn` or `connect`"]
pub struct ClaudeBuilder<R: Runtime> {
    pub(crate) settings: Settings<AsyncHandlers>,
    runtime: Option<R>,
}

impl<R: Runtime> fmt::Debug for ClaudeBuilder<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClaudeBuilder")
            .field("settings", &self.settings)
            .field("runtime", &self.runtime.is_some())
            .finish()
    }
}

impl<R: Runtime> Configure for ClaudeBuilder<R> {
    type Handlers = AsyncHandlers;

    fn settings_mut(&mut self) -> &mut Settings<AsyncHandlers> {
        &mut self.settings
    }
}

impl<R: Runtime> ClaudeBuilder<R> {
    /// A builder with these CLI options and default limits, on the runtime
    /// the caller runs on (if any; else give one with
    /// [`runtime`](Self::runtime) or call `spawn` inside one).
    pub fn new(options: Options) -> Self {
        Self {
            settings: Settings::new(options),
            runtime: R::current().ok(),
        }
    }

    /// The runtime the session runs on.
    pub fn runtime(mut self, runtime: R) -> Self {
        self.runtime = Some(runtime);
        self
    }

    /// Answers the CLI's permission prompts (`can_use_tool`).
    ///
    /// `handler` is an `async fn`, an async closure (`async |ask| ...`) or
    /// a closure returning a `Send + 'static` future; it answers with a
    /// [`PermissionResult`] or a `Result<PermissionResult, HandlerError>`.
    /// Registering it makes the CLI ask (`--permission-prompt-tool stdio`).
    /// The request's `tool_use_id` is echoed for you. If the handler fails
    /// or panics, the tool is denied; if the CLI withdraws the prompt, the
    /// handler's future is dropped.
    ///
    /// The future runs as a task of its own, so it must be `Send` and
    /// `'static`: an async closure that borrows what it captures (`async
    /// move |ask| state.use_it()`) implements only `AsyncFn`, whose future
    /// cannot be required to be `Send` on stable Rust. Share state with
    /// [`with_state`](crate::with_state), which hands each call a clone:
    /// `.on_permission(with_state(log, async |log, ask: CanUseTool| ...))`.
    ///
    /// ```no_run
    /// # async fn demo<R: claude_proto_async::Runtime>() {
    /// use claude_proto::model::incoming::CanUseTool;
    /// use claude_proto::model::permission::PermissionResult;
    /// use claude_proto_async::{ClaudeBuilder, Options};
    ///
    /// async fn only_reads(ask: CanUseTool) -> PermissionResult {
    ///     if ask.tool_name == "Read" {
    ///         PermissionResult::allow()
    ///     } else {
    ///         PermissionResult::deny("only reading is allowed")
    ///     }
    /// }
    ///
    /// let builder = ClaudeBuilder::<R>::new(Options::default()).on_permission(only_reads);
    /// // Or inline:
    /// let builder = ClaudeBuilder::<R>::new(Options::default())
    ///     .on_permission(async |ask| PermissionResult::deny(format!("no {}", ask.tool_name)));
    /// # }
    /// ```
    ///
    /// A handler must answer with a permission result:
    ///
    /// ```compile_fail
    /// # fn demo<R: claude_proto_async::Runtime>() {
    /// # use claude_proto_async::{ClaudeBuilder, Options};
    /// ClaudeBuilder::<R>::new(Options::default()).on_permission(async |_ask| true);
    /// # }
    /// ```
    pub fn on_permission<F, Fut>(mut self, handler: F) -> Self
    where
        F: AsyncHandler<CanUseTool, Fut>,
        Fut: Future + Send + 'static,
        Fut::Output: IntoHandlerResult<PermissionResult>,
    {
        self.settings.handlers.set_permission(handler);
        self.settings.options.permission_prompt_stdio = true;
        self
    }

    /// Registers a typed hook: `hook` is the event's marker type (such as
    /// [`PreToolUse`](claude_proto::model::hooks::PreToolUse)), and
    /// `handler` gets that event's own input and answers with its own
    /// output type, a plain [`HookOutput`], or either in a
    /// `Result<_, HandlerError>` (see [`Hook`] and [`IntoHookOutput`]).
    /// `options` sets the matcher (for tool events, a pattern of tool
    /// names such as `Bash`), timeout and failure mode. If the handler
    /// fails or panics, the CLI applies the matcher's `on_failure` (by
    /// default it continues).
    ///
    /// ```no_run
    /// # fn demo<R: claude_proto_async::Runtime>() {
    /// use claude_proto::model::hooks::{PreToolUse, PreToolUseInput, PreToolUseOutput};
    /// use claude_proto_async::{ClaudeBuilder, HookOptions, Options};
    ///
    /// let builder = ClaudeBuilder::<R>::new(Options::default()).hook(
    ///     PreToolUse,
    ///     HookOptions::matching("Bash"),
    ///     async |input: PreToolUseInput| {
    ///         let command = input.tool_input["command"].as_str().unwrap_or_default();
    ///         if command.contains("rm -rf") {
    ///             PreToolUseOutput::deny("destructive command")
    ///         } else {
    ///             PreToolUseOutput::default()
    ///         }
    ///     },
    /// );
    /// # }
    /// ```
    ///
    /// A hook answers with its own event's output:
    ///
    /// ```compile_fail
    /// # fn demo<R: claude_proto_async::Runtime>() {
    /// # use claude_proto::model::hooks::{PreToolUse, PreToolUseInput, SessionStartOutput};
    /// # use claude_proto_async::{ClaudeBuilder, HookOptions, Options};
    /// ClaudeBuilder::<R>::new(Options::default()).hook(
    ///     PreToolUse,
    ///     HookOptions::default(),
    ///     async |_: PreToolUseInput| SessionStartOutput::default(),
    /// );
    /// # }
    /// ```
    pub fn hook<H, F, Fut>(mut self, hook: H, options: HookOptions, handler: F) -> Self
    where
        H: Hook,
        F: AsyncHandler<H::Input, Fut>,
        Fut: Future + Send + 'static,
        Fut::Output: IntoHookOutput<H>,
    {
        let _ = hook;
        self.settings
            .handlers
            .add_hook::<H, F, Fut>(options, handler);
        self
    }

    /// Registers a hook for `event` taking the whole [`HookInput`] and the
    /// tool use id when there is one: the escape hatch beside
    /// [`hook`](Self::hook), for events this crate does not know. Return
    /// `HookOutput::default()` for "no opinion".
    pub fn hook_untyped<F, Fut>(
        mut self,
        event: HookEvent,
        options: HookOptions,
        handler: F,
    ) -> Self
    where
        F: Fn(HookInput, Option<String>) -> Fut + Send + Sync + 'static,
        Fut: Future + Send + 'static,
        Fut::Output: IntoHandlerResult<HookOutput>,
    {
        self.settings
            .handlers
            .add_hook_untyped(event, options, handler);
        self
    }

    /// Answers elicitations: an MCP server (of the CLI's, or yours) asking
    /// the user for input, in a form (`requested_schema`) or at a URL.
    /// `handler` answers with an
    /// [`ElicitationResult`](claude_proto::model::incoming::ElicitationResult)
    /// (`accept(content)`, `decline()`, `cancel()`). Without one, every
    /// elicitation is declined; if the handler fails or panics, it is
    /// declined too. The future runs as a task of its own, as
    /// [`on_permission`](Self::on_permission)'s does.
    pub fn on_elicitation<F, Fut>(mut self, handler: F) -> Self
    where
        F: AsyncHandler<ElicitationRequest, Fut>,
        Fut: Future + Send + 'static,
        Fut::Output: IntoHandlerResult<ElicitationResult>,
    {
        self.settings.handlers.set_elicitation(handler);
        self
    }

    /// Shows the CLI's dialogs of these `kinds` (such as
    /// `refusal_fallback_prompt`), which `initialize` then advertises
    /// (`supportedDialogKinds`; nothing is advertised without a handler).
    /// `handler` answers with a
    /// [`UserDialogResult`](claude_proto::model::incoming::UserDialogResult)
    /// (`completed(result)` or `cancelled()`); if it fails or panics, the
    /// dialog is cancelled.
    pub fn on_user_dialog<F, Fut>(
        mut self,
        kinds: impl IntoIterator<Item = impl Into<String>>,
        handler: F,
    ) -> Self
    where
        F: AsyncHandler<UserDialogRequest, Fut>,
        Fut: Future + Send + 'static,
        Fut::Output: IntoHandlerResult<UserDialogResult>,
    {
        let kinds = kinds.into_iter().map(Into::into).collect();
        self.settings.handlers.set_user_dialog(kinds, handler);
        self
    }

    /// Hosts an in-process MCP server whose tools the model can call.
    pub fn mcp_server(mut self, server: McpServer) -> Self {
        self.settings.handlers.add_mcp_server(server);
        self
    }

    /// Hosts an in-process MCP server that speaks MCP itself under `name`
    /// (an `rmcp` server through `claude_proto_rmcp::RmcpEndpoint`, or any
    /// [`McpEndpoint`]): every message the CLI sends to `name` reaches it
    /// unchanged, and its own notifications reach the CLI. Replaces a
    /// server of the same name.
    pub fn mcp_endpoint(mut self, name: impl Into<String>, endpoint: impl McpEndpoint) -> Self {
        self.settings
            .handlers
            .add_mcp_endpoint(name, Arc::new(endpoint));
        self
    }

    /// Checks the limits, locates and starts the CLI, sends `initialize`,
    /// and returns at once (use [`Controller::initialization`](crate::Controller::initialization) to wait for the
    /// answer). Nothing is started if a limit cannot work.
    ///
    /// Without a runtime given to [`runtime`](Self::runtime), the one the
    /// builder was created in is used, or else the one this is called in.
    ///
    /// With a [session store](Configure::session_store) and options that
    /// resume, the session is first loaded from the store into a private
    /// temporary config directory (bounded by the store's `load_timeout`),
    /// removed when the session ends.
    ///
    /// Cancel-safe: otherwise it never waits, so once polled it has
    /// finished; a future dropped unpolled started nothing, and one
    /// dropped while loading from the store leaves nothing on disk.
    pub async fn spawn(self) -> Result<Claude<R>, SpawnError> {
        self.spawn_as(As::Session).await
    }

    /// Starts the session before its first prompt is known, as the
    /// TypeScript SDK's `startup()`: spawns the CLI and waits for its
    /// answer to `initialize` (within the limits' `initialize_timeout`), so
    /// the first [`query`](Claude::query) meets a CLI that has done its
    /// start-up. The session is then like any other.
    ///
    /// Fails as [`spawn`](Self::spawn) does, or with the error that ended
    /// the start-up (the CLI's exit with its stderr, a timeout); nothing is
    /// left running then. Cancel-safe: a future dropped while it waits
    /// drops the session, which closes it.
    pub async fn startup(self) -> Result<Claude<R>, Error> {
        let claude = self.spawn().await?;
        claude.initialization().await?;
        Ok(claude)
    }

    /// Starts a **spare**: a CLI that does its start-up now (process,
    /// config, auth, tools, plugins, the in-process MCP servers and
    /// handlers of this builder, `initialize`) for a session not known
    /// yet, parked in a private directory with `--await-claim`, until
    /// [`Spare::claim`] binds it to a folder. Returns once the spare has
    /// answered `initialize`.
    ///
    /// Everything set on this builder is fixed for the spare's life; a
    /// claim can set only what [`Claim`](claude_proto_host::Claim) names.
    /// The options must not describe a session (resume, continue, fork) and
    /// the builder must have no session store
    /// ([`SpawnError::NotForASpare`]). With `Options::cwd` set, the spare
    /// parks there: never the folder of a session it will serve.
    ///
    /// A parked spare holds what a started CLI holds (about 230 to 260 MB
    /// for the pinned CLI) and is otherwise idle. It is owned like any
    /// session: dropped, it is closed and its parking directory removed.
    pub async fn prewarm(self) -> Result<Spare<R>, Error> {
        let claude = self.spawn_as(As::Spare).await?;
        claude.initialization().await?;
        Ok(Spare::new(claude))
    }

    async fn spawn_as(self, start: As) -> Result<Claude<R>, SpawnError> {
        let runtime = self.resolve_runtime()?;
        let mut host = self.host(&runtime, Transport::Process)?;
        let loaded = match self.settings.resume_load() {
            Some(load) => {
                let timeout = self
                    .settings
                    .store
                    .as_ref()
                    .map_or(Duration::MAX, |s| s.load_timeout);
                let sleep = runtime.sleep_until(deadline(runtime.now(), timeout));
                let loaded = with_deadline(load, sleep).await;
                Some(loaded.ok_or_else(|| load_timed_out(timeout))??)
            }
            None => None,
        };
        let mut prepared = self.settings.prepared(&mut host, loaded);
        if start == As::Spare {
            spare::park(&mut prepared, self.settings.store.is_some())?;
            host.park();
        }
        let mut spawned = claude_proto_process::spawn(&prepared.options)?;
        // From here a failure drops `spawned.process`, which kills and
        // reaps the child.
        let pid = spawned.process.id();
        let stdin = runtime.stdin(spawned.stdin)?;
        let stdout = runtime.stdout(spawned.stdout)?;
        let stderr = runtime.stderr(spawned.stderr)?;
        let (exited, exit) = oneshot::channel();
        spawned
            .process
            .watch_exit(self.settings.limits.term_grace, move |status| {
                exited.send(status)
            })?;
        let pipes = Pipes {
            stdin,
            stdout,
            stderr: Some(stderr),
            process: Some(spawned.process),
            exit: Some(exit),
            session_dir: prepared.dir,
        };
        Ok(self.start(runtime, host, pipes, Some(pid)))
    }

    /// Runs the session over any byte-stream pair instead of a child
    /// process: `reader` carries what the CLI writes, `writer` what it
    /// reads (a socket to a CLI started elsewhere, an SSH channel, an
    /// in-memory pipe), in the runtime's own I/O types. Closing ends the
    /// writer and stops reading after the close grace.
    pub fn connect<Rd, Wr>(self, reader: Rd, writer: Wr) -> Result<Claude<R>, SpawnError>
    where
        R: Connect<Rd, Wr>,
    {
        let runtime = self.resolve_runtime()?;
        let host = self.host(&runtime, Transport::Stream)?;
        let (reader, writer): (BoxReader, BoxWriter) = R::wrap(reader, writer);
        let pipes = Pipes {
            stdin: writer,
            stdout: reader,
            stderr: None,
            process: None,
            exit: None,
            session_dir: None,
        };
        Ok(self.start(runtime, host, pipes, None))
    }

    fn resolve_runtime(&self) -> Result<R, SpawnError> {
        match &self.runtime {
            Some(runtime) => Ok(runtime.clone()),
            None => Ok(R::current()?),
        }
    }

    /// The host, which refuses limits that cannot work.
    fn host(&self, runtime: &R, transport: Transport) -> Result<Host<Waiter>, SpawnError> {
        let capabilities = self.settings.handlers.capabilities();
        self.settings.host(capabilities, transport, runtime.now())
    }

    fn start(self, runtime: R, host: Host<Waiter>, pipes: Pipes, pid: Option<u32>) -> Claude<R> {
        if let Some(pid) = pid {
            log::debug(format_args!("the CLI runs as pid {pid}"));
        }
        let shared = Arc::new(Shared::new(self.settings.limits.read_ahead_bytes));
        let tools = self.settings.handlers.live_tools();
        for (name, endpoint) in self.settings.handlers.mcp_endpoints() {
            endpoint.connect(mcp_outlet(name, shared.clone(), runtime.clone()));
        }
        let stderr_lines = StderrLines::new(self.settings.stderr_callback);
        let driver = Driver::new(
            runtime.clone(),
            host,
            self.settings.handlers,
            self.settings.store.map(|store| store.store),
            shared.clone(),
            pipes,
            stderr_lines,
        );
        runtime.spawn(Box::pin(driver));
        Claude::new(shared, runtime, pid, tools)
    }
}

/// Where the endpoint server `server`'s own messages go: each becomes an
/// `mcp_message` control request, sent like a controller's call. Nobody
/// awaits a notification's acknowledgement; a request's answer is carried
/// back to the server by a task of the runtime.
fn mcp_outlet<R: Runtime>(server: &str, shared: Arc<Shared>, runtime: R) -> McpOutlet {
    let server = server.to_owned();
    let spawner = runtime.clone();
    let send = move |message, waiter| {
        // An error means the session is over: the waiter is dropped with
        // the command, and a request's answer fails.
        let _ = shared.push_command(claude_proto_host::Command::Call {
            request: Box::new(mcp_message_to_cli(&server, message)),
            timeout: None,
            issued_at: runtime.now(),
            waiter,
        });
    };
    let send = Arc::new(send);
    let notify = {
        let send = send.clone();
        move |message| {
            let (waiter, _unawaited) = oneshot::channel();
            send(message, waiter);
        }
    };
    McpOutlet::new(notify, move |message, answer: McpReply| {
        let (waiter, answered) = oneshot::channel();
        send(message, waiter);
        spawner.spawn(Box::pin(async move {
            match answered.await {
                Ok(Ok(CallReply::Answered(success))) => match mcp_answer_from_cli(&success) {
                    Ok(response) => answer.send(response),
                    Err(error) => answer.fail(error),
                },
                Ok(Ok(_)) => answer.fail("the CLI gave no answer"),
                Ok(Err(error)) => answer.fail(error.to_string()),
                Err(oneshot::Closed) => answer.fail("the session ended"),
            }
        }));
    })
}

impl<R: Runtime> Claude<R> {
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
}
