//! The host machine against the test kit's scripted CLI on a virtual clock: the
//! conformance scenarios that need no real process, and one case for each
//! way the layer above the core used to fail.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers fail loudly by design

mod support;

use std::time::Duration;

use claude_proto::model::control::ControlRequest;
use claude_proto::model::hooks::HookEvent;
use claude_proto::model::permission::PermissionResult;
use claude_proto_host::{
    CallReply, Capabilities, CloseStage, Command, EndReason, Error, Event, Limits, Outcome, Signal,
    Stall, State, TimeoutReason, Transport,
};
use claude_proto_testkit::{Behaviour, Policy};
use serde_json::json;
use support::{Jobs, Pair, Served, text};

fn started(pair: &mut Pair) {
    pair.run();
    assert_eq!(pair.initialized.len(), 1);
    assert!(pair.initialized[0].is_ok(), "{:?}", pair.initialized[0]);
    assert_eq!(pair.host.state(), State::Running);
}

fn permission() -> Capabilities {
    let mut capabilities = Capabilities::default();
    capabilities.permission = true;
    capabilities
}

fn limits(change: impl FnOnce(&mut Limits)) -> Limits {
    let mut limits = Limits::default();
    change(&mut limits);
    limits
}

// ----- the ordinary flow ------------------------------------------------------

#[test]
fn one_turn_then_a_clean_close() {
    let mut pair = Pair::new(Behaviour::default());
    started(&mut pair);
    let sent = pair.send("hello");
    pair.run();
    let turn = pair.collect(pair.turn_of(sent));
    assert_eq!(text(&turn), "echo: hello");
    assert!(!turn.is_error());
    pair.command(|_| Command::Close);
    pair.run_until(Pair::is_ended);
    let ended = &pair.ended[0];
    assert_eq!(ended.reason(), EndReason::Closed);
    assert_eq!(ended.report().unwrap().code, Some(0));
    assert!(pair.signals.is_empty(), "the CLI exited on its own");
    assert_eq!(pair.ended.len(), 1);
}

#[test]
fn prompts_sent_before_initialize_is_answered_are_queued_in_order() {
    let mut pair = Pair::new(
        Behaviour::default().with_policy("initialize", Policy::Delay(Duration::from_secs(1))),
    );
    let first = pair.send("one");
    let second = pair.send("two");
    pair.run_until(|p| {
        p.events
            .iter()
            .filter(|d| matches!(&d.event, Event::Message(m) if m.is_result()))
            .count()
            == 2
    });
    assert_eq!((pair.turn_of(first), pair.turn_of(second)), (0, 1));
    let events = pair.events.clone();
    assert_eq!(text(&pair.collect(0)), "echo: one");
    pair.events = events;
    assert_eq!(text(&pair.collect(1)), "echo: two");
}

#[test]
fn a_byte_order_mark_before_the_initialize_answer_does_not_lose_it() {
    let mut pair = Pair::new(Behaviour::default().with_bom());
    started(&mut pair);
}

#[test]
fn exit_before_initialize_fails_it_with_the_exit_at_once() {
    let mut pair = Pair::new(Behaviour::default().with_policy("initialize", Policy::Never));
    pair.run();
    pair.cli.sim_mut().emit_stderr(b"startup failed\n");
    pair.cli.sim_mut().exit(2, pair.now);
    pair.run();
    let Err(error) = &pair.initialized[0] else {
        panic!("initialize cannot succeed")
    };
    let report = error.exit_report().expect("the exit");
    assert_eq!(report.code, Some(2));
    assert!(report.stderr_tail.contains("startup failed"));
    assert!(pair.is_ended(), "no timer had to run");
    let late = pair.send("anyone?");
    assert!(matches!(pair.outcome(late), Some(Err(Error::Ended(_)))));
}

fn error_result(words: &str) -> serde_json::Value {
    json!({"type":"result","subtype":"error_during_execution","is_error":true,
        "duration_ms":0,"duration_api_ms":0,"num_turns":0,"stop_reason":null,"total_cost_usd":0,
        "usage":{},"modelUsage":{},"permission_denials":[],"errors":[words],
        "uuid":"u","session_id":"s"})
}

/// The CLI refuses a resume while `initialize` is pending: it writes an
/// error result and exits. The caller gets the result's own words (as the
/// Python SDK does), not only the exit.
#[test]
fn an_error_result_before_the_exit_gives_the_end_its_words() {
    let mut pair = Pair::new(Behaviour::default().with_policy("initialize", Policy::Never));
    pair.run();
    let words = "Resume rejected by --resume-drops-turn: the cut is not inside that turn";
    pair.cli.sim_mut().emit(error_result(words));
    pair.cli.sim_mut().exit(1, pair.now);
    pair.run();
    let Err(Error::Ended(ended)) = &pair.initialized[0] else {
        panic!("initialize cannot succeed: {:?}", pair.initialized[0])
    };
    assert_eq!(ended.failure(), Some(words));
    let text = ended.to_string();
    assert!(text.starts_with("the CLI reported an error"), "{text}");
    assert!(text.contains(words), "{text}");
    assert!(text.contains("code 1"), "the exit is still named: {text}");
}

/// A failed turn's text, also from a result line the typed model cannot
/// read (`errors` a bare string): the Python SDK still gives a text there.
#[test]
fn a_failed_turn_names_its_failure_whatever_its_shape() {
    let mut pair = Pair::new(Behaviour::default());
    started(&mut pair);
    let mut odd = error_result("unused");
    odd["errors"] = json!("  a bare string  ");
    pair.cli.sim_mut().emit(odd);
    pair.cli.sim_mut().emit(error_result("max turns"));
    pair.run();
    let events = pair.events.clone();
    let turn = pair.collect(0);
    assert_eq!(turn.unread_result_fields, ["errors"]);
    assert!(turn.is_error());
    assert_eq!(turn.error_message().as_deref(), Some("a bare string"));
    pair.events = events;
    let turn = pair.collect(1);
    assert_eq!(turn.error_message().as_deref(), Some("max turns"));
}

