//! Sessions on disk, side by side with the Python SDK: the same config
//! directory (transcripts written by the pinned real CLI, plus fixtures
//! with parallel tool use, torn and corrupt lines, titles, tags,
//! sidechains and subagents) read by both, and every answer compared:
//! the listings (project, all projects, a page), each session's info,
//! messages, a page of them, its subagents and their messages.
//!
//! Then our writes (rename, tag, fork, delete) are read back by both, so
//! the SDK also sees what we change as we see it.
//!
//! The Python side is `tests/py/sessions_dump.py`; run it by hand with
//! `CLAUDE_CONFIG_DIR=<dir> python tests/py/sessions_dump.py <project>`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers fail loudly by design

use std::fs::File;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, SystemTime};

use claude_proto::model::permission::PermissionResult;
use claude_proto_sessions::{ForkOptions, Page, Sessions, project_key_for_directory};
use claude_proto_testkit::model_api::{ApiRequest, Reply};
use claude_proto_tests::python::{python, root};
use claude_proto_tests::real_cli::Peer;
use serde_json::{Value, json};

fn uuid(n: u64) -> String {
    format!("00000000-0000-4000-8000-{n:012x}")
}

/// A model that runs one Bash command, then answers.
fn model(request: &ApiRequest) -> Reply {
    if request.all_text().contains("run a command") && !request.ends_with_tool_result() {
        Reply::tool_use(
            "Bash",
            json!({"command": "echo side-by-side", "description": "echo"}),
        )
    } else {
        Reply::text("Done.")
    }
}

/// Two sessions written by the real CLI: one with a tool call, one with
/// two turns.
fn sessions_from_the_real_cli(peer: &Peer) {
    let options = peer.options();
    let mut claude = claude_proto_blocking::Claude::builder(options.clone())
        .on_permission(|_ask| Ok(PermissionResult::allow()))
        .spawn()
        .expect("the real CLI starts");
    let turn = claude.ask("Please run a command for me.").expect("a turn");
    assert_eq!(turn.text(), Some("Done."));
    claude.close().expect("closed");

    let mut claude = claude_proto_blocking::Claude::spawn(options).expect("the real CLI starts");
    claude
        .ask("First question, about café ☕.")
        .expect("a turn");
    claude.ask("Second question.").expect("a turn");
    claude.close().expect("closed");
}

fn line(value: &Value) -> String {
    serde_json::to_string(value).unwrap()
}

fn user(n: u64, parent: Option<u64>, session: &str, content: Value, ts: &str) -> Value {
    json!({"parentUuid": parent.map(uuid), "isSidechain": false, "type": "user",
        "message": {"role": "user", "content": content}, "uuid": uuid(n),
        "timestamp": ts, "sessionId": session, "cwd": "/fixture/cwd", "gitBranch": "main"})
}

fn assistant(
    n: u64,
    parent: Option<u64>,
    session: &str,
    id: &str,
    block: Value,
    ts: &str,
) -> Value {
    json!({"parentUuid": parent.map(uuid), "isSidechain": false, "type": "assistant",
        "message": {"id": id, "role": "assistant", "content": [block]}, "uuid": uuid(n),
        "timestamp": ts, "sessionId": session})
}

fn write(path: &Path, lines: &[String], tail: &str, mtime_secs: u64) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut text = lines.join("\n");
    text.push('\n');
    text.push_str(tail);
    std::fs::write(path, text).unwrap();
    let when = SystemTime::UNIX_EPOCH + Duration::from_millis(mtime_secs * 1000 + 123);
    File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(when)
        .unwrap();
}

