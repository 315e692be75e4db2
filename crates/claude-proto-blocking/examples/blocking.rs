//! One prompt from plain blocking code: a permission handler that allows
//! reading and denies everything else, the answer as it streams, then its
//! cost.
//!
//! ```text
//! cargo run -p claude-proto-blocking --example blocking -- "What is in Cargo.toml?"
//! ```
//!
//! It talks to the real service, so it needs credentials (`ANTHROPIC_API_KEY`
//! or a `claude` login); without them the CLI ends the turn with an error,
//! printed here, and the exit code is non-zero.

use std::io::Write as _;
use std::process::ExitCode;

use claude_proto_blocking::prelude::*;

fn main() -> Result<ExitCode, Box<dyn std::error::Error>> {
    let prompt = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "Say hello in five words.".to_owned());

    let options = Options::default().include_partial_messages(true);
    let mut claude = Claude::builder(options)
        // A plain closure, called on a handler thread.
        .on_permission(|ask: CanUseTool| {
            eprintln!("[permission] {} {}", ask.tool_name, ask.input);
            match ask.tool_name.as_str() {
                "Read" | "Glob" | "Grep" => PermissionResult::allow(),
                _ => PermissionResult::deny("this example only reads"),
            }
        })
        .spawn()?;

    // The turn as it streams, as typed items.
    let mut turn = claude.query(prompt)?;
    while let Some(item) = turn.next_item() {
        match item {
            TurnItem::TextDelta(text) => {
                print!("{text}");
                std::io::stdout().flush()?;
            }
            TurnItem::ToolUse(tool) => eprintln!("\n[tool] {} {}", tool.name, tool.input),
            _ => {}
        }
    }
    let turn = turn.finish()?;
    println!();
    match turn.error_message() {
        Some(error) => eprintln!("[turn failed] {error}"),
        None => eprintln!(
            "[result] {} in {} turn(s), ${:.4}",
            turn.result.subtype,
            turn.result.num_turns,
            turn.cost_usd()
        ),
    }

    if let Some(exit) = claude.close()?.filter(|exit| !exit.success()) {
        eprintln!("[claude] {exit}");
    }
    Ok(if turn.result.is_success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
