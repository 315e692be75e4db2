//! The handlers of a blocking session: plain closures, run on handler
//! threads, and the [`CancelToken`] that tells them the CLI gave up.

use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use claude_proto::dispatch::{
    HookKey, IntoHandlerResult, IntoToolResult, McpServerSpec, McpToolSpec, ToolArgs, ToolOutput,
};
use claude_proto::model::Json;
use claude_proto::model::hooks::{Hook, HookEvent, HookInput, HookOutput, IntoHookOutput};
use claude_proto::model::incoming::CanUseTool;
use claude_proto::model::permission::PermissionResult;
use claude_proto_host::{Capabilities, Job, JobKind, Outcome};
use claude_proto_process::{HookOptions, panic_message};

/// The error a handler may return; the CLI gets an error answer (see
/// [`claude_proto::dispatch::reply_for_failure`] for what each kind means).
pub type HandlerError = claude_proto::dispatch::HandlerError;

type PermissionFn = dyn Fn(CanUseTool) -> Result<PermissionResult, HandlerError> + Send + Sync;
type HookFn = dyn Fn(HookInput, Option<String>) -> Result<HookOutput, HandlerError> + Send + Sync;
type ToolFn = dyn Fn(Json) -> Result<ToolOutput, HandlerError> + Send + Sync;

/// An in-process MCP server: tools the model can call, run inside this
/// program as plain closures. Add it with
/// [`ClaudeBuilder::mcp_server`](crate::ClaudeBuilder::mcp_server).
///
/// The model sees each tool as `mcp__<server>__<tool>`; allow them with
/// `Options::allowed_tools` or a permission handler.
#[derive(Clone)]
pub struct McpServer {
    spec: McpServerSpec,
    tools: Vec<Arc<ToolFn>>,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("spec", &self.spec)
            .finish()
    }
}

impl McpServer {
    /// A server named `name` (the name the CLI and model use) with no tools.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            spec: McpServerSpec::new(name, version),
            tools: Vec::new(),
        }
    }

    /// Adds a typed tool: its name, a description for the model, and the
    /// function that runs it (on a handler thread). The arguments are
    /// deserialized into `A`, whose [`ToolArgs::schema`] the model is
    /// shown; arguments that do not fit are answered with a tool error
    /// naming the problem, without calling `run`. `run` returns a
    /// [`ToolOutput`] or `Result<impl Serialize, HandlerError>` (see
    /// [`IntoToolResult`]).
    ///
    /// ```
    /// use claude_proto::dispatch::ToolArgs;
    /// use claude_proto::model::Json;
    /// use claude_proto_blocking::McpServer;
    ///
    /// #[derive(serde::Deserialize)]
    /// struct Add { a: f64, b: f64 }
    ///
    /// impl ToolArgs for Add {
    ///     fn schema() -> Json {
    ///         serde_json::json!({"type": "object", "required": ["a", "b"],
    ///             "properties": {"a": {"type": "number"}, "b": {"type": "number"}}})
    ///     }
    /// }
    ///
    /// let calc = McpServer::new("calc", "1.0.0").tool("add", "Adds a and b", |args: Add| {
    ///     Ok(args.a + args.b)
    /// });
    /// # assert_eq!(calc.name(), "calc");
    /// ```
    ///
    /// A tool must return something the model can read:
    ///
    /// ```compile_fail
    /// # use claude_proto_blocking::McpServer;
    /// # use claude_proto::model::Json;
    /// struct NotSerialize;
    /// McpServer::new("x", "1").tool("t", "d", |_: Json| Ok(NotSerialize));
    /// ```
    pub fn tool<A, F, R>(
        mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        run: F,
    ) -> Self
    where
        A: ToolArgs + 'static,
        F: Fn(A) -> R + Send + Sync + 'static,
        R: IntoToolResult,
    {
        let spec = McpToolSpec::new(name, description, A::schema());
        let tool_name = spec.name.clone();
        self.spec.tools.push(spec);
        self.tools.push(Arc::new(move |arguments| {
            match ToolOutput::parse_args::<A>(&tool_name, arguments) {
                Ok(args) => run(args).into_tool_result(),
                Err(invalid) => Ok(invalid),
            }
        }));
        self
    }

    /// Adds a tool taking its arguments as raw JSON, with a hand-written
    /// JSON Schema (run on a handler thread): the escape hatch beside
    /// [`tool`](Self::tool).
    pub fn tool_untyped<F, R>(
        mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Json,
        run: F,
    ) -> Self
    where
        F: Fn(Json) -> R + Send + Sync + 'static,
        R: IntoToolResult,
    {
        self.spec
            .tools
            .push(McpToolSpec::new(name, description, input_schema));
        self.tools
            .push(Arc::new(move |args| run(args).into_tool_result()));
        self
    }

    /// The server's name.
    pub fn name(&self) -> &str {
        &self.spec.name
    }
}

