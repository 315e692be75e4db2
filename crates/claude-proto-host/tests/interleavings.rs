//! Random interleavings of everything that can happen to a session (the
//! user sends, calls, stops and resumes reading, closes; handlers finish;
//! the CLI asks, withdraws, floods, stops answering, exits; time passes),
//! with the host's invariants checked after every step and at the end.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers fail loudly by design

mod support;

use std::time::Duration;

use claude_proto::model::control::ControlRequest;
use claude_proto::model::permission::PermissionResult;
use claude_proto_host::{Capabilities, CloseStage, Command, Limits, Outcome, State, Transport};
use claude_proto_testkit::{Behaviour, Policy};
use proptest::prelude::*;
use serde_json::json;
use support::{Jobs, Pair, Served};

const READ_AHEAD: usize = 8 * 1024;
const MAX_UNWRITTEN: usize = 8 * 1024;
/// The longest line either side writes in these runs (with its event's
/// bookkeeping cost).
const LONGEST_LINE: usize = 8 * 1024;

#[derive(Debug, Clone)]
enum Op {
    Send(&'static str),
    Call {
        answered: bool,
        timeout_ms: u64,
        issued_ms_ago: u64,
    },
    Read(bool),
    Complete(usize),
    Fail(usize),
    CliAsks,
    CliWithdraws,
    CliGarbage,
    Advance(u64),
    EndInput,
    EventsClosed,
    Close,
    CliExits(i32),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => prop::sample::select(vec!["hi", "#permission", "#deep", "#bignum", "#nousage", "#hook"]).prop_map(Op::Send),
        3 => (any::<bool>(), 0..3_000u64, 0..2_000u64).prop_map(|(answered, timeout_ms, issued_ms_ago)| Op::Call { answered, timeout_ms, issued_ms_ago }),
        3 => any::<bool>().prop_map(Op::Read),
        2 => (0..4usize).prop_map(Op::Complete),
        1 => (0..4usize).prop_map(Op::Fail),
        2 => Just(Op::CliAsks),
        1 => Just(Op::CliWithdraws),
        1 => Just(Op::CliGarbage),
        3 => (0..5_000u64).prop_map(Op::Advance),
        1 => Just(Op::EndInput),
        1 => Just(Op::EventsClosed),
        1 => Just(Op::Close),
        1 => (0..4i32).prop_map(Op::CliExits),
    ]
}

fn rank(state: State) -> u8 {
    match state {
        State::Starting => 0,
        State::Running => 1,
        State::Closing(CloseStage::Grace) => 2,
        State::Closing(CloseStage::Terminated) => 3,
        State::Closing(CloseStage::Killed) => 4,
        State::Draining => 5,
        _ => 6,
    }
}

fn pair(stream: usize, transport: Transport) -> Pair {
    let mut limits = Limits::default();
    limits.read_ahead_bytes = READ_AHEAD;
    limits.max_unwritten_bytes = MAX_UNWRITTEN;
    limits.max_concurrent_handlers = 2;
    let mut capabilities = Capabilities::default();
    capabilities.permission = true;
    let script = Behaviour::default()
        .with_policy("mcp_status", Policy::Never)
        .with_stream(stream, 512, Duration::from_millis(5));
    let mut pair = Pair::with(script, limits, capabilities, transport);
    pair.jobs = Jobs::Hold;
    pair
}

fn check_step(pair: &Pair, last_rank: &mut u8) {
    let rank = rank(pair.host.state());
    assert!(
        rank >= *last_rank,
        "the state went back to {:?}",
        pair.host.state()
    );
    *last_rank = rank;
    assert!(pair.ended.len() <= 1, "ended twice");
    for (waiter, outcomes) in &pair.resolved {
        assert_eq!(
            outcomes.len(),
            1,
            "waiter {waiter} resolved {} times",
            outcomes.len()
        );
    }
    // After the exit, what is left in the pipe is read up to twice the
    // budget; at the very end, a read held back is delivered whatever the
    // budget (one read: the harness's chunk).
    assert!(
        pair.max_queued <= 2 * READ_AHEAD + LONGEST_LINE + pair.chunk,
        "queued {} bytes",
        pair.max_queued
    );
    assert!(
        pair.max_unwritten <= MAX_UNWRITTEN + LONGEST_LINE,
        "{} bytes unwritten",
        pair.max_unwritten
    );
}

