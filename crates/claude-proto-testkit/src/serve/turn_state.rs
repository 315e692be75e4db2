//! What a turn is made of: the queued prompt, the steps it runs, what it
//! waits for and the answers that resume it.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// A queued user message.
pub(crate) struct Prompt {
    pub(crate) text: String,
    pub(crate) uuid: Option<Value>,
}

impl Prompt {
    /// The text of a `user` line: a string `content`, or its text blocks joined.
    pub(crate) fn from_user(line: &Value) -> Self {
        let text = match line.pointer("/message/content") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(blocks)) => blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect(),
            _ => String::new(),
        };
        Prompt {
            text,
            uuid: line.get("uuid").cloned(),
        }
    }
}

/// What a running turn waits for.
pub(crate) enum Wait {
    Ready,
    Until(Instant),
    Answer {
        request_id: String,
        pending: Pending,
    },
}

/// What to do with the answer to one of the turn's requests.
pub(crate) enum Pending {
    /// Nothing but recording it.
    Plain,
    Permission {
        tool_use_id: String,
        tool: String,
        input: Value,
    },
    /// A hook callback; `guards`: a deny blocks the tool being decided.
    Hook {
        guards: bool,
    },
    McpHandshake,
    McpToolsList {
        server: String,
    },
    McpCall {
        tool_use_id: String,
    },
}

/// How one of our requests ended.
pub(crate) enum Reply {
    Success(Value),
    Error(String),
    Cancelled,
    Closed,
}

pub(crate) enum Step {
    FloodLine(usize),
    Init,
    Hook {
        event: String,
        callback_id: Option<String>,
    },
    /// The hooks the turn calls on its own for `event` (`tool`: the tool
    /// the matchers are read against), with this input.
    AutoHooks {
        event: &'static str,
        tool: Option<String>,
        input: Value,
    },
    HookCall {
        event: String,
        callback_id: String,
        /// The hook input (None: the generic one of the event).
        input: Option<Value>,
        /// A deny blocks the tool being decided.
        guards: bool,
    },
    /// Announce a tool use and run it through its hooks (and permission
    /// prompt, when `ask`).
    Tool {
        tool: String,
        input: Value,
        ask: bool,
    },
    /// After `PreToolUse`: blocked, asked, or run.
    ToolDecide {
        tool_use_id: String,
        tool: String,
        input: Value,
        ask: bool,
    },
    /// The tool ran: its `PostToolUse` hooks, then its result.
    ToolRan {
        tool_use_id: String,
        tool: String,
        input: Value,
    },
    ToolResult {
        tool_use_id: String,
        text: String,
    },
    Request(Value),
    Withdrawn(Value),
    /// An `assistant` text of its own (a resumed session's history).
    Say(String),
    /// `exit_mid_turn`: crash with this code.
    Crash(i32),
    McpSend {
        server: String,
        message: Value,
        pending: Pending,
    },
    McpCall {
        server: String,
        tool: Option<String>,
        arguments: Value,
    },
    Raw(Vec<u8>),
    StreamStart,
    Delta(usize),
    Sleep(Duration),
    Answer,
    Result,
}

/// A running turn.
pub(crate) struct Turn {
    pub(crate) prompt: Prompt,
    pub(crate) steps: VecDeque<Step>,
    pub(crate) wait: Wait,
    pub(crate) started: Instant,
    pub(crate) calls: u64,
    pub(crate) denials: Vec<Value>,
    pub(crate) message_id: String,
    pub(crate) bad_result: bool,
    /// A `PreToolUse` hook denied the tool being decided, with this reason.
    pub(crate) blocked: Option<String>,
    /// The answer is being streamed (`message_start` written, its
    /// `assistant` snapshot not yet): an interrupt aborts the stream.
    pub(crate) streaming: bool,
}

pub(crate) fn denial(tool_use_id: &str, tool: &str, input: &Value) -> Value {
    json!({"tool_name": tool, "tool_use_id": tool_use_id, "tool_input": input})
}
