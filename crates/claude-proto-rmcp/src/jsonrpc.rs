//! The JSON-RPC error responses this crate writes itself, for the cases
//! rmcp never sees or never answers.

use rmcp::model::RequestId;
use serde_json::{Value as Json, json};

/// The message is JSON but not a JSON-RPC 2.0 message rmcp accepts, or
/// reuses the id of a request still in flight.
pub(crate) const INVALID_REQUEST: i32 = -32600;
/// The server-to-client request cannot be carried to the CLI.
pub(crate) const METHOD_NOT_FOUND: i32 = -32601;
/// The server stopped, panicked outside a tool, or wrote an answer that
/// does not serialize.
pub(crate) const INTERNAL_ERROR: i32 = -32603;
/// MCP's code for a request the client cancelled (`RequestCancelled`).
pub(crate) const REQUEST_CANCELLED: i32 = -32800;

/// A JSON-RPC error response; `id` is `null` when none could be read.
pub(crate) fn error_response(id: Json, code: i32, message: &str) -> Json {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": code, "message": message },
    })
}

/// The wire form of an id rmcp parsed, for the responses written here.
pub(crate) fn id_json(id: &RequestId) -> Json {
    id.clone().into_json_value()
}
