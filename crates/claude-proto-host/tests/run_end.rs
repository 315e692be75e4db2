//! A one-shot run's end (`Command::EndInputAtRunEnd`) against the sans-IO
//! scripted CLI on a virtual clock: one test per rule of the Python SDK
//! 0.2.189 (see `claude_proto_host::run_end`), each failing without it.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers fail loudly by design

mod support;

use std::time::Duration;

use claude_proto::model::hooks::HookEvent;
use claude_proto_host::run_end::{DEFAULT_CEILING, MAX_CEILING, ceiling_from};
use claude_proto_host::{Capabilities, Command, Event, Limits, Transport};
use claude_proto_testkit::Behaviour;
use serde_json::{Value, json};
use support::{Pair, Served};

const CEILING: Duration = Duration::from_secs(600);

/// A session with a hook registered: something the CLI may call back.
fn calls_back() -> Capabilities {
    let mut capabilities = Capabilities::default();
    capabilities
        .hooks
        .register(HookEvent::PreToolUse, None, None, None);
    capabilities
}

/// Started, one prompt sent and answered, the run's end asked for.
fn run(capabilities: Capabilities, ceiling: Option<Duration>) -> Pair {
    let mut pair = lingering(capabilities);
    pair.run();
    pair.send("hello");
    pair.command(|_| Command::EndInputAtRunEnd { ceiling });
    pair.run();
    pair
}

/// A pair whose scripted CLI lingers after its stdin closes, so that closing
/// is what is seen.
fn lingering(capabilities: Capabilities) -> Pair {
    Pair::with(
        Behaviour::default().with_linger(),
        Limits::default(),
        capabilities,
        Transport::Process,
    )
}

/// Started with the CLI reporting `running`, one prompt sent, the run's
/// end asked for, and the prompt's result read: the run waits.
fn running_run(ceiling: Option<Duration>) -> Pair {
    let mut pair = lingering(calls_back());
    pair.run();
    emit(&mut pair, &[state("running")]);
    pair.send("hello");
    pair.command(|_| Command::EndInputAtRunEnd { ceiling });
    pair.run();
    assert!(
        stdin_open(&pair),
        "a result while running ends a turn, not the run"
    );
    pair
}

fn state(state: &str) -> Value {
    json!({"type":"system","subtype":"session_state_changed","state":state,
        "sdk_host_only":true,"uuid":"u","session_id":"s"})
}

fn task_started(id: &str, kind: &str) -> Value {
    json!({"type":"system","subtype":"task_started","task_id":id,"task_type":kind,
        "description":"d","uuid":"u","session_id":"s"})
}

fn result() -> Value {
    json!({"type":"result","subtype":"success","is_error":false,"duration_ms":0,
        "duration_api_ms":0,"num_turns":1,"result":"more","stop_reason":null,
        "total_cost_usd":0,"usage":{},"modelUsage":{},"permission_denials":[],
        "uuid":"u","session_id":"s"})
}

fn emit(pair: &mut Pair, lines: &[Value]) {
    for line in lines {
        pair.cli.sim_mut().emit(line.clone());
    }
    pair.run();
}

fn stdin_open(pair: &Pair) -> bool {
    pair.cli.wants_stdin()
}

/// Nothing can call back: stdin closes right after the prompt, before its
/// answer, as in Python.
#[test]
fn with_nothing_to_call_back_stdin_closes_after_the_prompt() {
    let mut pair = lingering(Capabilities::default());
    pair.run();
    pair.send("hello");
    pair.command(|_| Command::EndInputAtRunEnd {
        ceiling: Some(CEILING),
    });
    pair.run();
    assert!(!stdin_open(&pair));
    assert_eq!(
        pair.cli.sim().user_messages().len(),
        1,
        "the prompt went first"
    );
}

/// Every kind of handler counts as something the CLI may call back; with
/// none of them, nothing does.
#[test]
fn every_handler_kind_calls_back() {
    assert!(!Capabilities::default().calls_back());
    let each: [fn(&mut Capabilities); 6] = [
        |c| c.permission = true,
        |c| c.elicitation = true,
        |c| c.user_dialog_kinds = Some(vec!["confirm".into()]),
        |c| {
            c.hooks.register(HookEvent::Stop, None, None, None);
        },
        |c| {
            c.mcp_servers
                .push(claude_proto::dispatch::McpServerSpec::new("calc", "1"));
        },
        |c| c.mcp_endpoints.push("weather".into()),
    ];
    for (i, set) in each.iter().enumerate() {
        let mut capabilities = Capabilities::default();
        set(&mut capabilities);
        assert!(capabilities.calls_back(), "handler kind {i}");
    }
}

