// A `PreToolUse` hook must answer with `PreToolUseOutput` or a `HookOutput`.
use claude_proto_tokio::claude_proto::model::hooks::PostToolUseOutput;
use claude_proto_tokio::prelude::*;

fn main() {
    let _ = Claude::builder(Options::default()).hook(
        PreToolUse,
        HookOptions::default(),
        async |_: PreToolUseInput| PostToolUseOutput::default(),
    );
}
