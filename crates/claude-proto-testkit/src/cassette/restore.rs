//! The default path rules undone at replay: `$CWD`, `$HOME`, `$TMPDIR`
//! and `$CWD_ENCODED` put back as this run's directories, so that a
//! session recorded on one machine replays on another, where the program
//! sends its own paths.

use serde_json::Value;

use super::redact::{ProcessFacts, encoded_dir};

/// Placeholders and the values they stand for in this run.
#[derive(Clone, Debug, Default)]
pub(super) struct Restore {
    /// `(placeholder, value, value escaped for a JSON string)`, longest
    /// placeholder first where one is a prefix of another.
    pairs: Vec<(&'static str, String, String)>,
}

impl Restore {
    /// What to put back for `facts` (none of a fact that is absent).
    pub(super) fn new(facts: &ProcessFacts) -> Self {
        let trim = |dir: &str| {
            let trimmed = dir.trim_end_matches('/');
            if trimmed.is_empty() {
                dir.to_owned()
            } else {
                trimmed.to_owned()
            }
        };
        let mut pairs = Vec::new();
        let mut add = |placeholder: &'static str, value: String| {
            let quoted = serde_json::to_string(&value).unwrap_or_default();
            let escaped = quoted
                .get(1..quoted.len().saturating_sub(1))
                .unwrap_or_default()
                .to_owned();
            pairs.push((placeholder, value, escaped));
        };
        if let Some(cwd) = &facts.cwd {
            if let Some(encoded) = encoded_dir(cwd) {
                add("$CWD_ENCODED", encoded);
            }
            add("$CWD", trim(cwd));
        }
        if let Some(home) = &facts.home {
            add("$HOME", trim(home));
        }
        if let Some(tmp) = &facts.temp_dir {
            add("$TMPDIR", trim(tmp));
        }
        Self { pairs }
    }

    /// `text`, a JSON line, with the placeholders put back.
    pub(super) fn json_text(&self, text: String) -> String {
        self.apply(text, |(_, _, escaped)| escaped)
    }

    /// `text`, plain text, with the placeholders put back.
    pub(super) fn text(&self, text: String) -> String {
        self.apply(text, |(_, value, _)| value)
    }

    /// Every string in `value` with the placeholders put back.
    pub(super) fn value(&self, value: &mut Value) {
        if self.pairs.is_empty() {
            return;
        }
        match value {
            Value::String(s) if s.contains('$') => *s = self.text(std::mem::take(s)),
            Value::Array(items) => items.iter_mut().for_each(|v| self.value(v)),
            Value::Object(map) => map.values_mut().for_each(|v| self.value(v)),
            _ => {}
        }
    }

    fn apply<'a>(
        &'a self,
        mut text: String,
        pick: impl Fn(&'a (&'static str, String, String)) -> &'a String,
    ) -> String {
        if !text.contains('$') {
            return text;
        }
        for pair in &self.pairs {
            if let Some(replaced) = replace_placeholder(&text, pair.0, pick(pair)) {
                text = replaced;
            }
        }
        text
    }
}

/// `text` with each `placeholder` that is not the start of a longer name
/// (`$HOME` in `$HOMEBREW_TOKEN`, an environment rule's placeholder)
/// replaced by `value`; `None` when there is none.
fn replace_placeholder(text: &str, placeholder: &str, value: &str) -> Option<String> {
    let mut out: Option<String> = None;
    let mut rest = text;
    let mut copied = 0;
    let mut offset = 0;
    while let Some(at) = rest.find(placeholder) {
        let start = offset + at;
        let end = start + placeholder.len();
        let next = text[end..].chars().next();
        let is_name = next.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        if !is_name {
            let buf = out.get_or_insert_with(|| String::with_capacity(text.len()));
            buf.push_str(&text[copied..start]);
            buf.push_str(value);
            copied = end;
        }
        offset = end;
        rest = &text[end..];
    }
    out.map(|mut buf| {
        buf.push_str(&text[copied..]);
        buf
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn facts() -> ProcessFacts {
        ProcessFacts::new(
            Some("/home/al".into()),
            Some("/home/al/my project/".into()),
            Some("/tmp".into()),
            Vec::new(),
        )
    }

    #[test]
    fn placeholders_come_back_as_this_runs_paths() {
        let restore = Restore::new(&facts());
        let line = r#"{"cwd":"$CWD","dir":"$HOME/.claude/projects/$CWD_ENCODED","t":"$TMPDIR/x"}"#;
        assert_eq!(
            restore.json_text(line.to_owned()),
            r#"{"cwd":"/home/al/my project","dir":"/home/al/.claude/projects/-home-al-my-project","t":"/tmp/x"}"#
        );
    }

    #[test]
    fn longer_names_and_plain_dollars_are_left_alone() {
        let restore = Restore::new(&facts());
        let line = "$HOMEBREW_TOKEN costs $5 in $HOME";
        assert_eq!(
            restore.text(line.to_owned()),
            "$HOMEBREW_TOKEN costs $5 in /home/al"
        );
    }

    #[test]
    fn json_values_are_escaped_in_json_text_and_raw_in_values() {
        let facts = ProcessFacts::new(None, Some(r#"C:\work "q""#.into()), None, Vec::new());
        let restore = Restore::new(&facts);
        assert_eq!(
            restore.json_text(r#"{"cwd":"$CWD"}"#.to_owned()),
            r#"{"cwd":"C:\\work \"q\""}"#
        );
        let mut value = json!({"a": ["$CWD/x", 1], "b": "none"});
        restore.value(&mut value);
        assert_eq!(value, json!({"a": [r#"C:\work "q"/x"#, 1], "b": "none"}));
    }
}