/// Transcripts the real CLI would not write on demand.
fn fixtures(project: &Path) {
    let s = |n: u64| uuid(0x1000 + n);

    // Parallel tool use: one response split over three entries, two
    // results; the next turn continues from the first result only.
    let p = s(1);
    let mut lines = vec![
        line(&user(
            1,
            None,
            &p,
            json!("Read both files"),
            "2025-03-01T10:00:00.000Z",
        )),
        line(&assistant(
            2,
            Some(1),
            &p,
            "msg_1",
            json!({"type": "text", "text": "Reading."}),
            "2025-03-01T10:00:01.000Z",
        )),
        line(&assistant(
            3,
            Some(2),
            &p,
            "msg_1",
            json!({"type": "tool_use", "id": "t1", "name": "Read", "input": {}}),
            "2025-03-01T10:00:02.000Z",
        )),
        line(&assistant(
            4,
            Some(3),
            &p,
            "msg_1",
            json!({"type": "tool_use", "id": "t2", "name": "Read", "input": {}}),
            "2025-03-01T10:00:03.000Z",
        )),
        line(&user(
            5,
            Some(3),
            &p,
            json!([{"type": "tool_result", "tool_use_id": "t1", "content": "a"}]),
            "2025-03-01T10:00:04.000Z",
        )),
        line(&user(
            6,
            Some(4),
            &p,
            json!([{"type": "tool_result", "tool_use_id": "t2", "content": "b"}]),
            "2025-03-01T10:00:05.000Z",
        )),
        line(&assistant(
            7,
            Some(5),
            &p,
            "msg_2",
            json!({"type": "text", "text": "Both read."}),
            "2025-03-01T10:00:06.000Z",
        )),
    ];
    lines.push(line(
        &json!({"type": "ai-title", "aiTitle": "Reading files", "sessionId": p}),
    ));
    write(
        &project.join(format!("{p}.jsonl")),
        &lines,
        "",
        1_700_000_100,
    );

    // Torn last line and corrupt lines in between.
    let t = s(2);
    let lines = vec![
        line(&user(
            10,
            None,
            &t,
            json!("A torn session"),
            "2025-03-02T10:00:00.000Z",
        )),
        "this is not json".to_owned(),
        "[1, 2, 3]".to_owned(),
        String::new(),
        line(&assistant(
            11,
            Some(10),
            &t,
            "msg_3",
            json!({"type": "text", "text": "Answer."}),
            "2025-03-02T10:00:01.000Z",
        )),
        "{\"type\":\"user\",\"uuid\":".to_owned(),
        line(&user(
            12,
            Some(11),
            &t,
            json!("Go on"),
            "2025-03-02T10:00:02.000Z",
        )),
    ];
    write(
        &project.join(format!("{t}.jsonl")),
        &lines,
        "{\"parentUuid\":\"",
        1_700_000_200,
    );

    // Titles, tags, last prompt and summary: the last of each wins.
    let m = s(3);
    let lines = vec![
        line(&json!({"type": "permission-mode", "permissionMode": "default", "sessionId": m})),
        line(&user(
            20,
            None,
            &m,
            json!("<command-name>/init</command-name>"),
            "2025-03-03T10:00:00.500Z",
        )),
        line(&user(
            21,
            Some(20),
            &m,
            json!([{"type": "text", "text": "<ide_opened_file>x.rs</ide_opened_file>"}]),
            "2025-03-03T10:00:01.000Z",
        )),
        line(&user(
            22,
            Some(21),
            &m,
            json!(format!("{} and then some", "ü".repeat(250))),
            "2025-03-03T10:00:02.000Z",
        )),
        line(&json!({"type": "custom-title", "customTitle": "First title", "sessionId": m})),
        line(&json!({"type": "tag", "tag": "old", "sessionId": m})),
        line(&json!({"type": "custom-title", "customTitle": "Second title", "sessionId": m})),
        line(&json!({"type": "tag", "tag": "release", "sessionId": m})),
        line(&json!({"type": "last-prompt", "lastPrompt": "the last prompt", "sessionId": m})),
    ];
    write(
        &project.join(format!("{m}.jsonl")),
        &lines,
        "",
        1_700_000_300,
    );

    // Only a slash command: its name is the first prompt.
    let c = s(4);
    let lines = vec![
        line(&user(
            30,
            None,
            &c,
            json!("<command-name>/review</command-name>"),
            "2025-03-04T10:00:00+02:00",
        )),
        line(&json!({"type": "summary", "summary": "A summary line", "leafUuid": uuid(30)})),
    ];
    write(
        &project.join(format!("{c}.jsonl")),
        &lines,
        "",
        1_700_000_400,
    );

    // Not listed: a sidechain, and a session with nothing to show.
    let side = s(5);
    let mut first = user(40, None, &side, json!("side"), "2025-03-05T10:00:00.000Z");
    first["isSidechain"] = json!(true);
    write(
        &project.join(format!("{side}.jsonl")),
        &[line(&first)],
        "",
        1_700_000_500,
    );
    let empty = s(6);
    write(
        &project.join(format!("{empty}.jsonl")),
        &[line(
            &json!({"type": "permission-mode", "permissionMode": "plan"}),
        )],
        "",
        1_700_000_600,
    );
    // Not sessions: another name, an empty file.
    write(
        &project.join("notes.jsonl"),
        &[line(&json!({"type": "user"}))],
        "",
        1_700_000_700,
    );
    std::fs::write(project.join(format!("{}.jsonl", s(7))), "").unwrap();

    // Subagents, one nested, with and without metadata; meta and
    // sidechain entries in the main thread are left out.
    let a = s(8);
    let mut meta = user(51, Some(50), &a, json!("meta"), "2025-03-06T10:00:01.000Z");
    meta["isMeta"] = json!(true);
    let lines = vec![
        line(&user(
            50,
            None,
            &a,
            json!("Use a subagent"),
            "2025-03-06T10:00:00.000Z",
        )),
        line(&meta),
        line(&assistant(
            52,
            Some(51),
            &a,
            "msg_5",
            json!({"type": "text", "text": "Delegated."}),
            "2025-03-06T10:00:02.000Z",
        )),
    ];
    write(
        &project.join(format!("{a}.jsonl")),
        &lines,
        "",
        1_700_000_800,
    );
    let agents = project.join(&a).join("subagents");
    let mut sub = user(
        60,
        None,
        &a,
        json!("Subagent task"),
        "2025-03-06T10:00:03.000Z",
    );
    sub["isSidechain"] = json!(true);
    sub["agentId"] = json!("abc");
    let mut sub_answer = assistant(
        61,
        Some(60),
        &a,
        "msg_6",
        json!({"type": "text", "text": "Sub done."}),
        "2025-03-06T10:00:04.000Z",
    );
    sub_answer["isSidechain"] = json!(true);
    sub_answer["agentId"] = json!("abc");
    write(
        &agents.join("agent-abc.jsonl"),
        &[line(&sub), line(&sub_answer)],
        "",
        1_700_000_801,
    );
    std::fs::write(
        agents.join("agent-abc.meta.json"),
        line(&json!({"agentType": "general-purpose", "toolUseId": "toolu_1"})),
    )
    .unwrap();
    write(
        &agents.join("workflows/run1/agent-def.jsonl"),
        &[line(&sub)],
        "",
        1_700_000_802,
    );
    std::fs::write(
        agents.join("workflows/run1/agent-def.meta.json"),
        line(&json!({"toolUseId": "toolu_2", "parentAgentId": "abc"})),
    )
    .unwrap();

    // Two branches after a rewind: the newer leaf wins.
    let b = s(9);
    let lines = vec![
        line(&user(
            70,
            None,
            &b,
            json!("Branching"),
            "2025-03-07T10:00:00.000Z",
        )),
        line(&assistant(
            71,
            Some(70),
            &b,
            "msg_7",
            json!({"type": "text", "text": "Old branch."}),
            "2025-03-07T10:00:01.000Z",
        )),
        line(&assistant(
            72,
            Some(70),
            &b,
            "msg_8",
            json!({"type": "text", "text": "New branch."}),
            "2025-03-07T10:00:02.000Z",
        )),
        line(&user(
            73,
            Some(72),
            &b,
            json!("Continue"),
            "2025-03-07T10:00:03.000Z",
        )),
    ];
    write(
        &project.join(format!("{b}.jsonl")),
        &lines,
        "",
        1_700_000_900,
    );
}

