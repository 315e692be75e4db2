//! Builders for the lines the scripted CLI writes, shaped like (trimmed) lines of
//! the recorded CLI 2.1.330 transcripts. Pure functions of their arguments.

use std::time::Duration;

use serde_json::{Map, Value, json};

/// The version the scripted CLI claims to be.
pub(crate) const VERSION: &str = "2.1.330";
/// The model a session starts with.
pub(crate) const DEFAULT_MODEL: &str = "claude-opus-5-5";
/// Cost of one model call.
const COST_PER_CALL: f64 = 0.000188;
pub(crate) const CWD: &str = "/home/user/project";
const TOOLS: &[&str] = &[
    "Task",
    "Bash",
    "Edit",
    "Read",
    "Write",
    "WebFetch",
    "WebSearch",
    "Skill",
    "ToolSearch",
];
/// Tool-result text when an interrupt rejects a pending tool call.
pub(crate) const REJECTED: &str = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";

/// Deterministic ids: uuids, message/tool/request ids from one counter.
pub(crate) struct Ids {
    n: u64,
    pub(crate) session_id: String,
}

impl Ids {
    pub(crate) fn new() -> Self {
        let mut ids = Ids {
            n: 0,
            session_id: String::new(),
        };
        ids.session_id = ids.uuid();
        ids
    }

    fn next(&mut self) -> u64 {
        self.n += 1;
        self.n
    }

    /// A version-4-shaped UUID.
    pub(crate) fn uuid(&mut self) -> String {
        format!("00000000-0000-4000-8000-{:012x}", self.next())
    }

    pub(crate) fn message_id(&mut self) -> String {
        format!("msg_fake_{:04}", self.next())
    }

    pub(crate) fn tool_use_id(&mut self) -> String {
        format!("toolu_fake_{:04}", self.next())
    }
}

/// A timestamp `elapsed` after 2026-11-22T00:00:00Z (no clock is read).
pub(crate) fn timestamp(elapsed: Duration) -> String {
    let secs = elapsed.as_secs();
    let days = i64::try_from(secs / 86_400).unwrap_or(i64::MAX - START_DAY);
    let (year, month, day) = civil_from_days(START_DAY + days);
    let (h, m, s) = ((secs / 3600) % 24, (secs / 60) % 60, secs % 60);
    let ms = elapsed.subsec_millis();
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{ms:03}Z")
}

/// 2026-11-22, the day a scripted session starts, in days since 1970-01-01.
const START_DAY: i64 = 20_779;

/// The proleptic Gregorian (year, month, day) of `days` since 1970-01-01
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = u32::try_from(day_of_year - (153 * shifted_month + 2) / 5 + 1).unwrap_or(1);
    let month = u32::try_from(if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    })
    .unwrap_or(1);
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Maps a `set_model` argument to the model id the real CLI reports.
pub(crate) fn resolve_model(requested: Option<&str>) -> String {
    match requested {
        None | Some("default" | "opus" | "") => DEFAULT_MODEL.to_owned(),
        Some("sonnet") => "claude-sonnet-5-5".to_owned(),
        Some("haiku") => "claude-haiku-5-5".to_owned(),
        Some(other) => other.to_owned(),
    }
}

/// Adds the members of `extra` (an object) to `base` (an object).
pub(crate) fn merge(mut base: Value, extra: Value) -> Value {
    if let (Some(map), Value::Object(extra)) = (base.as_object_mut(), extra) {
        map.extend(extra);
    }
    base
}

pub(crate) fn control_request(request_id: &str, request: Value) -> Value {
    json!({"type": "control_request", "request_id": request_id, "request": request})
}

/// A success response; `payload` None: no `response` key (plain ack).
pub(crate) fn success(request_id: &str, payload: Option<Value>) -> Value {
    let mut response = json!({"subtype": "success", "request_id": request_id});
    if let (Some(map), Some(payload)) = (response.as_object_mut(), payload) {
        map.insert("response".into(), payload);
    }
    json!({"type": "control_response", "response": response})
}

pub(crate) fn error(request_id: &str, message: &str, code: &str) -> Value {
    json!({"type": "control_response", "response": {
        "subtype": "error", "request_id": request_id, "error": message, "error_code": code}})
}

pub(crate) fn cancel(request_id: &str) -> Value {
    json!({"type": "control_cancel_request", "request_id": request_id})
}

