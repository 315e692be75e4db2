//! The handlers a conformance [`Spec`] asks for,
//! as async functions any async adapter registers as they are (they are
//! written against `claude-proto-async`'s handler types, which the async
//! adapters share).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use claude_proto::dispatch::ToolOutput;
pub use claude_proto::model::hooks::PreToolUse;
use claude_proto::model::hooks::{
    HookEvent, HookInput, HookOutput, HookSpecificOutput, PreToolUseInput, PreToolUseOutput,
};
use claude_proto::model::incoming::CanUseTool;
use claude_proto::model::permission::PermissionResult;
use claude_proto_async::{BoxFuture, HandlerError, McpServer};
pub use claude_proto_async::{Configure, HookOptions};

use crate::conformance::{DropFlag, Hook, HookBehaviour, Permission, Spec, TypedAdd, TypedGuard};
use crate::real_cli::Calls;

/// A permission handler's type.
pub type PermissionFn =
    Arc<dyn Fn(CanUseTool) -> BoxFuture<Result<PermissionResult, HandlerError>> + Send + Sync>;
/// A hook's type.
pub type HookFn = Arc<
    dyn Fn(HookInput, Option<String>) -> BoxFuture<Result<HookOutput, HandlerError>> + Send + Sync,
>;

/// The permission handler answering as `permission` says.
pub fn permission(permission: Permission) -> PermissionFn {
    Arc::new(move |_ask| {
        let permission = permission.clone();
        // Anything captured here lives as long as the handler's future:
        // dropping that future drops the flag.
        let flag = match &permission {
            Permission::FirstWaitsForever(probe) => {
                let call = probe.calls.fetch_add(1, Ordering::SeqCst);
                (call == 0).then(|| DropFlag(probe.clone()))
            }
            _ => None,
        };
        Box::pin(async move {
            match permission {
                Permission::Allow => Ok(PermissionResult::allow()),
                Permission::AllowWithInput(input) => {
                    Ok(PermissionResult::allow().with_updated_input(input))
                }
                Permission::Deny(message) => Ok(PermissionResult::deny(message)),
                Permission::DenyAndInterrupt(message) => {
                    Ok(PermissionResult::deny(message).with_interrupt(true))
                }
                Permission::Fail(message) => Err(message.into()),
                Permission::Panic => panic!("permission handler panicked on purpose"),
                Permission::FirstWaitsForever(_) => {
                    if flag.is_some() {
                        std::future::pending::<()>().await;
                    }
                    drop(flag);
                    Ok(PermissionResult::allow())
                }
            }
        })
    })
}

/// The options `hook` is registered with: its matcher, and for
/// [`HookBehaviour::FailClosed`] `on_failure: block`.
pub fn hook_options(hook: &Hook) -> HookOptions {
    let options = match hook.matcher {
        Some(m) => HookOptions::matching(m),
        None => HookOptions::default(),
    };
    match hook.behaviour {
        HookBehaviour::FailClosed => {
            options.with_on_failure(claude_proto::model::hooks::HookFailureMode::Block)
        }
        _ => options,
    }
}

/// The registration of `hook`: its event, options and function, which
/// records each call in `calls` (the real-CLI suite reads them; the
/// conformance suite passes a sink).
pub fn hook(hook: &Hook, calls: Calls) -> (HookEvent, HookOptions, HookFn) {
    let options = hook_options(hook);
    let behaviour = hook.behaviour.clone();
    let event = hook.event;
    let run: HookFn = Arc::new(move |input: HookInput, _id| {
        let payload = serde_json::to_value(&input).expect("a hook input serializes");
        calls.record(event, payload);
        let behaviour = behaviour.clone();
        Box::pin(async move {
            Ok(match behaviour {
                HookBehaviour::FailClosed => return Err("failing closed on purpose".into()),
                HookBehaviour::NoOpinion => HookOutput::default(),
                HookBehaviour::Deny(reason) => HookOutput::pre_tool_use_deny(reason),
                HookBehaviour::Context(text) => {
                    HookOutput::additional_context(HookEvent::from(event), text)
                }
                HookBehaviour::Panic => panic!("hook panicked on purpose"),
                // Registered typed by `register_spec_handlers`; here (the
                // untyped path) it answers the same from the whole input.
                HookBehaviour::TypedGuard => match input {
                    HookInput::PreToolUse(input) => HookOutput::hook_specific(
                        HookSpecificOutput::PreToolUse(TypedGuard::answer(&input)),
                    ),
                    _ => HookOutput::default(),
                },
            })
        })
    });
    (HookEvent::from(event), options, run)
}

/// The `calc` MCP server with its `add` tool (calls recorded in `calls` as
/// `mcp:add`).
pub fn calc_server(calls: Calls) -> McpServer {
    McpServer::new("calc", "1.0.0").tool_untyped(
        "add",
        "Adds a and b",
        Spec::calc_schema(),
        move |args| {
            calls.record("mcp:add", args.clone());
            async move {
                Ok(match Spec::calc_add(&args) {
                    Ok(sum) => ToolOutput::text(sum),
                    Err(e) => ToolOutput::error(e),
                })
            }
        },
    )
}

/// The typed `PreToolUse` hook of [`HookBehaviour::TypedGuard`]: a plain
/// `async fn` taking the event's own input and answering with its own
/// output type.
pub async fn typed_guard(input: PreToolUseInput) -> PreToolUseOutput {
    TypedGuard::answer(&input)
}

