//! `result` messages: the end of a turn, with its outcome, cost and usage.

use super::wire::wire_struct;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Number;

use super::assistant::{StopReason, Usage};
use super::common::{Extra, Json, Maybe, string_enum, wire_tag};
use super::user::MessageOrigin;

wire_tag! {
    /// The `"type":"result"` marker of a [`ResultMessage`].
    pub struct ResultTag = "result";
}

wire_struct! {
    /// The end of a turn (`type: "result"`); exactly one per turn.
    ///
    /// Read [`subtype`](Self::subtype) and [`is_error`](Self::is_error) for the
    /// outcome, [`result`](Self::result) for the final text of a successful turn,
    /// [`errors`](Self::errors) for what went wrong otherwise, and
    /// [`total_cost_usd`](Self::total_cost_usd) / [`usage`](Self::usage) for the
    /// bill. Note that a turn ended by an API error reports subtype `success`
    /// with `is_error: true` and the error text in `result`;
    /// [`error_message`](Self::error_message) covers both cases.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ResultMessage {
        /// Always `"result"`.
        #[serde(rename = "type")]
        pub kind: ResultTag,
        /// How the turn ended.
        pub subtype: ResultSubtype,
        /// Wall time of the turn, in milliseconds.
        pub duration_ms: u64,
        /// Time spent waiting on the API, in milliseconds.
        pub duration_api_ms: u64,
        /// `true` when the turn failed.
        pub is_error: bool,
        /// Number of model round trips in the turn.
        pub num_turns: u64,
        /// The final text of the turn (subtype `success`; the error text when `is_error`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub result: Option<String>,
        /// What went wrong (error subtypes).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub errors: Option<Vec<String>>,
        /// Stop reason of the last model response, if any.
        #[serde(deserialize_with = "crate::model::common::nullable")]
        pub stop_reason: Option<StopReason>,
        /// Cost so far of the whole session in US dollars (cumulative: read the latest).
        pub total_cost_usd: Number,
        /// Token usage of the turn's main loop.
        pub usage: Usage,
        /// Usage and cost per model, cumulative for the session.
        #[serde(rename = "modelUsage")]
        pub model_usage: BTreeMap<String, ModelUsage>,
        /// Tool calls that were denied during the turn.
        pub permission_denials: Vec<PermissionDenial>,
        /// Why the turn's loop ended, in more detail than `subtype`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub terminal_reason: Option<TerminalReason>,
        /// Validated structured output, when an output schema was requested.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub structured_output: Maybe<Json>,
        /// A tool call left pending for the host to run later.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub deferred_tool_use: Option<DeferredToolUse>,
        /// HTTP status of the API error that ended the turn, if one did.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub api_error_status: Maybe<i64>,
        /// Time to first token of the turn, in milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub ttft_ms: Option<u64>,
        /// Why the CLI could not start (error results at startup).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub startup_failure_reason: Option<String>,
        /// Number of turns still queued behind this one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub queued_turn_count: Option<u64>,
        /// 0-based position of this result among the session's results.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub result_index: Option<u64>,
        /// Fast mode state at the end of the turn (`off`, `cooldown`, `on`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub fast_mode_state: Option<String>,
        /// Time to the first streamed event of the turn, in milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub ttft_stream_ms: Option<u64>,
        /// Time from the start of the turn until its first API request was sent,
        /// in milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub time_to_request_ms: Option<u64>,
        /// Time from the CLI's start until the first API request was sent, in
        /// milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub time_to_request_from_spawn_ms: Option<u64>,
        /// Wall-clock time the first API request was sent (Unix milliseconds).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub request_sent_wall_ms: Option<Number>,
        /// Wall-clock time the CLI process's clock started (Unix milliseconds),
        /// the origin of its other timings.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub time_origin_ms: Option<Number>,
        /// Time until the first content of the response arrived, in milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub first_content_frame_ms: Option<u64>,
        /// Time until the first streamed event was posted to the client, in
        /// milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub first_stream_post_ms: Option<u64>,
        /// Time until that first post was acknowledged, in milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub first_stream_post_ack_ms: Option<u64>,
        /// How long that first post waited in the send queue, in milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub first_stream_post_queue_wait_ms: Option<u64>,
        /// What that first post waited behind (`durable_post`, `ephemeral_post`,
        /// `retry_backoff`, `hold` or `none`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub first_stream_post_queued_behind: Option<String>,
        /// Wall-clock time of that first post (Unix milliseconds).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub first_stream_post_wall_ms: Option<Number>,
        /// Time until the first text was posted to the client, in milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub first_text_post_ms: Option<u64>,
        /// How long that first text post waited in the send queue, in
        /// milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub first_text_post_queue_wait_ms: Option<u64>,
        /// What that first text post waited behind (same values as
        /// `first_stream_post_queued_behind`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub first_text_post_queued_behind: Option<String>,
        /// Wall-clock time of that first text post (Unix milliseconds).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub first_text_post_wall_ms: Option<Number>,
        /// The turn ran on a process started ahead of time (a warm spare).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub warm_spare_claimed: Option<bool>,
        /// The local slash command the turn ran, when it ran one instead of
        /// querying the model.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub local_command: Option<String>,
        /// Why this turn continues one a worker restart interrupted (it re-runs
        /// that turn, or goes on from a permission answer).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub resume_reason: Option<String>,
        /// When the claude.ai credential the requests use ends for good (an ISO
        /// 8601 instant), read as the result was written.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub credential_expires_at: Option<String>,
        /// Why fast mode is off (`free`, `preference`, `extra_usage_disabled`,
        /// `network_error`, ...).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub fast_mode_disabled_reason: Option<String>,
        /// The config file that did not parse, and its backup, when
        /// `startup_failure_reason` is `config_file_invalid` (error results).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub invalid_config_file: Option<InvalidConfigFile>,
        /// Client uuid of the user message this turn answered.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub user_message_uuid: Option<String>,
        /// All user message uuids handled by this turn.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub user_message_uuids: Option<Vec<String>>,
        /// Where the turn's input came from.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub origin: Option<MessageOrigin>,
        /// Unique id of this message.
        pub uuid: String,
        /// Session the turn belongs to.
        pub session_id: String,
        /// Fields not modelled here (timings, diagnostics, ...), kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl ResultMessage {
    /// The session's cost so far in US dollars: the
    /// [`total_cost_usd`](Self::total_cost_usd) field as a number (the CLI
    /// reports a running total; a turn's own cost is `Turn::cost_usd` in the
    /// host crate). `0.0` if the CLI sent a number `f64` cannot hold.
    pub fn total_cost_usd(&self) -> f64 {
        self.total_cost_usd.as_f64().unwrap_or(0.0)
    }

    /// Reads a `result` line field by field, so that the result of a turn is
    /// always there: every field the typed model can read is read, every
    /// other one takes its default (zero, empty, absent) and is named in
    /// [`LenientResult::unread_fields`]. A line that reads whole gives no
    /// unread field; the raw line stays the truth for the rest.
    ///
    /// A missing or unreadable `is_error` is taken as "not a readable
    /// `success` subtype" (a line with neither reads as an error);
    /// a line that is not a JSON object at all gives an error result
    /// (`error_during_execution`, `is_error`) whose `errors` say why, and
    /// [`LenientResult::LINE`] as its only unread field.
    ///
    /// Cost: one parse of the line when it reads whole; otherwise one more
    /// per top-level field, each against a small default result, so a line
    /// of any size or shape is read in time linear in its length.
    ///
    /// ```
    /// use claude_proto::model::result::ResultMessage;
    /// let line = br#"{"type":"result","subtype":"success","is_error":false,"result":"4",
    ///     "session_id":"s","total_cost_usd":0.25,"usage":"not an object"}"#;
    /// let read = ResultMessage::read_leniently(line);
    /// assert_eq!(read.message.result.as_deref(), Some("4"));
    /// assert_eq!(read.message.total_cost_usd(), 0.25);
    /// assert!(read.message.is_success());
    /// assert!(read.unread_fields.contains(&"usage".to_owned()));
    /// assert!(read.unread_fields.contains(&"uuid".to_owned()), "missing fields are named too");
    /// ```
    pub fn read_leniently(line: &[u8]) -> LenientResult {
        if let Ok(message) = serde_json::from_slice::<ResultMessage>(line) {
            return LenientResult {
                message,
                unread_fields: Vec::new(),
            };
        }
        let object = match serde_json::from_slice::<Json>(line) {
            Ok(Json::Object(object)) => object,
            Ok(_) => return LenientResult::unreadable_line("it is not a JSON object"),
            Err(error) => return LenientResult::unreadable_line(&error.to_string()),
        };
        let base = lenient_base();
        let mut read = base.clone();
        let mut unread_fields = Vec::new();
        let mut taken = std::collections::BTreeSet::new();
        for (key, value) in object {
            let mut probe = base.clone();
            probe.insert(key.clone(), value);
            let probe = Json::Object(probe);
            if ResultMessage::deserialize(&probe).is_ok() {
                if let Json::Object(mut probe) = probe {
                    if let Some(value) = probe.remove(&key) {
                        read.insert(key.clone(), value);
                        taken.insert(key);
                    }
                }
            } else {
                unread_fields.push(key);
            }
        }
        let is_error_read = taken.contains("is_error");
        // Required fields the line lacks took their default: unread too.
        for key in base.keys() {
            if !taken.contains(key) && !unread_fields.contains(key) {
                unread_fields.push(key.clone());
            }
        }
        let Ok(mut message) = ResultMessage::deserialize(&Json::Object(read)) else {
            return LenientResult::unreadable_line("its fields do not fit together");
        };
        if !is_error_read {
            // Without a readable `is_error`, only a readable `success`
            // subtype says the turn succeeded.
            let subtype_read = taken.contains("subtype");
            message.is_error = !subtype_read || message.subtype != ResultSubtype::Success;
        }
        unread_fields.sort();
        LenientResult {
            message,
            unread_fields,
        }
    }

    /// `true` for subtype `success` with `is_error: false`.
    pub fn is_success(&self) -> bool {
        self.subtype == ResultSubtype::Success && !self.is_error
    }

    /// The text of the failure, worded as the official SDKs word it, or
    /// `None` when the turn succeeded (subtype `success` without
    /// `is_error`).
    ///
    /// The first of: the `errors` (trimmed, blank ones left out, joined
    /// with `"; "`); the `result` text (a turn ended by an API error
    /// reports subtype `success` with its words there); the subtype, if not
    /// `success`; `API error (HTTP <status>)` from `api_error_status`;
    /// `unknown error`. [`failure_text`] reads the same from a result line
    /// this type cannot read.
    pub fn error_message(&self) -> Option<String> {
        if self.is_success() {
            return None;
        }
        let errors = self.errors.iter().flatten().map(String::as_str);
        let status = self.api_error_status.as_option().map(i64::to_string);
        Some(describe_failure(
            errors,
            self.result.as_deref(),
            self.subtype.as_str(),
            status,
        ))
    }
}

