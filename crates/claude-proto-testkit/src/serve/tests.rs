#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{BadLine, Behaviour, Extra, Policy, Signal, Simulation};

/// A fake plus a virtual clock and the stdout read so far.
struct Rig {
    cli: Simulation,
    now: Instant,
    out: Vec<u8>,
}

impl Rig {
    fn new(script: Behaviour) -> Self {
        let now = Instant::now();
        Rig {
            cli: Simulation::new(script, now),
            now,
            out: Vec::new(),
        }
    }

    fn send(&mut self, line: Value) {
        let mut bytes = line.to_string().into_bytes();
        bytes.push(b'\n');
        self.cli.handle_stdin(&bytes, self.now);
    }

    fn prompt(&mut self, text: &str) {
        self.send(
            json!({"type": "user", "session_id": "", "parent_tool_use_id": null,
                         "message": {"role": "user", "content": [{"type": "text", "text": text}]}}),
        );
    }

    fn control(&mut self, id: &str, request: Value) {
        self.send(json!({"type": "control_request", "request_id": id, "request": request}));
    }

    fn respond(&mut self, id: &str, payload: Value) {
        self.send(json!({"type": "control_response",
                         "response": {"subtype": "success", "request_id": id, "response": payload}}));
    }

    fn advance(&mut self, d: Duration) {
        self.now += d;
        self.cli.handle_timeout(self.now);
    }

    /// Complete stdout lines since the last call, parsed.
    fn lines(&mut self) -> Vec<Value> {
        while let Some(bytes) = self.cli.poll_stdout(7) {
            self.out.extend(bytes);
        }
        let end = self
            .out
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let text: Vec<u8> = self.out.drain(..end).collect();
        text.split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect()
    }
}

fn kinds(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .map(
            |l| match l.get("subtype").or_else(|| l.pointer("/request/subtype")) {
                Some(Value::String(s)) => format!("{}/{s}", l["type"].as_str().unwrap()),
                _ => l["type"].as_str().unwrap().to_owned(),
            },
        )
        .collect()
}

fn find<'a>(lines: &'a [Value], kind: &str) -> &'a Value {
    let i = kinds(lines).iter().position(|k| k == kind).unwrap();
    &lines[i]
}

#[test]
fn one_byte_chunks_and_split_utf8() {
    let mut rig = Rig::new(Behaviour::default());
    let line = json!({"type": "user", "uuid": "u-1",
                      "message": {"role": "user", "content": "héllo ✓"}})
    .to_string()
        + "\n";
    for b in line.as_bytes() {
        assert!(rig.lines().is_empty());
        rig.cli.handle_stdin(std::slice::from_ref(b), rig.now);
    }
    let lines = rig.lines();
    assert_eq!(
        kinds(&lines),
        ["system/init", "assistant", "result/success"]
    );
    assert_eq!(lines[2]["result"], "echo: héllo ✓");
    assert_eq!(lines[2]["user_message_uuid"], "u-1");
    assert_eq!(rig.cli.user_messages().len(), 1);
}

#[test]
fn initialize_and_full_turn_shapes() {
    let mut rig = Rig::new(Behaviour::default().with_stream(3, 20, Duration::ZERO));
    rig.control(
        "req_1",
        json!({"subtype": "initialize", "hooks": {"Stop": [{"hookCallbackIds": ["hook_0"]}]},
                                "sdkMcpServers": ["calc"]}),
    );
    rig.prompt("first");
    let mut lines = rig.lines();
    // The registered Stop hook is called before the result, as by the CLI.
    let stop = find(&lines, "control_request/hook_callback").clone();
    assert_eq!(stop["request"]["input"]["hook_event_name"], "Stop");
    assert_eq!(stop["request"]["callback_id"], "hook_0");
    assert!(!kinds(&lines).contains(&"result/success".to_owned()));
    rig.respond(stop["request_id"].as_str().unwrap(), json!({}));
    lines.extend(rig.lines());
    let init = &lines[0]["response"];
    assert_eq!(init["subtype"], "success");
    assert_eq!(init["request_id"], "req_1");
    for key in [
        "commands",
        "agents",
        "models",
        "account",
        "pid",
        "output_style",
    ] {
        assert!(init["response"].get(key).is_some(), "{key}");
    }
    assert_eq!(init["pending_permission_requests"], json!([]));
    let request = rig.cli.initialize_request().unwrap();
    assert_eq!(request["sdkMcpServers"], json!(["calc"]));
    let k = kinds(&lines);
    assert_eq!(k.iter().filter(|k| *k == "stream_event").count(), 2 + 3 + 3);
    assert_eq!(
        lines[4]["event"]["delta"]["text"].as_str().unwrap().len(),
        20
    );
    let result = find(&lines, "result/success");
    for key in [
        "total_cost_usd",
        "usage",
        "modelUsage",
        "session_id",
        "uuid",
        "duration_ms",
        "num_turns",
    ] {
        assert!(result.get(key).is_some(), "{key}");
    }
    assert_eq!(result["result"], "echo: first");
    assert_eq!(
        find(&lines, "system/init")["mcp_servers"][0]["name"],
        "calc"
    );
    assert_eq!(rig.cli.turns_completed(), 1);
}

