//! What each scenario does with one user message (one turn).

use std::io;
use std::time::Duration;

use serde_json::{Value, json};

use super::cli::{Answer, Cli, Outcome, Wait};
use super::templates::REJECTED_TOOL_USE;

/// The scenarios, chosen by `FAKE_CLAUDE_SCENARIO`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    Echo,
    Permission,
    Hooks,
    Mcp,
    SlowStream,
    Cancel,
    Silent,
    ExitMidTurn,
    Garbage,
    Flood,
    StderrFlood,
    IgnoreStdin,
    PermissionBehindEvents,
    Undecodable,
    OddResult,
    Hold,
    BigLines,
    Grandchild,
    InitializeEcho,
    Dialogs,
}

impl Kind {
    pub(crate) fn parse(name: &str) -> Option<Kind> {
        Some(match name {
            "echo" => Kind::Echo,
            "permission" => Kind::Permission,
            "hooks" => Kind::Hooks,
            "mcp" => Kind::Mcp,
            "slow_stream" => Kind::SlowStream,
            "cancel" => Kind::Cancel,
            "silent" => Kind::Silent,
            "exit_mid_turn" => Kind::ExitMidTurn,
            "garbage" => Kind::Garbage,
            "flood" => Kind::Flood,
            "stderr_flood" => Kind::StderrFlood,
            "ignore_stdin" => Kind::IgnoreStdin,
            "permission_behind_events" => Kind::PermissionBehindEvents,
            "undecodable" => Kind::Undecodable,
            "odd_result" => Kind::OddResult,
            "hold" => Kind::Hold,
            "big_lines" => Kind::BigLines,
            "grandchild" => Kind::Grandchild,
            "initialize_echo" => Kind::InitializeEcho,
            "dialogs" => Kind::Dialogs,
            _ => return None,
        })
    }
}

/// Per-scenario settings and state that outlive one turn.
pub(crate) struct Scenario {
    pub(crate) kind: Kind,
    /// `slow_stream`: deltas per turn and the pause between them.
    pub(crate) ticks: u64,
    pub(crate) tick: Duration,
    /// `flood`: deltas per turn.
    pub(crate) flood_count: u64,
    /// `big_lines`: lines per turn, bytes per line, and after how many
    /// lines control requests are handled again.
    pub(crate) big_lines: (u64, usize, u64),
    /// `mcp`: handshake answers, once done.
    mcp: Option<McpHandshake>,
    /// `mcp`: next JSON-RPC id.
    mcp_next_id: u64,
}

struct McpHandshake {
    initialize: Value,
    tools: Value,
}

impl Scenario {
    pub(crate) fn new(
        kind: Kind,
        ticks: u64,
        tick: Duration,
        flood_count: u64,
        big_lines: (u64, usize, u64),
    ) -> Self {
        Scenario {
            kind,
            ticks,
            tick,
            flood_count,
            big_lines,
            mcp: None,
            mcp_next_id: 0,
        }
    }

    /// Runs one turn for `message` (a `user` line).
    pub(crate) fn run_turn(&mut self, cli: &mut Cli, message: &Value) -> io::Result<()> {
        let text = user_text(message);
        match self.kind {
            Kind::Echo
            | Kind::Silent
            | Kind::StderrFlood
            | Kind::IgnoreStdin
            | Kind::Grandchild => echo(cli, &text),
            Kind::PermissionBehindEvents => permission_behind_events(cli),
            Kind::Undecodable => undecodable(cli, &text),
            Kind::OddResult => odd_result(cli, &text),
            Kind::Hold if text == "hold" => hold(cli),
            Kind::Hold => echo(cli, &text),
            Kind::BigLines => self.big_lines(cli),
            Kind::Permission => permission(cli, &text),
            Kind::Hooks => hooks(cli, &text),
            Kind::Mcp => self.mcp(cli, &text),
            Kind::SlowStream => self.slow_stream(cli),
            Kind::Cancel => cancel(cli),
            Kind::ExitMidTurn => exit_mid_turn(cli),
            Kind::Garbage => {
                garbage(cli)?;
                echo(cli, &text)
            }
            Kind::Flood => self.flood(cli),
            Kind::InitializeEcho => initialize_echo(cli),
            Kind::Dialogs => dialogs(cli),
        }
    }

