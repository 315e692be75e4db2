//! A loopback stand-in for the Anthropic Messages API, so the real Claude
//! Code CLI can run offline (`ANTHROPIC_BASE_URL=http://127.0.0.1:PORT`).
//!
//! Plain std: one listener on `127.0.0.1` port 0, one thread per
//! connection, hand-written HTTP/1.1 (request line, headers, a
//! `Content-Length` or chunked body; every answer closes its connection).
//!
//! - `POST /v1/messages` (any query, e.g. `?beta=true`) with
//!   `"stream": true` gets server-sent events: `message_start`, a text block
//!   (`text_delta`s) and/or a `tool_use` block (`input_json_delta`s),
//!   `message_delta` with the stop reason, `message_stop`. Without
//!   `"stream": true` it gets the same message as plain JSON.
//! - A [`Reply::error`] answers with that HTTP status and an Anthropic error
//!   body instead.
//! - Every other path gets 404.
//!
//! What to answer is decided per request by the script given to
//! [`ModelApi::start`], which sees the request body (and so the whole
//! conversation). Every request is recorded ([`ModelApi::requests`]) so a
//! test can check what the model was sent. Dropping the server stops it:
//! the listener closes, open connections are shut down, threads are joined.

use std::io::{self, BufRead, BufReader, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long a connection may sit idle before the server gives up on it.
const READ_TIMEOUT: Duration = Duration::from_secs(30);
/// After this many `POST /v1/messages`, every further one gets a 400: a
/// script that makes the CLI loop fails the turn instead of hanging.
pub const MAX_MESSAGES_REQUESTS: usize = 40;
/// The largest request head or body accepted.
const MAX_REQUEST_BYTES: usize = 64 * 1024 * 1024;

/// What the stand-in answers to one `POST /v1/messages`.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// Text for a text block (`None`: no text block).
    pub text: Option<String>,
    /// A `tool_use` block after the text: tool name and input.
    pub tool_use: Option<(String, Value)>,
    /// Answer with this HTTP status and an Anthropic error body instead:
    /// `(status, error type, message)`.
    pub error: Option<(u16, String, String)>,
    /// How many `text_delta`s the text is cut into (at least 1; cut at
    /// character boundaries).
    pub text_deltas: usize,
    /// Pause before each delta (the stream is then slow).
    pub delta_delay: Duration,
}

impl Reply {
    /// A text answer, `stop_reason: end_turn`, streamed in two deltas.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: Some(text.into()),
            tool_use: None,
            error: None,
            text_deltas: 2,
            delta_delay: Duration::ZERO,
        }
    }

    /// A `tool_use` block, `stop_reason: tool_use`.
    pub fn tool_use(name: impl Into<String>, input: Value) -> Self {
        Self {
            text: None,
            tool_use: Some((name.into(), input)),
            error: None,
            text_deltas: 2,
            delta_delay: Duration::ZERO,
        }
    }

    /// An HTTP error with an Anthropic error body, e.g.
    /// `Reply::error(400, "invalid_request_error", "...")`. Avoid 5xx in
    /// tests: the CLI retries those for minutes.
    pub fn error(status: u16, kind: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            text: None,
            tool_use: None,
            error: Some((status, kind.into(), message.into())),
            text_deltas: 1,
            delta_delay: Duration::ZERO,
        }
    }

    /// Adds a text block before the tool use (or replaces the text).
    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        self.text = Some(text.into());
        self
    }

    /// Streams the text in `deltas` pieces with `delay` before each: a slow
    /// stream.
    pub fn slowly(mut self, deltas: usize, delay: Duration) -> Self {
        self.text_deltas = deltas.max(1);
        self.delta_delay = delay;
        self
    }

    fn stop_reason(&self) -> &'static str {
        if self.tool_use.is_some() {
            "tool_use"
        } else {
            "end_turn"
        }
    }
}

/// One request the stand-in received.
#[derive(Debug, Clone)]
pub struct ApiRequest {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The request target, query included (`/v1/messages?beta=true`).
    pub path: String,
    /// Header names (lower case) and values, in order.
    pub headers: Vec<(String, String)>,
    /// The body as JSON (`Value::Null` if empty or not JSON).
    pub body: Value,
    /// The HTTP status the stand-in answered with.
    pub status: u16,
}

