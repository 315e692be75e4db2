//! Sessions on disk against what real directories hold: bytes that are
//! not UTF-8, a CLI appending while we write, long project paths whose
//! hash the CLI computed otherwise, forks through progress entries, and
//! every error a caller can hit. (Agreement with the Python SDK is in
//! `tests/tests/sessions_side_by_side.rs`.)
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers fail loudly by design

use std::io::Write as _;
use std::path::PathBuf;

use claude_proto::transcript::{MAX_PROJECT_KEY_LEN, project_key};
use claude_proto_sessions::{
    ForkOptions, Page, Sessions, SessionsError, project_key_for_directory,
};
use serde_json::{Value, json};

struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "claude-proto-sessions-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const SESSION: &str = "11111111-2222-4333-8444-555555555555";

fn id(n: u64) -> String {
    format!("00000000-0000-4000-8000-{n:012x}")
}

fn entry(kind: &str, n: u64, parent: Option<u64>, text: &str) -> String {
    json!({"type": kind, "uuid": id(n), "parentUuid": parent.map(id), "sessionId": SESSION,
        "timestamp": format!("2025-01-01T00:00:{n:02}.000Z"),
        "message": {"role": kind, "content": text}})
    .to_string()
}

/// A config dir with one project holding `lines` as the session.
fn session(scratch: &Scratch, lines: &[String]) -> (PathBuf, PathBuf) {
    let config = scratch.0.join("config");
    let project = config.join("projects").join("-work");
    std::fs::create_dir_all(&project).unwrap();
    let path = project.join(format!("{SESSION}.jsonl"));
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    (config, path)
}

fn texts(sessions: &Sessions, session: &str) -> Vec<String> {
    sessions
        .messages(session, Page::all())
        .unwrap()
        .iter()
        .map(|m| {
            let message: Value = serde_json::from_str(m.message.as_ref().unwrap().get()).unwrap();
            message["content"].as_str().unwrap_or_default().to_owned()
        })
        .collect()
}

#[test]
fn lines_that_are_not_utf8_are_skipped_not_fatal() {
    let scratch = Scratch::new("utf8");
    let (config, path) = session(&scratch, &[entry("user", 1, None, "hello")]);
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    file.write_all(b"{\"type\":\"user\",\"bad\":\"\xff\xfe\"}\n")
        .unwrap();
    file.write_all(format!("{}\n", entry("assistant", 2, Some(1), "there")).as_bytes())
        .unwrap();
    let sessions = Sessions::at(&config);
    assert_eq!(texts(&sessions, SESSION), ["hello", "there"]);
    let listed = sessions.list(Page::all());
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].first_prompt.as_deref(), Some("hello"));
}

#[test]
fn a_page_reads_only_its_messages_in_order() {
    let scratch = Scratch::new("page");
    let lines: Vec<String> = (1..=20)
        .map(|n| {
            entry(
                if n % 2 == 1 { "user" } else { "assistant" },
                n,
                (n > 1).then(|| n - 1),
                &format!("m{n}"),
            )
        })
        .collect();
    let (config, _) = session(&scratch, &lines);
    let sessions = Sessions::at(&config);
    let page = sessions
        .messages(SESSION, Page::all().limit(3).offset(5))
        .unwrap();
    let uuids: Vec<&str> = page.iter().map(|m| m.uuid.as_str()).collect();
    assert_eq!(uuids, [id(6), id(7), id(8)]);
    // A zero limit means no limit, as in the SDKs.
    assert_eq!(
        sessions
            .messages(SESSION, Page::all().limit(0))
            .unwrap()
            .len(),
        20
    );
    assert!(
        sessions
            .messages(SESSION, Page::all().offset(50))
            .unwrap()
            .is_empty()
    );
}

