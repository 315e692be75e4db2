//! One conformance suite for every adapter.
//!
//! Each scenario is written once against the [`Harness`] and [`Driver`]
//! traits; an adapter implements them (translating a [`Spec`] into its own
//! handlers) and instantiates the whole suite with [`conformance_suite!`](crate::conformance_suite).
//! The CLI is the test kit's binary (this package's `testkit-cli`) serving
//! the [`Behaviour`] of [`Spec::behaviour`]: the same scripted CLI our users
//! test their agents with. What the program answered is read back from the
//! CLI's verdict ([`Spec::with_verdict`]).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, Instant};

use claude_proto::model::MessageType;
use claude_proto::model::control::ControlRequest;
use claude_proto::model::initialize::InitializeResponse;
use claude_proto::model::stdout::StdoutMessage;
use claude_proto::model::stream::StreamEvent;
use claude_proto::{Config, ControlSuccess, Message, ProtocolErrorKind};
use claude_proto_host::{Error, Event, ExitReport, Limits, SpawnError, Stall, Turn};
use claude_proto_testkit::{BadLine, Behaviour, Extra, Policy};
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
    /// Signalled when `dropped` is set.
    changed: (Mutex<()>, Condvar),
}

impl CancelProbe {
    /// Waits until the first call's future (or, for a blocking handler,
    /// its wait) has been dropped, at most `limit`; `true` if it has. A
    /// blocking handler that starts after the CLI withdrew its request
    /// learns of it when it registers its callback, which may be after the
    /// turn has ended.
    pub fn wait_dropped(&self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        let (lock, changed) = &self.changed;
        let mut guard = lock.lock().unwrap_or_else(PoisonError::into_inner);
        while !self.dropped.load(Ordering::SeqCst) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            guard = changed
                .wait_timeout(guard, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        true
    }
}

/// Sets [`CancelProbe::dropped`] when dropped; moved into the future.
#[derive(Debug)]
pub struct DropFlag(pub Arc<CancelProbe>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        let (lock, changed) = &self.0.changed;
        let _guard = lock.lock().unwrap_or_else(PoisonError::into_inner);
        self.0.dropped.store(true, Ordering::SeqCst);
        changed.notify_all();
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
    /// Fail (an error answer), registered with `on_failure: block`: the CLI
    /// must then block what the hook guards.
    FailClosed,
    /// A typed `PreToolUse` hook (an `async fn` for the async adapters, a
    /// plain `fn` for blocking) that reads the event's own input and
    /// denies with [`TypedGuard::reason`] of it.
    TypedGuard,
}

/// The typed `PreToolUse` hook of [`HookBehaviour::TypedGuard`], written
/// once for every adapter.
#[derive(Debug, Clone, Copy)]
pub struct TypedGuard;

impl TypedGuard {
    /// The deny reason for a typed input: names the tool, the command and
    /// whether the tool use id arrived.
    pub fn reason(input: &claude_proto::model::hooks::PreToolUseInput) -> String {
        let command = input.tool_input["command"].as_str().unwrap_or_default();
        format!(
            "typed guard: {} `{command}` (id {})",
            input.tool_name,
            if input.tool_use_id.is_empty() {
                "missing"
            } else {
                "present"
            }
        )
    }

    /// The guard's answer.
    pub fn answer(
        input: &claude_proto::model::hooks::PreToolUseInput,
    ) -> claude_proto::model::hooks::PreToolUseOutput {
        claude_proto::model::hooks::PreToolUseOutput::deny(Self::reason(input))
    }
}

/// Everything an adapter needs to start one session for a scenario.
#[derive(Debug, Clone)]
pub struct Spec {
    /// The CLI: the test kit's binary (this package's `testkit-cli`).
    pub cli: PathBuf,
    /// What the test kit's CLI does, served by itself.
    pub behaviour: Behaviour,
    /// Where the test kit's CLI writes its verdict (what it received), if
    /// anywhere; read it with [`Spec::verdict`].
    pub verdict_file: Option<PathBuf>,
    /// Extra environment for the CLI.
    pub env: Vec<(String, String)>,
    /// The permission handler, if any.
    pub permission: Option<Permission>,
    /// Hooks to register.
    pub hooks: Vec<Hook>,
    /// Host the `calc` MCP server with an `add` tool (a + b).
    pub mcp_calc: bool,
    /// Host the `calc` MCP server as an endpoint that speaks MCP itself
    /// ([`CalcEndpoint`](crate::endpoint::CalcEndpoint)).
    pub mcp_endpoint: bool,
    /// Host the `calc` MCP server with a typed `add` tool ([`TypedAdd`]
    /// arguments, a [`TypedSum`] result).
    pub mcp_typed: bool,
    /// Protocol limits.
    pub config: Config,
    /// The host's byte budgets, handler concurrency and grace periods.
    pub limits: Limits,
    /// The stderr callback, if any.
    pub on_stderr: Option<StderrFn>,
    /// The CLI's working directory (`None`: the test's).
    pub cwd: Option<PathBuf>,
    /// A custom system prompt, set on the options.
    pub system_prompt: Option<String>,
    /// Register the elicitation and user-dialog handlers of [`Dialogs`].
    pub dialogs: bool,
    /// The session store to mirror to and resume from.
    pub store: Option<claude_proto_adapter::StoreSettings>,
    /// Resume this session (`--resume`).
    pub resume: Option<String>,
    /// Start the CLI in a process group of its own (the default).
    pub own_process_group: bool,
    /// `--mcp-config` for the CLI (which ignores it).
    pub mcp_config: Option<Value>,
    /// Inline `--settings` for the CLI (which ignores them).
    pub settings: Option<Value>,
}

/// The elicitation and user-dialog handlers of [`Spec::dialogs`], written
/// once for every adapter.
#[derive(Debug, Clone, Copy)]
pub struct Dialogs;

impl Dialogs {
    /// The dialog kinds the handler shows.
    pub const KINDS: [&'static str; 1] = ["refusal_fallback_prompt"];

    /// Accepts "Which repo?" with `{"repo": "a/b"}`; declines anything else.
    pub fn elicit(
        request: &claude_proto::model::incoming::ElicitationRequest,
    ) -> claude_proto::model::incoming::ElicitationResult {
        use claude_proto::model::incoming::ElicitationResult;
        if request.message == "Which repo?" {
            ElicitationResult::accept(json!({"repo": "a/b"}))
        } else {
            ElicitationResult::decline()
        }
    }

    /// Completes the dialog with `"retry"`.
    pub fn show(
        request: &claude_proto::model::incoming::UserDialogRequest,
    ) -> claude_proto::model::incoming::UserDialogResult {
        claude_proto::model::incoming::UserDialogResult::completed(json!({
            "kind": request.dialog_kind,
            "choice": "retry",
        }))
    }
}

/// A stderr callback for a [`Spec`].
#[derive(Clone)]
pub struct StderrFn(pub Arc<dyn Fn(&str) + Send + Sync>);

impl std::fmt::Debug for StderrFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StderrFn")
    }
}

impl Spec {
    /// A spec for the test kit's CLI at `cli` serving `behaviour`, with no
    /// handlers and default limits.
    pub fn new(cli: PathBuf, behaviour: Behaviour) -> Self {
        Self {
            cli,
            behaviour,
            verdict_file: None,
            env: Vec::new(),
            permission: None,
            hooks: Vec::new(),
            mcp_calc: false,
            mcp_typed: false,
            mcp_endpoint: false,
            config: Config::default(),
            limits: Limits::default(),
            on_stderr: None,
            cwd: None,
            system_prompt: None,
            dialogs: false,
            store: None,
            resume: None,
            own_process_group: true,
            mcp_config: None,
            settings: None,
        }
    }

    /// Asks the test kit's CLI for its verdict (read it with
    /// [`Spec::verdict`] once the session has closed).
    pub fn with_verdict(mut self) -> Self {
        self.verdict_file = Some(temp_path("verdict"));
        self
    }

    /// The verdict of the test kit's CLI (what it received, its
    /// `initialize` request), once the session has closed; the file is
    /// removed.
    pub fn verdict(&self) -> claude_proto_testkit::Report {
        let path = self.verdict_file.as_ref().expect("Spec::with_verdict");
        let verdict = must(
            "the verdict",
            claude_proto_testkit::child::outcome_from_file(path),
        );
        let _ = std::fs::remove_file(path);
        must("the scripted CLI's run", verdict.outcome)
    }

    /// Adds an environment variable for the CLI.
    pub fn env(mut self, name: &str, value: impl Into<String>) -> Self {
        self.env.push((name.to_owned(), value.into()));
        self
    }

    /// The options to start the CLI with.
    pub fn options(&self) -> claude_proto::options::Options {
        let options = claude_proto::options::Options::default();
        let mut options =
            claude_proto_testkit::child::serve_options(options, &self.cli, &self.behaviour);
        if let Some(path) = &self.verdict_file {
            options = options.env(claude_proto_testkit::child::OUTCOME_ENV, path);
        }
        for (name, value) in &self.env {
            options = options.env(name, value);
        }
        if let Some(cwd) = &self.cwd {
            options = options.cwd(cwd);
        }
        if let Some(prompt) = &self.system_prompt {
            options = options.system_prompt(prompt.as_str());
        }
        if let Some(id) = &self.resume {
            options = options.resume(id.as_str());
        }
        if let Some(config) = &self.mcp_config {
            options = options.mcp_config(config.clone());
        }
        if let Some(settings) = &self.settings {
            options = options.settings(claude_proto::options::Settings::Inline(settings.clone()));
        }
        options.own_process_group(self.own_process_group)
    }

