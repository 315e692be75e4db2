//! Lines the CLI writes, shaped like those of the real CLI 2.1.330 (trimmed
//! to the fields programs read), for [`Script::send`](crate::Script::send).
//!
//! Every builder returns the line as a JSON value; [`with`] adds or
//! replaces fields when a test needs more:
//!
//! ```
//! use claude_proto_testkit::cli;
//! use serde_json::json;
//!
//! let init = cli::with(cli::system_init(), json!({"model": "claude-sonnet-5-5"}));
//! assert_eq!(init["model"], "claude-sonnet-5-5");
//! ```
//!
//! Lines carry the session id [`SESSION_ID`] and a fresh `uuid` each.
//! Tool-use ids are derived from the tool's name and input
//! ([`tool_use_id`]), so [`assistant_tool_use`] and
//! [`ask::can_use_tool`](crate::ask::can_use_tool) of the same call agree
//! without the script naming an id.

use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Value, json};

/// The session id of every scripted line.
pub const SESSION_ID: &str = "5e551011-0000-4000-8000-000000000001";
/// The model the scripted CLI reports.
pub const MODEL: &str = "claude-opus-5-5";
/// The CLI version the scripted CLI reports.
pub const VERSION: &str = "2.1.332";
/// The working directory the scripted CLI reports.
pub const CWD: &str = "/home/user/project";
/// The tools `system/init` lists by default.
pub const TOOLS: &[&str] = &[
    "Task",
    "Bash",
    "Edit",
    "Glob",
    "Grep",
    "Read",
    "Write",
    "WebFetch",
    "WebSearch",
    "TodoWrite",
];

static UUIDS: AtomicU64 = AtomicU64::new(1);
static MESSAGES: AtomicU64 = AtomicU64::new(1);

/// A fresh version-4-shaped UUID (unique in this process).
pub fn uuid() -> String {
    let n = UUIDS.fetch_add(1, Ordering::Relaxed);
    format!("5c41b7ed-0000-4000-8000-{n:012x}")
}

fn message_id() -> String {
    let n = MESSAGES.fetch_add(1, Ordering::Relaxed);
    format!("msg_test_{n:04}")
}

/// `line` with the members of `fields` (an object) added or replaced.
pub fn with(mut line: Value, fields: Value) -> Value {
    if let (Some(map), Value::Object(fields)) = (line.as_object_mut(), fields) {
        map.extend(fields);
    }
    line
}

