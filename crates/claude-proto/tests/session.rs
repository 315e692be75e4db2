//! The session state machine driven through its public API on a virtual
//! clock: every control flow, every way a request can end, and bad input.
#![allow(clippy::unwrap_used)] // test helpers fail loudly by design

use std::time::{Duration, Instant};

use claude_proto::model::MessageType;
use claude_proto::model::control::{
    Ack, ControlRequest, GetBinaryVersionRequest, InterruptRequest, InterruptResponse,
    ListModelsRequest, SetModelRequest, StopTaskRequest,
};
use claude_proto::model::incoming::CliRequest;
use claude_proto::model::initialize::InitializeRequest;
use claude_proto::model::permission::PermissionResult;
use claude_proto::model::user::UserMessage;
use claude_proto::{
    CancelReason, Config, ControlCall, ControlError, Event, ProtocolErrorKind, RefusalReason,
    Reply, RespondError, SendError, Session,
};
use serde_json::{Value, json};

/// A session plus a virtual clock and helpers to play the CLI's side.
struct Harness {
    session: Session,
    now: Instant,
}

impl Harness {
    fn new() -> Self {
        Self::with_config(Config::default())
    }

    fn with_config(config: Config) -> Self {
        Self {
            session: Session::new(config),
            now: Instant::now(),
        }
    }

    /// The CLI writes these JSON values as lines.
    fn cli_writes(&mut self, lines: &[Value]) {
        for line in lines {
            let mut bytes = serde_json::to_vec(line).unwrap();
            bytes.push(b'\n');
            self.session.handle_input(&bytes);
        }
    }

    /// Everything queued for the CLI's stdin, one JSON value per line.
    fn written(&mut self) -> Vec<Value> {
        let mut buf = Vec::new();
        self.session.poll_transmit(&mut buf);
        assert!(
            buf.is_empty() || buf.ends_with(b"\n"),
            "partial line queued"
        );
        buf.split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).expect("we only write JSON"))
            .collect()
    }

    fn events(&mut self) -> Vec<Event> {
        std::iter::from_fn(|| self.session.poll_event()).collect()
    }

    fn advance(&mut self, by: Duration) {
        self.now += by;
        self.session.handle_timeout(self.now);
    }

    fn send(
        &mut self,
        request: &ControlRequest,
        timeout: Option<Duration>,
    ) -> (claude_proto::RequestId, String) {
        let id = self
            .session
            .send_control(request, timeout, self.now)
            .unwrap();
        let written = self.written();
        assert_eq!(written.len(), 1);
        assert_eq!(written[0]["type"], "control_request");
        (id, written[0]["request_id"].as_str().unwrap().to_owned())
    }
}

fn success(request_id: &str, payload: Option<Value>) -> Value {
    let mut response = json!({"subtype": "success", "request_id": request_id});
    if let Some(payload) = payload {
        response["response"] = payload;
    }
    json!({"type": "control_response", "response": response})
}

fn can_use_tool(request_id: &str) -> Value {
    json!({"type": "control_request", "request_id": request_id, "request": {
        "subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": "ls"},
        "tool_use_id": "toolu_1", "permission_suggestions": [], "display_name": "Bash"}})
}

fn interrupt() -> ControlRequest {
    serde_json::from_value(json!({"subtype": "interrupt"})).unwrap()
}

fn single<T>(mut v: Vec<T>) -> T {
    assert_eq!(v.len(), 1, "expected exactly one item");
    v.remove(0)
}

