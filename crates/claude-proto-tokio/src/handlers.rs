//! The host's answers to the CLI's requests: permission prompts, hooks and
//! in-process MCP tools, as async functions.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use claude_proto::dispatch::{HookKey, HookRegistry, McpServerSpec, McpToolSpec, ToolOutput};
use claude_proto::model::Json;
use claude_proto::model::hooks::{HookEvent, HookFailureMode, HookInput, HookOutput};
use claude_proto::model::incoming::CanUseTool;
use claude_proto::model::permission::PermissionResult;

/// The error a handler may return; the CLI gets an error answer (see
/// [`claude_proto::dispatch::reply_for_failure`] for what each kind means).
pub type HandlerError = Box<dyn std::error::Error + Send + Sync>;

/// A boxed, sendable future.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

type PermissionFn =
    dyn Fn(CanUseTool) -> BoxFuture<Result<PermissionResult, HandlerError>> + Send + Sync;
type HookFn =
    dyn Fn(HookInput, Option<String>) -> BoxFuture<Result<HookOutput, HandlerError>> + Send + Sync;
type ToolFn = dyn Fn(Json) -> BoxFuture<Result<ToolOutput, HandlerError>> + Send + Sync;

/// An in-process MCP server: tools the model can call, run inside this
/// program. Add it with [`ClaudeBuilder::mcp_server`](crate::ClaudeBuilder::mcp_server).
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

/// Everything the host answers, shared with the driver task.
#[derive(Default, Clone)]
pub(crate) struct Handlers {
    pub(crate) permission: Option<Arc<PermissionFn>>,
    pub(crate) hooks: HookRegistry,
    pub(crate) hook_fns: Vec<Arc<HookFn>>,
    pub(crate) mcp_servers: Vec<McpServer>,
    pub(crate) mcp_specs: Vec<McpServerSpec>,
}

impl Handlers {
    pub(crate) fn set_permission<F, Fut>(&mut self, handler: F)
    where
        F: Fn(CanUseTool) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<PermissionResult, HandlerError>> + Send + 'static,
    {
        self.permission = Some(Arc::new(move |ask| Box::pin(handler(ask))));
    }

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
            .hooks
            .register(event, matcher, timeout_secs, on_failure);
        debug_assert_eq!(key.0, self.hook_fns.len());
        self.hook_fns.push(Arc::new(move |input, tool_use_id| {
            Box::pin(handler(input, tool_use_id))
        }));
    }

    pub(crate) fn add_mcp_server(&mut self, server: McpServer) {
        self.mcp_specs.push(server.spec.clone());
        self.mcp_servers.push(server);
    }

    pub(crate) fn hook(&self, key: HookKey) -> Option<&Arc<HookFn>> {
        self.hook_fns.get(key.0)
    }

    pub(crate) fn tool(&self, server: usize, tool: usize) -> Option<&Arc<ToolFn>> {
        self.mcp_servers.get(server)?.tools.get(tool)
    }
}
