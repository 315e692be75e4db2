//! The conformance suite on the tokio adapter, plus what only tokio can
//! show (an in-memory transport with a stall detector).
#![allow(clippy::unwrap_used)] // test helpers fail loudly by design

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use claude_proto::ControlSuccess;
use claude_proto::model::control::ControlRequest;
use claude_proto::model::initialize::InitializeResponse;
use claude_proto_host::{Error, ExitReport, SpawnError, Turn};
use claude_proto_testkit::{Behaviour, Extra};
use claude_proto_tests::conformance::{
    Driver, Harness, Observed, Spec, ToolChange, held_turn, is_system_init, never_reads,
    with_grandchild,
};
use claude_proto_tokio::{Claude, ClaudeBuilder, Configure, Event};
use tokio::runtime::Runtime;

const CLI: &str = env!("CARGO_BIN_EXE_testkit-cli");

struct Tokio;

struct TokioDriver {
    runtime: Option<Runtime>,
    claude: Option<Claude>,
}

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn builder(spec: &Spec) -> ClaudeBuilder {
    let builder = Claude::builder(spec.options())
        .config(spec.config.clone())
        .limits(spec.limits.clone());
    claude_proto_tests::register_spec_handlers!(builder, spec)
}

impl Harness for Tokio {
    const NAME: &'static str = "tokio";

    fn start(spec: Spec) -> Result<Box<dyn Driver>, SpawnError> {
        let runtime = runtime();
        let claude = runtime.block_on(builder(&spec).spawn())?;
        Ok(Box::new(TokioDriver {
            runtime: Some(runtime),
            claude: Some(claude),
        }))
    }

    fn run_concurrently(specs: Vec<Spec>) -> Vec<Result<String, Error>> {
        runtime().block_on(async {
            let tasks: Vec<_> = specs
                .into_iter()
                .enumerate()
                .map(|(i, spec)| {
                    tokio::spawn(async move {
                        let mut claude = builder(&spec).spawn().await.expect("spawn");
                        let turn = claude.ask(format!("hello {i}")).await?;
                        claude.close().await?;
                        Ok(turn.text().unwrap_or_default().to_owned())
                    })
                })
                .collect();
            let mut results = Vec::new();
            for task in tasks {
                results.push(task.await.unwrap());
            }
            results
        })
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
        self.claude.as_ref().and_then(Claude::pid)
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
        rt.block_on(claude.next_event()).map(Observed::from)
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
        runtime.block_on(claude.close())
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

    fn abandon(mut self: Box<Self>) {
        // Drop the handle; keep the runtime alive so the driver can close
        // the child in the background, as in a long-running program.
        let runtime = self.runtime.take().unwrap();
        drop(self.claude.take());
        std::thread::spawn(move || {
            runtime.block_on(tokio::time::sleep(Duration::from_secs(30)));
        });
    }
}

claude_proto_tests::conformance_suite!(Tokio, CLI);

/// A handle dropped and then its runtime dropped leave no process and no
/// zombie (issue 11 saw a zombie in 7 runs of 8): the driver, dropped with
/// the runtime, kills the child, and its exit watcher reaps it.
#[test]
fn runtime_shutdown_kills_the_child() {
    let _isolation = claude_proto_tests::conformance::isolation("runtime_shutdown");
    for _ in 0..8 {
        let runtime = runtime();
        let claude = runtime
            .block_on(builder(&Spec::new(CLI.into(), never_reads())).spawn())
            .unwrap();
        let pid = claude.pid().unwrap();
        drop(claude);
        drop(runtime);
        assert!(
            claude_proto_tests::process::wait_until_gone(pid, Duration::from_secs(20)),
            "process {pid} survived the runtime (state {:?})",
            claude_proto_tests::process::state(pid)
        );
    }
}

/// The runtime shut down while a session runs (its handle still held):
/// the CLI and what it started, a grandchild holding its pipes, are ended
/// with the runtime's tasks, before the handle is dropped. The CLI leads a
/// process group of its own, and the session ends the group.
#[test]
fn runtime_shutdown_ends_what_the_cli_started() {
    let _isolation = claude_proto_tests::conformance::isolation("runtime_shutdown_group");
    let pid_file = std::env::temp_dir().join(format!(
        "claude-proto-runtime-shutdown-grandchild-{}",
        std::process::id()
    ));
    let runtime = runtime();
    let spec = with_grandchild(Spec::new(CLI.into(), Behaviour::default()), &pid_file);
    let claude = runtime.block_on(async {
        let mut claude = builder(&spec).spawn().await.unwrap();
        assert_eq!(claude.ask("hi").await.unwrap().text(), Some("echo: hi"));
        claude
    });
    let pids: Vec<u32> = std::fs::read_to_string(&pid_file)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect();
    let _ = std::fs::remove_file(&pid_file);
    let [cli, grandchild] = pids[..] else {
        panic!("expected the CLI's and the grandchild's pids, got {pids:?}");
    };
    assert!(claude_proto_tests::process::is_running(grandchild));
    drop(runtime);
    for pid in [cli, grandchild] {
        assert!(
            claude_proto_tests::process::wait_until_not_running(pid, Duration::from_secs(20)),
            "process {pid} outlived the runtime (state {:?})",
            claude_proto_tests::process::state(pid)
        );
    }
    drop(claude);
}

mod backpressure {
    use super::*;

