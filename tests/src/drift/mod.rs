//! The drift test's reading of the TypeScript Agent SDK's declarations.
//!
//! The SDK pinned in `tests/peer/sdk` (its `claudeCodeVersion` is the CLI
//! pinned in `tests/peer`) ships the CLI's wire types as TypeScript
//! declarations: `sdk.d.ts` (messages, control requests, hook inputs) and
//! `sdk-tools.d.ts` (built-in tool inputs). [`ts`] reads them;
//! [`Declarations::shapes`] resolves references, intersections and unions
//! into the objects a type can be, each with its full set of field names
//! ([`Shape`]); [`Declarations::string_values`] gives the values of a
//! string-literal union; [`check`] compares all that with what the model
//! types and lists what drifted (`tests/tests/drift.rs`).

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::path::PathBuf;

pub mod check;
pub mod ts;

pub use ts::{Decl, Declarations, Member, Object, ParseError, Type};

/// One object a type can be: its fields after every reference,
/// intersection and `extends` is resolved.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Shape {
    /// The name of the declaration it comes from (the innermost named
    /// member of a union of named types, else the outermost name).
    pub name: String,
    /// Its fields by key.
    pub fields: BTreeMap<String, Field>,
    /// `true` when an index signature allows other keys.
    pub open: bool,
}

/// A field of a [`Shape`].
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// `true` when declared with `?:` (in every part that declares it).
    pub optional: bool,
    /// Its declared type (the last part's, when several parts declare it).
    pub ty: Type,
}

impl Shape {
    /// The field names, sorted.
    pub fn field_names(&self) -> Vec<&str> {
        self.fields.keys().map(String::as_str).collect()
    }

    /// The string literal values `key` is declared with (`type: 'system'`
    /// gives `["system"]`); empty when the field is absent or not a
    /// literal.
    pub fn tag(&self, decls: &Declarations, key: &str) -> Vec<String> {
        self.fields
            .get(key)
            .and_then(|f| decls.string_values(&f.ty).ok())
            .map(|v| v.values.into_iter().collect())
            .unwrap_or_default()
    }

    fn merge(&mut self, other: &Shape) {
        for (key, field) in &other.fields {
            match self.fields.get_mut(key) {
                Some(mine) => {
                    mine.optional &= field.optional;
                    mine.ty = field.ty.clone();
                }
                None => {
                    self.fields.insert(key.clone(), field.clone());
                }
            }
        }
        self.open |= other.open;
    }
}

/// The values of a string-literal union.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StringValues {
    /// The literal values.
    pub values: BTreeSet<String>,
    /// `true` when the union also admits any string (`'a' | string`, or the
    /// `'a' | (string & {})` idiom).
    pub open: bool,
}

/// How deep references may nest before a type is taken to be recursive.
const MAX_DEPTH: usize = 64;

/// Utility types whose fields are their argument's.
const SAME_FIELDS: &[&str] = &["Partial", "Required", "Readonly", "NonNullable"];

impl Declarations {
    /// Reads the SDK's two declaration files from `dir` (an installed
    /// `@anthropic-ai/claude-agent-sdk`).
    pub fn read_sdk(dir: &std::path::Path) -> Result<Self, String> {
        let mut all = Declarations::default();
        for file in ["sdk.d.ts", "sdk-tools.d.ts"] {
            let path = dir.join(file);
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let decls =
                Declarations::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            all.extend(decls);
        }
        Ok(all)
    }

    /// The objects the declaration `name` can be (several for a union).
    pub fn shapes_of(&self, name: &str) -> Result<Vec<Shape>, String> {
        self.shapes(&Type::Ref {
            name: name.to_owned(),
            args: vec![],
        })
    }

    /// The objects `ty` can be: a union gives one per member (`null` and
    /// `undefined` members dropped), an intersection merges its parts (a
    /// union inside one gives one shape per combination). Fails on a type
    /// that is not an object (a string, an unknown name, a mapped type).
    pub fn shapes(&self, ty: &Type) -> Result<Vec<Shape>, String> {
        self.shapes_at(ty, 0)
    }

