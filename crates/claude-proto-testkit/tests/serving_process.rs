//! The test kit's CLI serving by itself as a process (the
//! `claude-proto-testkit-cli` binary with a behaviour in
//! `CLAUDE_PROTO_TESTKIT_SERVE`), driven with `std::process::Command` and
//! checked against the real CLI's wire: every line it prints must decode
//! with `claude-proto`'s typed model the way the recorded real lines do.
#![allow(clippy::unwrap_used)] // test helpers fail loudly by design

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::Duration;

use claude_proto::model::incoming::CliRequest;
use claude_proto::model::initialize::InitializeResponse;
use claude_proto::model::result::ResultMessage;
use claude_proto::model::stdout::StdoutMessage;
use claude_proto::model::system::SystemMessage;
use claude_proto_testkit::child::{GRANDCHILD_ENV, OUTCOME_ENV, PID_FILE_ENV, SERVE_ENV};
use claude_proto_testkit::{BadLine, Behaviour, Extra, Policy};
use serde_json::{Value, json};

const BINARY: &str = env!("CARGO_BIN_EXE_claude-proto-testkit-cli");

/// The flags an adapter passes (the CLI records them in its verdict).
const FLAGS: &[&str] = &[
    "--output-format",
    "stream-json",
    "--verbose",
    "--input-format",
    "stream-json",
    "--permission-prompt-tool",
    "stdio",
];

struct Cli {
    child: Child,
    stdin: Option<ChildStdin>,
    /// Stdout lines (without newline) from a reading thread; `None` at EOF.
    stdout: Receiver<Option<Line>>,
    stderr: Option<JoinHandle<String>>,
}

impl Cli {
    fn spawn(behaviour: &Behaviour) -> Cli {
        Self::spawn_with(behaviour, &[], &[])
    }

    fn spawn_with(behaviour: &Behaviour, envs: &[(&str, &str)], args: &[&str]) -> Cli {
        let mut child = Command::new(BINARY)
            .args(FLAGS)
            .args(args)
            .env(SERVE_ENV, behaviour.to_json().to_string())
            // A config directory only where a test names one.
            .env_remove("CLAUDE_CONFIG_DIR")
            .envs(envs.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn the test kit's CLI");
        let mut stderr = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            stderr.read_to_string(&mut text).unwrap();
            text
        });
        Cli {
            stdin: child.stdin.take(),
            stdout: read_lines(child.stdout.take().unwrap()),
            stderr: Some(stderr),
            child,
        }
    }

    fn send(&mut self, line: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin already closed");
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin already closed");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    fn user(&mut self, text: &str) {
        self.send(&json!({
            "type": "user",
            "session_id": "",
            "message": {"role": "user", "content": [{"type": "text", "text": text}]},
            "parent_tool_use_id": null
        }));
    }

    fn request(&mut self, id: &str, request: Value) {
        self.send(&json!({"type": "control_request", "request_id": id, "request": request}));
    }

    fn respond(&mut self, id: &str, payload: Value) {
        self.send(&json!({
            "type": "control_response",
            "response": {"subtype": "success", "request_id": id, "response": payload}
        }));
    }

    fn initialize(&mut self, extra: Value) {
        let mut request = json!({"subtype": "initialize", "hooks": {}});
        if let (Some(map), Value::Object(extra)) = (request.as_object_mut(), extra) {
            map.extend(extra);
        }
        self.request("init", request);
    }

    /// The next raw stdout line (without newline), None at EOF. A CLI that
    /// writes nothing for [`HANG`] fails the test instead of hanging it.
    fn read_raw(&mut self) -> Option<Vec<u8>> {
        match self.stdout.recv_timeout(HANG) {
            Ok(line) => line.map(|line| line.expect("every line ends with a newline")),
            Err(RecvTimeoutError::Disconnected) => None,
            Err(RecvTimeoutError::Timeout) => panic!("no stdout line for {HANG:?}: a hang"),
        }
    }

    /// The next stdout line, checked against the typed model.
    fn read(&mut self) -> Option<Value> {
        self.read_raw().map(|line| check_line(&line))
    }

    fn next(&mut self) -> Value {
        self.read().expect("unexpected EOF on stdout")
    }

    /// Reads lines up to and including the next `result`.
    fn until_result(&mut self) -> (Vec<Value>, Value) {
        let mut before = Vec::new();
        loop {
            let line = self.next();
            if line["type"] == "result" {
                return (before, line);
            }
            before.push(line);
        }
    }

    /// Reads until a control_request of `subtype` arrives.
    fn until_request(&mut self, subtype: &str) -> Value {
        loop {
            let line = self.next();
            if line["type"] == "control_request" && line["request"]["subtype"] == subtype {
                return line;
            }
            assert_ne!(line["type"], "result", "no {subtype} request in the turn");
        }
    }

    /// Closes stdin, reads stdout to EOF, waits; returns the remaining
    /// lines, the exit status and all of stderr.
    fn finish(mut self) -> (Vec<Value>, ExitStatus, String) {
        self.stdin.take();
        let mut rest = Vec::new();
        while let Some(line) = self.read() {
            rest.push(line);
        }
        let status = self.child.wait().unwrap();
        let stderr = self.stderr.take().unwrap().join().unwrap();
        (rest, status, stderr)
    }
}