fn run(ops: Vec<Op>, stream: usize, transport: Transport) {
    let mut pair = pair(stream, transport);
    let mut asked: Vec<String> = Vec::new();
    let mut commands = 0u32;
    let mut last_rank = 0;
    for op in ops {
        match op {
            Op::Send(text) => {
                pair.send(text);
                commands += 1;
            }
            Op::Call {
                answered,
                timeout_ms,
                issued_ms_ago,
            } => {
                let request = if answered {
                    ControlRequest::set_model(Some("m"))
                } else {
                    ControlRequest::mcp_status()
                };
                let issued_at = pair
                    .now
                    .checked_sub(Duration::from_millis(issued_ms_ago))
                    .unwrap_or(pair.now);
                pair.command(|waiter| Command::Call {
                    request: Box::new(request),
                    timeout: Some(Duration::from_millis(timeout_ms)),
                    issued_at,
                    waiter,
                });
                commands += 1;
            }
            Op::Read(reading) => pair.reading = reading,
            Op::Complete(i) if i < pair.held.len() => {
                pair.complete_held(i, Ok(Outcome::Permission(PermissionResult::allow())));
            }
            Op::Fail(i) if i < pair.held.len() => {
                pair.complete_held(i, Err("no".into()));
            }
            Op::Complete(_) | Op::Fail(_) => {}
            Op::CliAsks => {
                if pair.cli.exit_code().is_none() {
                    let n = asked.len();
                    asked.push(pair.cli.sim_mut().request(json!({"subtype": "can_use_tool",
                        "tool_name": "Bash", "input": {"n": n}, "tool_use_id": format!("t{n}")})));
                }
            }
            Op::CliWithdraws => {
                if let Some(id) = asked.last() {
                    pair.cli.sim_mut().cancel(id);
                }
            }
            Op::CliGarbage => pair
                .cli
                .sim_mut()
                .emit_raw(b"not json\n{\"type\":\"mystery\"}\n"),
            Op::Advance(ms) => pair.advance_by(Duration::from_millis(ms)),
            Op::EndInput => {
                pair.host.handle_command(Command::EndInput, pair.now);
            }
            Op::EventsClosed => pair.host.handle_events_closed(),
            Op::Close => {
                pair.host.handle_command(Command::Close, pair.now);
            }
            Op::CliExits(code) => {
                if pair.cli.exit_code().is_none() {
                    pair.cli.sim_mut().exit(code, pair.now);
                }
            }
        }
        pair.run();
        check_step(&pair, &mut last_rank);
    }
    // Wind down: the user reads, every handler finishes, the session closes.
    pair.reading = true;
    pair.jobs = Jobs::Answer;
    while !pair.held.is_empty() {
        pair.complete_held(0, Ok(Outcome::Permission(PermissionResult::allow())));
    }
    pair.host.handle_command(Command::Close, pair.now);
    pair.run_until(Pair::is_ended);
    check_step(&pair, &mut last_rank);
    assert!(
        pair.is_ended(),
        "the session must end: {:?}",
        pair.host.state()
    );
    assert_eq!(pair.ended.len(), 1);
    assert_eq!(pair.initialized.len(), 1, "initialize settles exactly once");
    assert_eq!(
        pair.resolved.len(),
        commands as usize,
        "every command resolves"
    );
    assert!(pair.held.is_empty());
    assert_eq!(
        pair.started,
        pair.completed + pair.aborted.len(),
        "every job is answered or aborted, once"
    );
    for id in &asked {
        assert!(
            pair.cli.sim().answers_to(id) <= 1,
            "request {id} answered twice"
        );
    }
    assert_eq!(pair.host.pending_calls(), 0);
    assert_eq!(pair.host.running_jobs(), 0);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn a_child_process_session(ops in prop::collection::vec(op(), 1..60), stream in 0..40usize) {
        run(ops, stream, Transport::Process);
    }

    #[test]
    fn a_byte_stream_session(ops in prop::collection::vec(op(), 1..60), stream in 0..40usize) {
        run(ops, stream, Transport::Stream);
    }
}