    fn slow_stream(&self, cli: &mut Cli) -> io::Result<()> {
        cli.emit_init()?;
        let status = json!({
            "type": "system", "subtype": "status", "status": "requesting",
            "session_id": cli.session_id, "uuid": cli.ids.uuid(),
        });
        cli.emit(&status)?;
        let message_id = cli.ids.message_id();
        start_message(cli, &message_id)?;
        let mut text = String::new();
        for n in 1..=self.ticks {
            if cli.interrupted() {
                return interrupt_stream(cli, &message_id, &text, n - 1);
            }
            let piece = format!("tick {n}");
            let ev = cli.stream_event(
                &message_id,
                json!({"type": "content_block_delta", "index": 0,
                       "delta": {"type": "text_delta", "text": piece}}),
            );
            cli.emit(&ev)?;
            text.push_str(&piece);
            cli.pause(self.tick)?;
        }
        if cli.interrupted() {
            return interrupt_stream(cli, &message_id, &text, self.ticks);
        }
        finish_message(cli, &message_id, &text)?;
        cli.emit_result(Outcome::success(format!("ticks {}", self.ticks), 1))
    }

    fn flood(&self, cli: &mut Cli) -> io::Result<()> {
        cli.emit_init()?;
        let message_id = cli.ids.message_id();
        start_message(cli, &message_id)?;
        let mut sent = 0;
        while sent < self.flood_count {
            if sent % 512 == 0 {
                // Answer control requests even while flooding.
                cli.flush()?;
                while cli.next_input(Wait::Poll)? {}
                if cli.interrupted() {
                    cli.flush()?;
                    cli.ack_interrupts()?;
                    return cli.emit_result(Outcome::failure(
                        format!("interrupted after {sent} deltas"),
                        1,
                        "aborted_streaming",
                    ));
                }
            }
            sent += 1;
            let ev = cli.stream_event(
                &message_id,
                json!({"type": "content_block_delta", "index": 0,
                       "delta": {"type": "text_delta", "text": format!("flood {sent} ")}}),
            );
            cli.emit_buffered(&ev)?;
        }
        cli.flush()?;
        let summary = format!("flood {}", self.flood_count);
        finish_message(cli, &message_id, &summary)?;
        cli.emit_result(Outcome::success(summary, 1))
    }

    fn big_lines(&self, cli: &mut Cli) -> io::Result<()> {
        let (count, bytes, poll_after) = self.big_lines;
        cli.emit_init()?;
        let head = br#"{"type":"big_blob","data":""#;
        let tail = br#""}"#;
        let mut line = Vec::with_capacity(bytes);
        line.extend_from_slice(head);
        line.resize(bytes.saturating_sub(tail.len()).max(head.len()), b'A');
        line.extend_from_slice(tail);
        for n in 1..=count {
            // Blocking writes: once the host stops reading, the fake stops
            // here, and control requests wait unanswered.
            cli.emit_raw(&line)?;
            if n >= poll_after {
                while cli.next_input(Wait::Poll)? {}
            }
        }
        cli.emit_result(Outcome::success(format!("big_lines {count}"), 1))
    }

    /// Lists `server`'s tools (`tools/list`) and offers them to the model;
    /// `None` if the turn was interrupted meanwhile.
    fn list_tools(&mut self, cli: &mut Cli, server: &str) -> io::Result<Option<Value>> {
        let id = self.next_id();
        let list = json!({"method": "tools/list", "jsonrpc": "2.0", "id": id});
        let Some(answer) = mcp_message(cli, server, list)? else {
            return Ok(None);
        };
        let tools = answer.get("result").cloned().unwrap_or(answer);
        cli.extra_tools = tool_names(server, &tools);
        Ok(Some(tools))
    }

    fn mcp(&mut self, cli: &mut Cli, text: &str) -> io::Result<()> {
        let Some(server) = cli.sdk_mcp_servers.first().cloned() else {
            cli.emit_init()?;
            cli.emit_text("No SDK MCP server is configured.")?;
            return cli.emit_result(Outcome::success("mcp no sdk server", 1));
        };
        if std::mem::take(&mut cli.tools_list_changed) && self.mcp.is_some() {
            let Some(tools) = self.list_tools(cli, &server)? else {
                return abort(cli, None, &[]);
            };
            if let Some(handshake) = &mut self.mcp {
                handshake.tools = tools;
            }
        }
        if self.mcp.is_none() {
            // The real CLI does this at startup; the fake at its first turn.
            let id = self.next_id();
            let initialize = json!({
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {
                        "name": "claude-code", "title": "Claude Code",
                        "description": "Anthropic's agentic coding tool",
                        "websiteUrl": "https://claude.com/claude-code",
                        "version": super::templates::VERSION
                    }
                },
                "jsonrpc": "2.0",
                "id": id
            });
            let Some(init_answer) = mcp_message(cli, &server, initialize)? else {
                return abort(cli, None, &[]);
            };
            let notification = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
            if mcp_message(cli, &server, notification)?.is_none() {
                return abort(cli, None, &[]);
            }
            let Some(tools) = self.list_tools(cli, &server)? else {
                return abort(cli, None, &[]);
            };
            self.mcp = Some(McpHandshake {
                initialize: init_answer,
                tools,
            });
        }
        cli.emit_init()?;

