//! Handlers as async functions: what the async adapters store and run.
//!
//! The futures are plain `std` futures, so any runtime can poll them.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use claude_proto::dispatch::{IntoHandlerResult, IntoToolResult, McpToolSpec, ToolOutput};
use claude_proto::model::Json;
use claude_proto::model::hooks::{Hook, HookEvent, HookInput, HookOutput, IntoHookOutput};
use claude_proto::model::incoming::{
    CanUseTool, ElicitationRequest, ElicitationResult, UserDialogRequest, UserDialogResult,
};
use claude_proto::model::permission::PermissionResult;

use super::shape::AsyncHandler;
use super::{Flavor, HandlerError, Handlers, McpServer, Tool};
use crate::ToolArgs;
use crate::hook_options::HookOptions;

/// A boxed future that can move between threads.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// The flavor of the async adapters: every handler returns a future that
/// the session runs as a task of its own.
#[derive(Debug, Clone, Copy)]
pub enum Async {}

impl Flavor for Async {
    type Permission =
        dyn Fn(CanUseTool) -> BoxFuture<Result<PermissionResult, HandlerError>> + Send + Sync;
    type Hook = dyn Fn(HookInput, Option<String>) -> BoxFuture<Result<HookOutput, HandlerError>>
        + Send
        + Sync;
    type Tool = dyn Fn(Json) -> BoxFuture<Result<ToolOutput, HandlerError>> + Send + Sync;
    type Elicitation = dyn Fn(ElicitationRequest) -> BoxFuture<Result<ElicitationResult, HandlerError>>
        + Send
        + Sync;
    type UserDialog = dyn Fn(UserDialogRequest) -> BoxFuture<Result<UserDialogResult, HandlerError>>
        + Send
        + Sync;
}

/// A handler's future, boxed, with its output read as a handler result.
fn answer<T, Fut>(future: Fut) -> BoxFuture<Result<T, HandlerError>>
where
    Fut: Future + Send + 'static,
    Fut::Output: IntoHandlerResult<T>,
{
    Box::pin(async move { future.await.into_handler_result() })
}

impl Tool<Async> {
    /// A typed tool: its name, a description for the model, and the async
    /// function that runs it. The arguments are deserialized into `A`,
    /// whose [`ToolArgs::schema`] (derived from the type) the model is shown; arguments that do
    /// not fit are answered with a tool error naming the problem, without
    /// calling `run`. `run` returns a [`ToolOutput`] or
    /// `Result<impl Serialize, HandlerError>` (see [`IntoToolResult`]).
    pub fn new<A, F, Fut>(name: impl Into<String>, description: impl Into<String>, run: F) -> Self
    where
        A: ToolArgs + Send + 'static,
        F: AsyncHandler<A, Fut>,
        Fut: Future + Send + 'static,
        Fut::Output: IntoToolResult,
    {
        let spec = McpToolSpec::new(name, description, A::schema());
        let tool_name = spec.name.clone();
        Self::from_parts(
            spec,
            Arc::new(
                move |arguments| match ToolOutput::parse_args::<A>(&tool_name, arguments) {
                    Ok(args) => {
                        let future = run(args);
                        Box::pin(async move { future.await.into_tool_result() })
                    }
                    Err(invalid) => Box::pin(std::future::ready(Ok(invalid))),
                },
            ),
        )
    }

    /// A tool taking its arguments as raw JSON, with a hand-written JSON
    /// Schema: the escape hatch beside [`new`](Self::new).
    pub fn untyped<F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Json,
        run: F,
    ) -> Self
    where
        F: AsyncHandler<Json, Fut>,
        Fut: Future + Send + 'static,
        Fut::Output: IntoToolResult,
    {
        Self::from_parts(
            McpToolSpec::new(name, description, input_schema),
            Arc::new(move |args| {
                let future = run(args);
                Box::pin(async move { future.await.into_tool_result() })
            }),
        )
    }
}

