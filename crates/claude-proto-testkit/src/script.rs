//! A hand-written script: the steps of a scripted CLI and how to run them.

use std::collections::VecDeque;
use std::fmt;
use std::path::Path;
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::engine::Settings;
use crate::step::{Matcher, Outgoing, Reply, Step, Steps};

/// The version of the script file format ([`Script::to_json`]).
pub const SCRIPT_FORMAT: u64 = 1;

/// A scripted CLI, step by step: what it sends, what it expects back.
///
/// Build it with the methods below and the line builders of
/// [`cli`](crate::cli), [`ask`](crate::ask) and [`expect`](crate::expect);
/// run it in process with [`start`](Self::start) (or an adapter's
/// `connect` helper), or save it ([`to_json`](Self::to_json)) for the
/// `claude-proto-testkit-cli` binary.
///
/// ```
/// use claude_proto_testkit::{Script, ask, cli, expect};
/// use serde_json::json;
///
/// let script = Script::new()
///     .expect(expect::user_text("Delete the logs"))
///     .send(cli::system_init())
///     .send(cli::assistant_tool_use("Bash", json!({"command": "rm -rf /var/log"})))
///     .ask(ask::can_use_tool("Bash", json!({"command": "rm -rf /var/log"})), expect::deny())
///     .send(cli::assistant_text("I was not allowed to."))
///     .send(cli::result_success("I was not allowed to."))
///     .expect_end();
/// assert_eq!(script.len(), 7);
/// ```
///
/// The program's `initialize` request is answered by itself (see
/// [`initialize`](Self::initialize) and
/// [`expect_initialize`](Self::expect_initialize)). As a [`Steps`] source,
/// a script gives its steps once, in order.
#[derive(Clone, Default)]
#[must_use]
pub struct Script {
    steps: VecDeque<Step>,
    settings: Settings,
}

impl fmt::Debug for Script {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Script")
            .field("steps", &self.steps)
            .field("settings", &self.settings)
            .finish()
    }
}

impl Steps for Script {
    fn next_step(&mut self) -> Option<Result<Step, String>> {
        self.steps.pop_front().map(Ok)
    }
}

impl Script {
    /// An empty script with default [`Settings`].
    pub fn new() -> Self {
        Self::default()
    }

    /// How many steps it has.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// Whether it has no steps.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// Its steps, in order.
    pub fn steps(&self) -> impl Iterator<Item = &Step> {
        self.steps.iter()
    }

    /// Its settings.
    pub fn get_settings(&self) -> &Settings {
        &self.settings
    }

    /// Its steps and settings, apart (for [`ScriptedCli::new`](crate::ScriptedCli::new)).
    pub fn into_parts(self) -> (Self, Settings) {
        let settings = self.settings.clone();
        (self, settings)
    }

    /// Adds any step.
    pub fn step(mut self, step: Step) -> Self {
        self.steps.push_back(step);
        self
    }

    /// Sends this line at once.
    pub fn send(self, line: Value) -> Self {
        self.send_after(Duration::ZERO, line)
    }

    /// Sends these lines at once, in order (the `Vec` of
    /// [`cli::stream_text`](crate::cli::stream_text), say).
    pub fn send_all(mut self, lines: impl IntoIterator<Item = Value>) -> Self {
        for line in lines {
            self = self.send(line);
        }
        self
    }

    /// Sends this line `delay` after the step before ended.
    pub fn send_after(self, delay: Duration, line: Value) -> Self {
        self.step(Step::Send {
            line: Outgoing::Json(line),
            delay,
        })
    }

    /// Sends this text as it is, JSON or not (it must hold no newline).
    pub fn send_raw(self, text: impl Into<String>) -> Self {
        self.step(Step::Send {
            line: Outgoing::Raw(text.into()),
            delay: Duration::ZERO,
        })
    }

    /// Expects the program's next line to match.
    pub fn expect(self, matcher: Matcher) -> Self {
        self.step(Step::Expect {
            matcher,
            reply: None,
            label: None,
        })
    }

    /// Expects the program's next line to match, naming the step `label`
    /// in failure reports.
    pub fn expect_labeled(self, label: impl Into<String>, matcher: Matcher) -> Self {
        self.step(Step::Expect {
            matcher,
            reply: None,
            label: Some(label.into()),
        })
    }

    /// Expects a control request of the program's that matches, and
    /// answers it with `reply` (`Reply::success(json!({...}))`).
    pub fn respond(self, matcher: Matcher, reply: Reply) -> Self {
        self.step(Step::Expect {
            matcher,
            reply: Some(reply),
            label: None,
        })
    }

