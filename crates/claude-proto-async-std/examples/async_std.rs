//! One prompt on async-std, with a permission handler that allows reading
//! and denies everything else.
//!
//! `cargo run -p claude-proto-async-std --example async_std -- "What is in Cargo.toml?"`

use claude_proto::model::permission::PermissionResult;
use claude_proto_async_std::{Claude, Options};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let prompt = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "What is in Cargo.toml?".to_owned());
    async_std::task::block_on(async {
        let mut claude = Claude::builder(Options::default())
            .on_permission(|ask| async move {
                Ok(
                    if matches!(ask.tool_name.as_str(), "Read" | "Glob" | "Grep") {
                        PermissionResult::allow()
                    } else {
                        PermissionResult::deny("this example only reads")
                    },
                )
            })
            .spawn()
            .await?;
        let turn = claude.ask(prompt).await?;
        println!("{}", turn.text().unwrap_or_default());
        if let Some(cost) = turn.session_cost_usd() {
            println!("session cost so far: ${cost:.4}");
        }
        claude.close().await?;
        Ok::<_, Box<dyn std::error::Error>>(())
    })
}
