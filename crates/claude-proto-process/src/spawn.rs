//! Starting the CLI and watching it until it is reaped, the same way for
//! every runtime.
//!
//! The child is a plain [`std::process::Child`]: its exit is waited for on
//! one small thread (which reaps it), and its pipes are handed to the
//! adapter to wrap in its runtime's async types (or to read on threads).
//! Runtimes' own child types are not used because they reap through a
//! runtime-wide reaper that stops with the runtime: a session dropped
//! after its runtime left a zombie.

use std::io;
use std::path::PathBuf;
use std::process::{ChildStderr, ChildStdin, ChildStdout, ExitStatus};
use std::sync::Arc;

use claude_proto::options::Options;
use claude_proto_host::SpawnError;

use crate::child::SharedChild;
use crate::command::{Launch, build_command};
use crate::log;
use crate::private::PrivateDir;

/// A started CLI: its pipes and a handle to its process.
#[derive(Debug)]
#[non_exhaustive]
pub struct Spawned {
    /// The executable that was started.
    pub program: PathBuf,
    /// The CLI's stdin.
    pub stdin: ChildStdin,
    /// The CLI's stdout.
    pub stdout: ChildStdout,
    /// The CLI's stderr.
    pub stderr: ChildStderr,
    /// The process.
    pub process: ProcessHandle,
}

/// Locates and starts the CLI for `options` with all three streams piped.
pub fn spawn(options: &Options) -> Result<Spawned, SpawnError> {
    let Launch {
        program,
        mut command,
        private_files,
        own_process_group,
        ..
    } = build_command(options)?;
    let mut child = retry_while_busy(|| command.spawn(), std::thread::sleep).map_err(|source| {
        SpawnError::Spawn {
            program: program.clone(),
            source,
        }
    })?;
    log::debug(format_args!(
        "spawned {} as pid {}",
        program.display(),
        child.id()
    ));
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        kill_and_reap(child);
        return Err(SpawnError::Io(io::Error::other(
            "the child's standard streams were not piped",
        )));
    };
    Ok(Spawned {
        program,
        stdin,
        stdout,
        stderr,
        process: ProcessHandle {
            child: Arc::new(SharedChild::new(child, own_process_group)),
            term_grace: claude_proto_host::Limits::default().term_grace,
            _private_files: private_files,
        },
    })
}

/// How often a start refused with "text file busy" is tried again, and the
/// first pause between tries (doubling: about 0.5 s in all).
const BUSY_TRIES: u32 = 9;
const BUSY_FIRST_PAUSE: std::time::Duration = std::time::Duration::from_millis(1);

/// Runs `start` again while it fails with `ExecutableFileBusy` (ETXTBSY),
/// at most [`BUSY_TRIES`] times, pausing with `pause` between tries.
///
/// Why: a launcher script written just before it is started (a wrapper
/// around the CLI, a test's stand-in) is refused while any process holds
/// it open for writing, and in a program with threads one that forks at
/// the moment the script is written holds that write descriptor until it
/// executes its own program. The refusal lasts that short window, so a
/// few short pauses outlast it; a file that stays open for writing still
/// fails, after about half a second.
fn retry_while_busy<T>(
    mut start: impl FnMut() -> io::Result<T>,
    mut pause: impl FnMut(std::time::Duration),
) -> io::Result<T> {
    let mut wait = BUSY_FIRST_PAUSE;
    let mut tries = 1;
    loop {
        match start() {
            Err(error)
                if error.kind() == io::ErrorKind::ExecutableFileBusy && tries < BUSY_TRIES =>
            {
                log::debug(format_args!("the CLI's executable is busy; trying again"));
                pause(wait);
                wait *= 2;
                tries += 1;
            }
            outcome => return outcome,
        }
    }
}

/// The CLI process: signal it, and learn of its exit.
///
/// Dropping the handle ends the process if it has not exited yet, as a
/// close would, without blocking: SIGTERM at once (to its group, when it
/// leads one), SIGKILL once the grace given to
/// [`watch_exit`](Self::watch_exit) is over (the default `term_grace` of
/// [`Limits`](claude_proto_host::Limits) without one). The SIGTERM first
/// matters: the CLI starts its Bash commands outside its process group and
/// ends them only when it is asked to stop, never when it is killed. With
/// a group of its own, the group's watchdog carries the sequence out, so it
/// completes even if this process exits right after the drop; without one,
/// a thread of this process does. The process is reaped (by the exit
/// watcher, or by that thread), so nothing is left behind however a
/// session ends. On Windows, where there is no SIGTERM, the drop kills
/// the CLI and everything in its Job Object at once.
#[derive(Debug)]
pub struct ProcessHandle {
    child: Arc<SharedChild>,
    /// Between SIGTERM and SIGKILL when the handle is dropped.
    term_grace: std::time::Duration,
    /// What the CLI's arguments point at; removed with the handle, after
    /// the process is killed (the CLI read them when it started).
    _private_files: Option<PrivateDir>,
}

