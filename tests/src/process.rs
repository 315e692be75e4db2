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