#[test]
fn titles_and_tags_never_break_a_transcript_being_written() {
    let scratch = Scratch::new("concurrent");
    let (config, path) = session(&scratch, &[entry("user", 1, None, "start")]);
    let sessions = Sessions::at(&config);
    // A "CLI" appending lines while we retitle the session over and over.
    let writer = {
        let path = path.clone();
        std::thread::spawn(move || {
            let mut file = std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .unwrap();
            for n in 2..=400 {
                let kind = if n % 2 == 0 { "assistant" } else { "user" };
                file.write_all(format!("{}\n", entry(kind, n, Some(n - 1), "x")).as_bytes())
                    .unwrap();
            }
        })
    };
    for n in 0..200 {
        sessions.rename(SESSION, &format!("title {n}")).unwrap();
    }
    writer.join().unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let mut entries = 0;
    // A blank line may appear: a title checked for a torn last line while
    // the CLI's write was landing starts on a fresh line; readers skip it.
    for line in text.lines().filter(|l| !l.is_empty()) {
        let value: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        if value["type"] != "custom-title" {
            entries += 1;
        }
    }
    assert_eq!(entries, 400, "every line the CLI wrote is whole");
    assert_eq!(texts(&sessions, SESSION).len(), 400);
    let info = sessions.info(SESSION).unwrap().unwrap();
    assert_eq!(info.custom_title.as_deref(), Some("title 199"));
}

#[test]
fn a_title_after_a_torn_line_starts_its_own_line() {
    let scratch = Scratch::new("torn");
    let (config, path) = session(&scratch, &[entry("user", 1, None, "start")]);
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    file.write_all(b"{\"type\":\"assistant\",\"uu").unwrap();
    let sessions = Sessions::at(&config);
    sessions.rename(SESSION, "Mended").unwrap();
    sessions.tag(SESSION, Some("t")).unwrap();
    let info = sessions.info(SESSION).unwrap().unwrap();
    assert_eq!(info.summary, "Mended");
    assert_eq!(info.tag.as_deref(), Some("t"));
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\"uu\n{\"type\":\"custom-title\""), "{text}");
}

#[test]
fn every_error_is_named() {
    let scratch = Scratch::new("errors");
    let (config, _) = session(&scratch, &[entry("user", 1, None, "start")]);
    let sessions = Sessions::at(&config);
    let missing = id(99);
    assert!(matches!(
        sessions.messages("../../etc/passwd", Page::all()),
        Err(SessionsError::InvalidSessionId(_))
    ));
    // Reading a session that is not there gives nothing, as the Python
    // SDK's readers and the store's do; changing one is an error.
    assert!(sessions.messages(&missing, Page::all()).unwrap().is_empty());
    assert!(sessions.subagents(&missing).unwrap().is_empty());
    assert!(
        sessions
            .subagent_messages(&missing, "a1", Page::all())
            .unwrap()
            .is_empty()
    );
    assert!(matches!(
        sessions.rename(&missing, "x"),
        Err(SessionsError::NotFound { .. })
    ));
    assert!(matches!(
        sessions.rename(SESSION, "   "),
        Err(SessionsError::EmptyTitle)
    ));
    assert!(matches!(
        sessions.tag(SESSION, Some("\u{200b}\u{feff} ")),
        Err(SessionsError::EmptyTag)
    ));
    assert!(matches!(
        sessions.delete(&missing),
        Err(SessionsError::NotFound { .. })
    ));
    assert!(matches!(
        sessions.fork(SESSION, &ForkOptions::default().up_to("not-a-uuid")),
        Err(SessionsError::InvalidMessageId(_))
    ));
    assert!(matches!(
        sessions.fork(SESSION, &ForkOptions::default().up_to(id(42))),
        Err(SessionsError::Fork(_))
    ));
    assert!(matches!(
        sessions.subagent_messages(SESSION, "../x", Page::all()),
        Err(SessionsError::InvalidAgentId(_))
    ));
    assert_eq!(sessions.info(&missing).unwrap(), None);
    // No projects directory at all: nothing listed, no error.
    assert!(
        Sessions::at(scratch.0.join("nowhere"))
            .list(Page::all())
            .is_empty()
    );
    let error = sessions.delete(&missing).unwrap_err().to_string();
    assert!(error.contains(&missing), "{error}");
}

