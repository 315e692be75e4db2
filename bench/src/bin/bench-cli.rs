//! A stand-in for the CLI that writes a transcript as fast as the pipe
//! takes it.
//!
//! It answers the host's `initialize` control request with the recorded
//! answer, then writes the transcript file and exits 0. Everything else the
//! host writes is read and ignored, so the host never blocks on its stdin.
//!
//! | variable | meaning |
//! |---|---|
//! | `BENCH_CLI_TRANSCRIPT` | the NDJSON file to write (default: the standard transcript, generated in memory) |
//! | `BENCH_CLI_TOTAL_BYTES` | repeat the file until at least this many bytes are written (default: once) |
//! | `BENCH_CLI_HUGE_LINE` | write one line of this many bytes first (a `{"type":"assistant_blob",...}` object) |
//!
//! Command-line flags are accepted and ignored.

use std::io::{BufRead, Write};
use std::sync::mpsc;

use claude_proto_bench::transcript;

fn env_usize(name: &str) -> Option<usize> {
    std::env::var(name).ok()?.parse().ok()
}

fn main() -> std::io::Result<()> {
    let data = match std::env::var_os("BENCH_CLI_TRANSCRIPT") {
        Some(path) => std::fs::read(path)?,
        None => transcript::standard().bytes,
    };
    let total = env_usize("BENCH_CLI_TOTAL_BYTES").unwrap_or(data.len());
    let huge = env_usize("BENCH_CLI_HUGE_LINE");

    let (init_tx, init_rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        for line in stdin.lock().lines() {
            let Ok(line) = line else { break };
            if !line.contains("\"initialize\"") {
                continue;
            }
            let Ok(v) = serde_json::from_str::<serde_json::Value>(&line) else {
                continue;
            };
            if v["type"] == "control_request" && v["request"]["subtype"] == "initialize" {
                if let Some(id) = v["request_id"].as_str() {
                    let _ = init_tx.send(id.to_owned());
                }
            }
        }
    });

    // Nothing is written before the host's initialize, like the real CLI
    // in stream-json mode.
    let Ok(request_id) = init_rx.recv() else {
        return Ok(());
    };
    let mut out = std::io::stdout().lock();
    out.write_all(transcript::initialize_response_line(&request_id).as_bytes())?;
    out.write_all(b"\n")?;
    if let Some(size) = huge {
        let head = br#"{"type":"assistant_blob","data":""#;
        let tail = b"\"}\n";
        out.write_all(head)?;
        let block = vec![b'x'; 1 << 20];
        let mut left = size.saturating_sub(head.len() + tail.len() - 1);
        while left > 0 {
            let n = left.min(block.len());
            out.write_all(&block[..n])?;
            left -= n;
        }
        out.write_all(tail)?;
    }
    let mut written = 0;
    loop {
        out.write_all(&data)?;
        written += data.len();
        if written >= total {
            break;
        }
    }
    out.flush()?;
    Ok(())
}
