//! Writes a benchmark transcript: `gen-transcript OUT [BYTES] [SEED]`
//! (defaults: about 10 MB, the benchmarks' seed). Prints a census of the
//! lines to stderr.

use claude_proto_bench::transcript;

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let Some(out) = args.next() else {
        eprintln!("usage: gen-transcript OUT [BYTES] [SEED]");
        std::process::exit(2);
    };
    let bytes = args
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(transcript::STANDARD_BYTES);
    let seed = args
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(transcript::SEED);
    let t = transcript::generate(bytes, seed);
    std::fs::write(&out, &t.bytes)?;
    eprintln!("{out}: {} bytes, {} lines", t.bytes.len(), t.lines);
    for (kind, n, b) in transcript::census(&t.bytes) {
        eprintln!("  {kind:<40} {n:>8} lines {b:>10} bytes");
    }
    Ok(())
}
