//! The serving CLI's process side: stdin framing, the program's control
//! requests, stdout and stderr, signals, exit, and what a test observes.

use std::collections::{HashMap, HashSet, VecDeque};
use std::time::Instant;

use serde_json::{Map, Value, json};

use super::behaviour::{Behaviour, Policy};
use super::turn_state::{Prompt, Reply, Turn, Wait};
use super::wire::{self, Ids};

/// How many bytes of its own requests the scripted CLI keeps for
/// [`Simulation::requests`].
const KEPT_REQUEST_BYTES: usize = 4 << 20;

/// A signal the program sends the scripted CLI's process
/// ([`ScriptedCli::handle_signal`](crate::ScriptedCli::handle_signal)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Signal {
    /// SIGTERM: exit 143, unless [`Behaviour::ignore_sigterm`].
    Term,
    /// SIGKILL: exit 137, always.
    Kill,
}

/// The scripted CLI once it serves by itself
/// ([`Settings::serve`](crate::Settings::serve)): reached through
/// [`ScriptedCli::serving_mut`](crate::ScriptedCli::serving_mut), which
/// drives it. Through it a test writes any traffic at any time
/// ([`emit`](Self::emit), [`request`](Self::request), [`exit`](Self::exit),
/// ...) and sees what the program sent ([`received`](Self::received),
/// [`answer`](Self::answer), ...). All ids are deterministic.
pub struct Simulation {
    pub(crate) script: Behaviour,
    pub(crate) ids: Ids,
    pub(crate) start: Instant,
    pub(crate) now: Instant,
    stdin: Vec<u8>,
    stdin_pos: usize,
    stdin_scan: usize,
    stdin_closed: bool,
    pub(crate) eof_seen: bool,
    lines_read: usize,
    stdout: VecDeque<u8>,
    stderr: Vec<u8>,
    exit: Option<i32>,
    received: Vec<Value>,
    initialize: Option<Value>,
    host_cancels: Vec<String>,
    answers: HashMap<String, Vec<Value>>,
    sent: HashSet<String>,
    /// Our requests neither answered nor withdrawn.
    awaiting: HashSet<String>,
    /// Our requests as sent, in order (the first [`KEPT_REQUEST_BYTES`]).
    requests: Vec<Value>,
    requests_bytes: usize,
    /// Host requests held by [`Policy::AfterAnswers`].
    held: Vec<(String, Value)>,
    /// Servers whose tools changed (`tools/list_changed`): listed again
    /// before their next call.
    pub(crate) tools_changed: HashSet<String>,
    /// The session's transcript, when the runner keeps one.
    pub(crate) transcript: Option<super::transcript::Transcript>,
    stray: usize,
    delayed: Vec<(Instant, String, Value)>,
    pub(crate) model: String,
    pub(crate) mode: String,
    pub(crate) hooks: Map<String, Value>,
    pub(crate) servers: Vec<String>,
    /// Server → tool names it listed (present once its handshake began).
    pub(crate) mcp_tools: Vec<(String, Vec<String>)>,
    pub(crate) mcp_next_id: u64,
    pub(crate) queue: VecDeque<Prompt>,
    pub(crate) turn: Option<Turn>,
    pub(crate) turns_completed: usize,
    pub(crate) calls_by_model: Vec<(String, u64)>,
    pub(crate) last_error: bool,
}

