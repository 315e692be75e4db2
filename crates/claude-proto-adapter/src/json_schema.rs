//! Checking a tool's arguments against its JSON Schema before the tool
//! runs, as the Python SDK's in-process MCP server checks them: it calls
//! the Python `jsonschema` library's `validate`, and refuses arguments
//! that do not fit with the tool error `Input validation error:
//! <message>`; the handler never sees them. Every tool of an
//! [`McpServer`](crate::handlers::McpServer) is checked so (see
//! [`InputSchema::into_input_check`] and
//! [`claude_proto::dispatch::route_mcp`]).
//!
//! What `validate` refuses is refused, with its message, word for word:
//! values are quoted as Python writes them (`'b' is a required property`,
//! `5 is not of type 'string'`, `None is not one of ['a', 'b']`), and of
//! several things wrong the one reported is the one `validate` reports
//! (its `best_match`: the one nearest the top of the value; under `anyOf`
//! and `oneOf`, the deepest of a branch's, when one stands out).
//!
//! Checked, in the meaning JSON Schema draft 2020-12 gives them (draft 7's
//! when the schema's `$schema` names draft 7, 6 or 4: `$ref` then hides
//! its siblings, `items` may be a list with `additionalItems`, and
//! `dependencies` is read): `type`, `enum`, `const`, `properties`,
//! `patternProperties`, `additionalProperties`, `propertyNames`,
//! `required`, `minProperties`, `maxProperties`, `dependentRequired`,
//! `dependentSchemas`, `items`, `prefixItems`, `contains`, `minContains`,
//! `maxContains`, `minItems`, `maxItems`, `uniqueItems`, `pattern`,
//! `minLength`, `maxLength` (in characters), `minimum`, `maximum`,
//! `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`, `allOf`,
//! `anyOf`, `oneOf`, `not`, `if`/`then`/`else`, boolean schemas, and
//! `$ref` to a place in the same schema (`#`, `#/$defs/...`).
//!
//! A `pattern` (and a `patternProperties` name) is searched for anywhere
//! in the string, as Python's `re.search` does, with the `regex` crate:
//! `\d`, `\w` and `\s` are Unicode classes there as in Python, but `$`
//! matches only at the very end (Python's also before a final newline),
//! and a pattern that crate cannot read (look-around, back-references,
//! Python's `\Z`), one naming a Unicode class (`\p{L}`, which Python's
//! `re` cannot read), or one that compiles to more than
//! [`MAX_PATTERN_SIZE`] is not checked. Python's `validate` refuses a
//! schema it finds invalid (an unreadable pattern among others) on every
//! call, with the whole
//! `SchemaError` as the tool error; here, what cannot be judged is never
//! a reason to refuse. Also not checked, so never a reason to refuse:
//! `format` (`validate` does not check it either), `unevaluatedItems`,
//! `unevaluatedProperties`, `$dynamicRef`, `$ref` to another document,
//! and keywords this checker does not know.
//!
//! Its work is bounded whatever the schema and the value: checking stops
//! below [`MAX_DEPTH`] nested schemas (so a schema that refers to itself
//! cannot recurse without end), and after [`MAX_STEPS`] steps (schemas
//! visited, faults found, patterns searched: so a value cannot make
//! `anyOf` branches over a recursive schema take exponential time); what
//! was not reached is taken as fitting. Patterns are compiled once, by
//! [`InputSchema::new`], each within [`MAX_PATTERN_SIZE`].

use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::fmt::{self, Write as _};

use claude_proto::dispatch::InputCheck;
use claude_proto::model::Json;
use regex::{Regex, RegexBuilder};
use serde_json::{Map, Number};

/// How deep schemas may nest (counting `$ref` hops) before the rest is
/// taken as fitting.
pub const MAX_DEPTH: usize = 64;

/// How many steps one check takes at most (a schema visited, a fault
/// found, a pattern searched) before the rest is taken as fitting.
pub const MAX_STEPS: usize = 100_000;

/// The most memory, in bytes, one compiled pattern may take, and its
/// search cache at most; a pattern that needs more to compile is not
/// checked.
pub const MAX_PATTERN_SIZE: usize = 2 << 20;

/// How deeply nested a value may be written out or compared; deeper parts
/// are written `...` and compared unequal (serde_json reads no value
/// deeper than 128 levels).
const MAX_VALUE_DEPTH: usize = 512;

/// Why a value does not fit a schema: what Python's `jsonschema.validate`
/// would say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaMismatch {
    /// Where in the value, as a JSON Pointer (`""` for the value itself).
    pub path: String,
    /// What is wrong there, as Python's `jsonschema` words it (its
    /// `ValidationError.message`).
    pub message: String,
}

impl fmt::Display for SchemaMismatch {
    /// The message alone, as the Python SDK's server sends it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SchemaMismatch {}

/// A schema ready to check values: its patterns compiled once.
///
/// ```
/// use claude_proto_adapter::json_schema::InputSchema;
/// use serde_json::json;
/// let schema = InputSchema::new(json!({"type": "object", "required": ["id"],
///     "properties": {"id": {"type": "string", "pattern": "^[a-z]+-[0-9]+$"}}}));
/// assert!(schema.check(&json!({"id": "ticket-42"})).is_ok());
/// let wrong = schema.check(&json!({"id": "42"})).unwrap_err();
/// assert_eq!(wrong.to_string(), "'42' does not match '^[a-z]+-[0-9]+$'");
/// assert_eq!(wrong.path, "/id");
/// ```
#[derive(Clone)]
pub struct InputSchema {
    schema: Json,
    patterns: Patterns,
}

impl fmt::Debug for InputSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InputSchema")
            .field("schema", &self.schema)
            .finish_non_exhaustive()
    }
}

impl InputSchema {
    /// Reads `schema`, compiling every pattern in it. Never fails: a
    /// pattern that cannot be compiled is not checked.
    pub fn new(schema: Json) -> Self {
        let patterns = compile_patterns(&schema);
        Self { schema, patterns }
    }

    /// The schema.
    pub fn schema(&self) -> &Json {
        &self.schema
    }

    /// Checks `value` (see the module docs for what is checked). Never
    /// panics, whatever either holds.
    pub fn check(&self, value: &Json) -> Result<(), SchemaMismatch> {
        check_with(&self.schema, &self.patterns, value)
    }

    /// The check an in-process MCP tool's arguments go through: its
    /// `Err` is the message, as the Python SDK's server sends it after
    /// `Input validation error: `.
    pub fn into_input_check(self) -> InputCheck {
        InputCheck::new(move |arguments| self.check(arguments).map_err(|m| m.message))
    }
}

/// Checks `value` against `schema` once (see the module docs for what is
/// checked; [`InputSchema`] compiles the patterns once for many values).
/// Never panics, whatever either holds.
///
/// ```
/// use claude_proto_adapter::json_schema::check;
/// use serde_json::json;
/// let schema = json!({"type": "object", "required": ["text"],
///     "properties": {"text": {"type": "string"}}});
/// assert!(check(&schema, &json!({"text": "hi"})).is_ok());
/// let wrong = check(&schema, &json!({"text": 5})).unwrap_err();
/// assert_eq!(wrong.to_string(), "5 is not of type 'string'");
/// assert_eq!(check(&schema, &json!({})).unwrap_err().to_string(),
///     "'text' is a required property");
/// ```
pub fn check(schema: &Json, value: &Json) -> Result<(), SchemaMismatch> {
    check_with(schema, &compile_patterns(schema), value)
}

