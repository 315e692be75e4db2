//! The comparison: what the SDK's declarations state against what the
//! model types, as plain data, so it can be tested without the model.
//!
//! The caller (`tests/tests/drift.rs`) describes the model with a [`Model`]:
//! which TypeScript declaration each Rust struct types and the keys it
//! reads ([`Model::structs`]), the tag values each tagged enum has typed
//! variants for ([`Dispatch`]), and the values each open string enum knows
//! ([`Values`]). It then lists what must be covered ([`Coverage`]). The
//! [`check`] collects every difference as a [`Drift`] with a stable key
//! (`SDKFooMessage`, `SDKFooMessage.bar`, `PermissionMode = 'x'`), sets
//! aside those the allowlist names, and returns the whole [`Report`].

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::{Declarations, Shape, Type, describe};

/// A Rust struct of the model and the JSON keys it types.
#[derive(Debug, Clone, PartialEq)]
pub struct Typed {
    /// Its path under `claude_proto::model` (`assistant::AssistantMessage`).
    pub rust: &'static str,
    /// Every key it reads into a typed field (flattened members and tag
    /// keys included).
    pub fields: Vec<&'static str>,
}

/// A tagged enum of the model: which tag values have typed variants.
#[derive(Debug, Clone, PartialEq)]
pub struct Dispatch {
    /// Its path under `claude_proto::model` (`system::SystemMessage`).
    pub rust: &'static str,
    /// The key whose value picks the variant.
    pub tag: &'static str,
    /// The values with a typed variant.
    pub variants: Vec<&'static str>,
    /// Applies only to declarations whose key (first) has this literal
    /// value (second): `system` subtypes are chosen among `type: 'system'`
    /// messages only.
    pub when: Option<(&'static str, &'static str)>,
}

/// An open string enum of the model and the string-literal union it types.
#[derive(Debug, Clone, PartialEq)]
pub struct Values {
    /// Where the SDK states the values: a declaration (`PermissionMode`), a
    /// const (`HOOK_EVENTS`), a field path (`SDKStatusMessage.status`), or
    /// the tag values of a union's members (`SDKResultMessage:subtype`).
    pub ts: &'static str,
    /// Its path under `claude_proto::model`.
    pub rust: &'static str,
    /// The values it knows.
    pub values: Vec<&'static str>,
}

/// What the model types, described for the comparison.
#[derive(Debug, Clone, Default)]
pub struct Model {
    /// TypeScript declaration name to the struct that types it.
    pub structs: BTreeMap<&'static str, Typed>,
    /// Open string enums.
    pub values: Vec<Values>,
}

/// A family of declarations that must each be typed: the messages of
/// stdout, the control requests, the hook inputs, the tool inputs.
#[derive(Debug, Clone)]
pub struct Coverage {
    /// What they are, for the report (`stdout message`).
    pub label: &'static str,
    /// Where they are: the shapes of each named type (a union gives one
    /// per member).
    pub from: Vec<&'static str>,
    /// When set, each of `from` is a union of names and only the members
    /// whose name ends so are taken, each resolved on its own (`Input`
    /// keeps `sdk-tools.d.ts`'s inputs and drops its outputs); `None` takes
    /// every shape of each of `from`.
    pub suffix: Option<&'static str>,
    /// The enums that choose among them; a shape's tag value must have a
    /// typed variant in one of those that apply to it.
    pub rules: Vec<Dispatch>,
}

/// What kind of difference a [`Drift`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// A declaration (message type, control subtype, hook event, tool
    /// input) with no typed variant or struct.
    Type,
    /// A field the typed struct does not type.
    Field,
    /// A string-literal value an open string enum does not know.
    Value,
    /// A declaration the SDK no longer has, or one this reader cannot
    /// resolve: the test's own tables need a look.
    Table,
}

impl Kind {
    fn heading(self) -> &'static str {
        match self {
            Kind::Type => "declared types with no typed variant or struct",
            Kind::Field => "fields not typed by their struct",
            Kind::Value => "values not known to their string enum",
            Kind::Table => "declarations the test's tables name but cannot find or read",
        }
    }
}

/// One difference between the SDK's declarations and the model.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Drift {
    /// Its kind.
    pub kind: Kind,
    /// The name an allowlist entry uses: `SDKFooMessage`,
    /// `SDKFooMessage.bar`, `PermissionMode = 'x'`.
    pub key: String,
    /// What is wrong, for a reader.
    pub detail: String,
}