/// From a CLI that reports no session state, the result ends the run.
#[test]
fn without_session_state_the_result_ends_the_run() {
    let pair = run(calls_back(), Some(CEILING));
    assert!(!stdin_open(&pair));
}

/// With session state, a result while the CLI still reports `running`
/// keeps stdin open; `idle` then ends the run.
#[test]
fn idle_after_the_result_ends_the_run() {
    let mut pair = running_run(Some(CEILING));
    emit(&mut pair, &[state("idle")]);
    assert!(!stdin_open(&pair));
}

/// Asked for after the prompt's result was already read: that result
/// still counts (the wait cannot miss it), in both directions.
#[test]
fn asked_for_after_the_result_the_result_still_counts() {
    let mut pair = lingering(calls_back());
    pair.run();
    pair.send("hello");
    pair.run();
    pair.command(|_| Command::EndInputAtRunEnd {
        ceiling: Some(CEILING),
    });
    pair.run();
    assert!(!stdin_open(&pair), "no session state: the result ended it");

    let mut pair = lingering(calls_back());
    pair.run();
    emit(&mut pair, &[state("running")]);
    pair.send("hello");
    pair.run();
    pair.command(|_| Command::EndInputAtRunEnd {
        ceiling: Some(CEILING),
    });
    pair.run();
    assert!(stdin_open(&pair), "still running: wait for idle");
    assert!(pair.host.poll_timeout().is_some(), "the ceiling is armed");
    emit(&mut pair, &[state("idle")]);
    assert!(!stdin_open(&pair));
}

/// Finding: a prompt sent on the previous turn's result, before that
/// turn's `idle` was read, had its run ended by that stale `idle`: the
/// next turn's hooks and permission prompts went unanswered. Each prompt
/// owes a result of its own (the Python SDK resets for every prompt).
#[test]
fn a_prompt_sent_on_a_result_is_not_ended_by_the_idle_before_it() {
    let mut pair = Pair::with(
        Behaviour::default()
            .with_linger()
            .with_turn_delay(Duration::from_secs(5)),
        Limits::default(),
        calls_back(),
        Transport::Process,
    );
    pair.run();
    emit(&mut pair, &[state("running")]);
    pair.send("first");
    pair.command(|_| Command::EndInputAtRunEnd {
        ceiling: Some(CEILING),
    });
    let results = |pair: &Pair| {
        pair.events
            .iter()
            .filter(|d| matches!(&d.event, Event::Message(m) if m.is_result()))
            .count()
    };
    pair.run_until(|pair| results(pair) == 1);
    assert!(stdin_open(&pair), "still running");
    // The next prompt goes out on that result; the first turn's idle
    // arrives after it.
    pair.send("second");
    emit(&mut pair, &[state("idle")]);
    assert!(stdin_open(&pair), "the second prompt has had no result yet");
    pair.run_until(|pair| results(pair) == 2);
    emit(&mut pair, &[state("idle")]);
    assert!(!stdin_open(&pair), "its result and idle end the run");
}

/// A background agent in flight holds the run past `idle`; its terminal
/// `task_updated` (or `task_notification`) and the next idle end it.
/// Shells never hold it.
#[test]
fn a_tracked_agent_holds_the_run_until_it_settles() {
    let mut pair = running_run(Some(CEILING));
    emit(
        &mut pair,
        &[
            task_started("shell", "local_bash"),
            task_started("agent", "local_agent"),
            task_started("flow", "local_workflow"),
            result(),
            state("idle"),
        ],
    );
    assert!(stdin_open(&pair), "two agents in flight");
    emit(
        &mut pair,
        &[
            json!({"type":"system","subtype":"task_updated","task_id":"agent",
            "patch":{"status":"completed"},"uuid":"u","session_id":"s"}),
        ],
    );
    assert!(stdin_open(&pair), "the workflow is still in flight");
    emit(
        &mut pair,
        &[
            json!({"type":"system","subtype":"task_notification","task_id":"flow",
            "status":"completed","output_file":"","summary":"done","uuid":"u","session_id":"s"}),
        ],
    );
    assert!(stdin_open(&pair), "settled, but no idle since");
    emit(&mut pair, &[state("running"), result(), state("idle")]);
    assert!(!stdin_open(&pair), "the shell does not hold the run");
}