impl McpServer<Async> {
    /// Adds a typed tool (see [`Tool::new`]), replacing one of the same
    /// name.
    ///
    /// Name the arguments' type in a closure (`async |args: Add|` or `async |args: Json|`): without it the
    /// compiler cannot tell which type to read them as, and says "type
    /// annotations needed" (`tests/compile-errors/ui/tool_arguments_without_a_type.rs`).
    ///
    /// ```
    /// use claude_proto_adapter::handlers::{Async, HandlerError, McpServer};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Add { a: f64, b: f64 }
    ///
    /// async fn add(args: Add) -> Result<f64, HandlerError> {
    ///     Ok(args.a + args.b)
    /// }
    ///
    /// let calc = McpServer::<Async>::new("calc", "1.0.0")
    ///     .tool("add", "Adds a and b", add)
    ///     .tool("sub", "Subtracts b from a", async |args: Add| Ok(args.a - args.b));
    /// # assert_eq!(calc.spec().tools.len(), 2);
    /// ```
    ///
    /// A tool must return something the model can read:
    ///
    /// ```compile_fail
    /// # use claude_proto_adapter::handlers::{Async, McpServer};
    /// # use claude_proto::model::Json;
    /// struct NotSerialize;
    /// McpServer::<Async>::new("x", "1").tool("t", "d", async |_: Json| NotSerialize);
    /// ```
    pub fn tool<A, F, Fut>(
        self,
        name: impl Into<String>,
        description: impl Into<String>,
        run: F,
    ) -> Self
    where
        A: ToolArgs + Send + 'static,
        F: AsyncHandler<A, Fut>,
        Fut: Future + Send + 'static,
        Fut::Output: IntoToolResult,
    {
        self.with_tool(Tool::<Async>::new(name, description, run))
    }

    /// Adds a tool taking raw JSON (see [`Tool::untyped`]).
    pub fn tool_untyped<F, Fut>(
        self,
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Json,
        run: F,
    ) -> Self
    where
        F: AsyncHandler<Json, Fut>,
        Fut: Future + Send + 'static,
        Fut::Output: IntoToolResult,
    {
        self.with_tool(Tool::<Async>::untyped(name, description, input_schema, run))
    }
}

impl Handlers<Async> {
    /// Sets the permission handler.
    pub fn set_permission<F, Fut>(&mut self, handler: F)
    where
        F: AsyncHandler<CanUseTool, Fut>,
        Fut: Future + Send + 'static,
        Fut::Output: IntoHandlerResult<PermissionResult>,
    {
        self.set_permission_fn(Arc::new(move |ask| answer(handler(ask))));
    }

    /// Sets the elicitation handler.
    pub fn set_elicitation<F, Fut>(&mut self, handler: F)
    where
        F: AsyncHandler<ElicitationRequest, Fut>,
        Fut: Future + Send + 'static,
        Fut::Output: IntoHandlerResult<ElicitationResult>,
    {
        self.set_elicitation_fn(Arc::new(move |request| answer(handler(request))));
    }

    /// Sets the user-dialog handler for these dialog kinds.
    pub fn set_user_dialog<F, Fut>(&mut self, kinds: Vec<String>, handler: F)
    where
        F: AsyncHandler<UserDialogRequest, Fut>,
        Fut: Future + Send + 'static,
        Fut::Output: IntoHandlerResult<UserDialogResult>,
    {
        self.set_user_dialog_fn(kinds, Arc::new(move |request| answer(handler(request))));
    }

    /// Registers a hook taking the whole [`HookInput`] and the tool use id.
    pub fn add_hook_untyped<F, Fut>(&mut self, event: HookEvent, options: HookOptions, handler: F)
    where
        F: Fn(HookInput, Option<String>) -> Fut + Send + Sync + 'static,
        Fut: Future + Send + 'static,
        Fut::Output: IntoHandlerResult<HookOutput>,
    {
        self.add_hook_fn(
            event,
            options,
            Arc::new(move |input, tool_use_id| answer(handler(input, tool_use_id))),
        );
    }

    /// Registers a typed hook for `H`.
    pub fn add_hook<H, F, Fut>(&mut self, options: HookOptions, handler: F)
    where
        H: Hook,
        F: AsyncHandler<H::Input, Fut>,
        Fut: Future + Send + 'static,
        Fut::Output: IntoHookOutput<H>,
    {
        self.add_hook_fn(
            H::EVENT,
            options,
            Arc::new(move |input, _tool_use_id| match H::input(input) {
                Ok(input) => {
                    let future = handler(input);
                    Box::pin(async move { future.await.into_hook_output() })
                }
                Err(other) => Box::pin(std::future::ready(Err(super::unreadable_input::<H>(
                    &other,
                )))),
            }),
        );
    }
}
