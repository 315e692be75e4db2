//! Round trips over transcripts recorded from the real CLI
//! (`tests/fixtures/*.ndjson`, see the README there).
//!
//! Every line the CLI wrote goes through a session; every message must be
//! recognised by its typed model (no known type may fall back to
//! `Unknown`) and re-encode to the same JSON value. Every line the host
//! wrote must decode into our outgoing types and re-encode identically.
#![allow(clippy::unwrap_used)] // test helpers fail loudly by design

use std::collections::HashMap;
use std::path::PathBuf;

use claude_proto::model::MessageType;
use claude_proto::model::control::ControlRequest;
use claude_proto::model::hooks::HookOutput;
use claude_proto::model::incoming::{CliRequest, McpMessageResponse};
use claude_proto::model::initialize::{InitializeRequest, InitializeResponse};
use claude_proto::model::permission::PermissionResult;
use claude_proto::model::stdout::StdoutMessage;
use claude_proto::model::user::UserMessage;
use claude_proto::{Config, Event, ProtocolErrorKind, Session};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

struct Fixture {
    name: String,
    /// (direction, line) in recorded order; "in" = CLI stdout.
    lines: Vec<(String, String)>,
}

fn fixtures() -> Vec<Fixture> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("ndjson") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let lines = text
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                (
                    v["dir"].as_str().unwrap().to_owned(),
                    v["line"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        out.push(Fixture {
            name: path.file_name().unwrap().to_string_lossy().into_owned(),
            lines,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    assert!(out.len() >= 10, "fixtures missing from {}", dir.display());
    out
}

/// Decodes `text` as `T`, re-encodes it, and checks the JSON value is equal.
fn round_trip<T: DeserializeOwned + Serialize>(what: &str, text: &str) -> T {
    let original: Value = serde_json::from_str(text).unwrap();
    let typed: T = serde_json::from_str(text)
        .unwrap_or_else(|e| panic!("{what}: does not decode: {e}\n{text}"));
    let back = serde_json::to_value(&typed).unwrap();
    assert_eq!(back, original, "{what}: re-encoding changed the value");
    typed
}

fn all_cli_bytes(fixture: &Fixture) -> Vec<u8> {
    let mut bytes = Vec::new();
    for (dir, line) in &fixture.lines {
        if dir == "in" {
            bytes.extend_from_slice(line.as_bytes());
            bytes.push(b'\n');
        }
    }
    bytes
}

#[test]
fn every_cli_line_is_typed_and_round_trips() {
    let mut seen_types: HashMap<String, usize> = HashMap::new();
    for fixture in fixtures() {
        let mut session = Session::new(Config::default());
        session.handle_input(&all_cli_bytes(&fixture));
        session.handle_eof();
        while let Some(event) = session.poll_event() {
            let where_ = &fixture.name;
            match event {
                Event::Message(message) => {
                    let typed = message.parse().unwrap();
                    let original: Value = serde_json::from_slice(message.as_bytes()).unwrap();
                    assert_eq!(
                        serde_json::to_value(&typed).unwrap(),
                        original,
                        "{where_}: {} did not round-trip",
                        message.message_type()
                    );
                    let known = !matches!(message.message_type(), MessageType::Unknown(_));
                    if known {
                        assert!(
                            !matches!(typed, StdoutMessage::Unknown(_)),
                            "{where_}: a known {} line fell back to Unknown: {}",
                            message.message_type(),
                            String::from_utf8_lossy(message.as_bytes())
                        );
                    }
                    let key = format!(
                        "{}{}",
                        message.message_type(),
                        message
                            .subtype()
                            .map(|s| format!("/{s}"))
                            .unwrap_or_default()
                    );
                    *seen_types.entry(key).or_default() += 1;
                }
                Event::Request(request) => {
                    assert!(
                        !matches!(request.request(), CliRequest::Unknown(_)),
                        "{where_}: request {} not typed",
                        request.subtype()
                    );
                    let text = serde_json::to_string(request.request()).unwrap();
                    round_trip::<CliRequest>(&format!("{where_}: {}", request.subtype()), &text);
                }
                // The recorded answers are to requests this session never
                // sent, so they are unmatched here; nothing else may fail.
                Event::ProtocolError(e) => assert!(
                    matches!(e.kind, ProtocolErrorKind::UnmatchedResponse { .. }),
                    "{where_}: {e}"
                ),
                Event::RequestCancelled { .. } => {}
                other => panic!("{where_}: unexpected {other:?}"),
            }
        }
    }
    for expected in [
        "system/init",
        "assistant",
        "user",
        "result/success",
        "stream_event",
    ] {
        assert!(
            seen_types.contains_key(expected),
            "no {expected} in fixtures: {seen_types:?}"
        );
    }
}

#[test]
fn every_control_request_from_the_cli_round_trips_as_recorded() {
    for fixture in fixtures() {
        for (dir, line) in &fixture.lines {
            let v: Value = serde_json::from_str(line).unwrap();
            if dir != "in" || v["type"] != "control_request" {
                continue;
            }
            let text = v["request"].to_string();
            let typed: CliRequest = round_trip(&fixture.name, &text);
            assert!(
                !matches!(typed, CliRequest::Unknown(_)),
                "{}: {text}",
                fixture.name
            );
        }
    }
}

#[test]
fn every_host_line_decodes_into_our_outgoing_types() {
    for fixture in fixtures() {
        // Which subtype each CLI request had, to type our answers.
        let mut cli_subtypes: HashMap<String, String> = HashMap::new();
        // Which subtype each of our requests had, to type the CLI's answers.
        let mut our_subtypes: HashMap<String, String> = HashMap::new();
        for (dir, line) in &fixture.lines {
            let v: Value = serde_json::from_str(line).unwrap();
            let what = format!("{} {dir} {}", fixture.name, v["type"]);
            match (dir.as_str(), v["type"].as_str().unwrap_or("")) {
                ("in", "control_request") => {
                    cli_subtypes.insert(
                        v["request_id"].as_str().unwrap().into(),
                        v["request"]["subtype"].as_str().unwrap().into(),
                    );
                }
                ("in", "control_response") => {
                    let id = v["response"]["request_id"].as_str().unwrap();
                    let payload = &v["response"]["response"];
                    if our_subtypes.get(id).map(String::as_str) == Some("initialize")
                        && v["response"]["subtype"] == "success"
                    {
                        round_trip::<InitializeResponse>(&what, &payload.to_string());
                    }
                }
                ("out", "user") => {
                    round_trip::<UserMessage>(&what, line);
                }
                ("out", "control_request") => {
                    our_subtypes.insert(
                        v["request_id"].as_str().unwrap().into(),
                        v["request"]["subtype"].as_str().unwrap().into(),
                    );
                    let request: ControlRequest = round_trip(&what, &v["request"].to_string());
                    assert_eq!(request.subtype(), v["request"]["subtype"].as_str().unwrap());
                    if v["request"]["subtype"] == "initialize" {
                        let mut body = v["request"].clone();
                        body.as_object_mut().unwrap().remove("subtype");
                        round_trip::<InitializeRequest>(&what, &body.to_string());
                    }
                }
                ("out", "control_response") => {
                    let id = v["response"]["request_id"].as_str().unwrap();
                    let payload = v["response"]["response"].to_string();
                    match cli_subtypes.get(id).map(String::as_str) {
                        Some("can_use_tool") => {
                            round_trip::<PermissionResult>(&what, &payload);
                        }
                        Some("hook_callback") => {
                            round_trip::<HookOutput>(&what, &payload);
                        }
                        Some("mcp_message") => {
                            round_trip::<McpMessageResponse>(&what, &payload);
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
        }
    }
}

#[test]
fn byte_at_a_time_gives_the_same_events_as_whole_transcripts() {
    for fixture in fixtures() {
        let bytes = all_cli_bytes(&fixture);
        let collect = |chunk: usize| {
            let mut session = Session::new(Config::default());
            for piece in bytes.chunks(chunk) {
                session.handle_input(piece);
            }
            session.handle_eof();
            std::iter::from_fn(|| session.poll_event())
                .map(|e| match e {
                    Event::Message(m) => format!("{:?}", m.as_bytes()),
                    other => format!("{other:?}"),
                })
                .collect::<Vec<_>>()
        };
        let whole = collect(bytes.len().max(1));
        assert_eq!(collect(1), whole, "{}", fixture.name);
        assert_eq!(collect(7), whole, "{}", fixture.name);
        assert_eq!(collect(4096), whole, "{}", fixture.name);
    }
}