    fn shapes_at(&self, ty: &Type, depth: usize) -> Result<Vec<Shape>, String> {
        if depth > MAX_DEPTH {
            return Err("types nest too deep (a recursive type?)".into());
        }
        match ty {
            Type::Object(object) => {
                let mut shape = Shape {
                    open: object.open,
                    ..Shape::default()
                };
                for m in &object.members {
                    shape.fields.insert(
                        m.name.clone(),
                        Field {
                            optional: m.optional,
                            ty: m.ty.clone(),
                        },
                    );
                }
                Ok(vec![shape])
            }
            Type::Union(parts) => {
                let mut all = Vec::new();
                for part in parts {
                    if matches!(part, Type::Prim(p) if p == "null" || p == "undefined" || p == "never")
                    {
                        continue;
                    }
                    all.extend(self.shapes_at(part, depth + 1)?);
                }
                Ok(all)
            }
            Type::Intersection(parts) => {
                let mut combos = vec![Shape::default()];
                for part in parts {
                    let shapes = self.shapes_at(part, depth + 1)?;
                    let mut next = Vec::new();
                    for combo in &combos {
                        for shape in &shapes {
                            let mut merged = combo.clone();
                            merged.merge(shape);
                            next.push(merged);
                        }
                    }
                    combos = next;
                }
                Ok(combos)
            }
            Type::Ref { name, args } => {
                let bare = name.rsplit('.').next().unwrap_or(name);
                if SAME_FIELDS.contains(&bare) && args.len() == 1 {
                    return self.shapes_at(&args[0], depth + 1);
                }
                let decl = self.decl(name)?;
                let body = decl.instantiate(args);
                let mut shapes = self.shapes_at(&body, depth + 1)?;
                let is_union = matches!(body, Type::Union(_));
                for shape in &mut shapes {
                    if !is_union || shape.name.is_empty() {
                        shape.name = bare.to_owned();
                    }
                }
                Ok(shapes)
            }
            other => Err(format!("not an object type: {}", describe(other))),
        }
    }

    /// The declaration of `name` (a `coreTypes.` style qualifier is
    /// dropped: the files declare each name once).
    pub fn decl(&self, name: &str) -> Result<&Decl, String> {
        let bare = name.rsplit('.').next().unwrap_or(name);
        self.types
            .get(bare)
            .ok_or_else(|| format!("`{name}` is not declared here"))
    }

    /// The values of the string-literal union `ty` (through references,
    /// `typeof` a const tuple and `[number]`); fails when a member is
    /// anything but a string literal, `string`, `null` or `undefined`.
    pub fn string_values(&self, ty: &Type) -> Result<StringValues, String> {
        let mut out = StringValues::default();
        self.collect_strings(ty, &mut out, 0)?;
        Ok(out)
    }

    /// [`Declarations::string_values`] of the declaration `name`.
    pub fn string_values_of(&self, name: &str) -> Result<StringValues, String> {
        self.string_values(&Type::Ref {
            name: name.to_owned(),
            args: vec![],
        })
    }

