//! What the serving CLI does on its own: the [`Behaviour`] and its parts.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::{Value, json};

/// How the scripted CLI treats one subtype of control request sent by the host.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Policy {
    /// Act on it and answer at once (the default for every subtype).
    #[default]
    Answer,
    /// Ignore it entirely: no effect and no answer, ever.
    Never,
    /// Answer with an error response carrying this text
    /// (`error_code: "internal_error"`), without acting on it.
    Error(String),
    /// Act on it and answer this long after it was read, unless the host
    /// withdraws it first with `control_cancel_request`.
    Delay(Duration),
    /// Act on it and answer once none of the CLI's own requests waits for
    /// an answer (at once if none does): an answer that comes only after
    /// the program has answered the CLI, even while it reads nothing else.
    AfterAnswers,
}

/// Something a turn does besides the plain echo, in this order within the
/// turn: hooks, requests, tools (permission, allowed, MCP), bad lines, then
/// the answer.
///
/// Besides these, a turn calls the hooks `initialize` registered, as the
/// real CLI does: `UserPromptSubmit` before its `system/init`, `PreToolUse`
/// and `PostToolUse` (by their matchers) around each tool, and `Stop`
/// before its `result`. A `PreToolUse` answer that denies
/// (`permissionDecision: "deny"`, or `decision: "block"`) blocks the tool:
/// no permission prompt, no `PostToolUse`, an error `tool_result`.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Extra {
    /// Announce a `tool_use`, ask `can_use_tool` and wait for the answer.
    /// Allow runs the tool (with the answer's `updatedInput`, if any); deny
    /// (or an error answer) puts the call into the result's
    /// `permission_denials`, and the result is still a success unless the
    /// deny carried `interrupt: true`.
    Permission {
        /// `tool_name` of the request.
        tool_name: String,
        /// The tool input.
        input: Value,
    },
    /// Announce a `tool_use` the session's rules allow (no permission
    /// prompt) and run it, with its hooks.
    Tool {
        /// The tool's name (`"Bash"`, ...).
        tool_name: String,
        /// The tool input.
        input: Value,
    },
    /// Send `hook_callback` for the callbacks `initialize` registered under
    /// `event` (`"*"`: every event), or only for `callback_id` when given,
    /// one at a time, waiting for each answer: calls besides those the turn
    /// makes on its own.
    Hook {
        /// Hook event name (`"PreToolUse"`, ...), or `"*"`.
        event: String,
        /// Call only this callback id (it need not be registered).
        callback_id: Option<String>,
    },
    /// Call a tool of an in-process MCP server through `mcp_message`. The
    /// first call to a server is preceded by `initialize`,
    /// `notifications/initialized` and `tools/list`, each waiting for its
    /// answer, as the real CLI does. Skipped when no server is known.
    Mcp {
        /// Server name; None: the first of `initialize.sdkMcpServers`.
        server: Option<String>,
        /// Tool name; None: the first tool `tools/list` returned (or `echo`).
        tool: Option<String>,
        /// The `tools/call` arguments.
        arguments: Value,
    },
    /// Send an `mcp_message` carrying this JSON-RPC `message` as it is (a
    /// method the server may not know, a notification...) to `server` (None:
    /// the first of `initialize.sdkMcpServers`) and wait for the answer.
    /// Skipped when no server is known.
    McpMessage {
        /// Server name; None: the first of `initialize.sdkMcpServers`.
        server: Option<String>,
        /// The JSON-RPC message.
        message: Value,
    },
    /// Send a control request with this body (`subtype` and its fields:
    /// an `elicitation`, a `request_user_dialog`, one a later CLI sends...)
    /// and wait for the answer.
    Request(Value),
    /// Send a control request with this body and withdraw it at once with
    /// `control_cancel_request`, as the real CLI does with a prompt it no
    /// longer needs; a correct program never answers it.
    Withdrawn(Value),
    /// Wait this long (virtual time) before the answer, in this turn only:
    /// with a long pause, a turn that ends only when interrupted.
    Pause(Duration),
    /// A line a typed decoder will likely reject.
    Bad(BadLine),
}

