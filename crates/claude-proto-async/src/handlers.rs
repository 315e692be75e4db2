//! The user's answers to the CLI's requests (permission prompts, hooks and
//! in-process MCP tools) as async functions.
//!
//! The futures are plain `std` futures: any runtime can poll them.

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use claude_proto::dispatch::{HookKey, McpServerSpec, McpToolSpec, ToolOutput};
use claude_proto::model::Json;
use claude_proto::model::hooks::{HookEvent, HookFailureMode, HookInput, HookOutput};
use claude_proto::model::incoming::CanUseTool;
use claude_proto::model::permission::PermissionResult;

use claude_proto_host::{Capabilities, Job, JobKind, Outcome};
use claude_proto_process::{CatchUnwind, panic_message};

use crate::runtime::BoxFuture;

/// The error a handler may return; the CLI gets an error answer (see
/// [`claude_proto::dispatch::reply_for_failure`] for what each kind means).
pub type HandlerError = Box<dyn std::error::Error + Send + Sync>;

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

    /// Adds a tool: its name, a description for the model, the JSON Schema
    /// of its arguments, and the async function that runs it.
    pub fn tool<F, Fut>(
        mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Json,
        run: F,
    ) -> Self
    where
        F: Fn(Json) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput, HandlerError>> + Send + 'static,
    {
        self.spec
            .tools
            .push(McpToolSpec::new(name, description, input_schema));
        self.tools.push(Arc::new(move |args| Box::pin(run(args))));
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
        Fut: Future<Output = Result<PermissionResult, HandlerError>> + Send + 'static,
    {
        self.permission = Some(Arc::new(move |ask| Box::pin(handler(ask))));
        self.capabilities.permission = true;
    }

    /// Registers a hook.
    pub(crate) fn add_hook<F, Fut>(
        &mut self,
        event: HookEvent,
        matcher: Option<String>,
        timeout_secs: Option<u64>,
        on_failure: Option<HookFailureMode>,
        handler: F,
    ) where
        F: Fn(HookInput, Option<String>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<HookOutput, HandlerError>> + Send + 'static,
    {
        let key = self
            .capabilities
            .hooks
            .register(event, matcher, timeout_secs, on_failure);
        debug_assert_eq!(key.0, self.hook_fns.len());
        self.hook_fns.push(Arc::new(move |input, tool_use_id| {
            Box::pin(handler(input, tool_use_id))
        }));
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
