//! A user's own agent tested with the scripted CLI, on tokio: a
//! permission callback, a PreToolUse hook, an in-process MCP tool, an
//! error result, and a program that does something the script did not
//! expect. Each script is about ten lines: that is the point.

use claude_proto::model::hooks::{PreToolUse, PreToolUseInput, PreToolUseOutput};
use claude_proto::model::permission::PermissionResult;
use claude_proto_testkit::{FailureKind, Script, ask, cli, expect};
use claude_proto_tokio::{Claude, HookOptions, McpServer, Options};
use serde_json::json;

type Result = std::result::Result<(), Box<dyn std::error::Error>>;

#[tokio::test]
async fn a_permission_callback_denies_a_destructive_command() -> Result {
    let rm = json!({"command": "rm -rf /var/log"});
    let script = Script::new()
        .expect(expect::user_text("Delete the logs"))
        .send(cli::system_init())
        .send(cli::assistant_tool_use("Bash", rm.clone()))
        .ask(
            ask::can_use_tool("Bash", rm.clone()),
            expect::deny_with("destructive"),
        )
        .send(cli::user_tool_error(
            &cli::tool_use_id("Bash", &rm),
            "destructive",
        ))
        .send(cli::assistant_text("I was not allowed to."))
        .send(cli::result_success("I was not allowed to."))
        .expect_end();

    let builder = Claude::builder(Options::default()).on_permission(async |ask| {
        match ask.input["command"].as_str() {
            Some(command) if command.contains("rm -rf") => PermissionResult::deny("destructive"),
            _ => PermissionResult::allow(),
        }
    });
    let (mut claude, run) = claude_proto_testkit::tokio::connect(builder, script)?;
    let turn = claude.ask("Delete the logs").await?;
    assert_eq!(turn.text(), Some("I was not allowed to."));
    claude.close().await?;
    run.finish().await?;
    Ok(())
}

