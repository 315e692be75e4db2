//! My agent against the real Claude Code CLI, offline: the model is
//! scripted, everything else is real.
#![allow(clippy::unwrap_used)]

use claude_proto_testkit::model_api::{ModelApi, Reply, claude_bin_or_skip};
use claude_proto_tokio::prelude::*;
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn the_agent_runs_a_command_and_answers() {
    // The model's turns, in order: a tool call, then the answer.
    let api = ModelApi::turns([
        Reply::tool_use(
            "Bash",
            json!({"command": "echo hello > note.txt && cat note.txt"}),
        )
        .with_text("Let me write that down."),
        Reply::text("The note says hello."),
    ])
    .unwrap();
    // The pinned CLI (CLAUDE_BIN); without it the test is skipped, under
    // CI it fails. It works in the stand-in's directory, removed with it.
    let Some(cli) = claude_bin_or_skip() else {
        return;
    };
    let options = api.options(Options::default().cli_path(cli).cwd(api.home()));

    // The agent under test: here, a session that allows Bash.
    let mut claude = Claude::builder(options)
        .on_permission(async |ask| {
            if ask.tool_name == "Bash" {
                PermissionResult::allow()
            } else {
                PermissionResult::deny("only Bash here")
            }
        })
        .spawn()
        .await
        .unwrap();
    let turn = claude.ask("Write hello in a note").await.unwrap();
    claude.close().await.unwrap();

    assert_eq!(turn.text(), Some("The note says hello."));
    // What the model was sent: the command's output came back to it.
    let calls = api.messages_requests();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[1].tool_result_texts(), ["hello"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_agent_sees_an_overloaded_api_as_a_failed_turn() {
    let api = ModelApi::turns([Reply::overloaded()]).unwrap();
    let Some(cli) = claude_bin_or_skip() else {
        return;
    };
    let options = api.options(Options::default().cli_path(cli));

    let mut claude = Claude::spawn(options).await.unwrap();
    let turn = claude.ask("Hello?").await.unwrap();
    claude.close().await.unwrap();

    assert!(turn.is_error());
    let message = turn.result.error_message().unwrap();
    assert!(message.contains("Overloaded"), "{message}");
}

#[test]
fn the_blocking_adapter_too() {
    let api = ModelApi::turns([Reply::text("Hello from the script.")]).unwrap();
    let Some(cli) = claude_bin_or_skip() else {
        return;
    };
    let options = api.options(claude_proto_blocking::Options::default().cli_path(cli));

    let mut claude = claude_proto_blocking::Claude::spawn(options).unwrap();
    let turn = claude.ask("Say hello").unwrap();
    claude.close().unwrap();

    assert_eq!(turn.text(), Some("Hello from the script."));
}
