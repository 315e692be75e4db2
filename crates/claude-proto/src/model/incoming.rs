//! Control requests the CLI sends to the host, and the payloads the host
//! answers them with.
//!
//! | request | answer payload |
//! |---|---|
//! | [`CanUseTool`] | [`PermissionResult`](super::permission::PermissionResult) |
//! | [`HookCallback`] | [`HookOutput`](super::hooks::HookOutput) |
//! | [`McpMessage`] | [`McpMessageResponse`] |
//! | [`ElicitationRequest`] | [`ElicitationResult`] |
//! | [`UserDialogRequest`] | [`UserDialogResult`] |

use super::open_enum::open_enum;
use super::wire::wire_struct;
use serde::{Deserialize, Serialize};

use super::common::{Extra, Json, string_enum};
use super::hooks::{ElicitationAction, ElicitationMode, HookInput};
use super::mcp::{JsonRpcMessage, McpServerRef};
use super::permission::{PermissionUpdate, deserialize_some};

string_enum! {
    /// Why the CLI is asking about a tool call.
    pub enum DecisionReasonType {
        /// A permission rule says "ask".
        Rule = "rule",
        /// The permission mode requires asking.
        Mode = "mode",
        /// Parts of a compound shell command need approval.
        SubcommandResults = "subcommandResults",
        /// A permission-prompt tool decided.
        PermissionPromptTool = "permissionPromptTool",
        /// A hook answered "ask".
        Hook = "hook",
        /// An asynchronous agent needs approval.
        AsyncAgent = "asyncAgent",
        /// A sandbox override was requested.
        SandboxOverride = "sandboxOverride",
        /// The call reaches outside the working directories.
        WorkingDir = "workingDir",
        /// A safety check flagged the call.
        SafetyCheck = "safetyCheck",
        /// The auto-mode classifier wants confirmation.
        Classifier = "classifier",
        /// Anything else.
        Other = "other",
    }
}

