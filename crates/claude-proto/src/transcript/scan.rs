//! Reading one string field out of transcript text without parsing it:
//! how the session list reads a file's first and last 64 KiB, where lines
//! may be cut in half. The rules are the SDKs', kept exactly (which
//! spellings count, which occurrence wins) so both list the same.

/// The value of the first `"key":"…"` (else of the first `"key": "…"`) in
/// `text` whose closing quote is in `text`.
pub(crate) fn first_string_field(text: &str, key: &str) -> Option<String> {
    for pattern in patterns(key) {
        let Some(at) = text.find(&pattern) else {
            continue;
        };
        let start = at + pattern.len();
        if let Some(end) = closing_quote(text, start) {
            return Some(unescape(&text[start..end]));
        }
    }
    None
}

/// The value of the last complete `"key":"…"` in `text`; if the spaced
/// form `"key": "…"` occurs too, its last occurrence wins (the SDKs look
/// for the compact form first, then the spaced one).
pub(crate) fn last_string_field(text: &str, key: &str) -> Option<String> {
    let mut last = None;
    for pattern in patterns(key) {
        let mut from = 0;
        while let Some(at) = text[from..].find(&pattern) {
            let start = from + at + pattern.len();
            match closing_quote(text, start) {
                Some(end) => {
                    last = Some(unescape(&text[start..end]));
                    from = end + 1;
                }
                None => break,
            }
        }
    }
    last
}

fn patterns(key: &str) -> [String; 2] {
    [format!("\"{key}\":\""), format!("\"{key}\": \"")]
}

/// The index of the unescaped `"` that ends a string starting at `start`.
fn closing_quote(text: &str, start: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = start;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// A JSON string's raw contents unescaped; left as written if they do not
/// parse (a cut escape).
fn unescape(raw: &str) -> String {
    if !raw.contains('\\') {
        return raw.to_owned();
    }
    serde_json::from_str::<String>(&format!("\"{raw}\"")).unwrap_or_else(|_| raw.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_and_last_complete_values_are_found() {
        let text = r#"{"a":"one"} {"a": "two"} {"a":"th\"ree"} {"a":"cut"#;
        assert_eq!(first_string_field(text, "a").as_deref(), Some("one"));
        // The spaced spelling is searched second, so its last one wins.
        assert_eq!(last_string_field(text, "a").as_deref(), Some("two"));
        assert_eq!(
            last_string_field(r#"{"a":"1"}{"a":"x\ny"}"#, "a").as_deref(),
            Some("x\ny")
        );
        assert_eq!(first_string_field(r#"{"a":"cut"#, "a"), None);
        assert_eq!(first_string_field(r#"{"b":"x"}"#, "a"), None);
    }

    #[test]
    fn a_bad_escape_is_kept_as_written() {
        assert_eq!(
            first_string_field(r#"{"a":"x\qy"}"#, "a").as_deref(),
            Some(r"x\qy")
        );
    }
}
