//! `user` messages, in both directions.
//!
//! The same shape is what a host writes to the CLI's stdin to start or queue
//! a turn, and what the CLI writes back: tool results, echoes and replays of
//! user input, and synthetic messages such as interrupt notices.

use super::open_enum::open_enum;
use super::wire::wire_struct;
use serde::{Deserialize, Serialize};

use super::common::{Extra, Json, Maybe, string_enum, wire_tag};
use super::content::{ContentBlock, MessageContent, ToolResultBlock};

wire_tag! {
    /// The `"type":"user"` marker of a [`UserMessage`].
    pub struct UserTag = "user";
}

wire_tag! {
    /// The `"role":"user"` marker of a [`UserMessageParam`].
    pub struct UserRole = "user";
}

wire_struct! {
    /// A user message (`type: "user"`).
    ///
    /// To send a prompt, build one with [`UserMessage::text`] or
    /// [`UserMessage::blocks`] and adjust it with the `with_*` methods:
    ///
    /// ```
    /// use claude_proto::model::user::{Priority, UserMessage};
    ///
    /// let msg = UserMessage::text("What is 2+2?").with_priority(Priority::Next);
    /// assert_eq!(msg.message.content.text(), "What is 2+2?");
    /// ```
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct UserMessage {
        /// Always `"user"`.
        #[serde(rename = "type")]
        pub kind: UserTag,
        /// Session id; hosts send `""`, the CLI fills in the real one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub session_id: Option<String>,
        /// The message itself: role and content.
        pub message: UserMessageParam,
        /// Id of the tool call whose subagent this message belongs to; `None`
        /// for the main conversation.
        #[serde(deserialize_with = "crate::model::common::nullable")]
        pub parent_tool_use_id: Option<String>,
        /// Unique id of the message. A host may choose one to correlate the
        /// message with what the CLI reports back about it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub uuid: Option<String>,
        /// `Some(true)` when the CLI made this message up (e.g. an interrupt notice)
        /// rather than a person typing it.
        #[serde(
            rename = "isSynthetic",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub is_synthetic: Option<bool>,
        /// `Some(true)` when the CLI replays a message from the session history.
        #[serde(rename = "isReplay", default, skip_serializing_if = "Option::is_none")]
        pub is_replay: Option<bool>,
        /// On tool result messages: the tool's structured output (shape depends on the tool).
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub tool_use_result: Maybe<Json>,
        /// When a message sent during a running turn is handled.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub priority: Option<Priority>,
        /// Who or what the message comes from.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub origin: Option<MessageOrigin>,
        /// `Some(false)` appends the message to the conversation without starting a turn.
        #[serde(
            rename = "shouldQuery",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub should_query: Option<bool>,
        /// Creation time (ISO 8601).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub timestamp: Option<String>,
        /// `Some(true)` makes the CLI take the text verbatim: no `@file` expansion
        /// and no slash command handling.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub client_composed: Option<bool>,
        /// Content the user pasted rather than typed, each entry one paste
        /// (a string or content blocks); the CLI appends the text of each
        /// after the typed text.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub pasted_content: Option<Vec<MessageContent>>,
        /// Text the user pasted that is still in `message` where they put it,
        /// each entry one paste.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub inline_pastes: Option<Vec<String>>,
        /// Files attached to a replayed message (replays only), kept raw.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub file_attachments: Option<Vec<Json>>,
        /// Subagent this message belongs to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub agent_id: Option<String>,
        /// Kind of that subagent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub subagent_type: Option<String>,
        /// Short description of that subagent's task.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub task_description: Option<String>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl UserMessage {
    /// A message with the given content and nothing else set except
    /// `session_id: ""` (what the CLI expects from a host).
    pub fn new(content: impl Into<MessageContent>) -> Self {
        UserMessage {
            session_id: Some(String::new()),
            message: UserMessageParam::new(content),
            ..Default::default()
        }
    }

    /// A prompt made of one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::blocks(vec![ContentBlock::text(text)])
    }

    /// A prompt made of the given blocks (text, images, documents, ...).
    pub fn blocks(blocks: Vec<ContentBlock>) -> Self {
        Self::new(MessageContent::Blocks(blocks))
    }

    /// A message carrying one tool result.
    pub fn tool_result(tool_use_id: impl Into<String>, content: impl Into<MessageContent>) -> Self {
        Self::blocks(vec![ContentBlock::tool_result(tool_use_id, content)])
    }

    /// Sets the message's uuid.
    pub fn with_uuid(mut self, uuid: impl Into<String>) -> Self {
        self.uuid = Some(uuid.into());
        self
    }

    /// Sets when the message is handled if a turn is already running.
    pub fn with_priority(mut self, priority: Priority) -> Self {
        self.priority = Some(priority);
        self
    }

    /// Sets whether the message starts a turn (`false`: only add it to the conversation).
    pub fn with_should_query(mut self, should_query: bool) -> Self {
        self.should_query = Some(should_query);
        self
    }

    /// Marks the message as composed by the client, to be taken verbatim.
    pub fn with_client_composed(mut self) -> Self {
        self.client_composed = Some(true);
        self
    }

    /// Addresses the message to the subagent started by this tool call.
    pub fn with_parent_tool_use_id(mut self, id: impl Into<String>) -> Self {
        self.parent_tool_use_id = Some(id.into());
        self
    }

    /// Sets the session id.
    pub fn with_session_id(mut self, session_id: impl Into<String>) -> Self {
        self.session_id = Some(session_id.into());
        self
    }

    /// Sets where the message comes from (e.g. [`MessageOrigin::human`]).
    pub fn with_origin(mut self, origin: MessageOrigin) -> Self {
        self.origin = Some(origin);
        self
    }

    /// `true` when this is a replay of an earlier message.
    pub fn is_replay(&self) -> bool {
        self.is_replay.unwrap_or(false)
    }

    /// `true` when the CLI made this message up.
    pub fn is_synthetic(&self) -> bool {
        self.is_synthetic.unwrap_or(false)
    }

    /// The tool results in this message.
    pub fn tool_results(&self) -> impl Iterator<Item = &ToolResultBlock> {
        self.message
            .content
            .blocks()
            .unwrap_or_default()
            .iter()
            .filter_map(ContentBlock::as_tool_result)
    }
}

