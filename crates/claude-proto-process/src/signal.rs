//! Signals to the child, its exit status, and reaping a child nobody waits
//! for any more.

use std::process::ExitStatus;

use claude_proto_host::ProcessExit;

/// How the process exited, for the host.
pub fn process_exit(status: ExitStatus) -> ProcessExit {
    #[cfg(unix)]
    let signal = std::os::unix::process::ExitStatusExt::signal(&status);
    #[cfg(not(unix))]
    let signal = None;
    ProcessExit::new(status.code(), signal)
}

/// Asks the process `pid` to terminate (SIGTERM). Only call it for a child
/// that has not been reaped yet, so the pid cannot have been reused.
#[cfg(unix)]
pub fn terminate(pid: u32) -> std::io::Result<()> {
    send(pid, rustix::process::Signal::TERM)
}

/// Asks the process `pid` to terminate. There is no SIGTERM here: the
/// caller goes straight to killing it.
#[cfg(not(unix))]
pub fn terminate(_pid: u32) -> std::io::Result<()> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "no SIGTERM on this platform",
    ))
}

#[cfg(unix)]
fn send(pid: u32, signal: rustix::process::Signal) -> std::io::Result<()> {
    use rustix::process::{Pid, kill_process};
    let pid = i32::try_from(pid)
        .ok()
        .and_then(Pid::from_raw)
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "invalid pid"))?;
    kill_process(pid, signal).map_err(std::io::Error::from)
}
