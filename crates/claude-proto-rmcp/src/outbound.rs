//! Where each message rmcp writes goes: a response answers the pending
//! request with its id; a notification goes to the CLI through the
//! outlet; a request of the server's goes to the CLI too, and the CLI's
//! answer comes back to rmcp as the response it awaits.

use claude_proto_adapter::McpReply;
use rmcp::model::{
    ClientJsonRpcMessage, ErrorCode, ErrorData, JsonRpcMessage, RequestId, ServerJsonRpcMessage,
};
use serde_json::Value as Json;
use tokio::sync::mpsc::WeakUnboundedSender;

use crate::jsonrpc::{INTERNAL_ERROR, METHOD_NOT_FOUND, error_response, id_json};
use crate::pending::Pending;

/// Why a server-to-client request fails before the session is connected
/// (the CLI has not started talking to the server, so nothing can carry
/// it): rmcp gets this error straight away rather than wait forever.
pub(crate) const NOT_CONNECTED: &str = "the server is not connected to a session yet";

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
            let id = request.id.clone();
            let Some(outlet) = pending.outlet() else {
                return refuse(loopback, id, METHOD_NOT_FOUND, NOT_CONNECTED);
            };
            let Ok(json) = serde_json::to_value(JsonRpcMessage::<_, (), ()>::Request(request))
            else {
                return refuse(
                    loopback,
                    id,
                    INTERNAL_ERROR,
                    "the request does not serialize",
                );
            };
            let loopback = loopback.clone();
            outlet.request(
                json,
                McpReply::new(move |answer| carry_back(&loopback, id, answer)),
            );
        }
    }
}

/// Gives rmcp the CLI's answer to the server's request `id`: the response
/// carried by the CLI's acknowledgement, or an error response when none
/// can come (the session ended, the CLI refused), so the tool that asked
/// does not wait for nothing. An empty acknowledgement means the answer
/// comes on its own, as a message of the CLI's.
fn carry_back(
    loopback: &WeakUnboundedSender<ClientJsonRpcMessage>,
    id: RequestId,
    answer: Result<Option<Json>, String>,
) {
    // Only a response or an error answers it, and it answers this request
    // whatever id the CLI wrote: anything else looped into rmcp could be
    // taken for a request of the CLI's, or leave the tool waiting.
    let response = match answer {
        Ok(Some(json)) => match serde_json::from_value::<ClientJsonRpcMessage>(json) {
            Ok(JsonRpcMessage::Response(mut response)) => {
                response.id = id.clone();
                Ok(JsonRpcMessage::Response(response))
            }
            Ok(JsonRpcMessage::Error(mut error)) => {
                error.id = Some(id.clone());
                Ok(JsonRpcMessage::Error(error))
            }
            Ok(_) | Err(_) => Err("the CLI's answer is not a JSON-RPC response".to_owned()),
        },
        // The acknowledgement CLI 2.1.330 gives: its MCP client's answer
        // follows as an `mcp_message` of its own, which reaches rmcp
        // through `handle` like any message of the CLI's.
        Ok(None) => return,
        Err(error) => Err(error),
    };
    match response {
        Ok(response) => {
            if let Some(loopback) = loopback.upgrade() {
                let _ = loopback.send(response);
            }
        }
        Err(message) => refuse(loopback, id, INTERNAL_ERROR, &message),
    }
}

/// Answers the server's request `id` with an error, through rmcp's inbound
/// channel (as if the CLI had answered it so). Fails only once the
/// endpoint is gone, and then the loop is being torn down anyway.
fn refuse(
    loopback: &WeakUnboundedSender<ClientJsonRpcMessage>,
    id: RequestId,
    code: i32,
    message: &str,
) {
    let refusal = JsonRpcMessage::error(
        ErrorData::new(ErrorCode(code), message.to_owned(), None),
        Some(id),
    );
    if let Some(loopback) = loopback.upgrade() {
        let _ = loopback.send(refusal);
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
