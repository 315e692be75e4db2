//! The builders' lines are the real CLI's shapes: each one is read by the
//! typed model of `claude-proto` (written against CLI 2.1.330 and its
//! recorded transcripts) as its own kind, never as an unknown message.

use claude_proto::model::incoming::CliRequest;
use claude_proto::model::initialize::InitializeResponse;
use claude_proto::model::stdout::StdoutMessage;
use claude_proto::model::system::SystemMessage;
use claude_proto_testkit::{ask, cli};
use serde_json::{Value, json};

fn typed(line: &Value) -> StdoutMessage {
    StdoutMessage::from_slice(line.to_string().as_bytes()).expect("a JSON object")
}

#[test]
fn every_cli_line_is_typed() {
    let mut lines = vec![
        cli::system_init(),
        cli::system_init_with(&["mcp__calc__add"], &["calc"]),
        cli::session_state("idle"),
        cli::status_requesting(),
        cli::api_retry(1, 10, Some(500)),
        cli::api_retry(2, 10, None),
        cli::keep_alive(),
        cli::assistant_text("hi"),
        cli::assistant_thinking("hmm"),
        cli::assistant_tool_use("Bash", json!({"command": "ls"})),
        cli::user_tool_result("toolu_1", "ok"),
        cli::user_tool_result("toolu_1", json!([{"type": "text", "text": "ok"}])),
        cli::user_tool_error("toolu_1", "denied"),
        cli::user_interrupted(),
        cli::result_success("done"),
        cli::result_error(&["boom"]),
        cli::result_error_max_turns(3),
    ];
    lines.extend(cli::stream_text(&["a", "b"]));
    lines.extend(cli::api_error(500, "Internal"));
    for line in &lines {
        let message = typed(line);
        match &message {
            StdoutMessage::Unknown(_) => panic!("not typed: {line}"),
            StdoutMessage::System(SystemMessage::Unknown(_)) => {
                panic!("a system subtype not typed: {line}")
            }
            _ => {}
        }
    }
    // The results read as the right kinds.
    let StdoutMessage::Result(result) = typed(&cli::result_success("done")) else {
        panic!("a result");
    };
    assert!(result.is_success());
    let StdoutMessage::Result(result) = typed(&cli::result_error(&["boom"])) else {
        panic!("a result");
    };
    assert!(!result.is_success());
}

#[test]
fn the_initialize_answer_is_typed() {
    let answer: InitializeResponse =
        serde_json::from_value(cli::initialize_response()).expect("typed");
    assert_eq!(answer.hook_on_failure_supported, Some(true));
    assert_eq!(answer.hooks_applied, Some(true));
}

#[test]
fn every_ask_is_a_typed_cli_request() {
    let requests = [
        ask::can_use_tool("Bash", json!({"command": "ls", "description": "List"})),
        with_callback(ask::pre_tool_use("Bash", json!({"command": "ls"}))),
        with_callback(ask::post_tool_use(
            "Bash",
            json!({"command": "ls"}),
            json!({"stdout": "a", "stderr": "", "interrupted": false}),
        )),
        with_callback(ask::user_prompt_submit("hi")),
        with_callback(ask::stop()),
        ask::mcp_initialize("calc"),
        ask::mcp_initialized("calc"),
        ask::mcp_tools_list("calc"),
        ask::mcp_tool_call("calc", "add", json!({"a": 1, "b": 2})),
        ask::elicitation("calc", "Your name?", json!({"type": "object"})),
        ask::user_dialog("refusal_fallback_prompt", json!({})),
    ];
    for request in requests {
        let typed: CliRequest = serde_json::from_value(request.clone()).expect("decodes");
        assert!(
            !matches!(typed, CliRequest::Unknown(_)),
            "not typed: {request}"
        );
    }
}

/// The scripted CLI fills the callback id in at run time; the typed model
/// needs one.
fn with_callback(request: Value) -> Value {
    cli::with(request, json!({"callback_id": "hook_0"}))
}