    /// A current-thread runtime on a paused clock: it moves its clock only
    /// once every task waits, so no real time passes.
    fn paused_runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build()
            .unwrap()
    }

    /// In-memory pipes for a session: the CLI's stdout with `stdout_bytes`
    /// of room (its writing end, and the session's reading end), and its
    /// stdin (the session's writing end), drained and ignored. Call inside
    /// the runtime.
    fn pipes(stdout_bytes: usize) -> (DuplexStream, DuplexStream, DuplexStream) {
        let (cli_out, sdk_in) = tokio::io::duplex(stdout_bytes);
        let (sdk_out, mut cli_in) = tokio::io::duplex(64 * 1024);
        tokio::spawn(async move {
            let mut sink = vec![0u8; 4096];
            while matches!(cli_in.read(&mut sink).await, Ok(n) if n > 0) {}
        });
        (cli_out, sdk_in, sdk_out)
    }

    /// The buffers a large line and a burst needed are given back once the
    /// CLI's output goes quiet: what the session keeps for reading is a
    /// small read buffer, not the 64 KiB reads, the 1 MiB line or the
    /// room of the queues that carried the burst.
    #[test]
    fn buffers_shrink_back_once_the_output_goes_quiet() {
        let _isolation = claude_proto_tests::conformance::isolation("quiet_buffers");
        // A paused clock: the session trims once its output has been quiet
        // for a while, and the runtime moves its clock only once every task
        // waits. No real time passes.
        paused_runtime().block_on(async {
            let (mut cli_out, sdk_in, sdk_out) = pipes(64 * 1024);
            let mut claude = Claude::builder(claude_proto::options::Options::default())
                .connect(sdk_in, sdk_out)
                .unwrap();
            let small = br#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"tick"}},"session_id":"s"}"#;
            let big = format!(
                "{{\"type\":\"user\",\"text\":\"{}\"}}\n",
                "x".repeat(1 << 20)
            );
            let writer = tokio::spawn(async move {
                cli_out.write_all(big.as_bytes()).await.unwrap();
                for _ in 0..5000 {
                    cli_out.write_all(small).await.unwrap();
                    cli_out.write_all(b"\n").await.unwrap();
                }
                cli_out
            });
            let mut lengths = Vec::new();
            while lengths.len() < 5001 {
                match claude.next_event().await {
                    Some(Event::Message(m)) => lengths.push(m.as_bytes().len()),
                    Some(_) => {}
                    None => panic!("ended after {}", lengths.len()),
                }
            }
            assert_eq!(lengths[0], (1 << 20) + 25);
            assert!(lengths[1..].iter().all(|&n| n == small.len()));
            // Everything is read, and the output stays quiet (an hour of
            // the paused clock; the session trims after a fraction of a
            // second of it).
            let cli_out = writer.await.unwrap();
            tokio::time::sleep(Duration::from_secs(3600)).await;
            let kept = claude.quiet_buffer_bytes().expect("the output went quiet");
            assert!(kept <= 4096, "{kept} bytes of buffers kept while quiet");
            drop(cli_out);
            while claude.next_event().await.is_some() {}
        });
    }
    use std::sync::atomic::AtomicUsize;
    use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};

    /// A peer that writes 100k messages while the user reads nothing must be
    /// blocked by the session after a bounded number of lines, not buffered
    /// into memory.
    ///
    /// Runs on a paused clock: the one-hour timeout can only fire once every
    /// task is blocked, so reaching it proves the writer is stuck for good
    /// (without backpressure it would finish first). No real time passes.
    #[test]
    fn a_consumer_that_stops_reading_blocks_the_writer() {
        let _isolation = claude_proto_tests::conformance::isolation("backpressure");
        const TOTAL: usize = 100_000;
        const READ_AHEAD: usize = 16 * 1024;
        paused_runtime().block_on(async {
            // The CLI's stdout: a small in-memory pipe.
            let (mut cli_out, sdk_in, sdk_out) = pipes(16 * 1024);
            let mut claude = Claude::builder(claude_proto::options::Options::default())
                .read_ahead_bytes(READ_AHEAD)
                .connect(sdk_in, sdk_out)
                .unwrap();

            let written = Arc::new(AtomicUsize::new(0));
            let line = br#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"tick"}},"parent_tool_use_id":null,"session_id":"s","uuid":"u"}"#;
            let mut writer = {
                let written = written.clone();
                tokio::spawn(async move {
                    for _ in 0..TOTAL {
                        cli_out.write_all(line).await.unwrap();
                        cli_out.write_all(b"\n").await.unwrap();
                        written.fetch_add(1, Ordering::SeqCst);
                    }
                    cli_out
                })
            };

            // Read nothing: the writer must end up blocked.
            let finished = tokio::time::timeout(Duration::from_secs(3600), &mut writer).await;
            assert!(finished.is_err(), "the peer wrote all {TOTAL} lines while nobody read");
            let ahead = written.load(Ordering::SeqCst);
            // Bounded by: the pipe (16 KiB), one 64 KiB read, the read-ahead
            // budget and the handoff batch (the same size here), each line
            // being about 190 bytes (an event costs its line plus 64).
            let bound = (16 * 1024 + 64 * 1024 + 2 * READ_AHEAD) / 150 + 2;
            assert!(ahead <= bound, "the writer got {ahead} lines ahead (bound {bound})");

            // Now read everything: all of it arrives, in order.
            let mut seen = 0;
            while seen < TOTAL {
                match claude.next_event().await {
                    Some(Event::Message(_)) => seen += 1,
                    Some(other) => panic!("{other:?}"),
                    None => panic!("ended after {seen}"),
                }
            }
            drop(writer.await.unwrap());
            drop(claude);
        });
    }
}

