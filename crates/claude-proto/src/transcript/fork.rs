//! Forking a session: a new transcript with the same conversation under
//! fresh uuids, linked back to where it came from. Pure: the caller reads
//! the lines, supplies uuids and the time, and writes the result.

use std::collections::{HashMap, HashSet};

use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::chain::{Span, TranscriptIndex};
use super::probe::truthy;
use super::time::format_iso_millis;

/// Why a session cannot be forked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ForkError {
    /// The transcript has no conversation entry to copy.
    #[error("session {0} has no messages to fork")]
    NothingToFork(String),
    /// `up_to` names no entry of the transcript's main conversation.
    #[error("message {message} not found in session {session}")]
    MessageNotFound {
        /// The session forked.
        session: String,
        /// The uuid asked for.
        message: String,
    },
}

/// A transcript read for forking: the conversation's index plus the
/// session's `content-replacement` records, which the fork carries over.
#[derive(Debug, Default)]
pub struct ForkSource {
    index: TranscriptIndex,
    replacements: Vec<Box<RawValue>>,
    session_id: String,
}

impl ForkSource {
    /// A source for the session `session_id`.
    pub fn new(session_id: &str) -> Self {
        Self {
            session_id: session_id.to_owned(),
            ..Self::default()
        }
    }

    /// Reads one line of the source transcript, found at `span`.
    pub fn handle_line(&mut self, span: Span, line: &[u8]) {
        self.index.handle_line(span, line);
        #[derive(serde::Deserialize)]
        struct Replacement {
            #[serde(rename = "type")]
            kind: String,
            #[serde(rename = "sessionId")]
            session_id: Option<String>,
            replacements: Option<Vec<Box<RawValue>>>,
        }
        // Cheap test first: most lines are not replacements.
        if !line.windows(21).any(|w| w == b"\"content-replacement\"") {
            return;
        }
        if let Ok(r) = serde_json::from_slice::<Replacement>(line) {
            if r.kind == "content-replacement" && r.session_id.as_deref() == Some(&self.session_id)
            {
                self.replacements
                    .extend(r.replacements.into_iter().flatten());
            }
        }
    }

    /// How many non-blank lines were not JSON objects.
    pub fn skipped_lines(&self) -> u64 {
        self.index.skipped_lines()
    }
}

/// A fork ready to write: which source lines to copy, in order, each
/// rewritten by [`rewrite`](Self::rewrite), then [`closing_lines`](Self::closing_lines).
#[derive(Debug)]
pub struct Fork {
    session_id: String,
    source_session_id: String,
    now: String,
    copies: Vec<Copy>,
    mapping: HashMap<Box<str>, String>,
    replacements: Vec<Box<RawValue>>,
}

#[derive(Debug)]
struct Copy {
    span: Span,
    uuid: Box<str>,
    parent: Option<String>,
}

impl Fork {
    /// Plans a fork of `source`, up to and including the entry `up_to` if
    /// given. Sidechain entries are left out; `progress` entries are not
    /// copied and the links through them are joined. `new_uuid` is called
    /// for every copied entry, the new session id and the closing lines;
    /// `now_millis` stamps the last entry and the closing lines.
    pub fn plan(
        source: ForkSource,
        up_to: Option<&str>,
        now_millis: i64,
        new_uuid: &mut dyn FnMut() -> String,
    ) -> Result<Self, ForkError> {
        let ForkSource {
            index,
            replacements,
            session_id: source_session_id,
        } = source;
        let nothing = || ForkError::NothingToFork(source_session_id.clone());
        let mut entries: Vec<_> = index.fork_entries().collect();
        if entries.is_empty() {
            return Err(nothing());
        }
        if let Some(up_to) = up_to {
            let cutoff = entries.iter().position(|e| e.1 == up_to).ok_or_else(|| {
                ForkError::MessageNotFound {
                    session: source_session_id.clone(),
                    message: up_to.to_owned(),
                }
            })?;
            entries.truncate(cutoff + 1);
        }
        let mut mapping = HashMap::new();
        for (_, uuid, _, _) in &entries {
            mapping.insert(Box::<str>::from(*uuid), new_uuid());
        }
        let by_uuid: HashMap<&str, usize> =
            entries.iter().enumerate().map(|(i, e)| (e.1, i)).collect();
        let mut copies = Vec::new();
        for &(span, uuid, parent, progress) in &entries {
            if progress {
                continue;
            }
            // The nearest ancestor that is copied, through progress entries.
            let mut new_parent = None;
            let mut seen = HashSet::new();
            let mut next = parent;
            while let Some(id) = next.filter(|id| seen.insert(*id)) {
                let Some(&p) = by_uuid.get(id) else { break };
                if !entries[p].3 {
                    new_parent = mapping.get(id).cloned();
                    break;
                }
                next = entries[p].2;
            }
            copies.push(Copy {
                span,
                uuid: uuid.into(),
                parent: new_parent,
            });
        }
        if copies.is_empty() {
            return Err(nothing());
        }
        Ok(Self {
            session_id: new_uuid(),
            source_session_id,
            now: format_iso_millis(now_millis),
            copies,
            mapping,
            replacements,
        })
    }