/// `true` if `pattern` names a Unicode class (`\p{..}`, `\P{..}`):
/// Python's `re` cannot read one, and whether the `regex` crate can
/// depends on features another crate of the build may turn on, so such a
/// pattern is never checked, whatever the build.
fn has_unicode_class(pattern: &str) -> bool {
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c == '\\' && matches!(chars.next(), Some('p' | 'P')) {
            return true;
        }
    }
    false
}

/// A `min*`/`max*` bound that `count` breaks, in Python's words: the
/// keyword of `words` (`[(min, too few), (max, too many)]`) and what is
/// said, which for a bound of 1 (at least one) or 0 (none) is Python's
/// own special wording. `None` if `keyword`'s bound holds.
fn out_of_bound(
    keyword: &str,
    count: f64,
    bound: f64,
    words: [(&'static str, &'static str); 2],
) -> Option<(&'static str, &'static str)> {
    let [(min, too_few), (max, too_many)] = words;
    if keyword == min && count < bound {
        Some((
            min,
            if bound == 1.0 {
                "should be non-empty"
            } else {
                too_few
            },
        ))
    } else if keyword == max && count > bound {
        let said = if bound == 0.0 {
            "is expected to be empty"
        } else {
            too_many
        };
        Some((max, said))
    } else {
        None
    }
}

/// Each pattern of a schema, compiled (`None`: not checked).
type Patterns = HashMap<String, Option<Regex>>;

/// Compiles every `pattern` and `patternProperties` name in `schema`
/// (anywhere in it: a stray one costs a compilation, nothing more).
fn compile_patterns(schema: &Json) -> Patterns {
    let mut patterns = Patterns::new();
    let mut add = |pattern: &str| {
        if !patterns.contains_key(pattern) {
            let compiled = (!has_unicode_class(pattern))
                .then(|| {
                    RegexBuilder::new(pattern)
                        .size_limit(MAX_PATTERN_SIZE)
                        .dfa_size_limit(MAX_PATTERN_SIZE)
                        .build()
                        .ok()
                })
                .flatten();
            patterns.insert(pattern.to_owned(), compiled);
        }
    };
    let mut stack = vec![schema];
    while let Some(node) = stack.pop() {
        match node {
            Json::Object(object) => {
                if let Some(Json::String(pattern)) = object.get("pattern") {
                    add(pattern);
                }
                if let Some(Json::Object(names)) = object.get("patternProperties") {
                    names.keys().for_each(|name| add(name));
                }
                stack.extend(object.values());
            }
            Json::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    patterns
}

fn check_with(schema: &Json, patterns: &Patterns, value: &Json) -> Result<(), SchemaMismatch> {
    let legacy = schema
        .get("$schema")
        .and_then(Json::as_str)
        .is_some_and(|s| {
            ["draft-07", "draft-06", "draft-04", "draft-03"]
                .iter()
                .any(|d| s.contains(d))
        });
    let checker = Checker {
        root: schema,
        patterns,
        legacy,
        steps: Cell::new(0),
    };
    let found = checker.collect(schema, Inst::Value(value), &mut Vec::new(), 0, false);
    match best_match(&found) {
        None => Ok(()),
        Some(best) => Err(SchemaMismatch {
            path: pointer(&best.path),
            message: best.message(),
        }),
    }
}

/// A place in the value: an object's member or an array's item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

fn pointer(path: &[Seg<'_>]) -> String {
    let mut out = String::new();
    for seg in path {
        out.push('/');
        match seg {
            Seg::Key(key) => out.push_str(&key.replace('~', "~0").replace('/', "~1")),
            Seg::Index(index) => {
                let _ = write!(out, "{index}");
            }
        }
    }
    out
}

/// What is checked: a value, or an object's member name (`propertyNames`
/// checks names as strings).
#[derive(Debug, Clone, Copy)]
enum Inst<'a> {
    Value(&'a Json),
    Name(&'a str),
}

impl<'a> Inst<'a> {
    fn as_str(self) -> Option<&'a str> {
        match self {
            Inst::Value(Json::String(text)) => Some(text),
            Inst::Name(name) => Some(name),
            Inst::Value(_) => None,
        }
    }

    fn as_object(self) -> Option<&'a Map<String, Json>> {
        match self {
            Inst::Value(Json::Object(object)) => Some(object),
            _ => None,
        }
    }

    fn as_array(self) -> Option<&'a [Json]> {
        match self {
            Inst::Value(Json::Array(items)) => Some(items),
            _ => None,
        }
    }

    fn as_number(self) -> Option<&'a Number> {
        match self {
            Inst::Value(Json::Number(number)) => Some(number),
            _ => None,
        }
    }

    /// Whether it is of the JSON Schema type `name` (`integer`: a number
    /// without a fraction, `1.0` too; a boolean is no number).
    fn is_type(self, name: &str) -> bool {
        let value = match self {
            Inst::Name(_) => return name == "string",
            Inst::Value(value) => value,
        };
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

    fn equals(self, other: &Json) -> bool {
        match self {
            Inst::Value(value) => equal(value, other, 0),
            Inst::Name(name) => other.as_str() == Some(name),
        }
    }

    fn repr(self, out: &mut String) {
        match self {
            Inst::Value(value) => repr(value, out, 0),
            Inst::Name(name) => repr_str(name, out),
        }
    }
}

/// One thing found wrong, as Python's `ValidationError` records it.
#[derive(Debug)]
struct Found<'a> {
    /// Where in the value.
    path: Vec<Seg<'a>>,
    /// The keyword that found it (`None`: a `false` schema).
    keyword: Option<&'static str>,
    /// The value (or name) it is about.
    instance: Inst<'a>,
    /// The schema the keyword is in.
    schema: &'a Json,
    what: What<'a>,
    /// Under `anyOf` and `oneOf`: what each branch found.
    context: Vec<Found<'a>>,
}

