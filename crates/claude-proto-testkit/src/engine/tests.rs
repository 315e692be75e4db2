//! The engine on a virtual clock: every test steps `Instant`s by hand.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::*;
use crate::step::Difference;
use crate::{Script, ask, cli, expect};

/// A scripted CLI and a program played by the test.
struct Harness {
    cli: ScriptedCli,
    start: Instant,
    now: Instant,
    /// Every line the CLI wrote, parsed (non-JSON lines as strings).
    written: Vec<Value>,
}

impl Harness {
    fn new(script: Script) -> Self {
        let (steps, settings) = script.into_parts();
        Self::with(steps, settings)
    }

    fn with(steps: impl Steps + Send + 'static, settings: Settings) -> Self {
        let now = Instant::now();
        let mut harness = Self {
            cli: ScriptedCli::new(steps, settings, now),
            start: now,
            now,
            written: Vec::new(),
        };
        harness.drain();
        harness
    }

    fn drain(&mut self) {
        while let Some(bytes) = self.cli.poll_stdout() {
            // Steps come a line at a time; a serving CLI hands over up to
            // 64 KiB at once (whole lines here: the tests' are short).
            assert_eq!(bytes.last(), Some(&b'\n'));
            let text = String::from_utf8(bytes).expect("the CLI writes UTF-8");
            for text in text.lines() {
                self.written.push(
                    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned())),
                );
            }
        }
    }

    fn bytes(&mut self, bytes: &[u8]) {
        self.cli.handle_stdin(bytes, self.now);
        self.drain();
    }

    fn line(&mut self, line: Value) {
        let mut bytes = line.to_string().into_bytes();
        bytes.push(b'\n');
        self.bytes(&bytes);
    }

    fn close(&mut self) {
        self.cli.handle_stdin_end(self.now);
        self.drain();
    }

    fn wait(&mut self, by: Duration) {
        self.now += by;
        self.cli.handle_timeout(self.now);
        self.drain();
    }

    fn outcome(&self) -> Result<Report, Failure> {
        self.cli.outcome().cloned().expect("the run is over")
    }

    fn failure(&self) -> Failure {
        self.outcome().expect_err("the run failed")
    }

    /// The CLI's last control request's id.
    fn last_request_id(&self) -> String {
        self.written
            .iter()
            .rev()
            .find(|l| l["type"] == "control_request")
            .and_then(|l| l["request_id"].as_str())
            .expect("a control request was written")
            .to_owned()
    }
}

fn user(text: &str) -> Value {
    json!({"type": "user", "session_id": "", "message": {"role": "user",
        "content": [{"type": "text", "text": text}]}, "parent_tool_use_id": null})
}

fn initialize(id: &str, hooks: Value) -> Value {
    json!({"type": "control_request", "request_id": id,
           "request": {"subtype": "initialize", "hooks": hooks}})
}

fn answer(id: &str, payload: Value) -> Value {
    json!({"type": "control_response", "response": {"subtype": "success",
        "request_id": id, "response": payload}})
}

#[test]
fn a_matching_program_passes_when_it_closes_its_end() {
    let mut h = Harness::new(
        Script::new()
            .expect(expect::user_text("hi"))
            .send(cli::system_init())
            .send(cli::assistant_text("hello"))
            .send(cli::result_success("hello")),
    );
    assert!(h.written.is_empty(), "nothing is sent before the prompt");
    h.line(user("hi"));
    let types: Vec<&str> = h
        .written
        .iter()
        .filter_map(|l| l["type"].as_str())
        .collect();
    assert_eq!(types, ["system", "assistant", "result"]);
    assert!(
        h.cli.outcome().is_none(),
        "the run waits for the program's end"
    );
    h.close();
    let report = h.outcome().expect("passes");
    assert_eq!(report.steps, 4);
    assert_eq!(report.lines_sent, 3);
    assert_eq!(report.lines_received, 1);
    assert_eq!(report.user_messages(), vec![user("hi")]);
    assert_eq!(h.cli.exit_code(), Some(0));
    assert!(h.cli.stdout_closed());
}

#[test]
fn a_mismatch_names_the_step_both_frames_and_the_first_difference() {
    let mut h = Harness::new(
        Script::new()
            .send(cli::system_init())
            .expect(expect::user_text("Delete the logs")),
    );
    h.line(user("Delete the cache"));
    let failure = h.failure();
    assert_eq!(failure.step, 2);
    assert_eq!(failure.label, "user");
    let FailureKind::Mismatch {
        expected,
        actual,
        difference,
    } = &failure.kind
    else {
        panic!("not a mismatch: {failure}");
    };
    assert!(expected.contains("Delete the logs"), "{expected}");
    assert!(actual.contains("Delete the cache"), "{actual}");
    assert_eq!(
        difference.as_ref(),
        Some(&Difference {
            path: "/message/content/0/text".into(),
            expected: "\"Delete the logs\"".into(),
            actual: "\"Delete the cache\"".into(),
        })
    );
    let shown = failure.to_string();
    let lines: Vec<&str> = shown.lines().collect();
    assert_eq!(lines.len(), 4, "{shown}");
    assert!(
        lines[0].starts_with("scripted CLI, step 2 (user): "),
        "{shown}"
    );
    assert!(lines[1].starts_with("  expected: "), "{shown}");
    assert!(lines[2].starts_with("  actual:   "), "{shown}");
    assert_eq!(
        lines[3],
        "  first difference at /message/content/0/text: expected \"Delete the logs\", actual \"Delete the cache\""
    );
    assert_eq!(
        format!("{failure:?}"),
        shown,
        "Debug shows the same as Display"
    );
    assert_eq!(h.cli.exit_code(), Some(FAILURE_EXIT_CODE));
    assert!(h.cli.stdout_closed(), "a failed CLI stops");
    assert!(!h.cli.wants_stdin());
}

