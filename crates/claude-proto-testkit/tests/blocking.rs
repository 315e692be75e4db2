//! A user's own agent tested with the scripted CLI from blocking code: a
//! permission callback, a PreToolUse hook, an in-process MCP tool and an
//! error result, each script about ten lines.

use claude_proto_blocking::prelude::*;
use claude_proto_testkit::{FailureKind, Script, ask, cli, expect};
use serde_json::json;

type Result = std::result::Result<(), Box<dyn std::error::Error>>;

#[test]
fn a_permission_callback_allows_reads_only() -> Result {
    let read = json!({"file_path": "notes.txt"});
    let write = json!({"file_path": "notes.txt", "content": "x"});
    let script = Script::new()
        .expect(expect::user_text("Tidy the notes"))
        .send(cli::system_init())
        .ask(ask::can_use_tool("Read", read), expect::allow())
        .ask(
            ask::can_use_tool("Write", write),
            expect::deny_with("read-only"),
        )
        .send(cli::result_success("Read them, could not write."))
        .expect_end();

    let builder = Claude::builder(Options::default()).on_permission(|ask| {
        if ask.tool_name == "Read" {
            PermissionResult::allow()
        } else {
            PermissionResult::deny("read-only session")
        }
    });
    let (mut claude, run) = claude_proto_testkit::blocking::connect(builder, script)?;
    let turn = claude.ask("Tidy the notes")?;
    assert_eq!(turn.text(), Some("Read them, could not write."));
    claude.close()?;
    run.wait()?;
    Ok(())
}

#[test]
fn a_pre_tool_use_hook_allows_the_shell() -> Result {
    let ls = json!({"command": "ls"});
    let script = Script::new()
        .expect(expect::any_user())
        .send(cli::system_init())
        .ask(
            ask::pre_tool_use("Bash", ls),
            expect::hook_decision("allow"),
        )
        .send(cli::result_success("Listed."))
        .expect_end();

    let builder = Claude::builder(Options::default()).hook(
        PreToolUse,
        HookOptions::matching("Bash"),
        |_: PreToolUseInput| PreToolUseOutput::allow(),
    );
    let (mut claude, run) = claude_proto_testkit::blocking::connect(builder, script)?;
    assert_eq!(claude.ask("List")?.text(), Some("Listed."));
    claude.close()?;
    run.assert_ok();
    Ok(())
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Shout {
    text: String,
}

#[test]
fn an_in_process_mcp_tool_answers_and_an_error_result_ends_the_turn() -> Result {
    let args = json!({"text": "hello"});
    let script = Script::new()
        .mcp_handshake("loud")
        .expect(expect::any_user())
        .send(cli::system_init_with(&["mcp__loud__shout"], &["loud"]))
        .ask(
            ask::mcp_tool_call("loud", "shout", args),
            expect::mcp_tool_text("HELLO"),
        )
        .send(cli::result_error(&["the model gave up"]))
        .expect_end();

    let loud = McpServer::new("loud", "1.0.0").tool("shout", "Upper-cases text", |args: Shout| {
        Ok(args.text.to_uppercase())
    });
    let builder = Claude::builder(Options::default()).mcp_server(loud);
    let (mut claude, run) = claude_proto_testkit::blocking::connect(builder, script)?;
    let turn = claude.ask("Shout hello")?;
    assert!(turn.is_error());
    claude.close()?;
    run.wait()?;
    Ok(())
}

#[test]
fn a_tool_that_fails_is_reported_with_the_difference() -> Result {
    let args = json!({"text": "hello"});
    let script = Script::new()
        .mcp_handshake("loud")
        .expect(expect::any_user())
        .ask(
            ask::mcp_tool_call("loud", "shout", args),
            expect::mcp_tool_text("HELLO"),
        )
        .send(cli::result_success("done"));
    let loud = McpServer::new("loud", "1.0.0").tool("shout", "Whispers instead", |args: Shout| {
        Ok(args.text.to_lowercase())
    });
    let builder = Claude::builder(Options::default()).mcp_server(loud);
    let (mut claude, run) = claude_proto_testkit::blocking::connect(builder, script)?;
    let _ = claude.ask("Shout hello");
    let _ = claude.close();
    let failure = run.wait().expect_err("the tool whispered");
    assert_eq!(failure.label, "ask mcp_message loud tools/call");
    let FailureKind::Mismatch { difference, .. } = &failure.kind else {
        panic!("{failure}");
    };
    let difference = difference.as_ref().expect("a difference");
    assert_eq!(
        difference.path,
        "/response/response/mcp_response/result/content/0/text"
    );
    assert_eq!(difference.actual, "\"hello\"");
    Ok(())
}