    /// Sends a control request (a body from [`ask`](crate::ask)) and
    /// expects the program's answer to match `answer` (from
    /// [`expect`](crate::expect): `allow()`, `deny()`, `hook_output(..)`,
    /// `mcp_result(..)`, ...).
    pub fn ask(self, request: Value, answer: Matcher) -> Self {
        self.step(Step::Ask { request, answer })
    }

    /// The MCP handshake the real CLI makes with an in-process server
    /// before anything else: `initialize` (answered with a result),
    /// `notifications/initialized` (acknowledged) and `tools/list`
    /// (answered with tools).
    pub fn mcp_handshake(self, server: &str) -> Self {
        self.ask(
            crate::ask::mcp_initialize(server),
            crate::expect::mcp_result(json!({"protocolVersion": "2025-11-25"})),
        )
        .ask(
            crate::ask::mcp_initialized(server),
            crate::expect::success(),
        )
        .ask(
            crate::ask::mcp_tools_list(server),
            crate::expect::mcp_result(json!({})),
        )
    }

    /// Does nothing for `pause`.
    pub fn pause(self, pause: Duration) -> Self {
        self.step(Step::Pause(pause))
    }

    /// Writes `text` to stderr.
    pub fn stderr(self, text: impl Into<String>) -> Self {
        self.step(Step::Stderr(text.into()))
    }

    /// Expects the program to close its end next.
    pub fn expect_end(self) -> Self {
        self.step(Step::ExpectEnd)
    }

    /// Exits with `code`: the program's reading end closes.
    pub fn exit(self, code: i32) -> Self {
        self.step(Step::Exit(code))
    }

    /// Stops reading and writing, as a hung CLI: the program's own
    /// deadlines must end the session.
    pub fn hang(self) -> Self {
        self.step(Step::Hang)
    }

    /// Replaces its settings.
    pub fn settings(mut self, settings: Settings) -> Self {
        self.settings = settings;
        self
    }

    /// How long each expecting step waits (default 10 s); see
    /// [`Settings::step_deadline`].
    pub fn step_deadline(mut self, deadline: Duration) -> Self {
        self.settings = self.settings.step_deadline(deadline);
        self
    }

    /// Answers the program's `initialize` with `reply` instead of the
    /// default (an error, to test how the program copes, say).
    pub fn initialize(mut self, reply: Reply) -> Self {
        self.settings = self.settings.initialize(reply);
        self
    }

    /// Makes the program's `initialize` an explicit step here, answered
    /// as it would have been by itself (stops the automatic answer).
    pub fn expect_initialize(mut self) -> Self {
        let reply = self
            .settings
            .initialize
            .take()
            .unwrap_or_else(|| Reply::Success(crate::cli::initialize_response()));
        self.step(Step::Expect {
            matcher: crate::expect::initialize(),
            reply: Some(reply),
            label: Some(String::from("initialize")),
        })
    }

    /// Lets lines that match pass anywhere; see [`Settings::ignore`].
    pub fn ignore(mut self, matcher: Matcher) -> Self {
        self.settings = self.settings.ignore(matcher);
        self
    }

    /// After the last step, serves by itself as `behaviour` says; see
    /// [`Settings::serve`]. `Script::new().serve(Behaviour::default())`
    /// is a whole CLI that echoes every prompt.
    pub fn serve(mut self, behaviour: crate::Behaviour) -> Self {
        self.settings = self.settings.serve(behaviour);
        self
    }

    /// Lets the program send more lines after the last step; see
    /// [`Settings::allow_trailing_lines`].
    pub fn allow_trailing_lines(mut self) -> Self {
        self.settings = self.settings.allow_trailing_lines(true);
        self
    }

    /// The script as JSON, for a file the `claude-proto-testkit-cli`
    /// binary runs. Fails on a step it cannot save: a
    /// [`Matcher::Check`] (a closure).
    pub fn to_json(&self) -> Result<Value, ScriptError> {
        let steps = self
            .steps
            .iter()
            .enumerate()
            .map(|(i, step)| step_to_json(step).map_err(|why| ScriptError::at(i + 1, why)))
            .collect::<Result<Vec<_>, _>>()?;
        let s = &self.settings;
        let ignore = s
            .ignore
            .iter()
            .map(|m| matcher_to_json(m).map_err(|why| ScriptError::at(0, why)))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(json!({
            "claude_proto_script": SCRIPT_FORMAT,
            "settings": {
                "step_deadline_ms": millis(s.step_deadline),
                "initialize": s.initialize.as_ref().map(reply_to_json),
                "ignore": ignore,
                "max_line_bytes": s.max_line_bytes,
                "max_queued_bytes": s.max_queued_bytes,
                "allow_trailing_lines": s.allow_trailing_lines,
                "keep_received_bytes": s.keep_received_bytes,
                "serve": s.serve.as_ref().map(crate::serve::json::to_json),
            },
            "steps": steps,
        }))
    }

