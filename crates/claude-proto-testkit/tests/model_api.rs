//! The model API stand-in: what it answers at the HTTP level (no CLI
//! needed), and the real Claude Code CLI run offline against it through the
//! tokio and blocking adapters (skipped when `CLAUDE_BIN` is unset, failed
//! under CI).
#![allow(clippy::unwrap_used)] // test helpers fail loudly by design

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use claude_proto::model::permission::PermissionResult;
use claude_proto::options::Options;
use claude_proto_testkit::model_api::{
    ApiRequest, CliNotFound, MAX_MESSAGES_REQUESTS, MAX_REQUEST_BYTES, ModelApi,
    PINNED_CLI_VERSION, Reply, claude_bin_or_skip,
};
use serde_json::{Value, json};

/// The longest a test waits for one thing; reaching it means a hang.
const WAIT: Duration = Duration::from_secs(60);

// ----- a small HTTP client --------------------------------------------------

/// An answer: status, headers (lower-case names), body (de-chunked).
#[derive(Debug)]
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }

    /// The server-sent events: `(event name, data)`.
    fn events(&self) -> Vec<(String, Value)> {
        self.body
            .split("\n\n")
            .filter(|e| !e.trim().is_empty())
            .map(|event| {
                let mut name = String::new();
                let mut data = Value::Null;
                for line in event.lines() {
                    if let Some(n) = line.strip_prefix("event: ") {
                        name = n.to_owned();
                    }
                    if let Some(d) = line.strip_prefix("data: ") {
                        data = serde_json::from_str(d).unwrap();
                    }
                }
                (name, data)
            })
            .collect()
    }
}

/// Sends `raw` and reads until the server closes.
fn exchange(port: u16, raw: &[u8]) -> Vec<u8> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(WAIT)).unwrap();
    stream.write_all(raw).unwrap();
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => answer.extend_from_slice(&buf[..n]),
            // A reset after the answer counts as closed.
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
            Err(e) => panic!("reading the answer: {e}"),
        }
    }
    answer
}

fn parse(raw: &[u8]) -> Answer {
    let text = String::from_utf8(raw.to_vec()).unwrap();
    let (head, rest) = text.split_once("\r\n\r\n").expect("a complete head");
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v == "chunked");
    let body = if chunked {
        let mut body = String::new();
        let mut rest = rest;
        // Until the last chunk, or where the answer was cut short.
        while let Some((size, after)) = rest.split_once("\r\n") {
            let size = usize::from_str_radix(size.trim(), 16).unwrap();
            if size == 0 || after.len() < size {
                break;
            }
            body.push_str(&after[..size]);
            rest = &after[size + 2..];
        }
        body
    } else {
        rest.to_owned()
    };
    Answer {
        status,
        headers,
        body,
    }
}

fn post(api: &ModelApi, path: &str, body: &Value) -> Answer {
    let body = body.to_string();
    let raw = format!(
        "POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nx-test: yes\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    parse(&exchange(api.port(), raw.as_bytes()))
}

fn streaming() -> Value {
    json!({"model": "claude-test", "stream": true, "messages": [{"role": "user", "content": "hi"}]})
}

fn plain() -> Value {
    json!({"model": "claude-test", "messages": [{"role": "user", "content": "hi"}]})
}

// ----- HTTP level -----------------------------------------------------------

#[test]
fn a_text_reply_streams_in_deltas_in_the_api_event_order() {
    let api = ModelApi::turns([Reply::text("Hello there").in_deltas(3)]).unwrap();
    let answer = post(&api, "/v1/messages?beta=true", &streaming());
    assert_eq!(answer.status, 200);
    assert_eq!(answer.header("content-type"), Some("text/event-stream"));
    assert_eq!(answer.header("request-id"), Some("req_mock_0001"));
    let events = answer.events();
    let names: Vec<&str> = events.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop",
        ]
    );
    for (name, data) in &events {
        assert_eq!(data["type"], name.as_str(), "each event's data names it");
    }
    let start = &events[0].1["message"];
    assert_eq!(start["id"], "msg_mock_0001");
    assert_eq!(start["model"], "claude-test");
    assert_eq!(start["role"], "assistant");
    assert_eq!(
        events[1].1["content_block"],
        json!({"type": "text", "text": ""})
    );
    let text: String = events[2..5]
        .iter()
        .map(|(_, d)| {
            assert_eq!(d["delta"]["type"], "text_delta");
            d["delta"]["text"].as_str().unwrap()
        })
        .collect();
    assert_eq!(text, "Hello there");
    assert_eq!(events[6].1["delta"]["stop_reason"], "end_turn");
}

