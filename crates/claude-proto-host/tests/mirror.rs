//! The transcript mirror on a virtual clock: batching at the turn's end,
//! order, retries, deadlines, the memory bound, flushes and the session's
//! end, against a store the test answers by hand.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers fail loudly by design

mod support;

use std::time::Duration;

use claude_proto::model::MessageType;
use claude_proto::model::control::ControlRequest;
use claude_proto::transcript::SessionKey;
use claude_proto_host::{
    CallReply, Capabilities, Command, Event, Limits, MirrorConfig, MirrorFailure, State,
    TimeoutReason, Transport,
};
use claude_proto_testkit::Behaviour;
use serde_json::{Value, json};
use support::{Pair, Served};

const PROJECTS: &str = "/cfg/projects";

fn mirrored(change: impl FnOnce(&mut MirrorConfig)) -> Pair {
    let mut pair = Pair::with(
        Behaviour::default(),
        Limits::default(),
        Capabilities::default(),
        Transport::Process,
    );
    let mut config = MirrorConfig::new(PROJECTS);
    change(&mut config);
    pair.host.set_mirror(config);
    pair.run();
    assert_eq!(pair.host.state(), State::Running);
    pair
}

fn frame(session: &str, uuids: &[&str]) -> Value {
    let entries: Vec<Value> = uuids
        .iter()
        .map(|u| json!({"type": "user", "uuid": u, "message": {"content": u}}))
        .collect();
    json!({
        "type": "transcript_mirror",
        "filePath": format!("{PROJECTS}/-work/{session}.jsonl"),
        "entries": entries,
    })
}

fn uuids(entries: &[claude_proto::transcript::Entry]) -> Vec<String> {
    entries
        .iter()
        .map(|e| {
            let v: Value = serde_json::from_str(e.get()).unwrap();
            v["uuid"].as_str().unwrap().to_owned()
        })
        .collect()
}

fn failures(pair: &Pair) -> Vec<MirrorFailure> {
    pair.events
        .iter()
        .filter_map(|d| match &d.event {
            Event::MirrorFailed(f) => Some(f.clone()),
            _ => None,
        })
        .collect()
}

fn mirror_lines_in_events(pair: &Pair) -> usize {
    pair.events
        .iter()
        .filter_map(|d| d.event.as_message())
        .filter(|m| *m.message_type() == MessageType::TranscriptMirror)
        .count()
}

#[test]
fn a_turns_lines_go_to_the_store_in_order_at_its_result_and_not_to_the_user() {
    let mut pair = mirrored(|_| {});
    pair.cli.sim_mut().emit(frame("s1", &["a", "b"]));
    pair.cli.sim_mut().emit(frame("s1", &["c"]));
    pair.run();
    assert!(pair.appends.is_empty(), "batched until the turn ends");
    pair.send("hello");
    pair.run();
    assert_eq!(pair.appends.len(), 1, "one append per key per flush");
    assert_eq!(pair.appends[0].key, SessionKey::main("-work", "s1"));
    assert_eq!(uuids(&pair.appends[0].entries), ["a", "b", "c"]);
    assert_eq!(mirror_lines_in_events(&pair), 0);
    pair.store_answers(Ok(()));
    assert!(failures(&pair).is_empty());
}

#[test]
fn keys_are_appended_one_at_a_time_in_first_seen_order() {
    let mut pair = mirrored(|_| {});
    pair.cli.sim_mut().emit(frame("s1", &["a"]));
    let sub = json!({
        "type": "transcript_mirror",
        "filePath": format!("{PROJECTS}/-work/s1/subagents/agent-x.jsonl"),
        "entries": [{"type": "user", "uuid": "x1"}],
    });
    pair.cli.sim_mut().emit(sub);
    pair.cli.sim_mut().emit(frame("s1", &["b"]));
    pair.send("go");
    pair.run();
    assert_eq!(pair.appends.len(), 1, "the next waits for the first");
    let first = pair.store_answers(Ok(()));
    assert_eq!(uuids(&first), ["a", "b"]);
    assert_eq!(pair.appends.len(), 1);
    assert_eq!(
        pair.appends[0].key,
        SessionKey::main("-work", "s1").with_subpath("subagents/agent-x")
    );
}

