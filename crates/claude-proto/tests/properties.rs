//! Properties that must hold for any input: chunking never changes what is
//! seen, and whatever the CLI and the user do, every control request ends in
//! exactly one outcome and memory stays within the configured bounds.
#![allow(clippy::unwrap_used)] // test helpers fail loudly by design

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use claude_proto::model::control::ControlRequest;
use claude_proto::{Config, Event, IncomingId, Reply, RequestId, Session};
use proptest::prelude::*;
use serde_json::{Value, json};

/// A stable description of an event, for comparing two runs.
fn describe(event: &Event) -> String {
    match event {
        Event::Message(m) => format!("message {}", String::from_utf8_lossy(m.as_bytes())),
        Event::Request(r) => format!("request {} {}", r.request_id(), r.subtype()),
        Event::ProtocolError(e) => format!("error {e}"),
        other => format!("{other:?}"),
    }
}

fn run_chunked(input: &[u8], cuts: &[usize], max_line: usize) -> Vec<String> {
    let mut config = Config::default();
    config.max_line_bytes = max_line;
    let mut session = Session::new(config);
    let mut events = Vec::new();
    let mut last = 0;
    for &cut in cuts {
        let cut = cut.min(input.len()).max(last);
        session.handle_input(&input[last..cut]);
        last = cut;
        while let Some(e) = session.poll_event() {
            events.push(describe(&e));
        }
    }
    session.handle_input(&input[last..]);
    session.handle_eof();
    while let Some(e) = session.poll_event() {
        events.push(describe(&e));
    }
    events
}

const SAMPLE: &str = concat!(
    r#"{"type":"system","subtype":"init","cwd":"/home/user/project","session_id":"s","tools":["Bash"],"model":"m"}"#,
    "\n",
    r#"{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"héllo wörld ✓ 🎉"}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":2}},"parent_tool_use_id":null,"session_id":"s","uuid":"u1"}"#,
    "\n",
    "\r\n",
    r#"{"type":"control_request","request_id":"c1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"ls"},"tool_use_id":"t1"}}"#,
    "\r\n",
    "not json at all\n",
    r#"{"type":"control_cancel_request","request_id":"c1"}"#,
    "\n",
    "   \n",
    r#"{"type":"control_request","request_id":"c2","request":{"subtype":"brand_new","x":1}}"#,
    "\n",
    r#"{"type":"result","subtype":"success","is_error":false,"result":"ok ✓","session_id":"s","total_cost_usd":0.1}"#,
    "\n",
    r#"{"type":"user","message":{"role":"user","content":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}}"#,
    "\n",
    "[1,2]\n",
    r#"{"type":"keep_alive"}"#,
);

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Any chunking of the same bytes gives the same events, including
    /// splits inside multi-byte UTF-8 characters and inside `\r\n`, and an
    /// over-long line skipped across chunk boundaries.
    #[test]
    fn chunking_never_changes_the_events(
        mut cuts in proptest::collection::vec(0usize..SAMPLE.len() + 1, 0..40),
        max_line in prop_oneof![Just(usize::MAX), Just(200usize), Just(150usize)],
    ) {
        cuts.sort_unstable();
        let whole = run_chunked(SAMPLE.as_bytes(), &[], max_line);
        let chunked = run_chunked(SAMPLE.as_bytes(), &cuts, max_line);
        prop_assert_eq!(whole, chunked);
    }

    /// Arbitrary bytes never panic and never buffer more than the limit.
    #[test]
    fn arbitrary_bytes_are_survived(
        chunks in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..300), 0..20),
    ) {
        let mut config = Config::default();
        config.max_line_bytes = 256;
        let mut session = Session::new(config);
        for chunk in &chunks {
            session.handle_input(chunk);
            prop_assert!(session.buffered_input() <= 256);
            while session.poll_event().is_some() {}
        }
        session.handle_eof();
        while session.poll_event().is_some() {}
        let mut out = Vec::new();
        session.poll_transmit(&mut out);
        // Whatever was written is whole JSON lines (auto-refusals only).
        for line in out.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            prop_assert!(serde_json::from_slice::<Value>(line).is_ok());
        }
    }
}