/// The success payload of `initialize`.
pub(crate) fn initialize(pid: u32, model: &str, mode: &str) -> Value {
    json!({
        "commands": [
            {"name": "compact", "description": "Free up context by summarizing the conversation so far", "argumentHint": "<optional custom summarization instructions>", "builtin": true},
            {"name": "context", "description": "Show current context usage", "argumentHint": "", "builtin": true},
            {"name": "model", "description": "Set the AI model for Claude Code", "argumentHint": "<model>", "builtin": true},
            {"name": "usage", "description": "Show session cost, plan usage, and what's contributing to your limits", "argumentHint": "", "aliases": ["cost", "stats"], "builtin": true}
        ],
        "agents": [
            {"name": "general-purpose", "description": "General-purpose agent for researching complex questions."},
            {"name": "Explore", "description": "Fast read-only search agent for locating code.", "model": "inherit"}
        ],
        "output_style": "default",
        "available_output_styles": ["default", "Explanatory", "Learning"],
        "models": [
            {"value": "default", "resolvedModel": DEFAULT_MODEL, "displayName": "Default (recommended)", "description": "Use the default model (currently Opus 5.5)", "supportsEffort": true, "supportedEffortLevels": ["low", "medium", "high"], "supportsAdaptiveThinking": true, "supportsFastMode": true, "supportsAutoMode": true},
            {"value": "sonnet", "resolvedModel": "claude-sonnet-5-5", "displayName": "Sonnet", "description": "Sonnet 5.5 · Efficient for routine tasks", "supportsEffort": true, "supportedEffortLevels": ["low", "medium", "high"], "supportsAdaptiveThinking": true, "supportsAutoMode": true},
            {"value": "haiku", "resolvedModel": "claude-haiku-5-5", "displayName": "Haiku", "description": "Haiku 5.5 · Fastest for quick answers"}
        ],
        "account": {"tokenSource": "none", "apiKeySource": "ANTHROPIC_API_KEY", "apiProvider": "firstParty"},
        "claude_code_version": VERSION,
        "hooks_applied": true,
        "hook_on_failure_supported": true,
        "current_model": model,
        "current_permission_mode": mode,
        "session_state": "idle",
        "pid": pid,
        "analytics_disabled": true,
        "fast_mode_state": "off",
        "fast_mode_disabled_reason": "sdk_opt_in_required",
        "capabilities": ["ui_surface_v1", "mcp_call_result_not_for_model_v1"]
    })
}

/// The `system/init` line that starts every turn.
pub(crate) fn system_init(
    ids: &mut Ids,
    model: &str,
    mode: &str,
    servers: &[String],
    extra_tools: &[String],
) -> Value {
    let tools: Vec<&str> = TOOLS
        .iter()
        .copied()
        .chain(extra_tools.iter().map(String::as_str))
        .collect();
    let servers: Vec<Value> = servers
        .iter()
        .map(|name| json!({"name": name, "status": "connected", "source": "sdk"}))
        .collect();
    json!({
        "type": "system", "subtype": "init", "cwd": CWD, "session_id": ids.session_id,
        "tools": tools, "mcp_servers": servers, "model": model, "permissionMode": mode,
        "slash_commands": ["compact", "context", "model", "usage"],
        "apiKeySource": "ANTHROPIC_API_KEY", "claude_code_version": VERSION,
        "output_style": "default", "agents": ["general-purpose", "Explore"], "skills": [],
        "plugins": [], "fast_mode_state": "off", "uuid": ids.uuid()
    })
}

/// `system/status` after a permission mode change.
pub(crate) fn status(ids: &mut Ids, mode: &str) -> Value {
    json!({"type": "system", "subtype": "status", "status": null, "permissionMode": mode,
           "uuid": ids.uuid(), "session_id": ids.session_id})
}

/// An `assistant` snapshot with one content block.
pub(crate) fn assistant(
    ids: &mut Ids,
    model: &str,
    message_id: &str,
    block: Value,
    at: Duration,
) -> Value {
    json!({
        "type": "assistant",
        "message": {
            "id": message_id, "type": "message", "role": "assistant", "model": model,
            "content": [block], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 12, "cache_creation_input_tokens": 0,
                      "cache_read_input_tokens": 0, "output_tokens": 1},
            "context_management": null
        },
        "parent_tool_use_id": null, "session_id": ids.session_id, "uuid": ids.uuid(),
        "timestamp": timestamp(at), "request_id": format!("req_fake_{:04}", ids.next())
    })
}