/// A user future dropped half-way (a `query` cancelled by a `select!`) and
/// then the handle dropped: no process is left.
#[test]
fn a_cancelled_query_leaves_no_process() {
    let _isolation = claude_proto_tests::conformance::isolation("cancelled_query");
    let runtime = runtime();
    let pid = runtime.block_on(async {
        let spec = Spec::new(
            CLI.into(),
            Behaviour::default().with_stream(500, 16, Duration::from_millis(20)),
        );
        let mut claude = builder(&spec).spawn().await.unwrap();
        let pid = claude.pid().unwrap();
        tokio::select! {
            biased;
            _ = claude.ask("tick") => panic!("a slow stream cannot finish in one poll"),
            () = tokio::task::yield_now() => {}
        }
        drop(claude);
        pid
    });
    // The runtime keeps running the background close.
    assert!(
        claude_proto_tests::process::wait_until_gone(pid, Duration::from_secs(20)),
        "process {pid} survived"
    );
    drop(runtime);
}

/// `session_id()` names the session once its first `system/init` was read.
#[test]
fn session_id_comes_from_the_cli() {
    let _isolation = claude_proto_tests::conformance::isolation("session_id");
    let runtime = runtime();
    runtime.block_on(async {
        let mut claude = builder(&Spec::new(CLI.into(), Behaviour::default()))
            .spawn()
            .await
            .unwrap();
        assert_eq!(claude.session_id(), None);
        let turn = claude.ask("hi").await.unwrap();
        let id = Some(turn.result.session_id.clone());
        assert!(id.is_some());
        assert_eq!(claude.session_id(), id);
        claude.close().await.unwrap();
    });
}

