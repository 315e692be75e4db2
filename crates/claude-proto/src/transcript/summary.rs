//! A session's summary kept up to date as its entries are appended, so a
//! store can list sessions without loading them: the Python SDK's
//! `fold_session_summary` and `summary_entry_to_sdk_info`.
//!
//! Every field the fold derives is set once (the first value seen) or last
//! wins, so folding a batch needs only the previous summary, never the
//! entries appended before it: folding a transcript in any number of
//! batches gives the summary of folding it at once.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::Entry;
use super::info::{SessionInfo, prompt_of_texts, user_texts};
use super::key::SessionKey;
use super::probe::truthy;
use super::time::parse_iso_millis;

/// A session's summary as a store keeps it: the Python SDK's
/// `SessionSummaryEntry`, with the same keys when serialized
/// (`session_id`, `mtime`, `data`).
///
/// `data` is the fold's own state (its keys are those Python stores, so a
/// summary written by either SDK reads in the other): a store persists it
/// verbatim and never interprets it. Its shape is fixed; what grows is
/// `data`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SessionSummary {
    /// The session's id.
    pub session_id: String,
    /// When the store wrote the summary, in Unix epoch milliseconds, on the
    /// same clock as the store's listing of the session: stamped by the
    /// store after persisting it, never by [`fold_summary`].
    pub mtime: i64,
    /// The fold's state.
    pub data: Map<String, Value>,
}

/// Last-wins string fields: the entry's key, then the summary's.
const LAST_WINS: [(&str, &str); 5] = [
    ("customTitle", "custom_title"),
    ("aiTitle", "ai_title"),
    ("lastPrompt", "last_prompt"),
    ("summary", "summary_hint"),
    ("gitBranch", "git_branch"),
];

/// Folds a batch of entries appended at `key` into the session's running
/// summary, `previous` (`None` for the session's first batch). Stores call
/// it inside `append`, for main transcripts only: a subagent's entries
/// (a key with a subpath) must not change its session's summary.
///
/// The result keeps `previous`'s `mtime` (`0` for a new summary): the
/// store stamps its own write time after persisting it. Entries that are
/// not JSON objects are passed over. Pure and deterministic.
pub fn fold_summary(
    previous: Option<&SessionSummary>,
    key: &SessionKey,
    entries: &[Entry],
) -> SessionSummary {
    let mut summary = previous.cloned().unwrap_or_else(|| SessionSummary {
        session_id: key.session_id.clone(),
        mtime: 0,
        data: Map::new(),
    });
    let data = &mut summary.data;
    for entry in entries {
        let Ok(Value::Object(entry)) = serde_json::from_str::<Value>(entry.get()) else {
            continue;
        };
        if !data.contains_key("is_sidechain") {
            let sidechain = entry.get("isSidechain") == Some(&Value::Bool(true));
            data.insert("is_sidechain".into(), Value::Bool(sidechain));
        }
        if !data.contains_key("created_at") {
            if let Some(ms) = entry
                .get("timestamp")
                .and_then(Value::as_str)
                .and_then(parse_iso_millis)
            {
                data.insert("created_at".into(), ms.into());
            }
        }
        if !data.contains_key("cwd") {
            if let Some(cwd) = entry.get("cwd").and_then(Value::as_str) {
                if !cwd.is_empty() {
                    data.insert("cwd".into(), cwd.into());
                }
            }
        }
        fold_first_prompt(data, &entry);
        for (from, to) in LAST_WINS {
            if let Some(value) = entry.get(from).and_then(Value::as_str) {
                // Even an empty string wins: it hides an earlier value, as
                // in Python.
                data.insert(to.into(), value.into());
            }
        }
        if entry.get("type").and_then(Value::as_str) == Some("tag") {
            match entry.get("tag").and_then(Value::as_str) {
                Some(tag) if !tag.is_empty() => {
                    data.insert("tag".into(), tag.into());
                }
                // An empty or missing tag clears it.
                _ => {
                    data.remove("tag");
                }
            }
        }
    }
    summary
}