/// A `result` line read by [`ResultMessage::read_leniently`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct LenientResult {
    /// The result: every field that could be read, defaults for the rest.
    pub message: ResultMessage,
    /// The fields that took their default (missing, or of a shape this
    /// version cannot read), sorted; empty when the line read whole.
    /// [`LenientResult::LINE`] when the line was not a JSON object at all.
    pub unread_fields: Vec<String>,
}

impl LenientResult {
    /// The only unread "field" of a line that is not a JSON object.
    pub const LINE: &'static str = "(the whole line)";

    /// `true` when every field of the line was read.
    pub fn is_complete(&self) -> bool {
        self.unread_fields.is_empty()
    }

    fn unreadable_line(why: &str) -> Self {
        let mut message = ResultMessage::deserialize(&Json::Object(lenient_base()))
            .unwrap_or_else(|_| unreachable_base());
        message.subtype = ResultSubtype::ErrorDuringExecution;
        message.is_error = true;
        message.errors = Some(vec![format!(
            "the CLI's result line could not be read: {why}"
        )]);
        LenientResult {
            message,
            unread_fields: vec![Self::LINE.to_owned()],
        }
    }
}

/// The smallest result every required field of [`ResultMessage`] fits:
/// what an unreadable field falls back to.
fn lenient_base() -> serde_json::Map<String, Json> {
    let base = serde_json::json!({
        "type": "result", "subtype": "success", "duration_ms": 0, "duration_api_ms": 0,
        "is_error": false, "num_turns": 0, "stop_reason": null, "total_cost_usd": 0,
        "usage": {}, "modelUsage": {}, "permission_denials": [], "uuid": "", "session_id": "",
    });
    match base {
        Json::Object(object) => object,
        _ => serde_json::Map::new(),
    }
}

