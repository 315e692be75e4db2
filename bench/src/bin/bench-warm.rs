//! Time to a turn's first event: a cold session, one started ahead of its
//! prompt (`startup`), a claimed spare (`prewarm` then `claim`), and a
//! session from a pool of started sessions (`StartedPool`), on every
//! adapter, with the pinned CLI offline and one in-process MCP server;
//! then a pool of spares serving a burst of sessions against cold starts.
//!
//! Usage: `CLAUDE_BIN=… bench-warm [ROUNDS] [BURST]` (defaults 15 and 8);
//! `BENCH_WARM_MCP=0` leaves the MCP server out, a BURST of 0 the burst.
//!
//! - **cold**: from the builder's `spawn` to the turn's `system/init`, the
//!   first event the CLI writes for the prompt (the prompt is sent right
//!   after `spawn`, as a one-shot `query` does).
//! - **startup**: after `startup` returned, from `query` to that event.
//! - **claimed**: after `prewarm` returned, from `claim` to that event
//!   (the claim is answered before the prompt is sent).
//! - **pooled**: with the adapter's `StartedPool` of one full, from
//!   `session()` to that event. The pool's refill is waited out after each
//!   (untimed), so it never runs beside another mode's timing.
//!
//! Rounds are interleaved: each round runs every adapter, and every mode
//! within it, in an order that rotates, so drift in the machine's load
//! spreads over all of them. Medians and p90s in milliseconds.
//!
//! The burst: a pool of BURST spares, filled, then BURST sessions asked
//! for at once, each timed from `Pool::session` to its `system/init`; and
//! BURST cold sessions started at once, timed from `spawn`. Then the
//! resident memory of the spares parked in the pool.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use claude_proto::model::MessageType;
use claude_proto_async::{Claude, ClaudeBuilder, Event, McpServer, Pool, Runtime, StartedPool};
use claude_proto_host::Claim;
use claude_proto_testkit::model_api::{ModelApi, Reply};
use claude_proto_tokio::Options;
use serde::Deserialize;

#[derive(Deserialize, schemars::JsonSchema)]
struct Add {
    a: f64,
    b: f64,
}

fn calc() -> McpServer {
    McpServer::new("calc", "1.0.0").tool("add", "Adds two numbers.", async |Add { a, b }: Add| {
        Ok(a + b)
    })
}

fn blocking_calc() -> claude_proto_blocking::McpServer {
    claude_proto_blocking::McpServer::new("calc", "1.0.0").tool(
        "add",
        "Adds two numbers.",
        |Add { a, b }: Add| Ok(a + b),
    )
}

fn is_init(event: &Event) -> bool {
    matches!(event, Event::Message(m) if *m.message_type() == MessageType::System && m.subtype() == Some("init"))
}

/// A fresh folder for one session.
fn folder(n: usize) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bench-warm-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a folder");
    dir
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Cold,
    Startup,
    Claimed,
    Pooled,
}

const MODES: [Mode; 4] = [Mode::Cold, Mode::Startup, Mode::Claimed, Mode::Pooled];

/// `BENCH_WARM_MCP=0` leaves the in-process MCP server out (to hold the
/// figures against the TypeScript SDK's without one).
fn with_mcp() -> bool {
    std::env::var("BENCH_WARM_MCP").map_or(true, |v| v != "0")
}

fn builder<R: Runtime>(options: &Options, runtime: &R) -> ClaudeBuilder<R> {
    let builder = ClaudeBuilder::new(options.clone()).runtime(runtime.clone());
    if with_mcp() {
        builder.mcp_server(calc())
    } else {
        builder
    }
}

/// Reads the turn to its end; the time from `t0` to its `system/init`.
async fn first_event<R: Runtime>(claude: &mut Claude<R>, t0: Instant) -> Duration {
    let mut turn = claude.query("hi").await.expect("query");
    let mut first = None;
    while let Some(event) = turn.next().await {
        if first.is_none() && is_init(&event) {
            first = Some(t0.elapsed());
        }
    }
    first.expect("the turn had a system/init")
}

