//! Matchers for what the program sends: its lines
//! ([`Script::expect`](crate::Script::expect)) and its answers to the CLI's
//! requests ([`Script::ask`](crate::Script::ask)).
//!
//! Most are [`Matcher::Subset`]s: the program's line may carry more fields
//! than the matcher names. Build your own the same way, or with
//! [`Matcher::check`] for anything JSON containment cannot say.

use serde_json::{Value, json};

use crate::step::Matcher;

/// Any line at all.
pub fn any() -> Matcher {
    Matcher::Any
}

/// A line containing `value` ([`Matcher::Subset`]).
pub fn subset(value: Value) -> Matcher {
    Matcher::Subset(value)
}

/// A line equal to `value` ([`Matcher::Exact`]).
pub fn exact(value: Value) -> Matcher {
    Matcher::Exact(value)
}

/// A user message whose content is one text block, `text` (how the
/// adapters send a prompt).
pub fn user_text(text: &str) -> Matcher {
    Matcher::Subset(json!({
        "type": "user",
        "message": {"role": "user", "content": [{"type": "text", "text": text}]}
    }))
}

/// A user message whose first text block contains `text`.
pub fn user_text_containing(text: &str) -> Matcher {
    Matcher::Containing {
        subset: json!({"type": "user"}),
        pointer: String::from("/message/content/0/text"),
        text: text.to_owned(),
    }
}

/// Any user message.
pub fn any_user() -> Matcher {
    Matcher::Subset(json!({"type": "user"}))
}

/// A control request of the program's with this subtype.
pub fn control(subtype: &str) -> Matcher {
    Matcher::Subset(json!({"type": "control_request", "request": {"subtype": subtype}}))
}

/// A control request of the program's containing `request` (its
/// `request` object, subtype included).
pub fn control_with(request: Value) -> Matcher {
    Matcher::Subset(json!({"type": "control_request", "request": request}))
}

/// The program's `initialize` request.
pub fn initialize() -> Matcher {
    control("initialize")
}

/// An `interrupt` request.
pub fn interrupt() -> Matcher {
    control("interrupt")
}

/// A `set_model` request for `model`.
pub fn set_model(model: &str) -> Matcher {
    control_with(json!({"subtype": "set_model", "model": model}))
}

/// A `set_permission_mode` request for `mode` (`default`, `acceptEdits`,
/// `plan`, ...).
pub fn set_permission_mode(mode: &str) -> Matcher {
    control_with(json!({"subtype": "set_permission_mode", "mode": mode}))
}

/// A `keep_alive` line.
pub fn keep_alive() -> Matcher {
    Matcher::Subset(json!({"type": "keep_alive"}))
}

/// A `control_cancel_request` of the program's.
pub fn cancel() -> Matcher {
    Matcher::Subset(json!({"type": "control_cancel_request"}))
}

/// An answer: a success, any payload.
pub fn success() -> Matcher {
    Matcher::Subset(json!({"subtype": "success"}))
}

/// An answer: a success whose payload contains `payload`.
pub fn success_with(payload: Value) -> Matcher {
    Matcher::Subset(json!({"subtype": "success", "response": payload}))
}

/// An answer: an error whose message contains `text`.
pub fn error(text: &str) -> Matcher {
    Matcher::Containing {
        subset: json!({"subtype": "error"}),
        pointer: String::from("/error"),
        text: text.to_owned(),
    }
}

/// A permission answer that allows the tool.
pub fn allow() -> Matcher {
    success_with(json!({"behavior": "allow"}))
}

/// A permission answer that allows the tool with this input instead.
pub fn allow_with(updated_input: Value) -> Matcher {
    success_with(json!({"behavior": "allow", "updatedInput": updated_input}))
}

/// A permission answer that denies the tool.
pub fn deny() -> Matcher {
    success_with(json!({"behavior": "deny"}))
}

/// A permission answer that denies the tool with a message containing
/// `text`.
pub fn deny_with(text: &str) -> Matcher {
    Matcher::Containing {
        subset: json!({"subtype": "success", "response": {"behavior": "deny"}}),
        pointer: String::from("/response/message"),
        text: text.to_owned(),
    }
}

/// A hook answer containing `output` (a `HookJSONOutput`:
/// `{"hookSpecificOutput": {...}}`, `{"continue": false}`, ...).
pub fn hook_output(output: Value) -> Matcher {
    success_with(output)
}

/// A `PreToolUse` hook answer with this permission decision (`allow`,
/// `deny`, `ask`, `defer`).
pub fn hook_decision(decision: &str) -> Matcher {
    hook_output(json!({"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "permissionDecision": decision}}))
}

/// An MCP answer whose JSON-RPC `result` contains `result`.
pub fn mcp_result(result: Value) -> Matcher {
    success_with(json!({"mcp_response": {"jsonrpc": "2.0", "result": result}}))
}

/// An MCP tool result of one text block, `text`.
pub fn mcp_tool_text(text: &str) -> Matcher {
    mcp_result(json!({"content": [{"type": "text", "text": text}]}))
}

/// An MCP tool result flagged as an error (`isError: true`).
pub fn mcp_tool_error() -> Matcher {
    mcp_result(json!({"isError": true}))
}
