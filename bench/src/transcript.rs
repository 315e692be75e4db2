//! A deterministic generator of realistic CLI stdout.
//!
//! The shapes come from the recorded transcripts in
//! `crates/claude-proto/tests/fixtures` (CLI 2.1.330 with
//! `--include-partial-messages`): the `system/init`, `result`,
//! `message_start`, `message_delta` and `initialize` answer lines are taken
//! from there and only their ids change. A turn is
//!
//! - `system/init` (about 3 KB), then one to eight model steps, each:
//!   - `message_start`, `content_block_start`, 10–80 `text_delta`s,
//!     `content_block_stop`; for a tool call another block of
//!     `input_json_delta`s; `message_delta`, `message_stop`;
//!   - the `assistant` message (text and `tool_use` blocks);
//!   - the `user` tool result: most lines 0.5–12 KB, about one in 60 near
//!     200 KB (file reads, build logs), with the escapes real file contents
//!     have (newlines, quotes, tabs, a little non-ASCII); the result text
//!     appears twice, in `content` and `tool_use_result`, as the CLI sends it;
//! - `result/success` (about 2 KB).
//!
//! By count most lines are `stream_event` deltas; by bytes deltas and tool
//! results share the stream. Same size and seed give the same bytes.

use serde_json::{Value, json};

const FIXTURE: &str =
    include_str!("../../crates/claude-proto/tests/fixtures/partial_messages.ndjson");

/// Lines of a fixture that went from the CLI to the host.
fn fixture_lines() -> impl Iterator<Item = Value> {
    FIXTURE.lines().filter_map(|l| {
        let rec: Value = serde_json::from_str(l).ok()?;
        if rec["dir"] != "in" {
            return None;
        }
        serde_json::from_str(rec["line"].as_str()?).ok()
    })
}

fn template(pred: impl Fn(&Value) -> bool) -> Value {
    fixture_lines()
        .find(|v| pred(v))
        .unwrap_or_else(|| json!({}))
}

/// The recorded answer to `initialize` (the `response.response` payload).
pub fn initialize_payload() -> Value {
    let line = template(|v| v["type"] == "control_response");
    line["response"]["response"].clone()
}

/// A `control_response` line answering `initialize` request `request_id`.
pub fn initialize_response_line(request_id: &str) -> String {
    let line = json!({
        "type": "control_response",
        "response": {
            "subtype": "success",
            "request_id": request_id,
            "response": initialize_payload(),
        }
    });
    line.to_string()
}

/// The recorded `system/init` line with `session_id` in place of its own.
pub fn system_init_line(session_id: &str) -> String {
    let mut v = template(|v| v["type"] == "system" && v["subtype"] == "init");
    v["session_id"] = json!(session_id);
    v.to_string()
}

/// The recorded `result/success` line with `session_id` and the result
/// text `text` in place of its own.
pub fn result_line(session_id: &str, text: &str) -> String {
    let mut v = template(|v| v["type"] == "result" && v["subtype"] == "success");
    v["session_id"] = json!(session_id);
    v["result"] = json!(text);
    v.to_string()
}

/// Small, fast, deterministic generator (xorshift64*).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed (any value).
    pub fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next_u64() % (hi - lo + 1) as u64) as usize
    }
    /// Log-uniform in `lo..=hi`: as many small values as large ones per
    /// factor of two.
    pub fn log_range(&mut self, lo: usize, hi: usize) -> usize {
        let (l, h) = ((lo as f64).ln(), (hi as f64).ln());
        let u = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        (l + (h - l) * u).exp() as usize
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.range(0, items.len() - 1)]
    }
    fn hex(&mut self, n: usize) -> String {
        let mut s = String::with_capacity(n);
        while s.len() < n {
            s.push_str(&format!("{:016x}", self.next_u64()));
        }
        s.truncate(n);
        s
    }
    fn uuid(&mut self) -> String {
        let h = self.hex(32);
        format!(
            "{}-{}-4{}-a{}-{}",
            &h[..8],
            &h[8..12],
            &h[13..16],
            &h[17..20],
            &h[20..]
        )
    }
}