impl Simulation {
    /// Starts the scripted CLI at `now`. The BOM (if scripted) and the
    /// scripted stderr lines are ready to poll at once.
    pub(crate) fn new(script: Behaviour, now: Instant) -> Self {
        let mut cli = Simulation {
            ids: Ids::new(),
            start: now,
            now,
            stdin: Vec::new(),
            stdin_pos: 0,
            stdin_scan: 0,
            stdin_closed: false,
            eof_seen: false,
            lines_read: 0,
            stdout: VecDeque::new(),
            stderr: Vec::new(),
            exit: None,
            received: Vec::new(),
            initialize: None,
            host_cancels: Vec::new(),
            answers: HashMap::new(),
            sent: HashSet::new(),
            awaiting: HashSet::new(),
            requests: Vec::new(),
            requests_bytes: 0,
            held: Vec::new(),
            tools_changed: HashSet::new(),
            transcript: None,
            stray: 0,
            delayed: Vec::new(),
            model: wire::DEFAULT_MODEL.to_owned(),
            mode: "default".to_owned(),
            hooks: Map::new(),
            servers: Vec::new(),
            mcp_tools: Vec::new(),
            mcp_next_id: 0,
            queue: VecDeque::new(),
            turn: None,
            turns_completed: 0,
            calls_by_model: Vec::new(),
            last_error: false,
            script,
        };
        if cli.script.bom {
            cli.stdout.extend([0xEF, 0xBB, 0xBF]);
        }
        for line in cli.script.stderr_lines.clone() {
            cli.emit_stderr(format!("{line}\n").as_bytes());
        }
        let mut filler = vec![b'x'; 1023];
        filler.push(b'\n');
        for _ in 0..cli.script.stderr_filler.div_ceil(filler.len()) {
            cli.emit_stderr(&filler);
        }
        cli
    }

    // ----- inputs ------------------------------------------------------

    /// Bytes the host wrote to our stdin, chunked anyhow (lines and UTF-8
    /// characters may be split). Call only while [`wants_stdin`](Self::wants_stdin);
    /// bytes given otherwise stay unread in the "pipe" (dropped after exit).
    pub(crate) fn handle_stdin(&mut self, bytes: &[u8], now: Instant) {
        self.exit_if_due(now);
        if self.exit.is_some() || self.stdin_closed {
            return;
        }
        self.now = now;
        self.stdin.extend_from_slice(bytes);
        self.pump();
    }

    /// The host closed our stdin. Once the CLI has read everything before
    /// it, pending requests fail with "Stream closed", the turns already
    /// read are finished, and the scripted CLI exits (0, or 1 after an error
    /// result) unless the script lingers.
    pub(crate) fn handle_stdin_end(&mut self, now: Instant) {
        self.exit_if_due(now);
        if self.exit.is_some() {
            return;
        }
        self.now = now;
        self.stdin_closed = true;
        self.pump();
    }

    /// Virtual time reached `now`: fires what [`poll_timeout`](Self::poll_timeout) announced.
    pub(crate) fn handle_timeout(&mut self, now: Instant) {
        self.now = now;
        if self.exit.is_some() {
            return;
        }
        self.exit_if_due(now);
        if self.exit.is_some() {
            return;
        }
        while !self.blocked() && self.exit.is_none() {
            let due = (0..self.delayed.len())
                .filter(|&i| self.delayed[i].0 <= now)
                .min_by_key(|&i| self.delayed[i].0);
            let Some(i) = due else { break };
            let (_, id, request) = self.delayed.remove(i);
            self.act(&id, &request);
        }
        self.pump();
    }

    /// The scripted exit ([`Behaviour::exit_after`]) happens at its time,
    /// whatever input comes at the same moment or later.
    fn exit_if_due(&mut self, now: Instant) {
        if let Some((after, code)) = self.script.exit_after {
            if self.exit.is_none() && now >= self.start + after {
                self.exit(code, now);
            }
        }
    }

    /// Delivers a signal: `Term` exits 143 (unless ignored), `Kill` 137.
    pub(crate) fn handle_signal(&mut self, signal: Signal, now: Instant) {
        match signal {
            Signal::Term if self.script.ignore_sigterm => {}
            Signal::Term => self.exit(143, now),
            Signal::Kill => self.exit(137, now),
        }
    }

    // ----- outputs -----------------------------------------------------

    /// Takes up to `max` bytes of stdout (lines may be split anywhere);
    /// None when nothing is pending (or `max` is 0). Draining a full pipe (see
    /// [`Behaviour::stdout_capacity`]) lets the scripted CLI continue, so re-read the
    /// other polls afterwards.
    pub(crate) fn poll_stdout(&mut self, max: usize) -> Option<Vec<u8>> {
        if self.stdout.is_empty() || max == 0 {
            return None;
        }
        let was_blocked = self.blocked();
        let n = max.min(self.stdout.len());
        let out: Vec<u8> = self.stdout.drain(..n).collect();
        if was_blocked && !self.blocked() {
            self.pump();
        }
        Some(out)
    }