/// Never reached: `lenient_base` is a valid result (a test holds it). Kept
/// so that reading a line cannot panic even if it stopped being one.
#[cold]
fn unreachable_base() -> ResultMessage {
    ResultMessage {
        kind: ResultTag,
        subtype: ResultSubtype::ErrorDuringExecution,
        duration_ms: 0,
        duration_api_ms: 0,
        is_error: true,
        num_turns: 0,
        result: None,
        errors: None,
        stop_reason: None,
        total_cost_usd: Number::from(0),
        usage: Usage::default(),
        model_usage: BTreeMap::new(),
        permission_denials: Vec::new(),
        terminal_reason: None,
        structured_output: Maybe::Absent,
        deferred_tool_use: None,
        api_error_status: Maybe::Absent,
        ttft_ms: None,
        startup_failure_reason: None,
        queued_turn_count: None,
        result_index: None,
        fast_mode_state: None,
        ttft_stream_ms: None,
        time_to_request_ms: None,
        time_to_request_from_spawn_ms: None,
        request_sent_wall_ms: None,
        time_origin_ms: None,
        first_content_frame_ms: None,
        first_stream_post_ms: None,
        first_stream_post_ack_ms: None,
        first_stream_post_queue_wait_ms: None,
        first_stream_post_queued_behind: None,
        first_stream_post_wall_ms: None,
        first_text_post_ms: None,
        first_text_post_queue_wait_ms: None,
        first_text_post_queued_behind: None,
        first_text_post_wall_ms: None,
        warm_spare_claimed: None,
        local_command: None,
        resume_reason: None,
        credential_expires_at: None,
        fast_mode_disabled_reason: None,
        invalid_config_file: None,
        user_message_uuid: None,
        user_message_uuids: None,
        origin: None,
        uuid: String::new(),
        session_id: String::new(),
        extra: Extra::default(),
    }
}