async fn once<R: Runtime>(
    mode: Mode,
    options: &Options,
    runtime: &R,
    pool: &StartedPool<R>,
    n: usize,
) -> Duration {
    let cwd = folder(n);
    let took = match mode {
        Mode::Cold => {
            let t0 = Instant::now();
            let mut claude = builder(&options.clone().cwd(&cwd), runtime)
                .spawn()
                .await
                .expect("spawn");
            let took = first_event(&mut claude, t0).await;
            claude.close().await.expect("close");
            took
        }
        Mode::Startup => {
            let mut claude = builder(&options.clone().cwd(&cwd), runtime)
                .startup()
                .await
                .expect("startup");
            let t0 = Instant::now();
            let took = first_event(&mut claude, t0).await;
            claude.close().await.expect("close");
            took
        }
        Mode::Claimed => {
            let spare = builder(options, runtime).prewarm().await.expect("prewarm");
            let t0 = Instant::now();
            let mut claude = spare
                .claim(Claim::new(cwd.to_str().expect("UTF-8")))
                .await
                .expect("claim");
            let took = first_event(&mut claude, t0).await;
            claude.close().await.expect("close");
            took
        }
        Mode::Pooled => {
            pool.ready().await.expect("the pool fills");
            let t0 = Instant::now();
            let mut claude = pool.session().await.expect("a pooled session");
            let took = first_event(&mut claude, t0).await;
            claude.close().await.expect("close");
            pool.ready().await.expect("the pool refills");
            took
        }
    };
    let _ = std::fs::remove_dir_all(cwd);
    took
}

fn once_blocking(
    mode: Mode,
    options: &Options,
    pool: &claude_proto_blocking::StartedPool,
    n: usize,
) -> Duration {
    use claude_proto_blocking::Claude;
    let cwd = folder(n);
    let builder = |options: Options| {
        let builder = Claude::builder(options);
        if with_mcp() {
            builder.mcp_server(blocking_calc())
        } else {
            builder
        }
    };
    let first = |claude: &mut Claude, t0: Instant| {
        let turn = claude.query("hi").expect("query");
        let mut first = None;
        for event in turn {
            if first.is_none() && is_init(&event) {
                first = Some(t0.elapsed());
            }
        }
        first.expect("the turn had a system/init")
    };
    let took = match mode {
        Mode::Cold => {
            let t0 = Instant::now();
            let mut claude = builder(options.clone().cwd(&cwd)).spawn().expect("spawn");
            let took = first(&mut claude, t0);
            claude.close().expect("close");
            took
        }
        Mode::Startup => {
            let mut claude = builder(options.clone().cwd(&cwd))
                .startup()
                .expect("startup");
            let took = first(&mut claude, Instant::now());
            claude.close().expect("close");
            took
        }
        Mode::Claimed => {
            let spare = builder(options.clone()).prewarm().expect("prewarm");
            let t0 = Instant::now();
            let mut claude = spare
                .claim(Claim::new(cwd.to_str().expect("UTF-8")))
                .expect("claim");
            let took = first(&mut claude, t0);
            claude.close().expect("close");
            took
        }
        Mode::Pooled => {
            pool.ready().expect("the pool fills");
            let t0 = Instant::now();
            let mut claude = pool.session().expect("a pooled session");
            let took = first(&mut claude, t0);
            claude.close().expect("close");
            pool.ready().expect("the pool refills");
            took
        }
    };
    let _ = std::fs::remove_dir_all(cwd);
    took
}

/// The resident memory of `pid` in KiB (Linux; `None` elsewhere).
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn quantile(sorted: &[Duration], q: f64) -> Duration {
    let at = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted[at.min(sorted.len() - 1)]
}

