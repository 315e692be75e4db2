use proptest::prelude::*;

use super::*;
use crate::json_scan::special_bytes;

/// Every line of every recorded transcript, both directions.
fn recorded_lines() -> Vec<String> {
    let mut lines = Vec::new();
    for text in crate::test_fixtures::RECORDED {
        for record in text.lines() {
            let record: serde_json::Value = serde_json::from_str(record).expect("a record");
            if let Some(line) = record["line"].as_str() {
                lines.push(line.to_owned());
            }
        }
    }
    assert!(lines.len() > 300, "only {} recorded lines", lines.len());
    lines
}

#[test]
fn every_recorded_plain_line_is_routed_fast_and_alike() {
    let mut fast = 0;
    for line in recorded_lines() {
        check_route(line.as_bytes());
        let slow = route_slowly(line.as_bytes()).expect("a recorded line reads");
        let control = slow
            .0
            .as_deref()
            .is_some_and(|ty| ty.starts_with("control_"));
        if !control {
            assert!(
                route(line.as_bytes()).is_some(),
                "took the slow way: {line}"
            );
            fast += 1;
        }
    }
    assert!(fast > 200, "only {fast} plain lines");
}

#[test]
fn reads_the_session_id_as_serde_json_does() {
    let mut read = 0;
    for line in recorded_lines() {
        let Some(fast) = top_level_string(line.as_bytes(), b"session_id") else {
            continue;
        };
        let value: serde_json::Value = serde_json::from_str(&line).expect("a recorded line");
        assert_eq!(fast, value["session_id"].as_str(), "{line}");
        read += usize::from(fast.is_some());
    }
    assert!(read > 100, "only {read} session ids");
    for line in [
        br#"{"session_id":"a","session_id":"b"}"#.as_slice(),
        br#"{"session_id":"\u0061"}"#,
        br#"{"session_id":1}"#,
        br#"{"session_\u0069d":"a"}"#,
    ] {
        assert_eq!(top_level_string(line, b"session_id"), None);
    }
    assert_eq!(
        top_level_string(br#"{"x":{"session_id":"a"}}"#, b"session_id"),
        Some(None)
    );
}

#[test]
fn reads_the_routing_fields_in_any_order() {
    let line =
        br#" {"session_id":"s","x":[1,{"type":"no"},[],{}],"subtype":"init","type":"system"} "#;
    let route = route(line).expect("fast");
    assert_eq!(route.ty, Some("system"));
    assert_eq!(route.subtype, Some("init"));
    assert_eq!(super::route(b"{}"), Some(Route::default()));
}

#[test]
fn hands_the_unusual_to_the_slow_path() {
    let slow: &[&[u8]] = &[
        // Escaped keys and routing strings.
        br#"{"typ\u0065":"x"}"#,
        br#"{"type":"a\"b"}"#,
        // Routing fields that are not strings, or twice.
        br#"{"type":5}"#,
        br#"{"type":null}"#,
        br#"{"type":"a","type":"b"}"#,
        br#"{"request":1,"request":2}"#,
        // Not an object.
        br#"[1]"#,
        br#""x""#,
        b"",
        b"\x0c{}",
        // Deeper than the scan keeps.
        &[
            b"{\"a\":".as_slice(),
            &[b'['; MAX_DEPTH + 1],
            &[b']'; MAX_DEPTH + 1],
            b"}",
        ]
        .concat(),
    ];
    for line in slow {
        assert_eq!(route(line), None, "{}", String::from_utf8_lossy(line));
        check_route(line);
    }
    let deep = [
        b"{\"a\":".as_slice(),
        &[b'['; MAX_DEPTH],
        &[b']'; MAX_DEPTH],
        b"}",
    ]
    .concat();
    assert!(route(&deep).is_some());
}

#[test]
fn refuses_what_serde_json_refuses() {
    let invalid: &[&[u8]] = &[
        br#"{"a":1,}"#,
        br#"{"a":[1,]}"#,
        br#"{"a":01}"#,
        br#"{"a":1.}"#,
        br#"{"a":1e}"#,
        br#"{"a":-}"#,
        br#"{"a":+1}"#,
        br#"{"a":.5}"#,
        br#"{"a":tru}"#,
        br#"{"a":"\x"}"#,
        br#"{"a":"\u12g4"}"#,
        br#"{"a":"\u12"}"#,
        br#"{"a" 1}"#,
        br#"{"a":1 "b":2}"#,
        br#"{"a":{"b"}}"#,
        br#"{"a":[}"#,
        br#"{"a":{]}"#,
        br#"{"a":1}}"#,
        br#"{"a":1} x"#,
        br#"{"a":1"#,
        br#"{"a":"tab	here"}"#,
        b"{\"a\":\"\xff\"}",
        b"{\"a\":\"\xe2\x82\"}",
        b"{\"a\":\"\xed\xa0\x80\"}",
        b"{\"a\":1}\xc3\xa9",
        b"{\"\xc3\":1}",
    ];
    for line in invalid {
        assert_eq!(route(line), None, "{}", String::from_utf8_lossy(line));
        assert_eq!(
            route_slowly(line),
            None,
            "{}",
            String::from_utf8_lossy(line)
        );
    }
}

#[test]
fn takes_what_serde_json_takes() {
    let valid: &[&[u8]] = &[
        br#"{"a":-0.5e+10,"b":[true,false,null,0,-1,2.25E-3],"c":{"d":{}}}"#,
        br#"{"a":"\"\\\/\b\f\n\r\t\u00e9\ud800"}"#,
        "{\"a\":\"caf\u{e9} \u{1f600} \u{4e2d}\u{6587}\",\"type\":\"\u{e9}t\u{e9}\"}".as_bytes(),
        b"\t{ \"type\" :\r\n\"user\" , \"subtype\":\"x\" }\n",
        br#"{"request":{"subtype":"x"},"response":[1],"request_id":"r"}"#,
    ];
    for line in valid {
        assert!(route(line).is_some(), "{}", String::from_utf8_lossy(line));
        check_route(line);
    }
}

/// Lines near valid ones: recorded lines with bytes changed, cut, doubled
/// or spliced with JSON's special characters.
fn mutated_line() -> impl Strategy<Value = Vec<u8>> {
    let lines: Vec<Vec<u8>> = recorded_lines()
        .into_iter()
        .map(String::into_bytes)
        .collect();
    let special: &[&[u8]] = &[
        b"\"",
        b"\\",
        b"\\u",
        b"\\ud800",
        b"{",
        b"}",
        b"[",
        b"]",
        b",",
        b":",
        b"0",
        b"-",
        b"e",
        b".",
        b"\x00",
        b"\x1f",
        b"\x0c",
        b" ",
        b"\xc3",
        b"\xa9",
        b"\xe2\x82\xac",
        b"\xf0\x9f",
        b"\xed\xa0\x80",
        b"\"type\":\"x\",",
        b"\"subtype\":1,",
        b"true",
        b"nul",
    ];
    let special: Vec<Vec<u8>> = special.iter().map(|s| s.to_vec()).collect();
    (
        0..lines.len(),
        prop::collection::vec(
            (any::<prop::sample::Index>(), 0..special.len(), 0..4u8),
            0..4,
        ),
    )
        .prop_map(move |(which, edits)| {
            let mut line = lines[which].clone();
            for (at, insert, how) in edits {
                let at = at.index(line.len() + 1);
                match how {
                    0 => {
                        line.splice(at..at, special[insert].iter().copied());
                    }
                    1 if at < line.len() => {
                        line.remove(at);
                    }
                    2 => line.truncate(at),
                    _ if at < line.len() => line[at] = special[insert][0],
                    _ => {}
                }
            }
            line
        })
}

/// Small JSON-like documents, valid or nearly so.
fn generated_line() -> impl Strategy<Value = Vec<u8>> {
    let token = prop::sample::select(vec![
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        "\"type\"",
        "\"subtype\"",
        "\"request\"",
        "\"a\"",
        "\"s\\n\"",
        "\"\u{e9}\"",
        "1",
        "-0.5",
        "1e3",
        "true",
        "null",
        " ",
        "\"control_request\"",
    ]);
    prop::collection::vec(token, 0..24).prop_map(|tokens| {
        let mut line = b"{".to_vec();
        line.extend(tokens.concat().bytes());
        line
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn agrees_with_serde_on_mutated_lines(line in mutated_line()) {
        check_route(&line);
    }

    #[test]
    fn agrees_with_serde_on_generated_lines(line in generated_line()) {
        check_route(&line);
    }

    #[test]
    fn checks_utf8_as_std_does(text in prop::collection::vec(any::<u8>(), 0..12)) {
        let text: Vec<u8> = text.into_iter().filter(|b| *b >= 0x20 && *b != b'"' && *b != b'\\').collect();
        let line = [br#"{"a":""#.as_slice(), &text, br#""}"#].concat();
        prop_assert_eq!(route(&line).is_some(), std::str::from_utf8(&text).is_ok());
    }

    #[test]
    fn marks_the_first_special_byte_exactly(bytes in any::<[u8; 8]>()) {
        let first = bytes
            .iter()
            .position(|b| *b == b'"' || *b == b'\\' || *b < 0x20 || *b >= 0x80);
        let marks = special_bytes(u64::from_le_bytes(bytes));
        let marked = (marks != 0).then(|| (marks.trailing_zeros() / 8) as usize);
        prop_assert_eq!(marked, first);
    }

    #[test]
    fn agrees_with_serde_on_any_bytes(line in prop::collection::vec(any::<u8>(), 0..64)) {
        check_route(&line);
    }
}