#[test]
fn tool_uses_stream_one_block_each_after_the_text() {
    let api = ModelApi::turns([Reply::tool_uses([
        ("Read", json!({"file_path": "/tmp/a"})),
        ("Bash", json!({"command": "ls"})),
    ])
    .with_text("Looking.")])
    .unwrap();
    let events = post(&api, "/v1/messages", &streaming()).events();
    let starts: Vec<&Value> = events
        .iter()
        .filter(|(n, _)| n == "content_block_start")
        .map(|(_, d)| d)
        .collect();
    assert_eq!(starts.len(), 3);
    assert_eq!(starts[0]["content_block"]["type"], "text");
    assert_eq!(
        starts[1]["content_block"],
        json!({"type": "tool_use", "id": "toolu_mock_0001", "name": "Read", "input": {}})
    );
    assert_eq!(starts[2]["content_block"]["id"], "toolu_mock_0001_1");
    assert_eq!(starts[2]["content_block"]["name"], "Bash");
    // Each block's input arrives as JSON in pieces, under its own index.
    for (index, input) in [
        (1, json!({"file_path": "/tmp/a"})),
        (2, json!({"command": "ls"})),
    ] {
        let partial: String = events
            .iter()
            .filter(|(_, d)| d["index"] == index && d["delta"]["type"] == "input_json_delta")
            .map(|(_, d)| d["delta"]["partial_json"].as_str().unwrap())
            .collect();
        assert_eq!(serde_json::from_str::<Value>(&partial).unwrap(), input);
    }
    let delta = events.iter().find(|(n, _)| n == "message_delta").unwrap();
    assert_eq!(delta.1["delta"]["stop_reason"], "tool_use");
}

#[test]
fn without_a_stream_the_message_is_plain_json() {
    let api = ModelApi::turns([
        Reply::tool_use("Bash", json!({"command": "ls"})).with_text("Let me look."),
        Reply::text("max").with_stop_reason("max_tokens"),
    ])
    .unwrap();
    let answer = post(&api, "/v1/messages", &plain());
    assert_eq!(answer.status, 200);
    assert_eq!(answer.header("content-type"), Some("application/json"));
    let message = answer.json();
    assert_eq!(message["type"], "message");
    assert_eq!(message["model"], "claude-test");
    assert_eq!(
        message["content"],
        json!([
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "toolu_mock_0001", "name": "Bash", "input": {"command": "ls"}},
        ])
    );
    assert_eq!(message["stop_reason"], "tool_use");
    let message = post(&api, "/v1/messages", &plain()).json();
    assert_eq!(message["content"], json!([{"type": "text", "text": "max"}]));
    assert_eq!(message["stop_reason"], "max_tokens");
}

#[test]
fn error_replies_have_their_status_anthropic_body_and_headers() {
    let api = ModelApi::turns([
        Reply::overloaded(),
        Reply::rate_limited(Duration::from_millis(1500)),
        Reply::server_error(),
        Reply::invalid_request("no such thing"),
        Reply::error(403, "permission_error", "not you").with_header("x-why", "because"),
    ])
    .unwrap();
    let expected = [
        (529, "overloaded_error", "Overloaded"),
        (429, "rate_limit_error", ""),
        (500, "api_error", "Internal server error"),
        (400, "invalid_request_error", "no such thing"),
        (403, "permission_error", "not you"),
    ];
    for (status, kind, message) in expected {
        // Streamed or not, an error is the same plain JSON answer.
        let answer = post(&api, "/v1/messages", &streaming());
        assert_eq!(answer.status, status, "{answer:?}");
        assert_eq!(answer.header("content-type"), Some("application/json"));
        let body = answer.json();
        assert_eq!(body["type"], "error");
        assert_eq!(body["error"]["type"], kind);
        if !message.is_empty() {
            assert_eq!(body["error"]["message"], message);
        }
        match status {
            429 => assert_eq!(answer.header("retry-after"), Some("2"), "rounded up"),
            403 => assert_eq!(answer.header("x-why"), Some("because")),
            _ => assert_eq!(answer.header("retry-after"), None),
        }
    }
    let statuses: Vec<u16> = api.requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses, [529, 429, 500, 400, 403]);
    assert_eq!(Reply::overloaded().status(), 529);
    assert!(Reply::server_error().is_error());
    assert!(!Reply::text("x").is_error());
}