impl ApiRequest {
    /// `true` for `POST /v1/messages` (any query).
    pub fn is_messages(&self) -> bool {
        self.method == "POST" && self.path.split('?').next() == Some("/v1/messages")
    }

    /// The `model` field of the body.
    pub fn model(&self) -> Option<&str> {
        self.body["model"].as_str()
    }

    /// The conversation sent (`messages`).
    pub fn messages(&self) -> &[Value] {
        self.body["messages"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    /// Every `tool_result` block in the conversation, oldest first.
    pub fn tool_results(&self) -> Vec<&Value> {
        self.messages()
            .iter()
            .filter_map(|m| m["content"].as_array())
            .flatten()
            .filter(|block| block["type"] == "tool_result")
            .collect()
    }

    /// The text of every text block (or string content) in the
    /// conversation, joined with newlines.
    pub fn all_text(&self) -> String {
        let mut out = Vec::new();
        for message in self.messages() {
            match &message["content"] {
                Value::String(s) => out.push(s.clone()),
                Value::Array(blocks) => {
                    for block in blocks {
                        if let Some(text) = block["text"].as_str() {
                            out.push(text.to_owned());
                        }
                        if let Some(text) = block["content"].as_str() {
                            out.push(text.to_owned());
                        }
                        if let Some(parts) = block["content"].as_array() {
                            out.extend(
                                parts
                                    .iter()
                                    .filter_map(|p| p["text"].as_str().map(str::to_owned)),
                            );
                        }
                    }
                }
                _ => {}
            }
        }
        out.join("\n")
    }

    /// `true` when the last message holds a `tool_result`. Careful: the
    /// real CLI may append more after it (a `role: "system"` message, hook
    /// context), so [`tool_results`](Self::tool_results) is the safer test
    /// for "the model has seen its tool's result".
    pub fn ends_with_tool_result(&self) -> bool {
        self.messages().last().is_some_and(|m| {
            m["content"]
                .as_array()
                .is_some_and(|blocks| blocks.iter().any(|b| b["type"] == "tool_result"))
        })
    }

    /// A header's value (name in any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

type Script = dyn Fn(&ApiRequest) -> Reply + Send + Sync;

#[derive(Default)]
struct State {
    requests: Vec<ApiRequest>,
    connections: Vec<TcpStream>,
    threads: Vec<JoinHandle<()>>,
    ids: u64,
}

struct Shared {
    max_requests: usize,
    state: Mutex<State>,
    changed: Condvar,
    stop: AtomicBool,
    script: Box<Script>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn next_id(&self) -> u64 {
        let mut state = self.lock();
        state.ids += 1;
        state.ids
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }
}

/// The running stand-in. Stops when dropped.
pub struct ModelApi {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for ModelApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelApi")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl ModelApi {
    /// Starts a server on `127.0.0.1` (a free port) that answers each
    /// `POST /v1/messages` with `script(request)`.
    pub fn start(
        script: impl Fn(&ApiRequest) -> Reply + Send + Sync + 'static,
    ) -> io::Result<Self> {
        Self::start_with_limit(script, MAX_MESSAGES_REQUESTS)
    }

    /// Like [`start`](Self::start), answering at most `max_requests`
    /// `POST /v1/messages` before refusing (for long interactive demos).
    pub fn start_with_limit(
        script: impl Fn(&ApiRequest) -> Reply + Send + Sync + 'static,
        max_requests: usize,
    ) -> io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", 0))?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            max_requests,
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
            stop: AtomicBool::new(false),
            script: Box::new(script),
        });
        let accept = {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name("model-api-accept".into())
                .spawn(move || accept_loop(&listener, &shared))?
        };
        Ok(Self {
            addr,
            shared,
            accept: Some(accept),
        })
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// `http://127.0.0.1:PORT`, for `ANTHROPIC_BASE_URL`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<ApiRequest> {
        self.shared.lock().requests.clone()
    }

    /// The `POST /v1/messages` requests received so far.
    pub fn messages_requests(&self) -> Vec<ApiRequest> {
        self.requests()
            .into_iter()
            .filter(ApiRequest::is_messages)
            .collect()
    }

