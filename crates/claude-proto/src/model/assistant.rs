//! `assistant` messages: what the model said, block by block.

use super::wire::wire_struct;
use serde::{Deserialize, Serialize};

use super::common::{Extra, Json, Maybe, string_enum, wire_tag};
use super::content::{ContentBlock, ToolUseBlock};

wire_tag! {
    /// The `"type":"assistant"` marker of an [`AssistantMessage`].
    pub struct AssistantTag = "assistant";
}

wire_struct! {
    /// A message from the model (`type: "assistant"`).
    ///
    /// While a response streams, the CLI writes one of these per finished content
    /// block: several in a row may share `message.id`, each holding only its own
    /// block, with `stop_reason` still `null` and usage not final. The turn's
    /// final stop reason and usage come with the `result` message.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct AssistantMessage {
        /// Always `"assistant"`.
        #[serde(rename = "type")]
        pub kind: AssistantTag,
        /// The Messages API message (content blocks, model, usage, ...).
        pub message: ApiMessage,
        /// Id of the tool call that spawned the subagent that wrote this, `None`
        /// for the main conversation.
        #[serde(deserialize_with = "crate::model::common::nullable")]
        pub parent_tool_use_id: Option<String>,
        /// Set when the message stands for a failed API call (auth, rate limit, ...).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub error: Option<AssistantError>,
        /// Unique id of this message.
        pub uuid: String,
        /// Session the message belongs to.
        pub session_id: String,
        /// Id of the API request that produced it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub request_id: Option<String>,
        /// Client-chosen uuid of the user message this turn answers.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub user_message_uuid: Option<String>,
        /// All user message uuids folded into this turn.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub user_message_uuids: Option<Vec<String>>,
        /// Why the turn was resumed, when it was (e.g. `interrupted_turn`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub resume_reason: Option<String>,
        /// Earlier messages (by uuid) this one replaces; drop them from any display.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub supersedes: Option<Vec<String>>,
        /// `Some(true)` when an interrupt cut the message short.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub aborted: Option<bool>,
        /// Subagent that wrote this message (matches the task id of its task events).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub agent_id: Option<String>,
        /// Kind of subagent that wrote this message.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub subagent_type: Option<String>,
        /// Short description of the subagent's task.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub task_description: Option<String>,
        /// Creation time (ISO 8601), for display only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub timestamp: Option<String>,
        /// `Some(true)` when the message continues a response whose thinking
        /// was cut off (a resumed turn).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub resumed_from_incomplete_thinking: Option<bool>,
        /// Context window breakdown, attached to the output of `/context`.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub context_usage: Maybe<Json>,
        /// Usage and limits report, attached to the output of `/usage`.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub usage_report: Maybe<Json>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl AssistantMessage {
    /// The text of all text blocks, joined with no separator.
    pub fn text(&self) -> String {
        self.message.text()
    }

    /// The tool calls in this message.
    pub fn tool_uses(&self) -> impl Iterator<Item = &ToolUseBlock> {
        self.message.tool_uses()
    }
}

wire_struct! {
    /// The Messages API message inside an [`AssistantMessage`] (or a
    /// `message_start` stream event).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ApiMessage {
        /// API message id (`msg_...`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub id: Option<String>,
        /// Object type, `"message"`.
        #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
        pub kind: Option<String>,
        /// Author role, `"assistant"`.
        pub role: String,
        /// Model that produced the message.
        pub model: String,
        /// The content blocks.
        pub content: Vec<ContentBlock>,
        /// Why generation stopped; `None` while a response is still streaming.
        #[serde(deserialize_with = "crate::model::common::nullable")]
        pub stop_reason: Option<StopReason>,
        /// The custom stop sequence that ended generation, if one did.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub stop_sequence: Maybe<String>,
        /// Details of a refusal stop (category, explanation, suggested model).
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub stop_details: Maybe<Json>,
        /// Token usage for the request.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub usage: Option<Usage>,
        /// Code execution container used by the request.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub container: Maybe<Json>,
        /// Context edits the API applied.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub context_management: Maybe<Json>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl ApiMessage {
    /// The text of all text blocks, joined with no separator.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(ContentBlock::as_text)
            .collect()
    }

    /// The tool calls in this message.
    pub fn tool_uses(&self) -> impl Iterator<Item = &ToolUseBlock> {
        self.content.iter().filter_map(ContentBlock::as_tool_use)
    }
}

string_enum! {
    /// Why the model stopped generating.
    pub enum StopReason {
        /// The model finished its answer.
        EndTurn = "end_turn",
        /// The output token limit was reached.
        MaxTokens = "max_tokens",
        /// A custom stop sequence was produced.
        StopSequence = "stop_sequence",
        /// The model wants to call tools.
        ToolUse = "tool_use",
        /// A long server-side turn was paused; it can be continued.
        PauseTurn = "pause_turn",
        /// The context was compacted.
        Compaction = "compaction",
        /// The model declined to answer.
        Refusal = "refusal",
        /// The context window is full.
        ModelContextWindowExceeded = "model_context_window_exceeded",
    }
}