/// Lines that are valid NDJSON but hard on typed decoders.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BadLine {
    /// A `stream_event` with a field nested 200 arrays deep (beyond
    /// serde_json's default recursion limit of 128), before the answer.
    DeepNesting,
    /// A `stream_event` with the number `1e400` (out of range for f64),
    /// before the answer.
    NumberOutOfRange,
    /// The turn's own `result` line lacks the required `usage` field (it
    /// replaces the normal result: it is still the end of that turn).
    ResultWithoutUsage,
    /// A line that is not JSON at all.
    NotJson,
    /// A JSON line that is not an object (`[1,2,3]`).
    NotAnObject,
    /// An object of a message type no decoder knows (`fake_unknown_type`).
    UnknownType,
    /// A line of this many bytes (a JSON object), to meet a line limit.
    Oversized(usize),
    /// A line whose bytes are not UTF-8.
    InvalidUtf8,
}

impl Extra {
    /// The extras of the keywords in `prompt` (see
    /// [`from_prompt`](Self::from_prompt)).
    pub fn from_keywords(prompt: &str) -> Vec<Extra> {
        let mut extras = Vec::new();
        for word in prompt.split_whitespace() {
            extras.push(match word {
                "#permission" => Extra::Permission {
                    tool_name: "Bash".to_owned(),
                    input: json!({"command": format!("echo {prompt}"), "description": "Echo the prompt"}),
                },
                "#hook" => Extra::Hook {
                    event: "*".to_owned(),
                    callback_id: None,
                },
                "#mcp" => Extra::Mcp {
                    server: None,
                    tool: None,
                    arguments: json!({}),
                },
                "#deep" => Extra::Bad(BadLine::DeepNesting),
                "#bignum" => Extra::Bad(BadLine::NumberOutOfRange),
                "#nousage" => Extra::Bad(BadLine::ResultWithoutUsage),
                _ => continue,
            });
        }
        extras
    }
}

/// The scripted CLI's automatic behaviour. `Behaviour::default()` is a well-behaved
/// CLI: it answers every request at once, echoes each prompt in one turn
/// (`system/init`, `assistant`, `result` whose `result` is
/// `"echo: <prompt>"`), and exits 0 when stdin ends.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Behaviour {
    /// Per-subtype policy for host control requests (`initialize` included);
    /// absent subtypes use [`Policy::Answer`].
    pub policies: HashMap<String, Policy>,
    /// Start stdout with a UTF-8 byte order mark (EF BB BF).
    pub bom: bool,
    /// The `pid` reported by `initialize` (as a child process, its own).
    pub pid: u32,
    /// Streamed `text_delta` stream events before each answer (0: none; >0
    /// also brings `message_start` ... `message_stop` around them, as with
    /// `--include-partial-messages`). They carry filler text, not the answer.
    pub stream_deltas: usize,
    /// Bytes of filler text per delta.
    pub delta_size: usize,
    /// Virtual time between two deltas (the turn can be interrupted then).
    pub delta_interval: Duration,
    /// Virtual time the model "thinks" before the `assistant` answer.
    pub turn_delay: Duration,
    /// Extras run in every turn.
    pub extras: Vec<Extra>,
    /// Whether prompt keywords add extras (see [`Extra::from_keywords`]).
    pub keywords: bool,
    /// Stop reading stdin after this many non-blank lines.
    pub stop_reading_after: Option<usize>,
    /// Model a stdout pipe of this many bytes: while more are unpolled the
    /// CLI is blocked writing, so it neither reads stdin nor makes progress.
    pub stdout_capacity: Option<usize>,
    /// At the start of each turn, emit this many (lines, bytes per line)
    /// of `stream_event` filler.
    pub flood: Option<(usize, usize)>,
    /// Exit with this code right after the n-th `result`: (n, code).
    pub exit_after_turns: Option<(usize, i32)>,
    /// Exit with this code this long after start: (delay, code).
    pub exit_after: Option<(Duration, i32)>,
    /// Crash in the n-th turn (counting from 1): after its answer and before
    /// its `result`, write `fatal: simulated crash` to stderr and exit with
    /// the code: (n, code).
    pub exit_mid_turn: Option<(usize, i32)>,
    /// Survive `Signal::Term`.
    pub ignore_sigterm: bool,
    /// Exit when stdin ends (after finishing the turns already read).
    /// False: keep running until killed.
    pub exit_on_stdin_end: bool,
    /// A non-JSON stdin line is fatal (stderr message, exit 1), like the
    /// real CLI. False: it is recorded and skipped.
    pub fatal_bad_stdin: bool,
    /// stderr lines written at start (a newline is added to each).
    pub stderr_lines: Vec<String>,
    /// Bytes of filler log lines (1 KiB each) written to stderr at start,
    /// after `stderr_lines`: a CLI that talks a lot before it answers.
    pub stderr_filler: usize,
    /// Stream events written before each answer to a host control request
    /// (`initialize` excepted), so that the answer waits behind events the
    /// program has not read.
    pub events_before_answers: usize,
    /// Fields of the `initialize` answer replaced (`null`: removed), to play
    /// a CLI of another version.
    pub initialize_fields: Vec<(String, serde_json::Value)>,
}

