//! A [`Behaviour`] as JSON, for a script saved for the child runner
//! (`Script::to_json`, the `claude-proto-testkit-cli` binary), and extras
//! as JSON, for a prompt's `#extras`. Durations are whole milliseconds;
//! absent keys keep the defaults.

use std::time::Duration;

use serde_json::{Map, Value, json};

use super::behaviour::{BadLine, Behaviour, Extra, Policy};

impl Behaviour {
    /// The behaviour as JSON: the form a saved script keeps it in and
    /// [`SERVE_ENV`](crate::child::SERVE_ENV) carries (durations in whole
    /// milliseconds).
    pub fn to_json(&self) -> serde_json::Value {
        to_json(self)
    }

    /// A behaviour read back from [`to_json`](Self::to_json)'s form; absent
    /// keys keep their defaults. The error names the key or shape that is
    /// wrong.
    pub fn from_json(value: &serde_json::Value) -> Result<Self, String> {
        from_json(value)
    }
}

impl Extra {
    /// The extras a prompt asks for with keywords: `#permission` (Bash with
    /// `{"command": "echo <prompt>"}`), `#hook` (every registered callback),
    /// `#mcp` (first server, first tool, `{}`), `#deep`, `#bignum`,
    /// `#nousage` (three of the [`BadLine`]s). A prompt that starts with
    /// `#extras ` is followed by a JSON array of extras in the form a saved
    /// script uses (`[{"mcp": {"tool": "add", "arguments": {"a": 1}}}]`):
    /// any extra, chosen turn by turn; an array that cannot be read is an
    /// error, with the reason.
    pub fn from_prompt(prompt: &str) -> Result<Vec<Extra>, String> {
        match prompt.trim_start().strip_prefix("#extras ") {
            Some(rest) => {
                let value: Value =
                    serde_json::from_str(rest).map_err(|e| format!("#extras: {e}"))?;
                let list = value.as_array().ok_or("#extras: not a JSON array")?;
                list.iter()
                    .map(extra_from_json)
                    .collect::<Result<_, _>>()
                    .map_err(|e| format!("#extras: {e}"))
            }
            None => Ok(Self::from_keywords(prompt)),
        }
    }
}

/// The JSON form of `behaviour`.
pub(crate) fn to_json(behaviour: &Behaviour) -> Value {
    let policies: Map<String, Value> = behaviour
        .policies
        .iter()
        .map(|(subtype, policy)| (subtype.clone(), policy_to_json(policy)))
        .collect();
    let pair = |pair: Option<(usize, i32)>| pair.map(|(n, code)| json!([n, code]));
    json!({
        "policies": policies,
        "bom": behaviour.bom,
        "pid": behaviour.pid,
        "stream_deltas": behaviour.stream_deltas,
        "delta_size": behaviour.delta_size,
        "delta_interval_ms": millis(behaviour.delta_interval),
        "turn_delay_ms": millis(behaviour.turn_delay),
        "extras": behaviour.extras.iter().map(extra_to_json).collect::<Vec<_>>(),
        "keywords": behaviour.keywords,
        "stop_reading_after": behaviour.stop_reading_after,
        "stdout_capacity": behaviour.stdout_capacity,
        "flood": behaviour.flood.map(|(lines, bytes)| json!([lines, bytes])),
        "exit_after_turns": pair(behaviour.exit_after_turns),
        "exit_mid_turn": pair(behaviour.exit_mid_turn),
        "exit_after_ms": behaviour.exit_after.map(|(after, code)| json!([millis(after), code])),
        "ignore_sigterm": behaviour.ignore_sigterm,
        "exit_on_stdin_end": behaviour.exit_on_stdin_end,
        "fatal_bad_stdin": behaviour.fatal_bad_stdin,
        "stderr_lines": behaviour.stderr_lines,
        "stderr_filler": behaviour.stderr_filler,
        "events_before_answers": behaviour.events_before_answers,
        "initialize_fields": behaviour
            .initialize_fields
            .iter()
            .map(|(name, value)| json!([name, value]))
            .collect::<Vec<_>>(),
    })
}

