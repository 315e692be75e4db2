//! One message of a session's history, as the session functions return it.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// A user or assistant message from a transcript. Fields and names are the
/// Python SDK's `SessionMessage` (TypeScript: `SessionMessage`, camelCase);
/// `message` is kept as the CLI wrote it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SessionMessage {
    /// `user` or `assistant`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The entry's uuid.
    pub uuid: String,
    /// The session it belongs to (empty if the line names none).
    pub session_id: String,
    /// The API message (role, content, …), as written; `None` if the line
    /// has none.
    pub message: Option<Box<RawValue>>,
    /// For a subagent's messages, the id of the Agent `tool_use` that
    /// started the subagent (from its metadata); `None` otherwise.
    pub parent_tool_use_id: Option<String>,
    /// For a subagent started by another subagent, that subagent's id.
    pub parent_agent_id: Option<String>,
}

/// The fields of a line a message is made of. Written by hand so that a
/// key given twice takes its last value, as the SDKs' JSON readers and the
/// index (`probe`) read it, instead of failing the line.
#[derive(Default)]
struct Line {
    kind: Option<String>,
    uuid: Option<String>,
    session_id: Option<serde_json::Value>,
    message: Option<Box<RawValue>>,
}

impl<'de> Deserialize<'de> for Line {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> serde::de::Visitor<'de> for Fields {
            type Value = Line;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a transcript line")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Line, A::Error> {
                let mut line = Line::default();
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    match key.as_ref() {
                        "type" => {
                            line.kind = map
                                .next_value::<serde_json::Value>()?
                                .as_str()
                                .map(str::to_owned)
                        }
                        "uuid" => {
                            line.uuid = map
                                .next_value::<serde_json::Value>()?
                                .as_str()
                                .map(str::to_owned)
                        }
                        "sessionId" => line.session_id = Some(map.next_value()?),
                        "message" => line.message = Some(map.next_value()?),
                        _ => {
                            map.next_value::<serde::de::IgnoredAny>()?;
                        }
                    }
                }
                Ok(line)
            }
        }
        deserializer.deserialize_map(Fields)
    }
}

impl SessionMessage {
    /// The message a transcript line holds; `None` if the line is not a
    /// `user` or `assistant` entry (callers pass the lines a
    /// [`TranscriptIndex`](super::TranscriptIndex) picked).
    pub fn from_line(line: &[u8]) -> Option<Self> {
        let line: Line = serde_json::from_slice(line).ok()?;
        let kind = line.kind.filter(|k| k == "user" || k == "assistant")?;
        let session_id = match line.session_id {
            Some(serde_json::Value::String(id)) => id,
            _ => String::new(),
        };
        Some(Self {
            kind,
            uuid: line.uuid.unwrap_or_default(),
            session_id,
            // A JSON `null` message reads as none, as in the SDKs.
            message: line.message.filter(|m| m.get() != "null"),
            parent_tool_use_id: None,
            parent_agent_id: None,
        })
    }

    /// This message with the ids of what started its subagent.
    #[must_use]
    pub fn with_parents(mut self, parents: &AgentParents) -> Self {
        self.parent_tool_use_id.clone_from(&parents.tool_use_id);
        self.parent_agent_id.clone_from(&parents.agent_id);
        self
    }
}

/// What started a subagent, from its metadata (the `agent-<id>.meta.json`
/// file beside its transcript, or the `agent_metadata` entry a store keeps
/// in its place).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct AgentParents {
    /// The Agent `tool_use` id in the parent session (`toolUseId`).
    pub tool_use_id: Option<String>,
    /// The subagent that started this one (`parentAgentId`), if any.
    pub agent_id: Option<String>,
}

impl AgentParents {
    /// The parents named in a metadata object; none if `metadata` is not a
    /// JSON object or lacks them.
    pub fn from_metadata(metadata: &[u8]) -> Self {
        let Ok(serde_json::Value::Object(map)) = serde_json::from_slice(metadata) else {
            return Self::default();
        };
        let text = |key: &str| map.get(key).and_then(|v| v.as_str()).map(str::to_owned);
        Self {
            tool_use_id: text("toolUseId"),
            agent_id: text("parentAgentId"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_given_twice_takes_its_last_value_as_the_index_does() {
        let line =
            br#"{"type":"system","uuid":"a","type":"user","uuid":"b","message":{"content":"x"}}"#;
        let message = SessionMessage::from_line(line).unwrap();
        assert_eq!(message.kind, "user");
        assert_eq!(message.uuid, "b");
        assert!(SessionMessage::from_line(br#"{"type":"user","type":"summary"}"#).is_none());
    }
}