/// Reads the turn stream of a [`held_turn`] to its `system/init`: from
/// there the CLI writes nothing until it is interrupted.
async fn read_until_held(turn: &mut claude_proto_tokio::TurnStream<'_>) {
    while let Some(event) = turn.next().await {
        if is_system_init(event.as_message().expect("a message")) {
            return;
        }
    }
    panic!("the turn ended before its system/init");
}

/// A controller moved into another task interrupts while this task owns
/// the events and waits in the turn stream: the CLI writes nothing more
/// until the interrupt reaches it, so the turn ends only through it.
#[test]
fn a_controller_interrupts_from_another_task() {
    let _isolation = claude_proto_tests::conformance::isolation("controller_interrupt");
    runtime().block_on(async {
        let mut claude = builder(&Spec::new(CLI.into(), held_turn()))
            .spawn()
            .await
            .unwrap();
        let controller = claude.controller();
        let mut turn = claude.query("hold").await.unwrap();
        read_until_held(&mut turn).await;
        let interrupter = tokio::spawn(async move { controller.interrupt().await });
        // Blocked here until the interrupt, sent by the other task, lets the
        // CLI finish the turn.
        let mut rest = Vec::new();
        while let Some(event) = turn.next().await {
            rest.push(event);
        }
        let turn = turn.finish().await.unwrap();
        assert!(turn.is_error(), "ended by the interrupt: {turn:?}");
        assert!(rest.last().and_then(Event::as_message).unwrap().is_result());
        interrupter.await.unwrap().unwrap();
        claude.close().await.unwrap();
    });
}

/// `request_close` from a controller starts the close sequence; the owner
/// reads the events to their end and `close` still reports the exit.
#[test]
fn a_controller_starts_the_close() {
    let _isolation = claude_proto_tests::conformance::isolation("controller_close");
    runtime().block_on(async {
        let mut claude = builder(&Spec::new(CLI.into(), Behaviour::default()))
            .spawn()
            .await
            .unwrap();
        claude.ask("hi").await.unwrap();
        let controller = claude.controller();
        tokio::spawn(async move { controller.request_close() })
            .await
            .unwrap();
        while claude.next_event().await.is_some() {}
        let report = claude.close().await.unwrap().expect("an exit report");
        assert!(report.success(), "{report}");
    });
}

/// A turn stream yields its own turn's events, the `result` last, then
/// nothing; `finish` returns the same turn. A stream dropped mid-turn does
/// not shift the next query.
#[test]
fn turn_streams_end_at_their_own_result() {
    let _isolation = claude_proto_tests::conformance::isolation("turn_stream");
    runtime().block_on(async {
        let mut claude = builder(&Spec::new(CLI.into(), Behaviour::default()))
            .spawn()
            .await
            .unwrap();

        // Dropped after its first event: the rest is skipped by the next.
        let mut one = claude.query("one").await.unwrap();
        assert!(one.next().await.is_some());
        drop(one);

        let mut two = claude.query("two").await.unwrap();
        let mut events = Vec::new();
        while let Some(event) = two.next().await {
            events.push(event);
        }
        assert!(two.next().await.is_none(), "nothing after the result");
        let turn = two.finish().await.unwrap();
        assert_eq!(turn.text(), Some("echo: two"));
        let last = events.last().and_then(Event::as_message).unwrap();
        assert!(last.is_result());
        assert_eq!(
            events.iter().filter(|e| e.as_message().is_some()).count(),
            turn.messages.len() + turn.unreadable.len()
        );

        assert_eq!(
            claude.ask("three").await.unwrap().text(),
            Some("echo: three")
        );
        claude.close().await.unwrap();
    });
}

