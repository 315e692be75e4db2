//! Spares with the real CLI, offline, through the blocking adapter: the
//! scenarios of `spares_tokio.rs` that differ by adapter (the claim, a
//! refusal, a spare killed or dropped while parked, `startup`).
//!
//! Needs the CLI (`npm ci --prefix tests/peer`); without it each test says
//! it was skipped and passes, except under CI, where it fails.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers fail loudly by design

use claude_proto::model::claim::ClaimRefusal;
use claude_proto_blocking::{Claim, ClaimError, Claude, Error};
use claude_proto_testkit::model_api::Reply;
use claude_proto_tests::process;
use claude_proto_tests::real_cli::spares::{
    folder, gone, gone_now, offline, parked, transcript_is_the_folders, working_dir,
};

#[test]
fn a_claimed_spare_runs_its_session_in_the_claimed_folder() {
    let Some((api, options)) = offline(vec![Reply::text("claimed")]) else {
        return;
    };
    let folder = folder();
    let spare = Claude::builder(options).prewarm().expect("prewarm");
    let (pid, parking) = parked(spare.pid());
    assert!(spare.is_alive());
    let cwd = folder.path();
    let mut claude = spare
        .claim(Claim::new(cwd.to_str().unwrap()))
        .expect("claim");
    assert_eq!(working_dir(pid), cwd);
    let turn = claude.ask("hello").unwrap();
    assert_eq!(turn.text(), Some("claimed"));
    let session = claude.session_id().unwrap();
    claude.close().unwrap();
    gone(pid, &parking);
    transcript_is_the_folders(&api.config_dir(), cwd, &session);
}

#[test]
fn a_refused_claim_writes_no_prompt_and_leaves_nothing() {
    let Some((api, options)) = offline(Vec::new()) else {
        return;
    };
    let folder = folder();
    let spare = Claude::builder(options).prewarm().expect("prewarm");
    let (pid, parking) = parked(spare.pid());
    let missing = folder.path().join("missing");
    let error = spare
        .claim(Claim::new(missing.to_str().unwrap()))
        .unwrap_err();
    let ClaimError::StartCold(Error::ClaimRefused { refusal, .. }) = &error else {
        panic!("expected a refusal, got {error:?}")
    };
    assert_eq!(refusal, &Some(ClaimRefusal::CwdNotFound));
    gone_now(pid, &parking);
    assert!(api.messages_requests().is_empty(), "the prompt ran");
}

#[test]
fn a_spare_killed_while_parked_fails_its_claim_and_leaves_nothing() {
    let Some((_api, options)) = offline(Vec::new()) else {
        return;
    };
    let spare = Claude::builder(options).prewarm().expect("prewarm");
    let (pid, parking) = parked(spare.pid());
    process::kill(pid);
    let error = spare.claim(Claim::new("/")).unwrap_err();
    assert!(error.must_start_cold(), "{error}");
    gone_now(pid, &parking);
}

#[test]
fn a_spare_dropped_while_parked_leaves_nothing() {
    let Some((_api, options)) = offline(Vec::new()) else {
        return;
    };
    let spare = Claude::builder(options).prewarm().expect("prewarm");
    let (pid, parking) = parked(spare.pid());
    drop(spare);
    gone(pid, &parking);
}

#[test]
fn startup_initializes_before_the_first_prompt() {
    let Some((api, options)) = offline(vec![Reply::text("warm")]) else {
        return;
    };
    let folder = folder();
    let mut claude = Claude::builder(options.cwd(folder.path()))
        .startup()
        .expect("startup");
    assert!(api.messages_requests().is_empty());
    assert_eq!(claude.ask("hello").unwrap().text(), Some("warm"));
    claude.close().unwrap();
}