/// Only the CLI's own end carries a failure, and only when its last
/// result was one: a close from this side says nothing of it, and a
/// later success clears it.
#[test]
fn only_the_clis_own_end_after_a_failed_result_carries_it() {
    let mut pair = Pair::new(Behaviour::default());
    started(&mut pair);
    pair.cli.sim_mut().emit(error_result("max turns"));
    pair.run();
    pair.command(|_| Command::Close);
    pair.run_until(Pair::is_ended);
    assert_eq!(pair.ended[0].reason(), EndReason::Closed);
    assert_eq!(pair.ended[0].failure(), None);

    let mut pair = Pair::new(Behaviour::default());
    started(&mut pair);
    pair.cli.sim_mut().emit(error_result("max turns"));
    let sent = pair.send("hello");
    pair.run();
    let _ = pair.collect(pair.turn_of(sent));
    pair.cli.sim_mut().exit(0, pair.now);
    pair.run_until(Pair::is_ended);
    assert_eq!(pair.ended[0].reason(), EndReason::Exited);
    assert_eq!(pair.ended[0].failure(), None, "the success came last");

    let mut pair = Pair::new(Behaviour::default());
    started(&mut pair);
    pair.cli.sim_mut().emit(error_result("max turns"));
    pair.cli.sim_mut().exit(1, pair.now);
    pair.run_until(Pair::is_ended);
    assert_eq!(pair.ended[0].failure(), Some("max turns"));
}

/// Finding: after an error result and then a new turn, a crash was
/// reported in the old result's words. Any frame but a result or a state
/// change means the conversation moved on (both official SDKs).
#[test]
fn a_crash_after_the_conversation_moved_on_is_not_blamed_on_an_old_result() {
    let mut pair = Pair::new(Behaviour::default().with_turn_delay(Duration::from_secs(5)));
    started(&mut pair);
    pair.cli.sim_mut().emit(error_result("max turns"));
    pair.run();
    pair.cli
        .sim_mut()
        .emit(json!({"type":"system","subtype":"session_state_changed",
        "state":"idle","uuid":"u","session_id":"s"}));
    pair.run();
    // The next turn starts (its `system/init`, before the answer's delay)
    // and the CLI crashes before its result.
    pair.send("hello");
    pair.run();
    pair.cli.sim_mut().exit(1, pair.now);
    pair.run_until(Pair::is_ended);
    assert_eq!(pair.ended[0].reason(), EndReason::Exited);
    assert_eq!(pair.ended[0].failure(), None, "a fresh crash");
    let text = pair.ended[0].to_string();
    assert!(!text.contains("max turns"), "{text}");

    // A state change alone does not move it on.
    let mut pair = Pair::new(Behaviour::default());
    started(&mut pair);
    pair.cli.sim_mut().emit(error_result("max turns"));
    pair.cli
        .sim_mut()
        .emit(json!({"type":"system","subtype":"session_state_changed",
        "state":"idle","uuid":"u","session_id":"s"}));
    pair.cli.sim_mut().exit(1, pair.now);
    pair.run_until(Pair::is_ended);
    assert_eq!(pair.ended[0].failure(), Some("max turns"));
}

// ----- control traffic never waits on the user reading ------------------------

#[test]
fn a_control_answer_behind_unread_events_is_not_stuck() {
    let mut pair = Pair::new(Behaviour::default().with_stream(400, 200, Duration::ZERO));
    started(&mut pair);
    pair.reading = false;
    pair.send("stream a lot");
    let call = pair.call(ControlRequest::set_model(Some("haiku")), None);
    pair.run();
    assert!(
        matches!(pair.outcome(call), Some(Ok(CallReply::Answered(_)))),
        "{:?}",
        pair.outcome(call)
    );
    assert!(pair.host.has_events(), "the user has read nothing yet");
    assert!(pair.host.queued_bytes() > 400 * 200);
}

#[test]
fn a_permission_request_behind_a_thousand_unread_events_is_answered() {
    let mut pair = Pair::with(
        Behaviour::default().with_stream(1000, 100, Duration::ZERO),
        Limits::default(),
        permission(),
        Transport::Process,
    );
    started(&mut pair);
    pair.reading = false;
    pair.send("#permission please");
    pair.run();
    assert_eq!(
        pair.started, 1,
        "the handler ran while the user read nothing"
    );
    let asked = pair.cli.sim().control_requests_received("can_use_tool");
    assert!(asked.is_empty(), "the CLI sends, the host receives");
    assert_eq!(
        pair.cli.sim().turns_completed(),
        1,
        "the turn went on after the answer"
    );
}

#[test]
fn a_spent_read_ahead_budget_pauses_reading_and_names_itself() {
    let limits = limits(|l| l.read_ahead_bytes = 64 * 1024);
    let mut pair = Pair::with(
        Behaviour::default().with_stream(200, 4096, Duration::ZERO),
        limits,
        Capabilities::default(),
        Transport::Process,
    );
    started(&mut pair);
    pair.reading = false;
    pair.send("flood");
    let call = pair.call(ControlRequest::mcp_status(), Some(Duration::from_secs(2)));
    pair.run();
    assert!(!pair.host.wants_stdout(), "reading paused");
    let line = 4096 + 1024;
    assert!(pair.max_queued <= 64 * 1024 + line, "{}", pair.max_queued);
    pair.run_until(|p| p.outcome(call).is_some());
    match pair.outcome(call) {
        Some(Err(Error::TimedOut {
            subtype,
            stall: Some(Stall::ReadAheadFull { budget, .. }),
            ..
        })) => {
            assert_eq!(subtype, "mcp_status");
            assert_eq!(*budget, 64 * 1024);
        }
        other => panic!("expected a timeout naming the budget, got {other:?}"),
    }
    let message = pair
        .outcome(call)
        .unwrap()
        .as_ref()
        .unwrap_err()
        .to_string();
    assert!(message.contains("read-ahead budget"), "{message}");
    // Reading again lets everything through, the result included.
    pair.reading = true;
    pair.run();
    assert_eq!(text(&pair.collect(0)), "echo: flood");
}

// ----- turns cannot shift -----------------------------------------------------

#[test]
fn lines_the_model_cannot_read_do_not_shift_turns() {
    let mut pair = Pair::new(Behaviour::default());
    started(&mut pair);
    let first = pair.send("first #deep #bignum");
    let second = pair.send("second");
    pair.run();
    let events = pair.events.clone();
    let one = pair.collect(pair.turn_of(first));
    assert_eq!(text(&one), "echo: first #deep #bignum");
    assert_eq!(
        one.protocol_errors.len() + one.unreadable.len(),
        2,
        "both kept"
    );
    pair.events = events;
    let two = pair.collect(pair.turn_of(second));
    assert_eq!(text(&two), "echo: second");
}

