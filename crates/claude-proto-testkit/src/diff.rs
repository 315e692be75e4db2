//! Matching a program's line against an expectation, and finding where
//! they first differ.
//!
//! One walk does both: it stops at the first difference and says where it
//! is (a JSON pointer) and what both sides hold there, truncated for
//! display. The three ways of comparing are the matchers' ([`Mode`]).

use std::collections::HashMap;

use serde_json::Value;

use crate::step::Difference;

/// Longest value shown in a [`Difference`], in bytes.
const SHOWN_VALUE: usize = 300;
/// Longest line shown in a failure's `expected` or `actual`, in bytes.
pub(crate) const SHOWN_LINE: usize = 4000;
/// How a missing value is shown.
const ABSENT: &str = "(absent)";
/// The key whose recorded values [`Bindings::rewrite`] replaces.
const REQUEST_ID_KEY: &str = "\"request_id\"";

/// How two values are compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// The actual value may have more object keys; arrays have the same
    /// length and match element by element.
    Subset,
    /// Equal (numbers by value: `1` equals `1.0`).
    Exact,
    /// Equal once what differs from run to run is set aside: `request_id`s
    /// bound (see [`Bindings`]), ids (`uuid`, `session_id`) and timestamps
    /// compared by kind only.
    Recorded,
}

/// The ids the program chose in a recording, bound to those it chose in
/// this run: `request_id` recorded -> live.
#[derive(Debug, Default)]
pub(crate) struct Bindings {
    ids: HashMap<String, String>,
    /// The other way: which recorded id each live id stands for, so that
    /// one live id never stands for two recorded ones.
    taken: HashMap<String, String>,
}

impl Bindings {
    /// The live id bound to `recorded`, if any.
    pub(crate) fn live(&self, recorded: &str) -> Option<&str> {
        self.ids.get(recorded).map(String::as_str)
    }

    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The recorded id `live` is bound to, if any.
    fn recorded(&self, live: &str) -> Option<&str> {
        self.taken.get(live).map(String::as_str)
    }

    fn bind(&mut self, recorded: String, live: String) {
        self.taken.insert(live.clone(), recorded.clone());
        self.ids.insert(recorded, live);
    }

    /// Whether `line` has a `request_id` key, which [`rewrite`](Self::rewrite)
    /// may replace. Most lines have none: `contains` rules them out with a
    /// vectorized scan, where `find` in `rewrite` walks the line byte by
    /// byte (it was 7% of a replay's time, on every line it sends).
    pub(crate) fn may_rewrite(line: &str) -> bool {
        line.contains(REQUEST_ID_KEY)
    }

    /// `line` with every `"request_id":"<recorded>"` whose id is bound
    /// replaced by the live id; `None` when nothing changes (the common
    /// case: no allocation).
    pub(crate) fn rewrite(&self, line: &str) -> Option<String> {
        if self.ids.is_empty() || !Self::may_rewrite(line) {
            return None;
        }
        const KEY: &str = REQUEST_ID_KEY;
        let mut out: Option<String> = None;
        let mut copied = 0;
        let mut from = 0;
        while let Some(found) = line[from..].find(KEY) {
            let key_end = from + found + KEY.len();
            from = key_end;
            let Some((start, end)) = string_value_after(line, key_end) else {
                continue;
            };
            from = end;
            let Some(live) = self.live(&line[start..end]) else {
                continue;
            };
            if live == &line[start..end] {
                continue;
            }
            let out = out.get_or_insert_with(|| String::with_capacity(line.len() + 16));
            out.push_str(&line[copied..start]);
            out.push_str(live);
            copied = end;
        }
        out.map(|mut out| {
            out.push_str(&line[copied..]);
            out
        })
    }
}

/// After a key (at `at`, just past its closing quote): the byte range of
/// its value when that is a string without escapes (`: "abc"` -> `abc`).
pub(crate) fn string_value_after(line: &str, at: usize) -> Option<(usize, usize)> {
    let bytes = line.as_bytes();
    let mut i = at;
    while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    if bytes.get(i) != Some(&b':') {
        return None;
    }
    i += 1;
    while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    if bytes.get(i) != Some(&b'"') {
        return None;
    }
    let start = i + 1;
    let len = bytes
        .get(start..)?
        .iter()
        .position(|&b| b == b'"' || b == b'\\')?;
    let end = start + len;
    (bytes[end] == b'"').then_some((start, end))
}

