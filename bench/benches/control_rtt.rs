//! Control round trip through the tokio adapter over an in-memory pipe
//! (`tokio::io::duplex` + `ClaudeBuilder::connect`): `Claude::control`
//! sends a request, a fake peer task answers it at once, the caller gets
//! the outcome.
//!
//! Divan times the median round trip; then, because divan reports no
//! percentiles, `main` times 20,000 single round trips on the same setup
//! and prints p50, p90, p99 and the maximum, for a current-thread runtime
//! and a two-worker multi-thread runtime.
//!
//! `cargo bench -p claude-proto-bench --bench control_rtt`

use std::time::{Duration, Instant};

use claude_proto_bench::transcript;
use claude_proto_tokio::claude_proto::model::control::ControlRequest;
use claude_proto_tokio::{Claude, Options};
use divan::Bencher;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::runtime::Runtime;

/// Answers every control request at once: `initialize` with the recorded
/// payload, anything else with an empty success.
async fn peer(stream: tokio::io::DuplexStream) {
    let init = transcript::initialize_payload().to_string();
    let (read, mut write) = tokio::io::split(stream);
    let mut lines = BufReader::new(read).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        if v["type"] != "control_request" {
            continue;
        }
        let id = v["request_id"].as_str().unwrap_or("");
        let payload = if v["request"]["subtype"] == "initialize" {
            init.as_str()
        } else {
            "{}"
        };
        let reply = format!(
            "{{\"type\":\"control_response\",\"response\":{{\"subtype\":\"success\",\"request_id\":\"{id}\",\"response\":{payload}}}}}\n"
        );
        if write.write_all(reply.as_bytes()).await.is_err() {
            break;
        }
    }
}

fn setup(runtime: &Runtime) -> Claude {
    runtime.block_on(async {
        let (ours, theirs) = tokio::io::duplex(64 * 1024);
        tokio::spawn(peer(theirs));
        let (read, write) = tokio::io::split(ours);
        let claude = Claude::builder(Options::new())
            .connect(read, write)
            .expect("default limits");
        claude.initialization().await.expect("initialized");
        claude
    })
}

fn current_thread() -> Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

fn multi_thread() -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

fn round_trip(runtime: &Runtime, claude: &Claude) {
    runtime
        .block_on(claude.control(ControlRequest::get_context_usage(), None))
        .expect("answered");
}

#[divan::bench(args = ["current_thread", "multi_thread"])]
fn control_round_trip(bencher: Bencher<'_, '_>, flavor: &str) {
    let runtime = if flavor == "current_thread" {
        current_thread()
    } else {
        multi_thread()
    };
    let claude = setup(&runtime);
    bencher.bench_local(|| round_trip(&runtime, &claude));
}

fn percentiles(name: &str, runtime: Runtime) {
    let claude = setup(&runtime);
    for _ in 0..1000 {
        round_trip(&runtime, &claude);
    }
    let mut times: Vec<Duration> = (0..20_000)
        .map(|_| {
            let start = Instant::now();
            round_trip(&runtime, &claude);
            start.elapsed()
        })
        .collect();
    times.sort_unstable();
    let at = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)];
    println!(
        "control round trip, {name}: p50 {:.1} µs, p90 {:.1} µs, p99 {:.1} µs, max {:.1} µs ({} round trips)",
        at(0.50).as_secs_f64() * 1e6,
        at(0.90).as_secs_f64() * 1e6,
        at(0.99).as_secs_f64() * 1e6,
        times[times.len() - 1].as_secs_f64() * 1e6,
        times.len()
    );
}

fn main() {
    divan::main();
    // `cargo bench -- --list` or a filter that names another bench: skip.
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--list" || a == "--test") {
        return;
    }
    percentiles("current_thread", current_thread());
    percentiles("multi_thread(2)", multi_thread());
}
