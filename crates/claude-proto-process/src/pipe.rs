//! Pipes whose blocked reads and writes another thread can end.
//!
//! A thread blocked in `read(2)` on the CLI's stdout stays blocked for as
//! long as any process holds the pipe's write end: a grandchild of the CLI
//! that inherited it keeps the thread, and the pipe's fd, forever. The same
//! goes for a `write(2)` to a stdin nobody reads. So here our end of each
//! pipe is non-blocking, and a read or write that would block waits in
//! `poll(2)` on the pipe *and* on a wake socket; [`Stop::stop`] (or
//! dropping the [`Stop`]) sets a flag and closes the socket's other end,
//! which makes it readable for good, so every call blocked now or later
//! returns an error for which [`is_stopped`] is `true`. The thread then
//! drops its pipe, closing the fd. While data flows, no `poll(2)` is
//! made: one syscall per chunk, as with a blocking pipe.
//!
//! Non-blocking mode is set on our end only: the CLI's end of a pipe is
//! another file description.
//!
//! The wake channel is a `UnixStream` pair: std creates it close-on-exec,
//! so a CLI spawned meanwhile by another session cannot inherit it (a plain
//! `pipe(2)` would need `pipe2` with `O_CLOEXEC`, which not every Unix has).
//!
//! Elsewhere than Unix the wrappers only forward: nothing can end a
//! blocked read there, and the thread stays until the pipe closes. On
//! Windows that is when the session ends: every process that could hold
//! the pipe is in the CLI's Job Object, which the end of the session
//! kills (unless `Options::own_process_group` is off).

use std::io::{self, Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// What a pipe must offer to be waited on: its file descriptor on Unix,
/// nothing elsewhere.
#[cfg(unix)]
pub trait PipeFd: std::os::fd::AsFd {}
#[cfg(unix)]
impl<T: std::os::fd::AsFd> PipeFd for T {}

/// What a pipe must offer to be waited on: its file descriptor on Unix,
/// nothing elsewhere.
#[cfg(not(unix))]
pub trait PipeFd {}
#[cfg(not(unix))]
impl<T> PipeFd for T {}

/// Ends the blocked reads and writes of every pipe wrapped with it, when
/// stopped or dropped.
#[derive(Debug)]
pub struct Stop {
    #[cfg(unix)]
    wake: Option<std::os::unix::net::UnixStream>,
    watch: Arc<Watch>,
}

/// What the wrapped pipes watch: the flag, and the socket that wakes
/// their polls.
#[derive(Debug)]
struct Watch {
    stopped: AtomicBool,
    #[cfg(unix)]
    socket: std::os::unix::net::UnixStream,
}

impl Watch {
    fn check(&self) -> io::Result<()> {
        if self.stopped.load(Ordering::Acquire) {
            return Err(io::Error::other(Stopped));
        }
        Ok(())
    }
}

/// A pipe to read from until it ends or its [`Stop`] is stopped.
#[derive(Debug)]
pub struct StoppableRead<R> {
    inner: R,
    watch: Arc<Watch>,
}

/// A pipe to write to until it breaks or its [`Stop`] is stopped.
#[derive(Debug)]
pub struct StoppableWrite<W> {
    inner: W,
    watch: Arc<Watch>,
}

#[derive(Debug)]
struct Stopped;

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the pipe was stopped")
    }
}

impl std::error::Error for Stopped {}

/// `true` if `error` says the pipe's [`Stop`] was stopped.
pub fn is_stopped(error: &io::Error) -> bool {
    error.get_ref().is_some_and(|inner| inner.is::<Stopped>())
}

#[cfg(unix)]
impl Stop {
    /// A new stop (two sockets).
    pub fn new() -> io::Result<Self> {
        let (wake, socket) = std::os::unix::net::UnixStream::pair()?;
        Ok(Self {
            wake: Some(wake),
            watch: Arc::new(Watch {
                stopped: AtomicBool::new(false),
                socket,
            }),
        })
    }

    /// Ends every blocked and future read and write of the pipes wrapped
    /// with this stop.
    pub fn stop(&mut self) {
        self.watch.stopped.store(true, Ordering::Release);
        self.wake = None;
    }

    /// Wraps a pipe to read from, switching it to non-blocking mode.
    pub fn reader<R: Read + PipeFd>(&self, inner: R) -> io::Result<StoppableRead<R>> {
        rustix::io::ioctl_fionbio(&inner, true)?;
        Ok(StoppableRead {
            inner,
            watch: self.watch.clone(),
        })
    }