#[test]
fn initialize_and_prompt_are_written_in_order_without_waiting() {
    let mut h = Harness::new();
    let init = h
        .session
        .initialize(&InitializeRequest::default(), None, h.now)
        .unwrap();
    h.session
        .send_user_message(&UserMessage::text("hello"))
        .unwrap();
    let written = h.written();
    assert_eq!(written.len(), 2);
    assert_eq!(written[0]["type"], "control_request");
    assert_eq!(written[0]["request"]["subtype"], "initialize");
    let wire = written[0]["request_id"].as_str().unwrap().to_owned();
    assert!(wire.starts_with("req_1_"), "{wire}");
    assert_eq!(
        written[1],
        json!({"type":"user","session_id":"","message":{"role":"user","content":[{"type":"text","text":"hello"}]},"parent_tool_use_id":null})
    );

    assert!(!h.session.is_initialized());
    h.cli_writes(&[success(
        &wire,
        Some(json!({"commands": [], "models": [], "pid": 42, "pending_permission_requests": []})),
    )]);
    let Event::Response(outcome) = single(h.events()) else {
        panic!("expected a response")
    };
    assert_eq!(outcome.id, init);
    assert_eq!(outcome.subtype, "initialize");
    let payload: Value = outcome.result.unwrap().decode().unwrap();
    assert_eq!(payload["pid"], 42);
    assert!(h.session.is_initialized());
    assert_eq!(h.session.poll_timeout(), None);
}

#[test]
fn error_response_carries_message_and_code() {
    let mut h = Harness::new();
    let (id, wire) = h.send(&interrupt(), None);
    h.cli_writes(&[json!({"type":"control_response","response":{
        "subtype":"error","request_id":wire,"error":"no turn running","error_code":"stale_turn"}})]);
    let Event::Response(outcome) = single(h.events()) else {
        panic!()
    };
    assert_eq!(outcome.id, id);
    assert_eq!(
        outcome.result.unwrap_err(),
        ControlError::Rejected {
            subtype: "interrupt".into(),
            message: "no turn running".into(),
            code: Some("stale_turn".into())
        }
    );
}

#[test]
fn ack_without_payload_decodes_as_empty_object() {
    let mut h = Harness::new();
    let (_, wire) = h.send(&interrupt(), None);
    h.cli_writes(&[success(&wire, None)]);
    let Event::Response(outcome) = single(h.events()) else {
        panic!()
    };
    let ok = outcome.result.unwrap();
    assert_eq!(ok.payload(), None);
    assert_eq!(ok.decode::<Value>().unwrap(), json!({}));
}

#[test]
fn timeout_fails_once_tells_the_cli_and_ignores_the_late_answer() {
    let mut h = Harness::new();
    let (id, wire) = h.send(&interrupt(), Some(Duration::from_secs(5)));
    assert_eq!(
        h.session.poll_timeout(),
        Some(h.now + Duration::from_secs(5))
    );

    h.advance(Duration::from_millis(4999));
    assert!(h.events().is_empty());
    h.advance(Duration::from_millis(1));
    let Event::Response(outcome) = single(h.events()) else {
        panic!()
    };
    assert_eq!(outcome.id, id);
    assert!(
        matches!(outcome.result, Err(ControlError::TimedOut { ref subtype, after }) if subtype == "interrupt" && after == Duration::from_secs(5))
    );
    assert_eq!(
        h.written(),
        vec![json!({"type":"control_cancel_request","request_id":wire})]
    );
    assert_eq!(h.session.poll_timeout(), None);

    // Calling again, or much later, changes nothing.
    h.advance(Duration::from_secs(3600));
    assert!(h.events().is_empty());

    h.cli_writes(&[success(&wire, None)]);
    let Event::ProtocolError(err) = single(h.events()) else {
        panic!()
    };
    assert!(
        matches!(err.kind, ProtocolErrorKind::UnmatchedResponse { ref request_id } if *request_id == wire)
    );
}

#[test]
fn default_timeout_comes_from_config() {
    let mut config = Config::default();
    config.request_timeout = Duration::from_millis(250);
    let mut h = Harness::with_config(config);
    h.send(&interrupt(), None);
    assert_eq!(
        h.session.poll_timeout(),
        Some(h.now + Duration::from_millis(250))
    );
    h.send(&interrupt(), Some(Duration::from_millis(100)));
    assert_eq!(
        h.session.poll_timeout(),
        Some(h.now + Duration::from_millis(100))
    );
    h.advance(Duration::from_millis(300));
    assert_eq!(h.events().len(), 2);
}

