//! A pool of spares with the real CLI, offline, through the blocking
//! adapter: sessions served from a spare and from a cold start, and a pool
//! dropped with spares parked leaving no process and no parking directory.
//!
//! Needs the CLI (`npm ci --prefix tests/peer`); without it each test says
//! it was skipped and passes, except under CI, where it fails.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers fail loudly by design

use claude_proto_blocking::{Claim, Claude, Pool};
use claude_proto_testkit::model_api::Reply;
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
