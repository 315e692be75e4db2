//! The endpoint driven only through `McpEndpoint`, as a session drives it,
//! in front of a weather server written with rmcp's macros.

#![allow(clippy::unwrap_used)]

use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use claude_proto_adapter::{McpEndpoint, McpOutlet, McpReply};
use claude_proto_rmcp::RmcpEndpoint;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value as Json, json};

/// Bound on every wait: long enough for a loaded CI machine, short enough
/// that a hang fails the test rather than the job.
const WAIT: Duration = Duration::from_secs(10);

// ---------------------------------------------------------------- server

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Fahrenheit,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct GetWeather {
    /// City name
    city: String,
    /// Temperature unit
    unit: Option<Unit>,
}

#[derive(Debug, Serialize, JsonSchema)]
struct Weather {
    city: String,
    temperature: f64,
    unit: String,
}

/// Tells the test what the slow tool saw.
#[derive(Clone)]
struct Signals {
    slow_started: Sender<()>,
    slow_cancelled: Sender<()>,
    block_started: Sender<()>,
    release: Arc<Mutex<Receiver<()>>>,
    /// One message for each progress notification the server handles.
    progress_seen: Sender<()>,
    /// Dropped with the last clone of the server.
    _dropped: Arc<SendOnDrop>,
}

struct SendOnDrop(Mutex<Sender<()>>);

impl Drop for SendOnDrop {
    fn drop(&mut self) {
        let _ = self.0.lock().unwrap().send(());
    }
}

#[derive(Clone)]
struct WeatherServer {
    signals: Signals,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl WeatherServer {
    /// Get the current weather for a city
    #[tool(annotations(title = "Weather", read_only_hint = true))]
    async fn get_weather(
        &self,
        Parameters(args): Parameters<GetWeather>,
    ) -> Result<rmcp::Json<Weather>, String> {
        if args.city.is_empty() {
            return Err("city must not be empty".to_owned());
        }
        let (temperature, unit) = match args.unit {
            Some(Unit::Fahrenheit) => (71.6, "F"),
            Some(Unit::Celsius) | None => (22.0, "C"),
        };
        Ok(rmcp::Json(Weather {
            city: args.city,
            temperature,
            unit: unit.to_owned(),
        }))
    }

    /// Always panics
    #[tool]
    async fn boom(&self) -> String {
        panic!("kaboom")
    }

    /// Always fails
    #[tool]
    async fn fails(&self) -> Result<String, String> {
        Err("the weather service is down".to_owned())
    }

    /// Waits until cancelled
    #[tool]
    async fn slow(&self, ctx: RequestContext<RoleServer>) -> String {
        let _ = self.signals.slow_started.send(());
        tokio::select! {
            () = ctx.ct.cancelled() => {
                let _ = self.signals.slow_cancelled.send(());
                // Finish late, as a tool cleaning up would: rmcp must not
                // mistake this response for that of a request that reuses
                // the id meanwhile.
                tokio::time::sleep(Duration::from_millis(100)).await;
                "cancelled".to_owned()
            }
            () = tokio::time::sleep(Duration::from_secs(60)) => "done".to_owned(),
        }
    }

    /// Blocks the server's thread until released
    #[tool]
    async fn block(&self) -> String {
        let _ = self.signals.block_started.send(());
        let release = self.signals.release.lock().unwrap();
        let _ = release.recv_timeout(WAIT);
        "released".to_owned()
    }

    /// Says the tool list changed
    #[tool]
    async fn announce(&self, ctx: RequestContext<RoleServer>) -> String {
        match ctx.peer.notify_tool_list_changed().await {
            Ok(()) => "announced".to_owned(),
            Err(error) => format!("could not announce: {error}"),
        }
    }

    /// Asks the client for its roots
    #[tool]
    #[allow(deprecated)]
    async fn roots(&self, ctx: RequestContext<RoleServer>) -> String {
        match ctx.peer.list_roots().await {
            Ok(roots) => format!("roots: {roots:?}"),
            Err(error) => format!("no roots: {error}"),
        }
    }
}

// `router = self.tool_router`: the default builds the router on every call.
#[tool_handler(router = self.tool_router, name = "weather", version = "1.0.0")]
impl ServerHandler for WeatherServer {
    async fn on_progress(
        &self,
        _: rmcp::model::ProgressNotificationParam,
        _: rmcp::service::NotificationContext<RoleServer>,
    ) {
        let _ = self.signals.progress_seen.send(());
    }
}

// ---------------------------------------------------------------- harness

struct Harness {
    endpoint: Option<RmcpEndpoint>,
    to_cli: Receiver<Json>,
    slow_started: Receiver<()>,
    slow_cancelled: Receiver<()>,
    block_started: Receiver<()>,
    release: Sender<()>,
    progress_seen: Receiver<()>,
    /// The CLI acknowledges the server's requests empty and answers them
    /// with a message of its own (the test sends it).
    answer_later: Arc<std::sync::atomic::AtomicBool>,
    server_dropped: Receiver<()>,
}

type Answer = Result<Option<Json>, String>;

impl Harness {
    fn new() -> Self {
        let (slow_started, slow_started_rx) = channel();
        let (slow_cancelled, slow_cancelled_rx) = channel();
        let (dropped, server_dropped) = channel();
        let (block_started, block_started_rx) = channel();
        let (release, release_rx) = channel();
        let (progress_seen, progress_seen_rx) = channel();
        let server = WeatherServer {
            signals: Signals {
                slow_started,
                slow_cancelled,
                block_started,
                release: Arc::new(Mutex::new(release_rx)),
                progress_seen,
                _dropped: Arc::new(SendOnDrop(Mutex::new(dropped))),
            },
            tool_router: WeatherServer::tool_router(),
        };
        let endpoint = RmcpEndpoint::new(server).unwrap();
        let (to_cli_tx, to_cli) = channel();
        let to_cli_tx = Mutex::new(to_cli_tx);
        let to_cli_tx = Arc::new(to_cli_tx);
        let requests_tx = to_cli_tx.clone();
        let answer_later = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let later = answer_later.clone();
        endpoint.connect(McpOutlet::new(
            move |message| {
                let _ = to_cli_tx.lock().unwrap().send(message);
            },
            // A CLI that knows one root, and answers from a thread of its
            // own as the session does, under a wrong id: the answer is to
            // the request it answers, whatever id it carries.
            move |message: Json, answer: McpReply| {
                let _ = requests_tx.lock().unwrap().send(message.clone());
                let answer_later = later.load(std::sync::atomic::Ordering::SeqCst);
                std::thread::spawn(move || {
                    if answer_later {
                        // As CLI 2.1.330 does: an empty acknowledgement;
                        // the test sends the response as a message.
                        answer.send(None);
                    } else if message["method"] == "roots/list" {
                        answer.send(Some(json!({"jsonrpc": "2.0", "id": 999,
                            "result": {"roots": [{"uri": "file:///srv", "name": "srv"}]}})));
                    } else {
                        answer.fail("the CLI refused");
                    }
                });
            },
        ));
        Self {
            endpoint: Some(endpoint),
            to_cli,
            slow_started: slow_started_rx,
            slow_cancelled: slow_cancelled_rx,
            block_started: block_started_rx,
            release,
            progress_seen: progress_seen_rx,
            answer_later,
            server_dropped,
        }
    }

