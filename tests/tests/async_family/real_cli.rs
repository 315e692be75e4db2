//! The real-CLI harness of `claude-proto-async-std` on runtime `E` (see
//! `claude_proto_tests::real_cli` and `real_cli.rs` for how to install the
//! CLI).

use std::future::Future;
use std::io;
use std::marker::PhantomData;
use std::pin::Pin;
use std::process::{ChildStdin, ChildStdout};
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use claude_proto::ControlSuccess;
use claude_proto::model::control::ControlRequest;
use claude_proto::model::initialize::InitializeResponse;
use claude_proto_async_std::{Claude, ClaudeBuilder, Runtime};
use claude_proto_host::{Error, ExitReport, SpawnError, Turn};
use claude_proto_tests::conformance::{Driver, Observed, ToolChange};
use claude_proto_tests::real_cli::tee::TeedChild;
use claude_proto_tests::real_cli::{RealHarness, RealSpec, Transcript, WAIT};
use futures_lite::io::{AsyncRead, AsyncWrite};
use smol::Async;

use super::Exec;

/// The real-CLI harness on runtime `E`.
pub(crate) struct RealFamily<E>(PhantomData<E>);

/// `future`, or `None` once `limit` has passed (an `async-io` timer: it
/// runs under either runtime, like the adapter's own).
async fn within<T>(limit: Duration, future: impl Future<Output = T>) -> Option<T> {
    futures_lite::future::or(async { Some(future.await) }, async {
        smol::Timer::after(limit).await;
        None
    })
    .await
}

/// The CLI's stdout, copied into the transcript as it is read.
struct TeeRead {
    inner: Async<ChildStdout>,
    transcript: Transcript,
}

impl AsyncRead for TeeRead {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let n = ready!(Pin::new(&mut this.inner).poll_read(cx, buf))?;
        this.transcript.cli_wrote(&buf[..n]);
        Poll::Ready(Ok(n))
    }
}

/// The CLI's stdin, copied into the transcript as it is written.
struct TeeWrite {
    inner: Async<ChildStdin>,
    transcript: Transcript,
}

impl AsyncWrite for TeeWrite {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let n = ready!(Pin::new(&mut this.inner).poll_write(cx, buf))?;
        this.transcript.host_wrote(&buf[..n]);
        Poll::Ready(Ok(n))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_close(cx)
    }
}

struct Session<E> {
    claude: Option<Claude>,
    teed: Option<TeedChild>,
    /// The executor the session's tasks run on, when it is one of its own
    /// ([`RealHarness::start_on_own_runtime`]) rather than the runtime's
    /// global one, which cannot be dropped.
    own: Option<OwnExecutor>,
    exec: PhantomData<fn() -> E>,
}

/// A `smol::Executor` of the session's own, run by a thread until dropped:
/// the runtime a user hands over with `Runtime::custom`, and the only kind
/// of runtime of this adapter that can go away under a session.
struct OwnExecutor {
    executor: Arc<smol::Executor<'static>>,
    stop: Option<smol::channel::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl OwnExecutor {
    fn start() -> (Self, Runtime) {
        let executor = Arc::new(smol::Executor::new());
        let (stop, stopped) = smol::channel::bounded::<()>(1);
        let runner = executor.clone();
        let thread = std::thread::spawn(move || {
            smol::block_on(runner.run(async move {
                let _ = stopped.recv().await;
            }));
        });
        // Tasks spawned once the executor is gone are dropped, as a
        // dropped runtime drops them.
        let weak = Arc::downgrade(&executor);
        let runtime = Runtime::custom(move |task| {
            if let Some(executor) = weak.upgrade() {
                executor.spawn(task).detach();
            }
        });
        let own = Self {
            executor,
            stop: Some(stop),
            thread: Some(thread),
        };
        (own, runtime)
    }

    /// Stops the thread and drops the executor with every task on it.
    fn drop_now(mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            thread.join().unwrap();
        }
        assert_eq!(
            Arc::strong_count(&self.executor),
            1,
            "the executor is held elsewhere"
        );
    }
}

fn builder<E: Exec>(spec: &RealSpec) -> ClaudeBuilder {
    let builder = Claude::builder(spec.options.clone()).runtime(E::runtime());
    claude_proto_tests::register_real_handlers!(builder, spec)
}

impl<E: Exec> RealHarness for RealFamily<E> {
    const NAME: &'static str = E::NAME;

    fn builder_debug(spec: &RealSpec) -> Option<String> {
        Some(format!("{:?}", builder::<E>(spec)))
    }