/// What is wrong, kept unwritten until it is the one reported (a value
/// may be large, and many faults are found to report one).
#[derive(Debug)]
enum What<'a> {
    /// `False schema does not allow <value>`.
    FalseSchema,
    /// `<value> <said>`.
    Said(&'static str),
    /// `<said>`, written when found (it holds no value).
    Text(String),
    /// `<value> is not of type <types>`.
    Type(&'a Json),
    /// `<value> is not one of <list>`.
    Enum(&'a Json),
    /// `<expected> was expected`.
    Const(&'a Json),
    /// `<name> is a required property`.
    Required(&'a str),
    /// `<each> is a dependency of <property>`.
    Dependency(&'a str, &'a str),
    /// `<value> does not match <pattern>`.
    Pattern(&'a str),
    /// `<value> <said> <bound>`.
    Bound(&'static str, &'a Json),
    /// `Additional properties are not allowed (<names> were unexpected)`.
    Additional(Vec<&'a str>),
    /// `<names> do not match any of the regexes: <patterns>`.
    NoPatternMatch(Vec<&'a str>, Vec<&'a str>),
    /// `Expected at most <n> items but found <m> extra: <rest>`.
    ItemsFalse(usize, &'a [Json]),
    /// `Additional items are not allowed (<items> were unexpected)`.
    AdditionalItems(&'a [Json]),
    /// `None of <value> are valid under the given schema` (draft 7's
    /// `contains`).
    NoneValid,
    /// `<value> is valid under each of <schemas>`.
    ValidUnderEach(Vec<&'a Json>),
    /// `<value> should not be valid under <schema>`.
    Not(&'a Json),
}

impl Found<'_> {
    fn message(&self) -> String {
        let mut out = String::new();
        let value = |out: &mut String| self.instance.repr(out);
        match &self.what {
            What::FalseSchema => {
                out.push_str("False schema does not allow ");
                value(&mut out);
            }
            What::Said(said) => {
                value(&mut out);
                out.push(' ');
                out.push_str(said);
            }
            What::Text(text) => out.push_str(text),
            What::Type(types) => {
                value(&mut out);
                out.push_str(" is not of type ");
                match types {
                    Json::Array(types) => join(&mut out, types.iter(), |t, out| repr(t, out, 0)),
                    one => repr(one, &mut out, 0),
                }
            }
            What::Enum(allowed) => {
                value(&mut out);
                out.push_str(" is not one of ");
                repr(allowed, &mut out, 0);
            }
            What::Const(expected) => {
                repr(expected, &mut out, 0);
                out.push_str(" was expected");
            }
            What::Required(name) => {
                repr_str(name, &mut out);
                out.push_str(" is a required property");
            }
            What::Dependency(each, property) => {
                repr_str(each, &mut out);
                out.push_str(" is a dependency of ");
                repr_str(property, &mut out);
            }
            What::Pattern(pattern) => {
                value(&mut out);
                out.push_str(" does not match ");
                repr_str(pattern, &mut out);
            }
            What::Bound(said, bound) => {
                value(&mut out);
                out.push(' ');
                out.push_str(said);
                out.push(' ');
                repr(bound, &mut out, 0);
            }
            What::Additional(names) => {
                out.push_str("Additional properties are not allowed (");
                join(&mut out, names.iter(), |n, out| repr_str(n, out));
                out.push_str(if names.len() == 1 { " was" } else { " were" });
                out.push_str(" unexpected)");
            }
            What::NoPatternMatch(names, patterns) => {
                join(&mut out, names.iter(), |n, out| repr_str(n, out));
                out.push_str(if names.len() == 1 { " does" } else { " do" });
                out.push_str(" not match any of the regexes: ");
                join(&mut out, patterns.iter(), |p, out| repr_str(p, out));
            }
            What::ItemsFalse(prefix, rest) => {
                let item = if *prefix == 1 { "item" } else { "items" };
                let _ = write!(
                    out,
                    "Expected at most {prefix} {item} but found {} extra: ",
                    rest.len()
                );
                match rest {
                    [one] => repr(one, &mut out, 0),
                    many => repr_list(many, &mut out, 0),
                }
            }
            What::AdditionalItems(rest) => {
                out.push_str("Additional items are not allowed (");
                join(&mut out, rest.iter(), |item, out| repr(item, out, 0));
                out.push_str(if rest.len() == 1 { " was" } else { " were" });
                out.push_str(" unexpected)");
            }
            What::NoneValid => {
                out.push_str("None of ");
                value(&mut out);
                out.push_str(" are valid under the given schema");
            }
            What::ValidUnderEach(schemas) => {
                value(&mut out);
                out.push_str(" is valid under each of ");
                join(&mut out, schemas.iter(), |s, out| repr(s, out, 0));
            }
            What::Not(schema) => {
                value(&mut out);
                out.push_str(" should not be valid under ");
                repr(schema, &mut out, 0);
            }
        }
        out
    }

    /// Whether the value is of the type its schema asks for (Python's
    /// `ValidationError._matches_type`).
    fn matches_type(&self) -> bool {
        match self.schema.get("type") {
            Some(Json::String(name)) => self.instance.is_type(name),
            Some(Json::Array(names)) => names.iter().any(|name| {
                name.as_str()
                    .is_some_and(|name| self.instance.is_type(name))
            }),
            _ => false,
        }
    }
}

type Relevance<'b, 'a> = (isize, &'b [Seg<'a>], bool, bool);

/// Python's `jsonschema.exceptions.relevance`: greater is a better match
/// at the top, smaller a better one among a branch's.
fn relevance<'b, 'a>(found: &'b Found<'a>) -> Relevance<'b, 'a> {
    let weak = matches!(found.keyword, Some("anyOf" | "oneOf"));
    (
        -(found.path.len() as isize),
        found.path.as_slice(),
        !weak,
        !found.matches_type(),
    )
}

/// Python's `jsonschema.exceptions.best_match`: the fault `validate`
/// raises.
fn best_match<'b, 'a>(found: &'b [Found<'a>]) -> Option<&'b Found<'a>> {
    let mut best = found.first()?;
    for candidate in &found[1..] {
        // The first of equals stays (Python's `max`).
        if relevance(candidate) > relevance(best) {
            best = candidate;
        }
    }
    while let Some(first) = best.context.first() {
        let mut smallest = first;
        for candidate in &best.context[1..] {
            if relevance(candidate) < relevance(smallest) {
                smallest = candidate;
            }
        }
        let key = relevance(smallest);
        let ties = best.context.iter().filter(|c| relevance(c) == key).count();
        if ties > 1 {
            // No branch's fault stands out: the `anyOf` itself is.
            return Some(best);
        }
        best = smallest;
    }
    Some(best)
}

/// Where faults go: all of them, or the first only (enough to tell
/// whether a value fits).
struct Sink<'a> {
    found: Vec<Found<'a>>,
    first_only: bool,
}

impl Sink<'_> {
    fn full(&self) -> bool {
        self.first_only && !self.found.is_empty()
    }
}

struct Checker<'a> {
    root: &'a Json,
    patterns: &'a Patterns,
    /// Draft 7 or older: `$ref` hides its siblings, `dependencies` and
    /// list `items` are read, `contains` words its fault as draft 7 does.
    legacy: bool,
    steps: Cell<usize>,
}

/// Where in the value a check is, and how deep in schemas.
struct At<'p, 'a> {
    path: &'p mut Vec<Seg<'a>>,
    depth: usize,
}

impl<'a> Checker<'a> {
    /// Takes a step; `false` once the budget is spent.
    fn spend(&self) -> bool {
        let steps = self.steps.get() + 1;
        self.steps.set(steps);
        steps <= MAX_STEPS
    }

    fn collect(
        &self,
        schema: &'a Json,
        inst: Inst<'a>,
        path: &mut Vec<Seg<'a>>,
        depth: usize,
        first_only: bool,
    ) -> Vec<Found<'a>> {
        let mut sink = Sink {
            found: Vec::new(),
            first_only,
        };
        self.visit(schema, inst, &mut At { path, depth }, &mut sink);
        sink.found
    }

    fn is_valid(&self, schema: &'a Json, inst: Inst<'a>, at: &mut At<'_, 'a>) -> bool {
        self.collect(schema, inst, at.path, at.depth + 1, true)
            .is_empty()
    }

    #[allow(clippy::too_many_arguments)]
    fn fault(
        &self,
        sink: &mut Sink<'a>,
        at: &At<'_, 'a>,
        keyword: Option<&'static str>,
        inst: Inst<'a>,
        schema: &'a Json,
        what: What<'a>,
        context: Vec<Found<'a>>,
    ) {
        if sink.full() || !self.spend() {
            return;
        }
        sink.found.push(Found {
            path: at.path.clone(),
            keyword,
            instance: inst,
            schema,
            what,
            context,
        });
    }

    /// Checks `inst` against `schema` at the same place one schema deeper.
    fn descend(&self, schema: &'a Json, inst: Inst<'a>, at: &mut At<'_, 'a>, sink: &mut Sink<'a>) {
        let depth = at.depth;
        at.depth += 1;
        self.visit(schema, inst, at, sink);
        at.depth = depth;
    }

    /// Checks `value`, the member or item `seg` of the current value.
    fn descend_into(
        &self,
        schema: &'a Json,
        value: &'a Json,
        seg: Seg<'a>,
        at: &mut At<'_, 'a>,
        sink: &mut Sink<'a>,
    ) {
        if schema.is_boolean() {
            // Python's `descend` answers a boolean schema before it adds
            // the member or item to the fault's path: `false` says
            // where the value holding it is.
            return self.descend(schema, Inst::Value(value), at, sink);
        }
        at.path.push(seg);
        self.descend(schema, Inst::Value(value), at, sink);
        at.path.pop();
    }

    fn visit(&self, schema: &'a Json, inst: Inst<'a>, at: &mut At<'_, 'a>, sink: &mut Sink<'a>) {
        if sink.full() || at.depth >= MAX_DEPTH || !self.spend() {
            return;
        }
        let object = match schema {
            Json::Bool(false) => {
                return self.fault(sink, at, None, inst, schema, What::FalseSchema, Vec::new());
            }
            Json::Object(object) => object,
            // `true`, or not a schema: nothing to hold the value to.
            _ => return,
        };
        if self.legacy {
            if let Some(reference) = object.get("$ref") {
                return self.reference(reference, inst, at, sink);
            }
        }
        for (keyword, value) in object {
            if sink.full() {
                return;
            }
            self.keyword(keyword, value, object, schema, inst, at, sink);
        }
    }

    fn reference(
        &self,
        reference: &'a Json,
        inst: Inst<'a>,
        at: &mut At<'_, 'a>,
        sink: &mut Sink<'a>,
    ) {
        let Some(pointer) = reference.as_str().and_then(|r| r.strip_prefix('#')) else {
            return;
        };
        if let Some(target) = self.root.pointer(&percent_decoded(pointer)) {
            self.descend(target, inst, at, sink);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn keyword(
        &self,
        keyword: &str,
        value: &'a Json,
        object: &'a Map<String, Json>,
        schema: &'a Json,
        inst: Inst<'a>,
        at: &mut At<'_, 'a>,
        sink: &mut Sink<'a>,
    ) {
        let fault = |sink: &mut Sink<'a>, at: &At<'_, 'a>, name: &'static str, what: What<'a>| {
            self.fault(sink, at, Some(name), inst, schema, what, Vec::new());
        };
        let number = || value.as_f64();
        match keyword {
            "$ref" => self.reference(value, inst, at, sink),
            "type" => {
                let names: Vec<&str> = match value {
                    Json::String(one) => vec![one],
                    Json::Array(many) => many.iter().filter_map(Json::as_str).collect(),
                    _ => Vec::new(),
                };
                if !names.is_empty() && !names.iter().any(|name| inst.is_type(name)) {
                    fault(sink, at, "type", What::Type(value));
                }
            }
            "enum" => {
                if let Json::Array(allowed) = value {
                    if !allowed.iter().any(|a| inst.equals(a)) {
                        fault(sink, at, "enum", What::Enum(value));
                    }
                }
            }
            "const" if !inst.equals(value) => {
                fault(sink, at, "const", What::Const(value));
            }
            "allOf" => {
                for sub in value.as_array().into_iter().flatten() {
                    self.descend(sub, inst, at, sink);
                }
            }
            "anyOf" => self.any_of(value, schema, inst, at, sink),
            "oneOf" => self.one_of(value, schema, inst, at, sink),
            "not" if self.is_valid(value, inst, at) => {
                fault(sink, at, "not", What::Not(value));
            }
            "if" => {
                let branch = if self.is_valid(value, inst, at) {
                    "then"
                } else {
                    "else"
                };
                if let Some(sub) = object.get(branch) {
                    self.descend(sub, inst, at, sink);
                }
            }
            "pattern" => {
                if let (Some(text), Json::String(pattern)) = (inst.as_str(), value) {
                    if let Some(Some(regex)) = self.patterns.get(pattern) {
                        if self.spend() && !regex.is_match(text) {
                            fault(sink, at, "pattern", What::Pattern(pattern));
                        }
                    }
                }
            }
            "minLength" | "maxLength" => {
                if let (Some(text), Some(bound)) = (inst.as_str(), number()) {
                    let length = text.chars().count() as f64;
                    let words = [("minLength", "is too short"), ("maxLength", "is too long")];
                    if let Some((keyword, said)) = out_of_bound(keyword, length, bound, words) {
                        fault(sink, at, keyword, What::Said(said));
                    }
                }
            }
            "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
                if let (Some(n), Json::Number(bound)) = (inst.as_number(), value) {
                    let Some(order) = compare(n, bound) else {
                        return;
                    };
                    let (name, said, wrong) = match keyword {
                        "minimum" => ("minimum", "is less than the minimum of", order.is_lt()),
                        "maximum" => ("maximum", "is greater than the maximum of", order.is_gt()),
                        "exclusiveMinimum" => (
                            "exclusiveMinimum",
                            "is less than or equal to the minimum of",
                            order.is_le(),
                        ),
                        _ => (
                            "exclusiveMaximum",
                            "is greater than or equal to the maximum of",
                            order.is_ge(),
                        ),
                    };
                    if wrong {
                        fault(sink, at, name, What::Bound(said, value));
                    }
                }
            }
            "multipleOf" => {
                if let (Some(n), Json::Number(step)) = (inst.as_number(), value) {
                    if !is_multiple(n, step) {
                        fault(
                            sink,
                            at,
                            "multipleOf",
                            What::Bound("is not a multiple of", value),
                        );
                    }
                }
            }
            "required" => {
                if let (Some(present), Json::Array(names)) = (inst.as_object(), value) {
                    for name in names.iter().filter_map(Json::as_str) {
                        if !present.contains_key(name) {
                            fault(sink, at, "required", What::Required(name));
                        }
                    }
                }
            }
            "minProperties" | "maxProperties" => {
                if let (Some(present), Some(bound)) = (inst.as_object(), number()) {
                    let count = present.len() as f64;
                    let words = [
                        ("minProperties", "does not have enough properties"),
                        ("maxProperties", "has too many properties"),
                    ];
                    if let Some((keyword, said)) = out_of_bound(keyword, count, bound, words) {
                        fault(sink, at, keyword, What::Said(said));
                    }
                }
            }
            "properties" => {
                if let (Some(present), Json::Object(properties)) = (inst.as_object(), value) {
                    for (name, sub) in properties {
                        if let Some((name, member)) = present.get_key_value(name.as_str()) {
                            self.descend_into(sub, member, Seg::Key(name), at, sink);
                        }
                    }
                }
            }
            "patternProperties" => {
                if let (Some(present), Json::Object(patterns)) = (inst.as_object(), value) {
                    for (pattern, sub) in patterns {
                        let Some(Some(regex)) = self.patterns.get(pattern) else {
                            continue;
                        };
                        for (name, member) in present {
                            if self.spend() && regex.is_match(name) {
                                self.descend_into(sub, member, Seg::Key(name), at, sink);
                            }
                        }
                    }
                }
            }
            "additionalProperties" => {
                if let Some(present) = inst.as_object() {
                    self.additional_properties(value, object, schema, present, inst, at, sink);
                }
            }
            "propertyNames" => {
                if let Some(present) = inst.as_object() {
                    for name in present.keys() {
                        self.descend(value, Inst::Name(name), at, sink);
                    }
                }
            }
            "dependentRequired" | "dependentSchemas" | "dependencies" => {
                // Draft 7's `dependencies` became draft 2019-09's two.
                let (wanted, name) = match keyword {
                    "dependencies" => (self.legacy, "dependencies"),
                    _ => (!self.legacy, "dependentRequired"),
                };
                if let (true, Some(present), Json::Object(rules)) =
                    (wanted, inst.as_object(), value)
                {
                    for (property, rule) in rules {
                        if !present.contains_key(property) {
                            continue;
                        }
                        match (keyword, rule) {
                            ("dependentRequired" | "dependencies", Json::Array(names)) => {
                                for each in names.iter().filter_map(Json::as_str) {
                                    if !present.contains_key(each) {
                                        let what = What::Dependency(each, property);
                                        fault(sink, at, name, what);
                                    }
                                }
                            }
                            ("dependentSchemas" | "dependencies", sub) => {
                                self.descend(sub, inst, at, sink);
                            }
                            _ => {}
                        }
                    }
                }
            }
            "items" => {
                if let Some(items) = inst.as_array() {
                    self.items(value, object, schema, items, inst, at, sink);
                }
            }
            "prefixItems" => {
                if let (false, Some(items), Json::Array(prefix)) =
                    (self.legacy, inst.as_array(), value)
                {
                    for (index, (item, sub)) in items.iter().zip(prefix).enumerate() {
                        self.descend_into(sub, item, Seg::Index(index), at, sink);
                    }
                }
            }
            "additionalItems" => {
                // Only beside a list of `items` (as Python reads it).
                if let (Some(items), Some(Json::Array(prefix))) =
                    (inst.as_array(), object.get("items"))
                {
                    let rest = items.get(prefix.len()..).unwrap_or_default();
                    match value {
                        Json::Bool(false) if !rest.is_empty() => {
                            fault(sink, at, "additionalItems", What::AdditionalItems(rest));
                        }
                        Json::Object(_) => {
                            for (offset, item) in rest.iter().enumerate() {
                                let seg = Seg::Index(prefix.len() + offset);
                                self.descend_into(value, item, seg, at, sink);
                            }
                        }
                        _ => {}
                    }
                }
            }
            "contains" => {
                if let Some(items) = inst.as_array() {
                    self.contains(value, object, schema, items, inst, at, sink);
                }
            }
            "minItems" | "maxItems" => {
                if let (Some(items), Some(bound)) = (inst.as_array(), number()) {
                    let count = items.len() as f64;
                    let words = [("minItems", "is too short"), ("maxItems", "is too long")];
                    if let Some((keyword, said)) = out_of_bound(keyword, count, bound, words) {
                        fault(sink, at, keyword, What::Said(said));
                    }
                }
            }
            "uniqueItems" => {
                if let (Some(items), Json::Bool(true)) = (inst.as_array(), value) {
                    if !unique(items) {
                        fault(
                            sink,
                            at,
                            "uniqueItems",
                            What::Said("has non-unique elements"),
                        );
                    }
                }
            }
            _ => {}
        }
    }

    fn any_of(
        &self,
        branches: &'a Json,
        schema: &'a Json,
        inst: Inst<'a>,
        at: &mut At<'_, 'a>,
        sink: &mut Sink<'a>,
    ) {
        let Json::Array(branches) = branches else {
            return;
        };
        let mut context = Vec::new();
        for branch in branches {
            let found = self.collect(branch, inst, at.path, at.depth + 1, sink.first_only);
            if found.is_empty() {
                return;
            }
            context.extend(found);
        }
        let what = What::Said("is not valid under any of the given schemas");
        self.fault(sink, at, Some("anyOf"), inst, schema, what, context);
    }

    fn one_of(
        &self,
        branches: &'a Json,
        schema: &'a Json,
        inst: Inst<'a>,
        at: &mut At<'_, 'a>,
        sink: &mut Sink<'a>,
    ) {
        let Json::Array(branches) = branches else {
            return;
        };
        let mut context = Vec::new();
        let mut first_valid = None;
        for (index, branch) in branches.iter().enumerate() {
            let found = self.collect(branch, inst, at.path, at.depth + 1, sink.first_only);
            if found.is_empty() {
                first_valid = Some(index);
                break;
            }
            context.extend(found);
        }
        let Some(first) = first_valid else {
            let what = What::Said("is not valid under any of the given schemas");
            return self.fault(sink, at, Some("oneOf"), inst, schema, what, context);
        };
        let mut more_valid: Vec<&Json> = branches[first + 1..]
            .iter()
            .filter(|branch| self.is_valid(branch, inst, at))
            .collect();
        if !more_valid.is_empty() {
            more_valid.push(&branches[first]);
            let what = What::ValidUnderEach(more_valid);
            self.fault(sink, at, Some("oneOf"), inst, schema, what, Vec::new());
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn additional_properties(
        &self,
        additional: &'a Json,
        object: &'a Map<String, Json>,
        schema: &'a Json,
        present: &'a Map<String, Json>,
        inst: Inst<'a>,
        at: &mut At<'_, 'a>,
        sink: &mut Sink<'a>,
    ) {
        let properties = object.get("properties").and_then(Json::as_object);
        let patterns = object.get("patternProperties").and_then(Json::as_object);
        let mut extras = Vec::new();
        for (name, member) in present {
            if properties.is_some_and(|p| p.contains_key(name)) {
                continue;
            }
            let matched = patterns.is_some_and(|patterns| {
                patterns
                    .keys()
                    .any(|pattern| match self.patterns.get(pattern) {
                        Some(Some(regex)) => self.spend() && regex.is_match(name),
                        // A pattern that is not checked might match any name.
                        _ => true,
                    })
            });
            if !matched {
                extras.push((name.as_str(), member));
            }
        }
        match additional {
            Json::Object(_) => {
                for (name, member) in extras {
                    self.descend_into(additional, member, Seg::Key(name), at, sink);
                }
            }
            Json::Bool(false) if !extras.is_empty() => {
                let mut names: Vec<&str> = extras.into_iter().map(|(name, _)| name).collect();
                names.sort_unstable();
                let what = match object.get("patternProperties") {
                    Some(patterns) => {
                        let mut patterns: Vec<&str> = patterns
                            .as_object()
                            .map(|p| p.keys().map(String::as_str).collect())
                            .unwrap_or_default();
                        patterns.sort_unstable();
                        What::NoPatternMatch(names, patterns)
                    }
                    None => What::Additional(names),
                };
                self.fault(
                    sink,
                    at,
                    Some("additionalProperties"),
                    inst,
                    schema,
                    what,
                    Vec::new(),
                );
            }
            _ => {}
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn items(
        &self,
        rule: &'a Json,
        object: &'a Map<String, Json>,
        schema: &'a Json,
        items: &'a [Json],
        inst: Inst<'a>,
        at: &mut At<'_, 'a>,
        sink: &mut Sink<'a>,
    ) {
        if let Json::Array(prefix) = rule {
            // A list of `items`: draft 7's tuple (draft 2020-12 has
            // `prefixItems` for it).
            for (index, (item, sub)) in items.iter().zip(prefix).enumerate() {
                self.descend_into(sub, item, Seg::Index(index), at, sink);
            }
            return;
        }
        let prefix = match (self.legacy, object.get("prefixItems")) {
            (false, Some(Json::Array(prefix))) => prefix.len(),
            _ => 0,
        };
        let rest = items.get(prefix..).unwrap_or_default();
        if rest.is_empty() {
            return;
        }
        if rule == &Json::Bool(false) && !self.legacy {
            let what = What::ItemsFalse(prefix, rest);
            return self.fault(sink, at, Some("items"), inst, schema, what, Vec::new());
        }
        for (offset, item) in rest.iter().enumerate() {
            self.descend_into(rule, item, Seg::Index(prefix + offset), at, sink);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn contains(
        &self,
        rule: &'a Json,
        object: &'a Map<String, Json>,
        schema: &'a Json,
        items: &'a [Json],
        inst: Inst<'a>,
        at: &mut At<'_, 'a>,
        sink: &mut Sink<'a>,
    ) {
        if self.legacy {
            if !items
                .iter()
                .any(|item| self.is_valid(rule, Inst::Value(item), at))
            {
                self.fault(
                    sink,
                    at,
                    Some("contains"),
                    inst,
                    schema,
                    What::NoneValid,
                    Vec::new(),
                );
            }
            return;
        }
        let min = object.get("minContains");
        let max = object.get("maxContains");
        let min_count = min.and_then(Json::as_f64).unwrap_or(1.0);
        let max_count = max.and_then(Json::as_f64).unwrap_or(items.len() as f64);
        let written = |bound: Option<&Json>, default: usize| {
            let mut out = String::new();
            match bound {
                Some(bound @ Json::Number(_)) => repr(bound, &mut out, 0),
                _ => {
                    let _ = write!(out, "{default}");
                }
            }
            out
        };
        let mut matches = 0usize;
        for item in items {
            if self.is_valid(rule, Inst::Value(item), at) {
                matches += 1;
                if matches as f64 > max_count {
                    let what = What::Text(format!(
                        "Too many items match the given schema (expected at most {})",
                        written(max, items.len())
                    ));
                    let keyword = Some("maxContains");
                    return self.fault(sink, at, keyword, inst, schema, what, Vec::new());
                }
            }
        }
        if (matches as f64) < min_count {
            if matches == 0 {
                let what = What::Said("does not contain items matching the given schema");
                self.fault(sink, at, Some("contains"), inst, schema, what, Vec::new());
            } else {
                let what = What::Text(format!(
                    "Too few items match the given schema (expected at least {} but only \
                     {matches} matched)",
                    written(min, 1)
                ));
                self.fault(
                    sink,
                    at,
                    Some("minContains"),
                    inst,
                    schema,
                    what,
                    Vec::new(),
                );
            }
        }
    }
}

/// Two numbers in order, exactly when both are integers.
fn compare(a: &Number, b: &Number) -> Option<std::cmp::Ordering> {
    match (integer(a), integer(b)) {
        (Some(a), Some(b)) => Some(a.cmp(&b)),
        _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

fn integer(n: &Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

/// An integer-valued number as an exact integer (a float too, when it has
/// no fraction and fits).
fn whole(n: &Number) -> Option<i128> {
    integer(n).or_else(|| {
        let f = n.as_f64()?;
        (f.fract() == 0.0 && f.abs() < 1e38).then_some(f as i128)
    })
}

/// `multipleOf` as Python computes it: a float step divides as floats
/// (`0.3` is no multiple of `0.1` there), an integer step by remainder.
fn is_multiple(n: &Number, step: &Number) -> bool {
    if let Some(step) = integer(step) {
        if step == 0 {
            // Not a schema (a step must be positive): not judged.
            return true;
        }
        return match integer(n) {
            Some(n) => n % step == 0,
            None => n.as_f64().is_none_or(|n| n % step as f64 == 0.0),
        };
    }
    let (Some(n), Some(step)) = (n.as_f64(), step.as_f64()) else {
        return true;
    };
    let quotient = n / step;
    // An overflowing quotient (Python then divides exactly) is not judged.
    !quotient.is_finite() || quotient.trunc() == quotient
}

/// JSON equality as Python's `jsonschema` sees it: numbers by value
/// (`1` is `1.0`), a boolean no number.
fn equal(a: &Json, b: &Json, depth: usize) -> bool {
    if depth > MAX_VALUE_DEPTH {
        return false;
    }
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => match (whole(x), whole(y)) {
            (Some(x), Some(y)) => x == y,
            (None, None) => x.as_f64() == y.as_f64(),
            _ => false,
        },
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| equal(a, b, depth + 1))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w, depth + 1)))
        }
        (Json::Null, Json::Null) => true,
        (Json::Bool(x), Json::Bool(y)) => x == y,
        (Json::String(x), Json::String(y)) => x == y,
        _ => false,
    }
}

/// Whether no two items are [`equal`]: each is written in a form equal
/// values share, and the forms are compared (linear in the array's size).
fn unique(items: &[Json]) -> bool {
    let mut seen = HashSet::with_capacity(items.len());
    items.iter().all(|item| {
        let mut form = String::new();
        canonical(item, &mut form, 0);
        seen.insert(form)
    })
}

fn canonical(value: &Json, out: &mut String, depth: usize) {
    if depth > MAX_VALUE_DEPTH {
        // Deeper than any value serde_json reads: kept apart.
        let _ = write!(out, "<{:p}>", value);
        return;
    }
    match value {
        Json::Null => out.push('n'),
        Json::Bool(b) => out.push(if *b { 't' } else { 'f' }),
        Json::Number(n) => match whole(n) {
            Some(i) => {
                let _ = write!(out, "{i}");
            }
            None => {
                let _ = write!(out, "{:e}", n.as_f64().unwrap_or(0.0));
            }
        },
        Json::String(s) => {
            let _ = write!(out, "{s:?}");
        }
        Json::Array(items) => {
            out.push('[');
            for item in items {
                canonical(item, out, depth + 1);
                out.push(',');
            }
            out.push(']');
        }
        Json::Object(members) => {
            let mut keys: Vec<&String> = members.keys().collect();
            keys.sort_unstable();
            out.push('{');
            for key in keys {
                let _ = write!(out, "{key:?}:");
                if let Some(member) = members.get(key) {
                    canonical(member, out, depth + 1);
                }
                out.push(',');
            }
            out.push('}');
        }
    }
}

fn join<T>(out: &mut String, items: impl Iterator<Item = T>, mut each: impl FnMut(T, &mut String)) {
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        each(item, out);
    }
}

/// `value` as Python's `repr` writes what `json.loads` makes of it.
fn repr(value: &Json, out: &mut String, depth: usize) {
    if depth > MAX_VALUE_DEPTH {
        out.push_str("...");
        return;
    }
    match value {
        Json::Null => out.push_str("None"),
        Json::Bool(true) => out.push_str("True"),
        Json::Bool(false) => out.push_str("False"),
        Json::Number(n) => repr_number(n, out),
        Json::String(s) => repr_str(s, out),
        Json::Array(items) => repr_list(items, out, depth),
        Json::Object(members) => {
            out.push('{');
            join(out, members.iter(), |(key, member), out| {
                repr_str(key, out);
                out.push_str(": ");
                repr(member, out, depth + 1);
            });
            out.push('}');
        }
    }
}

fn repr_list(items: &[Json], out: &mut String, depth: usize) {
    out.push('[');
    join(out, items.iter(), |item, out| repr(item, out, depth + 1));
    out.push(']');
}

fn repr_number(n: &Number, out: &mut String) {
    if let Some(i) = integer(n) {
        let _ = write!(out, "{i}");
    } else if let Some(f) = n.as_f64() {
        repr_float(f, out);
    }
}

/// A float as Python's `repr` writes it: the shortest digits that read
/// back, positional from `1e-4` up to `1e16` (with `.0` if whole),
/// exponential (`1e+16`, `1e-05`) beyond.
fn repr_float(f: f64, out: &mut String) {
    if f.is_nan() {
        out.push_str("nan");
        return;
    }
    if f.is_infinite() {
        out.push_str(if f > 0.0 { "inf" } else { "-inf" });
        return;
    }
    if f == 0.0 {
        out.push_str(if f.is_sign_negative() { "-0.0" } else { "0.0" });
        return;
    }
    let scientific = format!("{f:e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if f < 0.0 {
        out.push('-');
    }
    if (-4..16).contains(&exponent) {
        if exponent >= 0 {
            let whole_len = exponent as usize + 1;
            if digits.len() <= whole_len {
                out.push_str(&digits);
                out.extend(std::iter::repeat_n('0', whole_len - digits.len()));
                out.push_str(".0");
            } else {
                out.push_str(&digits[..whole_len]);
                out.push('.');
                out.push_str(&digits[whole_len..]);
            }
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-exponent - 1) as usize));
            out.push_str(&digits);
        }
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let sign = if exponent < 0 { '-' } else { '+' };
        let _ = write!(out, "e{sign}{:02}", exponent.unsigned_abs());
    }
}

/// A string as Python's `repr` writes it: in single quotes (double ones
/// when it holds a single quote and no double one), with `\\`, `\n`,
/// `\r`, `\t` and the quote escaped, and characters Python does not print
/// as `\xhh`, `\uhhhh` or `\Uhhhhhhhh`.
fn repr_str(text: &str, out: &mut String) {
    let quote = if text.contains('\'') && !text.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if printable(c) => out.push(c),
            c => {
                let code = c as u32;
                let _ = match code {
                    0..=0xff => write!(out, "\\x{code:02x}"),
                    0x100..=0xffff => write!(out, "\\u{code:04x}"),
                    _ => write!(out, "\\U{code:08x}"),
                };
            }
        }
    }
    out.push(quote);
}