const WORDS: &[&str] = &[
    "the",
    "file",
    "function",
    "returns",
    "a",
    "value",
    "when",
    "called",
    "with",
    "test",
    "build",
    "error",
    "in",
    "module",
    "session",
    "line",
    "we",
    "need",
    "to",
    "check",
    "that",
    "this",
    "is",
    "not",
    "handled",
    "yet",
    "so",
    "I'll",
    "update",
    "config",
    "and",
    "run",
    "cargo",
    "again",
    "—",
    "looks",
    "good",
    "now",
    "`Session::new`",
    "the",
    "output",
    "shows",
    "café",
    "tests",
    "pass",
    "let",
    "me",
    "read",
    "src/lib.rs",
    "first",
    "then",
    "fix",
    "it",
];

const CODE: &[&str] = &[
    "use std::collections::HashMap;",
    "    let mut map = HashMap::new();",
    "    for (key, value) in items.iter() {",
    "        map.insert(key.clone(), value.to_string());",
    "    }",
    "fn parse(input: &str) -> Result<Config, Error> {",
    "    let text = std::fs::read_to_string(\"config.toml\")?;",
    "\t// TODO: handle the \"legacy\" format too",
    "    assert_eq!(result, Some(\"ok\"), \"unexpected: {result:?}\");",
    "}",
    "",
    "    match event {",
    "        Event::Message(m) => println!(\"{} bytes\", m.as_bytes().len()),",
    "        _ => {}",
    "    }",
    "test session::tests::decodes_lines ... ok",
    "warning: unused variable: `x` --> src/main.rs:12:9",
    "   Compiling claude-proto v0.1.0 (/home/user/project)",
    "drwxr-xr-x  5 user user  4096 Nov 22 00:15 crates",
    "-rw-r--r--  1 user user 12245 Nov 22 00:15 Cargo.lock",
    "    // Résumé: naïve approach, O(n²) — fine for now",
];

fn words(rng: &mut Rng, n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(rng.pick(WORDS));
    }
    s
}

/// Text like a file or command output, about `bytes` long.
fn file_text(rng: &mut Rng, bytes: usize) -> String {
    let mut s = String::with_capacity(bytes + 80);
    let mut n = 1;
    while s.len() < bytes {
        if rng.range(0, 3) == 0 {
            s.push_str(&format!("{n:>6}\t"));
        }
        s.push_str(rng.pick(CODE));
        s.push('\n');
        n += 1;
    }
    s
}

struct Ctx {
    rng: Rng,
    session_id: String,
    init: Value,
    result: Value,
    message_start: Value,
    message_delta: Value,
    turn: usize,
    out: Vec<u8>,
    lines: usize,
}

impl Ctx {
    fn push(&mut self, v: &Value) {
        serde_json::to_writer(&mut self.out, v).expect("a Value always serializes");
        self.out.push(b'\n');
        self.lines += 1;
    }

    fn stream_event(&mut self, event: Value, msg_id: &str) {
        let uuid = self.rng.uuid();
        let line = json!({
            "type": "stream_event",
            "event": event,
            "session_id": self.session_id,
            "parent_tool_use_id": null,
            "uuid": uuid,
            "api_message_id": msg_id,
        });
        self.push(&line);
    }

    fn system_init(&mut self) {
        let mut v = self.init.clone();
        v["session_id"] = json!(self.session_id);
        v["uuid"] = json!(self.rng.uuid());
        self.push(&v);
    }

    fn result(&mut self, steps: usize) {
        let mut v = self.result.clone();
        v["session_id"] = json!(self.session_id);
        v["uuid"] = json!(self.rng.uuid());
        v["num_turns"] = json!(steps);
        v["result"] = json!(words(&mut self.rng, 30));
        v["duration_ms"] = json!(self.rng.range(800, 90_000));
        self.push(&v);
    }