/// Compares `actual` with `expected`; the first difference if they do not
/// match. In [`Mode::Recorded`], request ids seen for the first time are
/// bound in `bindings` only when the whole value matches.
pub(crate) fn compare(
    expected: &Value,
    actual: &Value,
    mode: Mode,
    bindings: Option<&mut Bindings>,
) -> Result<(), Difference> {
    let mut walk = Walk {
        mode,
        bindings: bindings.as_deref(),
        fresh: Vec::new(),
        path: Vec::new(),
    };
    walk.value(expected, actual)?;
    let fresh = std::mem::take(&mut walk.fresh);
    if let Some(bindings) = bindings {
        for (recorded, live) in fresh {
            bindings.bind(recorded, live);
        }
    }
    Ok(())
}

struct Walk<'a> {
    mode: Mode,
    bindings: Option<&'a Bindings>,
    /// Bindings made during this walk, kept only if it matches.
    fresh: Vec<(String, String)>,
    /// Pointer tokens down to the value being compared.
    path: Vec<String>,
}

impl Walk<'_> {
    fn differ(&self, expected: Option<&Value>, actual: Option<&Value>) -> Difference {
        Difference {
            path: self.pointer(),
            expected: expected.map_or_else(|| ABSENT.to_owned(), show),
            actual: actual.map_or_else(|| ABSENT.to_owned(), show),
        }
    }

    fn pointer(&self) -> String {
        self.path.iter().fold(String::new(), |mut out, token| {
            out.push('/');
            out.push_str(token);
            out
        })
    }

    fn value(&mut self, expected: &Value, actual: &Value) -> Result<(), Difference> {
        match (expected, actual) {
            (Value::Object(want), Value::Object(got)) => {
                for (key, want_value) in want {
                    self.path.push(escape(key));
                    match got.get(key) {
                        Some(got_value) => self.member(key, want_value, got_value)?,
                        None => return Err(self.differ(Some(want_value), None)),
                    }
                    self.path.pop();
                }
                if self.mode != Mode::Subset {
                    if let Some((key, got_value)) = got.iter().find(|(k, _)| !want.contains_key(*k))
                    {
                        self.path.push(escape(key));
                        return Err(self.differ(None, Some(got_value)));
                    }
                }
                Ok(())
            }
            (Value::Array(want), Value::Array(got)) => {
                for (index, (want_item, got_item)) in want.iter().zip(got).enumerate() {
                    self.path.push(index.to_string());
                    self.value(want_item, got_item)?;
                    self.path.pop();
                }
                if want.len() != got.len() {
                    let index = want.len().min(got.len());
                    self.path.push(index.to_string());
                    return Err(self.differ(want.get(index), got.get(index)));
                }
                Ok(())
            }
            (Value::Number(want), Value::Number(got)) => {
                if numbers_equal(want, got) {
                    Ok(())
                } else {
                    Err(self.differ(Some(expected), Some(actual)))
                }
            }
            (Value::String(want), Value::String(got))
                if self.mode == Mode::Recorded && is_timestamp(want) && is_timestamp(got) =>
            {
                Ok(())
            }
            _ if expected == actual => Ok(()),
            _ => Err(self.differ(Some(expected), Some(actual))),
        }
    }

    /// An object member: in [`Mode::Recorded`], the volatile keys.
    fn member(&mut self, key: &str, expected: &Value, actual: &Value) -> Result<(), Difference> {
        if self.mode != Mode::Recorded {
            return self.value(expected, actual);
        }
        if key == "request_id" {
            if let (Value::String(recorded), Value::String(live)) = (expected, actual) {
                return self.request_id(recorded, live, expected, actual);
            }
        }
        if is_id_key(key) || is_timestamp_key(key) {
            let same_kind = matches!(
                (expected, actual),
                (Value::String(_), Value::String(_))
                    | (Value::Number(_), Value::Number(_))
                    | (Value::Null, Value::Null)
            );
            return if same_kind {
                Ok(())
            } else {
                Err(self.differ(Some(expected), Some(actual)))
            };
        }
        self.value(expected, actual)
    }

    fn request_id(
        &mut self,
        recorded: &str,
        live: &str,
        expected: &Value,
        actual: &Value,
    ) -> Result<(), Difference> {
        let bound = self
            .fresh
            .iter()
            .find(|(r, _)| r == recorded)
            .map(|(_, l)| l.as_str())
            .or_else(|| self.bindings.and_then(|b| b.live(recorded)));
        match bound {
            Some(bound) if bound == live => Ok(()),
            Some(_) => Err(self.differ(Some(expected), Some(actual))),
            None => {
                // One live id for one recorded id: a program that reuses an
                // id for a second request does not pass as two requests.
                let taken = self
                    .fresh
                    .iter()
                    .find(|(_, l)| l == live)
                    .map(|(r, _)| r.as_str())
                    .or_else(|| self.bindings.and_then(|b| b.recorded(live)));
                if taken.is_some_and(|other| other != recorded) {
                    return Err(self.differ(Some(expected), Some(actual)));
                }
                // A new id of the program's is bound; so are the CLI's own
                // ids, which come back as recorded (a response to one of
                // its requests).
                if self.bindings.is_some() {
                    self.fresh.push((recorded.to_owned(), live.to_owned()));
                }
                Ok(())
            }
        }
    }
}