#[test]
fn a_turn_abandoned_half_way_does_not_shift_the_next() {
    let mut pair = Pair::new(Behaviour::default().with_stream(20, 50, Duration::from_millis(10)));
    started(&mut pair);
    pair.send("abandoned");
    pair.run();
    // The user read part of turn 0 and gave up (a dropped future).
    assert!(!pair.events.is_empty());
    pair.events.clear();
    let next = pair.send("next");
    pair.run_until(|p| p.cli.sim().turns_completed() == 2);
    pair.run();
    assert_eq!(text(&pair.collect(pair.turn_of(next))), "echo: next");
}

#[test]
fn a_result_of_an_unknown_shape_still_ends_its_turn() {
    let mut pair = Pair::new(Behaviour::default());
    started(&mut pair);
    let odd = pair.send("odd #nousage");
    let after = pair.send("after");
    pair.run();
    let events = pair.events.clone();
    let turn = pair.collect(pair.turn_of(odd));
    assert_eq!(
        turn.unread_result_fields,
        ["usage"],
        "the unread field is named"
    );
    assert_eq!(turn.text(), Some("echo: odd #nousage"), "the rest is read");
    assert!(turn.result_line.is_result(), "the raw line is kept");
    pair.events = events;
    assert_eq!(text(&pair.collect(pair.turn_of(after))), "echo: after");
}

// ----- deadlines run from the call --------------------------------------------

#[test]
fn a_deadline_counts_the_time_before_the_host_saw_the_call() {
    let mut pair = Pair::new(Behaviour::default().with_policy("set_model", Policy::Never));
    started(&mut pair);
    let issued_at = pair.now;
    pair.advance_by(Duration::from_secs(5));
    let late = pair.command(|waiter| Command::Call {
        request: Box::new(ControlRequest::set_model(None)),
        timeout: Some(Duration::from_secs(2)),
        issued_at,
        waiter,
    });
    assert!(matches!(
        pair.outcome(late),
        Some(Err(Error::TimedOut { after, .. })) if *after == Duration::from_secs(2)
    ));
    let issued_at = pair.now;
    pair.advance_by(Duration::from_secs(1));
    let soon = pair.command(|waiter| Command::Call {
        request: Box::new(ControlRequest::set_model(None)),
        timeout: Some(Duration::from_secs(2)),
        issued_at,
        waiter,
    });
    pair.run();
    let due = pair.host.poll_timeout().unwrap();
    assert_eq!(due.reason, TimeoutReason::Request);
    assert_eq!(due.at, issued_at + Duration::from_secs(2));
    pair.run_until(|p| p.outcome(soon).is_some());
    assert!(matches!(
        pair.outcome(soon),
        Some(Err(Error::TimedOut { .. }))
    ));
}

#[test]
fn a_cli_that_stops_reading_stdin_bounds_what_is_queued_for_it() {
    let limits = limits(|l| l.max_unwritten_bytes = 32 * 1024);
    let mut pair = Pair::with(
        Behaviour::default().with_stop_reading_after(1),
        limits,
        Capabilities::default(),
        Transport::Process,
    );
    pair.run();
    // The CLI keeps asking things nobody answers (unknown subtypes are
    // refused by the core; the refusals pile up for a reader that left).
    for _ in 0..2000 {
        pair.cli
            .sim_mut()
            .request(json!({"subtype": "no_such_thing", "pad": "x".repeat(200)}));
    }
    pair.run();
    assert!(!pair.host.wants_stdout(), "reading stopped");
    assert!(
        pair.max_unwritten <= 32 * 1024 + 1024,
        "{}",
        pair.max_unwritten
    );
    let refused = pair.send("anyone?");
    match pair.outcome(refused) {
        Some(Err(
            error @ Error::Backlog {
                stall: Stall::StdinBacklog { budget, .. },
                ..
            },
        )) => {
            assert_eq!(*budget, 32 * 1024);
            backlog_error_says_what_happened(error);
        }
        other => panic!("expected a backlog error, got {other:?}"),
    }
    // Closing still works: the CLI does not read, so it is signalled.
    pair.command(|_| Command::Close);
    pair.run_until(Pair::is_ended);
    assert_eq!(pair.signals, vec![Signal::Terminate]);
    assert_eq!(pair.ended[0].report().unwrap().signal, Some(15));
}

/// A backlog error names what was not sent, the unwritten bytes, the
/// budget's figure and name, both causes (a CLI that does not read, a
/// caller sending faster than the pipe drains) and how to raise it.
fn backlog_error_says_what_happened(error: &Error) {
    let text = error.to_string();
    for part in [
        "`user message` was not sent",
        "budget of 32768 bytes",
        "`Limits::max_unwritten_bytes`",
        "the CLI is not reading its stdin",
        "sent faster than the pipe drains",
        "raise `max_unwritten_bytes` with the builder's `limits`",
    ] {
        assert!(text.contains(part), "{part:?} is missing from: {text}");
    }
}

// ----- handlers -----------------------------------------------------------------

#[test]
fn handler_concurrency_is_bounded_and_waiting_requests_count_in_bytes() {
    let limits = limits(|l| l.max_concurrent_handlers = 2);
    let mut pair = Pair::with(
        Behaviour::default(),
        limits,
        permission(),
        Transport::Process,
    );
    started(&mut pair);
    pair.jobs = Jobs::Hold;
    let ids: Vec<String> = (0..5)
        .map(|i| {
            pair.cli
                .sim_mut()
                .request(json!({"subtype": "can_use_tool", "tool_name": "Bash",
                "input": {"command": format!("echo {i}")}, "tool_use_id": format!("t{i}")}))
        })
        .collect();
    pair.run();
    assert_eq!(pair.started, 2);
    assert_eq!(pair.host.running_jobs(), 2);
    assert!(pair.host.queued_bytes() > 0, "three wait, counted in bytes");
    while !pair.held.is_empty() {
        pair.complete_held(0, Ok(Outcome::Permission(PermissionResult::allow())));
        pair.run();
    }
    assert_eq!(pair.started, 5);
    for id in &ids {
        assert_eq!(pair.cli.sim().answers_to(id), 1, "{id}");
    }
}

