//! Checking a tool's arguments against its JSON Schema before the tool
//! runs, as the Python SDK's in-process MCP server does (it refuses them
//! with `Input validation error: ...`, and the handler never sees them).
//!
//! The keywords a tool's input schema uses are checked, in the meaning
//! JSON Schema (drafts 7 to 2020-12) gives them: `type` (one or a list;
//! `integer` is a number without a fraction), `enum`, `const`,
//! `properties`, `required`, `additionalProperties`, `minProperties`,
//! `maxProperties`, `items` (one schema, or draft 7's list),
//! `prefixItems`, `minItems`, `maxItems`, `uniqueItems`, `minimum`,
//! `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`,
//! `minLength`, `maxLength` (in characters), `allOf`, `anyOf`, `oneOf`,
//! `not`, `if`/`then`/`else`, boolean schemas, and `$ref` to a place in
//! the same schema (`#`, `#/$defs/...`, `#/definitions/...`).
//!
//! Not checked, so never a reason to refuse: `pattern` and
//! `patternProperties` (a regular expression engine is not worth its
//! weight here; with `patternProperties` present, `additionalProperties`
//! is not checked either, since which names it covers cannot be told),
//! `format` (an annotation by default in JSON Schema too), `$ref` to
//! another document, and keywords this checker does not know.
//!
//! Its work is bounded whatever the value: checking stops below
//! [`MAX_DEPTH`] nested schemas (so a schema that refers to itself cannot
//! recurse without end), and after [`MAX_STEPS`] schemas visited (so a
//! value cannot make `anyOf` branches over a recursive schema take
//! exponential time); what was not reached is taken as fitting.

use std::cell::Cell;
use std::fmt;

use crate::model::Json;

/// How deep schemas may nest (counting `$ref` hops) before the rest is
/// taken as fitting.
pub const MAX_DEPTH: usize = 64;

/// How many schemas one check visits at most before the rest is taken as
/// fitting.
pub const MAX_STEPS: usize = 100_000;

/// Why a value does not fit a schema: the first thing found wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaMismatch {
    /// Where in the value, as a JSON Pointer (`""` for the value itself).
    pub path: String,
    /// What is wrong there.
    pub message: String,
}

impl fmt::Display for SchemaMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{} (at {})", self.message, self.path)
        }
    }
}

impl std::error::Error for SchemaMismatch {}

/// Checks `value` against `schema` (see the module docs for what is
/// checked). Never panics, whatever either holds.
///
/// ```
/// use claude_proto::json_schema::check;
/// use serde_json::json;
/// let schema = json!({"type": "object", "required": ["text"],
///     "properties": {"text": {"type": "string"}}});
/// assert!(check(&schema, &json!({"text": "hi"})).is_ok());
/// let wrong = check(&schema, &json!({"text": 5})).unwrap_err();
/// assert_eq!(wrong.to_string(), "5 is not of type \"string\" (at /text)");
/// ```
pub fn check(schema: &Json, value: &Json) -> Result<(), SchemaMismatch> {
    let checker = Checker {
        root: schema,
        steps: Cell::new(0),
    };
    checker.check(schema, value, &mut String::new(), 0)
}

struct Checker<'a> {
    root: &'a Json,
    steps: Cell<usize>,
}

fn mismatch(path: &str, message: String) -> Result<(), SchemaMismatch> {
    Err(SchemaMismatch {
        path: path.to_owned(),
        message,
    })
}

/// `value` shortened for a message.
fn shown(value: &Json) -> String {
    let text = value.to_string();
    match text.char_indices().nth(80) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text,
    }
}

fn is_type(value: &Json, name: &str) -> bool {
    match name {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => match value {
            Json::Number(n) => {
                n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
            }
            _ => false,
        },
        // A type name no draft has: nothing can be of it.
        _ => false,
    }
}

/// JSON equality, with numbers equal by value (`1` is `1.0`), as JSON
/// Schema compares them.
fn same(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(x), Some(y)) => x == y,
            _ => x.as_f64() == y.as_f64(),
        },
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn push_segment(path: &mut String, segment: &str) -> usize {
    let before = path.len();
    path.push('/');
    path.push_str(&segment.replace('~', "~0").replace('/', "~1"));
    before
}

