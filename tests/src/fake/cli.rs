//! The fake CLI's session: stdout writing, stdin dispatch, host-originated
//! control requests, and the builders for every stdout line.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::io::{self, BufWriter, StdoutLock, Write};
use std::sync::mpsc::{Receiver, RecvTimeoutError, TryRecvError};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use super::ids::{Ids, timestamp};
use super::templates::{self, COST_PER_CALL};

/// What the stdin thread hands to the main thread.
pub(crate) enum Input {
    /// One parsed JSON line.
    Line(Value),
    /// stdin reached end of file (or failed).
    Eof,
}

/// How long [`Cli::next_input`] may wait.
#[derive(Clone, Copy)]
pub(crate) enum Wait {
    /// Until something arrives.
    Block,
    /// At most this long.
    For(Duration),
    /// Not at all.
    Poll,
}

/// The host's answer to one of the fake's control requests.
pub(crate) enum Answer {
    /// A success response: its `response` payload (`{}` when absent).
    Success(Value),
    /// An error response: its `error` text.
    Error(String),
    /// The host sent `interrupt` before answering (the request is still
    /// outstanding; the caller cancels it).
    Interrupted,
    /// stdin closed before an answer came.
    Closed,
}

/// Behaviour switches that apply to every scenario.
#[derive(Default)]
pub(crate) struct Options {
    /// Hold the `initialize` answer until the first user message was read.
    pub(crate) init_delay: bool,
    /// Never answer `mcp_status` and `get_context_usage`.
    pub(crate) silent: bool,
    /// Write this many stream events before answering each host control
    /// request (except `initialize`), so answers sit behind unread events.
    pub(crate) burst: u64,
    /// Hold `mcp_status` answers until [`Cli::release_held`].
    pub(crate) hold_mcp_status: bool,
    /// Write a UTF-8 byte order mark before the `initialize` answer.
    pub(crate) bom: bool,
    /// `--session-mirror`: send each transcript line as `transcript_mirror`.
    pub(crate) session_mirror: bool,
    /// `--resume <id>`: continue that session's transcript.
    pub(crate) resume: Option<String>,
}

/// How a turn ended, for its `result` line.
pub(crate) struct Outcome {
    /// `error_during_execution` instead of `success`.
    pub(crate) error: bool,
    /// The `result` text (also the only `errors` entry of an error result).
    pub(crate) text: String,
    /// Model calls the turn made (`num_turns`).
    pub(crate) calls: u64,
    /// `terminal_reason`.
    pub(crate) terminal_reason: &'static str,
    /// `permission_denials` entries.
    pub(crate) denials: Vec<Value>,
}

impl Outcome {
    /// A normal end of turn.
    pub(crate) fn success(text: impl Into<String>, calls: u64) -> Self {
        Outcome {
            error: false,
            text: text.into(),
            calls,
            terminal_reason: "completed",
            denials: Vec::new(),
        }
    }

    /// An `error_during_execution` end of turn.
    pub(crate) fn failure(
        text: impl Into<String>,
        calls: u64,
        terminal_reason: &'static str,
    ) -> Self {
        Outcome {
            error: true,
            text: text.into(),
            calls,
            terminal_reason,
            denials: Vec::new(),
        }
    }
}