/// What the Python SDK reads, as `tests/py/sessions_dump.py` prints it.
fn python_dump(python: &Path, config: &Path, project: &Path) -> Value {
    let out = Command::new(python)
        .arg(root().join("tests/py/sessions_dump.py"))
        .arg(project)
        .env("CLAUDE_CONFIG_DIR", config)
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "sessions_dump.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the dump is JSON")
}

/// The same document from our side.
fn rust_dump(config: &Path, project: &Path) -> Value {
    let here = Sessions::at(config).in_project(project).without_worktrees();
    let listed = here.list(Page::all());
    let mut sessions = serde_json::Map::new();
    for info in &listed {
        let id = &info.session_id;
        let agents = here.subagents(id).unwrap();
        let subagents: serde_json::Map<String, Value> = agents
            .iter()
            .map(|a| {
                let messages = here.subagent_messages(id, a, Page::all()).unwrap();
                (a.clone(), serde_json::to_value(messages).unwrap())
            })
            .collect();
        sessions.insert(
            id.clone(),
            json!({
                "info": here.info(id).unwrap(),
                "messages": here.messages(id, Page::all()).unwrap(),
                "page": here.messages(id, Page::all().limit(2).offset(1)).unwrap(),
                "subagents": subagents,
            }),
        );
    }
    json!({
        "list": listed,
        "list_all": Sessions::at(config).list(Page::all()),
        "page": here.list(Page::all().limit(2).offset(1)),
        "sessions": sessions,
    })
}

/// The first place two documents differ, as a path and both values.
fn first_difference(path: &str, ours: &Value, theirs: &Value) -> Option<String> {
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            keys.into_iter().find_map(|k| {
                first_difference(
                    &format!("{path}.{k}"),
                    a.get(k).unwrap_or(&Value::Null),
                    b.get(k).unwrap_or(&Value::Null),
                )
            })
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(i, (x, y))| first_difference(&format!("{path}[{i}]"), x, y)),
        _ if ours == theirs => None,
        _ => Some(format!("{path}:\n  ours:   {ours}\n  python: {theirs}")),
    }
}

