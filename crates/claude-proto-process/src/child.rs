//! A child process waited for on one thread and signalled from others.

use std::io;
use std::process::{Child, ExitStatus};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// A [`Child`] that one thread waits for while others may send it SIGTERM
/// or SIGKILL, without ever signalling a reaped (and possibly reused) pid.
///
/// [`wait`](Self::wait) first waits for the exit *without reaping* the
/// child (`waitid` with `WNOWAIT`), then reaps it under a lock;
/// [`terminate`](Self::terminate) and [`kill`](Self::kill) signal under the
/// same lock only while it has not been reaped. So a signal reaches either
/// the child or its zombie, never a stranger. Behind every adapter's
/// [`ProcessHandle`](crate::ProcessHandle).
///
/// On Windows the group is a Job Object (see [`job`]): what the CLI
/// starts is in it, and closing it ends them all.
#[derive(Debug)]
pub(crate) struct SharedChild {
    pid: u32,
    /// The child leads a process group of its own (pgid = pid): signals go
    /// to the group, and the group is ended when the child exits. On
    /// Windows: the child is to be put in a Job Object of its own (`job`
    /// says whether it was).
    group: bool,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    child: Child,
    status: Option<ExitStatus>,
    /// The group's watchdog (see [`group::watchdog`]), reaped with the child.
    watchdog: Option<Child>,
    /// The child's Job Object: closing it (dropping it) kills every process
    /// still in it. It is this process's only handle to it, so the job is
    /// also closed, and its processes killed, when this process dies.
    #[cfg(windows)]
    job: Option<job::Job>,
}

impl State {
    /// Keeps the reaped child's status. On Windows, closes its job: what
    /// the CLI left goes as soon as its exit is known, whoever learns it
    /// first (the exit watcher, a drop, a kill).
    fn record_exit(&mut self, status: ExitStatus) {
        self.status = Some(status);
        #[cfg(windows)]
        drop(self.job.take());
    }
}

impl SharedChild {
    /// Wraps a spawned child (take its pipes first); `group` if it was
    /// started as the leader of a process group of its own (on Windows:
    /// if it is to be put in a Job Object of its own, which happens here).
    pub(crate) fn new(child: Child, group: bool) -> Self {
        let pid = child.id();
        #[cfg(unix)]
        let watchdog = group.then(|| group::watchdog(pid)).flatten();
        #[cfg(not(unix))]
        let watchdog = None;
        #[cfg(windows)]
        let job = group.then(|| job::contain(&child)).flatten();
        Self {
            pid,
            group,
            state: Mutex::new(State {
                #[cfg(windows)]
                job,
                child,
                status: None,
                watchdog,
            }),
        }
    }

