//! Control requests the host sends to the CLI, their typed answers, and the
//! error codes of failed control responses.
//!
//! A [`ControlRequest`] is the `request` object of a `control_request` line
//! written to the CLI's stdin; it serializes to exactly that object, e.g.
//! `{"subtype":"set_model","model":"sonnet"}`. The matching success payload
//! types (`*Response`, [`ContextUsage`], ...) decode the `response` object
//! of the CLI's `control_response`.

use super::wire::wire_struct;
use std::collections::BTreeMap;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};

use super::claim::{ClaimSessionRequest, ClaimSessionResponse};
use super::common::{Extra, Json, Maybe, string_enum};
use super::incoming::{McpMessage, McpMessageResponse};
use super::initialize::{
    AgentInfo, InitializeRequest, InitializeResponse, ModelInfo, SdkPluginConfig, SlashCommand,
};
use super::mcp::{JsonRpcMessage, McpServerConfig, McpServerStatus};
use super::permission::{PermissionMode, deserialize_some};

string_enum! {
    /// Machine-readable reason of a failed control response (`error_code`).
    ///
    /// Only the codes a host is likely to act on have their own variant;
    /// everything else is kept in `Unknown`.
    pub enum ControlErrorCode {
        /// The receiver does not know the request's subtype.
        UnsupportedRequest = "unsupported_request",
        /// The request's fields are invalid.
        InvalidRequest = "invalid_request",
        /// The permission mode is not valid here.
        InvalidMode = "invalid_mode",
        /// The thing referred to does not exist.
        NotFound = "not_found",
        /// The receiver failed internally.
        InternalError = "internal_error",
        /// The request refers to a turn that is over.
        StaleTurn = "stale_turn",
        /// `reload_plugins` was refused because the session is busy.
        ReloadPluginsBusy = "reload_plugins_busy",
        /// A side question is already running.
        SideQuestionBusy = "side_question_busy",
        /// Bypass mode is restricted by policy.
        BypassRestricted = "bypass_restricted",
        /// Bypass mode is disabled.
        BypassDisabled = "bypass_disabled",
        /// Bypass mode needs the CLI to be launched with it allowed.
        BypassNotLaunched = "bypass_not_launched",
        /// Auto mode is prevented by settings.
        AutoModeSettings = "auto_mode_settings",
        /// Auto mode was switched off after repeated failures.
        AutoModeCircuitBreaker = "auto_mode_circuit_breaker",
        /// Auto mode cannot be combined with fast mode.
        AutoModeFastMode = "auto_mode_fast_mode",
        /// Auto mode is not available for this model.
        AutoModeModel = "auto_mode_model",
        /// Auto mode is unavailable.
        AutoModeUnavailable = "auto_mode_unavailable",
        /// The model is not in the catalog.
        CatalogUnknown = "catalog_unknown",
        /// The organization does not allow it.
        RestrictedByOrg = "restricted_by_org",
        /// Not available for this account.
        UnavailableForAccount = "unavailable_for_account",
        /// Not offered.
        NotOffered = "not_offered",
        /// The 1M-context alias is disabled.
        Alias1mDisabled = "alias_1m_disabled",
        /// The 1M-context alias is not supported.
        Alias1mUnsupported = "alias_1m_unsupported",
        /// A hook blocked the request.
        BlockedByHook = "blocked_by_hook",
        /// Hooks could not be checked.
        HooksUnchecked = "hooks_unchecked",
        /// Hooks could not be checked because a plugin is not loaded.
        HooksUncheckedPluginNotLoaded = "hooks_unchecked_plugin_not_loaded",
        /// A check failed.
        CheckFailed = "check_failed",
        /// A check service could not be reached.
        CheckUnreachable = "check_unreachable",
        /// A check service failed.
        CheckServerError = "check_server_error",
        /// A check rejected the request.
        CheckRejected = "check_rejected",
        /// Credits are needed.
        CreditsRequired = "credits_required",
        /// Rate limited.
        RateLimit = "rate_limit",
        /// Authentication failed.
        AuthFailed = "auth_failed",
        /// The OAuth organization is not allowed.
        OauthOrgNotAllowed = "oauth_org_not_allowed",
        /// The model changed in the meantime.
        ModelNotCurrent = "model_not_current",
        /// A verdict is still pending.
        VerdictPending = "verdict_pending",
        /// File read denied.
        ReadDenied = "read_denied",
        /// The MCP server is blocked by policy.
        McpPolicyBlocked = "mcp_policy_blocked",
        /// Too many refused MCP calls.
        McpCallRefusalLimit = "mcp_call_refusal_limit",
        /// The MCP call request is malformed.
        McpCallMalformed = "mcp_call_malformed",
        /// The MCP tool is not listed by its server.
        McpCallNotListed = "mcp_call_not_listed",
    }
}

// ---------------------------------------------------------------------------
// Request payloads
// ---------------------------------------------------------------------------

