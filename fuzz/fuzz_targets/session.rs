//! The whole state machine under an arbitrary interleaving of CLI output,
//! user commands, time and end of output, checked after every step against
//! an independent model of what the CLI and the user have seen.
//!
//! Invariants checked:
//! - every control request from the CLI is answered at most once, and never
//!   after the CLI cancelled it (counted on the `control_response` lines
//!   actually written to stdin, against the CLI's own view);
//! - every control request we send ends in exactly one `Event::Response`,
//!   never a timeout before its deadline, never still waiting after
//!   `handle_timeout` passed its deadline, and all of them by the final
//!   `handle_eof`;
//! - `poll_timeout` is the earliest deadline still waiting;
//! - `respond` succeeds exactly for delivered requests not yet answered or
//!   ended, answers the right wire id, and `respond_permission` echoes the
//!   request's `tool_use_id`;
//! - `pending_incoming() <= max_pending_incoming`,
//!   `buffered_input() <= max_line_bytes`;
//! - everything written to stdin is whole lines, each a JSON object, and
//!   nothing is written after `close_input` or `handle_eof`.
//!
//! How the model stays exact: well-formed CLI lines always start on a fresh
//! line (the harness ends an unterminated garbage line first) and are short,
//! so none is lost; garbage bytes have `c` and `\` replaced, so garbage can
//! never spell (or escape) a `control_*` type. A CLI request id is reused
//! only once its previous request is closed (a real CLI uses UUIDs). A
//! request the CLI lists as waiting in an `initialize` answer counts as new
//! only if no request with that id is open (see the README: an answer that
//! crossed the replay on the wire can make the session deliver it again).
#![no_main]

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use arbitrary::Arbitrary;
use claude_proto::model::control::ControlRequest;
use claude_proto::model::incoming::CliRequest;
use claude_proto::model::initialize::InitializeRequest;
use claude_proto::model::permission::PermissionResult;
use claude_proto::model::user::UserMessage;
use claude_proto::{Config, ControlError, Event, IncomingId, Reply, RequestId, Session};
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};

const MAX_PENDING: usize = 3;
const MAX_LINE: usize = 4096;
const MAX_OPS: usize = 256;

#[derive(Arbitrary, Debug)]
struct Input {
    refuse_unknown: bool,
    seed: u8,
    ops: Vec<Op>,
}

#[derive(Arbitrary, Debug)]
enum Op {
    /// The CLI asks something, with a fresh request id.
    CliRequest {
        body: Body,
    },
    /// The CLI asks again with the id of a request that is closed.
    CliRequestReusingId {
        pick: u8,
        body: Body,
    },
    /// A `control_request` whose `request_id` is not a string.
    CliRequestWithoutId {
        body: Body,
    },
    /// The CLI withdraws one of its requests (any, even closed ones).
    CliCancel {
        pick: u8,
    },
    /// The CLI answers one of our requests (or one we never sent).
    CliResponse {
        target: Target,
        kind: ResponseKind,
    },
    /// A line outside the control channel.
    CliMessage(MessageKind),
    /// Raw bytes, possibly without a newline.
    Garbage {
        bytes: Vec<u8>,
        newline: bool,
    },
    Initialize {
        timeout: Timeout,
    },
    SendControl {
        timeout: Timeout,
        kind: u8,
    },
    SendUser {
        text: String,
    },
    Cancel {
        pick: u8,
    },
    Respond {
        pick: u8,
        reply: ReplyKind,
    },
    RespondPermission {
        pick: u8,
        allow: bool,
        own_tool_use_id: bool,
    },
    CloseInput,
    Advance {
        ms: u16,
    },
    AdvanceToDeadline,
    /// `handle_timeout` with a time earlier than the last one.
    StaleTimeout {
        back_ms: u16,
    },
    Eof,
}

#[derive(Arbitrary, Debug, Clone)]
enum Body {
    CanUseTool {
        tool_use_id: Option<u8>,
    },
    HookCallback,
    McpMessage,
    Elicitation,
    UserDialog,
    Unknown(u8),
    /// A modelled subtype without the fields it needs.
    MissingFields(u8),
    NoSubtype,
    SubtypeNotString,
    NotAnObject,
    Absent,
}

#[derive(Arbitrary, Debug)]
enum Target {
    Sent(u8),
    Nobody(u8),
}

