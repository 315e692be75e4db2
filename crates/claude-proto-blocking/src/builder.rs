//! Configuring a session, and starting its threads.

use claude_proto_adapter::handlers::BlockingHandler;
use std::io::{Read, Write};
use std::process::ChildStderr;
use std::sync::Arc;
use std::sync::mpsc::{SyncSender, sync_channel};
use std::thread::JoinHandle;
use std::time::Instant;

use claude_proto::dispatch::IntoHandlerResult;
use claude_proto::model::hooks::{Hook, HookEvent, HookInput, HookOutput, IntoHookOutput};
use claude_proto::model::incoming::{
    CanUseTool, ElicitationRequest, ElicitationResult, UserDialogRequest, UserDialogResult,
};
use claude_proto::model::permission::PermissionResult;
use claude_proto::options::Options;
use claude_proto_adapter::spare;
use claude_proto_adapter::{
    Configure, HookOptions, McpEndpoint, McpOutlet, McpReply, SessionDir, Settings, load_timed_out,
    mcp_answer_from_cli, mcp_message_to_cli,
};
use claude_proto_host::{
    CallReply, EndReason, Error, Host, SessionEnded, SpawnError, Transport, deadline,
};
use claude_proto_process::{ProcessHandle, StderrLines, Stop, StoppableRead, log};
use claude_proto_sessions::block_on_until;

use crate::channels::{INPUT_CAPACITY, Input, Waiter};
use crate::client::Claude;
use crate::driver::{Driver, Stdout};
use crate::events::Handoff;
use crate::handlers::{McpServer, SyncHandlers};
use crate::parts::Parts;
use crate::pipes::{STDOUT_BUFFERS, read_stderr, read_stdout, write_stdin};
use crate::shared::Shared;
use crate::spare::Spare;

/// What [`ClaudeBuilder::spawn_as`] starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum As {
    Session,
    Spare,
}

/// Configures a session: the CLI's options, the protocol and host limits,
/// and the handlers that answer the CLI's requests. Finish with
/// [`spawn`](Self::spawn) or [`connect`](Self::connect), which check every
/// value before starting anything.
///
/// The limits, the close sequence, the stderr callback and the extra
/// fields of `initialize` are set with the methods of [`Configure`], the
/// same on every adapter; bring it into scope (it is in the
/// [`prelude`](crate::prelude)):
///
/// ```no_run
/// use claude_proto_blocking::{ClaudeBuilder, Configure, Options};
///
/// let builder = ClaudeBuilder::new(Options::default())
///     .read_ahead_bytes(16 << 20)
///     .max_concurrent_handlers(4);
/// ```
///
/// On this adapter:
///
/// - Besides the [`read_ahead_bytes`](Configure::read_ahead_bytes) the
///   session holds, at most 256 KiB of events (two batches, each of
///   128 KiB or one larger event) are on their way to you.
/// - Each handler runs on a thread of its own, at most
///   [`max_concurrent_handlers`](Configure::max_concurrent_handlers) at
///   once.
/// - The [`on_stderr`](Configure::on_stderr) callback runs on the thread
///   that reads stderr: a slow callback holds up only that thread, and,
///   once the pipe is full, the CLI.
#[derive(Debug)]
#[must_use = "a builder does nothing until `spawn` or `connect`"]
pub struct ClaudeBuilder {
    pub(crate) settings: Settings<SyncHandlers>,
}

/// A spawned CLI's parts beyond stdin and stdout.
struct Child {
    process: ProcessHandle,
    stderr: StoppableRead<ChildStderr>,
    stop: Stop,
    /// The temporary config directory of a session resumed from the store.
    session_dir: Option<SessionDir>,
}

impl Configure for ClaudeBuilder {
    type Handlers = SyncHandlers;

    fn settings_mut(&mut self) -> &mut Settings<SyncHandlers> {
        &mut self.settings
    }
}

impl ClaudeBuilder {
    /// A builder with these CLI options and default limits.
    pub fn new(options: Options) -> Self {
        Self {
            settings: Settings::new(options),
        }
    }

