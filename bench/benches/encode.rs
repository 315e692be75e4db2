//! Encode: what a host writes to the CLI, per call, including
//! `poll_transmit` into a reused buffer.
//!
//! `cargo bench -p claude-proto-bench --bench encode`

use std::time::Instant;

use claude_proto::model::content::ContentBlock;
use claude_proto::model::control::ControlRequest;
use claude_proto::model::permission::PermissionResult;
use claude_proto::model::user::UserMessage;
use claude_proto::{Config, Event, IncomingId, Reply, Session};
use divan::Bencher;
use divan::counter::ItemsCount;

fn main() {
    divan::main();
}

const PROMPT: &str = "Read src/session.rs and explain how a control request travels from \
send_control to its Event::Response, then list the places where a timeout can fire.";

/// A session holding one `can_use_tool` request from the CLI.
fn with_pending_request() -> (Session, IncomingId) {
    let mut session = Session::new(Config::default());
    session.handle_input(
        br#"{"type":"control_request","request_id":"3f1c9a2e-7b4d-4e8a-9c1f-2d5e6a7b8c9d","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"cargo test -p claude-proto","description":"Run the core tests"},"permission_suggestions":[],"tool_use_id":"toolu_01AbCdEfGhIjKlMnOpQrStUv"}}
"#,
    );
    match session.poll_event() {
        Some(Event::Request(request)) => {
            let id = request.id();
            (session, id)
        }
        other => panic!("expected a request, got {other:?}"),
    }
}

#[divan::bench]
fn user_message_text(bencher: Bencher<'_, '_>) {
    let mut session = Session::new(Config::default());
    let message = UserMessage::text(PROMPT);
    let mut buf = Vec::with_capacity(4096);
    bencher.counter(ItemsCount::new(1usize)).bench_local(|| {
        session
            .send_user_message(divan::black_box(&message))
            .expect("writable");
        buf.clear();
        session.poll_transmit(&mut buf);
        buf.len()
    });
}

#[divan::bench]
fn user_message_tool_result_4k(bencher: Bencher<'_, '_>) {
    let mut session = Session::new(Config::default());
    let body = "    let text = std::fs::read_to_string(\"config.toml\")?;\n".repeat(72);
    let message = UserMessage::blocks(vec![ContentBlock::tool_result(
        "toolu_01AbCdEfGhIjKlMnOpQrStUv",
        body,
    )]);
    let mut buf = Vec::with_capacity(8192);
    bencher.counter(ItemsCount::new(1usize)).bench_local(|| {
        session
            .send_user_message(divan::black_box(&message))
            .expect("writable");
        buf.clear();
        session.poll_transmit(&mut buf);
        buf.len()
    });
}

#[divan::bench]
fn respond_success(bencher: Bencher<'_, '_>) {
    let reply = Reply::success(
        &serde_json::json!({"behavior": "allow", "updatedInput": {"command": "ls"}}),
    )
    .expect("a reply");
    bencher
        .counter(ItemsCount::new(1usize))
        .with_inputs(|| (with_pending_request(), Vec::with_capacity(1024)))
        .bench_local_values(|((mut session, id), mut buf)| {
            session.respond(id, reply.clone()).expect("pending");
            session.poll_transmit(&mut buf);
            (session, buf)
        });
}

#[divan::bench]
fn respond_permission_allow(bencher: Bencher<'_, '_>) {
    bencher
        .counter(ItemsCount::new(1usize))
        .with_inputs(|| (with_pending_request(), Vec::with_capacity(1024)))
        .bench_local_values(|((mut session, id), mut buf)| {
            session
                .respond_permission(id, PermissionResult::allow())
                .expect("pending");
            session.poll_transmit(&mut buf);
            (session, buf)
        });
}

#[divan::bench]
fn send_control_interrupt(bencher: Bencher<'_, '_>) {
    let now = Instant::now();
    let request = ControlRequest::interrupt();
    bencher
        .counter(ItemsCount::new(1usize))
        .with_inputs(|| (Session::new(Config::default()), Vec::with_capacity(1024)))
        .bench_local_values(|(mut session, mut buf)| {
            session.send_control(&request, None, now).expect("writable");
            session.poll_transmit(&mut buf);
            (session, buf)
        });
}