    /// The child's process id.
    pub(crate) fn id(&self) -> u32 {
        self.pid
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Blocks until the child exits, ends what is left of its process group
    /// (see [`group::end`]; `grace` between SIGTERM and SIGKILL), reaps it
    /// and returns its status. Call it from one thread at a time.
    pub(crate) fn wait(&self, grace: std::time::Duration) -> io::Result<ExitStatus> {
        if let Some(status) = self.lock().status {
            return Ok(status);
        }
        let unreaped = wait_unreaped(self)?;
        if self.group && unreaped {
            // The child is a zombie, not yet reaped: its pid, which is the
            // group's id, cannot be given to another process meanwhile.
            let watchdog = self.lock().watchdog.as_ref().map(Child::id);
            group::end(self.pid, grace, watchdog);
        }
        let mut state = self.lock();
        // The rest of the group is gone (or, without a group end on this
        // platform, the session is over): the watchdog's work is done. It
        // goes before the child is reaped, so an exit reported is the whole
        // group gone.
        if let Some(watchdog) = state.watchdog.take() {
            group::stop_watchdog(watchdog);
        }
        // Windows has no SIGTERM to give what is left a grace: closing the
        // job (in `record_exit`) kills it, before the exit is reported.
        let status = state.child.wait()?;
        state.record_exit(status);
        Ok(status)
    }

    /// Whether the child has exited, without reaping it.
    pub(crate) fn has_exited(&self) -> bool {
        let mut state = self.lock();
        if state.status.is_some() {
            return true;
        }
        exited_unreaped(self.pid, &mut state)
    }

    /// Waits at most `grace` for the child to exit (without reaping it);
    /// whether it did.
    pub(crate) fn exits_within(&self, grace: std::time::Duration) -> bool {
        let deadline = std::time::Instant::now() + grace;
        loop {
            if self.has_exited() {
                return true;
            }
            if std::time::Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    /// Hands the end of the group to its watchdog, which outlives this
    /// process: SIGTERM now, SIGKILL after `grace` (rounded up to whole
    /// seconds). `false` if there is no watchdog to hand it to (no group of
    /// its own, none started, or the child already reaped): then it is the
    /// caller's to end.
    pub(crate) fn hand_over(&self, grace: std::time::Duration) -> bool {
        use std::io::Write as _;
        let mut state = self.lock();
        if state.status.is_some() {
            return false;
        }
        let Some(mut pipe) = state.watchdog.as_mut().and_then(|w| w.stdin.take()) else {
            return false;
        };
        let seconds = grace.as_secs() + u64::from(grace.subsec_nanos() > 0);
        // Closing the pipe is what starts the sequence; a failed write
        // leaves the default grace.
        let _ = writeln!(pipe, "{seconds}");
        true
    }

    /// Sends SIGTERM (to its group, if it leads one) unless the child has
    /// been reaped (then nothing to do).
    #[cfg(not(windows))]
    pub(crate) fn terminate(&self) -> io::Result<()> {
        let state = self.lock();
        if state.status.is_some() {
            return Ok(());
        }
        #[cfg(unix)]
        if self.group {
            return group::signal(self.pid, rustix::process::Signal::TERM);
        }
        crate::terminate(self.pid)
    }

    /// Windows has no SIGTERM, and no other way to ask a console program
    /// without a console to stop: this kills, as Node's `kill('SIGTERM')`
    /// does for the official SDKs.
    #[cfg(windows)]
    pub(crate) fn terminate(&self) -> io::Result<()> {
        self.kill()
    }

    /// Kills the child (SIGKILL; its group, if it leads one; on Windows,
    /// everything in its job) unless it has been reaped.
    pub(crate) fn kill(&self) -> io::Result<()> {
        let mut state = self.lock();
        if state.status.is_some() {
            // Reaped, its job closed with the exit: nothing left to kill.
            return Ok(());
        }
        #[cfg(unix)]
        if self.group {
            return group::signal(self.pid, rustix::process::Signal::KILL);
        }
        let killed = state.child.kill();
        #[cfg(windows)]
        drop(state.job.take());
        killed
    }
}

/// The Windows counterpart of the process group and its watchdog: a Job
/// Object with kill-on-close. Every process the CLI starts is in it
/// (Windows 8 and later nest jobs, so this holds inside a job of the
/// caller's too), unless started with breakaway, which the job does not
/// allow. Closing the job's handle kills them all; the handle is this
/// process's alone (not inherited), so it is closed when the session ends
/// it and, like the watchdog's pipe, when this process dies however
/// abruptly.
///
/// The child is put in the job right after it starts, as std gives no
/// safe way to start a child suspended: a process it started before that
/// would be outside the job. A window, not a guarantee: the CLI starts
/// its MCP servers, hooks and tools after a start-up far longer than the
/// assignment takes.
#[cfg(windows)]
mod job {
    use std::os::windows::io::AsRawHandle as _;
    use std::process::Child;

    pub(super) use win32job::Job;

    /// A job with kill-on-close holding `child`; `None` (logged) if one
    /// cannot be made: the session runs without that protection, as on
    /// Unix without a watchdog.
    pub(super) fn contain(child: &Child) -> Option<Job> {
        let mut limits = win32job::ExtendedLimitInfo::new();
        limits.limit_kill_on_job_close();
        let contained = Job::create_with_limit_info(&limits).and_then(|job| {
            job.assign_process(child.as_raw_handle() as isize)?;
            Ok(job)
        });
        match contained {
            Ok(job) => Some(job),
            Err(error) => {
                let step = error.to_string();
                let cause = std::io::Error::from(error);
                crate::log::warn(format_args!(
                    "no job object for the CLI (what it starts may outlive the session): {step}: {cause}"
                ));
                None
            }
        }
    }
}

/// Seeing the child's exit without reaping it (`waitid` with `WNOWAIT`),
/// where the platform has it: so the pid, which is also the group's id,
/// cannot be given to another process while the group is being ended.
#[cfg(any(
    target_os = "linux",
    target_os = "android",
    target_os = "macos",
    target_os = "ios",
    target_os = "freebsd",
    target_os = "netbsd",
    target_os = "dragonfly",
    target_os = "illumos",
    target_os = "solaris"
))]
mod unreaped {
    use std::io;

