//! The real Claude Code CLI, driven through the tokio adapter, against a
//! loopback Messages API stand-in (see `claude_proto_tests::real_cli`).
//!
//! Needs the CLI: `npm ci --prefix tests/peer`, then
//! `CLAUDE_BIN=$PWD/tests/peer/node_modules/.bin/claude cargo test -p
//! claude-proto-tests --test real_cli` (without `CLAUDE_BIN` the installed
//! peer is found too). Without it every test says it was skipped and
//! passes, except under CI, where it fails.
#![allow(clippy::unwrap_used)] // test helpers fail loudly by design

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use claude_proto::ControlSuccess;
use claude_proto::model::control::ControlRequest;
use claude_proto::model::initialize::InitializeResponse;
use claude_proto_host::{Error, ExitReport, SpawnError, Turn};
use claude_proto_tests::conformance::{Driver, Observed, ToolChange};
use claude_proto_tests::real_cli::tee::TeedChild;
use claude_proto_tests::real_cli::{RealHarness, RealSpec, Transcript, WAIT};
use claude_proto_tokio::{Claude, ClaudeBuilder};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::process::{ChildStdin, ChildStdout};
use tokio::runtime::Runtime;

struct Tokio;

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// The CLI's stdout, copied into the transcript as it is read.
struct TeeRead {
    inner: ChildStdout,
    transcript: Transcript,
}

impl AsyncRead for TeeRead {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        ready!(Pin::new(&mut this.inner).poll_read(cx, buf))?;
        this.transcript.cli_wrote(&buf.filled()[before..]);
        Poll::Ready(Ok(()))
    }
}

/// The CLI's stdin, copied into the transcript as it is written.
struct TeeWrite {
    inner: ChildStdin,
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

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

struct TokioDriver {
    runtime: Option<Runtime>,
    claude: Option<Claude>,
    teed: Option<TeedChild>,
}

fn builder(spec: &RealSpec) -> ClaudeBuilder {
    claude_proto_tests::register_real_handlers!(Claude::builder(spec.options.clone()), spec)
}

impl RealHarness for Tokio {
    const NAME: &'static str = "tokio";

    fn start_on_own_runtime(spec: RealSpec) -> Option<Result<Box<dyn Driver>, SpawnError>> {
        // Every session of this harness has a runtime of its own.
        Some(Self::start(spec))
    }

    fn builder_debug(spec: &RealSpec) -> Option<String> {
        Some(format!("{:?}", builder(spec)))
    }

    fn one_shot(spec: RealSpec, prompt: &str) -> Result<Turn, Error> {
        runtime().block_on(builder(&spec).query(prompt))
    }

    fn start(spec: RealSpec) -> Result<Box<dyn Driver>, SpawnError> {
        let runtime = runtime();
        let builder = builder(&spec);
        let Some(transcript) = spec.transcript.clone() else {
            let claude = runtime.block_on(builder.spawn())?;
            return Ok(Box::new(TokioDriver {
                runtime: Some(runtime),
                claude: Some(claude),
                teed: None,
            }));
        };
        let (teed, stdin, stdout) = TeedChild::spawn(&spec)?;
        let _guard = runtime.enter();
        let stdin = ChildStdin::from_std(stdin)?;
        let stdout = ChildStdout::from_std(stdout)?;
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
        drop(_guard);
        Ok(Box::new(TokioDriver {
            runtime: Some(runtime),
            claude: Some(claude),
            teed: Some(teed),
        }))
    }
}

impl TokioDriver {
    fn parts(&mut self) -> (&Runtime, &mut Claude) {
        (
            self.runtime.as_ref().unwrap(),
            self.claude.as_mut().unwrap(),
        )
    }
}

impl Driver for TokioDriver {
    fn pid(&self) -> Option<u32> {
        match &self.teed {
            Some(teed) => Some(teed.pid()),
            None => self.claude.as_ref().and_then(Claude::pid),
        }
    }

    fn initialization(&mut self) -> Result<InitializeResponse, Error> {
        let (rt, claude) = self.parts();
        rt.block_on(claude.initialization()).map(|r| (*r).clone())
    }