    fn start_on_own_runtime(spec: RealSpec) -> Option<Result<Box<dyn Driver>, SpawnError>> {
        assert!(spec.transcript.is_none(), "spawned by the adapter only");
        let (own, runtime) = OwnExecutor::start();
        let builder = builder::<E>(&spec).runtime(runtime);
        Some(E::block_on(builder.spawn()).map(|claude| {
            Box::new(Session::<E> {
                claude: Some(claude),
                teed: None,
                own: Some(own),
                exec: PhantomData,
            }) as Box<dyn Driver>
        }))
    }

    fn one_shot(spec: RealSpec, prompt: &str) -> Result<claude_proto_host::Turn, Error> {
        E::block_on(builder::<E>(&spec).query(prompt))
    }

    fn start(spec: RealSpec) -> Result<Box<dyn Driver>, SpawnError> {
        let builder = builder::<E>(&spec);
        let Some(transcript) = spec.transcript.clone() else {
            return Ok(Box::new(Session::<E> {
                claude: Some(E::block_on(builder.spawn())?),
                teed: None,
                own: None,
                exec: PhantomData,
            }));
        };
        // The pipes on the `async-io` reactor, which the adapter's own
        // child and either runtime use.
        let (teed, stdin, stdout) = TeedChild::spawn(&spec)?;
        let (stdin, stdout) = (Async::new(stdin)?, Async::new(stdout)?);
        let claude = builder.connect(
            TeeRead {
                inner: stdout,
                transcript: transcript.clone(),
            },
            TeeWrite {
                inner: stdin,
                transcript,
            },
        )?;
        Ok(Box::new(Session::<E> {
            claude: Some(claude),
            teed: Some(teed),
            own: None,
            exec: PhantomData,
        }))
    }
}

impl<E: Exec> Session<E> {
    fn claude(&mut self) -> &mut Claude {
        self.claude.as_mut().unwrap()
    }
}

impl<E: Exec> Driver for Session<E> {
    fn pid(&self) -> Option<u32> {
        match &self.teed {
            Some(teed) => Some(teed.pid()),
            None => self.claude.as_ref().and_then(Claude::pid),
        }
    }

    fn initialization(&mut self) -> Result<InitializeResponse, Error> {
        E::block_on(self.claude().initialization()).map(|r| (*r).clone())
    }

    fn send_text(&mut self, text: &str) -> Result<(), Error> {
        E::block_on(self.claude().send_text(text))
    }

    fn next_event(&mut self) -> Option<Observed> {
        E::block_on(within(WAIT, self.claude().next_event()))
            .unwrap_or_else(|| panic!("no event from the real CLI within {WAIT:?}"))
            .map(Observed::from)
    }

    fn control(
        &mut self,
        request: ControlRequest,
        timeout: Option<Duration>,
    ) -> Result<ControlSuccess, Error> {
        E::block_on(self.claude().control(request, timeout))
    }

    fn flush_mirror(&mut self) -> Option<Result<(), Error>> {
        let claude = self.claude();
        Some(E::block_on(claude.flush_mirror()))
    }

    fn change_tools(&mut self, change: ToolChange<'_>) -> Option<Result<(), Error>> {
        let claude = self.claude();
        Some(E::block_on(claude_proto_tests::handlers::change_tools(
            claude, change,
        )))
    }

    fn query(
        &mut self,
        prompt: &str,
        limit: Option<Duration>,
    ) -> Option<Result<Option<Turn>, Error>> {
        let claude = self.claude();
        Some(E::block_on(async {
            let Some(limit) = limit else {
                return claude.ask(prompt).await.map(Some);
            };
            // When the timer wins, the query future is dropped mid-turn.
            within(limit, claude.ask(prompt)).await.transpose()
        }))
    }

    fn close(mut self: Box<Self>) -> Result<Option<ExitReport>, Error> {
        let report = E::block_on(self.claude.take().unwrap().close())?;
        match self.teed.take() {
            Some(teed) => Ok(Some(teed.wait().expect("the CLI's exit"))),
            None => Ok(report),
        }
    }

    fn abandon(mut self: Box<Self>) {
        // The driver goes on on the runtime's executor and closes in the
        // background; dropped, a teed child is killed.
        drop(self.claude.take());
        drop(self.teed.take());
    }

    fn debug_view(&self) -> Option<String> {
        Some(format!("{:?}", self.claude))
    }

    fn drop_runtime(mut self: Box<Self>) -> bool {
        let Some(own) = self.own.take() else {
            self.abandon();
            return false;
        };
        // The executor goes first, with the session's tasks on it; the
        // handle outlives it, then goes too.
        own.drop_now();
        drop(self.claude.take());
        true
    }

    fn drop_handle_then_runtime(mut self: Box<Self>) -> bool {
        let Some(own) = self.own.take() else {
            self.abandon();
            return false;
        };
        drop(self.claude.take());
        drop(self.teed.take());
        own.drop_now();
        true
    }
}