    /// Waits (at most `limit`) until `n` requests of any kind arrived;
    /// `false` on timeout.
    pub fn wait_for_requests(&self, n: usize, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        let mut state = self.shared.lock();
        while state.requests.len() < n {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            state = self
                .shared
                .changed
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        true
    }
}

impl Drop for ModelApi {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // Wake the blocking accept.
        drop(TcpStream::connect_timeout(
            &self.addr,
            Duration::from_secs(1),
        ));
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
        let (connections, threads) = {
            let mut state = self.shared.lock();
            (
                std::mem::take(&mut state.connections),
                std::mem::take(&mut state.threads),
            )
        };
        for connection in connections {
            let _ = connection.shutdown(Shutdown::Both);
        }
        for thread in threads {
            let _ = thread.join();
        }
    }
}

fn accept_loop(listener: &TcpListener, shared: &Arc<Shared>) {
    for stream in listener.incoming() {
        if shared.stopped() {
            return;
        }
        let Ok(stream) = stream else { continue };
        let Ok(clone) = stream.try_clone() else {
            continue;
        };
        let handler = {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name("model-api-conn".into())
                .spawn(move || {
                    // A connection that breaks is the client's business.
                    let _ = serve(stream, &shared);
                })
        };
        let mut state = shared.lock();
        state.connections.push(clone);
        if let Ok(handle) = handler {
            state.threads.push(handle);
        }
    }
}

struct Head {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
}

fn read_head(reader: &mut impl BufRead) -> io::Result<Option<Head>> {
    let mut line = String::new();
    // Skip blank lines before a request (allowed by RFC 9112).
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        if !line.trim().is_empty() {
            break;
        }
    }
    let mut parts = line.split_whitespace();
    let (Some(method), Some(path)) = (parts.next(), parts.next()) else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "bad request line",
        ));
    };
    let (method, path) = (method.to_owned(), path.to_owned());
    let mut headers = Vec::new();
    let mut size = line.len();
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        size += line.len();
        if size > MAX_REQUEST_BYTES {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "head too large"));
        }
        let trimmed = line.trim_end_matches(['\r', '\n']);
        if trimmed.is_empty() {
            break;
        }
        if let Some((name, value)) = trimmed.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    Ok(Some(Head {
        method,
        path,
        headers,
    }))
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

fn read_body(reader: &mut impl BufRead, headers: &[(String, String)]) -> io::Result<Vec<u8>> {
    let too_large = || io::Error::new(io::ErrorKind::InvalidData, "body too large");
    if header(headers, "transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        let mut body = Vec::new();
        let mut line = String::new();
        loop {
            line.clear();
            reader.read_line(&mut line)?;
            let size = line.trim().split(';').next().unwrap_or("");
            let size = usize::from_str_radix(size, 16)
                .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "bad chunk size"))?;
            if body.len() + size > MAX_REQUEST_BYTES {
                return Err(too_large());
            }
            if size == 0 {
                // Trailers, then the blank line.
                loop {
                    line.clear();
                    if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
                        return Ok(body);
                    }
                }
            }
            let start = body.len();
            body.resize(start + size, 0);
            reader.read_exact(&mut body[start..])?;
            line.clear();
            reader.read_line(&mut line)?;
        }
    }
    let length = match header(headers, "content-length") {
        Some(v) => v
            .parse::<usize>()
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "bad content-length"))?,
        None => 0,
    };
    if length > MAX_REQUEST_BYTES {
        return Err(too_large());
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    Ok(body)
}