/// No default deadline of ours is shorter than the CLI's own for the same
/// work: `mcp_call` waits up to its `timeout_ms` (2 min by default, clamped
/// to 1 s .. 10 min), so its default deadline is that plus 5 s, even with
/// a shorter `request_timeout`; an explicit timeout still wins.
#[test]
fn mcp_call_default_deadline_is_at_least_the_clis() {
    use claude_proto::model::control::McpCallRequest;
    let call = |timeout_ms: Option<u64>| {
        ControlRequest::from(McpCallRequest {
            tool: "mcp__gh__search".into(),
            timeout_ms,
            ..McpCallRequest::default()
        })
    };
    let mut h = Harness::new();
    for (timeout_ms, expected) in [
        (None, 125),
        (Some(300_000), 305),
        (Some(50), 60),
        (Some(3_600_000), 605),
    ] {
        let (id, _) = h.send(&call(timeout_ms), None);
        assert_eq!(
            h.session.poll_timeout(),
            Some(h.now + Duration::from_secs(expected)),
            "timeout_ms {timeout_ms:?}"
        );
        assert!(h.session.cancel_request(id));
        h.events();
        h.written();
    }
    // The typed path uses the CLI's default for the subtype.
    let id = h
        .session
        .send_call(&McpCallRequest::default(), None, h.now)
        .unwrap();
    assert_eq!(
        h.session.poll_timeout(),
        Some(h.now + Duration::from_secs(125))
    );
    assert!(h.session.cancel_request(id));
    h.events();
    h.written();
    let (_, _) = h.send(&call(None), Some(Duration::from_secs(1)));
    assert_eq!(
        h.session.poll_timeout(),
        Some(h.now + Duration::from_secs(1))
    );
}

#[test]
fn user_cancel_ends_the_request_and_notifies_the_cli() {
    let mut h = Harness::new();
    let (id, wire) = h.send(&interrupt(), None);
    assert!(h.session.cancel_request(id));
    assert!(!h.session.cancel_request(id));
    let Event::Response(outcome) = single(h.events()) else {
        panic!()
    };
    assert!(matches!(
        outcome.result,
        Err(ControlError::Cancelled { .. })
    ));
    assert_eq!(
        h.written(),
        vec![json!({"type":"control_cancel_request","request_id":wire})]
    );
    assert_eq!(h.session.poll_timeout(), None);
}

#[test]
fn incoming_request_is_answered_exactly_once() {
    let mut h = Harness::new();
    h.cli_writes(&[can_use_tool("cli-1")]);
    let Event::Request(request) = single(h.events()) else {
        panic!()
    };
    assert_eq!(request.subtype(), "can_use_tool");
    assert_eq!(request.request_id(), "cli-1");
    let CliRequest::CanUseTool(ask) = request.request() else {
        panic!("typed as can_use_tool")
    };
    assert_eq!(ask.tool_name, "Bash");
    let id = request.id();
    assert_eq!(h.session.pending_incoming(), 1);

    h.session
        .respond(
            id,
            Reply::success(&json!({"behavior":"allow","toolUseID":"toolu_1"})).unwrap(),
        )
        .unwrap();
    assert_eq!(
        h.written(),
        vec![
            json!({"type":"control_response","response":{"subtype":"success","request_id":"cli-1",
            "response":{"behavior":"allow","toolUseID":"toolu_1"}}})
        ]
    );
    assert_eq!(
        h.session.respond(id, Reply::ack()),
        Err(RespondError::NotPending)
    );
    assert!(h.written().is_empty());
    assert_eq!(h.session.pending_incoming(), 0);
}

#[test]
fn error_reply_has_message_and_code() {
    let mut h = Harness::new();
    h.cli_writes(&[can_use_tool("cli-1")]);
    let Event::Request(request) = single(h.events()) else {
        panic!()
    };
    h.session
        .respond(
            request.id(),
            Reply::error_with_code("handler failed", "internal_error"),
        )
        .unwrap();
    assert_eq!(
        h.written(),
        vec![
            json!({"type":"control_response","response":{"subtype":"error","request_id":"cli-1",
            "error":"handler failed","error_code":"internal_error"}})
        ]
    );
}