        let parsed: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        let tool = parsed
            .get("tool")
            .and_then(Value::as_str)
            .unwrap_or("add")
            .to_owned();
        let arguments = parsed
            .get("arguments")
            .cloned()
            .unwrap_or_else(|| json!({}));
        let tool_use_id = cli.ids.tool_use_id();
        let full_name = format!("mcp__{server}__{tool}");
        let message_id = cli.ids.message_id();
        let mut line = cli.assistant(
            &message_id,
            json!({"type": "tool_use", "id": tool_use_id, "name": full_name, "input": arguments}),
        );
        if let Some(map) = line.as_object_mut() {
            map.insert(
                "tool_use_meta".into(),
                json!([{"id": tool_use_id, "display_name": capitalize(&tool),
                        "server_display_name": server, "tool_name": tool}]),
            );
        }
        cli.emit(&line)?;

        let id = self.next_id();
        let call = json!({
            "method": "tools/call",
            "params": {
                "name": tool,
                "arguments": arguments,
                "_meta": {"claudecode/toolUseId": tool_use_id, "progressToken": id}
            },
            "jsonrpc": "2.0",
            "id": id
        });
        let denial = (tool_use_id.clone(), full_name.clone(), arguments.clone());
        let Some(call_answer) = mcp_message(cli, &server, call)? else {
            return abort(cli, None, &[denial]);
        };
        let (content, is_error) = match call_answer.get("result") {
            Some(result) => (
                result.get("content").cloned().unwrap_or_else(|| json!([])),
                result
                    .get("isError")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            ),
            None => (json!(call_answer.to_string()), true),
        };
        let echo = cli.tool_result(
            &tool_use_id,
            content.clone(),
            is_error,
            content,
            json!({"id": tool_use_id, "permission_decision": {"decision": "accept", "source": "config"}}),
        );
        cli.emit(&echo)?;

        let id = self.next_id();
        let unknown = json!({"method": "resources/list", "jsonrpc": "2.0", "id": id});
        let Some(unknown_answer) = mcp_message(cli, &server, unknown)? else {
            return abort(cli, None, &[]);
        };
        cli.emit_text("The MCP tool answered.")?;
        let handshake = self.mcp.as_ref();
        let report = json!({
            "initialize": handshake.map(|h| h.initialize.clone()),
            "tools": handshake.map(|h| h.tools.clone()),
            "call": call_answer,
            "unknown": unknown_answer,
        });
        cli.emit_result(Outcome::success(format!("mcp {report}"), 2))
    }

    fn next_id(&mut self) -> u64 {
        let id = self.mcp_next_id;
        self.mcp_next_id += 1;
        id
    }
}

/// The text of a user message: a string `content`, or its text blocks joined.
pub(crate) fn user_text(message: &Value) -> String {
    match message.pointer("/message/content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect(),
        _ => String::new(),
    }
}

fn echo(cli: &mut Cli, text: &str) -> io::Result<()> {
    cli.emit_init()?;
    let reply = format!("echo: {text}");
    cli.emit_text(&reply)?;
    cli.emit_result(Outcome::success(reply, 1))
}

/// Answers with the `initialize` request it received, as JSON text
/// (`null` if none came).
fn initialize_echo(cli: &mut Cli) -> io::Result<()> {
    cli.emit_init()?;
    let reply = cli
        .initialize_request
        .clone()
        .unwrap_or(Value::Null)
        .to_string();
    cli.emit_text(&reply)?;
    cli.emit_result(Outcome::success(reply, 1))
}

/// An elicitation and a user dialog, one after the other; the result text
/// is `dialogs {"kinds": <supportedDialogKinds>, "elicitation": <answer>,
/// "dialog": <answer>}` (an error answer as `{"error": ...}`).
fn dialogs(cli: &mut Cli) -> io::Result<()> {
    cli.emit_init()?;
    let kinds = cli
        .initialize_request
        .as_ref()
        .and_then(|r| r.get("supportedDialogKinds"))
        .cloned()
        .unwrap_or(Value::Null);
    let mut answers = Vec::new();
    for request in [
        json!({"subtype": "elicitation", "mcp_server_name": "gh", "message": "Which repo?",
               "mode": "form", "requested_schema": {"type": "object",
               "properties": {"repo": {"type": "string"}}}}),
        json!({"subtype": "request_user_dialog", "dialog_kind": "refusal_fallback_prompt",
               "payload": {"reason": "declined"}}),
    ] {
        let id = cli.request(request)?;
        answers.push(match cli.wait(&id)? {
            Answer::Success(payload) => payload,
            Answer::Error(e) => json!({ "error": e }),
            Answer::Closed | Answer::Interrupted => json!({ "error": STREAM_CLOSED }),
        });
    }
    let report = json!({"kinds": kinds, "elicitation": answers[0], "dialog": answers[1]});
    cli.emit_text("Asked.")?;
    cli.emit_result(Outcome::success(format!("dialogs {report}"), 1))
}

