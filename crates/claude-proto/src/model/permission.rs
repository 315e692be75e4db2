//! Permission modes, rules and the answer to a `can_use_tool` request.
//!
//! When the CLI wants to run a tool that is not already allowed, it asks the
//! host with a `can_use_tool` control request (see
//! [`CanUseTool`](super::incoming::CanUseTool)); the host answers with a
//! [`PermissionResult`]. Both sides describe rule changes with
//! [`PermissionUpdate`]: the CLI offers them as suggestions, the host may send
//! some back to make a decision stick.

use super::open_enum::open_enum;
use super::wire::wire_struct;
use serde::{Deserialize, Deserializer, Serialize};

use super::common::{Extra, Json, string_enum};

/// Deserializes a present field as `Some`, even when its value is `null`.
///
/// Combined with `#[serde(default, skip_serializing_if = "Option::is_none")]`
/// on an `Option<Json>` field, an absent key stays absent and an explicit
/// `null` survives as `Some(Json::Null)`, keeping the round trip lossless.
pub(crate) fn deserialize_some<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

string_enum! {
    /// How the CLI decides whether a tool call needs the host's approval.
    ///
    /// Set at launch, changed with the `set_permission_mode` control request,
    /// and reported back in several messages.
    pub enum PermissionMode {
        /// Ask for anything not covered by an allow rule.
        Default = "default",
        /// File edits are accepted without asking.
        AcceptEdits = "acceptEdits",
        /// Nothing is asked; every tool call is allowed (needs the CLI to be
        /// launched with dangerous permission skipping allowed).
        BypassPermissions = "bypassPermissions",
        /// Planning only: the model may read but not change anything.
        Plan = "plan",
        /// Never ask: calls that would need a prompt are denied.
        DontAsk = "dontAsk",
        /// A classifier decides instead of the user.
        Auto = "auto",
    }
}

string_enum! {
    /// What a permission rule does with a matching tool call.
    pub enum PermissionBehavior {
        /// Run the call without asking.
        Allow = "allow",
        /// Refuse the call.
        Deny = "deny",
        /// Ask the host (or user) each time.
        Ask = "ask",
    }
}

string_enum! {
    /// Where a permission update is stored.
    pub enum PermissionUpdateDestination {
        /// The user's global settings file.
        UserSettings = "userSettings",
        /// The project's shared settings file.
        ProjectSettings = "projectSettings",
        /// The project's local (not committed) settings file.
        LocalSettings = "localSettings",
        /// Only the current session, nothing written to disk.
        Session = "session",
        /// As if it had been given on the command line.
        CliArg = "cliArg",
    }
}

string_enum! {
    /// How a host's permission decision should be classified (for
    /// analytics and for remembering it).
    pub enum PermissionDecisionClassification {
        /// Allowed for this call only.
        UserTemporary = "user_temporary",
        /// Allowed from now on.
        UserPermanent = "user_permanent",
        /// Rejected by the user.
        UserReject = "user_reject",
    }
}

