//! The user's handlers of one session, stored once for every adapter.
//!
//! A session's handlers (the permission prompt, hooks, in-process MCP
//! tools) are kept here whatever the adapter; the adapters differ only in
//! how a handler is called, which a [`Flavor`] names: [`Async`] stores
//! functions returning futures, [`Blocking`] plain functions. Each flavor's
//! typed registration (closure in, boxed handler out) is written once in
//! its own module, and each adapter runs the stored handlers its own way.
//!
//! The MCP tools sit behind a lock shared with the session's controllers
//! ([`LiveTools`]), so tools can be added and removed while the session
//! runs.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use claude_proto::dispatch::{HookKey, HookRegistry, McpServerSpec, McpToolSpec, ToolAnnotations};
use claude_proto::model::hooks::HookEvent;
use claude_proto_host::Capabilities;

use crate::hook_options::HookOptions;
use crate::json_schema::InputSchema;
use crate::mcp_endpoint::McpEndpoint;

mod async_flavor;
mod blocking;
mod shape;

pub use async_flavor::{Async, BoxFuture};
pub use blocking::Blocking;
pub use shape::{AsyncHandler, BlockingHandler};

/// The error a handler may return; the CLI gets an error answer (see
/// [`claude_proto::dispatch::reply_for_failure`] for what each kind means).
pub type HandlerError = claude_proto::dispatch::HandlerError;

/// The error for a typed hook called with another event's input, or one
/// the typed model could not read (the CLI then applies `on_failure`).
fn unreadable_input<H: claude_proto::model::hooks::Hook>(
    input: &claude_proto::model::hooks::HookInput,
) -> HandlerError {
    format!(
        "the `{}` hook was called with a `{}` input it could not read",
        H::EVENT.as_str(),
        input.event().as_str()
    )
    .into()
}

/// A handler that gets a clone of `state` with each call: `f(state,
/// input)` for a handler that takes `input`. For state shared between
/// handlers, the session and the rest of the program (an `Arc`, a channel
/// sender, a database pool), without cloning it into each future by hand.
///
/// `f` is an `async fn` or async closure taking the state and the input by
/// value (for the async adapters), or a plain function (for the blocking
/// one). Name the input's type in a closure (`async |log, ask: CanUseTool|`):
/// it is only known once the handler is registered.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use claude_proto::model::incoming::CanUseTool;
/// use claude_proto::model::permission::PermissionResult;
/// use claude_proto_adapter::handlers::with_state;
///
/// let asked = Arc::new(Mutex::new(Vec::<String>::new()));
/// let handler = with_state(asked.clone(), async |asked, ask: CanUseTool| {
///     asked.lock().unwrap().push(ask.tool_name);
///     PermissionResult::allow()
/// });
/// # fn takes<F: Fn(CanUseTool) -> Fut, Fut: std::future::Future + Send + 'static>(_: F) {}
/// # takes(handler);
/// ```
pub fn with_state<S, I, F, R>(state: S, f: F) -> impl Fn(I) -> R + Send + Sync + 'static
where
    S: Clone + Send + Sync + 'static,
    F: Fn(S, I) -> R + Send + Sync + 'static,
{
    move |input| f(state.clone(), input)
}

/// The answer to a call of a tool removed after the call was routed to it
/// (see [`LiveTools::remove`]): what the CLI gets for a tool it does not
/// know.
pub fn unknown_tool(name: &str) -> claude_proto::dispatch::ToolOutput {
    claude_proto::dispatch::ToolOutput::error(format!("Unknown tool: {name}"))
}

/// How an adapter calls its handlers: the stored type of each kind.
pub trait Flavor: Sized + 'static {
    /// A permission handler, as stored.
    type Permission: ?Sized + Send + Sync;
    /// A hook, as stored (it takes the whole input and the tool use id).
    type Hook: ?Sized + Send + Sync;
    /// An MCP tool, as stored (it takes the raw JSON arguments).
    type Tool: ?Sized + Send + Sync;
    /// An elicitation handler, as stored.
    type Elicitation: ?Sized + Send + Sync;
    /// A user-dialog handler, as stored.
    type UserDialog: ?Sized + Send + Sync;
}