/// A CLI-written `user` line with these content blocks.
pub(crate) fn user(ids: &mut Ids, content: Value, at: Duration) -> Value {
    json!({"type": "user", "message": {"role": "user", "content": content},
           "parent_tool_use_id": null, "session_id": ids.session_id, "uuid": ids.uuid(),
           "timestamp": timestamp(at)})
}

/// A `user` tool-result echo.
pub(crate) fn tool_result(
    ids: &mut Ids,
    tool_use_id: &str,
    content: Value,
    is_error: bool,
    at: Duration,
) -> Value {
    let block = json!([{"type": "tool_result", "tool_use_id": tool_use_id, "content": content, "is_error": is_error}]);
    let meta = if is_error {
        json!({"id": tool_use_id, "non_execution_kind": "permission-rule",
               "permission_decision": {"decision": "reject", "source": "user_reject"}})
    } else {
        json!({"id": tool_use_id, "permission_decision": {"decision": "accept", "source": "config"}})
    };
    merge(
        user(ids, block, at),
        json!({"tool_use_result": content, "tool_result_meta": [meta]}),
    )
}

/// A `stream_event` line.
pub(crate) fn stream_event(ids: &mut Ids, message_id: &str, event: Value) -> Value {
    json!({"type": "stream_event", "event": event, "session_id": ids.session_id,
           "parent_tool_use_id": null, "uuid": ids.uuid(), "api_message_id": message_id})
}

/// A raw `stream_event` line (no newline) with `field` spliced in as-is.
pub(crate) fn raw_stream_event(ids: &mut Ids, field: &str) -> Vec<u8> {
    let base = stream_event(ids, "msg_fake_bad", json!({"type": "ping"})).to_string();
    format!("{}, \"extra\": {field}}}", &base[..base.len() - 1]).into_bytes()
}

/// The `can_use_tool` request body for a tool call.
pub(crate) fn can_use_tool(tool: &str, input: &Value, tool_use_id: &str) -> Value {
    json!({
        "subtype": "can_use_tool", "tool_name": tool, "display_name": tool, "input": input,
        "permission_suggestions": [
            {"type": "addRules", "rules": [{"toolName": tool}], "behavior": "allow", "destination": "localSettings"},
            {"type": "setMode", "mode": "acceptEdits", "destination": "session"}
        ],
        "decision_reason_type": "subcommandResults",
        "tool_use_id": tool_use_id
    })
}

/// The input of a hook callback for `event`.
pub(crate) fn hook_input(session_id: &str, event: &str, prompt: &str, mode: &str) -> Value {
    json!({
        "session_id": session_id,
        "transcript_path": format!("/home/user/.claude/projects/-home-user-project/{session_id}.jsonl"),
        "cwd": CWD, "permission_mode": mode, "hook_event_name": event, "prompt": prompt
    })
}

/// The JSON-RPC `initialize` the CLI sends to an MCP server.
pub(crate) fn mcp_initialize(id: u64) -> Value {
    json!({"method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "claude-code", "title": "Claude Code", "version": VERSION}},
        "jsonrpc": "2.0", "id": id})
}

/// Facts of one finished turn, for its `result` line.
pub(crate) struct Outcome {
    /// Some(terminal_reason): `error_during_execution`.
    pub(crate) error: Option<&'static str>,
    pub(crate) text: String,
    pub(crate) calls: u64,
    pub(crate) denials: Vec<Value>,
    pub(crate) elapsed: Duration,
    pub(crate) user_message_uuid: Option<Value>,
}

fn round(cost: f64) -> f64 {
    (cost * 1e9).round() / 1e9
}

/// The `usage` of a result covering `calls` model calls.
fn usage(calls: u64) -> Value {
    json!({
        "input_tokens": 12 * calls, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
        "output_tokens": 7 * calls, "output_tokens_details": {"thinking_tokens": 0},
        "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
        "service_tier": "standard",
        "cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0},
        "inference_geo": "", "iterations": [], "speed": "standard", "fallback_credit": null
    })
}

