//! The smaller top-level stdout messages: tool progress, auth status, tool
//! use summaries, rate limits, prompt suggestions, conversation resets,
//! active goals and keep-alives.

use super::wire::wire_struct;
use serde::{Deserialize, Serialize};
use serde_json::Number;

use super::common::{Extra, Maybe, string_enum, wire_tag};

wire_tag! {
    /// The `"type":"tool_progress"` marker of a [`ToolProgressMessage`].
    pub struct ToolProgressTag = "tool_progress";
}
wire_tag! {
    /// The `"type":"auth_status"` marker of an [`AuthStatusMessage`].
    pub struct AuthStatusTag = "auth_status";
}
wire_tag! {
    /// The `"type":"tool_use_summary"` marker of a [`ToolUseSummaryMessage`].
    pub struct ToolUseSummaryTag = "tool_use_summary";
}
wire_tag! {
    /// The `"type":"rate_limit_event"` marker of a [`RateLimitEventMessage`].
    pub struct RateLimitEventTag = "rate_limit_event";
}
wire_tag! {
    /// The `"type":"prompt_suggestion"` marker of a [`PromptSuggestionMessage`].
    pub struct PromptSuggestionTag = "prompt_suggestion";
}
wire_tag! {
    /// The `"type":"conversation_reset"` marker of a [`ConversationResetMessage`].
    pub struct ConversationResetTag = "conversation_reset";
}
wire_tag! {
    /// The `"type":"active_goal"` marker of an [`ActiveGoalMessage`].
    pub struct ActiveGoalTag = "active_goal";
}
wire_tag! {
    /// The `"type":"keep_alive"` marker of a [`KeepAliveMessage`].
    pub struct KeepAliveTag = "keep_alive";
}

