//! The in-process scripted CLI's streams: one in-memory byte pipe per
//! direction, bounded in bytes.
//!
//! Not a socket pair: a socket's write wakes its reader with the
//! scheduler's "sync" hint, which puts the woken thread on the writer's
//! CPU, so the program and the scripted CLI often took turns on one
//! core. A pipe here wakes a blocked thread with a futex and an async
//! reader with its waker, neither of which carries that hint, and moves
//! bytes without a system call (BENCHMARKS.md has the figures: Earlier
//! results, "Replaying a 100 MB cassette, and the replay's pipes").

use std::io::{self, Read, Write};
#[cfg(any(feature = "tokio", feature = "async-std"))]
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::task::Waker;
#[cfg(any(feature = "tokio", feature = "async-std"))]
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

/// The bytes a pipe holds before its writer waits for the reader, about a
/// Unix socket's default buffer.
pub(crate) const PIPE_CAPACITY: usize = 256 * 1024;

/// How long the scripted CLI's read keeps looking (yielding its CPU
/// between looks) before it sleeps. A replay's round trips are short: the
/// program usually answers within this, and a thread put to sleep takes
/// tens of microseconds more to wake (a futex wake and, in a virtual
/// machine, an interrupt between CPUs). Measured with the pipes that came
/// with it (BENCHMARKS.md, Earlier results, "Replaying a 100 MB cassette,
/// and the replay's pipes"): the tokio replay of a 100 MB cassette went
/// from 496-577k messages/s on socket pairs to 768-800k, the blocking one
/// from 309-370k to 580-594k. The program's async
/// reads poll again for as long ([`PipeReader`]'s `poll_read_soon`); its
/// blocking reads never spin: a blocking session's own threads need the
/// CPUs (spinning there took its replay down to 210-290k).
pub(crate) const SPIN: Duration = Duration::from_micros(100);

/// Whether spinning can help: only with another CPU for the other side to
/// run on. Asked once (it reads the process's CPU set).
pub(crate) fn can_spin() -> bool {
    static CAN_SPIN: OnceLock<bool> = OnceLock::new();
    *CAN_SPIN.get_or_init(|| std::thread::available_parallelism().is_ok_and(|n| n.get() > 1))
}

/// A look before sleeping: until [`SPIN`] has passed, a waiter yields its
/// CPU and checks again instead of going to sleep. Empty (over at once) on
/// a machine with one CPU, or when not wanted. The one place that decides
/// it, for the pipes' blocking waits and the CLI binary's loop.
#[derive(Clone, Copy)]
pub(crate) struct Look {
    until: Option<Instant>,
}

impl Look {
    /// A look starting at `now`, if `wanted` and it can help.
    pub(crate) fn start(wanted: bool, now: Instant) -> Look {
        Look {
            until: (wanted && can_spin()).then(|| now + SPIN),
        }
    }

    /// Whether the look still lasts at `now`: then yield the CPU (not a
    /// bare spin, so a thread of the other side sharing this CPU runs
    /// meanwhile) and check again.
    pub(crate) fn lasts(&self, now: Instant) -> bool {
        self.until.is_some_and(|until| now < until)
    }
}

/// Which side of a pipe waits.
#[derive(Clone, Copy)]
enum Side {
    Reader,
    Writer,
}

/// A pipe of at most `capacity` bytes: its writing and reading ends.
pub(crate) fn pipe(capacity: usize) -> (PipeWriter, PipeReader) {
    let shared = Arc::new(Pipe {
        state: Mutex::new(State {
            bytes: Vec::new(),
            start: 0,
            capacity: capacity.max(1),
            write_closed: false,
            read_closed: false,
            reader_waker: None,
            writer_waker: None,
            reader_blocked: false,
            writer_blocked: false,
        }),
        readable: Condvar::new(),
        writable: Condvar::new(),
    });
    (
        PipeWriter {
            pipe: PipeHandle(shared.clone()),
        },
        PipeReader {
            pipe: PipeHandle(shared),
            #[cfg(any(feature = "tokio", feature = "async-std"))]
            empty_since: None,
        },
    )
}