/// A stdout line without its newline, or (`Err`) a last line that had none.
type Line = Result<Vec<u8>, String>;

/// Far above what a line takes on a loaded machine: reaching it is a hang.
const HANG: Duration = Duration::from_secs(120);

/// Reads `stdout` line by line on a thread of its own, so that a test can
/// give up on a CLI that hangs.
fn read_lines(stdout: std::process::ChildStdout) -> Receiver<Option<Line>> {
    let (lines, received) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut stdout = BufReader::new(stdout);
        loop {
            let mut buf = Vec::new();
            let line = match stdout.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => None,
                Ok(_) if buf.last() == Some(&b'\n') => {
                    buf.pop();
                    Some(Ok(buf))
                }
                Ok(_) => Some(Err(String::from_utf8_lossy(&buf).into_owned())),
            };
            let end = line.is_none();
            if lines.send(line).is_err() || end {
                return;
            }
        }
    });
    received
}

/// Decodes one stdout line the way an adapter would and checks that no
/// known type falls back to `Unknown`.
fn check_line(line: &[u8]) -> Value {
    let text = String::from_utf8_lossy(line);
    let typed = StdoutMessage::from_slice(line)
        .unwrap_or_else(|e| panic!("not a JSON object ({e}): {text}"));
    let value: Value = serde_json::from_slice(line).unwrap();
    match value["type"].as_str().unwrap_or("") {
        "control_request" => {
            let request: CliRequest = serde_json::from_value(value["request"].clone())
                .unwrap_or_else(|e| panic!("request does not decode ({e}): {text}"));
            assert!(
                !matches!(request, CliRequest::Unknown(_)),
                "untyped request: {text}"
            );
        }
        "control_response" => {
            let subtype = value["response"]["subtype"].as_str();
            assert!(matches!(subtype, Some("success" | "error")), "{text}");
            assert!(value["response"]["request_id"].is_string(), "{text}");
        }
        "control_cancel_request" => assert!(value["request_id"].is_string(), "{text}"),
        "transcript_mirror" => {
            claude_proto::transcript::MirrorFrame::parse(line)
                .unwrap_or_else(|e| panic!("mirror frame does not decode ({e}): {text}"));
        }
        _ => {
            assert!(
                !matches!(typed, StdoutMessage::Unknown(_)),
                "known type fell back to Unknown: {text}"
            );
            if let StdoutMessage::System(system) = &typed {
                assert!(
                    !matches!(system, SystemMessage::Unknown(_)),
                    "system subtype fell back to Unknown: {text}"
                );
            }
        }
    }
    value
}

fn typed_result(line: &Value) -> ResultMessage {
    serde_json::from_value(line.clone()).unwrap()
}