/// 1000 stream events, then `can_use_tool`; once it is answered, held
/// `mcp_status` requests are answered too.
fn permission_behind_events(cli: &mut Cli) -> io::Result<()> {
    cli.emit_init()?;
    let message_id = cli.ids.message_id();
    for n in 0..1000 {
        let ev = cli.stream_event(
            &message_id,
            json!({"type": "content_block_delta", "index": 0,
                   "delta": {"type": "text_delta", "text": format!("event {n} ")}}),
        );
        cli.emit_buffered(&ev)?;
    }
    cli.flush()?;
    let tool_use_id = cli.ids.tool_use_id();
    let input = json!({"command": "ls"});
    cli.emit_tool_use(&tool_use_id, "Bash", &input)?;
    let request = can_use_tool(cli, "Bash", &input, &tool_use_id);
    let id = cli.request(request)?;
    let answer = cli.wait(&id)?;
    cli.release_held()?;
    let behavior = match &answer {
        Answer::Success(p) => p
            .get("behavior")
            .and_then(Value::as_str)
            .unwrap_or("none")
            .to_owned(),
        Answer::Error(e) => format!("error {e}"),
        Answer::Interrupted => "interrupted".to_owned(),
        Answer::Closed => "closed".to_owned(),
    };
    cli.emit_result(Outcome::success(format!("permission {behavior}"), 1))
}

/// Lines the typed model cannot read inside the turn (nested deeper than
/// serde_json's recursion limit, a number out of range), then an echo.
fn undecodable(cli: &mut Cli, text: &str) -> io::Result<()> {
    cli.emit_init()?;
    let depth = 200;
    let nested = format!(
        r#"{{"type":"assistant","session_id":"{}","message":{}{}}}"#,
        cli.session_id,
        "[".repeat(depth),
        "]".repeat(depth)
    );
    cli.emit_raw(nested.as_bytes())?;
    let huge = format!(
        r#"{{"type":"user","session_id":"{}","message":{{"role":"user","content":"x"}},"n":1e400}}"#,
        cli.session_id
    );
    cli.emit_raw(huge.as_bytes())?;
    echo(cli, text)
}

/// An echo turn whose `result` has a shape the typed model rejects
/// (`num_turns` is a string, `usage` is missing).
fn odd_result(cli: &mut Cli, text: &str) -> io::Result<()> {
    cli.emit_init()?;
    let reply = format!("echo: {text}");
    cli.emit_text(&reply)?;
    let line = json!({
        "type": "result",
        "subtype": "success",
        "is_error": false,
        "num_turns": "many",
        "result": reply,
        "session_id": cli.session_id,
        "uuid": cli.ids.uuid(),
    });
    cli.emit(&line)
}

/// A turn that starts, then waits for any host control request before it
/// ends (so a reader of it is dropped mid-turn).
fn hold(cli: &mut Cli) -> io::Result<()> {
    cli.emit_init()?;
    cli.emit_text("holding")?;
    let seen = cli.host_requests;
    while cli.host_requests == seen && !cli.eof {
        cli.next_input(Wait::Block)?;
    }
    cli.emit_result(Outcome::success("released", 1))
}

fn exit_mid_turn(cli: &mut Cli) -> io::Result<()> {
    cli.emit_init()?;
    cli.emit_text("Working on it...")?;
    cli.flush()?;
    eprintln!("fatal: simulated crash");
    std::process::exit(3);
}

fn garbage(cli: &mut Cli) -> io::Result<()> {
    cli.emit_raw(b"this line is not JSON at all")?;
    cli.emit_raw(b"[1,2,3]")?;
    let unknown = json!({
        "type": "fake_unknown_type", "payload": {"x": 1},
        "uuid": cli.ids.uuid(), "session_id": cli.session_id,
    });
    cli.emit(&unknown)?;
    const BLOB_LEN: usize = 2 * 1024 * 1024;
    let head = br#"{"type":"assistant_blob","data":""#;
    let tail = br#""}"#;
    let mut blob = Vec::with_capacity(BLOB_LEN);
    blob.extend_from_slice(head);
    blob.resize(BLOB_LEN - tail.len(), b'A');
    blob.extend_from_slice(tail);
    cli.emit_raw(&blob)?;
    cli.emit_raw(b"{\"type\":\"garbage_utf8\",\"data\":\"\xff\xfe\xc3\x28\"}")
}

/// Splits a permission-scenario prompt into (tool, input).
fn tool_request(text: &str) -> (String, Value) {
    match serde_json::from_str::<Value>(text) {
        Ok(v @ Value::Object(_)) => {
            let tool = v
                .get("tool")
                .and_then(Value::as_str)
                .unwrap_or("Bash")
                .to_owned();
            let input = v.get("input").cloned().unwrap_or_else(|| json!({}));
            (tool, input)
        }
        _ => ("Bash".to_owned(), json!({ "command": text })),
    }
}

