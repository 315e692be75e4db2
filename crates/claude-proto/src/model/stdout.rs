//! Everything the CLI writes to stdout, apart from the control channel.

use serde::Serialize;
use serde::de::{Deserialize, DeserializeOwned, Deserializer};
use std::str::FromStr;

use super::assistant::AssistantMessage;
use super::common::Json;
use super::kind::MessageType;
use super::misc::{
    ActiveGoalMessage, AuthStatusMessage, ConversationResetMessage, KeepAliveMessage,
    PromptSuggestionMessage, RateLimitEventMessage, ToolProgressMessage, ToolUseSummaryMessage,
};
use super::open_enum;
use super::result::ResultMessage;
use super::stream::StreamEventMessage;
use super::system::SystemMessage;
use super::user::UserMessage;

/// One message read from the CLI's stdout.
///
/// Serializing it writes the complete wire object back (each struct carries
/// its own `type`). A line whose `type` is unknown, or whose fields no longer
/// fit the typed struct, arrives as [`StdoutMessage::Unknown`] with the whole
/// object kept, so a newer CLI never breaks a session.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum StdoutMessage {
    /// A message from the model.
    Assistant(Box<AssistantMessage>),
    /// A user message: tool results, echoes and replays of input.
    User(Box<UserMessage>),
    /// The end of a turn, with outcome, cost and usage.
    Result(Box<ResultMessage>),
    /// A raw API stream event (partial messages only).
    StreamEvent(StreamEventMessage),
    /// A system notice (init, status, tasks, hooks, ...).
    System(SystemMessage),
    /// A tool is still running.
    ToolProgress(ToolProgressMessage),
    /// Authentication progress.
    AuthStatus(AuthStatusMessage),
    /// A summary of preceding tool calls.
    ToolUseSummary(ToolUseSummaryMessage),
    /// Rate limit status changed.
    RateLimitEvent(RateLimitEventMessage),
    /// A suggested next prompt.
    PromptSuggestion(PromptSuggestionMessage),
    /// The conversation was cleared.
    ConversationReset(ConversationResetMessage),
    /// The active goal changed.
    ActiveGoal(ActiveGoalMessage),
    /// A heartbeat.
    KeepAlive(KeepAliveMessage),
    /// Any other line (unknown type, control message, or a known type whose
    /// shape no longer fits), kept verbatim.
    Unknown(Json),
}

impl super::wire::WireVariants for StdoutMessage {
    const TAG: &'static str = "type";
    /// Every `type` with a typed variant; the rest stay
    /// [`StdoutMessage::Unknown`].
    const VARIANTS: &'static [&'static str] = &[
        "assistant",
        "user",
        "result",
        "stream_event",
        "system",
        "tool_progress",
        "auth_status",
        "tool_use_summary",
        "rate_limit_event",
        "prompt_suggestion",
        "conversation_reset",
        "active_goal",
        "keep_alive",
    ];
}

/// Decodes `line` as `T`; if that fails but the line is a JSON object, keeps
/// it as [`StdoutMessage::Unknown`] instead.
///
/// The first read is one pass over the bytes. Only when it fails is the line
/// parsed into a value and read again, so that a nested part that does not
/// fit (a content block of a known type with a changed shape, say) is kept
/// whole in its own `Unknown` while the message around it is typed.
fn typed<T: DeserializeOwned>(
    line: &[u8],
    wrap: fn(T) -> StdoutMessage,
) -> Result<StdoutMessage, serde_json::Error> {
    match open_enum::read_once::<T>(line) {
        Ok(v) => Ok(wrap(v)),
        Err(err) => match serde_json::from_slice::<Json>(line) {
            Ok(value @ Json::Object(_)) => Ok(typed_value(value, wrap)),
            _ => Err(err),
        },
    }
}

/// Same as [`typed`] for an already parsed value.
fn typed_value<T: DeserializeOwned>(value: Json, wrap: fn(T) -> StdoutMessage) -> StdoutMessage {
    match open_enum::from_value::<T>(&value) {
        Ok(v) => wrap(v),
        Err(_) => StdoutMessage::Unknown(value),
    }
}