    /// A script read back from [`to_json`](Self::to_json)'s form.
    pub fn from_json(value: &Value) -> Result<Self, ScriptError> {
        let version = value["claude_proto_script"].as_u64();
        if version != Some(SCRIPT_FORMAT) {
            return Err(ScriptError::at(
                0,
                format!(
                    "not a script of format {SCRIPT_FORMAT} (claude_proto_script is {})",
                    value["claude_proto_script"]
                ),
            ));
        }
        let mut settings = Settings::default();
        let s = &value["settings"];
        if let Some(ms) = s.get("step_deadline_ms") {
            settings.step_deadline = duration(ms).map_err(|why| ScriptError::at(0, why))?;
        }
        match s.get("initialize") {
            None => {}
            Some(Value::Null) => settings.initialize = None,
            Some(reply) => {
                settings.initialize =
                    Some(reply_from_json(reply).map_err(|why| ScriptError::at(0, why))?);
            }
        }
        if let Some(ignore) = s.get("ignore").and_then(Value::as_array) {
            for matcher in ignore {
                settings
                    .ignore
                    .push(matcher_from_json(matcher).map_err(|why| ScriptError::at(0, why))?);
            }
        }
        let size = |key: &str, default: usize| {
            s.get(key)
                .and_then(Value::as_u64)
                .map_or(default, |n| usize::try_from(n).unwrap_or(usize::MAX))
        };
        settings.max_line_bytes = size("max_line_bytes", settings.max_line_bytes).max(1);
        settings.max_queued_bytes = size("max_queued_bytes", settings.max_queued_bytes).max(1);
        settings.keep_received_bytes = size("keep_received_bytes", settings.keep_received_bytes);
        settings.allow_trailing_lines = s["allow_trailing_lines"].as_bool().unwrap_or(false);
        match s.get("serve") {
            None | Some(Value::Null) => {}
            Some(behaviour) => {
                settings.serve = Some(
                    crate::serve::json::from_json(behaviour)
                        .map_err(|why| ScriptError::at(0, format!("serve: {why}")))?,
                );
            }
        }
        let Some(steps) = value["steps"].as_array() else {
            return Err(ScriptError::at(0, "no \"steps\" array"));
        };
        let steps = steps
            .iter()
            .enumerate()
            .map(|(i, step)| step_from_json(step).map_err(|why| ScriptError::at(i + 1, why)))
            .collect::<Result<VecDeque<_>, _>>()?;
        Ok(Self { steps, settings })
    }

    /// Writes [`to_json`](Self::to_json) to `path`.
    pub fn save(&self, path: &Path) -> Result<(), ScriptError> {
        let text = self.to_json()?.to_string();
        std::fs::write(path, text)
            .map_err(|e| ScriptError::at(0, format!("writing {}: {e}", path.display())))
    }

    /// Reads a script saved with [`save`](Self::save).
    pub fn load(path: &Path) -> Result<Self, ScriptError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ScriptError::at(0, format!("reading {}: {e}", path.display())))?;
        let value: Value = serde_json::from_str(&text)
            .map_err(|e| ScriptError::at(0, format!("{} is not JSON: {e}", path.display())))?;
        Self::from_json(&value)
    }
}

/// A script that cannot be saved or read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptError {
    /// The step it is about, from 1 (0: the script as a whole or its
    /// settings).
    pub step: usize,
    /// What is wrong.
    pub message: String,
}

impl ScriptError {
    fn at(step: usize, message: impl Into<String>) -> Self {
        Self {
            step,
            message: message.into(),
        }
    }
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.step == 0 {
            write!(f, "script: {}", self.message)
        } else {
            write!(f, "script step {}: {}", self.step, self.message)
        }
    }
}

impl std::error::Error for ScriptError {}

fn millis(duration: Duration) -> Value {
    let micros = duration.as_micros();
    if micros % 1000 == 0 {
        json!(u64::try_from(micros / 1000).unwrap_or(u64::MAX))
    } else {
        json!(duration.as_secs_f64() * 1000.0)
    }
}