    fn collect_strings(
        &self,
        ty: &Type,
        out: &mut StringValues,
        depth: usize,
    ) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err("types nest too deep (a recursive type?)".into());
        }
        match ty {
            Type::Str(s) => {
                out.values.insert(s.clone());
            }
            Type::Prim(p) if p == "null" || p == "undefined" || p == "never" => {}
            Type::Prim(p) if p == "string" => out.open = true,
            Type::Union(parts) => {
                for part in parts {
                    self.collect_strings(part, out, depth + 1)?;
                }
            }
            // `string & {}`: any string, kept apart from the literals.
            Type::Intersection(parts)
                if parts
                    .iter()
                    .any(|p| matches!(p, Type::Prim(s) if s == "string")) =>
            {
                out.open = true;
            }
            Type::Ref { name, args } => {
                let decl = self.decl(name)?;
                self.collect_strings(&decl.instantiate(args), out, depth + 1)?;
            }
            Type::Indexed(inner, index) if matches!(&**index, Type::Prim(n) if n == "number") => {
                self.collect_strings(inner, out, depth + 1)?;
            }
            Type::Tuple(items) => {
                for item in items {
                    self.collect_strings(item, out, depth + 1)?;
                }
            }
            Type::Array(item) => self.collect_strings(item, out, depth + 1)?,
            Type::TypeOf(name) => {
                let ty = self
                    .consts
                    .get(name)
                    .ok_or_else(|| format!("const `{name}` is not declared here"))?;
                self.collect_strings(ty, out, depth + 1)?;
            }
            other => return Err(format!("not a string literal type: {}", describe(other))),
        }
        Ok(())
    }

    /// The declared type of a field reached by a path of keys from a named
    /// type (`["SDKSessionStateChangedMessage", "state"]`); where a union
    /// gives several shapes, every shape that has the field contributes.
    pub fn field_type(&self, name: &str, path: &[&str]) -> Result<Type, String> {
        let mut tys = vec![Type::Ref {
            name: name.to_owned(),
            args: vec![],
        }];
        for key in path {
            let mut next = Vec::new();
            for ty in &tys {
                let ty = strip_array(ty);
                for shape in self.shapes(ty)? {
                    if let Some(field) = shape.fields.get(*key) {
                        next.push(field.ty.clone());
                    }
                }
            }
            if next.is_empty() {
                return Err(format!("`{name}` has no field path {}", path.join(".")));
            }
            tys = next;
        }
        Ok(if tys.len() == 1 {
            tys.remove(0)
        } else {
            Type::Union(tys)
        })
    }
}

/// `T[]` gives `T`; a union of arrays and `null` gives its first array's
/// item type; anything else itself.
fn strip_array(ty: &Type) -> &Type {
    match ty {
        Type::Array(item) => item,
        Type::Union(parts) => parts
            .iter()
            .find_map(|p| match p {
                Type::Array(item) => Some(&**item),
                _ => None,
            })
            .unwrap_or(ty),
        other => other,
    }
}

impl Decl {
    /// The declared type with `args` put for its parameters (defaults for
    /// those not given).
    pub fn instantiate(&self, args: &[Type]) -> Type {
        if self.params.is_empty() {
            return self.ty.clone();
        }
        let mut map = BTreeMap::new();
        for (i, (param, default)) in self.params.iter().enumerate() {
            let arg = args
                .get(i)
                .cloned()
                .or_else(|| default.clone())
                .unwrap_or(Type::Prim("unknown".into()));
            map.insert(param.clone(), arg);
        }
        substitute(&self.ty, &map)
    }
}

fn substitute(ty: &Type, map: &BTreeMap<String, Type>) -> Type {
    let all = |tys: &[Type]| tys.iter().map(|t| substitute(t, map)).collect();
    match ty {
        Type::Ref { name, args } if args.is_empty() && map.contains_key(name) => map[name].clone(),
        Type::Ref { name, args } => Type::Ref {
            name: name.clone(),
            args: all(args),
        },
        Type::Object(object) => Type::Object(Object {
            members: object
                .members
                .iter()
                .map(|m| Member {
                    name: m.name.clone(),
                    optional: m.optional,
                    ty: substitute(&m.ty, map),
                })
                .collect(),
            open: object.open,
        }),
        Type::Array(item) => Type::Array(Box::new(substitute(item, map))),
        Type::Tuple(items) => Type::Tuple(all(items)),
        Type::Union(parts) => Type::Union(all(parts)),
        Type::Intersection(parts) => Type::Intersection(all(parts)),
        Type::Indexed(a, b) => {
            Type::Indexed(Box::new(substitute(a, map)), Box::new(substitute(b, map)))
        }
        other => other.clone(),
    }
}

