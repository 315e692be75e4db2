//! Fixed payloads copied (and trimmed) from transcripts of CLI 2.1.330.
//!
//! Only the data that never changes lives here; the per-line builders are
//! methods of `Cli` in `cli.rs`.

use serde_json::{Value, json};

/// The version the fake claims to be.
pub(crate) const VERSION: &str = "2.1.330";

/// The model the session starts with.
pub(crate) const DEFAULT_MODEL: &str = "claude-opus-5-5";

/// Cost of one (canned) model call, as the mock API produced.
pub(crate) const COST_PER_CALL: f64 = 0.000188;

/// Built-in tools listed in `system/init`.
pub(crate) const TOOLS: &[&str] = &[
    "Task",
    "AskUserQuestion",
    "Bash",
    "CronCreate",
    "CronDelete",
    "CronList",
    "Edit",
    "EnterPlanMode",
    "EnterWorktree",
    "ExitPlanMode",
    "ExitWorktree",
    "ListAgents",
    "Monitor",
    "NotebookEdit",
    "Read",
    "ReportFindings",
    "ScheduleWakeup",
    "SendMessage",
    "Skill",
    "TaskStop",
    "ToolSearch",
    "WebFetch",
    "WebSearch",
    "Workflow",
    "Write",
];

/// Maps a `set_model` argument to the model id the real CLI reports.
pub(crate) fn resolve_model(requested: Option<&str>) -> String {
    match requested {
        None | Some("default" | "opus" | "") => DEFAULT_MODEL.to_owned(),
        Some("sonnet") => "claude-sonnet-5-5".to_owned(),
        Some("haiku") => "claude-haiku-5-5".to_owned(),
        Some("fable") => "claude-fable-5-2".to_owned(),
        Some(other) => other.to_owned(),
    }
}

/// `system/init` fields that do not depend on session state.
pub(crate) fn init_static() -> Value {
    json!({
        "slash_commands": [
            "debug", "code-review", "simplify", "batch", "loop", "claude-api",
            "clear", "color", "compact", "config", "context", "effort", "init",
            "mcp", "model", "rename", "security-review", "usage"
        ],
        "terminal_slash_commands": ["doctor", "color", "focus", "reload-plugins"],
        "apiKeySource": "ANTHROPIC_API_KEY",
        "claude_code_version": VERSION,
        "output_style": "default",
        "agents": ["claude", "Explore", "general-purpose", "Plan", "statusline-setup"],
        "skills": ["debug", "code-review", "simplify", "batch", "loop", "claude-api"],
        "plugins": [
            {"name": "cc-plugin-agents-md", "path": "builtin", "source": "cc-plugin-agents-md@builtin"}
        ],
        "capabilities": [
            "interrupt_receipt_v1", "interrupt_cancel_queued_v1", "msg_lifecycle_v1",
            "request_marker_lists_v1", "sdk_mcp_tools_list_changed", "sdk_mcp_manifests",
            "mcp_read_resource_v1"
        ],
        "analytics_disabled": true,
        "product_feedback_disabled": true,
        "served_by_anthropic": false,
        "additional_directories": [],
        "fast_mode_state": "off",
        "fast_mode_disabled_reason": "sdk_opt_in_required",
        "per_turn_effort_active": true,
        "ultrathink_available": false,
        "ultrathink_typed_raises": false,
        "view_mode": "default"
    })
}