impl Checker<'_> {
    fn check(
        &self,
        schema: &Json,
        value: &Json,
        path: &mut String,
        depth: usize,
    ) -> Result<(), SchemaMismatch> {
        let steps = self.steps.get() + 1;
        self.steps.set(steps);
        if depth >= MAX_DEPTH || steps > MAX_STEPS {
            return Ok(());
        }
        let schema = match schema {
            Json::Bool(true) => return Ok(()),
            Json::Bool(false) => {
                return mismatch(path, format!("{} is not allowed here", shown(value)));
            }
            Json::Object(schema) => schema,
            // Not a schema: nothing to hold the value to.
            _ => return Ok(()),
        };
        if let Some(Json::String(reference)) = schema.get("$ref") {
            if let Some(target) = self.resolve(reference) {
                self.check(target, value, path, depth + 1)?;
            }
        }
        if let Some(types) = schema.get("type") {
            let names: Vec<&str> = match types {
                Json::String(one) => vec![one.as_str()],
                Json::Array(many) => many.iter().filter_map(Json::as_str).collect(),
                _ => Vec::new(),
            };
            if !names.is_empty() && !names.iter().any(|name| is_type(value, name)) {
                let expected = match names.as_slice() {
                    [one] => format!("{one:?}"),
                    many => format!("any of {many:?}"),
                };
                return mismatch(path, format!("{} is not of type {expected}", shown(value)));
            }
        }
        if let Some(Json::Array(allowed)) = schema.get("enum") {
            if !allowed.iter().any(|a| same(a, value)) {
                return mismatch(
                    path,
                    format!(
                        "{} is not one of {}",
                        shown(value),
                        shown(&Json::Array(allowed.clone()))
                    ),
                );
            }
        }
        if let Some(expected) = schema.get("const") {
            if !same(expected, value) {
                return mismatch(path, format!("{} was expected", shown(expected)));
            }
        }
        match value {
            Json::Object(object) => self.check_object(schema, object, path, depth)?,
            Json::Array(items) => self.check_array(schema, items, path, depth)?,
            Json::String(text) => check_string(schema, text, path)?,
            Json::Number(number) => check_number(schema, number, path)?,
            _ => {}
        }
        self.check_combinations(schema, value, path, depth)
    }

    /// The schema a local `$ref` names, if it names one here.
    fn resolve(&self, reference: &str) -> Option<&Json> {
        let pointer = reference.strip_prefix('#')?;
        let pointer = percent_decoded(pointer);
        self.root.pointer(&pointer)
    }

    fn check_object(
        &self,
        schema: &serde_json::Map<String, Json>,
        object: &serde_json::Map<String, Json>,
        path: &mut String,
        depth: usize,
    ) -> Result<(), SchemaMismatch> {
        if let Some(Json::Array(required)) = schema.get("required") {
            for name in required.iter().filter_map(Json::as_str) {
                if !object.contains_key(name) {
                    return mismatch(path, format!("{name:?} is a required property"));
                }
            }
        }
        let count = object.len() as u64;
        if let Some(min) = schema.get("minProperties").and_then(Json::as_u64) {
            if count < min {
                return mismatch(path, format!("has fewer than {min} properties"));
            }
        }
        if let Some(max) = schema.get("maxProperties").and_then(Json::as_u64) {
            if count > max {
                return mismatch(path, format!("has more than {max} properties"));
            }
        }
        let properties = schema.get("properties").and_then(Json::as_object);
        for (name, value) in object {
            let Some(property) = properties.and_then(|p| p.get(name)) else {
                continue;
            };
            let before = push_segment(path, name);
            let checked = self.check(property, value, path, depth + 1);
            path.truncate(before);
            checked?;
        }
        // Which names `patternProperties` covers needs its regular
        // expressions: with it present, extra names are not judged.
        if schema.contains_key("patternProperties") {
            return Ok(());
        }
        let Some(additional) = schema.get("additionalProperties") else {
            return Ok(());
        };
        let extra = object
            .iter()
            .filter(|(name, _)| !properties.is_some_and(|p| p.contains_key(*name)));
        for (name, value) in extra {
            if additional == &Json::Bool(false) {
                return mismatch(
                    path,
                    format!("additional properties are not allowed ({name:?} was unexpected)"),
                );
            }
            let before = push_segment(path, name);
            let checked = self.check(additional, value, path, depth + 1);
            path.truncate(before);
            checked?;
        }
        Ok(())
    }

    fn check_array(
        &self,
        schema: &serde_json::Map<String, Json>,
        items: &[Json],
        path: &mut String,
        depth: usize,
    ) -> Result<(), SchemaMismatch> {
        let count = items.len() as u64;
        if let Some(min) = schema.get("minItems").and_then(Json::as_u64) {
            if count < min {
                return mismatch(path, format!("has fewer than {min} items"));
            }
        }
        if let Some(max) = schema.get("maxItems").and_then(Json::as_u64) {
            if count > max {
                return mismatch(path, format!("has more than {max} items"));
            }
        }
        if schema.get("uniqueItems") == Some(&Json::Bool(true)) {
            for (i, item) in items.iter().enumerate() {
                if items[..i].iter().any(|earlier| same(earlier, item)) {
                    return mismatch(
                        path,
                        format!("has non-unique items ({} twice)", shown(item)),
                    );
                }
            }
        }
        // Draft 2020-12's `prefixItems` then `items`; draft 7's `items` as
        // a list, then `additionalItems`.
        let (prefix, rest) = match (schema.get("prefixItems"), schema.get("items")) {
            (Some(Json::Array(prefix)), rest) => (prefix.as_slice(), rest),
            (_, Some(Json::Array(prefix))) => (prefix.as_slice(), schema.get("additionalItems")),
            (_, rest) => (&[][..], rest),
        };
        for (index, item) in items.iter().enumerate() {
            let Some(item_schema) = prefix.get(index).or(rest) else {
                continue;
            };
            let before = push_segment(path, &index.to_string());
            let checked = self.check(item_schema, item, path, depth + 1);
            path.truncate(before);
            checked?;
        }
        Ok(())
    }

    fn check_combinations(
        &self,
        schema: &serde_json::Map<String, Json>,
        value: &Json,
        path: &mut String,
        depth: usize,
    ) -> Result<(), SchemaMismatch> {
        let fits = |s: &Json, path: &mut String| self.check(s, value, path, depth + 1).is_ok();
        if let Some(Json::Array(all)) = schema.get("allOf") {
            for s in all {
                self.check(s, value, path, depth + 1)?;
            }
        }
        if let Some(Json::Array(any)) = schema.get("anyOf") {
            if !any.iter().any(|s| fits(s, path)) {
                return mismatch(
                    path,
                    format!("{} fits none of the anyOf schemas", shown(value)),
                );
            }
        }
        if let Some(Json::Array(one)) = schema.get("oneOf") {
            let fitting = one.iter().filter(|s| fits(s, path)).count();
            if fitting != 1 {
                return mismatch(
                    path,
                    format!(
                        "{} fits {fitting} of the oneOf schemas, not exactly one",
                        shown(value)
                    ),
                );
            }
        }
        if let Some(not) = schema.get("not") {
            if fits(not, path) {
                return mismatch(
                    path,
                    format!("{} must not fit the `not` schema", shown(value)),
                );
            }
        }
        if let Some(condition) = schema.get("if") {
            let branch = if fits(condition, path) {
                "then"
            } else {
                "else"
            };
            if let Some(then) = schema.get(branch) {
                self.check(then, value, path, depth + 1)?;
            }
        }
        Ok(())
    }
}