/// The `can_use_tool` request the real CLI sends for a tool call.
fn can_use_tool(cli: &Cli, tool: &str, input: &Value, tool_use_id: &str) -> Value {
    let command = input.get("command").and_then(Value::as_str);
    let suggestions = match (tool, command) {
        ("Bash", Some(command)) => {
            let prefix = command.split('|').next().unwrap_or("").trim();
            json!([
                {"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": format!("{prefix} *")}],
                 "behavior": "allow", "destination": "localSettings"},
                {"type": "addDirectories", "directories": [cli.cwd], "destination": "session"},
                {"type": "setMode", "mode": "acceptEdits", "destination": "session"}
            ])
        }
        _ => json!([
            {"type": "addRules", "rules": [{"toolName": tool}], "behavior": "allow", "destination": "localSettings"}
        ]),
    };
    let mut request = json!({
        "subtype": "can_use_tool",
        "tool_name": tool,
        "display_name": tool,
        "input": input,
        "permission_suggestions": suggestions,
        "decision_reason_type": "subcommandResults",
        "tool_use_id": tool_use_id,
    });
    let description = input.get("description").and_then(Value::as_str).or(command);
    if let (Some(map), Some(d)) = (request.as_object_mut(), description) {
        map.insert("description".into(), json!(d));
    }
    request
}

/// What a fake Bash prints for `command` (`echo x | …` prints `x`).
fn bash_output(input: &Value) -> String {
    let command = input.get("command").and_then(Value::as_str).unwrap_or("");
    let first = command.split('|').next().unwrap_or("").trim();
    first.strip_prefix("echo ").unwrap_or("").trim().to_owned()
}

