//! The conformance suite on the blocking adapter, plus what it shows on
//! its own: backpressure over a plain pipe, cancellation of a blocking
//! handler, turns matched to their prompts, limits refused before
//! spawning, calls while the CLI does not read its stdin, and no thread,
//! fd or process left behind however a session ends (counted in a process
//! of its own).
#![allow(clippy::unwrap_used)] // test helpers fail loudly by design

use std::sync::atomic::Ordering;
use std::time::Duration;

use claude_proto::ControlSuccess;
use claude_proto::dispatch::ToolOutput;
use claude_proto::model::control::ControlRequest;
use claude_proto::model::hooks::{
    HookEvent, HookOutput, PreToolUse, PreToolUseInput, PreToolUseOutput,
};
use claude_proto::model::initialize::InitializeResponse;
use claude_proto::model::permission::PermissionResult;
use claude_proto_blocking::{CancelToken, Claude, ClaudeBuilder, Configure, Event, McpServer};
use claude_proto_host::{Error, ExitReport, SpawnError, Turn};
use claude_proto_testkit::{Behaviour, Extra};
use claude_proto_tests::conformance::{
    Driver, DropFlag, Harness, HookBehaviour, Observed, Permission, Spec, ToolChange, TypedAdd,
    TypedGuard, bash_prompt, held_turn, is_system_init, never_reads,
};
#[cfg(target_os = "linux")]
use std::sync::atomic::AtomicUsize;

const CLI: &str = env!("CARGO_BIN_EXE_testkit-cli");

struct Blocking;

struct BlockingDriver {
    claude: Option<Claude>,
}

/// The typed `PreToolUse` hook of [`HookBehaviour::TypedGuard`].
fn typed_guard(input: PreToolUseInput) -> PreToolUseOutput {
    TypedGuard::answer(&input)
}

fn builder(spec: &Spec) -> ClaudeBuilder {
    let mut builder = Claude::builder(spec.options())
        .config(spec.config.clone())
        .limits(spec.limits.clone());
    if let Some(permission) = spec.permission.clone() {
        builder = builder.on_permission(move |ask| match &permission {
            Permission::Allow => Ok(PermissionResult::allow()),
            Permission::AllowWithInput(input) => {
                Ok(PermissionResult::allow().with_updated_input(input.clone()))
            }
            Permission::Deny(message) => Ok(PermissionResult::deny(message)),
            Permission::DenyAndInterrupt(message) => {
                Ok(PermissionResult::deny(message).with_interrupt(true))
            }
            Permission::Fail(message) => Err(message.clone().into()),
            Permission::Panic => panic!("permission handler panicked on purpose"),
            // A blocking closure cannot be dropped mid-call as a future
            // can. Its equivalent: the first call blocks until the CLI
            // cancels the request; the flag goes with the cancellation
            // itself (an `on_cancel` callback, run by the driver when the
            // cancel arrives, or at once by a handler thread that starts
            // after it: the scenario waits for the flag), and the answer
            // returned afterwards must be dropped, not sent
            // (the CLI's verdict shows late answers). Handlers run on threads of
            // their own, so "first" is the request, not whichever thread
            // reaches this line first: the scenario's first request is the
            // one for `echo a`.
            Permission::FirstWaitsForever(probe) => {
                probe.calls.fetch_add(1, Ordering::SeqCst);
                let first = ask
                    .input
                    .get("command")
                    .and_then(|c| c.as_str())
                    .is_some_and(|c| c.starts_with("echo a"));
                if first {
                    let flag = DropFlag(probe.clone());
                    let token = CancelToken::current().unwrap();
                    token.on_cancel(move || drop(flag));
                    token.wait();
                }
                Ok(PermissionResult::allow())
            }
        });
    }
    for hook in &spec.hooks {
        let options = claude_proto_tests::handlers::hook_options(hook);
        if let HookBehaviour::TypedGuard = hook.behaviour {
            // A typed hook: a plain fn taking the event's own input.
            builder = builder.hook(PreToolUse, options, typed_guard);
            continue;
        }
        let behaviour = hook.behaviour.clone();
        builder = builder.hook_untyped(HookEvent::from(hook.event), options, move |_input, _id| {
            Ok(match &behaviour {
                HookBehaviour::FailClosed => return Err("failing closed on purpose".into()),
                HookBehaviour::NoOpinion => HookOutput::default(),
                HookBehaviour::Deny(reason) => HookOutput::pre_tool_use_deny(reason.clone()),
                HookBehaviour::Context(text) => {
                    HookOutput::additional_context(HookEvent::PostToolUse, text.clone())
                }
                HookBehaviour::Panic => panic!("hook panicked on purpose"),
                HookBehaviour::TypedGuard => unreachable!("registered typed above"),
            })
        });
    }
    if let Some(store) = spec.store.clone() {
        builder = builder.session_store(store);
    }
    if let Some(callback) = spec.on_stderr.clone() {
        builder = builder.on_stderr(move |line| (callback.0)(line));
    }
    if spec.dialogs {
        use claude_proto_tests::conformance::Dialogs;
        builder = builder
            .on_elicitation(|request| Dialogs::elicit(&request))
            .on_user_dialog(Dialogs::KINDS, |request| Dialogs::show(&request));
    }
    if spec.mcp_typed {
        builder = builder.mcp_server(McpServer::new("calc", "1.0.0").tool(
            "add",
            "Adds a and b",
            |args: TypedAdd| Ok(args.run()),
        ));
    }
    if spec.mcp_endpoint {
        builder = builder.mcp_endpoint("calc", claude_proto_tests::endpoint::CalcEndpoint);
    }
    if spec.mcp_calc {
        builder = builder.mcp_server(McpServer::new("calc", "1.0.0").tool_untyped(
            "add",
            "Adds a and b",
            Spec::calc_schema(),
            |args| {
                Ok(match Spec::calc_add(&args) {
                    Ok(sum) => ToolOutput::text(sum),
                    Err(e) => ToolOutput::error(e),
                })
            },
        ));
    }
    builder
}

