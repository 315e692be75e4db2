//! Routing the CLI's requests to a host's handlers, as pure data.
//!
//! Adapters run handlers (closures, futures); what a handler is *for*, what
//! the CLI must be told when there is none, when it fails, and how an
//! in-process MCP server answers the JSON-RPC it is sent, is protocol and
//! lives here, once, for every adapter.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use serde_json::json;

use crate::model::Json;
pub use crate::model::hooks::HandlerError;
use crate::model::hooks::{HookEvent, HookFailureMode, HookMatcher};
use crate::model::incoming::{
    CliRequest, ElicitationResult, McpMessage, McpMessageResponse, UserDialogResult,
};
use crate::model::mcp::{JSONRPC_VERSION, JsonRpcId, JsonRpcMessage, JsonRpcRequest};
use crate::model::permission::PermissionResult;
use crate::reply::Reply;

/// The MCP protocol version an in-process server offers when the client
/// does not ask for one.
pub const MCP_PROTOCOL_VERSION: &str = "2025-06-18";

/// Identifies one registered hook callback in a [`HookRegistry`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HookKey(pub usize);

/// The hook callbacks a host registers, and the callback ids the CLI uses
/// to call them back.
///
/// Register every callback before building the `initialize` request; put
/// [`HookRegistry::matchers`] in its `hooks` field and map each
/// `hook_callback` back with [`HookRegistry::resolve`].
#[derive(Debug, Clone, Default)]
pub struct HookRegistry {
    entries: Vec<HookEntry>,
}

#[derive(Debug, Clone)]
struct HookEntry {
    event: HookEvent,
    matcher: Option<String>,
    timeout_secs: Option<u64>,
    on_failure: Option<HookFailureMode>,
}

impl HookRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers one callback for `event`. `matcher` narrows which
    /// occurrences call it (for tool events a pattern of tool names such as
    /// `Write|Edit`; `None` means all); `timeout_secs` is how long the CLI
    /// waits for it; `on_failure` is what the CLI does when it fails (the
    /// CLI's default is to continue).
    pub fn register(
        &mut self,
        event: HookEvent,
        matcher: Option<String>,
        timeout_secs: Option<u64>,
        on_failure: Option<HookFailureMode>,
    ) -> HookKey {
        self.entries.push(HookEntry {
            event,
            matcher,
            timeout_secs,
            on_failure,
        });
        HookKey(self.entries.len() - 1)
    }

    /// `true` when nothing is registered.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The callback id the CLI will send for `key` (`hook_<n>`).
    pub fn callback_id(key: HookKey) -> String {
        format!("hook_{}", key.0)
    }

    /// The `hooks` field of the `initialize` request.
    pub fn matchers(&self) -> BTreeMap<HookEvent, Vec<HookMatcher>> {
        let mut map: BTreeMap<HookEvent, Vec<HookMatcher>> = BTreeMap::new();
        for (index, entry) in self.entries.iter().enumerate() {
            let mut matcher = HookMatcher::new([Self::callback_id(HookKey(index))]);
            matcher.matcher.clone_from(&entry.matcher);
            if let Some(seconds) = entry.timeout_secs {
                matcher = matcher.with_timeout(seconds);
            }
            if let Some(mode) = &entry.on_failure {
                matcher = matcher.with_on_failure(mode.clone());
            }
            map.entry(entry.event.clone()).or_default().push(matcher);
        }
        map
    }

    /// The callback a `hook_callback` request's `callback_id` names, if it
    /// is one of ours.
    pub fn resolve(&self, callback_id: &str) -> Option<HookKey> {
        let index: usize = callback_id.strip_prefix("hook_")?.parse().ok()?;
        (index < self.entries.len()).then_some(HookKey(index))
    }

    /// The event `key` was registered for.
    pub fn event(&self, key: HookKey) -> Option<&HookEvent> {
        self.entries.get(key.0).map(|e| &e.event)
    }
}

/// Hints about how a tool behaves (MCP's `ToolAnnotations`), listed with
/// the tool in `tools/list`. They are hints for the client and the user,
/// not guarantees; every field is optional and left out when unset.
///
/// This is the spelling a server sends (`readOnlyHint`, ...); the CLI's
/// own status reports use another, modelled by
/// [`McpToolAnnotations`](crate::model::mcp::McpToolAnnotations).
///
/// ```
/// use claude_proto::dispatch::ToolAnnotations;
/// let hints = ToolAnnotations::new().with_title("Add").read_only(true);
/// assert_eq!(
///     serde_json::to_value(&hints).unwrap(),
///     serde_json::json!({"title": "Add", "readOnlyHint": true})
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
#[non_exhaustive]
pub struct ToolAnnotations {
    /// A human-readable title for the tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not change its environment.
    #[serde(rename = "readOnlyHint", skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may destroy or overwrite things (meaningful when it is not
    /// read-only; MCP's default is `true`).
    #[serde(rename = "destructiveHint", skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Calling it again with the same arguments has no further effect
    /// (meaningful when it is not read-only).
    #[serde(rename = "idempotentHint", skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool reaches an open world (the web, say) rather than a closed
    /// one (a local database).
    #[serde(rename = "openWorldHint", skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

impl ToolAnnotations {
    /// No hints.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets `title`.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets `readOnlyHint`.
    pub fn read_only(mut self, hint: bool) -> Self {
        self.read_only_hint = Some(hint);
        self
    }

    /// Sets `destructiveHint`.
    pub fn destructive(mut self, hint: bool) -> Self {
        self.destructive_hint = Some(hint);
        self
    }

    /// Sets `idempotentHint`.
    pub fn idempotent(mut self, hint: bool) -> Self {
        self.idempotent_hint = Some(hint);
        self
    }

    /// Sets `openWorldHint`.
    pub fn open_world(mut self, hint: bool) -> Self {
        self.open_world_hint = Some(hint);
        self
    }
}

/// A tool offered by an in-process MCP server.
///
/// There is no `outputSchema`: a client holds a tool that declares one to
/// always return matching `structuredContent`, which a tool returning text
/// would break, and nothing here ties a result type to a schema.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct McpToolSpec {
    /// The tool's name (the model sees it as `mcp__<server>__<name>`).
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// JSON Schema of its arguments (an object schema).
    pub input_schema: Json,
    /// Behaviour hints, listed as `annotations`.
    pub annotations: Option<ToolAnnotations>,
    /// Extra metadata, listed as `_meta` (MCP reserves some key prefixes;
    /// Claude Code reads `anthropic/maxResultSizeChars`, the size up to
    /// which it keeps the tool's result inline).
    pub meta: Option<serde_json::Map<String, Json>>,
    /// What checks the arguments of a `tools/call` before the tool runs
    /// (see [`route_mcp`]); `None`: not checked here. The adapters set it
    /// from [`input_schema`](Self::input_schema)
    /// (`claude_proto_adapter::json_schema`): a checker that reads regular
    /// expressions is more than this crate's dependencies allow.
    pub input_check: Option<InputCheck>,
}