    fn endpoint(&self) -> &RmcpEndpoint {
        self.endpoint.as_ref().unwrap()
    }

    /// Hands `message` over; the receiver gets its answer.
    fn send(&self, message: Json) -> Receiver<Answer> {
        let (tx, rx) = channel();
        self.endpoint().handle(
            message,
            McpReply::new(move |answer| {
                let _ = tx.send(answer);
            }),
        );
        rx
    }

    /// The response to a request.
    fn request(&self, message: Json) -> Json {
        response(&self.send(message))
    }

    fn initialized(self) -> Self {
        let init = self.request(json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "claude-code", "version": "2.1.0"},
            },
        }));
        assert_eq!(init["result"]["serverInfo"]["name"], "weather");
        assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
        let ack = self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        assert_eq!(ack.recv_timeout(WAIT).unwrap(), Ok(None));
        self
    }

    fn call(&self, id: i64, tool: &str, arguments: Json) -> Receiver<Answer> {
        self.send(json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments},
        }))
    }

    fn ping(&self, id: Json) -> Json {
        self.request(json!({"jsonrpc": "2.0", "id": id, "method": "ping"}))
    }
}

fn response(answer: &Receiver<Answer>) -> Json {
    answer
        .recv_timeout(WAIT)
        .expect("answered in time")
        .expect("answered with a response, not a failure")
        .expect("a request gets a response")
}

fn error_code(response: &Json) -> i64 {
    response["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {response}"))
}

fn text(result: &Json) -> &str {
    result["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text: {result}"))
}

// ---------------------------------------------------------------- tests