    /// Answers the CLI's permission prompts (`can_use_tool`), each on a
    /// handler thread. `handler` is a function or closure answering with a
    /// [`PermissionResult`] or a `Result<PermissionResult, HandlerError>`.
    ///
    /// Registering it makes the CLI ask (`--permission-prompt-tool stdio`).
    /// The request's `tool_use_id` is echoed for you. If the handler fails
    /// or panics, the tool is denied. If the CLI withdraws the prompt
    /// meanwhile, the answer is dropped (see [`CancelToken`](crate::CancelToken)).
    ///
    /// ```no_run
    /// use claude_proto::model::permission::PermissionResult;
    /// use claude_proto_blocking::{ClaudeBuilder, Options};
    ///
    /// let builder = ClaudeBuilder::new(Options::default())
    ///     .on_permission(|ask| PermissionResult::deny(format!("no {}", ask.tool_name)));
    /// ```
    ///
    /// A handler must answer with a permission result:
    ///
    /// ```compile_fail
    /// # use claude_proto_blocking::{ClaudeBuilder, Options};
    /// ClaudeBuilder::new(Options::default()).on_permission(|_ask| true);
    /// ```
    pub fn on_permission<F, R>(mut self, handler: F) -> Self
    where
        F: BlockingHandler<CanUseTool, R>,
        R: IntoHandlerResult<PermissionResult>,
    {
        self.settings.handlers.set_permission(handler);
        self.settings.options.permission_prompt_stdio = true;
        self
    }

    /// Registers a typed hook (called on a handler thread): `hook` is the
    /// event's marker type (such as
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
    /// use claude_proto::model::hooks::{PreToolUse, PreToolUseInput, PreToolUseOutput};
    /// use claude_proto_blocking::{ClaudeBuilder, HookOptions, Options};
    ///
    /// let builder = ClaudeBuilder::new(Options::default()).hook(
    ///     PreToolUse,
    ///     HookOptions::matching("Bash"),
    ///     |input: PreToolUseInput| {
    ///         let command = input.tool_input["command"].as_str().unwrap_or_default();
    ///         if command.contains("rm -rf") {
    ///             PreToolUseOutput::deny("destructive command")
    ///         } else {
    ///             PreToolUseOutput::default()
    ///         }
    ///     },
    /// );
    /// ```
    ///
    /// A hook answers with its own event's output:
    ///
    /// ```compile_fail
    /// # use claude_proto::model::hooks::{PreToolUse, PreToolUseInput, SessionStartOutput};
    /// # use claude_proto_blocking::{ClaudeBuilder, HookOptions, Options};
    /// ClaudeBuilder::new(Options::default()).hook(
    ///     PreToolUse,
    ///     HookOptions::default(),
    ///     |_: PreToolUseInput| SessionStartOutput::default(),
    /// );
    /// ```
    pub fn hook<H, F, R>(mut self, hook: H, options: HookOptions, handler: F) -> Self
    where
        H: Hook,
        F: BlockingHandler<H::Input, R>,
        R: IntoHookOutput<H>,
    {
        let _ = hook;
        self.settings.handlers.add_hook::<H, F, R>(options, handler);
        self
    }

    /// Registers a hook for `event` (called on a handler thread) taking the
    /// whole [`HookInput`] and the tool use id when there is one: the
    /// escape hatch beside [`hook`](Self::hook), for events this crate
    /// does not know. Return `HookOutput::default()` for "no opinion".
    pub fn hook_untyped<F, R>(mut self, event: HookEvent, options: HookOptions, handler: F) -> Self
    where
        F: Fn(HookInput, Option<String>) -> R + Send + Sync + 'static,
        R: IntoHandlerResult<HookOutput>,
    {
        self.settings
            .handlers
            .add_hook_untyped(event, options, handler);
        self
    }

    /// Answers elicitations (on a handler thread): an MCP server asking the
    /// user for input, in a form (`requested_schema`) or at a URL.
    /// `handler` answers with an
    /// [`ElicitationResult`](claude_proto::model::incoming::ElicitationResult)
    /// (`accept(content)`, `decline()`, `cancel()`). Without one, every
    /// elicitation is declined; if the handler fails or panics, it is
    /// declined too.
    pub fn on_elicitation<F, R>(mut self, handler: F) -> Self
    where
        F: BlockingHandler<ElicitationRequest, R>,
        R: IntoHandlerResult<ElicitationResult>,
    {
        self.settings.handlers.set_elicitation(handler);
        self
    }