/// Whether Python's `str.isprintable` holds for `c`: not a control,
/// format, private-use, separator (but the space) or noncharacter code
/// point. Code points Unicode has not assigned are taken as printable
/// (Python escapes them: no table of them is carried here).
fn printable(c: char) -> bool {
    let code = c as u32;
    !matches!(code,
        // Cc
        0x00..=0x1f | 0x7f..=0x9f
        // Zs but the space, Zl, Zp
        | 0xa0 | 0x1680 | 0x2000..=0x200a | 0x2028 | 0x2029 | 0x202f | 0x205f | 0x3000
        // Cf
        | 0xad | 0x600..=0x605 | 0x61c | 0x6dd | 0x70f | 0x890 | 0x891 | 0x8e2 | 0x180e
        | 0x200b..=0x200f | 0x202a..=0x202e | 0x2060..=0x2064 | 0x2066..=0x206f | 0xfeff
        | 0xfff9..=0xfffb | 0x110bd | 0x110cd | 0x13430..=0x1343f | 0x1bca0..=0x1bca3
        | 0x1d173..=0x1d17a | 0xe0001 | 0xe0020..=0xe007f
        // Co
        | 0xe000..=0xf8ff | 0xf0000..=0xffffd | 0x100000..=0x10fffd
        // noncharacters (Cn)
        | 0xfdd0..=0xfdef)
        && code & 0xfffe != 0xfffe
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
    #![allow(clippy::unwrap_used)] // tests fail loudly by design
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

    /// Python refuses a string its `pattern` is not found in (searched
    /// for anywhere, as `re.search` does, with Unicode classes).
    #[test]
    fn a_pattern_constraint_refuses_input_python_refuses() {
        let schema = json!({"type": "object",
            "properties": {"id": {"type": "string", "pattern": "^x"}}});
        assert_eq!(
            fails(schema.clone(), json!({"id": "abc"})),
            "'abc' does not match '^x'"
        );
        fits(schema.clone(), json!({"id": "xyz"}));
        // Not a string: `pattern` does not apply (`type` says so).
        assert_eq!(fails(schema, json!({"id": 5})), "5 is not of type 'string'");
        fits(json!({"pattern": "b"}), json!("abc"));
        fits(json!({"pattern": "^\\d+$"}), json!("١٢"));
        fits(json!({"pattern": "^\\w+$"}), json!("é"));
        assert_eq!(
            fails(json!({"pattern": "^\\d{3}-\\d{4}$"}), json!("555-12345")),
            "'555-12345' does not match '^\\\\d{3}-\\\\d{4}$'"
        );
    }

    /// `patternProperties` holds the members whose names it matches, and
    /// with it `additionalProperties` knows which names are extra.
    #[test]
    fn pattern_properties_hold_the_names_they_match_as_python_holds_them() {
        let typed = json!({"type": "object", "patternProperties": {"^x": {"type": "integer"}}});
        assert_eq!(
            fails(typed.clone(), json!({"xa": "s"})),
            "'s' is not of type 'integer'"
        );
        fits(typed, json!({"xa": 1, "ya": "s"}));
        let closed = json!({"type": "object", "properties": {"b": {}},
            "patternProperties": {"^x": {}, "^y": {}}, "additionalProperties": false});
        fits(closed.clone(), json!({"xa": 1, "b": 2, "yb": 3}));
        assert_eq!(
            fails(closed.clone(), json!({"xa": 1, "c": 2})),
            "'c' does not match any of the regexes: '^x', '^y'"
        );
        assert_eq!(
            fails(closed, json!({"d": 1, "c": 2})),
            "'c', 'd' do not match any of the regexes: '^x', '^y'"
        );
        let rest = json!({"patternProperties": {"^x": {}},
            "additionalProperties": {"type": "integer"}});
        fits(rest.clone(), json!({"xa": "s", "b": 1}));
        let wrong = check(&rest, &json!({"xa": "s", "b": "t"})).unwrap_err();
        assert_eq!(wrong.message, "'t' is not of type 'integer'");
        assert_eq!(wrong.path, "/b");
    }

    /// Names and strings in single quotes, as Python's `repr` writes them.
    #[test]
    fn a_missing_property_is_quoted_as_python_quotes_it() {
        let schema = json!({"type": "object", "required": ["a", "b"]});
        assert_eq!(fails(schema, json!({"a": 1})), "'b' is a required property");
        assert_eq!(
            fails(json!({"required": ["it's"]}), json!({})),
            "\"it's\" is a required property"
        );
        assert_eq!(
            fails(
                json!({"type": "object", "properties": {"a": {}}, "additionalProperties": false}),
                json!({"a": 1, "b": 2})
            ),
            "Additional properties are not allowed ('b' was unexpected)"
        );
    }

    /// Values as Python's `repr` writes what `json.loads` makes of them.
    #[test]
    fn values_are_written_as_python_writes_them() {
        let not_integer = |value: Json| fails(json!({"type": "integer"}), value);
        assert_eq!(not_integer(json!(null)), "None is not of type 'integer'");
        assert_eq!(not_integer(json!(true)), "True is not of type 'integer'");
        assert_eq!(
            not_integer(json!([1e16, 0.1, 1e-5, 1e15, 0.0001, -0.0, 123.0, 2.5e300])),
            "[1e+16, 0.1, 1e-05, 1000000000000000.0, 0.0001, -0.0, 123.0, 2.5e+300] \
             is not of type 'integer'"
        );
        assert_eq!(
            not_integer(json!({"k": {"n": [null, false]}})),
            "{'k': {'n': [None, False]}} is not of type 'integer'"
        );
        assert_eq!(
            not_integer(json!("it's \"q\"")),
            "'it\\'s \"q\"' is not of type 'integer'"
        );
        assert_eq!(
            not_integer(json!(
                "tab\there\u{e9}\u{1}\\ \n\r\u{7f}\u{a0}\u{200b}\u{1f600}"
            )),
            "'tab\\thereé\\x01\\\\ \\n\\r\\x7f\\xa0\\u200b😀' is not of type 'integer'"
        );
        let mut out = String::new();
        for f in [5e-324, 1.7976931348623157e308, 1.0 / 3.0, 1e22, -1.5e-7] {
            repr_float(f, &mut out);
            out.push(' ');
        }
        assert_eq!(
            out,
            "5e-324 1.7976931348623157e+308 0.3333333333333333 1e+22 -1.5e-07 "
        );
    }

    /// Python's `multipleOf` divides by a float step as floats: `0.3` is
    /// no multiple of `0.1` there.
    #[test]
    fn multiple_of_is_computed_as_python_computes_it() {
        assert_eq!(
            fails(json!({"multipleOf": 0.1}), json!(0.3)),
            "0.3 is not a multiple of 0.1"
        );
        fits(json!({"multipleOf": 0.5}), json!(1.5));
        fits(json!({"multipleOf": 2}), json!(4.0));
        assert_eq!(
            fails(json!({"multipleOf": 2}), json!(4.5)),
            "4.5 is not a multiple of 2"
        );
        fits(json!({"multipleOf": 0}), json!(3));
    }

    /// A pattern the `regex` crate cannot read (Python reads some of
    /// these, and refuses every call when it cannot) is not checked: it is
    /// never a reason to refuse, nor to panic.
    #[test]
    fn an_unreadable_pattern_is_not_a_reason_to_refuse() {
        for pattern in ["[", "(?<!x)a", "(a)\\1", "\\p{L}", "a\\Z", "(((("] {
            fits(json!({"pattern": pattern}), json!("b"));
            fits(
                json!({"patternProperties": {pattern: {"type": "integer"}},
                    "additionalProperties": false}),
                json!({"b": "s"}),
            );
        }
        // The readable ones still hold.
        assert_eq!(
            fails(
                json!({"patternProperties": {"[": {}, "^x": {"type": "integer"}}}),
                json!({"xa": "s"})
            ),
            "'s' is not of type 'integer'"
        );
    }

    /// A pattern that compiles to more than `MAX_PATTERN_SIZE` is not
    /// compiled (nor checked), and that is quick.
    #[test]
    fn a_huge_pattern_is_not_compiled() {
        let patterns = compile_patterns(&json!({"pattern": "(\\w{100}){100}"}));
        assert!(matches!(patterns.get("(\\w{100}){100}"), Some(None)));
        fits(json!({"pattern": "(\\w{100}){100}"}), json!("a"));
    }

    /// Nothing it cannot judge is a refusal; a schema that refers to itself
    /// ends; nothing panics.
    #[test]
    fn what_cannot_be_judged_fits_and_nothing_loops() {
        fits(json!({"format": "email"}), json!("b"));
        fits(json!({"$ref": "other.json#/x"}), json!(1));
        fits(
            json!({"type": 7, "required": "x", "properties": []}),
            json!({}),
        );
        assert_eq!(
            fails(json!({"type": "giraffe"}), json!(1)),
            "1 is not of type 'giraffe'"
        );
        let looping = json!({"$ref": "#"});
        fits(looping, json!({"a": 1}));
        let deep =
            json!({"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"});
        fits(deep, json!(1));
        assert_eq!(percent_decoded("/a%25b/%7e%2"), "/a%b/~%2");
        assert_eq!(
            fails(
                json!({"$defs": {"a b": {"type": "string"}}, "$ref": "#/$defs/a%20b"}),
                json!(1)
            ),
            "1 is not of type 'string'"
        );
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

    /// Many faults cost steps too: a long `required` list on a recursive
    /// schema ends within the budget.
    #[test]
    fn many_faults_are_bounded_too() {
        let names: Vec<String> = (0..50_000).map(|i| format!("n{i}")).collect();
        let schema = json!({"required": names, "allOf": [{"$ref": "#"}, {"$ref": "#"}]});
        let wrong = check(&schema, &json!({})).unwrap_err();
        assert_eq!(wrong.message, "'n0' is a required property");
    }

    /// `uniqueItems` compares by value as Python does (`1` is `1.0`, `true`
    /// is not `1`), in time linear in the array.
    #[test]
    fn unique_items_compare_as_python_compares() {
        let unique = json!({"uniqueItems": true});
        assert_eq!(
            fails(unique.clone(), json!([1, 1.0])),
            "[1, 1.0] has non-unique elements"
        );
        fits(unique.clone(), json!([1, true, "1", [1], {"1": 1}]));
        assert!(
            fails(
                unique.clone(),
                json!([{"a": 1, "b": [2]}, {"b": [2.0], "a": 1}])
            )
            .ends_with("has non-unique elements")
        );
        let many: Vec<usize> = (0..100_000).collect();
        fits(unique, json!(many));
    }
}