#[test]
fn tools_are_listed_with_annotations_and_schemas() {
    let h = Harness::new().initialized();
    let list = h.request(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}));
    let tools = list["result"]["tools"].as_array().unwrap();
    let weather = tools.iter().find(|t| t["name"] == "get_weather").unwrap();
    assert_eq!(weather["description"], "Get the current weather for a city");
    assert_eq!(weather["annotations"]["readOnlyHint"], true);
    assert_eq!(weather["annotations"]["title"], "Weather");
    assert_eq!(
        weather["inputSchema"]["properties"]["city"]["type"],
        "string"
    );
    assert_eq!(weather["inputSchema"]["required"], json!(["city"]));
    assert!(weather["inputSchema"]["properties"]["unit"].is_object());
    assert_eq!(
        weather["outputSchema"]["properties"]["temperature"]["type"], "number",
        "{weather}"
    );
}

#[test]
fn a_tool_call_returns_its_typed_and_structured_result() {
    let h = Harness::new().initialized();
    let result = response(&h.call(
        2,
        "get_weather",
        json!({"city": "Paris", "unit": "fahrenheit"}),
    ));
    assert_eq!(result["id"], 2);
    assert_eq!(result["result"]["isError"], false);
    assert_eq!(
        result["result"]["structuredContent"],
        json!({"city": "Paris", "temperature": 71.6, "unit": "F"})
    );
}

#[test]
fn tool_failures_are_results_the_model_sees() {
    let h = Harness::new().initialized();

    let wrong_types = response(&h.call(3, "get_weather", json!({"city": 42, "unit": "kelvin"})));
    assert_eq!(wrong_types["result"]["isError"], true, "{wrong_types}");
    assert!(
        text(&wrong_types).contains("expected a string"),
        "{wrong_types}"
    );

    let empty_city = response(&h.call(4, "get_weather", json!({"city": ""})));
    assert_eq!(empty_city["result"]["isError"], true);
    assert_eq!(text(&empty_city), "city must not be empty");

    let fails = response(&h.call(5, "fails", json!({})));
    assert_eq!(fails["result"]["isError"], true);
    assert_eq!(text(&fails), "the weather service is down");

    let unknown = response(&h.call(6, "nope", json!({})));
    assert_eq!(unknown["id"], 6);
    assert_eq!(error_code(&unknown), -32602);
}

#[test]
fn a_panicking_tool_is_answered_and_the_server_keeps_serving() {
    let h = Harness::new().initialized();
    let panicked = response(&h.call(7, "boom", json!({})));
    assert_eq!(panicked["id"], 7);
    assert_eq!(panicked["result"]["isError"], true, "{panicked}");
    assert_eq!(text(&panicked), "the tool panicked: kaboom");
    assert_eq!(
        h.ping(json!(8)),
        json!({"jsonrpc": "2.0", "id": 8, "result": {}})
    );
}

#[test]
fn ids_of_every_json_type_are_answered() {
    let h = Harness::new().initialized();
    // rmcp accepts integers, strings and integral floats (read as integers).
    assert_eq!(h.ping(json!(1))["id"], 1);
    assert_eq!(h.ping(json!("s-1"))["id"], "s-1");
    assert_eq!(
        h.ping(json!(10.0)),
        json!({"jsonrpc": "2.0", "id": 10, "result": {}})
    );
    // The rest are refused here, echoing the id when JSON-RPC allows one.
    let fractional = h.ping(json!(9.5));
    assert_eq!(
        (error_code(&fractional), &fractional["id"]),
        (-32600, &json!(9.5))
    );
    for id in [json!(null), json!(true), json!({"n": 1}), json!([1])] {
        let refused = h.ping(id.clone());
        assert_eq!(error_code(&refused), -32600, "id {id}: {refused}");
        assert_eq!(refused["id"], Json::Null, "id {id}");
    }
    // An id without a method is neither a request nor a response.
    let no_method = h.request(json!({"jsonrpc": "2.0", "id": 12}));
    assert_eq!(
        (error_code(&no_method), &no_method["id"]),
        (-32600, &json!(12))
    );
}