    use super::{SharedChild, State};

    /// Waits until the child has exited, leaving it waitable.
    pub(super) fn wait_unreaped(child: &SharedChild) -> io::Result<bool> {
        use rustix::process::{Pid, WaitId, WaitIdOptions, waitid};
        let pid = i32::try_from(child.pid)
            .ok()
            .and_then(Pid::from_raw)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "invalid pid"))?;
        loop {
            match waitid(
                WaitId::Pid(pid),
                WaitIdOptions::EXITED | WaitIdOptions::NOWAIT,
            ) {
                Ok(_) => return Ok(true),
                Err(rustix::io::Errno::INTR) => continue,
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// Whether the child has exited, leaving it waitable.
    pub(super) fn exited_unreaped(pid: u32, _: &mut State) -> bool {
        use rustix::process::{Pid, WaitId, WaitIdOptions, waitid};
        let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) else {
            return true;
        };
        loop {
            match waitid(
                WaitId::Pid(pid),
                WaitIdOptions::EXITED | WaitIdOptions::NOWAIT | WaitIdOptions::NOHANG,
            ) {
                Ok(found) => return found.is_some(),
                Err(rustix::io::Errno::INTR) => continue,
                // Not our child (any more): nothing left to wait for.
                Err(_) => return true,
            }
        }
    }
}

/// Elsewhere an exit is only seen by reaping it.
#[cfg(not(any(
    target_os = "linux",
    target_os = "android",
    target_os = "macos",
    target_os = "ios",
    target_os = "freebsd",
    target_os = "netbsd",
    target_os = "dragonfly",
    target_os = "illumos",
    target_os = "solaris"
)))]
mod unreaped {
    use std::io;

    use super::{SharedChild, State};

