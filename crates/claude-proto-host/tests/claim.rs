//! A parked spare and its claim, on the virtual clock against the test
//! kit's scripted CLI: prompts wait for the claim, the claim's requests go
//! out in the order the CLI needs, and every refusal lets the spare go
//! without a prompt written.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers fail loudly by design

mod support;

use std::time::Duration;

use claude_proto::model::Extra;
use claude_proto::model::claim::ClaimRefusal;
use claude_proto::model::permission::PermissionMode;
use claude_proto_host::{
    CallReply, Capabilities, Claim, Claimed, Command, Error, Limits, Stall, State, Transport,
};
use claude_proto_testkit::{Behaviour, Policy};
use serde_json::{Value, json};
use support::{Pair, Served, Waiter, text};

fn parked(script: Behaviour) -> Pair {
    let mut pair = Pair::with(
        script,
        Limits::default(),
        Capabilities::default(),
        Transport::Process,
    );
    pair.host.park();
    pair.run();
    assert!(matches!(pair.initialized.as_slice(), [Ok(_)]));
    assert!(pair.host.is_parked());
    pair
}

fn claim(pair: &mut Pair, claim: Claim) -> Waiter {
    let now = pair.now;
    pair.command(|waiter| Command::Claim {
        claim: Box::new(claim),
        issued_at: now,
        waiter,
    })
}

fn claimed(pair: &Pair, waiter: Waiter) -> &Claimed {
    match pair.outcome(waiter) {
        Some(Ok(CallReply::Claimed(claimed))) => claimed,
        other => panic!("expected the claim to succeed, got {other:?}"),
    }
}

/// The control requests the CLI read, as `(subtype, request)`, after
/// `initialize`.
fn control_requests(pair: &Pair) -> Vec<(String, Value)> {
    pair.cli
        .sim()
        .received()
        .iter()
        .filter(|line| line["type"] == "control_request")
        .map(|line| {
            let request = line["request"].clone();
            (request["subtype"].as_str().unwrap().to_owned(), request)
        })
        .filter(|(subtype, _)| subtype != "initialize")
        .collect()
}

fn overlay(value: Value) -> Extra {
    serde_json::from_value(value).unwrap()
}

#[test]
fn a_prompt_to_a_parked_spare_waits_for_its_claim() {
    let mut pair = parked(Behaviour::default());
    let sent = pair.send("hello");
    pair.run();
    assert!(matches!(
        pair.outcome(sent),
        Some(Ok(CallReply::Sent { .. }))
    ));
    assert!(
        pair.cli.sim().user_messages().is_empty(),
        "a prompt reached a spare before its claim"
    );
    let waiter = claim(&mut pair, Claim::new("/srv/project"));
    pair.run();
    let claimed = claimed(&pair, waiter);
    assert_eq!(claimed.cwd.as_deref(), Some("/srv/project"));
    assert!(claimed.not_applied.is_empty());
    assert!(!pair.host.is_parked());
    // The claim was read before the prompt, and the turn ran.
    let kinds: Vec<String> = pair
        .cli
        .sim()
        .received()
        .iter()
        .map(|line| {
            line["request"]["subtype"]
                .as_str()
                .unwrap_or(line["type"].as_str().unwrap())
                .to_owned()
        })
        .collect();
    assert_eq!(kinds, ["initialize", "claim_session", "user"]);
    let turn = pair.collect(pair.turn_of(sent));
    assert_eq!(text(&turn), "echo: hello");
}

#[test]
fn a_claims_requests_go_out_in_the_order_the_cli_needs() {
    let mut pair = parked(Behaviour::default());
    let overlay = overlay(json!({
        "effortLevel": "high",
        "enabledPlugins": {"p": false},
        "permissions": {"deny": ["Bash"]},
        "fastMode": true,
    }));
    let request = Claim::new("/srv/project")
        .permission_mode(PermissionMode::Plan)
        .model("opus")
        .max_thinking_tokens(2048)
        .title("t")
        .settings(overlay)
        .unwrap();
    let waiter = claim(&mut pair, request);
    pair.run();
    claimed(&pair, waiter);
    let requests = control_requests(&pair);
    let subtypes: Vec<&str> = requests.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(
        subtypes,
        [
            "apply_flag_settings",
            "claim_session",
            "set_model",
            "set_max_thinking_tokens",
            "apply_flag_settings",
        ]
    );
    // What decides the folder's servers and plugins goes before the
    // claim; what must follow the folder's own settings, after it.
    assert_eq!(
        requests[0].1["settings"],
        json!({"effortLevel": "high", "enabledPlugins": {"p": false}})
    );
    assert_eq!(
        requests[4].1["settings"],
        json!({"permissions": {"deny": ["Bash"]}, "fastMode": true})
    );
    assert_eq!(requests[1].1["cwd"], "/srv/project");
    assert_eq!(requests[1].1["permission_mode"], "plan");
    assert_eq!(requests[1].1["title"], "t");
    assert_eq!(requests[1].1["sdk_mcp_servers"], json!([]));
}