fn is_id_key(key: &str) -> bool {
    key == "uuid" || key == "session_id" || key.ends_with("_uuid") || key.ends_with("_session_id")
}

fn is_timestamp_key(key: &str) -> bool {
    key == "timestamp" || key.ends_with("_at")
}

/// `2026-11-22T00:58:05.073Z` and the like, and nothing more: a date,
/// `T`, hours and minutes, optional seconds and fraction, an optional `Z`
/// or `±HH:MM`. Text that only starts like one (a prompt beginning with a
/// date) is compared as text.
fn is_timestamp(text: &str) -> bool {
    let b = text.as_bytes();
    let digits = |at: usize, n: usize| {
        b.get(at..at + n)
            .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
    };
    let head = b.len() >= 16
        && digits(0, 4)
        && b[4] == b'-'
        && digits(5, 2)
        && b[7] == b'-'
        && digits(8, 2)
        && b[10] == b'T'
        && digits(11, 2)
        && b[13] == b':'
        && digits(14, 2);
    if !head {
        return false;
    }
    let mut at = 16;
    if b.get(at) == Some(&b':') && digits(at + 1, 2) {
        at += 3;
        if b.get(at) == Some(&b'.') {
            let fraction = b[at + 1..]
                .iter()
                .take_while(|d| d.is_ascii_digit())
                .count();
            if fraction == 0 {
                return false;
            }
            at += 1 + fraction;
        }
    }
    match b.get(at) {
        None => true,
        Some(b'Z') => at + 1 == b.len(),
        Some(b'+' | b'-') => {
            at + 6 == b.len() && digits(at + 1, 2) && b[at + 3] == b':' && digits(at + 4, 2)
        }
        Some(_) => false,
    }
}

fn numbers_equal(a: &serde_json::Number, b: &serde_json::Number) -> bool {
    if let (Some(a), Some(b)) = (a.as_i64(), b.as_i64()) {
        return a == b;
    }
    if let (Some(a), Some(b)) = (a.as_u64(), b.as_u64()) {
        return a == b;
    }
    match (a.as_f64(), b.as_f64()) {
        (Some(a), Some(b)) => a == b,
        _ => a == b,
    }
}

/// A JSON pointer token (RFC 6901: `~` as `~0`, `/` as `~1`).
fn escape(key: &str) -> String {
    if key.contains(['~', '/']) {
        key.replace('~', "~0").replace('/', "~1")
    } else {
        key.to_owned()
    }
}

/// Checks that the string at `pointer` in `actual` contains `text`.
pub(crate) fn contains_at(actual: &Value, pointer: &str, text: &str) -> Result<(), Difference> {
    let expected = || format!("a string containing {}", show_str(text));
    match actual.pointer(pointer) {
        Some(Value::String(found)) if found.contains(text) => Ok(()),
        found => Err(Difference {
            path: pointer.to_owned(),
            expected: expected(),
            actual: found.map_or_else(|| ABSENT.to_owned(), show),
        }),
    }
}

/// A value as compact JSON, cut to [`SHOWN_VALUE`] bytes.
pub(crate) fn show(value: &Value) -> String {
    truncate(value.to_string(), SHOWN_VALUE)
}

fn show_str(text: &str) -> String {
    show(&Value::String(text.to_owned()))
}

/// A value as compact JSON, cut to [`SHOWN_LINE`] bytes.
pub(crate) fn show_line(value: &Value) -> String {
    truncate(value.to_string(), SHOWN_LINE)
}