string_enum! {
    /// Kind of failure when an assistant message reports an API error.
    pub enum AssistantError {
        /// Credentials were rejected.
        AuthenticationFailed = "authentication_failed",
        /// The organization does not allow this OAuth login.
        OauthOrgNotAllowed = "oauth_org_not_allowed",
        /// The account is on hold.
        AccountOnHold = "account_on_hold",
        /// The account must be verified first.
        VerificationRequired = "verification_required",
        /// A billing problem blocks requests.
        BillingError = "billing_error",
        /// A rate limit was hit.
        RateLimit = "rate_limit",
        /// The API is overloaded.
        Overloaded = "overloaded",
        /// The API rejected the request as invalid.
        InvalidRequest = "invalid_request",
        /// The requested model does not exist or is not available.
        ModelNotFound = "model_not_found",
        /// The API had an internal error.
        ServerError = "server_error",
        /// The CLI could not classify the error (wire value `unknown`).
        UnknownError = "unknown",
        /// The response hit the output token limit.
        MaxOutputTokens = "max_output_tokens",
        /// Cloud provider credentials failed.
        CloudCredentialError = "cloud_credential_error",
    }
}

wire_struct! {
    /// Token usage of an API request.
    ///
    /// Every field is optional: a usage object missing one (an older or newer
    /// CLI, a partial report) still types the message it is part of.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct Usage {
        /// Input tokens that were neither read from nor written to the cache.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub input_tokens: Option<u64>,
        /// Output tokens generated.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub output_tokens: Option<u64>,
        /// Input tokens written to the prompt cache.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub cache_creation_input_tokens: Maybe<u64>,
        /// Input tokens read from the prompt cache.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub cache_read_input_tokens: Maybe<u64>,
        /// Counts of server tool calls (web searches, web fetches).
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub server_tool_use: Maybe<ServerToolUsage>,
        /// Service tier that served the request (`standard`, `priority`, ...).
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub service_tier: Maybe<String>,
        /// Fields not modelled here (cache breakdown, geography, ...), kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl Usage {
    /// Tokens written to the cache (0 when not reported).
    pub fn cache_creation_tokens(&self) -> u64 {
        self.cache_creation_input_tokens
            .as_option()
            .copied()
            .unwrap_or(0)
    }

    /// Tokens read from the cache (0 when not reported).
    pub fn cache_read_tokens(&self) -> u64 {
        self.cache_read_input_tokens
            .as_option()
            .copied()
            .unwrap_or(0)
    }

    /// Uncached input tokens (0 when not reported).
    pub fn uncached_input_tokens(&self) -> u64 {
        self.input_tokens.unwrap_or(0)
    }

    /// Output tokens (0 when not reported).
    pub fn generated_tokens(&self) -> u64 {
        self.output_tokens.unwrap_or(0)
    }

    /// All input tokens: uncached plus cache writes plus cache reads.
    pub fn total_input_tokens(&self) -> u64 {
        self.uncached_input_tokens()
            .saturating_add(self.cache_creation_tokens())
            .saturating_add(self.cache_read_tokens())
    }
}

wire_struct! {
    /// Counts of server-side tool calls in a request.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ServerToolUsage {
        /// Number of web searches.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub web_search_requests: Option<u64>,
        /// Number of web fetches.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub web_fetch_requests: Option<u64>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn streamed_block_message_round_trips() {
        let line = json!({
            "type":"assistant",
            "message":{
                "id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5",
                "content":[{"type":"text","text":"Hello","citations":null}],
                "stop_reason":null,"stop_sequence":null,
                "usage":{"input_tokens":3,"output_tokens":1,"cache_creation_input_tokens":0,
                    "cache_read_input_tokens":null,"service_tier":"standard",
                    "server_tool_use":null,"inference_geo":"us","cache_creation":{"ephemeral_1h_input_tokens":0,"ephemeral_5m_input_tokens":0}},
                "context_management":null
            },
            "parent_tool_use_id":null,
            "uuid":"8b1c","session_id":"s1","request_id":"req_1","narration_hint":"faint"
        });
        let m: AssistantMessage = serde_json::from_value(line.clone()).expect("decode");
        assert_eq!(m.text(), "Hello");
        assert_eq!(m.message.stop_reason, None);
        let usage = m.message.usage.as_ref().expect("usage");
        assert_eq!(usage.total_input_tokens(), 3);
        assert_eq!(m.extra.get("narration_hint"), Some(&json!("faint")));
        assert_eq!(serde_json::to_value(&m).expect("encode"), line);
    }

    #[test]
    fn tool_use_and_error_round_trip() {
        let line = json!({
            "type":"assistant",
            "message":{"id":"msg_2","type":"message","role":"assistant","model":"m",
                "content":[{"type":"thinking","thinking":"plan","signature":"s"},
                           {"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}],
                "stop_reason":"tool_use","usage":{"input_tokens":10,"output_tokens":5}},
            "parent_tool_use_id":"toolu_0","error":"rate_limit","uuid":"u","session_id":"s",
            "agent_id":"a1","aborted":true
        });
        let m: AssistantMessage = serde_json::from_value(line.clone()).expect("decode");
        assert_eq!(m.error, Some(AssistantError::RateLimit));
        assert_eq!(m.message.stop_reason, Some(StopReason::ToolUse));
        assert_eq!(m.tool_uses().count(), 1);
        assert_eq!(serde_json::to_value(&m).expect("encode"), line);

        let odd = json!({"type":"assistant","message":{"role":"assistant","model":"m","content":[],"stop_reason":"brand_new"},
            "parent_tool_use_id":null,"error":"new_kind","uuid":"u","session_id":"s"});
        let m: AssistantMessage = serde_json::from_value(odd.clone()).expect("decode");
        assert_eq!(
            m.message.stop_reason,
            Some(StopReason::Unknown("brand_new".into()))
        );
        assert_eq!(serde_json::to_value(&m).expect("encode"), odd);
    }
}
