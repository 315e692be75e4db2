//! The real Claude Code CLI, driven through the blocking adapter, against
//! the loopback Messages API stand-in (see `claude_proto_tests::real_cli`
//! and `real_cli.rs` for how to install the CLI).
#![allow(clippy::unwrap_used)] // test helpers fail loudly by design

use std::sync::atomic::Ordering;
use std::time::Duration;

use claude_proto::ControlSuccess;
use claude_proto::dispatch::ToolOutput;
use claude_proto::model::control::ControlRequest;
use claude_proto::model::hooks::{HookEvent, HookInput, HookOutput, HookSpecificOutput};
use claude_proto::model::initialize::InitializeResponse;
use claude_proto::model::permission::PermissionResult;
use claude_proto_blocking::{CancelToken, Claude, ClaudeBuilder, Configure, McpServer};
use claude_proto_host::{Error, ExitReport, SpawnError, Turn};
use claude_proto_tests::conformance::{
    Driver, DropFlag, HookBehaviour, Observed, Spec, ToolChange, TypedGuard,
};
use claude_proto_tests::real_cli::tee::{TeeRead, TeeWrite, TeedChild};
use claude_proto_tests::real_cli::{PermissionRule, RealHarness, RealSpec, WAIT};

struct Blocking;

struct BlockingDriver {
    claude: Option<Claude>,
    teed: Option<TeedChild>,
}

fn builder(spec: &RealSpec) -> ClaudeBuilder {
    let mut builder = Claude::builder(spec.options.clone());
    if let Some(rule) = spec.permission.clone() {
        let calls = spec.calls.clone();
        builder = builder.on_permission(move |ask| {
            calls.record("can_use_tool", serde_json::to_value(&ask).unwrap());
            match &rule {
                PermissionRule::Allow => Ok(PermissionResult::allow()),
                PermissionRule::AllowWithInput(input) => {
                    Ok(PermissionResult::allow().with_updated_input(input.clone()))
                }
                PermissionRule::Deny(message) => Ok(PermissionResult::deny(message)),
                PermissionRule::AnswerQuestions => {
                    Ok(claude_proto_tests::real_cli::answer_questions(&ask))
                }
                // Never answers: blocks until the CLI withdraws the prompt;
                // the flag goes with the cancellation, and the answer
                // returned then must be dropped.
                PermissionRule::Pending(probe) => {
                    probe.calls.fetch_add(1, Ordering::SeqCst);
                    let flag = DropFlag(probe.clone());
                    let token = CancelToken::current().unwrap();
                    token.on_cancel(move || drop(flag));
                    token.wait();
                    Ok(PermissionResult::deny("unreachable"))
                }
            }
        });
    }
    for hook in &spec.hooks {
        let options = claude_proto_tests::handlers::hook_options(hook);
        let behaviour = hook.behaviour.clone();
        let calls = spec.calls.clone();
        let event = hook.event;
        builder = builder.hook_untyped(HookEvent::from(event), options, move |input, _id| {
            calls.record(event, serde_json::to_value(&input).unwrap());
            Ok(match &behaviour {
                HookBehaviour::FailClosed => return Err("failing closed on purpose".into()),
                HookBehaviour::NoOpinion => HookOutput::default(),
                HookBehaviour::Deny(reason) => HookOutput::pre_tool_use_deny(reason.clone()),
                HookBehaviour::Context(text) => {
                    HookOutput::additional_context(HookEvent::from(event), text.clone())
                }
                HookBehaviour::Panic => panic!("hook panicked on purpose"),
                HookBehaviour::TypedGuard => match &input {
                    HookInput::PreToolUse(input) => HookOutput::hook_specific(
                        HookSpecificOutput::PreToolUse(TypedGuard::answer(input)),
                    ),
                    _ => HookOutput::default(),
                },
            })
        });
    }
    if spec.rmcp_weather {
        let server = claude_proto_tests::weather::WeatherServer::new(spec.calls.clone());
        let endpoint =
            claude_proto_rmcp::RmcpEndpoint::new(server).expect("the rmcp thread starts");
        builder = builder.mcp_endpoint("weather", endpoint);
    }
    if spec.mcp_calc {
        let calls = spec.calls.clone();
        builder = builder.mcp_server(McpServer::new("calc", "1.0.0").tool_untyped(
            "add",
            "Adds a and b",
            Spec::calc_schema(),
            move |args| {
                calls.record("mcp:add", args.clone());
                Ok(match Spec::calc_add(&args) {
                    Ok(sum) => ToolOutput::text(sum),
                    Err(e) => ToolOutput::error(e),
                })
            },
        ));
    }
    if spec.elicitation {
        use claude_proto_tests::conformance::Dialogs;
        builder = builder.on_elicitation(|request| Dialogs::elicit(&request));
    }
    if let Some(request) = spec.initialize.clone() {
        builder = builder.initialize_request(request);
    }
    if let Some(store) = spec.store.clone() {
        builder = builder.session_store(store);
    }
    builder
}

