//! A stand-in for the CLI that times in-process MCP tool calls from the
//! CLI's side, so every SDK is measured by the same stopwatch.
//!
//! 1. It answers the host's `initialize` control request with the recorded
//!    answer (any other control request of the host gets an empty success).
//! 2. When the first `user` message arrives it writes the recorded
//!    `system/init`, then does what the real CLI does with an SDK MCP
//!    server (`sdk_mcp.ndjson` in the core's fixtures): `mcp_message`s
//!    `initialize`, `notifications/initialized` and `tools/list` to the
//!    server `calc`, each waiting for its `control_response`.
//! 3. Then `BENCH_MCP_WARMUP` (default 200) untimed and `BENCH_MCP_CALLS`
//!    (default 2,000) timed `tools/call`s of `add` with `{"a":2,"b":3}`,
//!    in the shape the real CLI sends (`_meta` with the tool use id and a
//!    progress token), one at a time. A call's time runs from just before
//!    its request line is written (and flushed) to the moment the line
//!    answering it has been read; lines in between are skipped. Each
//!    answer is checked afterwards (a success carrying an `mcp_response`
//!    with a `result` that is not an error), outside the timed span.
//! 4. It writes a `result/success` whose `result` text is one line of JSON:
//!    `calls`, `warmup`, `min_us`, `p50_us`, `p90_us`, `p99_us`, `max_us`,
//!    `mean_us`, `over_1ms` (how many calls took longer than 1 ms) and
//!    `answer` (the first call's `result`), then reads its
//!    stdin until it closes and exits 0.
//!
//! Command-line flags are accepted and ignored. If an answer is wrong, it
//! says so on stderr and exits 1 without a result.

use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

use claude_proto_bench::transcript;
use serde_json::{Value, json};

const SESSION: &str = "00000000-0000-4000-8000-0000000b3c41";

fn env_usize(name: &str) -> Option<usize> {
    std::env::var(name).ok()?.parse().ok()
}

struct Cli<R, W> {
    input: R,
    out: W,
    line: String,
    next_request: u64,
}

impl<R: BufRead, W: Write> Cli<R, W> {
    /// The next line from the host; `None` at the end of its stdin.
    fn read_line(&mut self) -> std::io::Result<Option<&str>> {
        self.line.clear();
        if self.input.read_line(&mut self.line)? == 0 {
            return Ok(None);
        }
        Ok(Some(self.line.trim_end()))
    }

    fn write_line(&mut self, line: &str) -> std::io::Result<()> {
        self.out.write_all(line.as_bytes())?;
        self.out.write_all(b"\n")?;
        self.out.flush()
    }

    /// Answers a control request of the host (the recorded answer for
    /// `initialize`, an empty success for anything else). Returns its
    /// subtype, or `None` if `line` is not a control request.
    fn answer_host_request(&mut self, line: &str) -> std::io::Result<Option<String>> {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            return Ok(None);
        };
        if v["type"] != "control_request" {
            return Ok(None);
        }
        let id = v["request_id"].as_str().unwrap_or_default();
        let subtype = v["request"]["subtype"].as_str().unwrap_or_default();
        let answer = if subtype == "initialize" {
            transcript::initialize_response_line(id)
        } else {
            json!({"type":"control_response","response":{"subtype":"success","request_id":id,"response":{}}})
                .to_string()
        };
        self.write_line(&answer)?;
        Ok(Some(subtype.to_owned()))
    }

    /// Sends `message` to the server `calc` and waits for the answer.
    /// Returns the time from writing the request to reading the answer,
    /// and the answer's line. Lines that do not answer it are skipped
    /// (control requests of the host are answered).
    fn mcp(&mut self, message: &Value) -> std::io::Result<(Duration, String)> {
        self.next_request += 1;
        let id = format!("00000000-0000-4000-8000-{:012}", self.next_request);
        let request = json!({
            "type": "control_request",
            "request_id": id,
            "request": {"subtype": "mcp_message", "server_name": "calc", "message": message},
        })
        .to_string();
        // The request id in quotes, as it appears in the answer.
        let needle = format!("\"{id}\"");
        let start = Instant::now();
        self.write_line(&request)?;
        loop {
            let Some(line) = self.read_line()? else {
                return Err(std::io::Error::other(
                    "stdin closed while waiting for an answer",
                ));
            };
            if line.contains(&needle) && line.contains("control_response") {
                let elapsed = start.elapsed();
                return Ok((elapsed, line.to_owned()));
            }
            if line.contains("control_request") {
                let line = line.to_owned();
                self.answer_host_request(&line)?;
            }
        }
    }
}