/// The outcome of [`check`].
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Differences the allowlist does not name.
    pub drifts: Vec<Drift>,
    /// Differences the allowlist names, with its reason.
    pub allowed: Vec<(Drift, &'static str)>,
    /// Allowlist entries that matched nothing (fixed, or renamed).
    pub stale: Vec<&'static str>,
}

impl Report {
    /// `true` when nothing drifted and every allowlist entry was used.
    pub fn is_clean(&self) -> bool {
        self.drifts.is_empty() && self.stale.is_empty()
    }

    /// Every key that drifted (allowlisted ones excluded).
    pub fn keys(&self) -> Vec<&str> {
        self.drifts.iter().map(|d| d.key.as_str()).collect()
    }

    /// The whole report, grouped by kind, for a failure message.
    pub fn render(&self) -> String {
        let mut out = String::new();
        if !self.drifts.is_empty() {
            let _ = writeln!(
                out,
                "{} difference(s) between the SDK's declarations and the model:",
                self.drifts.len()
            );
            let mut kind = None;
            for drift in &self.drifts {
                if kind != Some(drift.kind) {
                    kind = Some(drift.kind);
                    let _ = writeln!(out, "\n  {}:", drift.kind.heading());
                }
                let _ = writeln!(out, "    - {}: {}", drift.key, drift.detail);
            }
        }
        if !self.stale.is_empty() {
            let _ = writeln!(
                out,
                "\n  allowlist entries that match nothing any more (remove them):"
            );
            for key in &self.stale {
                let _ = writeln!(out, "    - {key}");
            }
        }
        if !out.is_empty() {
            out.push_str(
                "\nType each in the model, or allowlist its key in tests/tests/drift.rs \
                 with the reason it stays raw.\n",
            );
        }
        out
    }
}

/// Compares the declarations with the model: every family in `coverage`,
/// every struct of [`Model::structs`] field by field, every
/// [`Model::values`]. `allow` holds `(key, reason)` pairs.
pub fn check(
    decls: &Declarations,
    model: &Model,
    coverage: &[Coverage],
    allow: &[(&'static str, &'static str)],
) -> Report {
    let mut found = BTreeSet::new();
    let mut checked_fields = BTreeSet::new();
    for family in coverage {
        cover(decls, model, family, &mut found, &mut checked_fields);
    }
    // Structs outside the families (nested objects, responses): fields only.
    for (ts, typed) in &model.structs {
        if checked_fields.contains(*ts) {
            continue;
        }
        match decls.shapes_of(ts) {
            Ok(shapes) => {
                for shape in shapes {
                    compare_fields(&shape, ts, typed, &[], &mut found);
                }
            }
            Err(e) => {
                found.insert(Drift {
                    kind: Kind::Table,
                    key: (*ts).to_owned(),
                    detail: format!("typed by {}, but {e}", typed.rust),
                });
            }
        }
    }
    for values in &model.values {
        compare_values(decls, values, &mut found);
    }

    let mut report = Report::default();
    let mut used = BTreeSet::new();
    for drift in found {
        match allow.iter().find(|(key, _)| *key == drift.key) {
            Some((key, reason)) => {
                used.insert(*key);
                report.allowed.push((drift, reason));
            }
            None => report.drifts.push(drift),
        }
    }
    report.stale = allow
        .iter()
        .map(|(key, _)| *key)
        .filter(|key| !used.contains(key))
        .collect();
    report
}

