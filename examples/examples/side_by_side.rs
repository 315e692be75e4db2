//! `side_by_side`: the job `docs/compared-with-sdks.md` compares with the
//! Python SDK (`examples/py/side_by_side.py` is the same program in Python).
//!
//! ```text
//! cargo run --example side_by_side               # real service if you have credentials, else offline
//! cargo run --example side_by_side -- --offline  # a loopback stand-in for the model
//! ```
//!
//! One session with: a permission callback (the in-process tool and `Read`
//! are allowed, everything else denied), a typed `PreToolUse` hook that
//! denies destructive Bash commands, an in-process MCP tool (`calc`'s
//! `add`), the answer streamed as it is written, and Ctrl-C interrupting
//! the turn from a task of its own.
//!
//! The part between the `side-by-side` markers is what
//! `docs/compared-with-sdks.md` shows; `tests/tests/side_by_side.rs` runs
//! this program and the Python one against the real CLI and checks that
//! the page quotes both exactly, with the right line counts. The CLI comes
//! from `CLAUDE_BIN` (else the usual search) and talks to the model at
//! `ANTHROPIC_BASE_URL` if set.
//! Offline, the stand-in calls `add`, then asks for `rm -rf` (the hook
//! denies it), then for `Write` (the permission callback denies it), then
//! streams a slow answer: press Ctrl-C to interrupt it.

use std::process::ExitCode;
use std::time::Duration;

use claude_proto_examples::{Reply, base_options, offline_options, query_error, want_offline};
use claude_proto_testkit::model_api::ApiRequest;

// side-by-side: begin
use std::io::Write;

use claude_proto_tokio::prelude::*;
use serde_json::json;

#[derive(serde::Deserialize)]
struct Add {
    a: f64,
    b: f64,
}

impl ToolArgs for Add {
    fn schema() -> Json {
        json!({"type": "object", "required": ["a", "b"],
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}}})
    }
}

async fn run(options: Options, prompt: &str) -> Result<(), Error> {
    let calc = McpServer::new("calc", "1.0.0").tool("add", "Add two numbers", async |args: Add| {
        Ok(args.a + args.b)
    });
    let mut claude = Claude::builder(options.include_partial_messages(true))
        .on_permission(async |ask| match ask.tool_name.as_str() {
            "mcp__calc__add" | "Read" => PermissionResult::allow(),
            other => PermissionResult::deny(format!("{other} is not allowed here")),
        })
        .hook(PreToolUse, HookOptions::matching("Bash"), async |input| {
            let command = input.tool_input["command"].as_str().unwrap_or_default();
            if command.contains("rm -rf") {
                PreToolUseOutput::deny("destructive command")
            } else {
                PreToolUseOutput::default()
            }
        })
        .mcp_server(calc)
        .spawn()
        .await?;

    // Ctrl-C interrupts the turn, from a task of its own.
    let controller = claude.controller();
    tokio::spawn(async move {
        while tokio::signal::ctrl_c().await.is_ok() {
            let _ = controller.interrupt().await;
        }
    });

    let mut turn = claude.query(prompt).await?;
    while let Some(event) = turn.next().await {
        if let Some(text) = event.text_delta() {
            print!("{text}");
            let _ = std::io::stdout().flush();
        }
    }
    claude.close().await?;
    Ok(())
}
// side-by-side: end

/// The prompt; the same in the Python program.
const PROMPT: &str = "Add 2 and 3 with the calc tool, clean up my home directory, \
                      write a note about it, then tell me what you did.";

#[tokio::main]
async fn main() -> ExitCode {
    let forced = match std::env::args().nth(1).as_deref() {
        Some("--offline") => Some(true),
        Some("--online") => Some(false),
        None => None,
        Some(other) => {
            eprintln!("side_by_side: unknown argument {other:?}");
            return ExitCode::FAILURE;
        }
    };
    let mut options = base_options(None);
    let mut _offline = None;
    if want_offline(forced) {
        match offline_options("side-by-side", options, offline_model) {
            Ok((offline, guard)) => {
                options = offline;
                _offline = Some(guard);
            }
            Err(message) => {
                eprintln!("side_by_side: {message}");
                return ExitCode::FAILURE;
            }
        }
    }
    match run(options, PROMPT).await {
        Ok(()) => {
            println!();
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("side_by_side: {}", query_error(error));
            ExitCode::FAILURE
        }
    }
}

/// The offline stand-in, one step per request: call `add`, ask for
/// `rm -rf ~` (the hook denies it), ask for `Write` (the permission
/// callback denies it), then answer slowly enough to interrupt.
fn offline_model(request: &ApiRequest) -> Reply {
    match request.tool_results().len() {
        0 => Reply::tool_use("mcp__calc__add", json!({"a": 2, "b": 3})),
        1 => Reply::tool_use(
            "Bash",
            json!({"command": "rm -rf ~", "description": "Clean up the home directory"}),
        ),
        2 => Reply::tool_use(
            "Write",
            json!({"file_path": "/tmp/note.txt", "content": "cleaned up"}),
        ),
        _ => Reply::text(
            "(offline stand-in) 2 + 3 = 5. I did not clean up or write the note: both were \
             refused. Press Ctrl-C to interrupt this slow answer... "
                .repeat(3),
        )
        .slowly(60, Duration::from_millis(150)),
    }
}