#[test]
fn an_expecting_step_fails_at_its_deadline() {
    let mut h = Harness::new(
        Script::new()
            .step_deadline(Duration::from_secs(3))
            .expect(expect::any_user()),
    );
    assert_eq!(h.cli.poll_timeout(), Some(h.start + Duration::from_secs(3)));
    h.wait(Duration::from_millis(2999));
    assert!(h.cli.outcome().is_none());
    h.wait(Duration::from_millis(1));
    let failure = h.failure();
    assert_eq!(failure.step, 1);
    assert!(matches!(
        failure.kind,
        FailureKind::Timeout { waited, .. } if waited == Duration::from_secs(3)
    ));
    assert!(
        failure.to_string().contains("nothing came within 3s"),
        "{failure}"
    );
    assert_eq!(h.cli.poll_timeout(), None);
}

#[test]
fn a_program_that_closes_early_fails_the_waiting_step() {
    let mut h = Harness::new(Script::new().expect(expect::user_text("hi")));
    h.close();
    let failure = h.failure();
    assert_eq!(failure.step, 1);
    let FailureKind::ProgramClosed { expected } = &failure.kind else {
        panic!("{failure}");
    };
    assert!(expected.contains("\"hi\""), "{expected}");
}

#[test]
fn lines_that_come_early_wait_for_their_step() {
    let mut h = Harness::new(
        Script::new()
            .send_after(Duration::from_secs(1), cli::system_init())
            .expect(expect::user_text("first"))
            .send(cli::result_success("one"))
            .expect(expect::user_text("second"))
            .expect_end(),
    );
    // The program writes both prompts and closes before the CLI has sent
    // anything: each waits for its step.
    h.line(user("first"));
    h.line(user("second"));
    h.close();
    assert!(h.written.is_empty());
    assert_eq!(h.cli.poll_timeout(), Some(h.start + Duration::from_secs(1)));
    h.wait(Duration::from_secs(1));
    assert_eq!(h.written.len(), 2);
    h.outcome().expect("passes");
}

#[test]
fn initialize_is_answered_wherever_it_comes() {
    let mut h = Harness::new(
        Script::new()
            .expect(expect::user_text("hi"))
            .send(cli::result_success("ok")),
    );
    h.line(user("hi"));
    h.line(initialize("req_1", json!({})));
    let response = h.written.last().expect("answered");
    assert_eq!(response["type"], "control_response");
    assert_eq!(response["response"]["subtype"], "success");
    assert_eq!(response["response"]["request_id"], "req_1");
    assert_eq!(
        response["response"]["response"]["claude_code_version"],
        cli::VERSION
    );
    assert_eq!(
        response["response"]["pending_permission_requests"],
        json!([])
    );
    h.close();
    let report = h.outcome().expect("initialize is not a trailing line");
    assert_eq!(report.initialize.expect("kept")["request_id"], "req_1");
}

#[test]
fn initialize_can_be_answered_otherwise_or_expected_as_a_step() {
    let mut h = Harness::new(Script::new().initialize(Reply::error("not today")));
    h.line(initialize("req_1", json!({})));
    assert_eq!(h.written[0]["response"]["subtype"], "error");
    assert_eq!(h.written[0]["response"]["error"], "not today");

    let mut h = Harness::new(
        Script::new()
            .send(cli::system_init())
            .expect_initialize()
            .expect_end(),
    );
    h.line(initialize("req_9", json!({})));
    assert_eq!(h.written.len(), 2, "init, then the answer as a step");
    assert_eq!(h.written[1]["response"]["request_id"], "req_9");
    h.close();
    h.outcome().expect("passes");

    // Without an answer of its own, an initialize nobody expects is a
    // trailing line.
    let mut h = Harness::with(Script::new(), Settings::default().no_auto_initialize());
    h.line(initialize("req_1", json!({})));
    assert!(matches!(h.failure().kind, FailureKind::Unexpected { .. }));
}

#[test]
fn a_hook_callback_gets_the_id_the_program_registered() {
    let input = json!({"command": "rm -rf /"});
    let mut h = Harness::new(Script::new().send(cli::system_init()).ask(
        ask::pre_tool_use("Bash", input.clone()),
        expect::hook_decision("deny"),
    ));
    // The ask waits for the program's initialize to know the id.
    assert_eq!(h.written.len(), 1);
    let hooks = json!({
        "PreToolUse": [
            {"matcher": "Read", "hookCallbackIds": ["hook_0"]},
            {"matcher": "Write|Bash", "hookCallbackIds": ["hook_1", "hook_2"]}
        ],
        "Stop": [{"hookCallbackIds": ["hook_3"]}]
    });
    h.line(initialize("req_1", hooks));
    let request = h.written.last().expect("asked");
    assert_eq!(request["type"], "control_request");
    assert_eq!(request["request"]["subtype"], "hook_callback");
    assert_eq!(request["request"]["callback_id"], "hook_1");
    assert_eq!(request["request"]["input"]["tool_name"], "Bash");
    assert_eq!(
        request["request"]["tool_use_id"],
        cli::tool_use_id("Bash", &input)
    );
    let id = h.last_request_id();
    h.line(answer(
        &id,
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "permissionDecision": "deny", "permissionDecisionReason": "no"}}),
    ));
    h.close();
    h.outcome().expect("passes");
}

#[test]
fn hook_matchers_are_read_in_the_forms_hooks_use() {
    assert!(matcher_fits("", "Bash"));
    assert!(matcher_fits("*", "Bash"));
    assert!(matcher_fits("Write|Edit", "Edit"));
    assert!(matcher_fits("Write | Bash", "Bash"));
    assert!(!matcher_fits("Write|Edit", "Bash"));
    assert!(matcher_fits("mcp__calc__.*", "mcp__calc__add"));
    assert!(!matcher_fits("mcp__calc__.*", "mcp__other__add"));
    assert!(!matcher_fits("Bash", "BashOutput"));
}

