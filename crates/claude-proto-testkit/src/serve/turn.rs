//! Turns: each prompt becomes a list of steps, run until one waits for the
//! host's answer or for virtual time.

use std::collections::VecDeque;
use std::time::Duration;

use serde_json::{Value, json};

use super::behaviour::{BadLine, Extra};
use super::simulation::Simulation;
use super::transcript::{SessionFacts, Transcript};
use super::turn_state::{Pending, Prompt, Reply, Step, Turn, Wait, denial};
use super::wire::{self, Outcome};

impl Simulation {
    fn elapsed(&self) -> Duration {
        self.now.saturating_duration_since(self.start)
    }

    /// Runs turns until one waits, the queue is empty, or stdout is full.
    pub(crate) fn run_turn(&mut self) {
        while self.exit_code().is_none() && !self.blocked() {
            let Some(turn) = self.turn.as_mut() else {
                let Some(prompt) = self.queue.pop_front() else {
                    return;
                };
                self.start_turn(prompt);
                continue;
            };
            match turn.wait {
                Wait::Answer { .. } => return,
                Wait::Until(t) if t > self.now => return,
                _ => turn.wait = Wait::Ready,
            }
            match turn.steps.pop_front() {
                Some(step) => self.exec(step),
                None => self.turn = None,
            }
        }
    }

    fn start_turn(&mut self, prompt: Prompt) {
        let mut extras = self.script.extras.clone();
        if self.script.keywords {
            match Extra::from_prompt(&prompt.text) {
                Ok(more) => extras.extend(more),
                Err(why) => self.emit_stderr(format!("{why}\n").as_bytes()),
            }
        }
        let number = self.turns_completed + 1;
        let mut steps = VecDeque::new();
        if let Some((lines, _)) = self.script.flood {
            steps.extend((0..lines).map(Step::FloodLine));
        }
        let mut tail = Vec::new();
        let mut bad_result = false;
        let mut pause = self.script.turn_delay;
        for extra in extras {
            match extra {
                Extra::Mcp {
                    server,
                    tool,
                    arguments,
                } => {
                    let Some(server) = self.mcp_server(server, &mut steps) else {
                        continue;
                    };
                    tail.push(Step::McpCall {
                        server,
                        tool,
                        arguments,
                    });
                }
                Extra::McpMessage { server, message } => {
                    let Some(server) = self.mcp_server(server, &mut steps) else {
                        continue;
                    };
                    tail.push(Step::McpSend {
                        server,
                        message,
                        pending: Pending::Plain,
                    });
                }
                Extra::Hook { event, callback_id } => tail.push(Step::Hook { event, callback_id }),
                Extra::Permission { tool_name, input } => tail.push(Step::Tool {
                    tool: tool_name,
                    input,
                    ask: true,
                }),
                Extra::Tool { tool_name, input } => tail.push(Step::Tool {
                    tool: tool_name,
                    input,
                    ask: false,
                }),
                Extra::Request(body) => tail.push(Step::Request(body)),
                Extra::Pause(more) => pause = pause.saturating_add(more),
                Extra::Withdrawn(body) => tail.push(Step::Withdrawn(body)),
                Extra::Bad(BadLine::ResultWithoutUsage) => bad_result = true,
                Extra::Bad(line) => tail.push(Step::Raw(self.bad_line(line))),
            }
        }
        self.record(json!({"type": "user", "message": {"role": "user", "content": prompt.text}}));
        let submit = json!({"prompt": prompt.text});
        steps.push_back(self.auto_hooks("UserPromptSubmit", None, submit));
        if let Some(history) = self.history_to_tell() {
            steps.push_back(Step::Say(format!("history: {history} lines")));
        }
        steps.push_back(Step::Init);
        // Hooks first, then requests, tools, MCP, bad lines (a stable sort).
        tail.sort_by_key(|s| match s {
            Step::Hook { .. } => 0,
            Step::Request(_) | Step::Withdrawn(_) => 1,
            Step::Tool { .. } => 2,
            Step::McpCall { .. } | Step::McpSend { .. } => 3,
            _ => 4,
        });
        steps.extend(tail);
        if self.script.stream_deltas > 0 {
            steps.push_back(Step::StreamStart);
            for i in 0..self.script.stream_deltas {
                steps.push_back(Step::Delta(i));
                if !self.script.delta_interval.is_zero() {
                    steps.push_back(Step::Sleep(self.script.delta_interval));
                }
            }
        }
        if !pause.is_zero() {
            steps.push_back(Step::Sleep(pause));
        }
        steps.push_back(Step::Answer);
        if let Some((n, code)) = self.script.exit_mid_turn {
            if n == number {
                steps.push_back(Step::Crash(code));
            }
        }
        let stop = json!({"stop_hook_active": false, "last_assistant_message": format!("echo: {}", prompt.text)});
        steps.push_back(self.auto_hooks("Stop", None, stop));
        steps.push_back(Step::Result);
        self.turn = Some(Turn {
            prompt,
            steps,
            wait: Wait::Ready,
            started: self.now,
            calls: 1,
            denials: Vec::new(),
            message_id: self.ids.message_id(),
            bad_result,
            blocked: None,
            streaming: false,
        });
    }