wire_struct! {
    /// The `ask` rule that matched a tool call.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct MatchedAskRule {
        /// Where the rule is configured.
        pub source: String,
        /// Tool the rule names.
        pub tool_name: String,
        /// The rule's pattern.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub rule_content: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `can_use_tool`: may this tool call run? Answer with a
    /// [`PermissionResult`](super::permission::PermissionResult), echoing
    /// `tool_use_id` in its `toolUseID`.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct CanUseTool {
        /// Tool name.
        pub tool_name: String,
        /// Tool input as the model produced it.
        pub input: Json,
        /// Id of the tool call (absent only from very old CLIs).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tool_use_id: Option<String>,
        /// The MCP server providing the tool, for MCP tools.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub mcp_server: Option<McpServerRef>,
        /// Rule changes the host could apply with its answer ("always allow").
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub permission_suggestions: Option<Vec<PermissionUpdate>>,
        /// The path that triggered the question, for file tools.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub blocked_path: Option<String>,
        /// Human-readable reason for asking.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub decision_reason: Option<String>,
        /// Category of the reason.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub decision_reason_type: Option<DecisionReasonType>,
        /// Whether the auto-mode classifier could have approved it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub classifier_approvable: Option<bool>,
        /// Do not offer an "always allow" option.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub suppress_always_allow_rule: Option<bool>,
        /// A UI should preselect "no".
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub default_to_no: Option<bool>,
        /// The ask rule that matched.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub matched_ask_rule: Option<MatchedAskRule>,
        /// Short title for a prompt UI.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub title: Option<String>,
        /// Display name of the tool.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub display_name: Option<String>,
        /// Description of what the call does.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub description: Option<String>,
        /// The subagent making the call, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub agent_id: Option<String>,
        /// A human has to answer (an automatic policy must not).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub requires_user_interaction: Option<bool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `hook_callback`: run the callback registered under `callback_id`. Answer
    /// with a [`HookOutput`](super::hooks::HookOutput).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct HookCallback {
        /// One of the ids sent in `initialize.hooks`.
        pub callback_id: String,
        /// What happened.
        pub input: HookInput,
        /// Tool-call id for tool events (for other events a fresh id).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tool_use_id: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `mcp_message`: a JSON-RPC message for an MCP server hosted by the SDK
    /// (CLI → host), or from one (host → CLI).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct McpMessage {
        /// Name of the SDK-hosted server.
        pub server_name: String,
        /// The JSON-RPC message.
        pub message: JsonRpcMessage,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl McpMessage {
    /// Wraps `message` for server `server_name`.
    pub fn new(server_name: impl Into<String>, message: JsonRpcMessage) -> Self {
        Self {
            server_name: server_name.into(),
            message,
            extra: Extra::new(),
        }
    }
}

wire_struct! {
    /// Answer to `mcp_message`: the server's JSON-RPC reply, if any.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct McpMessageResponse {
        /// The reply; absent when there is none.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub mcp_response: Option<JsonRpcMessage>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl McpMessageResponse {
    /// Carries the server's `reply`.
    pub fn new(reply: JsonRpcMessage) -> Self {
        Self {
            mcp_response: Some(reply),
            extra: Extra::new(),
        }
    }

    /// The acknowledgement used for notifications (which have no JSON-RPC
    /// reply): `{"mcp_response":{"jsonrpc":"2.0","result":{},"id":0}}`.
    pub fn notification_ack() -> Self {
        Self::new(JsonRpcMessage::result(
            0u64,
            Json::Object(serde_json::Map::new()),
        ))
    }
}

wire_struct! {
    /// `elicitation`: an MCP server asks the user for input. Answer with an
    /// [`ElicitationResult`] (declining when the host cannot ask anyone).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ElicitationRequest {
        /// The MCP server asking.
        pub mcp_server_name: String,
        /// The question.
        pub message: String,
        /// Form or URL.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub mode: Option<ElicitationMode>,
        /// URL to visit, in URL mode.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub url: Option<String>,
        /// Id of the elicitation.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub elicitation_id: Option<String>,
        /// JSON schema of the expected answer, in form mode.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub requested_schema: Option<Json>,
        /// Order in which to show the schema's properties.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub property_order: Option<Vec<String>>,
        /// Title for a UI.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub title: Option<String>,
        /// Display name of the server.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub display_name: Option<String>,
        /// Longer description.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub description: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Answer to an `elicitation` request (an MCP `ElicitResult`).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct ElicitationResult {
        /// What the user did.
        pub action: ElicitationAction,
        /// The answer, for `accept`.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub content: Option<Json>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl ElicitationResult {
    fn with_action(action: ElicitationAction, content: Option<Json>) -> Self {
        Self {
            action,
            content,
            extra: Extra::new(),
        }
    }

    /// The user answered with `content` (an object matching the schema).
    pub fn accept(content: Json) -> Self {
        Self::with_action(ElicitationAction::Accept, Some(content))
    }

    /// The user refused; also the right answer when nobody can be asked.
    pub fn decline() -> Self {
        Self::with_action(ElicitationAction::Decline, None)
    }

    /// The user dismissed the question.
    pub fn cancel() -> Self {
        Self::with_action(ElicitationAction::Cancel, None)
    }
}

wire_struct! {
    /// `request_user_dialog`: the CLI wants the host to show a dialog of a kind
    /// it declared in `initialize.supportedDialogKinds`. Answer with a
    /// [`UserDialogResult`].
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct UserDialogRequest {
        /// Dialog kind, e.g. `refusal_fallback_prompt`.
        pub dialog_kind: String,
        /// Kind-specific content.
        pub payload: Json,
        /// Tool call the dialog relates to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tool_use_id: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// The `completed` branch of a [`UserDialogResult`].
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct UserDialogCompleted {
        /// What the user chose (shape depends on the dialog kind).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub result: Option<Json>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// The `cancelled` branch of a [`UserDialogResult`].
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct UserDialogCancelled {
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

open_enum! {
    /// Answer to `request_user_dialog`, tagged by `behavior`.
    #[derive(Debug, Clone, PartialEq)]
    pub enum UserDialogResult tagged "behavior" {
        /// An answer this crate does not know, kept as is.
        Unknown;
        /// The user finished the dialog.
        Completed(UserDialogCompleted) = "completed",
        /// The user dismissed it.
        Cancelled(UserDialogCancelled) = "cancelled",
    }
}

impl UserDialogResult {
    /// `{"behavior":"completed","result":result}`.
    pub fn completed(result: Json) -> Self {
        Self::Completed(UserDialogCompleted {
            result: Some(result),
            extra: Extra::new(),
        })
    }

    /// `{"behavior":"cancelled"}`.
    pub fn cancelled() -> Self {
        Self::Cancelled(UserDialogCancelled::default())
    }
}

/// The one table of CLI → host requests. Each row, `Variant("subtype",
/// RequestType)`, generates the [`CliRequest`] variant (with its serde
/// rename and docs), its arm of `subtype()` and its entry in `SUBTYPES`.
macro_rules! cli_requests {
    (
        $(#[$meta:meta])*
        pub enum CliRequest {
            $( $(#[$vmeta:meta])* $variant:ident($subtype:literal, $request:ty), )+
        }
    ) => {
        open_enum! {
            $(#[$meta])*
            #[derive(Debug, Clone, PartialEq)]
            #[non_exhaustive]
            pub enum CliRequest tagged "subtype" {
                /// Any other request, kept as is.
                Unknown;
                $(
                    $(#[$vmeta])*
                    $variant($request) = $subtype,
                )+
            }
        }

        impl CliRequest {
            /// Every subtype with its own variant. A request with one of
            /// these subtypes that still decodes to
            /// [`Unknown`](Self::Unknown) lacks fields it needs.
            pub const SUBTYPES: &'static [&'static str] = &[$($subtype),+];

            /// The `subtype` value (empty when an unknown request has none).
            pub fn subtype(&self) -> &str {
                match self {
                    $( Self::$variant(_) => $subtype, )+
                    Self::Unknown(v) => v.get("subtype").and_then(Json::as_str).unwrap_or_default(),
                }
            }
        }
    };
}

cli_requests! {
    /// A control request from the CLI (the `request` object of a
    /// `control_request` read from stdout), tagged by `subtype`.
    ///
    /// Subtypes this crate does not model (including the CLI's internal ones)
    /// arrive as [`CliRequest::Unknown`]; the usual answer to those is an error
    /// with code `unsupported_request`.
    pub enum CliRequest {
        /// Permission to run a tool.
        CanUseTool("can_use_tool", CanUseTool),
        /// A registered hook fired.
        HookCallback("hook_callback", HookCallback),
        /// A message for an SDK-hosted MCP server.
        McpMessage("mcp_message", McpMessage),
        /// An MCP server asks the user something.
        Elicitation("elicitation", ElicitationRequest),
        /// A host dialog is needed.
        RequestUserDialog("request_user_dialog", UserDialogRequest),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::hooks::{HookEvent, HookOutput};
    use crate::model::mcp::JsonRpcId;
    use crate::model::permission::{PermissionResult, PermissionUpdateDestination};
    use serde_json::json;

    fn round_trip<T>(value: Json) -> T
    where
        T: serde::de::DeserializeOwned + Serialize,
    {
        let typed: T = crate::model::from_value(&value).expect("decode");
        assert_eq!(serde_json::to_value(&typed).expect("encode"), value);
        typed
    }

    #[test]
    fn can_use_tool_with_every_documented_field() {
        let req: CliRequest = round_trip(json!({
            "subtype":"can_use_tool","tool_name":"Bash","input":{"command":"touch made_by_mock.txt"},
            "tool_use_id":"toolu_01ABC","mcp_server":{"name":"gh","source":"project"},
            "permission_suggestions":[
                {"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch made_by_mock.txt"}],"behavior":"allow","destination":"localSettings"},
                {"type":"addDirectories","directories":["/tmp/work"],"destination":"session"},
                {"type":"setMode","mode":"acceptEdits","destination":"session"}
            ],
            "blocked_path":"/tmp/work/made_by_mock.txt","decision_reason":"driver says ask","decision_reason_type":"hook",
            "classifier_approvable":false,"suppress_always_allow_rule":true,"default_to_no":false,
            "matched_ask_rule":{"source":"userSettings","tool_name":"Bash","rule_content":"touch:*"},
            "title":"Run touch?","display_name":"Bash","description":"Creates a file","agent_id":"sub_1",
            "requires_user_interaction":true,
            "decision_reason_hook_event":"PreToolUse","decision_reason_hook_source":"settings","tool_kind":"x"
        }));
        let CliRequest::CanUseTool(c) = &req else {
            panic!("wrong variant {req:?}")
        };
        assert_eq!(c.tool_name, "Bash");
        assert_eq!(c.tool_use_id.as_deref(), Some("toolu_01ABC"));
        assert_eq!(c.decision_reason_type, Some(DecisionReasonType::Hook));
        let sugg = c.permission_suggestions.as_ref().map(Vec::len);
        assert_eq!(sugg, Some(3));
        assert_eq!(
            c.permission_suggestions
                .as_ref()
                .and_then(|s| s[1].destination()),
            Some(&PermissionUpdateDestination::Session)
        );
        assert!(c.extra.contains_key("decision_reason_hook_event"));
        assert_eq!(req.subtype(), "can_use_tool");
    }

    #[test]
    fn old_style_can_use_tool_still_decodes() {
        // Older CLIs: no tool_use_id, suggestions as bare strings.
        let req: CliRequest = round_trip(json!({"subtype":"can_use_tool","tool_name":"Write",
            "input":{"file_path":"/etc/hosts","content":"127.0.0.1 localhost"},
            "permission_suggestions":["deny"],"blocked_path":"/etc"}));
        assert!(matches!(req, CliRequest::CanUseTool(ref c) if c.tool_use_id.is_none()));
    }

    #[test]
    fn hook_callback_decodes() {
        let req: CliRequest = round_trip(json!({"subtype":"hook_callback","callback_id":"hook_3",
            "input":{"hook_event_name":"PreToolUse","session_id":"s","transcript_path":"/t","cwd":"/w",
                     "tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"toolu_01ABC"},
            "tool_use_id":"toolu_01ABC","issued_at":1700000000}));
        let CliRequest::HookCallback(h) = &req else {
            panic!("wrong variant {req:?}")
        };
        assert_eq!(h.callback_id, "hook_3");
        assert_eq!(h.input.event(), HookEvent::PreToolUse);
        // An old-style input without base fields still round-trips.
        let req: CliRequest = round_trip(json!({"subtype":"hook_callback","callback_id":"hook_3",
            "input":{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}}));
        assert!(
            matches!(req, CliRequest::HookCallback(ref h) if matches!(h.input, HookInput::Unknown(_)))
        );
        // And the answers serialize.
        let _ = serde_json::to_value(HookOutput::default()).unwrap();
    }

    #[test]
    fn mcp_message_and_ack() {
        let req: CliRequest =
            round_trip(json!({"subtype":"mcp_message","server_name":"local-tools",
            "message":{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}}));
        let CliRequest::McpMessage(m) = &req else {
            panic!("wrong variant {req:?}")
        };
        assert_eq!(m.message.id(), Some(&JsonRpcId::from(1u64)));
        assert_eq!(
            serde_json::to_value(McpMessageResponse::notification_ack()).unwrap(),
            json!({"mcp_response":{"jsonrpc":"2.0","result":{},"id":0}})
        );
        let reply = McpMessageResponse::new(JsonRpcMessage::result(1u64, json!({"tools":[]})));
        assert_eq!(
            serde_json::to_value(&reply).unwrap(),
            json!({"mcp_response":{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}})
        );
        round_trip::<McpMessageResponse>(json!({}));
        round_trip::<McpMessageResponse>(
            json!({"mcp_response":{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"no"}}}),
        );
    }

    #[test]
    fn elicitation_and_dialog() {
        let req: CliRequest = round_trip(
            json!({"subtype":"elicitation","mcp_server_name":"m","message":"Your name?",
            "mode":"form","requested_schema":{"type":"object","properties":{"name":{"type":"string"}}},
            "property_order":["name"],"elicitation_id":"e1","title":"Name","display_name":"M","description":"d"}),
        );
        assert!(
            matches!(req, CliRequest::Elicitation(ref e) if e.mode == Some(ElicitationMode::Form))
        );
        assert_eq!(
            serde_json::to_value(ElicitationResult::decline()).unwrap(),
            json!({"action":"decline"})
        );
        assert_eq!(
            serde_json::to_value(ElicitationResult::accept(json!({"name":"Ada"}))).unwrap(),
            json!({"action":"accept","content":{"name":"Ada"}})
        );
        round_trip::<ElicitationResult>(json!({"action":"cancel"}));

        let req: CliRequest = round_trip(
            json!({"subtype":"request_user_dialog","dialog_kind":"refusal_fallback_prompt",
            "payload":{"model":"x"},"tool_use_id":"t"}),
        );
        assert!(matches!(req, CliRequest::RequestUserDialog(_)));
        assert_eq!(
            serde_json::to_value(UserDialogResult::completed(json!({"choice":1}))).unwrap(),
            json!({"behavior":"completed","result":{"choice":1}})
        );
        assert_eq!(
            serde_json::to_value(UserDialogResult::cancelled()).unwrap(),
            json!({"behavior":"cancelled"})
        );
        round_trip::<UserDialogResult>(json!({"behavior":"completed","result":null}));
        round_trip::<UserDialogResult>(json!({"behavior":"snoozed"}));
    }

    #[test]
    fn subtype_table_matches_the_variants() {
        let samples = [
            json!({"subtype":"can_use_tool","tool_name":"Bash","input":{}}),
            json!({"subtype":"hook_callback","callback_id":"hook_0",
                   "input":{"hook_event_name":"Stop","session_id":"s","transcript_path":"t","cwd":"/","stop_hook_active":false}}),
            json!({"subtype":"mcp_message","server_name":"m","message":{"jsonrpc":"2.0","method":"x"}}),
            json!({"subtype":"elicitation","mcp_server_name":"m","message":"?"}),
            json!({"subtype":"request_user_dialog","dialog_kind":"k","payload":{}}),
        ];
        let subtypes: Vec<&str> = samples
            .iter()
            .map(|v| {
                let r: CliRequest = serde_json::from_value(v.clone()).unwrap();
                assert!(!matches!(r, CliRequest::Unknown(_)), "{v}");
                assert_eq!(Some(r.subtype()), v["subtype"].as_str());
                r.subtype().to_owned()
            })
            .collect::<Vec<_>>()
            .iter()
            .map(|s| {
                CliRequest::SUBTYPES
                    .iter()
                    .find(|t| *t == s)
                    .copied()
                    .unwrap()
            })
            .collect();
        assert_eq!(subtypes, CliRequest::SUBTYPES);
    }

    #[test]
    fn unknown_requests_survive() {
        for v in [
            json!({"subtype":"oauth_token_refresh","kind":"x","token_state":"refused"}),
            json!({"subtype":"can_use_tool","tool_name":"Bash"}),
            json!({"subtype":"ui_copy","text":"hi"}),
        ] {
            let r: CliRequest = round_trip(v.clone());
            assert!(matches!(r, CliRequest::Unknown(_)));
            assert_eq!(r.subtype(), v["subtype"].as_str().unwrap_or_default());
        }
        // The permission answer with an echoed id.
        let ans = PermissionResult::allow().with_tool_use_id("toolu_01ABC");
        assert_eq!(
            serde_json::to_value(ans).unwrap(),
            json!({"behavior":"allow","toolUseID":"toolu_01ABC"})
        );
    }
}
