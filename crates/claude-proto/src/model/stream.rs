//! `stream_event` messages: raw Messages API stream events, forwarded as
//! they arrive when partial messages are enabled.

use super::open_enum::open_enum;
use super::wire::wire_struct;
use serde::{Deserialize, Serialize};

use super::assistant::{ApiMessage, StopReason};
use super::common::{Extra, Json, Maybe, wire_tag};
use super::content::ContentBlock;

wire_tag! {
    /// The `"type":"stream_event"` marker of a [`StreamEventMessage`].
    pub struct StreamEventTag = "stream_event";
}

wire_struct! {
    /// One raw API stream event (`type: "stream_event"`).
    ///
    /// Only sent when the CLI runs with partial messages turned on. The complete
    /// blocks still arrive as `assistant` messages, so most hosts use these only
    /// to show text as it is typed.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct StreamEventMessage {
        /// Always `"stream_event"`.
        #[serde(rename = "type")]
        pub kind: StreamEventTag,
        /// The stream event.
        pub event: StreamEvent,
        /// Id of the tool call whose subagent is streaming; `None` for the main conversation.
        #[serde(deserialize_with = "crate::model::common::nullable")]
        pub parent_tool_use_id: Option<String>,
        /// Unique id of this message.
        pub uuid: String,
        /// Session the event belongs to.
        pub session_id: String,
        /// Time to first token, in milliseconds (on the first event of a response).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub ttft_ms: Option<u64>,
        /// Client uuid of the user message this turn answers.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub user_message_uuid: Option<String>,
        /// All user message uuids folded into this turn.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub user_message_uuids: Option<Vec<String>>,
        /// Why the turn was resumed, when it was.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub resume_reason: Option<String>,
        /// Id of the API response the event belongs to (the CLI marks it
        /// internal, but sends it on every event).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub api_message_id: Option<String>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

open_enum! {
    /// A Messages API stream event, tagged by `type`.
    #[derive(Debug, Clone, PartialEq)]
    #[non_exhaustive]
    pub enum StreamEvent tagged "type" {
        /// An event this crate does not know (or whose shape changed), kept verbatim.
        Unknown;
        /// A response starts; carries the message with empty content.
        MessageStart(Box<MessageStartEvent>) = "message_start",
        /// A content block starts at `index`.
        ContentBlockStart(ContentBlockStartEvent) = "content_block_start",
        /// More content for the block at `index`.
        ContentBlockDelta(ContentBlockDeltaEvent) = "content_block_delta",
        /// The block at `index` is complete.
        ContentBlockStop(ContentBlockStopEvent) = "content_block_stop",
        /// Message-level changes: stop reason and final output usage.
        MessageDelta(MessageDeltaEvent) = "message_delta",
        /// The response is complete.
        MessageStop(Extra) = "message_stop",
        /// A keep-alive from the API.
        Ping(Extra) = "ping",
    }
}

impl StreamEvent {
    /// The text of a `text_delta`, if this event is one.
    pub fn text_delta(&self) -> Option<&str> {
        match self {
            StreamEvent::ContentBlockDelta(ContentBlockDeltaEvent {
                delta: ContentDelta::TextDelta(d),
                ..
            }) => Some(&d.text),
            _ => None,
        }
    }

    /// The text of a `thinking_delta` (a piece of the model's reasoning as
    /// it streams), if this event is one.
    pub fn thinking_delta(&self) -> Option<&str> {
        match self {
            StreamEvent::ContentBlockDelta(ContentBlockDeltaEvent {
                delta: ContentDelta::ThinkingDelta(d),
                ..
            }) => Some(&d.thinking),
            _ => None,
        }
    }

    /// The content block index the event refers to, for block events.
    pub fn index(&self) -> Option<u64> {
        match self {
            StreamEvent::ContentBlockStart(e) => Some(e.index),
            StreamEvent::ContentBlockDelta(e) => Some(e.index),
            StreamEvent::ContentBlockStop(e) => Some(e.index),
            _ => None,
        }
    }
}

wire_struct! {
    /// A `message_start` event.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct MessageStartEvent {
        /// The message being started (id, model, initial usage; empty content).
        pub message: ApiMessage,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A `content_block_start` event.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ContentBlockStartEvent {
        /// Position of the block in the message.
        pub index: u64,
        /// The block's initial state (e.g. empty text, or a tool call with empty input).
        pub content_block: ContentBlock,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A `content_block_delta` event.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ContentBlockDeltaEvent {
        /// Position of the block in the message.
        pub index: u64,
        /// The increment.
        pub delta: ContentDelta,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A `content_block_stop` event.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ContentBlockStopEvent {
        /// Position of the finished block.
        pub index: u64,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

open_enum! {
    /// The increment carried by a `content_block_delta`, tagged by `type`.
    #[derive(Debug, Clone, PartialEq)]
    #[non_exhaustive]
    pub enum ContentDelta tagged "type" {
        /// A delta this crate does not know (or whose shape changed), kept verbatim.
        Unknown;
        /// More text for a text block.
        TextDelta(TextDelta) = "text_delta",
        /// A fragment of a tool call's JSON input (concatenate, then parse at block stop).
        InputJsonDelta(InputJsonDelta) = "input_json_delta",
        /// More reasoning for a thinking block.
        ThinkingDelta(ThinkingDelta) = "thinking_delta",
        /// The signature of a thinking block.
        SignatureDelta(SignatureDelta) = "signature_delta",
        /// A citation to attach to a text block.
        CitationsDelta(CitationsDelta) = "citations_delta",
        /// Content for a compaction block.
        CompactionDelta(CompactionDelta) = "compaction_delta",
    }
}

wire_struct! {
    /// A `text_delta`.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct TextDelta {
        /// The new text.
        pub text: String,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// An `input_json_delta`.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct InputJsonDelta {
        /// The next piece of the JSON text (not valid JSON on its own).
        pub partial_json: String,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A `thinking_delta`.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ThinkingDelta {
        /// The new reasoning text.
        pub thinking: String,
        /// Estimated number of reasoning tokens so far.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub estimated_tokens: Maybe<u64>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A `signature_delta`.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct SignatureDelta {
        /// The thinking block's signature.
        pub signature: String,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A `citations_delta`.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct CitationsDelta {
        /// The citation (its shape depends on the cited source).
        pub citation: Json,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A `compaction_delta`.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct CompactionDelta {
        /// Readable summary text, if any.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub content: Maybe<String>,
        /// Encrypted summary, if any.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub encrypted_content: Maybe<String>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A `message_delta` event.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct MessageDeltaEvent {
        /// The changed message fields.
        pub delta: MessageDelta,
        /// Cumulative usage of the response so far.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub usage: Option<DeltaUsage>,
        /// Context edits the API applied.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub context_management: Maybe<Json>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// The `delta` of a `message_delta` event.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct MessageDelta {
        /// Why generation stopped.
        #[serde(deserialize_with = "crate::model::common::nullable")]
        pub stop_reason: Option<StopReason>,
        /// The custom stop sequence that ended generation, if one did.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub stop_sequence: Maybe<String>,
        /// Details of a refusal stop.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub stop_details: Maybe<Json>,
        /// Code execution container used by the request.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub container: Maybe<Json>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Usage reported by a `message_delta` (any count may be `null`).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct DeltaUsage {
        /// Uncached input tokens.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub input_tokens: Maybe<u64>,
        /// Output tokens so far.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub output_tokens: Maybe<u64>,
        /// Input tokens written to the cache.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub cache_creation_input_tokens: Maybe<u64>,
        /// Input tokens read from the cache.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub cache_read_input_tokens: Maybe<u64>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn wrap(event: Json) -> Json {
        json!({"type":"stream_event","event":event,"parent_tool_use_id":null,"uuid":"u","session_id":"s"})
    }

    fn round_trip(event: Json) -> StreamEventMessage {
        let line = wrap(event);
        let m: StreamEventMessage = serde_json::from_value(line.clone()).expect("decode");
        assert_eq!(serde_json::to_value(&m).expect("encode"), line);
        m
    }

    #[test]
    fn every_event_kind_round_trips() {
        let m = round_trip(
            json!({"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant",
            "model":"m","content":[],"stop_reason":null,"stop_sequence":null,
            "usage":{"input_tokens":5,"output_tokens":1,"cache_creation_input_tokens":null,"cache_read_input_tokens":null}}}),
        );
        assert!(matches!(m.event, StreamEvent::MessageStart(_)));
        let m = round_trip(
            json!({"type":"content_block_start","index":0,"content_block":{"type":"text","text":"","citations":null}}),
        );
        assert_eq!(m.event.index(), Some(0));
        let m = round_trip(
            json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}),
        );
        assert_eq!(m.event.text_delta(), Some("Hel"));
        round_trip(
            json!({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"co"}}),
        );
        round_trip(
            json!({"type":"content_block_delta","index":1,"delta":{"type":"thinking_delta","thinking":"hm","estimated_tokens":null}}),
        );
        round_trip(
            json!({"type":"content_block_delta","index":1,"delta":{"type":"signature_delta","signature":"EqQ"}}),
        );
        round_trip(
            json!({"type":"content_block_delta","index":1,"delta":{"type":"citations_delta","citation":{"type":"char_location","cited_text":"x"}}}),
        );
        round_trip(
            json!({"type":"content_block_delta","index":1,"delta":{"type":"compaction_delta","content":null,"encrypted_content":"zz"}}),
        );
        let m = round_trip(
            json!({"type":"content_block_delta","index":1,"delta":{"type":"hologram_delta","beam":3}}),
        );
        assert!(matches!(
            m.event,
            StreamEvent::ContentBlockDelta(ContentBlockDeltaEvent {
                delta: ContentDelta::Unknown(_),
                ..
            })
        ));
        round_trip(json!({"type":"content_block_stop","index":1}));
        let m = round_trip(
            json!({"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},
            "usage":{"input_tokens":null,"output_tokens":42,"cache_read_input_tokens":null,"server_tool_use":null},
            "context_management":{"applied_edits":[]}}),
        );
        match &m.event {
            StreamEvent::MessageDelta(d) => {
                assert_eq!(d.delta.stop_reason, Some(StopReason::EndTurn))
            }
            other => panic!("unexpected {other:?}"),
        }
        let m = round_trip(json!({"type":"message_stop"}));
        assert!(matches!(m.event, StreamEvent::MessageStop(_)));
        let m = round_trip(json!({"type":"brand_new_event","x":[1]}));
        assert!(matches!(m.event, StreamEvent::Unknown(_)));
    }

    #[test]
    fn extra_top_level_fields_survive() {
        let line = json!({"type":"stream_event","event":{"type":"message_stop"},"parent_tool_use_id":"toolu_1",
            "uuid":"u","session_id":"s","ttft_ms":312,"api_message_id":"msg_1","owed_rows":[]});
        let m: StreamEventMessage = serde_json::from_value(line.clone()).expect("decode");
        assert_eq!(m.ttft_ms, Some(312));
        assert_eq!(serde_json::to_value(&m).expect("encode"), line);
    }
}