/// A `result` line. `calls_by_model` is cumulative (includes this turn).
pub(crate) fn result(
    ids: &mut Ids,
    o: Outcome,
    calls_by_model: &[(String, u64)],
    index: u64,
    queued: usize,
) -> Value {
    let total: u64 = calls_by_model.iter().map(|(_, c)| c).sum();
    let model_usage: Map<String, Value> = calls_by_model
        .iter()
        .map(|(model, calls)| {
            let entry = json!({
                "inputTokens": 12 * calls, "outputTokens": 7 * calls, "cacheReadInputTokens": 0,
                "cacheCreationInputTokens": 0, "webSearchRequests": 0,
                "costUSD": round(*calls as f64 * COST_PER_CALL), "contextWindow": 1_000_000,
                "maxOutputTokens": 128_000, "canonicalModel": model, "provider": "firstParty",
                "costBasis": "list"
            });
            (model.clone(), entry)
        })
        .collect();
    let ms = o.elapsed.as_millis() as u64;
    let mut line = json!({
        "duration_api_ms": ms / 2, "session_id": ids.session_id,
        "total_cost_usd": round(total as f64 * COST_PER_CALL), "usage": usage(o.calls),
        "modelUsage": model_usage, "permission_denials": o.denials,
        "terminal_reason": o.error.unwrap_or("completed"), "fast_mode_state": "off",
        "is_error": o.error.is_some(), "num_turns": o.calls, "type": "result",
        "duration_ms": ms, "uuid": ids.uuid(), "queued_turn_count": queued, "result_index": index
    });
    let tail = match o.error {
        Some(_) => {
            json!({"subtype": "error_during_execution", "stop_reason": null, "errors": [o.text]})
        }
        None => json!({"subtype": "success", "stop_reason": "end_turn", "result": o.text,
                       "api_error_status": null, "ttft_ms": ms.min(5)}),
    };
    line = merge(line, tail);
    if let (Some(map), Some(uuid)) = (line.as_object_mut(), o.user_message_uuid) {
        map.insert("user_message_uuid".into(), uuid);
    }
    line
}

/// A trimmed `get_context_usage` payload.
pub(crate) fn context_usage(model: &str) -> Value {
    json!({
        "categories": [
            {"id": "system_prompt", "name": "System prompt", "tokens": 2259, "color": "promptBorder", "kind": "used"},
            {"id": "free_space", "name": "Free space", "tokens": 997_741, "color": "promptBorder", "kind": "free"}
        ],
        "totalTokens": 2259, "maxTokens": 1_000_000, "rawMaxTokens": 1_000_000, "percentage": 0,
        "gridRows": [], "model": model, "memoryFiles": [], "mcpTools": [], "agents": [],
        "isAutoCompactEnabled": true, "apiUsage": null
    })
}

/// Host→CLI subtypes the CLI knows (answered `{}` unless handled apart).
pub(crate) const KNOWN_SUBTYPES: &[&str] = &[
    "rename_session",
    "set_color",
    "get_session_cost",
    "list_models",
    "get_usage",
    "get_binary_version",
    "mcp_call",
    "file_suggestions",
    "rewind_files",
    "cancel_async_message",
    "read_file",
    "seed_read_state",
    "mcp_set_servers",
    "register_repo_root",
    "reload_plugins",
    "reload_skills",
    "reload_output_styles",
    "mcp_reconnect",
    "mcp_toggle",
    "mcp_message",
    "set_has_subscribers",
    "stop_task",
    "background_tasks",
    "get_task_output",
    "apply_flag_settings",
    "get_settings",
    "get_hooks_listing",
    "update_settings",
    "list_permission_rules",
    "mcp_read_resource",
    "end_session",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(civil_from_days(START_DAY), (2026, 11, 22));
    }

    #[test]
    fn timestamps_go_on_past_midnight() {
        assert_eq!(timestamp(Duration::ZERO), "2026-11-22T00:00:00.000Z");
        let later = Duration::from_secs(10 * 86_400 + 3_661) + Duration::from_millis(5);
        assert_eq!(timestamp(later), "2026-12-02T01:01:01.005Z");
    }

    #[test]
    fn uuid_shape() {
        let mut ids = Ids::new();
        let uuid = ids.uuid();
        assert_eq!(uuid.len(), 36);
        assert_eq!(&uuid[14..15], "4");
        assert_eq!(&uuid[19..20], "8");
    }
}