    /// Shows the CLI's dialogs of these `kinds` (such as
    /// `refusal_fallback_prompt`; on a handler thread), which `initialize`
    /// then advertises (`supportedDialogKinds`; nothing is advertised
    /// without a handler). `handler` answers with a
    /// [`UserDialogResult`](claude_proto::model::incoming::UserDialogResult)
    /// (`completed(result)` or `cancelled()`); if it fails or panics, the
    /// dialog is cancelled.
    pub fn on_user_dialog<F, R>(
        mut self,
        kinds: impl IntoIterator<Item = impl Into<String>>,
        handler: F,
    ) -> Self
    where
        F: BlockingHandler<UserDialogRequest, R>,
        R: IntoHandlerResult<UserDialogResult>,
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
    /// unchanged (a handler thread waits for its answer), and its own
    /// notifications reach the CLI. Replaces a server of the same name.
    pub fn mcp_endpoint(mut self, name: impl Into<String>, endpoint: impl McpEndpoint) -> Self {
        self.settings
            .handlers
            .add_mcp_endpoint(name, Arc::new(endpoint));
        self
    }

    /// Checks the limits, locates and starts the CLI, sends `initialize`,
    /// and returns at once (use [`Controller::initialization`](crate::Controller::initialization) to wait for the
    /// answer). Blocks only for the `spawn` system call. On error nothing
    /// is left running.
    ///
    /// With a [session store](Configure::session_store) and options that
    /// resume, the session is first loaded from the store into a private
    /// temporary config directory (blocking for at most the store's
    /// `load_timeout`), removed when the session ends.
    pub fn spawn(self) -> Result<Claude, SpawnError> {
        self.spawn_as(As::Session)
    }

    /// Starts the session before its first prompt is known, as the
    /// TypeScript SDK's `startup()`: spawns the CLI and waits for its
    /// answer to `initialize` (within the limits' `initialize_timeout`), so
    /// the first [`query`](Claude::query) meets a CLI that has done its
    /// start-up. The session is then like any other. On error nothing is
    /// left running.
    pub fn startup(self) -> Result<Claude, Error> {
        let claude = self.spawn()?;
        claude.initialization()?;
        Ok(claude)
    }

    /// Starts a **spare**: a CLI that does its start-up now for a session
    /// not known yet, parked in a private directory with `--await-claim`
    /// until [`Spare::claim`] binds it to a folder. Returns once the spare
    /// has answered `initialize`. The rules are the async adapters'
    /// (`claude_proto_async::ClaudeBuilder::prewarm`): everything set here
    /// is fixed for the spare's life, the options must not describe a
    /// session ([`SpawnError::NotForASpare`]), a parked spare holds what a
    /// started CLI holds (about 230 to 260 MB for the pinned CLI), and
    /// dropping it closes the CLI and removes its parking directory.
    pub fn prewarm(self) -> Result<Spare, Error> {
        let claude = self.spawn_as(As::Spare)?;
        claude.initialization()?;
        Ok(Spare::new(claude))
    }

    fn spawn_as(self, what: As) -> Result<Claude, SpawnError> {
        let now = Instant::now();
        let mut host = self.host(Transport::Process, now)?;
        let loaded = match (self.settings.resume_load(), &self.settings.store) {
            (Some(load), Some(store)) => {
                let timeout = store.load_timeout;
                let loaded = block_on_until(load, deadline(Instant::now(), timeout));
                Some(loaded.ok_or_else(|| load_timed_out(timeout))??)
            }
            _ => None,
        };
        let mut prepared = self.settings.prepared(&mut host, loaded);
        if what == As::Spare {
            spare::park(&mut prepared, self.settings.store.is_some())?;
            host.park();
        }
        let spawned = claude_proto_process::spawn(&prepared.options)?;
        // From here on, returning early drops the process handle, which
        // kills the CLI and reaps it.
        let stop = Stop::new()?;
        let stdout = stop.reader(spawned.stdout)?;
        let stdin = stop.writer(spawned.stdin)?;
        let child = Child {
            stderr: stop.reader(spawned.stderr)?,
            process: spawned.process,
            stop,
            session_dir: prepared.dir,
        };
        start(self.settings, host, stdout, stdin, Some(child), now)
    }