impl RealHarness for Blocking {
    const NAME: &'static str = "blocking";

    fn builder_debug(spec: &RealSpec) -> Option<String> {
        Some(format!("{:?}", builder(spec)))
    }

    fn one_shot(spec: RealSpec, prompt: &str) -> Result<claude_proto_host::Turn, Error> {
        builder(&spec).query(prompt)
    }

    fn start(spec: RealSpec) -> Result<Box<dyn Driver>, SpawnError> {
        let builder = builder(&spec);
        let Some(transcript) = spec.transcript.clone() else {
            return Ok(Box::new(BlockingDriver {
                claude: Some(builder.spawn()?),
                teed: None,
            }));
        };
        let (teed, stdin, stdout) = TeedChild::spawn(&spec)?;
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
        Ok(Box::new(BlockingDriver {
            claude: Some(claude),
            teed: Some(teed),
        }))
    }
}

impl BlockingDriver {
    fn claude(&mut self) -> &mut Claude {
        self.claude.as_mut().unwrap()
    }
}

impl Driver for BlockingDriver {
    fn pid(&self) -> Option<u32> {
        match &self.teed {
            Some(teed) => Some(teed.pid()),
            None => self.claude.as_ref().and_then(Claude::pid),
        }
    }

    fn initialization(&mut self) -> Result<InitializeResponse, Error> {
        self.claude().initialization().map(|r| (*r).clone())
    }

    fn send_text(&mut self, text: &str) -> Result<(), Error> {
        self.claude().send_text(text)
    }

    fn next_event(&mut self) -> Option<Observed> {
        self.claude()
            .next_event_timeout(WAIT)
            .unwrap_or_else(|_| panic!("no event from the real CLI within {WAIT:?}"))
            .map(Observed::from)
    }

    fn control(
        &mut self,
        request: ControlRequest,
        timeout: Option<Duration>,
    ) -> Result<ControlSuccess, Error> {
        self.claude().control(request, timeout)
    }

    fn flush_mirror(&mut self) -> Option<Result<(), Error>> {
        Some(self.claude().flush_mirror())
    }

    fn change_tools(&mut self, change: ToolChange<'_>) -> Option<Result<(), Error>> {
        Some(claude_proto_tests::handlers::change_tools_blocking(
            self.claude(),
            change,
        ))
    }

    fn query(
        &mut self,
        prompt: &str,
        limit: Option<Duration>,
    ) -> Option<Result<Option<Turn>, Error>> {
        Some(claude_proto_tests::handlers::query_blocking(
            self.claude(),
            prompt,
            limit,
        ))
    }

    fn close(mut self: Box<Self>) -> Result<Option<ExitReport>, Error> {
        let report = self.claude.take().unwrap().close()?;
        match self.teed.take() {
            // The teed child's own exit: the session only saw a stream.
            Some(teed) => Ok(Some(teed.wait().expect("waiting for the teed CLI"))),
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
}

claude_proto_tests::real_cli_suite!(Blocking);
claude_proto_tests::real_cli_replay_suite!(Blocking, env!("CARGO_BIN_EXE_testkit-cli"));

/// The ending scenarios once more, one at a time in a process of their
/// own, counting this process's fds and threads before and after each
/// session.
#[test]
fn endings_leave_no_fd_or_thread_behind() {
    claude_proto_tests::real_cli::ending::endings_leave_no_fd_or_thread_behind();
}