fn duration(value: &Value) -> Result<Duration, String> {
    match value.as_f64() {
        Some(ms) if ms.is_finite() && ms >= 0.0 => Duration::try_from_secs_f64(ms / 1000.0)
            .map_err(|e| format!("{value} ms is not a duration: {e}")),
        _ => Err(format!("{value} is not a number of milliseconds")),
    }
}

fn step_to_json(step: &Step) -> Result<Value, String> {
    Ok(match step {
        Step::Send { line, delay } => {
            let mut out = match line {
                Outgoing::Json(value) => json!({"send": value}),
                Outgoing::Raw(text) => json!({"send_raw": text}),
                Outgoing::Recorded(text) => json!({"send_recorded": text}),
            };
            if !delay.is_zero() {
                out["delay_ms"] = millis(*delay);
            }
            out
        }
        Step::Expect {
            matcher,
            reply,
            label,
        } => {
            let mut out = Map::new();
            out.insert("expect".into(), matcher_to_json(matcher)?);
            if let Some(reply) = reply {
                out.insert("reply".into(), reply_to_json(reply));
            }
            if let Some(label) = label {
                out.insert("label".into(), label.clone().into());
            }
            Value::Object(out)
        }
        Step::Ask { request, answer } => {
            json!({"ask": request, "answer": matcher_to_json(answer)?})
        }
        Step::Pause(pause) => json!({"pause_ms": millis(*pause)}),
        Step::Stderr(text) => json!({"stderr": text}),
        Step::ExpectEnd => json!({"expect_end": true}),
        Step::Exit(code) => json!({"exit": code}),
        Step::Hang => json!({"hang": true}),
    })
}

fn step_from_json(value: &Value) -> Result<Step, String> {
    let delay = match value.get("delay_ms") {
        Some(ms) => duration(ms)?,
        None => Duration::ZERO,
    };
    let text = |key: &str| {
        value[key]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("\"{key}\" is not a string"))
    };
    if let Some(line) = value.get("send") {
        return Ok(Step::Send {
            line: Outgoing::Json(line.clone()),
            delay,
        });
    }
    if value.get("send_raw").is_some() {
        return Ok(Step::Send {
            line: Outgoing::Raw(text("send_raw")?),
            delay,
        });
    }
    if value.get("send_recorded").is_some() {
        return Ok(Step::Send {
            line: Outgoing::Recorded(text("send_recorded")?),
            delay,
        });
    }
    if let Some(matcher) = value.get("expect") {
        return Ok(Step::Expect {
            matcher: matcher_from_json(matcher)?,
            reply: value.get("reply").map(reply_from_json).transpose()?,
            label: value["label"].as_str().map(str::to_owned),
        });
    }
    if let Some(request) = value.get("ask") {
        let answer = value
            .get("answer")
            .ok_or_else(|| String::from("an ask without an \"answer\""))?;
        return Ok(Step::Ask {
            request: request.clone(),
            answer: matcher_from_json(answer)?,
        });
    }
    if let Some(ms) = value.get("pause_ms") {
        return Ok(Step::Pause(duration(ms)?));
    }
    if value.get("stderr").is_some() {
        return Ok(Step::Stderr(text("stderr")?));
    }
    if value.get("expect_end").is_some() {
        return Ok(Step::ExpectEnd);
    }
    if let Some(code) = value.get("exit") {
        let code = code
            .as_i64()
            .and_then(|c| i32::try_from(c).ok())
            .ok_or_else(|| format!("exit code {code} is not a 32-bit integer"))?;
        return Ok(Step::Exit(code));
    }
    if value.get("hang").is_some() {
        return Ok(Step::Hang);
    }
    Err(format!(
        "not a step: {}",
        crate::diff::truncate(value.to_string(), 200)
    ))
}

fn matcher_to_json(matcher: &Matcher) -> Result<Value, String> {
    Ok(match matcher {
        Matcher::Any => json!({"any": true}),
        Matcher::Subset(value) => json!({"subset": value}),
        Matcher::Exact(value) => json!({"exact": value}),
        Matcher::Recorded(value) => json!({"recorded": value}),
        Matcher::Containing {
            subset,
            pointer,
            text,
        } => json!({"containing": {"subset": subset, "pointer": pointer, "text": text}}),
        Matcher::Check { describe, .. } => {
            return Err(format!(
                "a Matcher::Check ({describe}) is a closure and cannot be saved; use a \
                 Subset or Containing matcher in a script for the child-process CLI"
            ));
        }
    })
}