    /// The new session's id.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// Where the lines to copy are, in the order to write them.
    pub fn spans(&self) -> impl Iterator<Item = Span> + '_ {
        self.copies.iter().map(|c| c.span)
    }

    /// The `n`th line to write, made from the source line at the `n`th
    /// span: new uuid, parent and session id, `forkedFrom` naming the
    /// original, team and agent fields dropped, other fields kept as
    /// written. `None` if the line no longer parses (the file changed
    /// between the passes).
    pub fn rewrite(&self, n: usize, line: &[u8]) -> Option<String> {
        let copy = self.copies.get(n)?;
        let fields = ordered_fields(line)?;
        let last = n + 1 == self.copies.len();
        let json = |v: &str| serde_json::to_string(v).unwrap_or_default();
        let optional = |v: Option<&String>| v.map_or_else(|| "null".to_owned(), |v| json(v));
        let logical_parent = |raw: &RawValue| -> String {
            match serde_json::from_str::<serde_json::Value>(raw.get()) {
                Ok(serde_json::Value::String(s)) if !s.is_empty() => {
                    optional(self.mapping.get(s.as_str()))
                }
                Ok(v) if !truthy(&v) => raw.get().to_owned(),
                _ => "null".to_owned(),
            }
        };
        let forked_from = format!(
            "{{\"sessionId\":{},\"messageUuid\":{}}}",
            json(&self.source_session_id),
            json(&copy.uuid)
        );
        let mut replaced: Vec<(&str, String)> = vec![
            ("uuid", json(&self.mapping[&copy.uuid])),
            ("parentUuid", optional(copy.parent.as_ref())),
            ("logicalParentUuid", "null".to_owned()),
            ("sessionId", json(&self.session_id)),
            ("timestamp", json(&self.now)),
            ("isSidechain", "false".to_owned()),
            ("forkedFrom", forked_from),
        ];
        let mut out = String::with_capacity(line.len() + 256);
        out.push('{');
        let mut first = true;
        let mut push = |out: &mut String, key: &str, value: &str| {
            if !std::mem::take(&mut first) {
                out.push(',');
            }
            out.push_str(&json(key));
            out.push(':');
            out.push_str(value);
        };
        for (key, value) in &fields {
            if matches!(
                &**key,
                "teamName" | "agentName" | "slug" | "sourceToolAssistantUUID"
            ) {
                continue;
            }
            match replaced.iter().position(|(k, _)| k == key) {
                Some(at) => {
                    let (_, mut new) = replaced.remove(at);
                    if key == "logicalParentUuid" {
                        new = logical_parent(value);
                    } else if key == "timestamp" && !last {
                        new = value.get().to_owned();
                    }
                    push(&mut out, key, &new);
                }
                None => push(&mut out, key, value.get()),
            }
        }
        for (key, value) in replaced {
            push(&mut out, key, &value);
        }
        out.push('}');
        Some(out)
    }

    /// The lines that end the fork: the carried-over content replacements
    /// (if any), then the fork's title, from `title` if it is not blank,
    /// else `<derived> (fork)` (`derived` being the source's title or
    /// first prompt, `Forked session` without one).
    pub fn closing_lines(
        &self,
        title: Option<&str>,
        derived: Option<&str>,
        new_uuid: &mut dyn FnMut() -> String,
    ) -> Vec<String> {
        let json = |v: &str| serde_json::to_string(v).unwrap_or_default();
        let mut lines = Vec::new();
        if !self.replacements.is_empty() {
            let list: Vec<&str> = self.replacements.iter().map(|r| r.get()).collect();
            lines.push(format!(
                "{{\"type\":\"content-replacement\",\"sessionId\":{},\"replacements\":[{}],\"uuid\":{},\"timestamp\":{}}}",
                json(&self.session_id),
                list.join(","),
                json(&new_uuid()),
                json(&self.now)
            ));
        }
        let title = match title.map(str::trim).filter(|t| !t.is_empty()) {
            Some(title) => title.to_owned(),
            None => format!(
                "{} (fork)",
                derived
                    .filter(|d| !d.is_empty())
                    .unwrap_or("Forked session")
            ),
        };
        lines.push(format!(
            "{{\"type\":\"custom-title\",\"sessionId\":{},\"customTitle\":{},\"uuid\":{},\"timestamp\":{}}}",
            json(&self.session_id),
            json(&title),
            json(&new_uuid()),
            json(&self.now)
        ));
        lines
    }
}

/// A JSON object's members in the order written, values untouched; a key
/// written twice keeps its first place and its last value.
fn ordered_fields(line: &[u8]) -> Option<Vec<(String, Box<RawValue>)>> {
    struct Fields;
    impl<'de> Visitor<'de> for Fields {
        type Value = Vec<(String, Box<RawValue>)>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut fields: Vec<(String, Box<RawValue>)> = Vec::new();
            while let Some((key, value)) = map.next_entry::<String, Box<RawValue>>()? {
                match fields.iter_mut().find(|(k, _)| *k == key) {
                    Some(field) => field.1 = value,
                    None => fields.push((key, value)),
                }
            }
            Ok(fields)
        }
    }
    let mut de = serde_json::Deserializer::from_slice(line);
    let fields = (&mut de).deserialize_map(Fields).ok()?;
    de.end().ok()?;
    Some(fields)
}
