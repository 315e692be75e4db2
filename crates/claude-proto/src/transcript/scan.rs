//! Reading one string field out of transcript text without parsing it:
//! how the session list reads a file's first and last 64 KiB, where lines
//! may be cut in half. The rules are the SDKs', kept exactly (which
//! spellings count, which occurrence wins) so both list the same.

/// Where `"key":"` and `"key": "` occur in a text, for a few keys at
/// once, found in one pass over its quotes (the listing reads seven keys
/// from every transcript's head and tail; a search per key was most of
/// its time).
pub(crate) struct Fields<'a> {
    text: &'a str,
    keys: &'a [&'a str],
    /// (key index, spaced form, pattern start, value start), in text order.
    hits: Vec<(usize, bool, usize, usize)>,
}

impl<'a> Fields<'a> {
    /// Scans `text` for every key of `keys`.
    pub(crate) fn scan(text: &'a str, keys: &'a [&'a str]) -> Self {
        let bytes = text.as_bytes();
        let mut hits = Vec::new();
        // Quotes are every few bytes in JSON: a plain loop beats a search
        // call per quote.
        let mut starts = [false; 256];
        for key in keys {
            if let Some(&b) = key.as_bytes().first() {
                starts[usize::from(b)] = true;
            }
        }
        for (quote, _) in bytes.iter().enumerate().filter(|(_, b)| **b == b'"') {
            let rest = &bytes[quote + 1..];
            // Most quotes open another key or a value: one byte tells.
            let Some(&first) = rest.first() else { break };
            if !starts[usize::from(first)] {
                continue;
            }
            for (index, key) in keys.iter().enumerate() {
                if key.as_bytes().first() != Some(&first) {
                    continue;
                }
                let Some(after) = rest.strip_prefix(key.as_bytes()) else {
                    continue;
                };
                let spaced = if after.starts_with(b"\":\"") {
                    false
                } else if after.starts_with(b"\": \"") {
                    true
                } else {
                    continue;
                };
                let value = quote + 1 + key.len() + if spaced { 4 } else { 3 };
                hits.push((index, spaced, quote, value));
            }
        }
        Self { text, keys, hits }
    }

    fn index(&self, key: &str) -> Option<usize> {
        self.keys.iter().position(|k| *k == key)
    }

    /// The value of the first `"key":"…"` if it is complete, else of the
    /// first complete `"key": "…"`: the SDKs' `_extract_json_string_field`.
    pub(crate) fn first(&self, key: &str) -> Option<String> {
        let index = self.index(key)?;
        for spaced in [false, true] {
            let Some(&(_, _, _, start)) = self.hits.iter().find(|h| h.0 == index && h.1 == spaced)
            else {
                continue;
            };
            if let Some(end) = closing_quote(self.text, start) {
                return Some(unescape(&self.text[start..end]));
            }
        }
        None
    }

    /// The value of the last complete `"key":"…"`, unless a complete
    /// `"key": "…"` occurs, whose last one then wins (the SDKs search the
    /// compact spelling first, then the spaced one); an occurrence inside
    /// an earlier value, or after an unterminated one, does not count: the
    /// SDKs' `_extract_last_json_string_field`.
    pub(crate) fn last(&self, key: &str) -> Option<String> {
        let index = self.index(key)?;
        let mut last = None;
        for spaced in [false, true] {
            let mut from = 0;
            for &(_, _, quote, start) in self.hits.iter().filter(|h| h.0 == index && h.1 == spaced)
            {
                if quote < from {
                    continue;
                }
                let Some(end) = closing_quote(self.text, start) else {
                    break;
                };
                last = Some((start, end));
                from = end + 1;
            }
        }
        last.map(|(start, end)| unescape(&self.text[start..end]))
    }
}

/// [`Fields::last`] for one key.
pub(crate) fn last_string_field(text: &str, key: &str) -> Option<String> {
    Fields::scan(text, &[key]).last(key)
}

/// [`Fields::first`] for one key.
#[cfg(test)]
pub(crate) fn first_string_field(text: &str, key: &str) -> Option<String> {
    Fields::scan(text, &[key]).first(key)
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