#[test]
fn a_refused_claim_writes_no_prompt_and_lets_the_spare_go() {
    let script = Behaviour::default().with_policy(
        "claim_session",
        Policy::Error("cwd_not_found: the claim cwd does not exist or is not accessible".into()),
    );
    let mut pair = parked(script);
    let sent = pair.send("hello");
    let waiter = claim(&mut pair, Claim::new("/nowhere"));
    pair.run_until(support::Pair::is_ended);
    let Some(Err(Error::ClaimRefused { refusal, message })) = pair.outcome(waiter) else {
        panic!("expected a refusal, got {:?}", pair.outcome(waiter))
    };
    assert_eq!(refusal, &Some(ClaimRefusal::CwdNotFound));
    assert!(message.starts_with("cwd_not_found"));
    assert!(
        pair.cli.sim().user_messages().is_empty(),
        "a prompt went out"
    );
    assert!(matches!(
        pair.outcome(sent),
        Some(Ok(CallReply::Sent { .. }))
    ));
    assert_eq!(pair.host.state(), State::Ended);
}

#[test]
fn a_refused_overlay_writes_no_prompt_and_lets_the_spare_go() {
    let script = Behaviour::default().with_policy(
        "apply_flag_settings",
        Policy::Error("invalid settings".into()),
    );
    let mut pair = parked(script);
    pair.send("hello");
    let request = Claim::new("/srv/project")
        .settings(overlay(json!({"effortLevel": "extreme"})))
        .unwrap();
    let waiter = claim(&mut pair, request);
    pair.run_until(support::Pair::is_ended);
    let Some(Err(Error::ClaimSettingsNotApplied { message, .. })) = pair.outcome(waiter) else {
        panic!(
            "expected settings_not_applied, got {:?}",
            pair.outcome(waiter)
        )
    };
    assert!(message.contains("invalid settings"), "{message}");
    assert!(
        pair.cli.sim().user_messages().is_empty(),
        "a prompt went out"
    );
    assert_eq!(pair.host.state(), State::Ended);
}

#[test]
fn a_refused_model_is_reported_and_the_session_runs() {
    let script =
        Behaviour::default().with_policy("set_model", Policy::Error("unknown model".into()));
    let mut pair = parked(script);
    let sent = pair.send("hello");
    let waiter = claim(&mut pair, Claim::new("/srv/project").model("nope"));
    pair.run();
    let claimed = claimed(&pair, waiter);
    assert_eq!(claimed.not_applied.len(), 1);
    assert_eq!(claimed.not_applied[0].option, "model");
    assert!(claimed.not_applied[0].reason.contains("unknown model"));
    let turn = pair.collect(pair.turn_of(sent));
    assert_eq!(text(&turn), "echo: hello");
}

#[test]
fn a_claim_never_answered_times_out_and_lets_the_spare_go() {
    let script = Behaviour::default().with_policy("claim_session", Policy::Never);
    let mut pair = parked(script);
    pair.send("hello");
    let waiter = claim(&mut pair, Claim::new("/srv/project"));
    pair.run_until(support::Pair::is_ended);
    assert!(
        matches!(pair.outcome(waiter), Some(Err(Error::TimedOut { subtype, .. })) if subtype == "claim_session"),
        "{:?}",
        pair.outcome(waiter)
    );
    assert!(
        pair.cli.sim().user_messages().is_empty(),
        "a prompt went out"
    );
}