/// The text of the failure a result line reports, worded as
/// [`ResultMessage::error_message`] words it, read from the line's JSON:
/// for a line the typed model cannot read (`errors` that is a bare string,
/// or not a list at all, say). `None` when it reports success (subtype
/// `success` without `is_error`) or is not an object.
///
/// ```
/// use claude_proto::model::result::failure_text;
/// use serde_json::json;
/// let line = json!({"type":"result","subtype":"success","is_error":true,"result":"","api_error_status":529});
/// assert_eq!(failure_text(&line).as_deref(), Some("API error (HTTP 529)"));
/// let line = json!({"type":"result","subtype":"error_during_execution","is_error":true,"errors":"Resume rejected"});
/// assert_eq!(failure_text(&line).as_deref(), Some("Resume rejected"));
/// ```
pub fn failure_text(result: &Json) -> Option<String> {
    let object = result.as_object()?;
    let subtype = object.get("subtype").and_then(Json::as_str).unwrap_or("");
    let is_error = object.get("is_error").and_then(Json::as_bool) == Some(true);
    if !is_error && subtype == ResultSubtype::Success.as_str() {
        return None;
    }
    // A bare string is one error; anything else that is not a list, none.
    let errors: Vec<&str> = match object.get("errors") {
        Some(Json::String(one)) => vec![one.as_str()],
        Some(Json::Array(all)) => all.iter().filter_map(Json::as_str).collect(),
        _ => Vec::new(),
    };
    let status = match object.get("api_error_status") {
        None | Some(Json::Null) => None,
        Some(Json::String(text)) => Some(text.clone()),
        Some(other) => Some(other.to_string()),
    };
    Some(describe_failure(
        errors.into_iter(),
        object.get("result").and_then(Json::as_str),
        subtype,
        status,
    ))
}

