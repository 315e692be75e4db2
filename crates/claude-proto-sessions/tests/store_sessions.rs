//! Sessions in a store read as the same lines read from the CLI's files:
//! `StoreSessions` over a `MemoryStore` against `Sessions` over a
//! directory.

use std::path::PathBuf;
use std::sync::Arc;

use claude_proto_sessions::{
    Entry, MemoryStore, SessionKey, SessionStore, StoreError, StoreFuture, StoredSession, block_on,
};
use claude_proto_sessions::{
    ForkOptions, Page, SessionInfo, SessionMessage, Sessions, StoreSessions,
    project_key_for_directory,
};
use serde_json::{Value, json};

const S: &str = "11111111-1111-4111-8111-111111111111";
const S2: &str = "22222222-2222-4222-8222-222222222222";
const S3: &str = "33333333-3333-4333-8333-333333333333";

fn uuid(n: u32) -> String {
    format!("00000000-0000-4000-8000-{n:012}")
}

/// A conversation of two exchanges in session `session`.
fn conversation(session: &str, first_prompt: &str, day: u32) -> Vec<Value> {
    let stamp = |s: u32| format!("2025-01-{day:02}T00:00:{s:02}.000Z");
    vec![
        json!({"type":"permission-mode","permissionMode":"default","sessionId":session}),
        json!({"type":"user","uuid":uuid(1),"parentUuid":null,"sessionId":session,"cwd":"/w",
               "gitBranch":"main","timestamp":stamp(0),
               "message":{"role":"user","content":first_prompt}}),
        json!({"type":"assistant","uuid":uuid(2),"parentUuid":uuid(1),"sessionId":session,
               "timestamp":stamp(1),
               "message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"hi"}]}}),
        json!({"type":"user","uuid":uuid(3),"parentUuid":uuid(2),"sessionId":session,
               "timestamp":stamp(2),"message":{"role":"user","content":"and then?"}}),
        json!({"type":"assistant","uuid":uuid(4),"parentUuid":uuid(3),"sessionId":session,
               "timestamp":stamp(3),"gitBranch":"feature",
               "message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"done"}]}}),
    ]
}

fn entries(values: &[Value]) -> Vec<Entry> {
    values
        .iter()
        .map(|v| serde_json::value::to_raw_value(v).expect("serializes"))
        .collect()
}

/// A config directory and a project directory of their own, removed when
/// dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        use std::hash::BuildHasher;
        let random = std::collections::hash_map::RandomState::new().hash_one(name);
        let root = std::env::temp_dir().join(format!(
            "claude-proto-sessions-sessions-{name}-{random:016x}"
        ));
        std::fs::create_dir_all(root.join("work")).expect("creates");
        Self(root)
    }

    fn work(&self) -> PathBuf {
        self.0.join("work")
    }

    /// The same lines as the CLI's transcript file.
    fn write(&self, session: &str, lines: &[Value]) -> Sessions {
        let dir = self
            .0
            .join("config/projects")
            .join(project_key_for_directory(self.work()));
        std::fs::create_dir_all(&dir).expect("creates");
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(dir.join(format!("{session}.jsonl")), text).expect("writes");
        Sessions::at(self.0.join("config"))
            .in_project(self.work())
            .without_worktrees()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What a listing shows, without the time and size (a file's and a
/// store's differ).
fn shown(info: &SessionInfo) -> Value {
    let mut value = serde_json::to_value(info).expect("serializes");
    let fields = value.as_object_mut().expect("an object");
    fields.remove("last_modified");
    fields.remove("file_size");
    value
}

fn as_json(messages: &[SessionMessage]) -> Value {
    serde_json::to_value(messages).expect("serializes")
}

/// A store that keeps no summaries (the slow path), and whose loads of
/// `failing` fail.
struct NoSummaries {
    inner: Arc<MemoryStore>,
    failing: Option<String>,
}

impl SessionStore for NoSummaries {
    fn append<'a>(&'a self, key: &'a SessionKey, entries: &'a [Entry]) -> StoreFuture<'a, ()> {
        self.inner.append(key, entries)
    }

    fn load<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<Entry>>> {
        if self.failing.as_deref() == Some(key.session_id.as_str()) {
            return Box::pin(std::future::ready(Err(StoreError::backend("unreachable"))));
        }
        self.inner.load(key)
    }

    fn list_sessions<'a>(&'a self, project_key: &'a str) -> StoreFuture<'a, Vec<StoredSession>> {
        self.inner.list_sessions(project_key)
    }

    fn delete<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, ()> {
        self.inner.delete(key)
    }

    fn list_subkeys<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Vec<String>> {
        self.inner.list_subkeys(key)
    }
}

/// A store that lists every session at the same time, in id order or its
/// reverse, and keeps no summaries: ties for the listing to break.
struct SameTime {
    inner: Arc<MemoryStore>,
    reversed: bool,
}

impl SessionStore for SameTime {
    fn append<'a>(&'a self, key: &'a SessionKey, entries: &'a [Entry]) -> StoreFuture<'a, ()> {
        self.inner.append(key, entries)
    }

    fn load<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<Entry>>> {
        self.inner.load(key)
    }

    fn list_sessions<'a>(&'a self, project_key: &'a str) -> StoreFuture<'a, Vec<StoredSession>> {
        Box::pin(async move {
            let mut listed = self.inner.list_sessions(project_key).await?;
            listed.sort_by(|a, b| a.session_id.cmp(&b.session_id));
            if self.reversed {
                listed.reverse();
            }
            for session in &mut listed {
                session.mtime = 1_700_000_000_000;
            }
            Ok(listed)
        })
    }
}

/// Finding: sessions written in the same millisecond were listed in
/// whatever order the store gave them. Ties go by session id, so a listing
/// is the same every time.
#[test]
fn sessions_modified_at_the_same_time_list_in_a_stable_order() {
    let scratch = Scratch::new("ties");
    let memory = Arc::new(MemoryStore::new());
    let writer = StoreSessions::new(memory.clone(), scratch.work());
    for session in [S2, S3, S] {
        append(
            &memory,
            &writer,
            session,
            &conversation(session, "hello", 1),
        );
    }
    let mut listings = Vec::new();
    for reversed in [false, true] {
        let store = SameTime {
            inner: memory.clone(),
            reversed,
        };
        let sessions = StoreSessions::new(Arc::new(store), scratch.work());
        let listed = block_on(sessions.list(Page::all())).expect("lists");
        let ids: Vec<String> = listed.into_iter().map(|info| info.session_id).collect();
        listings.push(ids);
    }
    assert_eq!(listings[0], [S, S2, S3]);
    assert_eq!(listings[1], listings[0]);
}

/// The fast path (summaries) and the slow path (loads) over one store.
fn both(scratch: &Scratch) -> (Arc<MemoryStore>, StoreSessions, StoreSessions) {
    let memory = Arc::new(MemoryStore::new());
    let fast = StoreSessions::new(memory.clone(), scratch.work());
    let slow = StoreSessions::new(
        Arc::new(NoSummaries {
            inner: memory.clone(),
            failing: None,
        }),
        scratch.work(),
    );
    (memory, fast, slow)
}

fn append(store: &MemoryStore, sessions: &StoreSessions, session: &str, lines: &[Value]) {
    let key = SessionKey::main(sessions.project_key(), session);
    // In two batches, as a mirror appends.
    let all = entries(lines);
    block_on(store.append(&key, &all[..2])).expect("appends");
    block_on(store.append(&key, &all[2..])).expect("appends");
}

#[test]
fn a_stored_session_lists_and_reads_as_on_disk() {
    let scratch = Scratch::new("same");
    let lines = conversation(S, "hello there", 1);
    let disk = scratch.write(S, &lines);
    let (memory, fast, slow) = both(&scratch);
    append(&memory, &fast, S, &lines);

    let on_disk = disk.list(Page::all());
    assert_eq!(on_disk.len(), 1);
    for sessions in [&fast, &slow] {
        let listed = block_on(sessions.list(Page::all())).expect("lists");
        assert_eq!(listed.len(), 1);
        assert_eq!(shown(&listed[0]), shown(&on_disk[0]));
        assert_eq!(listed[0].file_size, None);
    }
    let info = block_on(fast.info(S)).expect("reads").expect("found");
    assert_eq!(shown(&info), shown(&on_disk[0]));
    // The last entry's time: a store's load gives none.
    assert_eq!(info.last_modified, 1_735_689_603_000);

    let messages = block_on(fast.messages(S, Page::all())).expect("reads");
    assert_eq!(messages.len(), 4);
    assert_eq!(
        as_json(&messages),
        as_json(&disk.messages(S, Page::all()).expect("reads"))
    );
    let page = Page::all().offset(1).limit(2);
    assert_eq!(
        as_json(&block_on(fast.messages(S, page)).expect("reads")),
        as_json(&disk.messages(S, page).expect("reads"))
    );
    assert!(
        block_on(fast.messages(S2, Page::all()))
            .expect("reads")
            .is_empty()
    );
    assert!(block_on(fast.info(S2)).expect("reads").is_none());
    assert!(block_on(fast.info("not-a-uuid")).is_err());
}

#[test]
fn renames_and_tags_show_in_list_and_info() {
    let scratch = Scratch::new("marks");
    let (memory, fast, slow) = both(&scratch);
    append(&memory, &fast, S, &conversation(S, "hello", 1));
    block_on(fast.rename(S, "  Greeting ")).expect("renames");
    block_on(fast.tag(S, Some("wip\u{200b}"))).expect("tags");
    for sessions in [&fast, &slow] {
        let listed = block_on(sessions.list(Page::all())).expect("lists");
        assert_eq!(listed[0].summary, "Greeting");
        assert_eq!(listed[0].custom_title.as_deref(), Some("Greeting"));
        assert_eq!(listed[0].tag.as_deref(), Some("wip"));
        let info = block_on(sessions.info(S)).expect("reads").expect("found");
        assert_eq!(info.custom_title.as_deref(), Some("Greeting"));
        assert_eq!(info.tag.as_deref(), Some("wip"));
    }
    block_on(fast.tag(S, None)).expect("clears");
    for sessions in [&fast, &slow] {
        let listed = block_on(sessions.list(Page::all())).expect("lists");
        assert_eq!(listed[0].tag, None);
    }
    assert!(block_on(fast.rename(S, "  ")).is_err());
    assert!(block_on(fast.tag(S, Some("\u{200b}"))).is_err());
}

/// In a store, as in the Python SDK: renaming or tagging a session that
/// is not there appends its entry (so the session exists, holding only
/// that entry), deleting it does nothing, and forking it is `NotFound`.
#[test]
fn changing_a_session_a_store_does_not_hold() {
    let scratch = Scratch::new("absent");
    let (memory, fast, _) = both(&scratch);
    block_on(fast.rename(S, "Named")).expect("a rename creates the session");
    block_on(fast.tag(S2, Some("wip"))).expect("a tag creates the session");
    for (session, kind) in [(S, "custom-title"), (S2, "tag")] {
        let key = SessionKey::main(fast.project_key(), session);
        let stored = block_on(memory.load(&key)).expect("loads").expect("there");
        assert_eq!(stored.len(), 1, "{session}");
        let entry: Value = serde_json::from_str(stored[0].get()).expect("JSON");
        assert_eq!(entry["type"], kind);
    }
    block_on(fast.delete(S3)).expect("deleting nothing is no error");
    assert!(matches!(
        block_on(fast.fork(S3, &ForkOptions::default())),
        Err(claude_proto_sessions::SessionsError::NotFound { .. })
    ));
}

#[test]
fn a_fork_copies_the_conversation_under_a_new_id() {
    let scratch = Scratch::new("fork");
    let (memory, fast, _) = both(&scratch);
    append(&memory, &fast, S, &conversation(S, "hello", 1));
    block_on(fast.rename(S, "Greeting")).expect("renames");
    let forked = block_on(fast.fork(S, &ForkOptions::default())).expect("forks");
    assert_ne!(forked.session_id, S);

    let source = block_on(fast.messages(S, Page::all())).expect("reads");
    let copy = block_on(fast.messages(&forked.session_id, Page::all())).expect("reads");
    assert_eq!(copy.len(), source.len());
    for (a, b) in source.iter().zip(&copy) {
        assert_eq!(a.kind, b.kind);
        assert_eq!(
            a.message.as_ref().map(|m| m.get()),
            b.message.as_ref().map(|m| m.get())
        );
        assert_ne!(a.uuid, b.uuid);
        assert_eq!(b.session_id, forked.session_id);
    }
    let info = block_on(fast.info(&forked.session_id))
        .expect("reads")
        .expect("found");
    assert_eq!(info.custom_title.as_deref(), Some("Greeting (fork)"));
    let listed = block_on(fast.list(Page::all())).expect("lists");
    assert_eq!(listed.len(), 2);

    let titled = block_on(fast.fork(S, &ForkOptions::default().title("Mine").up_to(uuid(2))))
        .expect("forks");
    let copy = block_on(fast.messages(&titled.session_id, Page::all())).expect("reads");
    assert_eq!(copy.len(), 2);
    assert!(block_on(fast.fork(S2, &ForkOptions::default())).is_err());
}

#[test]
fn delete_removes_the_session() {
    let scratch = Scratch::new("delete");
    let (memory, fast, slow) = both(&scratch);
    append(&memory, &fast, S, &conversation(S, "hello", 1));
    append(&memory, &fast, S2, &conversation(S2, "other", 2));
    block_on(fast.delete(S)).expect("deletes");
    assert!(block_on(fast.info(S)).expect("reads").is_none());
    assert!(
        block_on(fast.messages(S, Page::all()))
            .expect("reads")
            .is_empty()
    );
    for sessions in [&fast, &slow] {
        let listed = block_on(sessions.list(Page::all())).expect("lists");
        let ids: Vec<&str> = listed.iter().map(|i| i.session_id.as_str()).collect();
        assert_eq!(ids, [S2]);
    }
}

#[test]
fn subagents_report_their_parents() {
    let scratch = Scratch::new("agents");
    let (memory, fast, _) = both(&scratch);
    append(&memory, &fast, S, &conversation(S, "hello", 1));
    let sub = SessionKey::main(fast.project_key(), S).with_subpath("subagents/agent-a1");
    let lines = [
        json!({"type":"user","isSidechain":true,"agentId":"a1","uuid":uuid(11),"parentUuid":null,
               "sessionId":S,"message":{"role":"user","content":"task"}}),
        json!({"type":"agent_metadata","toolUseId":"toolu_1","parentAgentId":"p1"}),
        json!({"type":"assistant","isSidechain":true,"agentId":"a1","uuid":uuid(12),
               "parentUuid":uuid(11),"sessionId":S,
               "message":{"id":"m9","role":"assistant","content":[{"type":"text","text":"ok"}]}}),
    ];
    block_on(memory.append(&sub, &entries(&lines))).expect("appends");
    assert_eq!(block_on(fast.subagents(S)).expect("lists"), ["a1"]);
    let messages = block_on(fast.subagent_messages(S, "a1", Page::all())).expect("reads");
    assert_eq!(messages.len(), 2);
    for message in &messages {
        assert_eq!(message.parent_tool_use_id.as_deref(), Some("toolu_1"));
        assert_eq!(message.parent_agent_id.as_deref(), Some("p1"));
    }
    assert!(
        block_on(fast.subagent_messages(S, "nope", Page::all()))
            .expect("reads")
            .is_empty()
    );
    // The subagent's entries do not change its session's listing.
    let listed = block_on(fast.list(Page::all())).expect("lists");
    assert_eq!(listed[0].summary, "hello");
}

#[test]
fn the_fast_and_slow_paths_list_the_same() {
    let scratch = Scratch::new("paths");
    let (memory, fast, slow) = both(&scratch);
    append(&memory, &fast, S, &conversation(S, "first", 1));
    append(&memory, &fast, S2, &conversation(S2, "second", 2));
    append(&memory, &fast, S3, &conversation(S3, "third", 3));
    // A session with nothing to show, and a subagent's: left out by both.
    let empty = "44444444-4444-4444-8444-444444444444";
    block_on(memory.append(
        &SessionKey::main(fast.project_key(), empty),
        &entries(&[json!({"type":"permission-mode","permissionMode":"default"})]),
    ))
    .expect("appends");
    block_on(fast.rename(S2, "Named")).expect("renames");
    for page in [
        Page::all(),
        Page::all().limit(2),
        Page::all().offset(1),
        Page::all().offset(1).limit(1),
    ] {
        let quick = block_on(fast.list(page)).expect("lists");
        let loaded = block_on(slow.list(page)).expect("lists");
        assert_eq!(
            serde_json::to_value(&quick).expect("serializes"),
            serde_json::to_value(&loaded).expect("serializes"),
            "{page:?}"
        );
    }
    let all = block_on(fast.list(Page::all())).expect("lists");
    let ids: Vec<&str> = all.iter().map(|i| i.session_id.as_str()).collect();
    // Newest first: S2 was renamed last.
    assert_eq!(ids, [S2, S3, S]);
}

#[test]
fn a_session_whose_load_fails_lists_as_unreadable() {
    let scratch = Scratch::new("unreadable");
    let memory = Arc::new(MemoryStore::new());
    let sessions = StoreSessions::new(
        Arc::new(NoSummaries {
            inner: memory.clone(),
            failing: Some(S2.to_owned()),
        }),
        scratch.work(),
    );
    append(&memory, &sessions, S, &conversation(S, "fine", 1));
    append(&memory, &sessions, S2, &conversation(S2, "broken", 2));
    let listed = block_on(sessions.list(Page::all())).expect("lists");
    assert_eq!(listed.len(), 2);
    let broken = listed.iter().find(|i| i.session_id == S2).expect("listed");
    assert_eq!(broken.summary, "");
    assert!(block_on(sessions.info(S2)).is_err());
}