/// Serves one connection: one request, one answer, then close.
fn serve(stream: TcpStream, shared: &Shared) -> io::Result<()> {
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    stream.set_nodelay(true)?;
    let mut writer = stream.try_clone()?;
    let mut reader = BufReader::new(stream);
    let Some(head) = read_head(&mut reader)? else {
        return Ok(());
    };
    if header(&head.headers, "expect").is_some_and(|v| v.eq_ignore_ascii_case("100-continue")) {
        writer.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
    }
    let body = read_body(&mut reader, &head.headers)?;
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let mut request = ApiRequest {
        method: head.method,
        path: head.path,
        headers: head.headers,
        body,
        status: 404,
    };
    let earlier = shared
        .lock()
        .requests
        .iter()
        .filter(|r| r.is_messages())
        .count();
    let reply = request.is_messages().then(|| {
        if earlier >= shared.max_requests {
            Reply::error(
                400,
                "invalid_request_error",
                format!(
                    "stand-in: more than {} requests; is the script looping?",
                    shared.max_requests
                ),
            )
        } else {
            (shared.script)(&request)
        }
    });
    request.status = match &reply {
        None => 404,
        Some(Reply {
            error: Some((status, ..)),
            ..
        }) => *status,
        Some(_) => 200,
    };
    {
        let mut state = shared.lock();
        state.requests.push(request.clone());
    }
    shared.changed.notify_all();

    let id = shared.next_id();
    match reply {
        None => write_json(
            &mut writer,
            404,
            id,
            &error_body("not_found_error", "stand-in: not found"),
        ),
        Some(Reply {
            error: Some((status, kind, message)),
            ..
        }) => write_json(&mut writer, status, id, &error_body(&kind, &message)),
        Some(reply) => {
            let model = request.model().unwrap_or("claude-stand-in").to_owned();
            if request.body["stream"] == Value::Bool(true) {
                stream_reply(&mut writer, shared, id, &model, &reply)
            } else {
                write_json(&mut writer, 200, id, &plain_message(id, &model, &reply))
            }
        }
    }?;
    let _ = writer.flush();
    let _ = writer.shutdown(Shutdown::Both);
    Ok(())
}

fn error_body(kind: &str, message: &str) -> Value {
    json!({"type": "error", "error": {"type": kind, "message": message}})
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        413 => "Payload Too Large",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        529 => "Overloaded",
        _ => "Status",
    }
}

fn write_json(writer: &mut TcpStream, status: u16, id: u64, body: &Value) -> io::Result<()> {
    let body = body.to_string();
    let head = format!(
        "HTTP/1.1 {status} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nrequest-id: req_mock_{id:04}\r\nconnection: close\r\n\r\n",
        reason(status),
        body.len()
    );
    writer.write_all(head.as_bytes())?;
    writer.write_all(body.as_bytes())
}

fn tool_id(id: u64) -> String {
    format!("toolu_mock_{id:04}")
}

fn usage() -> Value {
    json!({"input_tokens": 12, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 1})
}

fn plain_message(id: u64, model: &str, reply: &Reply) -> Value {
    let mut content = Vec::new();
    if let Some(text) = &reply.text {
        content.push(json!({"type": "text", "text": text}));
    }
    if let Some((name, input)) = &reply.tool_use {
        content.push(json!({"type": "tool_use", "id": tool_id(id), "name": name, "input": input}));
    }
    json!({
        "id": format!("msg_mock_{id:04}"), "type": "message", "role": "assistant", "model": model,
        "content": content, "stop_reason": reply.stop_reason(), "stop_sequence": null,
        "usage": {"input_tokens": 12, "output_tokens": 7},
    })
}

/// Cuts `text` into `n` pieces at character boundaries (fewer if it is short).
fn pieces(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return vec![String::new()];
    }
    let n = n.clamp(1, chars.len());
    let size = chars.len().div_ceil(n);
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