/// The blocking handlers of one session, and what they tell the host.
#[derive(Default, Clone)]
pub(crate) struct SyncHandlers {
    permission: Option<Arc<PermissionFn>>,
    hook_fns: Vec<Arc<HookFn>>,
    mcp_servers: Vec<McpServer>,
    capabilities: Capabilities,
}

impl std::fmt::Debug for SyncHandlers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SyncHandlers")
            .field("capabilities", self.capabilities())
            .finish_non_exhaustive()
    }
}

impl SyncHandlers {
    pub(crate) fn set_permission<F, R>(&mut self, handler: F)
    where
        F: Fn(CanUseTool) -> R + Send + Sync + 'static,
        R: IntoHandlerResult<PermissionResult>,
    {
        self.permission = Some(Arc::new(move |ask| handler(ask).into_handler_result()));
        self.capabilities.permission = true;
    }

    pub(crate) fn add_hook_untyped<F, R>(
        &mut self,
        event: HookEvent,
        options: HookOptions,
        handler: F,
    ) where
        F: Fn(HookInput, Option<String>) -> R + Send + Sync + 'static,
        R: IntoHandlerResult<HookOutput>,
    {
        self.push_hook(event, options, move |input, tool_use_id| {
            handler(input, tool_use_id).into_handler_result()
        });
    }

    pub(crate) fn add_hook<H, F, R>(&mut self, options: HookOptions, handler: F)
    where
        H: Hook,
        F: Fn(H::Input) -> R + Send + Sync + 'static,
        R: IntoHookOutput<H>,
    {
        self.push_hook(
            H::EVENT,
            options,
            move |input, _tool_use_id| match H::input(input) {
                Ok(input) => handler(input).into_hook_output(),
                Err(other) => Err(format!(
                    "the `{}` hook was called with a `{}` input it could not read",
                    H::EVENT.as_str(),
                    other.event().as_str()
                )
                .into()),
            },
        );
    }

    fn push_hook(
        &mut self,
        event: HookEvent,
        options: HookOptions,
        run: impl Fn(HookInput, Option<String>) -> Result<HookOutput, HandlerError>
        + Send
        + Sync
        + 'static,
    ) {
        let key = self.capabilities.hooks.register(
            event,
            options.matcher,
            options.timeout_secs,
            options.on_failure,
        );
        debug_assert_eq!(key.0, self.hook_fns.len());
        self.hook_fns.push(Arc::new(run));
    }

    pub(crate) fn add_mcp_server(&mut self, server: McpServer) {
        self.capabilities.mcp_servers.push(server.spec.clone());
        self.mcp_servers.push(server);
    }

    pub(crate) fn capabilities(&self) -> &Capabilities {
        &self.capabilities
    }

    /// Runs `job`'s handler on this thread, with `token` as the
    /// [`CancelToken::current`]. Errors and panics come out as
    /// `Err(message)`, ready for [`Job::finish`].
    pub(crate) fn run(&self, job: &Job, token: &CancelToken) -> Result<Outcome, String> {
        let call = || -> Option<Result<Outcome, HandlerError>> {
            Some(match &job.kind {
                JobKind::Permission(ask) => {
                    (self.permission.as_ref()?)(ask.clone()).map(Outcome::Permission)
                }
                JobKind::Hook {
                    key,
                    input,
                    tool_use_id,
                } => (self.hook(*key)?)(input.clone(), tool_use_id.clone()).map(Outcome::Hook),
                JobKind::Tool {
                    server,
                    tool,
                    arguments,
                    ..
                } => (self.tool(*server, *tool)?)(arguments.clone()).map(Outcome::Tool),
                // Future kinds have no handler here.
                _ => return None,
            })
        };
        CURRENT.with(|current| *current.borrow_mut() = Some(token.clone()));
        let result = catch_unwind(AssertUnwindSafe(call));
        CURRENT.with(|current| current.borrow_mut().take());
        match result {
            Ok(Some(Ok(outcome))) => Ok(outcome),
            Ok(Some(Err(error))) => Err(error.to_string()),
            Ok(None) => Err("no handler is registered for this request".to_owned()),
            Err(panic) => Err(panic_message(&*panic)),
        }
    }