fn assert_same(what: &str, python: &Path, config: &Path, project: &Path) -> Value {
    let ours = rust_dump(config, project);
    let theirs = python_dump(python, config, project);
    if let Some(difference) = first_difference("", &ours, &theirs) {
        panic!("{what}: we and the Python SDK differ at {difference}");
    }
    ours
}

#[test]
fn sessions_read_and_change_as_the_python_sdk_reads_them() {
    let Some(python) = python() else { return };
    let Some(peer) = Peer::new(model) else { return };
    sessions_from_the_real_cli(&peer);
    let config = peer.home().join(".claude");
    let project_dir = config
        .join("projects")
        .join(project_key_for_directory(peer.cwd()));
    let written_by_cli = std::fs::read_dir(&project_dir)
        .expect("the real CLI wrote its transcripts")
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        .count();
    assert_eq!(written_by_cli, 2, "two sessions from the real CLI");
    fixtures(&project_dir);
    // Another project, with a path long enough to be cut and hashed.
    let long = format!("/fixture/{}", "deep/".repeat(50));
    let other = config
        .join("projects")
        .join(claude_proto::transcript::project_key(&long));
    let o = uuid(0x2000);
    write(
        &other.join(format!("{o}.jsonl")),
        &[line(&user(
            80,
            None,
            &o,
            json!("Elsewhere"),
            "2025-03-08T10:00:00.000Z",
        ))],
        "",
        1_700_001_000,
    );

    let before = assert_same("reading", &python, &config, &peer.cwd());
    assert_eq!(
        before["list"].as_array().unwrap().len(),
        8,
        "{:#}",
        before["list"]
    );
    assert_eq!(before["list_all"].as_array().unwrap().len(), 9);
    // The parallel call and its result the walk leaves aside are back.
    let uuids: Vec<&str> = before["sessions"][&uuid(0x1001)]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["uuid"].as_str().unwrap())
        .collect();
    let expected: Vec<String> = [1, 2, 3, 4, 6, 5, 7].map(uuid).to_vec();
    assert_eq!(uuids, expected);
    let torn = &before["sessions"][&uuid(0x1002)];
    assert_eq!(torn["messages"].as_array().unwrap().len(), 3);
    let tool_session = before["list"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["first_prompt"] == "Please run a command for me.")
        .expect("the real CLI's session is listed");
    let messages = &before["sessions"][tool_session["session_id"].as_str().unwrap()]["messages"];
    assert!(
        messages.to_string().contains("side-by-side"),
        "the tool call and its output are in the history: {messages:#}"
    );
    let subagents = &before["sessions"][&uuid(0x1008)]["subagents"];
    assert_eq!(subagents["def"][0]["parent_agent_id"], "abc");
    assert_eq!(subagents["abc"][1]["parent_tool_use_id"], "toolu_1");

    // Our changes, read back by both.
    let here = Sessions::at(&config)
        .in_project(peer.cwd())
        .without_worktrees();
    let parallel = uuid(0x1001);
    here.rename(&parallel, "  Renamed by Rust  ").unwrap();
    here.tag(&parallel, Some("\u{200b}ship\u{feff}it")).unwrap();
    here.tag(&uuid(0x1003), None).unwrap();
    // Appended after the torn last line: it must start a line of its own.
    here.rename(&uuid(0x1002), "After the tear").unwrap();
    let fork = here
        .fork(&parallel, &ForkOptions::default())
        .expect("a fork");
    let cut = here
        .fork(
            &uuid(0x1009),
            &ForkOptions::default().up_to(uuid(70)).title("Cut"),
        )
        .expect("a fork up to a message");
    here.delete(&uuid(0x1008)).unwrap();
    assert!(
        !project_dir.join(uuid(0x1008)).exists(),
        "its subagents went too"
    );

    let after = assert_same("after our changes", &python, &config, &peer.cwd());
    let info = &after["sessions"][&parallel]["info"];
    assert_eq!(info["custom_title"], "Renamed by Rust");
    assert_eq!(info["tag"], "shipit");
    assert_eq!(
        after["sessions"][&uuid(0x1002)]["info"]["summary"],
        "After the tear"
    );
    assert_eq!(after["sessions"][&uuid(0x1003)]["info"]["tag"], Value::Null);
    let forked = &after["sessions"][&fork.session_id];
    assert_eq!(forked["info"]["custom_title"], "Renamed by Rust (fork)");
    let texts = |messages: &Value| -> Vec<Value> {
        messages
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["message"].clone())
            .collect()
    };
    assert_eq!(
        texts(&forked["messages"]),
        texts(&after["sessions"][&parallel]["messages"]),
        "the fork holds the same conversation"
    );
    assert_eq!(
        after["sessions"][&cut.session_id]["messages"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert!(after["sessions"].get(uuid(0x1008)).is_none());
}