fn check_string(
    schema: &serde_json::Map<String, Json>,
    text: &str,
    path: &str,
) -> Result<(), SchemaMismatch> {
    let length = text.chars().count() as u64;
    if let Some(min) = schema.get("minLength").and_then(Json::as_u64) {
        if length < min {
            return mismatch(
                path,
                format!("{:?} is shorter than {min} characters", shorten(text)),
            );
        }
    }
    if let Some(max) = schema.get("maxLength").and_then(Json::as_u64) {
        if length > max {
            return mismatch(
                path,
                format!("{:?} is longer than {max} characters", shorten(text)),
            );
        }
    }
    Ok(())
}

fn shorten(text: &str) -> String {
    shown(&Json::String(text.to_owned()))
        .trim_matches('"')
        .to_owned()
}

fn check_number(
    schema: &serde_json::Map<String, Json>,
    number: &serde_json::Number,
    path: &str,
) -> Result<(), SchemaMismatch> {
    let Some(value) = number.as_f64() else {
        return Ok(());
    };
    let bound = |key: &str| schema.get(key).and_then(Json::as_f64);
    if let Some(min) = bound("minimum") {
        if value < min {
            return mismatch(path, format!("{number} is less than the minimum of {min}"));
        }
    }
    if let Some(max) = bound("maximum") {
        if value > max {
            return mismatch(
                path,
                format!("{number} is greater than the maximum of {max}"),
            );
        }
    }
    if let Some(min) = bound("exclusiveMinimum") {
        if value <= min {
            return mismatch(path, format!("{number} is not greater than {min}"));
        }
    }
    if let Some(max) = bound("exclusiveMaximum") {
        if value >= max {
            return mismatch(path, format!("{number} is not less than {max}"));
        }
    }
    if let Some(step) = bound("multipleOf").filter(|s| *s > 0.0) {
        let quotient = value / step;
        if quotient.is_finite() && (quotient - quotient.round()).abs() > 1e-9 {
            return mismatch(path, format!("{number} is not a multiple of {step}"));
        }
    }
    Ok(())
}