#[test]
fn a_hook_the_program_never_registered_is_named() {
    let mut h = Harness::new(Script::new().ask(ask::stop(), expect::success()));
    h.line(initialize(
        "req_1",
        json!({"PreToolUse": [{"hookCallbackIds": ["hook_0"]}]}),
    ));
    let failure = h.failure();
    assert_eq!(failure.label, "ask hook_callback Stop");
    let FailureKind::Unresolved { what } = &failure.kind else {
        panic!("{failure}");
    };
    assert!(what.contains("no hook callback for Stop"), "{what}");
}

#[test]
fn an_ask_checks_the_answer_to_its_own_request() {
    let input = json!({"command": "ls"});
    let script = || {
        Script::new().ask(
            ask::can_use_tool("Bash", input.clone()),
            expect::deny_with("not"),
        )
    };
    let mut h = Harness::new(script());
    let request = h.written[0].clone();
    assert_eq!(
        request["request"]["tool_use_id"],
        cli::tool_use_id("Bash", &input)
    );
    let id = h.last_request_id();
    h.line(answer(
        &id,
        json!({"behavior": "deny", "message": "not here", "toolUseID": "x"}),
    ));
    h.close();
    h.outcome().expect("passes");

    // An answer that allows: the difference points into the response.
    let mut h = Harness::new(script());
    let id = h.last_request_id();
    h.line(answer(&id, json!({"behavior": "allow"})));
    let failure = h.failure();
    assert_eq!(failure.label, "ask can_use_tool Bash");
    let FailureKind::Mismatch { difference, .. } = &failure.kind else {
        panic!("{failure}");
    };
    let difference = difference.as_ref().expect("a difference");
    assert_eq!(difference.path, "/response/response/behavior");

    // An answer to another request is not this one's: the ask still
    // waits, and fails at its deadline naming the request it waited for.
    let mut h = Harness::new(script());
    let id = h.last_request_id();
    h.line(answer(
        "someone-else",
        json!({"behavior": "deny", "message": "not"}),
    ));
    assert!(h.cli.outcome().is_none());
    h.wait(DEFAULT_STEP_DEADLINE);
    let FailureKind::Timeout { expected, .. } = h.failure().kind else {
        panic!("a timeout");
    };
    assert!(expected.contains(&id), "{expected}");

    // Asking again gets a fresh id.
    let mut h = Harness::new(script().ask(ask::stop(), expect::success()));
    let first = h.last_request_id();
    h.line(initialize(
        "i",
        json!({"Stop": [{"hookCallbackIds": ["hook_0"]}]}),
    ));
    h.line(answer(
        &first,
        json!({"behavior": "deny", "message": "not"}),
    ));
    assert_ne!(h.last_request_id(), first);
}