/// The ceiling ends a run the CLI keeps `running` with no new turn; it
/// never cuts off a tracked agent, and starts over once that settles.
#[test]
fn the_ceiling_ends_a_run_stuck_running_but_not_a_live_agent() {
    let mut pair = running_run(Some(CEILING));
    emit(&mut pair, &[state("running"), result()]);
    pair.advance_by(CEILING - Duration::from_secs(1));
    pair.run();
    assert!(stdin_open(&pair), "before the ceiling");
    pair.advance_by(Duration::from_secs(1));
    pair.run();
    assert!(!stdin_open(&pair), "at the ceiling");

    let mut pair = running_run(Some(CEILING));
    emit(
        &mut pair,
        &[
            task_started("agent", "local_agent"),
            state("running"),
            result(),
        ],
    );
    pair.advance_by(CEILING * 2);
    pair.run();
    assert!(stdin_open(&pair), "a live agent is not cut off");
    emit(
        &mut pair,
        &[
            json!({"type":"system","subtype":"task_notification","task_id":"agent",
            "status":"completed","output_file":"","summary":"done","uuid":"u","session_id":"s"}),
        ],
    );
    pair.advance_by(CEILING - Duration::from_secs(1));
    pair.run();
    assert!(
        stdin_open(&pair),
        "the ceiling started over when it settled"
    );
    pair.advance_by(Duration::from_secs(1));
    pair.run();
    assert!(!stdin_open(&pair));
}

/// No ceiling (`0`): only `idle` ends the run.
#[test]
fn without_a_ceiling_only_idle_ends_the_run() {
    let mut pair = running_run(None);
    emit(&mut pair, &[state("running"), result()]);
    assert!(pair.host.poll_timeout().is_none(), "no ceiling is armed");
    pair.advance_by(MAX_CEILING);
    pair.run();
    assert!(stdin_open(&pair));
    emit(&mut pair, &[state("idle")]);
    assert!(!stdin_open(&pair));
}

/// A turn under way and `requires_action` (a request being answered) stop
/// the ceiling's clock; `running` again restarts it.
#[test]
fn a_turn_under_way_or_a_request_stops_the_ceiling() {
    let mut pair = running_run(Some(CEILING));
    emit(&mut pair, &[state("running"), result()]);
    // A follow-up turn starts on the main thread.
    emit(
        &mut pair,
        &[
            json!({"type":"assistant","message":{"id":"m","type":"message","role":"assistant",
            "model":"x","content":[{"type":"text","text":"follow-up"}],"stop_reason":null,
            "stop_sequence":null,"usage":{}},"parent_tool_use_id":null,"uuid":"u","session_id":"s"}),
        ],
    );
    pair.advance_by(CEILING * 2);
    pair.run();
    assert!(stdin_open(&pair), "a turn under way");
    emit(&mut pair, &[state("requires_action"), result()]);
    pair.advance_by(CEILING * 2);
    pair.run();
    assert!(stdin_open(&pair), "a request being answered");
    emit(&mut pair, &[state("running")]);
    pair.advance_by(CEILING);
    pair.run();
    assert!(!stdin_open(&pair), "running again: the ceiling counts");
}

/// A subagent's stream does not count as a main-thread turn: the ceiling
/// still runs.
#[test]
fn a_subagents_messages_do_not_stop_the_ceiling() {
    let mut pair = running_run(Some(CEILING));
    emit(&mut pair, &[state("running"), result()]);
    emit(
        &mut pair,
        &[
            json!({"type":"stream_event","event":{"type":"ping"},"parent_tool_use_id":"toolu_1",
            "uuid":"u","session_id":"s"}),
        ],
    );
    pair.advance_by(CEILING);
    pair.run();
    assert!(!stdin_open(&pair));
}

/// Work the CLI takes up after the run ended reopens it: a follow-up
/// turn (`running` after the ending `idle`'s result came late) holds
/// stdin again until its own `idle`.
#[test]
fn work_after_the_end_reopens_the_run_until_stdin_closed() {
    let mut pair = running_run(Some(CEILING));
    // `requires_action` before the result: the run is not ended by it,
    // and `running` then reopens the wait.
    emit(&mut pair, &[state("requires_action"), result()]);
    assert!(stdin_open(&pair));
    emit(&mut pair, &[state("running")]);
    assert!(stdin_open(&pair));
    emit(&mut pair, &[result(), state("idle")]);
    assert!(!stdin_open(&pair));
}

