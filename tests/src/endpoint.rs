//! A hand-written MCP server behind the runtime-neutral [`McpEndpoint`]
//! seam, answering from a thread of its own as a real server (an `rmcp`
//! one) would: the `calc` server with its `add` tool, for the conformance
//! scenario `mcp_endpoint_round_trip` on every adapter.

use claude_proto_adapter::{McpEndpoint, McpOutlet, McpReply};
use serde_json::{Value, json};

use crate::conformance::Spec;

/// The `calc` server: `initialize`, `tools/list` (one `add` tool),
/// `tools/call`, and -32601 for any other request.
#[derive(Debug, Default)]
pub struct CalcEndpoint;

impl McpEndpoint for CalcEndpoint {
    fn connect(&self, _to_cli: McpOutlet) {}

    fn handle(&self, message: Value, reply: McpReply) {
        // Answered off the caller's thread, as a server with its own loop
        // answers.
        std::thread::spawn(move || reply.send(answer(&message)));
    }
}

fn answer(message: &Value) -> Option<Value> {
    let id = message.get("id")?.clone();
    let method = message.get("method").and_then(Value::as_str)?;
    let result = match method {
        "initialize" => json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "calc", "version": "1.0.0"}
        }),
        "tools/list" => json!({"tools": [{
            "name": "add",
            "description": "Adds a and b",
            "inputSchema": Spec::calc_schema()
        }]}),
        "tools/call" => {
            let arguments = &message["params"]["arguments"];
            match Spec::calc_add(arguments) {
                Ok(sum) => json!({"content": [{"type": "text", "text": sum}]}),
                Err(e) => json!({"content": [{"type": "text", "text": e}], "isError": true}),
            }
        }
        other => {
            return Some(json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32601, "message": format!("Method not found: {other}")}}));
        }
    };
    Some(json!({"jsonrpc": "2.0", "id": id, "result": result}))
}