    /// Takes all pending stderr bytes; None when there are none.
    pub(crate) fn poll_stderr(&mut self) -> Option<Vec<u8>> {
        (!self.stderr.is_empty()).then(|| std::mem::take(&mut self.stderr))
    }

    /// The next instant at which [`handle_timeout`](Self::handle_timeout)
    /// has work (a delayed answer, a turn pause, a scripted exit). None
    /// after exit. Only the scripted exit is due while stdout is full.
    pub(crate) fn poll_timeout(&self) -> Option<Instant> {
        if self.exit.is_some() {
            return None;
        }
        let exit = self.script.exit_after.map(|(d, _)| self.start + d);
        let mut others = None;
        if !self.blocked() {
            let turn = match self.turn.as_ref().map(|t| &t.wait) {
                Some(Wait::Until(t)) => Some(*t),
                _ => None,
            };
            let delayed = self.delayed.iter().map(|d| d.0).min();
            others = turn.into_iter().chain(delayed).min();
        }
        exit.into_iter().chain(others).min()
    }

    /// Whether the scripted CLI reads stdin now. False after it stopped reading
    /// (script), while its stdout pipe is full, after stdin ended and
    /// after exit: the host's writes would then block.
    pub(crate) fn wants_stdin(&self) -> bool {
        self.reading() && !self.stdin_closed
    }

    /// True once the process exited and all its stdout was polled.
    pub(crate) fn stdout_closed(&self) -> bool {
        self.exit.is_some() && self.stdout.is_empty()
    }

    /// The exit status once exited: the code, or 128+signal when killed.
    pub(crate) fn exit_code(&self) -> Option<i32> {
        self.exit
    }

    // ----- direct scripting -------------------------------------------------

    /// Queues one stdout line (`line` + `\n`). Ignored after exit.
    pub fn emit(&mut self, line: Value) {
        self.emit_line(&line);
    }

    /// Queues raw stdout bytes as they are (no newline added). Ignored after exit.
    pub fn emit_raw(&mut self, bytes: &[u8]) {
        if self.exit.is_none() {
            self.stdout.extend(bytes);
        }
    }

    /// Queues raw stderr bytes. Ignored after exit.
    pub fn emit_stderr(&mut self, bytes: &[u8]) {
        if self.exit.is_none() {
            self.stderr.extend_from_slice(bytes);
        }
    }

    /// Sends `{"type":"control_request","request_id":<new>,"request":body}`
    /// (`body` holds `subtype` and fields) and returns the id. Answers to
    /// it are recorded: see [`answer`](Self::answer).
    pub fn request(&mut self, body: Value) -> String {
        let id = self.ids.uuid();
        self.sent.insert(id.clone());
        self.awaiting.insert(id.clone());
        let line = wire::control_request(&id, body);
        let text = line.to_string();
        self.emit_raw(text.as_bytes());
        self.emit_raw(b"\n");
        if self.requests_bytes + text.len() <= KEPT_REQUEST_BYTES {
            self.requests_bytes += text.len();
            self.requests.push(line);
        }
        id
    }

    /// Withdraws one of our requests with `control_cancel_request`. If the
    /// running turn waits on it, the turn goes on as if it had failed.
    pub fn cancel(&mut self, request_id: &str) {
        self.withdraw(request_id);
        self.resume_if_waiting(request_id, Reply::Cancelled);
        self.pump();
    }

    /// Writes `control_cancel_request` for `request_id`: no answer is
    /// awaited from then on.
    pub(crate) fn withdraw(&mut self, request_id: &str) {
        self.emit_line(&wire::cancel(request_id));
        self.awaiting.remove(request_id);
        self.release_held();
    }

    /// Acts on the host requests [`Policy::AfterAnswers`] held, once none
    /// of ours awaits an answer.
    fn release_held(&mut self) {
        if self.awaiting.is_empty() {
            for (id, request) in std::mem::take(&mut self.held) {
                self.act(&id, &request);
            }
        }
    }

