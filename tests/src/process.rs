//! Is a process still there? Read from `/proc` (Linux).

use std::time::{Duration, Instant};

/// The state letter of `pid` from `/proc/<pid>/stat` (`R`, `S`, `Z`, ...),
/// or `None` if there is no such process.
pub fn state(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may contain spaces.
    let after = stat.rsplit_once(')')?.1;
    after.trim_start().chars().next()
}

/// `true` if `pid` exists and is not a zombie.
pub fn is_running(pid: u32) -> bool {
    matches!(state(pid), Some(s) if s != 'Z')
}

/// Waits until `pid` is gone entirely (exited *and* reaped: no zombie
/// left), checking every few milliseconds up to `limit`. Returns `false`
/// if it is still there at the limit.
///
/// This bounds how long a test waits for a background cleanup; the
/// verdict is about the process table, not about timing.
pub fn wait_until_gone(pid: u32, limit: Duration) -> bool {
    let start = Instant::now();
    loop {
        if state(pid).is_none() {
            return true;
        }
        if start.elapsed() >= limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Waits until `path` no longer exists (a directory a session removes as
/// it ends in the background), checking every few milliseconds up to
/// `limit`. A bound on a background cleanup, not a timing assertion.
pub fn wait_until_removed(path: &std::path::Path, limit: Duration) -> bool {
    let start = Instant::now();
    while path.exists() {
        if start.elapsed() >= limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    true
}

/// Waits until `pid` is no longer running (gone, or a zombie: dead and
/// waiting for a parent to reap it, which for an orphan is init's job),
/// checking every few milliseconds up to `limit`. A bound on a background
/// cleanup, not a timing assertion.
pub fn wait_until_not_running(pid: u32, limit: Duration) -> bool {
    let start = Instant::now();
    while is_running(pid) {
        if start.elapsed() >= limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    true
}

/// What a process holds that a session must give back: open file
/// descriptors and threads (Linux: `/proc/self/fd`, `/proc/self/task`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resources {
    /// Open file descriptors.
    pub fds: usize,
    /// Threads.
    pub threads: usize,
}

/// The test process's open fds and threads now.
pub fn resources() -> Resources {
    let count = |dir: &str| std::fs::read_dir(dir).map(Iterator::count).unwrap_or(0);
    Resources {
        fds: count("/proc/self/fd"),
        threads: count("/proc/self/task"),
    }
}

/// Waits until the process holds no more fds and threads than `before`
/// (threads that finish their work exit on their own, a moment after the
/// session that used them), checking every few milliseconds up to
/// `limit`. Returns the last figures.
///
/// Like [`wait_until_gone`], this bounds how long background cleanup may
/// take; the verdict is the figures.
pub fn settle(before: Resources, limit: Duration) -> Resources {
    let start = Instant::now();
    loop {
        let now = resources();
        if (now.fds <= before.fds && now.threads <= before.threads) || start.elapsed() >= limit {
            return now;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Kills `pid` (SIGKILL, through `kill(1)`), for a grandchild a scenario
/// leaves on purpose.
pub fn kill(pid: u32) {
    let _ = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status();
}

/// The running (not zombie) members of process group `pgid`, read from
/// every `/proc/<pid>/stat` (Linux).
pub fn group_members(pgid: u32) -> Vec<u32> {
    // After the command name: state, ppid, pgrp, session, ...
    with_field(1, pgid, false)
}

/// The running (not zombie) members of session `sid`, read as
/// [`group_members`] reads groups.
pub fn session_members(sid: u32) -> Vec<u32> {
    with_field(2, sid, false)
}

/// The processes whose `/proc/<pid>/stat` field `nth` after the state (0:
/// ppid, 1: pgrp, 2: session) is `id`: the running ones, and with
/// `zombies` the dead ones not yet reaped too.
fn with_field(nth: usize, id: u32, zombies: bool) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            let Some((_, after)) = stat.rsplit_once(')') else {
                return false;
            };
            let mut fields = after.split_whitespace();
            let state = fields.next();
            let value = fields.nth(nth).and_then(|g| g.parse::<u32>().ok());
            value == Some(id) && (zombies || !matches!(state, Some("Z" | "X")))
        })
        .collect()
}

/// Every process of group `pgid`, zombies included, read as
/// [`group_members`] reads it.
pub fn group_members_and_zombies(pgid: u32) -> Vec<u32> {
    with_field(1, pgid, true)
}

/// Waits until no process at all, not even a zombie, is left in group
/// `pgid` (every member exited and was reaped), checking every few
/// milliseconds up to `limit`. Returns what is left at the limit (empty:
/// the group is gone).
pub fn wait_until_group_gone(pgid: u32, limit: Duration) -> Vec<u32> {
    wait_until_none(limit, || group_members_and_zombies(pgid))
}

/// Waits until no running process is left in group `pgid`, checking every
/// few milliseconds up to `limit`. Returns the members still running at
/// the limit (empty: the group is gone).
pub fn wait_until_group_empty(pgid: u32, limit: Duration) -> Vec<u32> {
    wait_until_none(limit, || group_members(pgid))
}

/// Reads `left` every few milliseconds until it is empty or `limit` has
/// passed; returns the last reading.
fn wait_until_none(limit: Duration, left: impl Fn() -> Vec<u32>) -> Vec<u32> {
    let start = Instant::now();
    loop {
        let members = left();
        if members.is_empty() || start.elapsed() >= limit {
            return members;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The process group of `pid`, or `None` if there is no such process.
pub fn group_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = stat.rsplit_once(')')?.1;
    after.split_whitespace().nth(2)?.parse().ok()
}
