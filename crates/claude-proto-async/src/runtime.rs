//! What a session needs from an async runtime: a place to run tasks, a
//! timer, the clock, and the child's pipes as async byte streams.
//!
//! The trait is deliberately small (quinn's `Runtime` is the model): every
//! decision lives in the sans-IO host, the driver only moves bytes and
//! wakes up, so a runtime has to provide nothing else.

use std::io;
use std::pin::Pin;
use std::process::{ChildStderr, ChildStdin, ChildStdout};
use std::task::{Context, Poll};
use std::time::Instant;

/// A boxed, sendable future.
pub use claude_proto_adapter::handlers::BoxFuture;

/// A boxed byte source: the CLI's stdout or stderr.
pub type BoxReader = Pin<Box<dyn ReadBytes + Send>>;

/// A boxed byte sink: the CLI's stdin.
pub type BoxWriter = Pin<Box<dyn WriteBytes + Send>>;

/// An async byte source, the least the driver needs from one. Runtimes'
/// own traits (tokio's `AsyncRead`, futures-io's) are adapted to it by
/// their glue crate, so both fit without this crate depending on either.
pub trait ReadBytes {
    /// Reads into `buf`: `Ready(Ok(0))` at the end of the stream, `Pending`
    /// (with `cx` woken later) when nothing is available yet.
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>>;
}

/// An async byte sink, the least the driver needs from one.
pub trait WriteBytes {
    /// Writes a prefix of `buf`, returning how many bytes were taken.
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>>;

    /// Pushes out anything buffered.
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>>;

    /// Flushes and shuts the sink down (the peer reads end of file once
    /// the sink is also dropped).
    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>>;
}

/// The async runtime a session runs on.
///
/// Implemented by the glue crates (`claude-proto-tokio`'s `TokioRuntime`,
/// `claude-proto-async-std`'s `Runtime`); implement it yourself to run
/// sessions on another executor. Cloned freely: keep it a handle.
pub trait Runtime: Clone + Send + Sync + 'static {
    /// The runtime the calling code runs on, for a builder that was not
    /// given one. Fails if there is none (outside a tokio runtime, say).
    fn current() -> io::Result<Self>;

    /// Runs `future` to completion in the background, detached. The
    /// session's driver and every handler run this way; neither needs the
    /// task to outlive the runtime (a dropped driver kills its process).
    fn spawn(&self, future: BoxFuture<()>);

    /// A future that completes at `deadline` (at once if it has passed).
    fn sleep_until(&self, deadline: Instant) -> BoxFuture<()>;

    /// The current time, on the clock [`sleep_until`](Self::sleep_until)
    /// measures (a runtime with a virtual test clock returns its time).
    fn now(&self) -> Instant {
        Instant::now()
    }

    /// The child's stdin as an async sink on this runtime's reactor.
    fn stdin(&self, pipe: ChildStdin) -> io::Result<BoxWriter>;

    /// The child's stdout as an async source.
    fn stdout(&self, pipe: ChildStdout) -> io::Result<BoxReader>;

    /// The child's stderr as an async source.
    fn stderr(&self, pipe: ChildStderr) -> io::Result<BoxReader>;
}

/// A runtime that can run a session over a byte-stream pair of type `Rd`
/// (what the CLI writes) and `Wr` (what it reads): the glue crates
/// implement it for their runtime's native I/O traits, so
/// [`ClaudeBuilder::connect`](crate::ClaudeBuilder::connect) takes a
/// tokio or futures-io stream as it is.
pub trait Connect<Rd, Wr>: Runtime {
    /// Boxes the pair into the driver's byte traits.
    fn wrap(reader: Rd, writer: Wr) -> (BoxReader, BoxWriter);
}