/// The tool-use id of a call of `tool` with `input`: the same for the same
/// call, different for different ones (a hash, not a counter, so the
/// builders of one call agree).
pub fn tool_use_id(tool: &str, input: &Value) -> String {
    // FNV-1a: stable across runs and platforms, unlike std's hasher.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in tool
        .bytes()
        .chain([0])
        .chain(input.to_string().into_bytes())
    {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("toolu_test_{hash:016x}")
}

/// The success payload of the answer to `initialize`: commands, agents,
/// models, account, as the real CLI sends them (trimmed). The scripted CLI
/// answers with it unless told otherwise.
pub fn initialize_response() -> Value {
    json!({
        "commands": [
            {"name": "compact", "description": "Free up context by summarizing the conversation so far", "argumentHint": "<optional custom summarization instructions>", "builtin": true},
            {"name": "context", "description": "Show current context usage", "argumentHint": "", "builtin": true},
            {"name": "model", "description": "Set the AI model for Claude Code", "argumentHint": "<model>", "builtin": true}
        ],
        "agents": [
            {"name": "general-purpose", "description": "General-purpose agent for researching complex questions."},
            {"name": "Explore", "description": "Fast read-only search agent for locating code.", "model": "inherit"}
        ],
        "output_style": "default",
        "available_output_styles": ["default", "Explanatory", "Learning"],
        "models": [
            {"value": "default", "resolvedModel": MODEL, "displayName": "Default (recommended)", "description": "Use the default model (currently Opus 5.5)", "supportsEffort": true, "supportedEffortLevels": ["low", "medium", "high", "xhigh", "max"], "supportsAdaptiveThinking": true, "supportsFastMode": true, "supportsAutoMode": true},
            {"value": "sonnet", "resolvedModel": "claude-sonnet-5-5", "displayName": "Sonnet", "description": "Sonnet 5.5 · Efficient for routine tasks", "supportsEffort": true, "supportedEffortLevels": ["low", "medium", "high"], "supportsAdaptiveThinking": true},
            {"value": "haiku", "resolvedModel": "claude-haiku-5-5", "displayName": "Haiku", "description": "Haiku 5.5 · Fastest for quick answers"}
        ],
        "account": {"tokenSource": "none", "apiKeySource": "ANTHROPIC_API_KEY", "apiProvider": "firstParty"},
        "pid": 4242,
        "claude_code_version": VERSION,
        "current_permission_mode": "default",
        "hooks_applied": true,
        "hook_on_failure_supported": true,
        "analytics_disabled": true,
        "fast_mode_state": "off",
        "fast_mode_disabled_reason": "sdk_opt_in_required",
        "session_state": "idle",
        "capabilities": ["ui_surface_v1", "mcp_call_result_not_for_model_v1", "mcp_call_check_permissions_v1"]
    })
}

/// `system/init`, the first line of every turn: the default tools, no MCP
/// servers, [`MODEL`] in the default permission mode.
pub fn system_init() -> Value {
    system_init_with(TOOLS, &[])
}

/// `system/init` listing these tools and in-process MCP servers (each
/// `connected`, source `sdk`; their tools are listed too only if given in
/// `tools`, as `mcp__<server>__<tool>`).
pub fn system_init_with(tools: &[&str], mcp_servers: &[&str]) -> Value {
    let servers: Vec<Value> = mcp_servers
        .iter()
        .map(|name| json!({"name": name, "status": "connected", "source": "sdk"}))
        .collect();
    json!({
        "type": "system", "subtype": "init", "cwd": CWD, "session_id": SESSION_ID,
        "tools": tools, "mcp_servers": servers, "model": MODEL, "permissionMode": "default",
        "slash_commands": ["compact", "context", "model"], "apiKeySource": "ANTHROPIC_API_KEY",
        "claude_code_version": VERSION, "output_style": "default",
        "agents": ["general-purpose", "Explore"], "skills": [], "plugins": [],
        "fast_mode_state": "off", "uuid": uuid()
    })
}

/// `system/session_state_changed` (`idle`, `running`, `requires_action`),
/// as the CLI writes it when the host reads session states.
pub fn session_state(state: &str) -> Value {
    json!({"type": "system", "subtype": "session_state_changed", "state": state,
           "sdk_host_only": true, "uuid": uuid(), "session_id": SESSION_ID})
}

/// `system/status` while a model request is made.
pub fn status_requesting() -> Value {
    json!({"type": "system", "subtype": "status", "status": "requesting",
           "session_id": SESSION_ID, "uuid": uuid()})
}

/// `system/api_retry`: attempt `attempt` of `max_retries` failed with HTTP
/// `status` (`None`: no response) and is retried.
pub fn api_retry(attempt: u32, max_retries: u32, status: Option<u16>) -> Value {
    let error = match status {
        Some(429) => "rate_limit",
        Some(529) => "overloaded",
        Some(400..=499) => "invalid_request",
        Some(_) => "server_error",
        None => "unknown",
    };
    json!({"type": "system", "subtype": "api_retry", "attempt": attempt,
           "max_retries": max_retries, "retry_delay_ms": 500u64 << attempt.min(10),
           "error_status": status, "error": error, "session_id": SESSION_ID, "uuid": uuid()})
}

/// `keep_alive`.
pub fn keep_alive() -> Value {
    json!({"type": "keep_alive"})
}

fn usage() -> Value {
    json!({"input_tokens": 12, "cache_creation_input_tokens": 0,
           "cache_read_input_tokens": 0, "output_tokens": 1})
}

/// An `assistant` message with these content blocks (one message per
/// completed block, as the real CLI writes them: `stop_reason` null).
pub fn assistant(content: Value) -> Value {
    json!({
        "type": "assistant",
        "message": {
            "id": message_id(), "type": "message", "role": "assistant", "model": MODEL,
            "content": content, "stop_reason": null, "stop_sequence": null,
            "usage": usage(), "context_management": null
        },
        "parent_tool_use_id": null, "session_id": SESSION_ID, "uuid": uuid(),
        "request_id": "req_test_0001"
    })
}

/// An `assistant` message with one text block.
pub fn assistant_text(text: &str) -> Value {
    assistant(json!([{"type": "text", "text": text}]))
}

/// An `assistant` message with one thinking block.
pub fn assistant_thinking(thinking: &str) -> Value {
    assistant(json!([{"type": "thinking", "thinking": thinking, "signature": "c2lnbmF0dXJl"}]))
}

/// An `assistant` message calling `tool` with `input` (its id is
/// [`tool_use_id`]`(tool, &input)`).
pub fn assistant_tool_use(tool: &str, input: Value) -> Value {
    let id = tool_use_id(tool, &input);
    assistant(json!([{"type": "tool_use", "id": id, "name": tool, "input": input}]))
}

/// The `user` line the CLI writes with a tool's result: `content` is text
/// or content blocks.
pub fn user_tool_result(tool_use_id: &str, content: impl Into<Value>) -> Value {
    tool_result(tool_use_id, content.into(), false)
}

/// The `user` line the CLI writes when a tool failed or was denied.
pub fn user_tool_error(tool_use_id: &str, message: &str) -> Value {
    tool_result(tool_use_id, Value::String(message.to_owned()), true)
}

fn tool_result(tool_use_id: &str, content: Value, is_error: bool) -> Value {
    let output = if is_error {
        match content.as_str() {
            Some(text) => Value::String(format!("Error: {text}")),
            None => content.clone(),
        }
    } else {
        content.clone()
    };
    json!({
        "type": "user",
        "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tool_use_id, "content": content, "is_error": is_error}
        ]},
        "parent_tool_use_id": null, "session_id": SESSION_ID, "uuid": uuid(),
        "tool_use_result": output
    })
}

