//! What a message needs to be typed (the model's module doc): a field of a
//! nested report object the CLI leaves out does not turn the whole message
//! into raw JSON.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers fail loudly by design

use std::time::Instant;

use claude_proto::model::control::{ContextUsage, GetContextUsageRequest};
use claude_proto::model::stdout::StdoutMessage;
use claude_proto::{Config, Event, Session};
use serde_json::{Value, json};

#[test]
fn a_result_whose_model_usage_lacks_cost_usd_is_typed_and_round_trips() {
    let line = json!({
        "type": "result", "subtype": "success", "is_error": false,
        "duration_ms": 1234, "duration_api_ms": 900, "num_turns": 1, "result": "4",
        "stop_reason": "end_turn", "total_cost_usd": 0.01,
        "usage": {"input_tokens": 3, "output_tokens": 12},
        "modelUsage": {"claude-sonnet-4-5": {
            "inputTokens": 3, "outputTokens": 12, "cacheReadInputTokens": 0,
            "cacheCreationInputTokens": 0, "webSearchRequests": 0,
            "contextWindow": 200000, "maxOutputTokens": 64000,
            "thinkingTokens": 4, "costBasis": "list", "provider": "firstParty"
        }},
        "permission_denials": [], "uuid": "u", "session_id": "s",
        "ttft_stream_ms": 80, "time_origin_ms": 1764000000000.5, "warm_spare_claimed": false
    });
    let bytes = serde_json::to_vec(&line).unwrap();
    let message = StdoutMessage::from_slice(&bytes).unwrap();
    let StdoutMessage::Result(result) = &message else {
        panic!("not typed as a result: {message:?}");
    };
    let usage = &result.model_usage["claude-sonnet-4-5"];
    assert_eq!(usage.cost_usd, None);
    assert_eq!(usage.cost(), 0.0);
    assert_eq!(usage.thinking_tokens, Some(4));
    assert_eq!(usage.cost_basis.as_deref(), Some("list"));
    assert_eq!(result.ttft_stream_ms, Some(80));
    assert_eq!(result.warm_spare_claimed, Some(false));
    assert_eq!(serde_json::to_value(&message).unwrap(), line);
}

#[test]
fn a_result_whose_usage_lacks_its_token_counts_is_typed() {
    let line = json!({
        "type": "result", "subtype": "success", "is_error": false,
        "duration_ms": 1, "duration_api_ms": 1, "num_turns": 1, "result": "",
        "stop_reason": null, "total_cost_usd": 0, "usage": {},
        "modelUsage": {"m": {}}, "permission_denials": [], "uuid": "u", "session_id": "s"
    });
    let message = StdoutMessage::from_slice(&serde_json::to_vec(&line).unwrap()).unwrap();
    let StdoutMessage::Result(result) = &message else {
        panic!("not typed as a result: {message:?}");
    };
    assert_eq!(result.usage.input_tokens, None);
    assert_eq!(result.usage.total_input_tokens(), 0);
    assert_eq!(serde_json::to_value(&message).unwrap(), line);
}

fn context_usage_answer(response: Value) -> ContextUsage {
    let mut session = Session::new(Config::default());
    session
        .send_call(&GetContextUsageRequest::default(), None, Instant::now())
        .unwrap();
    let mut sent = Vec::new();
    session.poll_transmit(&mut sent);
    let sent: Value = serde_json::from_slice(&sent).unwrap();
    let answer = json!({"type": "control_response", "response": {
        "subtype": "success", "request_id": sent["request_id"], "response": response}});
    session.handle_input(format!("{answer}\n").as_bytes());
    let Some(Event::Response(outcome)) = session.poll_event() else {
        panic!("no response event");
    };
    outcome
        .result
        .unwrap()
        .decode_as::<GetContextUsageRequest>()
        .unwrap()
}

#[test]
fn a_context_usage_answer_whose_category_lacks_kind_is_typed() {
    let response = json!({
        "categories": [
            {"name": "System prompt", "tokens": 3000, "color": "gray"},
            {"id": "free_space", "name": "Free space", "tokens": 150000, "color": "white", "kind": "free"}
        ],
        "totalTokens": 20000, "maxTokens": 200000, "rawMaxTokens": 200000, "percentage": 10,
        "gridRows": [[{"color": "gray", "isFilled": true, "categoryName": "System prompt",
            "tokens": 1, "percentage": 0.5, "squareFullness": 1}]],
        "model": "claude-x", "memoryFiles": [{"path": "CLAUDE.md", "type": "Project", "tokens": 9}],
        "mcpTools": [], "agents": [{"agentType": "reviewer", "source": "userSettings", "tokens": 5}],
        "messageBreakdown": {"toolCallTokens": 1, "toolCallsByType": [{"name": "Bash", "callTokens": 1}]},
        "isAutoCompactEnabled": true, "apiUsage": null
    });
    let usage = context_usage_answer(response.clone());
    let categories = usage.categories.as_deref().unwrap();
    assert_eq!(categories[0].kind, None);
    assert_eq!(categories[0].tokens, Some(3000));
    assert_eq!(categories[1].kind.as_deref(), Some("free"));
    assert_eq!(
        usage.memory_files.as_ref().unwrap()[0].kind.as_deref(),
        Some("Project")
    );
    assert_eq!(
        usage.agents.as_ref().unwrap()[0].agent_type.as_deref(),
        Some("reviewer")
    );
    assert_eq!(serde_json::to_value(&usage).unwrap(), response);

    // Even an empty answer is typed.
    let empty = context_usage_answer(json!({}));
    assert_eq!(empty, ContextUsage::default());
    assert_eq!(serde_json::to_value(&empty).unwrap(), json!({}));
}
