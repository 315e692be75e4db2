//! Decode throughput as ratios measured round by round: each round runs
//! every decoder once on the same bytes, in turn, so noise from other
//! processes hits them alike. Prints the median throughput of each and the
//! median of the per-round ratios.
//!
//! `bench-decode [ROUNDS]` (default 15) on the standard ~10 MB transcript.
//! `bench-decode ROUNDS NAME` runs only the decoder NAME (`session`,
//! `session+parse`, ...), for a profiler.

use std::time::Instant;

use claude_proto_bench::{decode, transcript};

type Decoder = (&'static str, fn(&[u8]) -> usize);

const DECODERS: &[Decoder] = &[
    ("session", decode::session),
    ("session+parse", decode::session_typed),
    ("Value/line", decode::value_per_line),
    ("IgnoredAny/line", decode::ignored_per_line),
    ("split only", decode::split_only),
];

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(15);
    let only = std::env::args().nth(2);
    let input = transcript::standard();
    if let Some(name) = only {
        let (_, f) = DECODERS
            .iter()
            .find(|(n, _)| *n == name)
            .expect("a decoder name");
        let start = Instant::now();
        for _ in 0..rounds {
            std::hint::black_box(f(std::hint::black_box(&input.bytes)));
        }
        let secs = start.elapsed().as_secs_f64();
        println!(
            "decoder={name} mb_per_s={:.0}",
            input.bytes.len() as f64 * rounds as f64 / secs / 1e6
        );
        return;
    }
    let bytes = input.bytes.len() as f64;
    // Per decoder: MB/s of each round.
    let mut rates = vec![Vec::new(); DECODERS.len()];
    for round in 0..=rounds {
        for (i, (_, f)) in DECODERS.iter().enumerate() {
            let start = Instant::now();
            let n = std::hint::black_box(f(std::hint::black_box(&input.bytes)));
            let secs = start.elapsed().as_secs_f64();
            assert!(n > 0);
            if round > 0 {
                rates[i].push(bytes / secs / 1e6);
            }
        }
    }
    let ratio =
        |a: usize, b: usize| median(rates[a].iter().zip(&rates[b]).map(|(x, y)| x / y).collect());
    println!(
        "input: {} bytes, {} lines, {rounds} rounds",
        input.bytes.len(),
        input.lines
    );
    for (i, (name, _)) in DECODERS.iter().enumerate() {
        println!(
            "decoder={} mb_per_s={:.0} msgs_per_s={:.0}",
            name.replace(' ', "_"),
            median(rates[i].clone()),
            median(rates[i].clone()) * 1e6 / bytes * input.lines as f64
        );
    }
    println!(
        "ratio session/Value={:.2} session/floor={:.2} typed/Value={:.2}",
        ratio(0, 2),
        ratio(0, 3),
        ratio(1, 2)
    );
}