/// The `user` line the CLI writes when a turn is interrupted.
pub fn user_interrupted() -> Value {
    json!({"type": "user", "message": {"role": "user", "content": [
        {"type": "text", "text": "[Request interrupted by user]"}]},
        "parent_tool_use_id": null, "session_id": SESSION_ID, "uuid": uuid()})
}

/// A `stream_event` line (written with `--include-partial-messages`)
/// carrying `event` (`{"type":"message_start",...}` and the like).
pub fn stream_event(event: Value) -> Value {
    json!({"type": "stream_event", "event": event, "session_id": SESSION_ID,
           "parent_tool_use_id": null, "uuid": uuid()})
}

/// `content_block_delta` with a `text_delta`, for block `index`.
pub fn text_delta(index: u32, text: &str) -> Value {
    stream_event(json!({"type": "content_block_delta", "index": index,
                        "delta": {"type": "text_delta", "text": text}}))
}

/// A text answer streamed in `chunks`, every line the CLI writes for it
/// with `--include-partial-messages`: `message_start`,
/// `content_block_start`, one `text_delta` per chunk, the `assistant`
/// message with the whole text (before `content_block_stop`, as the real
/// CLI orders them), `content_block_stop`, `message_delta` (`end_turn`)
/// and `message_stop`. Send them with
/// [`Script::send_all`](crate::Script::send_all).
pub fn stream_text(chunks: &[&str]) -> Vec<Value> {
    let id = message_id();
    let mut lines = vec![
        stream_event(json!({"type": "message_start", "message": {
            "id": id, "type": "message", "role": "assistant", "model": MODEL, "content": [],
            "stop_reason": null, "stop_sequence": null, "usage": usage()}})),
        stream_event(json!({"type": "content_block_start", "index": 0,
                            "content_block": {"type": "text", "text": ""}})),
    ];
    lines.extend(chunks.iter().map(|chunk| text_delta(0, chunk)));
    let mut whole = assistant_text(&chunks.concat());
    whole["message"]["id"] = Value::String(id);
    lines.push(whole);
    lines.push(stream_event(
        json!({"type": "content_block_stop", "index": 0}),
    ));
    lines.push(stream_event(json!({"type": "message_delta",
        "delta": {"stop_reason": "end_turn", "stop_sequence": null},
        "usage": {"output_tokens": 7}})));
    lines.push(stream_event(json!({"type": "message_stop"})));
    lines
}

