//! The rmcp bridge: any message the CLI could send to an endpoint server
//! (arbitrary JSON, or JSON-RPC shaped with ids of every JSON type, known
//! and unknown methods, odd params) is answered exactly once, with a
//! JSON-RPC response for a request and nothing for the rest, within a
//! bound; the endpoint never panics and keeps answering.
#![no_main]

use std::sync::OnceLock;
use std::sync::mpsc::{RecvTimeoutError, sync_channel};
use std::time::Duration;

use arbitrary::Arbitrary;
use claude_proto_adapter::{McpEndpoint, McpOutlet, McpReply};
use claude_proto_rmcp::RmcpEndpoint;
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};

/// An rmcp server with rmcp's default answers: initialize, ping, empty
/// lists, "method not found" for the rest.
#[derive(Clone)]
struct Defaults;

impl rmcp::ServerHandler for Defaults {}

fn endpoint() -> &'static RmcpEndpoint {
    static ENDPOINT: OnceLock<RmcpEndpoint> = OnceLock::new();
    ENDPOINT.get_or_init(|| {
        let endpoint = RmcpEndpoint::new(Defaults).expect("the endpoint starts");
        // A CLI that refuses every request of the server's.
        endpoint.connect(McpOutlet::new(|_| {}, |_, answer: McpReply| answer.fail("no")));
        endpoint
    })
}

#[derive(Arbitrary, Debug)]
enum Id {
    Absent,
    Int(i64),
    Float(f64),
    Text(String),
    Null,
    Bool(bool),
    Object,
}

#[derive(Arbitrary, Debug)]
enum Input {
    /// Bytes that may or may not be JSON.
    Raw(Vec<u8>),
    /// JSON-RPC shaped.
    Shaped {
        version: bool,
        id: Id,
        method: Option<u8>,
        params: Option<Vec<u8>>,
    },
}

const METHODS: [&str; 10] = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "notifications/initialized",
    "notifications/cancelled",
    "resources/list",
    "prompts/get",
    "",
    "no/such/method",
];

fn message(input: Input) -> Option<Value> {
    match input {
        Input::Raw(bytes) => serde_json::from_slice(&bytes).ok(),
        Input::Shaped {
            version,
            id,
            method,
            params,
        } => {
            let mut message = json!({});
            if version {
                message["jsonrpc"] = json!("2.0");
            }
            match id {
                Id::Absent => {}
                Id::Int(n) => message["id"] = json!(n),
                Id::Float(x) => message["id"] = json!(x),
                Id::Text(s) => message["id"] = json!(s),
                Id::Null => message["id"] = Value::Null,
                Id::Bool(b) => message["id"] = json!(b),
                Id::Object => message["id"] = json!({"a": 1}),
            }
            if let Some(m) = method {
                message["method"] = json!(METHODS[usize::from(m) % METHODS.len()]);
            }
            if let Some(p) = params {
                message["params"] = serde_json::from_slice(&p).unwrap_or(json!({"name": "x"}));
            }
            Some(message)
        }
    }
}

fuzz_target!(|input: Input| {
    let Some(message) = message(input) else {
        return;
    };
    let is_request = message.get("method").is_some() && message.get("id").is_some();
    let (answered, answer) = sync_channel(2);
    endpoint().handle(
        message.clone(),
        McpReply::new(move |reply| {
            let _ = answered.try_send(reply);
        }),
    );
    let reply = match answer.recv_timeout(Duration::from_secs(10)) {
        Ok(reply) => reply,
        Err(RecvTimeoutError::Timeout) => panic!("no answer to {message}"),
        Err(RecvTimeoutError::Disconnected) => panic!("the reply was lost for {message}"),
    };
    match reply {
        Ok(Some(response)) => {
            assert_eq!(response["jsonrpc"], "2.0", "{response}");
            assert!(
                response.get("result").is_some() != response.get("error").is_some(),
                "neither a result nor an error: {response}"
            );
        }
        Ok(None) => assert!(!is_request, "a request went unanswered: {message}"),
        Err(error) => panic!("the endpoint failed {message}: {error}"),
    }
    assert!(answer.try_recv().is_err(), "answered twice: {message}");
});
