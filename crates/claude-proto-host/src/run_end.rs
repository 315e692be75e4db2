//! When a one-shot run is over, so that the CLI's stdin can close: the
//! rules of the Python SDK (0.2.189), which the TypeScript SDK shares.
//!
//! A `result` ends a turn, not the run. A background agent still running,
//! or one that finished just before the result, wakes the CLI for a
//! follow-up turn, and that turn's hooks, permission prompts and
//! in-process MCP calls need stdin to answer them. So, once a run's
//! prompt is sent and something here can call back, stdin stays open
//! until:
//!
//! - the CLI reports the session `idle` (`session_state_changed`, which
//!   the adapters ask for with `CLAUDE_CODE_SDK_READS_SESSION_STATE`)
//!   after a result, with no tracked background agent in flight; or, from
//!   a CLI that reports no state, the first result with none in flight.
//!   Each prompt sent owes a result of its own: an earlier prompt's
//!   result, or the `idle` after it read once the next prompt is sent,
//!   does not end the run;
//! - or the ceiling passes between turns (`CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS`
//!   as the CLI reads it; 10 minutes by default, none when 0): counted from
//!   a result while the CLI still reports work, stopped by a main-thread
//!   turn under way and by `requires_action`, and never ending the run
//!   while a tracked agent is in flight (it starts over once it settles).
//!
//! Tracked agents are the task types whose completion wakes a follow-up
//! turn (`local_agent`, `local_workflow`): `task_started` adds one,
//! `task_notification` or a terminal `task_updated` removes it. Shells and
//! monitors may run forever, so they never hold the run. Work the CLI
//! takes up after the run ended reopens it, until stdin has closed.
//! With nothing that can call back, the run ends at once.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use claude_proto::Message;
use claude_proto::model::MessageType;
use serde::Deserialize;

use crate::limits::deadline;

/// Task types whose completion runs a follow-up turn.
const DEFERRING_TASK_TYPES: [&str; 2] = ["local_agent", "local_workflow"];

/// `task_updated` statuses after which a task is done.
const TERMINAL_TASK_STATUSES: [&str; 4] = ["completed", "failed", "stopped", "killed"];

/// Tracked agents at most: more `task_started` frames than this are not
/// tracked (the CLI does not run this many agents; the bound keeps a
/// misbehaving one from growing memory).
pub const MAX_TRACKED_TASKS: usize = 1024;

/// The longest task id tracked, in bytes (the CLI's are a few dozen): with
/// [`MAX_TRACKED_TASKS`], the ledger holds at most 256 KiB of ids.
pub const MAX_TASK_ID_BYTES: usize = 256;

/// The longest ceiling honoured (about 24.8 days), as in both SDKs.
pub const MAX_CEILING: Duration = Duration::from_millis((1 << 31) - 1);

/// The ceiling when `CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS` does not set
/// one: the CLI's own default, 10 minutes.
pub const DEFAULT_CEILING: Duration = Duration::from_secs(600);

/// The variable that sets the ceiling, read as the CLI reads it.
pub const CEILING_VARIABLE: &str = "CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS";

/// The ceiling a value of [`CEILING_VARIABLE`] gives, as the Python SDK
/// reads it (`int(value)`): a whole number of milliseconds, spaces around
/// it, a sign and `_` between digits allowed (`0`: no ceiling, `None`),
/// capped at [`MAX_CEILING`] however many digits it has; a negative
/// number, anything else, or no value, the default.
pub fn ceiling_from(value: Option<&str>) -> Option<Duration> {
    match value.and_then(python_int) {
        Some(PythonInt::Negative) | None => Some(DEFAULT_CEILING),
        Some(PythonInt::NonNegative(0)) => None,
        Some(PythonInt::NonNegative(millis)) => {
            Some(Duration::from_millis(millis).min(MAX_CEILING))
        }
    }
}

/// A whole number as Python's `int(text)` reads it (ASCII digits only).
enum PythonInt {
    Negative,
    /// Saturated at `u64::MAX`: the ceiling caps it anyway.
    NonNegative(u64),
}