/// One tool of an in-process MCP server: its name, description and
/// argument schema, and the function that runs it. Build it with
/// `Tool::new` (typed arguments) or `Tool::untyped` of the adapter's
/// flavor; add it to an [`McpServer`] before the session starts, or to a
/// running session with its controller's `add_tool`.
pub struct Tool<F: Flavor> {
    spec: McpToolSpec,
    run: Arc<F::Tool>,
}

impl<F: Flavor> Clone for Tool<F> {
    fn clone(&self) -> Self {
        Self {
            spec: self.spec.clone(),
            run: self.run.clone(),
        }
    }
}

impl<F: Flavor> std::fmt::Debug for Tool<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tool").field("spec", &self.spec).finish()
    }
}

impl<F: Flavor> Tool<F> {
    /// The tool, its arguments checked against its schema before `run`
    /// sees them (see [`crate::json_schema`]).
    fn from_parts(spec: McpToolSpec, run: Arc<F::Tool>) -> Self {
        let check = InputSchema::new(spec.input_schema.clone()).into_input_check();
        Self {
            spec: spec.with_input_check(check),
            run,
        }
    }

    /// The tool's name (the model sees it as `mcp__<server>__<name>`).
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// What the model is told about it.
    pub fn spec(&self) -> &McpToolSpec {
        &self.spec
    }

    /// Sets the hints about how the tool behaves (read-only, destructive,
    /// idempotent, open-world, a title), listed with it in `tools/list`.
    ///
    /// ```
    /// use claude_proto::dispatch::ToolAnnotations;
    /// use claude_proto::model::Json;
    /// use claude_proto_adapter::handlers::{Async, McpServer, Tool};
    ///
    /// let lookup = Tool::<Async>::new("lookup", "Looks a word up", async |_: Json| Ok("found"))
    ///     .with_annotations(ToolAnnotations::new().read_only(true).open_world(true));
    /// let words = McpServer::<Async>::new("words", "1.0.0").with_tool(lookup);
    /// # assert!(words.spec().tools[0].annotations.is_some());
    /// ```
    pub fn with_annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.spec = self.spec.with_annotations(annotations);
        self
    }

    /// Sets the `_meta` object listed with the tool in `tools/list` (for
    /// example `anthropic/maxResultSizeChars`, the result size up to which
    /// Claude Code keeps it inline).
    pub fn with_meta(mut self, meta: serde_json::Map<String, claude_proto::model::Json>) -> Self {
        self.spec = self.spec.with_meta(meta);
        self
    }
}

/// An in-process MCP server: tools the model can call, run inside this
/// program. Add it with the adapter builder's `mcp_server`; the model
/// sees each tool as `mcp__<server>__<tool>` (allow them with
/// `Options::allowed_tools` or a permission handler).
///
/// It needs no MCP library: the protocol is answered by
/// [`claude_proto::dispatch::route_mcp`] (the handshake, `ping`,
/// `tools/list`, `tools/call`, and the JSON-RPC errors for everything
/// else). It offers tools only, with their annotations and `_meta`
/// ([`Tool::with_annotations`], [`Tool::with_meta`]). A tool's arguments
/// are checked against its schema before it runs, as the Python SDK's
/// server checks them and in its words (see [`crate::json_schema`]), then
/// deserialized for a typed tool. It does not declare an `outputSchema`,
/// serve resources or prompts, or cancel a running tool. For those, write
/// an `rmcp` server and attach it with the builder's `mcp_endpoint` and
/// `claude_proto_rmcp::RmcpEndpoint`.
pub struct McpServer<F: Flavor> {
    spec: McpServerSpec,
    runs: Vec<Arc<F::Tool>>,
}

impl<F: Flavor> Clone for McpServer<F> {
    fn clone(&self) -> Self {
        Self {
            spec: self.spec.clone(),
            runs: self.runs.clone(),
        }
    }
}

impl<F: Flavor> std::fmt::Debug for McpServer<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("spec", &self.spec)
            .finish()
    }
}