#[test]
fn turns_answers_in_order_then_refuses_calls_beyond_the_script() {
    let api = ModelApi::turns([Reply::text("one"), Reply::text("two")]).unwrap();
    assert_eq!(
        post(&api, "/v1/messages", &plain()).json()["content"][0]["text"],
        "one"
    );
    assert_eq!(
        post(&api, "/v1/messages", &plain()).json()["content"][0]["text"],
        "two"
    );
    let third = post(&api, "/v1/messages", &plain());
    assert_eq!(third.status, 400);
    assert_eq!(
        third.json()["error"]["message"],
        "stand-in: no reply scripted for model call 3 (the script has 2)"
    );
}

/// `Duration::MAX` is a wait without limit, not a panic.
#[test]
fn an_endless_wait_for_requests_returns_once_they_came() {
    let api = ModelApi::turns([Reply::text("one")]).unwrap();
    post(&api, "/v1/messages", &plain());
    assert!(api.wait_for_requests(1, std::time::Duration::MAX));
}

#[test]
fn the_script_sees_the_request_and_every_request_is_recorded() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let api = {
        let seen = seen.clone();
        ModelApi::start(move |request: &ApiRequest| {
            seen.lock().unwrap().push(request.status);
            if request.tool_results().is_empty() {
                Reply::tool_use("Bash", json!({"command": "ls"}))
            } else {
                Reply::text(format!("saw {}", request.tool_result_texts().join("+")))
            }
        })
        .unwrap()
    };
    let body = json!({
        "model": "claude-test",
        "stream": false,
        "tools": [{"name": "Bash"}, {"name": "mcp__calc__add"}],
        "messages": [
            {"role": "user", "content": "list the files"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "a.txt"},
                {"type": "tool_result", "tool_use_id": "t2", "content": [{"type": "text", "text": "b.txt"}]},
                {"type": "text", "text": "<system-reminder>x</system-reminder>"},
            ]},
        ],
    });
    let answer = post(&api, "/v1/messages", &body);
    assert_eq!(answer.json()["content"][0]["text"], "saw a.txt+b.txt");
    assert_eq!(post(&api, "/v1/other", &json!({})).status, 404);
    let requests = api.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(api.messages_requests().len(), 1);
    let r = &requests[0];
    assert!(r.is_messages());
    assert!(!r.is_streaming());
    assert_eq!(r.method, "POST");
    assert_eq!(r.model(), Some("claude-test"));
    assert_eq!(r.tools(), ["Bash", "mcp__calc__add"]);
    assert_eq!(r.messages().len(), 3);
    assert_eq!(r.tool_results().len(), 2);
    assert!(!r.ends_with_tool_result() || r.messages()[2]["content"][0]["type"] == "tool_result");
    assert!(r.all_text().contains("list the files"));
    assert!(r.all_text().contains("b.txt"));
    assert_eq!(r.header("X-Test"), Some("yes"));
    assert_eq!(r.status, 200);
    assert_eq!(requests[1].status, 404);
    assert!(!requests[1].is_messages());
    // While deciding, the script sees no status yet.
    assert_eq!(*seen.lock().unwrap(), [0]);
}

#[test]
fn unknown_paths_get_404() {
    let api = ModelApi::turns([]).unwrap();
    for path in ["/", "/v1/models", "/v1/messages/count_tokens"] {
        let answer = post(&api, path, &plain());
        assert_eq!(answer.status, 404, "{path}");
        assert_eq!(answer.json()["error"]["type"], "not_found_error");
    }
    let answer = parse(&exchange(
        api.port(),
        b"GET /v1/messages HTTP/1.1\r\nhost: x\r\n\r\n",
    ));
    assert_eq!(answer.status, 404, "only POST is a model call");
    assert!(api.requests().iter().all(|r| r.status == 404));
}

