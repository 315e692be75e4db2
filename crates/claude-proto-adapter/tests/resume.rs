//! Resuming from a session store: what lands in the temporary config
//! directory, which session `continue` picks, and that nothing is left.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use std::path::PathBuf;
use std::sync::Arc;

use claude_proto::options::Options;
use claude_proto::transcript::{Entry, SessionKey};
use claude_proto_adapter::{StoreSettings, prepare};
use claude_proto_sessions as sessions;
use claude_proto_sessions::{MemoryStore, SessionStore, block_on};
use serde_json::{Value, json};

const A: &str = "aaaaaaaa-0000-4000-8000-000000000001";
const B: &str = "bbbbbbbb-0000-4000-8000-000000000002";

fn entry(value: Value) -> Entry {
    serde_json::value::to_raw_value(&value).unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("claude-proto-resume-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("work")).unwrap();
    std::fs::create_dir_all(dir.join("config")).unwrap();
    dir
}

fn options(dir: &std::path::Path) -> Options {
    Options::default()
        .cwd(dir.join("work"))
        .inherit_env(false)
        .env("CLAUDE_CONFIG_DIR", dir.join("config"))
}

fn read_lines(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_resumed_session_and_its_subagents_land_in_a_private_directory_removed_on_drop() {
    let dir = scratch("subagents");
    let store = Arc::new(MemoryStore::new());
    let project = sessions::project_key_for_directory(dir.join("work"));
    let key = SessionKey::main(&project, A);
    let main = [
        json!({"type": "user", "uuid": "u1"}),
        json!({"type": "assistant", "uuid": "u2"}),
    ];
    let sub = key.with_subpath("subagents/agent-7");
    block_on(store.append(&key, &main.iter().cloned().map(entry).collect::<Vec<_>>())).unwrap();
    let sub_entries = [
        json!({"type": "user", "uuid": "s1"}),
        json!({"type": "agent_metadata", "toolUseId": "t1", "agentType": "old"}),
        json!({"type": "agent_metadata", "toolUseId": "t1", "agentType": "new"}),
    ];
    block_on(store.append(
        &sub,
        &sub_entries.iter().cloned().map(entry).collect::<Vec<_>>(),
    ))
    .unwrap();
    for evil in ["../escape", "/abs/path", "subagents/../../x"] {
        block_on(store.append(&key.with_subpath(evil), &[entry(json!({"type": "x"}))])).unwrap();
    }
    std::fs::write(
        dir.join("config/.credentials.json"),
        r#"{"claudeAiOauth":{"accessToken":"a","refreshToken":"secret-refresh"}}"#,
    )
    .unwrap();

    let settings = StoreSettings::shared(store.clone());
    let load = prepare(&settings, options(&dir).resume(A)).expect("a resume loads");
    let prepared = block_on(load).unwrap();
    let temp = prepared
        .dir
        .as_ref()
        .expect("a directory")
        .path()
        .to_owned();
    assert_eq!(prepared.options.resume.as_deref(), Some(A));
    assert!(
        prepared
            .options
            .env
            .iter()
            .any(|(k, v)| k == "CLAUDE_CONFIG_DIR" && *v == temp.as_os_str())
    );
    let project_dir = temp.join("projects").join(&project);
    assert_eq!(read_lines(&project_dir.join(format!("{A}.jsonl"))), main);
    let session_dir = project_dir.join(A);
    assert_eq!(
        read_lines(&session_dir.join("subagents/agent-7.jsonl")),
        [json!({"type": "user", "uuid": "s1"})]
    );
    let meta: Value = serde_json::from_str(
        &std::fs::read_to_string(session_dir.join("subagents/agent-7.meta.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        meta,
        json!({"toolUseId": "t1", "agentType": "new"}),
        "the last one, without its type"
    );
    assert!(!dir.join("escape.jsonl").exists() && !temp.join("projects/x.jsonl").exists());
    let creds = std::fs::read_to_string(temp.join(".credentials.json")).unwrap();
    assert!(!creds.contains("secret-refresh"), "{creds}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&temp).unwrap().permissions().mode() & 0o777,
            0o700
        );
        let file = project_dir.join(format!("{A}.jsonl"));
        assert_eq!(
            std::fs::metadata(file).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
    drop(prepared);
    assert!(!temp.exists(), "removed with the session");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn continue_picks_the_newest_session_that_is_not_a_subagents() {
    let dir = scratch("continue");
    let store = Arc::new(MemoryStore::new());
    let project = sessions::project_key_for_directory(dir.join("work"));
    block_on(store.append(
        &SessionKey::main(&project, A),
        &[entry(json!({"type": "user", "uuid": "a"}))],
    ))
    .unwrap();
    // Newer, but a subagent's transcript stored as a session.
    block_on(store.append(
        &SessionKey::main(&project, B),
        &[entry(
            json!({"type": "user", "uuid": "b", "isSidechain": true}),
        )],
    ))
    .unwrap();
    let settings = StoreSettings::shared(store);
    let prepared =
        block_on(prepare(&settings, options(&dir).continue_conversation(true)).unwrap()).unwrap();
    assert_eq!(prepared.options.resume.as_deref(), Some(A));
    assert!(!prepared.options.continue_conversation);
    drop(prepared);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn nothing_to_resume_or_not_in_the_store_leaves_the_options_alone() {
    let dir = scratch("absent");
    let settings = StoreSettings::new(MemoryStore::new());
    assert!(
        prepare(&settings, options(&dir)).is_none(),
        "no resume: no load"
    );
    let prepared = block_on(prepare(&settings, options(&dir).resume(A)).unwrap()).unwrap();
    assert!(prepared.dir.is_none());
    assert_eq!(prepared.options.resume.as_deref(), Some(A));
    assert!(
        prepared
            .options
            .env
            .iter()
            .any(|(k, v)| k == "CLAUDE_CONFIG_DIR" && *v == dir.join("config").as_os_str())
    );
    let prepared =
        block_on(prepare(&settings, options(&dir).resume("not-a-uuid")).unwrap()).unwrap();
    assert!(
        prepared.dir.is_none(),
        "anything but a UUID is passed through untouched"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn config_dir_follows_the_clis_environment() {
    let options = Options::default().inherit_env(false).env("HOME", "/home/u");
    assert_eq!(
        claude_proto_sessions::config_dir(&options),
        PathBuf::from("/home/u/.claude")
    );
    let options = options.env("CLAUDE_CONFIG_DIR", "/etc/claude");
    assert_eq!(
        claude_proto_sessions::config_dir(&options),
        PathBuf::from("/etc/claude")
    );
    let relative = Options::default()
        .inherit_env(false)
        .cwd("/work")
        .env("CLAUDE_CONFIG_DIR", "conf");
    assert_eq!(
        claude_proto_sessions::config_dir(&relative),
        PathBuf::from("/work/conf")
    );
}