fn cover(
    decls: &Declarations,
    model: &Model,
    family: &Coverage,
    found: &mut BTreeSet<Drift>,
    checked_fields: &mut BTreeSet<String>,
) {
    let mut sources: Vec<String> = Vec::new();
    for source in &family.from {
        match family.suffix {
            None => sources.push((*source).to_owned()),
            Some(suffix) => match decls.decl(source).map(|d| &d.ty) {
                Ok(Type::Union(members)) => {
                    sources.extend(members.iter().filter_map(|m| match m {
                        Type::Ref { name, .. } if name.ends_with(suffix) => Some(name.clone()),
                        _ => None,
                    }))
                }
                Ok(other) => {
                    found.insert(Drift {
                        kind: Kind::Table,
                        key: (*source).to_owned(),
                        detail: format!(
                            "the {}s are listed here, but it is not a union of names: {}",
                            family.label,
                            describe(other)
                        ),
                    });
                }
                Err(e) => {
                    found.insert(Drift {
                        kind: Kind::Table,
                        key: (*source).to_owned(),
                        detail: format!("the {}s are listed here, but {e}", family.label),
                    });
                }
            },
        }
    }
    for source in &sources {
        let source = source.as_str();
        let shapes = match decls.shapes_of(source) {
            Ok(shapes) => shapes,
            Err(e) => {
                found.insert(Drift {
                    kind: Kind::Table,
                    key: source.to_owned(),
                    detail: format!("a {}, but {e}", family.label),
                });
                continue;
            }
        };
        for shape in shapes {
            let name = if shape.name.is_empty() {
                source.to_owned()
            } else {
                shape.name.clone()
            };
            let tags = tag_summary(decls, &shape, &family.rules);
            // Does an enum that applies give every tag value a variant?
            let mut untyped = Vec::new();
            let mut tag_keys = Vec::new();
            let mut by_key: BTreeMap<&str, Vec<&Dispatch>> = BTreeMap::new();
            for rule in &family.rules {
                let applies = rule
                    .when
                    .is_none_or(|(key, value)| shape.tag(decls, key).iter().any(|v| v == value));
                if applies {
                    by_key.entry(rule.tag).or_default().push(rule);
                }
            }
            for (key, rules) in &by_key {
                let values = shape.tag(decls, key);
                if values.is_empty() {
                    continue;
                }
                tag_keys.push(*key);
                for value in values {
                    if !rules.iter().any(|r| r.variants.contains(&value.as_str())) {
                        let enums: Vec<&str> = rules.iter().map(|r| r.rust).collect();
                        untyped.push(format!(
                            "{key} '{value}' has no typed variant in {}",
                            enums.join(" or ")
                        ));
                    }
                }
            }
            if !untyped.is_empty() {
                found.insert(Drift {
                    kind: Kind::Type,
                    key: name.clone(),
                    detail: format!("{} ({})", family.label, untyped.join("; ")),
                });
                continue;
            }
            let Some(typed) = model.structs.get(name.as_str()) else {
                found.insert(Drift {
                    kind: Kind::Type,
                    key: name.clone(),
                    detail: format!(
                        "{}{tags}: no struct of the model is named for it",
                        family.label
                    ),
                });
                continue;
            };
            checked_fields.insert(name.clone());
            compare_fields(&shape, &name, typed, &tag_keys, found);
        }
    }
}

fn tag_summary(decls: &Declarations, shape: &Shape, rules: &[Dispatch]) -> String {
    let mut keys: Vec<&str> = rules.iter().map(|r| r.tag).collect();
    for rule in rules {
        if let Some((key, _)) = rule.when {
            keys.push(key);
        }
    }
    keys.sort_unstable();
    keys.dedup();
    let parts: Vec<String> = keys
        .iter()
        .filter_map(|key| {
            let values = shape.tag(decls, key);
            (!values.is_empty()).then(|| format!("{key} '{}'", values.join("' | '")))
        })
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
    }
}

fn compare_fields(
    shape: &Shape,
    ts: &str,
    typed: &Typed,
    tag_keys: &[&str],
    found: &mut BTreeSet<Drift>,
) {
    for (key, field) in &shape.fields {
        if typed.fields.contains(&key.as_str()) || tag_keys.contains(&key.as_str()) {
            continue;
        }
        found.insert(Drift {
            kind: Kind::Field,
            key: format!("{ts}.{key}"),
            detail: format!(
                "{}{}: not a field of {}",
                if field.optional { "optional, " } else { "" },
                describe_short(&field.ty),
                typed.rust
            ),
        });
    }
}

fn describe_short(ty: &Type) -> String {
    let text = describe(ty);
    if text.chars().count() > 60 {
        let cut: String = text.chars().take(57).collect();
        format!("{cut}...")
    } else {
        text
    }
}