fn result_base(subtype: &str, is_error: bool, num_turns: u32) -> Value {
    json!({
        "type": "result", "subtype": subtype, "is_error": is_error,
        "duration_ms": 1200, "duration_api_ms": 600, "num_turns": num_turns,
        "stop_reason": if is_error { Value::Null } else { json!("end_turn") },
        "session_id": SESSION_ID, "total_cost_usd": 0.000188,
        "usage": {
            "input_tokens": 12, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
            "output_tokens": 7, "output_tokens_details": {"thinking_tokens": 0},
            "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
            "service_tier": "standard",
            "cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0}
        },
        "modelUsage": {MODEL: {
            "inputTokens": 12, "outputTokens": 7, "cacheReadInputTokens": 0,
            "cacheCreationInputTokens": 0, "webSearchRequests": 0, "costUSD": 0.000188,
            "contextWindow": 1_000_000, "maxOutputTokens": 128_000
        }},
        "permission_denials": [], "terminal_reason": "completed", "fast_mode_state": "off",
        "uuid": uuid(), "queued_turn_count": 0, "result_index": 0
    })
}

/// `result/success`: the turn ended, answering `text`.
pub fn result_success(text: &str) -> Value {
    with(
        result_base("success", false, 1),
        json!({"result": text, "api_error_status": null}),
    )
}

/// `result/error_during_execution`, with these `errors` (an interrupted
/// turn, a tool loop that failed).
pub fn result_error(errors: &[&str]) -> Value {
    with(
        result_base("error_during_execution", true, 1),
        json!({"errors": errors, "terminal_reason": "aborted_streaming"}),
    )
}

/// `result/error_max_turns`: the turn hit `--max-turns` (`max_turns`).
pub fn result_error_max_turns(max_turns: u32) -> Value {
    with(
        result_base("error_max_turns", true, max_turns + 1),
        json!({"errors": [format!("Reached maximum number of turns ({max_turns})")],
               "terminal_reason": "max_turns"}),
    )
}

/// An API error as the real CLI reports it: the synthetic `assistant`
/// message with the error text, then a `result` whose subtype is
/// `success` but `is_error` is true. `status` is the HTTP status.
pub fn api_error(status: u16, message: &str) -> Vec<Value> {
    let text = format!("API Error: {status} {message}");
    let mut assistant = assistant_text(&text);
    assistant["message"]["model"] = json!("<synthetic>");
    assistant["message"]["stop_reason"] = json!("stop_sequence");
    let assistant = with(
        assistant,
        json!({"error": "unknown", "is_api_error_message": true, "api_error_status": status}),
    );
    let result = with(
        result_base("success", true, 1),
        json!({"result": text, "api_error_status": status, "stop_reason": "stop_sequence",
               "terminal_reason": "api_error", "total_cost_usd": 0, "modelUsage": {}}),
    );
    vec![assistant, result]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_use_ids_agree_for_the_same_call_only() {
        let input = json!({"command": "ls"});
        assert_eq!(
            tool_use_id("Bash", &input),
            tool_use_id("Bash", &input.clone())
        );
        assert_ne!(tool_use_id("Bash", &input), tool_use_id("Read", &input));
        assert_ne!(
            tool_use_id("Bash", &input),
            tool_use_id("Bash", &json!({"command": "ls -l"}))
        );
        let line = assistant_tool_use("Bash", input.clone());
        assert_eq!(
            line["message"]["content"][0]["id"],
            tool_use_id("Bash", &input)
        );
    }

    #[test]
    fn streamed_text_has_the_assistant_message_before_the_block_stop() {
        let lines = stream_text(&["Hel", "lo"]);
        let kinds: Vec<String> = lines
            .iter()
            .map(|l| match l["type"].as_str() {
                Some("stream_event") => l["event"]["type"].as_str().unwrap_or("?").to_owned(),
                other => other.unwrap_or("?").to_owned(),
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "message_start",
                "content_block_start",
                "content_block_delta",
                "content_block_delta",
                "assistant",
                "content_block_stop",
                "message_delta",
                "message_stop"
            ]
        );
        assert_eq!(lines[4]["message"]["content"][0]["text"], "Hello");
        assert_eq!(
            lines[4]["message"]["id"],
            lines[0]["event"]["message"]["id"]
        );
    }

    #[test]
    fn results_carry_their_subtypes() {
        assert_eq!(result_success("ok")["result"], "ok");
        let error = result_error(&["boom"]);
        assert_eq!(error["subtype"], "error_during_execution");
        assert_eq!(error["errors"][0], "boom");
        assert_eq!(error["is_error"], true);
        assert_eq!(result_error_max_turns(3)["subtype"], "error_max_turns");
        let api = api_error(500, "overloaded");
        assert_eq!(api[1]["subtype"], "success");
        assert_eq!(api[1]["is_error"], true);
    }
}
