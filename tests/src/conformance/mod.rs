//! One conformance suite for every adapter.
//!
//! Each scenario is written once against the [`Harness`] and [`Driver`]
//! traits; an adapter implements them (translating a [`Spec`] into its own
//! handlers) and instantiates the whole suite with [`conformance_suite!`](crate::conformance_suite).
//! The CLI is the `fake-claude` binary of this package, which plays the
//! scenario named in [`Spec::scenario`] deterministically.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use claude_proto::model::MessageType;
use claude_proto::model::control::ControlRequest;
use claude_proto::model::initialize::InitializeResponse;
use claude_proto::model::stdout::StdoutMessage;
use claude_proto::model::stream::StreamEvent;
use claude_proto::{Config, ControlError, ControlSuccess, Message, ProtocolErrorKind};
use claude_proto_process::{Error, ExitReport, ShutdownPolicy};
use serde_json::{Value, json};

/// How the permission handler answers.
#[derive(Debug, Clone)]
pub enum Permission {
    /// Allow as asked.
    Allow,
    /// Allow with this input instead.
    AllowWithInput(Value),
    /// Deny with this message.
    Deny(String),
    /// Deny with this message and interrupt the turn.
    DenyAndInterrupt(String),
    /// Return an error.
    Fail(String),
    /// Panic.
    Panic,
    /// The first call never finishes (until dropped); later calls allow.
    FirstWaitsForever(Arc<CancelProbe>),
}

/// Observes a handler that should be cancelled by the CLI.
#[derive(Debug, Default)]
pub struct CancelProbe {
    /// How many times the handler was called.
    pub calls: AtomicUsize,
    /// Set when the first call's future was dropped unfinished.
    pub dropped: AtomicBool,
}

/// Sets [`CancelProbe::dropped`] when dropped; moved into the future.
#[derive(Debug)]
pub struct DropFlag(pub Arc<CancelProbe>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.dropped.store(true, Ordering::SeqCst);
    }
}

/// A hook to register.
#[derive(Debug, Clone)]
pub struct Hook {
    /// The event (`PreToolUse`, `PostToolUse`, ...).
    pub event: &'static str,
    /// Tool-name matcher.
    pub matcher: Option<&'static str>,
    /// What it answers.
    pub behaviour: HookBehaviour,
}

/// How a hook answers.
#[derive(Debug, Clone)]
pub enum HookBehaviour {
    /// `{}`: no opinion.
    NoOpinion,
    /// PreToolUse deny with this reason.
    Deny(String),
    /// Additional context for the model.
    Context(String),
    /// Panic.
    Panic,
}

/// Everything an adapter needs to start one session for a scenario.
#[derive(Debug, Clone)]
pub struct Spec {
    /// The `fake-claude` binary.
    pub fake: PathBuf,
    /// `FAKE_CLAUDE_SCENARIO`.
    pub scenario: &'static str,
    /// Extra environment for the fake.
    pub env: Vec<(String, String)>,
    /// The permission handler, if any.
    pub permission: Option<Permission>,
    /// Hooks to register.
    pub hooks: Vec<Hook>,
    /// Host the `calc` MCP server with an `add` tool (a + b).
    pub mcp_calc: bool,
    /// Protocol limits.
    pub config: Config,
    /// Close policy.
    pub shutdown: ShutdownPolicy,
}

impl Spec {
    /// A spec for `scenario` with no handlers and default limits.
    pub fn new(fake: PathBuf, scenario: &'static str) -> Self {
        Self {
            fake,
            scenario,
            env: Vec::new(),
            permission: None,
            hooks: Vec::new(),
            mcp_calc: false,
            config: Config::default(),
            shutdown: ShutdownPolicy::default(),
        }
    }

    /// Adds an environment variable for the fake.
    pub fn env(mut self, name: &str, value: impl Into<String>) -> Self {
        self.env.push((name.to_owned(), value.into()));
        self
    }

    /// The options to start the fake with.
    pub fn options(&self) -> claude_proto::options::Options {
        let mut options = claude_proto::options::Options::default()
            .cli_path(&self.fake)
            .env("FAKE_CLAUDE_SCENARIO", self.scenario);
        for (name, value) in &self.env {
            options = options.env(name, value);
        }
        options
    }