    fn step(&mut self, with_tool: bool) {
        let msg_id = format!("msg_{}", self.rng.hex(24));
        let mut start = self.message_start.clone();
        start["message"]["id"] = json!(msg_id);
        self.stream_event(start, &msg_id);
        self.stream_event(
            json!({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}),
            &msg_id,
        );
        let mut text = String::new();
        let deltas = self.rng.range(10, 80);
        for _ in 0..deltas {
            let n = self.rng.range(1, 6);
            let mut piece = words(&mut self.rng, n);
            piece.insert(0, ' ');
            text.push_str(&piece);
            self.stream_event(
                json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":piece}}),
                &msg_id,
            );
        }
        self.stream_event(json!({"type":"content_block_stop","index":0}), &msg_id);
        let mut content = vec![json!({"type":"text","text":text})];
        let tool = if with_tool {
            let tool_id = format!("toolu_{}", self.rng.hex(24));
            let (name, input) = match self.rng.range(0, 2) {
                0 => (
                    "Bash",
                    json!({"command": format!("cargo test -p {}", self.rng.pick(WORDS)), "description": words(&mut self.rng, 6)}),
                ),
                1 => (
                    "Read",
                    json!({"file_path": format!("/home/user/project/src/{}.rs", self.rng.hex(6))}),
                ),
                _ => (
                    "Grep",
                    json!({"pattern": words(&mut self.rng, 2), "path": "crates", "output_mode": "content"}),
                ),
            };
            self.stream_event(
                json!({"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":tool_id,"name":name,"input":{}}}),
                &msg_id,
            );
            let input_json = input.to_string();
            let bytes = input_json.as_bytes();
            let mut at = 0;
            while at < bytes.len() {
                let mut end = (at + self.rng.range(4, 24)).min(bytes.len());
                while !input_json.is_char_boundary(end) {
                    end += 1;
                }
                self.stream_event(
                    json!({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":&input_json[at..end]}}),
                    &msg_id,
                );
                at = end;
            }
            self.stream_event(json!({"type":"content_block_stop","index":1}), &msg_id);
            content.push(json!({"type":"tool_use","id":tool_id,"name":name,"input":input}));
            Some((tool_id, name))
        } else {
            None
        };
        let mut delta = self.message_delta.clone();
        delta["delta"]["stop_reason"] = json!(if with_tool { "tool_use" } else { "end_turn" });
        self.stream_event(delta, &msg_id);
        self.stream_event(json!({"type":"message_stop"}), &msg_id);
        let assistant = json!({
            "type": "assistant",
            "message": {
                "id": msg_id, "type": "message", "role": "assistant", "model": "claude-opus-5-5",
                "content": content, "stop_reason": null, "stop_sequence": null,
                "usage": {"input_tokens": self.rng.range(3, 40), "cache_creation_input_tokens": self.rng.range(0, 4000),
                          "cache_read_input_tokens": self.rng.range(0, 90000), "output_tokens": deltas * 3},
                "context_management": null
            },
            "parent_tool_use_id": null,
            "session_id": self.session_id,
            "uuid": self.rng.uuid(),
            "timestamp": format!("2026-11-22T00:{:02}:{:02}.{:03}Z", self.turn % 60, self.rng.range(0, 59), self.rng.range(0, 999)),
            "request_id": format!("req_{}", self.rng.hex(24)),
        });
        self.push(&assistant);
        if let Some((tool_id, name)) = tool {
            // Most results are small; about one in 60 is a big file or log.
            let size = if self.rng.range(0, 59) == 0 {
                self.rng.range(90_000, 110_000)
            } else {
                self.rng.log_range(250, 6_000)
            };
            let body = file_text(&mut self.rng, size);
            let tool_use_result = if name == "Read" {
                json!({"type":"text","file":{"filePath":"/home/user/project/src/lib.rs","content":body,"numLines":body.lines().count(),"startLine":1,"totalLines":body.lines().count()}})
            } else {
                json!({"stdout":body,"stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false})
            };
            let user = json!({
                "type": "user",
                "message": {"role": "user", "content": [{"type":"tool_result","content":body,"is_error":false,"tool_use_id":tool_id}]},
                "parent_tool_use_id": null,
                "session_id": self.session_id,
                "uuid": self.rng.uuid(),
                "timestamp": "2026-11-22T00:15:20.015Z",
                "tool_use_result": tool_use_result,
            });
            self.push(&user);
        }
    }
}

/// A transcript: what the CLI's stdout carries.
#[derive(Debug, Clone)]
pub struct Transcript {
    /// NDJSON bytes, every line ending in `\n`.
    pub bytes: Vec<u8>,
    /// Number of lines (each one is one message for a reader).
    pub lines: usize,
}

/// Generates whole turns until at least `target_bytes` are written.
pub fn generate(target_bytes: usize, seed: u64) -> Transcript {
    let mut rng = Rng::new(seed);
    let session_id = rng.uuid();
    let mut ctx = Ctx {
        rng,
        session_id,
        init: template(|v| v["type"] == "system" && v["subtype"] == "init"),
        result: template(|v| v["type"] == "result" && v["subtype"] == "success"),
        message_start: template(|v| v["event"]["type"] == "message_start")["event"].clone(),
        message_delta: template(|v| v["event"]["type"] == "message_delta")["event"].clone(),
        turn: 0,
        out: Vec::with_capacity(target_bytes + 512 * 1024),
        lines: 0,
    };
    while ctx.out.len() < target_bytes {
        ctx.system_init();
        let steps = ctx.rng.range(1, 8);
        for i in 0..steps {
            ctx.step(i + 1 < steps);
        }
        ctx.result(steps);
        ctx.turn += 1;
    }
    Transcript {
        bytes: ctx.out,
        lines: ctx.lines,
    }
}

/// The standard benchmark input: about 10 MB.
pub const STANDARD_BYTES: usize = 10 * 1024 * 1024;
/// The seed every benchmark uses.
pub const SEED: u64 = 7;

/// The standard transcript (about 10 MB, seed [`SEED`]).
pub fn standard() -> Transcript {
    generate(STANDARD_BYTES, SEED)
}

/// The same lines with the keys of every object in the CLI's own order as
/// far as it matters to a reader: the tag keys (`type`, then `subtype`)
/// first, the rest after them. [`generate`] writes keys sorted, which puts
/// `type` after most others; the real CLI writes it first.
pub fn cli_order(bytes: &[u8]) -> Vec<u8> {
    fn write(v: &Value, out: &mut Vec<u8>) {
        match v {
            Value::Object(map) => {
                out.push(b'{');
                let tags = ["type", "subtype"];
                let keys = tags
                    .iter()
                    .filter_map(|t| map.get_key_value(*t))
                    .chain(map.iter().filter(|(k, _)| !tags.contains(&k.as_str())));
                for (i, (k, v)) in keys.enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    serde_json::to_writer(&mut *out, k).expect("a key always serializes");
                    out.push(b':');
                    write(v, out);
                }
                out.push(b'}');
            }
            Value::Array(items) => {
                out.push(b'[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    write(item, out);
                }
                out.push(b']');
            }
            other => serde_json::to_writer(&mut *out, other).expect("a value always serializes"),
        }
    }
    let mut out = Vec::with_capacity(bytes.len());
    for line in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let v: Value = serde_json::from_slice(line).expect("the generator writes JSON");
        write(&v, &mut out);
        out.push(b'\n');
    }
    out
}

/// Counts of each kind of line, for reports: `(type/subtype, lines, bytes)`.
pub fn census(bytes: &[u8]) -> Vec<(String, usize, usize)> {
    let mut map = std::collections::BTreeMap::<String, (usize, usize)>::new();
    for line in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let v: Value = serde_json::from_slice(line).unwrap_or(Value::Null);
        let sub = v["subtype"]
            .as_str()
            .or(v["event"]["type"].as_str())
            .unwrap_or("");
        let key = format!("{}/{}", v["type"].as_str().unwrap_or("?"), sub);
        let e = map.entry(key).or_default();
        e.0 += 1;
        e.1 += line.len() + 1;
    }
    map.into_iter().map(|(k, (n, b))| (k, n, b)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_order_puts_tags_first_and_keeps_values() {
        let t = generate(200_000, 3);
        let reordered = cli_order(&t.bytes);
        for (a, b) in t
            .bytes
            .split(|&b| b == b'\n')
            .zip(reordered.split(|&b| b == b'\n'))
        {
            if a.is_empty() {
                continue;
            }
            let (va, vb): (Value, Value) = (
                serde_json::from_slice(a).unwrap(),
                serde_json::from_slice(b).unwrap(),
            );
            assert_eq!(va, vb);
            assert!(
                b.starts_with(b"{\"type\":"),
                "{}",
                String::from_utf8_lossy(b)
            );
        }
    }

    #[test]
    fn deterministic_and_sized() {
        let a = generate(300_000, 1);
        let b = generate(300_000, 1);
        assert_eq!(a.bytes, b.bytes);
        assert!(a.bytes.len() >= 300_000);
        assert_eq!(a.bytes.iter().filter(|&&b| b == b'\n').count(), a.lines);
    }

    #[test]
    fn templates_were_found() {
        assert!(initialize_payload()["commands"].is_array());
        let t = generate(1, 3);
        let first: Value =
            serde_json::from_slice(t.bytes.split(|&b| b == b'\n').next().unwrap_or_default())
                .unwrap_or_default();
        assert_eq!(first["subtype"], "init");
        assert!(first["tools"].is_array());
    }
}
