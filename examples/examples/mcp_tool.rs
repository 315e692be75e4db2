//! `mcp_tool`: give the model a tool that runs inside this program.
//!
//! ```text
//! cargo run --example mcp_tool               # real service if you have credentials, else offline
//! cargo run --example mcp_tool -- --offline  # a loopback stand-in for the model
//! ```
//!
//! Hosts an in-process MCP server `calc` with one typed tool, `add`: its
//! arguments are a struct deriving `Deserialize` and `JsonSchema`, which
//! gives the schema the model is shown (the field docs become its
//! descriptions), and it returns any `Serialize` value. The CLI
//! lists it to the model as `mcp__calc__add`; `Options::allowed_tools` lets
//! it run without a permission prompt. When the model calls it, the CLI
//! sends the call over the control channel, the async closure below
//! computes the sum, and the model gets the result. Prints the tool call, the result and the final answer.
//! Offline, the stand-in calls `mcp__calc__add` with `{"a":2,"b":3}` and
//! then answers with what the tool returned.

use std::process::ExitCode;

use claude_proto_examples::{
    Reply, base_options, last_tool_result, offline_options, start_error, want_offline,
};
use claude_proto_testkit::model_api::ApiRequest;
use claude_proto_tokio::prelude::*;
use serde_json::json;

/// The `add` tool's arguments.
#[derive(Deserialize, JsonSchema)]
struct Add {
    /// The first addend
    a: f64,
    /// The second addend
    b: f64,
}

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

    // A typed tool: its arguments arrive as `Add`, whose schema is derived
    // from the type; arguments that do not fit are answered with a tool
    // error naming the problem, without calling the function.
    let calc = McpServer::new("calc", "1.0.0").tool(
        "add",
        "Adds two numbers and returns the sum.",
        async |Add { a, b }: Add| {
            println!("[calc.add] {a} + {b} = {}", a + b);
            Ok(a + b)
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
    let mut turn = claude
        .query("What is 2 + 3? Use the add tool of the calc server.")
        .await
        .map_err(|e| e.to_string())?;
    while let Some(item) = turn.next_item().await {
        match item {
            TurnItem::ToolUse(tool) => println!("[tool call] {} {}", tool.name, tool.input),
            TurnItem::ToolResult(result) => println!("[tool result] {}", result.text()),
            _ => {}
        }
    }
    let turn = turn.finish().await.map_err(|e| e.to_string())?;
    println!("{}", turn.text().unwrap_or_default());
    if let Err(e) = claude.close().await {
        eprintln!("closing failed: {e}");
    }
    match turn.error_message() {
        None => Ok(()),
        Some(error) => Err(error),
    }
}

/// The offline stand-in: calls the tool, then answers with its result.
fn offline_model(request: &ApiRequest) -> Reply {
    match last_tool_result(request) {
        Some(sum) => Reply::text(format!("(offline stand-in) 2 + 3 = {sum}, says calc.")),
        None => Reply::tool_use("mcp__calc__add", json!({"a": 2, "b": 3})),
    }
}
