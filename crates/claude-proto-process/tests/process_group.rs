//! The session owns its process tree: the CLI leads a process group of its
//! own, and when it exits, what it started goes too, even a descendant
//! that ignores SIGTERM or started children of its own. With
//! `own_process_group(false)` they outlive it, as before.
//!
//! The stand-in CLI is a shell script; "gone" means no such process, or a
//! zombie (dead, waiting for a parent to reap it: the test machine's init
//! may never do so).
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers fail loudly by design

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

use claude_proto_process::{Options, spawn};

/// Starts a grandchild that ignores SIGTERM, and one that starts a child
/// of its own; prints their pids and waits for stdin to close.
const SCRIPT: &str = r#"#!/bin/sh
sh -c 'trap "" TERM; exec sleep 1000' &
first=$!
sh -c 'sleep 1000 & wait' &
second=$!
echo "$first $second"
cat > /dev/null
"#;

mod common;
use common::Scratch;

fn scratch(name: &str) -> Scratch {
    Scratch::with_cli("group", name, SCRIPT)
}

/// Alive: it exists and is not a zombie.
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            stat.rfind(')')
                .map(|at| stat[at + 1..].trim_start().starts_with(['Z', 'X']))
        })
        .is_some_and(|dead| !dead)
}

/// Waits (bounded, polling) until `pid` is gone; whether it is.
fn gone_within(pid: u32, bound: Duration) -> bool {
    let deadline = std::time::Instant::now() + bound;
    while alive(pid) {
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    true
}

/// Every process whose parent is `pid` (its children).
fn children_of(pid: u32) -> Vec<u32> {
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

/// Runs the stand-in CLI, ends it by closing its stdin, and returns the
/// pids it started (and theirs), once its exit is reported.
fn run_and_close(options: Options) -> Vec<u32> {
    let mut spawned = spawn(&options).expect("the stand-in starts");
    let mut line = String::new();
    BufReader::new(&mut spawned.stdout)
        .read_line(&mut line)
        .unwrap();
    let mut pids: Vec<u32> = line
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    // The second one's own child (it may take a moment to be forked).
    let second = pids[1];
    let grandchild = loop {
        if let Some(&pid) = children_of(second).first() {
            break pid;
        }
        std::thread::yield_now();
    };
    pids.push(grandchild);
    assert!(pids.iter().all(|&p| alive(p)), "the descendants run");
    let (exited, exit) = mpsc::channel();
    spawned
        .process
        .watch_exit(Duration::from_millis(300), move |status| {
            let _ = exited.send(status);
        })
        .unwrap();
    drop(spawned.stdin);
    exit.recv()
        .expect("the exit is reported")
        .expect("a status");
    pids
}

#[test]
fn what_the_cli_started_is_gone_when_its_exit_is_reported() {
    let scratch = scratch("own");
    let pids = run_and_close(Options::default().cli_path(scratch.0.join("cli.sh")));
    for pid in pids {
        assert!(!alive(pid), "{pid} outlived the session");
    }
}

#[test]
fn without_a_group_of_its_own_the_descendants_live_on() {
    let scratch = scratch("shared");
    let pids = run_and_close(
        Options::default()
            .cli_path(scratch.0.join("cli.sh"))
            .own_process_group(false),
    );
    assert!(
        pids.iter().all(|&p| alive(p)),
        "today's behaviour, asked for"
    );
    for pid in pids {
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status();
    }
}

#[test]
fn dropping_the_handle_ends_the_whole_group() {
    let scratch = scratch("drop");
    let mut spawned = spawn(&Options::default().cli_path(scratch.0.join("cli.sh"))).unwrap();
    let mut line = String::new();
    BufReader::new(&mut spawned.stdout)
        .read_line(&mut line)
        .unwrap();
    let pids: Vec<u32> = line
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    let leader = spawned.process.id();
    drop(spawned);
    // The group is ended in the background (SIGTERM, then SIGKILL for the
    // grandchild that ignores it): a bounded wait for a state change.
    for pid in pids.into_iter().chain([leader]) {
        assert!(gone_within(pid, BOUND), "{pid} survived the handle");
    }
}

/// Generous: the grace of the default limits is 5 s.
const BOUND: Duration = Duration::from_secs(30);

/// Every process of group `pgid`, zombies included.
fn group_with_zombies(pgid: u32) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|stat| {
                    let (_, after) = stat.rsplit_once(')')?;
                    // state, ppid, pgrp
                    after.split_whitespace().nth(2)?.parse::<u32>().ok()
                })
                == Some(pgid)
        })
        .collect()
}

/// A handle dropped while the CLI runs, the CLI going at the first
/// SIGTERM: once its group holds nothing but the watchdog, the CLI is
/// reaped and the watchdog is gone with its `sleep`, not even a zombie
/// left, however long the grace (ten minutes here, far beyond the bound
/// waited): the grace is only for a member that ignores SIGTERM, and the
/// watchdog does not count itself.
#[test]
fn a_dropped_handle_whose_group_empties_at_sigterm_ends_at_once() {
    const LONG_GRACE: Duration = Duration::from_secs(600);
    // It does not read its stdin (which the drop closes first): it goes
    // only at the SIGTERM the drop sends.
    let scratch = Scratch::with_cli(
        "group",
        "empties",
        "#!/bin/sh\necho ready\nexec sleep 1000\n",
    );
    let mut spawned = spawn(&Options::default().cli_path(scratch.cli())).unwrap();
    let mut line = String::new();
    BufReader::new(&mut spawned.stdout)
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line.trim(), "ready");
    let leader = spawned.process.id();
    let (exited, exit) = mpsc::channel();
    spawned
        .process
        .watch_exit(LONG_GRACE, move |status| {
            let _ = exited.send(status);
        })
        .unwrap();
    assert!(
        group_with_zombies(leader).len() >= 2,
        "the CLI and its watchdog"
    );
    drop(spawned);
    let status = exit.recv_timeout(BOUND).expect("the exit is reported");
    use std::os::unix::process::ExitStatusExt as _;
    assert_eq!(status.unwrap().signal(), Some(15));
    let deadline = std::time::Instant::now() + BOUND;
    let mut left = group_with_zombies(leader);
    while !left.is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(2));
        left = group_with_zombies(leader);
    }
    assert!(
        left.is_empty(),
        "the group outlived the drop, waiting out a grace of {LONG_GRACE:?}: {left:?}"
    );
}

