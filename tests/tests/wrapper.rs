//! A CLI started through a wrapper command (`Options::wrapper`): the test
//! kit's CLI run by `/usr/bin/env`, which sets a variable of its own and
//! then starts the CLI it is given, completes a turn on the tokio and the
//! blocking adapter. The variable names the file the CLI writes its
//! verdict (with its arguments) to, so a turn answered without the wrapper
//! would fail the test.
#![cfg(unix)]
#![allow(clippy::unwrap_used)] // test helpers fail loudly by design

use std::path::{Path, PathBuf};

use claude_proto::options::Options;
use claude_proto_host::SpawnError;
use claude_proto_testkit::Behaviour;
use claude_proto_testkit::child::{OUTCOME_ENV, outcome_from_file};
use claude_proto_tests::conformance::Spec;

const CLI: &str = env!("CARGO_BIN_EXE_testkit-cli");
const ENV: &str = "/usr/bin/env";

/// A file the CLI writes its verdict to, in a directory of this test's own.
fn record_file(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "claude-proto-wrapper-{name}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("record.json");
    let _ = std::fs::remove_file(&file);
    file
}

/// The CLI's options, started as `env CLAUDE_PROTO_TESTKIT_OUTCOME=... <cli> <args>`.
fn wrapped(record: &Path) -> Options {
    let set = format!("{OUTCOME_ENV}={}", record.display());
    Spec::new(PathBuf::from(CLI), Behaviour::default())
        .options()
        .wrapper(ENV, [set])
}

/// The arguments the CLI recorded in its verdict.
fn check_argv(record: &Path) {
    let verdict = outcome_from_file(record)
        .unwrap_or_else(|e| panic!("the wrapper did not pass its variable on ({e})"));
    let argv = verdict.args;
    assert_eq!(
        argv[0..5],
        [
            "--output-format",
            "stream-json",
            "--verbose",
            "--input-format",
            "stream-json"
        ],
        "{argv:?}"
    );
    if let Some(dir) = record.parent() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[test]
fn the_command_is_the_wrapper_then_the_cli() {
    let record = record_file("command");
    let options = wrapped(&record);
    let launch = claude_proto_process::build_command(&options).unwrap();
    assert_eq!(launch.program, Path::new(ENV));
    let args: Vec<_> = launch.command.get_args().collect();
    assert_eq!(args[1], CLI);
    assert_eq!(args[2], "--output-format");
    let _ = std::fs::remove_dir_all(record.parent().unwrap());
}

#[test]
fn tokio_completes_a_turn_through_env() {
    let record = record_file("tokio");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut claude = claude_proto_tokio::Claude::builder(wrapped(&record))
            .spawn()
            .await
            .unwrap();
        let turn = claude.ask("hello").await.unwrap();
        assert_eq!(turn.text(), Some("echo: hello"));
        let report = claude.close().await.unwrap().expect("a process exit");
        assert!(report.success(), "{report}");
    });
    check_argv(&record);
}

#[test]
fn blocking_completes_a_turn_through_env() {
    let record = record_file("blocking");
    let mut claude = claude_proto_blocking::Claude::builder(wrapped(&record))
        .spawn()
        .unwrap();
    let turn = claude.ask("hello").unwrap();
    assert_eq!(turn.text(), Some("echo: hello"));
    let report = claude.close().unwrap().expect("a process exit");
    assert!(report.success(), "{report}");
    check_argv(&record);
}

#[test]
fn a_missing_wrapper_is_named_in_the_error() {
    let options = Options::new()
        .cli_path(CLI)
        .wrapper("/nonexistent/wrapper", ["--flag"]);
    let error = claude_proto_blocking::Claude::builder(options)
        .spawn()
        .expect_err("no such wrapper");
    match &error {
        SpawnError::Spawn { program, .. } => {
            assert_eq!(program, Path::new("/nonexistent/wrapper"), "{error}");
        }
        other => panic!("expected a spawn error naming the wrapper, got {other}"),
    }
}