wire_struct! {
    /// A tool is still running (`type: "tool_progress"`).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ToolProgressMessage {
        /// Always `"tool_progress"`.
        #[serde(rename = "type")]
        pub kind: ToolProgressTag,
        /// Id of the running tool call.
        pub tool_use_id: String,
        /// The tool's name.
        pub tool_name: String,
        /// Id of the tool call whose subagent runs the tool; `None` for the main conversation.
        #[serde(deserialize_with = "crate::model::common::nullable")]
        pub parent_tool_use_id: Option<String>,
        /// Time since the tool started, in seconds.
        pub elapsed_time_seconds: Number,
        /// The task the tool belongs to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub task_id: Option<String>,
        /// `Some(true)` for a periodic heartbeat without news.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub heartbeat: Option<bool>,
        /// Kind of subagent, when the tool runs one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub subagent_type: Option<String>,
        /// Set while that subagent retries a failed API request.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub subagent_retry: Option<SubagentRetry>,
        /// Unique id of this message.
        pub uuid: String,
        /// Session the message belongs to.
        pub session_id: String,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl ToolProgressMessage {
    /// Elapsed time in seconds as a float.
    pub fn elapsed_seconds(&self) -> f64 {
        self.elapsed_time_seconds.as_f64().unwrap_or(0.0)
    }
}

wire_struct! {
    /// A subagent's API retry, as reported with tool progress.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct SubagentRetry {
        /// The subagent.
        pub agent_id: String,
        /// Which attempt comes next.
        pub attempt: u64,
        /// How many retries are allowed.
        pub max_retries: u64,
        /// Wait before the retry, in milliseconds.
        pub retry_delay_ms: u64,
        /// HTTP status of the failure, `None` when there was no response.
        #[serde(deserialize_with = "crate::model::common::nullable")]
        pub error_status: Option<i64>,
        /// Kind of failure.
        pub error_category: String,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Authentication progress (`type: "auth_status"`).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct AuthStatusMessage {
        /// Always `"auth_status"`.
        #[serde(rename = "type")]
        pub kind: AuthStatusTag,
        /// `true` while authentication is under way.
        #[serde(rename = "isAuthenticating")]
        pub is_authenticating: bool,
        /// Lines of output from the authentication process.
        pub output: Vec<String>,
        /// What went wrong, if anything.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub error: Maybe<String>,
        /// Unique id of this message.
        pub uuid: String,
        /// Session the message belongs to.
        pub session_id: String,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A short summary of the preceding tool calls (`type: "tool_use_summary"`).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ToolUseSummaryMessage {
        /// Always `"tool_use_summary"`.
        #[serde(rename = "type")]
        pub kind: ToolUseSummaryTag,
        /// The summary text.
        pub summary: String,
        /// Ids of the tool calls summarized.
        pub preceding_tool_use_ids: Vec<String>,
        /// Unique id of this message.
        pub uuid: String,
        /// Session the message belongs to.
        pub session_id: String,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Rate limit status changed (`type: "rate_limit_event"`).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct RateLimitEventMessage {
        /// Always `"rate_limit_event"`.
        #[serde(rename = "type")]
        pub kind: RateLimitEventTag,
        /// The new status.
        pub rate_limit_info: RateLimitInfo,
        /// Unique id of this message.
        pub uuid: String,
        /// Session the message belongs to.
        pub session_id: String,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Rate limit status of the account.
    ///
    /// Every field is optional: a report missing one still types the
    /// `rate_limit_event` it is part of.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct RateLimitInfo {
        /// Whether requests are allowed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub status: Option<RateLimitStatus>,
        /// When the limit resets (Unix seconds).
        #[serde(rename = "resetsAt", default, skip_serializing_if = "Option::is_none")]
        pub resets_at: Option<i64>,
        /// Which limit this is about (`five_hour`, `seven_day`, ...).
        #[serde(rename = "rateLimitType", default, skip_serializing_if = "Option::is_none")]
        pub rate_limit_type: Option<String>,
        /// How much of the limit is used (0 to 1).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub utilization: Option<Number>,
        /// Status of pay-as-you-go overage.
        #[serde(rename = "overageStatus", default, skip_serializing_if = "Option::is_none")]
        pub overage_status: Option<RateLimitStatus>,
        /// When the overage limit resets (Unix seconds).
        #[serde(rename = "overageResetsAt", default, skip_serializing_if = "Option::is_none")]
        pub overage_resets_at: Option<i64>,
        /// Why overage is unavailable, when it is.
        #[serde(rename = "overageDisabledReason", default, skip_serializing_if = "Option::is_none")]
        pub overage_disabled_reason: Option<String>,
        /// `Some(true)` while requests draw on overage.
        #[serde(rename = "isUsingOverage", default, skip_serializing_if = "Option::is_none")]
        pub is_using_overage: Option<bool>,
        /// Usage threshold just crossed, if any (0 to 1).
        #[serde(rename = "surpassedThreshold", default, skip_serializing_if = "Option::is_none")]
        pub surpassed_threshold: Option<Number>,
        /// `Some(true)` while overage is being used.
        #[serde(rename = "overageInUse", default, skip_serializing_if = "Option::is_none")]
        pub overage_in_use: Option<bool>,
        /// Whether pay-as-you-go overage is turned on for the account.
        #[serde(rename = "overageEnabled", default, skip_serializing_if = "Option::is_none")]
        pub overage_enabled: Option<bool>,
        /// Which spend limit refused the request when it is not the member's own
        /// (`service`, `channel`, or `group_pool`: a team's pooled budget).
        #[serde(rename = "limitScope", default, skip_serializing_if = "Option::is_none")]
        pub limit_scope: Option<String>,
        /// A machine-readable reason for a refusal (`credits_required`).
        #[serde(rename = "errorCode", default, skip_serializing_if = "Option::is_none")]
        pub error_code: Option<String>,
        /// Whether the user may buy more credits.
        #[serde(rename = "canUserPurchaseCredits", default, skip_serializing_if = "Option::is_none")]
        pub can_user_purchase_credits: Option<bool>,
        /// Whether the account has a saved payment method that can be charged.
        #[serde(rename = "hasChargeableSavedPaymentMethod", default, skip_serializing_if = "Option::is_none")]
        pub has_chargeable_saved_payment_method: Option<bool>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

string_enum! {
    /// Whether a rate limit lets requests through.
    pub enum RateLimitStatus {
        /// Requests are allowed.
        Allowed = "allowed",
        /// Requests are allowed but the limit is close.
        AllowedWarning = "allowed_warning",
        /// Requests are refused until the limit resets.
        Rejected = "rejected",
    }
}

wire_struct! {
    /// A suggested next prompt (`type: "prompt_suggestion"`), sent after a result.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct PromptSuggestionMessage {
        /// Always `"prompt_suggestion"`.
        #[serde(rename = "type")]
        pub kind: PromptSuggestionTag,
        /// The suggested prompt.
        pub suggestion: String,
        /// Unique id of this message.
        pub uuid: String,
        /// Session the message belongs to.
        pub session_id: String,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// The conversation was cleared and a new one started (`type: "conversation_reset"`).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ConversationResetMessage {
        /// Always `"conversation_reset"`.
        #[serde(rename = "type")]
        pub kind: ConversationResetTag,
        /// Id of the new conversation.
        pub new_conversation_id: String,
        /// What caused it (`clear`, `plan_mode_exit`, `fresh_session`, `onboarding`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub trigger: Option<String>,
        /// Client uuid of the user message that caused it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub user_message_uuid: Option<String>,
        /// When it happened (ISO 8601).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub timestamp: Option<String>,
        /// Unique id of this message.
        pub uuid: String,
        /// Session the message belongs to.
        pub session_id: String,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// The active goal changed (`type: "active_goal"`).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ActiveGoalMessage {
        /// Always `"active_goal"`.
        #[serde(rename = "type")]
        pub kind: ActiveGoalTag,
        /// The goal, or `None` when it was cleared.
        #[serde(deserialize_with = "crate::model::common::nullable")]
        pub value: Option<ActiveGoal>,
        /// Unique id of this message.
        pub uuid: String,
        /// Session the message belongs to.
        pub session_id: String,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A goal the agent keeps working towards across turns.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ActiveGoal {
        /// The condition that ends the goal.
        pub condition: String,
        /// Turns spent on it so far.
        pub iterations: u64,
        /// When it was set (milliseconds since the Unix epoch).
        pub set_at: u64,
        /// Token count when it was set.
        pub tokens_at_start: u64,
        /// Why the last iteration ended.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub last_reason: Option<String>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A heartbeat (`type: "keep_alive"`); safe to ignore.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct KeepAliveMessage {
        /// Always `"keep_alive"`.
        #[serde(rename = "type")]
        pub kind: KeepAliveTag,
        /// A startup checkpoint name, on heartbeats sent while the CLI starts.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub startup_mark: Option<String>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::DeserializeOwned;
    use serde_json::{Value, json};

    fn round_trip<T: DeserializeOwned + Serialize>(v: Value) -> T {
        let m: T = serde_json::from_value(v.clone()).expect("decode");
        assert_eq!(serde_json::to_value(&m).expect("encode"), v);
        m
    }

    #[test]
    fn tool_progress_round_trips() {
        let m: ToolProgressMessage = round_trip(
            json!({"type":"tool_progress","tool_use_id":"t","tool_name":"Bash",
            "parent_tool_use_id":null,"elapsed_time_seconds":15,"uuid":"u","session_id":"s","heartbeat":true,
            "subagent_retry":{"agent_id":"a","attempt":1,"max_retries":3,"retry_delay_ms":100,"error_status":null,"error_category":"overloaded"}}),
        );
        assert_eq!(m.elapsed_seconds(), 15.0);
        let m: ToolProgressMessage = round_trip(
            json!({"type":"tool_progress","tool_use_id":"t","tool_name":"Bash",
            "parent_tool_use_id":"p","elapsed_time_seconds":2.5,"uuid":"u","session_id":"s"}),
        );
        assert_eq!(m.elapsed_seconds(), 2.5);
    }

    #[test]
    fn small_messages_round_trip() {
        let m: AuthStatusMessage = round_trip(json!({"type":"auth_status","isAuthenticating":true,
            "output":["Authenticating..."],"error":null,"uuid":"u","session_id":"s"}));
        assert_eq!(m.error, Maybe::Null);
        round_trip::<ToolUseSummaryMessage>(
            json!({"type":"tool_use_summary","summary":"Read 3 files",
            "preceding_tool_use_ids":["a","b"],"uuid":"u","session_id":"s","timestamp":"2026-01-01T00:00:00Z"}),
        );
        round_trip::<PromptSuggestionMessage>(
            json!({"type":"prompt_suggestion","suggestion":"Run the tests","uuid":"u","session_id":"s"}),
        );
        round_trip::<ConversationResetMessage>(
            json!({"type":"conversation_reset","new_conversation_id":"c",
            "trigger":"clear","uuid":"u","session_id":"s","user_message_from_human":true}),
        );
        let m: ActiveGoalMessage =
            round_trip(json!({"type":"active_goal","value":null,"uuid":"u","session_id":"s"}));
        assert!(m.value.is_none());
        let m: ActiveGoalMessage = round_trip(
            json!({"type":"active_goal","value":{"condition":"tests pass",
            "iterations":2,"set_at":1700000000000u64,"tokens_at_start":1000,"last_reason":"r"},"uuid":"u","session_id":"s"}),
        );
        assert_eq!(m.value.map(|g| g.iterations), Some(2));
        round_trip::<KeepAliveMessage>(json!({"type":"keep_alive"}));
        round_trip::<KeepAliveMessage>(json!({"type":"keep_alive","startup_mark":"init_done"}));
    }

    #[test]
    fn rate_limit_round_trips() {
        let m: RateLimitEventMessage = round_trip(
            json!({"type":"rate_limit_event","rate_limit_info":{
            "status":"allowed_warning","resetsAt":1700000000,"rateLimitType":"five_hour","utilization":0.91,
            "overageStatus":"rejected","overageDisabledReason":"out_of_credits","isUsingOverage":false,
            "surpassedThreshold":0.9,"unifiedWindows":{"five_hour":{"utilization":0.91,"resetsAt":1}}},
            "uuid":"u","session_id":"s"}),
        );
        assert_eq!(
            m.rate_limit_info.status,
            Some(RateLimitStatus::AllowedWarning)
        );
        assert!(
            serde_json::from_value::<RateLimitEventMessage>(json!({"type":"tool_progress",
            "rate_limit_info":{"status":"allowed"},"uuid":"u","session_id":"s"}))
            .is_err()
        );
    }
}