struct Pipe {
    state: Mutex<State>,
    /// A blocked reader waits here for bytes or an end.
    readable: Condvar,
    /// A blocked writer waits here for room or an end.
    writable: Condvar,
}

struct State {
    /// Held bytes are `bytes[start..]`: a read moves `start`, a write
    /// appends (after moving the held bytes to the front if that makes
    /// room), so both are one copy.
    bytes: Vec<u8>,
    start: usize,
    capacity: usize,
    /// Nothing more will be written: reads take what is held, then end.
    write_closed: bool,
    /// Nothing more will be read: what is held is dropped, reads end and
    /// writes fail.
    read_closed: bool,
    reader_waker: Option<Waker>,
    writer_waker: Option<Waker>,
    /// A thread waits on `readable` (so a write has someone to notify).
    reader_blocked: bool,
    /// A thread waits on `writable`.
    writer_blocked: bool,
}

/// Whom to wake once the lock is released: an async task, a blocked
/// thread, or both.
#[must_use]
struct Wake {
    waker: Option<Waker>,
    thread: bool,
}

impl State {
    /// Bytes into `buf`, or `None` when the reader must wait.
    fn take(&mut self, buf: &mut [u8]) -> Option<usize> {
        if buf.is_empty() {
            return Some(0);
        }
        let held = &self.bytes[self.start..];
        if held.is_empty() {
            return (self.write_closed || self.read_closed).then_some(0);
        }
        let n = held.len().min(buf.len());
        buf[..n].copy_from_slice(&held[..n]);
        self.start += n;
        if self.start == self.bytes.len() {
            self.bytes.clear();
            self.start = 0;
        }
        Some(n)
    }

    /// Bytes from `data` (as many as there is room for), or `None` when
    /// the writer must wait.
    fn put(&mut self, data: &[u8]) -> Option<io::Result<usize>> {
        if self.read_closed || self.write_closed {
            return Some(Err(closed()));
        }
        let room = self.capacity - self.held();
        if data.is_empty() {
            return Some(Ok(0));
        }
        if room == 0 {
            return None;
        }
        let n = room.min(data.len());
        if self.bytes.len() + n > self.capacity {
            self.bytes.drain(..self.start);
            self.start = 0;
        }
        let needed = self.bytes.len() + n;
        if needed > self.bytes.capacity() {
            // Doubling, as a `Vec` grows, but never past the capacity.
            let grown = needed.max(self.bytes.capacity() * 2).min(self.capacity);
            self.bytes.reserve_exact(grown - self.bytes.len());
        }
        self.bytes.extend_from_slice(&data[..n]);
        Some(Ok(n))
    }

    fn held(&self) -> usize {
        self.bytes.len() - self.start
    }

    fn wake_reader(&mut self) -> Wake {
        Wake {
            waker: self.reader_waker.take(),
            thread: std::mem::take(&mut self.reader_blocked),
        }
    }

    fn wake_writer(&mut self) -> Wake {
        Wake {
            waker: self.writer_waker.take(),
            thread: std::mem::take(&mut self.writer_blocked),
        }
    }
}

fn closed() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "the other end is closed")
}

fn timed_out() -> io::Error {
    io::Error::new(io::ErrorKind::TimedOut, "the pipe's wait timed out")
}

/// A shared handle on a pipe: closes either end from any thread (the run
/// stopping the scripted CLI's thread, which owns the ends).
#[derive(Clone)]
pub(crate) struct PipeHandle(Arc<Pipe>);

impl PipeHandle {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.0.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn wake(&self, readers: Wake, writers: Wake) {
        for (wake, condvar) in [(readers, &self.0.readable), (writers, &self.0.writable)] {
            if let Some(waker) = wake.waker {
                waker.wake();
            }
            if wake.thread {
                condvar.notify_all();
            }
        }
    }