/// Checks a tool's arguments before the tool runs: `Err` says why they do
/// not fit, in the words that follow `Input validation error: ` in the
/// tool error the model is sent.
///
/// Two checks are equal when they are the same check (clones of one).
///
/// ```
/// use claude_proto::dispatch::{InputCheck, McpToolSpec};
/// use serde_json::json;
/// let positive = InputCheck::new(|args| match args["n"].as_i64() {
///     Some(n) if n > 0 => Ok(()),
///     _ => Err(format!("{} is not positive", args["n"])),
/// });
/// assert_eq!(positive.check(&json!({"n": 0})), Err("0 is not positive".into()));
/// let tool = McpToolSpec::new("count", "Counts", json!({"type": "object"}))
///     .with_input_check(positive);
/// # assert!(tool.input_check.is_some());
/// ```
#[derive(Clone)]
pub struct InputCheck(Arc<CheckFn>);

/// What an [`InputCheck`] calls.
type CheckFn = dyn Fn(&Json) -> Result<(), String> + Send + Sync;

impl InputCheck {
    /// A check that calls `check` with the arguments.
    pub fn new(check: impl Fn(&Json) -> Result<(), String> + Send + Sync + 'static) -> Self {
        Self(Arc::new(check))
    }

    /// Checks `arguments`: `Err` says what does not fit.
    pub fn check(&self, arguments: &Json) -> Result<(), String> {
        (self.0)(arguments)
    }
}

impl fmt::Debug for InputCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("InputCheck(..)")
    }
}

impl PartialEq for InputCheck {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl McpToolSpec {
    /// A tool with an object schema for its arguments.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Json,
    ) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            input_schema,
            annotations: None,
            meta: None,
            input_check: None,
        }
    }

    /// Sets the behaviour hints listed with the tool.
    pub fn with_annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.annotations = Some(annotations);
        self
    }

    /// Sets the `_meta` object listed with the tool.
    pub fn with_meta(mut self, meta: serde_json::Map<String, Json>) -> Self {
        self.meta = Some(meta);
        self
    }

    /// Sets what checks the arguments before the tool runs.
    pub fn with_input_check(mut self, check: InputCheck) -> Self {
        self.input_check = Some(check);
        self
    }

    /// The tool as `tools/list` lists it.
    fn listing(&self) -> Json {
        let mut tool = json!({
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema,
        });
        if let Some(annotations) = &self.annotations {
            tool["annotations"] = json!(annotations);
        }
        if let Some(meta) = &self.meta {
            tool["_meta"] = Json::Object(meta.clone());
        }
        tool
    }
}

/// An in-process MCP server: its name as the CLI knows it, and its tools.
#[derive(Debug, Clone, PartialEq)]
pub struct McpServerSpec {
    /// The server's name (listed in `initialize.sdkMcpServers`).
    pub name: String,
    /// Version reported in `serverInfo`.
    pub version: String,
    /// The tools it offers.
    pub tools: Vec<McpToolSpec>,
}

impl McpServerSpec {
    /// A server with no tools yet.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            tools: Vec::new(),
        }
    }

    /// Adds a tool.
    pub fn with_tool(mut self, tool: McpToolSpec) -> Self {
        self.tools.push(tool);
        self
    }
}

/// What to do with an `mcp_message` request.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum McpRoute {
    /// Answer at once with this reply (handshake, listing, ping, errors,
    /// notifications).
    Respond(McpMessageResponse),
    /// Run the tool, then answer with [`tool_call_response`].
    CallTool {
        /// Index of the server in the slice given to [`route_mcp`].
        server: usize,
        /// Index of the tool in that server's `tools`.
        tool: usize,
        /// The JSON-RPC id the answer must carry.
        id: JsonRpcId,
        /// The call's arguments (`{}` when absent).
        arguments: Json,
    },
    /// No server of that name: answer with this error reply.
    UnknownServer(Reply),
}

/// Routes an `mcp_message` to one of the host's in-process servers.
///
/// Handles the MCP handshake (`initialize`, `notifications/*`), `ping` and
/// `tools/list` itself; a `tools/call` for a known tool becomes
/// [`McpRoute::CallTool`]. Everything else is answered at once, so the CLI
/// is never left waiting, with the JSON-RPC 2.0 error the spec names:
///
/// - a message that is not a request, notification or response (an `id`
///   without a `method`, a `method` that is not a string, no `"jsonrpc":
///   "2.0"`, not an object): -32600 Invalid Request, echoing the id when
///   it is a string or a number and with `"id": null` otherwise (MCP
///   forbids a `null` id, so a request carrying one is refused too);
/// - a method other than the four above: -32601 Method not found;
/// - `params` that are not an object, and a `tools/call` without a
///   string `name` or with `arguments` that are not an object: -32602
///   Invalid params, saying which;
/// - a `tools/call` naming no tool of the server: -32602 `Unknown tool:
///   <name>`, as in the MCP spec's example.
///
/// An answer carries the request's id exactly as it was read: a string
/// as is, a number with its value (`9.5` stays `9.5`, `1` stays `1`; an
/// integer beyond 64 bits is read as the nearest `f64`, as JavaScript
/// reads it too).
///
/// A `tools/call` whose arguments its tool's [`InputCheck`] refuses is
/// answered at once with a tool error, `Input validation error: <what>`,
/// as the Python SDK's server answers arguments that do not fit the
/// tool's schema; the handler never runs. A tool without a check is
/// called with any object (the adapters give every tool one, from its
/// schema: `claude_proto_adapter::json_schema`).
///
/// This server is deliberately small: it has no resources, prompts,
/// completions, logging or
/// cancellation (a `notifications/cancelled` is acknowledged, and the
/// tool's answer is still sent). A server that needs those is an `rmcp`
/// server attached with `claude_proto_rmcp::RmcpEndpoint`.
pub fn route_mcp(servers: &[McpServerSpec], request: &McpMessage) -> McpRoute {
    let Some(server_index) = servers.iter().position(|s| s.name == request.server_name) else {
        return McpRoute::UnknownServer(Reply::error(format!(
            "SDK MCP server not found: {}",
            request.server_name
        )));
    };
    let server = &servers[server_index];
    let reply = match &request.message {
        JsonRpcMessage::Request(r) => match route_request(server_index, server, r) {
            Ok(route) => return route,
            Err((code, message)) => JsonRpcMessage::error(r.id.clone(), code, message),
        },
        JsonRpcMessage::Unknown(message) => invalid_request(message),
        // Notifications and answers from the client need no JSON-RPC reply,
        // only the control-channel acknowledgement.
        JsonRpcMessage::Notification(_)
        | JsonRpcMessage::Response(_)
        | JsonRpcMessage::Error(_) => {
            return McpRoute::Respond(McpMessageResponse::notification_ack());
        }
    };
    McpRoute::Respond(McpMessageResponse::new(reply))
}