    /// Exits now with `code`: pending work is dropped, nothing more is
    /// read; stdout already queued can still be polled.
    pub fn exit(&mut self, code: i32, now: Instant) {
        if self.exit.is_none() {
            self.now = now;
            self.exit = Some(code);
            self.turn = None;
            self.queue.clear();
            self.delayed.clear();
            self.held.clear();
            self.stdin = Vec::new();
        }
    }

    // ----- observations -------------------------------------------------

    /// Every non-blank stdin line read, in order: the parsed JSON, or a
    /// `Value::String` of the lossy text for a line that is not JSON.
    pub fn received(&self) -> &[Value] {
        &self.received
    }

    /// The first `response` object (`{"subtype":"success"|"error",
    /// "request_id",...}`) the host sent for our request `request_id`.
    pub fn answer(&self, request_id: &str) -> Option<&Value> {
        self.answers.get(request_id).and_then(|a| a.first())
    }

    /// How many `control_response`s came for `request_id`. A correct host
    /// answers each request at most once (late answers after our cancel
    /// are recorded too).
    pub fn answers_to(&self, request_id: &str) -> usize {
        self.answers.get(request_id).map_or(0, Vec::len)
    }

    /// The control requests the scripted CLI sent (whole lines, in order; the
    /// first 4 MiB of them), to find the program's answers to them in what
    /// it sent.
    pub fn requests(&self) -> &[Value] {
        &self.requests
    }

    /// `control_response`s for request ids we never sent.
    pub fn stray_responses(&self) -> usize {
        self.stray
    }

    /// The host's `control_request` lines of this subtype, in order.
    pub fn control_requests_received(&self, subtype: &str) -> Vec<&Value> {
        self.received
            .iter()
            .filter(|v| v.get("type").and_then(Value::as_str) == Some("control_request"))
            .filter(|v| v.pointer("/request/subtype").and_then(Value::as_str) == Some(subtype))
            .collect()
    }

    /// Request ids the host withdrew with `control_cancel_request`.
    pub fn host_cancels(&self) -> &[String] {
        &self.host_cancels
    }

    /// The host's `user` lines, in order.
    pub fn user_messages(&self) -> Vec<&Value> {
        self.received
            .iter()
            .filter(|v| v.get("type").and_then(Value::as_str) == Some("user"))
            .collect()
    }

    /// `result` lines written so far (one per finished turn, interrupted
    /// turns included).
    pub fn turns_completed(&self) -> usize {
        self.turns_completed
    }

    /// The last `initialize` request body acted on (hooks, sdkMcpServers...).
    pub fn initialize_request(&self) -> Option<&Value> {
        self.initialize.as_ref()
    }

    /// The current model and permission mode.
    pub fn model_and_mode(&self) -> (&str, &str) {
        (&self.model, &self.mode)
    }

    // ----- internals -----------------------------------------------------

    /// Takes an `initialize` request line the steps already answered: its
    /// hooks and MCP servers are known from then on.
    pub(crate) fn adopt_initialize(&mut self, line: &Value) {
        if let Some(request) = line.get("request") {
            self.adopt(request);
        }
    }

    /// Keeps what an `initialize` request registers.
    fn adopt(&mut self, request: &Value) {
        self.initialize = Some(request.clone());
        if let Some(hooks) = request.get("hooks").and_then(Value::as_object) {
            self.hooks = hooks.clone();
        }
        if let Some(servers) = request.get("sdkMcpServers").and_then(Value::as_array) {
            self.servers = servers
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect();
        }
    }

    pub(crate) fn emit_line(&mut self, line: &Value) {
        if self.exit.is_none() {
            self.stdout.extend(line.to_string().as_bytes());
            self.stdout.push_back(b'\n');
        }
    }

    /// Blocked writing to a full stdout pipe.
    pub(crate) fn blocked(&self) -> bool {
        self.script
            .stdout_capacity
            .is_some_and(|cap| self.stdout.len() > cap)
    }

    fn reading(&self) -> bool {
        self.exit.is_none()
            && !self.blocked()
            && self
                .script
                .stop_reading_after
                .is_none_or(|n| self.lines_read < n)
    }