    /// Ends the reading side: held bytes are dropped, a blocked read
    /// returns 0, writes fail with `BrokenPipe`.
    pub(crate) fn close_read(&self) {
        let (readers, writers) = {
            let mut state = self.lock();
            state.read_closed = true;
            state.bytes = Vec::new();
            state.start = 0;
            (state.wake_reader(), state.wake_writer())
        };
        self.wake(readers, writers);
    }

    /// Ends the writing side: reads take what is held, then return 0; a
    /// blocked write fails with `BrokenPipe`.
    pub(crate) fn close_write(&self) {
        let (readers, writers) = {
            let mut state = self.lock();
            state.write_closed = true;
            (state.wake_reader(), state.wake_writer())
        };
        self.wake(readers, writers);
    }

    /// Reads, waiting at most `timeout` (`None`: without limit) for bytes
    /// or the end; `TimedOut` when the wait runs out.
    fn read(&self, buf: &mut [u8], timeout: Option<Duration>, spin: bool) -> io::Result<usize> {
        self.block(Side::Reader, timeout, spin, |state| {
            let n = state.take(buf)?;
            Some((Ok(n), state.wake_writer()))
        })
    }

    /// Writes some of `data`, waiting at most `timeout` for room.
    fn write(&self, data: &[u8], timeout: Option<Duration>) -> io::Result<usize> {
        self.block(Side::Writer, timeout, false, |state| {
            let written = state.put(data)?;
            let wake = match written {
                Ok(n) if n > 0 => state.wake_reader(),
                _ => Wake::none(),
            };
            Some((written, wake))
        })
    }

    /// Runs `attempt` until it makes progress (it returns the outcome and
    /// whom to wake on the other side), waiting at most `timeout`: first,
    /// if `spin`, a [`Look`] (up to [`SPIN`], with more than one CPU), then
    /// asleep on `side`'s condition variable.
    fn block<T>(
        &self,
        side: Side,
        timeout: Option<Duration>,
        spin: bool,
        mut attempt: impl FnMut(&mut State) -> Option<(io::Result<T>, Wake)>,
    ) -> io::Result<T> {
        let mut state = self.lock();
        let mut waits: Option<(Look, Option<Instant>)> = None;
        loop {
            if let Some((outcome, wake)) = attempt(&mut state) {
                drop(state);
                match side {
                    Side::Reader => self.wake(Wake::none(), wake),
                    Side::Writer => self.wake(wake, Wake::none()),
                }
                return outcome;
            }
            let now = Instant::now();
            let (look, until) = *waits.get_or_insert_with(|| {
                // A time-out past what an `Instant` can hold is none.
                (
                    Look::start(spin, now),
                    timeout.and_then(|t| now.checked_add(t)),
                )
            });
            let left = until.map(|until| until.saturating_duration_since(now));
            if left.is_some_and(|left| left.is_zero()) {
                return Err(timed_out());
            }
            if look.lasts(now) {
                drop(state);
                std::thread::yield_now();
                state = self.lock();
                continue;
            }
            let condvar = match side {
                Side::Reader => {
                    state.reader_blocked = true;
                    &self.0.readable
                }
                Side::Writer => {
                    state.writer_blocked = true;
                    &self.0.writable
                }
            };
            state = match left {
                None => condvar.wait(state).unwrap_or_else(PoisonError::into_inner),
                Some(left) => {
                    condvar
                        .wait_timeout(state, left)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0
                }
            };
            // Woken, timed out or spurious: a new wait sets it again.
            match side {
                Side::Reader => state.reader_blocked = false,
                Side::Writer => state.writer_blocked = false,
            }
        }
    }

    #[cfg(any(feature = "tokio", feature = "async-std"))]
    fn poll_read(&self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        let mut state = self.lock();
        match state.take(buf) {
            Some(n) => {
                let writers = state.wake_writer();
                drop(state);
                self.wake(Wake::none(), writers);
                Poll::Ready(Ok(n))
            }
            None => {
                register(&mut state.reader_waker, cx);
                Poll::Pending
            }
        }
    }