/// A JSON value of any shape, a few levels deep.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        ".{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            proptest::collection::btree_map(".{0,8}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// The fields of a result line, each given a value of any shape.
const RESULT_FIELDS: &[&str] = &[
    "type",
    "subtype",
    "is_error",
    "result",
    "errors",
    "duration_ms",
    "duration_api_ms",
    "num_turns",
    "stop_reason",
    "total_cost_usd",
    "usage",
    "modelUsage",
    "permission_denials",
    "uuid",
    "session_id",
    "api_error_status",
    "structured_output",
    "terminal_reason",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// A result line of any shape reads leniently without panicking: each
    /// field it names is read or named unread, and a line that reads whole
    /// strictly reads the same leniently. Lines start from a whole result
    /// and have fields replaced, removed or added.
    #[test]
    fn any_result_line_reads_leniently(
        fields in proptest::collection::vec((proptest::sample::select(RESULT_FIELDS), json_value()), 0..6),
        removed in proptest::collection::vec(proptest::sample::select(RESULT_FIELDS), 0..3),
        junk in proptest::collection::vec(any::<u8>(), 0..40),
    ) {
        use claude_proto::model::result::ResultMessage;
        let Value::Object(mut line) = json!({"type": "result", "subtype": "success",
            "is_error": false, "duration_ms": 1, "duration_api_ms": 0, "num_turns": 1,
            "result": "ok", "stop_reason": null, "total_cost_usd": 0.5, "usage": {},
            "modelUsage": {}, "permission_denials": [], "uuid": "u", "session_id": "s"})
        else {
            unreachable!("an object literal")
        };
        for (field, value) in fields {
            line.insert(field.to_owned(), value);
        }
        for field in removed {
            line.remove(field);
        }
        let bytes = serde_json::to_vec(&Value::Object(line.clone())).unwrap();
        let read = ResultMessage::read_leniently(&bytes);
        match serde_json::from_slice::<ResultMessage>(&bytes) {
            Ok(strict) => {
                prop_assert!(read.is_complete());
                prop_assert_eq!(&read.message, &strict);
            }
            Err(_) => prop_assert!(!read.is_complete()),
        }
        let reread = serde_json::to_value(&read.message).unwrap();
        for field in read.unread_fields.iter().filter(|f| line.contains_key(f.as_str())) {
            prop_assert!(reread.get(field) != line.get(field), "{} was read and unread", field);
        }
        if !read.is_complete() && !line.contains_key("is_error") && !line.contains_key("subtype") {
            prop_assert!(read.message.is_error, "no outcome in the line reads as an error");
        }
        let _ = ResultMessage::read_leniently(&junk);
    }
}

/// What the user or the CLI does next in the interleaving test.
#[derive(Debug, Clone)]
enum Step {
    UserSends { timeout_ms: u64 },
    UserCancels(usize),
    UserResponds(usize),
    CliAnswers { pick: usize, error: bool },
    CliAnswersUnknown,
    CliAsks { subtype_known: bool },
    CliCancels(usize),
    CliWritesGarbage(Vec<u8>),
    Advance(u64),
    CloseInput,
    Eof,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (1u64..5_000).prop_map(|timeout_ms| Step::UserSends { timeout_ms }),
        1 => any::<usize>().prop_map(Step::UserCancels),
        3 => any::<usize>().prop_map(Step::UserResponds),
        4 => (any::<usize>(), any::<bool>()).prop_map(|(pick, error)| Step::CliAnswers { pick, error }),
        1 => Just(Step::CliAnswersUnknown),
        4 => any::<bool>().prop_map(|subtype_known| Step::CliAsks { subtype_known }),
        2 => any::<usize>().prop_map(Step::CliCancels),
        1 => proptest::collection::vec(any::<u8>(), 0..50).prop_map(Step::CliWritesGarbage),
        3 => (0u64..3_000).prop_map(Step::Advance),
        1 => Just(Step::CloseInput),
        1 => Just(Step::Eof),
    ]
}

/// Tracks the protocol's promises while a random interleaving runs.
#[derive(Default)]
struct Ledger {
    sent: Vec<(RequestId, String)>,
    outcomes: HashMap<RequestId, usize>,
    cli_sent: Vec<String>,
    delivered: HashMap<String, IncomingId>,
    pending: Vec<IncomingId>,
    ended: HashSet<IncomingId>,
    cancelled_wire: HashSet<String>,
    answered_wire: HashMap<String, usize>,
}

