//! One prompt from plain blocking code: a permission handler that allows
//! reading and denies everything else, then the answer and its cost.
//!
//! ```text
//! cargo run -p claude-proto-blocking --example blocking -- "What is in Cargo.toml?"
//! ```

use claude_proto::model::permission::PermissionResult;
use claude_proto_blocking::{Claude, Options};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let prompt = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "Say hello in five words.".to_owned());

    let mut claude = Claude::builder(Options::default())
        .on_permission(|ask| {
            eprintln!("[permission] {} {}", ask.tool_name, ask.input);
            Ok(match ask.tool_name.as_str() {
                "Read" | "Glob" | "Grep" => PermissionResult::allow(),
                _ => PermissionResult::deny("this example only reads"),
            })
        })
        .spawn()?;

    let init = claude.initialization()?;
    eprintln!("[claude] {} models available", init.models.len());

    let turn = claude.ask(prompt)?;
    println!("{}", turn.text().unwrap_or("(no text)"));
    eprintln!(
        "[result] {} in {} turn(s), ${:.4}",
        turn.result.subtype,
        turn.result.num_turns,
        turn.cost_usd()
    );

    let exit = claude.close()?;
    if let Some(exit) = exit.filter(|exit| !exit.success()) {
        eprintln!("[claude] {exit}");
    }
    Ok(())
}