#[test]
fn queued_prompts_run_in_order() {
    let mut rig = Rig::new(Behaviour::default().with_turn_delay(Duration::from_secs(1)));
    rig.prompt("a");
    rig.prompt("b");
    assert_eq!(kinds(&rig.lines()), ["system/init"]);
    assert_eq!(
        rig.cli.poll_timeout(),
        Some(rig.now + Duration::from_secs(1))
    );
    rig.advance(Duration::from_secs(1));
    rig.advance(Duration::from_secs(1));
    let results: Vec<Value> = rig
        .lines()
        .into_iter()
        .filter(|l| l["type"] == "result")
        .collect();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["result"], "echo: a");
    assert_eq!(results[1]["result"], "echo: b");
    assert_eq!(results[1]["result_index"], 1);
}

#[test]
fn can_use_tool_waits_for_the_answer() {
    let mut rig = Rig::new(Behaviour::default());
    rig.prompt("do it #permission");
    let lines = rig.lines();
    assert_eq!(
        kinds(&lines),
        ["system/init", "assistant", "control_request/can_use_tool"]
    );
    let req = &lines[2];
    let id = req["request_id"].as_str().unwrap().to_owned();
    assert_eq!(req["request"]["tool_name"], "Bash");
    assert!(req["request"]["permission_suggestions"].is_array());
    assert_eq!(
        req["request"]["tool_use_id"],
        lines[1]["message"]["content"][0]["id"]
    );
    rig.advance(Duration::from_secs(3600));
    assert!(rig.lines().is_empty(), "waits however long it takes");
    rig.respond(&id, json!({"behavior": "deny", "message": "no"}));
    let lines = rig.lines();
    assert_eq!(kinds(&lines), ["user", "assistant", "result/success"]);
    assert_eq!(lines[0]["message"]["content"][0]["is_error"], true);
    assert_eq!(lines[2]["permission_denials"][0]["tool_name"], "Bash");
    assert_eq!(rig.cli.answer(&id).unwrap()["response"]["behavior"], "deny");
    assert_eq!(rig.cli.answers_to(&id), 1);
}

#[test]
fn allowed_tool_runs() {
    let script = Behaviour::default().with_extra(Extra::Permission {
        tool_name: "Write".into(),
        input: json!({}),
    });
    let mut rig = Rig::new(script);
    rig.prompt("x");
    let id = find(&rig.lines(), "control_request/can_use_tool")["request_id"]
        .as_str()
        .unwrap()
        .to_owned();
    rig.respond(&id, json!({"behavior": "allow", "updatedInput": {}}));
    let lines = rig.lines();
    assert_eq!(lines[0]["message"]["content"][0]["is_error"], false);
    assert_eq!(
        find(&lines, "result/success")["permission_denials"],
        json!([])
    );
}

#[test]
fn interrupt_ends_the_turn_and_exit_code_is_1() {
    let mut rig = Rig::new(Behaviour::default().with_stream(5, 8, Duration::from_millis(100)));
    rig.prompt("long");
    rig.advance(Duration::from_millis(150));
    rig.lines();
    rig.control("int_1", json!({"subtype": "interrupt"}));
    let lines = rig.lines();
    // As the real CLI ends a stream cut short: the snapshot marked aborted,
    // the user line, the stream's closing events, the error result.
    assert_eq!(
        kinds(&lines),
        [
            "control_response",
            "assistant",
            "user",
            "stream_event",
            "stream_event",
            "stream_event",
            "result/error_during_execution"
        ]
    );
    assert_eq!(lines[0]["response"]["request_id"], "int_1");
    assert_eq!(lines[1]["aborted"], true);
    assert_eq!(lines[5]["event"]["type"], "message_stop");
    assert_eq!(lines[6]["terminal_reason"], "aborted_streaming");
    assert_eq!(lines[6]["errors"][0], "interrupted: long");
    assert_eq!(rig.cli.poll_timeout(), None);
    rig.cli.handle_stdin_end(rig.now);
    assert_eq!(rig.cli.exit_code(), Some(1));
}