impl Default for Behaviour {
    fn default() -> Self {
        Behaviour {
            policies: HashMap::new(),
            bom: false,
            pid: 4242,
            stream_deltas: 0,
            delta_size: 16,
            delta_interval: Duration::ZERO,
            turn_delay: Duration::ZERO,
            extras: Vec::new(),
            keywords: true,
            stop_reading_after: None,
            stdout_capacity: None,
            flood: None,
            exit_after_turns: None,
            exit_after: None,
            exit_mid_turn: None,
            ignore_sigterm: false,
            exit_on_stdin_end: true,
            fatal_bad_stdin: true,
            stderr_lines: Vec::new(),
            stderr_filler: 0,
            events_before_answers: 0,
            initialize_fields: Vec::new(),
        }
    }
}

impl Behaviour {
    /// Replaces a field of the `initialize` answer (`null` removes it).
    pub fn with_initialize_field(mut self, name: &str, value: serde_json::Value) -> Self {
        self.initialize_fields.push((name.to_owned(), value));
        self
    }

    /// The policy for `subtype`.
    pub fn policy_for(&self, subtype: &str) -> Policy {
        self.policies.get(subtype).cloned().unwrap_or_default()
    }

    /// Sets the policy for one subtype (`"initialize"`, `"interrupt"`, ...).
    pub fn with_policy(mut self, subtype: &str, policy: Policy) -> Self {
        self.policies.insert(subtype.to_owned(), policy);
        self
    }

    /// Starts stdout with a UTF-8 BOM.
    pub fn with_bom(mut self) -> Self {
        self.bom = true;
        self
    }

    /// Adds an extra to every turn.
    pub fn with_extra(mut self, extra: Extra) -> Self {
        self.extras.push(extra);
        self
    }

    /// Streams `deltas` filler deltas of `size` bytes, `interval` apart.
    pub fn with_stream(mut self, deltas: usize, size: usize, interval: Duration) -> Self {
        self.stream_deltas = deltas;
        self.delta_size = size;
        self.delta_interval = interval;
        self
    }

    /// Waits `delay` of virtual time before each answer.
    pub fn with_turn_delay(mut self, delay: Duration) -> Self {
        self.turn_delay = delay;
        self
    }

    /// Stops reading stdin after `lines` lines.
    pub fn with_stop_reading_after(mut self, lines: usize) -> Self {
        self.stop_reading_after = Some(lines);
        self
    }

    /// Models a stdout pipe of `bytes` bytes.
    pub fn with_stdout_capacity(mut self, bytes: usize) -> Self {
        self.stdout_capacity = Some(bytes);
        self
    }

    /// Emits `lines` lines of about `bytes` bytes at the start of each turn.
    pub fn with_flood(mut self, lines: usize, bytes: usize) -> Self {
        self.flood = Some((lines, bytes));
        self
    }

    /// Exits with `code` after the `turns`-th result.
    pub fn with_exit_after_turns(mut self, turns: usize, code: i32) -> Self {
        self.exit_after_turns = Some((turns, code));
        self
    }

    /// Exits with `code` `delay` after start.
    pub fn with_exit_after(mut self, delay: Duration, code: i32) -> Self {
        self.exit_after = Some((delay, code));
        self
    }

    /// Crashes with `code` in the `turn`-th turn, before its result.
    pub fn with_exit_mid_turn(mut self, turn: usize, code: i32) -> Self {
        self.exit_mid_turn = Some((turn, code));
        self
    }

    /// Survives `Signal::Term`.
    pub fn with_ignore_sigterm(mut self) -> Self {
        self.ignore_sigterm = true;
        self
    }

    /// Keeps running after stdin ends.
    pub fn with_linger(mut self) -> Self {
        self.exit_on_stdin_end = false;
        self
    }

    /// Writes `line` to stderr at start.
    pub fn with_stderr(mut self, line: &str) -> Self {
        self.stderr_lines.push(line.to_owned());
        self
    }

    /// Writes `bytes` of filler log lines to stderr at start.
    pub fn with_stderr_filler(mut self, bytes: usize) -> Self {
        self.stderr_filler = bytes;
        self
    }

    /// Writes `events` stream events before each answer to a host control
    /// request (`initialize` excepted).
    pub fn with_events_before_answers(mut self, events: usize) -> Self {
        self.events_before_answers = events;
        self
    }
}