/// Answers one well-formed request; `Err` is the code and message of the
/// JSON-RPC error to send.
fn route_request(
    server_index: usize,
    server: &McpServerSpec,
    request: &JsonRpcRequest,
) -> Result<McpRoute, (i64, String)> {
    let id = &request.id;
    let fail = |code: i64, message: &str| (code, message.to_owned());
    // The model keeps any `jsonrpc` string so that it can relay what it
    // was sent; a server must refuse anything but 2.0.
    if request.jsonrpc != JSONRPC_VERSION {
        return Err(fail(
            JsonRpcMessage::INVALID_REQUEST,
            "Invalid Request: `jsonrpc` must be \"2.0\"",
        ));
    }
    // MCP's params are always an object; `null` is read as no params, as
    // the official SDKs read it.
    let params = || match &request.params {
        None | Some(Json::Null) => Ok(None),
        Some(Json::Object(params)) => Ok(Some(params)),
        Some(_) => Err(fail(
            JsonRpcMessage::INVALID_PARAMS,
            "Invalid params: `params` must be an object",
        )),
    };
    let result = match request.method.as_str() {
        "initialize" => {
            let version = params()?
                .and_then(|p| p.get("protocolVersion"))
                .and_then(Json::as_str)
                .unwrap_or(MCP_PROTOCOL_VERSION);
            json!({
                "protocolVersion": version,
                "capabilities": {"tools": {}},
                "serverInfo": {"name": server.name, "version": server.version},
            })
        }
        "ping" => {
            params()?;
            json!({})
        }
        "tools/list" => {
            params()?;
            let tools: Vec<Json> = server.tools.iter().map(McpToolSpec::listing).collect();
            json!({ "tools": tools })
        }
        "tools/call" => {
            let params = params()?.ok_or_else(|| {
                fail(
                    JsonRpcMessage::INVALID_PARAMS,
                    "Invalid params: `tools/call` needs `params` naming the tool",
                )
            })?;
            let name = match params.get("name") {
                Some(Json::String(name)) => name,
                Some(_) => {
                    return Err(fail(
                        JsonRpcMessage::INVALID_PARAMS,
                        "Invalid params: the tool `name` must be a string",
                    ));
                }
                None => {
                    return Err(fail(
                        JsonRpcMessage::INVALID_PARAMS,
                        "Invalid params: missing the tool `name`",
                    ));
                }
            };
            let arguments = match params.get("arguments") {
                None | Some(Json::Null) => json!({}),
                Some(arguments @ Json::Object(_)) => arguments.clone(),
                Some(_) => {
                    return Err(fail(
                        JsonRpcMessage::INVALID_PARAMS,
                        "Invalid params: `arguments` must be an object",
                    ));
                }
            };
            let Some(tool) = server.tools.iter().position(|t| t.name == *name) else {
                return Err(fail(
                    JsonRpcMessage::INVALID_PARAMS,
                    &format!("Unknown tool: {name}"),
                ));
            };
            // As the Python SDK's server: arguments that do not fit the
            // schema the model was shown never reach the handler; the
            // model gets a tool error saying why, and can retry.
            if let Some(Err(why)) = server.tools[tool]
                .input_check
                .as_ref()
                .map(|check| check.check(&arguments))
            {
                return Ok(McpRoute::Respond(tool_call_response(
                    id.clone(),
                    ToolOutput::error(format!("Input validation error: {why}")),
                )));
            }
            return Ok(McpRoute::CallTool {
                server: server_index,
                tool,
                id: id.clone(),
                arguments,
            });
        }
        other => {
            return Err(fail(
                JsonRpcMessage::METHOD_NOT_FOUND,
                &format!("Method not found: {other}"),
            ));
        }
    };
    Ok(McpRoute::Respond(McpMessageResponse::new(
        JsonRpcMessage::result(id.clone(), result),
    )))
}

/// The -32600 answer to a message that is neither a request, a
/// notification nor a response, saying why. It echoes the id when there
/// is one a JSON-RPC answer may carry (a string or a number) and is `null`
/// otherwise, as JSON-RPC 2.0 asks.
fn invalid_request(message: &Json) -> JsonRpcMessage {
    let fail = |id: Option<JsonRpcId>, why: &str| {
        let message = format!("Invalid Request: {why}");
        match id {
            Some(id) => JsonRpcMessage::error(id, JsonRpcMessage::INVALID_REQUEST, message),
            None => JsonRpcMessage::error_with_null_id(JsonRpcMessage::INVALID_REQUEST, message),
        }
    };
    let Some(object) = message.as_object() else {
        return fail(None, "not a JSON-RPC message object");
    };
    let id = match object.get("id") {
        None => None,
        Some(Json::String(id)) => Some(JsonRpcId::String(id.clone())),
        Some(Json::Number(id)) => Some(JsonRpcId::Number(id.clone())),
        Some(_) => return fail(None, "`id` must be a string or a number"),
    };
    let why = if object.get("jsonrpc").and_then(Json::as_str) != Some(JSONRPC_VERSION) {
        "`jsonrpc` must be \"2.0\""
    } else if object.get("method").is_some_and(|m| !m.is_string()) {
        "`method` must be a string"
    } else if !["method", "result", "error"]
        .iter()
        .any(|key| object.contains_key(*key))
    {
        if id.is_some() {
            "a message with an `id` needs a `method` (or a `result` or `error`)"
        } else {
            "no `method`"
        }
    } else {
        "not a JSON-RPC 2.0 request, notification or response"
    };
    fail(id, why)
}

/// What an in-process MCP tool returns.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// MCP content items (`{"type":"text","text":...}`, images, ...).
    pub content: Vec<Json>,
    /// `true` when the tool failed; the model sees the content as an error.
    pub is_error: bool,
    /// Optional structured result.
    pub structured_content: Option<Json>,
}

impl ToolOutput {
    /// A successful text result.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![json!({"type": "text", "text": text.into()})],
            is_error: false,
            structured_content: None,
        }
    }

    /// A failed call with an explanation for the model.
    pub fn error(text: impl Into<String>) -> Self {
        Self {
            is_error: true,
            ..Self::text(text)
        }
    }
}