/// The program answers the CLI's request while it also writes its own
/// lines: the answer is taken by its id, the other lines in order.
#[test]
fn answers_are_taken_by_id_wherever_they_come() {
    let mut h = Harness::new(
        Script::new()
            .mcp_handshake("calc")
            .expect(expect::user_text("Add 2 and 3"))
            .send(cli::system_init()),
    );
    let first = h.last_request_id();
    assert_eq!(h.written[0]["request"]["message"]["method"], "initialize");
    // The prompt comes before the answer to the MCP initialize.
    h.line(user("Add 2 and 3"));
    h.line(
        json!({"type": "control_response", "response": {"subtype": "success",
        "request_id": first, "response": {"mcp_response": {"jsonrpc": "2.0", "id": 0,
        "result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                   "serverInfo": {"name": "calc", "version": "1.0.0"}}}}}}),
    );
    let second = h.last_request_id();
    assert_ne!(first, second);
    h.line(answer(
        &second,
        json!({"mcp_response": {"jsonrpc": "2.0", "id": 0, "result": {}}}),
    ));
    let third = h.last_request_id();
    h.line(answer(
        &third,
        json!({"mcp_response": {"jsonrpc": "2.0", "id": 1,
        "result": {"tools": []}}}),
    ));
    assert_eq!(h.written.last().expect("init")["subtype"], "init");
    h.close();
    h.outcome().expect("passes");
}

/// An answer to a request in a sent line is taken by its id too.
#[test]
fn answers_to_sent_requests_are_taken_by_id() {
    let mut h = Harness::new(
        Script::new()
            .send(json!({"type": "control_request", "request_id": "cli-1",
                "request": {"subtype": "can_use_tool", "tool_name": "Read", "input": {}}}))
            .expect(expect::any_user())
            .expect(expect::subset(json!({"type": "control_response",
                "response": {"request_id": "cli-1", "response": {"behavior": "allow"}}}))),
    );
    h.line(answer("cli-1", json!({"behavior": "allow"})));
    h.line(user("after"));
    h.close();
    h.outcome().expect("passes");
}

#[test]
fn an_error_answer_is_matched_by_its_message() {
    let mut h = Harness::new(Script::new().ask(
        ask::mcp_tool_call("calc", "add", json!({"a": 1})),
        expect::error("not found"),
    ));
    let id = h.last_request_id();
    h.line(
        json!({"type": "control_response", "response": {"subtype": "error",
        "request_id": id, "error": "SDK MCP server not found: calc"}}),
    );
    h.close();
    h.outcome().expect("passes");
}

#[test]
fn a_reply_answers_the_expected_request_with_its_id() {
    let mut h = Harness::new(
        Script::new()
            .respond(
                expect::set_model("sonnet"),
                Reply::success(json!({"model": "claude-sonnet-5-5"})),
            )
            .respond(expect::interrupt(), Reply::error("nothing to interrupt")),
    );
    h.line(json!({"type": "control_request", "request_id": "r1",
        "request": {"subtype": "set_model", "model": "sonnet"}}));
    h.line(json!({"type": "control_request", "request_id": "r2",
        "request": {"subtype": "interrupt"}}));
    assert_eq!(h.written[0]["response"]["request_id"], "r1");
    assert_eq!(
        h.written[0]["response"]["response"]["model"],
        "claude-sonnet-5-5"
    );
    assert_eq!(h.written[1]["response"]["request_id"], "r2");
    assert_eq!(h.written[1]["response"]["error"], "nothing to interrupt");
    h.close();
    h.outcome().expect("passes");
}

/// A replay: recorded program ids bound to live ones, and the recorded
/// answers written with the live ids.
#[test]
fn recorded_request_ids_are_bound_and_rewritten() {
    let recorded_request = json!({"type": "control_request", "request_id": "rec_7",
        "request": {"subtype": "set_model", "model": "sonnet"}});
    let recorded_user = json!({"type": "user", "session_id": "", "uuid": "u-rec",
        "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        "parent_tool_use_id": null});
    let steps = Script::new()
        .step(Step::Expect {
            matcher: Matcher::Recorded(recorded_request),
            reply: None,
            label: Some("cassette line 2".into()),
        })
        .step(Step::Send {
            line: Outgoing::Recorded(
                r#"{"type":"control_response","response":{"subtype":"success","request_id":"rec_7","response":{"model":"claude-sonnet-5-5"}}}"#.into(),
            ),
            delay: Duration::ZERO,
        })
        .step(Step::Expect {
            matcher: Matcher::Recorded(recorded_user),
            reply: None,
            label: Some("cassette line 4".into()),
        })
        .step(Step::ExpectEnd);
    let (steps, _) = steps.into_parts();
    let mut h = Harness::with(steps, Settings::replay());
    h.line(json!({"type": "control_request", "request_id": "live_1",
        "request": {"subtype": "set_model", "model": "sonnet"}}));
    assert_eq!(h.written[0]["response"]["request_id"], "live_1");
    h.line(json!({"type": "user", "session_id": "", "uuid": "u-live",
        "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        "parent_tool_use_id": null}));
    h.close();
    h.outcome().expect("passes");
}

#[test]
fn a_recorded_mismatch_names_the_cassette_line() {
    let steps = Script::new().step(Step::Expect {
        matcher: Matcher::Recorded(
            json!({"type": "user", "uuid": "a", "message": {"content": "hi"}}),
        ),
        reply: None,
        label: Some("cassette line 12: user".into()),
    });
    let (steps, settings) = steps.into_parts();
    let mut h = Harness::with(steps, settings);
    h.line(json!({"type": "user", "uuid": "b", "message": {"content": "bye"}}));
    let failure = h.failure();
    assert_eq!(failure.label, "cassette line 12: user");
    let FailureKind::Mismatch { difference, .. } = failure.kind else {
        panic!("a mismatch");
    };
    assert_eq!(difference.expect("a difference").path, "/message/content");
}

#[test]
fn a_line_longer_than_the_limit_fails_without_being_held() {
    let mut h = Harness::with(
        Script::new().expect(expect::any()),
        Settings::default().max_line_bytes(100),
    );
    for _ in 0..10 {
        h.bytes(&[b'x'; 30]);
        assert!(h.cli.partial.len() <= 101, "{}", h.cli.partial.len());
    }
    assert!(matches!(
        h.failure().kind,
        FailureKind::LineTooLong { limit: 100 }
    ));
    assert!(h.cli.partial.capacity() <= 200, "the buffer is let go");
    // A line of exactly the limit passes.
    let mut h = Harness::with(
        Script::new().expect(expect::any()),
        Settings::default().max_line_bytes(100),
    );
    let mut line = vec![b'y'; 100];
    line.push(b'\n');
    h.bytes(&line);
    h.close();
    h.outcome().expect("a line at the limit passes");
}

#[test]
fn unread_lines_are_bounded() {
    let mut h = Harness::with(
        Script::new()
            .send_after(Duration::from_secs(5), cli::system_init())
            .expect(expect::any()),
        Settings::default().max_queued_bytes(1000),
    );
    for _ in 0..30 {
        h.line(user("flood"));
    }
    assert!(matches!(
        h.failure().kind,
        FailureKind::QueueFull { limit: 1000 }
    ));
}

#[test]
fn ignored_lines_pass_anywhere_and_trailing_lines_fail_unless_allowed() {
    let script = || {
        Script::new()
            .ignore(expect::keep_alive())
            .expect(expect::user_text("hi"))
    };
    let mut h = Harness::new(script());
    h.line(json!({"type": "keep_alive"}));
    h.line(user("hi"));
    h.line(json!({"type": "keep_alive"}));
    h.close();
    let report = h.outcome().expect("keep_alive is ignored");
    assert_eq!(report.lines_received, 3);

    let mut h = Harness::new(script());
    h.line(user("hi"));
    h.line(user("more"));
    let failure = h.failure();
    assert_eq!(failure.step, 0);
    assert_eq!(failure.label, "after the last step");
    let FailureKind::Unexpected { actual } = &failure.kind else {
        panic!("{failure}");
    };
    assert!(actual.contains("more"));

    let mut h = Harness::new(script().allow_trailing_lines());
    h.line(user("hi"));
    h.line(user("more"));
    h.close();
    let report = h.outcome().expect("trailing lines allowed");
    assert_eq!(report.received.len(), 2);
}

#[test]
fn the_report_keeps_lines_up_to_its_budget_and_counts_them_all() {
    let line = user("0123456789");
    let size = line.to_string().len();
    let mut h = Harness::with(
        Script::new().allow_trailing_lines(),
        Settings::default()
            .allow_trailing_lines(true)
            .keep_received_bytes(2 * size),
    );
    for _ in 0..3 {
        h.line(line.clone());
    }
    h.close();
    let report = h.outcome().expect("passes");
    assert_eq!(report.lines_received, 3);
    assert_eq!(report.received.len(), 2);
    assert!(!report.received_complete);

    let mut h = Harness::with(Script::new(), Settings::default().keep_received_bytes(0));
    h.close();
    assert!(
        h.outcome().expect("passes").received_complete,
        "nothing to keep"
    );
}

#[test]
fn a_program_that_never_closes_fails_after_the_last_step_at_the_deadline() {
    let mut h = Harness::new(Script::new().send(cli::system_init()));
    assert_eq!(h.cli.poll_timeout(), Some(h.start + DEFAULT_STEP_DEADLINE));
    h.wait(DEFAULT_STEP_DEADLINE);
    let failure = h.failure();
    assert!(failure.to_string().contains("close its end"), "{failure}");
}

#[test]
fn expect_end_refuses_a_line_and_waits_for_the_end() {
    let mut h = Harness::new(Script::new().expect_end().send(cli::system_init()));
    h.line(user("one more"));
    let failure = h.failure();
    assert_eq!(failure.step, 1);
    assert!(matches!(failure.kind, FailureKind::Unexpected { .. }));

    let mut h = Harness::new(Script::new().expect_end().send(cli::system_init()));
    h.close();
    assert_eq!(h.written.len(), 1, "the steps after the end still run");
}

#[test]
fn exit_ends_the_run_with_its_code() {
    let mut h = Harness::new(
        Script::new()
            .send(cli::system_init())
            .stderr("fatal: out of cheese")
            .exit(3)
            .send(cli::result_success("never")),
    );
    assert_eq!(h.written.len(), 1);
    assert_eq!(
        h.cli.poll_stderr().as_deref(),
        Some(&b"fatal: out of cheese\n"[..])
    );
    assert_eq!(h.cli.exit_code(), Some(3));
    assert!(h.cli.stdout_closed());
    assert!(!h.cli.wants_stdin());
    let report = h.outcome().expect("an exit is not a failure");
    assert_eq!(report.exit_code, Some(3));
    assert_eq!(report.stderr, "fatal: out of cheese\n");
}

#[test]
fn hang_stops_reading_and_writing() {
    let mut h = Harness::new(Script::new().send(cli::system_init()).hang());
    assert!(!h.cli.wants_stdin());
    assert!(!h.cli.stdout_closed(), "a hung CLI keeps its output open");
    assert_eq!(h.cli.poll_timeout(), None);
    assert_eq!(h.cli.exit_code(), None);
    h.line(user("anyone?"));
    h.close();
    assert_eq!(h.written.len(), 1);
    assert_eq!(
        h.outcome().expect("hanging is the script").lines_received,
        0
    );
}

#[test]
fn a_send_waits_for_its_delay_from_the_end_of_the_step_before() {
    let mut h = Harness::new(
        Script::new()
            .expect(expect::any_user())
            .send_after(Duration::from_millis(500), cli::system_init())
            .pause(Duration::from_millis(200))
            .send(cli::result_success("ok")),
    );
    h.wait(Duration::from_secs(2));
    h.line(user("go"));
    let sent_at = h.now;
    assert!(h.written.is_empty());
    assert_eq!(
        h.cli.poll_timeout(),
        Some(sent_at + Duration::from_millis(500))
    );
    h.wait(Duration::from_millis(499));
    assert!(h.written.is_empty());
    h.wait(Duration::from_millis(1));
    assert_eq!(h.written.len(), 1);
    assert_eq!(
        h.cli.poll_timeout(),
        Some(sent_at + Duration::from_millis(700))
    );
    h.wait(Duration::from_millis(200));
    assert_eq!(h.written.len(), 2);
}

#[test]
fn a_source_that_fails_fails_the_run() {
    struct Broken(u8);
    impl Steps for Broken {
        fn next_step(&mut self) -> Option<Result<Step, String>> {
            self.0 += 1;
            match self.0 {
                1 => Some(Ok(Step::Send {
                    line: Outgoing::Raw("{}".into()),
                    delay: Duration::ZERO,
                })),
                _ => Some(Err("cassette line 3: truncated".into())),
            }
        }
    }
    let h = Harness::with(Broken(0), Settings::default());
    let failure = h.failure();
    assert_eq!(failure.step, 2);
    assert_eq!(
        failure.kind,
        FailureKind::Source("cassette line 3: truncated".into())
    );
}

#[test]
fn lines_may_come_in_any_chunks() {
    let mut h = Harness::new(
        Script::new()
            .expect(expect::user_text("héllo"))
            .expect(expect::user_text("two"))
            .expect_end(),
    );
    let mut bytes = user("héllo").to_string().into_bytes();
    bytes.extend_from_slice(b"\r\n\n   \n");
    bytes.extend_from_slice(user("two").to_string().as_bytes());
    // One byte at a time, splitting the é.
    for byte in &bytes {
        h.bytes(std::slice::from_ref(byte));
    }
    // The last line has no newline: the end of input completes it.
    h.close();
    h.outcome().expect("passes");
}

#[test]
fn a_step_that_cannot_run_is_named() {
    let mut h = Harness::new(Script::new().send_raw("two\nlines"));
    h.close();
    assert!(matches!(h.failure().kind, FailureKind::InvalidStep(_)));
    let h = Harness::new(Script::new().ask(json!("no object"), expect::success()));
    assert!(matches!(h.failure().kind, FailureKind::InvalidStep(_)));
}

#[test]
fn non_json_lines_mismatch_json_matchers_but_match_any() {
    let mut h = Harness::new(
        Script::new()
            .expect(expect::any())
            .expect(expect::any_user()),
    );
    h.bytes(b"not json\n");
    h.bytes(b"\xff\xfe garbage\n");
    let FailureKind::Mismatch {
        actual, difference, ..
    } = h.failure().kind
    else {
        panic!("a mismatch");
    };
    assert!(actual.contains("garbage"));
    assert_eq!(difference, None);
}

#[test]
fn a_check_of_the_callers_says_why() {
    let mut h = Harness::new(Script::new().expect(Matcher::check(
        "a prompt in capitals",
        |line| {
            let text = line["message"]["content"][0]["text"]
                .as_str()
                .unwrap_or_default();
            if text == text.to_uppercase() {
                Ok(())
            } else {
                Err(format!("{text:?} has lower case"))
            }
        },
    )));
    h.line(user("quiet"));
    let failure = h.failure();
    assert_eq!(failure.label, "a prompt in capitals");
    assert!(
        failure.to_string().contains("\"quiet\" has lower case"),
        "{failure}"
    );
}

/// Garbage in any chunking, at any step, never panics and always ends in
/// an outcome once the input ends.
#[test]
fn garbage_never_panics() {
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let pieces: [&[u8]; 12] = [
        b"\n",
        b"\r\n",
        b"{",
        b"}",
        b"\"type\":\"control_request\"",
        b"{\"type\":\"control_request\",\"request_id\":\"x\",\"request\":{\"subtype\":\"initialize\",\"hooks\":{\"PreToolUse\":[{\"hookCallbackIds\":[7]}]}}}\n",
        b"{\"type\":\"control_response\",\"response\":{\"request_id\":null}}\n",
        b"{\"type\":\"user\"}\n",
        b"\xff\xc3",
        b"[1,2,3]\n",
        b"null\n",
        b"\"request_id\":\"",
    ];
    for round in 0..300 {
        let script = Script::new()
            .step_deadline(Duration::from_millis(50))
            .max_line_bytes_for_test(64)
            .send(cli::system_init())
            .ask(ask::pre_tool_use("Bash", json!({})), expect::success())
            .expect(expect::any_user())
            .ask(ask::can_use_tool("Bash", json!({})), expect::allow())
            .step(Step::Expect {
                matcher: Matcher::Recorded(json!({"type": "user", "request_id": "r"})),
                reply: Some(Reply::success(json!({}))),
                label: None,
            })
            .send_raw("{\"request_id\":\"r\"}")
            .expect_end();
        let mut h = Harness::new(script);
        for _ in 0..(next() % 40) {
            let piece = pieces[(next() % pieces.len() as u64) as usize];
            let cut = (next() as usize) % (piece.len() + 1);
            h.bytes(&piece[..cut]);
            h.bytes(&piece[cut..]);
            if next() % 7 == 0 {
                h.wait(Duration::from_millis(next() % 30));
            }
        }
        if round % 2 == 0 {
            h.close();
        }
        h.wait(Duration::from_secs(1));
        assert!(h.cli.outcome().is_some(), "round {round}: the run ends");
    }
}

impl Script {
    fn max_line_bytes_for_test(self, limit: usize) -> Self {
        let settings = self.get_settings().clone().max_line_bytes(limit);
        self.settings(settings)
    }
}

/// Sends as fast as possible run ahead of the reader by about 1 MiB, not
/// by the whole script: a long replay stays in bounded memory.
#[test]
fn sending_pauses_while_output_waits_to_be_drained() {
    struct Many(usize);
    impl Steps for Many {
        fn next_step(&mut self) -> Option<Result<Step, String>> {
            self.0 = self.0.checked_sub(1)?;
            Some(Ok(Step::Send {
                line: Outgoing::Recorded(format!(
                    "{{\"type\":\"keep_alive\",\"pad\":\"{}\"}}",
                    "x".repeat(1000)
                )),
                delay: Duration::ZERO,
            }))
        }
    }
    let now = Instant::now();
    let mut cli = ScriptedCli::new(Many(10_000), Settings::default(), now);
    let mut total = 0;
    let mut rounds = 0;
    loop {
        let mut queued = 0;
        while let Some(line) = cli.poll_stdout() {
            queued += line.len();
            total += 1;
        }
        assert!(queued <= MAX_PENDING_OUTPUT + 1100, "{queued} bytes queued");
        match cli.poll_timeout() {
            Some(at) if at <= now => cli.handle_timeout(now),
            // The steps are done: the wait for the program's end.
            _ => break,
        }
        rounds += 1;
    }
    assert_eq!(total, 10_000);
    assert!(rounds >= 9, "{rounds} rounds");

    // While the output is full, a send has no timeout: a driver that does
    // not drain is not woken in a busy loop.
    let mut cli = ScriptedCli::new(Many(10_000), Settings::default(), now);
    assert_eq!(cli.poll_timeout(), None);
    cli.handle_timeout(now);
    assert_eq!(cli.poll_timeout(), None);
    assert!(cli.poll_stdout().is_some());
}

/// A source that counts the steps taken from it.
struct Counted<S>(S, std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl<S: Steps> Steps for Counted<S> {
    fn next_step(&mut self) -> Option<Result<Step, String>> {
        let step = self.0.next_step()?;
        self.1.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Some(step)
    }
}

fn counted<S: Steps>(steps: S) -> (Counted<S>, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    let taken = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    (Counted(steps, taken.clone()), taken)
}

/// Reading ahead takes the steps up to the next one that waits for the
/// program and sends nothing before its turn; a recorded answer read
/// ahead of the program's request still gets the id the program chose.
#[test]
fn reading_ahead_stops_at_the_next_wait_and_changes_nothing_the_program_sees() {
    use std::sync::atomic::Ordering;
    let recorded_request = json!({"type": "control_request", "request_id": "rec_7",
        "request": {"subtype": "set_model", "model": "sonnet"}});
    let (steps, _) = Script::new()
        .step(Step::Expect {
            matcher: Matcher::Recorded(recorded_request),
            reply: None,
            label: Some("cassette line 2".into()),
        })
        .step(Step::Send {
            line: Outgoing::Recorded(
                r#"{"type":"control_response","response":{"subtype":"success","request_id":"rec_7","response":{}}}"#.into(),
            ),
            delay: Duration::ZERO,
        })
        .send(cli::system_init())
        .expect(expect::user_text("hi"))
        .send(cli::result_success("hello"))
        .into_parts();
    let (steps, taken) = counted(steps);
    let mut h = Harness::with(steps, Settings::replay());
    assert_eq!(taken.load(Ordering::SeqCst), 1, "the first expect runs");
    assert!(h.cli.read_ahead());
    assert_eq!(taken.load(Ordering::SeqCst), 4, "two sends and the expect");
    assert!(!h.cli.read_ahead(), "nothing past the next wait");
    h.drain();
    assert!(h.written.is_empty(), "nothing is sent before its turn");
    h.line(json!({"type": "control_request", "request_id": "live_1",
        "request": {"subtype": "set_model", "model": "sonnet"}}));
    assert_eq!(h.written.len(), 2);
    assert_eq!(h.written[0]["response"]["request_id"], "live_1");
    assert_eq!(h.written[1]["subtype"], "init");
    h.line(user("hi"));
    assert_eq!(h.written[2]["type"], "result");
    h.close();
    assert_eq!(h.outcome().expect("passes").steps, 5);
}

/// A source that fails ahead of its turn fails the run at that step, after
/// the steps before it ran.
#[test]
fn a_source_error_read_ahead_fails_the_run_at_its_turn() {
    struct Broken(u8);
    impl Steps for Broken {
        fn next_step(&mut self) -> Option<Result<Step, String>> {
            self.0 += 1;
            match self.0 {
                1 => Some(Ok(Step::Expect {
                    matcher: expect::any_user(),
                    reply: None,
                    label: None,
                })),
                2 => Some(Ok(Step::Send {
                    line: Outgoing::Raw("{}".into()),
                    delay: Duration::ZERO,
                })),
                _ => Some(Err("cassette line 9: truncated".into())),
            }
        }
    }
    let mut h = Harness::with(Broken(0), Settings::default());
    assert!(h.cli.read_ahead());
    assert!(h.cli.outcome().is_none(), "the error is not reached yet");
    h.line(user("hi"));
    assert_eq!(h.written, vec![json!({})]);
    let failure = h.failure();
    assert_eq!(failure.step, 3);
    assert_eq!(
        failure.kind,
        FailureKind::Source("cassette line 9: truncated".into())
    );
}

/// However many sends follow, reading ahead holds about 1 MiB of lines.
#[test]
fn reading_ahead_is_bounded() {
    use std::sync::atomic::Ordering;
    let line = format!("{{\"pad\":\"{}\"}}", "x".repeat(1000));
    let script = (0..10_000).fold(Script::new().expect(expect::any_user()), |s, _| {
        s.step(Step::Send {
            line: Outgoing::Recorded(line.clone()),
            delay: Duration::ZERO,
        })
    });
    let (steps, settings) = script.into_parts();
    let (steps, taken) = counted(steps);
    let mut h = Harness::with(steps, settings);
    assert!(h.cli.read_ahead());
    let ahead = taken.load(Ordering::SeqCst) - 1;
    assert!(ahead * line.len() >= MAX_READ_AHEAD, "{ahead} lines");
    assert!(
        ahead * line.len() < MAX_READ_AHEAD + line.len(),
        "{ahead} lines"
    );
    assert!(!h.cli.read_ahead(), "full");
    h.line(user("go"));
    assert!(h.cli.read_ahead(), "room again once lines were sent");
}

/// The CLI's own requests in sent lines are found as a `Value` reads them:
/// escaped ids, the last of duplicate keys, no id that is not a string.
#[test]
fn requests_in_sent_lines_are_found_as_a_value_reads_them() {
    let id = |line: &str| asked_id(line);
    assert_eq!(
        id(r#"{"type":"control_request","request_id":"a","request":{"subtype":"x"}}"#),
        Some("a".into())
    );
    assert_eq!(
        id(r#"{"request_id":"a\"b","type":"control_request"}"#),
        Some("a\"b".into())
    );
    assert_eq!(
        id(r#"{"type":"control_request","request_id":"a","request_id":"b"}"#),
        Some("b".into())
    );
    assert_eq!(id(r#"{"type":"control_request","request_id":7}"#), None);
    assert_eq!(
        id(r#"{"type":"control_response","response":{"note":"control_request"}}"#),
        None
    );
    assert_eq!(id(r#"{"type":"user","text":"\"control_request\""}"#), None);
    assert_eq!(id(r#"not json "control_request""#), None);
}

// ----- serving after the last step (Settings::serve) ------------------------

#[test]
fn a_script_that_serves_answers_every_prompt_after_its_steps() {
    let mut h = Harness::new(
        Script::new()
            .expect(expect::user_text("first"))
            .send(cli::result_success("scripted"))
            .serve(crate::Behaviour::default()),
    );
    h.line(initialize("init-1", json!({})));
    h.line(user("first"));
    h.line(user("second"));
    h.line(user("third"));
    h.close();
    let results: Vec<&Value> = h.written.iter().filter(|l| l["type"] == "result").collect();
    assert_eq!(results.len(), 3, "{:?}", h.written);
    assert_eq!(results[0]["result"], "scripted");
    assert_eq!(results[1]["result"], "echo: second");
    assert_eq!(results[2]["result"], "echo: third");
    // The initialize the steps answered is not answered twice.
    let answers = h
        .written
        .iter()
        .filter(|l| l["response"]["request_id"] == "init-1")
        .count();
    assert_eq!(answers, 1);
    assert_eq!(h.cli.exit_code(), Some(0));
    assert!(h.cli.stdout_closed());
    let report = h.outcome().expect("a serving run passes");
    assert_eq!(report.exit_code, Some(0));
    // Each line once, whether the steps or the serving CLI read it.
    assert_eq!(report.lines_received, 4);
    assert_eq!(report.received.len(), 4);
    assert_eq!(report.user_messages().len(), 3);
    assert_eq!(
        report.initialize.as_ref().map(|l| l["request_id"].clone()),
        Some(json!("init-1"))
    );
}

#[test]
fn the_serving_cli_knows_the_hooks_of_an_initialize_the_steps_answered() {
    let hooks = json!({"PreToolUse": [{"matcher": null, "hookCallbackIds": ["hook_0"]}]});
    let mut h = Harness::new(
        Script::new()
            .expect(expect::user_text("first"))
            .send(cli::result_success("scripted"))
            .serve(crate::Behaviour::default()),
    );
    h.line(initialize("init-1", hooks));
    h.line(user("first"));
    h.line(user("#hook please"));
    let call = h
        .written
        .iter()
        .find(|l| l["request"]["subtype"] == "hook_callback")
        .expect("the serving CLI calls the hook the steps saw registered");
    assert_eq!(call["request"]["callback_id"], "hook_0");
}

#[test]
fn through_serving_mut_a_test_writes_any_traffic() {
    let mut h = Harness::new(Script::new().serve(crate::Behaviour::default().with_linger()));
    let id = h
        .cli
        .serving_mut()
        .expect("a script of no steps serves from the start")
        .request(json!({"subtype": "can_use_tool", "tool_name": "Bash", "input": {}}));
    h.drain();
    assert_eq!(h.last_request_id(), id);
    h.line(answer(&id, json!({"behavior": "allow"})));
    let simulation = h.cli.serving().expect("serving");
    assert_eq!(simulation.answers_to(&id), 1);
    assert_eq!(
        simulation
            .answer(&id)
            .map(|a| a["response"]["behavior"].clone()),
        Some(json!("allow"))
    );
}

#[test]
fn a_signal_before_the_steps_are_done_fails_the_run() {
    let mut h = Harness::new(Script::new().expect(expect::user_text("never sent")));
    h.cli.handle_signal(crate::Signal::Term, h.now);
    assert_eq!(h.cli.exit_code(), Some(143));
    assert!(h.cli.stdout_closed());
    assert!(!h.cli.wants_stdin());
    assert!(matches!(
        h.failure().kind,
        FailureKind::Signalled {
            signal: crate::Signal::Term
        }
    ));
}

#[test]
fn a_signal_after_the_steps_passes_the_run_with_its_exit_code() {
    let mut h = Harness::new(Script::new().send(cli::system_init()));
    h.cli.handle_signal(crate::Signal::Kill, h.now);
    assert_eq!(h.cli.exit_code(), Some(137));
    assert_eq!(
        h.outcome().expect("the steps were done").exit_code,
        Some(137)
    );
}

#[test]
fn a_serving_cli_takes_signals_as_its_behaviour_says() {
    let mut stubborn =
        Harness::new(Script::new().serve(crate::Behaviour::default().with_ignore_sigterm()));
    stubborn
        .cli
        .handle_signal(crate::Signal::Term, stubborn.now);
    assert_eq!(stubborn.cli.exit_code(), None, "SIGTERM is ignored");
    stubborn
        .cli
        .handle_signal(crate::Signal::Kill, stubborn.now);
    assert_eq!(stubborn.cli.exit_code(), Some(137));
    assert_eq!(stubborn.outcome().expect("served").exit_code, Some(137));
}

#[test]
fn poll_stdout_at_most_splits_lines_anywhere() {
    let mut cli = ScriptedCli::new(
        Script::new().send(json!({"type": "keep_alive"})),
        Settings::default(),
        Instant::now(),
    );
    let mut pieces = Vec::new();
    while let Some(piece) = cli.poll_stdout_at_most(5) {
        assert!(piece.len() <= 5);
        pieces.extend(piece);
    }
    assert_eq!(pieces, b"{\"type\":\"keep_alive\"}\n");
    assert_eq!(cli.poll_stdout_at_most(0), None);
}

#[test]
fn a_script_that_serves_is_saved_with_its_behaviour() {
    let script = Script::new()
        .expect(expect::user_text("first"))
        .serve(crate::Behaviour::default().with_stream(2, 8, Duration::from_millis(5)));
    let json = script.to_json().expect("a serving script saves");
    assert!(json["settings"]["serve"].is_object(), "{json}");
    let back = Script::from_json(&json).expect("and reads back");
    assert_eq!(back.to_json().expect("saves again"), json);
    let mut broken = json.clone();
    broken["settings"]["serve"]["flood"] = json!("lots");
    let error = Script::from_json(&broken).expect_err("a wrong knob is refused");
    assert!(error.to_string().contains("serve: flood"), "{error}");
}

#[test]
fn lines_the_steps_left_unread_are_served_and_reported_once() {
    let mut h = Harness::new(
        Script::new()
            .expect(expect::user_text("first"))
            .pause(Duration::from_secs(1))
            .serve(crate::Behaviour::default()),
    );
    h.line(user("first"));
    h.line(user("second"));
    assert!(
        !h.written.iter().any(|l| l["result"] == "echo: second"),
        "the pause still runs: the line waits"
    );
    h.wait(Duration::from_secs(1));
    assert!(h.written.iter().any(|l| l["result"] == "echo: second"));
    h.close();
    let report = h.outcome().expect("served");
    assert_eq!(report.lines_received, 2);
    assert_eq!(report.received.len(), 2);
}

#[test]
fn a_serving_cli_bounds_a_line_as_the_steps_do() {
    let settings = Settings::default()
        .max_line_bytes(64)
        .serve(crate::Behaviour::default());
    let mut h = Harness::with(Script::new(), settings);
    h.line(user("short enough"));
    assert!(
        h.written
            .iter()
            .any(|l| l["result"] == "echo: short enough")
    );
    for _ in 0..10 {
        h.bytes(b"0123456789");
    }
    assert!(matches!(
        h.failure().kind,
        FailureKind::LineTooLong { limit: 64 }
    ));
    assert_eq!(h.cli.exit_code(), Some(FAILURE_EXIT_CODE));
    assert!(!h.cli.wants_stdin());
    assert!(h.cli.stdout_closed());
}