/// The session state of the fake CLI.
pub(crate) struct Cli {
    out: BufWriter<StdoutLock<'static>>,
    rx: Receiver<Input>,
    options: Options,
    pub(crate) ids: Ids,
    /// stdin reached end of file.
    pub(crate) eof: bool,
    pub(crate) session_id: String,
    pub(crate) cwd: String,
    home: String,
    pub(crate) model: String,
    pub(crate) permission_mode: String,
    /// `initialize.hooks`: event name → matchers.
    pub(crate) hooks: Map<String, Value>,
    /// `initialize.sdkMcpServers`.
    pub(crate) sdk_mcp_servers: Vec<String>,
    /// The whole `initialize` request, once received.
    pub(crate) initialize_request: Option<Value>,
    /// Tool names added to `system/init` (SDK MCP tools once listed).
    pub(crate) extra_tools: Vec<String>,
    /// A host's server sent `notifications/tools/list_changed`: list its
    /// tools again before the next use, as the real CLI does.
    pub(crate) tools_list_changed: bool,
    queue: VecDeque<Value>,
    deferred_init: Option<String>,
    seen_user: bool,
    /// Our requests still waiting for an answer.
    outstanding: HashSet<String>,
    /// Answers that arrived and were not collected yet.
    answers: HashMap<String, Value>,
    /// Our requests we cancelled → answers received for them since.
    cancelled: HashMap<String, usize>,
    /// `control_cancel_request` ids the host sent.
    pub(crate) host_cancels: Vec<String>,
    /// `control_response`s for ids we never sent.
    pub(crate) ignored_responses: usize,
    /// `interrupt` request ids not acknowledged yet.
    interrupts: Vec<String>,
    in_turn: bool,
    turn_started: Instant,
    result_index: u64,
    /// Model calls so far, per model (for `modelUsage` and the cost).
    calls_by_model: BTreeMap<String, u64>,
    /// Whether the last `result` was an error (decides the exit code).
    pub(crate) last_result_error: bool,
    /// Host control requests handled so far (`initialize` excluded).
    pub(crate) host_requests: u64,
    /// `mcp_status` request ids held back (see [`Options::hold_mcp_status`]).
    held: Vec<String>,
    /// The session's transcript file, as the real CLI keeps it.
    transcript: std::path::PathBuf,
    /// Lines the transcript held when this process started (a resume).
    pub(crate) history: usize,
    /// The last transcript entry's uuid (the next one's `parentUuid`).
    last_uuid: Option<String>,
}