fn bash_result(stdout: &str) -> Value {
    json!({"stdout": stdout, "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false})
}

/// Writes the success echo of a tool call.
fn emit_tool_ok(cli: &mut Cli, tool_use_id: &str, input: &Value, source: &str) -> io::Result<()> {
    let out = bash_output(input);
    let decision = if source == "hook" {
        json!({"decision": "accept", "source": "hook", "reason_type": "hook"})
    } else {
        json!({"decision": "accept", "source": source})
    };
    let line = cli.tool_result(
        tool_use_id,
        json!(out),
        false,
        bash_result(&out),
        json!({"id": tool_use_id, "permission_decision": decision}),
    );
    cli.emit(&line)
}

/// Writes the error echo of a tool call that did not run.
fn emit_tool_error(cli: &mut Cli, tool_use_id: &str, message: &str, kind: &str) -> io::Result<()> {
    let line = cli.tool_result(
        tool_use_id,
        json!(message),
        true,
        json!(format!("Error: {message}")),
        json!({"id": tool_use_id, "non_execution_kind": kind,
               "permission_decision": {"decision": "reject", "source": "user_reject"}}),
    );
    cli.emit(&line)
}

fn denial(tool_use_id: &str, tool: &str, input: &Value) -> Value {
    json!({"tool_name": tool, "tool_use_id": tool_use_id, "tool_input": input})
}

/// Ends the turn after an `interrupt` while waiting on the host: cancels
/// `pending`, acknowledges the interrupt, rejects `tools`
/// (tool_use_id, name, input) and writes an `aborted_tools` error result.
fn abort(
    cli: &mut Cli,
    pending: Option<&str>,
    tools: &[(String, String, Value)],
) -> io::Result<()> {
    if let Some(id) = pending {
        cli.cancel(id)?;
    }
    cli.ack_interrupts()?;
    for (tool_use_id, _, _) in tools {
        let line = cli.tool_result(
            tool_use_id,
            json!(REJECTED_TOOL_USE),
            true,
            json!("User rejected tool use"),
            json!({"id": tool_use_id, "non_execution_kind": "user-rejected"}),
        );
        cli.emit(&line)?;
    }
    if tools.is_empty() {
        cli.emit_user_text("[Request interrupted by user]")?;
    } else {
        cli.emit_user_text("[Request interrupted by user for tool use]")?;
    }
    let mut outcome = Outcome::failure("interrupted", 1, "aborted_tools");
    outcome.denials = tools
        .iter()
        .map(|(id, name, input)| denial(id, name, input))
        .collect();
    cli.emit_result(outcome)
}

/// Text for a request that could not be sent or answered: stdin is closed.
const STREAM_CLOSED: &str = "Stream closed";

fn permission(cli: &mut Cli, text: &str) -> io::Result<()> {
    let (tool, input) = tool_request(text);
    cli.emit_init()?;
    let tool_use_id = cli.ids.tool_use_id();
    cli.emit_tool_use(&tool_use_id, &tool, &input)?;
    let pending = (tool_use_id.clone(), tool.clone(), input.clone());

    let answer = if cli.eof {
        // Like the real CLI: no request once stdin is closed.
        Answer::Closed
    } else {
        let request = can_use_tool(cli, &tool, &input, &tool_use_id);
        let id = cli.request(request)?;
        match cli.wait(&id)? {
            Answer::Interrupted => return abort(cli, Some(&id), &[pending]),
            other => other,
        }
    };

    let error_text = match answer {
        Answer::Success(payload) => {
            let echoed = payload.get("toolUseID").and_then(Value::as_str) == Some(&*tool_use_id);
            match payload.get("behavior").and_then(Value::as_str) {
                Some("allow") => {
                    let effective = payload
                        .get("updatedInput")
                        .filter(|v| v.is_object())
                        .cloned()
                        .unwrap_or(input);
                    emit_tool_ok(cli, &tool_use_id, &effective, "user_temporary")?;
                    cli.emit_text("The tool ran.")?;
                    return cli.emit_result(Outcome::success(
                        format!("allowed {effective} tool_use_id_echoed={echoed}"),
                        2,
                    ));
                }
                Some("deny") => {
                    let message = payload
                        .get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned();
                    emit_tool_error(cli, &tool_use_id, &message, "permission-rule")?;
                    let text = format!("denied {message} tool_use_id_echoed={echoed}");
                    let interrupt = payload.get("interrupt").and_then(Value::as_bool) == Some(true);
                    let mut outcome = if interrupt {
                        cli.emit_user_text("[Request interrupted by user for tool use]")?;
                        Outcome::failure(text, 1, "aborted_tools")
                    } else {
                        cli.emit_text("Understood, I did not run it.")?;
                        Outcome::success(text, 2)
                    };
                    outcome.denials = vec![denial(&tool_use_id, &tool, &input)];
                    return cli.emit_result(outcome);
                }
                other => format!("unknown behavior {}", other.unwrap_or("(none)")),
            }
        }
        Answer::Error(e) => e,
        Answer::Closed => STREAM_CLOSED.to_owned(),
        Answer::Interrupted => unreachable!("handled above"),
    };
    emit_tool_error(
        cli,
        &tool_use_id,
        &format!("Tool permission request failed: {error_text}"),
        "permission-error",
    )?;
    cli.emit_text("The permission check failed.")?;
    let mut outcome = Outcome::success(format!("permission error {error_text}"), 2);
    outcome.denials = vec![denial(&tool_use_id, &tool, &input)];
    cli.emit_result(outcome)
}

/// Whether a hook matcher applies to `tool` (`None`: a non-tool event).
/// A matcher is `|`-separated exact names; absent, empty or `*` = all.
fn matcher_applies(matcher: &Value, tool: Option<&str>) -> bool {
    let pattern = matcher.get("matcher").and_then(Value::as_str).unwrap_or("");
    match tool {
        None => true,
        Some(_) if pattern.is_empty() || pattern == "*" => true,
        Some(tool) => pattern.split('|').any(|p| p.trim() == tool),
    }
}

enum HookFlow {
    /// All callbacks answered (or failed); `blocked` if one denied.
    Done { blocked: Option<String> },
    /// An interrupt arrived while `pending` was outstanding.
    Interrupted { pending: String },
}

/// Calls every callback registered for `event` that applies to `tool`,
/// appending `{"callback_id", "response"}` to `answers`.
fn call_hooks(
    cli: &mut Cli,
    event: &str,
    tool: Option<&str>,
    input: &Value,
    tool_use_id: Option<&str>,
    answers: &mut Vec<Value>,
) -> io::Result<HookFlow> {
    let matchers = cli
        .hooks
        .get(event)
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut blocked = None;
    for matcher in matchers.iter().filter(|m| matcher_applies(m, tool)) {
        let callback_ids = matcher
            .get("hookCallbackIds")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for callback_id in callback_ids.iter().filter_map(Value::as_str) {
            let response = if cli.eof {
                json!({ "error": STREAM_CLOSED })
            } else {
                let hook_tool_use_id = match tool_use_id {
                    Some(id) => id.to_owned(),
                    None => cli.ids.uuid(),
                };
                let id = cli.request(json!({
                    "subtype": "hook_callback",
                    "callback_id": callback_id,
                    "input": input,
                    "tool_use_id": hook_tool_use_id,
                }))?;
                match cli.wait(&id)? {
                    Answer::Success(payload) => payload,
                    Answer::Error(e) => json!({ "error": e }),
                    Answer::Closed => json!({ "error": STREAM_CLOSED }),
                    Answer::Interrupted => return Ok(HookFlow::Interrupted { pending: id }),
                }
            };
            let specific = response.get("hookSpecificOutput");
            let denied = specific
                .and_then(|s| s.get("permissionDecision"))
                .and_then(Value::as_str)
                == Some("deny")
                || response.get("decision").and_then(Value::as_str) == Some("block");
            if denied && blocked.is_none() {
                let reason = specific
                    .and_then(|s| s.get("permissionDecisionReason"))
                    .or_else(|| response.get("reason"))
                    .and_then(Value::as_str)
                    .unwrap_or("Blocked by hook");
                blocked = Some(reason.to_owned());
            }
            answers.push(json!({"callback_id": callback_id, "response": response}));
        }
    }
    Ok(HookFlow::Done { blocked })
}

fn hooks(cli: &mut Cli, text: &str) -> io::Result<()> {
    let mut answers = Vec::new();
    let prompt_id = cli.ids.uuid();
    let base = json!({
        "session_id": cli.session_id,
        "transcript_path": cli.transcript_path(),
        "cwd": cli.cwd,
        "prompt_id": prompt_id,
        "permission_mode": cli.permission_mode,
    });
    let with = |extra: Value| {
        let mut input = base.clone();
        if let (Some(map), Value::Object(extra)) = (input.as_object_mut(), extra) {
            map.extend(extra);
        }
        input
    };

    let submit = with(json!({"hook_event_name": "UserPromptSubmit", "prompt": text}));
    if let HookFlow::Interrupted { pending } =
        call_hooks(cli, "UserPromptSubmit", None, &submit, None, &mut answers)?
    {
        return abort(cli, Some(&pending), &[]);
    }
    cli.emit_init()?;

    let tool_use_id = cli.ids.tool_use_id();
    let tool_input = json!({"command": "echo hi", "description": "Print hi"});
    cli.emit_tool_use(&tool_use_id, "Bash", &tool_input)?;
    let tool = (tool_use_id.clone(), "Bash".to_owned(), tool_input.clone());

    let pre = with(json!({
        "effort": {"level": "medium"},
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": tool_input,
        "tool_use_id": tool_use_id,
    }));
    let blocked = match call_hooks(
        cli,
        "PreToolUse",
        Some("Bash"),
        &pre,
        Some(&tool_use_id),
        &mut answers,
    )? {
        HookFlow::Interrupted { pending } => return abort(cli, Some(&pending), &[tool]),
        HookFlow::Done { blocked } => blocked,
    };
    let mut denials = Vec::new();
    match blocked {
        Some(reason) => {
            emit_tool_error(cli, &tool_use_id, &reason, "hook-denied")?;
            denials.push(denial(&tool_use_id, "Bash", &tool_input));
        }
        None => {
            let post = with(json!({
                "effort": {"level": "medium"},
                "hook_event_name": "PostToolUse",
                "tool_name": "Bash",
                "tool_input": tool_input,
                "tool_response": bash_result("hi"),
                "tool_use_id": tool_use_id,
                "duration_ms": 7,
            }));
            if let HookFlow::Interrupted { pending } = call_hooks(
                cli,
                "PostToolUse",
                Some("Bash"),
                &post,
                Some(&tool_use_id),
                &mut answers,
            )? {
                return abort(cli, Some(&pending), &[tool]);
            }
            let source = if cli.hooks.contains_key("PreToolUse") {
                "hook"
            } else {
                "config"
            };
            emit_tool_ok(cli, &tool_use_id, &tool_input, source)?;
        }
    }
    let last = "Done.";
    cli.emit_text(last)?;
    let stop = with(json!({
        "effort": {"level": "medium"},
        "hook_event_name": "Stop",
        "stop_hook_active": false,
        "last_assistant_message": last,
        "background_tasks": [],
        "session_crons": [],
    }));
    if let HookFlow::Interrupted { pending } =
        call_hooks(cli, "Stop", None, &stop, None, &mut answers)?
    {
        return abort(cli, Some(&pending), &[]);
    }
    let mut outcome = Outcome::success(format!("hooks {}", Value::Array(answers)), 2);
    outcome.denials = denials;
    cli.emit_result(outcome)
}

/// Sends one `mcp_message`; returns the JSON-RPC answer (`mcp_response`),
/// `{"error": text}` for an error response, or None on interrupt (after
/// cancelling the request and leaving the interrupt for `abort`).
/// The model-facing names of the tools in a `tools/list` result.
fn tool_names(server: &str, tools: &Value) -> Vec<String> {
    tools
        .get("tools")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|t| t.get("name").and_then(Value::as_str))
                .map(|name| format!("mcp__{server}__{name}"))
                .collect()
        })
        .unwrap_or_default()
}