/// The first prompt, as the head scan (`first_prompt_of`) finds it, one
/// entry at a time: the first text of a user entry that is not meta, a
/// compaction summary, a tool result, a slash command (whose name is kept
/// as the fallback) or generated text. Once found it is locked.
fn fold_first_prompt(data: &mut Map<String, Value>, entry: &Map<String, Value>) {
    if data.get("first_prompt_locked").is_some_and(truthy) {
        return;
    }
    if entry.get("type").and_then(Value::as_str) != Some("user") {
        return;
    }
    let flag = |key: &str| entry.get(key) == Some(&Value::Bool(true));
    if flag("isMeta") || flag("isCompactSummary") {
        return;
    }
    let Some(Value::Object(message)) = entry.get("message") else {
        return;
    };
    let Some(texts) = user_texts(message) else {
        return;
    };
    let mut fallback = None;
    let prompt = prompt_of_texts(texts, |name| {
        fallback.get_or_insert_with(|| name.to_owned());
    });
    if let Some(name) = fallback {
        if !data.get("command_fallback").is_some_and(truthy) {
            data.insert("command_fallback".into(), name.into());
        }
    }
    if let Some(prompt) = prompt {
        data.insert("first_prompt".into(), prompt.into());
        data.insert("first_prompt_locked".into(), Value::Bool(true));
    }
}