wire_struct! {
    /// One permission rule: a tool name and an optional pattern for its input
    /// (`{"toolName":"Bash","ruleContent":"npm test"}` is the rule `Bash(npm test)`).
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct PermissionRuleValue {
        /// The tool the rule applies to, e.g. `Bash` or `mcp__server__tool`.
        #[serde(rename = "toolName")]
        pub tool_name: String,
        /// The pattern inside the parentheses; absent means "any use of the tool".
        #[serde(
            rename = "ruleContent",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub rule_content: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl PermissionRuleValue {
    /// A rule covering every use of `tool_name`.
    pub fn new(tool_name: impl Into<String>) -> Self {
        Self {
            tool_name: tool_name.into(),
            ..Self::default()
        }
    }

    /// Restricts the rule to inputs matching `content`.
    pub fn with_content(mut self, content: impl Into<String>) -> Self {
        self.rule_content = Some(content.into());
        self
    }
}

wire_struct! {
    /// Body of the `addRules`, `replaceRules` and `removeRules` updates.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct PermissionRulesUpdate {
        /// The rules to add, replace with, or remove.
        pub rules: Vec<PermissionRuleValue>,
        /// Which rule list (allow, deny or ask) is changed.
        pub behavior: PermissionBehavior,
        /// Where the change is stored.
        pub destination: PermissionUpdateDestination,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Body of the `setMode` update.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct PermissionModeUpdate {
        /// The permission mode to switch to.
        pub mode: PermissionMode,
        /// Where the change is stored.
        pub destination: PermissionUpdateDestination,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Body of the `addDirectories` and `removeDirectories` updates.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct PermissionDirectoriesUpdate {
        /// Directories the tools may (or may no longer) work in.
        pub directories: Vec<String>,
        /// Where the change is stored.
        pub destination: PermissionUpdateDestination,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

open_enum! {
    /// A change to the permission configuration, tagged by `type`.
    ///
    /// The CLI sends these as suggestions in `can_use_tool`; the host can return
    /// them in [`PermissionAllow::updated_permissions`] to apply them.
    #[derive(Debug, Clone, PartialEq)]
    pub enum PermissionUpdate tagged "type" {
        /// An update this crate does not know (or could not read), kept as is.
        Unknown;
        /// Add rules to a list.
        AddRules(PermissionRulesUpdate) = "addRules",
        /// Replace a whole list with the given rules.
        ReplaceRules(PermissionRulesUpdate) = "replaceRules",
        /// Remove rules from a list.
        RemoveRules(PermissionRulesUpdate) = "removeRules",
        /// Change the permission mode.
        SetMode(PermissionModeUpdate) = "setMode",
        /// Give tools access to more directories.
        AddDirectories(PermissionDirectoriesUpdate) = "addDirectories",
        /// Take directory access away.
        RemoveDirectories(PermissionDirectoriesUpdate) = "removeDirectories",
    }
}

impl PermissionUpdate {
    fn rules(
        rules: Vec<PermissionRuleValue>,
        behavior: PermissionBehavior,
        destination: PermissionUpdateDestination,
    ) -> PermissionRulesUpdate {
        PermissionRulesUpdate {
            rules,
            behavior,
            destination,
            extra: Extra::new(),
        }
    }

    /// `addRules`: add `rules` to the `behavior` list stored in `destination`.
    pub fn add_rules(
        rules: Vec<PermissionRuleValue>,
        behavior: PermissionBehavior,
        destination: PermissionUpdateDestination,
    ) -> Self {
        Self::AddRules(Self::rules(rules, behavior, destination))
    }

    /// `replaceRules`: make `rules` the whole `behavior` list in `destination`.
    pub fn replace_rules(
        rules: Vec<PermissionRuleValue>,
        behavior: PermissionBehavior,
        destination: PermissionUpdateDestination,
    ) -> Self {
        Self::ReplaceRules(Self::rules(rules, behavior, destination))
    }

    /// `removeRules`: drop `rules` from the `behavior` list in `destination`.
    pub fn remove_rules(
        rules: Vec<PermissionRuleValue>,
        behavior: PermissionBehavior,
        destination: PermissionUpdateDestination,
    ) -> Self {
        Self::RemoveRules(Self::rules(rules, behavior, destination))
    }

    /// `setMode`: switch to `mode`.
    pub fn set_mode(mode: PermissionMode, destination: PermissionUpdateDestination) -> Self {
        Self::SetMode(PermissionModeUpdate {
            mode,
            destination,
            extra: Extra::new(),
        })
    }

    /// `addDirectories`: let tools work in `directories`.
    pub fn add_directories(
        directories: Vec<String>,
        destination: PermissionUpdateDestination,
    ) -> Self {
        Self::AddDirectories(PermissionDirectoriesUpdate {
            directories,
            destination,
            extra: Extra::new(),
        })
    }

    /// `removeDirectories`: stop tools working in `directories`.
    pub fn remove_directories(
        directories: Vec<String>,
        destination: PermissionUpdateDestination,
    ) -> Self {
        Self::RemoveDirectories(PermissionDirectoriesUpdate {
            directories,
            destination,
            extra: Extra::new(),
        })
    }

    /// Where the update is stored, when it is a known update.
    pub fn destination(&self) -> Option<&PermissionUpdateDestination> {
        match self {
            Self::AddRules(u) | Self::ReplaceRules(u) | Self::RemoveRules(u) => {
                Some(&u.destination)
            }
            Self::SetMode(u) => Some(&u.destination),
            Self::AddDirectories(u) | Self::RemoveDirectories(u) => Some(&u.destination),
            Self::Unknown(_) => None,
        }
    }
}

wire_struct! {
    /// The `allow` answer to `can_use_tool`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct PermissionAllow {
        /// Replacement tool input; absent means "run with the original input".
        #[serde(
            rename = "updatedInput",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub updated_input: Option<Json>,
        /// Permission changes to apply alongside this decision (for example the
        /// suggestion "always allow this command").
        #[serde(
            rename = "updatedPermissions",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub updated_permissions: Option<Vec<PermissionUpdate>>,
        /// The `tool_use_id` of the request being answered.
        #[serde(rename = "toolUseID", default, skip_serializing_if = "Option::is_none")]
        pub tool_use_id: Option<String>,
        /// How the decision should be classified.
        #[serde(
            rename = "decisionClassification",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub decision_classification: Option<PermissionDecisionClassification>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// The `deny` answer to `can_use_tool`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct PermissionDeny {
        /// Why the call was refused; the model sees it as the tool's error.
        pub message: String,
        /// `true` also stops the current turn instead of letting the model retry.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub interrupt: Option<bool>,
        /// The `tool_use_id` of the request being answered.
        #[serde(rename = "toolUseID", default, skip_serializing_if = "Option::is_none")]
        pub tool_use_id: Option<String>,
        /// How the decision should be classified.
        #[serde(
            rename = "decisionClassification",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub decision_classification: Option<PermissionDecisionClassification>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

open_enum! {
    /// The host's answer to a `can_use_tool` request, tagged by `behavior`.
    ///
    /// Build it with [`PermissionResult::allow`] or [`PermissionResult::deny`]
    /// and the `with_*` methods:
    ///
    /// ```
    /// use claude_proto::model::permission::PermissionResult;
    /// let answer = PermissionResult::deny("not in this directory").with_interrupt(true);
    /// assert_eq!(
    ///     serde_json::to_value(&answer).unwrap(),
    ///     serde_json::json!({"behavior":"deny","message":"not in this directory","interrupt":true}),
    /// );
    /// ```
    #[derive(Debug, Clone, PartialEq)]
    pub enum PermissionResult tagged "behavior" {
        /// An answer this crate does not know, kept as is.
        Unknown;
        /// Let the tool run.
        Allow(PermissionAllow) = "allow",
        /// Refuse the tool call.
        Deny(PermissionDeny) = "deny",
    }
}

impl PermissionResult {
    /// Allow the call with its original input (`{"behavior":"allow"}`).
    pub fn allow() -> Self {
        Self::Allow(PermissionAllow::default())
    }

    /// Deny the call; `message` is shown to the model.
    pub fn deny(message: impl Into<String>) -> Self {
        Self::Deny(PermissionDeny {
            message: message.into(),
            ..PermissionDeny::default()
        })
    }

    /// Runs the tool with `input` instead of the requested input.
    /// Only affects an allow answer.
    pub fn with_updated_input(mut self, input: Json) -> Self {
        if let Self::Allow(a) = &mut self {
            a.updated_input = Some(input);
        }
        self
    }

    /// Applies `updates` together with the decision. Only affects an allow
    /// answer.
    pub fn with_updated_permissions(mut self, updates: Vec<PermissionUpdate>) -> Self {
        if let Self::Allow(a) = &mut self {
            a.updated_permissions = Some(updates);
        }
        self
    }

    /// Whether a denial also stops the turn. Only affects a deny answer.
    pub fn with_interrupt(mut self, interrupt: bool) -> Self {
        if let Self::Deny(d) = &mut self {
            d.interrupt = Some(interrupt);
        }
        self
    }

    /// Echoes the request's `tool_use_id` (the TypeScript SDK always does).
    pub fn with_tool_use_id(mut self, id: impl Into<String>) -> Self {
        match &mut self {
            Self::Allow(a) => a.tool_use_id = Some(id.into()),
            Self::Deny(d) => d.tool_use_id = Some(id.into()),
            Self::Unknown(_) => {}
        }
        self
    }

    /// Sets how the decision is classified.
    pub fn with_classification(mut self, class: PermissionDecisionClassification) -> Self {
        match &mut self {
            Self::Allow(a) => a.decision_classification = Some(class),
            Self::Deny(d) => d.decision_classification = Some(class),
            Self::Unknown(_) => {}
        }
        self
    }

    /// `true` for an allow answer.
    pub fn is_allow(&self) -> bool {
        matches!(self, Self::Allow(_))
    }

    /// The echoed `toolUseID`, if set.
    pub fn tool_use_id(&self) -> Option<&str> {
        match self {
            Self::Allow(a) => a.tool_use_id.as_deref(),
            Self::Deny(d) => d.tool_use_id.as_deref(),
            Self::Unknown(v) => v.get("toolUseID").and_then(Json::as_str),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn round_trip<T>(value: Json) -> T
    where
        T: serde::de::DeserializeOwned + Serialize,
    {
        let typed: T = crate::model::from_value(&value).expect("decode");
        let back = serde_json::to_value(&typed).expect("encode");
        assert_eq!(back, value);
        typed
    }

    #[test]
    fn permission_mode_values() {
        let m: PermissionMode = serde_json::from_value(json!("acceptEdits")).unwrap();
        assert_eq!(m, PermissionMode::AcceptEdits);
        let m: PermissionMode = serde_json::from_value(json!("yolo")).unwrap();
        assert_eq!(m, PermissionMode::Unknown("yolo".into()));
        assert_eq!(PermissionMode::DontAsk.as_str(), "dontAsk");
    }

    #[test]
    fn updates_decode_and_round_trip() {
        let suggestions = json!([
            {"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch x.txt"}],"behavior":"allow","destination":"localSettings"},
            {"type":"replaceRules","rules":[{"toolName":"Read"}],"behavior":"deny","destination":"userSettings"},
            {"type":"removeRules","rules":[{"toolName":"Edit","future":1}],"behavior":"ask","destination":"projectSettings"},
            {"type":"addDirectories","directories":["/tmp/w"],"destination":"session"},
            {"type":"removeDirectories","directories":["/tmp/w"],"destination":"cliArg"},
            {"type":"setMode","mode":"acceptEdits","destination":"session"},
            {"type":"grantEverything","scope":"galaxy"},
            {"type":"addRules","rules":"not-a-list"},
            "deny"
        ]);
        let ups: Vec<PermissionUpdate> = round_trip(suggestions);
        assert!(matches!(ups[0], PermissionUpdate::AddRules(ref u)
            if u.rules[0].rule_content.as_deref() == Some("touch x.txt")));
        assert!(matches!(ups[1], PermissionUpdate::ReplaceRules(_)));
        assert!(
            matches!(ups[2], PermissionUpdate::RemoveRules(ref u) if u.rules[0].extra.contains_key("future"))
        );
        assert!(matches!(ups[3], PermissionUpdate::AddDirectories(_)));
        assert!(matches!(ups[4], PermissionUpdate::RemoveDirectories(_)));
        assert!(
            matches!(ups[5], PermissionUpdate::SetMode(ref u) if u.mode == PermissionMode::AcceptEdits)
        );
        assert!(matches!(ups[6], PermissionUpdate::Unknown(_)));
        assert!(matches!(ups[7], PermissionUpdate::Unknown(_)));
        assert!(matches!(ups[8], PermissionUpdate::Unknown(_)));
        assert_eq!(
            ups[3].destination(),
            Some(&PermissionUpdateDestination::Session)
        );
    }

    #[test]
    fn update_constructors_write_wire_shape() {
        let u = PermissionUpdate::add_rules(
            vec![PermissionRuleValue::new("Bash").with_content("npm test")],
            PermissionBehavior::Allow,
            PermissionUpdateDestination::Session,
        );
        assert_eq!(
            serde_json::to_value(&u).unwrap(),
            json!({"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"npm test"}],"behavior":"allow","destination":"session"})
        );
        let u =
            PermissionUpdate::set_mode(PermissionMode::Plan, PermissionUpdateDestination::Session);
        assert_eq!(
            serde_json::to_value(&u).unwrap(),
            json!({"type":"setMode","mode":"plan","destination":"session"})
        );
    }

    #[test]
    fn deny_with_interrupt_shape() {
        let r = PermissionResult::deny("no").with_interrupt(true);
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"behavior":"deny","message":"no","interrupt":true})
        );
    }

    #[test]
    fn allow_with_updated_input_shape() {
        let r = PermissionResult::allow().with_updated_input(json!({"command":"ls"}));
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"behavior":"allow","updatedInput":{"command":"ls"}})
        );
    }

    #[test]
    fn allow_shapes() {
        assert_eq!(
            serde_json::to_value(PermissionResult::allow()).unwrap(),
            json!({"behavior":"allow"})
        );
        let r = PermissionResult::allow()
            .with_updated_input(json!({"command":"ls -la"}))
            .with_tool_use_id("toolu_01")
            .with_updated_permissions(vec![PermissionUpdate::set_mode(
                PermissionMode::AcceptEdits,
                PermissionUpdateDestination::Session,
            )]);
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"behavior":"allow","updatedInput":{"command":"ls -la"},"toolUseID":"toolu_01",
                   "updatedPermissions":[{"type":"setMode","mode":"acceptEdits","destination":"session"}]})
        );
        assert_eq!(r.tool_use_id(), Some("toolu_01"));
        assert!(r.is_allow());
        // Builder methods for the other behavior are no-ops.
        let d = PermissionResult::deny("x").with_updated_input(json!({}));
        assert_eq!(
            serde_json::to_value(&d).unwrap(),
            json!({"behavior":"deny","message":"x"})
        );
    }

    #[test]
    fn results_round_trip() {
        for v in [
            json!({"behavior":"allow"}),
            json!({"behavior":"allow","updatedInput":null}),
            json!({"behavior":"allow","updatedInput":{"a":1},"decisionClassification":"user_permanent","toolUseID":"t"}),
            json!({"behavior":"deny","message":"m","interrupt":false,"toolUseID":"t","decisionClassification":"user_reject","x":[1]}),
            json!({"behavior":"ask","message":"?"}),
            json!({"behavior":"deny"}),
        ] {
            round_trip::<PermissionResult>(v);
        }
        let r: PermissionResult = crate::model::from_value(&json!({"behavior":"deny"})).unwrap();
        assert!(matches!(r, PermissionResult::Unknown(_)));
    }
}