    /// Elsewhere there is no waiting without reaping: poll instead, reaping
    /// under the lock (so the group, if any, is not ended: its id may be
    /// reused once the child is reaped).
    pub(super) fn wait_unreaped(child: &SharedChild) -> io::Result<bool> {
        loop {
            {
                let mut state = child.lock();
                if let Some(status) = state.child.try_wait()? {
                    state.record_exit(status);
                    return Ok(false);
                }
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// Elsewhere an exit is only seen by reaping (there are no process groups
    /// to end there, see [`wait_unreaped`]).
    pub(super) fn exited_unreaped(_: u32, state: &mut State) -> bool {
        match state.child.try_wait() {
            Ok(Some(status)) => {
                state.record_exit(status);
                true
            }
            Ok(None) => false,
            Err(_) => true,
        }
    }
}

use unreaped::{exited_unreaped, wait_unreaped};

/// A process group the CLI leads: signalling it, and ending what is left
/// of it once the CLI has exited.
#[cfg(unix)]
mod group {
    use std::io;
    use std::time::{Duration, Instant};

    use rustix::process::{Pid, Signal, kill_process_group};

    /// Sends `signal` to the group `pgid`; a group already empty is not an
    /// error.
    pub(super) fn signal(pgid: u32, signal: Signal) -> io::Result<()> {
        let pid = i32::try_from(pgid)
            .ok()
            .and_then(Pid::from_raw)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "invalid pid"))?;
        match kill_process_group(pid, signal) {
            Ok(()) | Err(rustix::io::Errno::SRCH) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// Ends the group `pgid` whose leader has exited (unreaped): SIGTERM,
    /// then, while a member is still alive and at most `grace`, waits;
    /// then SIGKILL. A group already empty ends at once, and so does one
    /// whose members all go at SIGTERM: the grace is waited only for a
    /// member that outstays it. The group's `watchdog` (and what it runs)
    /// is not counted: it is this session's own, ended by the caller once
    /// the rest is gone (see [`stop_watchdog`]). Where the members cannot
    /// be counted (neither `/proc` nor `ps`), SIGKILL follows SIGTERM at
    /// once.
    pub(super) fn end(pgid: u32, grace: Duration, watchdog: Option<u32>) {
        let living = || living_members(pgid, watchdog);
        if living() == Some(0) {
            return;
        }
        let _ = signal(pgid, Signal::TERM);
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline && living().is_some_and(|n| n > 0) {
            std::thread::sleep(COUNT_INTERVAL);
        }
        if living() == Some(0) {
            return;
        }
        let _ = signal(pgid, Signal::KILL);
        // SIGKILL is not refused, but the kernel takes a moment to carry it
        // out; wait for that, so an exit reported is a group gone (a
        // process stuck in the kernel is left after a bound).
        let deadline = Instant::now() + KILLED_DEADLINE;
        while Instant::now() < deadline && living().is_some_and(|n| n > 0) {
            std::thread::sleep(KILLED_INTERVAL);
        }
    }

    /// Ends the group's watchdog once the rest of the group is gone, and
    /// reaps it. Before the hand-over it waits in `read` with no child of
    /// its own: SIGKILL. After it, it may be sleeping out the grace in a
    /// child `sleep`: SIGUSR1, on which it ends that child, reaps it and
    /// exits (a SIGUSR1 that comes before its trap is set ends it before
    /// it has started the child). Either way nothing of it is left, not
    /// even an orphan for init to reap.
    pub(super) fn stop_watchdog(mut watchdog: std::process::Child) {
        let handed_over = watchdog.stdin.is_none();
        let pid = i32::try_from(watchdog.id()).ok().and_then(Pid::from_raw);
        match pid {
            // Unreaped (it is reaped below), so the pid is still its own.
            Some(pid) if handed_over => {
                let _ = rustix::process::kill_process(pid, Signal::USR1);
            }
            _ => {
                let _ = watchdog.kill();
            }
        }
        let _ = watchdog.wait();
    }

    /// Starts the group's watchdog: a shell in the group whose stdin is a
    /// pipe only this process writes to (never: it is closed on exec in
    /// every other child). When this process dies, however abruptly (a
    /// SIGKILL, a crash), the pipe closes, the read ends and the watchdog
    /// ends its own group: the CLI and everything it started get SIGTERM
    /// (the CLI then ends what it started outside the group, such as its
    /// Bash commands), and SIGKILL after [`WATCHDOG_GRACE`]. Only then does
    /// the watchdog ignore SIGTERM: until then it is part of the group, so
    /// ending the group ends it. `None` (logged) if it cannot be started:
    /// the session runs without that protection.
    ///
    /// The same sequence ends a dropped session ([`SharedChild::hand_over`]):
    /// this process writes the grace in whole seconds and closes the pipe,
    /// and the watchdog, which outlives this process, carries it out. While
    /// this process lives, whoever waits for the CLI ends the watchdog as
    /// soon as the rest of the group is gone ([`stop_watchdog`]), so the
    /// grace is waited out only for a member that ignores SIGTERM.
    pub(super) fn watchdog(pgid: u32) -> Option<std::process::Child> {
        use std::os::unix::process::CommandExt as _;
        use std::process::{Command, Stdio};
        let pgid = i32::try_from(pgid).ok()?;
        // SIGUSR1 (from `stop_watchdog`) ends the grace early: it kills
        // the `sleep`, if one was started (`$!` is empty before), reaps it
        // and exits. SIGKILL, as the `sleep` inherits the ignored SIGTERM.
        // A trapped signal interrupts `wait` at once, which it would not a
        // foreground `sleep`.
        let script = format!(
            "read -r grace || :; case $grace in ''|*[!0-9]*) grace={};; esac; \
             trap '' TERM; trap 'kill -KILL $! 2>/dev/null; wait; exit 0' USR1; \
             kill -TERM 0; sleep \"$grace\" & wait $!; kill -KILL 0",
            WATCHDOG_GRACE.as_secs()
        );
        let started = Command::new("/bin/sh")
            .args(["-c", &script])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(pgid)
            .spawn();
        match started {
            Ok(child) => Some(child),
            Err(error) => {
                crate::log::warn(format_args!(
                    "no watchdog for the CLI's process group (it will not be ended if this process is killed): {error}"
                ));
                None
            }
        }
    }

    /// How long the watchdog waits between SIGTERM and SIGKILL once this
    /// process has died: the default `term_grace` of the host's limits.
    const WATCHDOG_GRACE: Duration = Duration::from_secs(5);

    /// Between two counts of the group's members: reading `/proc` is cheap,
    /// starting `ps` is not.
    const COUNT_INTERVAL: Duration = if cfg!(any(target_os = "linux", target_os = "android")) {
        Duration::from_millis(5)
    } else {
        Duration::from_millis(50)
    };

    /// Between two counts while SIGKILL is carried out.
    const KILLED_INTERVAL: Duration = if cfg!(any(target_os = "linux", target_os = "android")) {
        Duration::from_millis(1)
    } else {
        COUNT_INTERVAL
    };

    /// How long processes that got SIGKILL may take to be gone.
    const KILLED_DEADLINE: Duration = Duration::from_secs(2);

    /// How many processes of the group are alive (zombies do not count:
    /// they are dead, waiting for a parent to reap them), leaving out
    /// `except` and its children (the watchdog and its `sleep`); `None`
    /// where this cannot be known.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub(super) fn living_members(pgid: u32, except: Option<u32>) -> Option<usize> {
        let entries = std::fs::read_dir("/proc").ok()?;
        let mut living = 0;
        for entry in entries.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            // `pid (comm) state ppid pgrp ...`; comm may hold anything, so
            // read after its last `)`.
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
                continue;
            };
            let Some(after) = stat.rfind(')').map(|at| &stat[at + 1..]) else {
                continue;
            };
            let mut fields = after.split_whitespace();
            let (Some(state), Some(ppid), Some(group)) =
                (fields.next(), fields.next(), fields.next())
            else {
                continue;
            };
            let excepted = except
                .is_some_and(|except| pid == except || ppid.parse::<u32>().ok() == Some(except));
            if group.parse::<u32>().ok() == Some(pgid) && state != "Z" && state != "X" && !excepted
            {
                living += 1;
            }
        }
        Some(living)
    }

