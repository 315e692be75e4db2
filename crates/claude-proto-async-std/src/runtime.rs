//! Where the session's tasks run, and the `async-io` reactor that serves
//! its pipes and timer under async-std, smol or any executor.

use std::fmt;
use std::io;
use std::pin::Pin;
use std::process::{ChildStderr, ChildStdin, ChildStdout};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use claude_proto_async::{BoxFuture, BoxReader, BoxWriter, Connect, ReadBytes, WriteBytes};
use futures_io::{AsyncRead, AsyncWrite};

type SpawnFn = dyn Fn(BoxFuture<()>) + Send + Sync;

/// The executor a session spawns its tasks on: its driver, and one task per
/// running handler.
///
/// Everything else (the CLI's pipes, timers) runs on the `async-io`
/// reactor that async-std and smol share, so the same session code serves
/// both; only spawning differs. The default is smol's global executor when
/// the `smol` feature is on, async-std's otherwise. Tasks are detached: a
/// session never needs its executor to outlive it, and it stops its own
/// handlers. If the executor drops the session's driver, the child is
/// killed and reaped.
#[derive(Clone)]
pub struct Runtime {
    kind: Kind,
}

#[derive(Clone)]
enum Kind {
    #[cfg(feature = "async-std")]
    AsyncStd,
    #[cfg(feature = "smol")]
    Smol,
    Custom(Arc<SpawnFn>),
    #[cfg(not(any(feature = "async-std", feature = "smol")))]
    Threads,
}

impl Runtime {
    /// async-std's executor (`async_std::task::spawn`).
    #[cfg(feature = "async-std")]
    pub fn async_std() -> Self {
        Self {
            kind: Kind::AsyncStd,
        }
    }

    /// smol's global executor (`smol::spawn`).
    #[cfg(feature = "smol")]
    pub fn smol() -> Self {
        Self { kind: Kind::Smol }
    }

    /// Any executor: `spawn` must run the future to completion (or until
    /// the executor itself is dropped), for example
    /// `move |task| executor.spawn(task).detach()` with a
    /// `smol::Executor` of your own.
    pub fn custom(spawn: impl Fn(BoxFuture<()>) + Send + Sync + 'static) -> Self {
        Self {
            kind: Kind::Custom(Arc::new(spawn)),
        }
    }
}

impl Default for Runtime {
    /// smol with the `smol` feature, else async-std with the `async-std`
    /// feature (the default); with neither, each task gets a thread of its
    /// own driven by `async_io::block_on` (choose an executor with
    /// [`Runtime::custom`] instead).
    fn default() -> Self {
        #[cfg(feature = "smol")]
        return Self::smol();
        #[cfg(all(feature = "async-std", not(feature = "smol")))]
        return Self::async_std();
        #[cfg(not(any(feature = "async-std", feature = "smol")))]
        return Self {
            kind: Kind::Threads,
        };
    }
}

impl fmt::Debug for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match &self.kind {
            #[cfg(feature = "async-std")]
            Kind::AsyncStd => "async-std",
            #[cfg(feature = "smol")]
            Kind::Smol => "smol",
            Kind::Custom(_) => "custom",
            #[cfg(not(any(feature = "async-std", feature = "smol")))]
            Kind::Threads => "threads",
        };
        f.debug_tuple("Runtime").field(&name).finish()
    }
}

impl claude_proto_async::Runtime for Runtime {
    fn current() -> io::Result<Self> {
        Ok(Self::default())
    }

    fn spawn(&self, future: BoxFuture<()>) {
        match &self.kind {
            #[cfg(feature = "async-std")]
            Kind::AsyncStd => drop(async_std::task::spawn(future)),
            #[cfg(feature = "smol")]
            Kind::Smol => smol::spawn(future).detach(),
            Kind::Custom(spawn) => spawn(future),
            #[cfg(not(any(feature = "async-std", feature = "smol")))]
            Kind::Threads => {
                std::thread::spawn(move || async_io::block_on(future));
            }
        }
    }

    fn sleep_until(&self, deadline: Instant) -> BoxFuture<()> {
        Box::pin(async move {
            async_io::Timer::at(deadline).await;
        })
    }

    fn stdin(&self, pipe: ChildStdin) -> io::Result<BoxWriter> {
        Ok(Box::pin(Io::new(reactor(pipe)?)))
    }

    fn stdout(&self, pipe: ChildStdout) -> io::Result<BoxReader> {
        Ok(Box::pin(Io::new(reactor(pipe)?)))
    }

    fn stderr(&self, pipe: ChildStderr) -> io::Result<BoxReader> {
        Ok(Box::pin(Io::new(reactor(pipe)?)))
    }
}

/// A pipe registered with the reactor (and made non-blocking).
#[cfg(unix)]
fn reactor<T: std::os::fd::AsFd + async_io::IoSafe>(pipe: T) -> io::Result<async_io::Async<T>> {
    async_io::Async::new(pipe)
}

/// `async-io` polls sockets on this platform, not pipes.
#[cfg(not(unix))]
fn reactor<T>(_: T) -> io::Result<async_io::Async<std::net::TcpStream>> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "the CLI's pipes need a Unix reactor here: use claude-proto-tokio, or `connect` a socket",
    ))
}

/// Any futures-io byte-stream pair: a socket, an in-memory pipe.
impl<Rd, Wr> Connect<Rd, Wr> for Runtime
where
    Rd: AsyncRead + Send + 'static,
    Wr: AsyncWrite + Send + 'static,
{
    fn wrap(reader: Rd, writer: Wr) -> (BoxReader, BoxWriter) {
        (Box::pin(Io::new(reader)), Box::pin(Io::new(writer)))
    }
}

/// A futures-io reader or writer seen through the session's byte traits.
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
        self.get_mut().0.as_mut().poll_read(cx, buf)
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
        self.get_mut().0.as_mut().poll_close(cx)
    }
}