/// The listing a summary gives, as `SessionInfo::from_lite` gives it for
/// the same transcript: `None` for a subagent's (sidechain) session or one
/// with nothing to show. `project_path` is the cwd to report when the
/// session names none. `last_modified` is the summary's `mtime`;
/// `file_size` is `None` (a store has no file).
pub fn summary_to_info(
    summary: &SessionSummary,
    project_path: Option<&str>,
) -> Option<SessionInfo> {
    let data = &summary.data;
    if data.get("is_sidechain").is_some_and(truthy) {
        return None;
    }
    let text = |key: &str| {
        data.get(key)
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
    };
    let first_prompt = if data.get("first_prompt_locked").is_some_and(truthy) {
        text("first_prompt")
    } else {
        text("command_fallback")
    };
    let custom_title = text("custom_title").or_else(|| text("ai_title"));
    let shown = custom_title
        .clone()
        .or_else(|| text("last_prompt"))
        .or_else(|| text("summary_hint"))
        .or_else(|| first_prompt.clone())?;
    Some(SessionInfo {
        session_id: summary.session_id.clone(),
        summary: shown,
        last_modified: summary.mtime,
        file_size: None,
        custom_title,
        first_prompt,
        git_branch: text("git_branch"),
        cwd: text("cwd").or_else(|| project_path.filter(|p| !p.is_empty()).map(str::to_owned)),
        tag: text("tag"),
        created_at: data.get("created_at").and_then(Value::as_i64),
        archived: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{Lite, SessionInfo};

    fn entries(lines: &[&str]) -> Vec<Entry> {
        lines
            .iter()
            .map(|l| serde_json::value::RawValue::from_string((*l).to_owned()).unwrap())
            .collect()
    }

    const LINES: [&str; 9] = [
        r#"{"type":"permission-mode","permissionMode":"default","sessionId":"s"}"#,
        r#"{"type":"user","message":{"role":"user","content":"<command-name>/init</command-name>"},"cwd":"/p","gitBranch":"main","timestamp":"2025-01-01T00:00:00.000Z","uuid":"u0"}"#,
        r#"{"type":"user","isMeta":true,"message":{"content":"meta"},"uuid":"u1"}"#,
        r#"{"type":"user","message":{"content":[{"type":"tool_result","content":"r"}]},"uuid":"u2"}"#,
        r#"{"type":"user","message":{"content":[{"type":"text","text":"  hello\nthere "}]},"timestamp":"2025-01-01T00:00:01.000Z","uuid":"u3"}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"text","text":"hi"}]},"gitBranch":"feature","uuid":"u4"}"#,
        r#"{"type":"ai-title","aiTitle":"Greeting"}"#,
        r#"{"type":"tag","tag":"wip","sessionId":"s"}"#,
        r#"{"type":"last-prompt","lastPrompt":"hello there","sessionId":"s"}"#,
    ];

    #[test]
    fn folding_in_batches_equals_folding_at_once() {
        let key = SessionKey::main("p", "s");
        let all = entries(&LINES);
        let once = fold_summary(None, &key, &all);
        for split in [1, 3, 5, 8] {
            let first = fold_summary(None, &key, &all[..split]);
            let second = fold_summary(Some(&first), &key, &all[split..]);
            assert_eq!(second, once, "split at {split}");
        }
        let mut one_by_one = None;
        for entry in &all {
            one_by_one = Some(fold_summary(
                one_by_one.as_ref(),
                &key,
                std::slice::from_ref(entry),
            ));
        }
        assert_eq!(one_by_one.as_ref(), Some(&once));
    }

    #[test]
    fn the_summary_lists_as_the_transcript_does() {
        let key = SessionKey::main("p", "s");
        let mut summary = fold_summary(None, &key, &entries(&LINES));
        summary.mtime = 42;
        let text = LINES.join("\n") + "\n";
        let lite = Lite {
            head: &text,
            tail: &text,
            mtime: 42,
            size: None,
        };
        let expected = SessionInfo::from_lite("s", lite, Some("/q")).unwrap();
        assert_eq!(summary_to_info(&summary, Some("/q")), Some(expected));
        let info = summary_to_info(&summary, None).unwrap();
        assert_eq!(info.summary, "Greeting");
        assert_eq!(info.first_prompt.as_deref(), Some("hello there"));
        assert_eq!(info.git_branch.as_deref(), Some("feature"));
        assert_eq!(info.tag.as_deref(), Some("wip"));
        assert_eq!(info.created_at, Some(1_735_689_600_000));
    }

    #[test]
    fn the_fold_keeps_the_previous_mtime_and_an_empty_tag_clears() {
        let key = SessionKey::main("p", "s");
        let mut first = fold_summary(None, &key, &entries(&LINES));
        assert_eq!(first.mtime, 0);
        first.mtime = 7;
        let cleared = fold_summary(
            Some(&first),
            &key,
            &entries(&[r#"{"type":"tag","tag":""}"#]),
        );
        assert_eq!(cleared.mtime, 7);
        assert!(!cleared.data.contains_key("tag"));
    }

    #[test]
    fn sidechains_and_empty_sessions_are_not_listed() {
        let key = SessionKey::main("p", "s");
        let side = fold_summary(
            None,
            &key,
            &entries(&[r#"{"type":"user","isSidechain":true,"message":{"content":"x"}}"#]),
        );
        assert_eq!(summary_to_info(&side, None), None);
        let empty = fold_summary(None, &key, &entries(&[r#"{"type":"permission-mode"}"#]));
        assert_eq!(summary_to_info(&empty, None), None);
        // Only the command was typed: its name is the fallback.
        let command = fold_summary(None, &key, &entries(&LINES[1..2]));
        let info = summary_to_info(&command, None).unwrap();
        assert_eq!(info.summary, "/init");
        assert_eq!(info.first_prompt.as_deref(), Some("/init"));
    }

    #[test]
    fn the_data_has_pythons_keys() {
        let key = SessionKey::main("p", "s");
        let summary = fold_summary(None, &key, &entries(&LINES));
        let json = serde_json::to_value(&summary).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "session_id": "s",
                "mtime": 0,
                "data": {
                    "is_sidechain": false,
                    "created_at": 1_735_689_600_000_i64,
                    "cwd": "/p",
                    "command_fallback": "/init",
                    "first_prompt": "hello there",
                    "first_prompt_locked": true,
                    "git_branch": "feature",
                    "ai_title": "Greeting",
                    "tag": "wip",
                    "last_prompt": "hello there",
                }
            })
        );
    }
}
