//! The program of the replay benchmark (`gen-cassette`, `bench-replay-e2e`):
//! the session it builds, and the lines it writes, taken from the library
//! itself so that a cassette generated with them replays against it.
//!
//! The program is a plain session: default options, a permission callback
//! that allows everything, one prompt ([`PROMPT`]) per turn sent after the
//! previous turn's `result`. [`probe`] runs that program once against a
//! scripted CLI and keeps the lines it wrote: the `initialize` request,
//! the user message and the answer to a `can_use_tool` request. A replay
//! sets aside request ids, uuids, session ids and timestamps; everything
//! else in these lines must be what the library writes today.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use claude_proto::model::permission::PermissionResult;
use claude_proto_testkit::{Script, ask, cli, expect};
use serde_json::{Value, json};

/// The prompt of every turn.
pub const PROMPT: &str = "Look at the build and fix what fails.";

/// The tool every `can_use_tool` request asks about, and its input.
pub fn tool_request() -> (&'static str, Value) {
    ("Bash", json!({"command": "cargo build"}))
}

/// The tokio session the benchmark drives: default options, every tool
/// allowed.
pub fn tokio_builder(options: claude_proto_tokio::Options) -> claude_proto_tokio::ClaudeBuilder {
    claude_proto_tokio::Claude::builder(options).on_permission(async |_| PermissionResult::allow())
}

/// The blocking session the benchmark drives, as [`tokio_builder`].
pub fn blocking_builder(
    options: claude_proto_blocking::Options,
) -> claude_proto_blocking::ClaudeBuilder {
    claude_proto_blocking::Claude::builder(options).on_permission(|_| PermissionResult::allow())
}

/// What the program writes, as the library writes it.
#[derive(Clone, Debug)]
pub struct ProgramLines {
    /// The `initialize` request (its `request_id` is bound at replay).
    pub initialize: String,
    /// The user message of a turn.
    pub prompt: String,
    /// The answer to the probe's `can_use_tool` request.
    answer: String,
    /// The probe request's `request_id` and `tool_use_id`, which the
    /// answer repeats.
    probe_ids: (String, String),
    /// The body of the `can_use_tool` request the probe asked.
    request: Value,
}

impl ProgramLines {
    /// The program's answer to the `can_use_tool` request `request_id`
    /// for the tool call `tool_use_id`.
    pub fn allow(&self, request_id: &str, tool_use_id: &str) -> String {
        let quoted = |id: &str| format!("\"{id}\"");
        self.answer
            .replace(&quoted(&self.probe_ids.0), &quoted(request_id))
            .replace(&quoted(&self.probe_ids.1), &quoted(tool_use_id))
    }

    /// The CLI's `can_use_tool` request `request_id` for the tool call
    /// `tool_use_id`, shaped as the scripted CLI's (which follows the real
    /// CLI's).
    pub fn can_use_tool(&self, request_id: &str, tool_use_id: &str) -> String {
        let mut request = self.request.clone();
        request["tool_use_id"] = Value::String(tool_use_id.to_owned());
        json!({"type": "control_request", "request_id": request_id, "request": request}).to_string()
    }
}

/// Runs the benchmark's program (the tokio session of [`tokio_builder`])
/// once against a scripted CLI: `initialize`, one turn with one
/// `can_use_tool` request, close; returns the lines it wrote.
pub fn probe() -> Result<ProgramLines, String> {
    let (tool, input) = tool_request();
    let request = ask::can_use_tool(tool, input);
    let script = Script::new()
        .expect(expect::any_user())
        .send(cli::system_init())
        .ask(request.clone(), expect::allow())
        .send(cli::result_success("Fixed."))
        .expect_end();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let report = runtime.block_on(async {
        let builder = tokio_builder(claude_proto_tokio::Options::default());
        let (mut claude, run) =
            claude_proto_testkit::tokio::connect(builder, script).map_err(|e| e.to_string())?;
        claude.ask(PROMPT).await.map_err(|e| e.to_string())?;
        claude.close().await.map_err(|e| e.to_string())?;
        run.finish().await.map_err(|e| e.to_string())
    })?;
    let mut lines = report.received.iter();
    let mut next = |what: &str| {
        lines
            .next()
            .cloned()
            .ok_or_else(|| format!("the probe session wrote no {what}: {:?}", report.received))
    };
    let initialize = next("initialize request")?;
    let prompt = next("user message")?;
    let answer = next("permission answer")?;
    if let Some(extra) = lines.next() {
        return Err(format!(
            "the probe session wrote more lines than expected: {extra}"
        ));
    }
    let value: Value = serde_json::from_str(&answer).map_err(|e| e.to_string())?;
    let request_id = value["response"]["request_id"]
        .as_str()
        .ok_or_else(|| format!("the permission answer has no request id: {answer}"))?
        .to_owned();
    let tool_use_id = request["tool_use_id"]
        .as_str()
        .ok_or("the probe's request has no tool_use_id")?
        .to_owned();
    Ok(ProgramLines {
        initialize,
        prompt,
        answer,
        probe_ids: (request_id, tool_use_id),
        request,
    })
}

/// How many user messages the program wrote in the recording at `path`:
/// the turns a replay of it must send.
///
/// A quick pass that parses only the program's frames (the few lines with
/// `"from":"program"` near their start), so that it stays out of the
/// figures and the profiles of the replay itself.
pub fn count_prompts(path: &Path) -> std::io::Result<u64> {
    let mut input = BufReader::with_capacity(1 << 20, File::open(path)?);
    let mut line = Vec::new();
    let mut prompts = 0;
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(prompts);
        }
        let head = &line[..line.len().min(48)];
        if !head.windows(16).any(|w| w == b"\"from\":\"program\"") {
            continue;
        }
        let frame: Value = serde_json::from_slice(&line)?;
        if frame["line"]["type"] == "user" {
            prompts += 1;
        }
    }
}