impl StdoutMessage {
    /// Decodes a line whose `type` (and top-level `subtype`, when it is a
    /// string) were already read.
    ///
    /// Fails only when the line is not JSON (or, for a known type, not a
    /// JSON object). An escaped lone surrogate, which serde_json cannot
    /// decode, is read as U+FFFD.
    pub(crate) fn decode(
        ty: &MessageType,
        subtype: Option<&str>,
        line: &[u8],
    ) -> Result<StdoutMessage, serde_json::Error> {
        match Self::decode_exact(ty, subtype, line) {
            Err(e) => match crate::json_text::replace_lone_surrogates(line) {
                Some(repaired) => Self::decode_exact(ty, subtype, &repaired),
                None => Err(e),
            },
            other => other,
        }
    }

    fn decode_exact(
        ty: &MessageType,
        subtype: Option<&str>,
        line: &[u8],
    ) -> Result<StdoutMessage, serde_json::Error> {
        match ty {
            // serde reads a number in a tag field as a variant index; a
            // subtype that is not a string keeps the line whole instead.
            MessageType::Result | MessageType::System if subtype.is_none() => {
                serde_json::from_slice(line).map(StdoutMessage::Unknown)
            }
            MessageType::Assistant => typed(line, StdoutMessage::Assistant),
            MessageType::User => typed(line, StdoutMessage::User),
            MessageType::Result => typed(line, StdoutMessage::Result),
            MessageType::StreamEvent => typed(line, StdoutMessage::StreamEvent),
            MessageType::System => typed(line, StdoutMessage::System),
            MessageType::ToolProgress => typed(line, StdoutMessage::ToolProgress),
            MessageType::AuthStatus => typed(line, StdoutMessage::AuthStatus),
            MessageType::ToolUseSummary => typed(line, StdoutMessage::ToolUseSummary),
            MessageType::RateLimitEvent => typed(line, StdoutMessage::RateLimitEvent),
            MessageType::PromptSuggestion => typed(line, StdoutMessage::PromptSuggestion),
            MessageType::ConversationReset => typed(line, StdoutMessage::ConversationReset),
            MessageType::ActiveGoal => typed(line, StdoutMessage::ActiveGoal),
            MessageType::KeepAlive => typed(line, StdoutMessage::KeepAlive),
            _ => serde_json::from_slice(line).map(StdoutMessage::Unknown),
        }
    }

