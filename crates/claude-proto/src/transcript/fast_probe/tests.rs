use proptest::prelude::*;

use super::*;

/// Lines as the CLI writes them: every one is read fast, as serde reads it.
#[test]
fn the_clis_lines_are_read_fast_and_alike() {
    let lines = [
        r#"{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/p","sessionId":"s","version":"2.1.330","gitBranch":"main","type":"user","message":{"role":"user","content":"Step 0: read the files"},"uuid":"u1","timestamp":"2025-06-15T15:06:41.622Z"}"#,
        r#"{"parentUuid":"u1","isSidechain":false,"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/src/f0.rs"}}],"stop_reason":"tool_use","usage":{"input_tokens":10,"output_tokens":20}},"uuid":"u2","timestamp":"t","requestId":"req_1"}"#,
        r#"{"parentUuid":"u2","isSidechain":false,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"k\t\"btop\u00e9 é\nx"}]},"uuid":"u3","timestamp":"t","sourceToolAssistantUUID":"u2","toolUseResult":{"stdout":"a\\b","n":[1,2.5e3,-0]}}"#,
        r#"{"type":"progress","uuid":"u4","parentUuid":"u3","isMeta":true,"agentId":"a1","teamName":"t","data":{"deep":[[[{}]]]}}"#,
        r#"{"type":"summary","summary":"A title","leafUuid":"u3"}"#,
        r#"  { "type" : "system" , "uuid" : "u5" , "message" : null }  "#,
        r#"{}"#,
    ];
    for line in lines {
        let fast = probe(line.as_bytes()).unwrap_or_else(|| panic!("not read fast: {line}"));
        assert_eq!(Some(fast), Probe::slowly(line.as_bytes()), "{line}");
    }
}

/// What the fast path leaves to serde: each is read the slow way, or
/// found not to be JSON, never misread.
#[test]
fn what_the_fast_path_does_not_take_goes_the_slow_way() {
    let slow_only = [
        // A number where a field is read: serde checks its range.
        r#"{"type":"user","isSidechain":1}"#,
        r#"{"type":"user","isSidechain":1e999}"#,
        r#"{"message":1e999}"#,
        r#"{"message":{"content":[1e999]}}"#,
        // An escaped key may spell a field.
        r#"{"\u0074ype":"user","uuid":"u"}"#,
        r#"{"message":{"\u0069d":"m"}}"#,
        // An escaped string where a field is read.
        r#"{"type":"us\u0065r"}"#,
        r#"{"uuid":"\ud800"}"#,
        // A nested value where a field is read.
        r#"{"agentId":{"a":1}}"#,
        r#"{"uuid":["u"]}"#,
        // Not an object, or not JSON.
        r#"["type","user"]"#,
        r#"{"type":"user""#,
        r#"{"type":"user"} x"#,
        "{\"type\":\"us\u{1}er\"}",
    ];
    for line in slow_only {
        assert_eq!(probe(line.as_bytes()), None, "read fast: {line}");
        check_probe(line.as_bytes());
    }
    let bad_utf8 = b"{\"type\":\"user\",\"x\":\"\xff\"}";
    assert_eq!(probe(bad_utf8), None);
}

/// Keys given twice take their last value, as serde's visitors read them.
#[test]
fn a_key_given_twice_takes_its_last_value() {
    let line = br#"{"type":"user","type":"assistant","message":{"id":"a","content":[{"type":"tool_use","id":"t"}]},"message":{"content":"x"},"uuid":"u","uuid":null}"#;
    let fast = probe(line).expect("read fast");
    assert_eq!(fast.kind.as_deref(), Some("assistant"));
    assert_eq!(fast.uuid, None);
    assert_eq!(fast.message_id, None);
    assert!(fast.blocks.is_empty());
    assert_eq!(Some(fast), Probe::slowly(line));
}

/// Content of every shape: an array's `null` elements are no block, its
/// other non-objects empty blocks; an object or a string is no block.
#[test]
fn content_of_every_shape_reads_as_serde_reads_it() {
    for content in [
        r#"[null,"text",true,[1,[2]],{"type":"tool_result","tool_use_id":"x","content":[{"a":"b"}]},{}]"#,
        r#"{"type":"tool_use","id":"x"}"#,
        r#""plain""#,
        "null",
        "[]",
        "false",
    ] {
        let line = format!(r#"{{"type":"user","uuid":"u","message":{{"content":{content}}}}}"#);
        let fast = probe(line.as_bytes()).unwrap_or_else(|| panic!("not read fast: {line}"));
        assert_eq!(Some(fast), Probe::slowly(line.as_bytes()), "{line}");
    }
}

/// Deep lines go the slow way, where serde_json's recursion limit decides.
#[test]
fn deep_lines_go_the_slow_way() {
    let deep = |n: usize| {
        format!(
            r#"{{"type":"user","x":{}{}}}"#,
            "[".repeat(n),
            "]".repeat(n)
        )
    };
    assert!(probe(deep(10).as_bytes()).is_some());
    assert_eq!(probe(deep(MAX_NESTING).as_bytes()), None);
    check_probe(deep(200).as_bytes());
}

/// A value of one of the shapes the probe meets: plain and escaped
/// strings, literals, numbers of every form, arrays and objects.
fn value() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_owned()),
        Just("true".to_owned()),
        Just("false".to_owned()),
        Just("0".to_owned()),
        Just("-1.5e3".to_owned()),
        Just("1e999".to_owned()),
        Just(r#""""#.to_owned()),
        Just(r#""user""#.to_owned()),
        Just(r#""tool_result""#.to_owned()),
        Just(r#""tool_use""#.to_owned()),
        Just(r#""a\"b\\c\n\u00e9""#.to_owned()),
        Just(r#""\ud83d""#.to_owned()),
        Just(r#""é ✓""#.to_owned()),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| format!("[{}]", v.join(","))),
            prop::collection::vec((key(), inner), 0..4).prop_map(|entries| {
                let entries: Vec<String> = entries
                    .into_iter()
                    .map(|(k, v)| format!("{k}:{v}"))
                    .collect();
                format!("{{{}}}", entries.join(","))
            }),
        ]
    })
}

/// A key the probe reads at some level, or another, sometimes escaped.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(r#""type""#),
        Just(r#""uuid""#),
        Just(r#""parentUuid""#),
        Just(r#""isSidechain""#),
        Just(r#""isMeta""#),
        Just(r#""teamName""#),
        Just(r#""agentId""#),
        Just(r#""timestamp""#),
        Just(r#""sourceToolAssistantUUID""#),
        Just(r#""message""#),
        Just(r#""content""#),
        Just(r#""id""#),
        Just(r#""tool_use_id""#),
        Just(r#""other""#),
        Just(r#""\u0074ype""#),
    ]
    .prop_map(str::to_owned)
}

proptest! {
    /// Whatever the line, when the fast path answers, serde_json reads
    /// the same probe from it.
    #[test]
    fn the_fast_path_agrees_with_serde(
        entries in prop::collection::vec((key(), value()), 0..8),
        spaced in any::<bool>(),
    ) {
        let separator = if spaced { " , " } else { "," };
        let body: Vec<String> = entries.into_iter().map(|(k, v)| format!("{k}:{v}")).collect();
        let line = format!("{{{}}}", body.join(separator));
        check_probe(line.as_bytes());
    }

    /// Arbitrary bytes: never a panic, and never an answer serde would
    /// not give.
    #[test]
    fn arbitrary_bytes_never_disagree(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        check_probe(&bytes);
    }
}