#[test]
fn an_oversized_request_is_refused_unread_with_413() {
    let calls = Arc::new(Mutex::new(0));
    let api = {
        let calls = calls.clone();
        ModelApi::start(move |_| {
            *calls.lock().unwrap() += 1;
            Reply::text("no")
        })
        .unwrap()
    };
    // The head announces more than the limit; nothing more is sent.
    let raw = format!(
        "POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-length: {}\r\n\r\n",
        MAX_REQUEST_BYTES + 1
    );
    let answer = parse(&exchange(api.port(), raw.as_bytes()));
    assert_eq!(answer.status, 413);
    assert_eq!(answer.json()["error"]["type"], "request_too_large");
    let requests = api.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].status, 413);
    assert_eq!(requests[0].body, Value::Null);
    assert_eq!(*calls.lock().unwrap(), 0, "the script is not asked");
}

#[test]
fn a_malformed_request_gets_400() {
    let api = ModelApi::turns([]).unwrap();
    let answer = parse(&exchange(api.port(), b"NONSENSE\r\n\r\n"));
    assert_eq!(answer.status, 400);
    let answer = parse(&exchange(
        api.port(),
        b"POST /v1/messages HTTP/1.1\r\ncontent-length: lots\r\n\r\n",
    ));
    assert_eq!(answer.status, 400);
    assert_eq!(answer.json()["error"]["type"], "invalid_request_error");
    // Only the one whose head could be read is recorded.
    let requests = api.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].status, 400);
    assert_eq!(requests[0].header("content-length"), Some("lots"));
}

#[test]
fn a_chunked_request_body_is_read() {
    let api = ModelApi::start(|r: &ApiRequest| Reply::text(r.all_text())).unwrap();
    let body = plain().to_string();
    let (a, b) = body.split_at(10);
    let raw = format!(
        "POST /v1/messages HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\n{:x}\r\n{a}\r\n{:x}\r\n{b}\r\n0\r\n\r\n",
        a.len(),
        b.len()
    );
    let answer = parse(&exchange(api.port(), raw.as_bytes()));
    assert_eq!(answer.json()["content"][0]["text"], "hi");
}

#[test]
fn a_text_reply_streams_in_two_deltas_unless_told() {
    let api = ModelApi::turns([Reply::text("Hello"), Reply::text("Hi").in_deltas(5)]).unwrap();
    let deltas = |answer: Answer| -> Vec<String> {
        answer
            .events()
            .iter()
            .filter(|(_, d)| d["delta"]["type"] == "text_delta")
            .map(|(_, d)| d["delta"]["text"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        deltas(post(&api, "/v1/messages", &streaming())),
        ["Hel", "lo"]
    );
    // Never more pieces than characters.
    assert_eq!(deltas(post(&api, "/v1/messages", &streaming())), ["H", "i"]);
}

#[test]
fn start_refuses_the_call_after_max_messages_requests() {
    let api = ModelApi::start(|_| Reply::text("again")).unwrap();
    for _ in 0..MAX_MESSAGES_REQUESTS {
        assert_eq!(post(&api, "/v1/messages", &plain()).status, 200);
    }
    let refused = post(&api, "/v1/messages", &plain());
    assert_eq!(refused.status, 400);
    assert_eq!(api.messages_requests().len(), MAX_MESSAGES_REQUESTS + 1);
}

#[test]
fn a_panicking_script_gets_its_call_answered_500() {
    let api = ModelApi::start(|r: &ApiRequest| {
        assert!(
            r.all_text().contains("fine"),
            "the script's own check failed"
        );
        Reply::text("ok")
    })
    .unwrap();
    let answer = post(&api, "/v1/messages", &plain());
    assert_eq!(answer.status, 500);
    assert_eq!(
        answer.json()["error"]["message"],
        "stand-in: the script panicked: the script's own check failed"
    );
    // It keeps running.
    let fine = json!({"messages": [{"role": "user", "content": "fine"}]});
    assert_eq!(post(&api, "/v1/messages", &fine).status, 200);
    let statuses: Vec<u16> = api.requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses, [500, 200]);
}

#[test]
fn the_call_limit_refuses_a_looping_script() {
    let api = ModelApi::start_with_limit(|_| Reply::text("again"), 2).unwrap();
    assert_eq!(post(&api, "/v1/messages", &plain()).status, 200);
    assert_eq!(post(&api, "/v1/messages", &plain()).status, 200);
    let third = post(&api, "/v1/messages", &plain());
    assert_eq!(third.status, 400);
    assert!(
        third.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("more than 2 model calls")
    );
}

#[test]
fn dropping_stops_everything_and_cuts_a_slow_stream() {
    // The script holds this; once every thread that could call it is
    // gone, the stand-in drops it.
    let alive = Arc::new(());
    let api = {
        let alive = alive.clone();
        ModelApi::start(move |_| {
            let _ = &alive;
            Reply::text("a b c d e f g h").slowly(8, Duration::from_secs(3600))
        })
        .unwrap()
    };
    let port = api.port();
    let home = api.home().to_owned();
    assert!(home.is_dir());
    let (started, stream_began) = std::sync::mpsc::channel();
    let client = std::thread::spawn(move || {
        let body = streaming().to_string();
        let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream.set_read_timeout(Some(WAIT)).unwrap();
        write!(
            stream,
            "POST /v1/messages HTTP/1.1\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut answer = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            match stream.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => answer.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
                Err(e) => panic!("reading the answer: {e}"),
            }
            if String::from_utf8_lossy(&answer).contains("content_block_start") {
                let _ = started.send(());
            }
        }
        String::from_utf8(answer).unwrap()
    });
    // A connection that never says anything.
    let idle = TcpStream::connect(("127.0.0.1", port)).unwrap();
    assert!(api.wait_for_requests(1, WAIT));
    assert!(!api.wait_for_requests(2, Duration::ZERO), "only one came");
    // The stream has begun and is now pausing before its first delta.
    stream_began.recv_timeout(WAIT).unwrap();
    drop(api);
    // The slow stream was cut (the client would wait an hour otherwise).
    let answer = client.join().unwrap();
    assert!(!answer.contains("text_delta"), "{answer}");
    assert!(!answer.contains("message_stop"), "{answer}");
    assert_eq!(Arc::strong_count(&alive), 1, "the script was dropped");
    assert!(!home.exists(), "the directory was removed");
    assert!(
        TcpStream::connect(("127.0.0.1", port)).is_err(),
        "nothing listens any more"
    );
    drop(idle);
}

