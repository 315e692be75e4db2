//! One prompt on smol, with a permission handler that allows reading and
//! denies everything else; the answer is printed as it streams.
//!
//! `cargo run -p claude-proto-async-std --no-default-features --features smol --example smol -- "What is in Cargo.toml?"`

use claude_proto_async_std::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let prompt = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "What is in Cargo.toml?".to_owned());
    smol::block_on(async {
        let mut claude = Claude::builder(Options::default().include_partial_messages(true))
            .on_permission(async |ask| match ask.tool_name.as_str() {
                "Read" | "Glob" | "Grep" => PermissionResult::allow(),
                _ => PermissionResult::deny("this example only reads"),
            })
            .spawn()
            .await?;
        // The turn as it streams: text deltas, tool calls, the result.
        let mut turn = claude.query(prompt).await?;
        while let Some(item) = turn.next_item().await {
            match item {
                TurnItem::TextDelta(text) => print!("{text}"),
                TurnItem::ToolUse(tool) => println!("[{}]", tool.name),
                TurnItem::Result(result) => println!("\n${:.4}", result.total_cost_usd()),
                _ => {}
            }
        }
        claude.close().await?;
        Ok::<_, Box<dyn std::error::Error>>(())
    })
}