/// The string values a [`Values::ts`] source states.
pub fn source_values(decls: &Declarations, source: &str) -> Result<BTreeSet<String>, String> {
    if let Some((union, key)) = source.split_once(':') {
        let mut all = BTreeSet::new();
        for shape in decls.shapes_of(union)? {
            all.extend(shape.tag(decls, key));
        }
        if all.is_empty() {
            return Err(format!("no member of `{union}` has a literal `{key}`"));
        }
        return Ok(all);
    }
    let mut path = source.split('.');
    let name = path.next().unwrap_or(source);
    let path: Vec<&str> = path.collect();
    let ty = if !path.is_empty() {
        decls.field_type(name, &path)?
    } else if decls.types.contains_key(name) {
        Type::Ref {
            name: name.to_owned(),
            args: vec![],
        }
    } else {
        Type::TypeOf(name.to_owned())
    };
    let values = decls.string_values(&ty)?.values;
    if values.is_empty() {
        return Err(format!(
            "`{source}` declares no string literal, only {}",
            describe(&ty)
        ));
    }
    Ok(values)
}

fn compare_values(decls: &Declarations, values: &Values, found: &mut BTreeSet<Drift>) {
    match source_values(decls, values.ts) {
        Ok(ts_values) => {
            for value in ts_values {
                if !values.values.contains(&value.as_str()) {
                    found.insert(Drift {
                        kind: Kind::Value,
                        key: format!("{} = '{value}'", values.ts),
                        detail: format!("not a value of {}", values.rust),
                    });
                }
            }
        }
        Err(e) => {
            found.insert(Drift {
                kind: Kind::Table,
                key: values.ts.to_owned(),
                detail: format!("typed by {}, but {e}", values.rust),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SDK: &str = r#"
declare type Base = { uuid: string; session_id: string };
export declare type SDKAssistantMessage = Base & { type: 'assistant'; message: unknown; parent_tool_use_id: string | null };
export declare type SDKInitMessage = Base & { type: 'system'; subtype: 'init'; cwd: string; permissionMode: PermissionMode };
export declare type SDKNewMessage = Base & { type: 'system'; subtype: 'brand_new' };
export declare type SDKResultMessage = (Base & { type: 'result'; subtype: 'success' }) | (Base & { type: 'result'; subtype: 'error_x' });
export declare type SDKMessage = SDKAssistantMessage | SDKInitMessage | SDKNewMessage | SDKResultMessage;
export declare type PermissionMode = 'default' | 'plan' | 'auto';
declare type SDKControlInterruptRequest = { subtype: 'interrupt' };
declare type SDKControlPermissionRequest = { subtype: 'can_use_tool'; tool_name: string; input: Record<string, unknown> };
declare type SDKControlRequestInner = SDKControlInterruptRequest | SDKControlPermissionRequest;
"#;

    fn decls() -> Declarations {
        Declarations::parse(SDK).unwrap_or_else(|e| panic!("{e}"))
    }

    fn model() -> Model {
        let mut structs = BTreeMap::new();
        structs.insert(
            "SDKAssistantMessage",
            Typed {
                rust: "assistant::AssistantMessage",
                fields: vec![
                    "type",
                    "message",
                    "parent_tool_use_id",
                    "uuid",
                    "session_id",
                ],
            },
        );
        structs.insert(
            "SDKInitMessage",
            Typed {
                rust: "system::InitMessage",
                fields: vec!["type", "cwd", "permissionMode", "uuid", "session_id"],
            },
        );
        structs.insert(
            "SDKResultMessage",
            Typed {
                rust: "result::ResultMessage",
                fields: vec!["type", "subtype", "uuid", "session_id"],
            },
        );
        structs.insert(
            "SDKControlInterruptRequest",
            Typed {
                rust: "control::InterruptRequest",
                fields: vec![],
            },
        );
        structs.insert(
            "SDKControlPermissionRequest",
            Typed {
                rust: "incoming::CanUseTool",
                fields: vec!["tool_name", "input"],
            },
        );
        Model {
            structs,
            values: vec![
                Values {
                    ts: "PermissionMode",
                    rust: "permission::PermissionMode",
                    values: vec!["default", "plan", "auto"],
                },
                Values {
                    ts: "SDKResultMessage:subtype",
                    rust: "result::ResultSubtype",
                    values: vec!["success", "error_x"],
                },
            ],
        }
    }

    fn coverage() -> Vec<Coverage> {
        vec![
            Coverage {
                label: "stdout message",
                from: vec!["SDKMessage"],
                suffix: None,
                rules: vec![
                    Dispatch {
                        rust: "stdout::StdoutMessage",
                        tag: "type",
                        variants: vec!["assistant", "system", "result"],
                        when: None,
                    },
                    Dispatch {
                        rust: "system::SystemMessage",
                        tag: "subtype",
                        variants: vec!["init"],
                        when: Some(("type", "system")),
                    },
                ],
            },
            Coverage {
                label: "control request",
                from: vec!["SDKControlRequestInner"],
                suffix: None,
                rules: vec![
                    Dispatch {
                        rust: "control::ControlRequest",
                        tag: "subtype",
                        variants: vec!["interrupt"],
                        when: None,
                    },
                    Dispatch {
                        rust: "incoming::CliRequest",
                        tag: "subtype",
                        variants: vec!["can_use_tool"],
                        when: None,
                    },
                ],
            },
        ]
    }

    const ALLOW: &[(&str, &str)] = &[("SDKNewMessage", "a test entry")];

    #[test]
    fn a_model_that_types_everything_gives_a_clean_report() {
        let report = check(&decls(), &model(), &coverage(), ALLOW);
        assert!(report.is_clean(), "{}", report.render());
        assert_eq!(report.allowed.len(), 1);
        assert_eq!(report.allowed[0].0.key, "SDKNewMessage");
        assert_eq!(report.render(), "");
    }

    #[test]
    fn every_kind_of_drift_is_named_at_once() {
        // The SDK grows: a field, a message type, a control subtype, a value.
        let grown = SDK
            .replace("cwd: string;", "cwd: string; fast_mode?: boolean;")
            .replace("'default' | 'plan' | 'auto'", "'default' | 'plan' | 'auto' | 'yolo'")
            .replace(
                "export declare type SDKMessage = ",
                "export declare type SDKFreshMessage = Base & { type: 'fresh' };\nexport declare type SDKMessage = SDKFreshMessage | ",
            )
            .replace(
                "declare type SDKControlRequestInner = ",
                "declare type SDKControlFlyRequest = { subtype: 'fly' };\ndeclare type SDKControlRequestInner = SDKControlFlyRequest | ",
            );
        let decls = Declarations::parse(&grown).unwrap();
        let report = check(&decls, &model(), &coverage(), ALLOW);
        assert_eq!(
            report.keys(),
            [
                "SDKControlFlyRequest",
                "SDKFreshMessage",
                "SDKInitMessage.fast_mode",
                "PermissionMode = 'yolo'",
            ]
        );
        let text = report.render();
        for needle in [
            "SDKFreshMessage: stdout message (type 'fresh' has no typed variant in stdout::StdoutMessage)",
            "SDKControlFlyRequest: control request (subtype 'fly' has no typed variant in control::ControlRequest or incoming::CliRequest)",
            "SDKInitMessage.fast_mode: optional, boolean: not a field of system::InitMessage",
            "PermissionMode = 'yolo': not a value of permission::PermissionMode",
        ] {
            assert!(text.contains(needle), "{needle:?} missing from:\n{text}");
        }
    }

    #[test]
    fn a_typed_tag_without_a_struct_and_a_vanished_declaration_are_reported() {
        let mut model = model();
        model.structs.remove("SDKInitMessage");
        model.structs.insert(
            "SDKGoneMessage",
            Typed {
                rust: "misc::Gone",
                fields: vec![],
            },
        );
        let report = check(&decls(), &model, &coverage(), ALLOW);
        assert_eq!(report.keys(), ["SDKInitMessage", "SDKGoneMessage"]);
        assert_eq!(report.drifts[1].kind, Kind::Table);
        assert!(
            report.drifts[0]
                .detail
                .contains("(subtype 'init', type 'system')"),
            "{:?}",
            report.drifts[0]
        );
    }

    #[test]
    fn an_allowlist_entry_that_matches_nothing_is_stale() {
        let allow = [
            ("SDKNewMessage", "a test entry"),
            ("SDKOldMessage.x", "was raw once"),
        ];
        let report = check(&decls(), &model(), &coverage(), &allow);
        assert!(!report.is_clean());
        assert_eq!(report.stale, ["SDKOldMessage.x"]);
        assert!(report.render().contains("match nothing any more"));
    }

    #[test]
    fn tag_keys_the_enum_reads_need_not_be_struct_fields() {
        // `subtype` of a control request is read by the enum, not the struct.
        let report = check(&decls(), &model(), &coverage(), ALLOW);
        assert!(!report.keys().iter().any(|k| k.ends_with(".subtype")));
    }
}
