//! How fast a cassette replays: `bench-replay CASSETTE [ROUNDS]` pulls
//! every step out of `Replay` as fast as possible (what the scripted CLI's
//! engine does before writing them) and reports steps/s, MB/s and the
//! peak resident memory of the pass. Make a cassette with `gen-cassette`.

use std::hint::black_box;
use std::time::Instant;

use claude_proto_bench::rss;
use claude_proto_testkit::cassette::{Replay, ReplayOptions, Speed};
use claude_proto_testkit::{Outgoing, Step, Steps};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: bench-replay CASSETTE [ROUNDS]");
        std::process::exit(2);
    };
    let rounds: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(5);
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    let mut rates = Vec::new();
    for round in 1..=rounds {
        rss::reset_peak();
        let start = Instant::now();
        let options = ReplayOptions {
            speed: Speed::AsFastAsPossible,
            require_cli_version: None,
            ..Default::default()
        };
        let mut replay = Replay::open(&path, options).unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(1);
        });
        let (mut steps, mut sends, mut expects, mut sent_bytes) = (0u64, 0u64, 0u64, 0u64);
        while let Some(step) = replay.next_step() {
            let step = step.unwrap_or_else(|e| {
                eprintln!("{e}");
                std::process::exit(1);
            });
            steps += 1;
            match &step {
                Step::Send {
                    line: Outgoing::Recorded(line),
                    ..
                } => {
                    sends += 1;
                    sent_bytes += line.len() as u64;
                }
                Step::Expect { .. } => expects += 1,
                _ => {}
            }
            black_box(step);
        }
        let secs = start.elapsed().as_secs_f64();
        let peak = rss::peak().unwrap_or(0) as f64 / (1024.0 * 1024.0);
        let rate = steps as f64 / secs;
        rates.push(rate);
        println!(
            "round {round}: {steps} steps ({sends} sends, {expects} expects, {sent_bytes} line bytes) in {secs:.3} s: \
             {rate:.0} steps/s, {:.0} MB/s, peak RSS {peak:.1} MiB",
            size as f64 / 1e6 / secs
        );
    }
    rates.sort_by(f64::total_cmp);
    if let Some(median) = rates.get(rates.len() / 2) {
        println!("median: {median:.0} steps/s over {rounds} rounds ({size} bytes)");
    }
}
