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
#[derive(Debug)]
pub(crate) struct SharedChild {
    pid: u32,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    child: Child,
    status: Option<ExitStatus>,
}

impl SharedChild {
    /// Wraps a spawned child (take its pipes first).
    pub(crate) fn new(child: Child) -> Self {
        Self {
            pid: child.id(),
            state: Mutex::new(State {
                child,
                status: None,
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

    /// Blocks until the child exits, reaps it and returns its status. Call
    /// it from one thread at a time.
    pub(crate) fn wait(&self) -> io::Result<ExitStatus> {
        if let Some(status) = self.lock().status {
            return Ok(status);
        }
        wait_unreaped(self)?;
        let mut state = self.lock();
        let status = state.child.wait()?;
        state.status = Some(status);
        Ok(status)
    }

    /// Sends SIGTERM unless the child has been reaped (then nothing to do).
    pub(crate) fn terminate(&self) -> io::Result<()> {
        let state = self.lock();
        if state.status.is_some() {
            return Ok(());
        }
        crate::terminate(self.pid)
    }

    /// Kills the child (SIGKILL) unless it has been reaped.
    pub(crate) fn kill(&self) -> io::Result<()> {
        let mut state = self.lock();
        if state.status.is_some() {
            return Ok(());
        }
        state.child.kill()
    }
}

/// Waits until the child has exited, leaving it waitable.
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
fn wait_unreaped(child: &SharedChild) -> io::Result<()> {
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
            Ok(_) => return Ok(()),
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        }
    }
}

/// Elsewhere there is no waiting without reaping: poll instead, reaping
/// under the lock.
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
fn wait_unreaped(child: &SharedChild) -> io::Result<()> {
    loop {
        {
            let mut state = child.lock();
            if let Some(status) = state.child.try_wait()? {
                state.status = Some(status);
                return Ok(());
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
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
        ));
        let waiter = {
            let child = child.clone();
            std::thread::spawn(move || child.wait())
        };
        child.terminate().expect("terminate");
        let status = waiter.join().expect("join").expect("status");
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(15));
        // Reaped: signalling is now a no-op, not an error.
        child.kill().expect("kill after reaping");
        child.terminate().expect("terminate after reaping");
    }
}
