//! The scripted CLI as a child process: the `claude-proto-testkit-cli`
//! binary started through an adapter's real `spawn` path.

use claude_proto::model::permission::PermissionResult;
use claude_proto_testkit::{FAILURE_EXIT_CODE, FailureKind, Script, ask, cli, expect};
use claude_proto_tokio::{Claude, Configure};
use serde_json::json;

const BINARY: &str = env!("CARGO_BIN_EXE_claude-proto-testkit-cli");

type Result = std::result::Result<(), Box<dyn std::error::Error>>;

#[tokio::test]
async fn a_script_runs_through_spawn() -> Result {
    let read = json!({"file_path": "README.md"});
    let child = Script::new()
        .expect(expect::user_text("Read the README"))
        .send(cli::system_init())
        .send(cli::assistant_tool_use("Read", read.clone()))
        .ask(ask::can_use_tool("Read", read), expect::allow())
        .send(cli::result_success("It says hello."))
        .expect_end()
        .child_with(BINARY)?;

    let mut claude = Claude::builder(child.options())
        .on_permission(async |_| PermissionResult::allow())
        .spawn()
        .await?;
    let turn = claude.ask("Read the README").await?;
    assert_eq!(turn.text(), Some("It says hello."));
    claude.close().await?;

    let verdict = child.outcome()?;
    let report = verdict.outcome?;
    assert_eq!(report.exit_code, Some(0));
    // The adapter's flags reached the binary, which recorded them.
    assert!(
        verdict.args.iter().any(|a| a == "--input-format"),
        "{:?}",
        verdict.args
    );
    assert!(
        verdict
            .args
            .windows(2)
            .any(|w| w[0] == "--permission-prompt-tool" && w[1] == "stdio")
            || verdict
                .args
                .iter()
                .any(|a| a == "--permission-prompt-tool=stdio"),
        "{:?}",
        verdict.args
    );
    Ok(())
}

/// A failing script makes the binary exit with the failure code, and its
/// verdict names the step and the difference.
#[tokio::test]
async fn a_failing_script_reports_through_its_verdict_and_exit_code() -> Result {
    let child = Script::new()
        .expect(expect::user_text("hello"))
        .send(cli::result_success("hi"))
        .child_with(BINARY)?;
    let mut claude = Claude::builder(child.options()).spawn().await?;
    assert!(claude.ask("goodbye").await.is_err());
    // The adapter reports how the CLI exited, with its stderr: the verdict.
    let exit = claude.close().await?.expect("a child process exits");
    assert_eq!(exit.code, Some(FAILURE_EXIT_CODE));
    assert!(
        exit.stderr_tail
            .contains("first difference at /message/content/0/text"),
        "{}",
        exit.stderr_tail
    );

    let failure = child.outcome()?.outcome.expect_err("the script failed");
    assert_eq!(failure.step, 1);
    let FailureKind::Mismatch { difference, .. } = &failure.kind else {
        panic!("{failure}");
    };
    assert_eq!(
        difference.as_ref().map(|d| d.path.as_str()),
        Some("/message/content/0/text")
    );
    Ok(())
}

/// An `exit` step ends the child with its code, as a crashing CLI.
#[tokio::test]
async fn an_exit_step_ends_the_child_with_its_code() -> Result {
    let child = Script::new()
        .expect(expect::any_user())
        .send(cli::system_init())
        .stderr("fatal: the model is on fire")
        .exit(3)
        .child_with(BINARY)?;
    let mut claude = Claude::builder(child.options()).spawn().await?;
    let error = claude.ask("hi").await.expect_err("the CLI exited mid-turn");
    let shown = error.to_string();
    assert!(shown.contains("exited with code 3"), "{shown}");
    assert!(shown.contains("fatal: the model is on fire"), "{shown}");
    let _ = claude.close().await;
    let report = child.outcome()?.outcome?;
    assert_eq!(report.exit_code, Some(3));
    Ok(())
}

#[test]
fn a_script_with_a_closure_cannot_go_to_a_child() {
    let error = Script::new()
        .expect(claude_proto_testkit::Matcher::check("anything", |_| Ok(())))
        .child_with(BINARY)
        .expect_err("cannot be saved");
    assert!(error.to_string().contains("cannot be saved"), "{error}");
}

#[test]
fn the_binary_is_found_next_to_the_tests() {
    // Test executables run from target/<profile>/deps; the binary is one up.
    let found = claude_proto_testkit::child::cli_binary().expect("found");
    assert_eq!(
        std::fs::canonicalize(found).expect("exists"),
        std::fs::canonicalize(BINARY).expect("exists")
    );
}

/// A script that serves by itself runs through `spawn` too: its behaviour
/// is saved with it, and the binary answers every prompt and control
/// request as the in-process one does.
#[tokio::test]
async fn a_serving_script_runs_through_spawn() -> Result {
    use claude_proto_testkit::{Behaviour, Policy};
    let child = Script::new()
        .expect(expect::user_text("first"))
        .send(cli::result_success("scripted"))
        .serve(Behaviour::default().with_policy("mcp_status", Policy::Error("not today".into())))
        .child_with(BINARY)?;
    let mut claude = Claude::builder(child.options()).spawn().await?;
    assert_eq!(claude.ask("first").await?.text(), Some("scripted"));
    assert_eq!(claude.ask("second").await?.text(), Some("echo: second"));
    let status = claude
        .mcp_status()
        .await
        .expect_err("the policy answers with an error");
    assert!(status.to_string().contains("not today"), "{status}");
    claude.close().await?;
    let report = child.outcome()?.outcome?;
    assert_eq!(report.exit_code, Some(0));
    assert_eq!(report.user_messages().len(), 2);
    Ok(())
}

/// What a process cannot play is refused with the reason, not played
/// wrong.
/// A serving script that ignores SIGTERM does so as a child too (the
/// binary runs itself again under a shell that ignores it): closing a CLI
/// that reads nothing takes SIGKILL once the terminate grace is over.
#[cfg(unix)]
#[tokio::test]
async fn a_serving_child_that_ignores_sigterm_is_killed() -> Result {
    let behaviour = claude_proto_testkit::Behaviour::default()
        .with_ignore_sigterm()
        .with_stop_reading_after(0)
        .with_linger();
    let child = Script::new().serve(behaviour).child_with(BINARY)?;
    let mut limits = claude_proto_tokio::Limits::default();
    limits.close_grace = std::time::Duration::from_millis(50);
    limits.term_grace = std::time::Duration::from_millis(50);
    let claude = Claude::builder(child.options())
        .limits(limits)
        .spawn()
        .await?;
    let report = claude.close().await?.expect("an exit report");
    assert_eq!(report.signal, Some(9), "{report}");
    Ok(())
}