/// Dropping the handle asks the CLI to stop (SIGTERM) before it kills it:
/// the real CLI starts its Bash commands in sessions of their own, out of
/// reach of a group signal, and ends them itself only when asked to stop.
/// The stand-in does the same with a `setsid` child.
#[test]
fn dropping_the_handle_lets_the_cli_end_what_left_its_group() {
    // The pid is told once the child leads its own session (field 6 of
    // its stat) and the trap can name it; a trap interrupts `wait` at once.
    const ASKS_TO_STOP: &str = r#"#!/bin/sh
trap 'kill $outside; exit 0' TERM
setsid sleep 1000 &
outside=$!
until [ "$(cut -d' ' -f6 /proc/$outside/stat)" = "$outside" ]; do :; done
echo "$outside"
sleep 1000 &
wait
"#;
    let scratch = Scratch::with_cli("group", "outside", ASKS_TO_STOP);
    let mut spawned = spawn(&Options::default().cli_path(scratch.0.join("cli.sh"))).unwrap();
    let mut line = String::new();
    BufReader::new(&mut spawned.stdout)
        .read_line(&mut line)
        .unwrap();
    let outside: u32 = line.trim().parse().unwrap();
    let leader = spawned.process.id();
    assert!(alive(outside));
    drop(spawned);
    assert!(gone_within(leader, BOUND), "the CLI survived the handle");
    assert!(
        gone_within(outside, BOUND),
        "what the CLI started outside its group survived: it was killed, not asked to stop"
    );
}

const INNER: &str = "CLAUDE_PROTO_GROUP_TEST_INNER";

/// In a test's inner run: starts the stand-in CLI of `dir` and prints the
/// pids of the CLI and its two descendants on a `pids` line.
fn start_and_report(dir: std::ffi::OsString) -> claude_proto_process::Spawned {
    let cli = PathBuf::from(dir).join("cli.sh");
    let mut spawned = spawn(&Options::default().cli_path(cli)).unwrap();
    let mut line = String::new();
    BufReader::new(&mut spawned.stdout)
        .read_line(&mut line)
        .unwrap();
    println!("pids {} {}", spawned.process.id(), line.trim());
    spawned
}

/// The pids an inner run printed (the harness may print the test's name
/// on the same line); empty if it printed none.
fn reported_pids(out: impl BufRead) -> Vec<u32> {
    for line in out.lines() {
        let line = line.unwrap();
        if let Some((_, rest)) = line.split_once("pids ") {
            return rest
                .split_whitespace()
                .map(|p| p.parse().unwrap())
                .collect();
        }
    }
    Vec::new()
}

/// Our own process killed with SIGKILL (no drop, no cleanup of ours runs):
/// the group's watchdog sees its pipe close and ends the CLI and what it
/// started.
#[test]
fn a_sigkill_of_our_process_ends_the_cli_and_what_it_started() {
    if let Some(dir) = std::env::var_os(INNER) {
        // The inner run: start the stand-in, report the pids, wait to die.
        let _spawned = start_and_report(dir);
        loop {
            std::thread::park();
        }
    }
    let scratch = scratch("sigkill");
    let mut inner = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "a_sigkill_of_our_process_ends_the_cli_and_what_it_started",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(INNER, &scratch.0)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pids = reported_pids(BufReader::new(inner.stdout.take().unwrap()));
    assert_eq!(pids.len(), 3, "the CLI and its two descendants");
    assert!(pids.iter().all(|&p| alive(p)));
    inner.kill().unwrap();
    inner.wait().unwrap();
    for pid in pids {
        assert!(gone_within(pid, BOUND), "{pid} outlived our process");
    }
}

const DROP_THEN_EXIT: &str = "CLAUDE_PROTO_GROUP_TEST_DROP_THEN_EXIT";

/// A handle dropped right before our process exits normally (the end of a
/// `main` that never closed its session): the drop cannot wait for the
/// grace, so the group's watchdog, which outlives us, carries the sequence
/// out, and even the descendant that ignores SIGTERM is gone.
#[test]
fn a_handle_dropped_as_our_process_exits_still_ends_the_group() {
    if let Some(dir) = std::env::var_os(DROP_THEN_EXIT) {
        drop(start_and_report(dir));
        std::process::exit(0);
    }
    let scratch = scratch("drop-then-exit");
    let inner = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "a_handle_dropped_as_our_process_exits_still_ends_the_group",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(DROP_THEN_EXIT, &scratch.0)
        .output()
        .unwrap();
    let pids = reported_pids(&inner.stdout[..]);
    assert_eq!(
        pids.len(),
        3,
        "the CLI and its two descendants: {}",
        String::from_utf8_lossy(&inner.stdout)
    );
    for pid in pids {
        assert!(gone_within(pid, BOUND), "{pid} outlived our process");
    }
}