    fn send_text(&mut self, text: &str) -> Result<(), Error> {
        let (rt, claude) = self.parts();
        rt.block_on(claude.send_text(text))
    }

    fn next_event(&mut self) -> Option<Observed> {
        let (rt, claude) = self.parts();
        rt.block_on(async { tokio::time::timeout(WAIT, claude.next_event()).await })
            .unwrap_or_else(|_| panic!("no event from the real CLI within {WAIT:?}"))
            .map(Observed::from)
    }

    fn control(
        &mut self,
        request: ControlRequest,
        timeout: Option<Duration>,
    ) -> Result<ControlSuccess, Error> {
        let (rt, claude) = self.parts();
        rt.block_on(claude.control(request, timeout))
    }

    fn flush_mirror(&mut self) -> Option<Result<(), Error>> {
        let (rt, claude) = self.parts();
        Some(rt.block_on(claude.flush_mirror()))
    }

    fn change_tools(&mut self, change: ToolChange<'_>) -> Option<Result<(), Error>> {
        let (rt, claude) = self.parts();
        Some(rt.block_on(claude_proto_tests::handlers::change_tools(claude, change)))
    }

    fn query(
        &mut self,
        prompt: &str,
        limit: Option<Duration>,
    ) -> Option<Result<Option<Turn>, Error>> {
        let (rt, claude) = self.parts();
        Some(rt.block_on(async {
            let Some(limit) = limit else {
                return claude.ask(prompt).await.map(Some);
            };
            // On timeout the query future is dropped mid-turn.
            match tokio::time::timeout(limit, claude.ask(prompt)).await {
                Ok(turn) => turn.map(Some),
                Err(_) => Ok(None),
            }
        }))
    }

    fn close(mut self: Box<Self>) -> Result<Option<ExitReport>, Error> {
        let runtime = self.runtime.take().unwrap();
        let claude = self.claude.take().unwrap();
        let report = runtime.block_on(claude.close())?;
        match self.teed.take() {
            Some(teed) => Ok(Some(teed.wait().expect("the CLI's exit"))),
            None => Ok(report),
        }
    }

    fn abandon(mut self: Box<Self>) {
        drop(self.claude.take());
        // Dropped, a teed child is killed.
        drop(self.teed.take());
    }

    fn debug_view(&self) -> Option<String> {
        Some(format!("{:?}", self.claude))
    }

    fn drop_runtime(mut self: Box<Self>) -> bool {
        // The runtime goes first, with the session's driver task in it;
        // the handle outlives it, then goes too.
        drop(self.runtime.take());
        drop(self.claude.take());
        drop(self.teed.take());
        true
    }

    fn drop_handle_then_runtime(mut self: Box<Self>) -> bool {
        drop(self.claude.take());
        drop(self.teed.take());
        drop(self.runtime.take());
        true
    }
}

claude_proto_tests::real_cli_suite!(Tokio);
claude_proto_tests::real_cli_replay_suite!(Tokio, env!("CARGO_BIN_EXE_testkit-cli"));

/// The ending scenarios once more, one at a time in a process of their
/// own, counting this process's fds and threads before and after each
/// session.
#[test]
fn endings_leave_no_fd_or_thread_behind() {
    claude_proto_tests::real_cli::ending::endings_leave_no_fd_or_thread_behind();
}

/// What a hook command leaves running outlives the session, out of reach
/// of the group (the CLI's doing, whatever the adapter: run on one).
#[test]
fn what_a_hook_command_leaves_running_is_out_of_reach() {
    claude_proto_tests::real_cli::ending::what_a_hook_command_leaves_running_is_out_of_reach::<Tokio>(
    );
}

/// The CLI found is the pinned version (under CI it must be found).
#[test]
fn the_cli_is_the_pinned_version() {
    if let Some(cli) = claude_proto_tests::real_cli::real_cli() {
        let output = std::process::Command::new(cli)
            .arg("--version")
            .output()
            .unwrap();
        let version = String::from_utf8_lossy(&output.stdout);
        let pinned = claude_proto::version::TESTED_CLI_VERSION;
        assert!(
            version.starts_with(pinned),
            "pinned {pinned}, found {version}"
        );
    }
}
