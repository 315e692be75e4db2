//! One prompt on async-std, with a permission handler that allows reading
//! and denies everything else.
//!
//! `cargo run -p claude-proto-async-std --example async_std -- "What is in Cargo.toml?"`

use claude_proto_async_std::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let prompt = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "What is in Cargo.toml?".to_owned());
    async_std::task::block_on(async {
        let mut claude = Claude::builder(Options::default())
            .on_permission(async |ask| match ask.tool_name.as_str() {
                "Read" | "Glob" | "Grep" => PermissionResult::allow(),
                _ => PermissionResult::deny("this example only reads"),
            })
            .spawn()
            .await?;
        let turn = claude.ask(prompt).await?;
        println!("{}", turn.text().unwrap_or_default());
        println!("cost: ${:.4}", turn.cost_usd());
        claude.close().await?;
        Ok::<_, Box<dyn std::error::Error>>(())
    })
}