impl UserMessage {
    /// How many bytes this message takes on the CLI's stdin: its JSON line
    /// and the newline, counted without building the line.
    pub fn wire_len(&self) -> usize {
        struct Count(usize);
        impl std::io::Write for Count {
            fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
                self.0 += bytes.len();
                Ok(bytes.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut count = Count(0);
        // Writing to a counter fails only if the value cannot be encoded;
        // sending it would fail the same way.
        let _ = serde_json::to_writer(&mut count, self);
        count.0 + 1
    }
}

wire_struct! {
    /// The `message` inside a [`UserMessage`].
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct UserMessageParam {
        /// Always `"user"`.
        pub role: UserRole,
        /// The content, as a string or as blocks.
        pub content: MessageContent,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl UserMessageParam {
    /// A user message body with this content.
    pub fn new(content: impl Into<MessageContent>) -> Self {
        UserMessageParam {
            role: UserRole,
            content: content.into(),
            extra: Extra::new(),
        }
    }
}

string_enum! {
    /// When a message that arrives during a running turn is handled.
    pub enum Priority {
        /// Interrupt the current turn and handle it at once.
        Now = "now",
        /// Handle it as soon as the current step ends.
        Next = "next",
        /// Queue it until the current turn is over.
        Later = "later",
    }
}

open_enum! {
    /// Where a message comes from (its `origin`), tagged by `kind`.
    #[derive(Debug, Clone, PartialEq)]
    #[non_exhaustive]
    pub enum MessageOrigin tagged "kind" {
        /// An origin this crate does not know, kept verbatim.
        Unknown;
        /// Typed by a person. Hosts forwarding keyboard input should say so explicitly.
        Human(Extra) = "human",
        /// Arrived through a channel (an MCP server pushing messages).
        Channel(ChannelOrigin) = "channel",
        /// Sent by another session.
        Peer(PeerOrigin) = "peer",
        /// Produced by a task notification (schedule, inbox, external event, ...).
        TaskNotification(TaskNotificationOrigin) = "task-notification",
        /// Sent by a coordinating agent.
        Coordinator(Extra) = "coordinator",
        /// Origin not classified.
        Unclassified(Extra) = "unclassified",
        /// Sent by an observer session.
        Observer(ObserverOrigin) = "observer",
        /// An automatic continuation of the previous turn.
        AutoContinuation(Extra) = "auto-continuation",
        /// Activity reported by an observer.
        ObserverActivity(Extra) = "observer-activity",
    }
}

impl MessageOrigin {
    /// `{"kind":"human"}`.
    pub fn human() -> Self {
        MessageOrigin::Human(Extra::new())
    }
}

wire_struct! {
    /// Origin of a message that arrived through a channel.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct ChannelOrigin {
        /// The channel's server name.
        pub server: String,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Origin of a message sent by another session.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct PeerOrigin {
        /// The sender's address.
        pub from: String,
        /// The sender's permission mode (`bypass` or `prompting`).
        #[serde(rename = "fromMode", default, skip_serializing_if = "Option::is_none")]
        pub from_mode: Option<String>,
        /// The sender's display name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub name: Option<String>,
        /// The sender's session id.
        #[serde(rename = "fromSession", default, skip_serializing_if = "Option::is_none")]
        pub from_session: Option<String>,
        /// The sender's task id.
        #[serde(rename = "senderTaskId", default, skip_serializing_if = "Option::is_none")]
        pub sender_task_id: Option<String>,
        /// The message body as sent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub body: Option<String>,
        /// Verified process id of the sender.
        #[serde(rename = "verifiedPeerPid", default, skip_serializing_if = "Option::is_none")]
        pub verified_peer_pid: Option<serde_json::Number>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Origin of a message produced by a task notification.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct TaskNotificationOrigin {
        /// Which kind of notification (`scheduled-trigger`, `session-inbox`, ...).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub subkind: Option<String>,
        /// Why it fired.
        #[serde(rename = "fireReason", default, skip_serializing_if = "Option::is_none")]
        pub fire_reason: Option<String>,
        /// Id of the run that fired it.
        #[serde(rename = "runId", default, skip_serializing_if = "Option::is_none")]
        pub run_id: Option<String>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Origin of a message sent by an observer session.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct ObserverOrigin {
        /// The observer's address.
        pub from: String,
        /// The observer's task id.
        #[serde(rename = "senderTaskId")]
        pub sender_task_id: String,
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
    fn text_constructor_matches_the_official_sdk() {
        let v = serde_json::to_value(UserMessage::text("hello")).expect("encode");
        assert_eq!(
            v,
            json!({"type":"user","session_id":"","message":{"role":"user","content":[{"type":"text","text":"hello"}]},"parent_tool_use_id":null})
        );
        let v = serde_json::to_value(UserMessage::blocks(vec![
            ContentBlock::text("look"),
            ContentBlock::image_base64("image/png", "AAAA"),
        ]))
        .expect("encode");
        assert_eq!(
            v,
            json!({"type":"user","session_id":"","message":{"role":"user","content":[
                {"type":"text","text":"look"},
                {"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}
            ]},"parent_tool_use_id":null})
        );
    }

    #[test]
    fn builders_set_the_optional_fields() {
        let v = serde_json::to_value(
            UserMessage::text("x")
                .with_uuid("11111111-2222-3333-4444-555555555555")
                .with_priority(Priority::Now)
                .with_should_query(false)
                .with_client_composed()
                .with_parent_tool_use_id("toolu_9")
                .with_session_id("sess")
                .with_origin(MessageOrigin::human()),
        )
        .expect("encode");
        assert_eq!(
            v,
            json!({"type":"user","session_id":"sess","message":{"role":"user","content":[{"type":"text","text":"x"}]},
                "parent_tool_use_id":"toolu_9","uuid":"11111111-2222-3333-4444-555555555555","priority":"now",
                "shouldQuery":false,"client_composed":true,"origin":{"kind":"human"}})
        );
    }

    #[test]
    fn cli_tool_result_echo_round_trips() {
        let line = json!({"type":"user","message":{"role":"user","content":[
                {"tool_use_id":"toolu_01ABC","type":"tool_result","content":"hi","is_error":false}]},
            "parent_tool_use_id":null,"session_id":"s","uuid":"u","timestamp":"2026-01-01T00:00:00Z",
            "tool_use_result":{"stdout":"hi","stderr":"","interrupted":false},
            "tool_result_meta":[{"id":"toolu_01ABC","permission_decision":{"decision":"accept","source":"hook"}}]});
        let m: UserMessage = serde_json::from_value(line.clone()).expect("decode");
        assert_eq!(m.tool_results().count(), 1);
        assert!(m.extra.contains_key("tool_result_meta"));
        assert_eq!(serde_json::to_value(&m).expect("encode"), line);
    }

    #[test]
    fn replay_and_string_content_round_trip() {
        let line = json!({"type":"user","message":{"role":"user","content":"Hello"},"parent_tool_use_id":null,
            "session_id":"s","uuid":"u","isReplay":true,"isSynthetic":false,"tool_use_result":null,
            "origin":{"kind":"peer","from":"uds:/tmp/x","fromMode":"bypass","verifiedPeerPid":42,"secret":1},
            "priority":"someday"});
        let m: UserMessage = serde_json::from_value(line.clone()).expect("decode");
        assert!(m.is_replay());
        assert_eq!(m.message.content, MessageContent::Text("Hello".into()));
        assert_eq!(m.tool_use_result, Maybe::Null);
        assert!(matches!(m.origin, Some(MessageOrigin::Peer(_))));
        assert_eq!(m.priority, Some(Priority::Unknown("someday".into())));
        assert_eq!(serde_json::to_value(&m).expect("encode"), line);

        let odd = json!({"type":"user","message":{"role":"user","content":[]},"parent_tool_use_id":null,
            "origin":{"kind":"voice-call","saidAt":"now"}});
        let m: UserMessage = serde_json::from_value(odd.clone()).expect("decode");
        assert!(matches!(m.origin, Some(MessageOrigin::Unknown(_))));
        assert_eq!(serde_json::to_value(&m).expect("encode"), odd);
    }
}