/// A behaviour read back from [`to_json`]'s form.
pub(crate) fn from_json(value: &Value) -> Result<Behaviour, String> {
    let Some(object) = value.as_object() else {
        return Err(format!("a behaviour is a JSON object, not {value}"));
    };
    let mut b = Behaviour::default();
    for (key, v) in object {
        match key.as_str() {
            "policies" => {
                let policies = v.as_object().ok_or("policies is not an object")?;
                for (subtype, policy) in policies {
                    b.policies
                        .insert(subtype.clone(), policy_from_json(policy)?);
                }
            }
            "bom" => b.bom = flag(key, v)?,
            "pid" => b.pid = u32::try_from(number(key, v)?).map_err(|_| "pid is too large")?,
            "stream_deltas" => b.stream_deltas = size(key, v)?,
            "delta_size" => b.delta_size = size(key, v)?,
            "delta_interval_ms" => b.delta_interval = duration(key, v)?,
            "turn_delay_ms" => b.turn_delay = duration(key, v)?,
            "extras" => {
                let extras = v.as_array().ok_or("extras is not an array")?;
                b.extras = extras
                    .iter()
                    .map(extra_from_json)
                    .collect::<Result<_, _>>()?;
            }
            "keywords" => b.keywords = flag(key, v)?,
            "stop_reading_after" => b.stop_reading_after = optional(v, |v| size(key, v))?,
            "stdout_capacity" => b.stdout_capacity = optional(v, |v| size(key, v))?,
            "flood" => {
                b.flood = optional(v, |v| {
                    let [lines, bytes] = two(key, v)?;
                    Ok((size(key, lines)?, size(key, bytes)?))
                })?;
            }
            "exit_after_turns" => {
                b.exit_after_turns = optional(v, |v| {
                    let [turns, code] = two(key, v)?;
                    Ok((size(key, turns)?, exit_code(key, code)?))
                })?;
            }
            "exit_mid_turn" => {
                b.exit_mid_turn = optional(v, |v| {
                    let [turn, code] = two(key, v)?;
                    Ok((size(key, turn)?, exit_code(key, code)?))
                })?;
            }
            "exit_after_ms" => {
                b.exit_after = optional(v, |v| {
                    let [after, code] = two(key, v)?;
                    Ok((duration(key, after)?, exit_code(key, code)?))
                })?;
            }
            "ignore_sigterm" => b.ignore_sigterm = flag(key, v)?,
            "exit_on_stdin_end" => b.exit_on_stdin_end = flag(key, v)?,
            "fatal_bad_stdin" => b.fatal_bad_stdin = flag(key, v)?,
            "stderr_filler" => b.stderr_filler = size(key, v)?,
            "events_before_answers" => b.events_before_answers = size(key, v)?,
            "stderr_lines" => {
                let lines = v.as_array().ok_or("stderr_lines is not an array")?;
                b.stderr_lines = lines
                    .iter()
                    .map(|l| {
                        l.as_str()
                            .map(str::to_owned)
                            .ok_or("a stderr line is not text")
                    })
                    .collect::<Result<_, _>>()?;
            }
            "initialize_fields" => {
                let fields = v.as_array().ok_or("initialize_fields is not an array")?;
                for field in fields {
                    let [name, value] = two(key, field)?;
                    let name = name
                        .as_str()
                        .ok_or("an initialize field's name is not text")?;
                    b.initialize_fields.push((name.to_owned(), value.clone()));
                }
            }
            other => return Err(format!("unknown behaviour key {other:?}")),
        }
    }
    Ok(b)
}

fn policy_to_json(policy: &Policy) -> Value {
    match policy {
        Policy::Answer => json!("answer"),
        Policy::Never => json!("never"),
        Policy::Error(text) => json!({"error": text}),
        Policy::Delay(after) => json!({"delay_ms": millis(*after)}),
        Policy::AfterAnswers => json!("after_answers"),
    }
}

fn policy_from_json(value: &Value) -> Result<Policy, String> {
    match value {
        Value::String(s) if s == "answer" => Ok(Policy::Answer),
        Value::String(s) if s == "never" => Ok(Policy::Never),
        Value::String(s) if s == "after_answers" => Ok(Policy::AfterAnswers),
        Value::Object(o) if o.contains_key("error") => Ok(Policy::Error(
            o["error"]
                .as_str()
                .ok_or("a policy's error is not text")?
                .to_owned(),
        )),
        Value::Object(o) if o.contains_key("delay_ms") => {
            Ok(Policy::Delay(duration("delay_ms", &o["delay_ms"])?))
        }
        other => Err(format!("not a policy: {other}")),
    }
}