/// A `$ref` fragment with its `%xx` escapes decoded (a malformed escape
/// is kept as it is).
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fails(schema: Json, value: Json) -> String {
        match check(&schema, &value) {
            Ok(()) => panic!("{value} fits {schema}"),
            Err(e) => e.to_string(),
        }
    }

    fn fits(schema: Json, value: Json) {
        if let Err(e) = check(&schema, &value) {
            panic!("{value} does not fit {schema}: {e}");
        }
    }

    #[test]
    fn types_required_and_properties() {
        let schema = json!({"type":"object","required":["a"],
            "properties":{"a":{"type":"integer"},"b":{"type":["string","null"]}}});
        fits(schema.clone(), json!({"a": 1}));
        fits(schema.clone(), json!({"a": 1.0, "b": null, "c": [1]}));
        assert_eq!(
            fails(schema.clone(), json!({})),
            "\"a\" is a required property"
        );
        assert_eq!(
            fails(schema.clone(), json!({"a": 1.5})),
            "1.5 is not of type \"integer\" (at /a)"
        );
        assert_eq!(
            fails(schema.clone(), json!({"a": 1, "b": 2})),
            "2 is not of type any of [\"string\", \"null\"] (at /b)"
        );
        assert_eq!(fails(schema, json!([])), "[] is not of type \"object\"");
    }

    #[test]
    fn additional_properties_enum_const_and_bounds() {
        let closed = json!({"type":"object","properties":{"x":{}},"additionalProperties":false});
        assert_eq!(
            fails(closed, json!({"x":1,"y":2})),
            "additional properties are not allowed (\"y\" was unexpected)"
        );
        let typed_rest = json!({"additionalProperties":{"type":"number"}});
        assert!(fails(typed_rest, json!({"y":"no"})).ends_with("(at /y)"));
        fits(
            json!({"patternProperties":{"^x":{}},"additionalProperties":false}),
            json!({"y":1}),
        );
        fits(json!({"enum":["a",1]}), json!(1.0));
        assert!(fails(json!({"enum":["a","b"]}), json!("c")).contains("is not one of"));
        fits(json!({"const":{"k":[1,2]}}), json!({"k":[1.0,2]}));
        assert!(fails(json!({"minimum":1,"maximum":3}), json!(4)).contains("maximum"));
        assert!(fails(json!({"exclusiveMinimum":0}), json!(0)).contains("not greater"));
        fits(json!({"multipleOf":0.1}), json!(0.3));
        assert!(fails(json!({"multipleOf":2}), json!(3)).contains("multiple"));
        assert!(fails(json!({"minLength":2}), json!("é")).contains("shorter"));
        fits(json!({"maxLength":1}), json!("é"));
        assert!(fails(json!({"maxProperties":1}), json!({"a":1,"b":2})).contains("more than"));
    }

    #[test]
    fn arrays() {
        let schema =
            json!({"type":"array","items":{"type":"string"},"minItems":1,"uniqueItems":true});
        fits(schema.clone(), json!(["a", "b"]));
        assert_eq!(
            fails(schema.clone(), json!(["a", 2])),
            "2 is not of type \"string\" (at /1)"
        );
        assert!(fails(schema.clone(), json!([])).contains("fewer than 1"));
        assert!(fails(schema, json!(["a", "a"])).contains("non-unique"));
        let tuple = json!({"prefixItems":[{"type":"string"}],"items":{"type":"number"}});
        fits(tuple.clone(), json!(["a", 1, 2]));
        assert!(fails(tuple, json!(["a", "b"])).ends_with("(at /1)"));
        let draft7 = json!({"items":[{"type":"string"}],"additionalItems":false});
        assert!(fails(draft7, json!(["a", 1])).contains("not allowed"));
    }

    #[test]
    fn combinations_and_references() {
        let schema = json!({
            "$defs": {"pos": {"type":"number","minimum":0}},
            "type":"object",
            "properties": {
                "n": {"$ref": "#/$defs/pos"},
                "either": {"anyOf":[{"type":"string"},{"type":"number"}]},
                "one": {"oneOf":[{"type":"integer"},{"minimum":10}]},
                "never": {"not": {"type":"string"}},
                "cond": {"if":{"type":"string"},"then":{"minLength":2},"else":{"type":"number"}},
            }
        });
        fits(
            schema.clone(),
            json!({"n": 1, "either": "x", "one": 3, "never": 1, "cond": "ab"}),
        );
        assert!(fails(schema.clone(), json!({"n": -1})).contains("minimum"));
        assert!(fails(schema.clone(), json!({"either": true})).contains("anyOf"));
        assert!(fails(schema.clone(), json!({"one": 12})).contains("exactly one"));
        assert!(fails(schema.clone(), json!({"never": "s"})).contains("not"));
        assert!(fails(schema.clone(), json!({"cond": "a"})).contains("shorter"));
        assert!(fails(schema, json!({"cond": true})).contains("number"));
        fits(json!(true), json!({"anything": 1}));
        assert!(fails(json!({"properties":{"x":false}}), json!({"x":1})).contains("not allowed"));
    }

    /// Nothing it cannot judge is a refusal; a schema that refers to itself
    /// ends; nothing panics.
    #[test]
    fn what_cannot_be_judged_fits_and_nothing_loops() {
        fits(json!({"pattern":"^a$","format":"email"}), json!("b"));
        fits(json!({"$ref":"other.json#/x"}), json!(1));
        fits(
            json!({"type": 7, "required": "x", "properties": []}),
            json!({}),
        );
        assert!(fails(json!({"type":"giraffe"}), json!(1)).contains("giraffe"));
        let looping = json!({"$ref": "#"});
        fits(looping, json!({"a": 1}));
        let deep =
            json!({"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"});
        fits(deep, json!(1));
        assert_eq!(percent_decoded("/a%25b/%7e%2"), "/a%b/~%2");
    }

    /// A recursive schema with two `anyOf` branches over a value 20 levels
    /// deep (within `MAX_DEPTH`, three schemas a level) that fails only at
    /// its leaf takes 2^20 branches and more; the step budget ends it.
    #[test]
    fn a_value_cannot_make_the_check_exponential() {
        // Each branch recurses first and fails only at the leaf (its extra
        // key), so both branches run at every level.
        let schema = json!({"anyOf": [
            {"properties": {"a": {"$ref": "#"}}, "additionalProperties": false},
            {"type": "object", "properties": {"a": {"$ref": "#"}}, "additionalProperties": false},
        ]});
        let mut value = json!({"leaf": true});
        for _ in 0..20 {
            value = json!({"a": value});
        }
        // Reached at all is what is asserted: the budget is what ends it.
        let _ = check(&schema, &value);
    }
}
