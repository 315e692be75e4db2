//! Control requests the CLI sends the program, for
//! [`Script::ask`](crate::Script::ask): each builder returns the request
//! body (`{"subtype": ..., ...}`); the scripted CLI wraps it in a
//! `control_request` with a fresh `request_id` and checks the program's
//! answer with a matcher from [`expect`](crate::expect).
//!
//! Shapes follow the real CLI 2.1.330 (trimmed).

use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Value, json};

use crate::cli::{CWD, SESSION_ID, tool_use_id, with};

/// JSON-RPC ids of the MCP calls the scripted CLI makes: 0 and 1 are its
/// handshake's, as with the real CLI.
static MCP_IDS: AtomicU64 = AtomicU64::new(2);

/// `can_use_tool`: may `tool` run with `input`? The request carries the
/// tool-use id of [`cli::assistant_tool_use`](crate::cli::assistant_tool_use)
/// for the same call, and the permission suggestions the real CLI offers.
pub fn can_use_tool(tool: &str, input: Value) -> Value {
    let id = tool_use_id(tool, &input);
    let mut request = json!({
        "subtype": "can_use_tool", "tool_name": tool, "display_name": tool, "input": input,
        "permission_suggestions": [
            {"type": "addRules", "rules": [{"toolName": tool}], "behavior": "allow",
             "destination": "localSettings"},
            {"type": "setMode", "mode": "acceptEdits", "destination": "session"}
        ],
        "tool_use_id": id
    });
    if let Some(description) = request["input"]["description"].as_str() {
        request["description"] = Value::String(description.to_owned());
    }
    request
}

/// `hook_callback` for `event` with the event's own input `fields` (the
/// base fields every hook input has, `session_id`, `transcript_path`,
/// `cwd`, `permission_mode`, `hook_event_name`, are filled in). It has no
/// `callback_id`: the scripted CLI puts in the one the program registered
/// for `event` (see [`Step::Ask`](crate::Step::Ask)); add one with
/// [`cli::with`](crate::cli::with) to force it.
pub fn hook(event: &str, fields: Value) -> Value {
    let base = json!({
        "session_id": SESSION_ID,
        "transcript_path": format!("/home/user/.claude/projects/-home-user-project/{SESSION_ID}.jsonl"),
        "cwd": CWD, "permission_mode": "default", "hook_event_name": event
    });
    let input = with(base, fields);
    let tool_use_id = match input["tool_use_id"].as_str() {
        Some(id) => id.to_owned(),
        None => crate::cli::uuid(),
    };
    json!({"subtype": "hook_callback", "input": input, "tool_use_id": tool_use_id})
}

/// The `PreToolUse` hook for a call of `tool` with `input`.
pub fn pre_tool_use(tool: &str, input: Value) -> Value {
    let id = tool_use_id(tool, &input);
    hook(
        "PreToolUse",
        json!({"tool_name": tool, "tool_input": input, "tool_use_id": id}),
    )
}

/// The `PostToolUse` hook after `tool` ran with `input` and gave
/// `response`.
pub fn post_tool_use(tool: &str, input: Value, response: Value) -> Value {
    let id = tool_use_id(tool, &input);
    hook(
        "PostToolUse",
        json!({"tool_name": tool, "tool_input": input, "tool_response": response, "tool_use_id": id}),
    )
}

/// The `UserPromptSubmit` hook for `prompt`.
pub fn user_prompt_submit(prompt: &str) -> Value {
    hook("UserPromptSubmit", json!({"prompt": prompt}))
}

/// The `Stop` hook at the end of a turn.
pub fn stop() -> Value {
    hook("Stop", json!({"stop_hook_active": false}))
}

/// `mcp_message` carrying the JSON-RPC `message` to the program's
/// in-process MCP server `server`.
pub fn mcp_message(server: &str, message: Value) -> Value {
    json!({"subtype": "mcp_message", "server_name": server, "message": message})
}

/// The MCP `initialize` the CLI sends each in-process server first
/// (JSON-RPC id 0).
pub fn mcp_initialize(server: &str) -> Value {
    mcp_message(
        server,
        json!({"method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "claude-code", "title": "Claude Code", "version": crate::cli::VERSION}},
            "jsonrpc": "2.0", "id": 0}),
    )
}

/// The `notifications/initialized` the CLI sends after `initialize`.
pub fn mcp_initialized(server: &str) -> Value {
    mcp_message(
        server,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
}

/// The `tools/list` the CLI sends after the handshake (JSON-RPC id 1).
pub fn mcp_tools_list(server: &str) -> Value {
    mcp_message(
        server,
        json!({"method": "tools/list", "jsonrpc": "2.0", "id": 1}),
    )
}

/// A `tools/call` of `tool` on `server` with `arguments`, as the CLI sends
/// it when the model calls `mcp__<server>__<tool>` (its `_meta` names the
/// tool use of [`cli::assistant_tool_use`](crate::cli::assistant_tool_use)
/// for that name and input).
pub fn mcp_tool_call(server: &str, tool: &str, arguments: Value) -> Value {
    let id = MCP_IDS.fetch_add(1, Ordering::Relaxed);
    let tool_use = tool_use_id(&format!("mcp__{server}__{tool}"), &arguments);
    mcp_message(
        server,
        json!({"method": "tools/call", "params": {
            "name": tool, "arguments": arguments,
            "_meta": {"claudecode/toolUseId": tool_use, "progressToken": id}},
            "jsonrpc": "2.0", "id": id}),
    )
}

/// `elicitation`: the MCP server `server` asks the user for input in a
/// form described by `requested_schema` (a JSON Schema).
pub fn elicitation(server: &str, message: &str, requested_schema: Value) -> Value {
    json!({"subtype": "elicitation", "mcp_server_name": server, "message": message,
           "mode": "form", "requested_schema": requested_schema})
}

/// `request_user_dialog` of kind `kind` (only sent for kinds the program
/// declared in `initialize.supportedDialogKinds`).
pub fn user_dialog(kind: &str, payload: Value) -> Value {
    json!({"subtype": "request_user_dialog", "dialog_kind": kind, "payload": payload})
}
