//! Runs the `fake-claude` binary and checks it behaves like the real CLI:
//! every line it prints must decode with `claude-proto`'s typed model the
//! way the recorded real lines do.
#![allow(clippy::unwrap_used)] // test helpers fail loudly by design

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::thread::JoinHandle;

use claude_proto::model::incoming::CliRequest;
use claude_proto::model::initialize::InitializeResponse;
use claude_proto::model::result::ResultMessage;
use claude_proto::model::stdout::StdoutMessage;
use claude_proto::model::system::SystemMessage;
use serde_json::{Value, json};

struct Fake {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    stderr: Option<JoinHandle<String>>,
}

const FLAGS: &[&str] = &[
    "--output-format",
    "stream-json",
    "--verbose",
    "--input-format",
    "stream-json",
    "--permission-prompt-tool",
    "stdio",
];

impl Fake {
    fn spawn(scenario: &str, envs: &[(&str, &str)]) -> Fake {
        let mut child = Command::new(env!("CARGO_BIN_EXE_fake-claude"))
            .args(FLAGS)
            .env("FAKE_CLAUDE_SCENARIO", scenario)
            .envs(envs.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn fake-claude");
        let mut stderr = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            stderr.read_to_string(&mut text).unwrap();
            text
        });
        Fake {
            stdin: child.stdin.take(),
            stdout: BufReader::new(child.stdout.take().unwrap()),
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

    /// The next raw stdout line (without newline), None at EOF.
    fn read_raw(&mut self) -> Option<Vec<u8>> {
        let mut buf = Vec::new();
        let n = self.stdout.read_until(b'\n', &mut buf).unwrap();
        if n == 0 {
            return None;
        }
        assert_eq!(buf.pop(), Some(b'\n'), "last line not terminated");
        Some(buf)
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

    fn close_stdin(&mut self) {
        self.stdin.take();
    }

    /// Closes stdin, reads stdout to EOF, waits; returns the remaining
    /// lines, the exit status and all of stderr.
    fn finish(mut self) -> (Vec<Value>, ExitStatus, String) {
        self.close_stdin();
        let mut rest = Vec::new();
        while let Some(line) = self.read() {
            rest.push(line);
        }
        let status = self.child.wait().unwrap();
        let stderr = self.stderr.take().unwrap().join().unwrap();
        (rest, status, stderr)
    }
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

#[test]
fn echo_turn_looks_like_the_real_cli() {
    let dir = std::env::temp_dir().join(format!("fake-claude-echo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pid_file = dir.join("pid");
    let record_file = dir.join("record.json");
    let mut fake = Fake::spawn(
        "echo",
        &[
            ("FAKE_CLAUDE_PID_FILE", pid_file.to_str().unwrap()),
            ("FAKE_CLAUDE_RECORD_FILE", record_file.to_str().unwrap()),
        ],
    );
    fake.initialize(json!({}));
    fake.user("hello");

    let answer = fake.next();
    assert_eq!(answer["type"], "control_response");
    assert_eq!(answer["response"]["request_id"], "init");

    let init = fake.next();
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

    let assistant = fake.next();
    assert_eq!(assistant["type"], "assistant");
    let message = &assistant["message"];
    for key in ["id", "model", "role", "content", "usage"] {
        assert!(!message[key].is_null(), "assistant.message lacks {key}");
    }
    assert_eq!(message["content"][0]["text"], "echo: hello");

    let result = fake.next();
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
    assert_eq!(pid, fake.child.id());

    let (rest, status, stderr) = fake.finish();
    assert!(rest.is_empty(), "{rest:?}");
    assert_eq!(status.code(), Some(0));
    assert_eq!(stderr, "");

    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(&record_file).unwrap()).unwrap();
    let argv: Vec<&str> = record["argv"]
        .as_array()
        .unwrap()
        .iter()
        .skip(1)
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(argv, FLAGS);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn initialize_answer_has_the_real_shape() {
    let mut fake = Fake::spawn("echo", &[]);
    fake.initialize(json!({"sdkMcpServers": ["calc"]}));
    let answer = fake.next();
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
    assert_eq!(payload["pid"], json!(fake.child.id()));
    // Re-encoding keeps every field (nothing is lost to a wrong type).
    assert_eq!(&serde_json::to_value(&typed).unwrap(), payload);

    let (rest, status, _) = fake.finish();
    assert!(rest.is_empty(), "output without a turn: {rest:?}");
    assert_eq!(status.code(), Some(0));
}

#[test]
fn unknown_control_subtype_is_an_unsupported_request_error() {
    let mut fake = Fake::spawn("echo", &[]);
    fake.request("b1", json!({"subtype": "bogus_thing"}));
    let answer = fake.next();
    assert_eq!(
        answer["response"],
        json!({
            "subtype": "error",
            "request_id": "b1",
            "error": "Unsupported control request subtype: bogus_thing",
            "error_code": "unsupported_request"
        })
    );
    let (_, status, _) = fake.finish();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn host_control_requests_are_answered_like_the_real_cli() {
    let mut fake = Fake::spawn("echo", &[]);
    fake.request("m", json!({"subtype": "set_model", "model": "sonnet"}));
    assert_eq!(
        fake.next()["response"]["response"],
        json!({"model": "claude-sonnet-5-5"})
    );
    fake.request(
        "p",
        json!({"subtype": "set_permission_mode", "mode": "acceptEdits"}),
    );
    assert_eq!(
        fake.next()["response"]["response"],
        json!({"mode": "acceptEdits"})
    );
    let status = fake.next();
    assert_eq!(
        (&status["subtype"], &status["permissionMode"]),
        (&json!("status"), &json!("acceptEdits"))
    );
    fake.request(
        "t",
        json!({"subtype": "set_max_thinking_tokens", "max_thinking_tokens": 1024}),
    );
    let ack = fake.next();
    assert_eq!(
        ack["response"],
        json!({"subtype": "success", "request_id": "t"})
    );
    fake.request(
        "r",
        json!({"subtype": "rewind_files", "user_message_id": "u"}),
    );
    assert_eq!(
        fake.next()["response"]["response"],
        json!({"canRewind": false, "error": "File rewinding is not enabled."})
    );
    fake.request("c", json!({"subtype": "get_context_usage"}));
    assert_eq!(
        fake.next()["response"]["response"]["model"],
        "claude-sonnet-5-5"
    );
    // An answer to nothing is ignored; the next turn reports the new model.
    fake.respond("nobody-asked", json!({}));
    fake.user("x");
    let (lines, result) = fake.until_result();
    assert_eq!(lines[0]["model"], "claude-sonnet-5-5");
    assert_eq!(lines[0]["permissionMode"], "acceptEdits");
    assert_eq!(result["result"], "echo: x");
    let (_, status, _) = fake.finish();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn non_json_stdin_line_is_fatal() {
    let mut fake = Fake::spawn("echo", &[]);
    fake.send_raw(b"this is not json\n");
    let (rest, status, stderr) = fake.finish();
    assert!(rest.is_empty(), "{rest:?}");
    assert_eq!(status.code(), Some(1));
    assert!(
        stderr.contains("Error parsing streaming input line"),
        "{stderr}"
    );
}

#[test]
fn stdin_eof_finishes_the_turn_and_exits_0() {
    let mut fake = Fake::spawn("echo", &[]);
    fake.user("one");
    fake.user("two");
    let (lines, status, stderr) = fake.finish();
    let results: Vec<&Value> = lines.iter().filter(|l| l["type"] == "result").collect();
    assert_eq!(results.len(), 2, "{lines:?}");
    assert_eq!(results[0]["result"], "echo: one");
    assert_eq!(results[1]["result"], "echo: two");
    assert_eq!(results[1]["result_index"], 1);
    assert_eq!(status.code(), Some(0));
    assert_eq!(stderr, "");
}

#[test]
fn exit_mid_turn_crashes_with_code_3() {
    let mut fake = Fake::spawn("exit_mid_turn", &[]);
    fake.user("go");
    let mut lines = Vec::new();
    while let Some(line) = fake.read() {
        lines.push(line);
    }
    assert!(lines.iter().all(|l| l["type"] != "result"), "{lines:?}");
    assert!(lines.iter().any(|l| l["type"] == "assistant"));
    let (_, status, stderr) = fake.finish();
    assert_eq!(status.code(), Some(3));
    assert!(stderr.contains("fatal: simulated crash"), "{stderr}");
}

#[test]
fn exit_before_init_fails_with_code_2() {
    // Nothing is written: the fake may already be gone (EPIPE).
    let fake = Fake::spawn("exit_mid_turn", &[("FAKE_CLAUDE_EXIT_BEFORE_INIT", "1")]);
    let (lines, status, stderr) = fake.finish();
    assert!(lines.is_empty());
    assert_eq!(status.code(), Some(2));
    assert!(stderr.contains("startup failed"), "{stderr}");
}

#[test]
fn init_delay_holds_the_initialize_answer_until_a_prompt() {
    let mut fake = Fake::spawn("echo", &[("FAKE_CLAUDE_INIT_DELAY_LINES", "1")]);
    fake.initialize(json!({}));
    fake.request("b", json!({"subtype": "bogus_thing"}));
    // Answered in order of arrival, except initialize, which waits.
    assert_eq!(fake.next()["response"]["request_id"], "b");
    fake.user("hi");
    assert_eq!(fake.next()["response"]["request_id"], "init");
    assert_eq!(fake.next()["subtype"], "init");
    let (_, result) = fake.until_result();
    assert_eq!(result["result"], "echo: hi");
    let (_, status, _) = fake.finish();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn permission_allow_reports_the_effective_input() {
    let mut fake = Fake::spawn("permission", &[]);
    fake.user(r#"{"tool":"Bash","input":{"command":"echo hi | tee hi.txt"}}"#);
    let ask = fake.until_request("can_use_tool");
    let request = &ask["request"];
    assert_eq!(request["tool_name"], "Bash");
    let tool_use_id = request["tool_use_id"].as_str().unwrap().to_owned();
    fake.respond(
        ask["request_id"].as_str().unwrap(),
        json!({"behavior": "allow", "updatedInput": {"command": "echo bye"}, "toolUseID": tool_use_id}),
    );
    let (lines, result) = fake.until_result();
    let echo = lines.iter().find(|l| l["type"] == "user").unwrap();
    assert_eq!(echo["message"]["content"][0]["content"], "bye");
    assert_eq!(
        result["result"],
        r#"allowed {"command":"echo bye"} tool_use_id_echoed=true"#
    );
    let (_, status, _) = fake.finish();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn permission_deny_with_interrupt_is_an_error_result() {
    let mut fake = Fake::spawn("permission", &[]);
    fake.user("rm -rf /");
    let ask = fake.until_request("can_use_tool");
    assert_eq!(ask["request"]["input"], json!({"command": "rm -rf /"}));
    fake.respond(
        ask["request_id"].as_str().unwrap(),
        json!({"behavior": "deny", "message": "no", "interrupt": true}),
    );
    let (_, result) = fake.until_result();
    let typed = typed_result(&result);
    assert!(typed.is_error);
    assert_eq!(result["subtype"], "error_during_execution");
    assert_eq!(
        typed.result.as_deref(),
        Some("denied no tool_use_id_echoed=false")
    );
    assert_eq!(result["permission_denials"][0]["tool_name"], "Bash");
    let (_, status, _) = fake.finish();
    assert_eq!(status.code(), Some(1));
}

#[test]
fn hooks_are_called_for_matching_matchers() {
    let mut fake = Fake::spawn("hooks", &[]);
    fake.initialize(json!({"hooks": {
        "PreToolUse": [
            {"matcher": "Read|Bash", "hookCallbackIds": ["hook_0"]},
            {"matcher": "Write", "hookCallbackIds": ["hook_9"]}
        ],
        "PostToolUse": [{"hookCallbackIds": ["hook_1"], "timeout": 30}]
    }}));
    fake.user("go");
    let pre = fake.until_request("hook_callback");
    assert_eq!(pre["request"]["callback_id"], "hook_0");
    let input = &pre["request"]["input"];
    assert_eq!(input["hook_event_name"], "PreToolUse");
    assert_eq!(input["tool_name"], "Bash");
    assert_eq!(input["tool_use_id"], pre["request"]["tool_use_id"]);
    fake.respond(pre["request_id"].as_str().unwrap(), json!({}));
    let post = fake.until_request("hook_callback");
    assert_eq!(post["request"]["callback_id"], "hook_1");
    assert_eq!(post["request"]["input"]["tool_response"]["stdout"], "hi");
    fake.send(&json!({
        "type": "control_response",
        "response": {"subtype": "error", "request_id": post["request_id"], "error": "boom"}
    }));
    let (_, result) = fake.until_result();
    let text = result["result"].as_str().unwrap();
    let answers: Value = serde_json::from_str(text.strip_prefix("hooks ").unwrap()).unwrap();
    assert_eq!(
        answers,
        json!([
            {"callback_id": "hook_0", "response": {}},
            {"callback_id": "hook_1", "response": {"error": "boom"}}
        ])
    );
    let (_, status, _) = fake.finish();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn mcp_messages_reach_the_sdk_server() {
    let mut fake = Fake::spawn("mcp", &[]);
    fake.initialize(json!({"sdkMcpServers": ["calc"]}));
    fake.user(r#"{"tool":"add","arguments":{"a":1,"b":2}}"#);
    let mut methods = Vec::new();
    let result = loop {
        let line = fake.next();
        if line["type"] == "result" {
            break line;
        }
        if line["type"] != "control_request" {
            continue;
        }
        let request = &line["request"];
        assert_eq!(request["server_name"], "calc");
        let message = &request["message"];
        methods.push(message["method"].as_str().unwrap().to_owned());
        let id = message.get("id").cloned().unwrap_or(json!(0));
        let reply = match message["method"].as_str().unwrap() {
            "tools/call" => {
                json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": "3"}]}})
            }
            "resources/list" => {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "Method not found"}})
            }
            _ => json!({"jsonrpc": "2.0", "id": id, "result": {"ok": message["method"]}}),
        };
        fake.respond(
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
    let report: Value = serde_json::from_str(
        result["result"]
            .as_str()
            .unwrap()
            .strip_prefix("mcp ")
            .unwrap(),
    )
    .unwrap();
    assert_eq!(report["initialize"]["result"]["ok"], "initialize");
    assert_eq!(report["tools"]["ok"], "tools/list");
    assert_eq!(report["call"]["result"]["content"][0]["text"], "3");
    assert_eq!(report["call"]["id"], 2);
    assert_eq!(report["unknown"]["error"]["code"], -32601);
    assert_eq!(report["unknown"]["id"], 3);
    let (_, status, _) = fake.finish();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn interrupt_stops_a_slow_stream() {
    let mut fake = Fake::spawn("slow_stream", &[]);
    fake.user("tell me a story");
    loop {
        let line = fake.next();
        if line["event"]["delta"]["text"] == "tick 1" {
            break;
        }
    }
    fake.request("int", json!({"subtype": "interrupt"}));
    let (lines, result) = fake.until_result();
    let ack = lines
        .iter()
        .find(|l| l["type"] == "control_response")
        .unwrap();
    assert_eq!(ack["response"]["request_id"], "int");
    assert_eq!(ack["response"]["response"], json!({"still_queued": []}));
    assert!(lines.iter().any(|l| l["aborted"] == true));
    assert_eq!(result["subtype"], "error_during_execution");
    assert_eq!(result["terminal_reason"], "aborted_streaming");
    assert!(
        result["result"]
            .as_str()
            .unwrap()
            .starts_with("interrupted after ")
    );
    let (_, status, _) = fake.finish();
    assert_eq!(status.code(), Some(1));
}

#[test]
fn cancelled_request_answers_are_counted() {
    let mut fake = Fake::spawn("cancel", &[]);
    fake.user("go");
    let a = fake.until_request("can_use_tool");
    let a_id = a["request_id"].as_str().unwrap().to_owned();
    let cancel = fake.next();
    assert_eq!(
        cancel,
        json!({"type": "control_cancel_request", "request_id": a_id})
    );
    let b = fake.until_request("can_use_tool");
    fake.respond(&a_id, json!({"behavior": "allow", "updatedInput": {}}));
    fake.respond(
        b["request_id"].as_str().unwrap(),
        json!({"behavior": "allow", "updatedInput": {}}),
    );
    let (_, result) = fake.until_result();
    assert_eq!(
        result["result"],
        "cancel late_answers_for_A=1 b_answered=true"
    );
    let (_, status, stderr) = fake.finish();
    assert_eq!(status.code(), Some(0));
    assert!(
        stderr.contains("late answers for cancelled requests: 1"),
        "{stderr}"
    );
}

#[test]
fn silent_never_answers_status_requests() {
    let mut fake = Fake::spawn("silent", &[]);
    fake.initialize(json!({}));
    fake.request("s", json!({"subtype": "mcp_status"}));
    fake.request("u", json!({"subtype": "get_context_usage"}));
    fake.user("hi");
    let (rest, status, _) = fake.finish();
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
fn garbage_lines_precede_a_normal_turn() {
    let mut fake = Fake::spawn("garbage", &[]);
    fake.user("x");
    let mut raw = Vec::new();
    for _ in 0..5 {
        raw.push(fake.read_raw().unwrap());
    }
    assert!(serde_json::from_slice::<Value>(&raw[0]).is_err());
    assert!(StdoutMessage::from_slice(&raw[1]).is_err());
    assert!(matches!(
        StdoutMessage::from_slice(&raw[2]).unwrap(),
        StdoutMessage::Unknown(_)
    ));
    assert_eq!(raw[3].len(), 2 * 1024 * 1024);
    assert!(std::str::from_utf8(&raw[4]).is_err());
    let (_, result) = fake.until_result();
    assert_eq!(result["result"], "echo: x");
    let (_, status, _) = fake.finish();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn flood_and_stderr_flood_complete() {
    let mut fake = Fake::spawn("flood", &[("FAKE_CLAUDE_FLOOD_COUNT", "3000")]);
    fake.user("x");
    let (lines, result) = fake.until_result();
    let deltas = lines
        .iter()
        .filter(|l| l["event"]["type"] == "content_block_delta")
        .count();
    assert_eq!(deltas, 3000);
    assert_eq!(result["result"], "flood 3000");
    let (_, status, _) = fake.finish();
    assert_eq!(status.code(), Some(0));

    let mut fake = Fake::spawn("stderr_flood", &[]);
    fake.user("y");
    let (_, result) = fake.until_result();
    assert_eq!(result["result"], "echo: y");
    let (_, status, stderr) = fake.finish();
    assert_eq!(status.code(), Some(0));
    assert!(stderr.len() >= 4 * 1024 * 1024);
}

#[test]
fn ignore_stdin_runs_until_killed() {
    let mut fake = Fake::spawn("ignore_stdin", &[]);
    fake.child.kill().unwrap();
    let status = fake.child.wait().unwrap();
    assert!(!status.success());
}

#[test]
fn pre_tool_use_deny_skips_the_tool_and_post_hooks() {
    let mut fake = Fake::spawn("hooks", &[]);
    fake.initialize(json!({"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_0"]}],
        "PostToolUse": [{"hookCallbackIds": ["hook_1"]}]
    }}));
    fake.user("go");
    let pre = fake.until_request("hook_callback");
    let deny = json!({"hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "not today"
    }});
    fake.respond(pre["request_id"].as_str().unwrap(), deny.clone());
    let (lines, result) = fake.until_result();
    assert!(
        lines.iter().all(|l| l["type"] != "control_request"),
        "{lines:?}"
    );
    let echo = lines.iter().find(|l| l["type"] == "user").unwrap();
    assert_eq!(echo["message"]["content"][0]["is_error"], true);
    assert_eq!(echo["message"]["content"][0]["content"], "not today");
    let expected = json!([{"callback_id": "hook_0", "response": deny}]);
    assert_eq!(result["result"], format!("hooks {expected}"));
    let (_, status, _) = fake.finish();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn interrupt_while_asking_cancels_the_request_first() {
    let mut fake = Fake::spawn("permission", &[]);
    fake.user("echo hi | tee hi.txt");
    let ask = fake.until_request("can_use_tool");
    fake.request("int", json!({"subtype": "interrupt"}));
    let cancel = fake.next();
    assert_eq!(cancel["type"], "control_cancel_request");
    assert_eq!(cancel["request_id"], ask["request_id"]);
    let ack = fake.next();
    assert_eq!(ack["response"]["request_id"], "int");
    // A late answer to the cancelled request is ignored.
    fake.respond(
        ask["request_id"].as_str().unwrap(),
        json!({"behavior": "allow"}),
    );
    let (_, result) = fake.until_result();
    assert_eq!(result["subtype"], "error_during_execution");
    assert_eq!(result["terminal_reason"], "aborted_tools");
    assert_eq!(result["result"], "interrupted");
    // Turns after an interrupted one work normally (and so the exit is 0).
    fake.user("{\"tool\":\"Read\",\"input\":{\"file_path\":\"a\"}}");
    let ask = fake.until_request("can_use_tool");
    assert_eq!(ask["request"]["tool_name"], "Read");
    fake.respond(
        ask["request_id"].as_str().unwrap(),
        json!({"behavior": "allow"}),
    );
    let (_, result) = fake.until_result();
    assert_eq!(
        result["result"],
        r#"allowed {"file_path":"a"} tool_use_id_echoed=false"#
    );
    let (_, status, _) = fake.finish();
    assert_eq!(status.code(), Some(0));
}
