//! One prompt on smol, with a permission handler that allows reading and
//! denies everything else; the answer is printed as it streams.
//!
//! `cargo run -p claude-proto-async-std --no-default-features --features smol --example smol -- "What is in Cargo.toml?"`

use claude_proto::model::permission::PermissionResult;
use claude_proto::model::stdout::StdoutMessage;
use claude_proto_async_std::{Claude, Options};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let prompt = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "What is in Cargo.toml?".to_owned());
    smol::block_on(async {
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
        claude.send_text(prompt).await?;
        // `events()` is also a `futures_core::Stream`.
        while let Some(event) = claude.events().next().await {
            let Some(message) = event.as_message() else {
                continue;
            };
            if let StdoutMessage::Result(result) = message.parse()? {
                println!("{}", result.result.as_deref().unwrap_or_default());
                println!("session cost so far: ${:.4}", result.cost_usd());
                break;
            }
        }
        claude.close().await?;
        Ok::<_, Box<dyn std::error::Error>>(())
    })
}