/// `text` cut to at most `max` bytes (at a character boundary), saying how
/// long it was when cut.
pub(crate) fn truncate(mut text: String, max: usize) -> String {
    if text.len() <= max {
        return text;
    }
    let total = text.len();
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text.push_str(&format!("… ({total} bytes in all)"));
    text
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn diff(expected: Value, actual: Value, mode: Mode) -> Option<Difference> {
        compare(&expected, &actual, mode, None).err()
    }

    #[test]
    fn subset_allows_more_keys_but_not_other_values() {
        let line = json!({"type": "user", "message": {"role": "user", "content": "hi"}, "x": 1});
        assert_eq!(
            diff(json!({"type": "user"}), line.clone(), Mode::Subset),
            None
        );
        let difference =
            diff(json!({"message": {"content": "bye"}}), line, Mode::Subset).expect("differs");
        assert_eq!(difference.path, "/message/content");
        assert_eq!(difference.expected, "\"bye\"");
        assert_eq!(difference.actual, "\"hi\"");
    }

    #[test]
    fn a_missing_key_is_shown_absent() {
        let difference =
            diff(json!({"a": {"b": 1}}), json!({"a": {}}), Mode::Subset).expect("differs");
        assert_eq!(difference.path, "/a/b");
        assert_eq!(difference.actual, ABSENT);
    }

    #[test]
    fn exact_refuses_an_extra_key() {
        let difference =
            diff(json!({"a": 1}), json!({"a": 1, "b": 2}), Mode::Exact).expect("differs");
        assert_eq!(difference.path, "/b");
        assert_eq!(difference.expected, ABSENT);
        assert_eq!(difference.actual, "2");
    }

    #[test]
    fn arrays_differ_at_the_first_element_or_at_the_shorter_length() {
        let d = diff(json!([1, 2, 3]), json!([1, 5, 3]), Mode::Subset).expect("differs");
        assert_eq!(d.path, "/1");
        let d = diff(json!([1, 2]), json!([1, 2, 3]), Mode::Subset).expect("differs");
        assert_eq!(
            (d.path.as_str(), d.expected.as_str(), d.actual.as_str()),
            ("/2", ABSENT, "3")
        );
    }

    #[test]
    fn numbers_compare_by_value() {
        assert_eq!(diff(json!(1), json!(1.0), Mode::Exact), None);
        assert!(diff(json!(1), json!(2), Mode::Exact).is_some());
    }

    #[test]
    fn pointer_tokens_are_escaped() {
        let d = diff(
            json!({"a/b": {"c~d": 1}}),
            json!({"a/b": {"c~d": 2}}),
            Mode::Subset,
        )
        .expect("differs");
        assert_eq!(d.path, "/a~1b/c~0d");
    }

    #[test]
    fn recorded_sets_ids_and_timestamps_aside() {
        let recorded = json!({"type": "user", "uuid": "aaaa", "session_id": "s1",
            "timestamp": "2026-11-22T00:58:05.073Z", "message": {"content": "hi"},
            "at": "2026-11-22T00:58:05.073Z"});
        let live = json!({"type": "user", "uuid": "bbbb", "session_id": "s2",
            "timestamp": "2027-01-01T10:00:00.000Z", "message": {"content": "hi"},
            "at": "2030-01-01T00:00:00Z"});
        assert_eq!(diff(recorded.clone(), live, Mode::Recorded), None);
        let other = json!({"type": "user", "uuid": "bbbb", "session_id": "s2",
            "timestamp": "2027-01-01T10:00:00.000Z", "message": {"content": "bye"},
            "at": "2030-01-01T00:00:00Z"});
        let d = diff(recorded, other, Mode::Recorded).expect("differs");
        assert_eq!(d.path, "/message/content");
    }

    #[test]
    fn recorded_binds_a_new_request_id_and_holds_it() {
        let mut bindings = Bindings::default();
        let recorded = json!({"type": "control_request", "request_id": "rec_1", "request": {"subtype": "interrupt"}});
        let live = json!({"type": "control_request", "request_id": "live_9", "request": {"subtype": "interrupt"}});
        compare(&recorded, &live, Mode::Recorded, Some(&mut bindings)).expect("matches");
        assert_eq!(bindings.live("rec_1"), Some("live_9"));
        // Once bound, the recorded id stands for that live id only.
        let again = json!({"type": "control_cancel_request", "request_id": "rec_1"});
        let wrong = json!({"type": "control_cancel_request", "request_id": "live_8"});
        let d = compare(&again, &wrong, Mode::Recorded, Some(&mut bindings)).expect_err("differs");
        assert_eq!(d.path, "/request_id");
        let right = json!({"type": "control_cancel_request", "request_id": "live_9"});
        compare(&again, &right, Mode::Recorded, Some(&mut bindings)).expect("matches");
    }

    #[test]
    fn a_failed_match_binds_nothing() {
        let mut bindings = Bindings::default();
        let recorded = json!({"request_id": "rec_1", "request": {"subtype": "interrupt"}});
        let live = json!({"request_id": "live_1", "request": {"subtype": "set_model"}});
        assert!(compare(&recorded, &live, Mode::Recorded, Some(&mut bindings)).is_err());
        assert!(bindings.is_empty());
    }

    #[test]
    fn a_cli_request_id_echoed_as_recorded_is_bound_to_itself() {
        let mut bindings = Bindings::default();
        let recorded = json!({"type": "control_response", "response": {"request_id": "cli-uuid-1", "subtype": "success"}});
        compare(
            &recorded,
            &recorded.clone(),
            Mode::Recorded,
            Some(&mut bindings),
        )
        .expect("matches");
        assert_eq!(bindings.live("cli-uuid-1"), Some("cli-uuid-1"));
        // Rewriting a line with it changes nothing, and allocates nothing.
        assert_eq!(bindings.rewrite(r#"{"request_id":"cli-uuid-1"}"#), None);
    }

    #[test]
    fn rewrite_replaces_bound_ids_only() {
        let mut bindings = Bindings::default();
        assert_eq!(bindings.rewrite(r#"{"request_id":"rec_1"}"#), None);
        bindings.bind("rec_1".into(), "live_9".into());
        let line = r#"{"type":"control_response","response":{"subtype":"success","request_id" : "rec_1","x":"rec_1"}}"#;
        assert_eq!(
            bindings.rewrite(line).as_deref(),
            Some(
                r#"{"type":"control_response","response":{"subtype":"success","request_id" : "live_9","x":"rec_1"}}"#
            )
        );
        assert_eq!(bindings.rewrite(r#"{"request_id":"other"}"#), None);
        assert_eq!(bindings.rewrite(r#"{"request_id":1,"request_id"#), None);
        assert_eq!(bindings.rewrite(r#"{"request_id":"rec_1"#), None);
    }

    #[test]
    fn contains_at_names_the_pointer() {
        let line = json!({"response": {"error": "no hook callback found"}});
        contains_at(&line, "/response/error", "hook callback").expect("contains");
        let d = contains_at(&line, "/response/error", "permission").expect_err("does not");
        assert_eq!(d.path, "/response/error");
        let d = contains_at(&line, "/response/nope", "x").expect_err("absent");
        assert_eq!(d.actual, ABSENT);
    }

    #[test]
    fn long_values_are_cut_at_a_character_boundary() {
        let long = "é".repeat(400);
        let shown = show(&json!(long));
        assert!(shown.len() < SHOWN_VALUE + 40, "{}", shown.len());
        assert!(shown.ends_with("bytes in all)"));
    }

    #[test]
    fn only_whole_timestamps_are_set_aside() {
        for stamp in [
            "2026-11-22T00:58:05.073Z",
            "2026-11-22T00:58:05Z",
            "2026-11-22T00:58",
            "2026-11-22T00:58:05+01:00",
        ] {
            assert!(is_timestamp(stamp), "{stamp}");
        }
        for text in [
            "2026-01-05T10:00 ship it",
            "2026-11-22T00:58:05.Z",
            "2026-11-22T00:58:05+01",
            "2026-11-22T00:58:05Zx",
        ] {
            assert!(!is_timestamp(text), "{text}");
        }
        let recorded = json!({"message": {"content": "2026-01-05T10:00 ship it"}});
        let live = json!({"message": {"content": "2026-01-05T10:00 DELETE PROD"}});
        let d = diff(recorded, live, Mode::Recorded).expect("a prompt is text");
        assert_eq!(d.path, "/message/content");
    }

    #[test]
    fn one_live_request_id_never_stands_for_two_recorded_ones() {
        let mut bindings = Bindings::default();
        let line = |id: &str| json!({"type": "control_request", "request_id": id});
        compare(
            &line("rec_a"),
            &line("same"),
            Mode::Recorded,
            Some(&mut bindings),
        )
        .expect("the first binds");
        let d = compare(
            &line("rec_b"),
            &line("same"),
            Mode::Recorded,
            Some(&mut bindings),
        )
        .expect_err("the same live id again");
        assert_eq!(d.path, "/request_id");
        // An id the program keeps as recorded is bound too: it cannot be
        // swapped for another later.
        compare(
            &line("req_9"),
            &line("req_9"),
            Mode::Recorded,
            Some(&mut bindings),
        )
        .expect("kept as recorded");
        compare(
            &line("req_9"),
            &line("other"),
            Mode::Recorded,
            Some(&mut bindings),
        )
        .expect_err("another live id for a bound one");
        // Identity bindings change nothing when lines are rewritten.
        assert_eq!(bindings.rewrite(r#"{"request_id":"req_9"}"#), None);
        assert_eq!(
            bindings.rewrite(r#"{"request_id":"rec_a"}"#).as_deref(),
            Some(r#"{"request_id":"same"}"#)
        );
    }
}
