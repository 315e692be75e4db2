//! End-to-end scenarios against the real Claude Code CLI.
//!
//! The CLI (`@anthropic-ai/claude-code`, pinned in `tests/peer`) runs
//! offline: its Messages API is a [`ModelApi`] on loopback, its `HOME`
//! and working directory are fresh temp dirs, and it inherits nothing from
//! the caller's environment but `PATH`. Each scenario is written once
//! against [`RealHarness`] and the [`Driver`] of the conformance suite, and
//! instantiated per adapter with [`real_cli_suite!`](crate::real_cli_suite).
//!
//! Where the CLI comes from: `CLAUDE_BIN`, else
//! `tests/peer/node_modules/.bin/claude` (after `npm ci --prefix
//! tests/peer`). When neither exists the scenarios print that they were
//! skipped and pass, except under CI (`CI` set), where they fail.
//!
//! Sessions normally run through a [`Transcript`] (the adapter connects to
//! a child it did not spawn, through a tee), so a scenario can check what
//! was written both ways. With `RECORD_FIXTURES=1` each transcript is also
//! saved, scrubbed of machine paths, as a core fixture
//! (`crates/claude-proto/tests/fixtures/e2e_*.ndjson`).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use claude_proto::model::control::ControlRequest;
use claude_proto::model::stdout::StdoutMessage;
use claude_proto::model::stream::{ContentDelta, StreamEvent};
use claude_proto::model::system::SystemMessage;
use claude_proto::options::Options;
use claude_proto_host::SpawnError;
use serde_json::{Value, json};

use crate::conformance::{CancelProbe, Driver, HookBehaviour, Observed, TurnInfo, exit_of, turn};
use claude_proto_testkit::model_api::{ApiRequest, ModelApi, Reply};
use replay::PeerServer;

pub mod ending;
pub mod environment;
pub mod handlers;
pub mod replay;
pub mod spares;
pub mod tee;
mod temp_dir;

pub use ending::{
    an_empty_group_ends_at_once, nothing_outlives_a_close_mid_turn,
    nothing_outlives_a_crash_but_what_left_the_group, nothing_outlives_a_deadline,
    nothing_outlives_a_drop_mid_turn, nothing_outlives_a_dropped_runtime, nothing_outlives_a_panic,
    nothing_outlives_an_error,
};
pub use environment::{identity_variables_reach_the_cli, no_secret_leaks};
pub use temp_dir::TempDir;

/// The longest any scenario waits for one thing (an event, a request, a
/// handler call, an exit). Generous: reaching it means a hang, not slowness.
pub const WAIT: Duration = Duration::from_secs(60);

// ----- where the CLI is -----------------------------------------------------

fn default_cli() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("peer/node_modules/.bin/claude")
}

fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// The real CLI, or `None` (after saying so once on stderr) when it is not
/// installed. Under CI a missing CLI is a failure.
pub fn real_cli() -> Option<PathBuf> {
    let (path, origin) = match std::env::var_os("CLAUDE_BIN") {
        Some(path) if !path.is_empty() => (PathBuf::from(path), "CLAUDE_BIN"),
        _ => (default_cli(), "the default place"),
    };
    if path.is_file() {
        return Some(path);
    }
    let how = "install it with `npm ci --prefix tests/peer` and run with \
               `CLAUDE_BIN=$PWD/tests/peer/node_modules/.bin/claude cargo test -p claude-proto-tests --test real_cli`";
    assert!(
        !in_ci(),
        "CI is set but the real Claude Code CLI is missing ({origin}: {}); {how}",
        path.display()
    );
    static SAID: OnceLock<()> = OnceLock::new();
    SAID.get_or_init(|| {
        // Straight to stderr: the test harness would swallow eprintln! for a
        // passing test.
        let _ = writeln!(
            std::io::stderr(),
            "\nSKIPPED: the real-CLI tests did not run: no Claude Code CLI at {} ({origin}).\n         To run them, {how}.\n",
            path.display()
        );
    });
    None
}

// ----- the environment of one scenario --------------------------------------

/// One scenario's world: the CLI, a model stand-in, an empty `HOME`, an
/// empty project directory and a `TMPDIR`, all removed when dropped.
#[derive(Debug)]
pub struct Peer {
    /// The Messages API stand-in (in a replay, what it received when
    /// recorded).
    pub server: PeerServer,
    /// The CLI executable.
    pub cli: PathBuf,
    root: Arc<TempDir>,
}

impl Drop for Peer {
    fn drop(&mut self) {
        replay::peer_dropped(&self.root, &self.server);
    }
}

impl Peer {
    /// `None` when the CLI is not installed (see [`real_cli`]).
    pub fn new(script: impl Fn(&ApiRequest) -> Reply + Send + Sync + 'static) -> Option<Self> {
        Self::with(|_| script)
    }

    /// Like [`new`](Self::new), for a script that needs the project
    /// directory (given to `make`).
    pub fn with<S>(make: impl FnOnce(&Path) -> S) -> Option<Self>
    where
        S: Fn(&ApiRequest) -> Reply + Send + Sync + 'static,
    {
        let cli = real_cli()?;
        let (root, server) = replay::peer(|| {
            let root = TempDir::new().expect("a temp dir");
            for dir in ["home", "project", "tmp"] {
                std::fs::create_dir_all(root.path().join(dir)).expect("a temp dir");
            }
            let server = ModelApi::start(make(&root.path().join("project")))
                .expect("the model stand-in starts");
            (root, server)
        });
        Some(Self { server, cli, root })
    }

    /// The CLI's `HOME`.
    pub fn home(&self) -> PathBuf {
        self.root.path().join("home")
    }

    /// The CLI's working directory.
    pub fn cwd(&self) -> PathBuf {
        self.root.path().join("project")
    }

    /// Options that run the CLI here: nothing inherited but `PATH`.
    pub fn options(&self) -> Options {
        Options::default()
            .cli_path(&self.cli)
            .cwd(self.cwd())
            .inherit_env(false)
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("LANG", "C.UTF-8")
            .env("HOME", self.home())
            // The CLI's own scratch files (its messaging socket) stay in
            // the scenario's directory and go with it.
            .env("TMPDIR", self.root.path().join("tmp"))
            .env("ANTHROPIC_BASE_URL", self.server.url())
            .env("ANTHROPIC_API_KEY", "dummy")
            .env("DISABLE_TELEMETRY", "1")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
    }

    /// A spec with these options, no handlers, recorded through a transcript.
    pub fn spec(&self) -> RealSpec {
        RealSpec {
            options: self.options(),
            permission: None,
            hooks: Vec::new(),
            mcp_calc: false,
            rmcp_weather: false,
            initialize: None,
            elicitation: false,
            calls: Calls::default(),
            store: None,
            limits: None,
            transcript: Some(Transcript::default()),
        }
    }

    /// Rewrites machine paths the way the fixtures README says.
    pub fn scrub(&self, line: &str) -> String {
        let cwd = self.cwd().to_string_lossy().into_owned();
        let home = self.home().to_string_lossy().into_owned();
        let root = self.root.path().to_string_lossy().into_owned();
        let tmp = self.root.path().join("tmp").to_string_lossy().into_owned();
        let dashed = |p: &str| -> String {
            p.chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                .collect()
        };
        let mut out = line
            .replace(&cwd, "/home/user/project")
            .replace(&home, "/home/user")
            .replace(&format!("{tmp}/"), "/run/user/1000/")
            .replace(&dashed(&cwd), "-home-user-project")
            .replace(&dashed(&home), "-home-user")
            .replace(&root, "/home");
        let temp = std::env::temp_dir();
        for temp in [temp.canonicalize().unwrap_or(temp.clone()), temp] {
            let temp = temp.to_string_lossy().trim_end_matches('/').to_owned();
            if temp.len() > 1 {
                out = out.replace(&format!("{temp}/"), "/run/user/1000/");
            }
        }
        if let Some(work) = Path::new(env!("CARGO_MANIFEST_DIR")).parent() {
            let work = work.to_string_lossy();
            out = out.replace(&format!("{work}/"), "/home/user/src/");
        }
        out
    }

    /// Closes a session started with a transcript, saves the transcript as
    /// fixture `name` when `RECORD_FIXTURES=1`, and returns it.
    pub fn finish(
        &self,
        session: Box<dyn Driver>,
        transcript: Option<Transcript>,
        name: &str,
    ) -> Finished {
        let exit = session.close().expect("the session closes");
        let lines = transcript.map(|t| t.lines()).unwrap_or_default();
        if std::env::var_os("RECORD_FIXTURES").is_some_and(|v| v == "1") && !lines.is_empty() {
            let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../crates/claude-proto/tests/fixtures")
                .join(format!("{name}.ndjson"));
            let mut text = String::new();
            for (dir, line) in &lines {
                let dir = match dir {
                    Dir::In => "in",
                    Dir::Out => "out",
                };
                text.push_str(&json!({"dir": dir, "line": self.scrub(line)}).to_string());
                text.push('\n');
            }
            std::fs::write(&path, text).expect("the fixture is written");
        }
        Finished { exit, lines }
    }
}

/// How a session ended.
#[derive(Debug)]
pub struct Finished {
    /// The CLI's exit.
    pub exit: Option<claude_proto_host::ExitReport>,
    /// Every line both ways (empty without a transcript).
    pub lines: Vec<(Dir, String)>,
}

impl Finished {
    /// The lines one way, parsed.
    pub fn json(&self, dir: Dir) -> Vec<Value> {
        self.lines
            .iter()
            .filter(|(d, _)| *d == dir)
            .filter_map(|(_, l)| serde_json::from_str(l).ok())
            .collect()
    }
}

// ----- recording ------------------------------------------------------------

/// Which way a line went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// The CLI wrote it (its stdout).
    In,
    /// The host wrote it (the CLI's stdin).
    Out,
}

#[derive(Debug, Default)]
struct TranscriptInner {
    lines: Vec<(Dir, String)>,
    partial_in: Vec<u8>,
    partial_out: Vec<u8>,
}

/// Every line written both ways, in the order the host saw them: the
/// CLI's lines when read from its stdout, the host's when written.
/// Adapters feed it from their transport (a tee).
#[derive(Debug, Clone, Default)]
pub struct Transcript(Arc<Mutex<TranscriptInner>>);

impl Transcript {
    fn lock(&self) -> MutexGuard<'_, TranscriptInner> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Bytes read from the CLI's stdout (an empty slice: end of output).
    pub fn cli_wrote(&self, bytes: &[u8]) {
        self.push(Dir::In, bytes);
    }

    /// Bytes written to the CLI's stdin (an empty slice: stdin closed).
    pub fn host_wrote(&self, bytes: &[u8]) {
        self.push(Dir::Out, bytes);
    }

