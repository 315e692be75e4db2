//! The user's answers to the CLI's requests (permission prompts, hooks and
//! in-process MCP tools) as async functions.
//!
//! The futures are plain `std` futures: any runtime can poll them.

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use claude_proto::dispatch::{
    HookKey, IntoHandlerResult, IntoToolResult, McpServerSpec, McpToolSpec, ToolArgs, ToolOutput,
};
use claude_proto::model::Json;
use claude_proto::model::hooks::{Hook, HookEvent, HookInput, HookOutput, IntoHookOutput};
use claude_proto::model::incoming::CanUseTool;
use claude_proto::model::permission::PermissionResult;

use claude_proto_host::{Capabilities, Job, JobKind, Outcome};
use claude_proto_process::{CatchUnwind, HookOptions, panic_message};

use crate::runtime::BoxFuture;

/// The error a handler may return; the CLI gets an error answer (see
/// [`claude_proto::dispatch::reply_for_failure`] for what each kind means).
pub type HandlerError = claude_proto::dispatch::HandlerError;

/// The error for a typed hook called with another event's input, or one
/// the typed model could not read (the CLI then applies `on_failure`).
fn unreadable_input<H: Hook>(input: &HookInput) -> HandlerError {
    format!(
        "the `{}` hook was called with a `{}` input it could not read",
        H::EVENT.as_str(),
        input.event().as_str()
    )
    .into()
}

type PermissionFn =
    dyn Fn(CanUseTool) -> BoxFuture<Result<PermissionResult, HandlerError>> + Send + Sync;
type HookFn =
    dyn Fn(HookInput, Option<String>) -> BoxFuture<Result<HookOutput, HandlerError>> + Send + Sync;
type ToolFn = dyn Fn(Json) -> BoxFuture<Result<ToolOutput, HandlerError>> + Send + Sync;

/// An in-process MCP server: tools the model can call, run inside this
/// program. Add it with the adapter builder's `mcp_server`.
///
/// The model sees each tool as `mcp__<server>__<tool>`; allow them with
/// `Options::allowed_tools` or a permission handler.
#[derive(Clone)]
pub struct McpServer {
    pub(crate) spec: McpServerSpec,
    pub(crate) tools: Vec<Arc<ToolFn>>,
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
    /// async function that runs it. The arguments are deserialized into
    /// `A`, whose [`ToolArgs::schema`] the model is shown; arguments that
    /// do not fit are answered with a tool error naming the problem,
    /// without calling `run`. `run` returns a [`ToolOutput`] or
    /// `Result<impl Serialize, HandlerError>` (see [`IntoToolResult`]).
    ///
    /// ```
    /// use claude_proto::dispatch::ToolArgs;
    /// use claude_proto::model::Json;
    /// use claude_proto_async::{HandlerError, McpServer};
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
    /// async fn add(args: Add) -> Result<f64, HandlerError> {
    ///     Ok(args.a + args.b)
    /// }
    ///
    /// let calc = McpServer::new("calc", "1.0.0")
    ///     .tool("add", "Adds a and b", add)
    ///     .tool("sub", "Subtracts b from a", async |args: Add| Ok(args.a - args.b));
    /// # assert_eq!(calc.name(), "calc");
    /// ```
    ///
    /// A tool must return something the model can read:
    ///
    /// ```compile_fail
    /// # use claude_proto_async::McpServer;
    /// # use claude_proto::model::Json;
    /// struct NotSerialize;
    /// McpServer::new("x", "1").tool("t", "d", async |_: Json| NotSerialize);
    /// ```
    pub fn tool<A, F, Fut>(
        mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        run: F,
    ) -> Self
    where
        A: ToolArgs + Send + 'static,
        F: Fn(A) -> Fut + Send + Sync + 'static,
        Fut: Future + Send + 'static,
        Fut::Output: IntoToolResult,
    {
        let spec = McpToolSpec::new(name, description, A::schema());
        let tool_name = spec.name.clone();
        self.spec.tools.push(spec);
        self.tools.push(Arc::new(move |arguments| {
            match ToolOutput::parse_args::<A>(&tool_name, arguments) {
                Ok(args) => {
                    let future = run(args);
                    Box::pin(async move { future.await.into_tool_result() })
                }
                Err(invalid) => Box::pin(std::future::ready(Ok(invalid))),
            }
        }));
        self
    }

    /// Adds a tool taking its arguments as raw JSON, with a hand-written
    /// JSON Schema: the escape hatch beside [`tool`](Self::tool).
    pub fn tool_untyped<F, Fut>(
        mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Json,
        run: F,
    ) -> Self
    where
        F: Fn(Json) -> Fut + Send + Sync + 'static,
        Fut: Future + Send + 'static,
        Fut::Output: IntoToolResult,
    {
        self.spec
            .tools
            .push(McpToolSpec::new(name, description, input_schema));
        self.tools.push(Arc::new(move |args| {
            let future = run(args);
            Box::pin(async move { future.await.into_tool_result() })
        }));
        self
    }

    /// The server's name.
    pub fn name(&self) -> &str {
        &self.spec.name
    }
}

