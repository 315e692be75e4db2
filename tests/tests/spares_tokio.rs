//! Spares with the real CLI, offline, through the tokio adapter: a claim
//! that succeeds runs the session in the claimed folder as a cold one
//! would; each refusal the CLI gives offline fails the claim with its
//! reason, writes no prompt and leaves nothing behind; a spare killed or
//! dropped while parked leaves no process and no parking directory.
//!
//! Needs the CLI (`npm ci --prefix tests/peer`); without it each test says
//! it was skipped and passes, except under CI, where it fails.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers fail loudly by design

use std::path::Path;
use std::sync::{Arc, Mutex};

use claude_proto::model::claim::ClaimRefusal;
use claude_proto::model::permission::PermissionMode;
use claude_proto_testkit::model_api::{ModelApi, Reply};
use claude_proto_tests::process;
use claude_proto_tests::real_cli::WAIT;
use claude_proto_tests::real_cli::spares::transcripts;
use claude_proto_tests::real_cli::spares::{
    folder, gone, gone_now, offline, parked, settings_a_claim_cannot_apply,
    transcript_is_the_folders, working_dir,
};
use claude_proto_tokio::prelude::*;
use claude_proto_tokio::{Claim, ClaimError, ClaudeBuilder, McpServer};
use serde_json::{Value, json};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn a_claimed_spare_runs_its_session_in_the_claimed_folder() {
    let Some((api, options)) = offline(vec![Reply::text("claimed")]) else {
        return;
    };
    let folder = folder();
    runtime().block_on(async {
        let spare = Claude::builder(options).prewarm().await.expect("prewarm");
        let (pid, parking) = parked(spare.pid());
        assert!(spare.is_alive());
        assert!(
            api.messages_requests().is_empty(),
            "a parked spare called the model"
        );
        let cwd = folder.path();
        // An agent of the folder's own, which only the claimed session knows.
        std::fs::create_dir_all(cwd.join(".claude/agents")).unwrap();
        std::fs::write(
            cwd.join(".claude/agents/reviewer.md"),
            "---\nname: folder-reviewer\ndescription: Reviews\n---\nReview.\n",
        )
        .unwrap();
        let agents = |init: &claude_proto::model::initialize::InitializeResponse| {
            init.agents.iter().any(|a| a.name == "folder-reviewer")
        };
        let parked_init = spare_initialization(&spare).await;
        assert!(!agents(&parked_init));
        let mut claude = spare
            .claim(Claim::new(cwd.to_str().unwrap()).title("claimed session"))
            .await
            .expect("claim");
        assert_eq!(working_dir(pid), cwd, "the CLI moved to the claimed folder");
        assert!(
            agents(&claude.initialization().await.unwrap()),
            "the initialize answer describes the claimed folder"
        );
        let turn = claude.ask("hello").await.unwrap();
        assert_eq!(turn.text(), Some("claimed"));
        let session = claude.session_id().unwrap();
        claude.close().await.unwrap();
        gone(pid, &parking);
        transcript_is_the_folders(&api.config_dir(), cwd, &session);
    });
}

/// A spare's `initialize` answer (it describes the parking directory).
async fn spare_initialization(
    spare: &claude_proto_tokio::Spare,
) -> std::sync::Arc<claude_proto::model::initialize::InitializeResponse> {
    spare
        .initialization()
        .await
        .expect("the spare's initialize answer")
}

fn refused(options: Options, claim: impl FnOnce(&Path) -> Claim, want: ClaimRefusal) {
    let Some((api, base)) = offline(Vec::new()) else {
        return;
    };
    let options =
        base.allow_dangerously_skip_permissions(options.allow_dangerously_skip_permissions);
    let folder = folder();
    runtime().block_on(async {
        let spare = Claude::builder(options).prewarm().await.expect("prewarm");
        let (pid, parking) = parked(spare.pid());
        let error = spare.claim(claim(folder.path())).await.unwrap_err();
        assert!(error.must_start_cold(), "{error}");
        let ClaimError::StartCold(Error::ClaimRefused { refusal, message }) = &error else {
            panic!("expected a refusal, got {error:?}")
        };
        assert_eq!(refusal.as_ref(), Some(&want), "{message}");
        gone_now(pid, &parking);
        assert!(api.messages_requests().is_empty(), "the prompt ran");
    });
}