    /// Decodes one line (without its newline).
    ///
    /// Fails only when the line is not a JSON object; any object gives a
    /// message, [`StdoutMessage::Unknown`] when it cannot be typed.
    pub fn from_slice(line: &[u8]) -> Result<Self, serde_json::Error> {
        if line.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
            return Err(<serde_json::Error as serde::de::Error>::custom(
                "a message must be a JSON object",
            ));
        }
        let peek: crate::envelope::Envelope<'_> = serde_json::from_slice(line)?;
        let ty = MessageType::from(peek.ty.as_deref().unwrap_or(""));
        Self::decode(&ty, peek.subtype.as_deref(), line)
    }

    /// Types an already parsed JSON value; never fails (anything that does
    /// not fit becomes [`StdoutMessage::Unknown`]).
    pub fn from_value(value: Json) -> Self {
        let ty = value
            .get("type")
            .and_then(Json::as_str)
            .map(MessageType::from);
        match ty {
            Some(MessageType::Assistant) => typed_value(value, StdoutMessage::Assistant),
            Some(MessageType::User) => typed_value(value, StdoutMessage::User),
            Some(MessageType::Result) => typed_value(value, StdoutMessage::Result),
            Some(MessageType::StreamEvent) => typed_value(value, StdoutMessage::StreamEvent),
            Some(MessageType::System) => typed_value(value, StdoutMessage::System),
            Some(MessageType::ToolProgress) => typed_value(value, StdoutMessage::ToolProgress),
            Some(MessageType::AuthStatus) => typed_value(value, StdoutMessage::AuthStatus),
            Some(MessageType::ToolUseSummary) => typed_value(value, StdoutMessage::ToolUseSummary),
            Some(MessageType::RateLimitEvent) => typed_value(value, StdoutMessage::RateLimitEvent),
            Some(MessageType::PromptSuggestion) => {
                typed_value(value, StdoutMessage::PromptSuggestion)
            }
            Some(MessageType::ConversationReset) => {
                typed_value(value, StdoutMessage::ConversationReset)
            }
            Some(MessageType::ActiveGoal) => typed_value(value, StdoutMessage::ActiveGoal),
            Some(MessageType::KeepAlive) => typed_value(value, StdoutMessage::KeepAlive),
            _ => StdoutMessage::Unknown(value),
        }
    }

    /// The message's `type`. For [`StdoutMessage::Unknown`] it is read from
    /// the kept JSON, so a known type that failed to decode still reports it.
    pub fn message_type(&self) -> MessageType {
        match self {
            StdoutMessage::Assistant(_) => MessageType::Assistant,
            StdoutMessage::User(_) => MessageType::User,
            StdoutMessage::Result(_) => MessageType::Result,
            StdoutMessage::StreamEvent(_) => MessageType::StreamEvent,
            StdoutMessage::System(_) => MessageType::System,
            StdoutMessage::ToolProgress(_) => MessageType::ToolProgress,
            StdoutMessage::AuthStatus(_) => MessageType::AuthStatus,
            StdoutMessage::ToolUseSummary(_) => MessageType::ToolUseSummary,
            StdoutMessage::RateLimitEvent(_) => MessageType::RateLimitEvent,
            StdoutMessage::PromptSuggestion(_) => MessageType::PromptSuggestion,
            StdoutMessage::ConversationReset(_) => MessageType::ConversationReset,
            StdoutMessage::ActiveGoal(_) => MessageType::ActiveGoal,
            StdoutMessage::KeepAlive(_) => MessageType::KeepAlive,
            StdoutMessage::Unknown(v) => {
                MessageType::from(v.get("type").and_then(Json::as_str).unwrap_or_default())
            }
        }
    }

    /// The session id, when the message has one.
    pub fn session_id(&self) -> Option<&str> {
        match self {
            StdoutMessage::Assistant(m) => Some(&m.session_id),
            StdoutMessage::User(m) => m.session_id.as_deref(),
            StdoutMessage::Result(m) => Some(&m.session_id),
            StdoutMessage::StreamEvent(m) => Some(&m.session_id),
            StdoutMessage::System(m) => m.session_id(),
            StdoutMessage::ToolProgress(m) => Some(&m.session_id),
            StdoutMessage::AuthStatus(m) => Some(&m.session_id),
            StdoutMessage::ToolUseSummary(m) => Some(&m.session_id),
            StdoutMessage::RateLimitEvent(m) => Some(&m.session_id),
            StdoutMessage::PromptSuggestion(m) => Some(&m.session_id),
            StdoutMessage::ConversationReset(m) => Some(&m.session_id),
            StdoutMessage::ActiveGoal(m) => Some(&m.session_id),
            StdoutMessage::KeepAlive(_) => None,
            StdoutMessage::Unknown(v) => v.get("session_id").and_then(Json::as_str),
        }
    }

    /// The message's uuid, when it has one.
    pub fn uuid(&self) -> Option<&str> {
        match self {
            StdoutMessage::Assistant(m) => Some(&m.uuid),
            StdoutMessage::User(m) => m.uuid.as_deref(),
            StdoutMessage::Result(m) => Some(&m.uuid),
            StdoutMessage::StreamEvent(m) => Some(&m.uuid),
            StdoutMessage::System(m) => m.uuid(),
            StdoutMessage::ToolProgress(m) => Some(&m.uuid),
            StdoutMessage::AuthStatus(m) => Some(&m.uuid),
            StdoutMessage::ToolUseSummary(m) => Some(&m.uuid),
            StdoutMessage::RateLimitEvent(m) => Some(&m.uuid),
            StdoutMessage::PromptSuggestion(m) => Some(&m.uuid),
            StdoutMessage::ConversationReset(m) => Some(&m.uuid),
            StdoutMessage::ActiveGoal(m) => Some(&m.uuid),
            StdoutMessage::KeepAlive(_) => None,
            StdoutMessage::Unknown(v) => v.get("uuid").and_then(Json::as_str),
        }
    }

    /// For messages that can come from a subagent: the id of the tool call
    /// that started it (`None` for the main conversation or other messages).
    pub fn parent_tool_use_id(&self) -> Option<&str> {
        match self {
            StdoutMessage::Assistant(m) => m.parent_tool_use_id.as_deref(),
            StdoutMessage::User(m) => m.parent_tool_use_id.as_deref(),
            StdoutMessage::StreamEvent(m) => m.parent_tool_use_id.as_deref(),
            StdoutMessage::ToolProgress(m) => m.parent_tool_use_id.as_deref(),
            StdoutMessage::Unknown(v) => v.get("parent_tool_use_id").and_then(Json::as_str),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for StdoutMessage {
    /// Reads any JSON value and types it as [`StdoutMessage::from_value`]
    /// does. The session's reader uses the faster [`StdoutMessage::from_slice`] path.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Json::deserialize(deserializer).map(StdoutMessage::from_value)
    }
}

impl FromStr for StdoutMessage {
    type Err = serde_json::Error;

    /// Decodes one line given as text; same rules as [`StdoutMessage::from_slice`].
    fn from_str(line: &str) -> Result<Self, Self::Err> {
        Self::from_slice(line.as_bytes())
    }
}

impl From<AssistantMessage> for StdoutMessage {
    fn from(m: AssistantMessage) -> Self {
        StdoutMessage::Assistant(Box::new(m))
    }
}

impl From<UserMessage> for StdoutMessage {
    fn from(m: UserMessage) -> Self {
        StdoutMessage::User(Box::new(m))
    }
}

impl From<ResultMessage> for StdoutMessage {
    fn from(m: ResultMessage) -> Self {
        StdoutMessage::Result(Box::new(m))
    }
}

impl From<SystemMessage> for StdoutMessage {
    fn from(m: SystemMessage) -> Self {
        StdoutMessage::System(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn decode_line(v: &Json) -> StdoutMessage {
        let line = serde_json::to_vec(v).expect("encode input");
        let m = StdoutMessage::from_slice(&line).expect("decode");
        assert_eq!(
            serde_json::to_value(&m).expect("encode"),
            *v,
            "round trip of {v}"
        );
        assert_eq!(StdoutMessage::from_value(v.clone()), m);
        m
    }

    fn usage() -> Json {
        json!({"input_tokens":1,"output_tokens":2,"cache_creation_input_tokens":null,"cache_read_input_tokens":0})
    }

    #[test]
    fn every_kind_decodes_to_its_variant() {
        let cases: Vec<(Json, MessageType)> = vec![
            (
                json!({"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"m",
                "content":[{"type":"text","text":"hi","citations":null}],"stop_reason":null,"stop_sequence":null,
                "usage":usage(),"context_management":null},"parent_tool_use_id":null,"uuid":"u1","session_id":"s"}),
                MessageType::Assistant,
            ),
            (
                json!({"type":"user","message":{"role":"user","content":[{"tool_use_id":"t","type":"tool_result","content":"ok"}]},
                "parent_tool_use_id":null,"session_id":"s","uuid":"u2","tool_use_result":{"stdout":"ok"}}),
                MessageType::User,
            ),
            (
                json!({"type":"result","subtype":"success","is_error":false,"duration_ms":5,"duration_api_ms":4,"num_turns":1,
                "result":"hi","stop_reason":"end_turn","total_cost_usd":0.01,"usage":usage(),"modelUsage":{},
                "permission_denials":[],"uuid":"u3","session_id":"s"}),
                MessageType::Result,
            ),
            (
                json!({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"h"}},
                "parent_tool_use_id":null,"uuid":"u4","session_id":"s"}),
                MessageType::StreamEvent,
            ),
            (
                json!({"type":"system","subtype":"status","status":"requesting","uuid":"u5","session_id":"s"}),
                MessageType::System,
            ),
            (
                json!({"type":"tool_progress","tool_use_id":"t","tool_name":"Bash","parent_tool_use_id":null,
                "elapsed_time_seconds":3,"uuid":"u6","session_id":"s"}),
                MessageType::ToolProgress,
            ),
            (
                json!({"type":"auth_status","isAuthenticating":false,"output":[],"uuid":"u7","session_id":"s"}),
                MessageType::AuthStatus,
            ),
            (
                json!({"type":"tool_use_summary","summary":"x","preceding_tool_use_ids":[],"uuid":"u8","session_id":"s"}),
                MessageType::ToolUseSummary,
            ),
            (
                json!({"type":"rate_limit_event","rate_limit_info":{"status":"allowed"},"uuid":"u9","session_id":"s"}),
                MessageType::RateLimitEvent,
            ),
            (
                json!({"type":"prompt_suggestion","suggestion":"go","uuid":"u10","session_id":"s"}),
                MessageType::PromptSuggestion,
            ),
            (
                json!({"type":"conversation_reset","new_conversation_id":"c","uuid":"u11","session_id":"s"}),
                MessageType::ConversationReset,
            ),
            (
                json!({"type":"active_goal","value":null,"uuid":"u12","session_id":"s"}),
                MessageType::ActiveGoal,
            ),
            (json!({"type":"keep_alive"}), MessageType::KeepAlive),
        ];
        for (v, ty) in cases {
            let m = decode_line(&v);
            assert!(
                !matches!(m, StdoutMessage::Unknown(_)),
                "{ty} fell back to Unknown"
            );
            assert_eq!(m.message_type(), ty);
            if ty != MessageType::KeepAlive {
                assert_eq!(m.session_id(), Some("s"));
                assert!(m.uuid().is_some_and(|u| u.starts_with('u')));
            }
        }
    }

    #[test]
    fn unknown_and_control_types_are_kept() {
        let m = decode_line(
            &json!({"type":"command_lifecycle","command_uuid":"c","state":"queued","uuid":"u","session_id":"s"}),
        );
        assert!(matches!(m, StdoutMessage::Unknown(_)));
        assert_eq!(
            m.message_type(),
            MessageType::Unknown("command_lifecycle".into())
        );
        assert_eq!(m.session_id(), Some("s"));
        let m = decode_line(
            &json!({"type":"control_request","request_id":"r","request":{"subtype":"can_use_tool"}}),
        );
        assert!(matches!(m, StdoutMessage::Unknown(_)));
        assert_eq!(m.message_type(), MessageType::ControlRequest);
        let m = decode_line(&json!({"no_type":true}));
        assert!(matches!(m, StdoutMessage::Unknown(_)));
        let m = decode_line(
            &json!({"type":"system","subtype":"brand_new","uuid":"u","session_id":"s","x":null}),
        );
        assert!(matches!(
            m,
            StdoutMessage::System(SystemMessage::Unknown(_))
        ));
    }

    #[test]
    fn wrongly_typed_field_falls_back_to_unknown() {
        let v = json!({"type":"result","subtype":"success","is_error":"nope","duration_ms":5,"duration_api_ms":4,
            "num_turns":1,"result":"hi","stop_reason":null,"total_cost_usd":0,"usage":usage(),"modelUsage":{},
            "permission_denials":[],"uuid":"u","session_id":"s"});
        let m = decode_line(&v);
        assert!(matches!(m, StdoutMessage::Unknown(_)));
        assert_eq!(m.message_type(), MessageType::Result);
        let m = decode_line(&json!({"type":"assistant","message":{"role":"assistant"},"uuid":5}));
        assert!(matches!(m, StdoutMessage::Unknown(_)));
        assert_eq!(m.uuid(), None);
        let m = StdoutMessage::decode(
            &MessageType::KeepAlive,
            None,
            br#"{"type":"keep_alive","startup_mark":7}"#,
        )
        .expect("decode");
        assert!(matches!(m, StdoutMessage::Unknown(_)));
    }

    #[test]
    fn non_json_is_an_error() {
        assert!(StdoutMessage::from_slice(b"not json").is_err());
        assert!(StdoutMessage::from_slice(b"{\"type\":\"assistant\"").is_err());
        assert!(StdoutMessage::from_slice(b"\"assistant\"").is_err());
        assert!(StdoutMessage::decode(&MessageType::Assistant, None, b"{oops").is_err());
        assert!(StdoutMessage::decode(&MessageType::Unknown("x".into()), None, b"{oops").is_err());
        assert!(StdoutMessage::decode(&MessageType::Result, Some("success"), b"[1,2]").is_err());
    }

    #[test]
    fn serde_deserialize_matches_from_slice() {
        let text = r#"{"type":"prompt_suggestion","suggestion":"go","uuid":"u","session_id":"s"}"#;
        let a: StdoutMessage = serde_json::from_str(text).expect("deserialize");
        let b: StdoutMessage = text.parse().expect("parse");
        assert_eq!(a, b);
        assert!(matches!(a, StdoutMessage::PromptSuggestion(_)));
    }

    #[test]
    fn user_text_serializes_exactly() {
        let m = StdoutMessage::from(UserMessage::text("hi"));
        assert_eq!(
            serde_json::to_value(&m).expect("encode"),
            json!({"type":"user","session_id":"","message":{"role":"user","content":[{"type":"text","text":"hi"}]},"parent_tool_use_id":null})
        );
    }
}