impl Cli {
    pub(crate) fn new(rx: Receiver<Input>, options: Options) -> Self {
        let mut ids = Ids::new();
        let session_id = options.resume.clone().unwrap_or_else(|| ids.uuid());
        let cwd = std::env::current_dir()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| "/".to_owned());
        let home = std::env::var("HOME").unwrap_or_else(|_| "/".to_owned());
        let config = std::env::var("CLAUDE_CONFIG_DIR")
            .unwrap_or_else(|_| format!("{}/.claude", home.trim_end_matches('/')));
        let transcript = std::path::Path::new(&config)
            .join("projects")
            .join(project_dir_name(&cwd))
            .join(format!("{session_id}.jsonl"));
        let history = std::fs::read_to_string(&transcript)
            .map(|text| text.lines().filter(|l| !l.trim().is_empty()).count())
            .unwrap_or(0);
        Cli {
            out: BufWriter::with_capacity(64 * 1024, io::stdout().lock()),
            rx,
            options,
            ids,
            eof: false,
            session_id,
            cwd,
            home,
            model: templates::DEFAULT_MODEL.to_owned(),
            permission_mode: "default".to_owned(),
            hooks: Map::new(),
            sdk_mcp_servers: Vec::new(),
            initialize_request: None,
            extra_tools: Vec::new(),
            tools_list_changed: false,
            queue: VecDeque::new(),
            deferred_init: None,
            seen_user: false,
            outstanding: HashSet::new(),
            answers: HashMap::new(),
            cancelled: HashMap::new(),
            host_cancels: Vec::new(),
            ignored_responses: 0,
            interrupts: Vec::new(),
            in_turn: false,
            turn_started: Instant::now(),
            result_index: 0,
            calls_by_model: BTreeMap::new(),
            last_result_error: false,
            host_requests: 0,
            held: Vec::new(),
            transcript,
            history,
            last_uuid: None,
        }
    }

    /// Appends `entry` to the session's transcript (with its chain links),
    /// and with `--session-mirror` also sends it as `transcript_mirror`.
    /// Writes nothing unless the transcript was asked for (a config
    /// directory, `--session-mirror` or `--resume`), so test runs leave no
    /// files in the user's own config directory.
    pub(crate) fn record(&mut self, mut entry: Value) -> io::Result<()> {
        let wanted = self.options.session_mirror
            || self.options.resume.is_some()
            || std::env::var_os("CLAUDE_CONFIG_DIR").is_some();
        if !wanted {
            return Ok(());
        }
        let uuid = self.ids.uuid();
        if let Some(map) = entry.as_object_mut() {
            map.insert("uuid".into(), json!(uuid));
            map.insert("parentUuid".into(), json!(self.last_uuid));
            map.insert("sessionId".into(), json!(self.session_id));
            map.insert("timestamp".into(), json!(timestamp()));
            map.insert("cwd".into(), json!(self.cwd));
        }
        self.last_uuid = Some(uuid);
        if let Some(dir) = self.transcript.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.transcript)?;
        writeln!(file, "{entry}")?;
        if self.options.session_mirror {
            let frame = json!({
                "type": "transcript_mirror",
                "filePath": self.transcript.display().to_string(),
                "entries": [entry],
            });
            self.emit(&frame)?;
        }
        Ok(())
    }

    // ----- writing -------------------------------------------------------

    /// Writes one line and flushes.
    pub(crate) fn emit(&mut self, line: &Value) -> io::Result<()> {
        self.emit_buffered(line)?;
        self.out.flush()
    }

    /// Writes one line without flushing (for floods); call [`Cli::flush`].
    pub(crate) fn emit_buffered(&mut self, line: &Value) -> io::Result<()> {
        serde_json::to_writer(&mut self.out, line).map_err(io::Error::other)?;
        self.out.write_all(b"\n")
    }

    /// Writes raw bytes plus a newline and flushes.
    pub(crate) fn emit_raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.write_all(bytes)?;
        self.out.write_all(b"\n")?;
        self.out.flush()
    }

    pub(crate) fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    // ----- reading -------------------------------------------------------

    /// Takes at most one input from stdin and acts on it. Returns whether
    /// one was taken.
    pub(crate) fn next_input(&mut self, wait: Wait) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        let input = match wait {
            Wait::Block => self.rx.recv().ok(),
            Wait::For(d) => match self.rx.recv_timeout(d) {
                Ok(i) => Some(i),
                Err(RecvTimeoutError::Timeout) => return Ok(false),
                Err(RecvTimeoutError::Disconnected) => None,
            },
            Wait::Poll => match self.rx.try_recv() {
                Ok(i) => Some(i),
                Err(TryRecvError::Empty) => return Ok(false),
                Err(TryRecvError::Disconnected) => None,
            },
        };
        match input {
            Some(Input::Line(v)) => self.dispatch(v)?,
            Some(Input::Eof) | None => {
                self.eof = true;
                if let Some(id) = self.deferred_init.take() {
                    self.send_initialize_response(&id)?;
                }
            }
        }
        Ok(true)
    }

    /// Sleeps for `d` while still handling input.
    pub(crate) fn pause(&mut self, d: Duration) -> io::Result<()> {
        let deadline = Instant::now() + d;
        loop {
            let now = Instant::now();
            if now >= deadline {
                return Ok(());
            }
            if self.eof {
                std::thread::sleep(deadline - now);
                return Ok(());
            }
            self.next_input(Wait::For(deadline - now))?;
        }
    }

    /// The next queued user message, if any.
    pub(crate) fn next_user_message(&mut self) -> Option<Value> {
        self.queue.pop_front()
    }

    fn dispatch(&mut self, line: Value) -> io::Result<()> {
        let kind = line.get("type").and_then(Value::as_str).unwrap_or("");
        match kind {
            "user" => {
                self.seen_user = true;
                if let Some(id) = self.deferred_init.take() {
                    self.send_initialize_response(&id)?;
                }
                self.queue.push_back(line);
            }
            "control_request" => {
                let id = line
                    .get("request_id")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned();
                let request = line.get("request").cloned().unwrap_or(Value::Null);
                self.handle_host_request(&id, &request)?;
            }
            "control_response" => {
                let response = line.get("response").cloned().unwrap_or(Value::Null);
                let id = response
                    .get("request_id")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned();
                if self.outstanding.remove(&id) {
                    self.answers.insert(id, response);
                } else if let Some(n) = self.cancelled.get_mut(&id) {
                    *n += 1;
                } else {
                    self.ignored_responses += 1;
                }
            }
            "control_cancel_request" => {
                let id = line.get("request_id").and_then(Value::as_str).unwrap_or("");
                self.host_cancels.push(id.to_owned());
            }
            // keep_alive, update_environment_variables and unknown types are
            // ignored, like the real CLI does.
            _ => {}
        }
        Ok(())
    }

    // ----- host → CLI control requests --------------------------------------

    fn handle_host_request(&mut self, id: &str, request: &Value) -> io::Result<()> {
        let subtype = request
            .get("subtype")
            .and_then(Value::as_str)
            .unwrap_or("undefined");
        if subtype != "initialize" {
            self.host_requests += 1;
            self.burst()?;
        }
        match subtype {
            "initialize" => {
                self.initialize_request = Some(request.clone());
                self.hooks = request
                    .get("hooks")
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                self.sdk_mcp_servers = request
                    .get("sdkMcpServers")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(Value::as_str)
                            .map(str::to_owned)
                            .collect()
                    })
                    .unwrap_or_default();
                if self.options.init_delay && !self.seen_user && !self.eof {
                    self.deferred_init = Some(id.to_owned());
                    Ok(())
                } else {
                    self.send_initialize_response(id)
                }
            }
            "interrupt" => {
                if self.in_turn {
                    self.interrupts.push(id.to_owned());
                    Ok(())
                } else {
                    self.ack_interrupt(id)
                }
            }
            "set_model" => {
                self.model = templates::resolve_model(request.get("model").and_then(Value::as_str));
                let model = self.model.clone();
                self.success(id, Some(json!({ "model": model })))
            }
            "set_permission_mode" => {
                let Some(mode) = request.get("mode").and_then(Value::as_str) else {
                    return self.error(id, "Invalid permission mode: undefined", "invalid_mode");
                };
                self.permission_mode = mode.to_owned();
                self.success(id, Some(json!({ "mode": mode })))?;
                let status = json!({
                    "type": "system",
                    "subtype": "status",
                    "status": null,
                    "permissionMode": mode,
                    "uuid": self.ids.uuid(),
                    "session_id": self.session_id,
                });
                self.emit(&status)
            }
            "set_max_thinking_tokens" => self.success(id, None),
            "mcp_status" if self.options.silent => Ok(()),
            "mcp_status" if self.options.hold_mcp_status => {
                self.held.push(id.to_owned());
                Ok(())
            }
            "mcp_status" => {
                let servers: Vec<Value> = self
                    .sdk_mcp_servers
                    .iter()
                    .map(|name| {
                        json!({
                            "name": name,
                            "status": "connected",
                            "serverInfo": {"name": name, "version": "1.0.0"},
                            "config": {"type": "sdk", "name": name},
                            "scope": "dynamic",
                        })
                    })
                    .collect();
                self.success(id, Some(json!({ "mcpServers": servers })))
            }
            "get_context_usage" if self.options.silent => Ok(()),
            "get_context_usage" => {
                let usage = templates::context_usage(&self.model);
                self.success(id, Some(usage))
            }
            "rewind_files" => self.success(
                id,
                Some(json!({"canRewind": false, "error": "File rewinding is not enabled."})),
            ),
            "stop_task" => self.success(id, Some(json!({}))),
            "get_binary_version" => self.success(
                id,
                Some(json!({"version": templates::VERSION, "buildTime": "2026-11-20T17:34:37Z"})),
            ),
            // Server-initiated MCP messages from the host are acknowledged.
            "mcp_message" => {
                let method = request.pointer("/message/method").and_then(Value::as_str);
                if method == Some("notifications/tools/list_changed") {
                    self.tools_list_changed = true;
                }
                self.success(id, Some(json!({})))
            }
            other => self.error(
                id,
                &format!("Unsupported control request subtype: {other}"),
                "unsupported_request",
            ),
        }
    }

    /// Writes [`Options::burst`] stream events.
    fn burst(&mut self) -> io::Result<()> {
        let message_id = self.ids.message_id();
        for n in 0..self.options.burst {
            let line = self.stream_event(
                &message_id,
                json!({"type": "content_block_delta", "index": 0,
                       "delta": {"type": "text_delta", "text": format!("burst {n} ")}}),
            );
            self.emit_buffered(&line)?;
        }
        self.flush()
    }

    /// Answers the `mcp_status` requests held back.
    pub(crate) fn release_held(&mut self) -> io::Result<()> {
        for id in std::mem::take(&mut self.held) {
            self.success(&id, Some(json!({ "mcpServers": [] })))?;
        }
        Ok(())
    }

    fn send_initialize_response(&mut self, id: &str) -> io::Result<()> {
        if self.options.bom {
            self.out.write_all("\u{feff}".as_bytes())?;
        }
        let mut payload = templates::initialize_static();
        if let Some(map) = payload.as_object_mut() {
            map.insert("pid".into(), json!(std::process::id()));
            map.insert(
                "current_permission_mode".into(),
                json!(self.permission_mode.clone()),
            );
            // Plays an older CLI: these answer fields are left out.
            if let Ok(names) = std::env::var("FAKE_CLAUDE_INIT_DROP") {
                for name in names.split(',') {
                    map.remove(name);
                }
            }
        }
        let line = json!({
            "type": "control_response",
            "response": {
                "subtype": "success",
                "request_id": id,
                "response": payload,
                "pending_permission_requests": [],
                "pending_user_dialog_requests": [],
            }
        });
        self.emit(&line)
    }

    /// Answers a host request with success (`payload` None: no `response`
    /// key at all, as for `set_max_thinking_tokens`).
    pub(crate) fn success(&mut self, id: &str, payload: Option<Value>) -> io::Result<()> {
        let mut response = json!({"subtype": "success", "request_id": id});
        if let (Some(map), Some(payload)) = (response.as_object_mut(), payload) {
            map.insert("response".into(), payload);
        }
        self.emit(&json!({"type": "control_response", "response": response}))
    }

    fn error(&mut self, id: &str, message: &str, code: &str) -> io::Result<()> {
        self.emit(&json!({
            "type": "control_response",
            "response": {"subtype": "error", "request_id": id, "error": message, "error_code": code}
        }))
    }

    fn ack_interrupt(&mut self, id: &str) -> io::Result<()> {
        let still_queued: Vec<Value> = self
            .queue
            .iter()
            .filter_map(|m| m.get("uuid").cloned())
            .collect();
        self.success(id, Some(json!({ "still_queued": still_queued })))
    }

    /// Whether an `interrupt` is waiting to be handled by the turn.
    pub(crate) fn interrupted(&self) -> bool {
        !self.interrupts.is_empty()
    }

    /// Acknowledges every pending `interrupt`.
    pub(crate) fn ack_interrupts(&mut self) -> io::Result<()> {
        for id in std::mem::take(&mut self.interrupts) {
            self.ack_interrupt(&id)?;
        }
        Ok(())
    }

    // ----- CLI → host control requests --------------------------------------

    /// Sends a control request; returns its id.
    pub(crate) fn request(&mut self, request: Value) -> io::Result<String> {
        let id = self.ids.uuid();
        self.outstanding.insert(id.clone());
        self.emit(&json!({"type": "control_request", "request_id": id, "request": request}))?;
        Ok(id)
    }

    /// Withdraws one of our requests with `control_cancel_request`.
    pub(crate) fn cancel(&mut self, id: &str) -> io::Result<()> {
        self.outstanding.remove(id);
        self.answers.remove(id);
        self.cancelled.insert(id.to_owned(), 0);
        self.emit(&json!({"type": "control_cancel_request", "request_id": id}))
    }

    /// Answers received so far for a request we cancelled.
    pub(crate) fn late_answers_for(&self, id: &str) -> usize {
        self.cancelled.get(id).copied().unwrap_or(0)
    }

    /// Answers received so far for all requests we cancelled.
    pub(crate) fn late_answers(&self) -> usize {
        self.cancelled.values().sum()
    }

    /// Waits for the answer to request `id`.
    pub(crate) fn wait(&mut self, id: &str) -> io::Result<Answer> {
        loop {
            if let Some(response) = self.answers.remove(id) {
                return Ok(parse_answer(&response));
            }
            if self.interrupted() {
                return Ok(Answer::Interrupted);
            }
            if self.eof {
                self.outstanding.remove(id);
                return Ok(Answer::Closed);
            }
            self.next_input(Wait::Block)?;
        }
    }

    // ----- turns -------------------------------------------------------------

    pub(crate) fn begin_turn(&mut self, message: &Value) -> io::Result<()> {
        self.in_turn = true;
        self.turn_started = Instant::now();
        let content = message
            .get("message")
            .and_then(|m| m.get("content"))
            .cloned()
            .unwrap_or(Value::Null);
        self.record(json!({"type": "user", "message": {"role": "user", "content": content}}))
    }

    /// Ends a turn: interrupts that came too late for it are acknowledged.
    pub(crate) fn end_turn(&mut self) -> io::Result<()> {
        self.in_turn = false;
        self.ack_interrupts()
    }

    /// The `system/init` line (fresh for every turn).
    pub(crate) fn init_message(&mut self) -> Value {
        let mut line = templates::init_static();
        let project = self
            .cwd
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect::<String>();
        let mut tools: Vec<Value> = templates::TOOLS.iter().map(|t| json!(t)).collect();
        tools.extend(self.extra_tools.iter().map(|t| json!(t)));
        let servers: Vec<Value> = self
            .sdk_mcp_servers
            .iter()
            .map(|name| json!({"name": name, "status": "connected", "source": "sdk"}))
            .collect();
        let dynamic = json!({
            "type": "system",
            "subtype": "init",
            "cwd": self.cwd,
            "session_id": self.session_id,
            "tools": tools,
            "mcp_servers": servers,
            "model": self.model,
            "permissionMode": self.permission_mode,
            "uuid": self.ids.uuid(),
            "memory_paths": {
                "auto": format!("{}/.claude/projects/{project}/memory/", self.home.trim_end_matches('/'))
            },
            "original_cwd": self.cwd,
        });
        if let (Some(map), Value::Object(dynamic)) = (line.as_object_mut(), dynamic) {
            map.extend(dynamic);
        }
        line
    }

    /// Writes the turn's `system/init`.
    pub(crate) fn emit_init(&mut self) -> io::Result<()> {
        let line = self.init_message();
        self.emit(&line)
    }

    /// The transcript path hooks report.
    pub(crate) fn transcript_path(&self) -> String {
        self.transcript.display().to_string()
    }

    /// An `assistant` snapshot with one content block.
    pub(crate) fn assistant(&mut self, message_id: &str, block: Value) -> Value {
        json!({
            "type": "assistant",
            "message": {
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "model": self.model,
                "content": [block],
                "stop_reason": null,
                "stop_sequence": null,
                "usage": templates::snapshot_usage(),
                "context_management": null,
            },
            "parent_tool_use_id": null,
            "session_id": self.session_id,
            "uuid": self.ids.uuid(),
            "timestamp": timestamp(),
            "request_id": self.ids.request_id(),
        })
    }

    /// Writes an `assistant` line with one text block (new message id).
    pub(crate) fn emit_text(&mut self, text: &str) -> io::Result<()> {
        let id = self.ids.message_id();
        let line = self.assistant(&id, json!({"type": "text", "text": text}));
        self.emit(&line)?;
        self.record(json!({"type": "assistant", "message": line["message"].clone()}))
    }

    /// Writes an `assistant` line with one `tool_use` block.
    pub(crate) fn emit_tool_use(
        &mut self,
        tool_use_id: &str,
        name: &str,
        input: &Value,
    ) -> io::Result<()> {
        let id = self.ids.message_id();
        let line = self.assistant(
            &id,
            json!({"type": "tool_use", "id": tool_use_id, "name": name, "input": input}),
        );
        self.emit(&line)
    }

    /// A `user` tool-result echo.
    pub(crate) fn tool_result(
        &mut self,
        tool_use_id: &str,
        content: Value,
        is_error: bool,
        tool_use_result: Value,
        meta: Value,
    ) -> Value {
        json!({
            "type": "user",
            "message": {
                "role": "user",
                "content": [{
                    "tool_use_id": tool_use_id,
                    "type": "tool_result",
                    "content": content,
                    "is_error": is_error,
                }]
            },
            "parent_tool_use_id": null,
            "session_id": self.session_id,
            "uuid": self.ids.uuid(),
            "timestamp": timestamp(),
            "tool_use_result": tool_use_result,
            "tool_result_meta": [meta],
        })
    }

    /// Writes a CLI-made `user` text line (e.g. `[Request interrupted by user]`).
    pub(crate) fn emit_user_text(&mut self, text: &str) -> io::Result<()> {
        let line = json!({
            "type": "user",
            "message": {"role": "user", "content": [{"type": "text", "text": text}]},
            "parent_tool_use_id": null,
            "session_id": self.session_id,
            "uuid": self.ids.uuid(),
            "timestamp": timestamp(),
        });
        self.emit(&line)
    }

    /// A `stream_event` line.
    pub(crate) fn stream_event(&mut self, message_id: &str, event: Value) -> Value {
        json!({
            "type": "stream_event",
            "event": event,
            "session_id": self.session_id,
            "parent_tool_use_id": null,
            "uuid": self.ids.uuid(),
            "api_message_id": message_id,
        })
    }

    /// Writes the turn's `result` line.
    pub(crate) fn emit_result(&mut self, outcome: Outcome) -> io::Result<()> {
        let model = self.model.clone();
        *self.calls_by_model.entry(model).or_default() += outcome.calls;
        let total_calls: u64 = self.calls_by_model.values().sum();
        let total_cost = round_cost(total_calls as f64 * COST_PER_CALL);
        let model_usage: Map<String, Value> = self
            .calls_by_model
            .iter()
            .map(|(m, calls)| {
                let cost = round_cost(*calls as f64 * COST_PER_CALL);
                (m.clone(), templates::model_usage(m, *calls, cost))
            })
            .collect();
        let elapsed = self.turn_started.elapsed().as_millis() as u64;
        let mut line = json!({
            "duration_api_ms": elapsed / 2,
            "stop_reason": if outcome.error { Value::Null } else { json!("end_turn") },
            "session_id": self.session_id,
            "total_cost_usd": total_cost,
            "usage": templates::result_usage(outcome.calls),
            "modelUsage": model_usage,
            "permission_denials": outcome.denials,
            "terminal_reason": outcome.terminal_reason,
            "fast_mode_state": "off",
            "fast_mode_disabled_reason": "sdk_opt_in_required",
            "is_error": outcome.error,
            "num_turns": outcome.calls,
            "type": "result",
            "duration_ms": elapsed,
            "uuid": self.ids.uuid(),
            "queued_turn_count": self.queue.len(),
            "result_index": self.result_index,
            "result": outcome.text,
        });
        if let Some(map) = line.as_object_mut() {
            if outcome.error {
                map.insert("subtype".into(), json!("error_during_execution"));
                map.insert("errors".into(), json!([outcome.text]));
            } else {
                map.insert("subtype".into(), json!("success"));
                map.insert("api_error_status".into(), Value::Null);
                map.insert("ttft_ms".into(), json!(elapsed.min(5)));
            }
        }
        self.result_index += 1;
        self.last_result_error = outcome.error;
        self.emit(&line)
    }
}

fn parse_answer(response: &Value) -> Answer {
    if response.get("subtype").and_then(Value::as_str) == Some("success") {
        Answer::Success(
            response
                .get("response")
                .cloned()
                .unwrap_or_else(|| json!({})),
        )
    } else {
        let text = match response.get("error") {
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
            None => response.to_string(),
        };
        Answer::Error(text)
    }
}

fn round_cost(cost: f64) -> f64 {
    (cost * 1e9).round() / 1e9
}

/// The directory the CLI keeps a project's sessions in: its path with
/// every character but ASCII letters and digits replaced by `-` (paths
/// this fake is run in are short).
fn project_dir_name(cwd: &str) -> String {
    cwd.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}