#[tokio::test]
async fn a_pre_tool_use_hook_blocks_the_shell() -> Result {
    let ls = json!({"command": "ls"});
    let script = Script::new()
        .expect(expect::user_text("List the files"))
        .send(cli::system_init())
        .send(cli::assistant_tool_use("Bash", ls.clone()))
        .ask(
            ask::pre_tool_use("Bash", ls.clone()),
            expect::hook_decision("deny"),
        )
        .send(cli::user_tool_error(
            &cli::tool_use_id("Bash", &ls),
            "no shell here",
        ))
        .send(cli::result_success("Blocked."))
        .expect_end();

    let builder = Claude::builder(Options::default()).hook(
        PreToolUse,
        HookOptions::matching("Bash"),
        async |_: PreToolUseInput| PreToolUseOutput::deny("no shell here"),
    );
    let (mut claude, run) = claude_proto_testkit::tokio::connect(builder, script)?;
    assert_eq!(claude.ask("List the files").await?.text(), Some("Blocked."));
    claude.close().await?;
    let report = run.finish().await?;
    // The hook was registered in initialize, as the CLI needs it.
    let init = report.initialize.expect("the program sent initialize");
    assert!(init["request"]["hooks"]["PreToolUse"].is_array(), "{init}");
    Ok(())
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Add {
    a: f64,
    b: f64,
}

#[tokio::test]
async fn an_in_process_mcp_tool_answers_the_model() -> Result {
    let args = json!({"a": 2, "b": 3});
    let script = Script::new()
        .mcp_handshake("calc")
        .expect(expect::user_text("Add 2 and 3"))
        .send(cli::system_init_with(
            &["Bash", "mcp__calc__add"],
            &["calc"],
        ))
        .send(cli::assistant_tool_use("mcp__calc__add", args.clone()))
        .ask(
            ask::mcp_tool_call("calc", "add", args.clone()),
            expect::mcp_tool_text("5.0"),
        )
        .send(cli::assistant_text("The sum is 5."))
        .send(cli::result_success("The sum is 5."))
        .expect_end();

    let calc = McpServer::new("calc", "1.0.0")
        .tool("add", "Adds a and b", async |args: Add| Ok(args.a + args.b));
    let builder = Claude::builder(Options::default()).mcp_server(calc);
    let (mut claude, run) = claude_proto_testkit::tokio::connect(builder, script)?;
    assert_eq!(
        claude.ask("Add 2 and 3").await?.text(),
        Some("The sum is 5.")
    );
    claude.close().await?;
    run.finish().await?;
    Ok(())
}

#[tokio::test]
async fn an_error_result_reaches_the_program_as_an_error_turn() -> Result {
    let script = Script::new()
        .expect(expect::any_user())
        .send(cli::system_init())
        .send(cli::result_error(&["the tool loop failed"]))
        .expect_end();

    let builder = Claude::builder(Options::default());
    let (mut claude, run) = claude_proto_testkit::tokio::connect(builder, script)?;
    let turn = claude.ask("Do the thing").await?;
    assert!(turn.is_error());
    assert_eq!(turn.text(), None);
    claude.close().await?;
    run.finish().await?;
    Ok(())
}

#[tokio::test]
async fn an_api_error_is_an_error_turn_with_its_text() -> Result {
    let script = Script::new()
        .expect(expect::any_user())
        .send(cli::system_init())
        .send_all(cli::api_error(529, "Overloaded"))
        .expect_end();
    let (mut claude, run) =
        claude_proto_testkit::tokio::connect(Claude::builder(Options::default()), script)?;
    let turn = claude.ask("Hello").await?;
    assert!(turn.is_error());
    assert_eq!(turn.text(), Some("API Error: 529 Overloaded"));
    claude.close().await?;
    run.finish().await?;
    Ok(())
}

#[tokio::test]
async fn streamed_text_arrives_as_deltas() -> Result {
    let script = Script::new()
        .expect(expect::any_user())
        .send(cli::system_init())
        .send_all(cli::stream_text(&["Hel", "lo"]))
        .send(cli::result_success("Hello"))
        .expect_end();
    let (mut claude, run) =
        claude_proto_testkit::tokio::connect(Claude::builder(Options::default()), script)?;
    let mut turn = claude.query("Stream please").await?;
    let mut deltas = String::new();
    while let Some(event) = turn.next().await {
        if let Some(text) = event.text_delta() {
            deltas.push_str(&text);
        }
    }
    assert_eq!(deltas, "Hello");
    claude.close().await?;
    run.finish().await?;
    Ok(())
}

/// A program that sends something else than the script expects fails the
/// run, which says which step, what was expected, what came, and where
/// they first differ.
#[tokio::test]
async fn an_unexpected_prompt_fails_with_the_step_the_frames_and_the_difference() -> Result {
    let script = Script::new()
        .expect(expect::user_text("Delete the logs"))
        .send(cli::system_init())
        .send(cli::result_success("done"));
    let (mut claude, run) =
        claude_proto_testkit::tokio::connect(Claude::builder(Options::default()), script)?;
    // The scripted CLI stops at the mismatch, so the turn fails too.
    assert!(claude.ask("Delete the cache").await.is_err());
    let _ = claude.close().await;
    let failure = run.finish().await.expect_err("the script fails");
    assert_eq!(failure.step, 1);
    assert_eq!(failure.label, "user");
    let FailureKind::Mismatch {
        expected,
        actual,
        difference,
    } = &failure.kind
    else {
        panic!("not a mismatch: {failure}");
    };
    assert!(expected.contains("Delete the logs"), "{expected}");
    assert!(actual.contains("Delete the cache"), "{actual}");
    let difference = difference.as_ref().expect("a first difference");
    assert_eq!(difference.path, "/message/content/0/text");
    assert_eq!(difference.expected, "\"Delete the logs\"");
    assert_eq!(difference.actual, "\"Delete the cache\"");
    let shown = failure.to_string();
    assert!(shown.contains("step 1 (user)"), "{shown}");
    assert!(
        shown.contains("first difference at /message/content/0/text"),
        "{shown}"
    );
    Ok(())
}

/// The program's permission callback allows what the script expects it to
/// deny: the failure points at the answer's `behavior`.
#[tokio::test]
async fn a_wrong_answer_names_the_field_that_differs() -> Result {
    let rm = json!({"command": "rm -rf /"});
    let script = Script::new()
        .expect(expect::any_user())
        .send(cli::system_init())
        .ask(ask::can_use_tool("Bash", rm), expect::deny())
        .send(cli::result_success("done"));
    let builder =
        Claude::builder(Options::default()).on_permission(async |_| PermissionResult::allow());
    let (mut claude, run) = claude_proto_testkit::tokio::connect(builder, script)?;
    let _ = claude.ask("Clean up").await;
    let _ = claude.close().await;
    let failure = run.finish().await.expect_err("the script fails");
    assert_eq!(failure.step, 3);
    assert_eq!(failure.label, "ask can_use_tool Bash");
    let FailureKind::Mismatch { difference, .. } = &failure.kind else {
        panic!("not a mismatch: {failure}");
    };
    let difference = difference.as_ref().expect("a first difference");
    assert_eq!(difference.path, "/response/response/behavior");
    assert_eq!(difference.expected, "\"deny\"");
    assert_eq!(difference.actual, "\"allow\"");
    Ok(())
}

/// A script that is never finished fails at the deadline, naming what it
/// waited for, instead of hanging. The program never sends what the step
/// expects, so the step fails at its deadline however slowly the machine
/// runs (an earlier step the program did take could itself miss a deadline
/// this short on a busy machine).
#[tokio::test]
async fn a_program_that_stops_talking_fails_at_the_deadline() -> Result {
    let script = Script::new()
        .step_deadline(std::time::Duration::from_millis(200))
        .expect(expect::set_model("sonnet"));
    let (claude, run) =
        claude_proto_testkit::tokio::connect(Claude::builder(Options::default()), script)?;
    let failure = run.finish().await.expect_err("times out");
    assert_eq!(failure.step, 1);
    assert!(
        matches!(failure.kind, FailureKind::Timeout { .. }),
        "{failure}"
    );
    assert!(failure.to_string().contains("set_model"), "{failure}");
    let _ = claude.close().await;
    Ok(())
}

/// Outside a tokio runtime the glue refuses with an error, not a panic.
#[test]
fn connect_outside_a_runtime_is_an_error() {
    let builder = Claude::builder(Options::default());
    let error =
        claude_proto_testkit::tokio::connect(builder, Script::new()).expect_err("no runtime");
    assert!(error.to_string().contains("tokio runtime"), "{error}");
}

/// A script of no steps that serves is a whole CLI: an agent's turns, a
/// model switch and its answers, through the tokio adapter, in process.
#[tokio::test]
async fn a_serving_script_is_a_whole_cli() -> Result {
    let script = Script::new().serve(claude_proto_testkit::Behaviour::default());
    let (mut claude, run) =
        claude_proto_testkit::tokio::connect(Claude::builder(Options::default()), script)?;
    let first = claude.ask("one").await?;
    assert_eq!(first.text(), Some("echo: one"));
    claude.set_model("opus").await?;
    let second = claude.ask("two").await?;
    assert_eq!(second.text(), Some("echo: two"));
    claude.close().await?;
    let report = run.finish().await?;
    assert_eq!(report.exit_code, Some(0));
    assert_eq!(report.user_messages().len(), 2);
    Ok(())
}