fn describe_failure<'a>(
    errors: impl Iterator<Item = &'a str>,
    result: Option<&str>,
    subtype: &str,
    api_error_status: Option<String>,
) -> String {
    let errors: Vec<&str> = errors.map(str::trim).filter(|e| !e.is_empty()).collect();
    if !errors.is_empty() {
        return errors.join("; ");
    }
    if let Some(text) = result.map(str::trim).filter(|t| !t.is_empty()) {
        return text.to_owned();
    }
    if !subtype.is_empty() && subtype != ResultSubtype::Success.as_str() {
        return subtype.to_owned();
    }
    match api_error_status {
        Some(status) => format!("API error (HTTP {status})"),
        None => "unknown error".to_owned(),
    }
}

string_enum! {
    /// How a turn ended (the `subtype` of a result).
    pub enum ResultSubtype {
        /// The turn completed (check `is_error`: API errors also end here).
        Success = "success",
        /// The turn failed or was interrupted while running.
        ErrorDuringExecution = "error_during_execution",
        /// The turn limit was reached.
        ErrorMaxTurns = "error_max_turns",
        /// The spending limit was reached.
        ErrorMaxBudgetUsd = "error_max_budget_usd",
        /// Structured output kept failing validation.
        ErrorMaxStructuredOutputRetries = "error_max_structured_output_retries",
    }
}

string_enum! {
    /// Why the agent loop of a turn stopped.
    pub enum TerminalReason {
        /// A hard context limit blocked the request.
        BlockingLimit = "blocking_limit",
        /// A rapid-refill safety breaker tripped.
        RapidRefillBreaker = "rapid_refill_breaker",
        /// The prompt was too long.
        PromptTooLong = "prompt_too_long",
        /// An image could not be processed.
        ImageError = "image_error",
        /// The model failed.
        ModelError = "model_error",
        /// The API returned an error.
        ApiError = "api_error",
        /// The model kept producing malformed tool calls.
        MalformedToolUseExhausted = "malformed_tool_use_exhausted",
        /// Interrupted while the response streamed.
        AbortedStreaming = "aborted_streaming",
        /// Interrupted while tools ran.
        AbortedTools = "aborted_tools",
        /// A stop hook prevented the turn from continuing.
        StopHookPrevented = "stop_hook_prevented",
        /// A hook stopped the turn.
        HookStopped = "hook_stopped",
        /// A tool call was deferred to the host.
        ToolDeferred = "tool_deferred",
        /// The turn limit was reached.
        MaxTurns = "max_turns",
        /// The turn was moved to the background.
        BackgroundRequested = "background_requested",
        /// The turn finished normally.
        Completed = "completed",
        /// The budget ran out.
        BudgetExhausted = "budget_exhausted",
        /// Structured output retries ran out.
        StructuredOutputRetryExhausted = "structured_output_retry_exhausted",
        /// A deferred tool was not available.
        ToolDeferredUnavailable = "tool_deferred_unavailable",
        /// Setting up the turn failed.
        TurnSetupFailed = "turn_setup_failed",
    }
}