/// The frames the CLI sent only because session state was asked for
/// (`sdk_host_only`) are not the user's; the ones the user opted into are.
#[test]
fn host_only_session_state_is_not_delivered() {
    let mut pair = Pair::new(Behaviour::default().with_linger());
    pair.run();
    emit(&mut pair, &[state("running")]);
    let mut own = state("idle");
    own.as_object_mut().unwrap().remove("sdk_host_only");
    emit(&mut pair, &[own]);
    let states: Vec<String> = pair
        .events
        .iter()
        .filter_map(|d| match &d.event {
            Event::Message(m) if m.subtype() == Some("session_state_changed") => {
                Some(String::from_utf8_lossy(m.as_bytes()).into_owned())
            }
            _ => None,
        })
        .collect();
    assert_eq!(states.len(), 1, "{states:?}");
    assert!(states[0].contains("idle"));
}

/// After the run's end closed stdin, a CLI that is still running a
/// ceiling later (it should have given up its background work by then) is
/// closed: SIGTERM after the close grace. One that exits in time is not.
#[test]
fn a_cli_that_outstays_the_ceiling_after_the_end_is_closed() {
    let mut pair = running_run(Some(CEILING));
    emit(&mut pair, &[state("idle")]);
    assert!(!stdin_open(&pair));
    let ended_at = pair.now;
    pair.run_until(|p| !p.signals.is_empty());
    assert_eq!(pair.signals[0], claude_proto_host::Signal::Terminate);
    assert_eq!(pair.now, ended_at + CEILING + Limits::default().close_grace);

    let mut pair = running_run(Some(CEILING));
    emit(&mut pair, &[state("idle")]);
    pair.cli.sim_mut().exit(0, pair.now);
    pair.run_until(Pair::is_ended);
    assert!(pair.signals.is_empty(), "{:?}", pair.signals);
}

/// The ledger of agents is bounded in bytes: ids past
/// `MAX_TASK_ID_BYTES`, and agents past `MAX_TRACKED_TASKS`, are not
/// tracked (so they cannot hold the run either).
#[test]
fn the_ledger_of_agents_is_bounded() {
    use claude_proto_host::run_end::{MAX_TASK_ID_BYTES, MAX_TRACKED_TASKS};
    let mut pair = running_run(Some(CEILING));
    let long = "x".repeat(MAX_TASK_ID_BYTES + 1);
    emit(
        &mut pair,
        &[task_started(&long, "local_agent"), result(), state("idle")],
    );
    assert!(!stdin_open(&pair), "an id too long is not tracked");

    let mut pair = running_run(Some(CEILING));
    let agents: Vec<Value> = (0..=MAX_TRACKED_TASKS)
        .map(|i| task_started(&format!("agent-{i}"), "local_agent"))
        .collect();
    emit(&mut pair, &agents);
    let settled: Vec<Value> = (0..MAX_TRACKED_TASKS)
        .map(|i| {
            json!({"type":"system","subtype":"task_notification","task_id":format!("agent-{i}"),
                "status":"completed","output_file":"","summary":"","uuid":"u","session_id":"s"})
        })
        .collect();
    emit(&mut pair, &settled);
    emit(&mut pair, &[result(), state("idle")]);
    assert!(
        !stdin_open(&pair),
        "the one past the bound was never tracked"
    );
}

/// The ceiling as the CLI reads `CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS`.
#[test]
fn the_ceiling_is_read_as_the_python_sdk_reads_it() {
    assert_eq!(ceiling_from(None), Some(DEFAULT_CEILING));
    assert_eq!(ceiling_from(Some("0")), None);
    assert_eq!(
        ceiling_from(Some("1500")),
        Some(Duration::from_millis(1500))
    );
    assert_eq!(ceiling_from(Some("-5")), Some(DEFAULT_CEILING));
    assert_eq!(ceiling_from(Some("1e6")), Some(DEFAULT_CEILING));
    assert_eq!(ceiling_from(Some("soon")), Some(DEFAULT_CEILING));
    assert_eq!(ceiling_from(Some("99999999999999")), Some(MAX_CEILING));
    // Finding: a value past u64 fell back to the default instead.
    assert_eq!(
        ceiling_from(Some("99999999999999999999999999")),
        Some(MAX_CEILING)
    );
    // Python's `int` also takes these.
    assert_eq!(
        ceiling_from(Some(" +1_500\n")),
        Some(Duration::from_millis(1500))
    );
    assert_eq!(ceiling_from(Some("-0")), None);
    for refused in ["1__0", "_1", "1_", "", "+", "- 1", "0x10"] {
        assert_eq!(
            ceiling_from(Some(refused)),
            Some(DEFAULT_CEILING),
            "{refused:?}"
        );
    }
}