fn summary(times: &mut [Duration]) -> (f64, f64) {
    times.sort();
    (ms(quantile(times, 0.5)), ms(quantile(times, 0.9)))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let rounds: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(15);
    let burst: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(8);
    let cli = std::env::var_os("CLAUDE_BIN").expect("set CLAUDE_BIN to the pinned CLI");
    let sessions = rounds * 12 + burst * 3 + 12;
    let api = ModelApi::turns(vec![Reply::text("ok"); sessions]).expect("the stand-in");
    let options = api.options(Options::new().cli_path(PathBuf::from(cli)));

    let tokio_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio");
    let tokio_handle = claude_proto_tokio::TokioRuntime::new(tokio_rt.handle().clone());
    let smol_rt = claude_proto_async_std::Runtime::smol();

    // One started-session pool per adapter, each session in one folder
    // (what such a pool serves: sessions that share options and folder).
    let pooled_cwd = folder(30_000);
    let pooled_options = options.clone().cwd(&pooled_cwd);
    let tokio_pool = {
        let (options, runtime) = (pooled_options.clone(), tokio_handle.clone());
        StartedPool::with_runtime(1, tokio_handle.clone(), move || builder(&options, &runtime))
            .expect("a pool")
    };
    let smol_pool = {
        let (options, runtime) = (pooled_options.clone(), smol_rt.clone());
        StartedPool::with_runtime(1, smol_rt.clone(), move || builder(&options, &runtime))
            .expect("a pool")
    };
    let blocking_pool = {
        let options = pooled_options.clone();
        claude_proto_blocking::StartedPool::new(1, move || {
            let builder = claude_proto_blocking::Claude::builder(options.clone());
            if with_mcp() {
                builder.mcp_server(blocking_calc())
            } else {
                builder
            }
        })
        .expect("a pool")
    };

    let adapters = ["tokio", "blocking", "smol"];
    let mut times: Vec<Vec<Vec<Duration>>> = vec![vec![Vec::new(); MODES.len()]; 3];
    let mut n = 0;
    // One untimed session per adapter first: the CLI's files in the page
    // cache, the stand-in's first connection.
    for mode in MODES {
        tokio_rt.block_on(once(mode, &options, &tokio_handle, &tokio_pool, n));
        n += 1;
    }
    for round in 0..rounds {
        for (a, adapter) in adapters.iter().enumerate() {
            for k in 0..MODES.len() {
                let m = (k + round + a) % MODES.len();
                let mode = MODES[m];
                let took = match *adapter {
                    "tokio" => {
                        tokio_rt.block_on(once(mode, &options, &tokio_handle, &tokio_pool, n))
                    }
                    "blocking" => once_blocking(mode, &options, &blocking_pool, n),
                    _ => smol::block_on(once(mode, &options, &smol_rt, &smol_pool, n)),
                };
                n += 1;
                times[a][m].push(took);
            }
        }
        eprintln!("round {} of {rounds}", round + 1);
    }
    tokio_rt.block_on(tokio_pool.close());
    smol::block_on(smol_pool.close());
    blocking_pool.close();
    let _ = std::fs::remove_dir_all(&pooled_cwd);
    println!(
        "| adapter | cold p50 / p90 | startup p50 / p90 | claimed p50 / p90 | pooled p50 / p90 | cold / claimed (p50) | pooled / cold (p50) |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for (a, adapter) in adapters.iter().enumerate() {
        let cold = summary(&mut times[a][0]);
        let startup = summary(&mut times[a][1]);
        let claimed = summary(&mut times[a][2]);
        let pooled = summary(&mut times[a][3]);
        println!(
            "| {adapter} | {:.0} / {:.0} ms | {:.0} / {:.0} ms | {:.0} / {:.0} ms | {:.0} / {:.0} ms | {:.1}x | {:.0}% |",
            cold.0,
            cold.1,
            startup.0,
            startup.1,
            claimed.0,
            claimed.1,
            pooled.0,
            pooled.1,
            cold.0 / claimed.0,
            100.0 * pooled.0 / cold.0
        );
    }

    if burst == 0 {
        return;
    }
    // The burst.
    let size = burst;
    let (pool_times, pool_wall, stats, rss) = tokio_rt.block_on(async {
        let make_options = options.clone();
        let runtime = tokio_handle.clone();
        let pool = Pool::with_runtime(size, tokio_handle.clone(), move || {
            builder(&make_options, &runtime)
        })
        .expect("pool");
        pool.ready().await.expect("the pool fills");
        let rss: Vec<u64> = pool.parked_pids().into_iter().filter_map(rss_kib).collect();
        let start = Instant::now();
        let mut tasks = Vec::new();
        for k in 0..burst {
            let cwd = folder(10_000 + k);
            let claim = Claim::new(cwd.to_str().expect("UTF-8"));
            let pool = &pool;
            tasks.push(async move {
                let t0 = Instant::now();
                let mut claude = pool.session(claim).await.expect("session");
                let took = first_event(&mut claude, t0).await;
                claude.close().await.expect("close");
                took
            });
        }
        let times = join_all(tasks).await;
        let wall = start.elapsed();
        let stats = pool.stats();
        pool.close().await;
        (times, wall, stats, rss)
    });
    let (cold_times, cold_wall) = tokio_rt.block_on(async {
        let start = Instant::now();
        let mut tasks = Vec::new();
        for k in 0..burst {
            let cwd = folder(20_000 + k);
            let options = options.clone().cwd(&cwd);
            let runtime = tokio_handle.clone();
            tasks.push(async move {
                let t0 = Instant::now();
                let mut claude = builder(&options, &runtime).spawn().await.expect("spawn");
                let took = first_event(&mut claude, t0).await;
                claude.close().await.expect("close");
                took
            });
        }
        let times = join_all(tasks).await;
        (times, start.elapsed())
    });
    let mut pool_times = pool_times;
    let mut cold_times = cold_times;
    let pool_summary = summary(&mut pool_times);
    let cold_summary = summary(&mut cold_times);
    println!();
    println!("| burst of {burst} (tokio) | p50 / p90 to system/init | wall clock |");
    println!("| --- | --- | --- |");
    println!(
        "| pool of {size} (claimed {}, cold {}) | {:.0} / {:.0} ms | {:.0} ms |",
        stats.claimed,
        stats.started_cold,
        pool_summary.0,
        pool_summary.1,
        ms(pool_wall)
    );
    println!(
        "| cold starts | {:.0} / {:.0} ms | {:.0} ms |",
        cold_summary.0,
        cold_summary.1,
        ms(cold_wall)
    );
    if !rss.is_empty() {
        let mut rss = rss;
        rss.sort_unstable();
        println!();
        println!(
            "A parked spare's resident memory (VmRSS, {} spares): {} to {} MiB",
            rss.len(),
            rss[0] / 1024,
            rss[rss.len() - 1] / 1024
        );
    }
    for k in 0..burst {
        let _ = std::fs::remove_dir_all(folder(10_000 + k));
        let _ = std::fs::remove_dir_all(folder(20_000 + k));
    }
}

/// Runs the futures concurrently on this task; their outputs in order.
async fn join_all<F: std::future::Future>(futures: Vec<F>) -> Vec<F::Output> {
    let mut futures: Vec<_> = futures.into_iter().map(Box::pin).collect();
    let mut outputs: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (future, output) in futures.iter_mut().zip(outputs.iter_mut()) {
            if output.is_none() {
                match future.as_mut().poll(cx) {
                    std::task::Poll::Ready(value) => *output = Some(value),
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            std::task::Poll::Pending
        } else {
            std::task::Poll::Ready(())
        }
    })
    .await;
    outputs.into_iter().flatten().collect()
}