#[derive(Arbitrary, Debug)]
enum ResponseKind {
    Success,
    SuccessWithPayload,
    Error {
        with_code: bool,
    },
    OtherSubtype {
        with_error: bool,
    },
    /// A success listing requests the CLI already has waiting (what the
    /// answer to `initialize` may carry).
    WithPending(Vec<(PendingId, Body)>),
    NoRequestId,
    ResponseNotAnObject,
}

#[derive(Arbitrary, Debug)]
enum PendingId {
    Existing(u8),
    Fresh,
}

#[derive(Arbitrary, Debug)]
enum MessageKind {
    Assistant,
    Result,
    SystemInit,
    KeepAlive,
    UnknownType,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Timeout {
    Ms(u16),
    Default,
    Huge,
}

#[derive(Arbitrary, Debug)]
enum ReplyKind {
    Ack,
    Payload,
    Error,
}

fn body_json(body: &Body) -> Option<Value> {
    const MODELLED: [&str; 5] = [
        "can_use_tool",
        "hook_callback",
        "mcp_message",
        "elicitation",
        "request_user_dialog",
    ];
    Some(match body {
        Body::CanUseTool { tool_use_id } => {
            let mut v =
                json!({"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"ls"}});
            if let Some(n) = tool_use_id {
                v["tool_use_id"] = json!(format!("toolu_{n}"));
            }
            v
        }
        Body::HookCallback => json!({
            "subtype":"hook_callback","callback_id":"hook_0","tool_use_id":"t",
            "input":{"session_id":"s","transcript_path":"/t.jsonl","cwd":"/",
                     "hook_event_name":"UserPromptSubmit","prompt":"hi"}
        }),
        Body::McpMessage => json!({
            "subtype":"mcp_message","server_name":"calc",
            "message":{"method":"tools/list","jsonrpc":"2.0","id":1}
        }),
        Body::Elicitation => {
            json!({"subtype":"elicitation","mcp_server_name":"srv","message":"Which?"})
        }
        Body::UserDialog => {
            json!({"subtype":"request_user_dialog","dialog_kind":"k","payload":{}})
        }
        Body::Unknown(n) => json!({"subtype": format!("mystery_{}", n % 4), "x": n}),
        Body::MissingFields(n) => json!({"subtype": MODELLED[usize::from(*n) % 5]}),
        Body::NoSubtype => json!({"tool_name":"Bash"}),
        Body::SubtypeNotString => json!({"subtype": 7}),
        Body::NotAnObject => json!([1, "can_use_tool"]),
        Body::Absent => return None,
    })
}

fn request_line(id: Value, body: &Body) -> Value {
    let mut line = json!({"type":"control_request","request_id":id});
    if let Some(body) = body_json(body) {
        line["request"] = body;
    }
    line
}

struct Sent {
    id: RequestId,
    wire: String,
    deadline: Option<Instant>,
}

#[derive(Default)]
struct Model {
    // --- our requests ---
    sent: Vec<Sent>,
    outcomes: HashMap<RequestId, usize>,
    // --- the CLI's requests, as the CLI sees them ---
    cli_ids: Vec<String>,
    next_cli_id: u32,
    /// Requests the CLI sent with this id that are neither answered nor
    /// cancelled by the CLI.
    open: HashMap<String, usize>,
    // --- the CLI's requests, as the user sees them ---
    delivered: Vec<IncomingId>,
    delivered_wire: HashMap<IncomingId, String>,
    delivered_tool_use_id: HashMap<IncomingId, Option<String>>,
    pending: HashSet<IncomingId>,
    ended: HashSet<IncomingId>,
    // --- stream state ---
    mid_line: bool,
    input_closed: bool,
    output_ended: bool,
    initialized_ok: bool,
    /// A request this step sent, registered when its line is drained.
    just_sent: Option<(RequestId, Option<Instant>)>,
}

impl Model {
    fn fresh_cli_id(&mut self) -> String {
        self.next_cli_id += 1;
        let id = format!("cli-{}", self.next_cli_id);
        self.cli_ids.push(id.clone());
        id
    }

    fn open(&mut self, wire: &str) {
        *self.open.entry(wire.to_owned()).or_default() += 1;
    }

    fn deadline_of(&self, id: RequestId) -> Option<Instant> {
        self.sent
            .iter()
            .find(|s| s.id == id)
            .and_then(|s| s.deadline)
    }

    fn unresolved(&self) -> impl Iterator<Item = &Sent> {
        self.sent
            .iter()
            .filter(|s| !self.outcomes.contains_key(&s.id))
    }
}

/// Writes a well-formed CLI line, always on a line of its own.
fn cli_line(session: &mut Session, model: &mut Model, line: &Value) {
    let mut bytes = serde_json::to_vec(line).expect("a JSON value encodes");
    assert!(bytes.len() < MAX_LINE, "harness line too long");
    bytes.push(b'\n');
    if model.mid_line {
        session.handle_input(b"\n");
        model.mid_line = false;
    }
    session.handle_input(&bytes);
}

struct Step {
    /// Wire id of the `control_request` this step wrote, if any.
    wrote_request: Option<String>,
    /// Wire ids of the `control_response` lines this step wrote.
    wrote_responses: Vec<(String, Value)>,
}

/// Drains the session and checks everything that must hold after any step.
///
/// `latest` is the latest time ever given to `handle_timeout`; `told` is the
/// time given in this step, if any.
fn drain(session: &mut Session, model: &mut Model, latest: Instant, told: Option<Instant>) -> Step {
    let mut step = Step {
        wrote_request: None,
        wrote_responses: Vec::new(),
    };
    let mut out = Vec::new();
    session.poll_transmit(&mut out);
    assert!(
        !session.poll_transmit(&mut Vec::new()),
        "poll_transmit left bytes behind"
    );
    if !out.is_empty() {
        assert_eq!(out.last(), Some(&b'\n'), "stdin output is not whole lines");
    }
    for line in out.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let value: Value = match serde_json::from_slice(line) {
            Ok(v @ Value::Object(_)) => v,
            other => panic!(
                "wrote a line that is not a JSON object ({other:?}): {:?}",
                String::from_utf8_lossy(line)
            ),
        };
        match value["type"].as_str() {
            Some("control_request") => {
                let wire = value["request_id"]
                    .as_str()
                    .expect("our request has a string id")
                    .to_owned();
                let (id, deadline) = model.just_sent.take().expect("a request line per send");
                assert!(
                    model.sent.iter().all(|s| s.wire != wire && s.id != id),
                    "request id {wire:?} reused"
                );
                model.sent.push(Sent {
                    id,
                    wire: wire.clone(),
                    deadline,
                });
                step.wrote_request = Some(wire);
            }
            Some("control_response") => {
                let wire = value["response"]["request_id"]
                    .as_str()
                    .expect("our answer has a string id")
                    .to_owned();
                let open = model.open.entry(wire.clone()).or_default();
                assert!(
                    *open > 0,
                    "answered {wire:?}, which the CLI has no open request for \
                     (answered twice, or after the CLI cancelled it)"
                );
                *open -= 1;
                step.wrote_responses.push((wire, value));
            }
            _ => {}
        }
    }
    if model.input_closed || model.output_ended {
        // Nothing reaches the CLI once its stdin is closed or it is gone;
        // the line that reported it was drained by the previous step.
        assert!(out.is_empty(), "wrote after close_input or handle_eof");
    }

    while let Some(event) = session.poll_event() {
        match event {
            Event::Response(outcome) => {
                let count = model.outcomes.entry(outcome.id).or_default();
                *count += 1;
                assert_eq!(*count, 1, "{} resolved twice", outcome.id);
                let sent = model
                    .sent
                    .iter()
                    .find(|s| s.id == outcome.id)
                    .expect("an outcome for a request we never sent");
                assert_eq!(sent.wire, outcome.request_id);
                if let Err(ControlError::TimedOut { .. }) = &outcome.result {
                    let deadline = sent.deadline.expect("timed out without a deadline");
                    assert!(deadline <= latest, "timed out before its deadline");
                }
                if outcome.subtype == "initialize" && outcome.result.is_ok() {
                    model.initialized_ok = true;
                }
            }
            Event::Request(request) => {
                let id = request.id();
                assert!(
                    !model.delivered_wire.contains_key(&id),
                    "{id} delivered twice"
                );
                assert!(
                    model.open.get(request.request_id()).copied().unwrap_or(0) > 0,
                    "delivered {:?}, which the CLI has no open request for",
                    request.request_id()
                );
                let tool_use_id = match request.request() {
                    CliRequest::CanUseTool(ask) => ask.tool_use_id.clone(),
                    _ => None,
                };
                model.delivered.push(id);
                model
                    .delivered_wire
                    .insert(id, request.request_id().to_owned());
                model.delivered_tool_use_id.insert(id, tool_use_id);
                model.pending.insert(id);
            }
            Event::RequestCancelled { id, .. } => {
                assert!(model.pending.remove(&id), "{id} cancelled but not pending");
                assert!(model.ended.insert(id), "{id} ended twice");
            }
            Event::RequestRefused { .. } | Event::Message(_) | Event::ProtocolError(_) => {}
            other => panic!("unexpected event {other:?}"),
        }
    }

    assert!(session.pending_incoming() <= MAX_PENDING);
    assert_eq!(session.pending_incoming(), model.pending.len());
    assert!(session.buffered_input() <= MAX_LINE);
    assert_eq!(session.pending_requests(), model.unresolved().count());
    let earliest = model.unresolved().filter_map(|s| s.deadline).min();
    assert_eq!(session.poll_timeout(), earliest, "poll_timeout is off");
    if let (Some(earliest), Some(told)) = (earliest, told) {
        assert!(earliest > told, "a request outlived its deadline");
    }
    if model.initialized_ok {
        assert!(session.is_initialized());
    }
    assert_eq!(session.is_input_closed(), model.input_closed);
    assert_eq!(session.is_output_ended(), model.output_ended);
    step
}

fn timeout_of(t: Timeout) -> Option<Duration> {
    match t {
        Timeout::Ms(ms) => Some(Duration::from_millis(u64::from(ms))),
        Timeout::Default => None,
        Timeout::Huge => Some(Duration::MAX),
    }
}

fn control_request(kind: u8) -> ControlRequest {
    match kind % 4 {
        0 => ControlRequest::interrupt(),
        1 => ControlRequest::set_model(Some("sonnet")),
        2 => ControlRequest::mcp_status(),
        _ => {
            // Sent as `initialize` through `send_control`: its answer still
            // replays pending requests.
            ControlRequest::initialize(InitializeRequest::default())
        }
    }
}

fn run(input: Input) {
    let mut config = Config::default();
    config.max_line_bytes = MAX_LINE;
    config.max_pending_incoming = MAX_PENDING;
    config.refuse_unknown_requests = input.refuse_unknown;
    config.request_id_seed = u64::from(input.seed);
    config.request_timeout = Duration::from_secs(30);
    let default_timeout = config.request_timeout;
    let mut session = Session::new(config);
    let base = Instant::now();
    let mut now = base;
    let mut timeout_arg = base;
    let mut model = Model::default();

    for op in input.ops.into_iter().take(MAX_OPS) {
        let mut expect_request: Option<(Result<RequestId, ()>, Option<Instant>)> = None;
        let mut expect_answer: Option<(IncomingId, Option<Option<String>>)> = None;
        let writable = !model.input_closed && !model.output_ended;
        let mut told: Option<Instant> = None;
        match op {
            Op::CliRequest { body } => {
                let wire = model.fresh_cli_id();
                model.open(&wire);
                cli_line(&mut session, &mut model, &request_line(json!(wire), &body));
            }
            Op::CliRequestReusingId { pick, body } => {
                if model.cli_ids.is_empty() {
                    continue;
                }
                let wire = model.cli_ids[usize::from(pick) % model.cli_ids.len()].clone();
                if model.open.get(&wire).copied().unwrap_or(0) > 0 {
                    continue;
                }
                model.open(&wire);
                cli_line(&mut session, &mut model, &request_line(json!(wire), &body));
            }
            Op::CliRequestWithoutId { body } => {
                cli_line(&mut session, &mut model, &request_line(json!(12), &body));
            }
            Op::CliCancel { pick } => {
                if model.cli_ids.is_empty() {
                    continue;
                }
                let wire = model.cli_ids[usize::from(pick) % model.cli_ids.len()].clone();
                if let Some(open) = model.open.get_mut(&wire) {
                    *open = open.saturating_sub(1);
                }
                let line = json!({"type":"control_cancel_request","request_id":wire});
                cli_line(&mut session, &mut model, &line);
            }
            Op::CliResponse { target, kind } => {
                let wire = match target {
                    Target::Sent(pick) if !model.sent.is_empty() => model.sent
                        [usize::from(pick) % model.sent.len()]
                    .wire
                    .clone(),
                    Target::Sent(n) | Target::Nobody(n) => format!("req_{n}_nobody"),
                };
                let response = match kind {
                    ResponseKind::Success => json!({"subtype":"success","request_id":wire}),
                    ResponseKind::SuccessWithPayload => {
                        json!({"subtype":"success","request_id":wire,"response":{"a":[1]}})
                    }
                    ResponseKind::Error { with_code } => {
                        let mut r = json!({"subtype":"error","request_id":wire,"error":"no"});
                        if with_code {
                            r["error_code"] = json!("internal_error");
                        }
                        r
                    }
                    ResponseKind::OtherSubtype { with_error } => {
                        let mut r = json!({"subtype":"maybe","request_id":wire});
                        if with_error {
                            r["error"] = json!("hm");
                        }
                        r
                    }
                    ResponseKind::WithPending(items) => {
                        let mut list = Vec::new();
                        let mut listed = HashSet::new();
                        for (id, body) in items.iter().take(4) {
                            let id = match id {
                                PendingId::Existing(pick) if !model.cli_ids.is_empty() => {
                                    model.cli_ids[usize::from(*pick) % model.cli_ids.len()].clone()
                                }
                                _ => model.fresh_cli_id(),
                            };
                            // Each waiting request is listed once.
                            if !listed.insert(id.clone()) {
                                continue;
                            }
                            // The CLI lists requests it has waiting: one with
                            // an open id is that same request; any other is
                            // new to the session. (Whether the session reads
                            // the list at all depends on the target being a
                            // waiting `initialize`; counting it open anyway
                            // only makes the model more lenient.)
                            if model.open.get(&id).copied().unwrap_or(0) == 0 {
                                model.open(&id);
                            }
                            list.push(request_line(json!(id), body));
                        }
                        json!({"subtype":"success","request_id":wire,"response":{},
                               "pending_permission_requests":list})
                    }
                    ResponseKind::NoRequestId => json!({"subtype":"success"}),
                    ResponseKind::ResponseNotAnObject => json!("success"),
                };
                let line = json!({"type":"control_response","response":response});
                cli_line(&mut session, &mut model, &line);
            }
            Op::CliMessage(kind) => {
                let line = match kind {
                    MessageKind::Assistant => json!({"type":"assistant","message":{
                        "id":"m","type":"message","role":"assistant","model":"x",
                        "content":[{"type":"text","text":"hi"}],"stop_reason":null,
                        "stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}},
                        "parent_tool_use_id":null,"session_id":"s","uuid":"u"}),
                    MessageKind::Result => json!({"type":"result","subtype":"success",
                        "is_error":false,"result":"ok","session_id":"s"}),
                    MessageKind::SystemInit => {
                        json!({"type":"system","subtype":"init","session_id":"s"})
                    }
                    MessageKind::KeepAlive => json!({"type":"keep_alive"}),
                    MessageKind::UnknownType => json!({"type":"from_the_future","x":[1]}),
                };
                cli_line(&mut session, &mut model, &line);
            }
            Op::Garbage { mut bytes, newline } => {
                bytes.truncate(2 * MAX_LINE);
                for b in &mut bytes {
                    match *b {
                        b'c' => *b = b'k',
                        b'\\' => *b = b'/',
                        _ => {}
                    }
                }
                if newline {
                    bytes.push(b'\n');
                }
                session.handle_input(&bytes);
                if let Some(&last) = bytes.last() {
                    model.mid_line = last != b'\n';
                }
            }
            Op::Initialize { timeout } => {
                let result =
                    session.initialize(&InitializeRequest::default(), timeout_of(timeout), now);
                let deadline = now.checked_add(timeout_of(timeout).unwrap_or(default_timeout));
                expect_request = Some((result.map_err(|_| ()), deadline));
            }
            Op::SendControl { timeout, kind } => {
                let result = session.send_control(&control_request(kind), timeout_of(timeout), now);
                let deadline = now.checked_add(timeout_of(timeout).unwrap_or(default_timeout));
                expect_request = Some((result.map_err(|_| ()), deadline));
            }
            Op::SendUser { text } => {
                let result = session.send_user_message(&UserMessage::text(text));
                assert_eq!(result.is_ok(), writable, "send_user_message: {result:?}");
            }
            Op::Cancel { pick } => {
                if model.sent.is_empty() {
                    continue;
                }
                let id = model.sent[usize::from(pick) % model.sent.len()].id;
                let waiting = !model.outcomes.contains_key(&id);
                assert_eq!(session.cancel_request(id), waiting, "cancel_request");
            }
            Op::Respond { pick, reply } => {
                if model.delivered.is_empty() {
                    continue;
                }
                let id = model.delivered[usize::from(pick) % model.delivered.len()];
                let reply = match reply {
                    ReplyKind::Ack => Reply::ack(),
                    ReplyKind::Payload => {
                        Reply::success(&json!({"behavior":"allow"})).expect("encodes")
                    }
                    ReplyKind::Error => Reply::error_with_code("nope", "denied"),
                };
                let result = session.respond(id, reply);
                assert_eq!(
                    result.is_ok(),
                    model.pending.contains(&id),
                    "respond: {result:?}"
                );
                if result.is_ok() {
                    model.pending.remove(&id);
                    model.ended.insert(id);
                    expect_answer = Some((id, None));
                }
            }
            Op::RespondPermission {
                pick,
                allow,
                own_tool_use_id,
            } => {
                if model.delivered.is_empty() {
                    continue;
                }
                let id = model.delivered[usize::from(pick) % model.delivered.len()];
                let mut result = if allow {
                    PermissionResult::allow()
                } else {
                    PermissionResult::deny("no")
                };
                if own_tool_use_id {
                    result = result.with_tool_use_id("mine");
                }
                let expected_tool_use_id = if own_tool_use_id {
                    Some("mine".to_owned())
                } else {
                    model.delivered_tool_use_id.get(&id).cloned().flatten()
                };
                let result = session.respond_permission(id, result);
                assert_eq!(
                    result.is_ok(),
                    model.pending.contains(&id),
                    "respond_permission: {result:?}"
                );
                if result.is_ok() {
                    model.pending.remove(&id);
                    model.ended.insert(id);
                    expect_answer = Some((id, Some(expected_tool_use_id)));
                }
            }
            Op::CloseInput => {
                session.close_input();
                // Closing writes nothing (checked by `drain`).
                model.input_closed = true;
                drain(&mut session, &mut model, timeout_arg, None);
                continue;
            }
            Op::Advance { ms } => {
                now += Duration::from_millis(u64::from(ms));
                timeout_arg = now;
                told = Some(now);
                session.handle_timeout(now);
            }
            Op::AdvanceToDeadline => {
                if let Some(deadline) = session.poll_timeout() {
                    now = now.max(deadline);
                }
                timeout_arg = now;
                told = Some(now);
                session.handle_timeout(now);
            }
            Op::StaleTimeout { back_ms } => {
                let then = timeout_arg
                    .checked_sub(Duration::from_millis(u64::from(back_ms)))
                    .unwrap_or(timeout_arg)
                    .max(base);
                told = Some(then);
                session.handle_timeout(then);
            }
            Op::Eof => {
                session.handle_eof();
                model.mid_line = false;
                // Nothing the harness leaves unterminated is a control
                // request, so the end of output writes nothing.
                model.output_ended = true;
                drain(&mut session, &mut model, timeout_arg, None);
                continue;
            }
        }

        if let Some((result, deadline)) = expect_request {
            assert_eq!(result.is_ok(), writable, "send while writable={writable}");
            if let Ok(id) = result {
                model.just_sent = Some((id, deadline));
            }
        }
        let step = drain(&mut session, &mut model, timeout_arg, told);
        assert!(model.just_sent.is_none(), "a sent request wrote no line");
        if let Some((Ok(id), deadline)) = expect_request {
            assert!(step.wrote_request.is_some());
            assert_eq!(model.deadline_of(id), deadline);
        } else {
            assert!(step.wrote_request.is_none(), "a request line nobody sent");
        }
        if let Some((id, tool_use_id)) = expect_answer {
            assert_eq!(step.wrote_responses.len(), 1, "one answer per respond");
            let (wire, line) = &step.wrote_responses[0];
            assert_eq!(
                Some(wire),
                model.delivered_wire.get(&id),
                "answered the wrong id"
            );
            if let Some(expected) = tool_use_id {
                let echoed = line["response"]["response"]["toolUseID"].as_str();
                assert_eq!(echoed, expected.as_deref(), "toolUseID not echoed");
            }
        }
    }

    // The end of output resolves everything.
    session.handle_eof();
    model.output_ended = true;
    drain(&mut session, &mut model, timeout_arg, None);
    for sent in &model.sent {
        assert_eq!(
            model.outcomes.get(&sent.id).copied(),
            Some(1),
            "{} has no outcome at the end",
            sent.id
        );
    }
    assert!(
        model.pending.is_empty(),
        "CLI requests left waiting at the end"
    );
    assert_eq!(session.pending_requests(), 0);
    assert_eq!(session.pending_incoming(), 0);
    assert_eq!(session.poll_timeout(), None);
    assert_eq!(session.buffered_input(), 0);
}

fuzz_target!(|input: Input| run(input));