/// The async handlers of one session, and what they tell the host.
#[derive(Default, Clone)]
pub(crate) struct AsyncHandlers {
    permission: Option<Arc<PermissionFn>>,
    hook_fns: Vec<Arc<HookFn>>,
    mcp_servers: Vec<McpServer>,
    capabilities: Capabilities,
}

impl std::fmt::Debug for AsyncHandlers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AsyncHandlers")
            .field("capabilities", &self.capabilities)
            .finish_non_exhaustive()
    }
}

impl AsyncHandlers {
    /// Sets the permission handler.
    pub(crate) fn set_permission<F, Fut>(&mut self, handler: F)
    where
        F: Fn(CanUseTool) -> Fut + Send + Sync + 'static,
        Fut: Future + Send + 'static,
        Fut::Output: IntoHandlerResult<PermissionResult>,
    {
        self.permission = Some(Arc::new(move |ask| {
            let future = handler(ask);
            Box::pin(async move { future.await.into_handler_result() })
        }));
        self.capabilities.permission = true;
    }

    /// Registers a hook taking the whole [`HookInput`] and the tool use id.
    pub(crate) fn add_hook_untyped<F, Fut>(
        &mut self,
        event: HookEvent,
        options: HookOptions,
        handler: F,
    ) where
        F: Fn(HookInput, Option<String>) -> Fut + Send + Sync + 'static,
        Fut: Future + Send + 'static,
        Fut::Output: IntoHandlerResult<HookOutput>,
    {
        self.push_hook(event, options, move |input, tool_use_id| {
            let future = handler(input, tool_use_id);
            Box::pin(async move { future.await.into_handler_result() })
        });
    }

    /// Registers a typed hook for `H`.
    pub(crate) fn add_hook<H, F, Fut>(&mut self, options: HookOptions, handler: F)
    where
        H: Hook,
        F: Fn(H::Input) -> Fut + Send + Sync + 'static,
        Fut: Future + Send + 'static,
        Fut::Output: IntoHookOutput<H>,
    {
        self.push_hook(
            H::EVENT,
            options,
            move |input, _tool_use_id| match H::input(input) {
                Ok(input) => {
                    let future = handler(input);
                    Box::pin(async move { future.await.into_hook_output() })
                }
                Err(other) => Box::pin(std::future::ready(Err(unreadable_input::<H>(&other)))),
            },
        );
    }

    fn push_hook(
        &mut self,
        event: HookEvent,
        options: HookOptions,
        run: impl Fn(HookInput, Option<String>) -> BoxFuture<Result<HookOutput, HandlerError>>
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

    /// Hosts an in-process MCP server.
    pub(crate) fn add_mcp_server(&mut self, server: McpServer) {
        self.capabilities.mcp_servers.push(server.spec.clone());
        self.mcp_servers.push(server);
    }

    /// What the [`Host`](claude_proto_host::Host) needs to know.
    pub(crate) fn capabilities(&self) -> &Capabilities {
        &self.capabilities
    }

    /// The future that runs `job`'s handler. The handler is called now, in
    /// the order the requests came, with a panic in its synchronous part
    /// contained as well as one in its future. Errors and panics come out
    /// as `Err(message)`, ready for [`Job::finish`].
    pub(crate) fn run(&self, job: &Job) -> BoxFuture<Result<Outcome, String>> {
        let called = catch_unwind(AssertUnwindSafe(|| self.call(job)));
        Box::pin(async move {
            let future = match called {
                Ok(Some(future)) => future,
                Ok(None) => return Err("no handler is registered for this request".to_owned()),
                Err(panic) => return Err(panic_message(&*panic)),
            };
            match CatchUnwind::new(future).await {
                Ok(Ok(outcome)) => Ok(outcome),
                Ok(Err(error)) => Err(error.to_string()),
                Err(panic) => Err(panic_message(&*panic)),
            }
        })
    }

    fn call(&self, job: &Job) -> Option<BoxFuture<Result<Outcome, HandlerError>>> {
        match &job.kind {
            JobKind::Permission(ask) => self.permission.as_ref().map(|handler| {
                let future = handler(ask.clone());
                Box::pin(async move { future.await.map(Outcome::Permission) }) as BoxFuture<_>
            }),
            JobKind::Hook {
                key,
                input,
                tool_use_id,
            } => self.hook(*key).map(|hook| {
                let future = hook(input.clone(), tool_use_id.clone());
                Box::pin(async move { future.await.map(Outcome::Hook) }) as BoxFuture<_>
            }),
            JobKind::Tool {
                server,
                tool,
                arguments,
                ..
            } => self.tool(*server, *tool).map(|tool| {
                let future = tool(arguments.clone());
                Box::pin(async move { future.await.map(Outcome::Tool) }) as BoxFuture<_>
            }),
            _ => None,
        }
    }

    fn hook(&self, key: HookKey) -> Option<&Arc<HookFn>> {
        self.hook_fns.get(key.0)
    }

    fn tool(&self, server: usize, tool: usize) -> Option<&Arc<ToolFn>> {
        self.mcp_servers.get(server)?.tools.get(tool)
    }
}
