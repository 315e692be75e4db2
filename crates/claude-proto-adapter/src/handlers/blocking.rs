//! Handlers as plain functions: what the blocking adapter stores and runs
//! on its handler threads.

use std::sync::Arc;

use claude_proto::dispatch::{IntoHandlerResult, IntoToolResult, McpToolSpec, ToolOutput};
use claude_proto::model::Json;
use claude_proto::model::hooks::{Hook, HookEvent, HookInput, HookOutput, IntoHookOutput};
use claude_proto::model::incoming::{
    CanUseTool, ElicitationRequest, ElicitationResult, UserDialogRequest, UserDialogResult,
};
use claude_proto::model::permission::PermissionResult;

use super::shape::BlockingHandler;
use super::{Flavor, HandlerError, Handlers, McpServer, Tool};
use crate::ToolArgs;
use crate::hook_options::HookOptions;

/// The flavor of the blocking adapter: every handler is a plain function,
/// called on a thread of its own.
#[derive(Debug, Clone, Copy)]
pub enum Blocking {}

impl Flavor for Blocking {
    type Permission = dyn Fn(CanUseTool) -> Result<PermissionResult, HandlerError> + Send + Sync;
    type Hook = dyn Fn(HookInput, Option<String>) -> Result<HookOutput, HandlerError> + Send + Sync;
    type Tool = dyn Fn(Json) -> Result<ToolOutput, HandlerError> + Send + Sync;
    type Elicitation =
        dyn Fn(ElicitationRequest) -> Result<ElicitationResult, HandlerError> + Send + Sync;
    type UserDialog =
        dyn Fn(UserDialogRequest) -> Result<UserDialogResult, HandlerError> + Send + Sync;
}

impl Tool<Blocking> {
    /// A typed tool: its name, a description for the model, and the
    /// function that runs it (on a handler thread). The arguments are
    /// deserialized into `A`, whose [`ToolArgs::schema`] the model is
    /// shown; arguments that do not fit are answered with a tool error
    /// naming the problem, without calling `run`. `run` returns a
    /// [`ToolOutput`] or `Result<impl Serialize, HandlerError>` (see
    /// [`IntoToolResult`]).
    pub fn new<A, F, R>(name: impl Into<String>, description: impl Into<String>, run: F) -> Self
    where
        A: ToolArgs + 'static,
        F: BlockingHandler<A, R>,
        R: IntoToolResult,
    {
        let spec = McpToolSpec::new(name, description, A::schema());
        let tool_name = spec.name.clone();
        Self::from_parts(
            spec,
            Arc::new(
                move |arguments| match ToolOutput::parse_args::<A>(&tool_name, arguments) {
                    Ok(args) => run(args).into_tool_result(),
                    Err(invalid) => Ok(invalid),
                },
            ),
        )
    }

    /// A tool taking its arguments as raw JSON, with a hand-written JSON
    /// Schema: the escape hatch beside [`new`](Self::new).
    pub fn untyped<F, R>(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Json,
        run: F,
    ) -> Self
    where
        F: BlockingHandler<Json, R>,
        R: IntoToolResult,
    {
        Self::from_parts(
            McpToolSpec::new(name, description, input_schema),
            Arc::new(move |args| run(args).into_tool_result()),
        )
    }
}

impl McpServer<Blocking> {
    /// Adds a typed tool (see [`Tool::new`]), replacing one of the same
    /// name.
    ///
    /// Name the arguments' type in a closure (`|args: Add|` or `|args: Json|`): without it the
    /// compiler cannot tell which type to read them as, and says "type
    /// annotations needed" (`tests/compile-errors/ui/tool_arguments_without_a_type.rs`).
    ///
    /// ```
    /// use claude_proto_adapter::handlers::{Blocking, McpServer};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Add { a: f64, b: f64 }
    ///
    /// let calc = McpServer::<Blocking>::new("calc", "1.0.0")
    ///     .tool("add", "Adds a and b", |args: Add| Ok(args.a + args.b));
    /// # assert_eq!(calc.name(), "calc");
    /// ```
    ///
    /// A tool must return something the model can read:
    ///
    /// ```compile_fail
    /// # use claude_proto_adapter::handlers::{Blocking, McpServer};
    /// # use claude_proto::model::Json;
    /// struct NotSerialize;
    /// McpServer::<Blocking>::new("x", "1").tool("t", "d", |_: Json| NotSerialize);
    /// ```
    pub fn tool<A, F, R>(
        self,
        name: impl Into<String>,
        description: impl Into<String>,
        run: F,
    ) -> Self
    where
        A: ToolArgs + 'static,
        F: BlockingHandler<A, R>,
        R: IntoToolResult,
    {
        self.with_tool(Tool::<Blocking>::new(name, description, run))
    }

    /// Adds a tool taking raw JSON (see [`Tool::untyped`]).
    pub fn tool_untyped<F, R>(
        self,
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Json,
        run: F,
    ) -> Self
    where
        F: BlockingHandler<Json, R>,
        R: IntoToolResult,
    {
        self.with_tool(Tool::<Blocking>::untyped(
            name,
            description,
            input_schema,
            run,
        ))
    }
}

impl Handlers<Blocking> {
    /// Sets the permission handler.
    pub fn set_permission<F, R>(&mut self, handler: F)
    where
        F: BlockingHandler<CanUseTool, R>,
        R: IntoHandlerResult<PermissionResult>,
    {
        self.set_permission_fn(Arc::new(move |ask| handler(ask).into_handler_result()));
    }

    /// Sets the elicitation handler.
    pub fn set_elicitation<F, R>(&mut self, handler: F)
    where
        F: BlockingHandler<ElicitationRequest, R>,
        R: IntoHandlerResult<ElicitationResult>,
    {
        self.set_elicitation_fn(Arc::new(move |request| {
            handler(request).into_handler_result()
        }));
    }

    /// Sets the user-dialog handler for these dialog kinds.
    pub fn set_user_dialog<F, R>(&mut self, kinds: Vec<String>, handler: F)
    where
        F: BlockingHandler<UserDialogRequest, R>,
        R: IntoHandlerResult<UserDialogResult>,
    {
        self.set_user_dialog_fn(
            kinds,
            Arc::new(move |request| handler(request).into_handler_result()),
        );
    }

    /// Registers a hook taking the whole [`HookInput`] and the tool use id.
    pub fn add_hook_untyped<F, R>(&mut self, event: HookEvent, options: HookOptions, handler: F)
    where
        F: Fn(HookInput, Option<String>) -> R + Send + Sync + 'static,
        R: IntoHandlerResult<HookOutput>,
    {
        self.add_hook_fn(
            event,
            options,
            Arc::new(move |input, tool_use_id| handler(input, tool_use_id).into_handler_result()),
        );
    }

    /// Registers a typed hook for `H`.
    pub fn add_hook<H, F, R>(&mut self, options: HookOptions, handler: F)
    where
        H: Hook,
        F: BlockingHandler<H::Input, R>,
        R: IntoHookOutput<H>,
    {
        self.add_hook_fn(
            H::EVENT,
            options,
            Arc::new(move |input, _tool_use_id| match H::input(input) {
                Ok(input) => handler(input).into_hook_output(),
                Err(other) => Err(super::unreadable_input::<H>(&other)),
            }),
        );
    }
}