#[test]
fn options_point_the_cli_here_and_inherit_nothing_else() {
    let api = ModelApi::turns([]).unwrap();
    let options = api.options(
        Options::default()
            .cli_path("/opt/claude")
            .env("MY_VAR", "kept")
            .env("ANTHROPIC_BASE_URL", "https://api.anthropic.com"),
    );
    assert!(!options.inherit_env);
    assert_eq!(options.cli_path.as_deref(), Some("/opt/claude".as_ref()));
    let get = |options: &Options, name: &str| {
        options
            .env
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.to_string_lossy().into_owned())
    };
    assert_eq!(get(&options, "MY_VAR").as_deref(), Some("kept"));
    assert_eq!(get(&options, "ANTHROPIC_BASE_URL"), Some(api.url()));
    assert_eq!(
        get(&options, "CLAUDE_CODE_MAX_RETRIES").as_deref(),
        Some("0")
    );
    assert_eq!(
        get(&options, "HOME"),
        Some(api.home().to_string_lossy().into_owned())
    );
    assert_eq!(
        get(&options, "CLAUDE_CONFIG_DIR"),
        Some(api.config_dir().to_string_lossy().into_owned())
    );
    assert_eq!(get(&options, "DISABLE_TELEMETRY").as_deref(), Some("1"));
    assert_eq!(
        get(&options, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC").as_deref(),
        Some("1")
    );
    assert!(get(&options, "ANTHROPIC_API_KEY").is_some());
    assert_eq!(
        get(&options, "PATH"),
        std::env::var_os("PATH").map(|p| p.to_string_lossy().into_owned())
    );
    // Set after, a variable replaces the stand-in's.
    let options = options.env("CLAUDE_CODE_MAX_RETRIES", "2");
    assert_eq!(
        get(&options, "CLAUDE_CODE_MAX_RETRIES").as_deref(),
        Some("2")
    );
    // env() is the same list.
    let env = api.env();
    assert_eq!(
        env.iter()
            .filter(|(k, _)| *k == "ANTHROPIC_BASE_URL")
            .count(),
        1
    );
    assert!(
        env.iter()
            .all(|(k, _)| get(&api.options(Options::default()), k).is_some())
    );
}

