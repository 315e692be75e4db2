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

use claude_proto::model::claim::ClaimRefusal;
use claude_proto::model::permission::PermissionMode;
use claude_proto_testkit::model_api::Reply;
use claude_proto_tests::process;
use claude_proto_tests::real_cli::WAIT;
use claude_proto_tests::real_cli::spares::{
    folder, gone, gone_now, offline, parked, settings_a_claim_cannot_apply,
    transcript_is_the_folders, working_dir,
};
use claude_proto_tokio::{Claim, ClaimError, Claude, Error, Options};

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
        let mut claude = spare
            .claim(Claim::new(cwd.to_str().unwrap()).title("claimed session"))
            .await
            .expect("claim");
        assert_eq!(working_dir(pid), cwd, "the CLI moved to the claimed folder");
        let turn = claude.ask("hello").await.unwrap();
        assert_eq!(turn.text(), Some("claimed"));
        let session = claude.session_id().unwrap();
        claude.close().await.unwrap();
        gone(pid, &parking);
        transcript_is_the_folders(&api.config_dir(), cwd, &session);
    });
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
