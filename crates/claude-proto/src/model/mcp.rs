//! MCP server configurations and status, and the JSON-RPC 2.0 messages that
//! travel inside `mcp_message` control requests.
//!
//! A host can give the CLI MCP servers to launch (stdio, SSE, HTTP) and can
//! also host servers itself ("sdk" servers): the CLI then talks to them by
//! wrapping each JSON-RPC message in an `mcp_message` control request, and
//! the host answers with the server's JSON-RPC reply.

use super::wire::wire_struct;
use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};

use super::common::{Extra, Json, Maybe, string_enum, wire_tag};
use super::permission::deserialize_some;

wire_tag! {
    /// Marker for `"type":"stdio"`.
    pub struct StdioTag = "stdio";
}

wire_tag! {
    /// Marker for `"type":"sse"`.
    pub struct SseTag = "sse";
}

wire_tag! {
    /// Marker for `"type":"http"`.
    pub struct HttpTag = "http";
}

wire_tag! {
    /// Marker for `"type":"sdk"`.
    pub struct SdkTag = "sdk";
}

wire_tag! {
    /// Marker for `"type":"claudeai-proxy"`.
    pub struct ClaudeAiProxyTag = "claudeai-proxy";
}

string_enum! {
    /// How the CLI treats calls to one tool of an MCP server.
    pub enum McpToolPermissionPolicy {
        /// Calls are allowed without asking.
        AlwaysAllow = "always_allow",
        /// Every call is put to the host.
        AlwaysAsk = "always_ask",
        /// Calls are refused.
        AlwaysDeny = "always_deny",
    }
}

string_enum! {
    /// The most an organization lets a user grant for one MCP tool.
    pub enum McpOrgMaxPermission {
        /// The tool may be allowed outright.
        Allow = "allow",
        /// The tool may at most be asked about.
        Ask = "ask",
        /// The tool may not be used.
        Blocked = "blocked",
    }
}

wire_struct! {
    /// Per-tool permission policy attached to an MCP server configuration.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct McpServerToolPolicy {
        /// Tool name as the server reports it (without the `mcp__server__` prefix).
        pub name: String,
        /// What to do when the model calls the tool. For sdk servers only
        /// `always_ask` and `always_deny` have an effect.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub permission_policy: Option<McpToolPermissionPolicy>,
        /// Ceiling set by the organization.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub org_max_permission: Option<McpOrgMaxPermission>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl McpServerToolPolicy {
    /// A policy entry for `name` using `policy`.
    pub fn new(name: impl Into<String>, policy: McpToolPermissionPolicy) -> Self {
        Self {
            name: name.into(),
            permission_policy: Some(policy),
            ..Self::default()
        }
    }
}