fn extra_to_json(extra: &Extra) -> Value {
    match extra {
        Extra::Permission { tool_name, input } => {
            json!({"permission": {"tool_name": tool_name, "input": input}})
        }
        Extra::Tool { tool_name, input } => {
            json!({"tool": {"tool_name": tool_name, "input": input}})
        }
        Extra::McpMessage { server, message } => {
            json!({"mcp_message": {"server": server, "message": message}})
        }
        Extra::Request(body) => json!({"request": body}),
        Extra::Pause(pause) => json!({"pause_ms": millis(*pause)}),
        Extra::Withdrawn(body) => json!({"withdrawn": body}),
        Extra::Hook { event, callback_id } => {
            json!({"hook": {"event": event, "callback_id": callback_id}})
        }
        Extra::Mcp {
            server,
            tool,
            arguments,
        } => json!({"mcp": {"server": server, "tool": tool, "arguments": arguments}}),
        Extra::Bad(BadLine::Oversized(bytes)) => json!({"bad": {"oversized": bytes}}),
        Extra::Bad(line) => json!({"bad": match line {
            BadLine::DeepNesting => "deep_nesting",
            BadLine::NumberOutOfRange => "number_out_of_range",
            BadLine::ResultWithoutUsage => "result_without_usage",
            BadLine::NotJson => "not_json",
            BadLine::NotAnObject => "not_an_object",
            BadLine::UnknownType => "unknown_type",
            BadLine::InvalidUtf8 => "invalid_utf8",
            BadLine::Oversized(_) => "oversized",
        }}),
    }
}