fn matcher_from_json(value: &Value) -> Result<Matcher, String> {
    if value.get("any").is_some() {
        return Ok(Matcher::Any);
    }
    if let Some(v) = value.get("subset") {
        return Ok(Matcher::Subset(v.clone()));
    }
    if let Some(v) = value.get("exact") {
        return Ok(Matcher::Exact(v.clone()));
    }
    if let Some(v) = value.get("recorded") {
        return Ok(Matcher::Recorded(v.clone()));
    }
    if let Some(v) = value.get("containing") {
        let text = |key: &str| {
            v[key]
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| format!("containing.{key} is not a string"))
        };
        return Ok(Matcher::Containing {
            subset: v.get("subset").cloned().unwrap_or_else(|| json!({})),
            pointer: text("pointer")?,
            text: text("text")?,
        });
    }
    Err(format!(
        "not a matcher: {}",
        crate::diff::truncate(value.to_string(), 200)
    ))
}

fn reply_to_json(reply: &Reply) -> Value {
    match reply {
        Reply::Success(payload) => json!({"success": payload}),
        Reply::Error(message) => json!({"error": message}),
    }
}

fn reply_from_json(value: &Value) -> Result<Reply, String> {
    if let Some(payload) = value.get("success") {
        return Ok(Reply::Success(payload.clone()));
    }
    if let Some(message) = value.get("error").and_then(Value::as_str) {
        return Ok(Reply::Error(message.to_owned()));
    }
    Err(format!(
        "not a reply: {}",
        crate::diff::truncate(value.to_string(), 200)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ask, cli, expect};

    fn sample() -> Script {
        Script::new()
            .step_deadline(Duration::from_millis(1500))
            .ignore(expect::keep_alive())
            .expect_initialize()
            .expect(expect::user_text("hi"))
            .send(cli::system_init())
            .send_after(Duration::from_micros(2500), cli::assistant_text("a"))
            .send_raw("not json")
            .step(Step::Send {
                line: Outgoing::Recorded("{\"x\":1}".into()),
                delay: Duration::ZERO,
            })
            .ask(
                ask::can_use_tool("Bash", json!({"command": "ls"})),
                expect::deny_with("no"),
            )
            .respond(expect::interrupt(), Reply::error("nope"))
            .expect_labeled("the end", Matcher::Exact(json!({"type": "user"})))
            .step(Step::Expect {
                matcher: Matcher::Recorded(json!({"request_id": "r"})),
                reply: None,
                label: None,
            })
            .expect(Matcher::Any)
            .pause(Duration::from_millis(20))
            .stderr("warn")
            .expect_end()
            .exit(2)
            .hang()
    }

    #[test]
    fn a_script_round_trips_through_json() {
        let script = sample();
        let saved = script.to_json().expect("saves");
        let back = Script::from_json(&saved).expect("reads back");
        assert_eq!(back.to_json().expect("saves again"), saved);
        assert_eq!(back.len(), script.len());
        assert_eq!(back.settings.step_deadline, Duration::from_millis(1500));
        assert_eq!(back.settings.initialize, None, "expect_initialize took it");
        let delays: Vec<Duration> = back
            .steps()
            .filter_map(|s| match s {
                Step::Send { delay, .. } => Some(*delay),
                _ => None,
            })
            .collect();
        assert!(delays.contains(&Duration::from_micros(2500)));
        // Through text, too.
        let text = saved.to_string();
        let value: Value = serde_json::from_str(&text).expect("JSON");
        let _ = Script::from_json(&value).expect("reads back from text");
    }

    #[test]
    fn a_check_cannot_be_saved_and_says_so() {
        let script = Script::new()
            .send(cli::system_init())
            .expect(Matcher::check("shouting", |_| Ok(())));
        let error = script.to_json().expect_err("a closure");
        assert_eq!(error.step, 2);
        assert!(
            error.to_string().contains("Matcher::Check (shouting)"),
            "{error}"
        );
    }

    #[test]
    fn a_bad_file_names_the_step() {
        let error = Script::from_json(&json!({"claude_proto_script": 7})).expect_err("version");
        assert!(error.message.contains("format 1"), "{error}");
        let error = Script::from_json(&json!({"claude_proto_script": 1, "steps": [
            {"send": {}}, {"frobnicate": true}]}))
        .expect_err("bad step");
        assert_eq!(error.step, 2);
        let error = Script::from_json(&json!({"claude_proto_script": 1, "steps": [
            {"pause_ms": -1}]}))
        .expect_err("bad pause");
        assert_eq!(error.step, 1);
        let error = Script::from_json(&json!({"claude_proto_script": 1, "steps": [
            {"exit": 1e20}]}))
        .expect_err("bad exit");
        assert_eq!(error.step, 1);
    }
}