#[test]
fn a_failing_append_is_retried_after_its_backoff_then_reported_and_the_session_goes_on() {
    let mut pair = mirrored(|_| {});
    pair.cli.sim_mut().emit(frame("s1", &["a"]));
    pair.send("one");
    pair.run();
    pair.store_answers(Err("connection refused"));
    assert!(pair.appends.is_empty(), "no retry before the backoff");
    let due = pair.host.poll_timeout().unwrap();
    assert_eq!(due.reason, TimeoutReason::Mirror);
    assert_eq!(due.at, pair.now + Duration::from_millis(200));
    // Control traffic is not held up meanwhile.
    let status = pair.call(ControlRequest::mcp_status(), None);
    pair.run();
    assert!(matches!(
        pair.outcome(status),
        Some(Ok(CallReply::Answered(_)))
    ));

    pair.advance_by(Duration::from_millis(200));
    pair.run();
    assert_eq!(pair.appends.len(), 1, "second attempt");
    pair.store_answers(Err("connection refused"));
    pair.advance_by(Duration::from_millis(799));
    pair.run();
    assert!(pair.appends.is_empty());
    pair.advance_by(Duration::from_millis(1));
    pair.run();
    assert_eq!(pair.appends.len(), 1, "third attempt");
    pair.store_answers(Err("connection refused"));
    pair.run();
    let failed = failures(&pair);
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].entries, 1);
    assert_eq!(failed[0].key, Some(SessionKey::main("-work", "s1")));
    assert!(
        failed[0].error.contains("after 3 attempts"),
        "{}",
        failed[0].error
    );

    // The next turn's lines still go out.
    pair.cli.sim_mut().emit(frame("s1", &["b"]));
    pair.send("two");
    pair.run();
    assert_eq!(uuids(&pair.store_answers(Ok(()))), ["b"]);
}

#[test]
fn a_transient_failure_loses_nothing() {
    let mut pair = mirrored(|_| {});
    pair.cli.sim_mut().emit(frame("s1", &["a", "b"]));
    pair.send("one");
    pair.run();
    pair.store_answers(Err("busy"));
    pair.cli.sim_mut().emit(frame("s1", &["c"]));
    pair.send("two");
    pair.run();
    pair.run_until(|p| !p.appends.is_empty());
    assert_eq!(uuids(&pair.store_answers(Ok(()))), ["a", "b"], "the retry");
    pair.run();
    assert_eq!(
        uuids(&pair.store_answers(Ok(()))),
        ["c"],
        "then the next turn"
    );
    assert!(failures(&pair).is_empty());
}

#[test]
fn an_append_past_its_deadline_is_abandoned_not_retried_and_the_next_goes_out() {
    let mut pair = mirrored(|c| c.append_timeout = Duration::from_secs(5));
    pair.cli.sim_mut().emit(frame("s1", &["a"]));
    pair.send("one");
    pair.run();
    pair.cli.sim_mut().emit(frame("s1", &["b"]));
    pair.send("two");
    pair.run();
    let hung = pair.appends[0].id;
    pair.advance_by(Duration::from_secs(5));
    pair.run();
    assert_eq!(pair.mirror_aborts, [hung]);
    let failed = failures(&pair);
    assert_eq!(failed.len(), 1);
    assert!(
        failed[0].error.contains("not retried"),
        "{}",
        failed[0].error
    );
    assert_eq!(pair.appends.len(), 1);
    assert_eq!(uuids(&pair.appends[0].entries), ["b"]);
    // A late answer for the abandoned append changes nothing.
    pair.host.handle_mirror_done(hung, Ok(()), pair.now);
    pair.run();
    assert_eq!(pair.appends.len(), 1);
}

#[test]
fn a_store_that_is_down_cannot_grow_memory_past_the_bound() {
    let mut pair = mirrored(|c| {
        c.max_buffered_bytes = 4096;
        c.append_timeout = Duration::from_secs(3600);
    });
    pair.cli.sim_mut().emit(frame("s1", &["first"]));
    pair.send("one");
    pair.run();
    assert_eq!(pair.appends.len(), 1, "the store never answers this one");
    for i in 0..200 {
        pair.cli
            .sim_mut()
            .emit(frame("s1", &[&format!("line-{i}")]));
    }
    pair.run();
    let failed = failures(&pair);
    assert!(!failed.is_empty());
    assert!(
        failed.iter().all(|f| f.error.contains("bound")),
        "{failed:?}"
    );
    let lost: usize = failed.iter().map(|f| f.entries).sum();
    assert!(lost > 150, "most lines past the bound are reported: {lost}");
    assert!(lost < 200, "lines within the bound are kept: {lost}");
}