    /// Wraps a pipe to write to, switching it to non-blocking mode.
    pub fn writer<W: Write + PipeFd>(&self, inner: W) -> io::Result<StoppableWrite<W>> {
        rustix::io::ioctl_fionbio(&inner, true)?;
        Ok(StoppableWrite {
            inner,
            watch: self.watch.clone(),
        })
    }
}

impl Drop for Stop {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(not(unix))]
impl Stop {
    /// A new stop.
    pub fn new() -> io::Result<Self> {
        Ok(Self {
            watch: Arc::new(Watch {
                stopped: AtomicBool::new(false),
            }),
        })
    }

    /// Ends the reads and writes not yet blocked (nothing can end a
    /// blocked one here).
    pub fn stop(&mut self) {
        self.watch.stopped.store(true, Ordering::Release);
    }

    /// Wraps a pipe to read from.
    pub fn reader<R: Read + PipeFd>(&self, inner: R) -> io::Result<StoppableRead<R>> {
        Ok(StoppableRead {
            inner,
            watch: self.watch.clone(),
        })
    }

    /// Wraps a pipe to write to.
    pub fn writer<W: Write + PipeFd>(&self, inner: W) -> io::Result<StoppableWrite<W>> {
        Ok(StoppableWrite {
            inner,
            watch: self.watch.clone(),
        })
    }
}

/// Waits until `pipe` is ready for `flags` or the stop happened (an
/// error).
#[cfg(unix)]
fn wait(
    pipe: &impl std::os::fd::AsFd,
    flags: rustix::event::PollFlags,
    watch: &Watch,
) -> io::Result<()> {
    use rustix::event::{PollFd, PollFlags, poll};
    loop {
        let mut fds = [
            PollFd::new(pipe, flags),
            PollFd::new(&watch.socket, PollFlags::IN),
        ];
        match poll(&mut fds, None) {
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        }
        if !fds[1].revents().is_empty() {
            return Err(io::Error::other(Stopped));
        }
        // Ready, hung up or failed: the read or write says which.
        if !fds[0].revents().is_empty() {
            return Ok(());
        }
    }
}

impl<R: Read + PipeFd> Read for StoppableRead<R> {
    #[cfg(unix)]
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            // Checked first: a pipe someone keeps full must not keep a
            // stopped reader going.
            self.watch.check()?;
            match self.inner.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    wait(&self.inner, rustix::event::PollFlags::IN, &self.watch)?;
                }
                other => return other,
            }
        }
    }

    #[cfg(not(unix))]
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.watch.check()?;
        self.inner.read(buf)
    }
}

impl<W: Write + PipeFd> Write for StoppableWrite<W> {
    #[cfg(unix)]
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        loop {
            self.watch.check()?;
            match self.inner.write(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    wait(&self.inner, rustix::event::PollFlags::OUT, &self.watch)?;
                }
                other => return other,
            }
        }
    }

    #[cfg(not(unix))]
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.watch.check()?;
        self.inner.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::net::UnixStream;

    #[test]
    fn a_stop_ends_a_blocked_read_and_write() {
        let mut stop = Stop::new().expect("stop");
        // Nobody ever writes to `held` or reads from it: like a pipe a
        // grandchild keeps open.
        let (ours, held) = UnixStream::pair().expect("pair");
        let mut reader = stop
            .reader(ours.try_clone().expect("clone"))
            .expect("reader");
        let mut writer = stop.writer(ours).expect("writer");
        let read = std::thread::spawn(move || reader.read(&mut [0; 16]));
        let write = std::thread::spawn(move || {
            let chunk = vec![0u8; 64 * 1024];
            loop {
                writer.write_all(&chunk)?;
            }
        });
        stop.stop();
        let read = read.join().expect("join").expect_err("stopped");
        let write: io::Result<()> = write.join().expect("join");
        assert!(is_stopped(&read), "{read}");
        assert!(is_stopped(&write.expect_err("stopped")));
        drop(held);
    }

    #[test]
    fn data_and_end_pass_through() {
        let stop = Stop::new().expect("stop");
        let (ours, mut theirs) = UnixStream::pair().expect("pair");
        let mut reader = stop.reader(ours).expect("reader");
        theirs.write_all(b"hi").expect("write");
        drop(theirs);
        let mut text = String::new();
        reader.read_to_string(&mut text).expect("read");
        assert_eq!(text, "hi");
    }
}
