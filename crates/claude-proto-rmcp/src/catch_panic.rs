//! A panic in a handler must still answer the request: rmcp runs each
//! handler in its own task and, when it panics, sends nothing, so the CLI
//! would wait forever.

use std::any::Any;
use std::borrow::Cow;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::{Pin, pin};
use std::task::{Context, Poll};

use rmcp::model::{
    CallToolResult, ClientNotification, ClientRequest, ContentBlock, ErrorData, ProtocolVersion,
    ServerConfig, ServerResult,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer, Service};

/// Wraps a server so that a panic in one of its handlers becomes an
/// answer:
///
/// * in `tools/call`, a tool result with `isError: true` and the text
///   `"the tool panicked: <message>"`, as MCP asks for tool failures, so the
///   model sees what happened and can carry on;
/// * in any other request, a JSON-RPC error -32603 naming the panic.
pub(crate) struct CatchPanic<S>(pub(crate) S);

impl<S: Service<RoleServer>> Service<RoleServer> for CatchPanic<S> {
    async fn handle_request(
        &self,
        request: ClientRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<ServerResult, ErrorData> {
        let is_tool_call = matches!(request, ClientRequest::CallToolRequest(_));
        let handled = pin!(self.0.handle_request(request, context));
        match CatchUnwind(handled).await {
            Ok(result) => result,
            Err(panic) if is_tool_call => {
                Ok(ServerResult::CallToolResult(CallToolResult::error(vec![
                    ContentBlock::text(format!("the tool panicked: {}", panic_message(&*panic))),
                ])))
            }
            Err(panic) => Err(ErrorData::internal_error(
                format!("the MCP server panicked: {}", panic_message(&*panic)),
                None,
            )),
        }
    }

    async fn handle_notification(
        &self,
        notification: ClientNotification,
        context: NotificationContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let handled = pin!(self.0.handle_notification(notification, context));
        CatchUnwind(handled).await.unwrap_or_else(|panic| {
            Err(ErrorData::internal_error(
                format!("the MCP server panicked: {}", panic_message(&*panic)),
                None,
            ))
        })
    }

    fn get_info(&self) -> ServerConfig {
        self.0.get_info()
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        self.0.supported_protocol_versions()
    }
}

/// Polls a future, turning a panic in any poll into `Err(payload)`.
struct CatchUnwind<F>(F);

impl<F: Future + Unpin> Future for CatchUnwind<F> {
    type Output = Result<F::Output, Box<dyn Any + Send>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = &mut self.0;
        // The future is never polled again after a panic, so whatever
        // state the panic left it in is never observed.
        match catch_unwind(AssertUnwindSafe(|| Pin::new(inner).poll(cx))) {
            Ok(Poll::Ready(output)) => Poll::Ready(Ok(output)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(panic) => Poll::Ready(Err(panic)),
        }
    }
}

/// The message of `panic!("...")`, or a placeholder for other payloads.
fn panic_message(payload: &(dyn Any + Send)) -> &str {
    if let Some(message) = payload.downcast_ref::<&'static str>() {
        message
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message
    } else {
        "(no message)"
    }
}
