//! Running the user's async handlers (stored in
//! [`Handlers<Async>`](claude_proto_adapter::handlers::Handlers)) for the
//! host's jobs.

use std::panic::{AssertUnwindSafe, catch_unwind};

use claude_proto_adapter::McpReply;
use claude_proto_adapter::handlers::{Async, HandlerError, Handlers, unknown_tool};
use claude_proto_host::{Job, JobKind, Outcome};
use claude_proto_process::{CatchUnwind, panic_message};

use crate::oneshot;
use crate::runtime::BoxFuture;

/// An in-process MCP server whose tools are async functions: build it with
/// `McpServer::new(name, version).tool(name, description, async fn)` and
/// add it with [`ClaudeBuilder::mcp_server`](crate::ClaudeBuilder::mcp_server).
/// See [`McpServer::tool`](claude_proto_adapter::handlers::McpServer::tool).
pub type McpServer = claude_proto_adapter::handlers::McpServer<Async>;

/// One async MCP tool, for adding to a running session with
/// [`Controller::add_tool`](crate::Controller::add_tool) (or to an
/// [`McpServer`] with `with_tool`).
pub type Tool = claude_proto_adapter::handlers::Tool<Async>;

/// The handlers of an async session.
pub(crate) type AsyncHandlers = Handlers<Async>;

/// The future that runs `job`'s handler. The handler is called now, in
/// the order the requests came, with a panic in its synchronous part
/// contained as well as one in its future. Errors and panics come out as
/// `Err(message)`, ready for [`Job::finish`].
pub(crate) fn run(handlers: &AsyncHandlers, job: &Job) -> BoxFuture<Result<Outcome, String>> {
    let called = catch_unwind(AssertUnwindSafe(|| call(handlers, job)));
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

fn call(handlers: &AsyncHandlers, job: &Job) -> Option<BoxFuture<Result<Outcome, HandlerError>>> {
    match &job.kind {
        JobKind::Permission(ask) => handlers.permission().map(|handler| {
            let future = handler(ask.clone());
            Box::pin(async move { future.await.map(Outcome::Permission) }) as BoxFuture<_>
        }),
        JobKind::Hook {
            key,
            input,
            tool_use_id,
        } => handlers.hook(*key).map(|hook| {
            let future = hook(input.clone(), tool_use_id.clone());
            Box::pin(async move { future.await.map(Outcome::Hook) }) as BoxFuture<_>
        }),
        JobKind::Elicitation(request) => handlers.elicitation().map(|handler| {
            let future = handler(request.clone());
            Box::pin(async move { future.await.map(Outcome::Elicitation) }) as BoxFuture<_>
        }),
        JobKind::UserDialog(request) => handlers.user_dialog().map(|handler| {
            let future = handler(request.clone());
            Box::pin(async move { future.await.map(Outcome::UserDialog) }) as BoxFuture<_>
        }),
        JobKind::Tool {
            server,
            tool,
            arguments,
            ..
        } => Some(match handlers.tool(server, tool) {
            Some(run) => {
                let future = run(arguments.clone());
                Box::pin(async move { future.await.map(Outcome::Tool) }) as BoxFuture<_>
            }
            // Removed while the call was on its way.
            None => Box::pin(std::future::ready(Ok(Outcome::Tool(unknown_tool(tool))))),
        }),
        JobKind::McpMessage { server, message } => handlers.mcp_endpoint(server).map(|endpoint| {
            let (answered, answer) = oneshot::channel();
            endpoint.handle(
                message.clone(),
                McpReply::new(move |reply| answered.send(reply)),
            );
            Box::pin(async move {
                match answer.await {
                    Ok(Ok(response)) => Ok(Outcome::Mcp(response)),
                    Ok(Err(message)) => Err(HandlerError::from(message)),
                    Err(oneshot::Closed) => Err(HandlerError::from("the MCP server went away")),
                }
            }) as BoxFuture<_>
        }),
        _ => None,
    }
}
