//! PostgresStore against a real server, at the URL in
//! `CLAUDE_PROTO_TEST_POSTGRES` (`.ci/postgres.sh` starts one and prints
//! it). Without it these tests print SKIPPED and pass, except under CI,
//! where a missing server is a failure.

use std::hash::BuildHasher;
use std::time::{Duration, Instant};

use claude_proto_sessions::conformance;
use claude_proto_sessions::{
    Entry, PostgresOptions, PostgresStore, SessionKey, SessionStore, StoreError, block_on,
    block_on_until,
};
use serde_json::value::RawValue;

const URL_VAR: &str = "CLAUDE_PROTO_TEST_POSTGRES";

/// The server's URL, or `None` (after saying so) if these tests are to be
/// skipped.
fn server_url(test: &str) -> Option<String> {
    match std::env::var(URL_VAR) {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            let ci = std::env::var("CI").unwrap_or_default();
            if !ci.is_empty() && ci != "false" && ci != "0" {
                panic!(
                    "{URL_VAR} is missing: CI must run the PostgreSQL tests (see .ci/postgres.sh)"
                );
            }
            eprintln!("SKIPPED {test}: set {URL_VAR} to a PostgreSQL URL to run it");
            None
        }
    }
}

/// A table prefix no other run uses, and its table dropped at the end of
/// the test (even a failing one).
struct Table {
    url: String,
    prefix: String,
}

impl Table {
    fn new(url: &str) -> Self {
        let random = std::collections::hash_map::RandomState::new().hash_one(std::process::id());
        Self {
            url: url.to_owned(),
            prefix: format!("cpst_{random:016x}"),
        }
    }

    fn options(&self) -> PostgresOptions {
        PostgresOptions::default().table_prefix(&self.prefix)
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        let dropped =
            postgres::Client::connect(&self.url, postgres::NoTls).and_then(|mut client| {
                client.batch_execute(&format!(
                    r#"DROP TABLE IF EXISTS "{0}_entries", "{0}_summaries""#,
                    self.prefix
                ))
            });
        if let Err(e) = dropped {
            eprintln!("could not drop the test table {}_entries: {e}", self.prefix);
        }
    }
}

fn entry(text: &str) -> Entry {
    RawValue::from_string(text.to_owned()).expect("valid JSON")
}

#[test]
fn postgres_store_passes_the_conformance_suite() {
    let Some(url) = server_url("postgres_store_passes_the_conformance_suite") else {
        return;
    };
    let table = Table::new(&url);
    let store = block_on(PostgresStore::connect_with(&url, table.options())).expect("connects");
    let report = block_on(conformance::run(&store)).unwrap_or_else(|failure| panic!("{failure}"));
    assert_eq!(report.ran.len(), 14, "{report:?}");
}