#[test]
fn a_folder_that_does_not_exist_is_refused() {
    refused(
        Options::new(),
        |folder| Claim::new(folder.join("missing").to_str().unwrap()),
        ClaimRefusal::CwdNotFound,
    );
}

#[test]
fn an_environment_key_read_at_start_up_is_refused() {
    refused(
        Options::new(),
        |folder| Claim::new(folder.to_str().unwrap()).env("ANTHROPIC_MODEL", "x"),
        ClaimRefusal::EnvKeyNotClaimable,
    );
}

#[test]
fn a_permission_mode_the_spare_cannot_take_is_refused() {
    refused(
        Options::new(),
        |folder| {
            Claim::new(folder.to_str().unwrap()).permission_mode(PermissionMode::BypassPermissions)
        },
        ClaimRefusal::PermissionModeNotClaimable,
    );
}

#[test]
fn a_folder_whose_settings_a_claim_cannot_apply_is_refused() {
    refused(
        Options::new(),
        |folder| {
            settings_a_claim_cannot_apply(folder);
            Claim::new(folder.to_str().unwrap())
        },
        ClaimRefusal::ProjectSettingsNotClaimable,
    );
}

#[test]
fn a_spare_killed_while_parked_fails_its_claim_and_leaves_nothing() {
    let Some((_api, options)) = offline(Vec::new()) else {
        return;
    };
    runtime().block_on(async {
        let spare = Claude::builder(options).prewarm().await.expect("prewarm");
        let (pid, parking) = parked(spare.pid());
        process::kill(pid);
        tokio::time::timeout(WAIT, spare.exited())
            .await
            .expect("the spare's death was noticed");
        assert!(!spare.is_alive());
        let error = spare.claim(Claim::new("/")).await.unwrap_err();
        assert!(error.must_start_cold(), "{error}");
        gone_now(pid, &parking);
    });
}

#[test]
fn a_spare_dropped_while_parked_leaves_nothing() {
    let Some((_api, options)) = offline(Vec::new()) else {
        return;
    };
    let rt = runtime();
    let (pid, parking) = rt.block_on(async {
        let spare = Claude::builder(options).prewarm().await.expect("prewarm");
        parked(spare.pid())
    });
    gone(pid, &parking);
    drop(rt);
}

#[test]
fn startup_initializes_before_the_first_prompt() {
    let Some((api, options)) = offline(vec![Reply::text("warm")]) else {
        return;
    };
    let folder = folder();
    runtime().block_on(async {
        let mut claude = Claude::builder(options.cwd(folder.path()))
            .startup()
            .await
            .expect("startup");
        assert!(api.messages_requests().is_empty());
        let turn = claude.ask("hello").await.unwrap();
        assert_eq!(turn.text(), Some("warm"));
        claude.close().await.unwrap();
    });
}

#[derive(Deserialize, JsonSchema)]
struct Add {
    a: f64,
    b: f64,
}

/// What a session's callbacks saw: permission prompts, hooks, tool calls.
type Seen = Arc<Mutex<Vec<String>>>;

