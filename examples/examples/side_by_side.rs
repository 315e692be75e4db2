//! `side_by_side`: the job `docs/compared-with-sdks.md` compares with the
//! Python SDK (`examples/py/side_by_side.py` is the same program in Python).
//!
//! ```text
//! cargo run --example side_by_side               # real service if you have credentials, else offline
//! cargo run --example side_by_side -- --offline  # a loopback stand-in for the model
//! ```
//!
//! A realistic agent: a permission callback that denies `sudo` and
//! rewrites what `Write` writes, a typed `PreToolUse` hook that denies
//! destructive Bash commands, an in-process MCP tool (`calc`'s `add`),
//! three streamed turns printing the text as it streams, each tool call and
//! its result, and each turn's own cost; Ctrl-C interrupting a turn from a
//! task of its own; a model and permission mode switch between turns; the
//! session resumed by a new CLI process; and a one-shot question.
//!
//! The part between the `side-by-side` markers is what
//! `docs/compared-with-sdks.md` shows; `tests/tests/side_by_side.rs` runs
//! this program and the Python one against the real CLI and checks that
//! the page quotes both exactly, with the right line counts. The CLI comes
//! from `CLAUDE_BIN` (else the usual search) and talks to the model at
//! `ANTHROPIC_BASE_URL` if set. Offline, the stand-in plays the same model
//! as the test's, in a temporary working directory removed at the end:
//! press Ctrl-C during the story.

use std::path::Path;
use std::process::ExitCode;

use claude_proto_examples::{base_options, offline_options_with, query_error, want_offline};
use claude_proto_testkit::model_api::ApiRequest;

// side-by-side: begin
use std::io::Write;

use claude_proto_tokio::prelude::*;
use serde_json::json;

#[derive(Deserialize, JsonSchema)]
struct Add {
    a: f64,
    b: f64,
}

async fn review(ask: CanUseTool) -> PermissionResult {
    match ask.typed_input() {
        ToolInput::Bash(bash) if bash.command.contains("sudo") => {
            PermissionResult::deny("no sudo here")
        }
        ToolInput::Write(write) => PermissionResult::allow().with_updated_input(json!({
            "file_path": write.file_path, "content": format!("[reviewed] {}", write.content)
        })),
        _ => PermissionResult::allow(),
    }
}

async fn no_rm_rf(input: PreToolUseInput) -> PreToolUseOutput {
    match input.typed_input() {
        ToolInput::Bash(bash) if bash.command.contains("rm -rf") => {
            PreToolUseOutput::deny("destructive command")
        }
        _ => PreToolUseOutput::default(),
    }
}

async fn turn(claude: &mut Claude, prompt: &str) -> Result<Turn, Error> {
    let mut turn = claude.query(prompt).await?;
    while let Some(item) = turn.next_item().await {
        match item {
            TurnItem::TextDelta(text) => {
                print!("{text}");
                let _ = std::io::stdout().flush();
            }
            TurnItem::ToolUse(tool) => println!("\n[tool] {} {}", tool.name, tool.input),
            TurnItem::ToolResult(r) => println!("[result] {} (error: {})", r.text(), r.is_error()),
            _ => {}
        }
    }
    let turn = turn.finish().await?;
    println!("\n[cost] ${:.4}", turn.cost_usd());
    Ok(turn)
}

async fn run(options: Options, prompts: [&str; 5]) -> Result<(), Error> {
    let calc = McpServer::new("calc", "1.0.0").tool("add", "Add two numbers", async |args: Add| {
        Ok(args.a + args.b)
    });
    let options = options.include_partial_messages(true);
    let mut claude = Claude::builder(options.clone())
        .on_permission(review)
        .hook(PreToolUse, HookOptions::matching("Bash"), no_rm_rf)
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
    turn(&mut claude, prompts[0]).await?;
    claude.set_model("claude-haiku-4-5").await?;
    claude
        .set_permission_mode(PermissionMode::AcceptEdits)
        .await?;
    turn(&mut claude, prompts[1]).await?;
    let last = turn(&mut claude, prompts[2]).await?;
    claude.close().await?;
    let resumed = options.clone().resume(last.result.session_id);
    let mut claude = Claude::builder(resumed).spawn().await?;
    turn(&mut claude, prompts[3]).await?;
    claude.close().await?;
    let answer = claude_proto_tokio::query(prompts[4], options).await?;
    println!("{}", answer.text().unwrap_or_default());
    Ok(())
}
// side-by-side: end

/// The prompts; the same in the Python program.
const PROMPTS: [&str; 5] = [
    "Add 2 and 3 with the calc tool, clean up my home directory, \
     reboot the machine, and write a note about it.",
    "Write another note.",
    "Tell me a long story.",
    "What did we do?",
    "What is 6 times 7?",
];

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
        // The notes go to the temporary working directory, by absolute
        // path as `Write` wants them.
        let model = |work: &Path| {
            let work = work.to_owned();
            move |request: &ApiRequest| claude_proto_examples::side_by_side_model(&work, request)
        };
        match offline_options_with("side-by-side", options, model) {
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
    match run(options, PROMPTS).await {
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