/// What a handler may return where a `T` is expected: the `T` itself, or a
/// `Result<T, HandlerError>` (an error gets the CLI an error answer, see
/// [`reply_for_failure`]).
///
/// ```
/// use claude_proto::dispatch::IntoHandlerResult;
/// use claude_proto::model::permission::PermissionResult;
/// let plain = IntoHandlerResult::<PermissionResult>::into_handler_result(PermissionResult::allow());
/// assert!(plain.is_ok());
/// ```
#[diagnostic::on_unimplemented(
    message = "a handler returning `{Self}` cannot answer with a `{T}`",
    label = "expected `{T}` or `Result<{T}, HandlerError>`",
    note = "return `{T}`, or `Result<{T}, HandlerError>` (errors convert with `?` or `.map_err(Into::into)`)"
)]
pub trait IntoHandlerResult<T> {
    /// The handler's answer, or why it failed.
    fn into_handler_result(self) -> Result<T, HandlerError>;
}

impl<T> IntoHandlerResult<T> for T {
    fn into_handler_result(self) -> Result<T, HandlerError> {
        Ok(self)
    }
}

impl<T> IntoHandlerResult<T> for Result<T, HandlerError> {
    fn into_handler_result(self) -> Result<T, HandlerError> {
        self
    }
}

impl ToolOutput {
    /// The output for a tool's serializable result: a JSON string is sent
    /// as the text itself; any other value as its JSON text, and an object
    /// also as `structuredContent`.
    pub fn json<T: serde::Serialize + ?Sized>(value: &T) -> Result<Self, HandlerError> {
        let value = serde_json::to_value(value)?;
        Ok(match value {
            Json::String(text) => Self::text(text),
            Json::Object(_) => Self {
                structured_content: Some(value.clone()),
                ..Self::text(value.to_string())
            },
            other => Self::text(other.to_string()),
        })
    }

    /// Reads a typed tool's arguments; arguments that do not fit become a
    /// tool error naming the problem (the model sees it and can retry).
    pub fn parse_args<A: serde::de::DeserializeOwned>(
        tool: &str,
        arguments: Json,
    ) -> Result<A, Self> {
        serde_json::from_value(arguments)
            .map_err(|e| Self::error(format!("Invalid arguments for tool `{tool}`: {e}")))
    }
}

/// What a typed MCP tool may return: a [`ToolOutput`], or either a
/// `ToolOutput` or any serializable value in `Result<_, HandlerError>`
/// (sent as [`ToolOutput::json`]; an error is sent as a tool error).
#[diagnostic::on_unimplemented(
    message = "a tool returning `{Self}` cannot answer the model",
    label = "expected `ToolOutput` or `Result<impl Serialize, HandlerError>`",
    note = "return a `ToolOutput`, or `Ok(value)` where `value: Serialize`"
)]
pub trait IntoToolResult {
    /// The tool's output, or why it failed.
    fn into_tool_result(self) -> Result<ToolOutput, HandlerError>;
}

impl IntoToolResult for ToolOutput {
    fn into_tool_result(self) -> Result<ToolOutput, HandlerError> {
        Ok(self)
    }
}

impl IntoToolResult for Result<ToolOutput, HandlerError> {
    fn into_tool_result(self) -> Result<ToolOutput, HandlerError> {
        self
    }
}

impl<T: serde::Serialize> IntoToolResult for Result<T, HandlerError> {
    fn into_tool_result(self) -> Result<ToolOutput, HandlerError> {
        ToolOutput::json(&self?)
    }
}

/// The `mcp_message` answer carrying a tool's output for the call `id`.
///
/// An output MCP cannot carry (a content item that is not one of MCP's
/// content blocks with its required fields, `structuredContent` that is
/// not an object) would make the CLI's MCP client reject the whole
/// answer, and the model would learn nothing; it is sent instead as a
/// tool error saying what is wrong, which the model sees.
pub fn tool_call_response(id: JsonRpcId, output: ToolOutput) -> McpMessageResponse {
    let output = match malformed(&output) {
        Some(why) => ToolOutput::error(format!(
            "The tool returned a result MCP cannot carry: {why}"
        )),
        None => output,
    };
    let mut result = json!({"content": output.content});
    if output.is_error {
        result["isError"] = json!(true);
    }
    if let Some(structured) = output.structured_content {
        result["structuredContent"] = structured;
    }
    McpMessageResponse::new(JsonRpcMessage::result(id, result))
}

/// What makes `output` something other than an MCP `CallToolResult`, if
/// anything.
fn malformed(output: &ToolOutput) -> Option<String> {
    let content = output.content.iter().enumerate().find_map(|(index, item)| {
        content_block_problem(item).map(|why| format!("content[{index}] {why}"))
    });
    content.or_else(|| {
        output
            .structured_content
            .as_ref()
            .filter(|structured| !structured.is_object())
            .map(|_| "`structuredContent` is not an object".to_owned())
    })
}

/// What keeps `item` from being one of MCP's content blocks (text, image,
/// audio, resource link, embedded resource), if anything. Only the fields
/// the spec requires are checked; the CLI's client validates the same.
fn content_block_problem(item: &Json) -> Option<String> {
    let Some(item) = item.as_object() else {
        return Some("is not an object".to_owned());
    };
    let Some(kind) = item.get("type").and_then(Json::as_str) else {
        return Some("has no string `type`".to_owned());
    };
    let (fields, required): (_, &[&str]) = match kind {
        "text" => (item, &["text"]),
        "image" | "audio" => (item, &["data", "mimeType"]),
        "resource_link" => (item, &["uri", "name"]),
        "resource" => {
            let Some(resource) = item.get("resource").and_then(Json::as_object) else {
                return Some("(`resource`) has no `resource` object".to_owned());
            };
            let body = ["text", "blob"]
                .iter()
                .any(|key| resource.get(*key).is_some_and(Json::is_string));
            if !body {
                return Some("(`resource`) has neither a string `text` nor `blob`".to_owned());
            }
            (resource, &["uri"])
        }
        other => return Some(format!("has a `type` MCP does not know: {other:?}")),
    };
    required
        .iter()
        .find(|key| !fields.get(**key).is_some_and(Json::is_string))
        .map(|key| format!("(`{kind}`) has no string `{key}`"))
}

/// The answer to send when the host has no handler for `request`.
///
/// - `can_use_tool`: an error (as the official SDKs answer; the CLI then
///   refuses the tool).
/// - `hook_callback`: an error naming the unknown callback id.
/// - `elicitation`: decline (nobody can be asked).
/// - `request_user_dialog`: cancelled.
/// - anything else: `unsupported_request`.
///
/// `mcp_message` is answered through [`route_mcp`] instead.
pub fn reply_without_handler(request: &CliRequest) -> Reply {
    match request {
        CliRequest::CanUseTool(_) => Reply::error(
            "No permission handler is registered in the host program (canUseTool callback is not provided)",
        ),
        CliRequest::HookCallback(hook) => Reply::error(format!(
            "No hook callback found for ID: {}",
            hook.callback_id
        )),
        CliRequest::Elicitation(_) => success(&ElicitationResult::decline()),
        CliRequest::RequestUserDialog(_) => success(&UserDialogResult::cancelled()),
        CliRequest::McpMessage(m) => {
            Reply::error(format!("SDK MCP server not found: {}", m.server_name))
        }
        _ => Reply::error_with_code("Unsupported control request", "unsupported_request"),
    }
}