/// A builder whose permission handler, `PreToolUse` hook and in-process
/// tool each note their call in `seen`.
fn with_callbacks(options: Options, seen: &Seen) -> ClaudeBuilder {
    let calc = McpServer::new("calc", "1.0.0").tool(
        "add",
        "Adds two numbers.",
        with_state(seen.clone(), async |seen: Seen, Add { a, b }: Add| {
            seen.lock().unwrap().push("tool add".to_owned());
            Ok(a + b)
        }),
    );
    Claude::builder(options)
        .mcp_server(calc)
        .on_permission(with_state(
            seen.clone(),
            async |seen: Seen, ask: CanUseTool| {
                seen.lock()
                    .unwrap()
                    .push(format!("permission {}", ask.tool_name));
                PermissionResult::allow()
            },
        ))
        .hook(
            PreToolUse,
            HookOptions::default(),
            with_state(seen.clone(), async |seen: Seen, call: PreToolUseInput| {
                seen.lock()
                    .unwrap()
                    .push(format!("hook {}", call.tool_name));
                PreToolUseOutput::default()
            }),
        )
}

/// The entry types of the one transcript under `config`, in order.
fn transcript_shape(config: &Path) -> Vec<String> {
    let [path] = transcripts(config).try_into().expect("one transcript");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .map(|entry| {
            let kind = entry["type"].as_str().unwrap_or_default().to_owned();
            match entry["message"]["content"]
                .as_array()
                .and_then(|c| c.first())
            {
                Some(block) => format!("{kind} {}", block["type"].as_str().unwrap_or_default()),
                None => kind,
            }
        })
        .collect()
}

/// One turn that calls the in-process tool, cold or from a claimed spare,
/// each with a stand-in of its own; what the callbacks saw and the
/// transcript's shape.
fn tool_turn(claimed: bool) -> Option<(Vec<String>, Vec<String>, String)> {
    let cli = claude_proto_testkit::model_api::claude_bin_or_skip()?;
    let api = ModelApi::turns(vec![
        Reply::tool_use("mcp__calc__add", json!({"a": 2, "b": 3})),
        Reply::text("5"),
    ])
    .unwrap();
    let options = api.options(Options::new().cli_path(cli));
    let folder = folder();
    let seen = Seen::default();
    let text = runtime().block_on(async {
        let mut claude = if claimed {
            let spare = with_callbacks(options, &seen)
                .prewarm()
                .await
                .expect("prewarm");
            spare
                .claim(Claim::new(folder.path().to_str().unwrap()))
                .await
                .expect("claim")
        } else {
            with_callbacks(options.cwd(folder.path()), &seen)
                .spawn()
                .await
                .expect("spawn")
        };
        let turn = claude.ask("add 2 and 3").await.unwrap();
        claude.close().await.unwrap();
        turn.text().unwrap_or_default().to_owned()
    });
    let seen = seen.lock().unwrap().clone();
    Some((seen, transcript_shape(&api.config_dir()), text))
}

#[test]
fn a_claimed_session_calls_back_and_records_as_a_cold_one() {
    let Some(cold) = tool_turn(false) else {
        return;
    };
    let claimed = tool_turn(true).unwrap();
    assert_eq!(cold.2, "5");
    assert_eq!(
        cold.0,
        [
            "hook mcp__calc__add",
            "permission mcp__calc__add",
            "tool add"
        ],
        "the cold session's callbacks"
    );
    assert_eq!(claimed.0, cold.0, "the claimed session's callbacks");
    // The conversation, in order. The CLI's bookkeeping entries between
    // them (`last-prompt`, `atis-latch`, ...) come in an order and number
    // that follow its timers, cold or claimed alike, so they are not
    // compared.
    let conversation = |shape: &[String]| -> Vec<String> {
        shape
            .iter()
            .filter(|kind| kind.starts_with("user ") || kind.starts_with("assistant "))
            .cloned()
            .collect()
    };
    assert_eq!(
        conversation(&cold.1),
        [
            "user text",
            "assistant tool_use",
            "user tool_result",
            "assistant text"
        ]
    );
    assert_eq!(conversation(&claimed.1), conversation(&cold.1));
    // What a claim adds: the CLI notes where the session moved to.
    assert!(
        claimed.1.iter().any(|kind| kind == "relocated"),
        "{:?}",
        claimed.1
    );
    assert!(!cold.1.iter().any(|kind| kind == "relocated"));
    assert_eq!(claimed.2, cold.2);
}