wire_struct! {
    /// A server the CLI launches as a child process and talks to over stdio.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct McpStdioServerConfig {
        /// `"type":"stdio"`; the key is optional on the wire (stdio is the
        /// default), so `None` means it was left out.
        #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
        pub kind: Option<StdioTag>,
        /// Program to run.
        pub command: String,
        /// Arguments for the program.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub args: Option<Vec<String>>,
        /// Extra environment variables for the program.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub env: Option<BTreeMap<String, String>>,
        /// Tool-call timeout in milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub timeout: Option<u64>,
        /// Load the server's tools up front instead of deferring them.
        #[serde(
            rename = "alwaysLoad",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub always_load: Option<bool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A remote server reached over Server-Sent Events.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct McpSseServerConfig {
        /// `"type":"sse"`.
        #[serde(rename = "type")]
        pub kind: SseTag,
        /// Endpoint URL.
        pub url: String,
        /// HTTP headers sent with each request.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub headers: Option<BTreeMap<String, String>>,
        /// Per-tool permission policies.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tools: Option<Vec<McpServerToolPolicy>>,
        /// Tool-call timeout in milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub timeout: Option<u64>,
        /// Load the server's tools up front instead of deferring them.
        #[serde(
            rename = "alwaysLoad",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub always_load: Option<bool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A remote server reached over streamable HTTP.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct McpHttpServerConfig {
        /// `"type":"http"`.
        #[serde(rename = "type")]
        pub kind: HttpTag,
        /// Endpoint URL.
        pub url: String,
        /// HTTP headers sent with each request.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub headers: Option<BTreeMap<String, String>>,
        /// Per-tool permission policies.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tools: Option<Vec<McpServerToolPolicy>>,
        /// Tool-call timeout in milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub timeout: Option<u64>,
        /// Load the server's tools up front instead of deferring them.
        #[serde(
            rename = "alwaysLoad",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub always_load: Option<bool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A server hosted by the SDK process itself; the CLI reaches it through
    /// `mcp_message` control requests. Only the name travels on the wire.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct McpSdkServerConfig {
        /// `"type":"sdk"`.
        #[serde(rename = "type")]
        pub kind: SdkTag,
        /// Server name used in `mcp_message.server_name`.
        pub name: String,
        /// Tool-call timeout in milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub timeout: Option<u64>,
        /// Per-tool permission policies.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tools: Option<Vec<McpServerToolPolicy>>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A claude.ai connector proxied by the CLI. Only seen in status reports.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct McpClaudeAiProxyServerConfig {
        /// `"type":"claudeai-proxy"`.
        #[serde(rename = "type")]
        pub kind: ClaudeAiProxyTag,
        /// Proxy URL.
        pub url: String,
        /// Connector id.
        pub id: String,
        /// Tool-call timeout in milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub timeout: Option<u64>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

/// Configuration of one MCP server, distinguished by its `type` field.
///
/// A configuration without `type` is a stdio server; decoding it gives
/// [`McpServerConfig::Stdio`] with `kind: None`, so it is written back
/// without `type` too.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum McpServerConfig {
    /// A local child process (`type` `"stdio"` or absent).
    Stdio(McpStdioServerConfig),
    /// `type: "sse"`.
    Sse(McpSseServerConfig),
    /// `type: "http"`.
    Http(McpHttpServerConfig),
    /// `type: "sdk"`: hosted by this process.
    Sdk(McpSdkServerConfig),
    /// `type: "claudeai-proxy"`.
    ClaudeAiProxy(McpClaudeAiProxyServerConfig),
    /// Anything else (another `type`, or a known one that did not match its
    /// shape), kept as is.
    Unknown(Json),
}

impl<'de> Deserialize<'de> for McpServerConfig {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        fn attempt<T: serde::de::DeserializeOwned>(
            value: &Json,
            wrap: fn(T) -> McpServerConfig,
        ) -> McpServerConfig {
            match super::open_enum::from_value::<T>(value) {
                Ok(v) => wrap(v),
                Err(_) => McpServerConfig::Unknown(value.clone()),
            }
        }
        let value = Json::deserialize(deserializer)?;
        let Some(obj) = value.as_object() else {
            return Ok(McpServerConfig::Unknown(value));
        };
        Ok(match obj.get("type") {
            None => attempt(&value, McpServerConfig::Stdio),
            Some(Json::String(t)) => match t.as_str() {
                StdioTag::VALUE => attempt(&value, McpServerConfig::Stdio),
                SseTag::VALUE => attempt(&value, McpServerConfig::Sse),
                HttpTag::VALUE => attempt(&value, McpServerConfig::Http),
                SdkTag::VALUE => attempt(&value, McpServerConfig::Sdk),
                ClaudeAiProxyTag::VALUE => attempt(&value, McpServerConfig::ClaudeAiProxy),
                _ => McpServerConfig::Unknown(value),
            },
            Some(_) => McpServerConfig::Unknown(value),
        })
    }
}

impl McpServerConfig {
    /// A stdio server running `command` (written with `"type":"stdio"`).
    pub fn stdio(command: impl Into<String>, args: Vec<String>) -> Self {
        Self::Stdio(McpStdioServerConfig {
            kind: Some(StdioTag),
            command: command.into(),
            args: if args.is_empty() { None } else { Some(args) },
            ..McpStdioServerConfig::default()
        })
    }

    /// A remote server reached over SSE at `url`.
    pub fn sse(url: impl Into<String>) -> Self {
        Self::Sse(McpSseServerConfig {
            url: url.into(),
            ..McpSseServerConfig::default()
        })
    }

    /// A remote server reached over streamable HTTP at `url`.
    pub fn http(url: impl Into<String>) -> Self {
        Self::Http(McpHttpServerConfig {
            url: url.into(),
            ..McpHttpServerConfig::default()
        })
    }

    /// A server hosted by this process under `name`.
    pub fn sdk(name: impl Into<String>) -> Self {
        Self::Sdk(McpSdkServerConfig {
            name: name.into(),
            ..McpSdkServerConfig::default()
        })
    }

    /// The `type` value this configuration has on the wire (`"stdio"` when
    /// the key is absent), or `None` for an unknown configuration without a
    /// string `type`.
    pub fn kind(&self) -> Option<&str> {
        match self {
            Self::Stdio(_) => Some(StdioTag::VALUE),
            Self::Sse(_) => Some(SseTag::VALUE),
            Self::Http(_) => Some(HttpTag::VALUE),
            Self::Sdk(_) => Some(SdkTag::VALUE),
            Self::ClaudeAiProxy(_) => Some(ClaudeAiProxyTag::VALUE),
            Self::Unknown(v) => v.get("type").and_then(Json::as_str),
        }
    }
}

wire_struct! {
    /// The MCP server a tool belongs to, as attached to permission requests and
    /// hook inputs (`{"name":"github","source":"project"}`).
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct McpServerRef {
        /// Server name.
        pub name: String,
        /// Where the server was configured.
        pub source: String,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

string_enum! {
    /// Connection state of an MCP server.
    pub enum McpConnectionStatus {
        /// Connected and usable.
        Connected = "connected",
        /// Could not be started or connected.
        Failed = "failed",
        /// Waiting for the user to authenticate.
        NeedsAuth = "needs-auth",
        /// Still connecting.
        Pending = "pending",
        /// Turned off.
        Disabled = "disabled",
    }
}

wire_struct! {
    /// Name and version an MCP server reported when it connected.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct McpServerInfo {
        /// Server's own name.
        pub name: String,
        /// Server's version string.
        pub version: String,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Behaviour hints an MCP server gives for one tool.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct McpToolAnnotations {
        /// The tool does not change anything.
        #[serde(rename = "readOnly", default, skip_serializing_if = "Option::is_none")]
        pub read_only: Option<bool>,
        /// The tool may destroy data.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub destructive: Option<bool>,
        /// The tool reaches outside the local machine.
        #[serde(rename = "openWorld", default, skip_serializing_if = "Option::is_none")]
        pub open_world: Option<bool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// One tool listed in an MCP server status.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct McpToolInfo {
        /// Tool name.
        pub name: String,
        /// Tool description.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub description: Option<String>,
        /// Behaviour hints.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub annotations: Option<McpToolAnnotations>,
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
    /// State of one MCP server, as returned by `mcp_status` and `reload_plugins`
    /// and listed in `system/init`.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct McpServerStatus {
        /// Server name.
        pub name: String,
        /// Connection state.
        pub status: McpConnectionStatus,
        /// What the server said about itself when it connected.
        #[serde(
            rename = "serverInfo",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub server_info: Option<McpServerInfo>,
        /// Why the server failed, when it did.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub error: Option<String>,
        /// The configuration the server runs with.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub config: Option<McpServerConfig>,
        /// Configuration scope (user, project, ...).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub scope: Option<String>,
        /// Where the configuration came from.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub source: Option<String>,
        /// Tools the server offers.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tools: Option<Vec<McpToolInfo>>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Answer to `mcp_set_servers`: what changed.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct McpSetServersResult {
        /// Servers that were added.
        pub added: Vec<String>,
        /// Servers that were removed.
        pub removed: Vec<String>,
        /// Servers that could not be set up, with the reason.
        pub errors: BTreeMap<String, String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

// ---------------------------------------------------------------------------
// JSON-RPC 2.0
// ---------------------------------------------------------------------------

/// The JSON-RPC version string every message carries.
pub const JSONRPC_VERSION: &str = "2.0";

/// A JSON-RPC request id: a number or a string, kept exactly as received
/// (`1` and `1.0` and `"1"` stay distinct).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum JsonRpcId {
    /// A numeric id.
    Number(serde_json::Number),
    /// A string id.
    String(String),
}

impl From<i64> for JsonRpcId {
    fn from(n: i64) -> Self {
        Self::Number(n.into())
    }
}

impl From<u64> for JsonRpcId {
    fn from(n: u64) -> Self {
        Self::Number(n.into())
    }
}

impl From<&str> for JsonRpcId {
    fn from(s: &str) -> Self {
        Self::String(s.to_owned())
    }
}

impl From<String> for JsonRpcId {
    fn from(s: String) -> Self {
        Self::String(s)
    }
}

fn default_version() -> String {
    JSONRPC_VERSION.to_owned()
}

wire_struct! {
    /// A call that expects an answer (has both `method` and `id`).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct JsonRpcRequest {
        /// Protocol version, `"2.0"`.
        pub jsonrpc: String,
        /// Id the answer must carry.
        pub id: JsonRpcId,
        /// Method name, e.g. `tools/list`.
        pub method: String,
        /// Method parameters.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub params: Option<Json>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A one-way message (has `method` but no `id`); it gets no JSON-RPC answer.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct JsonRpcNotification {
        /// Protocol version, `"2.0"`.
        pub jsonrpc: String,
        /// Method name, e.g. `notifications/initialized`.
        pub method: String,
        /// Method parameters.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub params: Option<Json>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A successful answer to a request.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct JsonRpcResponse {
        /// Protocol version, `"2.0"`.
        pub jsonrpc: String,
        /// Id of the request being answered.
        pub id: JsonRpcId,
        /// The method's result.
        pub result: Json,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// The error object inside a failed answer.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct JsonRpcError {
        /// Numeric error code (see the `*_ERROR` / `*_NOT_FOUND` constants on
        /// [`JsonRpcMessage`]).
        pub code: i64,
        /// Short description.
        pub message: String,
        /// Additional data about the failure.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub data: Option<Json>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A failed answer to a request.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct JsonRpcErrorResponse {
        /// Protocol version, `"2.0"`.
        pub jsonrpc: String,
        /// Id of the request being answered; `null` when it could not be read.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub id: Maybe<JsonRpcId>,
        /// What went wrong.
        pub error: JsonRpcError,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

/// Any JSON-RPC 2.0 message, as carried in `mcp_message.message` and
/// `mcp_response`.
///
/// The kind is decided by the keys present: `method` with `id` is a request,
/// `method` alone a notification, `error` an error answer, `result` a
/// success answer. Anything else, or a message whose fields have the wrong
/// types, is kept in [`JsonRpcMessage::Unknown`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum JsonRpcMessage {
    /// A call expecting an answer.
    Request(JsonRpcRequest),
    /// A one-way message.
    Notification(JsonRpcNotification),
    /// A successful answer.
    Response(JsonRpcResponse),
    /// A failed answer.
    Error(JsonRpcErrorResponse),
    /// Not recognisable as one of the above; kept as is.
    Unknown(Json),
}

impl<'de> Deserialize<'de> for JsonRpcMessage {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        fn attempt<T: serde::de::DeserializeOwned>(
            value: Json,
            wrap: fn(T) -> JsonRpcMessage,
        ) -> JsonRpcMessage {
            match super::open_enum::from_value::<T>(&value) {
                Ok(v) => wrap(v),
                Err(_) => JsonRpcMessage::Unknown(value),
            }
        }
        let value = Json::deserialize(deserializer)?;
        let Some(obj) = value.as_object() else {
            return Ok(JsonRpcMessage::Unknown(value));
        };
        let (method, id, error, result) = (
            obj.contains_key("method"),
            obj.contains_key("id"),
            obj.contains_key("error"),
            obj.contains_key("result"),
        );
        Ok(if method && id {
            attempt(value, JsonRpcMessage::Request)
        } else if method {
            attempt(value, JsonRpcMessage::Notification)
        } else if error {
            attempt(value, JsonRpcMessage::Error)
        } else if result {
            attempt(value, JsonRpcMessage::Response)
        } else {
            JsonRpcMessage::Unknown(value)
        })
    }
}

impl JsonRpcMessage {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: i64 = -32700;
    /// The message is not a valid request.
    pub const INVALID_REQUEST: i64 = -32600;
    /// The method does not exist.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// The parameters are invalid.
    pub const INVALID_PARAMS: i64 = -32602;
    /// An internal error in the server.
    pub const INTERNAL_ERROR: i64 = -32603;

    /// A request calling `method` with `params`.
    pub fn request(
        id: impl Into<JsonRpcId>,
        method: impl Into<String>,
        params: Option<Json>,
    ) -> Self {
        Self::Request(JsonRpcRequest {
            jsonrpc: default_version(),
            id: id.into(),
            method: method.into(),
            params,
            extra: Extra::new(),
        })
    }

    /// A notification of `method` with `params`.
    pub fn notification(method: impl Into<String>, params: Option<Json>) -> Self {
        Self::Notification(JsonRpcNotification {
            jsonrpc: default_version(),
            method: method.into(),
            params,
            extra: Extra::new(),
        })
    }

    /// A successful answer with `result` to the request `id`.
    pub fn result(id: impl Into<JsonRpcId>, result: Json) -> Self {
        Self::Response(JsonRpcResponse {
            jsonrpc: default_version(),
            id: id.into(),
            result,
            extra: Extra::new(),
        })
    }

    /// A failed answer to the request `id`.
    pub fn error(id: impl Into<JsonRpcId>, code: i64, message: impl Into<String>) -> Self {
        Self::Error(JsonRpcErrorResponse {
            jsonrpc: default_version(),
            id: Maybe::Value(id.into()),
            error: JsonRpcError {
                code,
                message: message.into(),
                data: None,
                extra: Extra::new(),
            },
            extra: Extra::new(),
        })
    }

    /// A failed answer whose request's id could not be read (JSON-RPC
    /// answers those with `"id": null`).
    pub fn error_with_null_id(code: i64, message: impl Into<String>) -> Self {
        Self::Error(JsonRpcErrorResponse {
            jsonrpc: default_version(),
            id: Maybe::Null,
            error: JsonRpcError {
                code,
                message: message.into(),
                data: None,
                extra: Extra::new(),
            },
            extra: Extra::new(),
        })
    }

    /// The id of a request or answer (`None` for notifications, unknown
    /// messages and errors whose id is `null`).
    pub fn id(&self) -> Option<&JsonRpcId> {
        match self {
            Self::Request(r) => Some(&r.id),
            Self::Response(r) => Some(&r.id),
            Self::Error(e) => e.id.as_option(),
            Self::Notification(_) | Self::Unknown(_) => None,
        }
    }

    /// The method of a request or notification.
    pub fn method(&self) -> Option<&str> {
        match self {
            Self::Request(r) => Some(&r.method),
            Self::Notification(n) => Some(&n.method),
            _ => None,
        }
    }

    /// `true` for a notification (a message that must not be answered).
    pub fn is_notification(&self) -> bool {
        matches!(self, Self::Notification(_))
    }

    /// Converts any serializable value (for example another MCP library's
    /// message type) into a message by way of its JSON form.
    pub fn from_serialize<T: Serialize>(value: &T) -> Result<Self, serde_json::Error> {
        let json = serde_json::to_value(value)?;
        serde_json::from_value(json)
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
        let typed: T = serde_json::from_value(value.clone()).expect("decode");
        assert_eq!(serde_json::to_value(&typed).expect("encode"), value);
        typed
    }

    #[test]
    fn stdio_without_type_stays_without_type() {
        let c: McpServerConfig =
            round_trip(json!({"command":"npx","args":["-y","srv"],"env":{"A":"1"}}));
        match c {
            McpServerConfig::Stdio(s) => {
                assert!(s.kind.is_none());
                assert_eq!(s.command, "npx");
            }
            other => panic!("expected stdio, got {other:?}"),
        }
        let c: McpServerConfig = round_trip(
            json!({"type":"stdio","command":"srv","timeout":5000,"alwaysLoad":true,"role":"comms"}),
        );
        assert!(
            matches!(c, McpServerConfig::Stdio(ref s) if s.kind.is_some() && s.extra.contains_key("role"))
        );
        assert_eq!(c.kind(), Some("stdio"));
    }

    #[test]
    fn every_config_kind_round_trips() {
        let c: McpServerConfig = round_trip(
            json!({"type":"sse","url":"https://x/sse","headers":{"Authorization":"Bearer t"},
            "tools":[{"name":"search","permission_policy":"always_ask","org_max_permission":"ask"}]}),
        );
        assert!(matches!(c, McpServerConfig::Sse(_)));
        let c: McpServerConfig =
            round_trip(json!({"type":"http","url":"https://x/mcp","request_timeout_ms":3}));
        assert!(matches!(c, McpServerConfig::Http(_)));
        let c: McpServerConfig = round_trip(
            json!({"type":"sdk","name":"local","timeout":1000,"tools":[{"name":"t","permission_policy":"always_deny"}]}),
        );
        assert!(matches!(c, McpServerConfig::Sdk(ref s) if s.name == "local"));
        let c: McpServerConfig =
            round_trip(json!({"type":"claudeai-proxy","url":"https://p","id":"c1"}));
        assert!(matches!(c, McpServerConfig::ClaudeAiProxy(_)));
        let c: McpServerConfig = round_trip(json!({"type":"websocket","url":"ws://x"}));
        assert!(matches!(c, McpServerConfig::Unknown(_)));
        assert_eq!(c.kind(), Some("websocket"));
        let c: McpServerConfig = round_trip(json!({"type":"sse"}));
        assert!(matches!(c, McpServerConfig::Unknown(_)));
        let c: McpServerConfig = round_trip(json!({"args":[]}));
        assert!(matches!(c, McpServerConfig::Unknown(_)));
        let c: McpServerConfig = round_trip(json!("npx srv"));
        assert!(matches!(c, McpServerConfig::Unknown(_)));
    }

    #[test]
    fn config_constructors() {
        assert_eq!(
            serde_json::to_value(McpServerConfig::stdio("srv", vec!["--x".into()])).unwrap(),
            json!({"type":"stdio","command":"srv","args":["--x"]})
        );
        assert_eq!(
            serde_json::to_value(McpServerConfig::sdk("calc")).unwrap(),
            json!({"type":"sdk","name":"calc"})
        );
        assert_eq!(
            serde_json::to_value(McpServerConfig::http("https://h")).unwrap(),
            json!({"type":"http","url":"https://h"})
        );
        assert_eq!(
            serde_json::to_value(McpServerConfig::sse("https://s")).unwrap(),
            json!({"type":"sse","url":"https://s"})
        );
    }

    #[test]
    fn status_and_set_servers_round_trip() {
        let s: McpServerStatus = round_trip(json!({
            "name":"github","status":"connected","serverInfo":{"name":"gh","version":"1.2"},
            "config":{"type":"http","url":"https://api"},"scope":"project","source":"mcp.json",
            "tools":[{"name":"search","description":"Search","annotations":{"readOnly":true,"openWorld":false},"_meta":{"k":1}}],
            "transport":"http","toolCount":1
        }));
        assert_eq!(s.status, McpConnectionStatus::Connected);
        let s: McpServerStatus =
            round_trip(json!({"name":"x","status":"needs-auth","error":"login"}));
        assert_eq!(s.status, McpConnectionStatus::NeedsAuth);
        let r: McpSetServersResult =
            round_trip(json!({"added":["a"],"removed":[],"errors":{"b":"spawn failed"}}));
        assert_eq!(r.errors.get("b").map(String::as_str), Some("spawn failed"));
    }

    #[test]
    fn jsonrpc_kinds() {
        let m: JsonRpcMessage =
            round_trip(json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}));
        assert!(matches!(m, JsonRpcMessage::Request(_)));
        assert_eq!(m.method(), Some("tools/list"));
        assert_eq!(m.id(), Some(&JsonRpcId::from(1u64)));
        let m: JsonRpcMessage = round_trip(
            json!({"jsonrpc":"2.0","id":"abc","method":"tools/call","params":{"name":"x","arguments":{}}}),
        );
        assert_eq!(m.id(), Some(&JsonRpcId::from("abc")));
        let m: JsonRpcMessage =
            round_trip(json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
        assert!(m.is_notification());
        let m: JsonRpcMessage = round_trip(json!({"jsonrpc":"2.0","id":1.5,"result":{"tools":[]}}));
        assert!(matches!(m, JsonRpcMessage::Response(_)));
        let m: JsonRpcMessage = round_trip(
            json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse","data":null}}),
        );
        assert!(matches!(m, JsonRpcMessage::Error(ref e) if e.id == Maybe::Null));
        assert_eq!(m.id(), None);
        let m: JsonRpcMessage = round_trip(json!({"jsonrpc":"2.0","id":7,"result":null}));
        assert!(matches!(m, JsonRpcMessage::Response(ref r) if r.result.is_null()));
        let m: JsonRpcMessage = round_trip(json!({"jsonrpc":"2.0","id":{"x":1},"method":"m"}));
        assert!(matches!(m, JsonRpcMessage::Unknown(_)));
        let m: JsonRpcMessage = round_trip(json!({"hello":"world"}));
        assert!(matches!(m, JsonRpcMessage::Unknown(_)));
        let m: JsonRpcMessage = round_trip(json!([1, 2]));
        assert!(matches!(m, JsonRpcMessage::Unknown(_)));
    }

    #[test]
    fn jsonrpc_builders() {
        assert_eq!(
            serde_json::to_value(JsonRpcMessage::result(3u64, json!({"tools":[]}))).unwrap(),
            json!({"jsonrpc":"2.0","id":3,"result":{"tools":[]}})
        );
        assert_eq!(
            serde_json::to_value(JsonRpcMessage::error(
                "r1",
                JsonRpcMessage::METHOD_NOT_FOUND,
                "nope"
            ))
            .unwrap(),
            json!({"jsonrpc":"2.0","id":"r1","error":{"code":-32601,"message":"nope"}})
        );
        assert_eq!(
            serde_json::to_value(JsonRpcMessage::notification(
                "notifications/tools/list_changed",
                None
            ))
            .unwrap(),
            json!({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})
        );
        assert_eq!(
            serde_json::to_value(JsonRpcMessage::error_with_null_id(
                JsonRpcMessage::INVALID_REQUEST,
                "bad"
            ))
            .unwrap(),
            json!({"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad"}})
        );
        let req = JsonRpcMessage::request(1u64, "ping", Some(json!({})));
        let again = JsonRpcMessage::from_serialize(&req).unwrap();
        assert_eq!(again, req);
    }
}
