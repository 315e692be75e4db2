//! A pool of spares with the real CLI, offline, through the tokio adapter:
//! a burst of sessions is served from parked spares and cold starts, a
//! refused claim falls back to a cold start in the claimed folder, and a
//! pool closed or dropped with spares parked leaves no process and no
//! parking directory.
//!
//! Needs the CLI (`npm ci --prefix tests/peer`); without it each test says
//! it was skipped and passes, except under CI, where it fails.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers fail loudly by design

use claude_proto_testkit::model_api::Reply;
use claude_proto_tests::real_cli::spares::{
    folder, gone, offline, settings_a_claim_cannot_apply, working_dir,
};
use claude_proto_tokio::{Claim, Claude, Pool};

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