    fn next_line(&mut self) -> Option<Vec<u8>> {
        let from = self.stdin_scan.max(self.stdin_pos);
        match self.stdin[from..].iter().position(|&b| b == b'\n') {
            Some(i) => {
                let line = self.stdin[self.stdin_pos..from + i].to_vec();
                self.stdin_pos = from + i + 1;
                self.stdin_scan = self.stdin_pos;
                Some(line)
            }
            None => {
                self.stdin_scan = self.stdin.len();
                None
            }
        }
    }

    /// Runs the turn as far as it goes, then reads what can be read, and
    /// exits when idle after EOF. The turn goes first: a CLI whose output
    /// was just taken writes on before it reads, so input waits behind
    /// output the program has not read.
    pub(crate) fn pump(&mut self) {
        self.run_turn();
        while self.reading() {
            if let Some(line) = self.next_line() {
                self.handle_line(&line);
                self.run_turn();
            } else {
                if self.stdin_closed && !self.eof_seen {
                    let rest = self.stdin.split_off(self.stdin_pos);
                    self.handle_line(&rest);
                    self.eof_seen = true;
                    self.on_eof();
                }
                break;
            }
        }
        self.stdin.drain(..self.stdin_pos.min(self.stdin.len()));
        self.stdin_scan -= self.stdin_scan.min(self.stdin_pos);
        self.stdin_pos = 0;
        self.run_turn();
        let idle = self.turn.is_none() && self.queue.is_empty() && self.delayed.is_empty();
        if self.eof_seen && self.script.exit_on_stdin_end && idle && !self.blocked() {
            let code = i32::from(self.last_error);
            let now = self.now;
            self.exit(code, now);
        }
    }