/// The `calc` MCP server with a typed `add` tool: [`TypedAdd`] arguments,
/// a serializable [`TypedSum`](crate::conformance::TypedSum) result.
pub fn typed_calc_server() -> McpServer {
    McpServer::new("calc", "1.0.0")
        .tool("add", "Adds a and b", async |args: TypedAdd| Ok(args.run()))
}

/// Registers everything `spec` asks for on an async adapter's builder.
///
/// `$builder` is the adapter's `ClaudeBuilder` (its methods are the same
/// in every async adapter); evaluates to the builder.
#[macro_export]
macro_rules! register_spec_handlers {
    ($builder:expr, $spec:expr) => {{
        let spec: &$crate::conformance::Spec = $spec;
        let mut builder = $builder;
        if let Some(permission) = spec.permission.clone() {
            let run = $crate::handlers::permission(permission);
            builder = builder.on_permission(move |ask| run(ask));
        }
        for hook in &spec.hooks {
            if let $crate::conformance::HookBehaviour::TypedGuard = hook.behaviour {
                let options = match hook.matcher {
                    Some(m) => $crate::handlers::HookOptions::matching(m),
                    None => $crate::handlers::HookOptions::default(),
                };
                builder = builder.hook(
                    $crate::handlers::PreToolUse,
                    options,
                    $crate::handlers::typed_guard,
                );
                continue;
            }
            let calls = $crate::real_cli::Calls::default();
            let (event, options, run) = $crate::handlers::hook(hook, calls);
            builder = builder.hook_untyped(event, options, move |input, id| run(input, id));
        }
        if spec.mcp_calc {
            let calls = $crate::real_cli::Calls::default();
            builder = builder.mcp_server($crate::handlers::calc_server(calls));
        }
        if spec.mcp_typed {
            builder = builder.mcp_server($crate::handlers::typed_calc_server());
        }
        if spec.mcp_endpoint {
            builder = builder.mcp_endpoint("calc", $crate::endpoint::CalcEndpoint);
        }
        if spec.dialogs {
            use $crate::conformance::Dialogs;
            builder = builder
                .on_elicitation(async |request| Dialogs::elicit(&request))
                .on_user_dialog(Dialogs::KINDS, async |request| Dialogs::show(&request));
        }
        if let Some(store) = spec.store.clone() {
            builder = $crate::handlers::Configure::session_store(builder, store);
        }
        if let Some(callback) = spec.on_stderr.clone() {
            builder =
                $crate::handlers::Configure::on_stderr(builder, move |line| (callback.0)(line));
        }
        builder
    }};
}

/// The `mul` tool [`ToolChange::AddMul`](crate::conformance::ToolChange)
/// adds (a * b, untyped, with the `calc` schema), as an async tool.
pub fn mul_tool() -> claude_proto_async::Tool {
    claude_proto_async::Tool::untyped(
        "mul",
        "Multiplies a and b",
        Spec::calc_schema(),
        async |args| Spec::calc_mul_output(&args),
    )
}

/// Carries out `change` through an async controller's `add_tool` and
/// `remove_tool`, for every async harness.
pub async fn change_tools<R: claude_proto_async::Runtime>(
    controller: &claude_proto_async::Controller<R>,
    change: crate::conformance::ToolChange<'_>,
) -> Result<(), claude_proto_host::Error> {
    use crate::conformance::ToolChange;
    match change {
        ToolChange::AddMul(server) => controller.add_tool(server, mul_tool()).await,
        ToolChange::Remove(server, tool) => controller.remove_tool(server, tool).await,
    }
}

/// The blocking adapter's `Driver::query`: the whole turn, or with a
/// `limit`, the query given up once it passes (`Ok(None)`). A blocking call
/// cannot be dropped, so giving a query up is sending its prompt and
/// reading its turn only until the limit.
///
/// # Panics
///
/// If the turn ends within the limit (this helper cannot return it) or the
/// session ends during it.
#[cfg(feature = "blocking")]
pub fn query_blocking(
    claude: &mut claude_proto_blocking::Claude,
    prompt: &str,
    limit: Option<std::time::Duration>,
) -> Result<Option<claude_proto_blocking::Turn>, claude_proto_host::Error> {
    let Some(limit) = limit else {
        return claude.ask(prompt).map(Some);
    };
    claude.send_text(prompt)?;
    let deadline = std::time::Instant::now() + limit;
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match claude.next_event_timeout(left) {
            Err(_) => return Ok(None),
            Ok(Some(event)) if event.as_message().is_some_and(|m| m.is_result()) => {
                panic!("the turn ended within the limit; this harness cannot return it")
            }
            Ok(Some(_)) => {}
            Ok(None) => panic!("the session ended during a held query"),
        }
    }
}

/// [`change_tools`] for the blocking adapter.
#[cfg(feature = "blocking")]
pub fn change_tools_blocking(
    controller: &claude_proto_blocking::Controller,
    change: crate::conformance::ToolChange<'_>,
) -> Result<(), claude_proto_host::Error> {
    use crate::conformance::ToolChange;
    match change {
        ToolChange::AddMul(server) => {
            let mul = claude_proto_blocking::Tool::untyped(
                "mul",
                "Multiplies a and b",
                Spec::calc_schema(),
                |args| Spec::calc_mul_output(&args),
            );
            controller.add_tool(server, mul)
        }
        ToolChange::Remove(server, tool) => controller.remove_tool(server, tool),
    }
}
