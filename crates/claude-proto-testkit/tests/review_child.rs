//! The child-process CLI keeps its deadlines when the program stops
//! reading its output.

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use claude_proto_testkit::child::SCRIPT_ENV;
use claude_proto_testkit::{FAILURE_EXIT_CODE, Script, cli};

const BINARY: &str = env!("CARGO_BIN_EXE_claude-proto-testkit-cli");

/// A program that never reads the CLI's output fails the run at the
/// step deadline: the binary exits with the failure code and says it
/// waited for the program to read, instead of blocking in a write.
#[test]
fn an_unread_stdout_ends_the_run_at_the_step_deadline() {
    // Far more than a pipe holds: the writes block once it is full.
    let big = "x".repeat(64 * 1024);
    let script = Script::new()
        .step_deadline(Duration::from_millis(200))
        .send_all((0..64).map(|_| cli::assistant_text(&big)))
        .expect_end();
    let path = std::env::temp_dir().join(format!(
        "claude-proto-testkit-review-child-{}.json",
        std::process::id()
    ));
    script.save(&path).expect("saves the script");

    let mut child = Command::new(BINARY)
        .env(SCRIPT_ENV, &path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts the binary");
    // Held open and never read (stdin never written): a program that is
    // stuck elsewhere.
    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let mut stderr = child.stderr.take().expect("stderr is piped");
    let (done, exited) = mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        let _ = done.send((child.wait(), text));
    });

    // A watchdog, not a timing assertion: a binary blocked in its write
    // would otherwise hang the test run.
    let outcome = exited.recv_timeout(Duration::from_secs(120));
    // Closing the pipes frees a binary stuck in its write either way.
    drop(stdin);
    drop(stdout);
    let _ = std::fs::remove_file(&path);
    let (status, text) = outcome.expect("the binary exits while its output is unread");
    waiter.join().expect("the waiter ends");
    let status = status.expect("the binary's status");
    assert_eq!(status.code(), Some(FAILURE_EXIT_CODE), "{text}");
    assert!(
        text.contains("the program to read the CLI's output"),
        "{text}"
    );
}
