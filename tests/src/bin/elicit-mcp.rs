//! A stdio MCP server for the real-CLI tests: one tool, `ask`, which asks
//! the user for input with an MCP `elicitation/create` request and returns
//! the answer it got as its text. The CLI forwards the elicitation to the
//! host program (`elicitation` control request), so a test sees the whole
//! path: model -> CLI -> this server -> CLI -> host -> back.
//!
//! Newline-delimited JSON-RPC on stdin/stdout, as MCP's stdio transport.

use std::io::{BufRead, Write};

use serde_json::{Value, json};

fn main() {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    let mut lines = stdin.lock().lines();
    let mut send = |message: Value| {
        let _ = writeln!(out, "{message}");
        let _ = out.flush();
    };
    while let Some(Ok(line)) = lines.next() {
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let id = message.get("id").cloned();
        let Some(id) = id else { continue }; // notifications
        match message["method"].as_str() {
            Some("initialize") => send(json!({"jsonrpc": "2.0", "id": id, "result": {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "elicit", "version": "1.0.0"}}})),
            Some("tools/list") => send(json!({"jsonrpc": "2.0", "id": id, "result": {"tools": [{
                "name": "ask", "description": "Asks the user which repository to use",
                "inputSchema": {"type": "object", "properties": {}}}]}})),
            Some("tools/call") => {
                send(
                    json!({"jsonrpc": "2.0", "id": "elicit-1", "method": "elicitation/create",
                    "params": {"message": "Which repo?", "requestedSchema": {"type": "object",
                        "properties": {"repo": {"type": "string"}}, "required": ["repo"]}}}),
                );
                // Wait for the answer to our request, skipping anything else.
                let mut answer = Value::Null;
                for line in lines.by_ref() {
                    let Ok(line) = line else { break };
                    let Ok(reply) = serde_json::from_str::<Value>(&line) else {
                        continue;
                    };
                    if reply.get("id") == Some(&json!("elicit-1")) {
                        answer = reply;
                        break;
                    }
                }
                let text = answer.get("result").unwrap_or(&answer).to_string();
                send(json!({"jsonrpc": "2.0", "id": id, "result": {
                    "content": [{"type": "text", "text": text}]}}));
            }
            Some("ping") => send(json!({"jsonrpc": "2.0", "id": id, "result": {}})),
            _ => send(json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32601, "message": "Method not found"}})),
        }
    }
}
