//! What a session list shows for one session, read from the first and
//! last 64 KiB of its transcript: titles, tag, first prompt, branch.

use serde::{Deserialize, Serialize};

use super::scan::{Fields, last_string_field};
use super::time::parse_iso_millis;

/// How many bytes of a transcript's head and of its tail the session list
/// reads (the SDKs' and the CLI's window).
pub const LITE_WINDOW: usize = 64 * 1024;

/// How long a first prompt may be, in characters, before it is cut and
/// ends in `…`.
pub const FIRST_PROMPT_CHARS: usize = 200;

/// One session in a list: its id, what to show for it, and when it
/// changed. Fields and their names are the Python SDK's `SDKSessionInfo`
/// (TypeScript: `SDKSessionInfo`, camelCase).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SessionInfo {
    /// The session's id.
    pub session_id: String,
    /// What to show: the custom or AI title, else the last prompt, else
    /// the CLI's summary, else the first prompt. Never empty for a
    /// session read from its transcript (one with nothing to show is not
    /// listed); empty for a store session whose load failed.
    pub summary: String,
    /// When the transcript last changed, in milliseconds since the epoch.
    pub last_modified: i64,
    /// The transcript's size in bytes; `None` for sessions in a store.
    pub file_size: Option<u64>,
    /// The title the user set (`custom-title`), else the AI-generated one.
    pub custom_title: Option<String>,
    /// The first prompt the user typed (not a command, hook output or
    /// tool result), cut to [`FIRST_PROMPT_CHARS`].
    pub first_prompt: Option<String>,
    /// The git branch at the end of the session.
    pub git_branch: Option<String>,
    /// The session's working directory.
    pub cwd: Option<String>,
    /// The tag the user set, if any.
    pub tag: Option<String>,
    /// When the session started, from its first timestamp, in
    /// milliseconds since the epoch.
    pub created_at: Option<i64>,
    /// Whether the session is archived (TypeScript's `archiveSession`):
    /// `None` if it never was, `Some(false)` once unarchived or when a
    /// prompt was sent after the mark. Not in the Python SDK.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archived: Option<bool>,
}

/// The parts of a transcript the session list reads: its first and last
/// [`LITE_WINDOW`] bytes (the same text when it is shorter than that),
/// its size and modification time.
#[derive(Debug, Clone, Copy)]
pub struct Lite<'a> {
    /// The first bytes, decoded as UTF-8 with bad sequences replaced.
    pub head: &'a str,
    /// The last bytes, decoded the same way.
    pub tail: &'a str,
    /// Modification time in milliseconds since the epoch.
    pub mtime: i64,
    /// Size in bytes; `None` where there is no file (a store).
    pub size: Option<u64>,
}

impl SessionInfo {
    /// The listing of a session from the head and tail of its transcript,
    /// as the SDKs derive it; `None` for a subagent's transcript (its
    /// first line is a sidechain) or a transcript with nothing to show (no
    /// title, prompt or summary). `project_path` is the cwd to report when
    /// the transcript names none.
    ///
    /// Pure and cheap: string scans, and JSON parsing only of the user
    /// lines in the head.
    pub fn from_lite(session_id: &str, lite: Lite<'_>, project_path: Option<&str>) -> Option<Self> {
        let Lite {
            head,
            tail,
            mtime,
            size,
        } = lite;
        let first_line = head.split('\n').next().unwrap_or_default();
        if first_line.contains("\"isSidechain\":true")
            || first_line.contains("\"isSidechain\": true")
        {
            return None;
        }
        let head_fields = Fields::scan(head, LISTED_KEYS);
        // A short transcript's head is its tail: scanned once.
        let tail_fields;
        let tail_fields = if std::ptr::eq(head, tail) || head == tail {
            &head_fields
        } else {
            tail_fields = Fields::scan(tail, LISTED_KEYS);
            &tail_fields
        };
        let custom_title = title_from(&head_fields, tail_fields);
        let first_prompt = first_prompt_of(head);
        let summary = custom_title
            .clone()
            .or_else(|| non_empty_field(tail_fields.last("lastPrompt")))
            .or_else(|| non_empty_field(tail_fields.last("summary")))
            .or_else(|| first_prompt.clone())?;
        let git_branch = non_empty_field(tail_fields.last("gitBranch"))
            .or_else(|| non_empty_field(head_fields.first("gitBranch")));
        let cwd = non_empty_field(head_fields.first("cwd"))
            .or_else(|| project_path.filter(|p| !p.is_empty()).map(str::to_owned));
        // Only `{"type":"tag"` lines: a bare "tag" key also occurs in tool
        // inputs (git tags, image tags).
        let tag = tail
            .split('\n')
            .rev()
            .find(|line| line.starts_with("{\"type\":\"tag\""))
            .and_then(|line| non_empty_field(last_string_field(line, "tag")));
        let created_at = head_fields
            .first("timestamp")
            .and_then(|t| parse_iso_millis(&t));
        Some(Self {
            session_id: session_id.to_owned(),
            summary,
            last_modified: mtime,
            file_size: size,
            custom_title,
            first_prompt,
            git_branch,
            cwd,
            tag,
            created_at,
            archived: None,
        })
    }