impl Ledger {
    fn drain(&mut self, session: &mut Session) {
        let mut out = Vec::new();
        session.poll_transmit(&mut out);
        for line in out.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            let v: Value = serde_json::from_slice(line).unwrap();
            match v["type"].as_str() {
                Some("control_request") => {
                    let wire = v["request_id"].as_str().unwrap().to_owned();
                    if let Some(last) = self.sent.last_mut() {
                        if last.1.is_empty() {
                            last.1 = wire;
                        }
                    }
                }
                Some("control_response") => {
                    let wire = v["response"]["request_id"].as_str().unwrap().to_owned();
                    assert!(
                        !self.cancelled_wire.contains(&wire),
                        "answered {wire} after the CLI cancelled it"
                    );
                    *self.answered_wire.entry(wire).or_default() += 1;
                }
                _ => {}
            }
        }
        while let Some(event) = session.poll_event() {
            match event {
                Event::Response(o) => *self.outcomes.entry(o.id).or_default() += 1,
                Event::Request(r) => {
                    self.delivered.insert(r.request_id().to_owned(), r.id());
                    self.pending.push(r.id());
                }
                Event::RequestCancelled { id, .. } => {
                    assert!(self.ended.insert(id), "{id} ended twice");
                    self.pending.retain(|p| *p != id);
                }
                _ => {}
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Whatever happens, each request we send ends exactly once, each CLI
    /// request is answered at most once and never after its cancellation,
    /// and by the end of output nothing is left waiting.
    #[test]
    fn every_request_ends_exactly_once(steps in proptest::collection::vec(step(), 1..80)) {
        let mut config = Config::default();
        config.max_pending_incoming = 8;
        let mut session = Session::new(config);
        let mut now = Instant::now();
        let mut ledger = Ledger::default();
        let interrupt: ControlRequest = serde_json::from_value(json!({"subtype":"interrupt"})).unwrap();
        let mut cli_counter = 0;
        for step in steps {
            match step {
                Step::UserSends { timeout_ms } => {
                    if let Ok(id) = session.send_control(&interrupt, Some(Duration::from_millis(timeout_ms)), now) {
                        ledger.sent.push((id, String::new()));
                    }
                }
                Step::UserCancels(pick) => {
                    if !ledger.sent.is_empty() {
                        let (id, _) = ledger.sent[pick % ledger.sent.len()];
                        session.cancel_request(id);
                    }
                }
                Step::UserResponds(pick) => {
                    // Sometimes answer requests that already ended: must be refused.
                    let all: Vec<IncomingId> = ledger.delivered.values().copied().collect();
                    if !all.is_empty() {
                        let id = all[pick % all.len()];
                        let was_pending = ledger.pending.contains(&id);
                        let result = session.respond(id, Reply::ack());
                        prop_assert_eq!(result.is_ok(), was_pending);
                        ledger.pending.retain(|p| *p != id);
                    }
                }
                Step::CliAnswers { pick, error } => {
                    if !ledger.sent.is_empty() {
                        let wire = ledger.sent[pick % ledger.sent.len()].1.clone();
                        let line = if error {
                            json!({"type":"control_response","response":{"subtype":"error","request_id":wire,"error":"no"}})
                        } else {
                            json!({"type":"control_response","response":{"subtype":"success","request_id":wire}})
                        };
                        session.handle_input(format!("{line}\n").as_bytes());
                    }
                }
                Step::CliAnswersUnknown => {
                    session.handle_input(b"{\"type\":\"control_response\",\"response\":{\"subtype\":\"success\",\"request_id\":\"nobody\"}}\n");
                }
                Step::CliAsks { subtype_known } => {
                    cli_counter += 1;
                    let wire = format!("cli-{cli_counter}");
                    ledger.cli_sent.push(wire.clone());
                    let request = if subtype_known {
                        json!({"subtype":"can_use_tool","tool_name":"Bash","input":{},"tool_use_id":"t"})
                    } else {
                        json!({"subtype":"mystery"})
                    };
                    let line = json!({"type":"control_request","request_id":wire,"request":request});
                    session.handle_input(format!("{line}\n").as_bytes());
                }
                Step::CliCancels(pick) => {
                    if !ledger.cli_sent.is_empty() {
                        let wire = ledger.cli_sent[pick % ledger.cli_sent.len()].clone();
                        if ledger.answered_wire.get(&wire).copied().unwrap_or(0) == 0 {
                            ledger.cancelled_wire.insert(wire.clone());
                        }
                        let line = json!({"type":"control_cancel_request","request_id":wire});
                        session.handle_input(format!("{line}\n").as_bytes());
                    }
                }
                Step::CliWritesGarbage(bytes) => {
                    session.handle_input(&bytes);
                    session.handle_input(b"\n");
                }
                Step::Advance(ms) => {
                    now += Duration::from_millis(ms);
                    session.handle_timeout(now);
                }
                Step::CloseInput => session.close_input(),
                Step::Eof => session.handle_eof(),
            }
            ledger.drain(&mut session);
            prop_assert!(session.pending_incoming() <= 8);
            for count in ledger.outcomes.values() {
                prop_assert_eq!(*count, 1);
            }
            for count in ledger.answered_wire.values() {
                prop_assert!(*count <= 1);
            }
        }
        session.handle_eof();
        ledger.drain(&mut session);
        for (id, _) in &ledger.sent {
            prop_assert_eq!(ledger.outcomes.get(id).copied(), Some(1), "request {} without exactly one outcome", id);
        }
        prop_assert_eq!(session.pending_requests(), 0);
        prop_assert_eq!(session.pending_incoming(), 0);
        prop_assert_eq!(session.poll_timeout(), None);
    }
}

mod encode_decode {
    use claude_proto::model::content::ContentBlock;
    use claude_proto::model::control::ControlRequest;
    use claude_proto::model::hooks::{HookEvent, HookOutput};
    use claude_proto::model::permission::{PermissionMode, PermissionResult};
    use claude_proto::model::user::UserMessage;
    use proptest::prelude::*;
    use serde::Serialize;
    use serde::de::DeserializeOwned;
    use serde_json::json;

    /// Encoding then decoding gives back an equal value, and encoding that
    /// again gives the same JSON.
    fn identity<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(value: &T) {
        let text = serde_json::to_string(value).unwrap();
        let back: T = serde_json::from_str(&text).unwrap();
        assert_eq!(&back, value, "{text}");
        assert_eq!(serde_json::to_string(&back).unwrap(), text);
    }

    fn text() -> impl Strategy<Value = String> {
        // Any Unicode, including quotes, backslashes, newlines and controls.
        proptest::string::string_regex("(?s).{0,40}").unwrap()
    }

    fn block() -> impl Strategy<Value = ContentBlock> {
        prop_oneof![
            text().prop_map(ContentBlock::text),
            (text(), text()).prop_map(|(m, d)| ContentBlock::image_base64(m, d)),
            (text(), text()).prop_map(|(id, t)| ContentBlock::tool_result(id, t)),
        ]
    }

    fn user_message() -> impl Strategy<Value = UserMessage> {
        prop_oneof![
            text().prop_map(UserMessage::text),
            proptest::collection::vec(block(), 0..4).prop_map(UserMessage::blocks),
            (text(), text()).prop_map(|(t, id)| UserMessage::text(t).with_uuid(id)),
        ]
    }

    fn mode() -> impl Strategy<Value = PermissionMode> {
        prop_oneof![
            Just(PermissionMode::Default),
            Just(PermissionMode::AcceptEdits),
            Just(PermissionMode::Plan),
            text().prop_map(PermissionMode::from),
        ]
    }

    fn control_request() -> impl Strategy<Value = ControlRequest> {
        prop_oneof![
            Just(ControlRequest::interrupt()),
            proptest::option::of(text()).prop_map(|m| ControlRequest::set_model(m.as_deref())),
            mode().prop_map(ControlRequest::set_permission_mode),
            proptest::option::of(any::<u32>())
                .prop_map(|n| ControlRequest::set_max_thinking_tokens(n.map(u64::from))),
            text().prop_map(ControlRequest::stop_task),
            (text(), any::<bool>()).prop_map(|(id, dry)| ControlRequest::rewind_files(id, dry)),
            (text(), any::<bool>()).prop_map(|(s, on)| ControlRequest::mcp_toggle(s, on)),
            ("[a-z_]{1,12}", text()).prop_map(|(subtype, v)| {
                let mut fields = serde_json::Map::new();
                fields.insert("value".into(), json!(v));
                ControlRequest::raw(subtype, fields)
            }),
        ]
    }

    fn permission_result() -> impl Strategy<Value = PermissionResult> {
        prop_oneof![
            (proptest::option::of(text()), any::<bool>()).prop_map(|(id, with_input)| {
                let mut r = PermissionResult::allow();
                if with_input {
                    r = r.with_updated_input(json!({"command": "ls"}));
                }
                match id {
                    Some(id) => r.with_tool_use_id(id),
                    None => r,
                }
            }),
            (text(), any::<bool>()).prop_map(|(m, i)| PermissionResult::deny(m).with_interrupt(i)),
        ]
    }

    fn hook_output() -> impl Strategy<Value = HookOutput> {
        prop_oneof![
            Just(HookOutput::default()),
            text().prop_map(HookOutput::block),
            text().prop_map(HookOutput::pre_tool_use_deny),
            text().prop_map(|t| HookOutput::additional_context(HookEvent::PostToolUse, t)),
        ]
    }

    proptest! {
        #[test]
        fn user_messages(m in user_message()) { identity(&m) }

        #[test]
        fn control_requests(r in control_request()) { identity(&r) }

        #[test]
        fn permission_results(r in permission_result()) { identity(&r) }

        #[test]
        fn hook_outputs(o in hook_output()) { identity(&o) }
    }
}