/// The success payload of `initialize` (without the state-dependent keys).
pub(crate) fn initialize_static() -> Value {
    json!({
        "commands": [
            {"name": "debug", "description": "Enable debug logging for this session and help diagnose issues", "argumentHint": "[issue description]", "builtin": true},
            {"name": "code-review", "description": "Review the current diff, or a PR number/branch/path target, for correctness bugs", "argumentHint": "[low|medium|high|xhigh|max] [--fix] [--comment] [<pr#>|<branch>|<path>]", "aliases": ["review"], "builtin": true},
            {"name": "simplify", "description": "Review the changed code for reuse, simplification, efficiency, and altitude cleanups, then apply the fixes.", "argumentHint": "[<target>]", "builtin": true},
            {"name": "loop", "description": "Run a prompt or slash command on a recurring interval (e.g. /loop 5m /foo). Omit the interval to let the model self-pace.", "argumentHint": "[interval] [prompt]", "aliases": ["proactive"], "builtin": true},
            {"name": "clear", "description": "Start a new session with empty context; loops carry over, and the old one stays in /resume", "argumentHint": "[name]", "aliases": ["reset", "new"], "builtin": true},
            {"name": "compact", "description": "Free up context by summarizing the conversation so far", "argumentHint": "<optional custom summarization instructions>", "builtin": true},
            {"name": "context", "description": "Show current context usage", "argumentHint": "", "builtin": true},
            {"name": "model", "description": "Set the AI model for Claude Code", "argumentHint": "<model>", "builtin": true},
            {"name": "usage", "description": "Show session cost, plan usage, and what's contributing to your limits", "argumentHint": "", "aliases": ["cost", "stats"], "builtin": true}
        ],
        "agents": [
            {"name": "claude", "description": "Catch-all for any task that doesn't fit a more specific agent."},
            {"name": "Explore", "description": "Fast read-only search agent for locating code.", "model": "inherit"},
            {"name": "general-purpose", "description": "General-purpose agent for researching complex questions, searching for code, and executing multi-step tasks."},
            {"name": "Plan", "description": "Software architect agent for designing implementation plans.", "model": "inherit"},
            {"name": "statusline-setup", "description": "Use this agent to configure the user's Claude Code status line setting.", "model": "sonnet"}
        ],
        "output_style": "default",
        "available_output_styles": ["default", "Proactive", "Concise", "Explanatory", "Learning"],
        "models": [
            {"value": "default", "resolvedModel": "claude-opus-5-5", "displayName": "Default (recommended)", "description": "Use the default model (currently Opus 5.5) · $4/$20 per Mtok", "supportsEffort": true, "supportedEffortLevels": ["low", "medium", "high", "xhigh", "max"], "supportsAdaptiveThinking": true, "supportsFastMode": true, "supportsAutoMode": true, "supportsThinkingOff": false},
            {"value": "opus", "resolvedModel": "claude-opus-5-5", "displayName": "Opus", "description": "Opus 5.5 · Best for everyday, complex tasks · $4/$20 per Mtok", "supportsEffort": true, "supportedEffortLevels": ["low", "medium", "high", "xhigh", "max"], "supportsAdaptiveThinking": true, "supportsFastMode": true, "supportsAutoMode": true, "supportsThinkingOff": false},
            {"value": "sonnet", "resolvedModel": "claude-sonnet-5-5", "displayName": "Sonnet", "description": "Sonnet 5.5 · Efficient for routine tasks · $2/$10 per Mtok", "supportsEffort": true, "supportedEffortLevels": ["low", "medium", "high", "xhigh", "max"], "supportsAdaptiveThinking": true, "supportsAutoMode": true, "supportsThinkingOff": false},
            {"value": "haiku", "resolvedModel": "claude-haiku-5-5", "displayName": "Haiku", "description": "Haiku 5.5 · Fastest for quick answers · $0.10/$0.50 per Mtok", "supportsEffort": true, "supportedEffortLevels": ["low", "medium", "high", "xhigh", "max"], "supportsAdaptiveThinking": true, "supportsAutoMode": true, "supportsThinkingOff": false}
        ],
        "account": {"tokenSource": "none", "apiKeySource": "ANTHROPIC_API_KEY", "apiProvider": "firstParty"},
        "claude_code_version": VERSION,
        "hooks_applied": true,
        "hook_on_failure_supported": true,
        "hooks_when_unanswered_kept": 0,
        "other_hook_ask_outranks_host": true,
        "feedback_mode": {"kind": "disabled"},
        "analytics_disabled": true,
        "fast_mode_state": "off",
        "fast_mode_disabled_reason": "sdk_opt_in_required",
        "session_state": "idle",
        "capabilities": ["ui_surface_v1", "mcp_call_result_not_for_model_v1", "reload_plugins_refuse_if_busy_v1"]
    })
}

/// A trimmed `get_context_usage` payload (the real one has a 10x20 grid).
pub(crate) fn context_usage(model: &str) -> Value {
    json!({
        "categories": [
            {"id": "system_prompt", "name": "System prompt", "tokens": 2259, "color": "promptBorder", "kind": "used"},
            {"id": "system_tools", "name": "System tools", "tokens": 10017, "color": "inactive", "kind": "used"},
            {"id": "skills", "name": "Skills", "tokens": 2067, "color": "warning", "kind": "used"},
            {"id": "autocompact_buffer", "name": "Autocompact buffer", "tokens": 33000, "color": "inactive", "kind": "buffer"},
            {"id": "free_space", "name": "Free space", "tokens": 952_657, "color": "promptBorder", "kind": "free"}
        ],
        "totalTokens": 14343,
        "maxTokens": 1_000_000,
        "rawMaxTokens": 1_000_000,
        "autocompactSource": "model-default",
        "percentage": 1,
        "gridRows": [],
        "model": model,
        "memoryFiles": [],
        "mcpTools": [],
        "mcpInstructions": [],
        "agents": [],
        "slashCommands": {"totalCommands": 9, "includedCommands": 9, "tokens": 1102},
        "autoCompactThreshold": 967_000,
        "isAutoCompactEnabled": true,
        "messageBreakdown": {
            "toolCallTokens": 0, "toolResultTokens": 0, "attachmentTokens": 0,
            "assistantMessageTokens": 0, "userMessageTokens": 0, "redirectedContextTokens": 0,
            "unattributedTokens": 0, "toolCallsByType": [], "attachmentsByType": []
        },
        "apiUsage": null
    })
}

/// The `usage` object of a result covering `calls` model calls.
pub(crate) fn result_usage(calls: u64) -> Value {
    json!({
        "input_tokens": 12 * calls,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": 7 * calls,
        "output_tokens_details": {"thinking_tokens": 0},
        "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
        "service_tier": "standard",
        "cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0},
        "inference_geo": "",
        "iterations": [],
        "speed": "standard",
        "fallback_credit": null
    })
}

/// One `modelUsage` entry for `calls` model calls costing `cost`.
pub(crate) fn model_usage(model: &str, calls: u64, cost: f64) -> Value {
    json!({
        "inputTokens": 12 * calls,
        "outputTokens": 7 * calls,
        "cacheReadInputTokens": 0,
        "cacheCreationInputTokens": 0,
        "webSearchRequests": 0,
        "costUSD": cost,
        "contextWindow": 1_000_000,
        "maxOutputTokens": 128_000,
        "thinkingTokens": 0,
        "cacheCreationEphemeral5mInputTokens": 0,
        "cacheCreationEphemeral1hInputTokens": 0,
        "canonicalModel": model,
        "provider": "firstParty",
        "costBasis": "list"
    })
}

/// The per-message `usage` of an `assistant` snapshot.
pub(crate) fn snapshot_usage() -> Value {
    json!({
        "input_tokens": 12,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": 1
    })
}

/// The tool-result text of the real CLI when an interrupt rejects a call.
pub(crate) const REJECTED_TOOL_USE: &str = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";