/// The answer to send when the host's handler for `request` failed
/// (returned an error or panicked) with `message`.
///
/// - `can_use_tool`: deny, so a broken handler never lets a tool run.
/// - `hook_callback`: an error; the CLI then applies the matcher's
///   `onFailure` (by default it continues: hooks fail open).
/// - `mcp_message` `tools/call`: a tool result with `isError` and
///   `message` as its text, which the model sees (a panic reads
///   `panicked: ...`); other MCP methods get a JSON-RPC internal error.
/// - `elicitation`: decline; `request_user_dialog`: cancelled.
pub fn reply_for_failure(request: &CliRequest, message: &str) -> Reply {
    match request {
        CliRequest::CanUseTool(ask) => {
            let mut deny = PermissionResult::deny(format!("Permission handler failed: {message}"));
            if let Some(id) = &ask.tool_use_id {
                deny = deny.with_tool_use_id(id.as_str());
            }
            success(&deny)
        }
        CliRequest::HookCallback(_) => Reply::error(format!("Hook callback failed: {message}")),
        CliRequest::McpMessage(m) => match (&m.message, m.message.id()) {
            // The failure's own text, as the Python SDK sends a raised
            // exception's: a tool returning `Err(e)` reads to the model
            // like one returning `ToolOutput::error(e)`.
            (JsonRpcMessage::Request(r), Some(id)) if r.method == "tools/call" => {
                let text = if message.is_empty() {
                    "The tool failed"
                } else {
                    message
                };
                success(&tool_call_response(id.clone(), ToolOutput::error(text)))
            }
            (_, Some(id)) => success(&McpMessageResponse::new(JsonRpcMessage::error(
                id.clone(),
                JsonRpcMessage::INTERNAL_ERROR,
                message,
            ))),
            _ => success(&McpMessageResponse::notification_ack()),
        },
        CliRequest::Elicitation(_) => success(&ElicitationResult::decline()),
        CliRequest::RequestUserDialog(_) => success(&UserDialogResult::cancelled()),
        _ => Reply::error(message),
    }
}

