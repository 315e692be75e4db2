//! The close sequence, timed: from closing the CLI's stdin to the exit
//! report, by which time the CLI's whole process group is gone (see
//! `ProcessHandle::watch_exit`). The CLI is a shell script standing in for
//! one whose descendants behave in three ways: none, one that exits on
//! SIGTERM, one that ignores it (then SIGKILL after the grace).
//!
//! usage: `bench-close [ROUNDS]` (default 20); prints a Markdown table.

use std::io::{BufRead as _, BufReader};
use std::os::unix::fs::PermissionsExt as _;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use claude_proto_process::{Options, spawn};

const GRACE: Duration = Duration::from_millis(500);

const CASES: [(&str, &str); 3] = [
    ("no descendants", ""),
    ("a descendant that exits on SIGTERM", "sleep 1000 &"),
    (
        "a descendant that ignores SIGTERM",
        "sh -c 'trap \"\" TERM; exec sleep 1000' &",
    ),
];

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(20);
    let dir = std::env::temp_dir().join(format!("bench-close-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    println!("| CLI's descendants | median | max | grace |");
    println!("|---|---:|---:|---:|");
    for (name, line) in CASES {
        let script = dir.join("cli.sh");
        std::fs::write(
            &script,
            format!("#!/bin/sh\n{line}\necho ready\ncat > /dev/null\n"),
        )
        .expect("script");
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o700)).expect("mode");
        let mut times: Vec<Duration> = (0..rounds).map(|_| close_once(&script)).collect();
        times.sort();
        println!(
            "| {name} | {:.1} ms | {:.1} ms | {} ms |",
            times[times.len() / 2].as_secs_f64() * 1e3,
            times[times.len() - 1].as_secs_f64() * 1e3,
            GRACE.as_millis()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Starts the script, waits until it runs, closes its stdin and times the
/// exit report.
fn close_once(script: &std::path::Path) -> Duration {
    let mut spawned = spawn(&Options::default().cli_path(script)).expect("the stand-in starts");
    let mut ready = String::new();
    BufReader::new(&mut spawned.stdout)
        .read_line(&mut ready)
        .expect("ready");
    let (exited, exit) = mpsc::channel();
    spawned
        .process
        .watch_exit(GRACE, move |status| {
            let _ = exited.send(status);
        })
        .expect("the watcher starts");
    let start = Instant::now();
    drop(spawned.stdin);
    exit.recv().expect("the exit").expect("a status");
    start.elapsed()
}