#[test]
fn a_cancelled_request_aborts_its_handler_and_its_answer_is_dropped() {
    let mut pair = Pair::with(
        Behaviour::default(),
        Limits::default(),
        permission(),
        Transport::Process,
    );
    started(&mut pair);
    pair.jobs = Jobs::Hold;
    let id = pair
        .cli
        .sim_mut()
        .request(json!({"subtype": "can_use_tool", "tool_name": "Bash",
        "input": {}, "tool_use_id": "t"}));
    pair.run();
    let job_id = pair.held[0].id;
    let job = pair.held.remove(0);
    pair.cli.sim_mut().cancel(&id);
    pair.run();
    assert_eq!(pair.aborted, vec![job_id]);
    pair.host
        .handle_completion(job.finish(Ok(Outcome::Permission(PermissionResult::allow()))));
    pair.run();
    assert_eq!(
        pair.cli.sim().answers_to(&id),
        0,
        "a withdrawn request is never answered"
    );
}

#[test]
fn a_failing_handler_is_reported_and_the_cli_gets_an_error_answer() {
    let mut capabilities = Capabilities::default();
    capabilities
        .hooks
        .register(HookEvent::Stop, None, None, None);
    let mut pair = Pair::with(
        Behaviour::default(),
        Limits::default(),
        capabilities,
        Transport::Process,
    );
    started(&mut pair);
    pair.jobs = Jobs::Hold;
    let id =
        pair.cli
            .sim_mut()
            .request(json!({"subtype": "hook_callback", "callback_id": "hook_0",
        "input": {"hook_event_name": "Stop", "session_id": "s", "transcript_path": "t",
                  "cwd": "/", "stop_hook_active": false}}));
    pair.run();
    pair.complete_held(0, Err("boom".into()));
    pair.run();
    assert!(pair.events.iter().any(|d| matches!(&d.event,
        Event::HandlerFailed { message, .. } if message == "boom")));
    let answer = pair.cli.sim().answer(&id).unwrap();
    assert!(answer.to_string().contains("boom"), "{answer}");
}

// ----- closing ------------------------------------------------------------------

#[test]
fn closing_a_cli_that_ignores_sigterm_escalates_to_sigkill() {
    let mut pair = Pair::new(Behaviour::default().with_ignore_sigterm().with_linger());
    started(&mut pair);
    pair.command(|_| Command::Close);
    pair.run();
    assert_eq!(pair.host.state(), State::Closing(CloseStage::Grace));
    pair.run_until(|p| p.host.state() == State::Closing(CloseStage::Terminated));
    assert_eq!(pair.signals, vec![Signal::Terminate]);
    pair.run_until(Pair::is_ended);
    assert_eq!(pair.signals, vec![Signal::Terminate, Signal::Kill]);
    assert_eq!(pair.ended[0].report().unwrap().signal, Some(9));
}

#[test]
fn pipes_held_open_after_the_exit_are_given_up() {
    let mut pair = Pair::new(Behaviour::default());
    started(&mut pair);
    // A grandchild keeps stdout open: the exit comes, stdout never ends.
    pair.cli.sim_mut().exit(0, pair.now);
    pair.host.handle_exit(
        Some(claude_proto_host::ProcessExit::new(Some(0), None)),
        pair.now,
    );
    assert_eq!(pair.host.state(), State::Draining);
    assert_eq!(
        pair.host.poll_timeout().map(|t| t.reason),
        Some(TimeoutReason::Drain)
    );
    pair.advance_by(Limits::default().drain_after_exit);
    pair.step();
    assert_eq!(pair.stopped_reading, 1);
    assert!(pair.is_ended());
}

#[test]
fn a_stream_peer_that_never_ends_is_given_up_after_the_grace() {
    let mut pair = Pair::with(
        Behaviour::default().with_linger(),
        Limits::default(),
        Capabilities::default(),
        Transport::Stream,
    );
    started(&mut pair);
    pair.command(|_| Command::Close);
    pair.run_until(Pair::is_ended);
    assert_eq!(pair.stopped_reading, 1);
    assert!(pair.signals.is_empty(), "there is no process to signal");
    assert_eq!(pair.ended[0].reason(), EndReason::Closed);
    assert!(pair.ended[0].report().is_none());
}

#[test]
fn everything_waiting_settles_with_the_exit() {
    let mut pair = Pair::with(
        Behaviour::default().with_policy("mcp_status", Policy::Never),
        Limits::default(),
        permission(),
        Transport::Process,
    );
    started(&mut pair);
    pair.jobs = Jobs::Hold;
    let call = pair.call(ControlRequest::mcp_status(), None);
    pair.cli.sim_mut().request(
        json!({"subtype": "can_use_tool", "tool_name": "Bash", "input": {}, "tool_use_id": "t"}),
    );
    pair.run();
    pair.cli.sim_mut().emit_stderr(b"simulated crash\n");
    pair.cli.sim_mut().exit(3, pair.now);
    pair.run();
    assert!(pair.is_ended());
    let Some(Err(Error::Ended(ended))) = pair.outcome(call) else {
        panic!("expected the end, got {:?}", pair.outcome(call))
    };
    assert_eq!(ended.report().unwrap().code, Some(3));
    assert!(ended.to_string().contains("simulated crash"), "{ended}");
    assert_eq!(pair.aborted.len(), 1, "the running handler is aborted");
    assert!(pair.held.is_empty());
}

// ----- limits -------------------------------------------------------------------

#[test]
fn limits_that_cannot_work_are_refused_up_front() {
    for (limits, name) in [
        (limits(|l| l.read_ahead_bytes = 0), "read_ahead_bytes"),
        (
            limits(|l| l.max_unwritten_bytes = usize::MAX),
            "max_unwritten_bytes",
        ),
        (limits(|l| l.term_grace = Duration::MAX), "term_grace"),
        (
            limits(|l| l.max_concurrent_handlers = 0),
            "max_concurrent_handlers",
        ),
    ] {
        let error = claude_proto_host::Host::<u32>::new(
            claude_proto::Config::default(),
            limits,
            Default::default(),
            Default::default(),
            Transport::Process,
            std::time::Instant::now(),
        )
        .expect_err(name);
        assert_eq!(error.name, name);
    }
}