/// Serializes a model value we built ourselves; these cannot fail, but a
/// failure would still become an error answer rather than a panic.
fn success<T: serde::Serialize>(payload: &T) -> Reply {
    Reply::success(payload)
        .unwrap_or_else(|e| Reply::error(format!("could not encode answer: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mcp(server: &str, message: Json) -> McpMessage {
        serde_json::from_value(json!({"server_name": server, "message": message})).unwrap()
    }

    fn reply_json(route: McpRoute) -> Json {
        match route {
            McpRoute::Respond(r) => serde_json::to_value(r).unwrap(),
            other => panic!("{other:?}"),
        }
    }

    fn calc() -> Vec<McpServerSpec> {
        vec![
            McpServerSpec::new("calc", "1.0.0").with_tool(McpToolSpec::new(
                "add",
                "Adds two numbers",
                json!({"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}}}),
            )),
        ]
    }

    #[test]
    fn hook_registry_builds_matchers_and_resolves_ids() {
        let mut hooks = HookRegistry::new();
        let a = hooks.register(HookEvent::PreToolUse, Some("Bash".into()), Some(30), None);
        let b = hooks.register(
            HookEvent::PreToolUse,
            None,
            None,
            Some(HookFailureMode::Block),
        );
        let c = hooks.register(HookEvent::Stop, None, None, None);
        let json = serde_json::to_value(hooks.matchers()).unwrap();
        assert_eq!(
            json,
            json!({
                "PreToolUse": [
                    {"matcher": "Bash", "hookCallbackIds": ["hook_0"], "timeout": 30},
                    {"hookCallbackIds": ["hook_1"], "onFailure": "block"}
                ],
                "Stop": [{"hookCallbackIds": ["hook_2"]}]
            })
        );
        assert_eq!(hooks.resolve("hook_0"), Some(a));
        assert_eq!(hooks.resolve("hook_1"), Some(b));
        assert_eq!(hooks.resolve("hook_2"), Some(c));
        assert_eq!(hooks.resolve("hook_3"), None);
        assert_eq!(hooks.resolve("hook_x"), None);
        assert_eq!(hooks.resolve("other_0"), None);
        assert_eq!(hooks.event(c), Some(&HookEvent::Stop));
    }

    #[test]
    fn mcp_handshake_listing_and_calls() {
        let servers = calc();
        let init = reply_json(route_mcp(
            &servers,
            &mcp(
                "calc",
                json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude","version":"1"}}}),
            ),
        ));
        assert_eq!(
            init["mcp_response"]["result"]["protocolVersion"],
            "2025-11-25"
        );
        assert_eq!(init["mcp_response"]["result"]["serverInfo"]["name"], "calc");
        assert_eq!(init["mcp_response"]["id"], 0);

        let ack = reply_json(route_mcp(
            &servers,
            &mcp(
                "calc",
                json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
            ),
        ));
        assert_eq!(
            ack,
            json!({"mcp_response":{"jsonrpc":"2.0","result":{},"id":0}})
        );

        let list = reply_json(route_mcp(
            &servers,
            &mcp(
                "calc",
                json!({"jsonrpc":"2.0","id":"l","method":"tools/list"}),
            ),
        ));
        assert_eq!(list["mcp_response"]["result"]["tools"][0]["name"], "add");
        assert_eq!(list["mcp_response"]["id"], "l");

        let call = route_mcp(
            &servers,
            &mcp(
                "calc",
                json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}),
            ),
        );
        let McpRoute::CallTool {
            server,
            tool,
            id,
            arguments,
        } = call
        else {
            panic!("{call:?}")
        };
        assert_eq!((server, tool), (0, 0));
        assert_eq!(arguments, json!({"a":1,"b":2}));
        let answer = serde_json::to_value(tool_call_response(id, ToolOutput::text("3"))).unwrap();
        assert_eq!(
            answer,
            json!({"mcp_response":{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"3"}]}}})
        );
    }

    /// As the Python SDK's server: arguments the tool's check refuses are
    /// answered with a tool error at once, never routed to the tool; a
    /// tool without a check takes any object.
    #[test]
    fn arguments_the_check_refuses_never_reach_the_tool() {
        let numbers = InputCheck::new(|args| match args.get("a") {
            Some(a) if !a.is_number() => Err(format!("{a} is not a number")),
            _ => Ok(()),
        });
        let mut servers = calc();
        servers[0].tools[0] = servers[0].tools[0].clone().with_input_check(numbers);
        let call = |servers: &[McpServerSpec], id: u64, arguments: Json| {
            route_mcp(
                servers,
                &mcp(
                    "calc",
                    json!({"jsonrpc":"2.0","id":id,"method":"tools/call",
                        "params":{"name":"add","arguments":arguments}}),
                ),
            )
        };
        let refused = reply_json(call(&servers, 3, json!({"a":"one","b":2})));
        assert_eq!(
            refused,
            json!({"mcp_response":{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text",
                "text":"Input validation error: \"one\" is not a number"}],"isError":true}}})
        );
        let fits = call(&servers, 4, json!({"a":1,"b":2.5}));
        assert!(matches!(fits, McpRoute::CallTool { .. }), "{fits:?}");
        servers[0].tools[0].input_check = None;
        let unchecked = call(&servers, 5, json!({"a":"one"}));
        assert!(
            matches!(unchecked, McpRoute::CallTool { .. }),
            "{unchecked:?}"
        );
    }

    #[test]
    fn tools_are_listed_with_their_annotations_and_meta() {
        let mut meta = serde_json::Map::new();
        meta.insert("anthropic/maxResultSizeChars".into(), json!(100_000));
        let servers = vec![
            McpServerSpec::new("calc", "1.0.0")
                .with_tool(
                    McpToolSpec::new("add", "Adds", json!({"type": "object"}))
                        .with_annotations(
                            ToolAnnotations::new()
                                .with_title("Add")
                                .read_only(true)
                                .destructive(false)
                                .idempotent(true)
                                .open_world(false),
                        )
                        .with_meta(meta),
                )
                .with_tool(
                    McpToolSpec::new("wipe", "Wipes", json!({"type": "object"}))
                        .with_annotations(ToolAnnotations::new().destructive(true)),
                )
                .with_tool(McpToolSpec::new(
                    "plain",
                    "Plain",
                    json!({"type": "object"}),
                )),
        ];
        let list = reply_json(route_mcp(
            &servers,
            &mcp(
                "calc",
                json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}),
            ),
        ));
        assert_eq!(
            list["mcp_response"],
            json!({"jsonrpc":"2.0","id":1,"result":{"tools":[
                {"name":"add","description":"Adds","inputSchema":{"type":"object"},
                 "annotations":{"title":"Add","readOnlyHint":true,"destructiveHint":false,
                    "idempotentHint":true,"openWorldHint":false},
                 "_meta":{"anthropic/maxResultSizeChars":100_000}},
                {"name":"wipe","description":"Wipes","inputSchema":{"type":"object"},
                 "annotations":{"destructiveHint":true}},
                {"name":"plain","description":"Plain","inputSchema":{"type":"object"}}
            ]}})
        );
    }

    #[test]
    fn mcp_errors_never_leave_the_cli_waiting() {
        let servers = calc();
        let unknown_tool = reply_json(route_mcp(
            &servers,
            &mcp(
                "calc",
                json!({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"nope"}}),
            ),
        ));
        assert_eq!(
            unknown_tool["mcp_response"]["error"]["code"],
            JsonRpcMessage::INVALID_PARAMS
        );
        let unknown_method = reply_json(route_mcp(
            &servers,
            &mcp(
                "calc",
                json!({"jsonrpc":"2.0","id":6,"method":"resources/list"}),
            ),
        ));
        assert_eq!(
            unknown_method["mcp_response"]["error"]["code"],
            JsonRpcMessage::METHOD_NOT_FOUND
        );
        assert_eq!(unknown_method["mcp_response"]["id"], 6);
        let ping = reply_json(route_mcp(
            &servers,
            &mcp("calc", json!({"jsonrpc":"2.0","id":7,"method":"ping"})),
        ));
        assert_eq!(ping["mcp_response"]["result"], json!({}));
        let McpRoute::UnknownServer(Reply::Error { message, .. }) = route_mcp(
            &servers,
            &mcp("other", json!({"jsonrpc":"2.0","id":1,"method":"ping"})),
        ) else {
            panic!()
        };
        assert_eq!(message, "SDK MCP server not found: other");
    }

    /// The JSON-RPC answer `route_mcp` gives `message` sent to `calc`.
    fn answer(message: Json) -> Json {
        let routed = route_mcp(&calc(), &mcp("calc", message));
        reply_json(routed)["mcp_response"].take()
    }

    fn error(id: Json, code: i64, message: &str) -> Json {
        json!({"jsonrpc":"2.0","id":id,"error":{"code":code,"message":message}})
    }

    #[test]
    fn mcp_messages_that_are_not_requests_are_invalid() {
        // An id without a method was acknowledged like a notification.
        assert_eq!(
            answer(json!({"jsonrpc":"2.0","id":2})),
            error(
                json!(2),
                -32600,
                "Invalid Request: a message with an `id` needs a `method` (or a `result` or `error`)"
            )
        );
        assert_eq!(
            answer(json!({"jsonrpc":"2.0","id":"a","method":5})),
            error(
                json!("a"),
                -32600,
                "Invalid Request: `method` must be a string"
            )
        );
        assert_eq!(
            answer(json!({"id":12,"method":"ping"})),
            error(
                json!(12),
                -32600,
                "Invalid Request: `jsonrpc` must be \"2.0\""
            )
        );
        assert_eq!(
            answer(json!({"jsonrpc":"1.0","id":13,"method":"ping"})),
            error(
                json!(13),
                -32600,
                "Invalid Request: `jsonrpc` must be \"2.0\""
            )
        );
        assert_eq!(
            answer(json!({"jsonrpc":"2.0","method":1,"params":"bar"})),
            error(
                Json::Null,
                -32600,
                "Invalid Request: `method` must be a string"
            )
        );
        assert_eq!(
            answer(json!({"foo":"boo"})),
            error(
                Json::Null,
                -32600,
                "Invalid Request: `jsonrpc` must be \"2.0\""
            )
        );
        assert_eq!(
            answer(json!({"jsonrpc":"2.0"})),
            error(Json::Null, -32600, "Invalid Request: no `method`")
        );
        assert_eq!(
            answer(json!([1, 2])),
            error(
                Json::Null,
                -32600,
                "Invalid Request: not a JSON-RPC message object"
            )
        );
        assert_eq!(
            answer(json!({"jsonrpc":"2.0","id":3,"error":{"code":"x"}})),
            error(
                json!(3),
                -32600,
                "Invalid Request: not a JSON-RPC 2.0 request, notification or response"
            )
        );
        // Answers from the client and notifications only get the ack.
        let ack = json!({"jsonrpc":"2.0","result":{},"id":0});
        assert_eq!(answer(json!({"jsonrpc":"2.0","id":34,"result":{}})), ack);
        assert_eq!(
            answer(json!({"jsonrpc":"2.0","id":35,"error":{"code":1,"message":"x"}})),
            ack
        );
        assert_eq!(
            answer(
                json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}})
            ),
            ack
        );
    }

    #[test]
    fn mcp_answers_echo_every_valid_id_and_refuse_the_rest() {
        for id in [
            json!(0),
            json!(-4),
            json!(u64::MAX),
            json!(i64::MIN),
            json!(9.5),
            json!(10.0),
            json!(""),
            json!("s"),
            json!("1"),
        ] {
            assert_eq!(
                answer(json!({"jsonrpc":"2.0","id":id,"method":"ping"})),
                json!({"jsonrpc":"2.0","id":id,"result":{}}),
                "{id}"
            );
        }
        // The text of the answer, not only its value: `9.5` and `10.0`
        // come back as they were sent.
        let routed = route_mcp(
            &calc(),
            &serde_json::from_str(
                r#"{"server_name":"calc","message":{"jsonrpc":"2.0","id":9.5,"method":"ping"}}"#,
            )
            .unwrap(),
        );
        let McpRoute::Respond(reply) = routed else {
            panic!("{routed:?}")
        };
        assert_eq!(
            serde_json::to_string(&reply).unwrap(),
            r#"{"mcp_response":{"jsonrpc":"2.0","id":9.5,"result":{}}}"#
        );
        for id in [Json::Null, json!(true), json!({"x": 1}), json!([1])] {
            assert_eq!(
                answer(json!({"jsonrpc":"2.0","id":id,"method":"ping"})),
                error(
                    Json::Null,
                    -32600,
                    "Invalid Request: `id` must be a string or a number"
                ),
                "{id}"
            );
        }
        // A tool call carries the id to its answer unchanged.
        let McpRoute::CallTool { id, .. } = route_mcp(
            &calc(),
            &mcp(
                "calc",
                json!({"jsonrpc":"2.0","id":9.5,"method":"tools/call","params":{"name":"add"}}),
            ),
        ) else {
            panic!()
        };
        assert_eq!(
            serde_json::to_value(tool_call_response(id, ToolOutput::text("3"))).unwrap()["mcp_response"]
                ["id"],
            json!(9.5)
        );
    }

    #[test]
    fn mcp_tool_calls_with_bad_params_are_invalid_params() {
        let call = |params: Option<Json>| {
            let mut message = json!({"jsonrpc":"2.0","id":20,"method":"tools/call"});
            if let Some(params) = params {
                message["params"] = params;
            }
            answer(message)
        };
        let invalid = |message: &str| error(json!(20), -32602, message);
        assert_eq!(
            call(None),
            invalid("Invalid params: `tools/call` needs `params` naming the tool")
        );
        assert_eq!(
            call(Some(Json::Null)),
            invalid("Invalid params: `tools/call` needs `params` naming the tool")
        );
        assert_eq!(
            call(Some(json!([1]))),
            invalid("Invalid params: `params` must be an object")
        );
        assert_eq!(
            call(Some(json!({"arguments":{}}))),
            invalid("Invalid params: missing the tool `name`")
        );
        assert_eq!(
            call(Some(json!({"name":5}))),
            invalid("Invalid params: the tool `name` must be a string")
        );
        assert_eq!(
            call(Some(json!({"name":"add","arguments":[1]}))),
            invalid("Invalid params: `arguments` must be an object")
        );
        assert_eq!(
            call(Some(json!({"name":"add","arguments":"{}"}))),
            invalid("Invalid params: `arguments` must be an object")
        );
        assert_eq!(
            call(Some(json!({"name":"nope","arguments":{}}))),
            invalid("Unknown tool: nope")
        );
        // Absent and null arguments are an empty object, as in the SDKs.
        for params in [
            json!({"name":"add"}),
            json!({"name":"add","arguments":null}),
        ] {
            let McpRoute::CallTool { arguments, .. } = route_mcp(
                &calc(),
                &mcp(
                    "calc",
                    json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":params}),
                ),
            ) else {
                panic!()
            };
            assert_eq!(arguments, json!({}));
        }
        // Other methods refuse params that are not an object, and read
        // `null` as none.
        assert_eq!(
            answer(json!({"jsonrpc":"2.0","id":21,"method":"tools/list","params":[1]})),
            error(
                json!(21),
                -32602,
                "Invalid params: `params` must be an object"
            )
        );
        assert_eq!(
            answer(json!({"jsonrpc":"2.0","id":22,"method":"ping","params":null})),
            json!({"jsonrpc":"2.0","id":22,"result":{}})
        );
        // An unknown method is "not found" whatever its params.
        assert_eq!(
            answer(json!({"jsonrpc":"2.0","id":23,"method":"resources/list","params":5})),
            error(json!(23), -32601, "Method not found: resources/list")
        );
    }

    #[test]
    fn failures_deny_permissions_and_fail_hooks_open() {
        let ask: CliRequest = serde_json::from_value(
            json!({"subtype":"can_use_tool","tool_name":"Bash","input":{},"tool_use_id":"t1"}),
        )
        .unwrap();
        let Reply::Success(Some(payload)) = reply_for_failure(&ask, "boom") else {
            panic!()
        };
        let payload: Json = serde_json::from_str(payload.get()).unwrap();
        assert_eq!(payload["behavior"], "deny");
        assert_eq!(payload["toolUseID"], "t1");
        assert!(payload["message"].as_str().unwrap().contains("boom"));

        let hook: CliRequest = serde_json::from_value(json!({"subtype":"hook_callback","callback_id":"hook_9","input":{"hook_event_name":"Stop","session_id":"s","transcript_path":"t","cwd":"/","stop_hook_active":false}})).unwrap();
        assert!(matches!(
            reply_for_failure(&hook, "boom"),
            Reply::Error { .. }
        ));
        assert!(
            matches!(reply_without_handler(&hook), Reply::Error { ref message, .. } if message.contains("hook_9"))
        );

        let call: CliRequest = serde_json::from_value(json!({"subtype":"mcp_message","server_name":"calc","message":{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add"}}})).unwrap();
        let Reply::Success(Some(payload)) = reply_for_failure(&call, "boom") else {
            panic!()
        };
        let payload: Json = serde_json::from_str(payload.get()).unwrap();
        assert_eq!(
            payload,
            json!({"mcp_response":{"jsonrpc":"2.0","id":3,"result":{
                "content":[{"type":"text","text":"boom"}],"isError":true}}})
        );
        let Reply::Success(Some(payload)) = reply_for_failure(&call, "") else {
            panic!()
        };
        assert!(payload.get().contains(r#""text":"The tool failed""#));

        let elicit: CliRequest = serde_json::from_value(
            json!({"subtype":"elicitation","mcp_server_name":"x","message":"?"}),
        )
        .unwrap();
        let Reply::Success(Some(payload)) = reply_without_handler(&elicit) else {
            panic!()
        };
        assert_eq!(payload.get(), r#"{"action":"decline"}"#);
    }

    #[test]
    fn malformed_tool_results_become_tool_errors() {
        let answer = |output: ToolOutput| {
            serde_json::to_value(tool_call_response(JsonRpcId::from(4u64), output)).unwrap()
                ["mcp_response"]
                .take()
        };
        let refused = |why: &str| {
            json!({"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text",
                "text":format!("The tool returned a result MCP cannot carry: {why}")}],"isError":true}})
        };
        let with = |content: Vec<Json>| ToolOutput {
            content,
            is_error: false,
            structured_content: None,
        };
        for (content, why) in [
            (json!("hi"), "content[0] is not an object"),
            (json!({"text": "hi"}), "content[0] has no string `type`"),
            (
                json!({"type": "text"}),
                "content[0] (`text`) has no string `text`",
            ),
            (
                json!({"type": "text", "text": 3}),
                "content[0] (`text`) has no string `text`",
            ),
            (
                json!({"type": "image", "data": "AA=="}),
                "content[0] (`image`) has no string `mimeType`",
            ),
            (
                json!({"type": "resource_link", "uri": "file:///a"}),
                "content[0] (`resource_link`) has no string `name`",
            ),
            (
                json!({"type": "resource", "resource": {"uri": "file:///a"}}),
                "content[0] (`resource`) has neither a string `text` nor `blob`",
            ),
            (
                json!({"type": "resource", "resource": {"text": "a"}}),
                "content[0] (`resource`) has no string `uri`",
            ),
            (
                json!({"type": "video", "data": "AA=="}),
                "content[0] has a `type` MCP does not know: \"video\"",
            ),
        ] {
            assert_eq!(
                answer(with(vec![content.clone()])),
                refused(why),
                "{content}"
            );
        }
        let late = with(vec![json!({"type": "text", "text": "ok"}), json!(null)]);
        assert_eq!(answer(late), refused("content[1] is not an object"));
        let structured = ToolOutput {
            structured_content: Some(json!([1, 2])),
            ..ToolOutput::text("[1,2]")
        };
        assert_eq!(
            answer(structured),
            refused("`structuredContent` is not an object")
        );

        // Every kind of block MCP has passes unchanged.
        let blocks = vec![
            json!({"type": "text", "text": "t", "annotations": {"priority": 1}}),
            json!({"type": "image", "data": "AA==", "mimeType": "image/png"}),
            json!({"type": "audio", "data": "AA==", "mimeType": "audio/wav"}),
            json!({"type": "resource_link", "uri": "file:///a", "name": "a"}),
            json!({"type": "resource", "resource": {"uri": "file:///a", "text": "a"}}),
            json!({"type": "resource", "resource": {"uri": "file:///b", "blob": "AA=="}}),
        ];
        let fine = ToolOutput {
            structured_content: Some(json!({"sum": 3})),
            ..with(blocks.clone())
        };
        assert_eq!(
            answer(fine),
            json!({"jsonrpc":"2.0","id":4,"result":{"content":blocks,"structuredContent":{"sum":3}}})
        );
    }

    #[derive(Debug, serde::Deserialize)]
    struct Add {
        a: i64,
        b: i64,
    }

    #[test]
    fn typed_tool_arguments_and_results() {
        let args: Add = ToolOutput::parse_args("add", json!({"a": 1, "b": 2})).unwrap();
        assert_eq!(args.a + args.b, 3);
        let bad = ToolOutput::parse_args::<Add>("add", json!({"a": "one"})).unwrap_err();
        assert!(bad.is_error);
        let text = bad.content[0]["text"].as_str().unwrap();
        assert!(
            text.starts_with("Invalid arguments for tool `add`: invalid type: string"),
            "{text}"
        );
        let missing = ToolOutput::parse_args::<Add>("add", json!({"a": 1})).unwrap_err();
        assert!(
            missing.content[0]["text"]
                .as_str()
                .unwrap()
                .contains("missing field `b`")
        );

        let ok: Result<Json, HandlerError> = Ok(json!({"sum": 3}));
        let out = ok.into_tool_result().unwrap();
        assert_eq!(out.content[0]["text"], r#"{"sum":3}"#);
        assert_eq!(out.structured_content, Some(json!({"sum": 3})));
        let text: Result<&str, HandlerError> = Ok("three");
        assert_eq!(text.into_tool_result().unwrap(), ToolOutput::text("three"));
        let number: Result<i64, HandlerError> = Ok(3);
        assert_eq!(number.into_tool_result().unwrap(), ToolOutput::text("3"));
        let failed: Result<i64, HandlerError> = Err("boom".into());
        assert_eq!(failed.into_tool_result().unwrap_err().to_string(), "boom");
        assert_eq!(
            ToolOutput::error("x").into_tool_result().unwrap(),
            ToolOutput::error("x")
        );
    }

    #[test]
    fn typed_hooks_take_their_own_input() {
        use crate::model::hooks::{
            Hook, HookInput, HookOutput, IntoHookOutput, PreToolUse, PreToolUseOutput, Stop,
        };
        let input: HookInput = serde_json::from_value(json!({
            "hook_event_name": "PreToolUse", "session_id": "s", "transcript_path": "t",
            "cwd": "/", "tool_name": "Bash", "tool_input": {"command": "ls"},
            "tool_use_id": "toolu_1"
        }))
        .unwrap();
        assert_eq!(PreToolUse::EVENT, HookEvent::PreToolUse);
        let other = Stop::input(input.clone()).unwrap_err();
        assert_eq!(other.event(), HookEvent::PreToolUse);
        let typed = PreToolUse::input(input).unwrap();
        assert_eq!(typed.tool_use_id, "toolu_1");
        let out = IntoHookOutput::<PreToolUse>::into_hook_output(
            PreToolUseOutput::allow().with_updated_input(json!({"command": "ls -a"})),
        )
        .unwrap();
        assert_eq!(
            out,
            HookOutput::pre_tool_use_allow_with_input(json!({"command": "ls -a"}))
        );
        let plain = IntoHookOutput::<Stop>::into_hook_output(HookOutput::block("go on")).unwrap();
        assert_eq!(plain, HookOutput::block("go on"));
        let failed: Result<PreToolUseOutput, HandlerError> = Err("boom".into());
        assert!(IntoHookOutput::<PreToolUse>::into_hook_output(failed).is_err());
    }
}