#[test]
fn interrupt_cancels_pending_permission() {
    let mut rig = Rig::new(Behaviour::default());
    rig.prompt("#permission");
    let id = find(&rig.lines(), "control_request/can_use_tool")["request_id"]
        .as_str()
        .unwrap()
        .to_owned();
    rig.control("int_1", json!({"subtype": "interrupt"}));
    let lines = rig.lines();
    assert_eq!(
        kinds(&lines),
        [
            "control_cancel_request",
            "control_response",
            "user",
            "user",
            "result/error_during_execution"
        ]
    );
    assert_eq!(lines[0]["request_id"], id.as_str());
    assert_eq!(lines[4]["terminal_reason"], "aborted_tools");
    // A late answer is recorded but changes nothing.
    rig.respond(&id, json!({"behavior": "allow"}));
    assert!(rig.lines().is_empty());
    assert_eq!(rig.cli.answers_to(&id), 1);
}

#[test]
fn policies_never_delay_error() {
    let script = Behaviour::default()
        .with_policy("mcp_status", Policy::Never)
        .with_policy("get_context_usage", Policy::Delay(Duration::from_secs(5)))
        .with_policy("set_model", Policy::Error("nope".into()));
    let mut rig = Rig::new(script);
    rig.control("a", json!({"subtype": "mcp_status"}));
    rig.control("b", json!({"subtype": "get_context_usage"}));
    rig.control("c", json!({"subtype": "set_model", "model": "sonnet"}));
    let lines = rig.lines();
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["response"]["error"], "nope");
    assert_eq!(rig.cli.model_and_mode().0, "claude-opus-5-5");
    assert_eq!(
        rig.cli.poll_timeout(),
        Some(rig.now + Duration::from_secs(5))
    );
    rig.advance(Duration::from_secs(5));
    assert_eq!(rig.lines()[0]["response"]["request_id"], "b");
    rig.control("d", json!({"subtype": "get_context_usage"}));
    rig.send(json!({"type": "control_cancel_request", "request_id": "d"}));
    assert_eq!(rig.cli.poll_timeout(), None);
    rig.advance(Duration::from_secs(60));
    assert!(rig.lines().is_empty());
    assert_eq!(rig.cli.host_cancels(), ["d"]);
    assert_eq!(rig.cli.control_requests_received("mcp_status").len(), 1);
}

#[test]
fn control_answers() {
    let mut rig = Rig::new(Behaviour::default());
    rig.control("a", json!({"subtype": "set_model", "model": "sonnet"}));
    rig.control(
        "b",
        json!({"subtype": "set_permission_mode", "mode": "acceptEdits"}),
    );
    rig.control(
        "c",
        json!({"subtype": "set_max_thinking_tokens", "max_thinking_tokens": 9}),
    );
    rig.control("d", json!({"subtype": "bogus_thing"}));
    rig.control("e", json!({"subtype": "stop_task", "task_id": "t"}));
    let lines = rig.lines();
    assert_eq!(
        lines[0]["response"]["response"]["model"],
        "claude-sonnet-5-5"
    );
    assert_eq!(lines[1]["response"]["response"]["mode"], "acceptEdits");
    assert_eq!(kinds(&lines)[2], "system/status");
    assert!(lines[3]["response"].get("response").is_none());
    assert_eq!(lines[4]["response"]["error_code"], "unsupported_request");
    assert_eq!(lines[5]["response"]["response"], json!({}));
    assert_eq!(
        rig.cli.model_and_mode(),
        ("claude-sonnet-5-5", "acceptEdits")
    );
}

#[test]
fn stops_reading_after_n_lines() {
    let mut rig = Rig::new(Behaviour::default().with_stop_reading_after(1));
    assert!(rig.cli.wants_stdin());
    rig.prompt("one");
    assert!(!rig.cli.wants_stdin());
    rig.prompt("two");
    rig.cli.handle_stdin_end(rig.now);
    assert_eq!(
        rig.lines().iter().filter(|l| l["type"] == "result").count(),
        1
    );
    assert_eq!(rig.cli.received().len(), 1);
    assert_eq!(rig.cli.exit_code(), None, "never saw EOF, so never exits");
    rig.cli.handle_signal(Signal::Term, rig.now);
    assert_eq!(rig.cli.exit_code(), Some(143));
}