fn mcp_message(cli: &mut Cli, server: &str, message: Value) -> io::Result<Option<Value>> {
    if cli.eof {
        return Ok(Some(json!({ "error": STREAM_CLOSED })));
    }
    let id =
        cli.request(json!({"subtype": "mcp_message", "server_name": server, "message": message}))?;
    Ok(match cli.wait(&id)? {
        Answer::Success(payload) => Some(payload.get("mcp_response").cloned().unwrap_or(payload)),
        Answer::Error(e) => Some(json!({ "error": e })),
        Answer::Closed => Some(json!({ "error": STREAM_CLOSED })),
        Answer::Interrupted => {
            cli.cancel(&id)?;
            None
        }
    })
}

fn cancel(cli: &mut Cli) -> io::Result<()> {
    cli.emit_init()?;
    let message_id = cli.ids.message_id();
    let tool_a = cli.ids.tool_use_id();
    let tool_b = cli.ids.tool_use_id();
    let input_a = json!({"command": "echo a | tee a.txt", "description": "Write a.txt"});
    let input_b = json!({"command": "echo b | tee b.txt", "description": "Write b.txt"});
    for (id, input) in [(&tool_a, &input_a), (&tool_b, &input_b)] {
        let line = cli.assistant(
            &message_id,
            json!({"type": "tool_use", "id": id, "name": "Bash", "input": input}),
        );
        cli.emit(&line)?;
    }
    let request_a = can_use_tool(cli, "Bash", &input_a, &tool_a);
    let id_a = cli.request(request_a)?;
    cli.cancel(&id_a)?;
    let request_b = can_use_tool(cli, "Bash", &input_b, &tool_b);
    let id_b = cli.request(request_b)?;
    let answer = cli.wait(&id_b)?;
    let b_answered = match &answer {
        Answer::Success(_) | Answer::Error(_) => true,
        Answer::Closed => false,
        Answer::Interrupted => {
            let tool = (tool_b.clone(), "Bash".to_owned(), input_b.clone());
            return abort(cli, Some(&id_b), &[tool]);
        }
    };
    emit_tool_error(
        cli,
        &tool_a,
        "Permission request cancelled",
        "permission-cancelled",
    )?;
    let allowed = matches!(&answer, Answer::Success(p)
        if p.get("behavior").and_then(Value::as_str) == Some("allow"));
    if allowed {
        emit_tool_ok(cli, &tool_b, &input_b, "user_temporary")?;
    } else {
        emit_tool_error(cli, &tool_b, "Permission denied", "permission-rule")?;
    }
    let text = format!(
        "cancel late_answers_for_A={} b_answered={b_answered}",
        cli.late_answers_for(&id_a)
    );
    cli.emit_result(Outcome::success(text, 1))
}

