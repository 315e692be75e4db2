//! The checker's messages against Python's: each text below is what the
//! Python `jsonschema` library (4.26.0) raises from `validate` for the
//! schema and the value beside it (its `ValidationError.message`), which
//! the Python SDK (claude-agent-sdk 0.2.189) sends to the model as
//! `Input validation error: <message>`; `None` where it raises nothing.
//! Keys are in the order serde_json keeps them (sorted), the order the
//! schema reaches Python in when serialized from here. To add a case, run
//! `jsonschema.validate(instance=json.loads(value), schema=json.loads(schema))`
//! and copy `e.message`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use claude_proto::dispatch::{McpRoute, route_mcp};
use claude_proto::model::Json;
use claude_proto::model::incoming::McpMessage;
use claude_proto_adapter::handlers::{Blocking, McpServer};
use claude_proto_adapter::json_schema::{InputSchema, check};
use serde_json::json;

fn differences(cases: &[(&str, &str, Option<&str>)]) -> Vec<String> {
    let mut wrong = Vec::new();
    for (schema, value, python) in cases {
        let schema: Json = serde_json::from_str(schema).unwrap();
        let value: Json = serde_json::from_str(value).unwrap();
        let ours = check(&schema, &value).err().map(|m| m.message);
        if ours.as_deref() != *python {
            wrong.push(format!(
                "{schema} | {value}\n  python: {python:?}\n  ours:   {ours:?}"
            ));
        }
    }
    wrong
}

