//! Repairs to JSON text that serde_json refuses but the CLI can write.

/// Replaces every escaped lone surrogate (`\ud83d` not followed by a low
/// surrogate escape, or a low one on its own) with `\ufffd`.
///
/// JavaScript strings are UTF-16, and `JSON.stringify` writes half of an
/// emoji cut in two as an escaped lone surrogate; serde_json cannot turn
/// that into a Rust string. The raw line is never changed; this is only
/// for the typed view. Returns `None` when there is nothing to replace.
pub(crate) fn replace_lone_surrogates(text: &[u8]) -> Option<Vec<u8>> {
    let mut out: Option<Vec<u8>> = None;
    let mut copied = 0;
    let mut i = 0;
    while i < text.len() {
        if text[i] != b'\\' {
            i += 1;
            continue;
        }
        if text.get(i + 1) != Some(&b'u') {
            // Any other escape, `\\` included: skip both bytes.
            i += 2;
            continue;
        }
        let Some(unit) = hex4(text.get(i + 2..i + 6)) else {
            i += 2;
            continue;
        };
        let lone = match unit {
            0xD800..=0xDBFF => {
                let next_is_low = text.get(i + 6) == Some(&b'\\')
                    && text.get(i + 7) == Some(&b'u')
                    && matches!(hex4(text.get(i + 8..i + 12)), Some(0xDC00..=0xDFFF));
                if next_is_low {
                    // A valid pair: keep both escapes.
                    i += 12;
                    continue;
                }
                true
            }
            0xDC00..=0xDFFF => true,
            _ => false,
        };
        if lone {
            let buf = out.get_or_insert_with(|| Vec::with_capacity(text.len()));
            buf.extend_from_slice(&text[copied..i]);
            buf.extend_from_slice(b"\\ufffd");
            copied = i + 6;
        }
        i += 6;
    }
    let mut buf = out?;
    buf.extend_from_slice(&text[copied..]);
    Some(buf)
}

fn hex4(digits: Option<&[u8]>) -> Option<u32> {
    let digits = std::str::from_utf8(digits?).ok()?;
    u32::from_str_radix(digits, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fix(s: &str) -> Option<String> {
        replace_lone_surrogates(s.as_bytes()).map(|v| String::from_utf8(v).unwrap())
    }

    #[test]
    fn replaces_only_lone_surrogates() {
        assert_eq!(fix(r#""a \ud83d b""#).as_deref(), Some(r#""a \ufffd b""#));
        assert_eq!(fix(r#""\udc00""#).as_deref(), Some(r#""\ufffd""#));
        assert_eq!(fix(r#""\ud83d\ude00 ok""#), None, "a valid pair stays");
        assert_eq!(
            fix(r#""\\ud83d""#),
            None,
            "an escaped backslash is not an escape"
        );
        assert_eq!(
            fix(r#""\ud83d\u0041""#).as_deref(),
            Some(r#""\ufffd\u0041""#)
        );
        assert_eq!(fix(r#""plain""#), None);
        assert_eq!(
            fix(r#""\ud8"#),
            None,
            "a truncated escape is left to the parser"
        );
    }

    #[test]
    fn the_result_parses() {
        let fixed = fix(r#"{"a":"x\ud83dy","b":"\ude00"}"#).unwrap();
        let v: serde_json::Value = serde_json::from_str(&fixed).unwrap();
        assert_eq!(v["a"], "x\u{fffd}y");
        assert_eq!(v["b"], "\u{fffd}");
    }
}
