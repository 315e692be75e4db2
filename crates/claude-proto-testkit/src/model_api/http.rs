//! The server: hand-written HTTP/1.1 over std's TCP, one thread per
//! connection, one request per connection.

use std::collections::HashMap;
use std::io::{self, BufRead, BufReader, Read as _, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::limits::{MAX_RECORDED_OTHER_REQUESTS, MAX_REQUEST_BYTES};
use super::reply::{Body, Message, Reply};
use super::request::ApiRequest;

/// How long a connection may sit idle before the server gives up on it.
const READ_TIMEOUT: Duration = Duration::from_secs(30);

/// How long one read waits before the server looks whether it has been
/// stopped: a blocked read is not woken by `shutdown` everywhere (under
/// Wine it waits out its timeout), so an idle connection would hold the
/// owner's drop for all of [`READ_TIMEOUT`].
const READ_SLICE: Duration = Duration::from_millis(100);

pub(super) type Script = dyn Fn(&ApiRequest) -> Reply + Send + Sync;

#[derive(Default)]
pub(super) struct State {
    pub(super) requests: Vec<ApiRequest>,
    /// Requests received, recorded or not (past the cap).
    pub(super) received: usize,
    /// Recorded requests that are not model calls answered by the script.
    others: usize,
    /// A clone of each open connection, by id, for the owner's drop to
    /// cut: removed by the connection's thread when it is done, so a
    /// finished connection holds no descriptor.
    pub(super) connections: HashMap<u64, TcpStream>,
    /// The connections' threads, by id; finished ones are joined at the
    /// next accept.
    pub(super) threads: Vec<(u64, JoinHandle<()>)>,
    /// Connections accepted so far (their ids).
    accepted: u64,
    /// Responses numbered so far (for `req_mock_NNNN` and the like).
    ids: u64,
    /// Model calls seen so far, refused ones included.
    messages: usize,
    /// Set once, by the owner's drop; read under the lock so that a
    /// waiting stream cannot miss it.
    pub(super) stopped: bool,
}

pub(super) struct Shared {
    pub(super) max_requests: usize,
    pub(super) state: Mutex<State>,
    /// Signalled when a request is recorded and when the server stops.
    pub(super) changed: Condvar,
    pub(super) script: Box<Script>,
}

impl Shared {
    pub(super) fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn stopped(&self) -> bool {
        self.lock().stopped
    }

    /// Sleeps for `delay` unless the server stops first (`Err`).
    fn pause(&self, delay: Duration) -> io::Result<()> {
        let until = crate::engine::deadline(Instant::now(), delay);
        let mut state = self.lock();
        loop {
            if state.stopped {
                return Err(io::ErrorKind::ConnectionAborted.into());
            }
            let now = Instant::now();
            if now >= until {
                return Ok(());
            }
            state = self
                .changed
                .wait_timeout(state, until - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Records `request`; one that is not a model call answered by the
    /// script (`scripted`) only while fewer than
    /// [`MAX_RECORDED_OTHER_REQUESTS`] such are recorded, so a client
    /// that keeps knocking cannot grow memory without bound.
    fn record(&self, request: ApiRequest, scripted: bool) {
        {
            let mut state = self.lock();
            state.received += 1;
            if scripted {
                state.requests.push(request);
            } else if state.others < MAX_RECORDED_OTHER_REQUESTS {
                state.others += 1;
                state.requests.push(request);
            }
        }
        self.changed.notify_all();
    }
}

pub(super) fn accept_loop(listener: &TcpListener, shared: &Arc<Shared>) {
    for stream in listener.incoming() {
        if shared.stopped() {
            return;
        }
        let Ok(stream) = stream else { continue };
        let Ok(clone) = stream.try_clone() else {
            continue;
        };
        let (id, finished) = {
            let mut state = shared.lock();
            state.accepted += 1;
            let id = state.accepted;
            // In before the thread starts, so that its removal at the end
            // cannot come first and leave the clone behind.
            state.connections.insert(id, clone);
            let (finished, running) = std::mem::take(&mut state.threads)
                .into_iter()
                .partition::<Vec<_>, _>(|(_, thread)| thread.is_finished());
            state.threads = running;
            (id, finished)
        };
        for (_, thread) in finished {
            let _ = thread.join();
        }
        let handler = {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name("model-api-conn".into())
                .spawn(move || {
                    // A connection that breaks is the client's business.
                    let _ = serve(stream, &shared, id);
                })
        };
        let mut state = shared.lock();
        match handler {
            Ok(handle) => state.threads.push((id, handle)),
            Err(_) => drop(state.connections.remove(&id)),
        }
    }
}

struct Head {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
}

/// Why a request was not read to its end.
enum Refusal {
    /// Not HTTP the stand-in understands (with the head, if it was read).
    Malformed(&'static str, Option<Head>),
    /// A head or body larger than [`MAX_REQUEST_BYTES`].
    TooLarge(Option<Head>),
    /// The connection failed or closed.
    Io(io::Error),
}

impl From<io::Error> for Refusal {
    fn from(error: io::Error) -> Self {
        Self::Io(error)
    }
}

fn read_head(reader: &mut impl BufRead) -> Result<Option<Head>, Refusal> {
    let mut line = String::new();
    // Skip blank lines before a request (allowed by RFC 9112).
    loop {
        line.clear();
        let read = reader
            .by_ref()
            .take(MAX_REQUEST_BYTES as u64)
            .read_line(&mut line)?;
        if read == 0 {
            return Ok(None);
        }
        if !line.ends_with('\n') && line.len() >= MAX_REQUEST_BYTES {
            return Err(Refusal::TooLarge(None));
        }
        if !line.trim().is_empty() {
            break;
        }
    }
    let mut parts = line.split_whitespace();
    let (Some(method), Some(path)) = (parts.next(), parts.next()) else {
        return Err(Refusal::Malformed("a bad request line", None));
    };
    let (method, path) = (method.to_owned(), path.to_owned());
    let mut headers = Vec::new();
    let mut size = line.len();
    loop {
        line.clear();
        let limit = (MAX_REQUEST_BYTES - size.min(MAX_REQUEST_BYTES)) as u64 + 1;
        if reader.by_ref().take(limit).read_line(&mut line)? == 0 {
            return Err(Refusal::Io(io::ErrorKind::UnexpectedEof.into()));
        }
        size += line.len();
        if size > MAX_REQUEST_BYTES {
            return Err(Refusal::TooLarge(Some(Head {
                method,
                path,
                headers,
            })));
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

/// What went wrong reading a body.
enum BodyError {
    Malformed(&'static str),
    TooLarge,
    Io(io::Error),
}

impl From<io::Error> for BodyError {
    fn from(error: io::Error) -> Self {
        Self::Io(error)
    }
}

/// Reads the body of a request with this head.
fn read_body(
    reader: &mut impl BufRead,
    headers: &[(String, String)],
) -> Result<Vec<u8>, BodyError> {
    if header(headers, "transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        let mut body = Vec::new();
        let mut line = String::new();
        loop {
            line.clear();
            reader.by_ref().take(1024).read_line(&mut line)?;
            let size = line.trim().split(';').next().unwrap_or("");
            let size = usize::from_str_radix(size, 16)
                .map_err(|_| BodyError::Malformed("a bad chunk size"))?;
            if body.len().saturating_add(size) > MAX_REQUEST_BYTES {
                return Err(BodyError::TooLarge);
            }
            if size == 0 {
                // Trailers, then the blank line.
                loop {
                    line.clear();
                    let read = reader.by_ref().take(64 * 1024).read_line(&mut line)?;
                    if read == 0 || line.trim().is_empty() {
                        return Ok(body);
                    }
                }
            }
            let start = body.len();
            body.resize(start + size, 0);
            reader.read_exact(&mut body[start..])?;
            line.clear();
            reader.by_ref().take(1024).read_line(&mut line)?;
        }
    }
    let length = match header(headers, "content-length") {
        Some(v) => v
            .parse::<usize>()
            .map_err(|_| BodyError::Malformed("a bad content-length"))?,
        None => 0,
    };
    if length > MAX_REQUEST_BYTES {
        return Err(BodyError::TooLarge);
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    Ok(body)
}

/// Serves connection `id`: one request, one answer, then close (its
/// clone kept for the owner's drop included).
fn serve(stream: TcpStream, shared: &Shared, id: u64) -> io::Result<()> {
    let result = serve_stream(stream, shared);
    drop(shared.lock().connections.remove(&id));
    result
}

fn serve_stream(stream: TcpStream, shared: &Shared) -> io::Result<()> {
    stream.set_read_timeout(Some(READ_SLICE))?;
    stream.set_nodelay(true)?;
    let mut writer = stream.try_clone()?;
    let mut reader = BufReader::new(Incoming { stream, shared });
    let result = answer(&mut reader, &mut writer, shared);
    let _ = writer.flush();
    let _ = writer.shutdown(Shutdown::Both);
    result
}

/// A connection's incoming bytes: a read waits at most [`READ_TIMEOUT`]
/// in all, in slices of [`READ_SLICE`], and ends as soon as the server is
/// stopped.
struct Incoming<'a> {
    stream: TcpStream,
    shared: &'a Shared,
}

impl std::io::Read for Incoming<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let give_up = crate::engine::deadline(Instant::now(), READ_TIMEOUT);
        loop {
            match self.stream.read(buf) {
                Err(error)
                    if matches!(
                        error.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    if self.shared.stopped() {
                        return Err(io::Error::new(
                            io::ErrorKind::ConnectionAborted,
                            "the stand-in was stopped",
                        ));
                    }
                    if Instant::now() >= give_up {
                        return Err(error);
                    }
                }
                other => return other,
            }
        }
    }
}

fn answer(
    reader: &mut BufReader<Incoming<'_>>,
    writer: &mut TcpStream,
    shared: &Shared,
) -> io::Result<()> {
    let (head, body) = match read_request(reader, writer) {
        Ok(Some(request)) => request,
        Ok(None) => return Ok(()),
        Err(Refusal::Io(error)) => return Err(error),
        Err(Refusal::Malformed(what, head)) => {
            return refuse(
                writer,
                shared,
                head,
                400,
                "invalid_request_error",
                format!("stand-in: {what}"),
            );
        }
        Err(Refusal::TooLarge(head)) => {
            return refuse(
                writer,
                shared,
                head,
                413,
                "request_too_large",
                format!("stand-in: the request is larger than {MAX_REQUEST_BYTES} bytes"),
            );
        }
    };
    let mut request = ApiRequest {
        method: head.method,
        path: head.path,
        headers: head.headers,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        status: 0,
    };
    let mut scripted = false;
    let reply = if request.is_messages() {
        let earlier = {
            let mut state = shared.lock();
            state.messages += 1;
            state.messages - 1
        };
        Some(if earlier >= shared.max_requests {
            Reply::invalid_request(format!(
                "stand-in: more than {} model calls; is the script looping?",
                shared.max_requests
            ))
        } else {
            scripted = true;
            ask_script(shared, &request)
        })
    } else {
        None
    };
    request.status = reply.as_ref().map_or(404, Reply::status);
    let streaming = request.is_streaming();
    let model = request.model().unwrap_or("claude-stand-in").to_owned();
    shared.record(request, scripted);

    let id = next_id(shared);
    let Some(reply) = reply else {
        let body = error_body("not_found_error", "stand-in: not found");
        return write_json(writer, 404, id, &[], &body);
    };
    match &reply.body {
        Body::Error {
            status,
            kind,
            message,
        } => write_json(
            writer,
            *status,
            id,
            &reply.headers,
            &error_body(kind, message),
        ),
        Body::Message(message) if streaming => {
            stream_message(writer, shared, id, &model, message, &reply.headers)
        }
        Body::Message(message) => write_json(
            writer,
            200,
            id,
            &reply.headers,
            &plain_message(id, &model, message),
        ),
    }
}

/// The script's reply; a script that panics gets its call answered 500
/// with the panic's message, so the test sees it in the turn's error.
fn ask_script(shared: &Shared, request: &ApiRequest) -> Reply {
    match std::panic::catch_unwind(AssertUnwindSafe(|| (shared.script)(request))) {
        Ok(reply) => reply,
        Err(panic) => {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".to_owned());
            Reply::error(
                500,
                "api_error",
                format!("stand-in: the script panicked: {message}"),
            )
        }
    }
}

/// Reads a request: `Ok(None)` when the client closed without sending
/// one.
fn read_request(
    reader: &mut BufReader<Incoming<'_>>,
    writer: &mut TcpStream,
) -> Result<Option<(Head, Vec<u8>)>, Refusal> {
    let Some(head) = read_head(reader)? else {
        return Ok(None);
    };
    if header(&head.headers, "expect").is_some_and(|v| v.eq_ignore_ascii_case("100-continue")) {
        writer.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
    }
    match read_body(reader, &head.headers) {
        Ok(body) => Ok(Some((head, body))),
        Err(BodyError::Malformed(what)) => Err(Refusal::Malformed(what, Some(head))),
        Err(BodyError::TooLarge) => Err(Refusal::TooLarge(Some(head))),
        Err(BodyError::Io(error)) => Err(Refusal::Io(error)),
    }
}

/// Answers a request that was not read to its end with an error, and
/// records it when its head was read (its body is then `Null`).
fn refuse(
    writer: &mut TcpStream,
    shared: &Shared,
    head: Option<Head>,
    status: u16,
    kind: &str,
    message: String,
) -> io::Result<()> {
    if let Some(head) = head {
        shared.record(
            ApiRequest {
                method: head.method,
                path: head.path,
                headers: head.headers,
                body: Value::Null,
                status,
            },
            false,
        );
    }
    let id = next_id(shared);
    write_json(writer, status, id, &[], &error_body(kind, &message))
}

fn next_id(shared: &Shared) -> u64 {
    let mut state = shared.lock();
    state.ids += 1;
    state.ids
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
        408 => "Request Timeout",
        409 => "Conflict",
        413 => "Payload Too Large",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        529 => "Overloaded",
        _ => "Status",
    }
}

/// The head of an answer: status line, the stand-in's headers, the reply's.
fn head(status: u16, id: u64, own: &str, extra: &[(String, String)]) -> String {
    let mut head = format!(
        "HTTP/1.1 {status} {}\r\n{own}request-id: req_mock_{id:04}\r\nconnection: close\r\n",
        reason(status)
    );
    for (name, value) in extra {
        // A header with a line break would end the head early.
        let clean = |s: &str| s.replace(['\r', '\n'], " ");
        head.push_str(&format!("{}: {}\r\n", clean(name), clean(value)));
    }
    head.push_str("\r\n");
    head
}

fn write_json(
    writer: &mut TcpStream,
    status: u16,
    id: u64,
    extra: &[(String, String)],
    body: &Value,
) -> io::Result<()> {
    let body = body.to_string();
    let own = format!(
        "content-type: application/json\r\ncontent-length: {}\r\n",
        body.len()
    );
    writer.write_all(head(status, id, &own, extra).as_bytes())?;
    writer.write_all(body.as_bytes())
}

/// The id of the `k`-th tool use of response `id`: the first keeps the
/// plain form that recorded fixtures show.
fn tool_id(id: u64, k: usize) -> String {
    match k {
        0 => format!("toolu_mock_{id:04}"),
        k => format!("toolu_mock_{id:04}_{k}"),
    }
}

fn usage() -> Value {
    json!({"input_tokens": 12, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 1})
}

fn plain_message(id: u64, model: &str, message: &Message) -> Value {
    let mut content = Vec::new();
    if let Some(text) = &message.text {
        content.push(json!({"type": "text", "text": text}));
    }
    for (k, (name, input)) in message.tool_uses.iter().enumerate() {
        content
            .push(json!({"type": "tool_use", "id": tool_id(id, k), "name": name, "input": input}));
    }
    json!({
        "id": format!("msg_mock_{id:04}"), "type": "message", "role": "assistant", "model": model,
        "content": content, "stop_reason": message.stop_reason(), "stop_sequence": null,
        "usage": {"input_tokens": 12, "output_tokens": 7},
    })
}

/// Cuts `text` into `n` pieces at character boundaries (fewer if it is short).
pub(super) fn pieces(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return vec![String::new()];
    }
    let n = n.clamp(1, chars.len());
    let size = chars.len().div_ceil(n);
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

fn stream_message(
    writer: &mut TcpStream,
    shared: &Shared,
    id: u64,
    model: &str,
    message: &Message,
    extra: &[(String, String)],
) -> io::Result<()> {
    let own = "content-type: text/event-stream\r\ncache-control: no-cache\r\ntransfer-encoding: chunked\r\n";
    writer.write_all(head(200, id, own, extra).as_bytes())?;
    let mut event = |name: &str, data: Value| -> io::Result<()> {
        let payload = format!("event: {name}\ndata: {data}\n\n");
        let chunk = format!("{:x}\r\n{payload}\r\n", payload.len());
        writer.write_all(chunk.as_bytes())?;
        writer.flush()
    };
    event(
        "message_start",
        json!({"type": "message_start", "message": {
            "id": format!("msg_mock_{id:04}"), "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null, "usage": usage()}}),
    )?;
    let mut index = 0;
    if let Some(text) = &message.text {
        event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}),
        )?;
        for piece in pieces(text, message.text_deltas) {
            shared.pause(message.delta_delay)?;
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
    for (k, (name, input)) in message.tool_uses.iter().enumerate() {
        event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": {
                "type": "tool_use", "id": tool_id(id, k), "name": name, "input": {}}}),
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
        index += 1;
    }
    event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": message.stop_reason(), "stop_sequence": null},
               "usage": {"output_tokens": 7}}),
    )?;
    event("message_stop", json!({"type": "message_stop"}))?;
    writer.write_all(b"0\r\n\r\n")
}