    /// Runs the session over any reader/writer pair instead of a child
    /// process: `reader` carries what the CLI writes, `writer` what it
    /// reads (a socket to a CLI started elsewhere, an SSH channel, a
    /// pipe). Checks the limits, sends `initialize` and returns at once.
    /// Closing closes the writer and ends the session once the reader
    /// ends, or after the close grace.
    ///
    /// Each gets a thread of its own, blocked in `read` or `write`. Nothing
    /// can interrupt those calls on an arbitrary `Read` or `Write`: if the
    /// peer never ends its output (or never reads), the session still ends
    /// after the close grace and [`Claude::close`] returns, but that thread
    /// and the reader (or writer) it owns stay until the call returns; it
    /// then finds the session gone and drops them. Give the peer a way to
    /// end (a socket shut down, a process killed) if that matters.
    pub fn connect<R, W>(self, reader: R, writer: W) -> Result<Claude, SpawnError>
    where
        R: Read + Send + 'static,
        W: Write + Send + 'static,
    {
        let now = Instant::now();
        let host = self.host(Transport::Stream, now)?;
        start(self.settings, host, reader, writer, None, now)
    }

    /// The host for these settings; fails on limits that cannot work.
    fn host(&self, transport: Transport, now: Instant) -> Result<Host<Waiter>, SpawnError> {
        let capabilities = self.settings.handlers.capabilities();
        self.settings.host(capabilities, transport, now)
    }
}

/// Starts the session's threads. A failure to start one returns the error
/// with nothing left behind: the threads already started find their
/// channels closed (or their stop stopped) and end, and a dropped process
/// handle kills and reaps the CLI.
fn start<R, W>(
    settings: Settings<SyncHandlers>,
    host: Host<Waiter>,
    stdout: R,
    stdin: W,
    child: Option<Child>,
    now: Instant,
) -> Result<Claude, SpawnError>
where
    R: Read + Send + 'static,
    W: Write + Send + 'static,
{
    let (sender, input) = sync_channel(INPUT_CAPACITY);
    let (back, buffers) = sync_channel(STDOUT_BUFFERS);
    let (writer, orders) = sync_channel(1);
    let shared = Arc::new(Shared::default());
    let handoff = Arc::new(Handoff::default());
    let stoppable = child.is_some();
    let mut pipe_threads = Vec::new();
    let (process, stop, session_dir) = match child {
        Some(Child {
            mut process,
            stderr,
            stop,
            session_dir,
        }) => {
            let exited = sender.clone();
            process.watch_exit(settings.limits.term_grace, move |status| {
                let _ = exited.send(Input::Exited(status));
            })?;
            let (tx, lines) = (sender.clone(), StderrLines::new(settings.stderr_callback));
            pipe_threads.push(thread("claude-stderr", move || {
                read_stderr(stderr, tx, lines);
            })?);
            (Some(process), Some(stop), session_dir)
        }
        None => (None, None, None),
    };
    for (name, endpoint) in settings.handlers.mcp_endpoints() {
        endpoint.connect(mcp_outlet(name, sender.clone()));
    }
    let tx = sender.clone();
    let reader = thread("claude-stdout", move || read_stdout(stdout, tx, buffers))?;
    let tx = sender.clone();
    let write = thread("claude-stdin", move || write_stdin(stdin, orders, tx))?;
    // Threads blocked in an arbitrary `read` or `write` cannot be ended:
    // joining them could wait forever.
    if stoppable {
        pipe_threads.extend([reader, write]);
    }
    let pid = process.as_ref().map(ProcessHandle::id);
    let limits = host.limits();
    let init_timeout = limits
        .initialize_timeout
        .unwrap_or(settings.config.request_timeout);
    let parts = Parts {
        tools: settings.handlers.live_tools(),
        input: sender.clone(),
        shared: shared.clone(),
        handoff: handoff.clone(),
        pid,
        request_timeout: settings.config.request_timeout,
        init_timeout,
        init_deadline: now.checked_add(init_timeout),
    };
    let driver = Driver {
        host,
        input,
        sender,
        shared: shared.clone(),
        handoff: handoff.clone(),
        handlers: Arc::new(settings.handlers),
        store: settings.store.map(|store| store.store),
        process,
        stop,
        writer: Some(writer),
        stdout: Stdout::new(back),
        pipe_threads,
        tokens: Default::default(),
        write_buf: None,
        writer_busy: false,
        stall: None,
        ended: false,
        session_dir,
        workers: Default::default(),
    };
    let driver = thread("claude-driver", move || {
        let _guard = EndGuard { shared, handoff };
        driver.run();
    })?;
    Ok(Claude::new(parts, driver))
}