/// Every keyword a tool schema uses, refused (or not) in Python's words:
/// `required`, `type`, `enum`, `const`, `pattern`, the lengths, bounds and
/// counts, `additionalProperties` with and without `patternProperties`,
/// `uniqueItems`, `items`, `contains`, the combinators, `$ref`, draft 7's
/// `items` list, `additionalItems` and `dependencies`, and values written
/// as Python's `repr` writes them.
#[test]
fn every_keyword_words_its_fault_as_python_does() {
    let wrong = differences(EACH_KEYWORD);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Of several faults, the one Python's `best_match` picks: the one
/// nearest the top of the value, a branch's own under `anyOf` when one
/// stands out, the `anyOf` itself when none does.
#[test]
fn of_several_faults_the_one_python_reports_is_reported() {
    let wrong = differences(SEVERAL_FAULTS);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A tool of an in-process server is answered as the Python SDK's server
/// answers it (texts taken from that server: its `tools/call` results),
/// before the handler runs.
#[test]
fn an_in_process_tool_refuses_arguments_in_python_s_words() {
    let schema = json!({"type": "object", "required": ["a", "b"], "properties": {
        "a": {"type": "integer"}, "b": {"type": "integer"},
        "id": {"type": "string", "pattern": "^t-"}}});
    let server = McpServer::<Blocking>::new("calc", "1.0.0").tool_untyped(
        "add",
        "Adds",
        schema,
        |_: Json| -> Result<&str, claude_proto::dispatch::HandlerError> { panic!("not reached") },
    );
    let servers = [server.spec().clone()];
    let call = |arguments: Json| {
        let message: McpMessage = serde_json::from_value(json!({"server_name": "calc",
            "message": {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "add", "arguments": arguments}}}))
        .unwrap();
        route_mcp(&servers, &message)
    };
    for (arguments, python) in [
        (
            json!({"a": "two", "b": 3}),
            "Input validation error: 'two' is not of type 'integer'",
        ),
        (
            json!({"a": 2}),
            "Input validation error: 'b' is a required property",
        ),
        (
            json!({"a": 1, "b": 2, "id": "x-1"}),
            "Input validation error: 'x-1' does not match '^t-'",
        ),
    ] {
        let McpRoute::Respond(answer) = call(arguments.clone()) else {
            panic!("{arguments} reached the tool");
        };
        let answer = serde_json::to_value(answer).unwrap();
        let result = &answer["mcp_response"]["result"];
        assert_eq!(result["isError"], true, "{answer}");
        assert_eq!(result["content"][0]["text"], python, "{answer}");
    }
    let fits = call(json!({"a": 1, "b": 2, "id": "t-1"}));
    assert!(matches!(fits, McpRoute::CallTool { .. }), "{fits:?}");
}

/// A compiled schema checks many values with its patterns compiled once,
/// and its input check gives the message alone.
#[test]
fn a_compiled_schema_and_its_input_check_say_the_same() {
    let schema = InputSchema::new(json!({"patternProperties": {"^n_": {"type": "number"}},
        "additionalProperties": false}));
    assert!(schema.check(&json!({"n_a": 1, "n_b": 2.5})).is_ok());
    let wrong = schema.check(&json!({"n_a": "1"})).unwrap_err();
    assert_eq!(
        (wrong.path.as_str(), wrong.message.as_str()),
        ("/n_a", "'1' is not of type 'number'")
    );
    let check = schema.into_input_check();
    assert_eq!(
        check.check(&json!({"x": 1, "y": 2})),
        Err("'x', 'y' do not match any of the regexes: '^n_'".to_owned())
    );
}

const EACH_KEYWORD: &[(&str, &str, Option<&str>)] = &[
    (
        r#"{"properties": {"a": {"type": "string"}}, "required": ["a", "b"], "type": "object"}"#,
        r#"{"a": "x"}"#,
        Some(r#"'b' is a required property"#),
    ),
    (
        r#"{"properties": {"a": {"type": "string"}}, "type": "object"}"#,
        r#"{"a": 5}"#,
        Some(r#"5 is not of type 'string'"#),
    ),
    (
        r#"{"properties": {"a": {"type": "string"}}, "type": "object"}"#,
        r#"{"a": 5.5}"#,
        Some(r#"5.5 is not of type 'string'"#),
    ),
    (
        r#"{"properties": {"a": {"type": "string"}}, "type": "object"}"#,
        r#"{"a": true}"#,
        Some(r#"True is not of type 'string'"#),
    ),
    (
        r#"{"properties": {"a": {"type": "string"}}, "type": "object"}"#,
        r#"{"a": null}"#,
        Some(r#"None is not of type 'string'"#),
    ),
    (
        r#"{"properties": {"a": {"type": "string"}}, "type": "object"}"#,
        r#"{"a": [1, "x", {"j": false, "k": null}]}"#,
        Some(r#"[1, 'x', {'j': False, 'k': None}] is not of type 'string'"#),
    ),
    (
        r#"{"properties": {"a": {"type": ["string", "null"]}}, "type": "object"}"#,
        r#"{"a": 5}"#,
        Some(r#"5 is not of type 'string', 'null'"#),
    ),
    (
        r#"{"properties": {"a": {"type": "integer"}}, "type": "object"}"#,
        r#"{"a": 1.5}"#,
        Some(r#"1.5 is not of type 'integer'"#),
    ),
    (
        r#"{"properties": {"a": {"type": "integer"}}, "type": "object"}"#,
        r#"{"a": 1.0}"#,
        None,
    ),
    (
        r#"{"properties": {"a": {"type": "number"}}, "type": "object"}"#,
        r#"{"a": true}"#,
        Some(r#"True is not of type 'number'"#),
    ),
    (
        r#"{"type": "object"}"#,
        r#"[]"#,
        Some(r#"[] is not of type 'object'"#),
    ),
    (
        r#"{"type": "object"}"#,
        r#""text""#,
        Some(r#"'text' is not of type 'object'"#),
    ),
    (
        r#"{"properties": {"a": {"enum": ["x", "y", 1]}}}"#,
        r#"{"a": "z"}"#,
        Some(r#"'z' is not one of ['x', 'y', 1]"#),
    ),
    (
        r#"{"properties": {"a": {"enum": ["x", "y", 1]}}}"#,
        r#"{"a": 1.0}"#,
        None,
    ),
    (
        r#"{"properties": {"a": {"enum": [1, null]}}}"#,
        r#"{"a": true}"#,
        Some(r#"True is not one of [1, None]"#),
    ),
    (
        r#"{"properties": {"a": {"const": "x"}}}"#,
        r#"{"a": "z"}"#,
        Some(r#"'x' was expected"#),
    ),
    (
        r#"{"properties": {"a": {"const": {"k": [1, 2]}}}}"#,
        r#"{"a": {"k": [1.0, 2]}}"#,
        None,
    ),
    (
        r#"{"properties": {"a": {"const": false}}}"#,
        r#"{"a": 0}"#,
        Some(r#"False was expected"#),
    ),
    (
        r#"{"properties": {"a": {"pattern": "^x"}}}"#,
        r#"{"a": "abc"}"#,
        Some(r#"'abc' does not match '^x'"#),
    ),
    (
        r#"{"properties": {"a": {"pattern": "b"}}}"#,
        r#"{"a": "abc"}"#,
        None,
    ),
    (
        r#"{"properties": {"a": {"pattern": "^\\d{3}-\\d{4}$"}}}"#,
        r#"{"a": "555-12345"}"#,
        Some(r#"'555-12345' does not match '^\\d{3}-\\d{4}$'"#),
    ),
    (
        r#"{"properties": {"a": {"pattern": "^\\d+$"}}}"#,
        r#"{"a": "\u0661\u0662"}"#,
        None,
    ),
    (
        r#"{"properties": {"a": {"pattern": "^\\w+$"}}}"#,
        r#"{"a": "\u00e9"}"#,
        None,
    ),
    (
        r#"{"properties": {"a": {"pattern": "^[a-z]+$"}}}"#,
        r#"{"a": "it's"}"#,
        Some(r#""it's" does not match '^[a-z]+$'"#),
    ),
    (
        r#"{"properties": {"a": {"pattern": "(?i)^abc$"}}}"#,
        r#"{"a": "ABC"}"#,
        None,
    ),
    (
        r#"{"properties": {"a": {"pattern": "^x"}}}"#,
        r#"{"a": 5}"#,
        None,
    ),
    (
        r#"{"properties": {"a": {"minLength": 1}}}"#,
        r#"{"a": ""}"#,
        Some(r#"'' should be non-empty"#),
    ),
    (
        r#"{"properties": {"a": {"minLength": 3}}}"#,
        r#"{"a": "ab"}"#,
        Some(r#"'ab' is too short"#),
    ),
    (
        r#"{"properties": {"a": {"minLength": 2}}}"#,
        r#"{"a": "\u00e9"}"#,
        Some(r#"'é' is too short"#),
    ),
    (
        r#"{"properties": {"a": {"maxLength": 1}}}"#,
        r#"{"a": "\u00e9"}"#,
        None,
    ),
    (
        r#"{"properties": {"a": {"maxLength": 0}}}"#,
        r#"{"a": "ab"}"#,
        Some(r#"'ab' is expected to be empty"#),
    ),
    (
        r#"{"properties": {"a": {"maxLength": 1}}}"#,
        r#"{"a": "ab"}"#,
        Some(r#"'ab' is too long"#),
    ),
    (
        r#"{"properties": {"a": {"minimum": 3}}}"#,
        r#"{"a": 2}"#,
        Some(r#"2 is less than the minimum of 3"#),
    ),
    (
        r#"{"properties": {"a": {"minimum": 3.5}}}"#,
        r#"{"a": 2}"#,
        Some(r#"2 is less than the minimum of 3.5"#),
    ),
    (
        r#"{"properties": {"a": {"maximum": 3}}}"#,
        r#"{"a": 4.0}"#,
        Some(r#"4.0 is greater than the maximum of 3"#),
    ),
    (
        r#"{"properties": {"a": {"maximum": 3}}}"#,
        r#"{"a": 3}"#,
        None,
    ),
    (
        r#"{"properties": {"a": {"exclusiveMinimum": 3}}}"#,
        r#"{"a": 3}"#,
        Some(r#"3 is less than or equal to the minimum of 3"#),
    ),
    (
        r#"{"properties": {"a": {"exclusiveMaximum": 3}}}"#,
        r#"{"a": 3}"#,
        Some(r#"3 is greater than or equal to the maximum of 3"#),
    ),
    (
        r#"{"properties": {"a": {"exclusiveMaximum": 3}}}"#,
        r#"{"a": 2.999}"#,
        None,
    ),
    (
        r#"{"properties": {"a": {"multipleOf": 2}}}"#,
        r#"{"a": 3}"#,
        Some(r#"3 is not a multiple of 2"#),
    ),
    (
        r#"{"properties": {"a": {"multipleOf": 2}}}"#,
        r#"{"a": 4.0}"#,
        None,
    ),
    (
        r#"{"properties": {"a": {"multipleOf": 2}}}"#,
        r#"{"a": 4.5}"#,
        Some(r#"4.5 is not a multiple of 2"#),
    ),
    (
        r#"{"properties": {"a": {"multipleOf": 0.5}}}"#,
        r#"{"a": 0.3}"#,
        Some(r#"0.3 is not a multiple of 0.5"#),
    ),
    (
        r#"{"properties": {"a": {"multipleOf": 0.1}}}"#,
        r#"{"a": 0.3}"#,
        Some(r#"0.3 is not a multiple of 0.1"#),
    ),
    (
        r#"{"properties": {"a": {"multipleOf": 0.5}}}"#,
        r#"{"a": 1.5}"#,
        None,
    ),
    (
        r#"{"properties": {"a": {"minimum": 0}}}"#,
        r#"{"a": -1e-07}"#,
        Some(r#"-1e-07 is less than the minimum of 0"#),
    ),
    (
        r#"{"properties": {"a": {"maximum": 1e+16}}}"#,
        r#"{"a": 2e+16}"#,
        Some(r#"2e+16 is greater than the maximum of 1e+16"#),
    ),
    (
        r#"{"additionalProperties": false, "properties": {"a": {}}, "type": "object"}"#,
        r#"{"a": 1, "b": 2}"#,
        Some(r#"Additional properties are not allowed ('b' was unexpected)"#),
    ),
    (
        r#"{"additionalProperties": false, "properties": {"a": {}}, "type": "object"}"#,
        r#"{"a": 1, "b": 2, "c": 3}"#,
        Some(r#"Additional properties are not allowed ('b', 'c' were unexpected)"#),
    ),
    (
        r#"{"additionalProperties": false, "patternProperties": {"^x": {}}, "type": "object"}"#,
        r#"{"b": 2, "xa": 1}"#,
        Some(r#"'b' does not match any of the regexes: '^x'"#),
    ),
    (
        r#"{"additionalProperties": false, "patternProperties": {"^x": {}, "^y": {}}, "type": "object"}"#,
        r#"{"b": 2, "c": 3, "xa": 1}"#,
        Some(r#"'b', 'c' do not match any of the regexes: '^x', '^y'"#),
    ),
    (
        r#"{"additionalProperties": false, "patternProperties": {"^x": {}}, "properties": {"b": {}}, "type": "object"}"#,
        r#"{"b": 2, "xa": 1, "yy": 3}"#,
        Some(r#"'yy' does not match any of the regexes: '^x'"#),
    ),
    (
        r#"{"patternProperties": {"^x": {"type": "integer"}}, "type": "object"}"#,
        r#"{"xa": "s", "y": "s"}"#,
        Some(r#"'s' is not of type 'integer'"#),
    ),
    (
        r#"{"patternProperties": {"^b": {"minimum": 5}, "a": {"type": "integer"}}, "type": "object"}"#,
        r#"{"bar": 3}"#,
        Some(r#"3 is less than the minimum of 5"#),
    ),
    (
        r#"{"patternProperties": {"^x": {"type": "integer"}}, "type": "object"}"#,
        r#"{"ab": "s", "xa": 1}"#,
        None,
    ),
    (
        r#"{"additionalProperties": {"type": "integer"}, "type": "object"}"#,
        r#"{"xa": "s"}"#,
        Some(r#"'s' is not of type 'integer'"#),
    ),
    (
        r#"{"additionalProperties": {"type": "integer"}, "properties": {"a": {}}, "type": "object"}"#,
        r#"{"a": "s", "b": "t"}"#,
        Some(r#"'t' is not of type 'integer'"#),
    ),
    (
        r#"{"minProperties": 1}"#,
        r#"{}"#,
        Some(r#"{} should be non-empty"#),
    ),
    (
        r#"{"minProperties": 2}"#,
        r#"{"a": 1}"#,
        Some(r#"{'a': 1} does not have enough properties"#),
    ),
    (
        r#"{"maxProperties": 0}"#,
        r#"{"a": 1}"#,
        Some(r#"{'a': 1} is expected to be empty"#),
    ),
    (
        r#"{"maxProperties": 1}"#,
        r#"{"a": 1, "b": 2}"#,
        Some(r#"{'a': 1, 'b': 2} has too many properties"#),
    ),
    (
        r#"{"propertyNames": {"pattern": "^x"}}"#,
        r#"{"a": 1}"#,
        Some(r#"'a' does not match '^x'"#),
    ),
    (
        r#"{"propertyNames": {"maxLength": 2}}"#,
        r#"{"abc": 1}"#,
        Some(r#"'abc' is too long"#),
    ),
    (
        r#"{"dependentRequired": {"a": ["b"]}}"#,
        r#"{"a": 1}"#,
        Some(r#"'b' is a dependency of 'a'"#),
    ),
    (
        r#"{"dependentSchemas": {"a": {"required": ["c"]}}}"#,
        r#"{"a": 1}"#,
        Some(r#"'c' is a required property"#),
    ),
    (
        r#"{"properties": {"a": {"minItems": 1}}}"#,
        r#"{"a": []}"#,
        Some(r#"[] should be non-empty"#),
    ),
    (
        r#"{"properties": {"a": {"minItems": 2}}}"#,
        r#"{"a": [1]}"#,
        Some(r#"[1] is too short"#),
    ),
    (
        r#"{"properties": {"a": {"maxItems": 0}}}"#,
        r#"{"a": [1]}"#,
        Some(r#"[1] is expected to be empty"#),
    ),
    (
        r#"{"properties": {"a": {"maxItems": 1}}}"#,
        r#"{"a": [1, 2]}"#,
        Some(r#"[1, 2] is too long"#),
    ),
    (
        r#"{"properties": {"a": {"uniqueItems": true}}}"#,
        r#"{"a": [1, 1.0]}"#,
        Some(r#"[1, 1.0] has non-unique elements"#),
    ),
    (
        r#"{"properties": {"a": {"uniqueItems": true}}}"#,
        r#"{"a": [1, true]}"#,
        None,
    ),
    (
        r#"{"properties": {"a": {"uniqueItems": true}}}"#,
        r#"{"a": [{"a": 1, "b": [2]}, {"a": 1, "b": [2.0]}]}"#,
        Some(r#"[{'a': 1, 'b': [2]}, {'a': 1, 'b': [2.0]}] has non-unique elements"#),
    ),
    (
        r#"{"properties": {"a": {"items": {"type": "string"}}}}"#,
        r#"{"a": ["x", 2]}"#,
        Some(r#"2 is not of type 'string'"#),
    ),
    (
        r#"{"properties": {"a": {"items": false, "prefixItems": [{"type": "string"}]}}}"#,
        r#"{"a": ["x", 2]}"#,
        Some(r#"Expected at most 1 item but found 1 extra: 2"#),
    ),
    (
        r#"{"properties": {"a": {"items": false, "prefixItems": [{"type": "string"}]}}}"#,
        r#"{"a": ["x", 2, 3]}"#,
        Some(r#"Expected at most 1 item but found 2 extra: [2, 3]"#),
    ),
    (
        r#"{"properties": {"a": {"items": false, "prefixItems": [{"type": "string"}, {}]}}}"#,
        r#"{"a": ["x", 2, 3]}"#,
        Some(r#"Expected at most 2 items but found 1 extra: 3"#),
    ),
    (
        r#"{"properties": {"a": {"items": false}}}"#,
        r#"{"a": [2]}"#,
        Some(r#"Expected at most 0 items but found 1 extra: 2"#),
    ),
    (
        r#"{"properties": {"a": {"items": {"type": "number"}, "prefixItems": [{"type": "string"}]}}}"#,
        r#"{"a": ["x", "y"]}"#,
        Some(r#"'y' is not of type 'number'"#),
    ),
    (
        r#"{"properties": {"a": {"contains": {"type": "string"}}}}"#,
        r#"{"a": [1]}"#,
        Some(r#"[1] does not contain items matching the given schema"#),
    ),
    (
        r#"{"properties": {"a": {"contains": {"type": "string"}, "minContains": 2}}}"#,
        r#"{"a": [1, "x"]}"#,
        Some(r#"Too few items match the given schema (expected at least 2 but only 1 matched)"#),
    ),
    (
        r#"{"properties": {"a": {"contains": {"type": "string"}, "maxContains": 1}}}"#,
        r#"{"a": ["y", "x"]}"#,
        Some(r#"Too many items match the given schema (expected at most 1)"#),
    ),
    (
        r#"{"properties": {"a": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}}"#,
        r#"{"a": 1.5}"#,
        Some(r#"1.5 is not valid under any of the given schemas"#),
    ),
    (
        r#"{"properties": {"a": {"anyOf": [{"minLength": 3, "type": "string"}, {"type": "integer"}]}}}"#,
        r#"{"a": "x"}"#,
        Some(r#"'x' is too short"#),
    ),
    (
        r#"{"properties": {"a": {"anyOf": [{"required": ["k"], "type": "object"}, {"required": ["j"], "type": "object"}]}}}"#,
        r#"{"a": {}}"#,
        Some(r#"{} is not valid under any of the given schemas"#),
    ),
    (
        r#"{"properties": {"a": {"anyOf": [{"properties": {"k": {"type": "string"}}}, {"type": "integer"}]}}}"#,
        r#"{"a": {"k": 1}}"#,
        Some(r#"1 is not of type 'string'"#),
    ),
    (
        r#"{"properties": {"a": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}}"#,
        r#"{"a": 1.5}"#,
        Some(r#"1.5 is not valid under any of the given schemas"#),
    ),
    (
        r#"{"properties": {"a": {"oneOf": [{"type": "number"}, {"type": "integer"}]}}}"#,
        r#"{"a": 1}"#,
        Some(r#"1 is valid under each of {'type': 'integer'}, {'type': 'number'}"#),
    ),
    (
        r#"{"properties": {"a": {"oneOf": [{"type": "number"}, {"type": "integer"}, {"minimum": 0}]}}}"#,
        r#"{"a": 1}"#,
        Some(r#"1 is valid under each of {'type': 'integer'}, {'minimum': 0}, {'type': 'number'}"#),
    ),
    (
        r#"{"properties": {"a": {"not": {"type": "string"}}}}"#,
        r#"{"a": "x"}"#,
        Some(r#"'x' should not be valid under {'type': 'string'}"#),
    ),
    (
        r#"{"properties": {"a": {"allOf": [{"type": "string"}, {"minLength": 2}]}}}"#,
        r#"{"a": "x"}"#,
        Some(r#"'x' is too short"#),
    ),
    (
        r#"{"properties": {"a": false}}"#,
        r#"{"a": 1}"#,
        Some(r#"False schema does not allow 1"#),
    ),
    (
        r#"{"else": {"type": "number"}, "if": {"type": "string"}, "then": {"minLength": 2}}"#,
        r#""a""#,
        Some(r#"'a' is too short"#),
    ),
    (
        r#"{"else": {"type": "number"}, "if": {"type": "string"}, "then": {"minLength": 2}}"#,
        r#"true"#,
        Some(r#"True is not of type 'number'"#),
    ),
    (
        r##"{"$defs": {"p": {"type": "integer"}}, "properties": {"a": {"$ref": "#/$defs/p"}}}"##,
        r#"{"a": "s"}"#,
        Some(r#"'s' is not of type 'integer'"#),
    ),
    (
        r#"{"properties": {"b": {"type": "string"}}, "required": ["a"], "type": "object"}"#,
        r#"{"b": 5}"#,
        Some(r#"'a' is a required property"#),
    ),
    (
        r#"{"properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "type": "object"}"#,
        r#"{"a": 5, "b": 6}"#,
        Some(r#"6 is not of type 'string'"#),
    ),
    (
        r#"{"minLength": 5, "pattern": "^x", "type": "string"}"#,
        r#""ab""#,
        Some(r#"'ab' is too short"#),
    ),
    (
        r#"{"required": ["a", "b"], "type": "object"}"#,
        r#"{}"#,
        Some(r#"'a' is a required property"#),
    ),
    (
        r#"{"properties": {"a": {"enum": ["x"], "type": "string"}}}"#,
        r#"{"a": 5}"#,
        Some(r#"5 is not one of ['x']"#),
    ),
    (
        r#"{"properties": {"a": {"properties": {"b": {"minimum": 3}}}, "c": {"type": "string"}}}"#,
        r#"{"a": {"b": 1}, "c": 1}"#,
        Some(r#"1 is not of type 'string'"#),
    ),
    (
        r#"{"properties": {"a": {"type": "integer"}}}"#,
        r#"{"a": "it's \"q\""}"#,
        Some(r#"'it\'s "q"' is not of type 'integer'"#),
    ),
    (
        r#"{"properties": {"a": {"type": "integer"}}}"#,
        r#"{"a": "it's"}"#,
        Some(r#""it's" is not of type 'integer'"#),
    ),
    (
        r#"{"properties": {"a": {"type": "integer"}}}"#,
        r#"{"a": "say \"hi\""}"#,
        Some(r#"'say "hi"' is not of type 'integer'"#),
    ),
    (
        r#"{"properties": {"a": {"type": "integer"}}}"#,
        r#"{"a": "tab\there\u00e9\u0001\\ \n\r\u007f\u00a0\u200b\ud83d\ude00"}"#,
        Some(r#"'tab\thereé\x01\\ \n\r\x7f\xa0\u200b😀' is not of type 'integer'"#),
    ),
    (
        r#"{"properties": {"a": {"type": "integer"}}}"#,
        r#"{"a": [1e+16, 0.1, 1e-05, 1000000000000000.0, 0.0001, -0.0, 123.0, 2.5e+300, 1e+22]}"#,
        Some(
            r#"[1e+16, 0.1, 1e-05, 1000000000000000.0, 0.0001, -0.0, 123.0, 2.5e+300, 1e+22] is not of type 'integer'"#,
        ),
    ),
    (
        r#"{"properties": {"a": {"type": "string"}}}"#,
        r#"{"a": {"k": {"n": [null, true]}}}"#,
        Some(r#"{'k': {'n': [None, True]}} is not of type 'string'"#),
    ),
    (
        r#"{"required": ["it's"]}"#,
        r#"{}"#,
        Some(r#""it's" is a required property"#),
    ),
    (
        r#"{"enum": ["a'b", "c"]}"#,
        r#""d""#,
        Some(r#"'d' is not one of ["a'b", 'c']"#),
    ),
    (
        r#"{"properties": {"a": {"pattern": "^\\d+$"}}}"#,
        r#"{"a": "x"}"#,
        Some(r#"'x' does not match '^\\d+$'"#),
    ),
    (
        r#"{"$schema": "http://json-schema.org/draft-07/schema#", "additionalItems": false, "items": [{"type": "string"}]}"#,
        r#"["a", 1]"#,
        Some(r#"Additional items are not allowed (1 was unexpected)"#),
    ),
    (
        r#"{"$schema": "http://json-schema.org/draft-07/schema#", "additionalItems": false, "items": [{"type": "string"}]}"#,
        r#"["a", 1, 2]"#,
        Some(r#"Additional items are not allowed (1, 2 were unexpected)"#),
    ),
    (
        r#"{"$schema": "http://json-schema.org/draft-07/schema#", "additionalItems": {"type": "string"}, "items": [{"type": "string"}]}"#,
        r#"["a", 1]"#,
        Some(r#"1 is not of type 'string'"#),
    ),
    (
        r#"{"$schema": "http://json-schema.org/draft-07/schema#", "contains": {"type": "string"}}"#,
        r#"[1, 2]"#,
        Some(r#"None of [1, 2] are valid under the given schema"#),
    ),
    (
        r#"{"$schema": "http://json-schema.org/draft-07/schema#", "dependencies": {"a": ["b"]}}"#,
        r#"{"a": 1}"#,
        Some(r#"'b' is a dependency of 'a'"#),
    ),
    (
        r##"{"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"p": {"type": "integer"}}, "properties": {"a": {"$ref": "#/definitions/p", "type": "string"}}}"##,
        r#"{"a": "s"}"#,
        Some(r#"'s' is not of type 'integer'"#),
    ),
    (
        r##"{"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"p": {"type": "integer"}}, "properties": {"a": {"$ref": "#/definitions/p", "type": "string"}}}"##,
        r#"{"a": 1}"#,
        None,
    ),
];

const SEVERAL_FAULTS: &[(&str, &str, Option<&str>)] = &[
    (
        r#"{"anyOf": [{"properties": {"a": {"properties": {"b": {"type": "string"}}}}}, {"required": ["z"]}]}"#,
        r#"{"a": {"b": 1}}"#,
        Some(r#"1 is not of type 'string'"#),
    ),
    (
        r#"{"anyOf": [{"type": "string"}, {"required": ["z"], "type": "object"}]}"#,
        r#"{"a": 1}"#,
        Some(r#"'z' is a required property"#),
    ),
    (
        r#"{"anyOf": [{"required": ["y"], "type": "object"}, {"required": ["z"], "type": "object"}]}"#,
        r#"{"a": 1}"#,
        Some(r#"{'a': 1} is not valid under any of the given schemas"#),
    ),
    (
        r#"{"oneOf": [{"properties": {"a": {"enum": [2]}}, "type": "object"}, {"type": "array"}]}"#,
        r#"{"a": 1}"#,
        Some(r#"1 is not one of [2]"#),
    ),
    (
        r#"{"properties": {"x": {"anyOf": [{"minimum": 5}, {"maximum": 1}]}}, "required": ["q"]}"#,
        r#"{"x": 3}"#,
        Some(r#"'q' is a required property"#),
    ),
    (
        r#"{"properties": {"x": {"anyOf": [{"minimum": 5}, {"maximum": 1}]}}, "type": "object"}"#,
        r#"{"x": 3}"#,
        Some(r#"3 is not valid under any of the given schemas"#),
    ),
    (
        r#"{"allOf": [{"required": ["a"]}, {"required": ["b"]}]}"#,
        r#"{}"#,
        Some(r#"'a' is a required property"#),
    ),
    (
        r#"{"properties": {"l": {"items": {"type": "integer"}}}}"#,
        r#"{"l": [1, "a", "b"]}"#,
        Some(r#"'b' is not of type 'integer'"#),
    ),
    (
        r#"{"properties": {"l": {"items": {"anyOf": [{"type": "integer"}, {"type": "null"}]}}}}"#,
        r#"{"l": ["a"]}"#,
        Some(r#"'a' is not valid under any of the given schemas"#),
    ),
    (
        r#"{"anyOf": [{"anyOf": [{"type": "string"}, {"type": "null"}]}, {"type": "integer"}]}"#,
        r#"1.5"#,
        Some(r#"1.5 is not valid under any of the given schemas"#),
    ),
    (
        r#"{"anyOf": [{"minLength": 4, "type": "string"}, {"type": "integer"}]}"#,
        r#""ab""#,
        Some(r#"'ab' is too short"#),
    ),
    (
        r#"{"anyOf": [{"minimum": 4, "type": "integer"}, {"minLength": 4, "type": "string"}]}"#,
        r#""ab""#,
        Some(r#"'ab' is too short"#),
    ),
    (
        r#"{"oneOf": [{"minimum": 4, "type": "integer"}, {"minLength": 4, "type": "string"}]}"#,
        r#""ab""#,
        Some(r#"'ab' is too short"#),
    ),
    (
        r#"{"not": {"enum": [1, 2]}}"#,
        r#"2"#,
        Some(r#"2 should not be valid under {'enum': [1, 2]}"#),
    ),
    (
        r#"{"not": true}"#,
        r#"2"#,
        Some(r#"2 should not be valid under True"#),
    ),
    (r#"false"#, r#"2"#, Some(r#"False schema does not allow 2"#)),
    (
        r#"{"items": {"not": {}}}"#,
        r#"[1]"#,
        Some(r#"1 should not be valid under {}"#),
    ),
    (
        r#"{"properties": {"a": {"const": null}}}"#,
        r#"{"a": 0}"#,
        Some(r#"None was expected"#),
    ),
    (
        r#"{"minimum": 3, "type": ["integer", "string"]}"#,
        r#"1"#,
        Some(r#"1 is less than the minimum of 3"#),
    ),
    (
        r#"{"propertyNames": {"enum": ["a"]}}"#,
        r#"{"b": 1, "c": 2}"#,
        Some(r#"'b' is not one of ['a']"#),
    ),
    (
        r#"{"dependentRequired": {"a": ["b", "c"]}}"#,
        r#"{"a": 1}"#,
        Some(r#"'b' is a dependency of 'a'"#),
    ),
    (
        r#"{"required": ["b", "a"]}"#,
        r#"{}"#,
        Some(r#"'b' is a required property"#),
    ),
    (
        r#"{"properties": {"a": {"type": "string"}, "z": {"type": "string"}}}"#,
        r#"{"a": 1, "z": 2}"#,
        Some(r#"2 is not of type 'string'"#),
    ),
    (
        r#"{"properties": {"a": {"type": "string"}, "n": {"properties": {"z": {"type": "string"}}}}}"#,
        r#"{"a": 1, "n": {"z": 2}}"#,
        Some(r#"1 is not of type 'string'"#),
    ),
    (
        r#"{"items": {"type": "string"}, "uniqueItems": true}"#,
        r#"["a", "a", 1]"#,
        Some(r#"['a', 'a', 1] has non-unique elements"#),
    ),
];