#[test]
fn cancelled_request_is_never_answered() {
    let mut h = Harness::new();
    h.cli_writes(&[can_use_tool("cli-1")]);
    let Event::Request(request) = single(h.events()) else {
        panic!()
    };
    h.cli_writes(&[json!({"type":"control_cancel_request","request_id":"cli-1"})]);
    let events = h.events();
    assert!(matches!(
        events.as_slice(),
        [Event::RequestCancelled { id, reason: CancelReason::CancelledByCli }] if *id == request.id()
    ));
    assert_eq!(
        h.session.respond(request.id(), Reply::ack()),
        Err(RespondError::NotPending)
    );
    assert!(h.written().is_empty(), "a late answer must not be sent");

    // A cancel for something already answered or unknown is harmless.
    h.cli_writes(&[json!({"type":"control_cancel_request","request_id":"never-sent"})]);
    assert!(h.events().is_empty());
}

#[test]
fn unknown_subtype_is_refused_at_once() {
    let mut h = Harness::new();
    h.cli_writes(&[json!({"type":"control_request","request_id":"x1","request":{"subtype":"brand_new_thing","a":1}})]);
    let events = h.events();
    assert!(matches!(
        events.as_slice(),
        [Event::RequestRefused { request_id, subtype: Some(s), reason: RefusalReason::UnsupportedSubtype }]
            if request_id == "x1" && s == "brand_new_thing"
    ));
    assert_eq!(
        h.written(),
        vec![
            json!({"type":"control_response","response":{"subtype":"error","request_id":"x1",
            "error":"Unsupported control request subtype: brand_new_thing","error_code":"unsupported_request"}})
        ]
    );
}

#[test]
fn unknown_subtype_can_be_handled_by_the_user() {
    let mut config = Config::default();
    config.refuse_unknown_requests = false;
    let mut h = Harness::with_config(config);
    h.cli_writes(&[json!({"type":"control_request","request_id":"x1","request":{"subtype":"brand_new_thing","a":1}})]);
    let Event::Request(request) = single(h.events()) else {
        panic!()
    };
    assert!(matches!(request.request(), CliRequest::Unknown(v) if v["a"] == 1));
    assert!(h.written().is_empty());
    h.session.respond(request.id(), Reply::ack()).unwrap();
    assert_eq!(h.written().len(), 1);
}

#[test]
fn malformed_known_request_is_refused_as_invalid() {
    let mut h = Harness::new();
    h.cli_writes(&[
        json!({"type":"control_request","request_id":"m1","request":{"subtype":"can_use_tool"}}),
        json!({"type":"control_request","request_id":"m2","request":"not an object"}),
        json!({"type":"control_request","request_id":"m3","request":{"no_subtype":true}}),
    ]);
    let events = h.events();
    assert_eq!(events.len(), 3);
    for event in &events {
        assert!(
            matches!(
                event,
                Event::RequestRefused {
                    reason: RefusalReason::Malformed(_),
                    ..
                }
            ),
            "{event:?}"
        );
    }
    let written = h.written();
    assert_eq!(written.len(), 3);
    for (line, id) in written.iter().zip(["m1", "m2", "m3"]) {
        assert_eq!(line["response"]["request_id"], id);
        assert_eq!(line["response"]["error_code"], "invalid_request");
    }
}

#[test]
fn control_request_without_id_cannot_be_answered_and_is_reported() {
    let mut h = Harness::new();
    h.cli_writes(&[json!({"type":"control_request","request":{"subtype":"can_use_tool"}})]);
    let Event::ProtocolError(err) = single(h.events()) else {
        panic!()
    };
    assert!(matches!(
        err.kind,
        ProtocolErrorKind::MalformedControl { .. }
    ));
    assert!(h.written().is_empty());
}

