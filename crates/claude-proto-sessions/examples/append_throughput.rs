//! How fast each backend appends: N batches of 100 transcript-like
//! entries of about 1 KiB, one session, one batch at a time (as a
//! session's mirror appends).
//!
//! ```text
//! cargo run --release -p claude-proto-sessions --example append_throughput -- [BATCHES]
//! ```
//!
//! PostgreSQL runs when `CLAUDE_PROTO_TEST_POSTGRES` holds a URL (its table
//! is made for the run and dropped after), and is skipped otherwise.

use std::hash::BuildHasher;
use std::time::Instant;

use claude_proto_sessions::{
    DirectoryStore, Entry, MemoryStore, PostgresOptions, PostgresStore, SessionKey, SessionStore,
    block_on,
};

const BATCH: usize = 100;

/// An assistant message line shaped like the CLI's, about 1 KiB.
fn entry(n: usize) -> Entry {
    let text = "The function reads the file, splits it into lines and folds each \
                line into the summary; a torn last line is skipped. "
        .repeat(5);
    let line = serde_json::json!({
        "parentUuid": format!("00000000-0000-4000-8000-{:012x}", n.saturating_sub(1)),
        "isSidechain": false,
        "userType": "external",
        "cwd": "/home/user/work/app",
        "sessionId": "6f1c1d2e-8a3b-4c5d-9e0f-112233445566",
        "version": "2.1.0",
        "gitBranch": "main",
        "type": "assistant",
        "uuid": format!("00000000-0000-4000-8000-{n:012x}"),
        "timestamp": "2025-01-01T12:00:00.000Z",
        "message": {
            "id": format!("msg_{n:024}"),
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": text}],
            "stop_reason": null,
            "usage": {"input_tokens": 1200, "output_tokens": 180},
        },
    });
    serde_json::value::to_raw_value(&line).expect("serializes")
}

fn measure(name: &str, store: &dyn SessionStore, batches: &[Vec<Entry>]) {
    let key = SessionKey::main("-home-user-work-app", "throughput");
    let entries: usize = batches.iter().map(Vec::len).sum();
    let bytes: usize = batches.iter().flatten().map(|e| e.get().len() + 1).sum();
    let started = Instant::now();
    for batch in batches {
        block_on(store.append(&key, batch)).expect("appends");
    }
    let seconds = started.elapsed().as_secs_f64();
    let loaded = block_on(store.load(&key))
        .expect("loads")
        .map_or(0, |l| l.len());
    assert_eq!(loaded, entries, "{name} lost entries");
    println!(
        "{name:<10} {entries:>7} entries  {seconds:>7.3} s  {:>10.0} entries/s  {:>7.1} MB/s",
        entries as f64 / seconds,
        bytes as f64 / seconds / 1e6,
    );
}

fn main() {
    let count: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("BATCHES is a number"))
        .unwrap_or(100);
    let batches: Vec<Vec<Entry>> = (0..count)
        .map(|b| (0..BATCH).map(|i| entry(b * BATCH + i)).collect())
        .collect();
    let average = batches
        .iter()
        .flatten()
        .map(|e| e.get().len())
        .sum::<usize>()
        / (count * BATCH).max(1);
    println!("{count} batches of {BATCH} entries of {average} bytes on average");

    measure("memory", &MemoryStore::new(), &batches);

    let random = std::collections::hash_map::RandomState::new().hash_one(std::process::id());
    let dir = std::env::temp_dir().join(format!("claude-proto-sessions-throughput-{random:016x}"));
    measure("directory", &DirectoryStore::new(&dir), &batches);
    let _ = std::fs::remove_dir_all(&dir);

    match std::env::var("CLAUDE_PROTO_TEST_POSTGRES") {
        Ok(url) if !url.is_empty() => {
            let prefix = format!("cpst_bench_{random:016x}");
            let options = PostgresOptions::default().table_prefix(&prefix);
            let store = block_on(PostgresStore::connect_with(&url, options)).expect("connects");
            measure("postgres", &store, &batches);
            drop(store);
            let mut client =
                postgres::Client::connect(&url, postgres::NoTls).expect("connects to drop");
            client
                .batch_execute(&format!(r#"DROP TABLE IF EXISTS "{prefix}_entries""#))
                .expect("drops the table");
        }
        _ => println!("postgres   skipped: CLAUDE_PROTO_TEST_POSTGRES is not set"),
    }
}