wire_struct! {
    /// Usage and cost for one model, as reported in `modelUsage`.
    ///
    /// Every field is optional: a CLI that leaves one out (an older or newer
    /// release) still gives a typed result.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ModelUsage {
        /// Uncached input tokens.
        #[serde(rename = "inputTokens", default, skip_serializing_if = "Option::is_none")]
        pub input_tokens: Option<u64>,
        /// Output tokens (thinking tokens included).
        #[serde(rename = "outputTokens", default, skip_serializing_if = "Option::is_none")]
        pub output_tokens: Option<u64>,
        /// Thinking tokens, already counted in `output_tokens` (absent when no
        /// turn ran on a CLI that records them).
        #[serde(rename = "thinkingTokens", default, skip_serializing_if = "Option::is_none")]
        pub thinking_tokens: Option<u64>,
        /// Input tokens read from the cache.
        #[serde(rename = "cacheReadInputTokens", default, skip_serializing_if = "Option::is_none")]
        pub cache_read_input_tokens: Option<u64>,
        /// Input tokens written to the cache.
        #[serde(rename = "cacheCreationInputTokens", default, skip_serializing_if = "Option::is_none")]
        pub cache_creation_input_tokens: Option<u64>,
        /// Cache writes with a 5-minute lifetime, already counted in
        /// `cache_creation_input_tokens`.
        #[serde(rename = "cacheCreationEphemeral5mInputTokens", default, skip_serializing_if = "Option::is_none")]
        pub cache_creation_ephemeral_5m_input_tokens: Option<u64>,
        /// Cache writes with a 1-hour lifetime, already counted in
        /// `cache_creation_input_tokens`.
        #[serde(rename = "cacheCreationEphemeral1hInputTokens", default, skip_serializing_if = "Option::is_none")]
        pub cache_creation_ephemeral_1h_input_tokens: Option<u64>,
        /// Number of web searches.
        #[serde(rename = "webSearchRequests", default, skip_serializing_if = "Option::is_none")]
        pub web_search_requests: Option<u64>,
        /// Cost in US dollars.
        #[serde(rename = "costUSD", default, skip_serializing_if = "Option::is_none")]
        pub cost_usd: Option<Number>,
        /// Context window size of the model, in tokens.
        #[serde(rename = "contextWindow", default, skip_serializing_if = "Option::is_none")]
        pub context_window: Option<u64>,
        /// Output token limit of the model.
        #[serde(rename = "maxOutputTokens", default, skip_serializing_if = "Option::is_none")]
        pub max_output_tokens: Option<u64>,
        /// The model id prices were looked up by (`claude-opus-4-7`), which may
        /// differ from the key of this entry (a provider's id, an alias).
        #[serde(rename = "canonicalModel", default, skip_serializing_if = "Option::is_none")]
        pub canonical_model: Option<String>,
        /// The API provider that served the model (`firstParty`, `bedrock`,
        /// `vertex`, ...).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub provider: Option<String>,
        /// Which prices the cost is at: the built-in list prices (`list`), the
        /// organization's managed prices (`managed`), or neither (`unknown`).
        #[serde(rename = "costBasis", default, skip_serializing_if = "Option::is_none")]
        pub cost_basis: Option<String>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl ModelUsage {
    /// The cost in US dollars (0 when not reported).
    pub fn cost(&self) -> f64 {
        self.cost_usd
            .as_ref()
            .and_then(Number::as_f64)
            .unwrap_or(0.0)
    }
}

wire_struct! {
    /// The config file a CLI could not start with (a result's
    /// `invalid_config_file`).
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct InvalidConfigFile {
        /// The file that is not valid JSON, as a path on the CLI's machine.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub path: Option<String>,
        /// It is Claude Code's global config file (the only one with backups).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub is_global: Option<bool>,
        /// The CLI knows the outcome of its search for a backup (`true` with
        /// no `backup_path`: there is none).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub backup_searched: Option<bool>,
        /// The backup the error message names.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub backup_path: Option<String>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A tool call the permission system denied.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct PermissionDenial {
        /// The tool's name.
        pub tool_name: String,
        /// Id of the denied call.
        pub tool_use_id: String,
        /// The call's arguments.
        pub tool_input: Json,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A tool call the CLI left for the host to run.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct DeferredToolUse {
        /// Id of the call.
        pub id: String,
        /// The tool's name.
        pub name: String,
        /// The call's arguments.
        pub input: Json,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn usage() -> Json {
        json!({"input_tokens":3,"output_tokens":12,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,
            "server_tool_use":{"web_search_requests":0,"web_fetch_requests":0},"service_tier":"standard",
            "cache_creation":{"ephemeral_1h_input_tokens":0,"ephemeral_5m_input_tokens":0},
            "inference_geo":"","iterations":[],"speed":"standard"})
    }

    #[test]
    fn success_round_trips() {
        let line = json!({"duration_api_ms":900,"type":"result","subtype":"success","is_error":false,
            "duration_ms":1234,"num_turns":1,"result":"4","stop_reason":"end_turn","session_id":"s",
            "total_cost_usd":0,"usage":usage(),
            "modelUsage":{"claude-sonnet-4-5":{"inputTokens":3,"outputTokens":12,"cacheReadInputTokens":0,
                "cacheCreationInputTokens":0,"webSearchRequests":0,"costUSD":0.00123,"contextWindow":200000,
                "maxOutputTokens":64000}},
            "permission_denials":[{"tool_name":"Bash","tool_use_id":"t","tool_input":{"command":"rm -rf /"}}],
            "terminal_reason":"completed","uuid":"u","fast_mode_state":"off","structured_output":null,
            "model_usage_since_last_result":{}});
        let r: ResultMessage = serde_json::from_value(line.clone()).expect("decode");
        assert!(r.is_success());
        assert_eq!(r.result.as_deref(), Some("4"));
        assert_eq!(r.total_cost_usd(), 0.0);
        assert_eq!(r.error_message(), None);
        assert_eq!(r.terminal_reason, Some(TerminalReason::Completed));
        assert_eq!(
            r.model_usage["claude-sonnet-4-5"]
                .cost_usd
                .as_ref()
                .and_then(Number::as_f64),
            Some(0.00123)
        );
        assert_eq!(serde_json::to_value(&r).expect("encode"), line);
    }

    #[test]
    fn the_lenient_base_is_a_result() {
        let base = Json::Object(lenient_base());
        assert!(ResultMessage::deserialize(&base).is_ok());
        let _ = unreachable_base();
    }

    #[test]
    fn a_whole_line_reads_leniently_as_it_reads_strictly() {
        let line = json!({"type":"result","subtype":"success","is_error":false,"duration_ms":1,
            "duration_api_ms":0,"num_turns":1,"result":"ok","stop_reason":null,"total_cost_usd":0.5,
            "usage":usage(),"modelUsage":{},"permission_denials":[],"uuid":"u","session_id":"s"});
        let bytes = serde_json::to_vec(&line).expect("encode");
        let read = ResultMessage::read_leniently(&bytes);
        assert!(read.is_complete());
        assert_eq!(read.message, serde_json::from_value(line).expect("decode"));
    }

    #[test]
    fn a_result_of_an_unknown_shape_keeps_every_field_it_can_read() {
        let line = br#"{"type":"result","subtype":"error_max_turns","errors":"one string",
            "total_cost_usd":1.5,"session_id":"s","brand_new":{"x":1},"num_turns":"three"}"#;
        let read = ResultMessage::read_leniently(line);
        assert_eq!(read.message.subtype, ResultSubtype::ErrorMaxTurns);
        assert!(read.message.is_error, "is_error is missing: not success");
        assert_eq!(read.message.total_cost_usd(), 1.5);
        assert_eq!(read.message.session_id, "s");
        assert_eq!(read.message.extra.get("brand_new"), Some(&json!({"x":1})));
        for field in ["errors", "num_turns", "is_error", "usage", "uuid"] {
            assert!(
                read.unread_fields.iter().any(|f| f == field),
                "{field}: {:?}",
                read.unread_fields
            );
        }
        assert!(
            !read
                .unread_fields
                .iter()
                .any(|f| f == "brand_new" || f == "subtype")
        );
    }

    #[test]
    fn a_result_without_a_readable_outcome_is_an_error() {
        for line in [
            &br#"{"type":"result"}"#[..],
            br#"{"type":"result","subtype":7,"result":"done"}"#,
        ] {
            let read = ResultMessage::read_leniently(line);
            assert!(read.message.is_error, "{}", String::from_utf8_lossy(line));
            assert!(!read.message.is_success());
        }
        let told = ResultMessage::read_leniently(br#"{"type":"result","is_error":false}"#);
        assert!(!told.message.is_error, "an is_error the line gives is kept");
    }

    #[test]
    fn a_result_line_that_is_not_an_object_is_an_error_result() {
        for line in [&b"[1,2]"[..], b"{\"type\":\"result\",", b"not json"] {
            let read = ResultMessage::read_leniently(line);
            assert_eq!(read.unread_fields, [LenientResult::LINE]);
            assert!(read.message.is_error);
            let message = read.message.error_message().expect("an error");
            assert!(message.contains("could not be read"), "{message}");
        }
    }

    #[test]
    fn success_with_is_error_reports_the_text() {
        let line = json!({"type":"result","subtype":"success","is_error":true,"duration_ms":10,"duration_api_ms":0,
            "num_turns":1,"result":"API Error: 500","stop_reason":null,"total_cost_usd":0.5,"usage":usage(),
            "modelUsage":{},"permission_denials":[],"api_error_status":null,"uuid":"u","session_id":"s"});
        let r: ResultMessage = serde_json::from_value(line.clone()).expect("decode");
        assert!(!r.is_success());
        assert_eq!(r.error_message().as_deref(), Some("API Error: 500"));
        assert_eq!(r.api_error_status, Maybe::Null);
        assert_eq!(serde_json::to_value(&r).expect("encode"), line);
    }

    #[test]
    fn error_subtypes_round_trip() {
        let line = json!({"type":"result","subtype":"error_during_execution","is_error":true,"duration_ms":10,
            "duration_api_ms":5,"num_turns":0,"stop_reason":null,"total_cost_usd":0,"usage":usage(),
            "modelUsage":{},"permission_denials":[],"errors":["[ede_diagnostic] aborted","second"],
            "terminal_reason":"aborted_streaming","uuid":"u","session_id":"s"});
        let r: ResultMessage = serde_json::from_value(line.clone()).expect("decode");
        assert_eq!(r.subtype, ResultSubtype::ErrorDuringExecution);
        assert_eq!(
            r.error_message().as_deref(),
            Some("[ede_diagnostic] aborted; second")
        );
        assert_eq!(serde_json::to_value(&r).expect("encode"), line);

        let line = json!({"type":"result","subtype":"error_max_giraffes","is_error":true,"duration_ms":1,
            "duration_api_ms":1,"num_turns":3,"stop_reason":"max_tokens","total_cost_usd":1.25,"usage":usage(),
            "modelUsage":{},"permission_denials":[],"errors":[],"uuid":"u","session_id":"s"});
        let r: ResultMessage = serde_json::from_value(line.clone()).expect("decode");
        assert_eq!(
            r.subtype,
            ResultSubtype::Unknown("error_max_giraffes".into())
        );
        assert_eq!(r.error_message().as_deref(), Some("error_max_giraffes"));
        assert_eq!(serde_json::to_value(&r).expect("encode"), line);
    }

    /// Python SDK 0.2.189's failure texts, case by case; the typed reading
    /// and the raw one agree wherever the line is typed.
    #[test]
    fn failure_texts_as_the_python_sdk_words_them() {
        let base = || {
            json!({"type":"result","subtype":"success","is_error":true,"duration_ms":1,
            "duration_api_ms":1,"num_turns":1,"stop_reason":null,"total_cost_usd":0,"usage":usage(),
            "modelUsage":{},"permission_denials":[],"uuid":"u","session_id":"s"})
        };
        let with = |fields: Json| {
            let mut line = base();
            for (k, v) in fields.as_object().unwrap() {
                line[k] = v.clone();
            }
            line
        };
        for (fields, text) in [
            (
                json!({"result":"","api_error_status":529}),
                "API error (HTTP 529)",
            ),
            (
                json!({"result":"  ","api_error_status":529}),
                "API error (HTTP 529)",
            ),
            (
                json!({"result":" API Error: 529 overloaded "}),
                "API Error: 529 overloaded",
            ),
            (
                json!({"subtype":"error_during_execution","errors":[" "]}),
                "error_during_execution",
            ),
            (
                json!({"subtype":"error_max_turns","errors":[" a ","", "b"]}),
                "a; b",
            ),
            (json!({}), "unknown error"),
            (
                json!({"subtype":"error_during_execution","errors":["Resume rejected by --resume-drops-turn: x"]}),
                "Resume rejected by --resume-drops-turn: x",
            ),
        ] {
            let line = with(fields);
            assert_eq!(failure_text(&line).as_deref(), Some(text), "{line}");
            let typed: ResultMessage = serde_json::from_value(line.clone()).expect("typed");
            assert_eq!(typed.error_message().as_deref(), Some(text), "{line}");
        }
        // Shapes the typed model does not read still give a text.
        for (fields, text) in [
            (
                json!({"subtype":"error_during_execution","errors":"Resume rejected"}),
                "Resume rejected",
            ),
            (
                json!({"subtype":"error_during_execution","errors":42}),
                "error_during_execution",
            ),
            (
                json!({"errors":{"a":1},"result":"API Error: 500"}),
                "API Error: 500",
            ),
            (json!({"errors":[7, " x "]}), "x"),
        ] {
            let line = with(fields);
            assert_eq!(failure_text(&line).as_deref(), Some(text), "{line}");
        }
        let ok = with(json!({"is_error":false,"result":"4"}));
        assert_eq!(failure_text(&ok), None);
        assert_eq!(failure_text(&json!("result")), None);
    }
}