/// Settles what callers may wait on if the driver thread ends without
/// doing so itself (it panicked): no `initialization()` or event reader
/// waits forever.
struct EndGuard {
    shared: Arc<Shared>,
    handoff: Arc<Handoff>,
}

impl Drop for EndGuard {
    fn drop(&mut self) {
        let ended = self
            .shared
            .ended()
            .unwrap_or_else(|| SessionEnded::new(EndReason::Closed, None));
        self.shared.set_ended(ended.clone());
        self.shared.publish_init(Err(Error::Ended(ended)));
        self.handoff.finish(std::iter::empty());
    }
}

/// Where the endpoint server `server`'s own messages go: each becomes an
/// `mcp_message` control request. Never blocks: with the driver's input
/// full, a notification is dropped and a request fails, rather than
/// stalling the server. A request's answer is carried back to the server
/// by a thread of its own (servers ask rarely: roots, elicitation).
fn mcp_outlet(server: &str, input: SyncSender<Input>) -> McpOutlet {
    let server = server.to_owned();
    let send = move |message, waiter| {
        input
            .try_send(Input::Command(claude_proto_host::Command::Call {
                request: Box::new(mcp_message_to_cli(&server, message)),
                timeout: None,
                issued_at: Instant::now(),
                waiter,
            }))
            .is_ok()
    };
    let send = Arc::new(send);
    let notify = {
        let send = send.clone();
        move |message| {
            let (waiter, _unawaited) = sync_channel(1);
            if !send(message, waiter) {
                log::warn(format_args!(
                    "an MCP server's notification was dropped: the session is over or too busy"
                ));
            }
        }
    };
    McpOutlet::new(notify, move |message, answer: McpReply| {
        let (waiter, answered) = sync_channel(1);
        if !send(message, waiter) {
            return answer.fail("the session is over or too busy to carry the request");
        }
        let carried = std::thread::Builder::new()
            .name("claude-mcp-answer".into())
            .spawn(move || match answered.recv() {
                Ok(Ok(CallReply::Answered(success))) => match mcp_answer_from_cli(&success) {
                    Ok(response) => answer.send(response),
                    Err(error) => answer.fail(error),
                },
                Ok(Ok(_)) => answer.fail("the CLI gave no answer"),
                Ok(Err(error)) => answer.fail(error.to_string()),
                Err(_) => answer.fail("the session ended"),
            });
        // Without the thread the reply is dropped with the closure, which
        // answers the server with an error.
        drop(carried);
    })
}

fn thread(name: &str, run: impl FnOnce() + Send + 'static) -> std::io::Result<JoinHandle<()>> {
    std::thread::Builder::new().name(name.to_owned()).spawn(run)
}

impl Claude {
    /// A builder for a session with these options.
    pub fn builder(options: Options) -> ClaudeBuilder {
        ClaudeBuilder::new(options)
    }

    /// Spawns the CLI with `options`, no handlers and default limits.
    pub fn spawn(options: Options) -> Result<Claude, claude_proto_host::SpawnError> {
        ClaudeBuilder::new(options).spawn()
    }
}
