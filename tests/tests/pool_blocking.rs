//! Pools with the real CLI, offline, through the blocking adapter: a pool
//! of spares serves sessions from a spare and from a cold start, a pool of
//! started sessions hands them out as started then starts one cold, and
//! either dropped with sessions parked leaves no process (and no parking
//! directory).
//!
//! Needs the CLI (`npm ci --prefix tests/peer`); without it each test says
//! it was skipped and passes, except under CI, where it fails.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers fail loudly by design

use claude_proto_blocking::{Claim, Claude, Pool, StartedPool};
use claude_proto_testkit::model_api::Reply;
use claude_proto_tests::process::wait_until_gone;
use claude_proto_tests::real_cli::WAIT;
use claude_proto_tests::real_cli::spares::{folder, gone, offline, working_dir};

#[test]
fn sessions_are_served_from_a_spare_then_a_cold_start() {
    let Some((api, options)) = offline(vec![Reply::text("ok"); 2]) else {
        return;
    };
    let pool = Pool::new(1, move || Claude::builder(options.clone()));
    pool.ready().expect("the pool fills");
    let [(pid, parking)]: [(u32, _); 1] = pool
        .parked_pids()
        .into_iter()
        .map(|pid| (pid, working_dir(pid)))
        .collect::<Vec<_>>()
        .try_into()
        .unwrap();
    let (one, two) = (folder(), folder());
    // The first takes the spare; the second, asked for before any refill
    // is parked, may start cold or meet the refill.
    let mut first = pool
        .session(Claim::new(one.path().to_str().unwrap()))
        .unwrap();
    assert_eq!(first.pid(), Some(pid), "the spare was claimed");
    let mut second = pool
        .session(Claim::new(two.path().to_str().unwrap()))
        .unwrap();
    assert_eq!(working_dir(second.pid().unwrap()), two.path());
    for claude in [&mut first, &mut second] {
        assert_eq!(claude.ask("hello").unwrap().text(), Some("ok"));
    }
    first.close().unwrap();
    second.close().unwrap();
    let stats = pool.stats();
    assert_eq!(stats.claimed + stats.started_cold, 2, "{stats:?}");
    assert!(stats.claimed >= 1, "{stats:?}");
    assert_eq!(api.messages_requests().len(), 2);
    pool.close();
    gone(pid, &parking);
}

#[test]
fn a_pool_dropped_with_spares_parked_leaves_nothing() {
    let Some((_api, options)) = offline(Vec::new()) else {
        return;
    };
    let pool = Pool::new(2, move || Claude::builder(options.clone()));
    pool.ready().expect("the pool fills");
    let parked: Vec<_> = pool
        .parked_pids()
        .into_iter()
        .map(|pid| (pid, working_dir(pid)))
        .collect();
    assert_eq!(parked.len(), 2);
    drop(pool);
    for (pid, parking) in &parked {
        gone(*pid, parking);
    }
}

#[test]
fn started_sessions_are_handed_out_as_started_in_the_builders_folder() {
    let Some((api, options)) = offline(vec![Reply::text("ok"); 2]) else {
        return;
    };
    let folder = folder();
    let options = options.cwd(folder.path());
    let pool = StartedPool::new(1, move || Claude::builder(options.clone())).unwrap();
    pool.ready().expect("the pool fills");
    let [parked]: [u32; 1] = pool.parked_pids().try_into().unwrap();
    let mut first = pool.session().expect("a session");
    assert_eq!(
        first.pid(),
        Some(parked),
        "the parked session was handed out"
    );
    let mut second = pool.session().expect("a session");
    for claude in [&mut first, &mut second] {
        assert_eq!(working_dir(claude.pid().unwrap()), folder.path());
        assert_eq!(claude.ask("hello").unwrap().text(), Some("ok"));
    }
    first.close().unwrap();
    second.close().unwrap();
    let stats = pool.stats();
    assert_eq!(stats.handed_out + stats.started_cold, 2, "{stats:?}");
    assert!(stats.handed_out >= 1, "{stats:?}");
    assert_eq!(api.messages_requests().len(), 2);
    let refilled = pool.parked_pids();
    pool.close();
    for pid in refilled {
        assert!(
            wait_until_gone(pid, WAIT),
            "the parked session {pid} was left"
        );
    }
}

#[test]
fn a_started_pool_dropped_with_sessions_parked_leaves_no_process() {
    let Some((_api, options)) = offline(Vec::new()) else {
        return;
    };
    let pool = StartedPool::new(2, move || Claude::builder(options.clone())).unwrap();
    pool.ready().expect("the pool fills");
    let parked = pool.parked_pids();
    assert_eq!(parked.len(), 2);
    drop(pool);
    for pid in parked {
        assert!(
            wait_until_gone(pid, WAIT),
            "the parked session {pid} was left"
        );
    }
}

#[test]
fn a_started_pool_of_resumed_or_continued_sessions_is_refused_before_any_start() {
    use claude_proto_blocking::{Options, SpawnError};
    for (options, named) in [
        (Options::new().resume("a-session"), "resume"),
        (
            Options::new().continue_conversation(true),
            "continue_conversation",
        ),
        (Options::new().fork_session(true), "fork_session"),
    ] {
        let refused = StartedPool::new(1, move || Claude::builder(options.clone()));
        assert!(
            matches!(refused, Err(SpawnError::NotForAPool { what }) if what == named),
            "{refused:?}"
        );
    }
}

/// The cold path on its own: a pool of none never parks, so every session
/// is started on request.
#[test]
fn a_started_pool_with_none_parked_starts_the_session_cold() {
    let Some((api, options)) = offline(vec![Reply::text("cold")]) else {
        return;
    };
    let folder = folder();
    let options = options.cwd(folder.path());
    let pool = StartedPool::new(0, move || Claude::builder(options.clone())).unwrap();
    pool.ready().expect("a pool of none is full");
    let mut claude = pool.session().expect("a cold session");
    assert_eq!(working_dir(claude.pid().unwrap()), folder.path());
    assert_eq!(claude.ask("hello").unwrap().text(), Some("cold"));
    claude.close().unwrap();
    let stats = pool.stats();
    assert_eq!(
        (stats.handed_out, stats.started_cold, stats.spares_started),
        (0, 1, 0),
        "{stats:?}"
    );
    assert_eq!(api.messages_requests().len(), 1);
    pool.close();
}