    fn hook(&self, key: HookKey) -> Option<&Arc<HookFn>> {
        self.hook_fns.get(key.0)
    }

    fn tool(&self, server: usize, tool: usize) -> Option<&Arc<ToolFn>> {
        self.mcp_servers.get(server)?.tools.get(tool)
    }
}

thread_local! {
    static CURRENT: RefCell<Option<CancelToken>> = const { RefCell::new(None) };
}

/// Tells a running handler that the CLI withdrew its request.
///
/// A blocking closure cannot be stopped from outside. When the CLI cancels
/// a request (or the session ends) while its handler runs, the handler's
/// result is dropped (never sent), and its token is cancelled so a
/// long-running handler can notice and return early: poll
/// [`is_cancelled`](Self::is_cancelled), block in [`wait`](Self::wait) /
/// [`wait_timeout`](Self::wait_timeout), or register
/// [`on_cancel`](Self::on_cancel) to unblock whatever the handler waits on.
/// Get the token of the request being handled with
/// [`CancelToken::current`] at the start of the handler (it is per thread:
/// clone it before handing work to other threads).
///
/// Each handler runs on a thread of its own. A handler that never returns
/// keeps that thread; until the CLI withdraws its request it also keeps
/// one of the
/// [`max_concurrent_handlers`](crate::ClaudeBuilder::max_concurrent_handlers)
/// slots. A withdrawn handler that is still running no longer counts
/// against them.
#[derive(Clone, Default)]
pub struct CancelToken {
    inner: Arc<Flag>,
}

type Callback = Box<dyn FnOnce() + Send>;

#[derive(Default)]
struct Flag {
    cancelled: AtomicBool,
    /// Callbacks waiting for the cancellation (taken by it).
    callbacks: Mutex<Vec<Callback>>,
    changed: Condvar,
}

impl std::fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CancelToken")
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}

impl CancelToken {
    /// A token that is not cancelled.
    pub fn new() -> Self {
        Self::default()
    }

    /// The token of the request whose handler runs on this thread (`None`
    /// outside a handler).
    pub fn current() -> Option<CancelToken> {
        CURRENT.with(|current| current.borrow().clone())
    }

    fn callbacks(&self) -> std::sync::MutexGuard<'_, Vec<Callback>> {
        self.inner
            .callbacks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Cancels it: wakes every [`wait`](Self::wait) and runs the
    /// [`on_cancel`](Self::on_cancel) callbacks (once).
    pub fn cancel(&self) {
        let callbacks = {
            let mut callbacks = self.callbacks();
            if self.inner.cancelled.swap(true, Ordering::SeqCst) {
                return;
            }
            self.inner.changed.notify_all();
            std::mem::take(&mut *callbacks)
        };
        for callback in callbacks {
            // A panicking callback must not take the session down with it.
            let _ = catch_unwind(AssertUnwindSafe(callback));
        }
    }

    /// Runs `callback` when the token is cancelled, or at once if it
    /// already is. For the session's tokens it runs on the session's
    /// driver thread at the moment the CLI withdraws the request, before
    /// anything the CLI wrote after that is handled: keep it short (set a
    /// flag, shut a socket, kill a process the handler waits on). The
    /// session waits for it; a call made on the session from inside it
    /// waits for the session in turn, until the call's own deadline.
    pub fn on_cancel(&self, callback: impl FnOnce() + Send + 'static) {
        let mut callbacks = self.callbacks();
        if self.is_cancelled() {
            drop(callbacks);
            callback();
        } else {
            callbacks.push(Box::new(callback));
        }
    }

    /// `true` once cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::SeqCst)
    }

    /// Blocks until cancelled.
    pub fn wait(&self) {
        let mut guard = self.callbacks();
        while !self.is_cancelled() {
            guard = self
                .inner
                .changed
                .wait(guard)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Blocks until cancelled or `timeout` passed; `true` if cancelled.
    pub fn wait_timeout(&self, timeout: Duration) -> bool {
        let Some(deadline) = Instant::now().checked_add(timeout) else {
            // Too far to represent: as good as forever.
            self.wait();
            return true;
        };
        let mut guard = self.callbacks();
        while !self.is_cancelled() {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            guard = self
                .inner
                .changed
                .wait_timeout(guard, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        true
    }
}