    /// The answer of the `calc.add` tool for `arguments`.
    pub fn calc_add(arguments: &Value) -> Result<String, String> {
        let a = arguments["a"].as_f64().ok_or("a is not a number")?;
        let b = arguments["b"].as_f64().ok_or("b is not a number")?;
        Ok(format!("{}", a + b))
    }

    /// The answer of the `calc.mul` tool (added while the session runs,
    /// see [`ToolChange`]) for `arguments`.
    pub fn calc_mul(arguments: &Value) -> Result<String, String> {
        let a = arguments["a"].as_f64().ok_or("a is not a number")?;
        let b = arguments["b"].as_f64().ok_or("b is not a number")?;
        Ok(format!("{}", a * b))
    }

    /// The `calc.mul` tool's output for `arguments`.
    pub fn calc_mul_output(arguments: &Value) -> claude_proto::dispatch::ToolOutput {
        match Self::calc_mul(arguments) {
            Ok(product) => claude_proto::dispatch::ToolOutput::text(product),
            Err(e) => claude_proto::dispatch::ToolOutput::error(e),
        }
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

impl From<Event> for Observed {
    fn from(event: Event) -> Self {
        match event {
            Event::Message(m) => Observed::Message(m),
            Event::ProtocolError(e) => Observed::ProtocolError(e.kind),
            Event::HandlerFailed { subtype, .. } => Observed::HandlerFailed(subtype),
            other => Observed::Other(format!("{other:?}")),
        }
    }
}

/// A change of in-process MCP tools while the session runs.
#[derive(Debug, Clone, Copy)]
pub enum ToolChange<'a> {
    /// Add the `mul` tool ([`Spec::calc_mul`], [`Spec::calc_schema`]) to
    /// this server.
    AddMul(&'a str),
    /// Remove this tool from this server.
    Remove(&'a str, &'a str),
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
    /// Drops the runtime the session runs on while the session is still
    /// held (its tasks go with the runtime), then the session. `false` if
    /// this session has no runtime of its own to drop: it is then just
    /// dropped, as [`abandon`](Self::abandon) does.
    fn drop_runtime(self: Box<Self>) -> bool {
        self.abandon();
        false
    }
    /// Drops the session's handle, then the runtime it runs on (the order
    /// of a program that leaves a scope holding both). `false` if this
    /// session has no runtime of its own to drop: it is then just dropped,
    /// as [`abandon`](Self::abandon) does.
    fn drop_handle_then_runtime(self: Box<Self>) -> bool {
        self.abandon();
        false
    }
    /// The running session as its `Debug` shows it; `None` if this
    /// harness does not show it.
    fn debug_view(&self) -> Option<String> {
        None
    }
    /// The adapter's own `query`: sends `prompt` and collects its turn.
    /// With a `limit`, the query is given up (dropped, or abandoned) once
    /// it passes: `Ok(None)`. `None` if this harness has no `query` (the
    /// scenarios that need it are then skipped, loudly).
    fn query(
        &mut self,
        prompt: &str,
        limit: Option<Duration>,
    ) -> Option<Result<Option<Turn>, Error>> {
        let _ = (prompt, limit);
        None
    }
    /// Changes the in-process MCP tools through the controller's
    /// `add_tool`/`remove_tool`; `None` if this harness cannot (the
    /// scenario is then skipped, loudly).
    fn change_tools(&mut self, change: ToolChange<'_>) -> Option<Result<(), Error>> {
        let _ = change;
        None
    }
    /// Waits until the session store has every mirrored line
    /// (`flush_mirror`); `None` if this harness cannot (the scenario then
    /// relies on `close`, which waits for the last lines too).
    fn flush_mirror(&mut self) -> Option<Result<(), Error>> {
        None
    }
}

/// An adapter under test.
pub trait Harness {
    /// The adapter's name, for messages.
    const NAME: &'static str;
    /// Starts a session.
    fn start(spec: Spec) -> Result<Box<dyn Driver>, SpawnError>;
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
    error.exit_report()
}

fn init_models(init: &InitializeResponse) -> usize {
    init.models.len()
}

// ----- scenarios ------------------------------------------------------------

/// One prompt, one answer, a clean exit.
pub fn single_turn<H: Harness>(cli: PathBuf) {
    let mut s = must("start", H::start(Spec::new(cli, Behaviour::default())));
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
pub fn multi_turn<H: Harness>(cli: PathBuf) {
    let mut s = must("start", H::start(Spec::new(cli, Behaviour::default())));
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
pub fn prompt_before_initialize<H: Harness>(cli: PathBuf) {
    // The answer waits an hour: the turn can only come before it.
    let behaviour =
        Behaviour::default().with_policy("initialize", Policy::Delay(Duration::from_secs(3600)));
    let spec = Spec::new(cli, behaviour);
    let mut s = must("start", H::start(spec));
    must("send", s.send_text("early"));
    let t = must("turn", turn(&mut *s));
    assert_eq!(t.text, "echo: early");
    s.abandon();
}

/// The CLI asks permission for `tool` with `input` in a turn, then in a
/// second one (the session stays usable after whatever the handler did):
/// the first turn, the CLI's `can_use_tool` request and the program's
/// answer to it.
fn permission_turn<H: Harness>(
    cli: PathBuf,
    permission: Permission,
    tool: &str,
    input: Value,
) -> (TurnInfo, Value, Value) {
    let ask = Extra::Permission {
        tool_name: tool.to_owned(),
        input,
    };
    let mut spec = Spec::new(cli, Behaviour::default().with_extra(ask)).with_verdict();
    spec.permission = Some(permission);
    let kept = spec.clone();
    let mut s = must("start", H::start(spec));
    must("send", s.send_text("use the tool"));
    let t = must("turn", turn(&mut *s));
    must("send", s.send_text("again"));
    must("second turn", turn(&mut *s));
    must("close", s.close());
    let mut answers = kept.verdict().answers_to("can_use_tool");
    assert_eq!(answers.len(), 2, "one prompt per turn: {answers:?}");
    let (request, response) = answers.remove(0);
    let response = response.expect("the program answered");
    assert_eq!(response["subtype"], "success", "{response}");
    (t, request["request"].clone(), response["response"].clone())
}

/// The permission handler allows; the tool_use_id is echoed.
pub fn permission_allow<H: Harness>(cli: PathBuf) {
    let (t, request, answer) =
        permission_turn::<H>(cli, Permission::Allow, "Bash", json!({"command": "ls"}));
    assert_eq!(answer["behavior"], "allow", "{answer}");
    // The input the tool runs with: the answer's, else the one asked about.
    let effective = answer.get("updatedInput").unwrap_or(&request["input"]);
    assert_eq!(*effective, json!({"command": "ls"}), "{answer}");
    assert_eq!(answer["toolUseID"], request["tool_use_id"], "{answer}");
    assert_eq!(t.subtype, "success");
}

/// The permission handler allows with a different input.
pub fn permission_updated_input<H: Harness>(cli: PathBuf) {
    let (_, request, answer) = permission_turn::<H>(
        cli,
        Permission::AllowWithInput(json!({"command": "ls -la"})),
        "Bash",
        json!({"command": "rm -rf /"}),
    );
    assert_eq!(answer["behavior"], "allow", "{answer}");
    assert_eq!(answer["updatedInput"], json!({"command": "ls -la"}));
    assert_eq!(answer["toolUseID"], request["tool_use_id"], "{answer}");
}

/// The permission handler denies.
pub fn permission_deny<H: Harness>(cli: PathBuf) {
    let (t, request, answer) = permission_turn::<H>(
        cli,
        Permission::Deny("not today".into()),
        "Bash",
        json!({"command": "rm -rf /"}),
    );
    assert_eq!(answer["behavior"], "deny", "{answer}");
    assert_eq!(answer["message"], "not today", "{answer}");
    assert_eq!(answer["toolUseID"], request["tool_use_id"], "{answer}");
    assert_eq!(t.subtype, "success", "a deny alone does not end the turn");
}

/// Deny with interrupt ends the turn as an error.
pub fn permission_deny_interrupt<H: Harness>(cli: PathBuf) {
    let (t, _, answer) = permission_turn::<H>(
        cli,
        Permission::DenyAndInterrupt("stop".into()),
        "Bash",
        json!({"command": "ls"}),
    );
    assert_eq!(answer["interrupt"], true, "{answer}");
    assert_eq!(t.subtype, "error_during_execution");
}

/// A handler that panics or fails denies the tool; the session goes on.
pub fn permission_handler_failure<H: Harness>(cli: PathBuf) {
    for permission in [Permission::Panic, Permission::Fail("handler broke".into())] {
        let (t, _, answer) =
            permission_turn::<H>(cli.clone(), permission, "Bash", json!({"command": "ls"}));
        assert_eq!(answer["behavior"], "deny", "{answer}");
        assert!(
            t.other
                .iter()
                .any(|o| matches!(o, Observed::HandlerFailed(s) if s == "can_use_tool")),
            "no handler failure reported: {:?}",
            t.other
        );
    }
}

/// The test kit's scripted CLI, through the adapter's own spawn: a
/// permission prompt denied by the handler and a `calc` tool call answered
/// by the in-process server, each answer checked by the script (the kit's
/// binary, built as this package's `testkit-cli`), whose verdict must be a
/// pass. Every adapter runs the kit on every CI run.
pub fn kit_scripted_session<H: Harness>(cli: PathBuf) {
    use claude_proto_testkit::{Script, ask, cli, expect};
    let binary = cli.with_file_name(format!("testkit-cli{}", std::env::consts::EXE_SUFFIX));
    let rm = json!({"command": "rm -rf /"});
    let add = json!({"a": 2, "b": 3});
    let child = must(
        "the script is saved",
        Script::new()
            .mcp_handshake("calc")
            .expect(expect::user_text("Clean up, then add"))
            .send(cli::system_init_with(
                &["Bash", "mcp__calc__add"],
                &["calc"],
            ))
            .send(cli::assistant_tool_use("Bash", rm.clone()))
            .ask(
                ask::can_use_tool("Bash", rm),
                expect::deny_with("not today"),
            )
            .ask(
                ask::mcp_tool_call("calc", "add", add),
                expect::mcp_tool_text("5"),
            )
            .send(cli::result_success("Denied, and the sum is 5."))
            .expect_end()
            .child_with(binary),
    );
    let mut spec = Spec::new(child.binary().to_path_buf(), Behaviour::default());
    for (name, value) in child.env() {
        spec.env
            .push((name.to_owned(), value.to_string_lossy().into_owned()));
    }
    spec.permission = Some(Permission::Deny("not today".into()));
    spec.mcp_calc = true;
    let mut s = must("start", H::start(spec));
    must("send", s.send_text("Clean up, then add"));
    let t = must("turn", turn(&mut *s));
    assert_eq!(t.text, "Denied, and the sum is 5.");
    must("close", s.close());
    let verdict = must("the verdict", child.outcome());
    if let Err(failure) = verdict.outcome {
        panic!("{failure}");
    }
}

/// Hooks are registered in initialize, routed by callback id, and their
/// outputs reach the CLI.
pub fn hook_routing<H: Harness>(cli: PathBuf) {
    let hooks_turn = |hooks: Vec<Hook>| -> Vec<Value> { hook_answers::<H>(cli.clone(), hooks) };
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
pub fn hook_failure<H: Harness>(cli: PathBuf) {
    let answers = hook_answers::<H>(
        cli,
        vec![Hook {
            event: "PreToolUse",
            matcher: None,
            behaviour: HookBehaviour::Panic,
        }],
    );
    assert!(answers[0]["response"]["error"].is_string(), "{answers:?}");
}

/// A turn in which the CLI runs Bash (`echo hi`, allowed by the session's
/// rules) with `hooks` registered: the program's answers to the CLI's
/// `hook_callback` requests, in order, as `{"callback_id", "response"}`
/// (an error answer's response is `{"error": text}`).
fn hook_answers<H: Harness>(cli: PathBuf, hooks: Vec<Hook>) -> Vec<Value> {
    let bash = Extra::Tool {
        tool_name: "Bash".into(),
        input: json!({"command": "echo hi", "description": "Print hi"}),
    };
    let mut spec = Spec::new(cli, Behaviour::default().with_extra(bash)).with_verdict();
    spec.hooks = hooks;
    let kept = spec.clone();
    let mut s = must("start", H::start(spec));
    must("send", s.send_text("go"));
    must("turn", turn(&mut *s));
    must("close", s.close());
    kept.verdict()
        .answers_to("hook_callback")
        .into_iter()
        .map(|(request, response)| {
            json!({"callback_id": request["request"]["callback_id"], "response": payload(response)})
        })
        .collect()
}

/// The payload of an answer: a success's `response` (`{}` when absent), an
/// error as `{"error": text}`, `null` when there was no answer.
fn payload(response: Option<Value>) -> Value {
    match response {
        Some(r) if r["subtype"] == "success" => r.get("response").cloned().unwrap_or(json!({})),
        Some(r) => json!({"error": r["error"]}),
        None => Value::Null,
    }
}

/// An in-process MCP tool: handshake, listing, a call, an unknown method.
pub fn mcp_round_trip<H: Harness>(cli: PathBuf) {
    let mut spec = Spec::new(cli, calc_turn());
    spec.mcp_calc = true;
    calc_round_trip::<H>(spec);
}

/// An in-process MCP server that speaks MCP itself (an endpoint, as an
/// `rmcp` server is attached): the CLI's handshake, listing, call and an
/// unknown method reach it unchanged and its answers come back, given
/// from a thread of its own.
pub fn mcp_endpoint_round_trip<H: Harness>(cli: PathBuf) {
    let mut spec = Spec::new(cli, calc_turn());
    spec.mcp_endpoint = true;
    calc_round_trip::<H>(spec);
}

/// A turn that calls `calc`'s `add` with 2 and 3, then sends the server a
/// method it does not know (`resources/list`).
fn calc_turn() -> Behaviour {
    Behaviour::default()
        .with_extra(Extra::Mcp {
            server: None,
            tool: Some("add".into()),
            arguments: json!({"a": 2, "b": 3}),
        })
        .with_extra(Extra::McpMessage {
            server: None,
            message: json!({"jsonrpc": "2.0", "id": 99, "method": "resources/list"}),
        })
}

/// The in-process server's JSON-RPC answers to the CLI's `mcp_message`
/// requests of `method`, in order.
fn mcp_answers(report: &claude_proto_testkit::Report, method: &str) -> Vec<Value> {
    report
        .answers_to("mcp_message")
        .into_iter()
        .filter(|(request, _)| request["request"]["message"]["method"] == method)
        .map(|(_, response)| payload(response)["mcp_response"].clone())
        .collect()
}

/// [`calc_turn`] against a `calc` server, whichever kind `spec` hosts: the
/// handshake names it, it lists `add`, computes 2 + 3 and answers the
/// unknown method with -32601.
fn calc_round_trip<H: Harness>(spec: Spec) {
    let spec = spec.with_verdict();
    let kept = spec.clone();
    let mut s = must("start", H::start(spec));
    must("send", s.send_text("add"));
    must("turn", turn(&mut *s));
    must("close", s.close());
    let report = kept.verdict();
    let initialize = &mcp_answers(&report, "initialize")[0];
    assert_eq!(initialize["result"]["serverInfo"]["name"], "calc");
    let tools = &mcp_answers(&report, "tools/list")[0];
    assert_eq!(tools["result"]["tools"][0]["name"], "add");
    let call = &mcp_answers(&report, "tools/call")[0];
    assert_eq!(call["result"]["content"][0]["text"], "5");
    let unknown = &mcp_answers(&report, "resources/list")[0];
    assert_eq!(unknown["error"]["code"], -32601);
}

/// Tools added and removed while the session runs: the CLI is told
/// (`tools/list_changed`), lists the new tools, and calls are routed by
/// name; a removed tool is unknown again, and an unknown server is refused.
pub fn tools_change_while_running<H: Harness>(cli: PathBuf) {
    let mul = Extra::Mcp {
        server: None,
        tool: Some("mul".into()),
        arguments: json!({"a": 2, "b": 3}),
    };
    let mut spec = Spec::new(cli, Behaviour::default().with_extra(mul)).with_verdict();
    spec.mcp_calc = true;
    let kept = spec.clone();
    let mut s = must("start", H::start(spec));
    must("initialize", s.initialization());
    let Some(added) = s.change_tools(ToolChange::AddMul("calc")) else {
        eprintln!("{}: no add_tool in this harness; scenario skipped", H::NAME);
        return;
    };
    must("add_tool", added);
    must("send", s.send_text("multiply"));
    must("turn", turn(&mut *s));
    must(
        "remove_tool",
        s.change_tools(ToolChange::Remove("calc", "mul"))
            .expect("supported"),
    );
    must("send", s.send_text("multiply again"));
    must("turn", turn(&mut *s));
    // Removing it again changes nothing.
    must(
        "remove_tool again",
        s.change_tools(ToolChange::Remove("calc", "mul"))
            .expect("supported"),
    );
    let refused = s
        .change_tools(ToolChange::AddMul("nope"))
        .expect("supported");
    match refused {
        Err(Error::UnknownMcpServer { name }) => assert_eq!(name, "nope"),
        other => panic!("expected UnknownMcpServer, got {other:?}"),
    }
    must("close", s.close());

    let report = kept.verdict();
    let lists = mcp_answers(&report, "tools/list");
    let names = |list: &Value| -> Vec<String> {
        list["result"]["tools"]
            .as_array()
            .map(|tools| {
                tools
                    .iter()
                    .filter_map(|t| t["name"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(
        lists.len(),
        2,
        "listed at the handshake and after the removal: {lists:?}"
    );
    assert_eq!(names(&lists[0]), ["add", "mul"]);
    assert_eq!(names(&lists[1]), ["add"]);
    let calls = mcp_answers(&report, "tools/call");
    assert_eq!(calls[0]["result"]["content"][0]["text"], "6", "{calls:?}");
    let error = calls[1]["error"]["message"].as_str().unwrap_or_default();
    assert!(error.contains("Unknown tool: mul"), "{calls:?}");
}

/// Hooks registered to block on failure, and a CLI whose `initialize`
/// answer does not say it honours `on_failure`: the session is refused
/// before the prompt sent meanwhile reaches the CLI, and says why.
pub fn blocking_hooks_refused<H: Harness>(cli: PathBuf) {
    // A CLI of a version that does not say it honours `on_failure`.
    let behaviour =
        Behaviour::default().with_initialize_field("hook_on_failure_supported", Value::Null);
    let mut spec = Spec::new(cli, behaviour);
    spec.hooks = vec![Hook {
        event: "PreToolUse",
        matcher: Some("Bash"),
        behaviour: HookBehaviour::FailClosed,
    }];
    let mut s = must("start", H::start(spec));
    // Sent before the answer: held, then dropped.
    must("send", s.send_text("go"));
    match s.initialization() {
        Err(Error::HooksNotHonoured { reason }) => {
            assert!(reason.contains("on_failure"), "{reason}");
        }
        other => panic!("expected HooksNotHonoured, got {other:?}"),
    }
    while let Some(event) = s.next_event() {
        if let Observed::Message(m) = event {
            assert!(
                *m.message_type() != MessageType::Result,
                "the held prompt reached the CLI and was answered"
            );
        }
    }
    let error = s.send_text("again").expect_err("the session has ended");
    let ended = error.ended().expect("an end");
    assert_eq!(
        ended.reason(),
        claude_proto_host::EndReason::HooksNotHonoured
    );
    must("close", s.close());
}

/// Elicitations and user dialogs reach their handlers, and the dialog kinds
/// are advertised in `initialize`; without handlers, elicitations are
/// declined, dialogs cancelled, and no kind is advertised.
pub fn dialogs_answered<H: Harness>(cli: PathBuf) {
    // An elicitation and a user dialog, one after the other: what the
    // program advertised and answered to each.
    let report = |dialogs: bool| -> Value {
        let behaviour = Behaviour::default()
            .with_extra(Extra::Request(json!({
                "subtype": "elicitation", "mcp_server_name": "gh", "message": "Which repo?",
                "mode": "form",
                "requested_schema": {"type": "object", "properties": {"repo": {"type": "string"}}}
            })))
            .with_extra(Extra::Request(json!({
                "subtype": "request_user_dialog", "dialog_kind": "refusal_fallback_prompt",
                "payload": {"reason": "declined"}
            })));
        let mut spec = Spec::new(cli.clone(), behaviour).with_verdict();
        spec.dialogs = dialogs;
        let kept = spec.clone();
        let mut s = must("start", H::start(spec));
        must("send", s.send_text("go"));
        must("turn", turn(&mut *s));
        must("close", s.close());
        let verdict = kept.verdict();
        let answer = |subtype| {
            let answers = verdict.answers_to(subtype);
            payload(
                answers
                    .into_iter()
                    .next()
                    .and_then(|(_, response)| response),
            )
        };
        let initialize = verdict.initialize.clone().unwrap_or_default();
        json!({
            "kinds": initialize["request"]["supportedDialogKinds"],
            "elicitation": answer("elicitation"),
            "dialog": answer("request_user_dialog"),
        })
    };
    let with = report(true);
    assert_eq!(with["kinds"], json!(Dialogs::KINDS), "{with}");
    assert_eq!(with["elicitation"]["action"], "accept", "{with}");
    assert_eq!(with["elicitation"]["content"], json!({"repo": "a/b"}));
    assert_eq!(
        with["dialog"],
        json!({"behavior": "completed",
               "result": {"kind": "refusal_fallback_prompt", "choice": "retry"}})
    );
    let without = report(false);
    assert_eq!(without["kinds"], Value::Null, "{without}");
    assert_eq!(without["elicitation"]["action"], "decline", "{without}");
    assert_eq!(without["dialog"]["behavior"], "cancelled", "{without}");
}

/// The arguments of the typed `add` tool; its schema is derived.
#[derive(Debug, Clone, serde::Deserialize, schemars::JsonSchema)]
pub struct TypedAdd {
    /// First addend.
    pub a: i64,
    /// Second addend.
    pub b: i64,
}

/// The result of the typed `add` tool.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TypedSum {
    /// a + b.
    pub sum: i64,
}

impl TypedAdd {
    /// The tool's work.
    pub fn run(self) -> TypedSum {
        TypedSum {
            sum: self.a + self.b,
        }
    }
}

/// A typed `PreToolUse` hook gets the event's own input and denies a Bash
/// command with its own output type; the tool does not run.
pub fn typed_hook_denies_bash<H: Harness>(cli: PathBuf) {
    let answers = hook_answers::<H>(
        cli,
        vec![
            Hook {
                event: "PreToolUse",
                matcher: Some("Bash"),
                behaviour: HookBehaviour::TypedGuard,
            },
            Hook {
                event: "PostToolUse",
                matcher: None,
                behaviour: HookBehaviour::Context("unreachable".into()),
            },
        ],
    );
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert_eq!(answers[0]["callback_id"], "hook_0");
    let output = &answers[0]["response"]["hookSpecificOutput"];
    assert_eq!(output["hookEventName"], "PreToolUse");
    assert_eq!(output["permissionDecision"], "deny");
    assert_eq!(
        output["permissionDecisionReason"],
        "typed guard: Bash `echo hi` (id present)"
    );
}

/// A typed MCP tool: arguments deserialized into a struct, a serializable
/// result sent as text and structured content, and arguments that do not
/// fit answered with a tool error naming the problem.
pub fn typed_tool_round_trip<H: Harness>(cli: PathBuf) {
    let mut spec = Spec::new(cli, Behaviour::default()).with_verdict();
    spec.mcp_typed = true;
    let kept = spec.clone();
    let mut s = must("start", H::start(spec));
    // Each prompt says which call its turn makes.
    for arguments in [json!({"a": 2, "b": 3}), json!({"a": "two", "b": 3})] {
        let call = json!([{"mcp": {"tool": "add", "arguments": arguments}}]);
        must("send", s.send_text(&format!("#extras {call}")));
        must("turn", turn(&mut *s));
    }
    must("close", s.close());
    let report = kept.verdict();
    let schema = &mcp_answers(&report, "tools/list")[0]["result"]["tools"][0]["inputSchema"];
    assert_eq!(schema["required"], json!(["a", "b"]), "{schema}");
    let calls = mcp_answers(&report, "tools/call");
    let result = &calls[0]["result"];
    assert_eq!(result["content"][0]["text"], r#"{"sum":5}"#, "{result}");
    assert_eq!(result["structuredContent"], json!({"sum": 5}));
    assert!(result.get("isError").is_none(), "{result}");

    let result = &calls[1]["result"];
    assert_eq!(result["isError"], true, "{result}");
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    // Refused by the schema before the handler runs, as the Python SDK's
    // server refuses it (a type's own deserialization is the second guard).
    assert_eq!(
        text, "Input validation error: 'two' is not of type 'integer'",
        "{result}"
    );
}

/// Interrupt during a slow stream ends the turn with an error result.
pub fn interrupt_mid_turn<H: Harness>(cli: PathBuf) {
    let mut s = must(
        "start",
        H::start(Spec::new(
            cli,
            Behaviour::default().with_stream(500, 16, Duration::from_millis(20)),
        )),
    );
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

/// The CLI withdraws a pending permission prompt: the handler is stopped
/// (its future dropped) and no late answer is sent; the next prompt is
/// answered.
pub fn cancel_stops_handler<H: Harness>(cli: PathBuf) {
    let probe = Arc::new(CancelProbe::default());
    let prompt_a = json!({"subtype": "can_use_tool", "tool_name": "Bash",
        "input": {"command": "echo a | tee a.txt"}, "tool_use_id": "toolu_withdrawn",
        "permission_suggestions": []});
    let behaviour = Behaviour::default()
        .with_extra(Extra::Withdrawn(prompt_a))
        .with_extra(Extra::Permission {
            tool_name: "Bash".into(),
            input: json!({"command": "echo b | tee b.txt"}),
        });
    let mut spec = Spec::new(cli, behaviour).with_verdict();
    spec.permission = Some(Permission::FirstWaitsForever(probe.clone()));
    let kept = spec.clone();
    let mut s = must("start", H::start(spec));
    must("send", s.send_text("go"));
    let t = must("turn", turn(&mut *s));
    assert_eq!(t.subtype, "success");
    assert!(
        probe.wait_dropped(Duration::from_secs(10)),
        "the cancelled handler's future was not dropped"
    );
    assert_eq!(probe.calls.load(Ordering::SeqCst), 2);
    must("close", s.close());
    let answers = kept.verdict().answers_to("can_use_tool");
    assert_eq!(answers.len(), 2, "{answers:?}");
    assert_eq!(answers[0].1, None, "a late answer to the withdrawn prompt");
    assert_eq!(payload(answers[1].1.clone())["behavior"], "allow");
}

/// A control request the CLI never answers times out, naming its subtype;
/// the session goes on.
pub fn control_request_timeout<H: Harness>(cli: PathBuf) {
    let mut s = must(
        "start",
        H::start(Spec::new(
            cli,
            Behaviour::default()
                .with_policy("mcp_status", Policy::Never)
                .with_policy("get_context_usage", Policy::Never),
        )),
    );
    let error = s
        .control(
            ControlRequest::mcp_status(),
            Some(Duration::from_millis(200)),
        )
        .expect_err("mcp_status must time out");
    match &error {
        Error::TimedOut { subtype, .. } => assert_eq!(subtype, "mcp_status"),
        other => panic!("expected a timeout, got {other:?}"),
    }
    assert!(error.to_string().contains("mcp_status"), "{error}");
    must("send", s.send_text("still here"));
    assert_eq!(must("turn", turn(&mut *s)).text, "echo: still here");
    must("close", s.close());
}

/// The CLI exits mid-turn: the turn and pending requests fail with its
/// exit code and stderr.
pub fn exit_mid_turn<H: Harness>(cli: PathBuf) {
    let behaviour = Behaviour::default()
        .with_policy("get_context_usage", Policy::Never)
        .with_exit_mid_turn(1, 3);
    let mut s = must("start", H::start(Spec::new(cli, behaviour)));
    must("initialize", s.initialization());
    must("send", s.send_text("crash please"));
    let pending = s.control(ControlRequest::get_context_usage(), None);
    if let Err(e) = &pending {
        if let Some(report) = exit_of(e) {
            assert_eq!(report.code, Some(3));
        }
    } else {
        panic!("the CLI never answers get_context_usage here");
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
pub fn exit_before_initialize<H: Harness>(cli: PathBuf) {
    let behaviour = Behaviour::default()
        .with_policy("initialize", Policy::Never)
        .with_stderr("startup failed")
        .with_exit_after(Duration::ZERO, 2);
    let mut spec = Spec::new(cli, behaviour);
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
pub fn garbage_lines<H: Harness>(cli: PathBuf) {
    let mut spec = Spec::new(cli, garbage());
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
pub fn flood_with_slow_consumer<H: Harness>(cli: PathBuf) {
    const COUNT: usize = 100_000;
    let spec = Spec::new(cli, Behaviour::default().with_flood(COUNT, 0));
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
            None => {
                let debug = s.debug_view();
                panic!(
                    "ended early after {seen}: {debug:?}; closing: {:?}",
                    s.close()
                )
            }
        }
    }
    assert_eq!(seen, COUNT);
    must("close", s.close());
}

/// A CLI that writes megabytes to stderr before answering does not stall.
pub fn stderr_flood<H: Harness>(cli: PathBuf) {
    let mut s = must(
        "start",
        H::start(Spec::new(
            cli,
            Behaviour::default().with_stderr_filler(4 << 20),
        )),
    );
    must("initialize", s.initialization());
    must("send", s.send_text("hi"));
    assert_eq!(must("turn", turn(&mut *s)).text, "echo: hi");
    must("close", s.close());
}

/// Many sessions at once in one runtime.
pub fn many_concurrent_sessions<H: Harness>(cli: PathBuf) {
    const N: usize = 24;
    let specs = (0..N)
        .map(|_| Spec::new(cli.clone(), Behaviour::default()))
        .collect();
    let results = H::run_concurrently(specs);
    assert_eq!(results.len(), N);
    for (i, result) in results.into_iter().enumerate() {
        assert_eq!(must("session", result), format!("echo: hello {i}"));
    }
}

/// Dropping a session without closing it leaves no process behind.
pub fn drop_without_close<H: Harness>(cli: PathBuf) {
    let s = must("start", H::start(Spec::new(cli, Behaviour::default())));
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

/// Dropping a session without closing it ends what the CLI started too:
/// the CLI leads a process group of its own, and the group is killed.
pub fn dropping_the_session_ends_what_the_cli_started<H: Harness>(cli: PathBuf) {
    let pids = temp_path("dropped-grandchild");
    let spec = with_grandchild(Spec::new(cli, Behaviour::default()), &pids);
    let mut s = must("start", H::start(spec));
    must("send", s.send_text("hi"));
    assert_eq!(must("turn", turn(&mut *s)).text, "echo: hi");
    let found = read_pids(&pids);
    let _ = std::fs::remove_file(&pids);
    let [cli, grandchild] = found[..] else {
        panic!("expected the CLI's and the grandchild's pids, got {found:?}");
    };
    assert!(crate::process::is_running(grandchild));
    s.abandon();
    for pid in [cli, grandchild] {
        assert!(
            crate::process::wait_until_not_running(pid, Duration::from_secs(20)),
            "process {pid} outlived the dropped session"
        );
    }
}

/// An MCP server's token reaches the CLI in a private file, never on its
/// command line (which every local user can read), nor in the error of a
/// session that cannot start.
pub fn no_secret_in_the_process_table<H: Harness>(cli: PathBuf) {
    const SENTINEL: &str = "sk-sentinel-conformance-5d1e";
    let config = json!({"mcpServers": {"db": {"command": "db-mcp", "env": {"TOKEN": SENTINEL}}}});
    let mut spec = Spec::new(cli.clone(), Behaviour::default());
    spec.mcp_config = Some(config.clone());
    let mut s = must("start", H::start(spec));
    let pid = s.pid().expect("a child process");
    // A turn first: spawning may return while the child is still in
    // `execve`, when `/proc/<pid>/cmdline` is the parent's or empty (seen
    // under load); once the CLI has answered, its own arguments are set.
    must("send", s.send_text("hi"));
    assert_eq!(must("turn", turn(&mut *s)).text, "echo: hi");
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
    assert!(
        !cmdline.contains(SENTINEL),
        "the token is in the process table: {cmdline}"
    );
    assert!(
        cmdline.contains("--mcp-config=/"),
        "passed by path: {cmdline}"
    );
    let file = cmdline
        .split(' ')
        .find_map(|arg| arg.strip_prefix("--mcp-config="))
        .map(PathBuf::from)
        .expect("the file's path");
    assert!(file.exists());
    must("close", s.close());
    // Removed with the process handle, which the session gives up as it
    // finishes (on some adapters just after `close` returns).
    let start = std::time::Instant::now();
    while file.exists() && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(!file.exists(), "{} outlived the session", file.display());

    let mut spec = Spec::new(cli, Behaviour::default());
    spec.mcp_config = Some(config);
    spec.cwd = Some(PathBuf::from("/nonexistent/claude-proto-secret-test"));
    let Err(error) = H::start(spec) else {
        panic!("a missing working directory must fail the start");
    };
    for text in [error.to_string(), format!("{error:?}")] {
        assert!(!text.contains(SENTINEL), "the token is in an error: {text}");
    }
}

/// A token in the MCP configuration and in inline settings appears in no
/// line the library logs and in no error it returns, through a turn, a
/// protocol error, a failing handler, a crash and a failed start.
pub fn no_secret_in_logs_or_errors<H: Harness>(cli: PathBuf) {
    const SENTINEL: &str = "sk-sentinel-logs-8c2b0e";
    crate::logs::capture();
    let with_secrets = |behaviour| {
        let mut spec = Spec::new(cli.clone(), behaviour);
        spec.mcp_config = Some(json!({"mcpServers": {"db": {
            "command": "db-mcp",
            "env": {"TOKEN": SENTINEL},
            "headers": {"Authorization": format!("Bearer {SENTINEL}")}
        }}}));
        spec.settings = Some(json!({"env": {"API_TOKEN": SENTINEL}}));
        spec
    };
    let mut texts = Vec::new();
    let mut record = |error: &dyn std::fmt::Debug, display: String| {
        texts.push(format!("{error:?}"));
        texts.push(display);
    };
    let mut pids = Vec::new();
    let crash = Behaviour::default().with_exit_mid_turn(1, 3);
    for behaviour in [Behaviour::default(), garbage(), crash] {
        let mut s = must("start", H::start(with_secrets(behaviour)));
        pids.extend(s.pid());
        must("send", s.send_text("hi"));
        if let Err(error) = turn(&mut *s) {
            record(&error, error.to_string());
        }
        if let Err(error) = s.close() {
            record(&error, error.to_string());
        }
    }
    // A handler that fails: the library logs its failure.
    let mut spec = with_secrets(Behaviour::default().with_extra(bash_prompt()));
    spec.permission = Some(Permission::Fail("the handler fails on purpose".to_owned()));
    let mut s = must("start", H::start(spec));
    pids.extend(s.pid());
    must("send", s.send_text("hi"));
    if let Err(error) = turn(&mut *s) {
        record(&error, error.to_string());
    }
    let _ = s.close();
    let mut spec = with_secrets(Behaviour::default());
    spec.cwd = Some(PathBuf::from("/nonexistent/claude-proto-secret-test"));
    match H::start(spec) {
        Ok(_) => panic!("a missing working directory must fail the start"),
        Err(error) => record(&error, error.to_string()),
    }

    let lines = crate::logs::captured();
    for pid in pids {
        assert!(
            lines
                .iter()
                .any(|line| line.contains(&format!("pid {pid}"))),
            "the session of pid {pid} logged nothing: is the capture on? {lines:#?}"
        );
    }
    for text in lines.iter().chain(&texts) {
        assert!(!text.contains(SENTINEL), "the token leaked: {text}");
    }
}

/// A CLI that ignores SIGTERM is killed once the terminate grace is over;
/// closing returns with the kill in the report and no process left.
pub fn close_kills_a_child_that_ignores_sigterm<H: Harness>(cli: PathBuf) {
    let mut spec = Spec::new(cli, never_reads().with_ignore_sigterm());
    spec.limits.close_grace = Duration::from_millis(50);
    spec.limits.term_grace = Duration::from_millis(50);
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
pub fn child_that_never_reads_stdin_does_not_stall<H: Harness>(cli: PathBuf) {
    let mut spec = Spec::new(cli, never_reads());
    spec.limits.close_grace = Duration::from_millis(50);
    spec.limits.term_grace = Duration::from_secs(10);
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

// ----- the failure classes of issue 11 ---------------------------------------

static ISOLATION: RwLock<()> = RwLock::new(());

/// How a scenario shares the test process: the ones that count fds and
/// threads run alone, the others together.
#[derive(Debug)]
pub enum Isolation {
    /// Runs beside other scenarios.
    Shared(RwLockReadGuard<'static, ()>),
    /// Runs alone.
    Exclusive(RwLockWriteGuard<'static, ()>),
}

/// Scenarios that count the process's fds and threads.
const COUNTING: &[&str] = &[
    "panicking_stderr_callback_is_contained",
    "grandchild_holding_the_pipes_does_not_stall_close",
];

/// The isolation scenario `name` needs; hold it while it runs.
pub fn isolation(name: &str) -> Isolation {
    if COUNTING.contains(&name) {
        Isolation::Exclusive(ISOLATION.write().unwrap_or_else(PoisonError::into_inner))
    } else {
        Isolation::Shared(ISOLATION.read().unwrap_or_else(PoisonError::into_inner))
    }
}

/// A session mirrored to a store on one "machine" (a config directory) is
/// resumed on another (an empty config directory) through the store
/// alone: the resumed CLI sees the history, the new turn is mirrored to
/// the same key, and the temporary config directory is gone after the
/// session.
pub fn session_store_mirrors_and_resumes<H: Harness>(cli: PathBuf) {
    use claude_proto::transcript::SessionKey;
    use claude_proto_sessions::{MemoryStore, SessionStore, block_on};

    let store = Arc::new(MemoryStore::new());
    let work = temp_path("store-work");
    let (config_a, config_b) = (temp_path("store-a"), temp_path("store-b"));
    for dir in [&work, &config_a, &config_b] {
        must("mkdir", std::fs::create_dir_all(dir));
    }
    let spec = |config: &Path, resume: Option<String>| {
        let mut spec = Spec::new(cli.clone(), Behaviour::default())
            .env("CLAUDE_CONFIG_DIR", config.display().to_string());
        if resume.is_some() {
            spec = spec.with_verdict();
        }
        spec.cwd = Some(work.clone());
        spec.store = Some(claude_proto_adapter::StoreSettings::shared(store.clone()));
        spec.resume = resume;
        spec
    };

    let answers = |t: &TurnInfo| -> (String, String) {
        let mut text = String::new();
        let mut session = String::new();
        for m in &t.messages {
            if let StdoutMessage::Assistant(a) = m {
                text.push_str(&a.text());
                text.push('\n');
                session.clone_from(&a.session_id);
            }
        }
        (text, session)
    };
    let mut s = must("start", H::start(spec(&config_a, None)));
    must("send", s.send_text("hello"));
    let first = must("turn", turn(&mut *s));
    assert_eq!(first.text, "echo: hello");
    let (_, session_id) = answers(&first);
    let canonical = must("canonical", std::fs::canonicalize(&work));
    let project: String = canonical
        .display()
        .to_string()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let key = SessionKey::main(project, &session_id);
    assert_eq!(key.project_key, project_of(&work));
    if let Some(flushed) = s.flush_mirror() {
        must("flush_mirror", flushed);
        let stored = must("load", block_on(store.load(&key))).unwrap_or_default();
        assert_eq!(
            stored.len(),
            2,
            "the user line and the answer, before close"
        );
    }
    must("close", s.close());
    let stored = must("load", block_on(store.load(&key))).expect("mirrored");
    assert_eq!(stored.len(), 2, "{stored:?}");
    assert!(
        stored[0].get().contains(r#""type":"user""#),
        "{}",
        stored[0].get()
    );
    assert!(
        stored[1].get().contains("echo: hello"),
        "{}",
        stored[1].get()
    );

    let resumed = spec(&config_b, Some(session_id.clone()));
    let kept = resumed.clone();
    let mut s = must("start", H::start(resumed));
    must("send", s.send_text("again"));
    let (text, resumed_id) = answers(&must("turn", turn(&mut *s)));
    assert_eq!(resumed_id, session_id);
    assert!(
        text.contains("history: 2 lines") && text.contains("echo: again"),
        "the resumed CLI sees the history: {text:?}"
    );
    must("close", s.close());
    let stored = must("load", block_on(store.load(&key))).expect("mirrored");
    assert_eq!(stored.len(), 5, "the new turn went to the same key");
    let verdict = must(
        "the verdict",
        claude_proto_testkit::child::outcome_from_file(
            kept.verdict_file.as_deref().expect("asked for"),
        ),
    );
    let used = verdict.config_dir.expect("the CLI had a config directory");
    assert_ne!(
        Path::new(&used),
        config_b,
        "resumed from a temporary directory"
    );
    assert!(
        !Path::new(&used).exists(),
        "{used} removed with the session"
    );
    assert_eq!(
        must("read b", std::fs::read_dir(&config_b)).count(),
        0,
        "the second machine's own config directory is untouched"
    );
    for dir in [&work, &config_a, &config_b] {
        let _ = std::fs::remove_dir_all(dir);
    }
    if let Some(file) = &kept.verdict_file {
        let _ = std::fs::remove_file(file);
    }
}

/// The project key the CLI uses for `work` (ASCII paths).
fn project_of(work: &Path) -> String {
    let canonical = must("canonical", std::fs::canonicalize(work));
    canonical
        .display()
        .to_string()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// The mirror loses no line when every other append fails (each is
/// retried), nor while the store hangs; and a hanging store holds up
/// neither turns nor control calls. The store ends up with exactly the
/// lines of the CLI's transcript on disk, in order, and no failure is
/// reported.
pub fn mirror_loses_nothing_to_a_flaky_or_stalled_store<H: Harness>(cli: PathBuf) {
    use claude_proto::transcript::SessionKey;
    use claude_proto_sessions::{SessionStore, block_on};

    use crate::stores::FlakyStore;

    for stalled in [false, true] {
        let store = Arc::new(if stalled {
            FlakyStore::shut()
        } else {
            FlakyStore::flaky()
        });
        let work = temp_path("flaky-work");
        let config = temp_path("flaky-config");
        for dir in [&work, &config] {
            must("mkdir", std::fs::create_dir_all(dir));
        }
        let mut spec = Spec::new(cli.clone(), Behaviour::default())
            .env("CLAUDE_CONFIG_DIR", config.display().to_string());
        spec.cwd = Some(work.clone());
        spec.store = Some(claude_proto_adapter::StoreSettings::shared(store.clone()));
        let mut s = must("start", H::start(spec));
        let mut other = Vec::new();
        for i in 0..4 {
            must("send", s.send_text(&format!("turn {i}")));
            let t = must("turn", turn(&mut *s));
            assert_eq!(t.text, format!("echo: turn {i}"));
            other.extend(t.other);
        }
        if stalled {
            let status = s.control(ControlRequest::mcp_status(), None);
            assert!(status.is_ok(), "control calls go on: {status:?}");
            assert!(store.calls() <= 1, "one append waits, the rest queue");
            store.open();
        }
        if let Some(flushed) = s.flush_mirror() {
            must("flush_mirror", flushed);
        }
        let failures: Vec<&Observed> = other
            .iter()
            .filter(|o| matches!(o, Observed::Other(text) if text.contains("MirrorFailed")))
            .collect();
        assert!(failures.is_empty(), "{failures:?}");
        must("close", s.close());

        let project = project_of(&work);
        let dir = config.join("projects").join(&project);
        let file = must("transcript", std::fs::read_dir(&dir))
            .filter_map(Result::ok)
            .find(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
            .expect("the CLI's transcript");
        let on_disk: Vec<Value> = must("read", std::fs::read_to_string(file.path()))
            .lines()
            .map(|l| must("json", serde_json::from_str(l)))
            .collect();
        let session = file
            .path()
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        let stored: Vec<Value> = must(
            "load",
            block_on(store.load(&SessionKey::main(project, session))),
        )
        .expect("mirrored")
        .iter()
        .map(|e| must("json", serde_json::from_str(e.get())))
        .collect();
        assert_eq!(on_disk.len(), 8, "4 prompts and 4 answers");
        assert_eq!(stored, on_disk, "stalled: {stalled}");
        if !stalled {
            assert!(
                store.calls() > 4,
                "failures were retried: {} calls",
                store.calls()
            );
        }
        for dir in [&work, &config] {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// A file path no other test uses (a pid file, a verdict, a directory).
fn temp_path(what: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::SeqCst);
    std::env::temp_dir().join(format!("claude-proto-{what}-{}-{n}", std::process::id()))
}

/// `spec` with a CLI that starts a grandchild holding its stdout and stderr
/// and writes both pids (its own first) to `pids`.
pub fn with_grandchild(spec: Spec, pids: &Path) -> Spec {
    spec.env(
        claude_proto_testkit::child::PID_FILE_ENV,
        pids.display().to_string(),
    )
    .env(claude_proto_testkit::child::GRANDCHILD_ENV, "1")
}

/// The pids the CLI wrote to its pid file (itself first).
fn read_pids(path: &Path) -> Vec<u32> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

/// A permission prompt for Bash running `ls`, for a turn to ask.
pub fn bash_prompt() -> Extra {
    Extra::Permission {
        tool_name: "Bash".into(),
        input: json!({"command": "ls"}),
    }
}

/// A CLI whose turns write their `system/init`, then wait an hour: a turn
/// that ends only when interrupted.
pub fn held_turn() -> Behaviour {
    Behaviour::default().with_turn_delay(Duration::from_secs(3600))
}

/// Whether `message` is a `system/init` line (a held turn's last line
/// before the interrupt).
pub fn is_system_init(message: &Message) -> bool {
    String::from_utf8_lossy(message.as_bytes()).contains(r#""subtype":"init""#)
}

/// Lines that are not JSON, not an object, of an unknown type, 2 MiB long
/// and not UTF-8, in every turn.
fn garbage() -> Behaviour {
    [
        BadLine::NotJson,
        BadLine::NotAnObject,
        BadLine::UnknownType,
        BadLine::Oversized(2 * 1024 * 1024),
        BadLine::InvalidUtf8,
    ]
    .into_iter()
    .fold(Behaviour::default(), |b, line| {
        b.with_extra(Extra::Bad(line))
    })
}

/// A CLI that never reads its stdin and never exits on its own.
pub fn never_reads() -> Behaviour {
    Behaviour::default()
        .with_stop_reading_after(0)
        .with_linger()
}

/// `query` through the harness, or `None` (with a note) if it has none.
fn query(s: &mut dyn Driver, prompt: &str, limit: Option<Duration>) -> Option<Option<Turn>> {
    match s.query(prompt, limit) {
        Some(result) => Some(must("query", result)),
        None => {
            eprintln!("skipped: this harness does not implement Driver::query");
            None
        }
    }
}

fn result_text(turn: &Turn) -> String {
    let raw: Value = must(
        "result line",
        serde_json::from_slice(turn.result_line.as_bytes()),
    );
    raw["result"].as_str().unwrap_or_default().to_owned()
}

fn stream_events(t: &TurnInfo) -> usize {
    t.messages
        .iter()
        .filter(|m| matches!(m, StdoutMessage::StreamEvent(_)))
        .count()
}

/// (a) The CLI writes 300 events before each control answer; the user
/// reads nothing until the calls returned, and they return.
pub fn control_answer_behind_unread_events<H: Harness>(cli: PathBuf) {
    let spec = Spec::new(cli, Behaviour::default().with_events_before_answers(300));
    let mut s = must("start", H::start(spec));
    must("initialize", s.initialization());
    let bound = Some(Duration::from_secs(20));
    must(
        "set_model behind 300 unread events",
        s.control(ControlRequest::set_model(Some("fake-model-2")), bound),
    );
    must(
        "get_context_usage behind 600 unread events",
        s.control(ControlRequest::get_context_usage(), bound),
    );
    must("send", s.send_text("after"));
    let t = must("turn", turn(&mut *s));
    assert_eq!(t.text, "echo: after");
    assert_eq!(
        stream_events(&t),
        600,
        "every unread event is still delivered"
    );
    assert!(
        !t.other
            .iter()
            .any(|o| matches!(o, Observed::ProtocolError(_))),
        "an answer went astray: {:?}",
        t.other
    );
    must("close", s.close());
}

/// (a) A permission request behind 1000 unread events is answered by the
/// handler while the user reads nothing: the CLI holds the `mcp_status`
/// answer until it has the permission answer.
pub fn permission_behind_unread_events<H: Harness>(cli: PathBuf) {
    let behaviour = Behaviour::default()
        .with_flood(1000, 0)
        .with_extra(bash_prompt())
        .with_policy("mcp_status", Policy::AfterAnswers);
    let mut spec = Spec::new(cli, behaviour).with_verdict();
    spec.permission = Some(Permission::Allow);
    let kept = spec.clone();
    let mut s = must("start", H::start(spec));
    must("send", s.send_text("go"));
    must(
        "mcp_status, answered once the permission answer reached the CLI",
        s.control(ControlRequest::mcp_status(), Some(Duration::from_secs(20))),
    );
    let t = must("turn", turn(&mut *s));
    assert_eq!(t.text, "echo: go");
    assert_eq!(stream_events(&t), 1000);
    must("close", s.close());
    let answers = kept.verdict().answers_to("can_use_tool");
    assert_eq!(payload(answers[0].1.clone())["behavior"], "allow");
}

/// (b) Lines that fail to decode inside turn 1 (nested 200 deep, a number
/// out of range) do not shift turn 2.
pub fn undecodable_lines_do_not_shift_turns<H: Harness>(cli: PathBuf) {
    let mut s = must(
        "start",
        H::start(Spec::new(
            cli,
            Behaviour::default()
                .with_extra(Extra::Bad(BadLine::DeepNesting))
                .with_extra(Extra::Bad(BadLine::NumberOutOfRange)),
        )),
    );
    let Some(first) = query(&mut *s, "first", None) else {
        return;
    };
    let first = first.expect("no limit");
    assert_eq!(first.text(), Some("echo: first"));
    assert!(
        first.unreadable.len() + first.protocol_errors.len() >= 2,
        "the bad lines are kept with their turn: {first:?}"
    );
    let second = query(&mut *s, "second", None).flatten().expect("a turn");
    assert_eq!(second.text(), Some("echo: second"));
    assert_eq!(second.id, first.id + 1);
    must("close", s.close());
}

/// (b) A query given up mid-turn (its turn waits an hour, and ends only
/// when interrupted) does not shift the next one: the rest of its turn is
/// skipped.
pub fn dropped_query_does_not_shift_turns<H: Harness>(cli: PathBuf) {
    let mut s = must("start", H::start(Spec::new(cli, Behaviour::default())));
    let hold = r#"#extras [{"pause_ms": 3600000}]"#;
    let Some(held) = query(&mut *s, hold, Some(Duration::from_millis(200))) else {
        return;
    };
    assert!(held.is_none(), "the held turn cannot end: {held:?}");
    // Ends the held turn: its `result` now arrives, unread.
    must("interrupt", s.control(ControlRequest::interrupt(), None));
    let second = query(&mut *s, "second", None).flatten().expect("a turn");
    assert_eq!(second.text(), Some("echo: second"));
    let third = query(&mut *s, "third", None).flatten().expect("a turn");
    assert_eq!(third.text(), Some("echo: third"));
    must("close", s.close());
}

/// (b) A `result` the typed model cannot wholly read still ends its turn:
/// read field by field, the missing one named, the raw line kept.
pub fn unreadable_result_ends_its_turn<H: Harness>(cli: PathBuf) {
    let mut s = must(
        "start",
        H::start(Spec::new(
            cli,
            Behaviour::default().with_extra(Extra::Bad(BadLine::ResultWithoutUsage)),
        )),
    );
    let Some(first) = query(&mut *s, "first", None) else {
        return;
    };
    let first = first.expect("no limit");
    assert_eq!(
        first.unread_result_fields,
        ["usage"],
        "the odd result is named"
    );
    assert!(
        !first.is_error(),
        "a success without usage is still a success"
    );
    assert_eq!(first.text(), Some("echo: first"), "read field by field");
    assert_eq!(result_text(&first), "echo: first");
    let second = query(&mut *s, "second", None).flatten().expect("a turn");
    assert_eq!(result_text(&second), "echo: second");
    must("close", s.close());
}

/// (c) A CLI that stops reading stdin: once more than
/// `max_unwritten_bytes` wait, a control call fails (refused or timed out,
/// from the call) instead of hanging, and close still ends the process.
pub fn control_call_with_stdin_backed_up<H: Harness>(cli: PathBuf) {
    let mut spec = Spec::new(cli, never_reads());
    spec.limits.max_unwritten_bytes = 64 * 1024;
    spec.limits.close_grace = Duration::from_millis(50);
    let mut s = must("start", H::start(spec));
    let pid = s.pid().expect("a child process");
    // 1 MiB: the pipe takes 64 KiB at most, the rest stays unwritten.
    must("send", s.send_text(&"x".repeat(1024 * 1024)));
    let error = s
        .control(
            ControlRequest::set_model(Some("fake-model-2")),
            Some(Duration::from_secs(2)),
        )
        .expect_err("the CLI reads nothing");
    match &error {
        Error::Backlog {
            stall: Stall::StdinBacklog { budget, .. },
            ..
        } => assert_eq!(*budget, 64 * 1024),
        Error::TimedOut { subtype, .. } => assert_eq!(subtype, "set_model"),
        other => panic!("expected a backlog or a timeout, got {other:?}"),
    }
    let report = must("close", s.close()).expect("an exit report");
    assert_eq!(report.signal, Some(15), "{report}");
    assert!(crate::process::wait_until_gone(
        pid,
        Duration::from_secs(20)
    ));
}

/// (d) 8 MiB lines while the user reads nothing, with a 1 MiB read-ahead
/// budget: reading stops within the budget plus one line, so the CLI is
/// blocked writing to a full pipe, reads nothing and cannot answer; the
/// call fails naming the budget. All lines arrive afterwards.
pub fn read_ahead_is_bounded_in_bytes<H: Harness>(cli: PathBuf) {
    const BUDGET: usize = 1024 * 1024;
    const LINE: usize = 8 * 1024 * 1024;
    const LINES: usize = 6;
    // What may be out of the CLI before reading stops: the budget plus
    // one line held by the host, one line (or 256 KiB) handed to the
    // reading side, a 64 KiB read and the pipe. The test kit's CLI, as a
    // child, reads its stdin only while its output is taken.
    let mut spec = Spec::new(cli, Behaviour::default().with_flood(LINES, LINE));
    spec.limits.read_ahead_bytes = BUDGET;
    let mut s = must("start", H::start(spec));
    must("initialize", s.initialization());
    must("send", s.send_text("flood"));
    // The stall is read when a call gives up: until the flood has filled
    // the budget (on a busy machine, later than any fixed window), a call
    // gives up with no stall named, and is made again. Each waits behind
    // the flood, so none is answered.
    let mut error;
    let mut attempts = 0;
    loop {
        error = s
            .control(
                ControlRequest::get_context_usage(),
                Some(Duration::from_secs(2)),
            )
            .expect_err("the CLI is blocked before it can answer");
        attempts += 1;
        match &error {
            // A safety net of minutes, not a window the test races.
            Error::TimedOut { stall: None, .. } if attempts < 150 => continue,
            _ => break,
        }
    }
    match &error {
        Error::TimedOut {
            stall: Some(Stall::ReadAheadFull { queued, budget }),
            ..
        } => {
            assert_eq!(*budget, BUDGET);
            assert!(*queued <= BUDGET + LINE + 1024, "{queued} bytes queued");
        }
        other => panic!("expected a timeout naming the read-ahead budget, got {other:?}"),
    }
    assert!(error.to_string().contains("read_ahead_bytes"), "{error}");
    let t = must("turn", turn(&mut *s));
    assert_eq!(t.text, "echo: flood");
    assert_eq!(
        t.messages.len(),
        LINES + 3,
        "every line, init, the answer, the result"
    );
    must("close", s.close());
}

/// One echo session, so lazily started runtime threads exist before a
/// scenario counts.
fn warm_up<H: Harness>(cli: &Path) {
    let mut s = must(
        "start",
        H::start(Spec::new(cli.to_path_buf(), Behaviour::default())),
    );
    must("send", s.send_text("warm up"));
    must("turn", turn(&mut *s));
    must("close", s.close());
}

fn assert_nothing_left(before: crate::process::Resources) {
    let after = crate::process::settle(before, Duration::from_secs(20));
    assert!(
        after.fds <= before.fds && after.threads <= before.threads,
        "left behind: {before:?} before, {after:?} after"
    );
}

/// (e) A panicking stderr callback does not end the session; nothing is
/// left: no process, no fd, no thread.
pub fn panicking_stderr_callback_is_contained<H: Harness>(cli: PathBuf) {
    warm_up::<H>(&cli);
    let before = crate::process::resources();
    let calls = Arc::new(AtomicUsize::new(0));
    let behaviour = (0..3).fold(Behaviour::default(), |b, n| {
        b.with_stderr(&format!("log line {n}"))
    });
    let mut spec = Spec::new(cli, behaviour);
    let counter = calls.clone();
    spec.on_stderr = Some(StderrFn(Arc::new(move |_line| {
        counter.fetch_add(1, Ordering::SeqCst);
        panic!("the stderr callback panics on purpose");
    })));
    let mut s = must("start", H::start(spec));
    let pid = s.pid().expect("a child process");
    for word in ["one", "two"] {
        must("send", s.send_text(word));
        assert_eq!(must("turn", turn(&mut *s)).text, format!("echo: {word}"));
    }
    let report = must("close", s.close()).expect("an exit report");
    assert!(report.success(), "{report}");
    assert!(report.stderr_tail.contains("log line 2"), "{report}");
    assert_eq!(calls.load(Ordering::SeqCst), 1, "called until it panicked");
    assert!(crate::process::wait_until_gone(
        pid,
        Duration::from_secs(20)
    ));
    assert_nothing_left(before);
}

/// (e) A grandchild of the CLI holds its stdout and stderr open after the
/// CLI exits: the session still ends, the grandchild is ended with the
/// CLI's process group (`Options::own_process_group`, the default), and no
/// fd or thread is left. Without a group of its own the grandchild lives
/// on and the session still ends (reading is given up after
/// `drain_after_exit`).
pub fn grandchild_holding_the_pipes_does_not_stall_close<H: Harness>(cli: PathBuf) {
    warm_up::<H>(&cli);
    let before = crate::process::resources();
    let [cli_pid, grandchild] = close_with_a_grandchild::<H>(&cli, true);
    assert!(
        !crate::process::is_running(grandchild),
        "the grandchild outlived the session's process group"
    );
    assert!(crate::process::wait_until_gone(
        cli_pid,
        Duration::from_secs(20)
    ));
    assert_nothing_left(before);

    // The CLI in the caller's group: the grandchild lives on, and holds
    // the pipes, and close still returns.
    let [_, grandchild] = close_with_a_grandchild::<H>(&cli, false);
    assert!(crate::process::is_running(grandchild), "asked to live on");
    crate::process::kill(grandchild);
}

/// Runs a turn of a CLI that leaves a grandchild and closes: the pids of
/// the CLI and of its grandchild.
fn close_with_a_grandchild<H: Harness>(cli: &Path, own_process_group: bool) -> [u32; 2] {
    let pids = temp_path("grandchild");
    let mut spec = with_grandchild(Spec::new(cli.to_path_buf(), Behaviour::default()), &pids);
    spec.limits.drain_after_exit = Duration::from_millis(50);
    spec.own_process_group = own_process_group;
    let mut s = must("start", H::start(spec));
    must("send", s.send_text("hi"));
    assert_eq!(must("turn", turn(&mut *s)).text, "echo: hi");
    let report = must("close", s.close()).expect("an exit report");
    assert!(report.success(), "{report}");
    let found = read_pids(&pids);
    let _ = std::fs::remove_file(&pids);
    let [cli, grandchild] = found[..] else {
        panic!("expected the CLI's and the grandchild's pids, got {found:?}");
    };
    [cli, grandchild]
}

/// (e) A UTF-8 byte order mark before the `initialize` answer.
pub fn bom_before_the_initialize_answer<H: Harness>(cli: PathBuf) {
    let spec = Spec::new(cli, Behaviour::default().with_bom());
    let mut s = must("start", H::start(spec));
    must("initialize", s.initialization());
    must("send", s.send_text("hi"));
    assert_eq!(must("turn", turn(&mut *s)).text, "echo: hi");
    must("close", s.close());
}

/// (e) Limits that cannot work fail at start, naming the setting, and no
/// process is started: the CLI named does not exist, so a spawn would
/// fail with another error.
pub fn unworkable_limits_fail_before_spawning<H: Harness>(cli: PathBuf) {
    type Change = fn(&mut Limits);
    let cases: [(&str, Change); 4] = [
        ("read_ahead_bytes", |l| l.read_ahead_bytes = 0),
        ("read_ahead_bytes", |l| l.read_ahead_bytes = usize::MAX),
        ("close_grace", |l| l.close_grace = Duration::MAX),
        ("max_concurrent_handlers", |l| l.max_concurrent_handlers = 0),
    ];
    for (name, change) in cases {
        let mut spec = Spec::new(cli.with_file_name("no-such-cli"), Behaviour::default());
        change(&mut spec.limits);
        match H::start(spec) {
            Err(SpawnError::Limits(error)) => assert_eq!(error.name, name, "{error}"),
            Err(other) => panic!("{name}: expected a limits error, got {other:?}"),
            Ok(_) => panic!("{name}: the session started"),
        }
    }
}

/// (e) A working directory that does not exist is reported as such.
pub fn missing_working_directory<H: Harness>(cli: PathBuf) {
    let missing = temp_path("no-such-dir");
    let mut spec = Spec::new(cli, Behaviour::default());
    spec.cwd = Some(missing.clone());
    match H::start(spec) {
        Err(SpawnError::MissingWorkingDirectory(path)) => assert_eq!(path, missing),
        Err(other) => panic!("expected a missing working directory, got {other:?}"),
        Ok(_) => panic!("the session started in a missing directory"),
    }
}

/// A system prompt set once, on the options, reaches the CLI's
/// `initialize` request (and not only its command line), beside the hooks
/// the adapter registers.
pub fn options_reach_initialize<H: Harness>(cli: PathBuf) {
    let mut spec = Spec::new(cli, Behaviour::default()).with_verdict();
    spec.system_prompt = Some("You are a fake.".to_owned());
    let kept = spec.clone();
    let mut s = must("start", H::start(spec));
    must("initialize", s.initialization());
    must("close", s.close());
    let line = kept.verdict().initialize.expect("an initialize request");
    let init = &line["request"];
    assert_eq!(init["subtype"], "initialize", "{init}");
    assert_eq!(
        init["systemPrompt"],
        serde_json::json!(["You are a fake."]),
        "{init}"
    );
    assert!(init.get("appendSystemPrompt").is_none(), "{init}");
}

/// Instantiates every scenario as a `#[test]` for a [`Harness`].
#[macro_export]
macro_rules! conformance_suite {
    ($harness:ty, $cli:expr) => {
        $crate::conformance_suite!(@tests $harness, $cli;
            single_turn, multi_turn, prompt_before_initialize, permission_allow,
            permission_updated_input, permission_deny, permission_deny_interrupt,
            permission_handler_failure, hook_routing, hook_failure, mcp_round_trip,
            typed_hook_denies_bash, typed_tool_round_trip, kit_scripted_session, tools_change_while_running, blocking_hooks_refused, dialogs_answered,
            session_store_mirrors_and_resumes, mirror_loses_nothing_to_a_flaky_or_stalled_store,
            interrupt_mid_turn, cancel_stops_handler, control_request_timeout,
            exit_mid_turn, exit_before_initialize, garbage_lines,
            flood_with_slow_consumer, stderr_flood, many_concurrent_sessions,
            drop_without_close, dropping_the_session_ends_what_the_cli_started,
            no_secret_in_the_process_table,
            no_secret_in_logs_or_errors,
            mcp_endpoint_round_trip,
            close_kills_a_child_that_ignores_sigterm,
            child_that_never_reads_stdin_does_not_stall,
            control_answer_behind_unread_events, permission_behind_unread_events,
            undecodable_lines_do_not_shift_turns, dropped_query_does_not_shift_turns,
            unreadable_result_ends_its_turn, control_call_with_stdin_backed_up,
            read_ahead_is_bounded_in_bytes, panicking_stderr_callback_is_contained,
            grandchild_holding_the_pipes_does_not_stall_close,
            bom_before_the_initialize_answer, unworkable_limits_fail_before_spawning,
            missing_working_directory, options_reach_initialize);
    };
    (@tests $harness:ty, $cli:expr; $($name:ident),+ $(,)?) => {
        $(
            #[test]
            fn $name() {
                let _isolation = $crate::conformance::isolation(stringify!($name));
                $crate::conformance::$name::<$harness>(::std::path::PathBuf::from($cli));
            }
        )+
    };
}