#[test]
fn a_cli_that_neither_reads_nor_is_read_is_closed_after_the_stall_timeout() {
    let limits = limits(|l| {
        l.max_unwritten_bytes = 16 * 1024;
        l.stdin_stall_timeout = Duration::from_secs(10);
    });
    let mut pair = Pair::with(
        Behaviour::default().with_stop_reading_after(1),
        limits,
        Capabilities::default(),
        Transport::Process,
    );
    pair.run();
    for _ in 0..2000 {
        pair.cli
            .sim_mut()
            .request(json!({"subtype": "no_such_thing", "pad": "x".repeat(200)}));
    }
    pair.run();
    let due = pair.host.poll_timeout().expect("a stall deadline");
    assert_eq!(due.reason, TimeoutReason::StdinStall);
    assert_eq!(due.at, pair.now + Duration::from_secs(10));
    let call = pair.call(ControlRequest::interrupt(), Some(Duration::from_secs(600)));
    pair.run_until(Pair::is_ended);
    assert_eq!(pair.ended[0].reason(), EndReason::StdinStalled);
    assert!(
        pair.ended[0]
            .to_string()
            .contains("stopped reading its stdin")
    );
    assert_eq!(
        pair.signals,
        vec![Signal::Terminate],
        "closed, then signalled"
    );
    assert!(matches!(pair.outcome(call), Some(Err(_))));
}

// ----- in-process MCP tools changed while the session runs ---------------------

fn calc(tools: &[&str]) -> claude_proto::dispatch::McpServerSpec {
    let mut spec = claude_proto::dispatch::McpServerSpec::new("calc", "1.0.0");
    for name in tools {
        spec.tools.push(claude_proto::dispatch::McpToolSpec::new(
            *name,
            "a tool",
            json!({"type": "object"}),
        ));
    }
    spec
}

