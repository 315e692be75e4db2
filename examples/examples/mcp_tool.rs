//! `mcp_tool`: give the model a tool that runs inside this program.
//!
//! ```text
//! cargo run --example mcp_tool               # real service if you have credentials, else offline
//! cargo run --example mcp_tool -- --offline  # a loopback stand-in for the model
//! ```
//!
//! Hosts an in-process MCP server `calc` with one tool, `add` (arguments `a`
//! and `b`, described by a JSON Schema). The CLI lists it to the model as
//! `mcp__calc__add`; `Options::allowed_tools` lets it run without a
//! permission prompt. When the model calls it, the CLI sends the call over
//! the control channel, the closure below computes the sum, and the model
//! gets the result. Prints the tool call, the result and the final answer.
//! Offline, the stand-in calls `mcp__calc__add` with `{"a":2,"b":3}` and
//! then answers with what the tool returned.

use std::process::ExitCode;

use claude_proto::model::stdout::StdoutMessage;
use claude_proto_examples::{
    Reply, base_options, last_tool_result, offline_options, start_error, want_offline,
};
use claude_proto_tests::model_server::ApiRequest;
use claude_proto_tokio::{Claude, McpServer, ToolOutput};
use serde_json::json;

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("mcp_tool: {message}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), String> {
    let forced = match std::env::args().nth(1).as_deref() {
        Some("--offline") => Some(true),
        Some("--online") => Some(false),
        None => None,
        Some(other) => return Err(format!("unknown argument {other:?}")),
    };

    let calc = McpServer::new("calc", "1.0.0").tool(
        "add",
        "Adds two numbers and returns the sum.",
        json!({
            "type": "object",
            "properties": {
                "a": {"type": "number", "description": "The first addend"},
                "b": {"type": "number", "description": "The second addend"}
            },
            "required": ["a", "b"]
        }),
        |args| async move {
            let (Some(a), Some(b)) = (args["a"].as_f64(), args["b"].as_f64()) else {
                return Ok(ToolOutput::error(format!(
                    "`a` and `b` must be numbers, got {args}"
                )));
            };
            println!("[calc.add] {a} + {b} = {}", a + b);
            Ok(ToolOutput::text((a + b).to_string()))
        },
    );

    let mut options = base_options(None).allowed_tools(["mcp__calc__add"]);
    let mut _offline = None;
    if want_offline(forced) {
        let (offline, guard) = offline_options("mcp-tool", options, offline_model)?;
        options = offline;
        _offline = Some(guard);
    }

    let mut claude = Claude::builder(options)
        .mcp_server(calc)
        .spawn()
        .await
        .map_err(start_error)?;
    let turn = claude
        .query("What is 2 + 3? Use the add tool of the calc server.")
        .await
        .map_err(|e| e.to_string())?;
    for message in &turn.messages {
        match message {
            StdoutMessage::Assistant(assistant) => {
                for tool in assistant.message.tool_uses() {
                    println!("[tool call] {} {}", tool.name, tool.input);
                }
            }
            StdoutMessage::User(user) => {
                for result in user.tool_results() {
                    let text = result.content.as_ref().map(|c| c.text());
                    println!("[tool result] {}", text.unwrap_or_default());
                }
            }
            _ => {}
        }
    }
    println!("{}", turn.text().unwrap_or_default());
    if let Err(e) = claude.close().await {
        eprintln!("closing failed: {e}");
    }
    match &turn.result {
        Some(result) if result.is_success() => Ok(()),
        Some(result) => Err(result.error_message().unwrap_or_default()),
        None => Err("the turn ended with a result this version cannot read".into()),
    }
}

/// The offline stand-in: calls the tool, then answers with its result.
fn offline_model(request: &ApiRequest) -> Reply {
    match last_tool_result(request) {
        Some(sum) => Reply::text(format!("(offline stand-in) 2 + 3 = {sum}, says calc.")),
        None => Reply::tool_use("mcp__calc__add", json!({"a": 2, "b": 3})),
    }
}