impl<F: Flavor> McpServer<F> {
    /// A server named `name` (the name the CLI and model use) with no
    /// tools; `version` is reported to the CLI.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            spec: McpServerSpec::new(name, version),
            runs: Vec::new(),
        }
    }

    /// Adds `tool`, replacing a tool of the same name.
    pub fn with_tool(mut self, tool: Tool<F>) -> Self {
        self.insert(tool);
        self
    }

    /// The server's name.
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// What the CLI is told about the server and its tools.
    pub fn spec(&self) -> &McpServerSpec {
        &self.spec
    }

    fn insert(&mut self, tool: Tool<F>) {
        match self
            .spec
            .tools
            .iter()
            .position(|t| t.name == tool.spec.name)
        {
            Some(at) => {
                self.spec.tools[at] = tool.spec;
                self.runs[at] = tool.run;
            }
            None => {
                self.spec.tools.push(tool.spec);
                self.runs.push(tool.run);
            }
        }
    }

    fn remove(&mut self, name: &str) -> bool {
        match self.spec.tools.iter().position(|t| t.name == name) {
            Some(at) => {
                self.spec.tools.remove(at);
                self.runs.remove(at);
                true
            }
            None => false,
        }
    }

    fn run(&self, name: &str) -> Option<&Arc<F::Tool>> {
        let at = self.spec.tools.iter().position(|t| t.name == name)?;
        self.runs.get(at)
    }
}

type Servers<F> = Arc<Mutex<Vec<McpServer<F>>>>;

fn lock<F: Flavor>(servers: &Servers<F>) -> MutexGuard<'_, Vec<McpServer<F>>> {
    // Nothing user-written runs under this lock, so a poisoned lock still
    // holds a consistent table.
    servers.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The handlers of one session, as the builder collects them and the
/// adapter's driver runs them.
pub struct Handlers<F: Flavor> {
    permission: Option<Arc<F::Permission>>,
    elicitation: Option<Arc<F::Elicitation>>,
    user_dialog: Option<(Vec<String>, Arc<F::UserDialog>)>,
    hooks: Vec<Arc<F::Hook>>,
    hook_registry: HookRegistry,
    servers: Servers<F>,
    endpoints: Vec<(String, Arc<dyn McpEndpoint>)>,
}

impl<F: Flavor> Default for Handlers<F> {
    fn default() -> Self {
        Self {
            permission: None,
            elicitation: None,
            user_dialog: None,
            hooks: Vec::new(),
            hook_registry: HookRegistry::default(),
            servers: Arc::default(),
            endpoints: Vec::new(),
        }
    }
}

impl<F: Flavor> std::fmt::Debug for Handlers<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handlers")
            .field("capabilities", &self.capabilities())
            .finish_non_exhaustive()
    }
}

impl<F: Flavor> Handlers<F> {
    fn set_permission_fn(&mut self, handler: Arc<F::Permission>) {
        self.permission = Some(handler);
    }

    fn set_elicitation_fn(&mut self, handler: Arc<F::Elicitation>) {
        self.elicitation = Some(handler);
    }

    fn set_user_dialog_fn(&mut self, kinds: Vec<String>, handler: Arc<F::UserDialog>) {
        self.user_dialog = Some((kinds, handler));
    }

    fn add_hook_fn(&mut self, event: HookEvent, options: HookOptions, hook: Arc<F::Hook>) {
        let key = self.hook_registry.register(
            event,
            options.matcher,
            options.timeout_secs,
            options.on_failure,
        );
        debug_assert_eq!(key.0, self.hooks.len());
        self.hooks.push(hook);
    }

    /// Hosts an in-process MCP server, replacing one of the same name (of
    /// either kind).
    pub fn add_mcp_server(&mut self, server: McpServer<F>) {
        self.endpoints.retain(|(n, _)| n != server.name());
        let mut servers = lock(&self.servers);
        match servers.iter().position(|s| s.name() == server.name()) {
            Some(at) => servers[at] = server,
            None => servers.push(server),
        }
    }

    /// Hosts an in-process MCP server that speaks MCP itself under `name`,
    /// replacing any server of that name (of either kind).
    pub fn add_mcp_endpoint(&mut self, name: impl Into<String>, endpoint: Arc<dyn McpEndpoint>) {
        let name = name.into();
        lock(&self.servers).retain(|s| s.name() != name);
        self.endpoints.retain(|(n, _)| *n != name);
        self.endpoints.push((name, endpoint));
    }

    /// The endpoint server `name`.
    pub fn mcp_endpoint(&self, name: &str) -> Option<&Arc<dyn McpEndpoint>> {
        self.endpoints
            .iter()
            .find_map(|(n, endpoint)| (n == name).then_some(endpoint))
    }