/// Finding: a claim that timed out behind the spare's unread events told
/// its caller to read events, which a spare cannot do.
#[test]
fn a_claim_stuck_behind_a_spares_events_names_what_to_do() {
    let script = Behaviour::default()
        .with_stream(0, 0, Duration::ZERO)
        .with_events_before_answers(200);
    let mut limits = Limits::default();
    limits.read_ahead_bytes = 4096;
    let mut pair = Pair::with(script, limits, Capabilities::default(), Transport::Process);
    pair.host.park();
    pair.run();
    pair.reading = false;
    let waiter = claim(&mut pair, Claim::new("/srv/project"));
    pair.run_until(|pair| pair.outcome(waiter).is_some());
    let Some(Err(error @ Error::TimedOut { stall, .. })) = pair.outcome(waiter) else {
        panic!("the claim times out: {:?}", pair.outcome(waiter));
    };
    assert!(
        matches!(stall, Some(Stall::SpareReadAheadFull { budget: 4096, .. })),
        "{stall:?}"
    );
    let text = error.to_string();
    assert!(!text.contains("read events"), "{text}");
    assert!(text.contains("raise `read_ahead_bytes`"), "{text}");
}

#[test]
fn only_a_parked_spare_can_be_claimed_and_only_once() {
    let mut pair = parked(Behaviour::default());
    let first = claim(&mut pair, Claim::new("/a"));
    let second = claim(&mut pair, Claim::new("/b"));
    pair.run();
    claimed(&pair, first);
    assert!(matches!(
        pair.outcome(second),
        Some(Err(Error::NotParked { .. }))
    ));
    let third = claim(&mut pair, Claim::new("/c"));
    assert!(matches!(
        pair.outcome(third),
        Some(Err(Error::NotParked { .. }))
    ));
    // A session not started as a spare.
    let mut cold = Pair::new(Behaviour::default());
    cold.run();
    let waiter = claim(&mut cold, Claim::new("/a"));
    assert!(matches!(
        cold.outcome(waiter),
        Some(Err(Error::NotParked { .. }))
    ));
    assert!(
        control_requests(&cold).is_empty(),
        "a claim went to a CLI that is not a spare"
    );
}

#[test]
fn hook_settings_are_refused_before_anything_is_sent() {
    let error = Claim::new("/a")
        .settings(overlay(
            json!({"effortLevel": "high", "hooks": {}, "disableAllHooks": true}),
        ))
        .unwrap_err();
    assert_eq!(error.keys, ["hooks", "disableAllHooks"]);
    assert!(error.to_string().contains("Options::settings"));
}

#[test]
fn a_spare_that_exits_while_parked_fails_its_claim_and_its_held_prompts() {
    let mut pair = parked(Behaviour::default());
    pair.send("hello");
    pair.cli
        .handle_signal(claude_proto_testkit::Signal::Kill, pair.now);
    pair.run_until(support::Pair::is_ended);
    assert!(pair.cli.sim().user_messages().is_empty());
    let waiter = claim(&mut pair, Claim::new("/a"));
    assert!(
        matches!(pair.outcome(waiter), Some(Err(Error::Ended(_)))),
        "{:?}",
        pair.outcome(waiter)
    );
}

#[test]
fn a_claim_deadline_counts_from_the_call() {
    let script = Behaviour::default().with_policy("claim_session", Policy::Never);
    let mut pair = parked(script);
    let issued_at = pair.now;
    pair.advance_by(Duration::from_secs(3600));
    let waiter = pair.command(|waiter| Command::Claim {
        claim: Box::new(Claim::new("/a")),
        issued_at,
        waiter,
    });
    pair.run_until(support::Pair::is_ended);
    assert!(matches!(
        pair.outcome(waiter),
        Some(Err(Error::TimedOut { .. }))
    ));
    assert!(
        control_requests(&pair).is_empty(),
        "a claim past its deadline was sent"
    );
}

#[test]
fn a_claims_own_initialize_answer_replaces_the_spares_and_keeps_its_confirmations() {
    let script = Behaviour::default().with_initialize_field("mcp_servers_applied", json!(true));
    let mut pair = parked(script);
    let waiter = claim(&mut pair, Claim::new("/srv/project"));
    pair.run();
    claimed(&pair, waiter);
    let [Ok(spare), Ok(session)] = pair.initialized.as_slice() else {
        panic!(
            "expected two initialize answers, got {:?}",
            pair.initialized
        )
    };
    assert_eq!(spare.extra.get("claimed_cwd"), None);
    assert_eq!(
        session.extra.get("claimed_cwd"),
        Some(&json!("/srv/project"))
    );
    assert_eq!(
        session.mcp_servers_applied,
        Some(true),
        "the spare's confirmation was kept"
    );
    let request = &control_requests(&pair)[0].1;
    assert_eq!(request["include_initialize"], true);
}