fn start_message(cli: &mut Cli, message_id: &str) -> io::Result<()> {
    let model = cli.model.clone();
    let start = cli.stream_event(
        message_id,
        json!({"type": "message_start", "message": {
            "id": message_id, "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": super::templates::snapshot_usage()
        }}),
    );
    cli.emit(&start)?;
    let block = cli.stream_event(
        message_id,
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
    );
    cli.emit(&block)
}

/// The end of a streamed message: snapshot, then the closing stream events.
fn finish_message(cli: &mut Cli, message_id: &str, text: &str) -> io::Result<()> {
    let snapshot = cli.assistant(message_id, json!({"type": "text", "text": text}));
    cli.emit(&snapshot)?;
    let stop = cli.stream_event(
        message_id,
        json!({"type": "content_block_stop", "index": 0}),
    );
    cli.emit(&stop)?;
    let delta = cli.stream_event(
        message_id,
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null},
               "usage": {"output_tokens": 7}}),
    );
    cli.emit(&delta)?;
    let end = cli.stream_event(message_id, json!({"type": "message_stop"}));
    cli.emit(&end)
}

/// The real CLI's sequence after an interrupt mid-stream.
fn interrupt_stream(cli: &mut Cli, message_id: &str, text: &str, ticks: u64) -> io::Result<()> {
    cli.ack_interrupts()?;
    let mut snapshot = cli.assistant(message_id, json!({"type": "text", "text": text}));
    if let Some(map) = snapshot.as_object_mut() {
        map.insert("aborted".into(), json!(true));
    }
    cli.emit(&snapshot)?;
    cli.emit_user_text("[Request interrupted by user]")?;
    let stop = cli.stream_event(
        message_id,
        json!({"type": "content_block_stop", "index": 0}),
    );
    cli.emit(&stop)?;
    let delta = cli.stream_event(
        message_id,
        json!({"type": "message_delta", "context_management": null,
               "delta": {"container": null, "stop_details": null, "stop_reason": null, "stop_sequence": null},
               "usage": super::templates::result_usage(1)}),
    );
    cli.emit(&delta)?;
    let mut end = cli.stream_event(message_id, json!({"type": "message_stop"}));
    if let Some(map) = end.as_object_mut() {
        map.insert(
            "abandoned_blocks".into(),
            json!({"api_message_id": message_id, "from_block_index": 1}),
        );
    }
    cli.emit(&end)?;
    cli.emit_result(Outcome::failure(
        format!("interrupted after {ticks} ticks"),
        1,
        "aborted_streaming",
    ))
}

fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
