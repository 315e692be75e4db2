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
//! | `BENCH_CLI_MODE` | `transcript` (default), `flood` or `refusals` (below) |
//!
//! Stress modes, for `bench-stress`, instead of the transcript:
//!
//! - `flood`: `BENCH_CLI_LINES` (default 40) `assistant` messages of
//!   `BENCH_CLI_LINE_BYTES` bytes each (default 8 MiB, newline included),
//!   written as fast as the pipe takes them; then it creates the file
//!   `BENCH_CLI_DONE_FILE` (if set) and exits 0.
//! - `refusals`: after answering `initialize` it never reads its stdin
//!   again; it writes `BENCH_CLI_REQUESTS` (default 520,000) control
//!   requests of an unknown subtype, whose request ids are
//!   `BENCH_CLI_ID_BYTES` bytes long (default 150), then exits 0. Each
//!   gets an error answer on the stdin nobody reads.
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
    let mode = std::env::var("BENCH_CLI_MODE").unwrap_or_default();
    // In `refusals` mode nothing reads stdin after `initialize`: the pipe
    // stays open (fd 0 is never closed) and fills up.
    let keep_reading = mode != "refusals";

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
                if !keep_reading {
                    break;
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
    match mode.as_str() {
        "flood" => return flood(&mut out),
        "refusals" => return refusals(&mut out),
        _ => {}
    }
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

/// `BENCH_CLI_LINES` assistant messages of `BENCH_CLI_LINE_BYTES` bytes.
fn flood(out: &mut impl Write) -> std::io::Result<()> {
    let lines = env_usize("BENCH_CLI_LINES").unwrap_or(40);
    let size = env_usize("BENCH_CLI_LINE_BYTES").unwrap_or(8 << 20);
    let head = r#"{"type":"assistant","message":{"id":"msg_flood","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":""#;
    let tail = r#""}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"bench-flood"}"#;
    let text = size.saturating_sub(head.len() + tail.len() + 1);
    let mut line = Vec::with_capacity(size);
    line.extend_from_slice(head.as_bytes());
    line.extend((0..text).map(|i| b"lorem ipsum dolor sit amet "[i % 27]));
    line.extend_from_slice(tail.as_bytes());
    line.push(b'\n');
    for _ in 0..lines {
        out.write_all(&line)?;
    }
    out.flush()?;
    if let Some(path) = std::env::var_os("BENCH_CLI_DONE_FILE") {
        std::fs::write(path, b"done\n")?;
    }
    Ok(())
}

/// `BENCH_CLI_REQUESTS` control requests of an unknown subtype, ids of
/// `BENCH_CLI_ID_BYTES` bytes; stdin is not read any more.
fn refusals(out: &mut impl Write) -> std::io::Result<()> {
    let requests = env_usize("BENCH_CLI_REQUESTS").unwrap_or(520_000);
    let id_bytes = env_usize("BENCH_CLI_ID_BYTES").unwrap_or(150).max(12);
    let pad = "r".repeat(id_bytes - 12);
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, out);
    for n in 0..requests {
        writeln!(
            out,
            r#"{{"type":"control_request","request_id":"{pad}{n:012}","request":{{"subtype":"bench_unknown"}}}}"#
        )?;
    }
    out.flush()
}