/// Declares request payloads with no fields of their own (each its own type,
/// so each can carry its own [`ControlCall`] answer type).
macro_rules! empty_requests {
    ($( $(#[$meta:meta])* $name:ident; )+) => {
        $(
            wire_struct! {
                $(#[$meta])*
                #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
                pub struct $name {
                    /// Fields not modelled by this crate.
                    #[serde(flatten)]
                    pub extra: Extra,
                }
            }
        )+
    };
}

empty_requests! {
    /// `get_session_cost`: the session cost as text.
    GetSessionCostRequest;
    /// `list_models`: the models available.
    ListModelsRequest;
    /// `get_binary_version`: the CLI's version.
    GetBinaryVersionRequest;
    /// `reload_skills`: reload skills from disk.
    ReloadSkillsRequest;
    /// `reload_output_styles`: reload output styles from disk.
    ReloadOutputStylesRequest;
    /// `get_settings`: the effective settings and each layer.
    GetSettingsRequest;
    /// `get_hooks_listing`: the hooks configured.
    GetHooksListingRequest;
    /// `list_permission_rules`: the permission rules in force.
    ListPermissionRulesRequest;
}

wire_struct! {
    /// `interrupt`: stop the current turn.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct InterruptRequest {
        /// Also drop queued user messages.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub cancel_queued: Option<bool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `set_permission_mode`: switch the permission mode.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct SetPermissionModeRequest {
        /// The new mode.
        pub mode: PermissionMode,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `set_model`: switch the model. Absent, `null` and `"default"` all mean
    /// the session default.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct SetModelRequest {
        /// Model alias or id.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub model: Maybe<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

string_enum! {
    /// How thinking is shown.
    pub enum ThinkingDisplay {
        /// Summarized thinking.
        Summarized = "summarized",
        /// No thinking text.
        Omitted = "omitted",
        /// Highlights only.
        Highlights = "highlights",
    }
}

wire_struct! {
    /// `set_max_thinking_tokens` (deprecated): limit thinking.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct SetMaxThinkingTokensRequest {
        /// Token budget; `null` resets to the default.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub max_thinking_tokens: Maybe<u64>,
        /// How thinking is displayed.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub thinking_display: Maybe<ThinkingDisplay>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `rename_session`: set the session title.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct RenameSessionRequest {
        /// The new title.
        pub title: String,
        /// Who renamed it (`remote` or `host`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub source: Option<String>,
        /// The session to rename (the current one when absent).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub session_id: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `set_color`: set the agent colour.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct SetColorRequest {
        /// Colour name, or `default`.
        pub color: String,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `mcp_status`: list the MCP servers and their state.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct McpStatusRequest {
        /// Answer with live state instead of the cached one.
        #[serde(rename = "liveReply", default, skip_serializing_if = "Option::is_none")]
        pub live_reply: Option<bool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

string_enum! {
    /// How much detail `get_context_usage` returns.
    pub enum ContextUsageDetail {
        /// Totals only.
        Summary = "summary",
        /// Everything (the default).
        Full = "full",
    }
}

wire_struct! {
    /// `get_context_usage`: how the context window is used.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct GetContextUsageRequest {
        /// Level of detail.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub detail: Option<ContextUsageDetail>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `get_usage` (experimental): cost, rate limits and usage patterns.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct GetUsageRequest {
        /// Leave out the usage-pattern analysis.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub skip_behaviors: Option<bool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A file handed to an MCP tool by `mcp_call`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct McpCallInputFile {
        /// Name the tool sees.
        pub name: String,
        /// Where the file is staged.
        pub lane_path: String,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A file an MCP tool produces in `mcp_call`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct McpCallOutputFile {
        /// Name the tool writes.
        pub name: String,
        /// Where it is staged.
        pub lane_path: String,
        /// Only overwrite when the current version has this etag.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub if_match: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `mcp_call`: call an MCP tool directly, outside the conversation.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct McpCallRequest {
        /// Full tool name, `mcp__<server>__<tool>`.
        pub tool: String,
        /// Tool arguments.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub arguments: Option<Json>,
        /// Give up after this time (ISO 8601).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub expires_at: Option<String>,
        /// Timeout in milliseconds (clamped to 1 s .. 10 min; default 2 min).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub timeout_ms: Option<u64>,
        /// The result is not added to the model's context.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub result_not_for_model: Option<bool>,
        /// Ask for the tool's own error result instead of its text alone: a
        /// tool that fails then answers with the success subtype and
        /// [`McpCallResponse::is_error`] set, with the server's content. Set
        /// it only if you read `is_error`: the answer is no longer an error
        /// when the tool failed. Honoured by a CLI that advertises
        /// `mcp_call_soft_error_result_v1` (2.1.332 on); an older one
        /// ignores it and answers a failed tool with an error.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub soft_error_result: Option<bool>,
        /// Apply the normal permission checks.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub check_permissions: Option<bool>,
        /// Files to hand to the tool.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub input_files: Option<Vec<McpCallInputFile>>,
        /// Files the tool produces.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub output_files: Option<Vec<McpCallOutputFile>>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `file_suggestions`: file paths matching a partial query.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct FileSuggestionsRequest {
        /// What the user typed.
        pub query: String,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `rewind_files`: restore files to their state at a user message.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct RewindFilesRequest {
        /// The user message to rewind to.
        pub user_message_id: String,
        /// Only report what would change.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub dry_run: Option<bool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `cancel_async_message`: withdraw a queued user message.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct CancelAsyncMessageRequest {
        /// The queued message's uuid.
        pub message_uuid: String,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

string_enum! {
    /// Encoding of file contents in `read_file`.
    pub enum FileEncoding {
        /// Text.
        Utf8 = "utf-8",
        /// Base64-encoded bytes.
        Base64 = "base64",
    }
}

wire_struct! {
    /// `read_file`: read a file through the CLI.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct ReadFileRequest {
        /// Path to read.
        pub path: String,
        /// Read at most this many bytes (default 1 MB).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub max_bytes: Option<u64>,
        /// How to return the contents.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub encoding: Option<FileEncoding>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `seed_read_state`: tell the CLI a file was already read at `mtime`.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct SeedReadStateRequest {
        /// The file.
        pub path: String,
        /// Its modification time (milliseconds since the epoch).
        pub mtime: serde_json::Number,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `mcp_set_servers`: replace the set of host-provided MCP servers.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct McpSetServersRequest {
        /// Server configurations by name (sdk servers as `{type:"sdk", name}`).
        pub servers: BTreeMap<String, McpServerConfig>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `register_repo_root`: add a repository root to the session.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct RegisterRepoRootRequest {
        /// The directory.
        pub directory: String,
        /// Reload CLAUDE.md files.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub reload_claude_md: Option<bool>,
        /// Reload plugins.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub reload_plugins: Option<bool>,
        /// Reload skills.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub reload_skills: Option<bool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `reload_plugins`: reload plugins (and what they provide).
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct ReloadPluginsRequest {
        /// Do not apply changes that would invalidate the prompt cache.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub hold_on_cache_impact: Option<bool>,
        /// Plugins to add.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub add_plugins: Option<Vec<SdkPluginConfig>>,
        /// Fail with `reload_plugins_busy` instead of waiting.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub refuse_if_busy: Option<bool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `mcp_reconnect`: reconnect one MCP server.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct McpReconnectRequest {
        /// The server.
        #[serde(rename = "serverName")]
        pub server_name: String,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `mcp_toggle`: enable or disable one MCP server.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct McpToggleRequest {
        /// The server.
        #[serde(rename = "serverName")]
        pub server_name: String,
        /// Whether it should be enabled.
        pub enabled: bool,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `mcp_read_resource`: read a `ui://` resource of an MCP server.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct McpReadResourceRequest {
        /// The server.
        #[serde(rename = "serverName")]
        pub server_name: String,
        /// Resource URI.
        pub uri: String,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `set_has_subscribers`: whether anyone is watching the session.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct SetHasSubscribersRequest {
        /// `true`, `false`, or `null` for unknown.
        #[serde(deserialize_with = "crate::model::common::nullable")]
        pub has_subscribers: Option<bool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `stop_task`: stop a background task.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct StopTaskRequest {
        /// The task.
        pub task_id: String,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `background_tasks`: move running work to the background.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct BackgroundTasksRequest {
        /// Only this tool call.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tool_use_id: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `get_task_output`: the output of a background task.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct GetTaskOutputRequest {
        /// The task.
        pub task_id: String,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `apply_flag_settings`: merge settings into the flag layer (`null`
    /// clears a key).
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct ApplyFlagSettingsRequest {
        /// Settings keys and values.
        pub settings: Extra,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

string_enum! {
    /// A settings layer.
    pub enum SettingsSource {
        /// The user's settings.
        UserSettings = "userSettings",
        /// The project's shared settings.
        ProjectSettings = "projectSettings",
        /// The project's local settings.
        LocalSettings = "localSettings",
        /// Settings given by flags or `apply_flag_settings`.
        FlagSettings = "flagSettings",
        /// Managed policy settings.
        PolicySettings = "policySettings",
    }
}

wire_struct! {
    /// `update_settings`: write settings to a settings file.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct UpdateSettingsRequest {
        /// `localSettings` or `userSettings`.
        pub source: SettingsSource,
        /// Settings keys and values.
        pub settings: Extra,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

/// A control request the host sends, typed with the answer it gets.
///
/// Every request payload of [`ControlRequest`] implements it (and
/// [`McpMessage`], for messages of SDK-hosted MCP servers to the CLI). The
/// payload serializes to the request's fields without `subtype`;
/// [`SUBTYPE`](Self::SUBTYPE) is the tag, and [`Response`](Self::Response)
/// is what the `response` of a success answer decodes to.
///
/// Send one with [`Session::send_call`](crate::Session::send_call) and
/// decode its answer with
/// [`ControlSuccess::decode_as`](crate::ControlSuccess::decode_as): code
/// generic over `C: ControlCall` then cannot decode an answer as the wrong
/// type.
///
/// ```
/// use std::time::Instant;
/// use claude_proto::model::control::{InterruptRequest, InterruptResponse};
/// use claude_proto::{Config, ControlCall, Event, Session};
///
/// let mut session = Session::new(Config::default());
/// let id = session.send_call(&InterruptRequest::default(), None, Instant::now())?;
/// let mut line = Vec::new();
/// session.poll_transmit(&mut line);
/// let sent: serde_json::Value = serde_json::from_slice(&line)?;
/// assert_eq!(sent["request"], serde_json::json!({"subtype": InterruptRequest::SUBTYPE}));
///
/// // The CLI answers.
/// let answer = serde_json::json!({"type": "control_response", "response": {
///     "subtype": "success", "request_id": sent["request_id"], "response": {"still_queued": []}}});
/// session.handle_input(format!("{answer}\n").as_bytes());
/// let Some(Event::Response(outcome)) = session.poll_event() else { unreachable!() };
/// assert_eq!(outcome.id, id);
/// let typed: InterruptResponse = outcome.result?.decode_as::<InterruptRequest>()?;
/// assert_eq!(typed.still_queued, Some(vec![]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// For a subtype this crate does not model, implement it on a type of
/// yours, with a `From` into [`ControlRequest`] going through
/// [`ControlRequest::raw`].
pub trait ControlCall: Serialize + Into<ControlRequest> {
    /// The wire `subtype`.
    const SUBTYPE: &'static str;
    /// What the `response` of a success answer decodes to. An answer with
    /// no `response` at all reads as `{}` (see [`ControlSuccess::decode`]),
    /// which every type used here for a bare acknowledgement accepts.
    ///
    /// [`ControlSuccess::decode`]: crate::ControlSuccess::decode
    type Response: DeserializeOwned;
}

/// The request object of a `control_request` written from a [`ControlCall`]:
/// `subtype` first, then the payload's fields. Serializes to the same bytes
/// as the matching [`ControlRequest`].
#[derive(Serialize)]
pub(crate) struct Tagged<'a, C> {
    subtype: &'static str,
    #[serde(flatten)]
    call: &'a C,
}

impl<'a, C: ControlCall> Tagged<'a, C> {
    pub(crate) fn new(call: &'a C) -> Self {
        Self {
            subtype: C::SUBTYPE,
            call,
        }
    }
}

/// The payload type a [`ControlRequest`] variant holds for a request type.
macro_rules! variant_payload {
    ($request:ty) => { $request };
    ($request:ty, boxed) => { Box<$request> };
}

/// Wraps a request into its [`ControlRequest`] variant's payload.
macro_rules! wrap_payload {
    ($request:expr) => {
        $request
    };
    ($request:expr, boxed) => {
        Box::new($request)
    };
}

/// The one table of host → CLI control calls. Each row,
/// `Variant("subtype", RequestType[, boxed]) -> ResponseType`, generates the
/// [`ControlRequest`] variant (with its serde rename and docs), its arm of
/// `subtype()` and `SUBTYPES`, the [`ControlCall`] impl of the request type,
/// and `From<RequestType> for ControlRequest`.
macro_rules! control_calls {
    (
        $(#[$meta:meta])*
        pub enum ControlRequest {
            $(
                $(#[$vmeta:meta])*
                $variant:ident($subtype:literal, $request:ty $(, $boxed:ident)?) -> $response:ty,
            )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "subtype")]
        #[non_exhaustive]
        pub enum ControlRequest {
            $(
                $(#[$vmeta])*
                #[doc = ""]
                #[doc = concat!("Answered with [`", stringify!($response), "`].")]
                #[serde(rename = $subtype)]
                $variant(variant_payload!($request $(, $boxed)?)),
            )+
            /// Any other subtype: `subtype` plus the request's other fields.
            /// Also what a known subtype decodes to when its fields do not
            /// match. `fields` must not contain a `subtype` key.
            #[serde(untagged)]
            Raw {
                /// The subtype.
                subtype: String,
                /// The other fields of the request.
                #[serde(flatten)]
                fields: Extra,
            },
        }

        impl $crate::model::wire::WireVariants for ControlRequest {
            const TAG: &'static str = "subtype";
            const VARIANTS: &'static [&'static str] = &[$($subtype,)+];
        }

        /// The CLI's own default for `mcp_call`'s `timeout_ms` (2 min).
pub const MCP_CALL_DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);
/// The range the CLI clamps `mcp_call`'s `timeout_ms` to (1 s to 10 min).
pub const MCP_CALL_TIMEOUT_RANGE: (Duration, Duration) =
    (Duration::from_secs(1), Duration::from_secs(600));
/// Time allowed for the CLI's answer to come back after its own deadline
/// for the work has passed.
const ANSWER_MARGIN: Duration = Duration::from_secs(5);

/// The CLI's own deadline for the work of a request of this subtype when
/// the request does not set one, plus the margin for its answer: what
/// [`ControlRequest::cli_deadline`] gives for such a request.
pub fn cli_default_deadline(subtype: &str) -> Option<Duration> {
    (subtype == McpCallRequest::SUBTYPE).then_some(MCP_CALL_DEFAULT_TIMEOUT + ANSWER_MARGIN)
}

impl ControlRequest {
    /// The shortest deadline that lets the CLI finish this request's work
    /// by its own limits: `None` when the CLI sets none that could exceed
    /// an ordinary request timeout. A default deadline on our side must
    /// never be shorter, or a call the CLI would have completed is given
    /// up; [`Session::send_control`](crate::Session::send_control) uses the
    /// longer of this and [`Config::request_timeout`](crate::Config).
    ///
    /// `mcp_call`: its `timeout_ms` as the CLI clamps it (default 2 min),
    /// plus a few seconds for the answer.
    pub fn cli_deadline(&self) -> Option<Duration> {
        self.work_deadline()
    }

    /// The deadline for this request when its call gives none: the
    /// longer of `request_timeout` (normally [`Config::request_timeout`](crate::Config))
    /// and [`cli_deadline`](Self::cli_deadline).
    pub fn default_timeout(&self, request_timeout: Duration) -> Duration {
        self.cli_deadline()
            .map_or(request_timeout, |cli| cli.max(request_timeout))
    }

    fn work_deadline(&self) -> Option<Duration> {
        match self {
            Self::McpCall(call) => {
                let (shortest, longest) = MCP_CALL_TIMEOUT_RANGE;
                let work = call
                    .timeout_ms
                    .map_or(MCP_CALL_DEFAULT_TIMEOUT, Duration::from_millis)
                    .clamp(shortest, longest);
                Some(work + ANSWER_MARGIN)
            }
            _ => None,
        }
    }

            /// Every subtype with its own variant, in declaration order.
            pub const SUBTYPES: &'static [&'static str] = &[$($subtype),+];

            /// The `subtype` value.
            pub fn subtype(&self) -> &str {
                match self {
                    $( Self::$variant(_) => $subtype, )+
                    Self::Raw { subtype, .. } => subtype,
                }
            }

            /// Hands the payload of a typed variant to `visit` (`false` for
            /// `Raw`).
            #[cfg(test)]
            fn visit_call<V: tests::CallVisitor>(&self, visit: &mut V) -> bool {
                match self {
                    $(
                        Self::$variant(payload) => {
                            visit.call(::std::borrow::Borrow::<$request>::borrow(payload));
                            true
                        }
                    )+
                    Self::Raw { .. } => false,
                }
            }
        }

        $(
            impl ControlCall for $request {
                const SUBTYPE: &'static str = $subtype;
                type Response = $response;
            }

            impl From<$request> for ControlRequest {
                fn from(request: $request) -> Self {
                    Self::$variant(wrap_payload!(request $(, $boxed)?))
                }
            }
        )+
    };
}

control_calls! {
    /// A control request from the host to the CLI, tagged by `subtype`.
    ///
    /// Serializes to the `request` object of a `control_request` line. Use
    /// [`ControlRequest::raw`] for a subtype this crate does not wrap. Every
    /// payload type also implements [`ControlCall`], which names the type
    /// its answer decodes to, and converts into this enum with `From`.
    ///
    /// ```
    /// use claude_proto::model::control::ControlRequest;
    /// assert_eq!(
    ///     serde_json::to_value(ControlRequest::set_model(Some("sonnet"))).unwrap(),
    ///     serde_json::json!({"subtype":"set_model","model":"sonnet"}),
    /// );
    /// ```
    pub enum ControlRequest {
        /// Set up the session (hooks, SDK MCP servers, agents, prompt...).
        Initialize("initialize", InitializeRequest, boxed) -> InitializeResponse,
        /// Stop the current turn.
        Interrupt("interrupt", InterruptRequest) -> InterruptResponse,
        /// Change the permission mode.
        SetPermissionMode("set_permission_mode", SetPermissionModeRequest)
            -> SetPermissionModeResponse,
        /// Change the model.
        SetModel("set_model", SetModelRequest) -> SetModelResponse,
        /// Limit thinking tokens (deprecated).
        SetMaxThinkingTokens("set_max_thinking_tokens", SetMaxThinkingTokensRequest) -> Ack,
        /// Rename the session.
        RenameSession("rename_session", RenameSessionRequest) -> Ack,
        /// Set the agent colour.
        SetColor("set_color", SetColorRequest) -> Ack,
        /// List MCP servers.
        McpStatus("mcp_status", McpStatusRequest) -> McpStatusResponse,
        /// Report context window usage.
        GetContextUsage("get_context_usage", GetContextUsageRequest) -> ContextUsage,
        /// Report the session cost as text.
        GetSessionCost("get_session_cost", GetSessionCostRequest) -> SessionCost,
        /// List the available models.
        ListModels("list_models", ListModelsRequest) -> ListModelsResponse,
        /// Report usage (experimental). The answer (cost, rate limits,
        /// usage patterns) is not modelled: it stays plain JSON.
        GetUsage("get_usage", GetUsageRequest) -> Json,
        /// Report the CLI's version.
        GetBinaryVersion("get_binary_version", GetBinaryVersionRequest) -> BinaryVersion,
        /// Call an MCP tool directly.
        McpCall("mcp_call", McpCallRequest) -> McpCallResponse,
        /// Suggest file paths.
        FileSuggestions("file_suggestions", FileSuggestionsRequest) -> FileSuggestionsResponse,
        /// A message from an SDK-hosted MCP server (e.g. a notification).
        /// The CLI acknowledges it, with a JSON-RPC reply when there is one.
        McpMessage("mcp_message", McpMessage) -> McpMessageResponse,
        /// Restore files to an earlier state.
        RewindFiles("rewind_files", RewindFilesRequest) -> RewindFilesResult,
        /// Withdraw a queued user message.
        CancelAsyncMessage("cancel_async_message", CancelAsyncMessageRequest)
            -> CancelAsyncMessageResponse,
        /// Read a file.
        ReadFile("read_file", ReadFileRequest) -> ReadFileResponse,
        /// Mark a file as already read.
        SeedReadState("seed_read_state", SeedReadStateRequest) -> Ack,
        /// Replace the host-provided MCP servers. The answer
        /// (`{added, removed, errors}`) is not modelled: it stays plain JSON.
        McpSetServers("mcp_set_servers", McpSetServersRequest) -> Json,
        /// Add a repository root.
        RegisterRepoRoot("register_repo_root", RegisterRepoRootRequest) -> RegisterRepoRootResponse,
        /// Reload plugins.
        ReloadPlugins("reload_plugins", ReloadPluginsRequest) -> ReloadPluginsResponse,
        /// Reload skills.
        ReloadSkills("reload_skills", ReloadSkillsRequest) -> ReloadSkillsResponse,
        /// Reload output styles.
        ReloadOutputStyles("reload_output_styles", ReloadOutputStylesRequest)
            -> ReloadOutputStylesResponse,
        /// Reconnect an MCP server.
        McpReconnect("mcp_reconnect", McpReconnectRequest) -> Ack,
        /// Enable or disable an MCP server.
        McpToggle("mcp_toggle", McpToggleRequest) -> Ack,
        /// Read an MCP resource.
        McpReadResource("mcp_read_resource", McpReadResourceRequest) -> McpReadResourceResponse,
        /// Say whether anyone is watching.
        SetHasSubscribers("set_has_subscribers", SetHasSubscribersRequest) -> Ack,
        /// Stop a background task.
        StopTask("stop_task", StopTaskRequest) -> Ack,
        /// Move running work to the background.
        BackgroundTasks("background_tasks", BackgroundTasksRequest) -> BackgroundTasksResponse,
        /// Read a background task's output.
        GetTaskOutput("get_task_output", GetTaskOutputRequest) -> TaskOutput,
        /// Merge flag-layer settings.
        ApplyFlagSettings("apply_flag_settings", ApplyFlagSettingsRequest) -> Ack,
        /// Report effective settings.
        GetSettings("get_settings", GetSettingsRequest) -> SettingsResponse,
        /// List configured hooks. The answer (events, hooks, catalog,
        /// policy) is not modelled: it stays plain JSON.
        GetHooksListing("get_hooks_listing", GetHooksListingRequest) -> Json,
        /// Write to a settings file.
        UpdateSettings("update_settings", UpdateSettingsRequest) -> Ack,
        /// List permission rules. The answer (`{state: {rules, ...}}`) is
        /// not modelled: it stays plain JSON.
        ListPermissionRules("list_permission_rules", ListPermissionRulesRequest) -> Json,
        /// Bind a parked spare to a session (see [`claim`](super::claim)).
        ClaimSession("claim_session", ClaimSessionRequest) -> ClaimSessionResponse,
    }
}

impl ControlRequest {
    /// Any subtype with the given fields (a `subtype` key among them is
    /// dropped, the argument wins).
    pub fn raw(subtype: impl Into<String>, mut fields: Extra) -> Self {
        fields.remove("subtype");
        Self::Raw {
            subtype: subtype.into(),
            fields,
        }
    }

    /// `initialize` with `request`.
    pub fn initialize(request: InitializeRequest) -> Self {
        Self::Initialize(Box::new(request))
    }

    /// `interrupt`: stop the current turn.
    pub fn interrupt() -> Self {
        Self::Interrupt(InterruptRequest::default())
    }

    /// `set_permission_mode` to `mode`.
    pub fn set_permission_mode(mode: PermissionMode) -> Self {
        Self::SetPermissionMode(SetPermissionModeRequest {
            mode,
            extra: Extra::new(),
        })
    }

    /// `set_model`: `Some(model)`, or `None` for the session default (the
    /// `model` key is then left out, as the TypeScript SDK does).
    pub fn set_model(model: Option<&str>) -> Self {
        Self::SetModel(SetModelRequest {
            model: match model {
                Some(m) => Maybe::Value(m.to_owned()),
                None => Maybe::Absent,
            },
            extra: Extra::new(),
        })
    }

    /// `set_max_thinking_tokens`: `None` sends `null` (back to the default).
    pub fn set_max_thinking_tokens(tokens: Option<u64>) -> Self {
        Self::SetMaxThinkingTokens(SetMaxThinkingTokensRequest {
            max_thinking_tokens: tokens.into(),
            ..SetMaxThinkingTokensRequest::default()
        })
    }

    /// `rename_session` to `title`.
    pub fn rename_session(title: impl Into<String>) -> Self {
        Self::RenameSession(RenameSessionRequest {
            title: title.into(),
            ..RenameSessionRequest::default()
        })
    }

    /// `mcp_status`.
    pub fn mcp_status() -> Self {
        Self::McpStatus(McpStatusRequest::default())
    }

    /// `get_context_usage` (full detail).
    pub fn get_context_usage() -> Self {
        Self::GetContextUsage(GetContextUsageRequest::default())
    }

    /// `get_session_cost`.
    pub fn get_session_cost() -> Self {
        Self::GetSessionCost(GetSessionCostRequest::default())
    }

    /// `list_models`.
    pub fn list_models() -> Self {
        Self::ListModels(ListModelsRequest::default())
    }

    /// `get_usage`.
    pub fn get_usage() -> Self {
        Self::GetUsage(GetUsageRequest::default())
    }

    /// `get_binary_version`.
    pub fn get_binary_version() -> Self {
        Self::GetBinaryVersion(GetBinaryVersionRequest::default())
    }

    /// `mcp_call` of `tool` (`mcp__server__tool`) with `arguments`.
    pub fn mcp_call(tool: impl Into<String>, arguments: Json) -> Self {
        Self::McpCall(McpCallRequest {
            tool: tool.into(),
            arguments: Some(arguments),
            ..McpCallRequest::default()
        })
    }

    /// `mcp_message` carrying `message` from SDK-hosted server `server_name`.
    pub fn mcp_message(server_name: impl Into<String>, message: JsonRpcMessage) -> Self {
        Self::McpMessage(McpMessage::new(server_name, message))
    }

    /// `rewind_files` to `user_message_id`; `dry_run` only reports.
    pub fn rewind_files(user_message_id: impl Into<String>, dry_run: bool) -> Self {
        Self::RewindFiles(RewindFilesRequest {
            user_message_id: user_message_id.into(),
            dry_run: dry_run.then_some(true),
            extra: Extra::new(),
        })
    }

    /// `cancel_async_message` for `message_uuid`.
    pub fn cancel_async_message(message_uuid: impl Into<String>) -> Self {
        Self::CancelAsyncMessage(CancelAsyncMessageRequest {
            message_uuid: message_uuid.into(),
            extra: Extra::new(),
        })
    }

    /// `read_file` of `path`.
    pub fn read_file(path: impl Into<String>) -> Self {
        Self::ReadFile(ReadFileRequest {
            path: path.into(),
            ..ReadFileRequest::default()
        })
    }

    /// `mcp_set_servers` with `servers`.
    pub fn mcp_set_servers(servers: BTreeMap<String, McpServerConfig>) -> Self {
        Self::McpSetServers(McpSetServersRequest {
            servers,
            extra: Extra::new(),
        })
    }

    /// `reload_plugins`.
    pub fn reload_plugins() -> Self {
        Self::ReloadPlugins(ReloadPluginsRequest::default())
    }

    /// `reload_skills`.
    pub fn reload_skills() -> Self {
        Self::ReloadSkills(ReloadSkillsRequest::default())
    }

    /// `mcp_reconnect` of `server_name`.
    pub fn mcp_reconnect(server_name: impl Into<String>) -> Self {
        Self::McpReconnect(McpReconnectRequest {
            server_name: server_name.into(),
            extra: Extra::new(),
        })
    }

    /// `mcp_toggle` of `server_name`.
    pub fn mcp_toggle(server_name: impl Into<String>, enabled: bool) -> Self {
        Self::McpToggle(McpToggleRequest {
            server_name: server_name.into(),
            enabled,
            extra: Extra::new(),
        })
    }

    /// `mcp_read_resource` of `uri` on `server_name`.
    pub fn mcp_read_resource(server_name: impl Into<String>, uri: impl Into<String>) -> Self {
        Self::McpReadResource(McpReadResourceRequest {
            server_name: server_name.into(),
            uri: uri.into(),
            extra: Extra::new(),
        })
    }

    /// `stop_task` of `task_id`.
    pub fn stop_task(task_id: impl Into<String>) -> Self {
        Self::StopTask(StopTaskRequest {
            task_id: task_id.into(),
            extra: Extra::new(),
        })
    }

    /// `background_tasks`, optionally for one tool call.
    pub fn background_tasks(tool_use_id: Option<&str>) -> Self {
        Self::BackgroundTasks(BackgroundTasksRequest {
            tool_use_id: tool_use_id.map(str::to_owned),
            extra: Extra::new(),
        })
    }

    /// `get_task_output` of `task_id`.
    pub fn get_task_output(task_id: impl Into<String>) -> Self {
        Self::GetTaskOutput(GetTaskOutputRequest {
            task_id: task_id.into(),
            extra: Extra::new(),
        })
    }

    /// `apply_flag_settings` with `settings`.
    pub fn apply_flag_settings(settings: Extra) -> Self {
        Self::ApplyFlagSettings(ApplyFlagSettingsRequest {
            settings,
            extra: Extra::new(),
        })
    }

    /// `get_settings`.
    pub fn get_settings() -> Self {
        Self::GetSettings(GetSettingsRequest::default())
    }

    /// `update_settings` of the `source` file with `settings`.
    pub fn update_settings(source: SettingsSource, settings: Extra) -> Self {
        Self::UpdateSettings(UpdateSettingsRequest {
            source,
            settings,
            extra: Extra::new(),
        })
    }
}

// ---------------------------------------------------------------------------
// Response payloads
// ---------------------------------------------------------------------------

wire_struct! {
    /// Answer to a request that is only acknowledged (`set_color`, `stop_task`,
    /// `mcp_toggle`, ...).
    ///
    /// Decodes from `{}`, from `null` and from an answer with no `response` at
    /// all; fields a newer CLI adds are kept in `extra`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize)]
    #[non_exhaustive]
    pub struct Ack {
        /// Fields of the answer, if it had any (normally empty).
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl<'de> Deserialize<'de> for Ack {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Self {
            extra: Option::<Extra>::deserialize(deserializer)?.unwrap_or_default(),
        })
    }
}

wire_struct! {
    /// Answer to `interrupt`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct InterruptResponse {
        /// Queued messages that are still queued (absent from older CLIs).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub still_queued: Option<Vec<String>>,
        /// Queued messages that were cancelled.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub cancelled: Option<Vec<String>>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Answer to `set_permission_mode`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct SetPermissionModeResponse {
        /// The mode now in force.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub mode: Option<PermissionMode>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Answer to `set_model`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct SetModelResponse {
        /// The model id now in use.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub model: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Answer to `mcp_status`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct McpStatusResponse {
        /// Every MCP server of the session.
        #[serde(rename = "mcpServers")]
        pub mcp_servers: Vec<McpServerStatus>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// One category of context usage (system prompt, tools, messages, ...).
    ///
    /// Every field is optional, as in every part of a [`ContextUsage`].
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ContextCategory {
        /// Stable id (`system_prompt`, `messages`, `free_space`, ...).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub id: Option<String>,
        /// Display name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub name: Option<String>,
        /// Tokens used.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tokens: Option<u64>,
        /// Display colour.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub color: Option<String>,
        /// Tokens that are deferred (loaded on demand).
        #[serde(
            rename = "isDeferred",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub is_deferred: Option<bool>,
        /// `used`, `free`, `buffer` or `deferred`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub kind: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Token counts of the last API call.
    ///
    /// Every field is optional, as in every part of a [`ContextUsage`].
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ContextApiUsage {
        /// Input tokens.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub input_tokens: Option<u64>,
        /// Output tokens.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub output_tokens: Option<u64>,
        /// Tokens written to the cache.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub cache_creation_input_tokens: Option<u64>,
        /// Tokens read from the cache.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub cache_read_input_tokens: Option<u64>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// One square of the context grid (a [`ContextUsage`]'s `gridRows`).
    ///
    /// Every field is optional, as in every part of a [`ContextUsage`].
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ContextGridCell {
        /// Display colour.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub color: Option<String>,
        /// The square is filled.
        #[serde(
            rename = "isFilled",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub is_filled: Option<bool>,
        /// Name of the category the square belongs to.
        #[serde(
            rename = "categoryName",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub category_name: Option<String>,
        /// Tokens the square stands for.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tokens: Option<u64>,
        /// Share of the context the square stands for, in percent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub percentage: Option<serde_json::Number>,
        /// How full the square is (0 to 1).
        #[serde(
            rename = "squareFullness",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub square_fullness: Option<serde_json::Number>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A memory file (`CLAUDE.md`, ...) loaded into the context.
    ///
    /// Every field is optional, as in every part of a [`ContextUsage`].
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ContextMemoryFile {
        /// Path of the file.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub path: Option<String>,
        /// Kind of memory file (`Project`, `User`, ...).
        #[serde(
            rename = "type",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub kind: Option<String>,
        /// Tokens it takes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tokens: Option<u64>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// An MCP tool whose schema is in the context.
    ///
    /// Every field is optional, as in every part of a [`ContextUsage`].
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ContextMcpTool {
        /// The tool's name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub name: Option<String>,
        /// Its server's name (normalized).
        #[serde(
            rename = "serverName",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub server_name: Option<String>,
        /// Tokens its schema takes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tokens: Option<u64>,
        /// The schema is loaded (not deferred).
        #[serde(
            rename = "isLoaded",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub is_loaded: Option<bool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// One server's share of the MCP instructions row (estimated from the
/// length of its text).
    ///
    /// Every field is optional, as in every part of a [`ContextUsage`].
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ContextMcpInstructions {
        /// The server's name, as `mcp_status` reports it.
        #[serde(
            rename = "serverName",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub server_name: Option<String>,
        /// Tokens its instructions take.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tokens: Option<u64>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A built-in tool whose schema is loaded on demand.
    ///
    /// Every field is optional, as in every part of a [`ContextUsage`].
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ContextDeferredTool {
        /// The tool's name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub name: Option<String>,
        /// Tokens its schema takes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tokens: Option<u64>,
        /// The schema is loaded now.
        #[serde(
            rename = "isLoaded",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub is_loaded: Option<bool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A named item and the tokens it takes (system tools, system prompt
/// sections, attachments by type).
    ///
    /// Every field is optional, as in every part of a [`ContextUsage`].
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ContextTokens {
        /// The item's name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub name: Option<String>,
        /// Tokens it takes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tokens: Option<u64>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A custom agent whose definition is in the context.
    ///
    /// Every field is optional, as in every part of a [`ContextUsage`].
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ContextAgent {
        /// The agent's type (its name).
        #[serde(
            rename = "agentType",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub agent_type: Option<String>,
        /// Where it is defined (`userSettings`, `plugin`, ...).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub source: Option<String>,
        /// The plugin providing it (name and marketplace), when one does.
        #[serde(
            rename = "pluginId",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub plugin_id: Option<String>,
        /// Path of its definition file, on the CLI's machine.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub path: Option<String>,
        /// Tokens its definition takes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tokens: Option<u64>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Slash commands listed in the context.
    ///
    /// Every field is optional, as in every part of a [`ContextUsage`].
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ContextSlashCommands {
        /// How many commands there are.
        #[serde(
            rename = "totalCommands",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub total_commands: Option<u64>,
        /// How many are listed in the context.
        #[serde(
            rename = "includedCommands",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub included_commands: Option<u64>,
        /// Tokens the listing takes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tokens: Option<u64>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A skill whose front matter is in the context.
    ///
    /// Every field is optional, as in every part of a [`ContextUsage`].
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ContextSkill {
        /// The skill's name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub name: Option<String>,
        /// Where it is defined.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub source: Option<String>,
        /// Name of the plugin providing it, when one does.
        #[serde(
            rename = "pluginName",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub plugin_name: Option<String>,
        /// Id of that plugin (name and marketplace).
        #[serde(
            rename = "pluginId",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub plugin_id: Option<String>,
        /// Path of its file, on the CLI's machine.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub path: Option<String>,
        /// Tokens its front matter takes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tokens: Option<u64>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Skills listed in the context.
    ///
    /// Every field is optional, as in every part of a [`ContextUsage`].
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ContextSkills {
        /// How many skills there are.
        #[serde(
            rename = "totalSkills",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub total_skills: Option<u64>,
        /// How many are listed in the context.
        #[serde(
            rename = "includedSkills",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub included_skills: Option<u64>,
        /// Tokens the listing takes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tokens: Option<u64>,
        /// Each listed skill.
        #[serde(
            rename = "skillFrontmatter",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub skill_frontmatter: Option<Vec<ContextSkill>>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Tokens of one tool's calls and results in the conversation.
    ///
    /// Every field is optional, as in every part of a [`ContextUsage`].
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ContextToolCallTokens {
        /// The tool's name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub name: Option<String>,
        /// Tokens of its calls.
        #[serde(
            rename = "callTokens",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub call_tokens: Option<u64>,
        /// Tokens of its results.
        #[serde(
            rename = "resultTokens",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub result_tokens: Option<u64>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// What the conversation's messages are made of, in tokens.
    ///
    /// Every field is optional, as in every part of a [`ContextUsage`].
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ContextMessageBreakdown {
        /// Tool calls.
        #[serde(
            rename = "toolCallTokens",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub tool_call_tokens: Option<u64>,
        /// Tool results.
        #[serde(
            rename = "toolResultTokens",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub tool_result_tokens: Option<u64>,
        /// Attachments.
        #[serde(
            rename = "attachmentTokens",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub attachment_tokens: Option<u64>,
        /// Assistant text.
        #[serde(
            rename = "assistantMessageTokens",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub assistant_message_tokens: Option<u64>,
        /// User text.
        #[serde(
            rename = "userMessageTokens",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub user_message_tokens: Option<u64>,
        /// Context redirected into the conversation.
        #[serde(
            rename = "redirectedContextTokens",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub redirected_context_tokens: Option<u64>,
        /// Tokens not attributed to any of these.
        #[serde(
            rename = "unattributedTokens",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub unattributed_tokens: Option<u64>,
        /// Tool calls and results, by tool.
        #[serde(
            rename = "toolCallsByType",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub tool_calls_by_type: Option<Vec<ContextToolCallTokens>>,
        /// Attachments, by type.
        #[serde(
            rename = "attachmentsByType",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub attachments_by_type: Option<Vec<ContextTokens>>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Answer to `get_context_usage`: how the context window is used.
    ///
    /// Every field is optional (as in all its parts): an answer missing one
    /// still decodes typed.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ContextUsage {
        /// Usage by category.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub categories: Option<Vec<ContextCategory>>,
        /// Tokens in use.
        #[serde(
            rename = "totalTokens",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub total_tokens: Option<u64>,
        /// Usable context size.
        #[serde(
            rename = "maxTokens",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub max_tokens: Option<u64>,
        /// Context size before reserved space.
        #[serde(
            rename = "rawMaxTokens",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub raw_max_tokens: Option<u64>,
        /// Share of the context in use, in percent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub percentage: Option<serde_json::Number>,
        /// The context drawn as a grid of squares, row by row.
        #[serde(
            rename = "gridRows",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub grid_rows: Option<Vec<Vec<ContextGridCell>>>,
        /// Model the numbers are for.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub model: Option<String>,
        /// Memory files loaded.
        #[serde(
            rename = "memoryFiles",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub memory_files: Option<Vec<ContextMemoryFile>>,
        /// MCP tools whose schemas are in the context.
        #[serde(
            rename = "mcpTools",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub mcp_tools: Option<Vec<ContextMcpTool>>,
        /// The MCP instructions row, by server (only from a CLI answering on its
        /// own stdio).
        #[serde(
            rename = "mcpInstructions",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub mcp_instructions: Option<Vec<ContextMcpInstructions>>,
        /// Built-in tools loaded on demand.
        #[serde(
            rename = "deferredBuiltinTools",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub deferred_builtin_tools: Option<Vec<ContextDeferredTool>>,
        /// Built-in tools whose schemas are in the context.
        #[serde(
            rename = "systemTools",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub system_tools: Option<Vec<ContextTokens>>,
        /// The system prompt, by section.
        #[serde(
            rename = "systemPromptSections",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub system_prompt_sections: Option<Vec<ContextTokens>>,
        /// Custom agents whose definitions are in the context.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub agents: Option<Vec<ContextAgent>>,
        /// Slash commands listed in the context.
        #[serde(
            rename = "slashCommands",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub slash_commands: Option<ContextSlashCommands>,
        /// Skills listed in the context.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub skills: Option<ContextSkills>,
        /// Token count at which compaction starts.
        #[serde(
            rename = "autoCompactThreshold",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub auto_compact_threshold: Option<u64>,
        /// Whether automatic compaction is on.
        #[serde(
            rename = "isAutoCompactEnabled",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub is_auto_compact_enabled: Option<bool>,
        /// What the conversation's messages are made of.
        #[serde(
            rename = "messageBreakdown",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub message_breakdown: Option<ContextMessageBreakdown>,
        /// Token counts of the last API call (`null` before the first one).
        #[serde(
            rename = "apiUsage",
            default,
            skip_serializing_if = "Maybe::is_absent"
        )]
        pub api_usage: Maybe<ContextApiUsage>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Answer to `rewind_files`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct RewindFilesResult {
        /// Whether the rewind is (or was) possible.
        #[serde(rename = "canRewind")]
        pub can_rewind: bool,
        /// Why not.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub error: Option<String>,
        /// Files that change.
        #[serde(
            rename = "filesChanged",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub files_changed: Option<Vec<String>>,
        /// Lines added back.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub insertions: Option<u64>,
        /// Lines removed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub deletions: Option<u64>,
        /// Symbolic links skipped.
        #[serde(
            rename = "skippedLinks",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub skipped_links: Option<serde_json::Number>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Answer to `get_binary_version`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct BinaryVersion {
        /// Version, e.g. `2.1.330`.
        pub version: String,
        /// Build time (ISO 8601).
        #[serde(rename = "buildTime", default, skip_serializing_if = "Option::is_none")]
        pub build_time: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Answer to `get_session_cost`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct SessionCost {
        /// Human-readable cost report.
        pub text: String,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Answer to `list_models`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ListModelsResponse {
        /// The models.
        pub models: Vec<ModelInfo>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Answer to `background_tasks`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct BackgroundTasksResponse {
        /// Whether something was moved to the background (treat absent as yes).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub backgrounded: Option<bool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Answer to `get_task_output`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct TaskOutput {
        /// The output (possibly cut).
        pub output: String,
        /// Full size in bytes.
        pub total_bytes: u64,
        /// Whether `output` was cut.
        pub truncated: bool,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// One content item of an MCP resource.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct McpResourceContents {
        /// Resource URI.
        pub uri: String,
        /// MIME type.
        #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
        pub mime_type: Option<String>,
        /// Text content.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub text: Option<String>,
        /// Binary content, base64.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub blob: Option<String>,
        /// MCP `_meta` object.
        #[serde(
            rename = "_meta",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub meta: Option<Json>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Answer to `mcp_read_resource`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct McpReadResourceResponse {
        /// The resource's contents.
        pub contents: Vec<McpResourceContents>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Answer to `mcp_call`: the MCP tool result.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct McpCallResponse {
        /// The tool's content blocks.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub content: Option<Json>,
        /// Structured result.
        #[serde(
            rename = "structuredContent",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub structured_content: Option<Json>,
        /// MCP `_meta` object.
        #[serde(
            rename = "_meta",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub meta: Option<Json>,
        /// `true` when the tool itself failed and the request set
        /// [`McpCallRequest::soft_error_result`]: the answer is a success
        /// on the wire, the content is the tool's error.
        #[serde(rename = "isError", default, skip_serializing_if = "Option::is_none")]
        pub is_error: Option<bool>,
        /// Outcome of the file staging, when files were involved.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub staging: Option<Json>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Answer to `read_file`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ReadFileResponse {
        /// The contents (base64 when `encoding` says so).
        pub contents: String,
        /// Absolute path read.
        #[serde(rename = "absPath")]
        pub abs_path: String,
        /// Whether the file was longer than returned.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub truncated: Option<bool>,
        /// `base64` when the contents are encoded.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub encoding: Option<FileEncoding>,
        /// Whether decoding as text lost bytes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub lossy: Option<bool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Answer to `cancel_async_message`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct CancelAsyncMessageResponse {
        /// Whether the message was still queued and is now cancelled.
        pub cancelled: bool,
        /// The message's uuid.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub message_uuid: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// One path suggested by `file_suggestions`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct FileSuggestion {
        /// The path.
        pub path: String,
        /// Match score.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub score: Option<serde_json::Number>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Answer to `file_suggestions`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct FileSuggestionsResponse {
        /// Suggested paths.
        pub suggestions: Vec<FileSuggestion>,
        /// Directory the paths are relative to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub cwd: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Answer to `register_repo_root`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct RegisterRepoRootResponse {
        /// The registered directory.
        pub directory: String,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A plugin listed by `reload_plugins`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct PluginInfo {
        /// Plugin name.
        pub name: String,
        /// Plugin directory.
        pub path: String,
        /// Where it came from.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub source: Option<String>,
        /// Its version.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub version: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Answer to `reload_plugins`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ReloadPluginsResponse {
        /// Slash commands now available.
        pub commands: Vec<SlashCommand>,
        /// Agents now available.
        pub agents: Vec<AgentInfo>,
        /// Plugins loaded.
        pub plugins: Vec<PluginInfo>,
        /// MCP servers now configured.
        #[serde(rename = "mcpServers")]
        pub mcp_servers: Vec<McpServerStatus>,
        /// How many plugins failed to load.
        pub error_count: u64,
        /// Changes were held back because they would invalidate the cache.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub held: Option<bool>,
        /// What the reload does to the prompt cache.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub cache_impact: Option<Json>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Answer to `reload_skills`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ReloadSkillsResponse {
        /// Skills now available.
        pub skills: Vec<SlashCommand>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Answer to `reload_output_styles`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ReloadOutputStylesResponse {
        /// Output styles now available.
        pub available_output_styles: Vec<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// One settings layer in a [`SettingsResponse`].
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct SettingsLayer {
        /// Which layer.
        pub source: SettingsSource,
        /// Its settings.
        pub settings: Extra,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Answer to `get_settings`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct SettingsResponse {
        /// The merged settings in force.
        pub effective: Extra,
        /// Each layer's own settings.
        pub sources: Vec<SettingsLayer>,
        /// Values derived from the settings (model, effort, ...).
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub applied: Option<Json>,
        /// Settings files that failed to parse.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub errors: Option<Json>,
        /// Some settings were withheld from the answer.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub withheld: Option<bool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::ControlSuccess;
    use crate::model::hooks::{HookEvent, HookMatcher};
    use serde_json::json;
    use serde_json::value::RawValue;
    use std::any::TypeId;
    use std::collections::{BTreeMap, BTreeSet};
    use std::fmt::Debug;

    /// Receives the typed payload of a [`ControlRequest`] variant.
    pub(super) trait CallVisitor {
        fn call<C>(&mut self, call: &C)
        where
            C: ControlCall + Clone + Debug + 'static,
            C::Response: Serialize + Debug + 'static;
    }

    /// A success answer with `payload` as its `response` (`None`: no key).
    fn answer(payload: Option<&str>) -> ControlSuccess {
        ControlSuccess {
            payload: payload.map(|p| RawValue::from_string(p.to_owned()).expect("valid JSON")),
        }
    }

    /// The request of each sample, checked against its [`ControlCall`].
    #[derive(Default)]
    struct CheckCalls {
        seen: Vec<&'static str>,
        /// Subtype -> whether its answer type is [`Ack`].
        acks: BTreeMap<&'static str, bool>,
        /// Subtype -> whether its answer decodes from a bare ack.
        bare_ok: BTreeMap<&'static str, bool>,
    }

    impl CallVisitor for CheckCalls {
        fn call<C>(&mut self, call: &C)
        where
            C: ControlCall + Clone + Debug + 'static,
            C::Response: Serialize + Debug + 'static,
        {
            let request: ControlRequest = call.clone().into();
            assert_eq!(wire(&request)["subtype"], C::SUBTYPE, "{call:?}");
            assert_eq!(request.subtype(), C::SUBTYPE);
            // The typed path writes exactly the bytes of the enum.
            assert_eq!(
                serde_json::to_string(&Tagged::new(call)).expect("encode"),
                serde_json::to_string(&request).expect("encode"),
            );
            self.seen.push(C::SUBTYPE);
            let is_ack = TypeId::of::<C::Response>() == TypeId::of::<Ack>();
            self.acks.insert(C::SUBTYPE, is_ack);
            // The session reads `"response": null` as no payload, which
            // decodes as `{}`.
            let bare = [None, Some("{}")]
                .into_iter()
                .all(|p| answer(p).decode_as::<C>().is_ok());
            self.bare_ok.insert(C::SUBTYPE, bare);
            if is_ack {
                answer(Some("null"))
                    .decode_as::<C>()
                    .expect("ack from null");
                let r = answer(Some(r#"{"later":1}"#))
                    .decode_as::<C>()
                    .expect("ack");
                assert_eq!(serde_json::to_value(r).expect("encode"), json!({"later":1}));
            }
        }
    }

    #[test]
    fn every_call_matches_its_variant() {
        let mut check = CheckCalls::default();
        for v in samples() {
            let request: ControlRequest = serde_json::from_value(v.clone()).expect("decode");
            assert!(request.visit_call(&mut check), "fell back to Raw: {v}");
            // From(payload) gives back the same request.
            assert_eq!(wire(&request), v);
        }
        let seen: BTreeSet<_> = check.seen.iter().copied().collect();
        let table: BTreeSet<_> = ControlRequest::SUBTYPES.iter().copied().collect();
        assert_eq!(
            table.len(),
            ControlRequest::SUBTYPES.len(),
            "duplicate subtype"
        );
        assert_eq!(seen, table, "samples and table disagree");
        assert!(!ControlRequest::raw("x", Extra::new()).visit_call(&mut check));

        // Acknowledged only, per the protocol inventory (`—` / `RES: null`).
        let acks: BTreeSet<_> = check
            .acks
            .iter()
            .filter(|(_, a)| **a)
            .map(|(s, _)| *s)
            .collect();
        let expected: BTreeSet<_> = [
            "set_max_thinking_tokens",
            "rename_session",
            "set_color",
            "seed_read_state",
            "mcp_reconnect",
            "mcp_toggle",
            "set_has_subscribers",
            "stop_task",
            "apply_flag_settings",
            "update_settings",
        ]
        .into_iter()
        .collect();
        assert_eq!(acks, expected);
        // Answers that may come back empty decode from a bare ack too.
        for subtype in expected.iter().chain(&[
            "interrupt",
            "set_permission_mode",
            "set_model",
            "mcp_message",
            "background_tasks",
            "get_usage",
            "mcp_set_servers",
            "get_hooks_listing",
            "list_permission_rules",
        ]) {
            assert_eq!(check.bare_ok.get(subtype), Some(&true), "{subtype}");
        }
    }

    /// Decodes recorded answers with the answer type of their request.
    struct DecodeRecorded<'a> {
        payload: Option<&'a str>,
        decoded: Option<&'static str>,
    }

    impl CallVisitor for DecodeRecorded<'_> {
        fn call<C>(&mut self, _: &C)
        where
            C: ControlCall + Clone + Debug + 'static,
            C::Response: Serialize + Debug + 'static,
        {
            let typed = answer(self.payload)
                .decode_as::<C>()
                .unwrap_or_else(|e| panic!("{}: {e}: {:?}", C::SUBTYPE, self.payload));
            if let Some(payload) = self.payload {
                let original: Json = serde_json::from_str(payload).expect("JSON");
                assert_eq!(serde_json::to_value(&typed).expect("encode"), original);
            }
            self.decoded = Some(C::SUBTYPE);
        }
    }

    #[test]
    fn recorded_answers_decode_as_their_calls_response() {
        let fixtures = crate::test_fixtures::RECORDED;
        let mut decoded = BTreeSet::new();
        for fixture in fixtures {
            let mut sent: BTreeMap<String, ControlRequest> = BTreeMap::new();
            for record in fixture.lines() {
                let record: Json = serde_json::from_str(record).expect("record");
                let line: Json =
                    serde_json::from_str(record["line"].as_str().expect("line")).expect("JSON");
                match (record["dir"].as_str(), line["type"].as_str()) {
                    (Some("out"), Some("control_request")) => {
                        let id = line["request_id"].as_str().expect("id").to_owned();
                        let request =
                            serde_json::from_value(line["request"].clone()).expect("request");
                        sent.insert(id, request);
                    }
                    (Some("in"), Some("control_response"))
                        if line["response"]["subtype"] == "success" =>
                    {
                        let id = line["response"]["request_id"].as_str().expect("id");
                        let Some(request) = sent.get(id) else {
                            continue;
                        };
                        let payload = line["response"].get("response").map(Json::to_string);
                        let mut visit = DecodeRecorded {
                            payload: payload.as_deref(),
                            decoded: None,
                        };
                        request.visit_call(&mut visit);
                        decoded.extend(visit.decoded);
                    }
                    _ => {}
                }
            }
        }
        for subtype in [
            "initialize",
            "interrupt",
            "set_permission_mode",
            "set_model",
            "set_max_thinking_tokens",
            "mcp_status",
            "get_context_usage",
        ] {
            assert!(decoded.contains(subtype), "no recorded answer to {subtype}");
        }
    }

    fn round_trip<T>(value: Json) -> T
    where
        T: serde::de::DeserializeOwned + Serialize,
    {
        let typed: T = serde_json::from_value(value.clone()).expect("decode");
        assert_eq!(serde_json::to_value(&typed).expect("encode"), value);
        typed
    }

    fn wire(r: &ControlRequest) -> Json {
        serde_json::to_value(r).expect("encode")
    }

    #[test]
    fn exact_wire_shapes() {
        assert_eq!(
            wire(&ControlRequest::interrupt()),
            json!({"subtype":"interrupt"})
        );
        assert_eq!(
            wire(&ControlRequest::set_model(Some("sonnet"))),
            json!({"subtype":"set_model","model":"sonnet"})
        );
        assert_eq!(
            wire(&ControlRequest::set_model(None)),
            json!({"subtype":"set_model"})
        );
        assert_eq!(
            wire(&ControlRequest::SetModel(SetModelRequest {
                model: Maybe::Null,
                extra: Extra::new()
            })),
            json!({"subtype":"set_model","model":null})
        );
        assert_eq!(
            wire(&ControlRequest::set_permission_mode(
                PermissionMode::AcceptEdits
            )),
            json!({"subtype":"set_permission_mode","mode":"acceptEdits"})
        );
        let init = InitializeRequest::new()
            .with_hook(
                HookEvent::PreToolUse,
                HookMatcher::new(["hook_0"])
                    .with_matcher("Write|Edit")
                    .with_timeout(60),
            )
            .with_hook(HookEvent::Stop, HookMatcher::new(["hook_1"]))
            .with_sdk_mcp_server("calc")
            .with_system_prompt("");
        assert_eq!(
            wire(&ControlRequest::initialize(init)),
            json!({"subtype":"initialize",
                   "hooks":{"PreToolUse":[{"matcher":"Write|Edit","hookCallbackIds":["hook_0"],"timeout":60}],
                            "Stop":[{"hookCallbackIds":["hook_1"]}]},
                   "sdkMcpServers":["calc"],"systemPrompt":[""]})
        );
        assert_eq!(
            wire(&ControlRequest::set_max_thinking_tokens(None)),
            json!({"subtype":"set_max_thinking_tokens","max_thinking_tokens":null})
        );
        assert_eq!(
            wire(&ControlRequest::rewind_files("u1", true)),
            json!({"subtype":"rewind_files","user_message_id":"u1","dry_run":true})
        );
        assert_eq!(
            wire(&ControlRequest::mcp_toggle("gh", false)),
            json!({"subtype":"mcp_toggle","serverName":"gh","enabled":false})
        );
        assert_eq!(
            wire(&ControlRequest::background_tasks(None)),
            json!({"subtype":"background_tasks"})
        );
        assert_eq!(
            wire(&ControlRequest::mcp_message(
                "calc",
                JsonRpcMessage::notification("notifications/tools/list_changed", None)
            )),
            json!({"subtype":"mcp_message","server_name":"calc","message":{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}})
        );
        let mut fields = Extra::new();
        fields.insert("reason".into(), json!("done"));
        fields.insert("subtype".into(), json!("ignored"));
        let raw = ControlRequest::raw("end_session", fields);
        assert_eq!(raw.subtype(), "end_session");
        assert_eq!(wire(&raw), json!({"subtype":"end_session","reason":"done"}));
    }

    /// One request of every subtype with its own variant.
    fn samples() -> Vec<Json> {
        vec![
            json!({"subtype":"initialize","hooks":{"PreToolUse":[{"hookCallbackIds":["hook_0"]}]},"systemPrompt":"plain"}),
            json!({"subtype":"interrupt","cancel_queued":true,"reason":"user"}),
            json!({"subtype":"set_permission_mode","mode":"plan"}),
            json!({"subtype":"set_model","model":null}),
            json!({"subtype":"set_model"}),
            json!({"subtype":"set_model","model":"opus"}),
            json!({"subtype":"set_max_thinking_tokens","max_thinking_tokens":1024,"thinking_display":"omitted"}),
            json!({"subtype":"rename_session","title":"t","source":"host"}),
            json!({"subtype":"set_color","color":"blue"}),
            json!({"subtype":"mcp_status","liveReply":true}),
            json!({"subtype":"get_context_usage","detail":"summary"}),
            json!({"subtype":"get_session_cost"}),
            json!({"subtype":"list_models"}),
            json!({"subtype":"get_usage","skip_behaviors":true}),
            json!({"subtype":"get_binary_version"}),
            json!({"subtype":"mcp_call","tool":"mcp__gh__search","arguments":{"q":"x"},"timeout_ms":5000,
                   "input_files":[{"name":"a","lane_path":"/l/a"}],"output_files":[{"name":"b","lane_path":"/l/b","if_match":"e"}]}),
            json!({"subtype":"mcp_call","tool":"mcp__db__query","soft_error_result":true,"result_not_for_model":true}),
            json!({"subtype":"file_suggestions","query":"src/ma"}),
            json!({"subtype":"mcp_message","server_name":"calc","message":{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}}),
            json!({"subtype":"rewind_files","user_message_id":"u","dry_run":false}),
            json!({"subtype":"cancel_async_message","message_uuid":"m"}),
            json!({"subtype":"read_file","path":"/a","max_bytes":10,"encoding":"base64"}),
            json!({"subtype":"seed_read_state","path":"/a","mtime":1700000000000u64}),
            json!({"subtype":"mcp_set_servers","servers":{"a":{"command":"x"},"b":{"type":"sdk","name":"b"}}}),
            json!({"subtype":"register_repo_root","directory":"/r","reload_skills":true}),
            json!({"subtype":"reload_plugins","add_plugins":[{"type":"local","path":"/p"}],"refuse_if_busy":true}),
            json!({"subtype":"reload_skills"}),
            json!({"subtype":"reload_output_styles"}),
            json!({"subtype":"mcp_reconnect","serverName":"gh"}),
            json!({"subtype":"mcp_toggle","serverName":"gh","enabled":true}),
            json!({"subtype":"mcp_read_resource","serverName":"gh","uri":"ui://x"}),
            json!({"subtype":"set_has_subscribers","has_subscribers":null}),
            json!({"subtype":"stop_task","task_id":"t"}),
            json!({"subtype":"background_tasks","tool_use_id":"toolu"}),
            json!({"subtype":"get_task_output","task_id":"t","follow":true}),
            json!({"subtype":"apply_flag_settings","settings":{"model":"opus","env":null}}),
            json!({"subtype":"get_settings"}),
            json!({"subtype":"get_hooks_listing"}),
            json!({"subtype":"update_settings","source":"localSettings","settings":{"a":1}}),
            json!({"subtype":"list_permission_rules"}),
            json!({"subtype":"claim_session","cwd":"/w","permission_mode":"plan","sdk_mcp_servers":["tools"],"workspace_trust":{"accepted":true,"directory":"/w"}}),
            json!({"subtype":"get_hooks_listing","later":1}),
        ]
    }

    #[test]
    fn every_public_subtype_decodes_to_its_variant() {
        for v in samples() {
            let r: ControlRequest = round_trip(v.clone());
            assert!(
                !matches!(r, ControlRequest::Raw { .. }),
                "fell back to Raw: {v}"
            );
            assert_eq!(Some(r.subtype()), v["subtype"].as_str());
        }
    }

    #[test]
    fn unknown_and_mismatched_subtypes_become_raw() {
        for v in [
            json!({"subtype":"end_session","reason":"bye"}),
            json!({"subtype":"set_mcp_permission_mode_override","serverName":"gh","mode":null}),
            json!({"subtype":"set_model","model":42}),
            json!({"subtype":"stop_task"}),
        ] {
            let r: ControlRequest = round_trip(v.clone());
            assert!(matches!(r, ControlRequest::Raw { .. }), "{v}");
            assert_eq!(Some(r.subtype()), v["subtype"].as_str());
        }
    }

    #[test]
    fn response_payloads_round_trip() {
        let r: InterruptResponse =
            round_trip(json!({"still_queued":["u1"],"cancelled":[],"turn":"stopped"}));
        assert_eq!(r.still_queued.as_deref(), Some(&["u1".to_owned()][..]));
        round_trip::<InterruptResponse>(json!({}));
        let r: SetPermissionModeResponse = round_trip(json!({"mode":"acceptEdits"}));
        assert_eq!(r.mode, Some(PermissionMode::AcceptEdits));
        round_trip::<SetModelResponse>(json!({"model":"claude-sonnet-5-5"}));
        let r: McpStatusResponse =
            round_trip(json!({"mcpServers":[{"name":"a","status":"pending"}]}));
        assert_eq!(r.mcp_servers.len(), 1);
        let r: ContextUsage = round_trip(json!({
            "categories":[{"id":"system_prompt","name":"System prompt","tokens":3000,"color":"gray","kind":"used"},
                          {"name":"Free space","tokens":150000,"color":"white","kind":"free","isDeferred":false}],
            "totalTokens":20000,"maxTokens":200000,"rawMaxTokens":200000,"percentage":10,
            "gridRows":[[{"color":"gray","isFilled":true,"categoryName":"x","tokens":1,"percentage":0.5,"squareFullness":1}]],
            "model":"claude-x","memoryFiles":[],"mcpTools":[],"agents":[],"isAutoCompactEnabled":true,
            "autoCompactThreshold":180000,"apiUsage":null
        }));
        assert_eq!(r.api_usage, Maybe::Null);
        assert_eq!(r.grid_rows.as_ref().map(Vec::len), Some(1));
        round_trip::<ContextUsage>(
            json!({"categories":[],"totalTokens":1,"maxTokens":2,"rawMaxTokens":2,"percentage":0.5,
            "model":"m","isAutoCompactEnabled":false,
            "apiUsage":{"input_tokens":1,"output_tokens":2,"cache_creation_input_tokens":3,"cache_read_input_tokens":4}}),
        );
        round_trip::<RewindFilesResult>(
            json!({"canRewind":false,"error":"File rewinding is not enabled."}),
        );
        round_trip::<RewindFilesResult>(
            json!({"canRewind":true,"filesChanged":["a"],"insertions":1,"deletions":2,"skippedLinks":0}),
        );
        let v: BinaryVersion = round_trip(
            json!({"version":"2.1.330","buildTime":"2026-11-20T17:34:37Z","oldestDesktopSdk":"0.3.280"}),
        );
        assert_eq!(v.version, "2.1.330");
        round_trip::<SessionCost>(json!({"text":"Total cost: $0.01"}));
        round_trip::<ListModelsResponse>(
            json!({"models":[{"value":"opus","displayName":"Opus","description":"d"}]}),
        );
        round_trip::<BackgroundTasksResponse>(json!({}));
        round_trip::<BackgroundTasksResponse>(json!({"backgrounded":false}));
        round_trip::<TaskOutput>(
            json!({"output":"hi","total_bytes":2,"truncated":false,"done":true}),
        );
        round_trip::<McpReadResourceResponse>(
            json!({"contents":[{"uri":"ui://x","mimeType":"text/html","text":"<p>","_meta":null}]}),
        );
        round_trip::<McpCallResponse>(
            json!({"content":[{"type":"text","text":"ok"}],"structuredContent":{"a":1},
            "staging":{"ok":true,"outputs":[],"inputs_used":[]}}),
        );
        round_trip::<McpCallResponse>(json!({"content":null}));
        let soft: McpCallResponse =
            round_trip(json!({"content":[{"type":"text","text":"no such row"}],"isError":true}));
        assert_eq!(soft.is_error, Some(true));
        round_trip::<ReadFileResponse>(
            json!({"contents":"aGk=","absPath":"/a","encoding":"base64","truncated":false,"etag":"e"}),
        );
        round_trip::<CancelAsyncMessageResponse>(json!({"cancelled":true,"message_uuid":"m"}));
        round_trip::<FileSuggestionsResponse>(
            json!({"suggestions":[{"path":"src/main.rs","score":0.9}],"cwd":"/w"}),
        );
        round_trip::<RegisterRepoRootResponse>(json!({"directory":"/r"}));
        round_trip::<ReloadPluginsResponse>(
            json!({"commands":[],"agents":[],"plugins":[{"name":"p","path":"/p","version":"1"}],
            "mcpServers":[],"error_count":0,"cache_impact":{"mcp_servers_added":[],"mcp_servers_removed":[],"lsp_tool_change":null}}),
        );
        round_trip::<ReloadSkillsResponse>(
            json!({"skills":[{"name":"pdf","description":"PDF","argumentHint":""}]}),
        );
        round_trip::<ReloadOutputStylesResponse>(json!({"available_output_styles":["default"]}));
        round_trip::<SettingsResponse>(
            json!({"effective":{"model":"opus"},"sources":[{"source":"userSettings","settings":{"model":"opus"}}],
            "applied":{"model":"opus","effort":null},"withheld":false}),
        );
    }

    #[test]
    fn error_codes() {
        let c: ControlErrorCode = serde_json::from_value(json!("unsupported_request")).unwrap();
        assert_eq!(c, ControlErrorCode::UnsupportedRequest);
        let c: ControlErrorCode = serde_json::from_value(json!("remote_control_offline")).unwrap();
        assert_eq!(
            c,
            ControlErrorCode::Unknown("remote_control_offline".into())
        );
        assert_eq!(ControlErrorCode::StaleTurn.as_str(), "stale_turn");
    }
}