impl ProcessHandle {
    /// The process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Starts the thread that waits for the exit, reaps the process and
    /// calls `on_exit` with its status (once). The thread ends with the
    /// process, which dropping this handle guarantees.
    ///
    /// When the CLI runs in a process group of its own
    /// ([`Options::own_process_group`]), what is left of the group when
    /// the CLI has exited gets SIGTERM, then SIGKILL if it is still there
    /// after `descendants_grace`, before `on_exit` is called: so an exit
    /// reported is a whole session gone. On Windows what is left of the
    /// CLI's Job Object is killed at once.
    ///
    /// The same grace separates SIGTERM from SIGKILL when the handle is
    /// dropped while the CLI runs.
    pub fn watch_exit(
        &mut self,
        descendants_grace: std::time::Duration,
        on_exit: impl FnOnce(io::Result<ExitStatus>) + Send + 'static,
    ) -> io::Result<()> {
        self.term_grace = descendants_grace;
        let child = self.child.clone();
        std::thread::Builder::new()
            .name("claude-proto-exit".into())
            .spawn(move || on_exit(child.wait(descendants_grace)))
            .map(drop)
    }

    /// SIGTERM, to the CLI's whole process group when it has one (a no-op
    /// once the process is reaped). On Windows, which has no SIGTERM, the
    /// same as [`kill`](Self::kill).
    pub fn terminate(&self) -> io::Result<()> {
        self.child.terminate()
    }

    /// SIGKILL, to the CLI's whole process group when it has one (on
    /// Windows, everything in its Job Object); a no-op once the process is
    /// reaped.
    pub fn kill(&self) -> io::Result<()> {
        self.child.kill()
    }
}

impl Drop for ProcessHandle {
    fn drop(&mut self) {
        let watched = Arc::strong_count(&self.child) > 1;
        let running = !self.child.has_exited();
        if !running && watched {
            // The watcher reaps it and ends what is left of its group.
            return;
        }
        if running && !self.child.hand_over(self.term_grace) {
            // The session is going away without having seen the exit, and
            // no watchdog can end the group for it.
            let _ = self.child.terminate();
        }
        let child = self.child.clone();
        let grace = self.term_grace;
        let ender = std::thread::Builder::new()
            .name("claude-proto-reaper".into())
            .spawn(move || {
                if running && !child.exits_within(grace) {
                    let _ = child.kill();
                }
                if !watched {
                    // Nobody else reaps it. The session is gone: no grace
                    // for what it started.
                    let _ = child.wait(std::time::Duration::ZERO);
                }
            });
        if let Err(error) = ender {
            // No thread: no grace either, but nothing outlives the handle.
            let _ = self.child.kill();
            log::warn(format_args!(
                "could not start a thread to end the CLI; killed it at once: {error}"
            ));
        }
    }
}

/// Kills and reaps a child that never became a session.
fn kill_and_reap(mut child: std::process::Child) {
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn busy() -> io::Error {
        io::Error::from(io::ErrorKind::ExecutableFileBusy)
    }

    #[test]
    fn a_start_refused_as_busy_is_tried_again_until_it_succeeds() {
        let mut refusals = 3;
        let mut pauses = Vec::new();
        let outcome = retry_while_busy(
            || {
                if refusals == 0 {
                    return Ok("started");
                }
                refusals -= 1;
                Err(busy())
            },
            |wait| pauses.push(wait),
        );
        assert_eq!(outcome.unwrap(), "started");
        let millis: Vec<u128> = pauses.iter().map(|p| p.as_millis()).collect();
        assert_eq!(millis, [1, 2, 4]);
    }

    #[test]
    fn a_file_that_stays_busy_fails_after_a_bounded_number_of_tries() {
        let mut tries = 0;
        let mut paused = std::time::Duration::ZERO;
        let outcome: io::Result<()> = retry_while_busy(
            || {
                tries += 1;
                Err(busy())
            },
            |wait| paused += wait,
        );
        assert_eq!(
            outcome.unwrap_err().kind(),
            io::ErrorKind::ExecutableFileBusy
        );
        assert_eq!(tries, BUSY_TRIES);
        assert!(paused < std::time::Duration::from_secs(1), "{paused:?}");
    }

    #[test]
    fn other_failures_are_not_tried_again() {
        let mut tries = 0;
        let outcome: io::Result<()> = retry_while_busy(
            || {
                tries += 1;
                Err(io::Error::from(io::ErrorKind::NotFound))
            },
            |_| panic!("no pause for a missing file"),
        );
        assert_eq!(outcome.unwrap_err().kind(), io::ErrorKind::NotFound);
        assert_eq!(tries, 1);
    }
}