    /// The answer of the `calc.add` tool for `arguments`.
    pub fn calc_add(arguments: &Value) -> Result<String, String> {
        let a = arguments["a"].as_f64().ok_or("a is not a number")?;
        let b = arguments["b"].as_f64().ok_or("b is not a number")?;
        Ok(format!("{}", a + b))
    }

    /// The JSON Schema of `calc.add`.
    pub fn calc_schema() -> Value {
        json!({"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]})
    }
}

/// What a session showed its user, adapter-independent.
#[derive(Debug)]
pub enum Observed {
    /// A message.
    Message(Message),
    /// A protocol error.
    ProtocolError(ProtocolErrorKind),
    /// A handler failed.
    HandlerFailed(String),
    /// Anything else.
    Other(String),
}

impl From<claude_proto_process::Event> for Observed {
    fn from(event: claude_proto_process::Event) -> Self {
        match event {
            claude_proto_process::Event::Message(m) => Observed::Message(m),
            claude_proto_process::Event::ProtocolError(e) => Observed::ProtocolError(e.kind),
            claude_proto_process::Event::HandlerFailed { subtype, .. } => {
                Observed::HandlerFailed(subtype)
            }
            other => Observed::Other(format!("{other:?}")),
        }
    }
}

/// One running session of the adapter under test, driven synchronously.
pub trait Driver: Send {
    /// The child's pid.
    fn pid(&self) -> Option<u32>;
    /// Waits for the initialize answer.
    fn initialization(&mut self) -> Result<InitializeResponse, Error>;
    /// Sends a text prompt.
    fn send_text(&mut self, text: &str) -> Result<(), Error>;
    /// The next event, `None` at the end.
    fn next_event(&mut self) -> Option<Observed>;
    /// Any control request.
    fn control(
        &mut self,
        request: ControlRequest,
        timeout: Option<Duration>,
    ) -> Result<ControlSuccess, Error>;
    /// Closes gracefully and reports the exit.
    fn close(self: Box<Self>) -> Result<Option<ExitReport>, Error>;
    /// Drops the session without closing it.
    fn abandon(self: Box<Self>);
}

/// An adapter under test.
pub trait Harness {
    /// The adapter's name, for messages.
    const NAME: &'static str;
    /// Starts a session.
    fn start(spec: Spec) -> Result<Box<dyn Driver>, Error>;
    /// Runs `sessions` single-turn sessions at once in one runtime (or
    /// thread pool); each sends `hello <n>` and returns its result text.
    fn run_concurrently(specs: Vec<Spec>) -> Vec<Result<String, Error>>;
}

/// A finished turn.
#[derive(Debug)]
pub struct TurnInfo {
    /// Every message of the turn, typed.
    pub messages: Vec<StdoutMessage>,
    /// Everything else seen during the turn.
    pub other: Vec<Observed>,
    /// The result's `subtype`.
    pub subtype: String,
    /// The result's `is_error`.
    pub is_error: bool,
    /// The result text (or the errors joined).
    pub text: String,
}

/// Reads events up to the next `result`.
pub fn turn(driver: &mut dyn Driver) -> Result<TurnInfo, String> {
    let mut messages = Vec::new();
    let mut other = Vec::new();
    while let Some(event) = driver.next_event() {
        let Observed::Message(message) = event else {
            other.push(event);
            continue;
        };
        let typed = message.parse().map_err(|e| e.to_string())?;
        if let StdoutMessage::Unknown(_) = typed {
            if !matches!(message.message_type(), MessageType::Unknown(_)) {
                return Err(format!(
                    "the typed model rejected a {} line: {}",
                    message.message_type(),
                    String::from_utf8_lossy(message.as_bytes())
                ));
            }
        }
        if let StdoutMessage::Result(result) = &typed {
            let text = result
                .result
                .clone()
                .or_else(|| result.errors.as_ref().map(|e| e.join("; ")))
                .unwrap_or_default();
            let subtype = result.subtype.to_string();
            let is_error = result.is_error;
            messages.push(typed);
            return Ok(TurnInfo {
                messages,
                other,
                subtype,
                is_error,
                text,
            });
        }
        messages.push(typed);
    }
    Err("the event stream ended before a result".into())
}

fn must<T, E: std::fmt::Debug>(what: &str, result: Result<T, E>) -> T {
    match result {
        Ok(v) => v,
        Err(e) => panic!("{what}: {e:?}"),
    }
}

/// The exit report of an error, if it carries one.
pub fn exit_of(error: &Error) -> Option<&ExitReport> {
    match error {
        Error::Exited(report) => Some(report),
        _ => None,
    }
}

fn init_models(init: &InitializeResponse) -> usize {
    init.models.len()
}

// ----- scenarios ------------------------------------------------------------

/// One prompt, one answer, a clean exit.
pub fn single_turn<H: Harness>(fake: PathBuf) {
    let mut s = must("start", H::start(Spec::new(fake, "echo")));
    let init = must("initialize", s.initialization());
    assert!(
        init_models(&init) > 0,
        "{}: initialize answer lacks models",
        H::NAME
    );
    must("send", s.send_text("hello"));
    let t = must("turn", turn(&mut *s));
    assert_eq!(t.text, "echo: hello");
    assert_eq!(t.subtype, "success");
    assert!(!t.is_error);
    assert!(
        t.messages
            .iter()
            .any(|m| matches!(m, StdoutMessage::Assistant(_))),
        "no assistant message"
    );
    let report = must("close", s.close()).expect("a process exit");
    assert!(report.success(), "{report}");
}

/// Several turns on one session, with a model switch between them.
pub fn multi_turn<H: Harness>(fake: PathBuf) {
    let mut s = must("start", H::start(Spec::new(fake, "echo")));
    for (i, word) in ["one", "two", "three"].iter().enumerate() {
        if i == 1 {
            must(
                "set_model",
                s.control(ControlRequest::set_model(Some("fake-model-2")), None),
            );
        }
        must("send", s.send_text(word));
        let t = must("turn", turn(&mut *s));
        assert_eq!(t.text, format!("echo: {word}"));
        let init_model = t.messages.iter().find_map(|m| match m {
            StdoutMessage::System(sys) => serde_json::to_value(sys)
                .ok()
                .and_then(|v| v["model"].as_str().map(str::to_owned)),
            _ => None,
        });
        if i >= 1 {
            assert_eq!(init_model.as_deref(), Some("fake-model-2"), "turn {i}");
        }
    }
    must("close", s.close());
}

/// A prompt written before the CLI answers `initialize` is still served.
pub fn prompt_before_initialize<H: Harness>(fake: PathBuf) {
    let spec = Spec::new(fake, "echo").env("FAKE_CLAUDE_INIT_DELAY_LINES", "1");
    let mut s = must("start", H::start(spec));
    must("send", s.send_text("early"));
    let t = must("turn", turn(&mut *s));
    assert_eq!(t.text, "echo: early");
    must("initialize", s.initialization());
    must("close", s.close());
}

fn permission_turn<H: Harness>(fake: PathBuf, permission: Permission, prompt: &str) -> TurnInfo {
    let mut spec = Spec::new(fake, "permission");
    spec.permission = Some(permission);
    let mut s = must("start", H::start(spec));
    must("send", s.send_text(prompt));
    let t = must("turn", turn(&mut *s));
    // The session stays usable after whatever the handler did.
    must("send", s.send_text(prompt));
    must("second turn", turn(&mut *s));
    must("close", s.close());
    t
}

/// The permission handler allows; the tool_use_id is echoed.
pub fn permission_allow<H: Harness>(fake: PathBuf) {
    let t = permission_turn::<H>(
        fake,
        Permission::Allow,
        r#"{"tool":"Bash","input":{"command":"ls"}}"#,
    );
    assert_eq!(
        t.text,
        r#"allowed {"command":"ls"} tool_use_id_echoed=true"#
    );
}

/// The permission handler allows with a different input.
pub fn permission_updated_input<H: Harness>(fake: PathBuf) {
    let t = permission_turn::<H>(
        fake,
        Permission::AllowWithInput(json!({"command": "ls -la"})),
        r#"{"tool":"Bash","input":{"command":"rm -rf /"}}"#,
    );
    assert_eq!(
        t.text,
        r#"allowed {"command":"ls -la"} tool_use_id_echoed=true"#
    );
}

/// The permission handler denies.
pub fn permission_deny<H: Harness>(fake: PathBuf) {
    let t = permission_turn::<H>(fake, Permission::Deny("not today".into()), "rm -rf /");
    assert_eq!(t.text, "denied not today tool_use_id_echoed=true");
}

/// Deny with interrupt ends the turn as an error.
pub fn permission_deny_interrupt<H: Harness>(fake: PathBuf) {
    let t = permission_turn::<H>(fake, Permission::DenyAndInterrupt("stop".into()), "ls");
    assert_eq!(t.subtype, "error_during_execution");
}

/// A handler that panics or fails denies the tool; the session goes on.
pub fn permission_handler_failure<H: Harness>(fake: PathBuf) {
    for permission in [Permission::Panic, Permission::Fail("handler broke".into())] {
        let t = permission_turn::<H>(fake.clone(), permission, "ls");
        assert!(t.text.starts_with("denied "), "{}", t.text);
        assert!(
            t.other
                .iter()
                .any(|o| matches!(o, Observed::HandlerFailed(s) if s == "can_use_tool")),
            "no handler failure reported: {:?}",
            t.other
        );
    }
}

/// Hooks are registered in initialize, routed by callback id, and their
/// outputs reach the CLI.
pub fn hook_routing<H: Harness>(fake: PathBuf) {
    let hooks_turn = |hooks: Vec<Hook>| -> Vec<Value> {
        let mut spec = Spec::new(fake.clone(), "hooks");
        spec.hooks = hooks;
        let mut s = must("start", H::start(spec));
        must("send", s.send_text("go"));
        let t = must("turn", turn(&mut *s));
        must("close", s.close());
        let answers: Value = must(
            "hooks result",
            serde_json::from_str(t.text.trim_start_matches("hooks ")),
        );
        answers.as_array().cloned().expect("an array of answers")
    };
    let pre = |matcher, behaviour| Hook {
        event: "PreToolUse",
        matcher: Some(matcher),
        behaviour,
    };

    // The matcher for another tool is never called; the Bash one is, and
    // its "no opinion" lets the tool run, so PostToolUse follows.
    let answers = hooks_turn(vec![
        pre("Write", HookBehaviour::Deny("never called".into())),
        pre("Bash", HookBehaviour::NoOpinion),
        Hook {
            event: "PostToolUse",
            matcher: None,
            behaviour: HookBehaviour::Context("saw it".into()),
        },
    ]);
    assert_eq!(answers.len(), 2, "{answers:?}");
    assert_eq!(answers[0]["callback_id"], "hook_1");
    assert_eq!(answers[0]["response"], json!({}));
    assert_eq!(answers[1]["callback_id"], "hook_2");
    assert_eq!(
        answers[1]["response"]["hookSpecificOutput"]["additionalContext"],
        "saw it"
    );

    // A PreToolUse deny blocks the tool: no PostToolUse call.
    let answers = hooks_turn(vec![
        pre("Bash", HookBehaviour::Deny("no shell".into())),
        Hook {
            event: "PostToolUse",
            matcher: None,
            behaviour: HookBehaviour::Context("unreachable".into()),
        },
    ]);
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert_eq!(answers[0]["callback_id"], "hook_0");
    let output = &answers[0]["response"]["hookSpecificOutput"];
    assert_eq!(output["permissionDecision"], "deny");
    assert_eq!(output["permissionDecisionReason"], "no shell");
}

/// A hook that panics is answered with an error (the CLI then continues).
pub fn hook_failure<H: Harness>(fake: PathBuf) {
    let mut spec = Spec::new(fake, "hooks");
    spec.hooks = vec![Hook {
        event: "PreToolUse",
        matcher: None,
        behaviour: HookBehaviour::Panic,
    }];
    let mut s = must("start", H::start(spec));
    must("send", s.send_text("go"));
    let t = must("turn", turn(&mut *s));
    let answers: Value = must(
        "hooks",
        serde_json::from_str(t.text.trim_start_matches("hooks ")),
    );
    assert!(answers[0]["response"]["error"].is_string(), "{answers}");
    must("close", s.close());
}

/// An in-process MCP tool: handshake, listing, a call, an unknown method.
pub fn mcp_round_trip<H: Harness>(fake: PathBuf) {
    let mut spec = Spec::new(fake, "mcp");
    spec.mcp_calc = true;
    let mut s = must("start", H::start(spec));
    must(
        "send",
        s.send_text(r#"{"tool":"add","arguments":{"a":2,"b":3}}"#),
    );
    let t = must("turn", turn(&mut *s));
    let report: Value = must(
        "mcp result",
        serde_json::from_str(t.text.trim_start_matches("mcp ")),
    );
    assert_eq!(report["initialize"]["result"]["serverInfo"]["name"], "calc");
    // "tools" is the tools/list result itself.
    assert_eq!(report["tools"]["tools"][0]["name"], "add");
    assert_eq!(report["call"]["result"]["content"][0]["text"], "5");
    assert_eq!(report["unknown"]["error"]["code"], -32601);
    must("close", s.close());
}

/// Interrupt during a slow stream ends the turn with an error result.
pub fn interrupt_mid_turn<H: Harness>(fake: PathBuf) {
    let mut s = must("start", H::start(Spec::new(fake, "slow_stream")));
    must("send", s.send_text("tick"));
    // Wait for the stream to be under way.
    loop {
        match s.next_event() {
            Some(Observed::Message(m)) if *m.message_type() == MessageType::StreamEvent => break,
            Some(_) => continue,
            None => panic!("ended before streaming"),
        }
    }
    must("interrupt", s.control(ControlRequest::interrupt(), None));
    let t = must("turn", turn(&mut *s));
    assert_eq!(t.subtype, "error_during_execution");
    assert!(t.is_error);
    must("close", s.close());
}

/// The CLI cancels a pending permission prompt: the handler is stopped
/// (its future dropped) and no late answer is sent.
pub fn cancel_stops_handler<H: Harness>(fake: PathBuf) {
    let probe = Arc::new(CancelProbe::default());
    let mut spec = Spec::new(fake, "cancel");
    spec.permission = Some(Permission::FirstWaitsForever(probe.clone()));
    let mut s = must("start", H::start(spec));
    must("send", s.send_text("go"));
    let t = must("turn", turn(&mut *s));
    assert_eq!(t.text, "cancel late_answers_for_A=0 b_answered=true");
    assert!(
        probe.dropped.load(Ordering::SeqCst),
        "the cancelled handler's future was not dropped"
    );
    assert_eq!(probe.calls.load(Ordering::SeqCst), 2);
    let report = must("close", s.close()).expect("exit");
    assert!(
        report
            .stderr_tail
            .contains("late answers for cancelled requests: 0"),
        "{report}"
    );
}

/// A control request the CLI never answers times out, naming its subtype;
/// the session goes on.
pub fn control_request_timeout<H: Harness>(fake: PathBuf) {
    let mut s = must("start", H::start(Spec::new(fake, "silent")));
    let error = s
        .control(
            ControlRequest::mcp_status(),
            Some(Duration::from_millis(200)),
        )
        .expect_err("mcp_status must time out");
    match &error {
        Error::Control(ControlError::TimedOut { subtype, .. }) => assert_eq!(subtype, "mcp_status"),
        other => panic!("expected a timeout, got {other:?}"),
    }
    assert!(error.to_string().contains("mcp_status"), "{error}");
    must("send", s.send_text("still here"));
    assert_eq!(must("turn", turn(&mut *s)).text, "echo: still here");
    must("close", s.close());
}

/// The CLI exits mid-turn: the turn and pending requests fail with its
/// exit code and stderr.
pub fn exit_mid_turn<H: Harness>(fake: PathBuf) {
    let mut s = must("start", H::start(Spec::new(fake, "exit_mid_turn")));
    must("initialize", s.initialization());
    must("send", s.send_text("crash please"));
    let pending = s.control(ControlRequest::get_context_usage(), None);
    if let Err(e) = &pending {
        if let Some(report) = exit_of(e) {
            assert_eq!(report.code, Some(3));
        }
    } else {
        panic!("the fake answers nothing in this scenario");
    }
    let error = turn(&mut *s).expect_err("no result before the exit");
    assert!(error.contains("ended"), "{error}");
    let report = must("close", s.close()).expect("exit report");
    assert_eq!(report.code, Some(3));
    assert!(report.stderr_tail.contains("simulated crash"), "{report}");
    assert!(report.to_string().contains("code 3"));
}

/// A CLI that dies before answering `initialize` fails it at once with its
/// exit status, not after the request timeout.
pub fn exit_before_initialize<H: Harness>(fake: PathBuf) {
    let mut spec = Spec::new(fake, "exit_mid_turn").env("FAKE_CLAUDE_EXIT_BEFORE_INIT", "1");
    // If the session waited for the timeout, the test would report a
    // timeout instead of the exit.
    spec.config.request_timeout = Duration::from_secs(600);
    let mut s = must("start", H::start(spec));
    let error = s.initialization().expect_err("initialize cannot succeed");
    let report = exit_of(&error).unwrap_or_else(|| panic!("expected the exit, got {error:?}"));
    assert_eq!(report.code, Some(2));
    assert!(report.stderr_tail.contains("startup failed"), "{report}");
    assert!(s.send_text("anyone?").is_err());
}

/// Garbage and over-long lines are reported and the session goes on.
pub fn garbage_lines<H: Harness>(fake: PathBuf) {
    let mut spec = Spec::new(fake, "garbage");
    spec.config.max_line_bytes = 1024 * 1024;
    let mut s = must("start", H::start(spec));
    must("send", s.send_text("survive"));
    let t = must("turn", turn(&mut *s));
    assert_eq!(t.text, "echo: survive");
    let kinds: Vec<&ProtocolErrorKind> = t
        .other
        .iter()
        .filter_map(|o| match o {
            Observed::ProtocolError(k) => Some(k),
            _ => None,
        })
        .collect();
    assert!(
        kinds
            .iter()
            .any(|k| matches!(k, ProtocolErrorKind::InvalidJson { .. })),
        "{kinds:?}"
    );
    assert!(
        kinds
            .iter()
            .any(|k| matches!(k, ProtocolErrorKind::NotAnObject)),
        "{kinds:?}"
    );
    assert!(
        kinds
            .iter()
            .any(|k| matches!(k, ProtocolErrorKind::LineTooLong { .. })),
        "{kinds:?}"
    );
    assert!(
        kinds
            .iter()
            .any(|k| matches!(k, ProtocolErrorKind::InvalidUtf8 { .. })),
        "{kinds:?}"
    );
    assert!(
        t.messages
            .iter()
            .any(|m| matches!(m, StdoutMessage::Unknown(_))),
        "the unknown message type was not delivered"
    );
    must("close", s.close());
}

/// 100k messages read by a slow consumer all arrive, in order.
pub fn flood_with_slow_consumer<H: Harness>(fake: PathBuf) {
    const COUNT: usize = 100_000;
    let spec = Spec::new(fake, "flood").env("FAKE_CLAUDE_FLOOD_COUNT", COUNT.to_string());
    let mut s = must("start", H::start(spec));
    must("send", s.send_text("flood"));
    let mut seen = 0usize;
    loop {
        match s.next_event() {
            Some(Observed::Message(m)) if m.is_result() => break,
            Some(Observed::Message(m)) if *m.message_type() == MessageType::StreamEvent => {
                let Ok(StdoutMessage::StreamEvent(e)) = m.parse() else {
                    panic!("stream event did not parse")
                };
                if let StreamEvent::ContentBlockDelta(_) = &e.event {
                    seen += 1;
                }
                if seen % 1000 == 0 {
                    std::thread::yield_now();
                }
            }
            Some(_) => {}
            None => panic!("ended early after {seen}"),
        }
    }
    assert_eq!(seen, COUNT);
    must("close", s.close());
}

/// A CLI that writes megabytes to stderr before answering does not stall.
pub fn stderr_flood<H: Harness>(fake: PathBuf) {
    let mut s = must("start", H::start(Spec::new(fake, "stderr_flood")));
    must("initialize", s.initialization());
    must("send", s.send_text("hi"));
    assert_eq!(must("turn", turn(&mut *s)).text, "echo: hi");
    must("close", s.close());
}

/// Many sessions at once in one runtime.
pub fn many_concurrent_sessions<H: Harness>(fake: PathBuf) {
    const N: usize = 24;
    let specs = (0..N).map(|_| Spec::new(fake.clone(), "echo")).collect();
    let results = H::run_concurrently(specs);
    assert_eq!(results.len(), N);
    for (i, result) in results.into_iter().enumerate() {
        assert_eq!(must("session", result), format!("echo: hello {i}"));
    }
}

/// Dropping a session without closing it leaves no process behind.
pub fn drop_without_close<H: Harness>(fake: PathBuf) {
    let s = must("start", H::start(Spec::new(fake, "echo")));
    let pid = s.pid().expect("a child process");
    assert!(
        crate::process::is_running(pid),
        "the child should be running"
    );
    s.abandon();
    assert!(
        crate::process::wait_until_gone(pid, Duration::from_secs(20)),
        "process {pid} still exists after the session was dropped"
    );
}

/// A CLI that ignores SIGTERM is killed once the terminate grace is over;
/// closing returns with the kill in the report and no process left.
pub fn close_kills_a_child_that_ignores_sigterm<H: Harness>(fake: PathBuf) {
    let mut spec = Spec::new(fake, "ignore_stdin").env("FAKE_CLAUDE_IGNORE_SIGTERM", "1");
    spec.shutdown = ShutdownPolicy::new(Duration::from_millis(50), Duration::from_millis(50));
    let s = must("start", H::start(spec));
    let pid = s.pid().expect("a child process");
    let report = must("close", s.close()).expect("an exit report");
    assert_eq!(
        report.signal,
        Some(9),
        "expected SIGKILL after SIGTERM was ignored: {report}"
    );
    assert!(
        crate::process::wait_until_gone(pid, Duration::from_secs(20)),
        "process {pid} is still there"
    );
}

/// A CLI that never reads its stdin: what we send piles up in the pipe and
/// our buffer, but the session keeps running and closes (SIGTERM).
pub fn child_that_never_reads_stdin_does_not_stall<H: Harness>(fake: PathBuf) {
    let mut spec = Spec::new(fake, "ignore_stdin");
    spec.shutdown = ShutdownPolicy::new(Duration::from_millis(50), Duration::from_secs(10));
    let mut s = must("start", H::start(spec));
    let pid = s.pid().expect("a child process");
    // 512 KiB: far more than a pipe holds, less than the backlog at which
    // sends start waiting (backpressure).
    let chunk = "x".repeat(64 * 1024);
    for _ in 0..8 {
        must("send", s.send_text(&chunk));
    }
    let report = must("close", s.close()).expect("an exit report");
    assert_eq!(report.signal, Some(15), "expected SIGTERM: {report}");
    assert!(crate::process::wait_until_gone(
        pid,
        Duration::from_secs(20)
    ));
}

/// Instantiates every scenario as a `#[test]` for a [`Harness`].
#[macro_export]
macro_rules! conformance_suite {
    ($harness:ty, $fake:expr) => {
        $crate::conformance_suite!(@tests $harness, $fake;
            single_turn, multi_turn, prompt_before_initialize, permission_allow,
            permission_updated_input, permission_deny, permission_deny_interrupt,
            permission_handler_failure, hook_routing, hook_failure, mcp_round_trip,
            interrupt_mid_turn, cancel_stops_handler, control_request_timeout,
            exit_mid_turn, exit_before_initialize, garbage_lines,
            flood_with_slow_consumer, stderr_flood, many_concurrent_sessions,
            drop_without_close, close_kills_a_child_that_ignores_sigterm,
            child_that_never_reads_stdin_does_not_stall);
    };
    (@tests $harness:ty, $fake:expr; $($name:ident),+ $(,)?) => {
        $(
            #[test]
            fn $name() {
                $crate::conformance::$name::<$harness>(::std::path::PathBuf::from($fake));
            }
        )+
    };
}
