//! The few fields of a transcript line that its conversation's shape
//! depends on, read in one pass without keeping the rest: message text
//! and tool results are skipped, not copied, so indexing a 100 MB
//! transcript keeps a few hundred bytes per line.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// The visitor methods that read any other JSON value as the type's empty
/// default: transcripts from other CLI versions or other tools may hold
/// anything where a message or a block is expected.
macro_rules! otherwise_empty {
    ($ty:ty) => {
        fn visit_str<E: de::Error>(self, _: &str) -> Result<$ty, E> {
            Ok(<$ty>::default())
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<$ty, E> {
            Ok(<$ty>::default())
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<$ty, E> {
            Ok(<$ty>::default())
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<$ty, E> {
            Ok(<$ty>::default())
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<$ty, E> {
            Ok(<$ty>::default())
        }
        fn visit_unit<E: de::Error>(self) -> Result<$ty, E> {
            Ok(<$ty>::default())
        }
    };
    ($ty:ty, seq) => {
        otherwise_empty!($ty);
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<$ty, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(<$ty>::default())
        }
    };
    ($ty:ty, map) => {
        otherwise_empty!($ty);
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<$ty, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(<$ty>::default())
        }
    };
}

/// A transcript line's type, uuid, links and flags.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Probe {
    pub(super) kind: Option<String>,
    pub uuid: Option<String>,
    pub parent: Option<String>,
    pub sidechain: bool,
    pub meta: bool,
    pub team: bool,
    pub agent_id: Option<Value>,
    pub timestamp: Option<String>,
    pub source_tool_assistant: Option<String>,
    pub message_id: Option<String>,
    pub blocks: Vec<Block>,
}

/// A content block's type and the tool ids it carries.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Block {
    pub(super) kind: Option<String>,
    pub id: Option<String>,
    pub tool_use_id: Option<String>,
}

impl Probe {
    /// The probe of one line, known to be valid UTF-8, read by serde_json:
    /// `None` if it is not a JSON object. The fast path
    /// ([`fast_probe`](super::fast_probe)) reads the easy lines; this
    /// reads the rest and is the authority.
    pub(super) fn slowly(line: &[u8]) -> Option<Self> {
        serde_json::from_slice::<Probe>(line).ok()
    }
}

/// JavaScript and Python truthiness: what `if entry.get(key)` tests.
pub(super) fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

fn string(value: Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s),
        _ => None,
    }
}

impl<'de> Deserialize<'de> for Probe {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ProbeVisitor)
    }
}

struct ProbeVisitor;

impl<'de> Visitor<'de> for ProbeVisitor {
    type Value = Probe;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a transcript line")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Probe, A::Error> {
        let mut probe = Probe::default();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "type" => probe.kind = string(map.next_value()?),
                "uuid" => probe.uuid = string(map.next_value()?),
                "parentUuid" => probe.parent = string(map.next_value()?),
                "isSidechain" => probe.sidechain = truthy(&map.next_value()?),
                "isMeta" => probe.meta = truthy(&map.next_value()?),
                "teamName" => probe.team = truthy(&map.next_value()?),
                "agentId" => probe.agent_id = Some(map.next_value()?),
                "timestamp" => probe.timestamp = string(map.next_value()?),
                "sourceToolAssistantUUID" => {
                    probe.source_tool_assistant = string(map.next_value()?)
                }
                "message" => {
                    let message: MessageProbe = map.next_value()?;
                    probe.message_id = message.id;
                    probe.blocks = message.blocks;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(probe)
    }
}

/// `message.id` and the content blocks' tool ids; anything else (a string
/// content, a non-object message) reads as empty.
#[derive(Default)]
struct MessageProbe {
    id: Option<String>,
    blocks: Vec<Block>,
}

impl<'de> Deserialize<'de> for MessageProbe {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(MessageVisitor)
    }
}

struct MessageVisitor;

impl<'de> Visitor<'de> for MessageVisitor {
    type Value = MessageProbe;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a message")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<MessageProbe, A::Error> {
        let mut message = MessageProbe::default();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "id" => message.id = string(map.next_value()?).filter(|id| !id.is_empty()),
                "content" => message.blocks = map.next_value::<Blocks>()?.0,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(message)
    }

    otherwise_empty!(MessageProbe, seq);
}

/// A content value: the blocks of an array, nothing for anything else.
#[derive(Default)]
struct Blocks(Vec<Block>);

impl<'de> Deserialize<'de> for Blocks {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(BlocksVisitor)
    }
}

struct BlocksVisitor;

impl<'de> Visitor<'de> for BlocksVisitor {
    type Value = Blocks;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("message content")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Blocks, A::Error> {
        let mut blocks = Vec::new();
        while let Some(block) = seq.next_element::<Option<BlockProbe>>()? {
            blocks.extend(block.map(|b| b.0));
        }
        Ok(Blocks(blocks))
    }

    otherwise_empty!(Blocks, map);
}

/// One block: its `type`, `id` and `tool_use_id` if it is an object.
#[derive(Default)]
struct BlockProbe(Block);

impl<'de> Deserialize<'de> for BlockProbe {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(BlockVisitor)
    }
}

struct BlockVisitor;

impl<'de> Visitor<'de> for BlockVisitor {
    type Value = BlockProbe;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a content block")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<BlockProbe, A::Error> {
        let mut block = Block::default();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "type" => block.kind = string(map.next_value()?),
                "id" => block.id = string(map.next_value()?),
                "tool_use_id" => block.tool_use_id = string(map.next_value()?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(BlockProbe(block))
    }

    otherwise_empty!(BlockProbe, seq);
}