    /// A store session whose transcript could not be loaded: listed with
    /// an empty summary rather than hidden, as the SDKs do.
    pub fn unreadable(session_id: &str, last_modified: i64) -> Self {
        Self {
            session_id: session_id.to_owned(),
            summary: String::new(),
            last_modified,
            file_size: None,
            custom_title: None,
            first_prompt: None,
            git_branch: None,
            cwd: None,
            tag: None,
            created_at: None,
            archived: None,
        }
    }
}

/// A session's title from its transcript's head and tail: the user-set
/// title, else the AI-generated one; the last of each in the tail, else in
/// the head (a short session's title may be near the top).
pub fn title_of(head: &str, tail: &str) -> Option<String> {
    title_from(
        &Fields::scan(head, TITLE_KEYS),
        &Fields::scan(tail, TITLE_KEYS),
    )
}

/// The keys a listing reads from a transcript's head and tail.
const LISTED_KEYS: &[&str] = &[
    "customTitle",
    "aiTitle",
    "lastPrompt",
    "summary",
    "gitBranch",
    "cwd",
    "timestamp",
];

const TITLE_KEYS: &[&str] = &["customTitle", "aiTitle"];

fn title_from(head: &Fields<'_>, tail: &Fields<'_>) -> Option<String> {
    non_empty_field(tail.last("customTitle"))
        .or_else(|| non_empty_field(head.last("customTitle")))
        .or_else(|| non_empty_field(tail.last("aiTitle")))
        .or_else(|| non_empty_field(head.last("aiTitle")))
}

fn non_empty_field(value: Option<String>) -> Option<String> {
    value.filter(|v| !v.is_empty())
}

fn non_empty(value: String) -> Option<String> {
    (!value.is_empty()).then_some(value)
}

/// The first prompt the user typed, from a transcript's head: the first
/// user line's text that is not a tool result, meta or compaction summary,
/// slash command (the first command's name is the fallback), hook or IDE
/// output; cut to [`FIRST_PROMPT_CHARS`] characters and `…`.
pub fn first_prompt_of(head: &str) -> Option<String> {
    non_empty(first_prompt(head))
}

fn first_prompt(head: &str) -> String {
    let mut command_fallback = String::new();
    for line in head.split('\n') {
        if !line.contains("\"type\":\"user\"") && !line.contains("\"type\": \"user\"") {
            continue;
        }
        if line.contains("\"tool_result\"")
            || line.contains("\"isMeta\":true")
            || line.contains("\"isMeta\": true")
            || line.contains("\"isCompactSummary\":true")
            || line.contains("\"isCompactSummary\": true")
        {
            continue;
        }
        let Ok(serde_json::Value::Object(entry)) = serde_json::from_str(line) else {
            continue;
        };
        if entry.get("type").and_then(|t| t.as_str()) != Some("user") {
            continue;
        }
        let Some(serde_json::Value::Object(message)) = entry.get("message") else {
            continue;
        };
        let Some(texts) = user_texts(message) else {
            continue;
        };
        let prompt = prompt_of_texts(texts, |name| {
            if command_fallback.is_empty() {
                command_fallback = name.to_owned();
            }
        });
        if let Some(prompt) = prompt {
            return prompt;
        }
    }
    command_fallback
}

/// The texts of a user message's content (a string, or its text blocks);
/// `None` if it holds a tool result or is neither.
pub(super) fn user_texts(
    message: &serde_json::Map<String, serde_json::Value>,
) -> Option<Vec<&str>> {
    fn kind(block: &serde_json::Value) -> Option<&str> {
        block.get("type").and_then(|t| t.as_str())
    }
    match message.get("content")? {
        serde_json::Value::String(text) => Some(vec![text]),
        serde_json::Value::Array(blocks)
            if blocks.iter().any(|b| kind(b) == Some("tool_result")) =>
        {
            None
        }
        serde_json::Value::Array(blocks) => Some(
            blocks
                .iter()
                .filter(|b| kind(b) == Some("text"))
                .filter_map(|b| b.get("text").and_then(|t| t.as_str()))
                .collect(),
        ),
        _ => None,
    }
}