    /// The server an MCP extra talks to (`server`, or the first known), with
    /// its handshake (or a new listing, after `tools/list_changed`) queued
    /// first when due; None when no server is known.
    fn mcp_server(&mut self, server: Option<String>, steps: &mut VecDeque<Step>) -> Option<String> {
        let server = server.or_else(|| self.servers.first().cloned())?;
        if !self.mcp_tools.iter().any(|(s, _)| *s == server) {
            // The handshake lists the tools as they are now.
            self.tools_changed.remove(&server);
            self.mcp_tools.push((server.clone(), Vec::new()));
            self.mcp_handshake(&server, steps);
        } else if self.tools_changed.remove(&server) {
            let list = json!({"method": "tools/list", "jsonrpc": "2.0", "id": self.next_rpc_id()});
            steps.push_back(Step::McpSend {
                server: server.clone(),
                message: list,
                pending: Pending::McpToolsList {
                    server: server.clone(),
                },
            });
        }
        Some(server)
    }

    /// The raw bytes of a [`BadLine`] (no newline).
    fn bad_line(&mut self, line: BadLine) -> Vec<u8> {
        let session = self.ids.session_id.clone();
        match line {
            BadLine::DeepNesting => {
                let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
                wire::raw_stream_event(&mut self.ids, &deep)
            }
            BadLine::NumberOutOfRange => wire::raw_stream_event(&mut self.ids, "1e400"),
            BadLine::NotJson => b"this line is not JSON at all".to_vec(),
            BadLine::NotAnObject => b"[1,2,3]".to_vec(),
            BadLine::UnknownType => json!({"type": "fake_unknown_type", "payload": {"x": 1},
                "uuid": self.ids.uuid(), "session_id": session})
            .to_string()
            .into_bytes(),
            BadLine::Oversized(bytes) => {
                let (head, tail) = (br#"{"type":"assistant_blob","data":""#, br#""}"#);
                let mut line = head.to_vec();
                line.resize(bytes.saturating_sub(tail.len()).max(head.len()), b'A');
                line.extend_from_slice(tail);
                line
            }
            BadLine::InvalidUtf8 => {
                b"{\"type\":\"garbage_utf8\",\"data\":\"\xff\xfe\xc3\x28\"}".to_vec()
            }
            // Not a line of its own: the turn's result is changed instead.
            BadLine::ResultWithoutUsage => Vec::new(),
        }
    }

    /// The step that calls the hooks registered for `event` on its own.
    fn auto_hooks(&self, event: &'static str, tool: Option<String>, input: Value) -> Step {
        Step::AutoHooks { event, tool, input }
    }

    /// The callback ids registered for `event` whose matcher applies to
    /// `tool` (None: an event without a tool, every matcher applies). A
    /// matcher is `|`-separated exact names; absent, empty or `*`: all.
    fn callbacks(&self, event: &str, tool: Option<&str>) -> Vec<String> {
        let matchers = self.hooks.get(event).and_then(Value::as_array);
        matchers
            .into_iter()
            .flatten()
            .filter(|m| {
                let pattern = m.get("matcher").and_then(Value::as_str).unwrap_or("");
                match tool {
                    Some(tool) if !pattern.is_empty() && pattern != "*" => {
                        pattern.split('|').any(|p| p.trim() == tool)
                    }
                    _ => true,
                }
            })
            .filter_map(|m| m.get("hookCallbackIds").and_then(Value::as_array))
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    }

    fn mcp_handshake(&mut self, server: &str, steps: &mut VecDeque<Step>) {
        let init = wire::mcp_initialize(self.next_rpc_id());
        let list = json!({"method": "tools/list", "jsonrpc": "2.0", "id": self.next_rpc_id()});
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        for (message, pending) in [
            (init, Pending::McpHandshake),
            (initialized, Pending::McpHandshake),
            (
                list,
                Pending::McpToolsList {
                    server: server.to_owned(),
                },
            ),
        ] {
            steps.push_back(Step::McpSend {
                server: server.to_owned(),
                message,
                pending,
            });
        }
    }

    fn next_rpc_id(&mut self) -> u64 {
        self.mcp_next_id += 1;
        self.mcp_next_id - 1
    }

    fn with_turn(&mut self, f: impl FnOnce(&mut Turn)) {
        if let Some(turn) = self.turn.as_mut() {
            f(turn);
        }
    }

    fn emit_event(&mut self, message_id: &str, event: Value) {
        let line = wire::stream_event(&mut self.ids, message_id, event);
        self.emit_line(&line);
    }

    /// A text delta event whose text (or whole line, newline included,
    /// when `whole_line`) is `size` bytes long if `size` allows.
    fn emit_delta(&mut self, message_id: &str, prefix: String, size: usize, whole_line: bool) {
        let event = |text: &str| {
            json!({"type": "content_block_delta", "index": 0,
                   "delta": {"type": "text_delta", "text": text}})
        };
        let empty = wire::stream_event(&mut self.ids, message_id, event(""));
        let mut text = prefix;
        let overhead = if whole_line {
            empty.to_string().len() + 1
        } else {
            0
        };
        let want = size.saturating_sub(overhead);
        text.extend(std::iter::repeat_n('x', want.saturating_sub(text.len())));
        let mut line = empty;
        line["event"] = event(&text);
        self.emit_line(&line);
    }

    /// Announces a tool call in an `assistant` line (one more model call).
    fn emit_tool_use(&mut self, block: Value, extra: Value) {
        let (message_id, at) = (self.ids.message_id(), self.elapsed());
        let line = wire::assistant(&mut self.ids, &self.model, &message_id, block, at);
        self.emit_line(&wire::merge(line, extra));
        self.with_turn(|t| t.calls += 1);
    }

    fn exec(&mut self, step: Step) {
        let (message_id, prompt) = self
            .turn
            .as_ref()
            .map(|t| (t.message_id.clone(), t.prompt.text.clone()))
            .unwrap_or_default();
        match step {
            Step::FloodLine(i) => {
                let size = self.script.flood.map_or(0, |f| f.1);
                self.emit_delta(&message_id, format!("flood {i} "), size, true);
            }
            Step::Init => {
                let tools: Vec<String> = self
                    .mcp_tools
                    .iter()
                    .flat_map(|(s, tools)| tools.iter().map(move |t| format!("mcp__{s}__{t}")))
                    .collect();
                let (model, mode, servers) = (&self.model, &self.mode, &self.servers);
                let line = wire::system_init(&mut self.ids, model, mode, servers, &tools);
                self.emit_line(&line);
            }
            Step::AutoHooks { event, tool, input } => {
                let guards = event == "PreToolUse";
                let base = wire::hook_input(&self.ids.session_id, event, &prompt, &self.mode);
                let mut base = wire::merge(base, input);
                if tool.is_some() {
                    if let Some(map) = base.as_object_mut() {
                        map.remove("prompt");
                    }
                }
                let calls = self.callbacks(event, tool.as_deref());
                self.with_turn(|turn| {
                    for callback_id in calls.into_iter().rev() {
                        turn.steps.push_front(Step::HookCall {
                            event: event.to_owned(),
                            callback_id,
                            input: Some(base.clone()),
                            guards,
                        });
                    }
                });
            }
            Step::Hook { event, callback_id } => {
                let calls: Vec<(String, String)> = match callback_id {
                    Some(id) => vec![(event, id)],
                    None => self
                        .hooks
                        .iter()
                        .filter(|(name, _)| event == "*" || **name == event)
                        .flat_map(|(name, matchers)| {
                            let matchers = matchers.as_array().into_iter().flatten();
                            matchers
                                .filter_map(|m| m.get("hookCallbackIds").and_then(Value::as_array))
                                .flatten()
                                .filter_map(Value::as_str)
                                .map(move |id| (name.clone(), id.to_owned()))
                        })
                        .collect(),
                };
                self.with_turn(|turn| {
                    for (event, callback_id) in calls.into_iter().rev() {
                        turn.steps.push_front(Step::HookCall {
                            event,
                            callback_id,
                            input: None,
                            guards: false,
                        });
                    }
                });
            }
            Step::HookCall {
                event,
                callback_id,
                input,
                guards,
            } => {
                let input = input.unwrap_or_else(|| {
                    wire::hook_input(&self.ids.session_id, &event, &prompt, &self.mode)
                });
                let tool_use_id = match input.get("tool_use_id").and_then(Value::as_str) {
                    Some(id) => id.to_owned(),
                    None => self.ids.uuid(),
                };
                let body = json!({"subtype": "hook_callback", "callback_id": callback_id,
                                  "input": input, "tool_use_id": tool_use_id});
                self.ask(body, Pending::Hook { guards });
            }
            Step::Tool { tool, input, ask } => {
                let tool_use_id = self.ids.tool_use_id();
                let block =
                    json!({"type": "tool_use", "id": tool_use_id, "name": tool, "input": input});
                self.emit_tool_use(block, json!({}));
                let pre =
                    json!({"tool_name": tool, "tool_input": input, "tool_use_id": tool_use_id});
                let hooks = self.auto_hooks("PreToolUse", Some(tool.clone()), pre);
                self.with_turn(|turn| {
                    turn.blocked = None;
                    turn.steps.push_front(Step::ToolDecide {
                        tool_use_id,
                        tool,
                        input,
                        ask,
                    });
                    turn.steps.push_front(hooks);
                });
            }
            Step::ToolDecide {
                tool_use_id,
                tool,
                input,
                ask,
            } => {
                let blocked = self.turn.as_mut().and_then(|t| t.blocked.take());
                if let Some(reason) = blocked {
                    let at = self.elapsed();
                    let line =
                        wire::tool_result(&mut self.ids, &tool_use_id, json!(reason), true, at);
                    self.emit_line(&line);
                    self.with_turn(|t| t.denials.push(denial(&tool_use_id, &tool, &input)));
                } else if ask {
                    let body = wire::can_use_tool(&tool, &input, &tool_use_id);
                    let pending = Pending::Permission {
                        tool_use_id,
                        tool,
                        input,
                    };
                    self.ask(body, pending);
                } else {
                    self.run_tool(tool_use_id, tool, input);
                }
            }
            Step::ToolRan {
                tool_use_id,
                tool,
                input,
            } => {
                let post = json!({"tool_name": tool, "tool_input": input,
                                  "tool_response": {"stdout": format!("ran {tool}")},
                                  "tool_use_id": tool_use_id});
                let hooks = self.auto_hooks("PostToolUse", Some(tool.clone()), post);
                self.with_turn(|turn| {
                    turn.steps.push_front(Step::ToolResult {
                        tool_use_id,
                        text: format!("ran {tool}"),
                    });
                    turn.steps.push_front(hooks);
                });
            }
            Step::ToolResult { tool_use_id, text } => {
                let at = self.elapsed();
                let line = wire::tool_result(&mut self.ids, &tool_use_id, json!(text), false, at);
                self.emit_line(&line);
            }
            Step::Request(body) => self.ask(body, Pending::Plain),
            Step::Say(text) => {
                let (message_id, at) = (self.ids.message_id(), self.elapsed());
                let block = json!({"type": "text", "text": text});
                let line = wire::assistant(&mut self.ids, &self.model, &message_id, block, at);
                self.emit_line(&line);
                self.record(json!({"type": "assistant", "message": line["message"].clone()}));
            }
            Step::Withdrawn(body) => {
                let id = self.request(body);
                self.withdraw(&id);
            }
            Step::Crash(code) => {
                self.emit_stderr(format!("fatal: simulated crash (exit {code})\n").as_bytes());
                let now = self.now;
                self.exit(code, now);
            }
            Step::McpSend {
                server,
                message,
                pending,
            } => {
                let body =
                    json!({"subtype": "mcp_message", "server_name": server, "message": message});
                self.ask(body, pending);
            }
            Step::McpCall {
                server,
                tool,
                arguments,
            } => {
                let listed = self.mcp_tools.iter().find(|(s, _)| *s == server);
                let listed = listed.and_then(|(_, tools)| tools.first().cloned());
                let tool = tool.or(listed).unwrap_or_else(|| "echo".to_owned());
                let tool_use_id = self.ids.tool_use_id();
                let block = json!({"type": "tool_use", "id": tool_use_id,
                                   "name": format!("mcp__{server}__{tool}"), "input": arguments});
                let meta = json!({"tool_use_meta": [{"id": tool_use_id, "display_name": tool,
                                  "server_display_name": server, "tool_name": tool}]});
                self.emit_tool_use(block, meta);
                let id = self.next_rpc_id();
                let message = json!({"method": "tools/call", "jsonrpc": "2.0", "id": id, "params": {
                    "name": tool, "arguments": arguments,
                    "_meta": {"claudecode/toolUseId": tool_use_id, "progressToken": id}}});
                let body =
                    json!({"subtype": "mcp_message", "server_name": server, "message": message});
                self.ask(body, Pending::McpCall { tool_use_id });
            }
            Step::Raw(mut bytes) => {
                bytes.push(b'\n');
                self.emit_raw(&bytes);
            }
            Step::StreamStart => {
                self.with_turn(|t| t.streaming = true);
                let start = json!({"type": "message_start", "message": {
                    "id": message_id, "type": "message", "role": "assistant", "model": self.model,
                    "content": [], "stop_reason": null, "stop_sequence": null,
                    "usage": {"input_tokens": 12, "output_tokens": 1}}});
                self.emit_event(&message_id, start);
                let block = json!({"type": "content_block_start", "index": 0,
                                   "content_block": {"type": "text", "text": ""}});
                self.emit_event(&message_id, block);
            }
            Step::Delta(i) => {
                let size = self.script.delta_size;
                self.emit_delta(&message_id, format!("d{i} "), size, false);
            }
            Step::Sleep(d) => {
                let until = self.now + d;
                self.with_turn(|t| t.wait = Wait::Until(until));
            }
            Step::Answer => {
                self.with_turn(|t| t.streaming = false);
                let block = json!({"type": "text", "text": format!("echo: {prompt}")});
                let at = self.elapsed();
                let line = wire::assistant(&mut self.ids, &self.model, &message_id, block, at);
                self.emit_line(&line);
                self.record(json!({"type": "assistant", "message": line["message"].clone()}));
                if self.script.stream_deltas > 0 {
                    self.emit_event(
                        &message_id,
                        json!({"type": "content_block_stop", "index": 0}),
                    );
                    let delta = json!({"type": "message_delta", "usage": {"output_tokens": 7},
                                       "delta": {"stop_reason": "end_turn", "stop_sequence": null}});
                    self.emit_event(&message_id, delta);
                    self.emit_event(&message_id, json!({"type": "message_stop"}));
                }
            }
            Step::Result => {
                if let Some(turn) = self.turn.take() {
                    self.finish(turn, None);
                }
            }
        }
    }

    /// Runs an allowed tool: its `PostToolUse` hooks, then its result.
    fn run_tool(&mut self, tool_use_id: String, tool: String, input: Value) {
        self.with_turn(|turn| {
            turn.steps.push_front(Step::ToolRan {
                tool_use_id,
                tool,
                input,
            });
        });
    }

    /// Sends a request for the turn and waits for it; once stdin ended the
    /// request is not sent and fails at once, as with the real CLI.
    fn ask(&mut self, body: Value, pending: Pending) {
        if self.eof_seen {
            return self.resume(pending, Reply::Closed);
        }
        let request_id = self.request(body);
        if let Some(turn) = self.turn.as_mut() {
            turn.wait = Wait::Answer {
                request_id,
                pending,
            };
        }
    }

    /// Takes the request the turn waits on (only `request_id`, if given).
    fn take_pending(&mut self, request_id: Option<&str>) -> Option<(String, Pending)> {
        let turn = self.turn.as_mut()?;
        match &turn.wait {
            Wait::Answer { request_id: id, .. } if request_id.is_none_or(|r| r == id) => {}
            _ => return None,
        }
        match std::mem::replace(&mut turn.wait, Wait::Ready) {
            Wait::Answer {
                request_id,
                pending,
            } => Some((request_id, pending)),
            _ => None,
        }
    }

    /// If the turn waits for `request_id`, continues it with `reply`.
    pub(crate) fn resume_if_waiting(&mut self, request_id: &str, reply: Reply) {
        if let Some((_, pending)) = self.take_pending(Some(request_id)) {
            self.resume(pending, reply);
            self.run_turn();
        }
    }

    /// The host's stdin ended: a request the turn waits on fails.
    pub(crate) fn on_eof(&mut self) {
        if let Some((_, pending)) = self.take_pending(None) {
            self.resume(pending, Reply::Closed);
        }
    }

    fn resume(&mut self, pending: Pending, reply: Reply) {
        let at = self.elapsed();
        match pending {
            Pending::Plain | Pending::McpHandshake | Pending::Hook { guards: false } => {}
            Pending::Hook { guards: true } => {
                let Reply::Success(p) = reply else {
                    return;
                };
                let specific = p.get("hookSpecificOutput");
                let denied = specific
                    .and_then(|s| s.get("permissionDecision"))
                    .and_then(Value::as_str)
                    == Some("deny")
                    || p.get("decision").and_then(Value::as_str) == Some("block");
                if denied {
                    let reason = specific
                        .and_then(|s| s.get("permissionDecisionReason"))
                        .or_else(|| p.get("reason"))
                        .and_then(Value::as_str)
                        .unwrap_or("Blocked by hook")
                        .to_owned();
                    self.with_turn(|t| {
                        t.blocked.get_or_insert(reason);
                    });
                }
            }
            Pending::McpToolsList { server } => {
                if let Reply::Success(payload) = reply {
                    let names = payload
                        .pointer("/mcp_response/result/tools")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .filter_map(|t| t.get("name").and_then(Value::as_str).map(str::to_owned));
                    if let Some((_, tools)) = self.mcp_tools.iter_mut().find(|(s, _)| *s == server)
                    {
                        *tools = names.collect();
                    }
                }
            }
            Pending::McpCall { tool_use_id } => {
                let (content, is_error) = match reply {
                    Reply::Success(p) => match p.pointer("/mcp_response/result") {
                        Some(r) => (
                            r.get("content").cloned().unwrap_or(json!([])),
                            r.get("isError").and_then(Value::as_bool).unwrap_or(false),
                        ),
                        None => (json!(p.to_string()), true),
                    },
                    other => (json!(failure_text(&other)), true),
                };
                let line = wire::tool_result(&mut self.ids, &tool_use_id, content, is_error, at);
                self.emit_line(&line);
            }
            Pending::Permission {
                tool_use_id,
                tool,
                input,
            } => {
                let behavior = match &reply {
                    Reply::Success(p) => p.get("behavior").and_then(Value::as_str),
                    _ => None,
                };
                let text = match (&reply, behavior) {
                    (Reply::Success(p), Some("allow")) => {
                        // Run with the input the answer gave, if any.
                        let input = p
                            .get("updatedInput")
                            .filter(|v| v.is_object())
                            .cloned()
                            .unwrap_or(input);
                        return self.run_tool(tool_use_id, tool, input);
                    }
                    (Reply::Success(p), Some("deny")) => p
                        .get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned(),
                    (Reply::Success(p), _) => format!("Tool permission request failed: {p}"),
                    (other, _) => {
                        format!("Tool permission request failed: {}", failure_text(other))
                    }
                };
                let line = wire::tool_result(&mut self.ids, &tool_use_id, json!(text), true, at);
                self.emit_line(&line);
                if let Some(turn) = self.turn.as_mut() {
                    turn.denials.push(denial(&tool_use_id, &tool, &input));
                }
                let interrupt = matches!(&reply, Reply::Success(p) if behavior == Some("deny")
                    && p.get("interrupt").and_then(Value::as_bool) == Some(true));
                if let Some(turn) = self.turn.take_if(|_| interrupt) {
                    let text = json!([{"type": "text", "text": "[Request interrupted by user for tool use]"}]);
                    let line = wire::user(&mut self.ids, text, at);
                    self.emit_line(&line);
                    self.finish(turn, Some("aborted_tools"));
                }
            }
        }
    }

    /// Handles `interrupt` (request `id`): cancels the turn's pending
    /// request, acknowledges, and ends the turn with an error result.
    pub(crate) fn interrupt(&mut self, id: &str) {
        let still_queued: Vec<Value> = self.queue.iter().filter_map(|p| p.uuid.clone()).collect();
        let ack = wire::success(id, Some(json!({"still_queued": still_queued})));
        let pending = self.take_pending(None);
        let Some(mut turn) = self.turn.take() else {
            return self.emit_line(&ack);
        };
        let mut rejected = None;
        if let Some((request_id, pending)) = pending {
            self.emit_line(&wire::cancel(&request_id));
            if let Pending::Permission {
                tool_use_id,
                tool,
                input,
            } = pending
            {
                rejected = Some((tool_use_id, tool, input));
            }
        }
        self.emit_line(&ack);
        let at = self.elapsed();
        if turn.streaming && rejected.is_none() {
            // The real CLI's end of a stream cut short: the snapshot marked
            // aborted, then (after the user line) the stream's closing events.
            let block = json!({"type": "text", "text": ""});
            let line = wire::assistant(&mut self.ids, &self.model, &turn.message_id, block, at);
            self.emit_line(&wire::merge(line, json!({"aborted": true})));
            let text = json!([{"type": "text", "text": "[Request interrupted by user]"}]);
            let line = wire::user(&mut self.ids, text, at);
            self.emit_line(&line);
            let id = turn.message_id.clone();
            self.emit_event(&id, json!({"type": "content_block_stop", "index": 0}));
            let delta = json!({"type": "message_delta", "context_management": null,
                "delta": {"container": null, "stop_details": null, "stop_reason": null,
                          "stop_sequence": null},
                "usage": {"input_tokens": 12, "output_tokens": 7}});
            self.emit_event(&id, delta);
            let stop = wire::stream_event(&mut self.ids, &id, json!({"type": "message_stop"}));
            let abandoned =
                json!({"abandoned_blocks": {"api_message_id": id, "from_block_index": 1}});
            self.emit_line(&wire::merge(stop, abandoned));
            return self.finish(turn, Some("aborted_streaming"));
        }
        let (text, reason) = match rejected {
            Some((tool_use_id, tool, input)) => {
                let line =
                    wire::tool_result(&mut self.ids, &tool_use_id, json!(wire::REJECTED), true, at);
                self.emit_line(&line);
                turn.denials.push(denial(&tool_use_id, &tool, &input));
                (
                    "[Request interrupted by user for tool use]",
                    "aborted_tools",
                )
            }
            None => ("[Request interrupted by user]", "aborted_streaming"),
        };
        let line = wire::user(&mut self.ids, json!([{"type": "text", "text": text}]), at);
        self.emit_line(&line);
        self.finish(turn, Some(reason));
    }

    /// Writes the `result` of `turn` (an error result when `error` names
    /// the terminal reason).
    fn finish(&mut self, turn: Turn, error: Option<&'static str>) {
        match self
            .calls_by_model
            .iter_mut()
            .find(|(m, _)| *m == self.model)
        {
            Some((_, calls)) => *calls += turn.calls,
            None => self.calls_by_model.push((self.model.clone(), turn.calls)),
        }
        let text = match error {
            Some(_) => format!("interrupted: {}", turn.prompt.text),
            None => format!("echo: {}", turn.prompt.text),
        };
        let outcome = Outcome {
            error,
            text,
            calls: turn.calls,
            denials: turn.denials,
            elapsed: self.now.saturating_duration_since(turn.started),
            user_message_uuid: turn.prompt.uuid,
        };
        let index = self.turns_completed as u64;
        let mut line = wire::result(
            &mut self.ids,
            outcome,
            &self.calls_by_model,
            index,
            self.queue.len(),
        );
        if turn.bad_result {
            if let Some(map) = line.as_object_mut() {
                map.remove("usage");
            }
        }
        self.emit_line(&line);
        self.turns_completed += 1;
        self.last_error = error.is_some();
        if let Some((n, code)) = self.script.exit_after_turns {
            if self.turns_completed >= n {
                let now = self.now;
                self.exit(code, now);
            }
        }
    }
}

fn failure_text(reply: &Reply) -> String {
    match reply {
        Reply::Success(p) => p.to_string(),
        Reply::Error(e) => e.clone(),
        Reply::Cancelled => "Permission request cancelled".to_owned(),
        Reply::Closed => "AbortError: Stream closed".to_owned(),
    }
}

/// The session's transcript, when the child runner keeps one.
impl Simulation {
    /// Keeps the session's transcript from now on, under `facts`'s id.
    pub(crate) fn keep_transcript(&mut self, facts: SessionFacts) {
        self.ids.session_id.clone_from(&facts.session_id);
        self.transcript = Some(Transcript::new(facts));
    }

    /// The entries made since the last call, for the runner to append.
    pub(crate) fn take_transcript(&mut self) -> Vec<Value> {
        self.transcript
            .as_mut()
            .map(Transcript::take)
            .unwrap_or_default()
    }

    /// A resumed session's history, once, at its first turn.
    fn history_to_tell(&mut self) -> Option<usize> {
        self.transcript.as_mut()?.history_to_tell()
    }

    /// Adds `entry` to the transcript, if one is kept; with the mirror on,
    /// also sends it.
    fn record(&mut self, entry: Value) {
        if self.transcript.is_none() {
            return;
        }
        let uuid = self.ids.uuid();
        let at = wire::timestamp(self.elapsed());
        let frame = self
            .transcript
            .as_mut()
            .and_then(|t| t.record(entry, uuid, at));
        if let Some(frame) = frame {
            self.emit_line(&frame);
        }
    }
}
