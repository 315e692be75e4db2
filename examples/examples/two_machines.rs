//! `two_machines`: a session started on one machine and resumed on
//! another, sharing nothing but a PostgreSQL database.
//!
//! ```text
//! export CLAUDE_PROTO_POSTGRES="$(bash .ci/postgres.sh | tail -n 1)"   # or any PostgreSQL URL
//! cargo run --example two_machines                # real service if you have credentials, else offline
//! cargo run --example two_machines -- --offline   # a loopback stand-in for the model
//! ```
//!
//! "Machine A" runs a turn with an empty config directory of its own; the
//! CLI mirrors every transcript line (`--session-mirror`) and the session
//! appends them to PostgreSQL. "Machine B" has another empty config
//! directory and its own connection to the database: it resumes the
//! session by id, the store materializes the transcript into a private
//! temporary directory for the CLI, and the model sees the first turn.
//! Each machine is a separate session here; on real machines it is the
//! same code, with the same database URL.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use claude_proto::options::Options;
use claude_proto_examples::{
    Reply, base_options, last_prompt, offline_options, query_error, start_error, want_offline,
};
use claude_proto_testkit::model_api::ApiRequest;
use claude_proto_tokio::sessions::{PostgresOptions, PostgresStore, SessionKey, SessionStore};
use claude_proto_tokio::{Claude, Configure as _, StoreSettings};

const URL_VAR: &str = "CLAUDE_PROTO_POSTGRES";

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("two_machines: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The offline model: it notes the word, and recalls it only if the
/// first turn is in the history it is sent.
fn offline_model(request: &ApiRequest) -> Reply {
    if last_prompt(request).contains("Which word") {
        if request.all_text().contains("pineapple") {
            Reply::text("You asked me to remember: pineapple.")
        } else {
            Reply::text("I have no word to remember.")
        }
    } else {
        Reply::text("Noted.")
    }
}

/// One machine: its own connection to the database, and an empty config
/// directory of its own (`HOME` is where the CLI keeps it).
async fn machine(
    url: &str,
    options: &Options,
    home: &Path,
) -> Result<(Options, StoreSettings), String> {
    std::fs::create_dir_all(home).map_err(|e| format!("cannot create {}: {e}", home.display()))?;
    let store =
        PostgresStore::connect_with(url, PostgresOptions::default().table_prefix("two_machines"))
            .await
            .map_err(|e| format!("cannot reach PostgreSQL at {URL_VAR}: {e}"))?;
    let options = options.clone().env("HOME", home);
    Ok((options, StoreSettings::new(store)))
}

async fn run() -> Result<(), String> {
    let url = std::env::var(URL_VAR).map_err(|_| {
        format!("set {URL_VAR} to a PostgreSQL URL (bash .ci/postgres.sh prints one)")
    })?;
    let forced = std::env::args().any(|a| a == "--offline").then_some(true);
    let mut options = base_options(None);
    let mut _offline = None;
    if want_offline(forced) {
        let (offline, guard) = offline_options("two-machines", options, offline_model)?;
        options = offline;
        _offline = Some(guard);
    }
    let homes: PathBuf =
        std::env::temp_dir().join(format!("claude-proto-two-machines-{}", std::process::id()));

    // Machine A: a turn, mirrored to the database as it is written.
    let (options_a, store_a) = machine(&url, &options, &homes.join("a")).await?;
    let mut a = Claude::builder(options_a)
        .session_store(store_a)
        .spawn()
        .await
        .map_err(start_error)?;
    let turn = a
        .ask("Remember the word pineapple.")
        .await
        .map_err(query_error)?;
    let session_id = turn.result.session_id;
    println!(
        "machine A · session {session_id} · {}",
        turn.result.result.unwrap_or_default()
    );
    // Every line the CLI wrote is in the database before A goes away.
    a.controller().flush_mirror().await.map_err(query_error)?;
    a.close().await.map_err(query_error)?;

    // Machine B: nothing on disk, the session id, and the database.
    let (options_b, store_b) = machine(&url, &options, &homes.join("b")).await?;
    let mut b = Claude::builder(options_b.resume(session_id.clone()))
        .session_store(store_b)
        .spawn()
        .await
        .map_err(start_error)?;
    let turn = b
        .ask("Which word did I ask you to remember?")
        .await
        .map_err(query_error)?;
    println!(
        "machine B · session {session_id} · {}",
        turn.text().unwrap_or_default()
    );
    b.close().await.map_err(query_error)?;

    // Tidy up: the example's session and its temporary homes.
    let cwd = std::env::current_dir().map_err(|e| e.to_string())?;
    let key = SessionKey::main(
        claude_proto_sessions::project_key_for_directory(cwd),
        &session_id,
    );
    let store: Arc<dyn SessionStore> = Arc::new(
        PostgresStore::connect_with(
            &url,
            PostgresOptions::default().table_prefix("two_machines"),
        )
        .await
        .map_err(|e| e.to_string())?,
    );
    store.delete(&key).await.map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(&homes);
    Ok(())
}