/// The first of `texts` that is a prompt the user typed, trimmed, on one
/// line and cut to [`FIRST_PROMPT_CHARS`]; each slash command passed over
/// is handed to `on_command` by name.
pub(super) fn prompt_of_texts<'a>(
    texts: impl IntoIterator<Item = &'a str>,
    mut on_command: impl FnMut(&str),
) -> Option<String> {
    for raw in texts {
        let text = raw.replace('\n', " ");
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        if let Some(name) = command_name(text) {
            on_command(name);
            continue;
        }
        if is_generated(text) {
            continue;
        }
        if text.chars().count() > FIRST_PROMPT_CHARS {
            let cut: String = text.chars().take(FIRST_PROMPT_CHARS).collect();
            return Some(format!("{}\u{2026}", cut.trim_end()));
        }
        return Some(text.to_owned());
    }
    None
}

/// The name in `<command-name>…</command-name>`, if the text has one.
pub(super) fn command_name(text: &str) -> Option<&str> {
    const OPEN: &str = "<command-name>";
    let start = text.find(OPEN)? + OPEN.len();
    let len = text[start..].find("</command-name>")?;
    Some(&text[start..start + len])
}

/// Text the CLI or an IDE wrote into a user message, not the user.
pub(super) fn is_generated(text: &str) -> bool {
    const PREFIXES: [&str; 4] = [
        "<local-command-stdout>",
        "<session-start-hook>",
        "<tick>",
        "<goal>",
    ];
    if PREFIXES.iter().any(|p| text.starts_with(p)) {
        return true;
    }
    if let Some(rest) = text.strip_prefix("[Request interrupted by user") {
        if rest.contains(']') {
            return true;
        }
    }
    ["ide_opened_file", "ide_selection"].iter().any(|tag| {
        let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
        text.len() >= open.len() + close.len() && text.starts_with(&open) && text.ends_with(&close)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lite(text: &str) -> Lite<'_> {
        Lite {
            head: text,
            tail: text,
            mtime: 7,
            size: Some(text.len() as u64),
        }
    }

    #[test]
    fn titles_win_over_prompts_and_the_last_one_counts() {
        let text = concat!(
            r#"{"type":"user","message":{"role":"user","content":"hello there"},"cwd":"/p","gitBranch":"main","timestamp":"2025-01-01T00:00:00.000Z"}"#,
            "\n",
            r#"{"type":"custom-title","customTitle":"first"}"#,
            "\n",
            r#"{"type":"custom-title","customTitle":"second"}"#,
            "\n",
            r#"{"type":"tag","tag":"wip","sessionId":"s"}"#,
            "\n"
        );
        let info = SessionInfo::from_lite("s", lite(text), None).unwrap();
        assert_eq!(info.summary, "second");
        assert_eq!(info.custom_title.as_deref(), Some("second"));
        assert_eq!(info.first_prompt.as_deref(), Some("hello there"));
        assert_eq!(info.cwd.as_deref(), Some("/p"));
        assert_eq!(info.git_branch.as_deref(), Some("main"));
        assert_eq!(info.tag.as_deref(), Some("wip"));
        assert_eq!(info.created_at, Some(1_735_689_600_000));
    }

    #[test]
    fn sidechains_and_empty_sessions_are_not_listed() {
        let side = r#"{"type":"user","isSidechain":true,"message":{"content":"x"}}"#;
        assert!(SessionInfo::from_lite("s", lite(side), None).is_none());
        let meta_only = r#"{"type":"permission-mode","permissionMode":"default"}"#;
        assert!(SessionInfo::from_lite("s", lite(meta_only), None).is_none());
    }

    #[test]
    fn the_first_prompt_skips_what_the_user_did_not_type() {
        let head = [
            r#"{"type":"user","message":{"content":"<command-name>/init</command-name>"}}"#,
            r#"{"type":"user","isMeta":true,"message":{"content":"meta"}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","content":"r"}]}}"#,
            r#"{"type":"user","message":{"content":"[Request interrupted by user for tool use]"}}"#,
            r#"{"type":"user","message":{"content":"<ide_opened_file>a.rs</ide_opened_file>"}}"#,
            r#"{"type":"user","message":{"content":[{"type":"text","text":"  real\nprompt "}]}}"#,
        ]
        .join("\n");
        assert_eq!(first_prompt(&head), "real prompt");
        assert_eq!(
            first_prompt(&[head.lines().next().unwrap()].join("")),
            "/init"
        );
        let long = format!(
            r#"{{"type":"user","message":{{"content":"{}"}}}}"#,
            "é".repeat(300)
        );
        let prompt = first_prompt(&long);
        assert_eq!(prompt.chars().count(), FIRST_PROMPT_CHARS + 1);
        assert!(prompt.ends_with('\u{2026}'));
    }
}
