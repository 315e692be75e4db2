//! The typed model against `serde_json::Value`, per class of message and in
//! both key orders, as ratios measured round by round (each round runs
//! every decoder once on the same bytes, so noise hits them alike).
//!
//! `bench-typed [ROUNDS]` (default 15) on the standard ~10 MB transcript,
//! as generated (keys sorted, so `type` comes after most keys) and in the
//! CLI's own order (`type` and `subtype` first in every object).
//!
//! Decoders, on the lines of one class:
//! - `Value`: `serde_json::from_slice::<Value>` per line;
//! - `typed`: [`Message::parse`] of every message, the lines routed
//!   beforehand (the typed parse alone);
//! - `routed+typed`: a [`Session`] fed the bytes, then `parse` of every
//!   message (what a program that wants every message typed pays).
//!
//! Prints a Markdown table of the median ratios to `Value`.

use std::time::Instant;

use claude_proto::{Config, Event, Message, Session};
use claude_proto_bench::transcript;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn class_of(line: &[u8]) -> &'static str {
    let v: serde_json::Value = serde_json::from_slice(line).expect("JSON");
    match v["type"].as_str() {
        Some("stream_event") => "deltas (stream_event)",
        Some("assistant") => "assistant",
        Some("user") => "user (tool results)",
        Some("result") => "result",
        Some("system") => "system",
        _ => "other",
    }
}

const CLASSES: &[&str] = &[
    "all",
    "deltas (stream_event)",
    "assistant",
    "user (tool results)",
    "result",
    "system",
];

fn route(bytes: &[u8]) -> Vec<Message> {
    let mut session = Session::new(Config::default());
    let mut out = Vec::new();
    session.handle_input(bytes);
    while let Some(event) = session.poll_event() {
        if let Event::Message(m) = event {
            out.push(m.detached());
        }
    }
    out
}

fn value_per_line(bytes: &[u8]) -> usize {
    let mut n = 0;
    for line in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        n += serde_json::from_slice::<serde_json::Value>(line).is_ok() as usize;
    }
    n
}

fn typed(messages: &[Message]) -> usize {
    messages
        .iter()
        .filter(|m| {
            !matches!(
                m.parse(),
                Ok(claude_proto::model::stdout::StdoutMessage::Unknown(_)) | Err(_)
            )
        })
        .count()
}

fn routed_typed(bytes: &[u8]) -> usize {
    let mut session = Session::new(Config::default());
    let mut n = 0;
    for chunk in bytes.chunks(64 * 1024) {
        session.handle_input(chunk);
        while let Some(event) = session.poll_event() {
            if let Event::Message(m) = event {
                n += m.parse().is_ok() as usize;
            }
        }
    }
    n
}

fn time(f: impl FnOnce() -> usize) -> (f64, usize) {
    let start = Instant::now();
    let n = std::hint::black_box(f());
    (start.elapsed().as_secs_f64(), n)
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(15);
    let input = transcript::standard();
    // `bench-typed ROUNDS profile`: the typed parse alone, in the CLI's
    // order, for a profiler.
    if std::env::args().nth(2).as_deref() == Some("profile") {
        let messages = route(&transcript::cli_order(&input.bytes));
        for _ in 0..rounds {
            std::hint::black_box(typed(&messages));
        }
        return;
    }
    let orders = [
        ("sorted keys (generated)", input.bytes.clone()),
        (
            "CLI order (tags first)",
            transcript::cli_order(&input.bytes),
        ),
    ];
    println!(
        "{rounds} rounds; ratios are medians of per-round ratios to `Value` (higher is faster)\n"
    );
    println!(
        "| key order | class | lines | MB | typed / Value | routed+typed / Value | typed lines |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|");
    for (order, bytes) in &orders {
        for class in CLASSES {
            let mut lines = Vec::new();
            let mut count = 0;
            for line in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
                if *class == "all" || class_of(line) == *class {
                    lines.extend_from_slice(line);
                    lines.push(b'\n');
                    count += 1;
                }
            }
            let messages = route(&lines);
            assert_eq!(messages.len(), count);
            let (mut typed_ratio, mut routed_ratio) = (Vec::new(), Vec::new());
            let mut typed_count = 0;
            for round in 0..=rounds {
                let (v, nv) = time(|| value_per_line(&lines));
                let (t, nt) = time(|| typed(&messages));
                let (r, nr) = time(|| routed_typed(&lines));
                assert_eq!(nv, count);
                assert_eq!(nr, count);
                typed_count = nt;
                if round > 0 {
                    typed_ratio.push(v / t);
                    routed_ratio.push(v / r);
                }
            }
            println!(
                "| {order} | {class} | {count} | {:.1} | {:.2} | {:.2} | {typed_count} |",
                lines.len() as f64 / 1e6,
                median(typed_ratio),
                median(routed_ratio),
            );
        }
    }
}