    /// Where there is no `/proc` (macOS, the BSDs), `ps` counts them.
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    pub(super) fn living_members(pgid: u32, except: Option<u32>) -> Option<usize> {
        ps::living_members(pgid, except)
    }

    /// Counting a group's members with the POSIX `ps`, for systems without
    /// `/proc`. Built on Linux too, so its tests compare it with `/proc`
    /// there.
    #[cfg(any(test, not(any(target_os = "linux", target_os = "android"))))]
    pub(super) mod ps {
        use std::process::{Command, Stdio};

        /// As `living_members` does with `/proc`; `None` if `ps` cannot be
        /// run or its table cannot be read.
        pub(crate) fn living_members(pgid: u32, except: Option<u32>) -> Option<usize> {
            // Where macOS and the BSDs have it; not looked up in PATH.
            let table = Command::new("/bin/ps")
                .args([
                    "-A", "-o", "pid=", "-o", "ppid=", "-o", "pgid=", "-o", "stat=",
                ])
                .stdin(Stdio::null())
                .stderr(Stdio::null())
                .output()
                .ok()
                .filter(|out| out.status.success())?
                .stdout;
            count(std::str::from_utf8(&table).ok()?, pgid, except)
        }

        /// The living members of `pgid` in a `pid ppid pgid stat` table,
        /// leaving out `except` and its children; `None` if a row does not
        /// read as one.
        pub(crate) fn count(table: &str, pgid: u32, except: Option<u32>) -> Option<usize> {
            let mut living = 0;
            for row in table.lines().filter(|row| !row.trim().is_empty()) {
                let mut fields = row.split_whitespace();
                let mut number = || fields.next()?.parse::<u32>().ok();
                let (pid, ppid, group) = (number()?, number()?, number()?);
                let state = fields.next()?;
                let excepted = except.is_some_and(|except| pid == except || ppid == except);
                if group == pgid && !state.starts_with(['Z', 'X']) && !excepted {
                    living += 1;
                }
            }
            Some(living)
        }
    }
}

/// No process groups here (on Windows, see [`job`]).
#[cfg(not(unix))]
mod group {
    pub(super) fn end(_pgid: u32, _grace: std::time::Duration, _watchdog: Option<u32>) {}

