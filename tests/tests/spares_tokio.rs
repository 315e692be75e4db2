//! Spares with the real CLI, offline, through the tokio adapter: a claim
//! that succeeds runs the session in the claimed folder as a cold one
//! would; each refusal the CLI gives offline fails the claim with its
//! reason, writes no prompt and leaves nothing behind; a spare killed or
//! dropped while parked leaves no process and no parking directory.
//!
//! Needs the CLI (`npm ci --prefix tests/peer`); without it each test says
//! it was skipped and passes, except under CI, where it fails.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers fail loudly by design

use std::path::{Path, PathBuf};
use std::time::Duration;

use claude_proto::model::claim::ClaimRefusal;
use claude_proto::model::permission::PermissionMode;
use claude_proto_testkit::model_api::{ModelApi, Reply, claude_bin_or_skip};
use claude_proto_tests::process;
use claude_proto_tests::real_cli::TempDir;
use claude_proto_tokio::{Claim, ClaimError, Claude, Error, Options, Spare};

const WAIT: Duration = Duration::from_secs(60);

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// The stand-in, and options that run the pinned CLI offline against it.
fn offline(replies: Vec<Reply>) -> Option<(ModelApi, Options)> {
    let cli = claude_bin_or_skip()?;
    let api = ModelApi::turns(replies).unwrap();
    let options = api.options(Options::new().cli_path(cli));
    Some((api, options))
}

async fn prewarm(options: Options) -> (Spare, u32, PathBuf) {
    let spare = Claude::builder(options).prewarm().await.expect("prewarm");
    let pid = spare.pid().unwrap();
    let parking = parking_dir(pid);
    assert!(parking.is_dir(), "the spare parks in {}", parking.display());
    (spare, pid, parking)
}

/// Where the CLI `pid` runs (its working directory).
fn parking_dir(pid: u32) -> PathBuf {
    std::fs::read_link(format!("/proc/{pid}/cwd")).expect("the spare's working directory")
}

fn folder() -> TempDir {
    TempDir::new().unwrap()
}

/// The transcripts the CLI wrote under `config`, by file name.
fn transcripts(config: &Path) -> Vec<PathBuf> {
    let projects = config.join("projects");
    let Ok(dirs) = std::fs::read_dir(projects) else {
        return Vec::new();
    };
    dirs.flatten()
        .flat_map(|dir| {
            std::fs::read_dir(dir.path())
                .into_iter()
                .flatten()
                .flatten()
        })
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "jsonl"))
        .collect()
}

fn gone(pid: u32, parking: &Path) {
    assert!(
        process::wait_until_gone(pid, WAIT),
        "the spare's CLI {pid} is still there"
    );
    assert!(
        process::wait_until_removed(parking, WAIT),
        "the parking directory {} was left behind",
        parking.display()
    );
}

#[test]
fn a_claimed_spare_runs_its_session_in_the_claimed_folder() {
    let Some((api, options)) = offline(vec![Reply::text("claimed")]) else {
        return;
    };
    let folder = folder();
    let config = api.config_dir();
    runtime().block_on(async {
        let (spare, pid, parking) = prewarm(options).await;
        assert!(spare.is_alive());
        assert!(
            api.messages_requests().is_empty(),
            "a parked spare called the model"
        );
        let cwd = folder.path().to_path_buf();
        let mut claude = spare
            .claim(Claim::new(cwd.to_str().unwrap()).title("claimed session"))
            .await
            .expect("claim");
        assert_eq!(parking_dir(pid), cwd, "the CLI moved to the claimed folder");
        let turn = claude.ask("hello").await.unwrap();
        assert_eq!(turn.text(), Some("claimed"));
        let session = claude.session_id().unwrap();
        claude.close().await.unwrap();
        gone(pid, &parking);
        let written = transcripts(&config);
        assert!(
            written
                .iter()
                .any(|path| path.file_stem().is_some_and(|s| s == session.as_str())),
            "no transcript {session} in {written:?}"
        );
        // Keyed by the claimed folder, as a cold session there would be.
        let key = claude_proto::transcript::project_key(cwd.to_str().unwrap());
        assert!(config.join("projects").join(key).is_dir());
    });
}

fn refused(options: Options, claim: impl FnOnce(&Path) -> Claim, want: ClaimRefusal) {
    let Some((api, base)) = offline(Vec::new()) else {
        return;
    };
    let options = options_onto(base, options);
    let folder = folder();
    runtime().block_on(async {
        let (spare, pid, parking) = prewarm(options).await;
        let error = spare.claim(claim(folder.path())).await.unwrap_err();
        assert!(error.must_start_cold(), "{error}");
        let ClaimError::StartCold(Error::ClaimRefused { refusal, message }) = &error else {
            panic!("expected a refusal, got {error:?}")
        };
        assert_eq!(refusal.as_ref(), Some(&want), "{message}");
        // Gone by the time the claim returns.
        assert!(
            process::state(pid).is_none(),
            "the refused spare still runs"
        );
        assert!(!parking.exists(), "the refused spare's directory is left");
        assert!(api.messages_requests().is_empty(), "the prompt ran");
    });
}

/// `extra`'s permission flags on top of the offline options.
fn options_onto(base: Options, extra: Options) -> Options {
    base.allow_dangerously_skip_permissions(extra.allow_dangerously_skip_permissions)
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
            let settings = folder.join(".claude");
            std::fs::create_dir_all(&settings).unwrap();
            std::fs::write(settings.join("settings.json"), r#"{"model": "opus"}"#).unwrap();
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
        let (spare, pid, parking) = prewarm(options).await;
        process::kill(pid);
        tokio::time::timeout(WAIT, spare.exited())
            .await
            .expect("the spare's death was noticed");
        assert!(!spare.is_alive());
        let error = spare.claim(Claim::new("/")).await.unwrap_err();
        assert!(error.must_start_cold(), "{error}");
        gone(pid, &parking);
    });
}

#[test]
fn a_spare_dropped_while_parked_leaves_nothing() {
    let Some((_api, options)) = offline(Vec::new()) else {
        return;
    };
    let rt = runtime();
    let (pid, parking) = rt.block_on(async {
        let (spare, pid, parking) = prewarm(options).await;
        drop(spare);
        (pid, parking)
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