    /// Every endpoint server, with its name (to [`connect`](McpEndpoint::connect)
    /// them when the session starts).
    pub fn mcp_endpoints(&self) -> impl Iterator<Item = (&str, &Arc<dyn McpEndpoint>)> {
        self.endpoints.iter().map(|(n, e)| (n.as_str(), e))
    }

    /// What the [`Host`](claude_proto_host::Host) needs to know: which
    /// requests have a handler, the hooks' matchers, the servers' tools.
    pub fn capabilities(&self) -> Capabilities {
        let mut capabilities = Capabilities::default();
        capabilities.permission = self.permission.is_some();
        capabilities.elicitation = self.elicitation.is_some();
        capabilities.user_dialog_kinds = self.user_dialog.as_ref().map(|(kinds, _)| kinds.clone());
        capabilities.hooks = self.hook_registry.clone();
        capabilities.mcp_servers = lock(&self.servers).iter().map(|s| s.spec.clone()).collect();
        capabilities.mcp_endpoints = self.endpoints.iter().map(|(n, _)| n.clone()).collect();
        capabilities
    }

    /// The permission handler.
    pub fn permission(&self) -> Option<&Arc<F::Permission>> {
        self.permission.as_ref()
    }

    /// The elicitation handler.
    pub fn elicitation(&self) -> Option<&Arc<F::Elicitation>> {
        self.elicitation.as_ref()
    }

    /// The user-dialog handler.
    pub fn user_dialog(&self) -> Option<&Arc<F::UserDialog>> {
        self.user_dialog.as_ref().map(|(_, handler)| handler)
    }

    /// The hook registered under `key`.
    pub fn hook(&self, key: HookKey) -> Option<&Arc<F::Hook>> {
        self.hooks.get(key.0)
    }

    /// The tool `tool` of server `server`, as it is now.
    pub fn tool(&self, server: &str, tool: &str) -> Option<Arc<F::Tool>> {
        let servers = lock(&self.servers);
        let server = servers.iter().find(|s| s.name() == server)?;
        server.run(tool).cloned()
    }

    /// A handle on the MCP tools, for changing them while the session runs.
    pub fn live_tools(&self) -> LiveTools<F> {
        LiveTools {
            servers: self.servers.clone(),
        }
    }
}

/// The MCP tools of a running session, shared between its driver (which
/// looks tools up when the CLI calls them) and its controllers (which add
/// and remove them).
///
/// A change is made here first and then told to the host (which routes
/// the CLI's calls by the tool list it has and tells the CLI): `publish`
/// gets the server's new description while the table is still locked, so
/// concurrent changes reach the host in the order they were made here.
pub struct LiveTools<F: Flavor> {
    servers: Servers<F>,
}

impl<F: Flavor> Clone for LiveTools<F> {
    fn clone(&self) -> Self {
        Self {
            servers: self.servers.clone(),
        }
    }
}

impl<F: Flavor> std::fmt::Debug for LiveTools<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveTools").finish_non_exhaustive()
    }
}

impl<F: Flavor> LiveTools<F> {
    /// Adds `tool` to `server` (replacing a tool of the same name) and
    /// calls `publish` with the server's new description. `None` if no
    /// server of that name is registered.
    pub fn add<T>(
        &self,
        server: &str,
        tool: Tool<F>,
        publish: impl FnOnce(McpServerSpec) -> T,
    ) -> Option<T> {
        let mut servers = lock(&self.servers);
        let entry = servers.iter_mut().find(|s| s.name() == server)?;
        entry.insert(tool);
        Some(publish(entry.spec.clone()))
    }

    /// Removes the tool `tool` from `server` and, if there was one, calls
    /// `publish` with the server's new description (`Some(None)` when the
    /// server has no such tool). `None` if no server of that name is
    /// registered.
    pub fn remove<T>(
        &self,
        server: &str,
        tool: &str,
        publish: impl FnOnce(McpServerSpec) -> T,
    ) -> Option<Option<T>> {
        let mut servers = lock(&self.servers);
        let entry = servers.iter_mut().find(|s| s.name() == server)?;
        Some(entry.remove(tool).then(|| publish(entry.spec.clone())))
    }
}
