//! Where each message rmcp writes goes: a response answers the pending
//! request with its id; a notification goes to the CLI through the
//! outlet; a request of the server's is refused at once.

use claude_proto_process::McpReply;
use rmcp::model::{
    ClientJsonRpcMessage, ErrorCode, ErrorData, JsonRpcMessage, RequestId, ServerJsonRpcMessage,
};
use serde_json::Value as Json;
use tokio::sync::mpsc::WeakUnboundedSender;

use crate::jsonrpc::{INTERNAL_ERROR, METHOD_NOT_FOUND, error_response, id_json};
use crate::pending::Pending;

/// Why a server-to-client request fails. The session cannot yet carry the
/// CLI's answer back to a server's request, so rather than let the tool
/// that asked (for roots, sampling, elicitation) wait forever, rmcp gets
/// this error straight away and the CLI never sees the request.
pub(crate) const SERVER_REQUESTS_UNSUPPORTED: &str =
    "server-to-client requests are not supported by this session";

/// Routes one message from rmcp. Never blocks: it runs inside the
/// transport's `send`, on rmcp's thread.
pub(crate) fn route(
    message: ServerJsonRpcMessage,
    pending: &Pending,
    loopback: &WeakUnboundedSender<ClientJsonRpcMessage>,
) {
    match message {
        JsonRpcMessage::Response(mut response) => {
            if let Some((cli_id, reply)) = pending.take(&response.id) {
                response.id = cli_id.clone();
                answer(&cli_id, &JsonRpcMessage::Response(response), reply);
            }
        }
        JsonRpcMessage::Error(mut error) => {
            // An error without an id answers nothing we sent; rmcp writes
            // those only for input it could not read, which never reaches
            // it through this transport.
            if let Some((cli_id, reply)) = error.id.as_ref().and_then(|id| pending.take(id)) {
                error.id = Some(cli_id.clone());
                answer(&cli_id, &JsonRpcMessage::Error(error), reply);
            }
        }
        JsonRpcMessage::Notification(_) => {
            // Before `connect` there is nowhere to send it; the CLI has
            // not started talking to the server yet, so nothing is lost
            // that it could have used.
            if let (Some(outlet), Ok(json)) = (pending.outlet(), serde_json::to_value(&message)) {
                outlet.send(json);
            }
        }
        JsonRpcMessage::Request(request) => {
            let refusal = JsonRpcMessage::error(
                ErrorData::new(
                    ErrorCode(METHOD_NOT_FOUND),
                    SERVER_REQUESTS_UNSUPPORTED,
                    None,
                ),
                Some(request.id),
            );
            // Fails only once the endpoint is gone, and then the loop is
            // being torn down anyway.
            if let Some(loopback) = loopback.upgrade() {
                let _ = loopback.send(refusal);
            }
        }
    }
}

/// Answers the CLI's request `cli_id` with rmcp's response, renumbered
/// back. (A response nobody waits for, that of a request cancelled and
/// answered already, never gets here: it is dropped.)
fn answer(cli_id: &RequestId, message: &ServerJsonRpcMessage, reply: McpReply) {
    let json: Json = serde_json::to_value(message).unwrap_or_else(|error| {
        error_response(
            id_json(cli_id),
            INTERNAL_ERROR,
            &format!("the MCP server's response does not serialize: {error}"),
        )
    });
    reply.send(Some(json));
}