/// A short description of a type, for messages.
pub fn describe(ty: &Type) -> String {
    match ty {
        Type::Prim(p) => p.clone(),
        Type::Str(s) => format!("'{s}'"),
        Type::Num(n) => n.clone(),
        Type::Bool(b) => b.to_string(),
        Type::Ref { name, args } if args.is_empty() => name.clone(),
        Type::Ref { name, args } => format!(
            "{name}<{}>",
            args.iter().map(describe).collect::<Vec<_>>().join(", ")
        ),
        Type::Object(_) => "{...}".into(),
        Type::Array(item) => format!("{}[]", describe(item)),
        Type::Tuple(items) => format!(
            "[{}]",
            items.iter().map(describe).collect::<Vec<_>>().join(", ")
        ),
        Type::Union(parts) => parts.iter().map(describe).collect::<Vec<_>>().join(" | "),
        Type::Intersection(parts) => parts.iter().map(describe).collect::<Vec<_>>().join(" & "),
        Type::TypeOf(name) => format!("typeof {name}"),
        Type::Indexed(a, b) => format!("({})[{}]", describe(a), describe(b)),
        Type::Function => "function".into(),
        Type::Opaque(what) => format!("<{what} type>"),
    }
}

/// Where the SDK's declarations are: `CLAUDE_AGENT_SDK_DIR` when set, else
/// `tests/peer/sdk/node_modules/@anthropic-ai/claude-agent-sdk` (after
/// `npm ci --prefix tests/peer/sdk`).
pub fn sdk_dir() -> PathBuf {
    match std::env::var_os("CLAUDE_AGENT_SDK_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("peer/sdk/node_modules/@anthropic-ai/claude-agent-sdk"),
    }
}

fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// The SDK's declarations, read from [`sdk_dir`], or `None` (after saying
/// so on stderr) when they are not installed. Under CI (`CI` set) a missing
/// SDK is a failure; files that are there but cannot be read always are.
pub fn sdk_declarations() -> Option<Declarations> {
    let dir = sdk_dir();
    if !dir.join("sdk.d.ts").is_file() {
        let how = "install it with `npm ci --prefix tests/peer/sdk` (or point \
                   CLAUDE_AGENT_SDK_DIR at an unpacked @anthropic-ai/claude-agent-sdk)";
        assert!(
            !in_ci(),
            "CI is set but the TypeScript Agent SDK's declarations are missing ({}); {how}",
            dir.display()
        );
        // Straight to stderr: the test harness would swallow eprintln! for a
        // passing test.
        let _ = writeln!(
            std::io::stderr(),
            "\nSKIPPED: the drift test did not run: no sdk.d.ts in {}.\n         To run it, {how}.\n",
            dir.display()
        );
        return None;
    }
    match Declarations::read_sdk(&dir) {
        Ok(decls) => Some(decls),
        Err(e) => panic!("the SDK's declarations cannot be read: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decls(src: &str) -> Declarations {
        Declarations::parse(src).unwrap_or_else(|e| panic!("{e}"))
    }

    const MESSAGES: &str = r#"
export declare type Base = { uuid: string; session_id?: string };
export declare type SDKA = Base & { type: 'a'; x?: number };
export declare type SDKSys = {
    type: 'system';
    subtype: 'init' | 'restart';
    cwd: string;
};
declare type SDKR = SDKROk | SDKRErr;
declare type SDKROk = Base & { type: 'result'; subtype: 'success'; result: string };
declare type SDKRErr = Base & { type: 'result'; subtype: 'error_a' | 'error_b'; errors: string[] };
export interface SDKI extends Base { type: 'i'; readonly list: Array<string> }
declare type G<T> = { type: 'g'; value: T };
export declare type SDKMessage = SDKA | SDKSys | coreTypes.SDKR | SDKI | G<string> | (Base & ({ kind: 1 } | { kind: 2 }));
"#;

    #[test]
    fn a_union_of_messages_resolves_to_named_shapes_with_all_their_fields() {
        let d = decls(MESSAGES);
        let shapes = d.shapes_of("SDKMessage").unwrap();
        let summary: Vec<(String, Vec<String>, Vec<&str>)> = shapes
            .iter()
            .map(|s| (s.name.clone(), s.tag(&d, "type"), s.field_names()))
            .collect();
        assert_eq!(
            summary,
            vec![
                (
                    "SDKA".into(),
                    vec!["a".into()],
                    vec!["session_id", "type", "uuid", "x"]
                ),
                (
                    "SDKSys".into(),
                    vec!["system".into()],
                    vec!["cwd", "subtype", "type"]
                ),
                (
                    "SDKROk".into(),
                    vec!["result".into()],
                    vec!["result", "session_id", "subtype", "type", "uuid"]
                ),
                (
                    "SDKRErr".into(),
                    vec!["result".into()],
                    vec!["errors", "session_id", "subtype", "type", "uuid"]
                ),
                (
                    "SDKI".into(),
                    vec!["i".into()],
                    vec!["list", "session_id", "type", "uuid"]
                ),
                ("G".into(), vec!["g".into()], vec!["type", "value"]),
                (
                    "SDKMessage".into(),
                    vec![],
                    vec!["kind", "session_id", "uuid"]
                ),
                (
                    "SDKMessage".into(),
                    vec![],
                    vec!["kind", "session_id", "uuid"]
                ),
            ]
        );
        assert_eq!(shapes[1].tag(&d, "subtype"), vec!["init", "restart"]);
        assert_eq!(shapes[3].tag(&d, "subtype"), vec!["error_a", "error_b"]);
        assert!(shapes[0].fields["session_id"].optional);
        assert!(!shapes[0].fields["uuid"].optional);
        assert_eq!(shapes[5].fields["value"].ty, Type::Prim("string".into()));
    }

    #[test]
    fn string_values_through_aliases_consts_and_the_open_idiom() {
        let d = decls(
            "declare const EVENTS: readonly ['A', 'B'];\n\
             type Ev = (typeof EVENTS)[number];\n\
             type Mode = 'x' | 'y' | null;\n\
             type Open = Mode | 'z' | (string & {});\n\
             type Bad = 'x' | number;",
        );
        let ev = d.string_values_of("Ev").unwrap();
        assert_eq!(ev.values.iter().collect::<Vec<_>>(), ["A", "B"]);
        assert!(!ev.open);
        let open = d.string_values_of("Open").unwrap();
        assert_eq!(open.values.iter().collect::<Vec<_>>(), ["x", "y", "z"]);
        assert!(open.open);
        assert!(d.string_values_of("Bad").unwrap_err().contains("number"));
    }

    #[test]
    fn a_field_type_is_found_by_its_path() {
        let d = decls(
            "type M = { type: 'm'; state: 'idle' | 'busy'; items: Item[] | null };\n\
             type Item = { kind: 'k1' | 'k2' };",
        );
        let state = d.field_type("M", &["state"]).unwrap();
        assert_eq!(d.string_values(&state).unwrap().values.len(), 2);
        let kind = d.field_type("M", &["items", "kind"]).unwrap();
        assert_eq!(
            d.string_values(&kind)
                .unwrap()
                .values
                .iter()
                .collect::<Vec<_>>(),
            ["k1", "k2"]
        );
        assert!(d.field_type("M", &["nope"]).is_err());
    }

    #[test]
    fn a_non_object_member_or_unknown_name_is_an_error_not_a_silent_gap() {
        let d = decls("type U = { a: 1 } | string | Missing;");
        let err = d.shapes_of("U").unwrap_err();
        assert!(err.contains("string"), "{err}");
        let d = decls("type U = { a: 1 } | Missing;");
        assert!(d.shapes_of("U").unwrap_err().contains("Missing"));
    }
}