#[test]
fn stdin_end_finishes_the_turn_then_exits_0() {
    let mut rig = Rig::new(Behaviour::default().with_turn_delay(Duration::from_secs(2)));
    rig.prompt("last");
    rig.cli.handle_stdin_end(rig.now);
    assert_eq!(rig.cli.exit_code(), None);
    assert!(!rig.cli.wants_stdin());
    rig.advance(Duration::from_secs(2));
    assert_eq!(rig.cli.exit_code(), Some(0));
    assert!(!rig.cli.stdout_closed());
    assert_eq!(find(&rig.lines(), "result/success")["result"], "echo: last");
    assert!(rig.cli.stdout_closed());
}

#[test]
fn stdin_end_fails_pending_permission() {
    let mut rig = Rig::new(Behaviour::default());
    rig.prompt("#permission");
    rig.lines();
    rig.cli.handle_stdin_end(rig.now);
    let lines = rig.lines();
    let text = lines[0]["message"]["content"][0]["content"]
        .as_str()
        .unwrap();
    assert!(text.ends_with("Stream closed"), "{text}");
    assert_eq!(
        find(&lines, "result/success")["permission_denials"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(rig.cli.exit_code(), Some(0));
}

#[test]
fn bom_starts_stdout() {
    let mut rig = Rig::new(Behaviour::default().with_bom().with_stderr("warming up"));
    rig.control("i", json!({"subtype": "initialize"}));
    let out = rig.cli.poll_stdout(usize::MAX).unwrap();
    assert_eq!(&out[..3], b"\xEF\xBB\xBF");
    assert_eq!(&out[3..5], b"{\"");
    assert_eq!(rig.cli.poll_stderr().unwrap(), b"warming up\n");
}

#[test]
fn signals_and_draining_after_exit() {
    let mut rig = Rig::new(Behaviour::default().with_ignore_sigterm());
    rig.prompt("x");
    rig.cli.handle_signal(Signal::Term, rig.now);
    assert_eq!(rig.cli.exit_code(), None);
    rig.cli.handle_signal(Signal::Kill, rig.now);
    assert_eq!(rig.cli.exit_code(), Some(137));
    assert!(!rig.cli.wants_stdin());
    rig.prompt("ignored");
    assert_eq!(rig.lines().len(), 3);
    assert!(rig.cli.stdout_closed());
}

#[test]
fn hook_callback_waits() {
    let mut rig = Rig::new(Behaviour::default());
    rig.control(
        "i",
        json!({"subtype": "initialize",
        "hooks": {"UserPromptSubmit": [{"hookCallbackIds": ["hook_0", "hook_1"]}]}}),
    );
    // Registered UserPromptSubmit hooks are called before the turn, one at
    // a time, with no keyword.
    rig.prompt("plain");
    let lines = rig.lines();
    let call = find(&lines, "control_request/hook_callback");
    assert_eq!(call["request"]["callback_id"], "hook_0");
    assert_eq!(
        call["request"]["input"]["hook_event_name"],
        "UserPromptSubmit"
    );
    rig.respond(
        call["request_id"].as_str().unwrap(),
        json!({"continue": true}),
    );
    let lines = rig.lines();
    assert_eq!(kinds(&lines), ["control_request/hook_callback"]);
    assert_eq!(lines[0]["request"]["callback_id"], "hook_1");
    rig.respond(lines[0]["request_id"].as_str().unwrap(), json!({}));
    assert_eq!(
        kinds(&rig.lines()),
        ["system/init", "assistant", "result/success"]
    );
}

#[test]
fn mcp_handshake_then_tool_call() {
    let mut rig = Rig::new(Behaviour::default());
    rig.control(
        "i",
        json!({"subtype": "initialize", "sdkMcpServers": ["calc"]}),
    );
    rig.prompt("#mcp");
    let mut methods = Vec::new();
    loop {
        let lines = rig.lines();
        let Some(req) = lines.iter().find(|l| l["type"] == "control_request") else {
            break;
        };
        let message = &req["request"]["message"];
        assert_eq!(req["request"]["server_name"], "calc");
        methods.push(message["method"].as_str().unwrap().to_owned());
        let result = match message["method"].as_str().unwrap() {
            "tools/list" => json!({"tools": [{"name": "add", "inputSchema": {"type": "object"}}]}),
            "tools/call" => json!({"content": [{"type": "text", "text": "5"}]}),
            _ => json!({}),
        };
        let id = req["request_id"].as_str().unwrap().to_owned();
        rig.respond(
            &id,
            json!({"mcp_response": {"jsonrpc": "2.0", "id": message["id"], "result": result}}),
        );
        if message["method"] == "tools/call" {
            let lines = rig.lines();
            assert_eq!(lines[0]["message"]["content"][0]["content"][0]["text"], "5");
            assert_eq!(kinds(&lines), ["user", "assistant", "result/success"]);
            break;
        }
    }
    assert_eq!(
        methods,
        [
            "initialize",
            "notifications/initialized",
            "tools/list",
            "tools/call"
        ]
    );
    rig.prompt("again #mcp");
    let lines = rig.lines();
    assert!(
        find(&lines, "system/init")["tools"]
            .as_array()
            .unwrap()
            .contains(&json!("mcp__calc__add"))
    );
    assert_eq!(
        find(&lines, "control_request/mcp_message")["request"]["message"]["method"],
        "tools/call"
    );
}

#[test]
fn bad_lines() {
    let mut rig = Rig::new(Behaviour::default().with_extra(Extra::Bad(BadLine::NumberOutOfRange)));
    rig.prompt("#deep #nousage");
    let out = rig.cli.poll_stdout(usize::MAX).unwrap();
    let lines: Vec<&[u8]> = out
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(lines.len(), 5);
    for bad in &lines[1..3] {
        assert!(serde_json::from_slice::<Value>(bad).is_err());
    }
    let result: Value = serde_json::from_slice(lines[4]).unwrap();
    assert_eq!(result["type"], "result");
    assert!(result.get("usage").is_none());
}

#[test]
fn stdout_capacity_blocks_reading() {
    let mut rig = Rig::new(Behaviour::default().with_stdout_capacity(100));
    rig.prompt("a");
    assert!(!rig.cli.wants_stdin(), "system/init alone fills the pipe");
    let mut results = 0;
    while !rig.cli.wants_stdin() {
        results += rig.lines().iter().filter(|l| l["type"] == "result").count();
    }
    assert_eq!(results, 1);
}

#[test]
fn non_json_stdin_is_fatal() {
    let mut rig = Rig::new(Behaviour::default());
    rig.cli.handle_stdin(b"not json\n", rig.now);
    assert_eq!(rig.cli.exit_code(), Some(1));
    assert_eq!(rig.cli.received(), [json!("not json")]);
    let err = String::from_utf8(rig.cli.poll_stderr().unwrap()).unwrap();
    assert!(err.starts_with("Error parsing streaming input line"));
    assert!(rig.cli.stdout_closed());
}

#[test]
fn flood_and_scripted_exits() {
    let script = Behaviour::default()
        .with_flood(10, 300)
        .with_exit_after_turns(1, 3);
    let mut rig = Rig::new(script);
    rig.prompt("x");
    let out = rig.cli.poll_stdout(usize::MAX).unwrap();
    let sizes: Vec<usize> = out
        .split(|&b| b == b'\n')
        .take(10)
        .map(|l| l.len() + 1)
        .collect();
    assert_eq!(sizes, [300; 10]);
    assert_eq!(rig.cli.exit_code(), Some(3));

    let mut rig = Rig::new(Behaviour::default().with_exit_after(Duration::from_secs(9), 2));
    assert_eq!(
        rig.cli.poll_timeout(),
        Some(rig.now + Duration::from_secs(9))
    );
    rig.advance(Duration::from_secs(9));
    assert_eq!(rig.cli.exit_code(), Some(2));
}

#[test]
fn fake_initiated_requests_and_cancel() {
    let mut rig = Rig::new(Behaviour::default());
    let id = rig
        .cli
        .request(json!({"subtype": "elicitation", "mcp_server_name": "s", "message": "?"}));
    let lines = rig.lines();
    assert_eq!(lines[0]["request_id"], id.as_str());
    rig.cli.cancel(&id);
    assert_eq!(kinds(&rig.lines()), ["control_cancel_request"]);
    rig.respond(&id, json!({"action": "decline"}));
    rig.respond("unknown", json!({}));
    assert_eq!(rig.cli.answers_to(&id), 1);
    assert_eq!(rig.cli.stray_responses(), 1);
}

#[test]
fn initialize_policies() {
    for (policy, expect) in [
        (Policy::Never, None),
        (Policy::Error("boom".into()), Some("error")),
        (Policy::Delay(Duration::from_secs(3)), Some("success")),
    ] {
        let mut rig = Rig::new(Behaviour::default().with_policy("initialize", policy));
        rig.control("i", json!({"subtype": "initialize"}));
        rig.prompt("p");
        rig.advance(Duration::from_secs(3));
        let lines = rig.lines();
        let answer = lines.iter().find(|l| l["type"] == "control_response");
        assert_eq!(
            answer.map(|a| a["response"]["subtype"].as_str().unwrap()),
            expect
        );
        assert_eq!(
            find(&lines, "result/success")["result"],
            "echo: p",
            "turns do not wait"
        );
    }
}

#[test]
fn deny_with_interrupt_ends_the_turn() {
    let mut rig = Rig::new(Behaviour::default());
    rig.prompt("#permission");
    let id = find(&rig.lines(), "control_request/can_use_tool")["request_id"]
        .as_str()
        .unwrap()
        .to_owned();
    rig.respond(
        &id,
        json!({"behavior": "deny", "message": "stop", "interrupt": true}),
    );
    let lines = rig.lines();
    assert_eq!(
        kinds(&lines),
        ["user", "user", "result/error_during_execution"]
    );
    assert_eq!(lines[2]["terminal_reason"], "aborted_tools");
}

/// A rig whose `initialize` registered `hooks`.
fn rig_with_hooks(behaviour: Behaviour, hooks: Value) -> Rig {
    let mut rig = Rig::new(behaviour);
    rig.control("i", json!({"subtype": "initialize", "hooks": hooks}));
    rig.lines();
    rig
}

#[test]
fn a_pre_tool_use_deny_blocks_the_tool_and_its_post_tool_use() {
    let bash = Extra::Tool {
        tool_name: "Bash".into(),
        input: json!({"command": "echo hi"}),
    };
    let hooks = json!({
        "PreToolUse": [{"matcher": "Write", "hookCallbackIds": ["hook_0"]},
                       {"matcher": "Bash|Read", "hookCallbackIds": ["hook_1"]}],
        "PostToolUse": [{"hookCallbackIds": ["hook_2"]}],
    });
    // Allowed: PreToolUse (only the Bash matcher), the tool, PostToolUse.
    let mut rig = rig_with_hooks(Behaviour::default().with_extra(bash.clone()), hooks.clone());
    rig.prompt("go");
    let lines = rig.lines();
    let pre = find(&lines, "control_request/hook_callback");
    assert_eq!(pre["request"]["callback_id"], "hook_1");
    let input = &pre["request"]["input"];
    assert_eq!(input["hook_event_name"], "PreToolUse");
    assert_eq!(input["tool_input"]["command"], "echo hi");
    assert_eq!(input["tool_use_id"], pre["request"]["tool_use_id"]);
    rig.respond(pre["request_id"].as_str().unwrap(), json!({}));
    let lines = rig.lines();
    let post = find(&lines, "control_request/hook_callback");
    assert_eq!(post["request"]["callback_id"], "hook_2");
    assert_eq!(post["request"]["input"]["hook_event_name"], "PostToolUse");
    rig.respond(post["request_id"].as_str().unwrap(), json!({}));
    let lines = rig.lines();
    assert_eq!(lines[0]["message"]["content"][0]["is_error"], false);
    assert_eq!(
        find(&lines, "result/success")["permission_denials"],
        json!([])
    );

    // Denied: an error result for the tool, no PostToolUse, one denial.
    let mut rig = rig_with_hooks(Behaviour::default().with_extra(bash), hooks);
    rig.prompt("go");
    let lines = rig.lines();
    let pre = find(&lines, "control_request/hook_callback");
    let deny = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny", "permissionDecisionReason": "no shell"}});
    rig.respond(pre["request_id"].as_str().unwrap(), deny);
    let lines = rig.lines();
    assert_eq!(kinds(&lines), ["user", "assistant", "result/success"]);
    assert_eq!(lines[0]["message"]["content"][0]["content"], "no shell");
    assert_eq!(lines[0]["message"]["content"][0]["is_error"], true);
    let denials = &find(&lines, "result/success")["permission_denials"];
    assert_eq!(denials[0]["tool_name"], "Bash");
}

#[test]
fn an_allowed_permission_runs_the_tool_with_the_updated_input() {
    let ask = Extra::Permission {
        tool_name: "Bash".into(),
        input: json!({"command": "rm -rf /"}),
    };
    let hooks = json!({"PostToolUse": [{"hookCallbackIds": ["hook_0"]}]});
    let mut rig = rig_with_hooks(Behaviour::default().with_extra(ask), hooks);
    rig.prompt("go");
    let lines = rig.lines();
    let ask = find(&lines, "control_request/can_use_tool");
    rig.respond(
        ask["request_id"].as_str().unwrap(),
        json!({"behavior": "allow", "updatedInput": {"command": "ls"}}),
    );
    let lines = rig.lines();
    let post = find(&lines, "control_request/hook_callback");
    assert_eq!(
        post["request"]["input"]["tool_input"],
        json!({"command": "ls"})
    );
}

#[test]
fn requests_withdrawn_requests_and_mcp_messages_are_sent_as_given() {
    let behaviour = Behaviour::default()
        .with_extra(Extra::McpMessage {
            server: None,
            message: json!({"jsonrpc": "2.0", "id": 99, "method": "resources/list"}),
        })
        .with_extra(Extra::Withdrawn(
            json!({"subtype": "can_use_tool", "tool_name": "Bash"}),
        ))
        .with_extra(Extra::Request(
            json!({"subtype": "elicitation", "message": "Which?"}),
        ));
    let mut rig = Rig::new(behaviour);
    rig.control(
        "i",
        json!({"subtype": "initialize", "sdkMcpServers": ["calc"]}),
    );
    rig.prompt("go");
    // The handshake first (the server is new), then the extras in order:
    // requests, then MCP.
    for _ in 0..3 {
        let lines = rig.lines();
        let handshake = find(&lines, "control_request/mcp_message");
        rig.respond(handshake["request_id"].as_str().unwrap(), json!({}));
    }
    let lines = rig.lines();
    let withdrawn = find(&lines, "control_request/can_use_tool").clone();
    let cancel = find(&lines, "control_cancel_request");
    assert_eq!(cancel["request_id"], withdrawn["request_id"]);
    let elicitation = find(&lines, "control_request/elicitation").clone();
    assert_eq!(elicitation["request"]["message"], "Which?");
    rig.respond(
        elicitation["request_id"].as_str().unwrap(),
        json!({"action": "decline"}),
    );
    let lines = rig.lines();
    let message = find(&lines, "control_request/mcp_message");
    assert_eq!(message["request"]["message"]["method"], "resources/list");
    assert_eq!(message["request"]["server_name"], "calc");
    assert_eq!(rig.cli.requests().len(), 6);
}

#[test]
fn an_after_answers_policy_answers_once_the_cli_has_its_answers() {
    let ask = Extra::Permission {
        tool_name: "Bash".into(),
        input: json!({"command": "ls"}),
    };
    let behaviour = Behaviour::default()
        .with_extra(ask)
        .with_policy("mcp_status", Policy::AfterAnswers);
    let mut rig = Rig::new(behaviour);
    // Nothing awaited: answered at once.
    rig.control("s1", json!({"subtype": "mcp_status"}));
    assert_eq!(kinds(&rig.lines()), ["control_response"]);
    rig.prompt("go");
    rig.control("s2", json!({"subtype": "mcp_status"}));
    let lines = rig.lines();
    assert!(!kinds(&lines).contains(&"control_response".to_owned()));
    let ask = find(&lines, "control_request/can_use_tool");
    rig.respond(
        ask["request_id"].as_str().unwrap(),
        json!({"behavior": "allow"}),
    );
    let lines = rig.lines();
    assert_eq!(
        find(&lines, "control_response")["response"]["request_id"],
        "s2"
    );
}

#[test]
fn the_extras_of_a_prompt_are_chosen_turn_by_turn_and_a_bad_list_is_named() {
    let mut rig = Rig::new(Behaviour::default());
    rig.prompt(r#"#extras [{"bad": "not_json"}, {"bad": {"oversized": 100}}]"#);
    let mut text = Vec::new();
    while let Some(bytes) = rig.cli.poll_stdout(usize::MAX) {
        text.extend(bytes);
    }
    let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    assert!(lines.contains(&&b"this line is not JSON at all"[..]));
    assert!(
        lines
            .iter()
            .any(|l| l.len() == 100 && l.starts_with(b"{\"type\""))
    );
    rig.prompt("#extras [{\"bad\": \"odd\"}]");
    let stderr = String::from_utf8(rig.cli.poll_stderr().unwrap()).unwrap();
    assert!(stderr.contains("#extras: not a bad line"), "{stderr}");
}

#[test]
fn a_crash_mid_turn_ends_the_process_before_the_result() {
    let mut rig = Rig::new(Behaviour::default().with_exit_mid_turn(2, 3));
    rig.prompt("one");
    assert_eq!(kinds(&rig.lines()).last().unwrap(), "result/success");
    rig.prompt("two");
    assert_eq!(kinds(&rig.lines()), ["system/init", "assistant"]);
    assert_eq!(rig.cli.exit_code(), Some(3));
    let stderr = String::from_utf8(rig.cli.poll_stderr().unwrap()).unwrap();
    assert!(stderr.contains("simulated crash"), "{stderr}");
}

#[test]
fn answers_wait_behind_events_and_stderr_can_be_flooded() {
    let behaviour = Behaviour::default()
        .with_events_before_answers(5)
        .with_stderr_filler(4096);
    let mut rig = Rig::new(behaviour);
    assert_eq!(rig.cli.poll_stderr().unwrap().len(), 4096);
    rig.control("i", json!({"subtype": "initialize"}));
    assert_eq!(kinds(&rig.lines()), ["control_response"]);
    rig.control("m", json!({"subtype": "set_model", "model": "sonnet"}));
    let k = kinds(&rig.lines());
    assert_eq!(k.len(), 6);
    assert!(k[..5].iter().all(|k| k == "stream_event"));
}

#[test]
fn tools_are_listed_again_after_the_host_says_they_changed() {
    let call = Extra::Mcp {
        server: None,
        tool: Some("add".into()),
        arguments: json!({}),
    };
    let mut rig = Rig::new(Behaviour::default().with_extra(call));
    rig.control(
        "i",
        json!({"subtype": "initialize", "sdkMcpServers": ["calc"]}),
    );
    let answer_all = |rig: &mut Rig| -> Vec<String> {
        let mut methods = Vec::new();
        loop {
            let lines = rig.lines();
            if kinds(&lines).contains(&"result/success".to_owned()) {
                return methods;
            }
            let message = find(&lines, "control_request/mcp_message");
            let method = message["request"]["message"]["method"]
                .as_str()
                .unwrap_or("");
            methods.push(method.to_owned());
            rig.respond(message["request_id"].as_str().unwrap(), json!({}));
        }
    };
    rig.prompt("one");
    assert_eq!(
        answer_all(&mut rig),
        [
            "initialize",
            "notifications/initialized",
            "tools/list",
            "tools/call"
        ]
    );
    rig.prompt("two");
    assert_eq!(answer_all(&mut rig), ["tools/call"]);
    rig.control(
        "c",
        json!({"subtype": "mcp_message", "server_name": "calc",
               "message": {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}}),
    );
    rig.prompt("three");
    assert_eq!(answer_all(&mut rig), ["tools/list", "tools/call"]);
}

#[test]
fn a_kept_transcript_chains_its_entries_mirrors_them_and_tells_its_history() {
    let mut rig = Rig::new(Behaviour::default());
    rig.cli.keep_transcript(super::transcript::SessionFacts {
        session_id: "s-1".into(),
        file: "/c/projects/-w/s-1.jsonl".into(),
        cwd: "/w".into(),
        history: 2,
        mirror: true,
    });
    rig.prompt("again");
    let lines = rig.lines();
    let k = kinds(&lines);
    assert_eq!(k.iter().filter(|k| *k == "transcript_mirror").count(), 3);
    let said: Vec<&str> = lines
        .iter()
        .filter(|l| l["type"] == "assistant")
        .filter_map(|l| l["message"]["content"][0]["text"].as_str())
        .collect();
    assert_eq!(said, ["history: 2 lines", "echo: again"]);
    assert_eq!(find(&lines, "result/success")["session_id"], "s-1");
    let entries = rig.cli.take_transcript();
    assert_eq!(entries.len(), 3, "the prompt and both answers");
    assert_eq!(entries[0]["type"], "user");
    assert_eq!(entries[0]["parentUuid"], Value::Null);
    assert_eq!(entries[1]["parentUuid"], entries[0]["uuid"]);
    assert_eq!(entries[2]["parentUuid"], entries[1]["uuid"]);
    assert!(
        entries
            .iter()
            .all(|e| e["sessionId"] == "s-1" && e["cwd"] == "/w")
    );
    let mirrored = find(&lines, "transcript_mirror");
    assert_eq!(mirrored["filePath"], "/c/projects/-w/s-1.jsonl");
    assert_eq!(mirrored["entries"][0], entries[0]);
    assert!(rig.cli.take_transcript().is_empty(), "taken once");
    rig.prompt("more");
    let said = rig.lines();
    assert!(!said.iter().any(|l| {
        l["message"]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("history"))
    }));
}

#[test]
fn a_pause_holds_its_own_turn_only() {
    let mut rig = Rig::new(Behaviour::default());
    rig.prompt(r#"#extras [{"pause_ms": 1000}]"#);
    assert_eq!(kinds(&rig.lines()), ["system/init"]);
    assert_eq!(
        rig.cli.poll_timeout(),
        Some(rig.now + Duration::from_secs(1))
    );
    rig.advance(Duration::from_secs(1));
    assert_eq!(kinds(&rig.lines()), ["assistant", "result/success"]);
    rig.prompt("next");
    assert_eq!(
        kinds(&rig.lines()),
        ["system/init", "assistant", "result/success"]
    );
}