    #[cfg(any(feature = "tokio", feature = "async-std"))]
    fn poll_write(&self, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        let mut state = self.lock();
        match state.put(data) {
            Some(written) => {
                let readers = match written {
                    Ok(n) if n > 0 => state.wake_reader(),
                    _ => Wake::none(),
                };
                drop(state);
                self.wake(readers, Wake::none());
                Poll::Ready(written)
            }
            None => {
                register(&mut state.writer_waker, cx);
                Poll::Pending
            }
        }
    }
}

impl Wake {
    fn none() -> Wake {
        Wake {
            waker: None,
            thread: false,
        }
    }
}

#[cfg(any(feature = "tokio", feature = "async-std"))]
fn register(slot: &mut Option<Waker>, cx: &Context<'_>) {
    match slot {
        Some(waker) if waker.will_wake(cx.waker()) => {}
        _ => *slot = Some(cx.waker().clone()),
    }
}

/// The reading end of an in-process pipe: the program reads the scripted
/// CLI's output from it. It is a blocking [`Read`], and with the crate's
/// features an async reader for tokio (`tokio::io::AsyncRead`) and for
/// async-std and smol (`futures_io::AsyncRead`).
///
/// A read returns 0 once the scripted CLI has closed its output and every
/// byte it wrote was read. Dropping it closes it: the scripted CLI's
/// writes then fail, as a CLI's do when the program stops reading.
///
/// An async read that finds the pipe empty asks to be polled again at once
/// for up to 100 µs (on a machine with more than one CPU) before it lets
/// the runtime sleep until bytes come: the scripted CLI usually answers
/// sooner than a sleeping runtime wakes. The runtime's other tasks run
/// meanwhile.
pub struct PipeReader {
    pipe: PipeHandle,
    /// Since when async reads have found the pipe empty, and when one last
    /// did.
    #[cfg(any(feature = "tokio", feature = "async-std"))]
    empty_since: Option<(Instant, Instant)>,
}

/// The writing end of an in-process pipe: the program writes the scripted
/// CLI's input to it. It is a blocking [`Write`], and with the crate's
/// features an async writer for tokio and for async-std and smol.
///
/// A write waits while the pipe holds 256 KiB the scripted CLI has not
/// read. It fails with `BrokenPipe` once the scripted CLI's thread has
/// ended or its run is stopped; after a hang step the thread stays, so
/// that is when its [`ScriptRun`](crate::ScriptRun) is waited for or
/// dropped. Dropping the writer, or shutting it down, closes it: the
/// scripted CLI sees its input end.
pub struct PipeWriter {
    pipe: PipeHandle,
}

impl std::fmt::Debug for PipeReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PipeReader").finish_non_exhaustive()
    }
}

impl std::fmt::Debug for PipeWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PipeWriter").finish_non_exhaustive()
    }
}

impl PipeReader {
    /// An async read. For up to [`SPIN`] after it first finds the pipe
    /// empty (with more than one CPU), it asks to be polled again at once
    /// as well as when bytes come: the runtime then runs its other tasks
    /// and comes back instead of going to sleep, which in a replay costs
    /// more than the scripted CLI takes to answer. Measured: the tokio
    /// replay of a 100 MB cassette went from 727-792k to 870-933k
    /// messages/s with it (BENCHMARKS.md, Earlier results, "Replaying a
    /// 100 MB cassette, and the replay's pipes").
    #[cfg(any(feature = "tokio", feature = "async-std"))]
    fn poll_read_soon(&mut self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        match self.pipe.poll_read(cx, buf) {
            Poll::Pending => {
                if can_spin() {
                    let now = Instant::now();
                    // A read that comes back later than a look would (its
                    // future was dropped, say) starts a new wait.
                    let since = match self.empty_since {
                        Some((since, last)) if now.duration_since(last) < SPIN => since,
                        _ => now,
                    };
                    self.empty_since = Some((since, now));
                    if now.duration_since(since) < SPIN {
                        cx.waker().wake_by_ref();
                    }
                }
                Poll::Pending
            }
            ready => {
                self.empty_since = None;
                ready
            }
        }
    }