#[test]
fn flush_sends_at_once_and_resolves_when_the_store_has_everything() {
    let mut pair = mirrored(|_| {});
    let idle = pair.command(|waiter| Command::FlushMirror { waiter });
    assert!(matches!(
        pair.outcome(idle),
        Some(Ok(CallReply::MirrorSettled))
    ));
    pair.cli.sim_mut().emit(frame("s1", &["a"]));
    pair.run();
    let flush = pair.command(|waiter| Command::FlushMirror { waiter });
    pair.run();
    assert_eq!(pair.appends.len(), 1, "sent without waiting for the turn");
    assert!(
        pair.outcome(flush).is_none(),
        "not before the store answered"
    );
    pair.store_answers(Err("once"));
    pair.run_until(|p| !p.appends.is_empty());
    assert!(pair.outcome(flush).is_none(), "not while retrying");
    pair.store_answers(Ok(()));
    assert!(matches!(
        pair.outcome(flush),
        Some(Ok(CallReply::MirrorSettled))
    ));
}

#[test]
fn without_a_mirror_lines_reach_the_user_and_flush_resolves_at_once() {
    let mut pair = Pair::new(Behaviour::default());
    pair.run();
    pair.cli.sim_mut().emit(frame("s1", &["a"]));
    pair.run();
    assert_eq!(mirror_lines_in_events(&pair), 1);
    let flush = pair.command(|waiter| Command::FlushMirror { waiter });
    assert!(matches!(
        pair.outcome(flush),
        Some(Ok(CallReply::MirrorSettled))
    ));
    assert!(pair.appends.is_empty());
}

#[test]
fn the_last_lines_are_stored_before_the_session_lets_go() {
    let mut pair = mirrored(|_| {});
    pair.cli.sim_mut().emit(frame("s1", &["a"]));
    pair.run();
    pair.command(|_| Command::Close);
    pair.run_until(|p| p.is_ended());
    assert_eq!(pair.ended.len(), 1);
    assert_eq!(pair.appends.len(), 1, "the final flush");
    assert!(!pair.host.is_done(), "held until the store answers");
    pair.store_answers(Ok(()));
    assert!(pair.host.is_done());
}

#[test]
fn the_final_flush_is_bounded_by_the_append_deadline() {
    let mut pair = mirrored(|c| c.append_timeout = Duration::from_secs(2));
    pair.cli.sim_mut().emit(frame("s1", &["a"]));
    pair.run();
    pair.command(|_| Command::Close);
    pair.run_until(|p| p.is_ended());
    assert!(!pair.host.is_done());
    pair.run_until(|p| p.host.is_done());
    assert!(pair.host.is_done());
    assert_eq!(pair.mirror_aborts.len(), 1);
}

#[test]
fn lines_from_another_config_directory_or_malformed_are_reported_not_fatal() {
    let mut pair = mirrored(|_| {});
    pair.cli.sim_mut().emit(json!({
        "type": "transcript_mirror",
        "filePath": "/elsewhere/projects/-work/s1.jsonl",
        "entries": [{"type": "user", "uuid": "a"}],
    }));
    pair.cli
        .sim_mut()
        .emit(json!({"type": "transcript_mirror", "entries": 7}));
    pair.run();
    let failed = failures(&pair);
    assert_eq!(failed.len(), 2);
    assert_eq!(failed[0].key, None);
    assert_eq!(failed[0].entries, 1);
    assert!(failed[0].error.contains("not under"), "{}", failed[0].error);
    let sent = pair.send("still here");
    pair.run();
    let turn = pair.collect(pair.turn_of(sent));
    assert!(!turn.is_error());
}

#[test]
fn eager_mode_appends_each_line_one_append_at_a_time() {
    let mut pair = mirrored(|c| c.eager = true);
    pair.cli.sim_mut().emit(frame("s1", &["a"]));
    pair.cli.sim_mut().emit(frame("s1", &["b"]));
    pair.cli.sim_mut().emit(frame("s1", &["c"]));
    pair.run();
    assert_eq!(pair.appends.len(), 1);
    assert_eq!(uuids(&pair.store_answers(Ok(()))), ["a"]);
    pair.run();
    assert_eq!(uuids(&pair.store_answers(Ok(()))), ["b"]);
    pair.run();
    assert_eq!(uuids(&pair.store_answers(Ok(()))), ["c"]);
}

