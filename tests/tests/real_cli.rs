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
use std::sync::atomic::Ordering;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use claude_proto::ControlSuccess;
use claude_proto::dispatch::ToolOutput;
use claude_proto::model::control::ControlRequest;
use claude_proto::model::hooks::{HookEvent, HookOutput};
use claude_proto::model::initialize::InitializeResponse;
use claude_proto::model::permission::PermissionResult;
use claude_proto_process::{Error, ExitReport, build_command};
use claude_proto_tests::conformance::{Driver, DropFlag, HookBehaviour, Observed, Spec};
use claude_proto_tests::real_cli::{PermissionRule, RealHarness, RealSpec, Transcript, WAIT};
use claude_proto_tokio::{Claude, ClaudeBuilder, Event, HookOptions, McpServer};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, ReadBuf};
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::runtime::Runtime;
use tokio::task::JoinHandle;

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

/// The child behind a teed session: waited for at close.
struct Teed {
    child: Child,
    stderr: JoinHandle<String>,
}

struct TokioDriver {
    runtime: Option<Runtime>,
    claude: Option<Claude>,
    teed: Option<Teed>,
}

fn builder(spec: &RealSpec) -> ClaudeBuilder {
    let mut builder = Claude::builder(spec.options.clone());
    if let Some(rule) = spec.permission.clone() {
        let calls = spec.calls.clone();
        builder = builder.on_permission(move |ask| {
            calls.record("can_use_tool", serde_json::to_value(&ask).unwrap());
            // Captured here, the flag lives exactly as long as the future.
            let flag = match &rule {
                PermissionRule::Pending(probe) => {
                    probe.calls.fetch_add(1, Ordering::SeqCst);
                    Some(DropFlag(probe.clone()))
                }
                _ => None,
            };
            let rule = rule.clone();
            async move {
                match rule {
                    PermissionRule::Allow => Ok(PermissionResult::allow()),
                    PermissionRule::AllowWithInput(input) => {
                        Ok(PermissionResult::allow().with_updated_input(input))
                    }
                    PermissionRule::Deny(message) => Ok(PermissionResult::deny(message)),
                    PermissionRule::Pending(_) => {
                        let _flag = flag;
                        std::future::pending::<()>().await;
                        Ok(PermissionResult::deny("unreachable"))
                    }
                }
            }
        });
    }
    for hook in &spec.hooks {
        let options = match hook.matcher {
            Some(m) => HookOptions::matching(m),
            None => HookOptions::default(),
        };
        let behaviour = hook.behaviour.clone();
        let calls = spec.calls.clone();
        let event = hook.event;
        builder = builder.hook(HookEvent::from(event), options, move |input, _id| {
            calls.record(event, serde_json::to_value(&input).unwrap());
            let behaviour = behaviour.clone();
            async move {
                Ok(match behaviour {
                    HookBehaviour::NoOpinion => HookOutput::default(),
                    HookBehaviour::Deny(reason) => HookOutput::pre_tool_use_deny(reason),
                    HookBehaviour::Context(text) => {
                        HookOutput::additional_context(HookEvent::from(event), text)
                    }
                    HookBehaviour::Panic => panic!("hook panicked on purpose"),
                })
            }
        });
    }
    if spec.mcp_calc {
        let calls = spec.calls.clone();
        builder = builder.mcp_server(McpServer::new("calc", "1.0.0").tool(
            "add",
            "Adds a and b",
            Spec::calc_schema(),
            move |args| {
                calls.record("mcp:add", args.clone());
                async move {
                    Ok(match Spec::calc_add(&args) {
                        Ok(sum) => ToolOutput::text(sum),
                        Err(e) => ToolOutput::error(e),
                    })
                }
            },
        ));
    }
    builder
}

impl RealHarness for Tokio {
    const NAME: &'static str = "tokio";

    fn start(spec: RealSpec) -> Result<Box<dyn Driver>, Error> {
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
        // Spawn the command the adapter would (`spawn` adds the stdio
        // permission prompt itself when a handler is registered), then
        // connect through the tee.
        let mut options = spec.options.clone();
        if spec.permission.is_some() {
            options = options.permission_prompt_stdio(true);
        }
        let (program, command) = build_command(&options)?;
        let _guard = runtime.enter();
        let mut command = tokio::process::Command::from(command);
        command.kill_on_drop(true);
        let mut child = command
            .spawn()
            .map_err(|source| Error::Spawn { program, source })?;
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let stderr = runtime.spawn(async move {
            let mut text = Vec::new();
            let _ = stderr.read_to_end(&mut text).await;
            String::from_utf8_lossy(&text).into_owned()
        });
        let claude = builder.connect(
            TeeRead {
                inner: stdout,
                transcript: transcript.clone(),
            },
            TeeWrite {
                inner: stdin,
                transcript,
            },
        );
        drop(_guard);
        Ok(Box::new(TokioDriver {
            runtime: Some(runtime),
            claude: Some(claude),
            teed: Some(Teed { child, stderr }),
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
            Some(teed) => teed.child.id(),
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
        let event = rt
            .block_on(async { tokio::time::timeout(WAIT, claude.next_event()).await })
            .unwrap_or_else(|_| panic!("no event from the real CLI within {WAIT:?}"))?;
        Some(match event {
            Event::Message(m) => Observed::Message(m),
            Event::ProtocolError(e) => Observed::ProtocolError(e.kind),
            Event::HandlerFailed { subtype, .. } => Observed::HandlerFailed(subtype),
            other => Observed::Other(format!("{other:?}")),
        })
    }

    fn control(
        &mut self,
        request: ControlRequest,
        timeout: Option<Duration>,
    ) -> Result<ControlSuccess, Error> {
        let (rt, claude) = self.parts();
        rt.block_on(claude.control(request, timeout))
    }

    fn close(mut self: Box<Self>) -> Result<Option<ExitReport>, Error> {
        let runtime = self.runtime.take().unwrap();
        let claude = self.claude.take().unwrap();
        let report = runtime.block_on(claude.close())?;
        let Some(mut teed) = self.teed.take() else {
            return Ok(report);
        };
        runtime.block_on(async move {
            let status = match tokio::time::timeout(WAIT, teed.child.wait()).await {
                Ok(status) => status?,
                Err(_) => {
                    teed.child.kill().await?;
                    panic!("the CLI did not exit within {WAIT:?} after its stdin closed");
                }
            };
            let stderr = tokio::time::timeout(WAIT, teed.stderr)
                .await
                .ok()
                .and_then(Result::ok)
                .unwrap_or_default();
            Ok(Some(ExitReport::new(status, stderr)))
        })
    }

    fn abandon(mut self: Box<Self>) {
        drop(self.claude.take());
        drop(self.teed.take());
    }
}

claude_proto_tests::real_cli_suite!(Tokio);

/// The CLI found is the pinned version (under CI it must be found).
#[test]
fn the_cli_is_the_pinned_version() {
    if let Some(cli) = claude_proto_tests::real_cli::real_cli() {
        let output = std::process::Command::new(cli)
            .arg("--version")
            .output()
            .unwrap();
        let version = String::from_utf8_lossy(&output.stdout);
        assert!(
            version.starts_with("2.1.330"),
            "pinned 2.1.330, found {version}"
        );
    }
}
