//! Importing a session from the CLI's files into a store.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use std::io::Write;

use claude_proto::transcript::SessionKey;
use claude_proto_sessions::import_transcripts;
use claude_proto_sessions::{MemoryStore, SessionStore, block_on};
use serde_json::{Value, json};

fn loaded(store: &MemoryStore, key: &SessionKey) -> Vec<Value> {
    block_on(store.load(key))
        .unwrap()
        .unwrap_or_default()
        .iter()
        .map(|e| serde_json::from_str(e.get()).unwrap())
        .collect()
}

#[test]
fn a_session_and_its_subagents_are_copied_with_bad_lines_skipped_and_counted() {
    let dir = std::env::temp_dir().join(format!("claude-proto-import-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let sub_dir = dir.join("s1/subagents/workflows/r1");
    std::fs::create_dir_all(&sub_dir).unwrap();
    let main = dir.join("s1.jsonl");
    let mut file = std::fs::File::create(&main).unwrap();
    for i in 0..1200 {
        writeln!(file, r#"{{"type":"user","uuid":"u{i}"}}"#).unwrap();
    }
    writeln!(file, "not json").unwrap();
    writeln!(file, "[1,2]").unwrap();
    write!(file, r#"{{"type":"user","uuid":"torn"#).unwrap();
    drop(file);
    std::fs::write(
        sub_dir.join("agent-7.jsonl"),
        "{\"type\":\"user\",\"uuid\":\"a1\"}\n",
    )
    .unwrap();
    std::fs::write(
        sub_dir.join("agent-7.meta.json"),
        r#"{"toolUseId":"t1","type":"spoof"}"#,
    )
    .unwrap();

    let store = MemoryStore::new();
    let key = SessionKey::main("proj", "s1");
    let report = block_on(import_transcripts(&store, &key, &main, true)).unwrap();
    assert_eq!(report.transcripts, 2);
    assert_eq!(report.skipped_lines, 3);
    assert_eq!(report.entries, 1200 + 1 + 1);
    let stored = loaded(&store, &key);
    assert_eq!(stored.len(), 1200);
    assert_eq!(stored[1199]["uuid"], "u1199");
    let sub = key.with_subpath("subagents/workflows/r1/agent-7");
    assert_eq!(
        loaded(&store, &sub),
        [
            json!({"type": "user", "uuid": "a1"}),
            json!({"toolUseId": "t1", "type": "agent_metadata"})
        ]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_missing_transcript_is_an_io_error_naming_it() {
    let store = MemoryStore::new();
    let path = std::env::temp_dir().join("claude-proto-import-missing.jsonl");
    let error = block_on(import_transcripts(
        &store,
        &SessionKey::main("p", "s"),
        &path,
        false,
    ))
    .unwrap_err();
    assert!(
        error.to_string().contains("claude-proto-import-missing"),
        "{error}"
    );
}
