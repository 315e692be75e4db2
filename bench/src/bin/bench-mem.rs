//! Memory figures (Linux: read from `/proc/self/status`).
//!
//! - `bench-mem stream BENCH_CLI TRANSCRIPT TOTAL_BYTES`: the tokio adapter
//!   reads `TOTAL_BYTES` of transcript (repeated) from a child process
//!   while the consumer is slower than the producer (it sleeps 1 ms every
//!   256 messages), so backpressure holds the pipe full. Prints the peak
//!   RSS and an RSS sample every tenth of the stream: bounded and flat.
//! - `bench-mem huge-line BENCH_CLI TRANSCRIPT LINE_BYTES`: the same
//!   transcript twice with `max_line_bytes` = 1 MiB, once as is and once
//!   after one line of `LINE_BYTES`; prints both peaks and the difference.
//! - `bench-mem idle N`: `N` tokio sessions over in-memory pipes
//!   (`tokio::io::duplex` + `connect`), each initialized by a fake peer
//!   with the recorded 12 KB answer, then idle; prints RSS per session,
//!   then the same for bare core `Session`s (what the adapter adds is the
//!   difference).
//!
//! Output is one line of `key=value` pairs per figure, for `compare.sh`.

use std::path::Path;
use std::time::{Duration, Instant};

use claude_proto_bench::{rss, transcript};
use claude_proto_tokio::claude_proto::Session;
use claude_proto_tokio::claude_proto::model::initialize::InitializeRequest;
use claude_proto_tokio::{Claude, Config, Configure, Event, Options};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    match args.get(1).map(String::as_str) {
        Some("stream") if args.len() == 5 => {
            let total: u64 = args[4].parse().expect("TOTAL_BYTES");
            runtime.block_on(stream(Path::new(&args[2]), &args[3], total));
        }
        Some("huge-line") if args.len() == 5 => {
            let line: u64 = args[4].parse().expect("LINE_BYTES");
            runtime.block_on(huge_line(Path::new(&args[2]), &args[3], line));
        }
        Some("idle") if args.len() == 3 => {
            let n: usize = args[2].parse().expect("N");
            runtime.block_on(idle(n));
        }
        _ => {
            eprintln!(
                "usage: bench-mem stream CLI TRANSCRIPT TOTAL_BYTES | huge-line CLI TRANSCRIPT LINE_BYTES | idle N"
            );
            std::process::exit(2);
        }
    }
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