    pub(super) fn stop_watchdog(mut watchdog: std::process::Child) {
        let _ = watchdog.kill();
        let _ = watchdog.wait();
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::process::Command;
    use std::sync::Arc;

    #[test]
    fn kill_from_another_thread_ends_a_wait() {
        let child = Arc::new(SharedChild::new(
            Command::new("sleep").arg("1000").spawn().expect("sleep"),
            false,
        ));
        let waiter = {
            let child = child.clone();
            std::thread::spawn(move || child.wait(std::time::Duration::ZERO))
        };
        child.terminate().expect("terminate");
        let status = waiter.join().expect("join").expect("status");
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(15));
        // Reaped: signalling is now a no-op, not an error.
        child.kill().expect("kill after reaping");
        child.terminate().expect("terminate after reaping");
    }

    /// macOS's `ps` table as the group count reads it: zombies and the
    /// watchdog (with its `sleep`) are not members that keep the grace.
    #[test]
    fn a_ps_table_is_counted_as_the_group_end_needs() {
        let table = "  501     1   501 Ss\n  502   501   501 S+\n  503   501   501 Z\n  \
                     504   501   501 R+\n  505   501   501 S\n  506   505   501 S\n  \
                     507     1   900 S\n";
        assert_eq!(group::ps::count(table, 501, None), Some(5));
        // 505 is the watchdog and 506 its sleep.
        assert_eq!(group::ps::count(table, 501, Some(505)), Some(3));
        assert_eq!(group::ps::count(table, 900, None), Some(1));
        assert_eq!(group::ps::count("", 501, None), Some(0));
        assert_eq!(group::ps::count("501 1 five S\n", 501, None), None);
    }

    /// Where there is no `/proc` (macOS), `ps` counts the group: checked
    /// against `/proc` here, on a group of a shell and two of its children.
    #[cfg(target_os = "linux")]
    #[test]
    fn ps_counts_a_process_group_as_proc_does() {
        use std::io::BufRead as _;
        use std::os::unix::process::CommandExt as _;
        use std::process::Stdio;
        let mut leader = Command::new("sh")
            .args(["-c", "sleep 1000 & sleep 1000 & echo started; wait"])
            .stdout(Stdio::piped())
            .process_group(0)
            .spawn()
            .expect("sh");
        let mut line = String::new();
        std::io::BufReader::new(leader.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("started");
        let pgid = leader.id();
        let from_proc = group::living_members(pgid, None);
        let from_ps = group::ps::living_members(pgid, None);
        let leaving_out_the_shell = (
            group::living_members(pgid, Some(pgid)),
            group::ps::living_members(pgid, Some(pgid)),
        );
        group::signal(pgid, rustix::process::Signal::KILL).expect("kill the group");
        leader.wait().expect("reap");
        assert_eq!(from_proc, Some(3));
        assert_eq!(from_ps, from_proc);
        assert_eq!(leaving_out_the_shell, (Some(0), Some(0)));
    }
}

/// The Job Object at work: run on Windows, and under Wine in CI
/// (`.ci/wine.sh`). The test binary plays every process (see
/// [`helper`](windows_tests::helper)); a grandchild that shares the CLI's
/// stdout keeps it open while it lives, so the pipe's end is the proof
/// that everything the CLI started is gone.
#[cfg(all(test, windows))]
mod windows_tests {
    use super::*;
    use std::io::{BufRead as _, Read as _, Write as _};
    use std::process::{Command, Stdio};
    use std::sync::mpsc;
    use std::time::Duration;

    const ROLE: &str = "CLAUDE_PROTO_JOB_TEST_ROLE";

    fn as_helper(role: &str) -> Command {
        let mut command = Command::new(std::env::current_exe().expect("the test binary"));
        command
            .args(["--exact", "child::windows_tests::helper", "--ignored"])
            .args(["--nocapture", "--test-threads=1"])
            .env(ROLE, role)
            // Not the test's: a process left behind by a failure must not
            // hold the runner's output open.
            .stderr(Stdio::null());
        command
    }