    fn push(&self, dir: Dir, bytes: &[u8]) {
        let mut inner = self.lock();
        let inner = &mut *inner;
        let partial = match dir {
            Dir::In => &mut inner.partial_in,
            Dir::Out => &mut inner.partial_out,
        };
        if bytes.is_empty() && !partial.is_empty() {
            let line = String::from_utf8_lossy(partial).into_owned();
            partial.clear();
            inner.lines.push((dir, line));
            return;
        }
        partial.extend_from_slice(bytes);
        while let Some(end) = partial.iter().position(|&b| b == b'\n') {
            let rest = partial.split_off(end + 1);
            let line = std::mem::replace(partial, rest);
            let line = String::from_utf8_lossy(&line[..end]).into_owned();
            if !line.trim().is_empty() {
                inner.lines.push((dir, line));
            }
        }
    }

    /// The complete lines so far.
    pub fn lines(&self) -> Vec<(Dir, String)> {
        self.lock().lines.clone()
    }
}

// ----- handlers as data -----------------------------------------------------

/// One call of a host handler, as the handler saw it.
#[derive(Debug, Clone)]
pub struct Call {
    /// `can_use_tool`, the hook event (`PreToolUse`, ...), or `mcp:<tool>`.
    pub handler: String,
    /// The request, serialized: the `can_use_tool` request, the hook input,
    /// or the tool's arguments.
    pub payload: Value,
}

/// The calls of every handler of a session, shared with the adapter.
#[derive(Debug, Clone, Default)]
pub struct Calls(Arc<(Mutex<Vec<Call>>, Condvar)>);