/// A directory of this test's own, created anew.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "claude-proto-serving-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn echo_turn_looks_like_the_real_cli() {
    let dir = temp_dir("echo");
    let (pid_file, verdict) = (dir.join("pid"), dir.join("verdict.json"));
    let mut cli = Cli::spawn_with(
        &Behaviour::default(),
        &[
            (PID_FILE_ENV, pid_file.to_str().unwrap()),
            (OUTCOME_ENV, verdict.to_str().unwrap()),
            // No transcript is asked for: none is written in this home.
            ("HOME", dir.to_str().unwrap()),
        ],
        &[],
    );
    cli.initialize(json!({}));
    cli.user("hello");

    let answer = cli.next();
    assert_eq!(answer["type"], "control_response");
    assert_eq!(answer["response"]["request_id"], "init");

    let init = cli.next();
    assert_eq!(
        (&init["type"], &init["subtype"]),
        (&json!("system"), &json!("init"))
    );
    for key in [
        "cwd",
        "session_id",
        "tools",
        "model",
        "permissionMode",
        "uuid",
    ] {
        assert!(!init[key].is_null(), "system/init lacks {key}");
    }
    assert_eq!(init["model"], "claude-opus-5-5");

    let assistant = cli.next();
    assert_eq!(assistant["type"], "assistant");
    let message = &assistant["message"];
    for key in ["id", "model", "role", "content", "usage"] {
        assert!(!message[key].is_null(), "assistant.message lacks {key}");
    }
    assert_eq!(message["content"][0]["text"], "echo: hello");

    let result = cli.next();
    let typed = typed_result(&result);
    assert!(typed.is_success());
    assert_eq!(typed.result.as_deref(), Some("echo: hello"));
    assert_eq!(typed.session_id, init["session_id"].as_str().unwrap());
    for key in [
        "duration_ms",
        "duration_api_ms",
        "num_turns",
        "stop_reason",
        "total_cost_usd",
        "usage",
        "modelUsage",
        "permission_denials",
        "uuid",
    ] {
        assert!(result.get(key).is_some(), "result lacks {key}");
    }

    let pid: u32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(pid, cli.child.id());

    let (rest, status, stderr) = cli.finish();
    assert!(rest.is_empty(), "{rest:?}");
    assert_eq!(status.code(), Some(0));
    assert!(stderr.contains("the script passed"), "{stderr}");
    let outcome = claude_proto_testkit::child::outcome_from_file(&verdict).unwrap();
    assert_eq!(outcome.args, FLAGS);
    assert!(
        !dir.join(".claude").exists(),
        "a transcript nobody asked for"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn initialize_answer_has_the_real_shape() {
    let mut cli = Cli::spawn(&Behaviour::default());
    cli.initialize(json!({"sdkMcpServers": ["calc"]}));
    let answer = cli.next();
    let response = &answer["response"];
    assert_eq!(response["subtype"], "success");
    assert_eq!(response["pending_permission_requests"], json!([]));
    assert_eq!(response["pending_user_dialog_requests"], json!([]));
    let payload = &response["response"];
    let typed: InitializeResponse = serde_json::from_value(payload.clone()).unwrap();
    assert!(!typed.commands.is_empty());
    assert!(!typed.agents.is_empty());
    assert!(!typed.models.is_empty());
    assert_eq!(typed.output_style, "default");
    assert!(
        typed
            .available_output_styles
            .contains(&"default".to_owned())
    );
    assert_eq!(payload["pid"], json!(cli.child.id()));
    // Re-encoding keeps every field (nothing is lost to a wrong type).
    assert_eq!(&serde_json::to_value(&typed).unwrap(), payload);

    let (rest, status, _) = cli.finish();
    assert!(rest.is_empty(), "output without a turn: {rest:?}");
    assert_eq!(status.code(), Some(0));
}

#[test]
fn unknown_control_subtype_is_an_unsupported_request_error() {
    let mut cli = Cli::spawn(&Behaviour::default());
    cli.request("b1", json!({"subtype": "bogus_thing"}));
    let answer = cli.next();
    assert_eq!(
        answer["response"],
        json!({
            "subtype": "error",
            "request_id": "b1",
            "error": "Unsupported control request subtype: bogus_thing",
            "error_code": "unsupported_request"
        })
    );
    let (_, status, _) = cli.finish();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn host_control_requests_are_answered_like_the_real_cli() {
    let mut cli = Cli::spawn(&Behaviour::default());
    cli.request("m", json!({"subtype": "set_model", "model": "sonnet"}));
    assert_eq!(
        cli.next()["response"]["response"],
        json!({"model": "claude-sonnet-5-5"})
    );
    cli.request(
        "p",
        json!({"subtype": "set_permission_mode", "mode": "acceptEdits"}),
    );
    assert_eq!(
        cli.next()["response"]["response"],
        json!({"mode": "acceptEdits"})
    );
    let status = cli.next();
    assert_eq!(
        (&status["subtype"], &status["permissionMode"]),
        (&json!("status"), &json!("acceptEdits"))
    );
    cli.request(
        "t",
        json!({"subtype": "set_max_thinking_tokens", "max_thinking_tokens": 1024}),
    );
    let ack = cli.next();
    assert_eq!(
        ack["response"],
        json!({"subtype": "success", "request_id": "t"})
    );
    cli.request(
        "r",
        json!({"subtype": "rewind_files", "user_message_id": "u"}),
    );
    assert_eq!(
        cli.next()["response"]["response"],
        json!({"canRewind": false, "error": "File rewinding is not enabled."})
    );
    cli.request("c", json!({"subtype": "get_context_usage"}));
    assert_eq!(
        cli.next()["response"]["response"]["model"],
        "claude-sonnet-5-5"
    );
    // An answer to nothing is ignored; the next turn reports the new model.
    cli.respond("nobody-asked", json!({}));
    cli.user("x");
    let (lines, result) = cli.until_result();
    assert_eq!(lines[0]["model"], "claude-sonnet-5-5");
    assert_eq!(lines[0]["permissionMode"], "acceptEdits");
    assert_eq!(result["result"], "echo: x");
    let (_, status, _) = cli.finish();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn non_json_stdin_line_is_fatal() {
    let mut cli = Cli::spawn(&Behaviour::default());
    cli.send_raw(b"this is not json\n");
    let (rest, status, stderr) = cli.finish();
    assert!(rest.is_empty(), "{rest:?}");
    assert_eq!(status.code(), Some(1));
    assert!(
        stderr.contains("Error parsing streaming input line"),
        "{stderr}"
    );
}

#[test]
fn stdin_eof_finishes_the_turn_and_exits_0() {
    let mut cli = Cli::spawn(&Behaviour::default());
    cli.user("one");
    cli.user("two");
    let (lines, status, _) = cli.finish();
    let results: Vec<&Value> = lines.iter().filter(|l| l["type"] == "result").collect();
    assert_eq!(results.len(), 2, "{lines:?}");
    assert_eq!(results[0]["result"], "echo: one");
    assert_eq!(results[1]["result"], "echo: two");
    assert_eq!(results[1]["result_index"], 1);
    assert_eq!(status.code(), Some(0));
}

#[test]
fn exit_mid_turn_crashes_with_its_code() {
    let mut cli = Cli::spawn(&Behaviour::default().with_exit_mid_turn(1, 3));
    cli.user("go");
    let mut lines = Vec::new();
    while let Some(line) = cli.read() {
        lines.push(line);
    }
    assert!(lines.iter().all(|l| l["type"] != "result"), "{lines:?}");
    assert!(lines.iter().any(|l| l["type"] == "assistant"));
    let (_, status, stderr) = cli.finish();
    assert_eq!(status.code(), Some(3));
    assert!(stderr.contains("fatal: simulated crash"), "{stderr}");
}

#[test]
fn exit_before_initialize_fails_with_its_code() {
    // Nothing is written: the CLI may already be gone (EPIPE).
    let behaviour = Behaviour::default()
        .with_policy("initialize", Policy::Never)
        .with_stderr("startup failed")
        .with_exit_after(Duration::ZERO, 2);
    let (lines, status, stderr) = Cli::spawn(&behaviour).finish();
    assert!(lines.is_empty());
    assert_eq!(status.code(), Some(2));
    assert!(stderr.contains("startup failed"), "{stderr}");
}

#[test]
fn a_prompt_is_served_while_initialize_waits() {
    let behaviour =
        Behaviour::default().with_policy("initialize", Policy::Delay(Duration::from_secs(3600)));
    let mut cli = Cli::spawn(&behaviour);
    cli.initialize(json!({}));
    cli.request("b", json!({"subtype": "bogus_thing"}));
    // Answered in order of arrival, except initialize, which waits.
    assert_eq!(cli.next()["response"]["request_id"], "b");
    cli.user("hi");
    assert_eq!(cli.next()["subtype"], "init");
    let (lines, result) = cli.until_result();
    assert!(lines.iter().all(|l| l["type"] != "control_response"));
    assert_eq!(result["result"], "echo: hi");
    cli.child.kill().unwrap();
    cli.child.wait().unwrap();
}

#[test]
fn permission_allow_runs_the_tool_with_the_effective_input() {
    let ask = Extra::Permission {
        tool_name: "Bash".into(),
        input: json!({"command": "echo hi | tee hi.txt"}),
    };
    let mut cli = Cli::spawn(&Behaviour::default().with_extra(ask));
    cli.initialize(json!({"hooks": {"PostToolUse": [{"hookCallbackIds": ["hook_0"]}]}}));
    cli.user("go");
    let ask = cli.until_request("can_use_tool");
    let request = &ask["request"];
    assert_eq!(request["tool_name"], "Bash");
    let tool_use_id = request["tool_use_id"].as_str().unwrap().to_owned();
    cli.respond(
        ask["request_id"].as_str().unwrap(),
        json!({"behavior": "allow", "updatedInput": {"command": "echo bye"}, "toolUseID": tool_use_id}),
    );
    let post = cli.until_request("hook_callback");
    let input = &post["request"]["input"];
    assert_eq!(input["tool_input"], json!({"command": "echo bye"}));
    cli.respond(post["request_id"].as_str().unwrap(), json!({}));
    let (lines, result) = cli.until_result();
    let echo = lines.iter().find(|l| l["type"] == "user").unwrap();
    assert_eq!(echo["message"]["content"][0]["is_error"], false);
    assert_eq!(result["permission_denials"], json!([]));
    let (_, status, _) = cli.finish();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn permission_deny_with_interrupt_is_an_error_result() {
    let ask = Extra::Permission {
        tool_name: "Bash".into(),
        input: json!({"command": "rm -rf /"}),
    };
    let mut cli = Cli::spawn(&Behaviour::default().with_extra(ask));
    cli.user("go");
    let ask = cli.until_request("can_use_tool");
    assert_eq!(ask["request"]["input"], json!({"command": "rm -rf /"}));
    cli.respond(
        ask["request_id"].as_str().unwrap(),
        json!({"behavior": "deny", "message": "no", "interrupt": true}),
    );
    let (_, result) = cli.until_result();
    let typed = typed_result(&result);
    assert!(typed.is_error);
    assert_eq!(result["subtype"], "error_during_execution");
    assert_eq!(result["terminal_reason"], "aborted_tools");
    assert_eq!(result["permission_denials"][0]["tool_name"], "Bash");
    let (_, status, _) = cli.finish();
    assert_eq!(status.code(), Some(1));
}

#[test]
fn hooks_are_called_for_matching_matchers() {
    let bash = Extra::Tool {
        tool_name: "Bash".into(),
        input: json!({"command": "echo hi"}),
    };
    let mut cli = Cli::spawn(&Behaviour::default().with_extra(bash));
    cli.initialize(json!({"hooks": {
        "PreToolUse": [
            {"matcher": "Read|Bash", "hookCallbackIds": ["hook_0"]},
            {"matcher": "Write", "hookCallbackIds": ["hook_9"]}
        ],
        "PostToolUse": [{"hookCallbackIds": ["hook_1"], "timeout": 30}]
    }}));
    cli.user("go");
    let pre = cli.until_request("hook_callback");
    assert_eq!(pre["request"]["callback_id"], "hook_0");
    let input = &pre["request"]["input"];
    assert_eq!(input["hook_event_name"], "PreToolUse");
    assert_eq!(input["tool_name"], "Bash");
    assert_eq!(input["tool_use_id"], pre["request"]["tool_use_id"]);
    cli.respond(pre["request_id"].as_str().unwrap(), json!({}));
    let post = cli.until_request("hook_callback");
    assert_eq!(post["request"]["callback_id"], "hook_1");
    assert_eq!(
        post["request"]["input"]["tool_response"]["stdout"],
        "ran Bash"
    );
    cli.send(&json!({
        "type": "control_response",
        "response": {"subtype": "error", "request_id": post["request_id"], "error": "boom"}
    }));
    // A failed PostToolUse hook does not fail the turn.
    let (_, result) = cli.until_result();
    assert_eq!(result["subtype"], "success");
    let (_, status, _) = cli.finish();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn mcp_messages_reach_the_sdk_server() {
    let behaviour = Behaviour::default()
        .with_extra(Extra::Mcp {
            server: None,
            tool: Some("add".into()),
            arguments: json!({"a": 1, "b": 2}),
        })
        .with_extra(Extra::McpMessage {
            server: None,
            message: json!({"jsonrpc": "2.0", "id": 99, "method": "resources/list"}),
        });
    let mut cli = Cli::spawn(&behaviour);
    cli.initialize(json!({"sdkMcpServers": ["calc"]}));
    cli.user("add");
    let mut methods = Vec::new();
    let mut ids = Vec::new();
    let mut before = Vec::new();
    let result = loop {
        let line = cli.next();
        if line["type"] == "result" {
            break line;
        }
        if line["type"] != "control_request" {
            before.push(line);
            continue;
        }
        let request = &line["request"];
        assert_eq!(request["server_name"], "calc");
        let message = &request["message"];
        methods.push(message["method"].as_str().unwrap().to_owned());
        ids.push(message.get("id").cloned().unwrap_or(Value::Null));
        let id = message.get("id").cloned().unwrap_or(json!(0));
        let reply = match message["method"].as_str().unwrap() {
            "tools/call" => {
                json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": "3"}]}})
            }
            "tools/list" => {
                json!({"jsonrpc": "2.0", "id": id, "result": {"tools": [{"name": "add"}]}})
            }
            "resources/list" => {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "Method not found"}})
            }
            _ => json!({"jsonrpc": "2.0", "id": id, "result": {}}),
        };
        cli.respond(
            line["request_id"].as_str().unwrap(),
            json!({"mcp_response": reply}),
        );
    };
    assert_eq!(
        methods,
        [
            "initialize",
            "notifications/initialized",
            "tools/list",
            "tools/call",
            "resources/list"
        ]
    );
    assert_eq!(ids, [json!(0), Value::Null, json!(1), json!(2), json!(99)]);
    let echo = before.iter().find(|l| l["type"] == "user").unwrap();
    assert_eq!(echo["message"]["content"][0]["content"][0]["text"], "3");
    let init = before.iter().find(|l| l["subtype"] == "init").unwrap();
    assert!(
        init["tools"]
            .as_array()
            .unwrap()
            .contains(&json!("mcp__calc__add"))
    );
    assert_eq!(result["subtype"], "success");
    let (_, status, _) = cli.finish();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn interrupt_stops_a_slow_stream() {
    let behaviour = Behaviour::default().with_stream(500, 16, Duration::from_millis(20));
    let mut cli = Cli::spawn(&behaviour);
    cli.user("tell me a story");
    loop {
        let line = cli.next();
        if line["event"]["type"] == "content_block_delta" {
            break;
        }
    }
    cli.request("int", json!({"subtype": "interrupt"}));
    let (lines, result) = cli.until_result();
    let ack = lines
        .iter()
        .find(|l| l["type"] == "control_response")
        .unwrap();
    assert_eq!(ack["response"]["request_id"], "int");
    assert_eq!(ack["response"]["response"], json!({"still_queued": []}));
    assert!(lines.iter().any(|l| l["aborted"] == true));
    assert!(lines.iter().any(|l| l["event"]["type"] == "message_stop"));
    assert_eq!(result["subtype"], "error_during_execution");
    assert_eq!(result["terminal_reason"], "aborted_streaming");
    let (_, status, _) = cli.finish();
    assert_eq!(status.code(), Some(1));
}

#[test]
fn a_late_answer_to_a_withdrawn_request_is_in_the_verdict() {
    let dir = temp_dir("withdrawn");
    let verdict = dir.join("verdict.json");
    let behaviour = Behaviour::default()
        .with_extra(Extra::Withdrawn(json!({"subtype": "can_use_tool",
            "tool_name": "Bash", "input": {"command": "echo a"}, "tool_use_id": "toolu_a",
            "permission_suggestions": []})))
        .with_extra(Extra::Permission {
            tool_name: "Bash".into(),
            input: json!({"command": "echo b"}),
        });
    let mut cli = Cli::spawn_with(&behaviour, &[(OUTCOME_ENV, verdict.to_str().unwrap())], &[]);
    cli.user("go");
    let a = cli.until_request("can_use_tool");
    let a_id = a["request_id"].as_str().unwrap().to_owned();
    let cancel = cli.next();
    assert_eq!(
        cancel,
        json!({"type": "control_cancel_request", "request_id": a_id})
    );
    let b = cli.until_request("can_use_tool");
    // A wrong program: it answers the withdrawn request too.
    cli.respond(&a_id, json!({"behavior": "allow", "updatedInput": {}}));
    cli.respond(
        b["request_id"].as_str().unwrap(),
        json!({"behavior": "allow", "updatedInput": {}}),
    );
    let (_, result) = cli.until_result();
    assert_eq!(result["subtype"], "success");
    let (_, status, _) = cli.finish();
    assert_eq!(status.code(), Some(0));
    let report = claude_proto_testkit::child::outcome_from_file(&verdict)
        .unwrap()
        .outcome
        .unwrap();
    let answers = report.answers_to("can_use_tool");
    assert_eq!(answers.len(), 2);
    assert!(answers[0].1.is_some(), "the late answer is kept");
    assert!(answers[1].1.is_some());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn silent_subtypes_are_never_answered() {
    let behaviour = Behaviour::default()
        .with_policy("mcp_status", Policy::Never)
        .with_policy("get_context_usage", Policy::Never);
    let mut cli = Cli::spawn(&behaviour);
    cli.initialize(json!({}));
    cli.request("s", json!({"subtype": "mcp_status"}));
    cli.request("u", json!({"subtype": "get_context_usage"}));
    cli.user("hi");
    let (rest, status, _) = cli.finish();
    let answered: Vec<&Value> = rest
        .iter()
        .filter(|l| l["type"] == "control_response")
        .map(|l| &l["response"]["request_id"])
        .collect();
    assert_eq!(answered, [&json!("init")]);
    assert!(rest.iter().any(|l| l["result"] == "echo: hi"));
    assert_eq!(status.code(), Some(0));
}

#[test]
fn garbage_lines_precede_a_normal_answer() {
    let behaviour = [
        BadLine::NotJson,
        BadLine::NotAnObject,
        BadLine::UnknownType,
        BadLine::Oversized(2 * 1024 * 1024),
        BadLine::InvalidUtf8,
    ]
    .into_iter()
    .fold(Behaviour::default(), |b, line| {
        b.with_extra(Extra::Bad(line))
    });
    let mut cli = Cli::spawn(&behaviour);
    cli.user("x");
    assert_eq!(cli.next()["subtype"], "init");
    let mut raw = Vec::new();
    for _ in 0..5 {
        raw.push(cli.read_raw().unwrap());
    }
    assert!(serde_json::from_slice::<Value>(&raw[0]).is_err());
    assert!(StdoutMessage::from_slice(&raw[1]).is_err());
    assert!(matches!(
        StdoutMessage::from_slice(&raw[2]).unwrap(),
        StdoutMessage::Unknown(_)
    ));
    assert_eq!(raw[3].len(), 2 * 1024 * 1024);
    assert!(std::str::from_utf8(&raw[4]).is_err());
    let (_, result) = cli.until_result();
    assert_eq!(result["result"], "echo: x");
    let (_, status, _) = cli.finish();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn flood_and_stderr_flood_complete() {
    let mut cli = Cli::spawn(&Behaviour::default().with_flood(3000, 0));
    cli.user("x");
    let (lines, result) = cli.until_result();
    let deltas = lines
        .iter()
        .filter(|l| l["event"]["type"] == "content_block_delta")
        .count();
    assert_eq!(deltas, 3000);
    assert_eq!(result["result"], "echo: x");
    let (_, status, _) = cli.finish();
    assert_eq!(status.code(), Some(0));

    let mut cli = Cli::spawn(&Behaviour::default().with_stderr_filler(4 << 20));
    cli.user("y");
    let (_, result) = cli.until_result();
    assert_eq!(result["result"], "echo: y");
    let (_, status, stderr) = cli.finish();
    assert_eq!(status.code(), Some(0));
    assert!(stderr.len() >= 4 << 20);
}

#[test]
fn a_cli_that_never_reads_runs_until_killed() {
    let behaviour = Behaviour::default()
        .with_stop_reading_after(0)
        .with_linger();
    let mut cli = Cli::spawn(&behaviour);
    cli.stdin.take();
    cli.child.kill().unwrap();
    let status = cli.child.wait().unwrap();
    assert!(!status.success());
}

#[test]
fn pre_tool_use_deny_skips_the_tool_and_post_hooks() {
    let bash = Extra::Tool {
        tool_name: "Bash".into(),
        input: json!({"command": "echo hi"}),
    };
    let mut cli = Cli::spawn(&Behaviour::default().with_extra(bash));
    cli.initialize(json!({"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_0"]}],
        "PostToolUse": [{"hookCallbackIds": ["hook_1"]}]
    }}));
    cli.user("go");
    let pre = cli.until_request("hook_callback");
    let deny = json!({"hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "not today"
    }});
    cli.respond(pre["request_id"].as_str().unwrap(), deny);
    let (lines, result) = cli.until_result();
    assert!(
        lines.iter().all(|l| l["type"] != "control_request"),
        "{lines:?}"
    );
    let echo = lines.iter().find(|l| l["type"] == "user").unwrap();
    assert_eq!(echo["message"]["content"][0]["is_error"], true);
    assert_eq!(echo["message"]["content"][0]["content"], "not today");
    assert_eq!(result["permission_denials"][0]["tool_name"], "Bash");
    let (_, status, _) = cli.finish();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn interrupt_while_asking_cancels_the_request_first() {
    let mut cli = Cli::spawn(&Behaviour::default());
    let ask = |tool: &str, input: Value| {
        let extra = json!([{"permission": {"tool_name": tool, "input": input}}]);
        format!("#extras {extra}")
    };
    cli.user(&ask("Bash", json!({"command": "echo hi | tee hi.txt"})));
    let request = cli.until_request("can_use_tool");
    cli.request("int", json!({"subtype": "interrupt"}));
    let cancel = cli.next();
    assert_eq!(cancel["type"], "control_cancel_request");
    assert_eq!(cancel["request_id"], request["request_id"]);
    let ack = cli.next();
    assert_eq!(ack["response"]["request_id"], "int");
    // A late answer to the cancelled request is ignored.
    cli.respond(
        request["request_id"].as_str().unwrap(),
        json!({"behavior": "allow"}),
    );
    let (_, result) = cli.until_result();
    assert_eq!(result["subtype"], "error_during_execution");
    assert_eq!(result["terminal_reason"], "aborted_tools");
    // Turns after an interrupted one work normally (and so the exit is 0).
    cli.user(&ask("Read", json!({"file_path": "a"})));
    let request = cli.until_request("can_use_tool");
    assert_eq!(request["request"]["tool_name"], "Read");
    cli.respond(
        request["request_id"].as_str().unwrap(),
        json!({"behavior": "allow"}),
    );
    let (_, result) = cli.until_result();
    assert_eq!(result["subtype"], "success");
    let (_, status, _) = cli.finish();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn the_transcript_is_kept_resumed_and_mirrored() {
    let dir = temp_dir("transcript");
    let config = dir.join("config");
    let config_env = config.to_str().unwrap().to_owned();
    let envs = [("CLAUDE_CONFIG_DIR", config_env.as_str())];
    let mut cli = Cli::spawn_with(&Behaviour::default(), &envs, &[]);
    cli.user("hello");
    let (lines, result) = cli.until_result();
    let session = result["session_id"].as_str().unwrap().to_owned();
    assert!(lines.iter().all(|l| l["type"] != "transcript_mirror"));
    let (_, status, _) = cli.finish();
    assert_eq!(status.code(), Some(0));
    let projects = std::fs::read_dir(config.join("projects")).unwrap();
    let project = projects.map(|e| e.unwrap().path()).next().unwrap();
    let file = project.join(format!("{session}.jsonl"));
    let entries = |file: &PathBuf| -> Vec<Value> {
        std::fs::read_to_string(file)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let first = entries(&file);
    assert_eq!(first.len(), 2, "the prompt and the answer: {first:?}");
    assert_eq!(first[0]["type"], "user");
    assert_eq!(first[1]["type"], "assistant");
    assert_eq!(first[1]["parentUuid"], first[0]["uuid"]);

    // Resumed, with the mirror on: the history is read, the new entries go
    // to the same file and to the program.
    let args = ["--resume", session.as_str(), "--session-mirror"];
    let mut cli = Cli::spawn_with(&Behaviour::default(), &envs, &args);
    cli.user("again");
    let (lines, result) = cli.until_result();
    assert_eq!(result["session_id"], session.as_str());
    let said: Vec<&str> = lines
        .iter()
        .filter(|l| l["type"] == "assistant")
        .filter_map(|l| l["message"]["content"][0]["text"].as_str())
        .collect();
    assert_eq!(said, ["history: 2 lines", "echo: again"]);
    let mirrored: Vec<&Value> = lines
        .iter()
        .filter(|l| l["type"] == "transcript_mirror")
        .collect();
    assert_eq!(mirrored.len(), 3);
    assert_eq!(mirrored[0]["filePath"], file.to_str().unwrap());
    let (_, status, _) = cli.finish();
    assert_eq!(status.code(), Some(0));
    let all = entries(&file);
    assert_eq!(all.len(), 5);
    let mirrored: Vec<Value> = mirrored.iter().map(|m| m["entries"][0].clone()).collect();
    assert_eq!(all[2..], mirrored[..]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn a_grandchild_outlives_the_cli_and_its_pid_is_recorded() {
    let dir = temp_dir("grandchild");
    let pid_file = dir.join("pids");
    let envs = [
        (PID_FILE_ENV, pid_file.to_str().unwrap()),
        (GRANDCHILD_ENV, "1"),
    ];
    let cli = Cli::spawn_with(&Behaviour::default(), &envs, &[]);
    let own = cli.child.id();
    let mut cli = cli;
    cli.stdin.take();
    let status = cli.child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    let pids: Vec<u32> = std::fs::read_to_string(&pid_file)
        .unwrap()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    assert_eq!(pids.len(), 2, "{pids:?}");
    assert_eq!(pids[0], own);
    // The grandchild still runs (it holds the CLI's stdout): `kill -0`.
    let alive = Command::new("kill")
        .args(["-0", &pids[1].to_string()])
        .status()
        .unwrap();
    assert!(alive.success(), "the grandchild is gone");
    let _ = Command::new("kill").arg(pids[1].to_string()).status();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_behaviour_that_cannot_be_read_is_named_with_the_fix() {
    let output = Command::new(BINARY)
        .env(SERVE_ENV, r#"{"flood": [1]}"#)
        .env_remove("CLAUDE_CONFIG_DIR")
        .stdin(Stdio::null())
        .output()
        .expect("spawn the test kit's CLI");
    assert_eq!(
        output.status.code(),
        Some(claude_proto_testkit::FAILURE_EXIT_CODE)
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("flood is not a pair"), "{stderr}");
    assert!(stderr.contains("Behaviour::to_json"), "{stderr}");
}