    /// Starts the CLI in a job of its own and lets it go on: it waits for
    /// that line, so it starts its grandchild only once it is in the job.
    fn start_in_a_job(role: &str, stdout: Stdio) -> SharedChild {
        let mut child = as_helper(role)
            .stdin(Stdio::piped())
            .stdout(stdout)
            .spawn()
            .expect("the CLI");
        let mut go = child.stdin.take().expect("stdin");
        let child = SharedChild::new(child, true);
        writeln!(go, "go").expect("let the CLI go on");
        child
    }

    /// Not a test: the processes the tests start, by role.
    /// - `cli` waits for a line on stdin, starts a `grandchild` on the same
    ///   stdout, says `ready`, then waits forever (`exiting-cli`: exits);
    /// - `grandchild` waits forever;
    /// - `host` is the user's program: it starts a `cli` in a job on its
    ///   own stdout, then waits forever.
    #[test]
    #[ignore = "a helper the Job Object tests start"]
    fn helper() {
        let role = std::env::var(ROLE).unwrap_or_default();
        match role.as_str() {
            "cli" | "exiting-cli" => {
                let mut go = String::new();
                std::io::stdin().lock().read_line(&mut go).expect("go");
                as_helper("grandchild")
                    .stdout(Stdio::inherit())
                    .spawn()
                    .expect("the grandchild");
                println!("ready");
            }
            "host" => {
                let cli = start_in_a_job("cli", Stdio::inherit());
                // Held until this process is killed.
                std::mem::forget(cli);
            }
            _ => return,
        }
        if role != "exiting-cli" {
            loop {
                std::thread::sleep(Duration::from_secs(3600));
            }
        }
    }

    /// Reads `stdout` to its end on a thread, which reports once `ready`
    /// was read and once the pipe ended.
    fn watch(mut stdout: impl std::io::Read + Send + 'static) -> mpsc::Receiver<&'static str> {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut seen = Vec::new();
            let mut buf = [0u8; 256];
            let mut ready = false;
            while let Ok(n @ 1..) = stdout.read(&mut buf) {
                seen.extend_from_slice(&buf[..n]);
                if !ready && String::from_utf8_lossy(&seen).contains("ready") {
                    ready = true;
                    let _ = tx.send("ready");
                }
            }
            let _ = tx.send("ended");
        });
        rx
    }

    /// A bound on a wait that never ends if the job did not do its work,
    /// so a failure fails rather than hangs.
    const HANG_GUARD: Duration = Duration::from_secs(120);

    fn start(role: &str) -> (SharedChild, mpsc::Receiver<&'static str>) {
        let child = start_in_a_job(role, Stdio::piped());
        let stdout = child.lock().child.stdout.take().expect("stdout");
        (child, watch(stdout))
    }

    #[test]
    fn killing_the_cli_kills_what_it_started() {
        let (child, events) = start("cli");
        assert_eq!(events.recv_timeout(HANG_GUARD), Ok("ready"));
        child.kill().expect("kill");
        assert_eq!(
            events.recv_timeout(HANG_GUARD),
            Ok("ended"),
            "the grandchild outlived the job"
        );
        child.wait(Duration::ZERO).expect("reaped");
    }

    #[test]
    fn what_the_cli_left_is_killed_when_it_exits() {
        let (child, events) = start("exiting-cli");
        assert_eq!(events.recv_timeout(HANG_GUARD), Ok("ready"));
        let status = child.wait(Duration::ZERO).expect("the CLI's exit");
        assert!(status.success(), "{status:?}");
        assert_eq!(
            events.recv_timeout(HANG_GUARD),
            Ok("ended"),
            "the grandchild outlived the CLI's exit"
        );
    }

    /// The user's program killed (TerminateProcess, as a crash or Task
    /// Manager would): Windows closes its handles, the job's among them,
    /// and the CLI and its grandchild go with it.
    #[test]
    fn the_cli_and_what_it_started_die_with_the_program_that_started_it() {
        let mut host = as_helper("host")
            .stdout(Stdio::piped())
            .spawn()
            .expect("the host");
        let events = watch(host.stdout.take().expect("stdout"));
        assert_eq!(events.recv_timeout(HANG_GUARD), Ok("ready"));
        host.kill().expect("kill the host");
        host.wait().expect("reap the host");
        assert_eq!(
            events.recv_timeout(HANG_GUARD),
            Ok("ended"),
            "the CLI or its grandchild outlived the program"
        );
    }
}