/// The one-call one-shot: spawn, ask, close.
#[test]
fn the_one_shot_query_answers_and_closes() {
    let _isolation = claude_proto_tests::conformance::isolation("one_shot");
    runtime().block_on(async {
        let turn =
            claude_proto_tokio::query("hi", Spec::new(CLI.into(), Behaviour::default()).options())
                .await
                .unwrap();
        assert_eq!(turn.text(), Some("echo: hi"));
        let missing = claude_proto::options::Options::default().cli_path("/nonexistent/claude");
        match claude_proto_tokio::query("hi", missing).await {
            Err(Error::Spawn(_)) => {}
            other => panic!("{other:?}"),
        }
    });
}

/// Handlers share state through `with_state`: each call gets a clone of
/// it, with no clone into each future by hand.
#[test]
fn handlers_share_state_with_with_state() {
    use claude_proto_tests::conformance::TypedAdd;
    use claude_proto_tokio::{McpServer, with_state};
    use std::sync::Mutex;

    let calls = Arc::new(Mutex::new(Vec::<i64>::new()));
    let add = Extra::Mcp {
        server: None,
        tool: Some("add".into()),
        arguments: serde_json::json!({"a": 2, "b": 3}),
    };
    let spec = Spec::new(CLI.into(), Behaviour::default().with_extra(add));
    let runtime = Runtime::new().unwrap();
    let text = runtime.block_on(async {
        let calc = McpServer::new("calc", "1.0.0").tool(
            "add",
            "Adds a and b",
            with_state(calls.clone(), async |calls, args: TypedAdd| {
                calls.lock().unwrap().push(args.a + args.b);
                Ok(args.run())
            }),
        );
        let mut claude = Claude::builder(spec.options())
            .mcp_server(calc)
            .spawn()
            .await
            .expect("spawn");
        let turn = claude.ask("add").await.expect("turn");
        claude.close().await.expect("close");
        // The tool's result, as the CLI echoed it.
        turn.messages
            .iter()
            .map(|m| serde_json::to_string(m).unwrap_or_default())
            .collect::<String>()
    });
    assert!(text.contains(r#"{\"sum\":5}"#), "{text}");
    assert_eq!(*calls.lock().unwrap(), [5]);
}

/// `next_event` is cancel-safe: a call dropped before it completes takes
/// no event, though the reader takes events from the session in batches.
/// Every other call here is dropped after one poll; every delta still
/// arrives, once, in order.
#[test]
fn a_dropped_next_event_takes_no_event() {
    use claude_proto_testkit::{Script, cli, expect};
    const DELTAS: usize = 500;
    let mut script = Script::new()
        .expect(expect::any_user())
        .send(cli::system_init());
    for n in 0..DELTAS {
        script = script.send(cli::text_delta(0, &format!("delta-{n}.")));
    }
    let script = script.send(cli::result_success("done")).expect_end();
    runtime().block_on(async {
        let builder = Claude::builder(claude_proto_tokio::Options::default());
        let (mut claude, run) = claude_proto_testkit::tokio::connect(builder, script).unwrap();
        claude.controller().send_text("go").await.unwrap();
        let (mut deltas, mut dropped) = (Vec::new(), 0);
        for call in 0.. {
            let event = if call % 2 == 0 {
                tokio::select! {
                    biased;
                    event = claude.next_event() => event,
                    () = std::future::ready(()) => {
                        dropped += 1;
                        continue;
                    }
                }
            } else {
                claude.next_event().await
            };
            let Some(Event::Message(message)) = event else {
                break;
            };
            let line = String::from_utf8(message.as_bytes().to_vec()).unwrap();
            if let Some(at) = line.find("delta-") {
                let rest = &line[at + "delta-".len()..];
                deltas.push(rest[..rest.find('.').unwrap()].parse::<usize>().unwrap());
            }
            if message.is_result() {
                break;
            }
        }
        assert_eq!(deltas, (0..DELTAS).collect::<Vec<_>>());
        assert!(dropped > 0, "no call was dropped");
        claude.close().await.unwrap();
        run.finish().await.unwrap();
    });
}

#[test]
fn a_turn_reads_as_typed_items_with_its_own_cost() {
    use claude_proto_tests::items::{check_costs, check_items, items_options};
    use claude_proto_tokio::TurnItem;
    runtime().block_on(async {
        let cli = std::path::Path::new(CLI);
        let mut claude = Claude::builder(items_options(cli)).spawn().await.unwrap();
        let mut turn = claude.query("first").await.unwrap();
        let mut items = Vec::new();
        while let Some(item) = turn.next_item().await {
            if matches!(item, TurnItem::Result(_)) {
                assert!(
                    turn.message().unwrap().is_result(),
                    "the raw line is reachable"
                );
            }
            items.push(item);
        }
        check_items(&items, "first");
        let first = turn.finish().await.unwrap();
        let second = claude.ask("second").await.unwrap();
        check_costs(&first, &second);
        claude.close().await.unwrap();
    });
}

#[test]
fn a_turn_past_its_deadline_is_interrupted_and_the_session_goes_on() {
    use claude_proto_tests::items::{HELD_PROMPT, check_deadline_passed, plain_options};
    runtime().block_on(async {
        let options = plain_options(std::path::Path::new(CLI));
        let mut claude = Claude::builder(options).spawn().await.unwrap();
        let turn = claude.query(HELD_PROMPT).await.unwrap();
        check_deadline_passed(turn.finish_within(Duration::from_millis(100)).await);
        let next = claude.ask("after").await.unwrap();
        assert_eq!(next.text(), Some("echo: after"), "the session is ready");
        claude.close().await.unwrap();
    });
}

#[test]
fn lines_written_after_a_deadlines_interrupt_are_not_kept() {
    use claude_proto_tests::items::{check_nothing_kept_after_deadline, unstoppable_options};
    runtime().block_on(async {
        let options = unstoppable_options(std::path::Path::new(CLI));
        let mut claude = Claude::builder(options).spawn().await.unwrap();
        let turn = claude.query("go on").await.unwrap();
        check_nothing_kept_after_deadline(turn.finish_within(Duration::ZERO).await);
        claude.close().await.unwrap();
    });
}

#[test]
fn a_turn_streamed_item_by_item_is_interrupted_at_its_deadline() {
    use claude_proto_tests::items::{HELD_PROMPT, check_streamed_past_deadline, plain_options};
    runtime().block_on(async {
        let options = plain_options(std::path::Path::new(CLI));
        let mut claude = Claude::builder(options).spawn().await.unwrap();
        let mut turn = claude
            .query(HELD_PROMPT)
            .await
            .unwrap()
            .with_timeout(Duration::from_millis(100));
        let mut items = Vec::new();
        while let Some(item) = turn.next_item().await {
            items.push(item);
        }
        let passed = turn.deadline_passed();
        check_streamed_past_deadline(&items, passed, turn.finish().await);
        let next = claude.ask("after").await.unwrap();
        assert_eq!(next.text(), Some("echo: after"), "the session is ready");
        claude.close().await.unwrap();
    });
}

#[test]
fn a_turn_that_never_pauses_is_still_given_up_at_its_deadline() {
    use claude_proto_tests::items::{check_deadline_kept, flood_options};
    runtime().block_on(async {
        let options = flood_options(std::path::Path::new(CLI));
        let mut claude = Claude::builder(options).spawn().await.unwrap();
        let turn = claude.query("flood").await.unwrap();
        check_deadline_kept(turn.finish_within(Duration::ZERO).await);
        claude.close().await.unwrap();
    });
}