#[test]
fn malformed_messages_are_refused_without_reaching_the_server() {
    let h = Harness::new().initialized();
    let unknown = h.request(json!({"jsonrpc": "2.0", "id": 13, "method": "foo/bar", "params": {}}));
    assert_eq!((error_code(&unknown), &unknown["id"]), (-32601, &json!(13)));

    // No "jsonrpc": not JSON-RPC 2.0, even though it looks like a notification.
    let not_jsonrpc = h.request(json!({"method": "notifications/initialized"}));
    assert_eq!(
        (error_code(&not_jsonrpc), &not_jsonrpc["id"]),
        (-32600, &Json::Null)
    );
    let no_version = h.request(json!({"method": "ping", "id": 14}));
    assert_eq!(
        (error_code(&no_version), &no_version["id"]),
        (-32600, &json!(14))
    );
    for junk in [json!(null), json!(42), json!("ping"), json!([]), json!({})] {
        assert_eq!(error_code(&h.request(junk.clone())), -32600, "{junk}");
    }
    // Responses from the CLI go to rmcp (which ignores ids it never used)
    // and are acknowledged.
    let response = h.send(json!({"jsonrpc": "2.0", "id": 0, "result": {}}));
    assert_eq!(response.recv_timeout(WAIT).unwrap(), Ok(None));
    let error = h.send(json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": "no"}}));
    assert_eq!(error.recv_timeout(WAIT).unwrap(), Ok(None));
    assert_eq!(h.ping(json!(15))["result"], json!({}));
}

#[test]
fn a_cancelled_call_is_answered_at_once_and_the_tool_sees_it() {
    let h = Harness::new().initialized();
    let slow = h.call(40, "slow", json!({}));
    h.slow_started.recv_timeout(WAIT).unwrap();
    let ack = h.send(json!({
        "jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 40, "reason": "user"},
    }));
    assert_eq!(ack.recv_timeout(WAIT).unwrap(), Ok(None));
    // At once: the answer is the cancellation's, not the tool's own (it
    // would finish after 60 s, and only after the cancellation it sees
    // below).
    let cancelled = response(&slow);
    assert_eq!(cancelled["id"], 40);
    assert_eq!(
        cancelled["error"],
        json!({"code": -32800, "message": "Request cancelled"})
    );
    h.slow_cancelled.recv_timeout(WAIT).unwrap();
    // The id is free again, and the server still answers.
    assert_eq!(h.ping(json!(40))["result"], json!({}));
}

#[test]
fn an_id_reused_after_a_cancellation_gets_its_own_answer() {
    let h = Harness::new().initialized();
    let cancel = |id: i64| {
        h.send(json!({
            "jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": id},
        }))
    };
    let first = h.call(41, "slow", json!({}));
    h.slow_started.recv_timeout(WAIT).unwrap();
    let _ = cancel(41);
    assert_eq!(error_code(&response(&first)), -32800);
    h.slow_cancelled.recv_timeout(WAIT).unwrap();
    // The first call's handler is still finishing when the id comes back.
    let second = h.call(41, "slow", json!({}));
    h.slow_started.recv_timeout(WAIT).unwrap();
    assert!(
        second.recv_timeout(Duration::from_millis(300)).is_err(),
        "the first call's late response must not answer the second"
    );
    let _ = cancel(41);
    assert_eq!(error_code(&response(&second)), -32800);
}

#[test]
fn a_duplicate_in_flight_id_is_refused() {
    let h = Harness::new().initialized();
    let slow = h.call(50, "slow", json!({}));
    h.slow_started.recv_timeout(WAIT).unwrap();
    let duplicate = h.ping(json!(50));
    assert_eq!(
        (error_code(&duplicate), &duplicate["id"]),
        (-32600, &json!(50))
    );
    // Cancelling an unknown id is harmless; the real one still answers.
    let _ = h.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 999}}));
    let _ = h.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 50}}),
    );
    assert_eq!(error_code(&response(&slow)), -32800);
}

#[test]
fn server_notifications_reach_the_cli() {
    let h = Harness::new().initialized();
    let result = response(&h.call(60, "announce", json!({})));
    assert_eq!(text(&result), "announced");
    let notification = h.to_cli.recv_timeout(WAIT).unwrap();
    assert_eq!(
        notification,
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    );
}

/// A request of the server's (here `roots/list`) goes to the CLI, and the
/// CLI's answer comes back to the tool that asked.
#[test]
fn server_requests_reach_the_cli_and_its_answer_comes_back() {
    let h = Harness::new().initialized();
    let result = response(&h.call(61, "roots", json!({})));
    assert!(text(&result).starts_with("roots:"), "{result}");
    assert!(text(&result).contains("file:///srv"), "{result}");
    let asked = h.to_cli.recv_timeout(WAIT).unwrap();
    assert_eq!(asked["method"], "roots/list", "{asked}");
}

#[test]
fn dropping_the_endpoint_answers_pending_calls_and_drops_the_server() {
    let mut h = Harness::new().initialized();
    let slow = h.call(70, "slow", json!({}));
    h.slow_started.recv_timeout(WAIT).unwrap();
    drop(h.endpoint.take());
    let stopped = response(&slow);
    assert_eq!((error_code(&stopped), &stopped["id"]), (-32603, &json!(70)));
    h.server_dropped.recv_timeout(WAIT).unwrap();
}