fn python_int(text: &str) -> Option<PythonInt> {
    let text = text.trim();
    let (negative, digits) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    // Digits, with single underscores between them.
    let well_formed = !digits.is_empty()
        && !digits.starts_with('_')
        && !digits.ends_with('_')
        && !digits.contains("__")
        && digits.bytes().all(|b| b.is_ascii_digit() || b == b'_');
    if !well_formed {
        return None;
    }
    let value = digits
        .bytes()
        .filter(u8::is_ascii_digit)
        .fold(0u64, |value, digit| {
            value
                .saturating_mul(10)
                .saturating_add(u64::from(digit - b'0'))
        });
    Some(if negative && value > 0 {
        PythonInt::Negative
    } else {
        PythonInt::NonNegative(value)
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Idle,
    Running,
    RequiresAction,
    /// A state this version does not know: treated as work going on.
    Other,
}

/// What the session's frames say of background work, tracked from the
/// start (the session state and the agents in flight), and the wait of a
/// run whose end was asked for (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct RunEnd {
    state: Option<State>,
    result_received: bool,
    in_flight: HashSet<String>,
    watch: Option<Watch>,
}

/// A run whose end is awaited.
#[derive(Debug)]
struct Watch {
    callbacks: bool,
    ceiling: Option<Duration>,
    turn_in_progress: bool,
    ended: bool,
    ceiling_at: Option<Instant>,
}

#[derive(Deserialize)]
struct SystemFields {
    #[serde(default)]
    state: Option<String>,
    #[serde(default)]
    task_id: Option<String>,
    #[serde(default)]
    task_type: Option<String>,
    #[serde(default)]
    patch: Option<Patch>,
}

#[derive(Deserialize)]
struct Patch {
    #[serde(default)]
    status: Option<serde_json::Value>,
}

impl Patch {
    fn is_terminal(&self) -> bool {
        self.status
            .as_ref()
            .and_then(serde_json::Value::as_str)
            .is_some_and(|s| TERMINAL_TASK_STATUSES.contains(&s))
    }
}

impl RunEnd {
    /// Starts waiting for the end of the run whose prompt was just sent.
    /// `callbacks`: the session has something the CLI may call back
    /// (hooks, a permission, elicitation or dialog handler, in-process MCP
    /// servers); without, the run is over at once.
    ///
    /// `answered`: every prompt sent has had its result already (the
    /// command came after the result was read); that result then counts
    /// as if it arrived now, so the wait cannot miss it.
    pub(crate) fn watch(
        &mut self,
        callbacks: bool,
        ceiling: Option<Duration>,
        answered: bool,
        now: Instant,
    ) {
        self.watch = Some(Watch {
            callbacks,
            ceiling,
            turn_in_progress: false,
            ended: !callbacks,
            ceiling_at: None,
        });
        if answered {
            self.on_result(now);
        }
    }

    /// A prompt was sent: it owes a run of its own, result included, so
    /// an earlier turn's result (and the `idle` that may follow it, read
    /// after this prompt) does not end the run. As the Python SDK does for
    /// every prompt it writes.
    pub(crate) fn handle_prompt_sent(&mut self) {
        self.result_received = false;
        if let Some(watch) = &mut self.watch {
            watch.reopen();
            watch.ceiling_at = None;
        }
    }

    /// Stops waiting (stdin is closing: the run stays ended).
    pub(crate) fn unwatch(&mut self) {
        self.watch = None;
    }

    /// `true` once a watched run is over and stdin may close.
    pub(crate) fn is_ended(&self) -> bool {
        self.watch.as_ref().is_some_and(|w| w.ended)
    }

    pub(crate) fn poll_timeout(&self) -> Option<Instant> {
        self.watch.as_ref().and_then(|w| w.ceiling_at)
    }

    /// The time is `now`: the ceiling may have passed.
    pub(crate) fn handle_timeout(&mut self, now: Instant) {
        let agents_in_flight = !self.in_flight.is_empty();
        let Some(watch) = &mut self.watch else {
            return;
        };
        if watch.ceiling_at.is_none_or(|at| now < at) {
            return;
        }
        watch.ceiling_at = None;
        // A tracked agent may still need stdin: it is not cut off; the
        // ceiling starts over once it settles.
        if !agents_in_flight {
            watch.end();
        }
    }

    /// A message the CLI wrote. Cheap for all but the few frames the
    /// rules read: system frames of four subtypes always, and the main
    /// thread's messages only while a run is watched.
    pub(crate) fn handle_message(&mut self, message: &Message, now: Instant) {
        match message.message_type() {
            MessageType::System => self.handle_system(message, now),
            MessageType::Result => {
                self.result_received = true;
                self.on_result(now);
            }
            MessageType::Assistant | MessageType::StreamEvent
                if self.watch.is_some() && on_main_thread(message) =>
            {
                if let Some(watch) = &mut self.watch {
                    watch.turn_in_progress = true;
                    watch.reopen();
                    watch.ceiling_at = None;
                }
            }
            _ => {}
        }
    }

    fn on_result(&mut self, now: Instant) {
        let state = self.state;
        let agents_in_flight = !self.in_flight.is_empty();
        let Some(watch) = &mut self.watch else {
            return;
        };
        watch.turn_in_progress = false;
        if matches!(state, None | Some(State::Idle)) || !watch.callbacks {
            watch.maybe_end(agents_in_flight);
        } else if state != Some(State::RequiresAction) {
            watch.arm(now);
        }
    }

    fn handle_system(&mut self, message: &Message, now: Instant) {
        let subtype = message.subtype().unwrap_or_default();
        let watched = matches!(
            subtype,
            "task_started" | "task_notification" | "task_updated" | "session_state_changed"
        );
        if !watched {
            return;
        }
        let Ok(fields) = message.deserialize::<SystemFields>() else {
            return;
        };
        let had_in_flight = !self.in_flight.is_empty();
        match (subtype, fields.task_id) {
            ("task_started", Some(id)) => {
                let deferring = fields
                    .task_type
                    .as_deref()
                    .is_some_and(|t| DEFERRING_TASK_TYPES.contains(&t));
                let room = self.in_flight.len() < MAX_TRACKED_TASKS;
                if deferring && room && id.len() <= MAX_TASK_ID_BYTES {
                    self.in_flight.insert(id);
                }
            }
            ("task_notification", Some(id)) => {
                self.in_flight.remove(&id);
            }
            ("task_updated", Some(id)) if fields.patch.is_some_and(|p| p.is_terminal()) => {
                self.in_flight.remove(&id);
            }
            _ => {}
        }
        if had_in_flight && self.in_flight.is_empty() {
            // The ceiling left the last agent alone; the wait between
            // turns starts over now that it settled.
            self.rearm_between_turns(now);
        }
        if subtype != "session_state_changed" {
            return;
        }
        let state = match fields.state.as_deref() {
            Some("idle") => State::Idle,
            Some("running") => State::Running,
            Some("requires_action") => State::RequiresAction,
            _ => State::Other,
        };
        self.state = Some(state);
        let (result_received, agents_in_flight) =
            (self.result_received, !self.in_flight.is_empty());
        match state {
            State::Idle => {
                if let Some(watch) = &mut self.watch {
                    if result_received {
                        watch.maybe_end(agents_in_flight);
                    }
                }
            }
            State::RequiresAction => {
                if let Some(watch) = &mut self.watch {
                    watch.reopen();
                    watch.ceiling_at = None;
                }
            }
            State::Running | State::Other => {
                if let Some(watch) = &mut self.watch {
                    watch.reopen();
                }
                self.rearm_between_turns(now);
            }
        }
    }

    fn rearm_between_turns(&mut self, now: Instant) {
        let between =
            self.result_received && matches!(self.state, Some(State::Running | State::Other));
        if let Some(watch) = self.watch.as_mut().filter(|_| between) {
            watch.arm(now);
        }
    }
}

impl Watch {
    fn maybe_end(&mut self, agents_in_flight: bool) {
        if !agents_in_flight {
            self.end();
        }
    }

    fn end(&mut self) {
        self.ceiling_at = None;
        self.ended = true;
    }

    fn reopen(&mut self) {
        if self.callbacks {
            self.ended = false;
        }
    }

    fn arm(&mut self, now: Instant) {
        self.ceiling_at = None;
        let Some(ceiling) = self.ceiling else {
            return;
        };
        if self.ended || self.turn_in_progress || !self.callbacks {
            return;
        }
        self.ceiling_at = Some(deadline(now, ceiling));
    }
}

/// `true` for an assistant message or stream event of the main thread
/// (`parent_tool_use_id` null or absent), not a subagent's.
fn on_main_thread(message: &Message) -> bool {
    #[derive(Deserialize)]
    struct Parent {
        #[serde(default)]
        parent_tool_use_id: Option<serde::de::IgnoredAny>,
    }
    message
        .deserialize::<Parent>()
        .is_ok_and(|p| p.parent_tool_use_id.is_none())
}