fn tools_call(pair: &mut Pair, tool: &str) -> String {
    pair.cli.sim_mut().request(json!({"subtype": "mcp_message", "server_name": "calc", "message":
        {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": tool, "arguments": {}}}}))
}

#[test]
fn tools_changed_while_running_are_routed_by_name_and_the_cli_is_told() {
    let mut capabilities = Capabilities::default();
    capabilities.mcp_servers.push(calc(&["add"]));
    let mut pair = Pair::with(
        Behaviour::default(),
        Limits::default(),
        capabilities,
        Transport::Process,
    );
    started(&mut pair);
    pair.jobs = Jobs::Hold;

    // Not yet there: answered by the host, no job.
    let early = tools_call(&mut pair, "mul");
    pair.run();
    assert_eq!(pair.started, 0);
    let answer = pair.cli.sim().answer(&early).expect("answered");
    assert!(answer.to_string().contains("Unknown tool: mul"), "{answer}");

    // Added: the CLI gets `tools/list_changed` and the new list.
    let now = pair.now;
    let update = pair.command(|waiter| Command::UpdateMcpServer {
        spec: Box::new(calc(&["add", "mul"])),
        issued_at: now,
        waiter,
    });
    pair.run();
    assert!(matches!(
        pair.outcome(update),
        Some(Ok(CallReply::Answered(_)))
    ));
    let told = pair.cli.sim().control_requests_received("mcp_message");
    assert_eq!(told.len(), 1);
    assert_eq!(told[0]["request"]["server_name"], "calc");
    assert_eq!(
        told[0]["request"]["message"]["method"],
        "notifications/tools/list_changed"
    );
    assert!(
        told[0]["request"]["message"].get("id").is_none(),
        "a notification has no id"
    );

    let list = pair
        .cli
        .sim_mut()
        .request(json!({"subtype": "mcp_message", "server_name": "calc",
        "message": {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}}));
    pair.run();
    let listed =
        &pair.cli.sim().answer(&list).unwrap()["response"]["mcp_response"]["result"]["tools"];
    let names: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["add", "mul"]);

    let call = tools_call(&mut pair, "mul");
    pair.run();
    assert_eq!(pair.held.len(), 1);
    let claude_proto_host::JobKind::Tool { server, tool, .. } = &pair.held[0].kind else {
        panic!("expected a tool job, got {:?}", pair.held[0].kind)
    };
    assert_eq!((server.as_str(), tool.as_str()), ("calc", "mul"));
    pair.complete_held(
        0,
        Ok(Outcome::Tool(claude_proto::dispatch::ToolOutput::text("6"))),
    );
    pair.run();
    assert!(
        pair.cli
            .sim()
            .answer(&call)
            .unwrap()
            .to_string()
            .contains("\"6\"")
    );

    // Removed: calls are refused again.
    let now = pair.now;
    pair.command(|waiter| Command::UpdateMcpServer {
        spec: Box::new(calc(&["add"])),
        issued_at: now,
        waiter,
    });
    pair.run();
    let late = tools_call(&mut pair, "mul");
    pair.run();
    assert!(pair.held.is_empty());
    assert!(
        pair.cli
            .sim()
            .answer(&late)
            .unwrap()
            .to_string()
            .contains("Unknown tool: mul")
    );
    assert_eq!(
        pair.cli
            .sim()
            .control_requests_received("mcp_message")
            .len(),
        2
    );
}

#[test]
fn changing_the_tools_of_an_unknown_server_fails_and_tells_the_cli_nothing() {
    let mut pair = Pair::new(Behaviour::default());
    started(&mut pair);
    let now = pair.now;
    let update = pair.command(|waiter| Command::UpdateMcpServer {
        spec: Box::new(calc(&["add"])),
        issued_at: now,
        waiter,
    });
    pair.run();
    let Some(Err(Error::UnknownMcpServer { name })) = pair.outcome(update) else {
        panic!("expected UnknownMcpServer, got {:?}", pair.outcome(update))
    };
    assert_eq!(name, "calc");
    assert!(
        pair.cli
            .sim()
            .control_requests_received("mcp_message")
            .is_empty()
    );
}

// ----- hooks meant to fail closed ------------------------------------------------

fn blocking_hook() -> Capabilities {
    let mut capabilities = Capabilities::default();
    capabilities.hooks.register(
        HookEvent::PreToolUse,
        Some("Bash".into()),
        None,
        Some(claude_proto::model::hooks::HookFailureMode::Block),
    );
    capabilities
}

#[test]
fn blocking_hooks_hold_prompts_until_the_cli_confirms_them() {
    let script =
        Behaviour::default().with_policy("initialize", Policy::Delay(Duration::from_secs(1)));
    let mut pair = Pair::with(
        script,
        Limits::default(),
        blocking_hook(),
        Transport::Process,
    );
    let sent = pair.send("hello");
    pair.run();
    assert!(
        pair.initialized.is_empty(),
        "initialize is still unanswered"
    );
    assert!(
        pair.cli.sim().user_messages().is_empty(),
        "the prompt was held"
    );
    assert_eq!(
        pair.cli.sim().control_requests_received("initialize").len(),
        1,
        "initialize went out"
    );
    pair.advance_by(Duration::from_secs(1));
    pair.run();
    assert!(matches!(pair.initialized.as_slice(), [Ok(_)]));
    assert_eq!(pair.cli.sim().user_messages().len(), 1);
    let turn = pair.collect(pair.turn_of(sent));
    assert_eq!(text(&turn), "echo: hello");
}

#[test]
fn blocking_hooks_the_cli_cannot_honour_refuse_the_session() {
    for (field, value, says) in [
        (
            "hook_on_failure_supported",
            serde_json::Value::Null,
            "does not honour `on_failure`",
        ),
        (
            "hook_on_failure_supported",
            json!(false),
            "does not honour `on_failure`",
        ),
        ("hooks_applied", json!(false), "did not register the hooks"),
    ] {
        let script = Behaviour::default().with_initialize_field(field, value);
        let mut pair = Pair::with(
            script,
            Limits::default(),
            blocking_hook(),
            Transport::Process,
        );
        let sent = pair.send("hello");
        pair.run_until(Pair::is_ended);
        let [Err(Error::HooksNotHonoured { reason })] = pair.initialized.as_slice() else {
            panic!(
                "{field}: expected HooksNotHonoured, got {:?}",
                pair.initialized
            )
        };
        assert!(reason.contains(says), "{field}: {reason}");
        assert!(
            pair.cli.sim().user_messages().is_empty(),
            "{field}: a prompt went out"
        );
        assert!(matches!(
            pair.outcome(sent),
            Some(Ok(CallReply::Sent { .. }))
        ));
        assert_eq!(pair.ended[0].reason(), EndReason::HooksNotHonoured);
    }
}

#[test]
fn hooks_that_continue_on_failure_hold_nothing() {
    let mut capabilities = Capabilities::default();
    capabilities
        .hooks
        .register(HookEvent::PreToolUse, None, None, None);
    let script = Behaviour::default()
        .with_policy("initialize", Policy::Delay(Duration::from_secs(1)))
        .with_initialize_field("hook_on_failure_supported", serde_json::Value::Null);
    let mut pair = Pair::with(script, Limits::default(), capabilities, Transport::Process);
    pair.send("hello");
    pair.run();
    assert!(pair.initialized.is_empty());
    assert_eq!(
        pair.cli.sim().user_messages().len(),
        1,
        "nothing to hold for"
    );
}

// ----- the CLI's version --------------------------------------------------------

fn cli_versions(pair: &Pair) -> Vec<claude_proto::version::VersionCheck> {
    pair.events
        .iter()
        .filter_map(|d| match &d.event {
            Event::CliVersion(check) => Some(check.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn an_old_or_silent_cli_gets_one_version_warning() {
    use claude_proto::version::VersionCheck;
    for (value, expect_older) in [(json!("2.0.50"), true), (serde_json::Value::Null, false)] {
        let script = Behaviour::default().with_initialize_field("claude_code_version", value);
        let mut pair = Pair::new(script);
        started(&mut pair);
        let sent = pair.send("hello");
        pair.run();
        let checks = cli_versions(&pair);
        assert_eq!(checks.len(), 1, "{checks:?}");
        match &checks[0] {
            VersionCheck::Older(version) => {
                assert!(expect_older);
                assert_eq!(version.to_string(), "2.0.50");
            }
            VersionCheck::Unreported(None) => assert!(!expect_older),
            other => panic!("unexpected {other:?}"),
        }
        assert!(checks[0].warning().is_some());
        // The session runs.
        let turn = pair.collect(pair.turn_of(sent));
        assert_eq!(text(&turn), "echo: hello");
    }
}

#[test]
fn the_tested_cli_gets_no_warning_and_the_check_can_be_off() {
    let mut pair = Pair::new(Behaviour::default());
    started(&mut pair);
    pair.send("hello");
    pair.run();
    assert!(cli_versions(&pair).is_empty());

    let script = Behaviour::default().with_initialize_field("claude_code_version", json!("1.0.1"));
    let mut pair = Pair::with(
        script,
        limits(|l| l.check_cli_version = false),
        Capabilities::default(),
        Transport::Process,
    );
    started(&mut pair);
    assert!(cli_versions(&pair).is_empty());
}

#[test]
fn an_incompatible_cli_is_refused_with_what_to_install() {
    let script =
        Behaviour::default().with_initialize_field("claude_code_version", json!("1.0.128"));
    let mut pair = Pair::new(script);
    pair.run_until(Pair::is_ended);
    let [Err(Error::IncompatibleCli { reason })] = pair.initialized.as_slice() else {
        panic!("expected IncompatibleCli, got {:?}", pair.initialized)
    };
    assert!(reason.contains("1.0.128"), "{reason}");
    assert!(
        reason.contains(claude_proto::version::INSTALL_TESTED_CLI),
        "{reason}"
    );
    assert_eq!(pair.ended[0].reason(), EndReason::IncompatibleCli);
}

// ----- elicitations and user dialogs ---------------------------------------------

#[test]
fn elicitations_and_dialogs_go_to_their_handlers_and_kinds_are_advertised() {
    use claude_proto::model::incoming::{ElicitationResult, UserDialogResult};
    let mut capabilities = Capabilities::default();
    capabilities.elicitation = true;
    capabilities.user_dialog_kinds = Some(vec!["refusal_fallback_prompt".into()]);
    let mut pair = Pair::with(
        Behaviour::default(),
        Limits::default(),
        capabilities,
        Transport::Process,
    );
    started(&mut pair);
    let sent = pair.cli.sim().initialize_request().unwrap();
    assert_eq!(
        sent["supportedDialogKinds"],
        json!(["refusal_fallback_prompt"])
    );
    pair.jobs = Jobs::Hold;
    let asked = pair
        .cli
        .sim_mut()
        .request(json!({"subtype": "elicitation", "mcp_server_name": "gh",
        "message": "Which repo?", "mode": "form", "requested_schema": {"type": "object"}}));
    let shown = pair
        .cli
        .sim_mut()
        .request(json!({"subtype": "request_user_dialog",
        "dialog_kind": "refusal_fallback_prompt", "payload": {"x": 1}}));
    pair.run();
    assert_eq!(pair.held.len(), 2);
    let claude_proto_host::JobKind::Elicitation(request) = &pair.held[0].kind else {
        panic!("{:?}", pair.held[0].kind)
    };
    assert_eq!(request.message, "Which repo?");
    pair.complete_held(
        0,
        Ok(Outcome::Elicitation(ElicitationResult::accept(
            json!({"repo": "a/b"}),
        ))),
    );
    pair.complete_held(
        0,
        Ok(Outcome::UserDialog(UserDialogResult::completed(json!(
            "retry"
        )))),
    );
    pair.run();
    let answer = &pair.cli.sim().answer(&asked).unwrap()["response"];
    assert_eq!(answer["action"], "accept");
    assert_eq!(answer["content"], json!({"repo": "a/b"}));
    let answer = &pair.cli.sim().answer(&shown).unwrap()["response"];
    assert_eq!(answer, &json!({"behavior": "completed", "result": "retry"}));
}

#[test]
fn without_handlers_elicitations_are_declined_and_no_dialog_kind_is_advertised() {
    let mut pair = Pair::new(Behaviour::default());
    started(&mut pair);
    let sent = pair.cli.sim().initialize_request().unwrap();
    assert!(sent.get("supportedDialogKinds").is_none(), "{sent}");
    let asked = pair
        .cli
        .sim_mut()
        .request(json!({"subtype": "elicitation", "mcp_server_name": "gh",
        "message": "?"}));
    let shown = pair
        .cli
        .sim_mut()
        .request(json!({"subtype": "request_user_dialog",
        "dialog_kind": "k", "payload": {}}));
    pair.run();
    assert_eq!(pair.started, 0);
    assert_eq!(
        pair.cli.sim().answer(&asked).unwrap()["response"]["action"],
        "decline"
    );
    assert_eq!(
        pair.cli.sim().answer(&shown).unwrap()["response"]["behavior"],
        "cancelled"
    );
}

#[test]
fn a_failing_elicitation_handler_declines() {
    let mut capabilities = Capabilities::default();
    capabilities.elicitation = true;
    let mut pair = Pair::with(
        Behaviour::default(),
        Limits::default(),
        capabilities,
        Transport::Process,
    );
    started(&mut pair);
    pair.jobs = Jobs::Hold;
    let asked = pair
        .cli
        .sim_mut()
        .request(json!({"subtype": "elicitation", "mcp_server_name": "gh",
        "message": "?"}));
    pair.run();
    pair.complete_held(0, Err("no one is here".into()));
    pair.run();
    assert_eq!(
        pair.cli.sim().answer(&asked).unwrap()["response"]["action"],
        "decline"
    );
}

// ----- fields the CLI reads only at launch ----------------------------------------

fn with_launch_field(script: Behaviour) -> Pair {
    use claude_proto::model::initialize::InitializeRequest;
    use claude_proto::model::mcp::McpServerConfig;
    Pair::with_initialize(
        script,
        Limits::default(),
        Capabilities::default(),
        Transport::Process,
        InitializeRequest::new().with_mcp_server("ext", McpServerConfig::stdio("x", Vec::new())),
    )
}

#[test]
fn launch_fields_hold_prompts_until_the_cli_answers() {
    let script = Behaviour::default()
        .with_policy("initialize", Policy::Delay(Duration::from_secs(1)))
        .with_initialize_field("mcp_servers_applied", json!(true));
    let mut pair = with_launch_field(script);
    let sent = pair.send("hello");
    pair.run();
    assert!(
        pair.cli.sim().user_messages().is_empty(),
        "the prompt was held"
    );
    pair.advance_by(Duration::from_secs(1));
    pair.run();
    assert!(matches!(pair.initialized.as_slice(), [Ok(_)]));
    let turn = pair.collect(pair.turn_of(sent));
    assert_eq!(text(&turn), "echo: hello");
}

#[test]
fn launch_fields_the_cli_did_not_apply_refuse_the_session() {
    let script = Behaviour::default().with_initialize_field("mcp_servers_applied", json!(false));
    let mut pair = with_launch_field(script);
    pair.send("hello");
    pair.run_until(Pair::is_ended);
    let [Err(Error::LaunchFieldsNotApplied { fields })] = pair.initialized.as_slice() else {
        panic!(
            "expected LaunchFieldsNotApplied, got {:?}",
            pair.initialized
        )
    };
    assert_eq!(fields, &["mcpServers"]);
    assert!(
        pair.cli.sim().user_messages().is_empty(),
        "a prompt went out"
    );
    assert_eq!(pair.ended[0].reason(), EndReason::LaunchFieldsNotApplied);
}

// ----- what the hold must not hold ------------------------------------------------

#[test]
fn a_big_prompt_held_for_confirmation_does_not_stop_reading() {
    let script =
        Behaviour::default().with_policy("initialize", Policy::Delay(Duration::from_secs(1)));
    let mut pair = Pair::with(
        script,
        Limits::default(),
        blocking_hook(),
        Transport::Process,
    );
    // Under the unwritten budget, but more than the CLI's pipe: held, not
    // queued for stdin, so the stdin backlog does not pause reading.
    let big = "x".repeat(3 * 1024 * 1024);
    let sent = pair.send(&big);
    pair.run();
    assert!(matches!(
        pair.outcome(sent),
        Some(Ok(CallReply::Sent { .. }))
    ));
    assert!(pair.host.wants_stdout());
    assert_eq!(pair.host.stall(), None);
    pair.advance_by(Duration::from_secs(1));
    pair.run();
    assert!(matches!(pair.initialized.as_slice(), [Ok(_)]));
    let turn = pair.collect(pair.turn_of(sent));
    assert!(text(&turn).starts_with("echo: xxx"));
    // Over the budget, a held prompt is refused as any other.
    let script = Behaviour::default().with_policy("initialize", Policy::Never);
    let mut pair = Pair::with(
        script,
        Limits::default(),
        blocking_hook(),
        Transport::Process,
    );
    let too_big = pair.send(&"x".repeat(5 * 1024 * 1024));
    assert!(matches!(
        pair.outcome(too_big),
        Some(Err(Error::Backlog { .. }))
    ));
}

#[test]
fn the_clis_requests_are_answered_while_prompts_are_held() {
    let mut capabilities = blocking_hook();
    capabilities.mcp_servers.push(calc(&["add"]));
    let script = Behaviour::default().with_policy("initialize", Policy::Never);
    let mut pair = Pair::with(script, Limits::default(), capabilities, Transport::Process);
    pair.send("hello");
    pair.run();
    // An in-process MCP server's handshake comes before the CLI answers
    // `initialize`: it must not wait behind the hold.
    let asked = pair
        .cli
        .sim_mut()
        .request(json!({"subtype": "mcp_message", "server_name": "calc",
        "message": {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}}));
    pair.run();
    assert!(pair.cli.sim().answer(&asked).is_some());
    assert!(
        pair.cli.sim().user_messages().is_empty(),
        "the prompt is still held"
    );
}

#[test]
fn end_input_while_held_waits_for_the_answer_and_a_failed_answer_is_not_a_refusal() {
    // Confirmed: the prompt goes out, then stdin closes.
    let script =
        Behaviour::default().with_policy("initialize", Policy::Delay(Duration::from_secs(1)));
    let mut pair = Pair::with(
        script,
        Limits::default(),
        blocking_hook(),
        Transport::Process,
    );
    let sent = pair.send("hello");
    pair.command(|_| Command::EndInput);
    pair.run();
    assert!(pair.cli.sim().user_messages().is_empty());
    pair.advance_by(Duration::from_secs(1));
    pair.run_until(Pair::is_ended);
    assert_eq!(pair.cli.sim().user_messages().len(), 1);
    let turn = pair.collect(pair.turn_of(sent));
    assert_eq!(text(&turn), "echo: hello");
    // Never answered: the initialize error says why, the prompt never goes
    // out, and the session does not claim a refusal.
    let script = Behaviour::default().with_policy("initialize", Policy::Never);
    let mut pair = Pair::with(
        script,
        Limits::default(),
        blocking_hook(),
        Transport::Process,
    );
    pair.send("hello");
    pair.command(|_| Command::EndInput);
    pair.run_until(Pair::is_ended);
    assert!(matches!(
        pair.initialized.as_slice(),
        [Err(Error::TimedOut { .. })]
    ));
    assert!(pair.cli.sim().user_messages().is_empty());
    assert_ne!(pair.ended[0].reason(), EndReason::HooksNotHonoured);
}

// ----- in-process MCP servers that speak MCP themselves -------------------------

fn to_weather(pair: &mut Pair, message: serde_json::Value) -> String {
    pair.cli
        .sim_mut()
        .request(json!({"subtype": "mcp_message", "server_name": "weather", "message": message}))
}

/// Every message for an endpoint server becomes a job carrying it as the
/// CLI sent it, whatever it is (even JSON-RPC the host's own server would
/// refuse); its answer goes back as the `mcp_response`, a notification is
/// acknowledged, and an answer that is not JSON-RPC fails the request with
/// a JSON-RPC error instead of leaving the CLI waiting.
#[test]
fn messages_for_an_endpoint_server_reach_it_unchanged_and_its_answers_go_back() {
    let mut capabilities = Capabilities::default();
    capabilities.mcp_endpoints.push("weather".to_owned());
    let mut pair = Pair::with(
        Behaviour::default(),
        Limits::default(),
        capabilities,
        Transport::Process,
    );
    started(&mut pair);
    let init = pair
        .cli
        .sim()
        .initialize_request()
        .expect("initialize sent");
    assert_eq!(init["sdkMcpServers"], json!(["weather"]));
    pair.jobs = Jobs::Hold;

    let sent = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}),
        json!({"jsonrpc": "2.0", "id": 9.5, "method": "odd", "extra": true}),
        json!({"jsonrpc": "2.0", "id": "s", "method": "tools/call"}),
    ];
    let requests: Vec<String> = sent
        .iter()
        .map(|m| to_weather(&mut pair, m.clone()))
        .collect();
    pair.run();
    assert_eq!(pair.held.len(), 4);
    for (job, message) in pair.held.iter().zip(&sent) {
        let claude_proto_host::JobKind::McpMessage {
            server,
            message: got,
        } = &job.kind
        else {
            panic!("expected an MCP message job, got {:?}", job.kind)
        };
        assert_eq!(server, "weather");
        assert_eq!(got, message);
    }

    let listed = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": []}});
    pair.complete_held(0, Ok(Outcome::Mcp(Some(listed.clone()))));
    pair.complete_held(0, Ok(Outcome::Mcp(None)));
    pair.complete_held(0, Ok(Outcome::Mcp(Some(json!("not JSON-RPC")))));
    pair.complete_held(0, Err("the server went away".to_owned()));
    pair.run();
    let answer = |pair: &Pair, at: usize| {
        pair.cli
            .sim()
            .answer(&requests[at])
            .expect("answered")
            .clone()
    };
    assert_eq!(answer(&pair, 0)["response"]["mcp_response"], listed);
    assert_eq!(
        answer(&pair, 1)["response"]["mcp_response"]["result"],
        json!({})
    );
    let refused = answer(&pair, 2).to_string();
    assert!(refused.contains("not a JSON-RPC response"), "{refused}");
    let failed = &answer(&pair, 3)["response"]["mcp_response"];
    assert_eq!(failed["id"], "s", "{failed}");
    assert!(failed.to_string().contains("went away"), "{failed}");
}

/// With every handler slot held by a call to an endpoint server, a
/// notification for it (a cancellation) is still handed over at once;
/// one that came after a call still waiting for a slot goes after it.
#[test]
fn endpoint_notifications_do_not_wait_for_a_handler_slot() {
    let mut capabilities = Capabilities::default();
    capabilities.mcp_endpoints.push("weather".to_owned());
    let mut limits = Limits::default();
    limits.max_concurrent_handlers = 1;
    let mut pair = Pair::with(
        Behaviour::default(),
        limits,
        capabilities,
        Transport::Process,
    );
    started(&mut pair);
    pair.jobs = Jobs::Hold;
    let call = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "slow", "arguments": {}}})
    };
    let cancel = |id: u64| {
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": id}})
    };
    to_weather(&mut pair, call(1));
    to_weather(&mut pair, cancel(1));
    pair.run();
    assert_eq!(
        pair.held.len(),
        2,
        "the cancellation did not wait for the slot"
    );

    // A second call waits for the slot; the cancellation that follows it
    // waits behind it, and starts with it.
    to_weather(&mut pair, call(2));
    to_weather(&mut pair, cancel(2));
    pair.run();
    assert_eq!(pair.held.len(), 2);
    pair.complete_held(1, Ok(Outcome::Mcp(None)));
    pair.complete_held(0, Ok(Outcome::Mcp(None)));
    pair.run();
    let messages: Vec<serde_json::Value> = pair
        .held
        .iter()
        .map(|job| match &job.kind {
            claude_proto_host::JobKind::McpMessage { message, .. } => message.clone(),
            other => panic!("expected an MCP message, got {other:?}"),
        })
        .collect();
    assert_eq!(messages, [call(2), cancel(2)]);
}