#[test]
fn two_stores_on_one_database_see_each_others_appends() {
    let Some(url) = server_url("two_stores_on_one_database_see_each_others_appends") else {
        return;
    };
    let table = Table::new(&url);
    let here = block_on(PostgresStore::connect_with(&url, table.options())).expect("connects");
    let there = block_on(PostgresStore::connect_with(&url, table.options())).expect("connects");
    let key = SessionKey::main("-work-app", "shared");
    block_on(here.append(&key, &[entry(r#"{"uuid":"1","from":"here"}"#)])).expect("appends");
    block_on(there.append(&key, &[entry(r#"{"uuid":"2","from":"there"}"#)])).expect("appends");
    for store in [&here, &there] {
        let loaded = block_on(store.load(&key)).expect("loads").expect("exists");
        let texts: Vec<&str> = loaded.iter().map(|e| e.get()).collect();
        assert_eq!(
            texts,
            [
                r#"{"uuid":"1","from":"here"}"#,
                r#"{"uuid":"2","from":"there"}"#
            ]
        );
        let sessions = block_on(store.list_sessions("-work-app")).expect("lists");
        assert_eq!(sessions.len(), 1);
    }
}

#[test]
fn entries_keep_their_text_and_a_retried_uuid_is_stored_once() {
    let Some(url) = server_url("entries_keep_their_text_and_a_retried_uuid_is_stored_once") else {
        return;
    };
    let table = Table::new(&url);
    let store = block_on(PostgresStore::connect_with(&url, table.options())).expect("connects");
    let key = SessionKey::main("p", "s");
    // Key order, spacing and number spelling that jsonb would change.
    let batch = [
        entry(r#"{"uuid":"a", "z":1.0,"a":[1e3]}"#),
        entry(r#"{"type":"custom-title","title":"no uuid"}"#),
    ];
    block_on(store.append(&key, &batch)).expect("appends");
    // The mirror retries a batch that may have landed.
    block_on(store.append(&key, &batch)).expect("appends again");
    let loaded = block_on(store.load(&key)).expect("loads").expect("exists");
    let texts: Vec<&str> = loaded.iter().map(|e| e.get()).collect();
    assert_eq!(
        texts,
        [
            r#"{"uuid":"a", "z":1.0,"a":[1e3]}"#,
            r#"{"type":"custom-title","title":"no uuid"}"#,
            r#"{"type":"custom-title","title":"no uuid"}"#,
        ]
    );
}

/// Connecting to `url`, where no server answers, ends in a backend error.
/// For a server that accepts and never answers, only the connect timeout
/// can end the attempt, so the error is the timeout at work. No duration
/// is asserted: the bound below is far beyond the timeout and only stops
/// a connect that would hang.
fn assert_unreachable_fails_in_time(url: &str, what: &str) {
    let timeout = Duration::from_secs(2);
    let options = PostgresOptions::default()
        .table_prefix("never_created")
        .connect_timeout(timeout);
    let started = Instant::now();
    let outcome = block_on_until(
        PostgresStore::connect_with(url, options),
        started + timeout + Duration::from_secs(60),
    );
    match outcome {
        Some(Err(StoreError::Backend(_))) => {}
        Some(Err(e)) => panic!("{what}: expected a backend error, got {e}"),
        Some(Ok(_)) => panic!("{what}: connected to nothing"),
        None => panic!(
            "{what}: still connecting after {:?}, with a connect timeout of {timeout:?}",
            started.elapsed()
        ),
    }
}

#[test]
fn an_unreachable_server_is_a_backend_error_within_the_connect_timeout() {
    // Needs no server: nothing listens on port 1.
    assert_unreachable_fails_in_time("postgresql://u:p@127.0.0.1:1/db", "port 1");
}

#[test]
fn a_server_that_accepts_but_never_answers_is_a_backend_error_too() {
    // Needs no server: a socket that accepts connections (the kernel does,
    // into the backlog) but never says anything.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("binds");
    let port = silent.local_addr().expect("has an address").port();
    assert_unreachable_fails_in_time(&format!("postgresql://u:p@127.0.0.1:{port}/db"), "silent");
    drop(silent);
}

#[test]
fn table_prefixes_that_are_not_plain_identifiers_are_refused() {
    for prefix in ["", "Upper", "1st", "a-b", "a\"b", &"x".repeat(41)] {
        let options = PostgresOptions::default().table_prefix(prefix);
        // Refused before connecting: the URL is never used.
        let result = block_on(PostgresStore::connect_with(
            "postgresql://u@127.0.0.1:1/db",
            options,
        ));
        match result {
            Err(StoreError::Backend(e)) => assert!(e.to_string().contains("prefix"), "{e}"),
            other => panic!("{prefix}: {other:?}"),
        }
    }
}

#[test]
fn a_broken_connection_is_reopened() {
    let Some(url) = server_url("a_broken_connection_is_reopened") else {
        return;
    };
    let table = Table::new(&url);
    let store = block_on(PostgresStore::connect_with(&url, table.options())).expect("connects");
    let key = SessionKey::main("p", "s");
    block_on(store.append(&key, &[entry(r#"{"uuid":"1"}"#)])).expect("appends");
    // Its last query names this test's table (an append's is `COMMIT`).
    block_on(store.load(&key)).expect("loads");
    // The server ends the store's session (as a restart or a failover
    // would); found by the last query it ran, on this test's table.
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).expect("connects");
    let ended = admin
        .query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
             WHERE pid <> pg_backend_pid() AND query LIKE '%' || $1 || '%'",
            &[&store.table()],
        )
        .expect("terminates");
    assert_eq!(ended.len(), 1);
    block_on(store.append(&key, &[entry(r#"{"uuid":"2"}"#)])).expect("appends after reconnecting");
    let loaded = block_on(store.load(&key)).expect("loads").expect("exists");
    assert_eq!(loaded.len(), 2);
}

#[test]
fn summaries_fold_once_per_entry_and_whole_sessions_without_one() {
    let Some(url) = server_url("summaries_fold_once_per_entry_and_whole_sessions_without_one")
    else {
        return;
    };
    let table = Table::new(&url);
    let store = block_on(PostgresStore::connect_with(&url, table.options())).expect("connects");
    let key = SessionKey::main("p", "s");
    let first = entry(r#"{"type":"user","uuid":"1","cwd":"/w","message":{"content":"hello"}}"#);
    block_on(store.append(&key, &[first])).expect("appends");
    // As if written by a version that kept no summaries.
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).expect("connects");
    admin
        .execute(
            &format!(r#"DELETE FROM "{}""#, store.summaries_table()),
            &[],
        )
        .expect("deletes the summary");
    let tag = entry(r#"{"type":"tag","tag":"t","uuid":"2"}"#);
    block_on(store.append(&key, std::slice::from_ref(&tag))).expect("appends");
    let summaries = block_on(store.list_session_summaries("p")).expect("lists");
    assert_eq!(summaries.len(), 1);
    let data = &summaries[0].data;
    assert_eq!(data["first_prompt"], "hello");
    assert_eq!(data["cwd"], "/w");
    assert_eq!(data["tag"], "t");
    // A retried batch is skipped, and folds nothing again.
    let clear = entry(r#"{"type":"tag","tag":"","uuid":"3"}"#);
    block_on(store.append(&key, std::slice::from_ref(&clear))).expect("appends");
    block_on(store.append(&key, &[tag])).expect("appends");
    let summaries = block_on(store.list_session_summaries("p")).expect("lists");
    assert!(!summaries[0].data.contains_key("tag"), "{summaries:?}");
}
