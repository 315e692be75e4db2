//! Core decode: bytes → events, fed in 64 KiB chunks as a pipe delivers
//! them, against `serde_json` on the same bytes in the same run.
//!
//! - `session`: `Session::handle_input` + `poll_event` (type and subtype
//!   read, the line kept as `Bytes`);
//! - `session_typed`: the same plus `Message::parse` of every message;
//! - `value_per_line`: split lines, `serde_json::from_slice::<Value>`;
//! - `ignored_any_per_line`: split lines, `from_slice::<IgnoredAny>`, the
//!   floor of any serde_json reader that validates each line;
//! - `split_only`: the line splitting alone.
//!
//! `cargo bench -p claude-proto-bench --bench decode`. For ratios measured
//! round by round (interleaved, which a shared machine needs) run
//! `bench-decode` (see `bench/compare.sh`).

use std::sync::LazyLock;

use claude_proto_bench::{decode, transcript};
use divan::Bencher;
use divan::counter::{BytesCount, ItemsCount};

static INPUT: LazyLock<transcript::Transcript> = LazyLock::new(transcript::standard);

fn main() {
    divan::main();
}

fn run(bencher: Bencher<'_, '_>, f: fn(&[u8]) -> usize) {
    let input = &*INPUT;
    bencher
        .counter(BytesCount::new(input.bytes.len()))
        .counter(ItemsCount::new(input.lines))
        .bench(|| f(divan::black_box(&input.bytes)));
}

#[divan::bench(sample_count = 30)]
fn session(bencher: Bencher<'_, '_>) {
    run(bencher, decode::session);
}

#[divan::bench(sample_count = 20)]
fn session_typed(bencher: Bencher<'_, '_>) {
    run(bencher, decode::session_typed);
}

#[divan::bench(sample_count = 20)]
fn value_per_line(bencher: Bencher<'_, '_>) {
    run(bencher, decode::value_per_line);
}

#[divan::bench(sample_count = 30)]
fn ignored_any_per_line(bencher: Bencher<'_, '_>) {
    run(bencher, decode::ignored_per_line);
}

#[divan::bench(sample_count = 30)]
fn split_only(bencher: Bencher<'_, '_>) {
    run(bencher, decode::split_only);
}