impl Harness for Blocking {
    const NAME: &'static str = "blocking";

    fn start(spec: Spec) -> Result<Box<dyn Driver>, SpawnError> {
        let claude = builder(&spec).spawn()?;
        Ok(Box::new(BlockingDriver {
            claude: Some(claude),
        }))
    }

    fn run_concurrently(specs: Vec<Spec>) -> Vec<Result<String, Error>> {
        // One user thread per session (each session has its own driver).
        let threads: Vec<_> = specs
            .into_iter()
            .enumerate()
            .map(|(i, spec)| {
                std::thread::spawn(move || {
                    let mut claude = builder(&spec)
                        .spawn()
                        .unwrap_or_else(|e| panic!("session {i} did not start: {e}"));
                    let turn = claude.ask(format!("hello {i}"))?;
                    claude.close()?;
                    Ok(turn.text().unwrap_or_default().to_owned())
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    }
}

impl BlockingDriver {
    fn claude(&mut self) -> &mut Claude {
        self.claude.as_mut().unwrap()
    }
}

impl Driver for BlockingDriver {
    fn pid(&self) -> Option<u32> {
        self.claude.as_ref().and_then(Claude::pid)
    }

    fn initialization(&mut self) -> Result<InitializeResponse, Error> {
        self.claude().initialization().map(|r| (*r).clone())
    }

    fn send_text(&mut self, text: &str) -> Result<(), Error> {
        self.claude().send_text(text)
    }

    fn next_event(&mut self) -> Option<Observed> {
        Some(match self.claude().next_event()? {
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
        self.claude().control(request, timeout)
    }

    fn close(mut self: Box<Self>) -> Result<Option<ExitReport>, Error> {
        self.claude.take().unwrap().close()
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

    fn abandon(mut self: Box<Self>) {
        // The driver thread closes the child in the background.
        drop(self.claude.take());
    }
}

claude_proto_tests::conformance_suite!(Blocking, CLI);

/// The handle can be shared across threads for its `&self` calls.
const _: fn() = || {
    fn shareable<T: Send + Sync>() {}
    shareable::<Claude>();
};

mod backpressure {
    use super::*;
    use std::io::Read;
    use std::sync::Arc;
    use std::sync::atomic::AtomicUsize;

    const LINE: &[u8] = br#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"tick"}},"parent_tool_use_id":null,"session_id":"s","uuid":"u"}
"#;

    /// The CLI's stdout: `total` lines, made only when read, recording how
    /// far ahead of the consumer reading ever got.
    struct Lines {
        total: usize,
        made: usize,
        consumed: Arc<AtomicUsize>,
        max_ahead: Arc<AtomicUsize>,
    }

    impl Read for Lines {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = (buf.len() / LINE.len()).min(self.total - self.made);
            for chunk in buf.chunks_mut(LINE.len()).take(n) {
                chunk.copy_from_slice(LINE);
            }
            self.made += n;
            let ahead = self.made - self.consumed.load(Ordering::SeqCst).min(self.made);
            self.max_ahead.fetch_max(ahead, Ordering::SeqCst);
            Ok(n * LINE.len())
        }
    }

    /// A consumer slower than the CLI holds it back: at no time was more
    /// read than the read-ahead budget (plus the chunk that crossed it),
    /// the one batch on its way to the consumer and the reader's two
    /// buffers, whatever the threads' timing. Then everything arrives, in
    /// order.
    #[test]
    fn reading_never_gets_more_than_a_bounded_amount_ahead() {
        const TOTAL: usize = 100_000;
        const READ_AHEAD: usize = 64 * 1024;
        const CHUNK: usize = 64 * 1024;
        const BATCH: usize = 256 * 1024;
        let consumed = Arc::new(AtomicUsize::new(0));
        let max_ahead = Arc::new(AtomicUsize::new(0));
        let lines = Lines {
            total: TOTAL,
            made: 0,
            consumed: consumed.clone(),
            max_ahead: max_ahead.clone(),
        };
        let mut claude = Claude::builder(claude_proto::options::Options::default())
            .read_ahead_bytes(READ_AHEAD)
            .connect(lines, std::io::sink())
            .unwrap();
        let mut seen = 0;
        while seen < TOTAL {
            match claude.next_event() {
                Some(Event::Message(_)) => seen += 1,
                Some(other) => panic!("{other:?}"),
                None => panic!("ended after {seen}"),
            }
            consumed.store(seen, Ordering::SeqCst);
            if seen % 64 == 0 {
                std::thread::yield_now();
            }
        }
        let bound = (READ_AHEAD + CHUNK + BATCH + 2 * CHUNK) / LINE.len() + 2;
        let ahead = max_ahead.load(Ordering::SeqCst);
        assert!(
            ahead <= bound,
            "reading got {ahead} lines ahead (bound {bound})"
        );
        assert!(claude.close().unwrap().is_none(), "no process over connect");
    }

    /// A reader that never yields anything: waiting with a timeout gives up,
    /// and closing still ends the session (after the close grace).
    #[test]
    fn next_event_timeout_gives_up_on_a_silent_peer() {
        struct Silent(std::sync::mpsc::Receiver<()>);
        impl Read for Silent {
            fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
                let _ = self.0.recv();
                Ok(0)
            }
        }
        let (hang_up, rx) = std::sync::mpsc::channel();
        let mut claude = Claude::builder(claude_proto::options::Options::default())
            .shutdown_policy(claude_proto_blocking::ShutdownPolicy::new(
                Duration::ZERO,
                Duration::ZERO,
            ))
            .connect(Silent(rx), std::io::sink())
            .unwrap();
        assert!(
            claude
                .next_event_timeout(Duration::from_millis(20))
                .is_err()
        );
        assert!(claude.close().unwrap().is_none());
        drop(hang_up);
    }
}

/// Each query collects its own turn, whatever was left unread before it
/// and whatever its lines hold.
mod turns {
    use super::*;
    use std::io::{Cursor, Read};
    use std::sync::mpsc::{Receiver, channel};

    /// A CLI over `connect` that writes `script` at once, then stays
    /// silent until the test hangs up.
    struct Script {
        data: Cursor<Vec<u8>>,
        hang_up: Receiver<()>,
    }

    impl Read for Script {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            match self.data.read(buf)? {
                0 => {
                    let _ = self.hang_up.recv();
                    Ok(0)
                }
                n => Ok(n),
            }
        }
    }

    fn result(text: &str) -> String {
        let line = serde_json::json!({
            "type": "result", "subtype": "success", "is_error": false,
            "duration_ms": 1, "duration_api_ms": 1, "num_turns": 1, "result": text,
            "total_cost_usd": 0, "usage": {"input_tokens": 0, "output_tokens": 0},
            "modelUsage": {}, "session_id": "s", "uuid": "u",
        });
        format!("{line}\n")
    }

    fn text(turn: &claude_proto_blocking::Turn) -> String {
        let line: serde_json::Value = serde_json::from_slice(turn.result_line.as_bytes()).unwrap();
        line["result"].as_str().unwrap().to_owned()
    }

    #[test]
    fn a_query_skips_unread_turns_and_survives_unreadable_lines() {
        // Valid JSON, nested deeper than serde_json's recursion limit.
        let deep = format!(
            "{{\"type\":\"assistant\",\"message\":{}{}}}\n",
            "[".repeat(300),
            "]".repeat(300)
        );
        let script = [result("one"), deep, result("two"), result("three")].concat();
        let (hang_up, rx) = channel();
        let peer = Script {
            data: Cursor::new(script.into_bytes()),
            hang_up: rx,
        };
        let mut claude = Claude::builder(claude_proto::options::Options::default())
            .connect(peer, std::io::sink())
            .unwrap();
        // Turn 0 is never read.
        claude.send_text("one").unwrap();
        let two = claude.ask("two").unwrap();
        assert_eq!((two.id, text(&two).as_str()), (1, "two"));
        assert_eq!(
            two.unreadable.len() + two.protocol_errors.len(),
            1,
            "{two:?}"
        );
        claude.send_text("three").unwrap();
        let three = claude.receive_turn().unwrap();
        assert_eq!((three.id, text(&three).as_str()), (2, "three"));
        drop(hang_up);
        assert!(claude.close().unwrap().is_none());
    }
}

/// Builder values that cannot work are refused before anything starts.
mod limits {
    use super::*;
    use claude_proto_blocking::{Limits, ShutdownPolicy};

    fn refused(builder: ClaudeBuilder, name: &str) {
        match builder.spawn() {
            Err(SpawnError::Limits(error)) => assert_eq!(error.name, name, "{error}"),
            Err(other) => panic!("expected {name} to be refused, got {other}"),
            Ok(_) => panic!("{name} was accepted"),
        }
    }

    #[test]
    fn bad_limits_are_refused_before_spawning() {
        // A CLI that does not exist: had the limits not been checked first,
        // the error would be that it was not found.
        let options = || claude_proto::options::Options::default().cli_path("/nonexistent/claude");
        refused(
            Claude::builder(options()).read_ahead_bytes(usize::MAX),
            "read_ahead_bytes",
        );
        refused(
            Claude::builder(options()).max_concurrent_handlers(0),
            "max_concurrent_handlers",
        );
        refused(
            Claude::builder(options())
                .shutdown_policy(ShutdownPolicy::new(Duration::MAX, Duration::ZERO)),
            "close_grace",
        );
        let mut limits = Limits::default();
        limits.term_grace = Duration::MAX;
        refused(Claude::builder(options()).limits(limits), "term_grace");
    }
}

/// A CLI that never reads its stdin: calls return with a clear outcome,
/// what is accepted stays bounded, and closing is always reachable.
mod stalled_stdin {
    use super::*;
    use claude_proto_blocking::Stall;

    #[test]
    fn calls_return_and_close_is_reachable_while_the_cli_does_not_read() {
        const BUDGET: usize = 256 * 1024;
        let mut spec = Spec::new(CLI.into(), never_reads());
        spec.limits.max_unwritten_bytes = BUDGET;
        spec.limits.close_grace = Duration::from_millis(50);
        let claude = builder(&spec).spawn().unwrap();
        // Nothing is read: the answer cannot come, and the call returns
        // at its deadline.
        let error = claude
            .control(
                ControlRequest::mcp_status(),
                Some(Duration::from_millis(100)),
            )
            .unwrap_err();
        assert!(matches!(error, Error::TimedOut { .. }), "{error}");
        // Sends are taken until the unwritten bytes pass the budget, then
        // refused, naming it. What was accepted beyond the budget is what
        // the pipe and the writer thread hold: bounded, whatever the
        // pipe's size (at most 1 MiB here).
        let chunk = "x".repeat(64 * 1024);
        let mut accepted = 0;
        let refusal = loop {
            match claude.send_text(&chunk) {
                Ok(()) => accepted += 1,
                Err(error) => break error,
            }
            assert!(accepted <= 24, "{accepted} sends of 64 KiB accepted");
        };
        assert!(
            matches!(
                refusal,
                Error::Backlog {
                    stall: Stall::StdinBacklog { budget: BUDGET, .. },
                    ..
                }
            ),
            "{refusal}"
        );
        // Control calls are refused the same way, at once.
        let error = claude
            .control(ControlRequest::mcp_status(), Some(Duration::from_secs(600)))
            .unwrap_err();
        assert!(matches!(error, Error::Backlog { .. }), "{error}");
        let report = claude.close().unwrap().expect("an exit report");
        assert_eq!(report.signal, Some(15), "{report}");
    }
}

/// Process-wide figures (threads, fds) count only one test's sessions in
/// a process running nothing else: each test here runs its body again,
/// alone, in a fresh process of this test binary.
#[cfg(target_os = "linux")]
mod alone {
    use super::*;
    use std::os::unix::fs::PermissionsExt;
    use std::process::Command;
    use std::sync::Arc;
    use std::time::Instant;

    const ALONE: &str = "BLOCKING_TEST_ALONE";

    /// `true` in the fresh process (run the body); in the test harness's
    /// process, runs `name` in a fresh one and returns `false`.
    fn alone(name: &str) -> bool {
        if std::env::var_os(ALONE).is_some() {
            return true;
        }
        let status = Command::new(std::env::current_exe().unwrap())
            .args([name, "--exact", "--test-threads=1", "--nocapture"])
            .env(ALONE, "1")
            .status()
            .unwrap();
        assert!(status.success(), "{name} failed in its own process");
        false
    }

    fn count(dir: &str) -> usize {
        std::fs::read_dir(dir).unwrap().count()
    }

    /// Threads and open fds of this process.
    fn figures() -> (usize, usize) {
        (count("/proc/self/task"), count("/proc/self/fd"))
    }

    /// Waits until the figures are back at `baseline`. The session's last
    /// threads (the exit watcher, a handler) end just after it does, so
    /// this waits for that, with a bound that only a leak reaches.
    fn back_to(baseline: (usize, usize), case: &str) {
        let limit = Instant::now() + Duration::from_secs(20);
        loop {
            let now = figures();
            if now == baseline {
                return;
            }
            assert!(
                Instant::now() < limit,
                "{case}: (threads, fds) = {now:?}, {baseline:?} before the session"
            );
            std::thread::yield_now();
        }
    }

    fn gone(pid: Option<u32>) {
        let pid = pid.expect("a child process");
        assert!(
            claude_proto_tests::process::wait_until_gone(pid, Duration::from_secs(20)),
            "process {pid} is still there"
        );
    }

    /// Every way a session ends leaves no thread, fd or process behind.
    #[test]
    fn no_way_of_ending_leaves_anything_behind() {
        if !alone("alone::no_way_of_ending_leaves_anything_behind") {
            return;
        }
        let echo = || Spec::new(CLI.into(), Behaviour::default());
        let baseline = figures();

        let mut claude = builder(&echo()).spawn().unwrap();
        let pid = claude.pid();
        assert_eq!(claude.ask("hi").unwrap().text(), Some("echo: hi"));
        assert!(claude.close().unwrap().expect("exit").success());
        gone(pid);
        back_to(baseline, "close");

        let mut claude = builder(&echo()).spawn().unwrap();
        let pid = claude.pid();
        claude.ask("hi").unwrap();
        drop(claude);
        gone(pid);
        back_to(baseline, "drop");

        // The CLI crashes mid-turn; the events end with the session.
        let mut claude = builder(&Spec::new(
            CLI.into(),
            Behaviour::default().with_exit_mid_turn(1, 3),
        ))
        .spawn()
        .unwrap();
        let pid = claude.pid();
        claude.send_text("crash").unwrap();
        while claude.next_event().is_some() {}
        drop(claude);
        gone(pid);
        back_to(baseline, "crash");

        // A panicking stderr callback and a panicking handler are
        // contained: the session works on and closes.
        let mut spec = Spec::new(CLI.into(), Behaviour::default().with_extra(bash_prompt()));
        spec.permission = Some(Permission::Panic);
        let lines = Arc::new(AtomicUsize::new(0));
        let seen = lines.clone();
        let mut claude = builder(&spec)
            .on_stderr(move |_| {
                seen.fetch_add(1, Ordering::SeqCst);
                panic!("stderr callback panicked on purpose");
            })
            .spawn()
            .unwrap();
        let pid = claude.pid();
        let turn = claude.ask("ls").unwrap();
        let denials = Some(turn.result.permission_denials.len());
        assert_eq!(denials, Some(1), "the panic denied the tool");
        assert!(claude.close().unwrap().expect("exit").success());
        assert!(lines.load(Ordering::SeqCst) <= 1, "called after its panic");
        gone(pid);
        back_to(baseline, "panics");

        // An MCP endpoint that never answers: the CLI waits on its
        // `initialize`; closing ends the thread that waited for it.
        let (handled, handed) = std::sync::mpsc::channel();
        let hoarder = Hoarder {
            replies: std::sync::Mutex::default(),
            handled: std::sync::Mutex::new(handled),
        };
        let claude = builder(&Spec::new(
            CLI.into(),
            Behaviour::default().with_extra(Extra::Mcp {
                server: None,
                tool: None,
                arguments: serde_json::json!({}),
            }),
        ))
        .mcp_endpoint("calc", hoarder)
        .spawn()
        .unwrap();
        let pid = claude.pid();
        claude.send_text("add").unwrap();
        handed
            .recv_timeout(Duration::from_secs(20))
            .expect("the CLI's first MCP message reached the endpoint");
        drop(claude);
        gone(pid);
        back_to(baseline, "unanswered MCP");
    }

    /// An MCP endpoint that keeps every reply and answers none, and says
    /// when it got a message.
    struct Hoarder {
        replies: std::sync::Mutex<Vec<claude_proto_adapter::McpReply>>,
        handled: std::sync::Mutex<std::sync::mpsc::Sender<()>>,
    }

    impl claude_proto_adapter::McpEndpoint for Hoarder {
        fn connect(&self, _: claude_proto_adapter::McpOutlet) {}

        fn handle(&self, _: serde_json::Value, reply: claude_proto_adapter::McpReply) {
            self.replies.lock().unwrap().push(reply);
            let _ = self.handled.lock().unwrap().send(());
        }
    }

    /// Kills the grandchild however the test ends.
    struct Grandchild(u32);

    impl Drop for Grandchild {
        fn drop(&mut self) {
            claude_proto_tests::process::kill(self.0);
        }
    }

    /// The CLI exits while a grandchild keeps its stdout and stderr open:
    /// the session still ends (after the drain grace), and its threads and
    /// fds go with it, though the pipes never close.
    #[test]
    fn a_grandchild_holding_the_pipes_leaves_nothing_behind() {
        if !alone("alone::a_grandchild_holding_the_pipes_leaves_nothing_behind") {
            return;
        }
        let dir = std::env::temp_dir().join(format!("blocking-grandchild-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let script = dir.join("claude");
        let pid_file = dir.join("grandchild.pid");
        std::fs::write(
            &script,
            "#!/bin/sh\nsleep 100000 &\necho $! > \"$GRANDCHILD_PID\"\nexit 0\n",
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let options = || {
            // In the caller's process group, so that the grandchild lives
            // on holding the pipes (in a group of its own it would be
            // ended with the CLI: `grandchild_holding_the_pipes_does_not_stall_close`).
            claude_proto::options::Options::default()
                .cli_path(&script)
                .env("GRANDCHILD_PID", pid_file.display().to_string())
                .own_process_group(false)
        };
        let baseline = figures();

        for close in [true, false] {
            let claude = Claude::builder(options()).spawn().unwrap();
            let pid = claude.pid();
            let error = claude.initialization().unwrap_err();
            assert_eq!(error.exit_report().and_then(|r| r.code), Some(0), "{error}");
            // Written before the CLI exited, which the error reports.
            let grandchild = Grandchild(
                std::fs::read_to_string(&pid_file)
                    .unwrap()
                    .trim()
                    .parse()
                    .unwrap(),
            );
            if close {
                assert!(claude.close().unwrap().expect("exit").success());
            } else {
                drop(claude);
            }
            gone(pid);
            back_to(baseline, if close { "close" } else { "drop" });
            assert!(
                claude_proto_tests::process::is_running(grandchild.0),
                "the grandchild should still hold the pipes"
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// A controller moved into another thread interrupts while this thread
/// owns the events and waits in the turn iterator: in a held turn the CLI
/// writes nothing after its `system/init` until the interrupt reaches it,
/// so the turn ends only through the other thread.
#[test]
fn a_controller_interrupts_from_another_thread() {
    let _isolation = claude_proto_tests::conformance::isolation("controller_interrupt");
    let mut claude = builder(&Spec::new(CLI.into(), held_turn()))
        .spawn()
        .unwrap();
    let controller = claude.controller();
    let mut turn = claude.query("hold").unwrap();
    for event in &mut turn {
        if is_system_init(event.as_message().expect("a message")) {
            break;
        }
    }
    let interrupter = std::thread::spawn(move || controller.interrupt().map(drop));
    // Blocked here until the other thread's interrupt lets the CLI finish.
    let last = turn.by_ref().last().expect("the result");
    assert!(last.as_message().unwrap().is_result());
    assert!(turn.finish().unwrap().is_error(), "ended by the interrupt");
    interrupter.join().unwrap().unwrap();
    claude.close().unwrap();
}

/// `request_close` from a controller in another thread starts the close
/// sequence; the owner reads the events to their end and `close` still
/// reports the exit.
#[test]
fn a_controller_starts_the_close() {
    let _isolation = claude_proto_tests::conformance::isolation("controller_close");
    let mut claude = builder(&Spec::new(CLI.into(), Behaviour::default()))
        .spawn()
        .unwrap();
    claude.ask("hi").unwrap();
    assert!(claude.session_id().is_some());
    let controller = claude.controller();
    std::thread::spawn(move || controller.request_close())
        .join()
        .unwrap();
    for _ in claude.events() {}
    let report = claude.close().unwrap().expect("an exit report");
    assert!(report.success(), "{report}");
}

/// A turn iterator yields its own turn's events, the `result` last, then
/// nothing; one dropped mid-turn does not shift the next query; the
/// one-shot `query` answers in one call.
#[test]
fn turn_streams_end_at_their_own_result() {
    let _isolation = claude_proto_tests::conformance::isolation("turn_stream");
    let mut claude = builder(&Spec::new(CLI.into(), Behaviour::default()))
        .spawn()
        .unwrap();
    let mut one = claude.query("one").unwrap();
    assert!(one.next().is_some());
    drop(one);

    let mut two = claude.query("two").unwrap();
    let events: Vec<Event> = two.by_ref().collect();
    assert!(two.next().is_none(), "nothing after the result");
    assert!(events.last().unwrap().as_message().unwrap().is_result());
    let turn = two.finish().unwrap();
    assert_eq!(turn.text(), Some("echo: two"));
    assert_eq!(
        events.iter().filter(|e| e.as_message().is_some()).count(),
        turn.messages.len() + turn.unreadable.len()
    );
    assert_eq!(claude.ask("three").unwrap().text(), Some("echo: three"));
    claude.close().unwrap();

    let options = Spec::new(CLI.into(), Behaviour::default()).options();
    let turn = claude_proto_blocking::query("hi", options).unwrap();
    assert_eq!(turn.text(), Some("echo: hi"));
    let missing = claude_proto::options::Options::default().cli_path("/nonexistent/claude");
    assert!(matches!(
        claude_proto_blocking::query("hi", missing),
        Err(Error::Spawn(_))
    ));
}

/// Handler calls that come one after another run on one thread, kept
/// waiting between them (starting a thread per call cost up to 4 ms at the
/// p99 on a loaded machine). That the thread ends with the session is
/// `no_way_of_ending_leaves_anything_behind`'s to check (it counts them).
#[test]
fn handler_calls_one_after_another_share_a_thread() {
    let _isolation = claude_proto_tests::conformance::isolation("handler_reuse");
    let threads = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = threads.clone();
    let mut claude = Claude::builder(
        Spec::new(CLI.into(), Behaviour::default().with_extra(bash_prompt())).options(),
    )
    .on_permission(move |_ask| {
        seen.lock().unwrap().push(std::thread::current().id());
        Ok(PermissionResult::allow())
    })
    .spawn()
    .unwrap();
    for prompt in ["one", "two", "three"] {
        claude.ask(prompt).unwrap();
    }
    claude.close().unwrap();
    let threads = threads.lock().unwrap();
    assert_eq!(threads.len(), 3, "one permission request per turn");
    assert!(
        threads.iter().all(|t| *t == threads[0]),
        "each call ran on a thread of its own: {threads:?}"
    );
}

#[test]
fn a_turn_reads_as_typed_items_with_its_own_cost() {
    use claude_proto_blocking::TurnItem;
    use claude_proto_tests::items::{check_costs, check_items, items_options};
    let cli = std::path::Path::new(CLI);
    let mut claude = Claude::builder(items_options(cli)).spawn().unwrap();
    let mut turn = claude.query("first").unwrap();
    let mut items = Vec::new();
    while let Some(item) = turn.next_item() {
        if matches!(item, TurnItem::Result(_)) {
            assert!(
                turn.message().unwrap().is_result(),
                "the raw line is reachable"
            );
        }
        items.push(item);
    }
    check_items(&items, "first");
    let first = turn.finish().unwrap();
    let second = claude.ask("second").unwrap();
    check_costs(&first, &second);
    claude.close().unwrap();
}

#[test]
fn a_turn_past_its_deadline_is_interrupted_and_the_session_goes_on() {
    use claude_proto_tests::items::{HELD_PROMPT, check_deadline_passed, plain_options};
    let options = plain_options(std::path::Path::new(CLI));
    let mut claude = Claude::builder(options).spawn().unwrap();
    let turn = claude.query(HELD_PROMPT).unwrap();
    check_deadline_passed(turn.finish_within(Duration::from_millis(100)));
    let next = claude.ask("after").unwrap();
    assert_eq!(next.text(), Some("echo: after"), "the session is ready");
    claude.close().unwrap();
}

#[test]
fn lines_written_after_a_deadlines_interrupt_are_not_kept() {
    use claude_proto_tests::items::{check_nothing_kept_after_deadline, unstoppable_options};
    let options = unstoppable_options(std::path::Path::new(CLI));
    let mut claude = Claude::builder(options).spawn().unwrap();
    let turn = claude.query("go on").unwrap();
    check_nothing_kept_after_deadline(turn.finish_within(Duration::ZERO));
    claude.close().unwrap();
}

#[test]
fn a_turn_streamed_item_by_item_is_interrupted_at_its_deadline() {
    use claude_proto_tests::items::{HELD_PROMPT, check_streamed_past_deadline, plain_options};
    let options = plain_options(std::path::Path::new(CLI));
    let mut claude = Claude::builder(options).spawn().unwrap();
    let mut turn = claude
        .query(HELD_PROMPT)
        .unwrap()
        .with_timeout(Duration::from_millis(100));
    let mut items = Vec::new();
    while let Some(item) = turn.next_item() {
        items.push(item);
    }
    let passed = turn.deadline_passed();
    check_streamed_past_deadline(&items, passed, turn.finish());
    let next = claude.ask("after").unwrap();
    assert_eq!(next.text(), Some("echo: after"), "the session is ready");
    claude.close().unwrap();
}

#[test]
fn a_turn_that_never_pauses_is_still_given_up_at_its_deadline() {
    use claude_proto_tests::items::{check_deadline_kept, flood_options};
    let options = flood_options(std::path::Path::new(CLI));
    let mut claude = Claude::builder(options).spawn().unwrap();
    let turn = claude.query("flood").unwrap();
    check_deadline_kept(turn.finish_within(Duration::ZERO));
    claude.close().unwrap();
}
