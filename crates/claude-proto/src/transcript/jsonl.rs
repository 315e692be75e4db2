//! A store's entries as one JSONL text, as the Python SDK writes them
//! out to list a store's sessions (`_entries_to_jsonl`): one compact line
//! per entry, `type` first, non-ASCII escaped (its `json.dumps`), so the
//! head and tail windows of the text hold the same lines in both SDKs.

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::Entry;

/// The entries as JSONL, each line ended by a newline: compact, the
/// `type` member first, every non-ASCII character escaped, so the text is
/// ASCII. An entry that is not a JSON object is written compacted as it
/// is. Call it to read a store's session with the functions made for a
/// transcript's bytes (`SessionInfo::from_lite`, `first_prompt_of`).
pub fn entries_to_jsonl(entries: &[Entry]) -> String {
    let mut out = String::with_capacity(entries.iter().map(|e| e.get().len() + 1).sum());
    for entry in entries {
        write_line(entry.get(), &mut out);
        out.push('\n');
    }
    out
}

fn write_line(text: &str, out: &mut String) {
    let Some(kind) = type_value(text) else {
        compact_ascii(text, out);
        return;
    };
    // `{"type": e["type"], **e}`: `type` first, the rest in order.
    out.push_str("{\"type\":");
    compact_ascii(kind.get(), out);
    let rest = without_type(text);
    match rest.as_deref() {
        Some("{}") | None => out.push('}'),
        Some(rest) => {
            out.push(',');
            compact_ascii(&rest[1..], out);
        }
    }
}

/// The value of a JSON object's `type` member, if it is an object with one.
fn type_value(text: &str) -> Option<Box<RawValue>> {
    struct TypeOf;
    impl<'de> Visitor<'de> for TypeOf {
        type Value = Option<Box<RawValue>>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut found = None;
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                if key == "type" {
                    // The last one, as Python's `json.loads` keeps it.
                    found = Some(map.next_value::<Box<RawValue>>()?);
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(found)
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    (&mut de).deserialize_map(TypeOf).ok().flatten()
}

/// The object's text without its `type` members, the others in order.
fn without_type(text: &str) -> Option<String> {
    struct Rest;
    impl<'de> Visitor<'de> for Rest {
        type Value = String;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = String::from("{");
            while let Some((key, value)) = map.next_entry::<String, Box<RawValue>>()? {
                if key == "type" {
                    continue;
                }
                if out.len() > 1 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(&key).unwrap_or_default());
                out.push(':');
                out.push_str(value.get());
            }
            out.push('}');
            Ok(out)
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    (&mut de).deserialize_map(Rest).ok()
}

/// Appends JSON `text` without whitespace between tokens and with every
/// non-ASCII character escaped (`\uXXXX`, UTF-16): Python's
/// `json.dumps(..., separators=(",", ":"))`.
fn compact_ascii(text: &str, out: &mut String) {
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
        } else if matches!(c, ' ' | '\t' | '\n' | '\r') {
            continue;
        }
        if c.is_ascii() {
            out.push(c);
        } else {
            // Only strings hold non-ASCII characters in JSON text.
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(text: &str) -> Entry {
        RawValue::from_string(text.to_owned()).unwrap()
    }

    #[test]
    fn lines_are_compact_with_type_first_and_ascii() {
        let jsonl = entries_to_jsonl(&[
            entry(r#"{ "uuid": "u", "type" : "tag", "tag": "é 😀" }"#),
            entry(r#"{"a": [1, 2]}"#),
            entry(r#"{"type":"x"}"#),
        ]);
        assert_eq!(
            jsonl,
            "{\"type\":\"tag\",\"uuid\":\"u\",\"tag\":\"\\u00e9 \\ud83d\\ude00\"}\n{\"a\":[1,2]}\n{\"type\":\"x\"}\n"
        );
    }
}