async fn stream(cli: &Path, transcript: &str, total: u64) {
    let base = rss::current().unwrap_or(0);
    let options = Options::new()
        .cli_path(cli)
        .env("BENCH_CLI_TRANSCRIPT", transcript)
        .env("BENCH_CLI_TOTAL_BYTES", total.to_string());
    let mut claude = Claude::builder(options)
        .spawn()
        .await
        .expect("bench-cli starts");
    let start = Instant::now();
    let (mut messages, mut bytes, mut next_sample) = (0u64, 0u64, total / 10);
    let mut samples = Vec::new();
    while let Some(event) = claude.next_event().await {
        if let Event::Message(m) = event {
            messages += 1;
            bytes += m.as_bytes().len() as u64 + 1;
            if messages % 256 == 0 {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            if bytes >= next_sample {
                samples.push(format!("{:.1}", mib(rss::current().unwrap_or(0))));
                next_sample += total / 10;
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "figure=stream bytes={bytes} messages={messages} secs={secs:.1} base_rss_mib={:.1} peak_rss_mib={:.1} samples_mib={}",
        mib(base),
        mib(rss::peak().unwrap_or(0)),
        samples.join(",")
    );
}

/// Reads the whole stream; returns (messages, line-too-long errors).
async fn drain(claude: &mut Claude) -> (u64, u64) {
    let (mut messages, mut too_long) = (0, 0);
    while let Some(event) = claude.next_event().await {
        match event {
            Event::Message(_) => messages += 1,
            Event::ProtocolError(e)
                if matches!(
                    e.kind,
                    claude_proto_tokio::claude_proto::ProtocolErrorKind::LineTooLong { .. }
                ) =>
            {
                too_long += 1
            }
            _ => {}
        }
    }
    (messages, too_long)
}

async fn huge_line(cli: &Path, transcript: &str, line: u64) {
    let mut config = Config::default();
    config.max_line_bytes = 1024 * 1024;
    let mut peaks = Vec::new();
    for huge in [None, Some(line)] {
        rss::reset_peak();
        let mut options = Options::new()
            .cli_path(cli)
            .env("BENCH_CLI_TRANSCRIPT", transcript);
        if let Some(size) = huge {
            options = options.env("BENCH_CLI_HUGE_LINE", size.to_string());
        }
        let mut claude = Claude::builder(options)
            .config(config.clone())
            .spawn()
            .await
            .expect("bench-cli starts");
        let (messages, too_long) = drain(&mut claude).await;
        let _ = claude.close().await;
        peaks.push((rss::peak().unwrap_or(0), messages, too_long));
    }
    let (without, with) = (peaks[0], peaks[1]);
    println!(
        "figure=huge_line line_bytes={line} limit_bytes={} peak_without_mib={:.1} peak_with_mib={:.1} delta_mib={:.2} too_long_reported={} messages={}",
        config.max_line_bytes,
        mib(without.0),
        mib(with.0),
        mib(with.0) - mib(without.0),
        with.2,
        with.1,
    );
}

async fn idle(n: usize) {
    let answer = transcript::initialize_payload().to_string();
    // Warm up the allocator and the runtime with one session first.
    let mut held = Vec::with_capacity(n + 1);
    held.push(one_idle(&answer).await);
    let before = rss::current().unwrap_or(0);
    for _ in 0..n {
        held.push(one_idle(&answer).await);
    }
    // Let every driver settle into its idle wait.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let after = rss::current().unwrap_or(0);
    println!(
        "figure=idle sessions={n} rss_before_mib={:.1} rss_after_mib={:.1} per_session_kib={:.1}",
        mib(before),
        mib(after),
        (after.saturating_sub(before)) as f64 / 1024.0 / n as f64
    );
    drop(held);

    // The core alone: a bare `Session` given the same answer.
    let before = rss::current().unwrap_or(0);
    let sessions: Vec<Session> = (0..n).map(|_| core_session(&answer)).collect();
    let after = rss::current().unwrap_or(0);
    println!(
        "figure=idle_core sessions={} per_session_kib={:.1}",
        sessions.len(),
        (after.saturating_sub(before)) as f64 / 1024.0 / n as f64
    );
}

/// A core session that sent `initialize` and got its answer.
fn core_session(answer: &str) -> Session {
    let mut session = Session::new(Config::default());
    session
        .initialize(
            &InitializeRequest::default(),
            None,
            std::time::Instant::now(),
        )
        .expect("writable");
    let mut out = Vec::new();
    session.poll_transmit(&mut out);
    let v: serde_json::Value = serde_json::from_slice(&out).expect("JSON");
    let id = v["request_id"].as_str().expect("a request id");
    let reply = format!(
        "{{\"type\":\"control_response\",\"response\":{{\"subtype\":\"success\",\"request_id\":\"{id}\",\"response\":{answer}}}}}\n"
    );
    session.handle_input(reply.as_bytes());
    while session.poll_event().is_some() {}
    assert!(session.is_initialized());
    session
}

/// A session over an in-memory pipe whose peer answered `initialize`.
async fn one_idle(answer: &str) -> (Claude, tokio::io::DuplexStream) {
    // A small in-memory pipe: a real pipe's buffer is the kernel's, not
    // in the process's RSS, and a 64 KiB duplex kept the 16 KiB it grew
    // to for the 12 KB answer (counted per session here until this
    // stand-in was made to hold at most 4 KiB).
    let (ours, theirs) = tokio::io::duplex(4 * 1024);
    let (our_read, our_write) = tokio::io::split(ours);
    let claude = Claude::builder(Options::new())
        .connect(our_read, our_write)
        .expect("default limits");
    let mut peer = BufReader::new(theirs);
    let mut line = String::new();
    peer.read_line(&mut line)
        .await
        .expect("the initialize request");
    let v: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    let id = v["request_id"].as_str().expect("a request id");
    let reply = format!(
        "{{\"type\":\"control_response\",\"response\":{{\"subtype\":\"success\",\"request_id\":\"{id}\",\"response\":{answer}}}}}\n"
    );
    peer.get_mut()
        .write_all(reply.as_bytes())
        .await
        .expect("write");
    claude.initialization().await.expect("initialized");
    (claude, peer.into_inner())
}