    /// A handle that closes this end from elsewhere.
    pub(crate) fn handle(&self) -> PipeHandle {
        self.pipe.clone()
    }

    /// Reads, waiting at most `timeout` (`None`: without limit);
    /// `TimedOut` when the wait runs out. It spins a little before it
    /// sleeps ([`SPIN`]): the scripted CLI's reads, which wait for the
    /// program's answers.
    pub(crate) fn read_timeout(
        &mut self,
        buf: &mut [u8],
        timeout: Option<Duration>,
    ) -> io::Result<usize> {
        self.pipe.read(buf, timeout, true)
    }
}

impl PipeWriter {
    /// A handle that closes this end from elsewhere.
    pub(crate) fn handle(&self) -> PipeHandle {
        self.pipe.clone()
    }

    /// Writes all of `batch`, waiting at most `timeout` in all for room;
    /// `TimedOut` when the wait runs out. `batch` is left empty, with room
    /// to fill again. When the pipe is empty and `batch`'s allocation is
    /// within the pipe's capacity, the two buffers trade places instead of
    /// a copy (a replay writes each burst to a pipe the program has
    /// drained); so the pipe never holds more than its capacity, in bytes
    /// or in allocation.
    pub(crate) fn write_batch(&mut self, batch: &mut Vec<u8>, timeout: Duration) -> io::Result<()> {
        if !batch.is_empty() {
            let mut state = self.pipe.lock();
            if state.held() == 0
                && batch.capacity() <= state.capacity
                && !state.read_closed
                && !state.write_closed
            {
                std::mem::swap(&mut state.bytes, batch);
                state.start = 0;
                let readers = state.wake_reader();
                drop(state);
                self.pipe.wake(readers, Wake::none());
                batch.clear();
                return Ok(());
            }
        }
        let written = self.write_all_timeout(batch, timeout);
        batch.clear();
        written
    }

    /// Writes all of `data`, waiting at most `timeout` in all for room;
    /// `TimedOut` when the wait runs out.
    pub(crate) fn write_all_timeout(
        &mut self,
        mut data: &[u8],
        timeout: Duration,
    ) -> io::Result<()> {
        // A deadline past what an `Instant` can hold is no deadline.
        let until = Instant::now().checked_add(timeout);
        while !data.is_empty() {
            let left = until.map(|until| {
                until
                    .saturating_duration_since(Instant::now())
                    .max(Duration::from_nanos(1))
            });
            let n = self.pipe.write(data, left)?;
            data = &data[n..];
        }
        Ok(())
    }

    /// Closes this end: the reader takes what is held, then sees the end.
    pub(crate) fn close(&self) {
        self.pipe.close_write();
    }
}

impl Drop for PipeReader {
    fn drop(&mut self) {
        self.pipe.close_read();
    }
}

impl Drop for PipeWriter {
    fn drop(&mut self) {
        self.pipe.close_write();
    }
}

impl Read for PipeReader {
    /// Waits for bytes or the end, without limit.
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.pipe.read(buf, None, false)
    }
}

impl Write for PipeWriter {
    /// Waits for room, without limit.
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.pipe.write(data, None)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(feature = "tokio")]
impl ::tokio::io::AsyncRead for PipeReader {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ::tokio::io::ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let unfilled = buf.initialize_unfilled();
        match self.get_mut().poll_read_soon(cx, unfilled) {
            Poll::Ready(Ok(n)) => {
                buf.advance(n);
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => Poll::Pending,
        }
    }
}

#[cfg(feature = "tokio")]
impl ::tokio::io::AsyncWrite for PipeWriter {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.pipe.poll_write(cx, data)
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.close();
        Poll::Ready(Ok(()))
    }
}

#[cfg(feature = "async-std")]
impl futures_io::AsyncRead for PipeReader {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().poll_read_soon(cx, buf)
    }
}

#[cfg(feature = "async-std")]
impl futures_io::AsyncWrite for PipeWriter {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.pipe.poll_write(cx, data)
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_close(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.close();
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests;