#[test]
fn a_batch_past_its_bounds_goes_out_before_the_turn_ends() {
    let mut pair = mirrored(|c| c.batch_entries = 3);
    pair.cli.sim_mut().emit(frame("s1", &["a", "b"]));
    pair.run();
    assert!(pair.appends.is_empty());
    pair.cli.sim_mut().emit(frame("s1", &["c", "d"]));
    pair.run();
    assert_eq!(uuids(&pair.appends[0].entries), ["a", "b", "c", "d"]);
}

mod interleavings {
    use std::collections::HashMap;

    use proptest::prelude::*;

    use super::*;

    #[derive(Debug, Clone)]
    enum Step {
        /// The CLI mirrors `n` lines of session `key`.
        Frame { key: u8, n: u8 },
        /// The user flushes.
        Flush,
        /// The store answers the append out, well or not.
        Answer { ok: bool },
        /// Time passes.
        Wait { ms: u16 },
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            4 => (0u8..3, 1u8..4).prop_map(|(key, n)| Step::Frame { key, n }),
            1 => Just(Step::Flush),
            3 => any::<bool>().prop_map(|ok| Step::Answer { ok }),
            1 => (0u16..2000).prop_map(|ms| Step::Wait { ms }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// However frames, flushes, store outcomes and time interleave:
        /// at most one append is out, each key's lines reach the store in
        /// order and at most once, and every line is either stored or
        /// reported, once everything settles.
        #[test]
        fn every_line_is_stored_in_order_once_or_reported(steps in prop::collection::vec(step(), 1..60)) {
            let mut pair = mirrored(|c| {
                c.batch_entries = 4;
                c.append_timeout = Duration::from_secs(1);
            });
            let mut sent: HashMap<String, Vec<String>> = HashMap::new();
            let mut stored: HashMap<String, Vec<String>> = HashMap::new();
            let mut next = 0u32;
            let answer = |pair: &mut Pair, ok: bool, stored: &mut HashMap<String, Vec<String>>| {
                let session = pair.appends[0].key.session_id.clone();
                let entries = pair.store_answers(if ok { Ok(()) } else { Err("injected") });
                if ok {
                    stored.entry(session).or_default().extend(uuids(&entries));
                }
            };
            for step in steps {
                match step {
                    Step::Frame { key, n } => {
                        let session = format!("s{key}");
                        let ids: Vec<String> = (0..n).map(|_| { next += 1; format!("u{next}") }).collect();
                        let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
                        pair.cli.sim_mut().emit(frame(&session, &refs));
                        sent.entry(session).or_default().extend(ids);
                    }
                    Step::Flush => {
                        pair.command(|waiter| Command::FlushMirror { waiter });
                    }
                    Step::Answer { ok } if !pair.appends.is_empty() => answer(&mut pair, ok, &mut stored),
                    Step::Answer { .. } => {}
                    Step::Wait { ms } => pair.advance_by(Duration::from_millis(u64::from(ms))),
                }
                pair.run();
                prop_assert!(pair.appends.len() <= 1, "one append at a time");
            }
            let flush = pair.command(|waiter| Command::FlushMirror { waiter });
            for _ in 0..10_000 {
                pair.run();
                if !pair.appends.is_empty() {
                    answer(&mut pair, true, &mut stored);
                } else if pair.outcome(flush).is_some() {
                    break;
                } else {
                    pair.advance_by(Duration::from_millis(100));
                }
            }
            prop_assert!(pair.outcome(flush).is_some(), "the flush settles");
            let reported: usize = failures(&pair).iter().map(|f| f.entries).sum();
            let mut kept = 0;
            for (session, lines) in &sent {
                let got = stored.get(session).cloned().unwrap_or_default();
                // In order and at most once: a subsequence of what was sent.
                let mut it = lines.iter();
                for line in &got {
                    prop_assert!(it.any(|l| l == line), "{session}: {line} out of order or twice");
                }
                kept += got.len();
            }
            let total: usize = sent.values().map(Vec::len).sum();
            prop_assert_eq!(kept + reported, total);
        }
    }
}