pub(crate) fn extra_from_json(value: &Value) -> Result<Extra, String> {
    let text = |v: &Value, key: &str| -> Result<Option<String>, String> {
        match &v[key] {
            Value::Null => Ok(None),
            Value::String(s) => Ok(Some(s.clone())),
            other => Err(format!("{key} is not text: {other}")),
        }
    };
    if let Some(p) = value.get("permission") {
        Ok(Extra::Permission {
            tool_name: text(p, "tool_name")?.ok_or("a permission extra needs its tool_name")?,
            input: p["input"].clone(),
        })
    } else if let Some(t) = value.get("tool") {
        Ok(Extra::Tool {
            tool_name: text(t, "tool_name")?.ok_or("a tool extra needs its tool_name")?,
            input: t["input"].clone(),
        })
    } else if let Some(m) = value.get("mcp_message") {
        Ok(Extra::McpMessage {
            server: text(m, "server")?,
            message: m["message"].clone(),
        })
    } else if let Some(pause) = value.get("pause_ms") {
        Ok(Extra::Pause(duration("pause_ms", pause)?))
    } else if let Some(body) = value.get("request") {
        Ok(Extra::Request(body.clone()))
    } else if let Some(body) = value.get("withdrawn") {
        Ok(Extra::Withdrawn(body.clone()))
    } else if let Some(h) = value.get("hook") {
        Ok(Extra::Hook {
            event: text(h, "event")?.ok_or("a hook extra needs its event")?,
            callback_id: text(h, "callback_id")?,
        })
    } else if let Some(m) = value.get("mcp") {
        Ok(Extra::Mcp {
            server: text(m, "server")?,
            tool: text(m, "tool")?,
            arguments: m["arguments"].clone(),
        })
    } else if let Some(bad) = value.get("bad") {
        Ok(Extra::Bad(match bad.as_str() {
            Some("deep_nesting") => BadLine::DeepNesting,
            Some("number_out_of_range") => BadLine::NumberOutOfRange,
            Some("result_without_usage") => BadLine::ResultWithoutUsage,
            Some("not_json") => BadLine::NotJson,
            Some("not_an_object") => BadLine::NotAnObject,
            Some("unknown_type") => BadLine::UnknownType,
            Some("invalid_utf8") => BadLine::InvalidUtf8,
            _ => match bad.pointer("/oversized").map(|n| size("oversized", n)) {
                Some(bytes) => BadLine::Oversized(bytes?),
                None => return Err(format!("not a bad line: {bad}")),
            },
        }))
    } else {
        Err(format!("not an extra: {value}"))
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

fn number(key: &str, value: &Value) -> Result<u64, String> {
    value
        .as_u64()
        .ok_or_else(|| format!("{key} is not a whole number: {value}"))
}

fn size(key: &str, value: &Value) -> Result<usize, String> {
    usize::try_from(number(key, value)?).map_err(|_| format!("{key} is too large"))
}

fn duration(key: &str, value: &Value) -> Result<Duration, String> {
    Ok(Duration::from_millis(number(key, value)?))
}

fn exit_code(key: &str, value: &Value) -> Result<i32, String> {
    value
        .as_i64()
        .and_then(|c| i32::try_from(c).ok())
        .ok_or_else(|| format!("{key}'s exit code is not a 32-bit integer: {value}"))
}

fn flag(key: &str, value: &Value) -> Result<bool, String> {
    value
        .as_bool()
        .ok_or_else(|| format!("{key} is not true or false: {value}"))
}

fn two<'a>(key: &str, value: &'a Value) -> Result<[&'a Value; 2], String> {
    match value.as_array().map(Vec::as_slice) {
        Some([a, b]) => Ok([a, b]),
        _ => Err(format!("{key} is not a pair: {value}")),
    }
}

fn optional<T>(
    value: &Value,
    read: impl FnOnce(&Value) -> Result<T, String>,
) -> Result<Option<T>, String> {
    if value.is_null() {
        Ok(None)
    } else {
        read(value).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_knob_survives_a_round_trip() {
        let behaviour = Behaviour::default()
            .with_policy("initialize", Policy::Delay(Duration::from_millis(1500)))
            .with_policy("mcp_status", Policy::Never)
            .with_policy("interrupt", Policy::Error("no".into()))
            .with_bom()
            .with_stream(3, 20, Duration::from_millis(10))
            .with_turn_delay(Duration::from_millis(7))
            .with_extra(Extra::Permission {
                tool_name: "Bash".into(),
                input: json!({"command": "ls"}),
            })
            .with_extra(Extra::Hook {
                event: "PreToolUse".into(),
                callback_id: Some("hook_3".into()),
            })
            .with_extra(Extra::Mcp {
                server: None,
                tool: Some("add".into()),
                arguments: json!({"a": 1}),
            })
            .with_extra(Extra::Bad(BadLine::NumberOutOfRange))
            .with_extra(Extra::Bad(BadLine::Oversized(4096)))
            .with_extra(Extra::Bad(BadLine::InvalidUtf8))
            .with_extra(Extra::Tool {
                tool_name: "Read".into(),
                input: json!({"file_path": "a"}),
            })
            .with_extra(Extra::McpMessage {
                server: Some("calc".into()),
                message: json!({"jsonrpc": "2.0", "method": "ping", "id": 1}),
            })
            .with_extra(Extra::Request(json!({"subtype": "elicitation"})))
            .with_extra(Extra::Pause(Duration::from_millis(250)))
            .with_extra(Extra::Withdrawn(json!({"subtype": "can_use_tool"})))
            .with_policy("get_context_usage", Policy::AfterAnswers)
            .with_exit_mid_turn(2, 5)
            .with_stderr_filler(2048)
            .with_events_before_answers(3)
            .with_stop_reading_after(4)
            .with_stdout_capacity(1 << 16)
            .with_flood(10, 100)
            .with_exit_after_turns(2, 3)
            .with_exit_after(Duration::from_secs(9), 4)
            .with_ignore_sigterm()
            .with_linger()
            .with_stderr("booting")
            .with_initialize_field("claude_code_version", json!("1.0.1"));
        let json = to_json(&behaviour);
        let back = from_json(&json).expect("its own form reads back");
        assert_eq!(to_json(&back), json);
        assert_eq!(back.policy_for("mcp_status"), Policy::Never);
        assert_eq!(back.extras, behaviour.extras);
        assert_eq!(back.exit_after, Some((Duration::from_secs(9), 4)));
    }

    #[test]
    fn a_wrong_key_or_shape_is_named() {
        for (value, says) in [
            (json!({"nope": 1}), "unknown behaviour key"),
            (json!({"flood": [1]}), "flood is not a pair"),
            (json!({"policies": {"x": "sometimes"}}), "not a policy"),
            (json!({"extras": [{"bad": "odd"}]}), "not a bad line"),
            (json!([]), "a behaviour is a JSON object"),
        ] {
            let error = from_json(&value).expect_err("refused");
            assert!(error.contains(says), "{error}");
        }
    }
}