#[test]
fn a_fork_relinks_through_progress_and_leaves_no_temporary_file() {
    let scratch = Scratch::new("fork");
    let progress =
        json!({"type": "progress", "uuid": id(2), "parentUuid": id(1), "sessionId": SESSION})
            .to_string();
    let (config, path) = session(
        &scratch,
        &[
            entry("user", 1, None, "question"),
            progress,
            entry("assistant", 3, Some(2), "answer"),
            json!({"type": "custom-title", "customTitle": "Original", "sessionId": SESSION})
                .to_string(),
        ],
    );
    let sessions = Sessions::at(&config);
    let fork = sessions.fork(SESSION, &ForkOptions::default()).unwrap();
    assert_eq!(texts(&sessions, &fork.session_id), ["question", "answer"]);
    let lines: Vec<Value> = std::fs::read_to_string(&fork.path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "two entries and the title");
    assert_eq!(
        lines[1]["parentUuid"], lines[0]["uuid"],
        "linked past the progress entry"
    );
    assert_eq!(
        lines[0]["forkedFrom"],
        json!({"sessionId": SESSION, "messageUuid": id(1)})
    );
    assert_eq!(lines[1]["sessionId"], fork.session_id);
    assert_eq!(lines[2]["customTitle"], "Original (fork)");
    let leftovers: Vec<_> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn a_long_project_path_is_found_whatever_hash_the_cli_used() {
    let scratch = Scratch::new("long");
    let deep = scratch.0.join("d".repeat(120)).join("e".repeat(120));
    std::fs::create_dir_all(&deep).unwrap();
    let key = project_key_for_directory(&deep);
    assert!(key.len() > MAX_PROJECT_KEY_LEN);
    // On Windows `canonicalize` spells a drive path `\\?\C:\…`; the CLI
    // spells it `C:\…`.
    let canonical = deep.canonicalize().unwrap();
    let canonical = canonical.to_string_lossy();
    assert_eq!(key, project_key(canonical.trim_start_matches(r"\\?\")));
    // The CLI built with Bun hashes differently: same prefix, other suffix.
    let config = scratch.0.join("config");
    let dir = config
        .join("projects")
        .join(format!("{}-bunhash", &key[..MAX_PROJECT_KEY_LEN]));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join(format!("{SESSION}.jsonl")),
        entry("user", 1, None, "deep") + "\n",
    )
    .unwrap();
    let sessions = Sessions::at(&config).in_project(&deep).without_worktrees();
    assert_eq!(sessions.list(Page::all()).len(), 1);
    assert_eq!(texts(&sessions, SESSION), ["deep"]);
}

#[test]
fn a_deleted_session_takes_its_subagents_along() {
    let scratch = Scratch::new("delete");
    let (config, path) = session(&scratch, &[entry("user", 1, None, "start")]);
    let agents = path.parent().unwrap().join(SESSION).join("subagents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(
        agents.join("agent-a.jsonl"),
        entry("user", 2, None, "sub") + "\n",
    )
    .unwrap();
    let sessions = Sessions::at(&config);
    assert_eq!(sessions.subagents(SESSION).unwrap(), ["a"]);
    sessions.delete(SESSION).unwrap();
    assert!(!path.exists());
    assert!(!path.parent().unwrap().join(SESSION).exists());
    assert!(sessions.list(Page::all()).is_empty());
}

#[test]
fn an_archived_session_stays_listed_until_unarchived_or_prompted() {
    let scratch = Scratch::new("archive");
    let (config, path) = session(&scratch, &[entry("user", 1, None, "start")]);
    let sessions = Sessions::at(&config);
    assert_eq!(sessions.info(SESSION).unwrap().unwrap().archived, None);
    sessions.archive(SESSION).unwrap();
    let listed = sessions.list(Page::all());
    assert_eq!(listed.len(), 1, "still listed");
    assert_eq!(listed[0].archived, Some(true));
    let mark = path.parent().unwrap().join(SESSION).join("archived.json");
    let text: Value = serde_json::from_slice(&std::fs::read(&mark).unwrap()).unwrap();
    assert_eq!(text["archived"], true);
    assert_eq!(text["by"], "sdk");
    sessions.unarchive(SESSION).unwrap();
    assert_eq!(
        sessions.info(SESSION).unwrap().unwrap().archived,
        Some(false)
    );
    sessions.archive(SESSION).unwrap();
    // The user writes again: a prompt after the mark lifts it.
    let later = json!({"type": "user", "uuid": id(2), "parentUuid": id(1), "sessionId": SESSION,
        "timestamp": "2999-01-01T00:00:00.000Z", "message": {"role": "user", "content": "back again"}});
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    file.write_all(format!("{later}\n").as_bytes()).unwrap();
    assert_eq!(
        sessions.info(SESSION).unwrap().unwrap().archived,
        Some(false)
    );
    assert!(matches!(
        sessions.archive(&id(77)),
        Err(SessionsError::NotFound { .. })
    ));
}

#[test]
fn a_large_directory_lists_in_the_same_order_however_it_is_read() {
    let scratch = Scratch::new("many");
    let project = scratch.0.join("config").join("projects").join("-work");
    std::fs::create_dir_all(&project).unwrap();
    let same_time =
        std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
    for n in 0..1500u64 {
        let path = project.join(format!("{}.jsonl", id(0x5000 + n)));
        std::fs::write(&path, entry("user", 1, None, &format!("prompt {n}")) + "\n").unwrap();
        // Every tenth file newer, the rest tied.
        let when = same_time + std::time::Duration::from_secs(if n % 10 == 0 { n } else { 0 });
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(when)
            .unwrap();
    }
    let listed = Sessions::at(scratch.0.join("config")).list(Page::all());
    assert_eq!(listed.len(), 1500);
    // Newest first; ties in directory order, as the SDKs list them.
    let order: Vec<String> = std::fs::read_dir(&project)
        .unwrap()
        .flatten()
        .map(|e| {
            e.file_name()
                .to_string_lossy()
                .trim_end_matches(".jsonl")
                .to_owned()
        })
        .collect();
    let mut expected: Vec<(i64, usize, &String)> = order
        .iter()
        .enumerate()
        .map(|(at, id)| {
            let n = u64::from_str_radix(&id[24..], 16).unwrap() - 0x5000;
            let extra = if n % 10 == 0 { n as i64 * 1000 } else { 0 };
            (-(1_700_000_000_000 + extra), at, id)
        })
        .collect();
    expected.sort();
    let expected: Vec<&String> = expected.into_iter().map(|(_, _, id)| id).collect();
    let got: Vec<&String> = listed.iter().map(|i| &i.session_id).collect();
    assert_eq!(got, expected);
}

#[test]
fn a_transcript_larger_than_a_read_block_threads_whole() {
    let scratch = Scratch::new("large");
    // Lines across several 8 MiB blocks, one line longer than a block, and
    // a last line without its newline.
    let mut lines = Vec::new();
    for n in 1..=3000u64 {
        let kind = if n % 2 == 1 { "user" } else { "assistant" };
        let text = if n == 1500 {
            "x".repeat(9 << 20)
        } else {
            format!("{n} {}", "y".repeat(5000))
        };
        lines.push(entry(kind, n, (n > 1).then(|| n - 1), &text));
    }
    let (config, path) = session(&scratch, &lines);
    let text = std::fs::read(&path).unwrap();
    std::fs::write(&path, &text[..text.len() - 1]).unwrap();
    let sessions = Sessions::at(&config);
    let messages = sessions.messages(SESSION, Page::all()).unwrap();
    assert_eq!(messages.len(), 3000);
    for (n, message) in messages.iter().enumerate() {
        assert_eq!(message.uuid, id(n as u64 + 1));
    }
    let page = sessions
        .messages(SESSION, Page::all().offset(1499).limit(1))
        .unwrap();
    let body: Value = serde_json::from_str(page[0].message.as_ref().unwrap().get()).unwrap();
    assert_eq!(body["content"].as_str().unwrap().len(), 9 << 20);
}