/// A server whose loop dies at once (here, `get_info` panics as rmcp
/// starts it).
#[derive(Clone)]
struct DoomedServer;

impl ServerHandler for DoomedServer {
    fn get_info(&self) -> rmcp::model::ServerConfig {
        panic!("no info")
    }
}

#[test]
fn a_dead_server_answers_every_request_with_an_error() {
    let endpoint = RmcpEndpoint::new(DoomedServer).unwrap();
    let ask = |id: i64| {
        let (tx, rx) = channel();
        endpoint.handle(
            json!({"jsonrpc": "2.0", "id": id, "method": "ping"}),
            McpReply::new(move |answer| {
                let _ = tx.send(answer);
            }),
        );
        response(&rx)
    };
    // Whether it arrives before or after the loop died, the answer is the same.
    for id in 1..=3 {
        let dead = ask(id);
        assert_eq!((error_code(&dead), &dead["id"]), (-32603, &json!(id)));
    }
}

/// Round trip of one `tools/call` through `handle` to its reply. Run with
/// `cargo test --release -p claude-proto-rmcp -- --ignored --nocapture`.
#[test]
#[ignore = "measurement, not a check"]
fn round_trip_figures() {
    let h = Harness::new().initialized();
    for id in 0..1_000 {
        response(&h.call(1_000_000 + id, "get_weather", json!({"city": "Paris"})));
    }
    let mut samples = Vec::with_capacity(10_000);
    for id in 0..10_000 {
        let started = Instant::now();
        let answer = h.call(id, "get_weather", json!({"city": "Paris"}));
        let result = response(&answer);
        samples.push(started.elapsed());
        assert_eq!(result["result"]["isError"], false);
    }
    samples.sort_unstable();
    let at = |q: f64| samples[((samples.len() as f64 * q) as usize).min(samples.len() - 1)];
    println!(
        "tools/call round trip over {} calls: p50 {:?}, p99 {:?}, max {:?}",
        samples.len(),
        at(0.50),
        at(0.99),
        samples[samples.len() - 1]
    );
}

/// CLI 2.1.330 acknowledges a server's request empty and sends its MCP
/// client's answer as a message of its own: that message reaches the tool
/// that asked.
#[test]
fn a_server_request_answered_by_a_later_message_reaches_the_tool() {
    let h = Harness::new().initialized();
    h.answer_later
        .store(true, std::sync::atomic::Ordering::SeqCst);
    let asked = h.call(62, "roots", json!({}));
    let request = h.to_cli.recv_timeout(WAIT).unwrap();
    assert_eq!(request["method"], "roots/list", "{request}");
    let ack = h.send(json!({"jsonrpc": "2.0", "id": request["id"],
        "result": {"roots": [{"uri": "file:///later", "name": "later"}]}}));
    assert_eq!(ack.recv_timeout(WAIT).unwrap(), Ok(None));
    let result = response(&asked);
    assert!(text(&result).contains("file:///later"), "{result}");
}

/// How many messages wait for a blocked server's loop (the endpoint's
/// docs say 256).
const QUEUE: usize = 256;

/// A server whose loop is blocked by a tool takes at most a bounded queue
/// of messages: beyond it, a request is answered with an error at once
/// (and a notification dropped) rather than queued without end; once the
/// loop runs again, it handles what was queued and answers as before.
#[test]
fn a_blocked_server_takes_a_bounded_queue_and_refuses_beyond_it() {
    let h = Harness::new().initialized();
    let blocked = h.call(90, "block", json!({}));
    h.block_started.recv_timeout(WAIT).unwrap();
    let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress",
        "params": {"progressToken": 1, "progress": 1}});
    for _ in 0..300 {
        let ack = h.send(progress.clone());
        assert_eq!(ack.recv_timeout(WAIT).unwrap(), Ok(None));
    }
    let refused = response(&h.call(91, "get_weather", json!({"city": "Oslo"})));
    assert_eq!(refused["error"]["code"], -32603, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("busy"),
        "{refused}"
    );
    h.release.send(()).unwrap();
    let released = response(&blocked);
    assert_eq!(text(&released), "released", "{released}");
    // The loop runs again, but the queue is still full until it has taken
    // what waited: the queued notifications, each seen by the server.
    for seen in 0..QUEUE {
        assert!(
            h.progress_seen.recv_timeout(WAIT).is_ok(),
            "the server handled {seen} of the {QUEUE} queued notifications"
        );
    }
    let later = response(&h.call(92, "get_weather", json!({"city": "Oslo"})));
    assert!(later.get("result").is_some(), "{later}");
}