/// The `mcp_response` of a successful answer.
fn mcp_response(line: &str) -> Result<Value, String> {
    let v: Value = serde_json::from_str(line).map_err(|e| format!("{e}: {line}"))?;
    if v["response"]["subtype"] != "success" {
        return Err(format!("not a success: {line}"));
    }
    let r = v["response"]["response"]["mcp_response"].clone();
    if r.is_null() {
        return Err(format!("no mcp_response: {line}"));
    }
    Ok(r)
}

/// The `result` of a `tools/call` answer that is not an error.
fn call_result(line: &str) -> Result<Value, String> {
    let r = mcp_response(line)?;
    let result = &r["result"];
    if !result.is_object() || result["isError"] == true {
        return Err(format!("not a tool result: {line}"));
    }
    Ok(result.clone())
}

/// The nearest-rank percentile `q` of `sorted`, in µs.
fn percentile(sorted: &[Duration], q: f64) -> f64 {
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    micros(sorted[rank - 1])
}

fn micros(d: Duration) -> f64 {
    (d.as_nanos() as f64 / 100.0).round() / 10.0
}

fn main() {
    if let Err(e) = run() {
        eprintln!("bench-mcp-cli: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let calls = env_usize("BENCH_MCP_CALLS").unwrap_or(2_000).max(1);
    let warmup = env_usize("BENCH_MCP_WARMUP").unwrap_or(200);
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut cli = Cli {
        input: stdin.lock(),
        out: stdout.lock(),
        line: String::new(),
        next_request: 0,
    };
    let io = |e: std::io::Error| e.to_string();

    // Nothing is written before the host's initialize, like the real CLI;
    // then wait for the first user message.
    loop {
        let Some(line) = cli.read_line().map_err(io)? else {
            return Ok(());
        };
        if line.contains("\"user\"")
            && serde_json::from_str::<Value>(line).is_ok_and(|v| v["type"] == "user")
        {
            break;
        }
        let line = line.to_owned();
        cli.answer_host_request(&line).map_err(io)?;
    }
    cli.write_line(&transcript::system_init_line(SESSION))
        .map_err(io)?;

    // The handshake, as the real CLI does it.
    let init = json!({"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-code","title":"Claude Code","version":"2.1.330"}},"jsonrpc":"2.0","id":0});
    let (_, answer) = cli.mcp(&init).map_err(io)?;
    let r = mcp_response(&answer)?;
    if !r["result"]["serverInfo"].is_object() {
        return Err(format!("initialize failed: {answer}"));
    }
    let (_, answer) = cli
        .mcp(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
        .map_err(io)?;
    mcp_response(&answer)?;
    let (_, answer) = cli
        .mcp(&json!({"method":"tools/list","jsonrpc":"2.0","id":1}))
        .map_err(io)?;
    let r = mcp_response(&answer)?;
    let listed = r["result"]["tools"]
        .as_array()
        .is_some_and(|tools| tools.iter().any(|t| t["name"] == "add"));
    if !listed {
        return Err(format!("tools/list has no add: {answer}"));
    }

    let mut times = Vec::with_capacity(calls);
    let mut first = Value::Null;
    for n in 0..warmup + calls {
        let id = n as u64 + 2;
        let call = json!({"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3},"_meta":{"claudecode/toolUseId":format!("toolu_bench_{id:020}"),"progressToken":id}},"jsonrpc":"2.0","id":id});
        let (elapsed, answer) = cli.mcp(&call).map_err(io)?;
        let result = call_result(&answer)?;
        if n == 0 {
            first = result;
        }
        if n >= warmup {
            times.push(elapsed);
        }
    }
    times.sort_unstable();
    let total: Duration = times.iter().sum();
    let figures = json!({
        "calls": calls,
        "warmup": warmup,
        "min_us": micros(times[0]),
        "p50_us": percentile(&times, 0.50),
        "p90_us": percentile(&times, 0.90),
        "p99_us": percentile(&times, 0.99),
        "max_us": micros(times[times.len() - 1]),
        "mean_us": micros(total / calls as u32),
        "over_1ms": times.iter().filter(|t| t.as_micros() > 1000).count(),
        "answer": first,
    });
    cli.write_line(&transcript::result_line(SESSION, &figures.to_string()))
        .map_err(io)?;

    // Until the host closes stdin.
    while let Some(line) = cli.read_line().map_err(io)? {
        if line.contains("control_request") {
            let line = line.to_owned();
            cli.answer_host_request(&line).map_err(io)?;
        }
    }
    Ok(())
}
