//! Pools with the real CLI, offline, through the tokio adapter. A pool of
//! spares: a burst of sessions is served from parked spares and cold
//! starts, a refused claim falls back to a cold start in the claimed
//! folder, and a pool closed or dropped with spares parked leaves no
//! process and no parking directory. A pool of started sessions: sessions
//! handed out as started, in the builder's folder, then cold; one killed
//! while parked is replaced; closed or dropped, no process is left.
//!
//! Needs the CLI (`npm ci --prefix tests/peer`); without it each test says
//! it was skipped and passes, except under CI, where it fails.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers fail loudly by design

use claude_proto_testkit::model_api::Reply;
use claude_proto_tests::process::wait_until_gone;
use claude_proto_tests::real_cli::WAIT;
use claude_proto_tests::real_cli::spares::{
    folder, gone, offline, settings_a_claim_cannot_apply, working_dir,
};
use claude_proto_tokio::{Claim, Claude, Pool, StartedPool};

/// Runs the futures concurrently on this task.
async fn join_all<F: std::future::Future<Output = ()> + Unpin>(mut futures: Vec<F>) {
    std::future::poll_fn(|cx| {
        futures.retain_mut(|f| std::pin::Pin::new(f).poll(cx).is_pending());
        if futures.is_empty() {
            std::task::Poll::Ready(())
        } else {
            std::task::Poll::Pending
        }
    })
    .await;
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn a_burst_is_served_from_spares_then_cold_starts() {
    let Some((api, options)) = offline(vec![Reply::text("ok"); 4]) else {
        return;
    };
    let folders: Vec<_> = (0..4).map(|_| folder()).collect();
    runtime().block_on(async {
        let pool = Pool::new(2, move || Claude::builder(options.clone())).unwrap();
        pool.ready().await.expect("the pool fills");
        let parked: Vec<(u32, _)> = pool
            .parked_pids()
            .into_iter()
            .map(|pid| (pid, working_dir(pid)))
            .collect();
        assert_eq!(parked.len(), 2);
        let sessions = folders.iter().map(|folder| {
            let claim = Claim::new(folder.path().to_str().unwrap());
            let pool = &pool;
            async move {
                let mut claude = pool.session(claim).await.expect("a session");
                let turn = claude.ask("hello").await.unwrap();
                assert_eq!(turn.text(), Some("ok"));
                claude.close().await.unwrap();
            }
        });
        // All four at once: two meet a spare, the rest start cold (or a
        // spare refilled meanwhile).
        let handles: Vec<_> = sessions.map(Box::pin).collect();
        join_all(handles).await;
        let stats = pool.stats();
        assert_eq!(stats.claimed + stats.started_cold, 4);
        assert!(stats.claimed >= 2, "{stats:?}");
        assert_eq!(stats.claims_failed, 0, "{stats:?}");
        assert_eq!(api.messages_requests().len(), 4);
        pool.close().await;
        for (pid, parking) in &parked {
            gone(*pid, parking);
        }
    });
}

#[test]
fn a_refused_claim_falls_back_to_a_cold_start_in_the_folder() {
    let Some((api, options)) = offline(vec![Reply::text("cold")]) else {
        return;
    };
    let folder = folder();
    settings_a_claim_cannot_apply(folder.path());
    runtime().block_on(async {
        let pool = Pool::new(1, move || Claude::builder(options.clone())).unwrap();
        pool.ready().await.expect("the pool fills");
        let mut claude = pool
            .session(Claim::new(folder.path().to_str().unwrap()))
            .await
            .expect("a cold session");
        assert_eq!(working_dir(claude.pid().unwrap()), folder.path());
        assert_eq!(claude.ask("hello").await.unwrap().text(), Some("cold"));
        claude.close().await.unwrap();
        let stats = pool.stats();
        assert_eq!(
            (stats.claims_failed, stats.started_cold),
            (1, 1),
            "{stats:?}"
        );
        assert_eq!(api.messages_requests().len(), 1, "the prompt ran once");
        pool.close().await;
    });
}

#[test]
fn a_pool_dropped_with_spares_parked_leaves_nothing() {
    let Some((_api, options)) = offline(Vec::new()) else {
        return;
    };
    let rt = runtime();
    let parked: Vec<_> = rt.block_on(async {
        let pool = Pool::new(2, move || Claude::builder(options.clone())).unwrap();
        pool.ready().await.expect("the pool fills");
        let parked = pool
            .parked_pids()
            .into_iter()
            .map(|pid| (pid, working_dir(pid)))
            .collect();
        drop(pool);
        parked
    });
    assert_eq!(parked.len(), 2);
    for (pid, parking) in &parked {
        gone(*pid, parking);
    }
    drop(rt);
}

#[test]
fn started_sessions_are_handed_out_as_started_in_the_builders_folder() {
    let Some((api, options)) = offline(vec![Reply::text("ok"); 2]) else {
        return;
    };
    let folder = folder();
    let options = options.cwd(folder.path());
    runtime().block_on(async {
        let pool = StartedPool::new(1, move || Claude::builder(options.clone())).unwrap();
        pool.ready().await.expect("the pool fills");
        let [parked]: [u32; 1] = pool.parked_pids().try_into().unwrap();
        // The first is the parked session; the second, asked for before
        // any refill is parked, starts cold or meets the refill.
        let mut first = pool.session().await.expect("a session");
        assert_eq!(
            first.pid(),
            Some(parked),
            "the parked session was handed out"
        );
        let mut second = pool.session().await.expect("a session");
        for claude in [&mut first, &mut second] {
            assert_eq!(working_dir(claude.pid().unwrap()), folder.path());
            assert_eq!(claude.ask("hello").await.unwrap().text(), Some("ok"));
        }
        first.close().await.unwrap();
        second.close().await.unwrap();
        let stats = pool.stats();
        assert_eq!(stats.handed_out + stats.started_cold, 2, "{stats:?}");
        assert!(stats.handed_out >= 1, "{stats:?}");
        assert_eq!(stats.claimed, 0, "{stats:?}");
        assert_eq!(api.messages_requests().len(), 2);
        let refilled = pool.parked_pids();
        pool.close().await;
        for pid in refilled {
            assert!(
                wait_until_gone(pid, WAIT),
                "the parked session {pid} was left"
            );
        }
    });
}

#[test]
fn a_started_session_killed_while_parked_is_replaced() {
    let Some((_api, options)) = offline(Vec::new()) else {
        return;
    };
    runtime().block_on(async {
        let pool = StartedPool::new(1, move || Claude::builder(options.clone())).unwrap();
        pool.ready().await.expect("the pool fills");
        let [parked]: [u32; 1] = pool.parked_pids().try_into().unwrap();
        let killed = std::process::Command::new("kill")
            .args(["-KILL", &parked.to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        // The watcher finds it gone and starts another (polled, bounded).
        let deadline = std::time::Instant::now() + WAIT;
        while pool.stats().spares_lost == 0 {
            assert!(
                std::time::Instant::now() < deadline,
                "the parked session's death was not seen"
            );
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        pool.ready().await.expect("the pool fills again");
        let [replacement]: [u32; 1] = pool.parked_pids().try_into().unwrap();
        assert_ne!(replacement, parked);
        let stats = pool.stats();
        assert_eq!(
            (stats.spares_lost, stats.spares_started),
            (1, 2),
            "{stats:?}"
        );
        pool.close().await;
        assert!(wait_until_gone(replacement, WAIT));
    });
}

#[test]
fn a_started_pool_dropped_with_sessions_parked_leaves_no_process() {
    let Some((_api, options)) = offline(Vec::new()) else {
        return;
    };
    let rt = runtime();
    let parked = rt.block_on(async {
        let pool = StartedPool::new(2, move || Claude::builder(options.clone())).unwrap();
        pool.ready().await.expect("the pool fills");
        let parked = pool.parked_pids();
        drop(pool);
        parked
    });
    assert_eq!(parked.len(), 2);
    for pid in parked {
        assert!(
            wait_until_gone(pid, WAIT),
            "the parked session {pid} was left"
        );
    }
    drop(rt);
}

#[test]
fn a_started_pool_of_resumed_sessions_is_refused_before_any_start() {
    use claude_proto_tokio::{Options, SpawnError};
    runtime().block_on(async {
        let refused = StartedPool::new(1, || Claude::builder(Options::new().resume("a-session")));
        assert!(
            matches!(refused, Err(SpawnError::NotForAPool { what: "resume" })),
            "{refused:?}"
        );
    });
}

/// The cold path on its own: a pool of none never parks, so every session
/// is started on request (with two parked or refilled, which one a second
/// request meets is a race; here it is not).
#[test]
fn a_started_pool_with_none_parked_starts_the_session_cold() {
    let Some((api, options)) = offline(vec![Reply::text("cold")]) else {
        return;
    };
    let folder = folder();
    let options = options.cwd(folder.path());
    runtime().block_on(async {
        let pool = StartedPool::new(0, move || Claude::builder(options.clone())).unwrap();
        pool.ready().await.expect("a pool of none is full");
        let mut claude = pool.session().await.expect("a cold session");
        assert_eq!(working_dir(claude.pid().unwrap()), folder.path());
        assert_eq!(claude.ask("hello").await.unwrap().text(), Some("cold"));
        claude.close().await.unwrap();
        let stats = pool.stats();
        assert_eq!(
            (stats.handed_out, stats.started_cold, stats.spares_started),
            (0, 1, 0),
            "{stats:?}"
        );
        assert_eq!(api.messages_requests().len(), 1);
        pool.close().await;
    });
}