impl Calls {
    /// Records a call (adapters call this from their handlers).
    pub fn record(&self, handler: impl Into<String>, payload: Value) {
        let (calls, changed) = &*self.0;
        calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Call {
                handler: handler.into(),
                payload,
            });
        changed.notify_all();
    }

    /// Every call so far.
    pub fn all(&self) -> Vec<Call> {
        self.0
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The calls of one handler.
    pub fn of(&self, handler: &str) -> Vec<Value> {
        self.all()
            .into_iter()
            .filter(|c| c.handler == handler)
            .map(|c| c.payload)
            .collect()
    }

    /// Waits (at most `limit`) for a call of `handler`.
    pub fn wait_for(&self, handler: &str, limit: Duration) -> Option<Value> {
        let deadline = Instant::now() + limit;
        let (calls, changed) = &*self.0;
        let mut guard = calls.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(call) = guard.iter().find(|c| c.handler == handler) {
                return Some(call.payload.clone());
            }
            let now = Instant::now();
            if now >= deadline {
                return None;
            }
            guard = changed
                .wait_timeout(guard, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

/// How the permission handler answers (it records every call first).
#[derive(Debug, Clone)]
pub enum PermissionRule {
    /// Allow as asked.
    Allow,
    /// Allow with this input instead.
    AllowWithInput(Value),
    /// Deny with this message.
    Deny(String),
    /// Never answer: the future stays pending until dropped (it holds a
    /// [`DropFlag`](crate::conformance::DropFlag) on the probe).
    Pending(Arc<CancelProbe>),
    /// Answer `AskUserQuestion` with each question's last option (see
    /// [`answer_questions`]); allow anything else.
    AnswerQuestions,
}

/// The answer of [`PermissionRule::AnswerQuestions`], written once for
/// every adapter: a question is answered from the permission callback in
/// a few lines, through the typed tool input.
pub fn answer_questions(
    ask: &claude_proto::model::incoming::CanUseTool,
) -> claude_proto::model::permission::PermissionResult {
    use claude_proto::model::tools::ToolInput;
    match ask.typed_input() {
        ToolInput::AskUserQuestion(questions) => {
            let picks: Vec<(String, String)> = questions
                .questions
                .iter()
                .filter_map(|q| Some((q.question.clone(), q.options().last()?.label.clone())))
                .collect();
            questions.answer(picks)
        }
        _ => claude_proto::model::permission::PermissionResult::allow(),
    }
}

/// A hook to register (it records every call first).
pub type HookRule = crate::conformance::Hook;

/// Everything an adapter needs to start one session.
#[derive(Debug, Clone)]
pub struct RealSpec {
    /// The CLI's options ([`Peer::options`] plus the scenario's own).
    pub options: Options,
    /// The permission handler, if any.
    pub permission: Option<PermissionRule>,
    /// Hooks to register.
    pub hooks: Vec<HookRule>,
    /// Host the `calc` MCP server with an `add` tool (a + b), see
    /// [`Spec::calc_add`](crate::conformance::Spec::calc_add).
    pub mcp_calc: bool,
    /// Host the rmcp `weather` server ([`WeatherServer`](crate::weather::WeatherServer))
    /// as an endpoint.
    pub rmcp_weather: bool,
    /// Extra fields of the `initialize` request (the builders' escape
    /// hatch), if any.
    pub initialize: Option<claude_proto::model::initialize::InitializeRequest>,
    /// Register the elicitation handler of
    /// [`Dialogs`](crate::conformance::Dialogs).
    pub elicitation: bool,
    /// Where handlers record their calls.
    pub calls: Calls,
    /// The session store to mirror to and resume from.
    pub store: Option<claude_proto_adapter::StoreSettings>,
    /// The session's limits, if not the defaults.
    pub limits: Option<claude_proto_host::Limits>,
    /// `Some`: the adapter spawns the CLI from `options` itself and
    /// connects to it through a tee feeding this transcript (its `close`
    /// then waits for the child and reports its exit). `None`: the adapter
    /// spawns the CLI its own way.
    pub transcript: Option<Transcript>,
}

/// An adapter under test against the real CLI.
pub trait RealHarness {
    /// The adapter's name, for messages.
    const NAME: &'static str;
    /// Starts a session. Waiting for one event must be bounded (a hang
    /// fails the test instead of stalling it).
    fn start(spec: RealSpec) -> Result<Box<dyn Driver>, SpawnError>;
    /// Starts a session on a runtime of its own, which
    /// [`Driver::drop_runtime`] drops; `None` if the adapter has no
    /// runtime (blocking).
    fn start_on_own_runtime(spec: RealSpec) -> Option<Result<Box<dyn Driver>, SpawnError>> {
        let _ = spec;
        None
    }
    /// The `Debug` output of the builder a session with `spec` starts
    /// from; `None` if this harness does not show it.
    fn builder_debug(spec: &RealSpec) -> Option<String> {
        let _ = spec;
        None
    }
    /// The adapter's one-shot run with `spec`'s handlers (the builder's
    /// `query`): the prompt's turn, once the CLI has exited. The CLI is
    /// spawned by the adapter (`spec.transcript` is not used).
    fn one_shot(
        spec: RealSpec,
        prompt: &str,
    ) -> Result<claude_proto_host::Turn, claude_proto_host::Error>;
}

// ----- helpers --------------------------------------------------------------

fn start<H: RealHarness>(mut spec: RealSpec) -> Box<dyn Driver> {
    if let Some(cli) = real_cli() {
        spec.options = replay::session_options(spec.options, &cli);
    }
    match H::start(spec) {
        Ok(session) => session,
        Err(e) => panic!("{}: the session did not start: {e}", H::NAME),
    }
}

fn must<T, E: std::fmt::Display>(what: &str, result: Result<T, E>) -> T {
    match result {
        Ok(v) => v,
        Err(e) => panic!("{what}: {e}"),
    }
}

fn query(session: &mut dyn Driver, prompt: &str) -> TurnInfo {
    must("send", session.send_text(prompt));
    must("turn", turn(session))
}

fn assistant_text(t: &TurnInfo) -> String {
    t.messages
        .iter()
        .filter_map(|m| match m {
            StdoutMessage::Assistant(a) => Some(a.message.text()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("")
}

fn result_of(t: &TurnInfo) -> &claude_proto::model::result::ResultMessage {
    match t.messages.last() {
        Some(StdoutMessage::Result(r)) => r,
        other => panic!("a turn ends with its result, not {other:?}"),
    }
}

fn init_model(t: &TurnInfo) -> Option<String> {
    t.messages.iter().find_map(|m| match m {
        StdoutMessage::System(SystemMessage::Init(init)) => serde_json::to_value(init)
            .ok()
            .and_then(|v| v["model"].as_str().map(str::to_owned)),
        _ => None,
    })
}

/// The tool_result blocks of the conversation's last message, as the model
/// got them.
fn last_tool_result(request: &ApiRequest) -> Value {
    request
        .tool_results()
        .last()
        .map(|v| (*v).clone())
        .unwrap_or_else(|| panic!("no tool_result sent to the model: {}", request.body))
}

fn tool_result_text(block: &Value) -> String {
    match &block["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        other => other.to_string(),
    }
}

/// One tool call, then a closing text once the conversation holds its
/// result (not necessarily in the last message: hook context may follow).
fn tool_then_text(
    name: &'static str,
    input: Value,
    text: &'static str,
) -> impl Fn(&ApiRequest) -> Reply + Send + Sync + 'static {
    move |request| {
        if !request.tool_results().is_empty() {
            Reply::text(text)
        } else {
            Reply::tool_use(name, input.clone())
        }
    }
}

// ----- scenarios ------------------------------------------------------------

/// One prompt, one streamed answer, a clean exit (code 0).
pub fn single_turn<H: RealHarness>() {
    let Some(peer) = Peer::new(|_| Reply::text("Hello from the stand-in.")) else {
        return;
    };
    let spec = peer.spec();
    let transcript = spec.transcript.clone();
    let mut s = start::<H>(spec);
    let init = must("initialize", s.initialization());
    assert!(!init.models.is_empty(), "initialize lists no models");
    let t = query(&mut *s, "Say hello");
    assert_eq!(t.subtype, "success");
    assert!(!t.is_error);
    assert_eq!(t.text, "Hello from the stand-in.");
    assert_eq!(assistant_text(&t), "Hello from the stand-in.");
    assert!(
        t.messages
            .iter()
            .any(|m| matches!(m, StdoutMessage::System(SystemMessage::Init(_)))),
        "no system/init in the turn"
    );
    let requests = peer.server.messages_requests();
    assert_eq!(requests.len(), 1, "one model call for one text answer");
    assert!(requests[0].all_text().contains("Say hello"));
    assert_eq!(requests[0].body["stream"], true);
    let done = peer.finish(s, transcript, "e2e_single_turn");
    let exit = done.exit.clone().expect("an exit report");
    assert!(exit.success(), "{exit}");
    // Only what the host sent went out: initialize first, then the prompt.
    let out = done.json(Dir::Out);
    assert_eq!(out[0]["request"]["subtype"], "initialize");
    assert_eq!(out[1]["type"], "user");
}

/// The CLI runs our session as an SDK session, and its version is the one
/// this release is tested with (no version warning): the `initialize` answer lists
/// the same agents and commands as under the Python SDK's entrypoint (no
/// `claude-code-guide` agent, which other entrypoints get), and the model
/// requests name the library in their `User-Agent`.
pub fn sdk_entrypoint<H: RealHarness>() {
    let Some(peer) = Peer::new(|_| Reply::text("Hi.")) else {
        return;
    };
    let names = |init: &claude_proto::model::initialize::InitializeResponse| {
        let agents: Vec<String> = init.agents.iter().map(|a| a.name.clone()).collect();
        let commands: Vec<String> = init.commands.iter().map(|c| c.name.clone()).collect();
        (agents, commands)
    };
    let mut spec = peer.spec();
    spec.transcript = None;
    let mut ours = start::<H>(spec);
    let init = must("initialize", ours.initialization());
    let (agents, commands) = names(&init);
    // The pinned CLI is the version this release is tested with: no
    // version warning.
    assert_eq!(
        init.claude_code_version.as_deref(),
        Some(claude_proto::version::TESTED_CLI_VERSION)
    );
    let t = query(&mut *ours, "Say hi");
    assert_eq!(t.text, "Hi.");
    assert!(
        !t.other
            .iter()
            .any(|o| format!("{o:?}").contains("CliVersion")),
        "{:?}",
        t.other
    );
    must("close", ours.close());

    let mut spec = peer.spec();
    spec.transcript = None;
    spec.options = spec.options.entrypoint("sdk-py");
    let mut python = start::<H>(spec);
    let (py_agents, py_commands) = names(&must("initialize", python.initialization()));
    must("close", python.close());

    assert!(
        !agents.iter().any(|a| a == "claude-code-guide"),
        "{agents:?}"
    );
    assert_eq!(agents, py_agents);
    assert_eq!(commands, py_commands);
    let requests = peer.server.messages_requests();
    let agent = requests[0].header("user-agent").unwrap_or_default();
    assert!(agent.contains("sdk-cli"), "{agent}");
    assert!(
        agent.contains(&format!(
            "client-app/{}",
            claude_proto::options::DEFAULT_CLIENT_APP
        )),
        "{agent}"
    );
}

/// The system prompt is empty by default, as in the official SDKs; Claude
/// Code's own prompt comes only when asked for, with an addition if given.
pub fn system_prompt_default_is_empty<H: RealHarness>() {
    let Some(peer) = Peer::new(|_| Reply::text("ok")) else {
        return;
    };
    let system_of = |options: Options| {
        let mut spec = peer.spec();
        spec.transcript = None;
        spec.options = options;
        let mut s = start::<H>(spec);
        assert_eq!(query(&mut *s, "hi").text, "ok");
        must("close", s.close());
        let requests = peer.server.messages_requests();
        requests[requests.len() - 1].body["system"].to_string()
    };
    let empty = system_of(peer.spec().options);
    let preset = system_of(
        peer.spec()
            .options
            .claude_code_system_prompt()
            .append_system_prompt("Appended-by-the-test."),
    );
    assert!(!empty.contains("Claude Code"), "{empty}");
    assert!(
        preset.contains("Claude Code"),
        "the preset has Claude Code's prompt"
    );
    assert!(preset.contains("Appended-by-the-test."));
    assert!(
        preset.len() > empty.len() + 1000,
        "{} vs {}",
        preset.len(),
        empty.len()
    );
}

/// The adapter's own spawn path (no tee): a turn and a clean exit report.
pub fn single_turn_spawned<H: RealHarness>() {
    let Some(peer) = Peer::new(|_| Reply::text("Spawned fine.")) else {
        return;
    };
    let mut spec = peer.spec();
    spec.transcript = None;
    let mut s = start::<H>(spec);
    let pid = s.pid().expect("a child process");
    let t = query(&mut *s, "Hi");
    assert_eq!(t.text, "Spawned fine.");
    let exit = must("close", s.close()).expect("an exit report");
    assert!(exit.success(), "{exit}");
    assert!(
        crate::process::wait_until_gone(pid, WAIT),
        "pid {pid} left behind"
    );
}

/// Two turns on one session with `set_model` in between: the second turn's
/// API call uses the model the CLI resolved, and carries the first turn.
pub fn multi_turn_with_set_model<H: RealHarness>() {
    let Some(peer) = Peer::new(|request| {
        let turn = if request.all_text().contains("Second question") {
            2
        } else {
            1
        };
        Reply::text(format!("turn {turn} answered"))
    }) else {
        return;
    };
    let spec = peer.spec();
    let transcript = spec.transcript.clone();
    let mut s = start::<H>(spec);
    let first = query(&mut *s, "First question");
    assert_eq!(first.text, "turn 1 answered");
    let switched = must(
        "set_model",
        s.control(ControlRequest::set_model(Some("sonnet")), None),
    );
    let switched: Value = must("set_model answer", switched.decode());
    let model = switched["model"]
        .as_str()
        .unwrap_or_else(|| panic!("set_model answer without a model: {switched}"))
        .to_owned();
    assert!(model.contains("sonnet"), "{model}");
    let second = query(&mut *s, "Second question");
    assert_eq!(second.text, "turn 2 answered");
    assert_eq!(init_model(&second).as_deref(), Some(model.as_str()));
    assert_ne!(init_model(&first), init_model(&second));

    let requests = peer.server.messages_requests();
    assert_eq!(requests.len(), 2, "one model call per turn");
    assert_ne!(requests[0].model(), Some(model.as_str()));
    assert_eq!(requests[1].model(), Some(model.as_str()));
    let history = requests[1].all_text();
    for needle in ["First question", "turn 1 answered", "Second question"] {
        assert!(history.contains(needle), "{needle} not sent: {history}");
    }
    let first_result = result_of(&first);
    let second_result = result_of(&second);
    assert_eq!(first_result.session_id, second_result.session_id);
    peer.finish(s, transcript, "e2e_multi_turn_set_model");
}

/// The permission handler denies a Bash command with side effects: it does
/// not run, and the model is told why in its next request.
pub fn permission_deny_bash<H: RealHarness>() {
    let Some(peer) = Peer::new(tool_then_text(
        "Bash",
        json!({"command": "touch denied.txt", "description": "Create a file"}),
        "Understood, I will not.",
    )) else {
        return;
    };
    let mut spec = peer.spec();
    spec.permission = Some(PermissionRule::Deny("not in this test".into()));
    let calls = spec.calls.clone();
    let transcript = spec.transcript.clone();
    let mut s = start::<H>(spec);
    let t = query(&mut *s, "Create denied.txt");
    assert_eq!(t.text, "Understood, I will not.");
    assert!(!peer.cwd().join("denied.txt").exists(), "the command ran");

    let asks = calls.of("can_use_tool");
    assert_eq!(asks.len(), 1, "{asks:?}");
    assert_eq!(asks[0]["tool_name"], "Bash");
    assert_eq!(asks[0]["input"]["command"], "touch denied.txt");

    let requests = peer.server.messages_requests();
    assert_eq!(requests.len(), 2);
    let block = last_tool_result(&requests[1]);
    assert_eq!(block["is_error"], true, "{block}");
    assert!(
        tool_result_text(&block).contains("not in this test"),
        "{block}"
    );
    let result = result_of(&t);
    assert_eq!(result.permission_denials.len(), 1);
    assert_eq!(result.permission_denials[0].tool_name, "Bash");
    assert_eq!(
        Some(result.permission_denials[0].tool_use_id.as_str()),
        asks[0]["tool_use_id"].as_str()
    );
    peer.finish(s, transcript, "e2e_permission_deny_bash");
}

/// The permission handler allows Write with a different input: the file
/// lands where the handler said, with its content.
pub fn permission_allow_write_updated_input<H: RealHarness>() {
    let Some(peer) = Peer::with(|cwd| {
        let asked = cwd.join("asked.txt");
        move |request: &ApiRequest| {
            if !request.tool_results().is_empty() {
                Reply::text("Written.")
            } else {
                Reply::tool_use(
                    "Write",
                    json!({"file_path": asked, "content": "from the model\n"}),
                )
            }
        }
    }) else {
        return;
    };
    let asked = peer.cwd().join("asked.txt");
    let updated_path = peer.cwd().join("updated.txt");
    let mut spec = peer.spec();
    spec.permission = Some(PermissionRule::AllowWithInput(
        json!({"file_path": updated_path, "content": "from the handler\n"}),
    ));
    let calls = spec.calls.clone();
    let transcript = spec.transcript.clone();
    let mut s = start::<H>(spec);
    let t = query(&mut *s, "Write a file");
    let asks = calls.of("can_use_tool");
    assert_eq!(asks.len(), 1, "{asks:?}");
    assert_eq!(asks[0]["tool_name"], "Write");
    assert_eq!(t.text, "Written.", "{:?}", t.messages);
    assert!(!asked.exists(), "the model's path was used");
    let content = std::fs::read_to_string(&updated_path).expect("the updated path was written");
    assert_eq!(content, "from the handler\n");
    let requests = peer.server.messages_requests();
    let block = last_tool_result(&requests[requests.len() - 1]);
    assert_ne!(block["is_error"], true, "{block}");
    peer.finish(s, transcript, "e2e_permission_allow_write");
}

/// A PreToolUse hook denies Bash: the command does not run, the permission
/// handler is never asked, and the model gets the hook's reason.
pub fn pre_tool_use_hook_blocks<H: RealHarness>() {
    let Some(peer) = Peer::new(tool_then_text(
        "Bash",
        json!({"command": "touch hooked.txt", "description": "Create a file"}),
        "Blocked, fine.",
    )) else {
        return;
    };
    let mut spec = peer.spec();
    spec.permission = Some(PermissionRule::Allow);
    spec.hooks = vec![HookRule {
        event: "PreToolUse",
        matcher: Some("Bash"),
        behaviour: HookBehaviour::Deny("blocked by the test hook".into()),
    }];
    let calls = spec.calls.clone();
    let transcript = spec.transcript.clone();
    let mut s = start::<H>(spec);
    let t = query(&mut *s, "Create hooked.txt");
    assert_eq!(t.text, "Blocked, fine.");
    assert!(!peer.cwd().join("hooked.txt").exists(), "the command ran");
    let pre = calls.of("PreToolUse");
    assert_eq!(pre.len(), 1, "{pre:?}");
    assert_eq!(pre[0]["tool_name"], "Bash");
    assert_eq!(pre[0]["tool_input"]["command"], "touch hooked.txt");
    assert!(calls.of("can_use_tool").is_empty(), "permission was asked");
    let requests = peer.server.messages_requests();
    let block = last_tool_result(&requests[requests.len() - 1]);
    assert_eq!(block["is_error"], true, "{block}");
    assert!(
        tool_result_text(&block).contains("blocked by the test hook"),
        "{block}"
    );
    peer.finish(s, transcript, "e2e_pre_tool_use_hook_deny");
}

/// A PostToolUse hook sees the tool's response, and its additional context
/// reaches the model.
pub fn post_tool_use_hook_sees_response<H: RealHarness>() {
    let Some(peer) = Peer::new(tool_then_text(
        "Bash",
        json!({"command": "echo post-tool-marker", "description": "Print a marker"}),
        "Saw it.",
    )) else {
        return;
    };
    let mut spec = peer.spec();
    spec.hooks = vec![HookRule {
        event: "PostToolUse",
        matcher: None,
        behaviour: HookBehaviour::Context("context-from-the-hook".into()),
    }];
    let calls = spec.calls.clone();
    let transcript = spec.transcript.clone();
    let mut s = start::<H>(spec);
    let t = query(&mut *s, "Print the marker");
    assert_eq!(t.text, "Saw it.");
    let post = calls.of("PostToolUse");
    assert_eq!(post.len(), 1, "{post:?}");
    assert_eq!(post[0]["tool_name"], "Bash");
    assert!(
        post[0]["tool_response"]
            .to_string()
            .contains("post-tool-marker"),
        "{}",
        post[0]
    );
    let requests = peer.server.messages_requests();
    let last = &requests[requests.len() - 1];
    assert!(
        tool_result_text(&last_tool_result(last)).contains("post-tool-marker"),
        "{}",
        last.body
    );
    assert!(
        last.body.to_string().contains("context-from-the-hook"),
        "the hook's context did not reach the model"
    );
    peer.finish(s, transcript, "e2e_post_tool_use_hook");
}

/// The model calls a tool of an in-process MCP server: the host runs it and
/// the model gets its output.
pub fn mcp_tool<H: RealHarness>() {
    let Some(peer) = Peer::new(tool_then_text(
        "mcp__calc__add",
        json!({"a": 2, "b": 3}),
        "The sum is 5.",
    )) else {
        return;
    };
    let mut spec = peer.spec();
    spec.mcp_calc = true;
    spec.options = spec.options.allowed_tools(["mcp__calc__add"]);
    let calls = spec.calls.clone();
    let transcript = spec.transcript.clone();
    let mut s = start::<H>(spec);
    let t = query(&mut *s, "Add 2 and 3");
    assert_eq!(t.text, "The sum is 5.");
    let adds = calls.of("mcp:add");
    assert_eq!(adds, vec![json!({"a": 2, "b": 3})]);
    let requests = peer.server.messages_requests();
    let block = last_tool_result(&requests[requests.len() - 1]);
    assert_eq!(tool_result_text(&block), "5", "{block}");
    assert_ne!(block["is_error"], true, "{block}");
    peer.finish(s, transcript, "e2e_sdk_mcp_tool");
}

/// An rmcp server attached as an endpoint: the CLI lists its tool with
/// the annotations and schema rmcp derived, the model's call reaches the
/// Rust tool with typed arguments and its structured answer comes back,
/// and a tool that panics gives the model an error result while the
/// session lives on.
pub fn rmcp_tool<H: RealHarness>() {
    let Some(peer) = Peer::new(|request: &ApiRequest| match request.tool_results().len() {
        0 => Reply::tool_use(
            "mcp__weather__get_weather",
            json!({"city": "Paris", "unit": "celsius"}),
        ),
        1 => Reply::tool_use("mcp__weather__explode", json!({})),
        _ => Reply::text("It is 22 degrees in Paris."),
    }) else {
        return;
    };
    let mut spec = peer.spec();
    spec.rmcp_weather = true;
    spec.options = spec
        .options
        .allowed_tools(["mcp__weather__get_weather", "mcp__weather__explode"]);
    let calls = spec.calls.clone();
    let mut s = start::<H>(spec);
    let t = query(&mut *s, "What is the weather in Paris?");
    assert_eq!(t.text, "It is 22 degrees in Paris.");
    assert_eq!(
        calls.of("weather:get_weather"),
        vec![json!({"city": "Paris", "unit": "celsius"})]
    );
    let requests = peer.server.messages_requests();
    let results = requests[requests.len() - 1].tool_results();
    assert_eq!(results.len(), 2, "{}", requests[requests.len() - 1].body);
    let weather_result = tool_result_text(results[0]);
    assert!(weather_result.contains("22"), "{weather_result}");
    assert_ne!(results[0]["is_error"], true, "{}", results[0]);
    let panicked = tool_result_text(results[1]);
    assert_eq!(results[1]["is_error"], true, "{}", results[1]);
    assert!(panicked.contains("exploded"), "{panicked}");
    // The session lives on, and lists the server with its annotations
    // (the CLI connects SDK servers with the first turn).
    let status = must(
        "mcp_status",
        s.control(ControlRequest::mcp_status(), Some(WAIT)),
    );
    let status: Value = must(
        "mcp_status as JSON",
        serde_json::from_str(status.payload().unwrap_or("null")),
    );
    let servers = &status["mcpServers"];
    let weather = servers
        .as_array()
        .and_then(|all| all.iter().find(|s| s["name"] == "weather"))
        .unwrap_or_else(|| panic!("no weather server in {status}"));
    assert_eq!(weather["status"], "connected", "{weather}");
    let tool = weather["tools"]
        .as_array()
        .and_then(|tools| tools.iter().find(|t| t["name"] == "get_weather"))
        .unwrap_or_else(|| panic!("no get_weather tool in {weather}"));
    assert_eq!(tool["annotations"]["readOnly"], true, "{tool}");

    must("close", s.close());
}

/// An interrupted turn cancels the rmcp tool it was waiting for: the CLI
/// sends `notifications/cancelled`, the tool's cancellation token fires,
/// the turn ends, and the session goes on.
pub fn rmcp_tool_cancelled<H: RealHarness>() {
    let Some(peer) = Peer::new(|request: &ApiRequest| {
        if request.all_text().contains("Again") {
            Reply::text("Back again.")
        } else {
            Reply::tool_use("mcp__weather__wait_for_cancel", json!({}))
        }
    }) else {
        return;
    };
    let mut spec = peer.spec();
    spec.rmcp_weather = true;
    spec.options = spec
        .options
        .allowed_tools(["mcp__weather__wait_for_cancel"]);
    let calls = spec.calls.clone();
    let mut s = start::<H>(spec);
    must("send", s.send_text("Wait for it"));
    assert!(
        calls.wait_for("weather:wait_started", WAIT).is_some(),
        "the tool was never called"
    );
    must("interrupt", s.control(ControlRequest::interrupt(), None));
    let t = must("turn", turn(&mut *s));
    assert!(t.is_error, "{}", t.text);
    assert!(
        calls.wait_for("weather:wait_cancelled", WAIT).is_some(),
        "the tool was not cancelled"
    );
    let again = query(&mut *s, "Again");
    assert_eq!(again.text, "Back again.");
    must("close", s.close());
}

/// A request of the server's to the CLI (`roots/list`) is carried to the
/// CLI as an `mcp_message` and the CLI's own answer comes back to the tool
/// that asked: CLI 2.1.330 answers SDK servers' `roots/list` with
/// "Method not found", which the tool then reports (rather than waiting
/// forever, or getting an answer the library made up).
pub fn rmcp_server_asks_the_cli<H: RealHarness>() {
    let Some(peer) = Peer::new(tool_then_text("mcp__weather__roots", json!({}), "ok")) else {
        return;
    };
    let mut spec = peer.spec();
    spec.rmcp_weather = true;
    spec.options = spec.options.allowed_tools(["mcp__weather__roots"]);
    let mut s = start::<H>(spec);
    let t = query(&mut *s, "Which roots?");
    assert_eq!(t.text, "ok");
    let requests = peer.server.messages_requests();
    let block = last_tool_result(&requests[requests.len() - 1]);
    let text = tool_result_text(&block);
    assert_eq!(
        text, "no roots: Mcp error: -32601: Method not found",
        "{block}"
    );
    must("close", s.close());
}

/// A tool added to an in-process MCP server while the session runs: the
/// CLI is told, lists the server's tools again, offers the new tool to the
/// model and routes the model's call of it to the host.
pub fn mcp_tool_added_while_running<H: RealHarness>() {
    let Some(peer) = Peer::new(tool_then_text(
        "mcp__calc__mul",
        json!({"a": 2, "b": 3}),
        "The product is 6.",
    )) else {
        return;
    };
    let mut spec = peer.spec();
    spec.mcp_calc = true;
    spec.options = spec
        .options
        .allowed_tools(["mcp__calc__add", "mcp__calc__mul"]);
    let mut s = start::<H>(spec);
    must("initialize", s.initialization());
    let Some(added) = s.change_tools(crate::conformance::ToolChange::AddMul("calc")) else {
        eprintln!("{}: no add_tool in this harness; scenario skipped", H::NAME);
        return;
    };
    must("add_tool", added);
    let t = query(&mut *s, "Multiply 2 and 3");
    assert_eq!(t.text, "The product is 6.");
    let requests = peer.server.messages_requests();
    let block = last_tool_result(&requests[requests.len() - 1]);
    assert_eq!(tool_result_text(&block), "6", "{block}");
    assert_ne!(block["is_error"], true, "{block}");
    must("close", s.close());
}

/// A `PreToolUse` hook registered to block on failure: the session starts
/// (CLI 2.1.330 confirms it honours `on_failure`, so the held prompt goes
/// out), the hook fails, and the CLI blocks the tool instead of running it.
pub fn blocking_hook_fails_closed<H: RealHarness>() {
    let Some(peer) = Peer::new(tool_then_text(
        "Bash",
        json!({"command": "echo ran > ran.txt", "description": "write a file"}),
        "Done.",
    )) else {
        return;
    };
    let mut spec = peer.spec();
    spec.options = spec.options.allowed_tools(["Bash"]);
    spec.hooks = vec![HookRule {
        event: "PreToolUse",
        matcher: Some("Bash"),
        behaviour: crate::conformance::HookBehaviour::FailClosed,
    }];
    let calls = spec.calls.clone();
    let transcript = spec.transcript.clone();
    let mut s = start::<H>(spec);
    let init = must("initialize", s.initialization());
    assert_eq!(init.hook_on_failure_supported, Some(true));
    let t = query(&mut *s, "Write the file");
    assert_eq!(t.text, "Done.");
    assert_eq!(calls.of("PreToolUse").len(), 1, "the hook ran once");
    let requests = peer.server.messages_requests();
    let block = last_tool_result(&requests[requests.len() - 1]);
    assert_eq!(block["is_error"], true, "the tool was not blocked: {block}");
    assert!(!peer.cwd().join("ran.txt").exists(), "Bash ran");
    peer.finish(s, transcript, "e2e_blocking_hook");
}

/// An MCP server given only in `initialize` (a launch-only field) reaches
/// the CLI: the adapters start it with `--await-initialize`, so it shows up
/// in `mcp_status` (it fails to start, as its command does not exist).
pub fn launch_fields_reach_the_cli<H: RealHarness>() {
    use claude_proto::model::initialize::InitializeRequest;
    use claude_proto::model::mcp::McpServerConfig;
    let Some(peer) = Peer::new(|_| Reply::text("ok")) else {
        return;
    };
    let mut spec = peer.spec();
    spec.transcript = None;
    spec.initialize = Some(InitializeRequest::new().with_mcp_server(
        "launch-only",
        McpServerConfig::stdio("/nonexistent/mcp-server", Vec::new()),
    ));
    let mut s = start::<H>(spec);
    let init = must("initialize", s.initialization());
    assert_eq!(init.mcp_servers_applied, Some(true));
    let status = must(
        "mcp_status",
        s.control(ControlRequest::mcp_status(), Some(WAIT)),
    );
    let status = status.payload().unwrap_or_default().to_owned();
    assert!(status.contains("launch-only"), "{status}");
    must("close", s.close());
}

/// The text of a request's first user message: the prompt of the thread
/// it belongs to (the main thread's, or a subagent's).
fn first_user_text(request: &ApiRequest) -> String {
    match request.messages().first().map(|m| &m["content"]) {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

/// Python's one-shot run with a background agent: the prompt's turn
/// starts an agent in the background and ends; the agent finishes, and
/// the CLI wakes the main thread for a follow-up turn whose tool call a
/// PreToolUse hook must answer. The one-shot keeps stdin open until the
/// CLI reports the session idle, so the hook is answered (with stdin
/// closed at the first result, as before, the follow-up's hook could not
/// be), and it returns the prompt's turn once the CLI has exited.
pub fn one_shot_serves_a_background_agents_follow_up<H: RealHarness>() {
    let Some(peer) = Peer::new(|request: &ApiRequest| {
        if first_user_text(request).contains("SUBAGENT-TASK") {
            return Reply::text("The subagent's work is done.");
        }
        let text = request.all_text();
        if text.contains("subagent's work is done") || text.contains("task-notification") {
            // The follow-up turn, woken by the agent's completion.
            return if text.contains("follow-up-marker") {
                Reply::text("Follow-up done.")
            } else {
                Reply::tool_use(
                    "Bash",
                    json!({"command": "echo follow-up-marker", "description": "Print a marker"}),
                )
            };
        }
        if request.tool_results().is_empty() {
            Reply::tool_use(
                "Agent",
                json!({"description": "Background work", "prompt": "SUBAGENT-TASK: say done",
                       "subagent_type": "general-purpose", "run_in_background": true}),
            )
        } else {
            Reply::text("Started it in the background.")
        }
    }) else {
        return;
    };
    let mut spec = peer.spec();
    spec.transcript = None;
    // Bounds the run's wait (and the CLI's own for background work) should
    // the idle never come: the test then fails instead of hanging.
    spec.options = spec
        .options
        .env("CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS", "120000");
    spec.hooks = vec![HookRule {
        event: "PreToolUse",
        matcher: Some("Bash"),
        behaviour: HookBehaviour::Context("from-the-follow-up-hook".into()),
    }];
    let calls = spec.calls.clone();
    let turn = must(
        "the one-shot run",
        H::one_shot(spec, "Start a background agent"),
    );
    let requests = peer.server.messages_requests().len();
    assert_eq!(
        turn.text(),
        Some("Started it in the background."),
        "the prompt's own turn ({requests} model calls)"
    );
    let hooks = calls.of("PreToolUse");
    assert!(
        hooks
            .iter()
            .any(|h| h["tool_input"]["command"] == "echo follow-up-marker"),
        "the follow-up turn's hook was not answered: {hooks:?} ({requests} model calls)"
    );
    let requests = peer.server.messages_requests();
    assert!(
        requests
            .iter()
            .any(|r| r.body.to_string().contains("from-the-follow-up-hook")),
        "the hook's answer never reached the model"
    );
}

/// The CLI refuses to resume a session it does not have: it writes an
/// error result and exits before answering `initialize`. The caller gets
/// the CLI's own words (as from the Python SDK), not only the exit.
pub fn resume_refused_says_why<H: RealHarness>() {
    let Some(peer) = Peer::new(|_| Reply::text("never")) else {
        return;
    };
    let unknown = "123e4567-e89b-42d3-a456-426614174000";
    let mut spec = peer.spec();
    spec.options = spec.options.resume(unknown);
    spec.transcript = None;
    let mut s = start::<H>(spec);
    let error = match s.initialization() {
        Ok(init) => panic!("a resume of an unknown session started: {init:?}"),
        Err(error) => error,
    };
    let ended = error.ended().expect("the session ended");
    let words = format!("No conversation found with session ID: {unknown}");
    assert_eq!(ended.failure(), Some(words.as_str()), "{error}");
    assert!(error.to_string().contains(&words), "{error}");
    assert!(peer.server.messages_requests().is_empty());
    let _ = s.close();
}

/// Python's `skills`: with two skills installed in the project, a session
/// that lists one may load it through the Skill tool, and the other is
/// refused: the `Skill(name)` rule allows the listed one without a prompt,
/// `initialize.skills` keeps the other from the model, and the `project`
/// layer it is installed in is loaded without being asked for.
pub fn skills_listed_and_unlisted<H: RealHarness>() {
    let Some(peer) = Peer::with(|cwd| {
        for (name, body) in [
            ("listed", "LISTED-SKILL-BODY: answer in haiku."),
            ("unlisted", "UNLISTED-SKILL-BODY: never shown."),
        ] {
            let dir = cwd.join(".claude/skills").join(name);
            std::fs::create_dir_all(&dir).expect("a skill directory");
            std::fs::write(
                dir.join("SKILL.md"),
                format!("---\nname: {name}\ndescription: The {name} skill.\n---\n\n{body}\n"),
            )
            .expect("a skill");
        }
        |request: &ApiRequest| match request.tool_results().len() {
            0 => Reply::tool_use("Skill", json!({"skill": "listed"})),
            1 => Reply::tool_use("Skill", json!({"skill": "unlisted"})),
            _ => Reply::text("done"),
        }
    }) else {
        return;
    };
    let mut spec = peer.spec();
    spec.options = spec.options.skills(["listed"]);
    let transcript = spec.transcript.clone();
    let mut s = start::<H>(spec);
    let t = query(&mut *s, "Use the skills");
    assert_eq!(t.text, "done");
    let requests = peer.server.messages_requests();
    let last = requests.last().expect("model calls");
    let results = last.tool_results();
    assert_eq!(results.len(), 2, "{}", last.body);
    let (listed, unlisted) = (results[0], results[1]);
    assert_ne!(listed["is_error"], true, "{listed}");
    assert!(
        last.all_text().contains("LISTED-SKILL-BODY"),
        "the listed skill's text never reached the model: {}",
        last.body
    );
    assert_eq!(unlisted["is_error"], true, "{unlisted}");
    // CLI 2.1.332: "Skill unlisted is not in this session's skills allowlist".
    assert!(
        tool_result_text(unlisted).contains("allowlist"),
        "{unlisted}"
    );
    assert!(!last.all_text().contains("UNLISTED-SKILL-BODY"));
    // The listed one needed no permission prompt (none is answered here).
    assert!(result_of(&t).permission_denials.is_empty());
    peer.finish(s, transcript, "e2e_skills");
}

/// The model asks the user a question (`AskUserQuestion`); the permission
/// callback answers it through the typed tool input, and the answer reaches
/// the model.
pub fn ask_user_question_answered<H: RealHarness>() {
    let Some(peer) = Peer::new(tool_then_text(
        "AskUserQuestion",
        json!({"questions": [{"question": "Which color?", "header": "Color",
               "multiSelect": false, "options": [
                   {"label": "Red", "description": "Warm"},
                   {"label": "Blue", "description": "Cool"}]}]}),
        "Blue it is.",
    )) else {
        return;
    };
    let mut spec = peer.spec();
    spec.permission = Some(PermissionRule::AnswerQuestions);
    let calls = spec.calls.clone();
    let mut s = start::<H>(spec);
    let t = query(&mut *s, "Ask me a question");
    assert_eq!(t.text, "Blue it is.");
    assert_eq!(calls.of("can_use_tool").len(), 1);
    let requests = peer.server.messages_requests();
    let block = last_tool_result(&requests[requests.len() - 1]);
    let text = tool_result_text(&block);
    assert!(
        text.contains("Which color?") && text.contains("Blue"),
        "{block}"
    );
    assert_ne!(block["is_error"], true, "{block}");
    must("close", s.close());
}

/// An MCP server of the CLI's asks the user for input (`elicitation/create`);
/// the CLI forwards it to the host's elicitation handler, whose answer goes
/// back to the server and, through the tool's result, to the model.
pub fn elicitation_reaches_the_handler<H: RealHarness>() {
    let Some(peer) = Peer::new(tool_then_text("mcp__elicit__ask", json!({}), "Noted.")) else {
        return;
    };
    // The test binary beside this test's own executable.
    let server = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.join("elicit-mcp")))
        .filter(|path| path.exists())
        .expect("the elicit-mcp binary of this package is built");
    let mut spec = peer.spec();
    spec.options = spec
        .options
        .mcp_config(json!({"mcpServers": {"elicit": {"type": "stdio", "command": server}}}))
        .allowed_tools(["mcp__elicit__ask"]);
    spec.elicitation = true;
    let mut s = start::<H>(spec);
    let t = query(&mut *s, "Ask me which repo");
    assert_eq!(t.text, "Noted.");
    let requests = peer.server.messages_requests();
    let block = last_tool_result(&requests[requests.len() - 1]);
    let text = tool_result_text(&block);
    assert!(text.contains("accept") && text.contains("a/b"), "{block}");
    must("close", s.close());
}

/// An interrupt while the answer streams slowly ends the turn with
/// `error_during_execution`; the session then serves another turn.
pub fn interrupt_slow_stream<H: RealHarness>() {
    let long = "one two three four five six seven eight nine ten ".repeat(10);
    let Some(peer) = Peer::new(move |request| {
        if request.all_text().contains("Again") {
            Reply::text("Back again.")
        } else {
            Reply::text(long.clone()).slowly(100, Duration::from_millis(100))
        }
    }) else {
        return;
    };
    let mut spec = peer.spec();
    spec.options = spec.options.include_partial_messages(true);
    let transcript = spec.transcript.clone();
    let mut s = start::<H>(spec);
    must("send", s.send_text("Talk slowly"));
    // Wait until text is streaming.
    let mut streamed = String::new();
    while streamed.is_empty() {
        match s.next_event() {
            Some(Observed::Message(m)) => {
                if let Ok(StdoutMessage::StreamEvent(e)) = m.parse() {
                    if let StreamEvent::ContentBlockDelta(d) = &e.event {
                        if let ContentDelta::TextDelta(t) = &d.delta {
                            streamed.push_str(&t.text);
                        }
                    }
                }
            }
            Some(_) => {}
            None => panic!("the session ended before streaming"),
        }
    }
    must("interrupt", s.control(ControlRequest::interrupt(), None));
    let t = must("turn", turn(&mut *s));
    assert_eq!(t.subtype, "error_during_execution", "{}", t.text);
    assert!(t.is_error);
    let partial = assistant_text(&t);
    assert!(
        !partial.contains(&"one two three four five six seven eight nine ten ".repeat(10)),
        "the whole answer arrived despite the interrupt"
    );
    // The session is still usable.
    let again = query(&mut *s, "Again");
    assert_eq!(again.text, "Back again.");
    assert!(
        again
            .messages
            .iter()
            .all(|m| !matches!(m, StdoutMessage::Unknown(_)))
    );
    // The interrupt did not end the process; its exit code follows the
    // last result (a success here).
    let done = peer.finish(s, transcript, "e2e_interrupt_slow_stream");
    let exit = done.exit.expect("an exit report");
    assert!(exit.success(), "{exit}");
}

/// An interrupt while a permission prompt waits: the CLI cancels the
/// prompt, the handler's future is dropped, and no answer is ever sent.
pub fn interrupt_pending_permission<H: RealHarness>() {
    let Some(peer) = Peer::new(tool_then_text(
        "Bash",
        json!({"command": "touch pending.txt", "description": "Create a file"}),
        "unreachable",
    )) else {
        return;
    };
    let probe = Arc::new(CancelProbe::default());
    let mut spec = peer.spec();
    spec.permission = Some(PermissionRule::Pending(probe.clone()));
    let calls = spec.calls.clone();
    let transcript = spec.transcript.clone();
    let mut s = start::<H>(spec);
    must("send", s.send_text("Create pending.txt"));
    let ask = calls
        .wait_for("can_use_tool", WAIT)
        .expect("the CLI asks for permission");
    must("interrupt", s.control(ControlRequest::interrupt(), None));
    let t = must("turn", turn(&mut *s));
    assert_eq!(t.subtype, "error_during_execution", "{}", t.text);
    assert!(
        probe.wait_dropped(WAIT),
        "the cancelled handler's future was not dropped"
    );
    assert!(!peer.cwd().join("pending.txt").exists(), "the command ran");
    let done = peer.finish(s, transcript, "e2e_interrupt_pending_permission");
    // The last result was the interrupted one: exit code 1.
    let exit = done.exit.clone().expect("an exit report");
    assert_eq!(exit.code, Some(1), "{exit}");
    // Find the request id of the prompt, its cancellation, and no answer.
    let tool_use_id = ask["tool_use_id"].clone();
    let cli = done.json(Dir::In);
    let prompt = cli
        .iter()
        .find(|v| {
            v["type"] == "control_request"
                && v["request"]["subtype"] == "can_use_tool"
                && v["request"]["tool_use_id"] == tool_use_id
        })
        .expect("the prompt in the transcript");
    let id = prompt["request_id"].clone();
    assert!(
        cli.iter()
            .any(|v| v["type"] == "control_cancel_request" && v["request_id"] == id),
        "no control_cancel_request for {id}"
    );
    let answers = done
        .json(Dir::Out)
        .into_iter()
        .filter(|v| v["type"] == "control_response" && v["response"]["request_id"] == id)
        .count();
    assert_eq!(answers, 0, "the cancelled prompt was answered");
    assert_eq!(probe.calls.load(Ordering::SeqCst), 1);
}

/// `--include-partial-messages`: the stream events of a text answer arrive
/// typed and in order, and their deltas add up to the text.
pub fn partial_messages<H: RealHarness>() {
    let Some(peer) =
        Peer::new(|_| Reply::text("Streaming in pieces works.").slowly(4, Duration::ZERO))
    else {
        return;
    };
    let mut spec = peer.spec();
    spec.options = spec.options.include_partial_messages(true);
    let transcript = spec.transcript.clone();
    let mut s = start::<H>(spec);
    let t = query(&mut *s, "Stream please");
    assert_eq!(t.text, "Streaming in pieces works.");
    let mut kinds = Vec::new();
    let mut text = String::new();
    let mut stop_reason = None;
    for m in &t.messages {
        let StdoutMessage::StreamEvent(e) = m else {
            continue;
        };
        let kind = match &e.event {
            StreamEvent::MessageStart(_) => "message_start",
            StreamEvent::ContentBlockStart(_) => "content_block_start",
            StreamEvent::ContentBlockDelta(d) => {
                if let ContentDelta::TextDelta(t) = &d.delta {
                    text.push_str(&t.text);
                }
                "content_block_delta"
            }
            StreamEvent::ContentBlockStop(_) => "content_block_stop",
            StreamEvent::MessageDelta(d) => {
                stop_reason = serde_json::to_value(&d.delta)
                    .ok()
                    .map(|v| v["stop_reason"].clone());
                "message_delta"
            }
            StreamEvent::MessageStop(_) => "message_stop",
            other => panic!("unexpected stream event {other:?}"),
        };
        if kinds.last() != Some(&kind) {
            kinds.push(kind);
        }
    }
    assert_eq!(
        kinds,
        [
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop"
        ]
    );
    assert_eq!(text, "Streaming in pieces works.");
    assert_eq!(stop_reason, Some(json!("end_turn")));
    assert_eq!(assistant_text(&t), "Streaming in pieces works.");
    peer.finish(s, transcript, "e2e_partial_messages");
}

/// The API answers 400: the turn ends with an error result (subtype
/// `success`, `is_error: true`) carrying the API's message.
pub fn api_error<H: RealHarness>() {
    let Some(peer) = Peer::new(|_| {
        Reply::error(
            400,
            "invalid_request_error",
            "the stand-in refuses this prompt",
        )
    }) else {
        return;
    };
    let spec = peer.spec();
    let transcript = spec.transcript.clone();
    let mut s = start::<H>(spec);
    let t = query(&mut *s, "Fail please");
    assert!(t.is_error, "{}", t.text);
    let result = result_of(&t);
    let message = result.error_message().unwrap_or_default();
    assert!(
        message.contains("the stand-in refuses this prompt"),
        "{message}"
    );
    let synthetic = t.messages.iter().find_map(|m| match m {
        StdoutMessage::Assistant(a) if a.error.is_some() => Some(a),
        _ => None,
    });
    assert!(
        synthetic.is_some(),
        "no error assistant message: {:?}",
        t.messages
    );
    assert!(!peer.server.messages_requests().is_empty());
    assert!(
        peer.server
            .messages_requests()
            .iter()
            .all(|r| r.status == 400)
    );
    let done = peer.finish(s, transcript, "e2e_api_error");
    let exit = done.exit.expect("an exit report");
    assert_eq!(exit.code, Some(1), "{exit}");
}

/// The CLI is killed (SIGKILL) mid-turn: the event stream ends without a
/// result, later requests fail with the exit, and close reports the signal.
pub fn killed_mid_turn<H: RealHarness>() {
    let Some(peer) = Peer::new(|_| {
        Reply::text("this answer never finishes ".repeat(20))
            .slowly(200, Duration::from_millis(100))
    }) else {
        return;
    };
    let mut spec = peer.spec();
    spec.transcript = None;
    let mut s = start::<H>(spec);
    let pid = s.pid().expect("a child process");
    must("send", s.send_text("Take your time"));
    assert!(
        peer.server.wait_for_requests(1, WAIT),
        "the CLI never called the model"
    );
    let status = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success(), "kill -9 {pid} failed");
    let error = turn(&mut *s).expect_err("no result after SIGKILL");
    assert!(error.contains("ended"), "{error}");
    let after = s
        .control(ControlRequest::get_context_usage(), None)
        .expect_err("a dead CLI answers nothing");
    if let Some(report) = exit_of(&after) {
        assert_eq!(report.signal, Some(9), "{report}");
    }
    let exit = must("close", s.close()).expect("an exit report");
    assert_eq!(exit.signal, Some(9), "{exit}");
    assert_eq!(exit.code, None);
    assert!(crate::process::wait_until_gone(pid, WAIT));
}

/// A second session resumes the first by id: the model sees the earlier
/// conversation, and the session id carries over.
pub fn resume_session<H: RealHarness>() {
    let Some(peer) = Peer::new(|request| {
        if request.all_text().contains("Which word") {
            if request.all_text().contains("pineapple") {
                Reply::text("The word was pineapple.")
            } else {
                Reply::text("I do not remember any word.")
            }
        } else {
            Reply::text("Noted.")
        }
    }) else {
        return;
    };
    let spec = peer.spec();
    let transcript = spec.transcript.clone();
    let mut s = start::<H>(spec);
    let first = query(&mut *s, "Remember the word pineapple.");
    assert_eq!(first.text, "Noted.");
    let session_id = result_of(&first).session_id.clone();
    peer.finish(s, transcript, "e2e_resume_first");

    let mut spec = peer.spec();
    spec.options = spec.options.resume(session_id.clone());
    let transcript = spec.transcript.clone();
    let mut s = start::<H>(spec);
    let second = query(&mut *s, "Which word did I ask you to remember?");
    assert_eq!(second.text, "The word was pineapple.");
    let requests = peer.server.messages_requests();
    let history = requests[requests.len() - 1].all_text();
    assert!(history.contains("Noted."), "{history}");
    assert_eq!(result_of(&second).session_id, session_id);
    peer.finish(s, transcript, "e2e_resume");
}

/// Two machines sharing only a session store: the first runs a turn with
/// an empty `HOME` (so an empty config directory), mirrored to the store;
/// the second, with another empty `HOME` and its own connection to the
/// store, resumes the session from the store alone, and the model sees the
/// first turn in its history. The store is PostgreSQL when
/// `CLAUDE_PROTO_TEST_POSTGRES` names one (always under CI).
pub fn resume_from_the_store_on_another_machine<H: RealHarness>() {
    use claude_proto::transcript::SessionKey;
    use claude_proto_sessions::block_on;

    let Some(peer) = Peer::new(|request| {
        if request.all_text().contains("Which word") {
            if request.all_text().contains("pineapple") {
                Reply::text("The word was pineapple.")
            } else {
                Reply::text("I do not remember any word.")
            }
        } else {
            Reply::text("Noted.")
        }
    }) else {
        return;
    };
    let (store, store_b) = crate::stores::two_hosts("resume_from_the_store_on_another_machine");
    let machine = |home: &Path, store: &Arc<dyn claude_proto_sessions::SessionStore>| {
        std::fs::create_dir_all(home).expect("a home");
        let mut spec = peer.spec();
        spec.transcript = None;
        spec.options = spec.options.env("HOME", home);
        spec.store = Some(claude_proto_adapter::StoreSettings::shared(store.clone()));
        spec
    };
    let (home_a, home_b) = (peer.home().join("a"), peer.home().join("b"));

    let mut s = start::<H>(machine(&home_a, &store));
    let first = query(&mut *s, "Remember the word pineapple.");
    assert_eq!(first.text, "Noted.");
    let session_id = result_of(&first).session_id.clone();
    must(
        "flush_mirror",
        s.flush_mirror().expect("every harness flushes"),
    );
    let project = claude_proto_sessions::project_key_for_directory(peer.cwd());
    let key = SessionKey::main(project, &session_id);
    let stored = must("load", block_on(store.load(&key))).expect("the session is in the store");
    assert!(stored.len() >= 2, "{} entries", stored.len());
    must("close", s.close());

    let mut spec = machine(&home_b, &store_b);
    spec.options = spec.options.resume(session_id.clone());
    let mut s = start::<H>(spec);
    let second = query(&mut *s, "Which word did I ask you to remember?");
    assert_eq!(second.text, "The word was pineapple.");
    let requests = peer.server.messages_requests();
    let history = requests[requests.len() - 1].all_text();
    assert!(history.contains("Noted."), "{history}");
    assert_eq!(result_of(&second).session_id, session_id);
    must("close", s.close());
    let stored_after = must("load", block_on(store.load(&key))).expect("still there");
    assert!(
        stored_after.len() > stored.len(),
        "the resumed turn was mirrored too"
    );
    let home_b_config = home_b.join(".claude").join("projects");
    assert!(
        !home_b_config.exists(),
        "the second machine's own config directory was not used"
    );
    must("delete", block_on(store.delete(&key)));
}

// ----- ending a session: nothing of its process tree outlives it ----------

/// An MCP stdio server that does not go quietly. It ignores SIGTERM,
/// writes its pid and then its child's to the file named by its first
/// argument, answers just enough MCP for the CLI to list its (no) tools
/// (`initialize`, `tools/list`; any other request is "method not found"),
/// and when its stdin closes it stays, waiting for its child. The child
/// (`sleep`) ignores SIGTERM too (ignored signals are inherited across
/// `exec`) and holds the server's stdout and stderr, the CLI's pipes.
const LINGERING_MCP_SERVER: &str = r#"#!/bin/sh
trap '' TERM
echo "$$" >> "$1"
sleep 1000 &
echo "$!" >> "$1"
while IFS= read -r line; do
  id=$(printf '%s\n' "$line" | sed -n -E 's/.*"id":("[^"]*"|[0-9]+).*/\1/p')
  case $line in
    *'"method":"initialize"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2024-11-05","capabilities":{"tools":{}},"serverInfo":{"name":"lingering","version":"1.0.0"}}}\n' "$id" ;;
    *'"method":"tools/list"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}\n' "$id" ;;
    *)
      if [ -n "$id" ]; then
        printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}\n' "$id"
      fi ;;
  esac
done
wait
"#;

/// How long the end of a session may take to show in the process table
/// and the file system. Generous: reaching it means something survived.
const ENDING: Duration = Duration::from_secs(20);

/// An MCP stdio server written as a shell script (a
/// [`LINGERING_MCP_SERVER`], a deep one), in a scratch directory of its
/// own with the file its processes write their pids to.
pub(crate) struct StdioServer {
    dir: TempDir,
    name: &'static str,
    /// How many processes write their pid once it runs.
    processes: usize,
}

impl StdioServer {
    /// A [`LINGERING_MCP_SERVER`]: the server and its child.
    fn lingering() -> Self {
        Self::new("lingering", LINGERING_MCP_SERVER, 2)
    }

    /// `script` run as the MCP server `name`, whose `processes` write
    /// their pids.
    pub(crate) fn new(name: &'static str, script: &str, processes: usize) -> Self {
        let dir = must("a scratch directory", TempDir::new());
        must(
            "the server script is written",
            std::fs::write(dir.path().join("server.sh"), script),
        );
        Self {
            dir,
            name,
            processes,
        }
    }

    fn pid_file(&self) -> PathBuf {
        self.dir.path().join("pids")
    }

    /// The `--mcp-config` that runs it under the CLI.
    pub(crate) fn config(&self) -> Value {
        json!({"mcpServers": {self.name: {
            "type": "stdio",
            "command": "/bin/sh",
            "args": [self.dir.path().join("server.sh"), self.pid_file()],
        }}})
    }

    /// Every pid written so far (complete lines only: a pid being written
    /// is not read half-way).
    pub(crate) fn pids(&self) -> Vec<u32> {
        let text = std::fs::read_to_string(self.pid_file()).unwrap_or_default();
        let complete = text.rsplit_once('\n').map_or("", |(lines, _)| lines);
        complete
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    }

    /// Waits (at most [`WAIT`]) until its processes have written their
    /// pids, and returns them, checking that they run in the CLI's process
    /// group (the one the session must end). With `may_end`, the session
    /// may already be ending them: started is enough, and those still
    /// running are checked.
    pub(crate) fn wait_until_running(&self, cli: u32, may_end: bool) -> Vec<u32> {
        let start = Instant::now();
        let pids = loop {
            let pids = self.pids();
            if pids.len() >= self.processes
                && (may_end || pids.iter().all(|&p| crate::process::is_running(p)))
            {
                break pids;
            }
            assert!(
                start.elapsed() < WAIT,
                "the MCP server {} and its descendants did not start within {WAIT:?} (pids so far: {pids:?})",
                self.name
            );
            std::thread::sleep(Duration::from_millis(5));
        };
        for &pid in &pids {
            if may_end && !crate::process::is_running(pid) {
                continue;
            }
            assert_eq!(
                crate::process::group_of(pid),
                Some(cli),
                "{} runs outside the CLI's process group",
                describe(pid)
            );
        }
        pids
    }
}

/// What a session started and must take with it when it ends.
struct Tree {
    /// The CLI, leader of the process group.
    cli: u32,
    /// The private files the CLI was given (`--mcp-config`, `--settings`),
    /// and the directories holding them.
    files: Vec<PathBuf>,
}

/// A description of `pid` for a failure message: its state, parent,
/// group and command line.
pub(crate) fn describe(pid: u32) -> String {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
    format!("pid {pid}: stat `{}` cmdline `{cmdline}`", stat.trim())
}

impl Tree {
    /// The running CLI's pid and its private files, read from its command
    /// line: the values of `--mcp-config=` and `--settings=` that are
    /// paths (the session wrote them to a private directory).
    ///
    /// Read until it shows `--mcp-config=` (at most [`WAIT`]): spawning
    /// may return while the child is still in `execve`, when
    /// `/proc/<pid>/cmdline` shows the parent's command line or nothing.
    fn of(cli: u32) -> Self {
        let start = Instant::now();
        let cmdline = loop {
            let cmdline = std::fs::read(format!("/proc/{cli}/cmdline")).unwrap_or_default();
            let cmdline = String::from_utf8_lossy(&cmdline).into_owned();
            if cmdline.contains("--mcp-config=") || start.elapsed() >= WAIT {
                break cmdline;
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        let mut files = Vec::new();
        for arg in cmdline.split('\0') {
            let value = ["--mcp-config=", "--settings="]
                .iter()
                .find_map(|flag| arg.strip_prefix(flag));
            if let Some(path) = value.filter(|v| v.starts_with('/')) {
                let path = PathBuf::from(path);
                if let Some(dir) = path.parent() {
                    files.push(dir.to_path_buf());
                }
                files.push(path);
            }
        }
        assert!(
            files
                .iter()
                .any(|f| f.ends_with("mcp-config.json") && f.exists()),
            "the MCP configuration is not in a private file: {}",
            cmdline.replace('\0', " ")
        );
        Self { cli, files }
    }

    /// Asserts that the CLI's process group is empty now: `close` reports
    /// the `what` (exit, kill) only once it is.
    fn assert_group_empty(&self, adapter: &str, what: &str) {
        let left = crate::process::group_members(self.cli);
        assert!(
            left.is_empty(),
            "{adapter}: close reported the {what} with the group still running: {:?}",
            left.iter().map(|&p| describe(p)).collect::<Vec<_>>()
        );
    }

    /// Asserts, within [`ENDING`], that the CLI, every process its MCP
    /// server wrote down and every other member of its process group are
    /// no longer running, and that its private files are removed.
    fn assert_gone(&self, how: &str, server: &StdioServer) {
        let mut pids = vec![self.cli];
        pids.extend(server.pids());
        for pid in pids {
            assert!(
                crate::process::wait_until_not_running(pid, ENDING),
                "{how}: a process outlived the session: {}",
                describe(pid)
            );
        }
        let left = crate::process::wait_until_group_empty(self.cli, ENDING);
        assert!(
            left.is_empty(),
            "{how}: the CLI's process group outlived the session: {:?}",
            left.iter().map(|&p| describe(p)).collect::<Vec<_>>()
        );
        let start = Instant::now();
        while self.files.iter().any(|f| f.exists()) && start.elapsed() < ENDING {
            std::thread::sleep(Duration::from_millis(5));
        }
        for file in &self.files {
            assert!(
                !file.exists(),
                "{how}: {} outlived the session",
                file.display()
            );
        }
    }
}

/// Starts a session (spawned by the adapter itself: its own process
/// plumbing is what these scenarios test) whose CLI runs a
/// [`StdioServer::lingering`]; returns once the server and its child run.
fn start_with_a_lingering_server<H: RealHarness>(
    peer: &Peer,
    server: &StdioServer,
) -> (Box<dyn Driver>, Tree) {
    let mut spec = peer.spec();
    spec.transcript = None;
    spec.options = spec.options.mcp_config(server.config());
    let s = start::<H>(spec);
    let cli = s.pid().expect("a child process");
    let tree = Tree::of(cli);
    server.wait_until_running(cli, false);
    (s, tree)
}

/// `true` where the process table can be read (`/proc`: Linux); elsewhere
/// a scenario that needs it says it was skipped.
fn sees_the_process_table<H: RealHarness>() -> bool {
    let here = Path::new("/proc/self/stat").exists();
    if !here {
        eprintln!(
            "{}: no /proc to read processes from; scenario skipped",
            H::NAME
        );
    }
    here
}

/// A model that answers slowly: 200 pieces, 100 ms apart.
fn slow_answer(_: &ApiRequest) -> Reply {
    Reply::text("this answer takes its time ".repeat(20)).slowly(200, Duration::from_millis(100))
}

/// A Bash tool command still running, with a job it left in the
/// background, when the session is dropped: the CLI (2.1.330) starts Bash
/// commands in sessions of their own, out of reach of the group's signals,
/// and ends them itself only when asked to stop; the dropped session asks
/// (SIGTERM) before it kills, so both are gone.
pub fn nothing_outlives_the_session_bash_running<H: RealHarness>() {
    if !sees_the_process_table::<H>() {
        return;
    }
    let Some(peer) = Peer::new(tool_then_text(
        "Bash",
        json!({"command": "echo $$ > bash.pid; sleep 1001 & echo $! >> bash.pid; sleep 1000",
               "description": "Wait"}),
        "Done.",
    )) else {
        return;
    };
    let mut spec = peer.spec();
    spec.transcript = None;
    spec.options = spec.options.allowed_tools(["Bash"]);
    let mut s = start::<H>(spec);
    let cli = s.pid().expect("a child process");
    must("send", s.send_text("Run it"));
    let file = peer.cwd().join("bash.pid");
    let deadline = Instant::now() + WAIT;
    let pids: Vec<u32> = loop {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let pids: Vec<u32> = text.lines().filter_map(|l| l.trim().parse().ok()).collect();
        if pids.len() == 2 {
            break pids;
        }
        assert!(Instant::now() < deadline, "the Bash command never ran");
        std::thread::sleep(Duration::from_millis(10));
    };
    for &pid in &pids {
        assert!(crate::process::is_running(pid), "{}", describe(pid));
    }
    s.abandon();
    for pid in pids.into_iter().chain([cli]) {
        assert!(
            crate::process::wait_until_not_running(pid, ENDING),
            "{}: a Bash command outlived the dropped session: {}",
            H::NAME,
            describe(pid)
        );
    }
}

/// Closed after a turn: the CLI, an MCP server it runs (which ignores
/// SIGTERM and outstays its stdin) and the server's own child are all
/// gone, and the CLI's private files removed. The group is gone before
/// `close` reports the exit: it is checked at once.
pub fn nothing_outlives_the_session_closed<H: RealHarness>() {
    if !sees_the_process_table::<H>() {
        return;
    }
    let Some(peer) = Peer::new(|_| Reply::text("Done.")) else {
        return;
    };
    let server = StdioServer::lingering();
    let (mut s, tree) = start_with_a_lingering_server::<H>(&peer, &server);
    assert_eq!(query(&mut *s, "Hi").text, "Done.");
    must("close", s.close()).expect("an exit report");
    tree.assert_group_empty(H::NAME, "exit");
    tree.assert_gone("closed", &server);
}

/// Dropped without closing after a turn: the CLI, its MCP server (which
/// ignores SIGTERM) and the server's child are all gone, and the CLI's
/// private files removed.
pub fn nothing_outlives_the_session_abandoned<H: RealHarness>() {
    if !sees_the_process_table::<H>() {
        return;
    }
    let Some(peer) = Peer::new(|_| Reply::text("Done.")) else {
        return;
    };
    let server = StdioServer::lingering();
    let (mut s, tree) = start_with_a_lingering_server::<H>(&peer, &server);
    assert_eq!(query(&mut *s, "Hi").text, "Done.");
    s.abandon();
    tree.assert_gone("abandoned", &server);
}

/// The CLI killed (SIGKILL) mid-turn, so it ends nothing it started: the
/// session ends its MCP server (which ignores SIGTERM) and the server's
/// child, and `close` reports the kill only once they are gone; the
/// CLI's private files are removed.
pub fn nothing_outlives_the_session_cli_killed<H: RealHarness>() {
    if !sees_the_process_table::<H>() {
        return;
    }
    let Some(peer) = Peer::new(slow_answer) else {
        return;
    };
    let server = StdioServer::lingering();
    let (mut s, tree) = start_with_a_lingering_server::<H>(&peer, &server);
    must("send", s.send_text("Take your time"));
    assert!(
        peer.server.wait_for_requests(1, WAIT),
        "the CLI never called the model"
    );
    crate::process::kill(tree.cli);
    let exit = must("close", s.close()).expect("an exit report");
    assert_eq!(exit.signal, Some(9), "{exit}");
    tree.assert_group_empty(H::NAME, "kill");
    tree.assert_gone("killed", &server);
}

/// A query given up at its deadline while the model still answers, then
/// the session closed: nothing of its process tree is left.
pub fn nothing_outlives_the_session_query_given_up_then_closed<H: RealHarness>() {
    if !sees_the_process_table::<H>() {
        return;
    }
    let Some(peer) = Peer::new(slow_answer) else {
        return;
    };
    let server = StdioServer::lingering();
    let (mut s, tree) = start_with_a_lingering_server::<H>(&peer, &server);
    if !give_up_a_query::<H>(&mut *s, &peer) {
        return;
    }
    must("close", s.close()).expect("an exit report");
    tree.assert_gone("query given up, then closed", &server);
}

/// A query given up at its deadline while the model still answers, then
/// the session dropped without closing: nothing of its process tree is
/// left.
pub fn nothing_outlives_the_session_query_given_up_then_abandoned<H: RealHarness>() {
    if !sees_the_process_table::<H>() {
        return;
    }
    let Some(peer) = Peer::new(slow_answer) else {
        return;
    };
    let server = StdioServer::lingering();
    let (mut s, tree) = start_with_a_lingering_server::<H>(&peer, &server);
    if !give_up_a_query::<H>(&mut *s, &peer) {
        return;
    }
    s.abandon();
    tree.assert_gone("query given up, then abandoned", &server);
}

/// Runs the harness's `query` with a limit the slow answer cannot meet,
/// and checks that it was given up mid-answer. `false` (said loudly) if
/// this harness has no `query`.
fn give_up_a_query<H: RealHarness>(s: &mut dyn Driver, peer: &Peer) -> bool {
    let Some(given_up) = s.query("Take your time", Some(Duration::from_secs(5))) else {
        eprintln!("{}: no query in this harness; scenario skipped", H::NAME);
        return false;
    };
    assert!(
        must("query", given_up).is_none(),
        "the slow answer finished within the limit"
    );
    assert!(
        !peer.server.messages_requests().is_empty(),
        "the query was given up before the CLI called the model"
    );
    true
}

/// Instantiates every real-CLI scenario as a `#[test]` for a [`RealHarness`].
#[macro_export]
macro_rules! real_cli_suite {
    ($harness:ty) => {
        $crate::real_cli_suite!(@tests $harness;
            single_turn, single_turn_spawned, sdk_entrypoint, system_prompt_default_is_empty,
            multi_turn_with_set_model,
            permission_deny_bash, permission_allow_write_updated_input,
            pre_tool_use_hook_blocks, post_tool_use_hook_sees_response, mcp_tool, rmcp_tool, rmcp_tool_cancelled, rmcp_server_asks_the_cli,
            mcp_tool_added_while_running, blocking_hook_fails_closed, launch_fields_reach_the_cli,
            ask_user_question_answered, elicitation_reaches_the_handler,
            interrupt_slow_stream, interrupt_pending_permission, partial_messages,
            api_error, killed_mid_turn, resume_session, resume_from_the_store_on_another_machine,
            nothing_outlives_the_session_closed, nothing_outlives_the_session_bash_running, nothing_outlives_the_session_abandoned,
            nothing_outlives_the_session_cli_killed,
            nothing_outlives_the_session_query_given_up_then_closed,
            nothing_outlives_the_session_query_given_up_then_abandoned,
            nothing_outlives_a_close_mid_turn, nothing_outlives_a_drop_mid_turn,
            nothing_outlives_a_dropped_runtime, nothing_outlives_an_error,
            nothing_outlives_a_deadline, nothing_outlives_a_crash_but_what_left_the_group,
            nothing_outlives_a_panic, an_empty_group_ends_at_once,
            identity_variables_reach_the_cli, no_secret_leaks, skills_listed_and_unlisted,
            resume_refused_says_why, one_shot_serves_a_background_agents_follow_up);
    };
    (@tests $harness:ty; $($name:ident),+ $(,)?) => {
        $(
            #[test]
            fn $name() {
                $crate::real_cli::$name::<$harness>();
            }
        )+
    };
}

/// Instantiates, for a [`RealHarness`], every real-CLI scenario that talks
/// to the CLI only through the protocol as a `#[test]` that records it
/// against the real CLI and replays the recording through the test kit
/// ([`replay::record_and_replay`]); `$binary` is the kit's binary
/// (`env!("CARGO_BIN_EXE_testkit-cli")`). Left out: the scenarios about
/// the CLI's process (what it leaves behind, a CLI killed mid-turn), which
/// a replay cannot stand in for, those that resume from the CLI's own
/// session files, which a replay does not write, and
/// `mcp_tool_added_while_running`, whose added tool's notification races
/// the host's answers to the CLI's own start-up MCP requests: a replay
/// expects the program's lines in the recorded order, so a recording that
/// caught one interleaving fails a replay that takes the other (seen once
/// with every core busy).
#[macro_export]
macro_rules! real_cli_replay_suite {
    ($harness:ty, $binary:expr) => {
        $crate::real_cli_replay_suite!(@tests $harness, $binary;
            single_turn, single_turn_spawned, sdk_entrypoint, system_prompt_default_is_empty,
            multi_turn_with_set_model,
            permission_deny_bash, permission_allow_write_updated_input,
            pre_tool_use_hook_blocks, post_tool_use_hook_sees_response, mcp_tool, rmcp_tool, rmcp_tool_cancelled, rmcp_server_asks_the_cli,
            blocking_hook_fails_closed, launch_fields_reach_the_cli,
            ask_user_question_answered, elicitation_reaches_the_handler,
            interrupt_slow_stream, interrupt_pending_permission, partial_messages,
            api_error);
    };
    (@tests $harness:ty, $binary:expr; $($name:ident),+ $(,)?) => {
        mod replayed {
            use super::*;
            $(
                #[test]
                fn $name() {
                    $crate::real_cli::replay::record_and_replay($binary, || {
                        $crate::real_cli::$name::<$harness>()
                    });
                }
            )+

            /// One recording replayed 100 times in a row, each replay
            /// passing the scenario's assertions: the same outcome every
            /// time.
            #[test]
            fn a_hundred_replays_of_a_permission_scenario() {
                $crate::real_cli::replay::record_and_replay_times($binary, 100, || {
                    $crate::real_cli::permission_deny_bash::<$harness>()
                });
            }
        }
    };
}
