//! Writes a benchmark cassette: `gen-cassette OUT [BYTES] [SEED]`
//! (defaults: about 100 MB, the benchmarks' seed).
//!
//! The CLI's side is the benchmark transcript (`transcript::generate`, in
//! the CLI's key order), with the program's side a session would have
//! around it: the `initialize` request and its answer first, a prompt
//! before every turn's `system`/`init`, a `can_use_tool` request and the
//! program's answer before every tool result, and stdin's end, stdout's
//! end and the exit last. Frames are 20–400 µs apart. Prints a census of
//! the frames to stderr.
//!
//! The program's lines are what the library writes: they come from a probe
//! session of the benchmark's program against a scripted CLI
//! (`claude_proto_bench::replay::probe`), so that `bench-replay-e2e` can
//! replay the cassette through the tokio and blocking adapters.

use std::io::BufWriter;
use std::time::Duration;

use claude_proto_bench::replay;
use claude_proto_bench::transcript::{self, Rng};
use claude_proto_testkit::cassette::{CassetteWriter, Redactions};

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let Some(out) = args.next() else {
        eprintln!("usage: gen-cassette OUT [BYTES] [SEED]");
        std::process::exit(2);
    };
    let bytes: usize = args
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100 * 1024 * 1024);
    let seed = args
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(transcript::SEED);
    let program = replay::probe().unwrap_or_else(|e| {
        eprintln!("gen-cassette: the probe session failed: {e}");
        std::process::exit(1);
    });
    // The program's frames and the frame envelopes add about 8%.
    let cli = transcript::cli_order(&transcript::generate(bytes / 100 * 92, seed).bytes);
    let file = BufWriter::new(std::fs::File::create(&out)?);
    let mut w = CassetteWriter::new(file, Some("2.1.330"), Redactions::none())?;
    let mut rng = Rng::new(seed ^ 0x5eed);
    let mut at = Duration::ZERO;
    let mut tick = |rng: &mut Rng| {
        at += Duration::from_micros(rng.range(20, 400) as u64);
        at
    };
    let (mut cli_lines, mut program_lines) = (0u64, 0u64);
    w.program_line(tick(&mut rng), program.initialize.as_bytes())?;
    let init: serde_json::Value = serde_json::from_str(&program.initialize)?;
    let init_id = init["request_id"].as_str().unwrap_or_default();
    w.cli_line(
        tick(&mut rng),
        transcript::initialize_response_line(init_id).as_bytes(),
    )?;
    program_lines += 1;
    cli_lines += 1;
    let mut requests = 0u64;
    for line in cli.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        // The tag keys come first in the CLI's order: a prefix tells the kind.
        if line.starts_with(br#"{"type":"system","subtype":"init""#) {
            w.program_line(tick(&mut rng), program.prompt.as_bytes())?;
            program_lines += 1;
        } else if line.starts_with(br#"{"type":"user""#) {
            requests += 1;
            let id = format!("{requests:08x}-perm");
            let tool_use_id = format!("toolu_{requests:08}");
            let ask = program.can_use_tool(&id, &tool_use_id);
            w.cli_line(tick(&mut rng), ask.as_bytes())?;
            w.program_line(tick(&mut rng), program.allow(&id, &tool_use_id).as_bytes())?;
            cli_lines += 1;
            program_lines += 1;
        }
        w.cli_line(tick(&mut rng), line)?;
        cli_lines += 1;
    }
    w.program_end(tick(&mut rng))?;
    w.cli_end(tick(&mut rng))?;
    w.exit(tick(&mut rng), 0)?;
    let frames = w.frames();
    let file = w.finish()?;
    drop(file);
    let size = std::fs::metadata(&out)?.len();
    eprintln!(
        "{out}: {size} bytes, {frames} frames ({cli_lines} CLI lines, {program_lines} program lines, 3 end/exit)"
    );
    Ok(())
}