#[test]
fn pending_incoming_requests_are_bounded() {
    let mut config = Config::default();
    config.max_pending_incoming = 2;
    let mut h = Harness::with_config(config);
    h.cli_writes(&[can_use_tool("a"), can_use_tool("b"), can_use_tool("c")]);
    let events = h.events();
    assert!(matches!(events[0], Event::Request(_)));
    assert!(matches!(events[1], Event::Request(_)));
    assert!(
        matches!(&events[2], Event::RequestRefused { request_id, reason: RefusalReason::TooManyPending, .. } if request_id == "c")
    );
    assert_eq!(h.session.pending_incoming(), 2);
    assert_eq!(h.written().len(), 1);
}

#[test]
fn initialize_answer_replays_requests_the_cli_already_has_waiting() {
    let mut h = Harness::new();
    h.session
        .initialize(&InitializeRequest::default(), None, h.now)
        .unwrap();
    let wire = h.written()[0]["request_id"].as_str().unwrap().to_owned();
    h.cli_writes(&[can_use_tool("already-seen")]);
    assert_eq!(h.events().len(), 1);

    // The pending_* lists sit beside `response`, inside the response object.
    let mut answer = success(&wire, Some(json!({"commands": []})));
    answer["response"]["pending_permission_requests"] =
        json!([can_use_tool("already-seen"), can_use_tool("new-one")]);
    answer["response"]["pending_user_dialog_requests"] = json!([]);
    h.cli_writes(&[answer]);
    let events = h.events();
    assert_eq!(events.len(), 2, "{events:?}");
    assert!(matches!(&events[0], Event::Response(o) if o.result.is_ok()));
    assert!(matches!(&events[1], Event::Request(r) if r.request_id() == "new-one"));
    assert_eq!(h.session.pending_incoming(), 2);
}

#[test]
fn permission_answer_echoes_the_tool_use_id() {
    let mut h = Harness::new();
    h.cli_writes(&[can_use_tool("cli-1"), can_use_tool("cli-2")]);
    let events = h.events();
    let ids: Vec<_> = events
        .iter()
        .map(|e| match e {
            Event::Request(r) => r.id(),
            other => panic!("{other:?}"),
        })
        .collect();
    h.session
        .respond_permission(
            ids[0],
            PermissionResult::deny("not here").with_interrupt(true),
        )
        .unwrap();
    h.session
        .respond_permission(
            ids[1],
            PermissionResult::allow().with_tool_use_id("explicit"),
        )
        .unwrap();
    let written = h.written();
    assert_eq!(
        written[0]["response"]["response"],
        json!({"behavior":"deny","message":"not here","interrupt":true,"toolUseID":"toolu_1"})
    );
    assert_eq!(written[1]["response"]["response"]["toolUseID"], "explicit");
    assert_eq!(
        h.session
            .respond_permission(ids[0], PermissionResult::allow()),
        Err(RespondError::NotPending)
    );
}