    fn handle_line(&mut self, line: &[u8]) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) || self.exit.is_some() {
            return;
        }
        self.lines_read += 1;
        match serde_json::from_slice::<Value>(line) {
            Ok(value) => {
                self.received.push(value.clone());
                self.dispatch(value);
            }
            Err(_) => {
                let text = String::from_utf8_lossy(line).into_owned();
                let chars = text.chars().count();
                self.received.push(Value::String(text));
                if self.script.fatal_bad_stdin {
                    let message = format!(
                        "Error parsing streaming input line (type=unknown, {chars} chars): SyntaxError\n"
                    );
                    self.emit_stderr(message.as_bytes());
                    let now = self.now;
                    self.exit(1, now);
                }
            }
        }
    }

    fn dispatch(&mut self, line: Value) {
        let str_at = |v: &Value, p: &str| v.pointer(p).and_then(Value::as_str).map(str::to_owned);
        match line.get("type").and_then(Value::as_str).unwrap_or("") {
            "user" => self.queue.push_back(Prompt::from_user(&line)),
            "control_request" => {
                let id = str_at(&line, "/request_id").unwrap_or_default();
                let request = line.get("request").cloned().unwrap_or(Value::Null);
                let subtype = str_at(&request, "/subtype").unwrap_or_default();
                match self.script.policy_for(&subtype) {
                    Policy::Answer => self.act(&id, &request),
                    Policy::Never => {}
                    Policy::Error(message) => {
                        self.emit_line(&wire::error(&id, &message, "internal_error"));
                    }
                    Policy::Delay(d) => self.delayed.push((self.now + d, id, request)),
                    Policy::AfterAnswers if self.awaiting.is_empty() => self.act(&id, &request),
                    Policy::AfterAnswers => self.held.push((id, request)),
                }
            }
            "control_response" => {
                let response = line.get("response").cloned().unwrap_or(Value::Null);
                let id = str_at(&response, "/request_id").unwrap_or_default();
                if !self.sent.contains(&id) {
                    self.stray += 1;
                }
                self.awaiting.remove(&id);
                self.answers
                    .entry(id.clone())
                    .or_default()
                    .push(response.clone());
                let reply = match response.get("subtype").and_then(Value::as_str) {
                    Some("success") => {
                        Reply::Success(response.get("response").cloned().unwrap_or(json!({})))
                    }
                    _ => Reply::Error(match response.get("error") {
                        Some(Value::String(s)) => s.clone(),
                        _ => response.to_string(),
                    }),
                };
                self.resume_if_waiting(&id, reply);
                self.release_held();
            }
            "control_cancel_request" => {
                let id = str_at(&line, "/request_id").unwrap_or_default();
                self.delayed.retain(|d| d.1 != id);
                self.host_cancels.push(id);
            }
            // keep_alive, update_environment_variables and unknown types
            // are ignored, as by the real CLI.
            _ => {}
        }
    }

    /// Acts on a host control request and answers it.
    fn act(&mut self, id: &str, request: &Value) {
        let field = |name: &str| request.get(name).and_then(Value::as_str);
        let subtype = field("subtype").unwrap_or("undefined");
        if subtype != "initialize" && self.script.events_before_answers > 0 {
            let message_id = self.ids.message_id();
            for n in 0..self.script.events_before_answers {
                let event = json!({"type": "content_block_delta", "index": 0,
                                   "delta": {"type": "text_delta", "text": format!("burst {n} ")}});
                let line = wire::stream_event(&mut self.ids, &message_id, event);
                self.emit_line(&line);
            }
        }
        let line = match subtype {
            "initialize" => {
                self.adopt(request);
                let mut payload = wire::initialize(self.script.pid, &self.model, &self.mode);
                if let Some(fields) = payload.as_object_mut() {
                    for (name, value) in &self.script.initialize_fields {
                        if value.is_null() {
                            fields.remove(name);
                        } else {
                            fields.insert(name.clone(), value.clone());
                        }
                    }
                }
                let mut line = wire::success(id, Some(payload));
                if let Some(response) = line.get_mut("response").and_then(Value::as_object_mut) {
                    response.insert("pending_permission_requests".into(), json!([]));
                    response.insert("pending_user_dialog_requests".into(), json!([]));
                }
                line
            }
            "interrupt" => return self.interrupt(id),
            "set_model" => {
                self.model = wire::resolve_model(field("model"));
                wire::success(id, Some(json!({"model": self.model})))
            }
            "set_permission_mode" => match field("mode") {
                Some(mode) => {
                    self.mode = mode.to_owned();
                    let answer = wire::success(id, Some(json!({"mode": mode})));
                    self.emit_line(&answer);
                    wire::status(&mut self.ids, mode)
                }
                None => wire::error(id, "Invalid permission mode: undefined", "invalid_mode"),
            },
            "set_max_thinking_tokens" => wire::success(id, None),
            // As the pinned CLI answers a spare's claim (`--await-claim`).
            "claim_session" => {
                let cwd = field("cwd").unwrap_or(wire::CWD);
                let mut answer = json!({"status": "ok", "cwd": cwd,
                                        "session_id": self.ids.session_id, "parked_ms": 0,
                                        "sdk_mcp_settled": true});
                if request.get("include_initialize") == Some(&Value::Bool(true)) {
                    // The claimed session's own answer, which names its folder.
                    let mut init = wire::initialize(self.script.pid, &self.model, &self.mode);
                    init["claimed_cwd"] = json!(cwd);
                    answer["initialize"] = init;
                }
                wire::success(id, Some(answer))
            }
            "mcp_status" => {
                let servers: Vec<Value> = self.servers.iter().map(|name| json!({
                    "name": name, "status": "connected", "serverInfo": {"name": name, "version": "1.0.0"},
                    "config": {"type": "sdk", "name": name}, "scope": "dynamic"})).collect();
                wire::success(id, Some(json!({"mcpServers": servers})))
            }
            "get_context_usage" => wire::success(id, Some(wire::context_usage(&self.model))),
            "mcp_message" => {
                let method = request.pointer("/message/method").and_then(Value::as_str);
                if method == Some("notifications/tools/list_changed") {
                    if let Some(server) = field("server_name") {
                        self.tools_changed.insert(server.to_owned());
                    }
                }
                wire::success(id, Some(json!({})))
            }
            "rewind_files" => wire::success(
                id,
                Some(json!({"canRewind": false, "error": "File rewinding is not enabled."})),
            ),
            "get_binary_version" => wire::success(id, Some(json!({"version": wire::VERSION}))),
            known if wire::KNOWN_SUBTYPES.contains(&known) => wire::success(id, Some(json!({}))),
            other => wire::error(
                id,
                &format!("Unsupported control request subtype: {other}"),
                "unsupported_request",
            ),
        };
        self.emit_line(&line);
    }
}