fn stream_reply(
    writer: &mut TcpStream,
    shared: &Shared,
    id: u64,
    model: &str,
    reply: &Reply,
) -> io::Result<()> {
    let head = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\ntransfer-encoding: chunked\r\nrequest-id: req_mock_{id:04}\r\nconnection: close\r\n\r\n"
    );
    writer.write_all(head.as_bytes())?;
    let mut event = |name: &str, data: Value| -> io::Result<()> {
        let payload = format!("event: {name}\ndata: {data}\n\n");
        let chunk = format!("{:x}\r\n{payload}\r\n", payload.len());
        writer.write_all(chunk.as_bytes())?;
        writer.flush()
    };
    let pause = |delay: Duration| -> io::Result<()> {
        let until = Instant::now() + delay;
        while Instant::now() < until {
            if shared.stopped() {
                return Err(io::ErrorKind::ConnectionAborted.into());
            }
            std::thread::sleep((until - Instant::now()).min(Duration::from_millis(10)));
        }
        Ok(())
    };
    event(
        "message_start",
        json!({"type": "message_start", "message": {
            "id": format!("msg_mock_{id:04}"), "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null, "usage": usage()}}),
    )?;
    let mut index = 0;
    if let Some(text) = &reply.text {
        event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}),
        )?;
        for piece in pieces(text, reply.text_deltas) {
            pause(reply.delta_delay)?;
            event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": piece}}),
            )?;
        }
        event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        )?;
        index += 1;
    }
    if let Some((name, input)) = &reply.tool_use {
        event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": {
                "type": "tool_use", "id": tool_id(id), "name": name, "input": {}}}),
        )?;
        for piece in pieces(&input.to_string(), 2) {
            event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": piece}}),
            )?;
        }
        event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        )?;
    }
    event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": reply.stop_reason(), "stop_sequence": null},
               "usage": {"output_tokens": 7}}),
    )?;
    event("message_stop", json!({"type": "message_stop"}))?;
    writer.write_all(b"0\r\n\r\n")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use std::io::Read;

    fn post(port: u16, path: &str, body: &str) -> String {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        write!(
            stream,
            "POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        // Read until the server closes (a reset counts as closed; a read
        // timeout fails the test).
        let mut answer = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            match stream.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => answer.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == io::ErrorKind::ConnectionReset => break,
                Err(e) => panic!("reading the answer: {e}"),
            }
        }
        String::from_utf8(answer).unwrap()
    }

    #[test]
    fn streams_text_and_tool_use_and_records_requests() {
        let server = ModelApi::start(|request| {
            if request.ends_with_tool_result() {
                Reply::text("done")
            } else {
                Reply::tool_use("Bash", json!({"command": "ls"})).with_text("Let me look.")
            }
        })
        .unwrap();
        let answer = post(
            server.port(),
            "/v1/messages?beta=true",
            r#"{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}"#,
        );
        assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
        assert!(answer.contains("text/event-stream"));
        for needle in [
            "event: message_start",
            r#""type":"text_delta""#,
            r#""type":"input_json_delta""#,
            r#""stop_reason":"tool_use""#,
            "event: message_stop",
        ] {
            assert!(answer.contains(needle), "{needle} missing: {answer}");
        }
        let answer = post(
            server.port(),
            "/v1/messages",
            r#"{"model":"m","messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]}]}"#,
        );
        assert!(answer.contains(r#""text":"done""#), "{answer}");
        assert!(answer.contains("application/json"));
        let answer = post(server.port(), "/v1/other", "{}");
        assert!(answer.starts_with("HTTP/1.1 404"), "{answer}");
        let requests = server.requests();
        assert_eq!(requests.len(), 3);
        assert_eq!(server.messages_requests().len(), 2);
        assert_eq!(requests[0].model(), Some("m"));
        assert_eq!(requests[1].tool_results().len(), 1);
        assert_eq!(requests[2].status, 404);
    }

    #[test]
    fn answers_errors_with_an_anthropic_body() {
        let server =
            ModelApi::start(|_| Reply::error(400, "invalid_request_error", "nope")).unwrap();
        let answer = post(server.port(), "/v1/messages", r#"{"stream":true}"#);
        assert!(answer.starts_with("HTTP/1.1 400 Bad Request"), "{answer}");
        assert!(answer.contains(r#""type":"invalid_request_error""#));
        assert!(server.wait_for_requests(1, Duration::from_secs(5)));
    }

    #[test]
    fn dropping_stops_a_slow_stream() {
        let server =
            ModelApi::start(|_| Reply::text("a b c d e f g h").slowly(8, Duration::from_secs(60)))
                .unwrap();
        let port = server.port();
        let client = std::thread::spawn(move || post(port, "/v1/messages", r#"{"stream":true}"#));
        assert!(server.wait_for_requests(1, Duration::from_secs(10)));
        drop(server);
        // The client is released (its read would time out otherwise) and
        // the stream never finished.
        let answer = client.join().unwrap();
        assert!(!answer.contains("message_stop"), "{answer}");
    }
}