#[test]
fn the_home_is_private_and_empty_but_for_the_config_dir() {
    let api = ModelApi::turns([]).unwrap();
    let entries: Vec<_> = std::fs::read_dir(api.home())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(entries, [".claude"]);
    assert_eq!(api.config_dir(), api.home().join(".claude"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(api.home()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
    }
    let other = ModelApi::turns([]).unwrap();
    assert_ne!(other.home(), api.home());
    assert_ne!(other.port(), api.port());
}

#[test]
fn a_missing_cli_error_says_how_to_install_the_pinned_one() {
    for error in [
        CliNotFound::Unset,
        CliNotFound::Missing("/nowhere/claude".into()),
    ] {
        let text = error.to_string();
        assert!(
            text.contains(&format!(
                "npm install --prefix .claude-cli --save-exact @anthropic-ai/claude-code@{PINNED_CLI_VERSION}"
            )),
            "{text}"
        );
        assert!(
            text.contains("CLAUDE_BIN=$PWD/.claude-cli/node_modules/.bin/claude"),
            "{text}"
        );
    }
    assert!(
        CliNotFound::Missing("/nowhere/claude".into())
            .to_string()
            .contains("/nowhere/claude")
    );
}

/// Not a test of its own: `without_the_cli_tests_skip_but_fail_under_ci`
/// runs it in a child process with the environment it chooses.
#[test]
fn skip_policy_probe() {
    if std::env::var_os("MODEL_API_SKIP_PROBE").is_none() {
        return;
    }
    let found = claude_bin_or_skip();
    println!("PROBE found={}", found.is_some());
}

#[test]
fn without_the_cli_tests_skip_but_fail_under_ci() {
    let run = |cli: Option<&str>, ci: Option<&str>| {
        let mut command = std::process::Command::new(std::env::current_exe().unwrap());
        command
            .args(["--exact", "skip_policy_probe", "--nocapture"])
            .env("MODEL_API_SKIP_PROBE", "1")
            .env_remove("CLAUDE_BIN")
            .env_remove("CI");
        if let Some(cli) = cli {
            command.env("CLAUDE_BIN", cli);
        }
        if let Some(ci) = ci {
            command.env("CI", ci);
        }
        let output = command.output().unwrap();
        let text = String::from_utf8_lossy(&output.stdout).into_owned()
            + &String::from_utf8_lossy(&output.stderr);
        (output.status.success(), text)
    };
    for ci in [None, Some("false"), Some("0"), Some("")] {
        let (passed, text) = run(None, ci);
        assert!(passed, "CI={ci:?}: {text}");
        assert!(text.contains("PROBE found=false"), "{text}");
        assert!(text.contains("SKIPPED"), "{text}");
        assert!(text.contains("CLAUDE_BIN is not set"), "{text}");
        assert!(text.contains("npm install --prefix .claude-cli"), "{text}");
    }
    let (passed, text) = run(Some("/nowhere/claude"), None);
    assert!(passed, "{text}");
    assert!(
        text.contains("CLAUDE_BIN=/nowhere/claude is not a file"),
        "{text}"
    );
    for ci in ["true", "1"] {
        let (passed, text) = run(None, Some(ci));
        assert!(!passed, "CI={ci}: {text}");
        assert!(
            text.contains("CI is set, so a missing CLI fails the test"),
            "{text}"
        );
    }
    // With a CLI (any file), it is found.
    let (passed, text) = run(
        Some(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/model_api.rs")),
        Some("true"),
    );
    assert!(passed, "{text}");
    assert!(text.contains("PROBE found=true"), "{text}");
}

#[test]
fn offline_md_shows_the_recipe_test_as_it_is() {
    let doc = include_str!("../OFFLINE.md");
    let recipe = include_str!("model_api_recipe.rs");
    let marker = "<!-- tests/model_api_recipe.rs -->\n```rust\n";
    let start = doc.find(marker).expect("the marker in OFFLINE.md") + marker.len();
    let end = start + doc[start..].find("\n```\n").expect("the end of the block") + 1;
    assert!(
        doc[start..end] == *recipe,
        "OFFLINE.md's example differs from tests/model_api_recipe.rs: copy the file into it"
    );
    assert!(doc.contains(&format!("@anthropic-ai/claude-code@{PINNED_CLI_VERSION}")));
}

// ----- the real CLI ---------------------------------------------------------

/// The stand-in's options for the real CLI, or `None` (skip) without one.
fn offline(api: &ModelApi) -> Option<Options> {
    let cli = claude_bin_or_skip()?;
    Some(api.options(Options::default().cli_path(cli)))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokio_a_text_turn() {
    let api = ModelApi::turns([Reply::text("Hello from the stand-in.").in_deltas(4)]).unwrap();
    let Some(options) = offline(&api) else { return };
    let mut claude = claude_proto_tokio::Claude::spawn(options).await.unwrap();
    let turn = claude.ask("Say hello").await.unwrap();
    assert!(!turn.is_error(), "{:?}", turn.result);
    assert_eq!(turn.text(), Some("Hello from the stand-in."));
    claude.close().await.unwrap();
    let requests = api.messages_requests();
    assert_eq!(requests.len(), 1, "one model call for one text turn");
    assert!(requests[0].is_streaming());
    assert!(requests[0].all_text().contains("Say hello"));
    assert_eq!(requests[0].header("x-api-key"), Some("stand-in-key"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokio_a_tool_use_turn_asks_permission_and_returns_the_result() {
    let api = ModelApi::turns([
        Reply::tool_use(
            "Bash",
            json!({"command": COMMAND, "description": "Write a note"}),
        )
        .with_text("Let me run that."),
        Reply::text("The command printed kit-check."),
    ])
    .unwrap();
    let Some(options) = offline(&api) else { return };
    // A command that writes is not auto-allowed: the CLI asks first. It
    // runs in a directory of the stand-in's, removed with it.
    let project = api.home().join("project");
    std::fs::create_dir(&project).unwrap();
    let options = options.cwd(&project);
    let asked = Arc::new(Mutex::new(Vec::new()));
    let mut claude = {
        let asked = asked.clone();
        claude_proto_tokio::Claude::builder(options)
            .on_permission(move |ask| {
                let asked = asked.clone();
                async move {
                    asked
                        .lock()
                        .unwrap()
                        .push((ask.tool_name.clone(), ask.input.clone()));
                    PermissionResult::allow()
                }
            })
            .spawn()
            .await
            .unwrap()
    };
    let turn = claude.ask("Run echo kit-check").await.unwrap();
    claude.close().await.unwrap();
    assert!(!turn.is_error(), "{:?}", turn.result);
    assert_eq!(turn.text(), Some("The command printed kit-check."));
    let asked = asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0].0, "Bash");
    assert_eq!(asked[0].1["command"], COMMAND);
    assert_eq!(
        std::fs::read_to_string(project.join("note.txt")).unwrap(),
        "kit-check"
    );
    let requests = api.messages_requests();
    assert_eq!(requests.len(), 2);
    assert!(requests[0].tools().contains(&"Bash"));
    let results = requests[1].tool_result_texts();
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(results[0].contains("kit-check"), "{results:?}");
    assert_eq!(
        requests[1].tool_results()[0]["tool_use_id"],
        "toolu_mock_0001"
    );
}

/// The tool-use test's command.
const COMMAND: &str = "printf kit-check > note.txt && cat note.txt";

/// Runs one turn against `api` with the CLI's retries set to `retries`;
/// `None` without a CLI.
async fn one_turn(api: &ModelApi, retries: Option<&str>) -> Option<claude_proto_tokio::Turn> {
    let mut options = offline(api)?;
    if let Some(retries) = retries {
        options = options.env("CLAUDE_CODE_MAX_RETRIES", retries);
    }
    let mut claude = claude_proto_tokio::Claude::spawn(options).await.unwrap();
    let turn = claude.ask("Hello?").await.unwrap();
    claude.close().await.unwrap();
    Some(turn)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokio_overloaded_ends_the_turn_with_an_error_at_once() {
    let api = ModelApi::turns([Reply::overloaded(), Reply::text("never sent")]).unwrap();
    let Some(turn) = one_turn(&api, None).await else {
        return;
    };
    assert!(turn.is_error(), "{:?}", turn.result);
    let message = turn.result.error_message().unwrap();
    assert!(message.to_lowercase().contains("overloaded"), "{message}");
    let statuses: Vec<u16> = api.messages_requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses, [529], "not retried");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokio_a_400_ends_the_turn_after_one_call() {
    let api = ModelApi::turns([
        Reply::invalid_request("the stand-in refuses this prompt"),
        Reply::text("never sent"),
    ])
    .unwrap();
    let Some(turn) = one_turn(&api, None).await else {
        return;
    };
    assert!(turn.is_error(), "{:?}", turn.result);
    let message = turn.result.error_message().unwrap();
    assert!(
        message.contains("the stand-in refuses this prompt"),
        "{message}"
    );
    let statuses: Vec<u16> = api.messages_requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses, [400], "not sent again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokio_with_experimental_betas_a_400_is_sent_again() {
    let api = ModelApi::start(|_| Reply::invalid_request("no")).unwrap();
    let Some(mut options) = offline(&api) else {
        return;
    };
    options
        .env
        .retain(|(name, _)| name != "CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS");
    let mut claude = claude_proto_tokio::Claude::spawn(options).await.unwrap();
    let turn = claude.ask("Hello?").await.unwrap();
    claude.close().await.unwrap();
    assert!(turn.is_error(), "{:?}", turn.result);
    let requests = api.messages_requests();
    assert!(requests.len() > 1, "{} calls", requests.len());
    assert!(requests.iter().all(|r| r.status == 400));
    // Each call again has fewer betas.
    let betas = |r: &ApiRequest| r.header("anthropic-beta").unwrap_or("").split(',').count();
    assert!(betas(&requests[requests.len() - 1]) < betas(&requests[0]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokio_with_retries_on_408_409_429_5xx_and_529_are_sent_again() {
    let failures = [
        Reply::error(408, "timeout_error", "timeout"),
        Reply::error(409, "conflict_error", "conflict"),
        Reply::rate_limited(Duration::from_secs(1)),
        Reply::server_error(),
        Reply::error(503, "api_error", "unavailable"),
        Reply::overloaded(),
    ];
    let statuses: Vec<u16> = failures.iter().map(Reply::status).collect();
    // Each turn: the failure, then the answer to the call sent again.
    let api = ModelApi::turns(
        failures
            .into_iter()
            .enumerate()
            .flat_map(|(n, failure)| [failure, Reply::text(format!("answer {n}"))]),
    )
    .unwrap();
    let Some(options) = offline(&api) else { return };
    let options = options.env("CLAUDE_CODE_MAX_RETRIES", "1");
    let mut claude = claude_proto_tokio::Claude::spawn(options).await.unwrap();
    for (n, status) in statuses.iter().enumerate() {
        let turn = claude.ask(format!("Question {n}")).await.unwrap();
        assert!(!turn.is_error(), "{status}: {:?}", turn.result);
        assert_eq!(turn.text(), Some(format!("answer {n}").as_str()));
    }
    claude.close().await.unwrap();
    let seen: Vec<u16> = api.messages_requests().iter().map(|r| r.status).collect();
    let expected: Vec<u16> = statuses.iter().flat_map(|&s| [s, 200]).collect();
    assert_eq!(seen, expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokio_a_retry_after_over_a_minute_ends_the_turn_at_once() {
    let api = ModelApi::turns([
        Reply::rate_limited(Duration::from_secs(120)),
        Reply::text("never sent"),
    ])
    .unwrap();
    let Some(turn) = one_turn(&api, Some("3")).await else {
        return;
    };
    assert!(turn.is_error(), "{:?}", turn.result);
    let message = turn.result.error_message().unwrap();
    assert!(message.contains("429"), "{message}");
    let statuses: Vec<u16> = api.messages_requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses, [429]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokio_three_overloaded_calls_in_a_row_end_the_turn_whatever_the_retries() {
    let api = ModelApi::turns(
        std::iter::repeat_n(Reply::overloaded(), 4).chain([Reply::text("never sent")]),
    )
    .unwrap();
    let Some(turn) = one_turn(&api, Some("10")).await else {
        return;
    };
    assert!(turn.is_error(), "{:?}", turn.result);
    let message = turn.result.error_message().unwrap();
    assert!(message.contains("Repeated 529"), "{message}");
    let statuses: Vec<u16> = api.messages_requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses, [529, 529, 529]);
}

#[test]
fn blocking_a_text_turn() {
    let api = ModelApi::turns([Reply::text("Hello, blocking.")]).unwrap();
    let Some(options) = offline(&api) else { return };
    let mut claude = claude_proto_blocking::Claude::spawn(options).unwrap();
    let turn = claude.ask("Say hello").unwrap();
    claude.close().unwrap();
    assert!(!turn.is_error(), "{:?}", turn.result);
    assert_eq!(turn.text(), Some("Hello, blocking."));
    assert_eq!(api.messages_requests().len(), 1);
}
