//! `hook_guard`: a `PreToolUse` hook that blocks destructive shell commands.
//!
//! ```text
//! cargo run --example hook_guard               # real service if you have credentials, else offline
//! cargo run --example hook_guard -- --offline  # a loopback stand-in for the model
//! ```
//!
//! Registers a hook for `PreToolUse` with the matcher `Bash`: the CLI calls
//! it before every Bash command. A command on a short list of destructive
//! patterns is denied with `PreToolUseOutput::deny(reason)` (the command
//! does not run and the model gets the reason as the tool's error); any
//! other command gets `PreToolUseOutput::default()`, "no opinion", and the
//! usual permission rules decide. Two prompts show both outcomes: one asks
//! for `rm -rf build`, one for `ls`. For each turn it prints the tool call
//! and the tool result the model saw, as the turn streams them.
//!
//! The CLI runs in a throwaway directory holding a `build/` directory, so
//! you can see it survive. Offline, the stand-in asks for exactly those two
//! commands and the example checks the outcome.

use std::process::ExitCode;

use claude_proto_examples::{
    Reply, ScratchDir, base_options, last_prompt, last_tool_result, offline_options, start_error,
    want_offline,
};
use claude_proto_testkit::model_api::ApiRequest;
use claude_proto_tokio::prelude::*;
use serde_json::json;

/// Commands this demo refuses. A substring list is a demonstration, NOT a
/// security boundary: `rm -r -f`, `find -delete`, a script file or base64
/// all get around it. Use permission modes, a sandbox and a permission
/// handler that allows known-good commands for real protection.
const DESTRUCTIVE: &[&str] = &[
    "rm -rf",
    "rm -fr",
    "mkfs",
    "dd if=",
    "> /dev/sd",
    "git push --force",
    "git push -f",
];

/// The pattern `command` matches, if any (case-insensitive, whitespace
/// collapsed).
fn destructive(command: &str) -> Option<&'static str> {
    let normalized = command
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    DESTRUCTIVE
        .iter()
        .copied()
        .find(|pattern| normalized.contains(pattern))
}

/// The hook: a plain `async fn` taking `PreToolUse`'s own input and
/// answering with its own output type.
async fn guard(call: PreToolUseInput) -> PreToolUseOutput {
    let command = call.tool_input["command"].as_str().unwrap_or_default();
    match destructive(command) {
        Some(pattern) => {
            println!("[hook] deny {command:?} (matches {pattern:?})");
            PreToolUseOutput::deny(format!(
                "blocked by hook_guard: `{pattern}` is on its list of destructive commands"
            ))
        }
        None => {
            println!("[hook] no opinion on {command:?}");
            PreToolUseOutput::default()
        }
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("hook_guard: {message}");
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
    let offline = want_offline(forced);

    // A throwaway working directory with something to delete.
    let work = ScratchDir::new("hook-guard-work")?;
    let precious = work.subdir("build")?.join("output.bin");
    std::fs::write(&precious, b"precious")
        .map_err(|e| format!("cannot write {}: {e}", precious.display()))?;

    let mut options = base_options(None).cwd(work.path());
    let mut _offline = None;
    if offline {
        let (offline, guard) = offline_options("hook-guard", options, offline_model)?;
        options = offline;
        _offline = Some(guard);
    }

    let mut claude = Claude::builder(options)
        .hook(PreToolUse, HookOptions::matching("Bash"), guard)
        .spawn()
        .await
        .map_err(start_error)?;

    let blocked = turn(&mut claude, "Clean up: run `rm -rf build` in the shell.").await?;
    let allowed = turn(&mut claude, "Now list the files here with `ls`.").await?;
    if let Err(e) = claude.close().await {
        eprintln!("closing failed: {e}");
    }

    let survived = precious.is_file();
    println!(
        "\nbuild/ {}",
        if survived {
            "is still there"
        } else {
            "is gone"
        }
    );
    if offline {
        // The stand-in's script is fixed, so the outcome is too.
        let was_blocked = blocked
            .first()
            .is_some_and(|r| r.is_error() && r.text().contains("blocked by hook_guard"));
        let ran = allowed
            .first()
            .is_some_and(|r| !r.is_error() && r.text().contains("build"));
        if !(was_blocked && ran && survived) {
            return Err(format!(
                "offline checks failed: rm -rf blocked {was_blocked}, ls ran {ran}, build/ kept {survived}"
            ));
        }
        println!("offline checks passed: rm -rf was blocked, ls ran");
    }
    Ok(())
}

/// Runs one turn, printing each tool call and the result the model saw as
/// they stream; returns those results.
async fn turn(claude: &mut Claude, prompt: &str) -> Result<Vec<ToolResultBlock>, String> {
    println!("\n> {prompt}");
    let mut turn = claude.query(prompt).await.map_err(|e| e.to_string())?;
    let mut results = Vec::new();
    while let Some(item) = turn.next_item().await {
        match item {
            TurnItem::ToolUse(tool) => println!("[tool call] {} {}", tool.name, tool.input),
            TurnItem::ToolResult(result) => {
                let error = if result.is_error() { ", error" } else { "" };
                println!("[model saw{error}] {}", result.text().replace('\n', " ⏎ "));
                results.push(result);
            }
            _ => {}
        }
    }
    let turn = turn.finish().await.map_err(|e| e.to_string())?;
    println!("{}", turn.text().unwrap_or_default());
    Ok(results)
}

/// The offline stand-in: asks for `rm -rf build` or `ls`, then reports what
/// the tool said.
fn offline_model(request: &ApiRequest) -> Reply {
    if let Some(result) = last_tool_result(request) {
        let first = result.lines().next().unwrap_or_default().to_owned();
        return Reply::text(format!("(offline stand-in) The tool said: {first}"));
    }
    let (command, description) = if last_prompt(request).contains("rm -rf") {
        ("rm -rf build", "Remove the build directory")
    } else {
        ("ls", "List the files")
    };
    Reply::tool_use(
        "Bash",
        json!({"command": command, "description": description}),
    )
}
