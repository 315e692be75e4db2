//! Sorting one message from the CLI before rmcp sees it: rmcp's transport
//! takes typed messages only, so anything that does not parse must be
//! answered here, and the bridge needs the request ids rmcp will use.

use rmcp::model::{ClientJsonRpcMessage, ClientNotification, JsonRpcMessage, RequestId};
use serde_json::Value as Json;

use crate::jsonrpc::{INVALID_REQUEST, error_response};

/// What the endpoint does with one message from the CLI.
pub(crate) enum Inbound {
    /// A request: remember its reply under `id` (the CLI's), then forward
    /// it renumbered.
    Request {
        id: RequestId,
        message: ClientJsonRpcMessage,
    },
    /// `notifications/cancelled`: forward it renumbered (rmcp cancels the
    /// handler's token) and answer the cancelled request here, since rmcp
    /// drops the response of a cancelled request.
    Cancel {
        request_id: Option<RequestId>,
        message: ClientJsonRpcMessage,
    },
    /// Any other notification, or the CLI's response to a request of the
    /// server's: forward it, nothing to answer.
    Forward(ClientJsonRpcMessage),
    /// Not a JSON-RPC 2.0 message rmcp accepts: answer with this error.
    Invalid(Json),
}

/// Renumbers a request or a cancellation with the id rmcp is to see (see
/// the `pending` module).
pub(crate) fn with_rmcp_id(
    mut message: ClientJsonRpcMessage,
    rmcp_id: RequestId,
) -> ClientJsonRpcMessage {
    match &mut message {
        JsonRpcMessage::Request(request) => request.id = rmcp_id,
        JsonRpcMessage::Notification(notification) => {
            if let ClientNotification::CancelledNotification(cancelled) =
                &mut notification.notification
            {
                cancelled.params.request_id = Some(rmcp_id);
            }
        }
        JsonRpcMessage::Response(_) | JsonRpcMessage::Error(_) => {}
    }
    message
}

/// Sorts `message`; never panics, whatever the JSON.
pub(crate) fn classify(message: Json) -> Inbound {
    // Read before parsing consumes the value, so the error can carry the id
    // when the sender gave a usable one (JSON-RPC: a string or a number).
    let readable_id = match message.get("id") {
        Some(id @ (Json::String(_) | Json::Number(_))) => id.clone(),
        _ => Json::Null,
    };
    match serde_json::from_value::<ClientJsonRpcMessage>(message) {
        Ok(JsonRpcMessage::Request(request)) => Inbound::Request {
            id: request.id.clone(),
            message: JsonRpcMessage::Request(request),
        },
        Ok(JsonRpcMessage::Notification(notification)) => {
            if let ClientNotification::CancelledNotification(cancelled) = &notification.notification
            {
                Inbound::Cancel {
                    request_id: cancelled.params.request_id.clone(),
                    message: JsonRpcMessage::Notification(notification),
                }
            } else {
                Inbound::Forward(JsonRpcMessage::Notification(notification))
            }
        }
        Ok(message @ (JsonRpcMessage::Response(_) | JsonRpcMessage::Error(_))) => {
            Inbound::Forward(message)
        }
        Err(error) => Inbound::Invalid(error_response(
            readable_id,
            INVALID_REQUEST,
            &format!("Invalid Request: {error}"),
        )),
    }
}