#[test]
fn eof_ends_every_request_in_both_directions() {
    let mut h = Harness::new();
    let (a, _) = h.send(&interrupt(), None);
    let (b, _) = h.send(&interrupt(), Some(Duration::from_secs(1)));
    h.cli_writes(&[can_use_tool("cli-1")]);
    let Event::Request(request) = single(h.events()) else {
        panic!()
    };
    h.session.handle_eof();
    let events = h.events();
    assert_eq!(events.len(), 3);
    let mut ended = Vec::new();
    for event in events {
        match event {
            Event::Response(o) => {
                assert!(matches!(o.result, Err(ControlError::OutputEnded { .. })));
                ended.push(o.id);
            }
            Event::RequestCancelled { id, reason } => {
                assert_eq!(id, request.id());
                assert_eq!(reason, CancelReason::OutputEnded);
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(ended, vec![a, b]);
    assert_eq!(h.session.poll_timeout(), None);
    assert!(matches!(
        h.session.send_user_message(&UserMessage::text("x")),
        Err(SendError::OutputEnded)
    ));
    assert_eq!(
        h.session.respond(request.id(), Reply::ack()),
        Err(RespondError::NotPending)
    );
    h.session.handle_eof();
    h.session.handle_input(b"{\"type\":\"user\"}\n");
    h.advance(Duration::from_secs(10));
    assert!(h.events().is_empty());
}

#[test]
fn closing_input_cancels_what_can_no_longer_be_answered() {
    let mut h = Harness::new();
    let (_, wire) = h.send(&interrupt(), None);
    h.cli_writes(&[can_use_tool("cli-1")]);
    let Event::Request(request) = single(h.events()) else {
        panic!()
    };
    h.session.close_input();
    assert!(matches!(
        h.events().as_slice(),
        [Event::RequestCancelled {
            reason: CancelReason::InputClosed,
            ..
        }]
    ));
    assert_eq!(
        h.session.respond(request.id(), Reply::ack()),
        Err(RespondError::NotPending)
    );
    assert!(matches!(
        h.session.send_user_message(&UserMessage::text("x")),
        Err(SendError::InputClosed)
    ));
    // A new CLI request cannot be answered: refused, nothing written.
    h.cli_writes(&[can_use_tool("cli-2")]);
    assert!(matches!(
        h.events().as_slice(),
        [Event::RequestRefused {
            reason: RefusalReason::InputClosed,
            ..
        }]
    ));
    assert!(h.written().is_empty());
    // Our own request can still be answered.
    h.cli_writes(&[success(&wire, None)]);
    assert!(matches!(h.events().as_slice(), [Event::Response(o)] if o.result.is_ok()));
}

#[test]
fn every_message_type_is_delivered_including_unknown_ones() {
    let mut h = Harness::new();
    h.session.handle_input(
        concat!(
            r#"{"session_id":"s","uuid":"u","subtype":"init","type":"system","cwd":"/x"}"#,
            "\n",
            r#"{"type":"keep_alive"}"#,
            "\n",
            r#"{"type":"brand_new_kind","payload":[1,2,3]}"#,
            "\n",
            r#"{"no_type":true}"#,
            "\n",
        )
        .as_bytes(),
    );
    let events = h.events();
    let kinds: Vec<_> = events
        .iter()
        .map(|e| match e {
            Event::Message(m) => (m.message_type().clone(), m.subtype().map(str::to_owned)),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            (MessageType::System, Some("init".into())),
            (MessageType::KeepAlive, None),
            (MessageType::Unknown("brand_new_kind".into()), None),
            (MessageType::Unknown(String::new()), None),
        ]
    );
    let Event::Message(m) = &events[2] else {
        panic!()
    };
    assert_eq!(
        m.as_bytes(),
        br#"{"type":"brand_new_kind","payload":[1,2,3]}"#
    );
}

#[test]
fn bad_lines_are_events_and_reading_goes_on() {
    let mut h = Harness::new();
    let mut input = Vec::new();
    input.extend_from_slice(b"this is not json\n");
    input.extend_from_slice(b"[1,2,3]\n");
    input.extend_from_slice(b"\"a string\"\n");
    input.extend_from_slice(b"{\"type\":\"user\",\"x\":\"\0\"}\n");
    input.extend_from_slice(b"{\"type\":\"user\",\"x\":\"\xff\xfe\"}\n");
    input.extend_from_slice(b"{\"type\":\"user\"}\n");
    h.session.handle_input(&input);
    let events = h.events();
    let kinds: Vec<_> = events
        .iter()
        .map(|e| match e {
            Event::ProtocolError(err) => format!("{:?}", std::mem::discriminant(&err.kind)),
            Event::Message(_) => "message".into(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(kinds.len(), 6);
    assert_eq!(kinds[5], "message");
    assert!(
        matches!(&events[0], Event::ProtocolError(e) if matches!(e.kind, ProtocolErrorKind::InvalidJson { .. }) && &e.line_prefix[..] == b"this is not json")
    );
    assert!(
        matches!(&events[1], Event::ProtocolError(e) if e.kind == ProtocolErrorKind::NotAnObject)
    );
    assert!(
        matches!(&events[2], Event::ProtocolError(e) if e.kind == ProtocolErrorKind::NotAnObject)
    );
    assert!(
        matches!(&events[3], Event::ProtocolError(e) if matches!(e.kind, ProtocolErrorKind::InvalidJson { .. }))
    );
    assert!(
        matches!(&events[4], Event::ProtocolError(e) if e.kind == ProtocolErrorKind::InvalidUtf8 { valid_up_to: 20 })
    );
    // The error text names the problem and shows the line.
    let text = match &events[0] {
        Event::ProtocolError(e) => e.to_string(),
        _ => unreachable!(),
    };
    assert!(
        text.contains("not valid JSON") && text.contains("this is not json"),
        "{text}"
    );
}

#[test]
fn truncated_last_line_is_reported_at_eof() {
    let mut h = Harness::new();
    h.session
        .handle_input(b"{\"type\":\"user\"}\n{\"type\":\"assis");
    assert_eq!(h.events().len(), 1);
    h.session.handle_eof();
    let Event::ProtocolError(err) = single(h.events()) else {
        panic!()
    };
    assert!(
        matches!(err.kind, ProtocolErrorKind::Truncated { .. }),
        "{err:?}"
    );
    assert_eq!(&err.line_prefix[..], b"{\"type\":\"assis");
}

#[test]
fn complete_last_line_without_newline_is_still_read() {
    let mut h = Harness::new();
    h.session
        .handle_input(b"{\"type\":\"result\",\"subtype\":\"success\"}");
    assert!(h.events().is_empty());
    h.session.handle_eof();
    assert!(matches!(single(h.events()), Event::Message(m) if m.is_result()));
}

#[test]
fn a_100_mb_line_is_skipped_with_memory_bounded_by_the_limit() {
    let mut config = Config::default();
    config.max_line_bytes = 1 << 20;
    let mut h = Harness::with_config(config);
    h.session.handle_input(b"{\"type\":\"user\",\"blob\":\"");
    let chunk = vec![b'A'; 64 * 1024];
    let mut max_buffered = 0;
    for _ in 0..(100 * 1024 * 1024 / chunk.len()) {
        h.session.handle_input(&chunk);
        max_buffered = max_buffered.max(h.session.buffered_input());
    }
    h.session.handle_input(b"\"}\n{\"type\":\"result\"}\n");
    assert!(max_buffered <= 1 << 20, "{max_buffered}");
    let events = h.events();
    assert_eq!(events.len(), 2);
    assert!(
        matches!(&events[0], Event::ProtocolError(e) if e.kind == ProtocolErrorKind::LineTooLong { limit: 1 << 20 } && e.line_prefix.starts_with(b"{\"type\":\"user\""))
    );
    assert!(matches!(&events[1], Event::Message(m) if m.is_result()));
}

#[test]
fn send_json_only_accepts_objects() {
    let mut h = Harness::new();
    assert!(matches!(
        h.session.send_json(&json!([1])),
        Err(SendError::NotAnObject)
    ));
    assert!(matches!(
        h.session.send_json(&"x"),
        Err(SendError::NotAnObject)
    ));
    assert!(h.written().is_empty());
    h.session.send_json(&json!({"type":"keep_alive"})).unwrap();
    assert_eq!(h.written(), vec![json!({"type":"keep_alive"})]);
}

#[test]
fn strings_with_newlines_never_split_a_line() {
    let mut h = Harness::new();
    h.session
        .send_user_message(&UserMessage::text("line one\nline two\r\n\u{2028}"))
        .unwrap();
    let written = h.written();
    assert_eq!(written.len(), 1);
    assert_eq!(
        written[0]["message"]["content"][0]["text"],
        "line one\nline two\r\n\u{2028}"
    );
}

/// Sends `call`, lets the CLI answer with `payload`, and decodes the answer
/// with the call's own response type.
fn typed_round_trip<C: ControlCall>(
    h: &mut Harness,
    call: &C,
    payload: Option<Value>,
) -> C::Response {
    let id = h.session.send_call(call, None, h.now).unwrap();
    let written = single(h.written());
    assert_eq!(written["request"]["subtype"], C::SUBTYPE);
    let wire_id = written["request_id"].as_str().unwrap().to_owned();
    h.cli_writes(&[success(&wire_id, payload)]);
    match single(h.events()) {
        Event::Response(outcome) => {
            assert_eq!(outcome.id, id);
            assert_eq!(outcome.subtype, C::SUBTYPE);
            outcome.result.unwrap().decode_as::<C>().unwrap()
        }
        other => panic!("unexpected {other:?}"),
    }
}

/// `send_call(call)` and `send_control(call.into())` write the same bytes.
fn same_line<C: ControlCall + Clone>(typed: &mut Session, plain: &mut Session, call: &C) {
    let now = Instant::now();
    typed.send_call(call, None, now).unwrap();
    plain.send_control(&call.clone().into(), None, now).unwrap();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    typed.poll_transmit(&mut a);
    plain.poll_transmit(&mut b);
    assert_eq!(String::from_utf8(a).unwrap(), String::from_utf8(b).unwrap());
}

#[test]
fn typed_calls_write_the_enum_line_and_decode_their_own_answer() {
    let mut model = SetModelRequest::default();
    model.model = claude_proto::model::Maybe::Value("opus".into());
    let mut listing = ListModelsRequest::default();
    listing.extra.insert("later".into(), json!(true));
    let (mut typed, mut plain) = (
        Session::new(Config::default()),
        Session::new(Config::default()),
    );
    same_line(&mut typed, &mut plain, &InterruptRequest::default());
    same_line(&mut typed, &mut plain, &model);
    same_line(&mut typed, &mut plain, &listing);
    same_line(&mut typed, &mut plain, &InitializeRequest::default());

    let mut h = Harness::new();
    let r: InterruptResponse = typed_round_trip(
        &mut h,
        &InterruptRequest::default(),
        Some(json!({"still_queued": ["u1"]})),
    );
    assert_eq!(r.still_queued, Some(vec!["u1".to_owned()]));
    // Older CLIs only acknowledge: no payload, or `null`.
    let r = typed_round_trip(&mut h, &InterruptRequest::default(), None);
    assert_eq!(r, InterruptResponse::default());
    let r = typed_round_trip(&mut h, &InterruptRequest::default(), Some(Value::Null));
    assert_eq!(r, InterruptResponse::default());
    let stop = StopTaskRequest {
        task_id: "t".into(),
        ..StopTaskRequest::default()
    };
    let ack: Ack = typed_round_trip(&mut h, &stop, Some(json!({})));
    assert!(ack.extra.is_empty());
    // A required field missing from the answer (`version`) is a decode error.
    let id = h
        .session
        .send_call(&GetBinaryVersionRequest::default(), None, h.now)
        .unwrap();
    let wire_id = single(h.written())["request_id"]
        .as_str()
        .unwrap()
        .to_owned();
    h.cli_writes(&[success(&wire_id, None)]);
    match single(h.events()) {
        Event::Response(outcome) => {
            assert_eq!(outcome.id, id);
            assert!(
                outcome
                    .result
                    .unwrap()
                    .decode_as::<GetBinaryVersionRequest>()
                    .is_err()
            );
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn a_byte_order_mark_before_a_line_is_not_part_of_it() {
    // A wrapper that writes a UTF-8 BOM first must not cost the
    // initialize answer (which would then fail only at its timeout).
    let mut h = Harness::new();
    let (_, wire) = h.send(&interrupt(), None);
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend(serde_json::to_vec(&success(&wire, None)).unwrap());
    bytes.push(b'\n');
    for chunk in bytes.chunks(2) {
        h.session.handle_input(chunk);
    }
    let Event::Response(outcome) = single(h.events()) else {
        panic!("the answer must be read")
    };
    assert!(outcome.result.is_ok());
}

#[test]
fn incoming_requests_report_their_size_on_the_wire() {
    let mut h = Harness::new();
    let line = can_use_tool("p1");
    h.cli_writes(std::slice::from_ref(&line));
    let Event::Request(request) = single(h.events()) else {
        panic!("expected the request")
    };
    let body = serde_json::to_vec(&line["request"]).unwrap();
    assert_eq!(request.wire_len(), body.len());
}
