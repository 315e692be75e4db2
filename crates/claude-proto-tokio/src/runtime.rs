//! The tokio side of the session: where its tasks run, its timer and
//! clock, and the child's pipes on tokio's reactor.

use std::io;
use std::pin::Pin;
use std::process::{ChildStderr, ChildStdin, ChildStdout};
use std::task::{Context, Poll, ready};
use std::time::Instant;

use claude_proto_async::{
    BoxFuture, BoxReader, BoxWriter, Connect, ReadBytes, Runtime, WriteBytes,
};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::runtime::Handle;

/// A tokio runtime, by its [`Handle`]: sessions spawn their driver and
/// handlers on it, and register the CLI's pipes and timers with it (so it
/// needs its IO and time drivers: `enable_all()` on a builder, or
/// `#[tokio::main]`).
///
/// Builders take the runtime they are created in; give one explicitly
/// with `ClaudeBuilder::runtime(TokioRuntime::new(handle))` to start
/// sessions from a thread outside it.
#[derive(Debug, Clone)]
pub struct TokioRuntime {
    handle: Handle,
}

impl TokioRuntime {
    /// The runtime behind `handle`.
    pub fn new(handle: Handle) -> Self {
        Self { handle }
    }
}

impl Runtime for TokioRuntime {
    fn current() -> io::Result<Self> {
        Handle::try_current().map(Self::new).map_err(|_| {
            io::Error::other(
                "no tokio runtime: start the session inside one, or give one with \
                 `ClaudeBuilder::runtime(TokioRuntime::new(handle))`",
            )
        })
    }

    fn spawn(&self, future: BoxFuture<()>) {
        // Detached: the session needs no join handle.
        drop(self.handle.spawn(future));
    }

    fn sleep_until(&self, deadline: Instant) -> BoxFuture<()> {
        let _runtime = self.handle.enter();
        Box::pin(tokio::time::sleep_until(deadline.into()))
    }

    fn now(&self) -> Instant {
        // The runtime's clock, which tests may pause.
        let _runtime = self.handle.enter();
        tokio::time::Instant::now().into_std()
    }

    fn stdin(&self, pipe: ChildStdin) -> io::Result<BoxWriter> {
        let _runtime = self.handle.enter();
        Ok(Box::pin(Io::new(tokio::process::ChildStdin::from_std(
            pipe,
        )?)))
    }

    fn stdout(&self, pipe: ChildStdout) -> io::Result<BoxReader> {
        let _runtime = self.handle.enter();
        Ok(Box::pin(Io::new(tokio::process::ChildStdout::from_std(
            pipe,
        )?)))
    }

    fn stderr(&self, pipe: ChildStderr) -> io::Result<BoxReader> {
        let _runtime = self.handle.enter();
        Ok(Box::pin(Io::new(tokio::process::ChildStderr::from_std(
            pipe,
        )?)))
    }
}

/// Any tokio byte-stream pair: a socket, a duplex pipe, an SSH channel.
impl<Rd, Wr> Connect<Rd, Wr> for TokioRuntime
where
    Rd: AsyncRead + Send + 'static,
    Wr: AsyncWrite + Send + 'static,
{
    fn wrap(reader: Rd, writer: Wr) -> (BoxReader, BoxWriter) {
        (Box::pin(Io::new(reader)), Box::pin(Io::new(writer)))
    }
}

/// A tokio reader or writer seen through the session's byte traits.
struct Io<T>(Pin<Box<T>>);

impl<T> Io<T> {
    fn new(inner: T) -> Self {
        Self(Box::pin(inner))
    }
}

impl<T: AsyncRead> ReadBytes for Io<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        let mut buf = ReadBuf::new(buf);
        ready!(self.get_mut().0.as_mut().poll_read(cx, &mut buf))?;
        Poll::Ready(Ok(buf.filled().len()))
    }
}

impl<T: AsyncWrite> WriteBytes for Io<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().0.as_mut().poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().0.as_mut().poll_flush(cx)
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().0.as_mut().poll_shutdown(cx)
    }
}
