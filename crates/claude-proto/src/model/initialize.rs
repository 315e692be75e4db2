//! The `initialize` control request and its answer.
//!
//! `initialize` is normally the first line the host writes. It registers hook
//! callbacks, names the MCP servers the host serves itself, defines agents
//! and sets the system prompt; the CLI answers with what it offers (slash
//! commands, agents, models, account) and which of the request's settings it
//! applied.

use super::wire::wire_struct;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::common::{Extra, Json, string_enum, wire_tag};
use super::hooks::{HookEvent, HookMatcher};
use super::mcp::{McpServerConfig, McpServerToolPolicy};
use super::permission::{PermissionMode, deserialize_some};

string_enum! {
    /// How hard the model thinks.
    pub enum EffortLevel {
        /// Least effort.
        Low = "low",
        /// Medium effort.
        Medium = "medium",
        /// High effort.
        High = "high",
        /// Extra-high effort.
        XHigh = "xhigh",
        /// Maximum effort.
        Max = "max",
    }
}

/// The system prompt sent in `initialize`.
///
/// The protocol defines a list of text blocks; the CLI also accepts a single
/// string, which is kept as a string.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SystemPrompt {
    /// Prompt blocks, joined by the CLI.
    Blocks(Vec<String>),
    /// One plain string.
    Text(String),
    /// Any other shape, kept as is.
    Unknown(Json),
}

impl From<&str> for SystemPrompt {
    /// A one-block prompt.
    fn from(s: &str) -> Self {
        Self::Blocks(vec![s.to_owned()])
    }
}

impl From<String> for SystemPrompt {
    /// A one-block prompt.
    fn from(s: String) -> Self {
        Self::Blocks(vec![s])
    }
}

impl From<Vec<String>> for SystemPrompt {
    fn from(blocks: Vec<String>) -> Self {
        Self::Blocks(blocks)
    }
}

wire_struct! {
    /// Options for an SDK-hosted MCP server (the entries of
    /// `sdkMcpServerConfigs`).
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct SdkMcpServerOptions {
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
    /// Pre-captured MCP handshake of an SDK-hosted server, so the CLI can list
    /// its tools without a round trip (`sdkMcpServerManifests`).
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct SdkMcpServerManifest {
        /// The server's answer to `initialize`.
        #[serde(rename = "initializeResult")]
        pub initialize_result: Json,
        /// The server's answer to `tools/list`.
        #[serde(
            rename = "toolsListResult",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub tools_list_result: Option<Json>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

/// An MCP server an agent may use: the name of a configured server, or an
/// inline map of name to configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum AgentMcpServerSpec {
    /// Name of a server configured for the session.
    Name(String),
    /// Servers defined just for this agent.
    Inline(BTreeMap<String, McpServerConfig>),
    /// Anything else, kept as is.
    Unknown(Json),
}

/// An agent's effort: a named level or a number.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum AgentEffort {
    /// A named level.
    Level(EffortLevel),
    /// A number.
    Number(serde_json::Number),
    /// Any other shape, kept as is.
    Unknown(Json),
}

string_enum! {
    /// Which memory an agent reads and writes.
    pub enum AgentMemoryScope {
        /// The user's memory.
        User = "user",
        /// The project's shared memory.
        Project = "project",
        /// The project's local memory.
        Local = "local",
    }
}

wire_struct! {
    /// A custom subagent the model can delegate to (entries of
    /// `initialize.agents`).
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct AgentDefinition {
        /// When the model should use this agent.
        pub description: String,
        /// Tools the agent may use (all when absent).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tools: Option<Vec<String>>,
        /// Tools the agent may not use.
        #[serde(
            rename = "disallowedTools",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub disallowed_tools: Option<Vec<String>>,
        /// The agent's system prompt.
        pub prompt: String,
        /// Model alias or id (inherits when absent).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub model: Option<String>,
        /// MCP servers the agent can use.
        #[serde(
            rename = "mcpServers",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub mcp_servers: Option<Vec<AgentMcpServerSpec>>,
        /// Reminder repeated to the agent (experimental).
        #[serde(
            rename = "criticalSystemReminder_EXPERIMENTAL",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub critical_system_reminder_experimental: Option<String>,
        /// Skills available to the agent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub skills: Option<Vec<String>>,
        /// A first prompt the agent starts with.
        #[serde(
            rename = "initialPrompt",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub initial_prompt: Option<String>,
        /// Turn limit.
        #[serde(rename = "maxTurns", default, skip_serializing_if = "Option::is_none")]
        pub max_turns: Option<u64>,
        /// Context size at which the agent compacts.
        #[serde(
            rename = "autoCompactWindow",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub auto_compact_window: Option<u64>,
        /// Run in the background.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub background: Option<bool>,
        /// Leave CLAUDE.md files out of the agent's context.
        #[serde(
            rename = "omitClaudeMd",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub omit_claude_md: Option<bool>,
        /// Memory scope.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub memory: Option<AgentMemoryScope>,
        /// Reasoning effort.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub effort: Option<AgentEffort>,
        /// Permission mode for the agent's tool calls.
        #[serde(
            rename = "permissionMode",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub permission_mode: Option<PermissionMode>,
        /// Observer agent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub observer: Option<String>,
        /// Message for the observer.
        #[serde(
            rename = "observerMessage",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub observer_message: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl AgentDefinition {
    /// An agent used when `description` applies, driven by `prompt`.
    pub fn new(description: impl Into<String>, prompt: impl Into<String>) -> Self {
        Self {
            description: description.into(),
            prompt: prompt.into(),
            ..Self::default()
        }
    }

    /// Restricts the agent to `tools`.
    pub fn with_tools<I, S>(mut self, tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tools = Some(tools.into_iter().map(Into::into).collect());
        self
    }

    /// Runs the agent on `model`.
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }
}

wire_tag! {
    /// Marker for `"type":"local"`.
    pub struct LocalPluginTag = "local";
}

wire_struct! {
    /// A plugin loaded from a local directory.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct LocalPluginConfig {
        /// `"type":"local"`.
        #[serde(rename = "type")]
        pub kind: LocalPluginTag,
        /// Plugin directory.
        pub path: String,
        /// Do not look for MCP servers in the plugin.
        #[serde(
            rename = "skipMcpDiscovery",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub skip_mcp_discovery: Option<bool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

/// A plugin to load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SdkPluginConfig {
    /// `type: "local"`.
    Local(LocalPluginConfig),
    /// Another kind of plugin, kept as is.
    Unknown(Json),
}

impl SdkPluginConfig {
    /// A plugin in the directory `path`.
    pub fn local(path: impl Into<String>) -> Self {
        Self::Local(LocalPluginConfig {
            path: path.into(),
            ..LocalPluginConfig::default()
        })
    }
}

wire_struct! {
    /// The `initialize` control request (without its `subtype`; see
    /// [`ControlRequest::Initialize`](super::control::ControlRequest::Initialize)).
    ///
    /// Every field is optional; build one with [`InitializeRequest::new`] and the
    /// `with_*` methods:
    ///
    /// ```
    /// use claude_proto::model::hooks::{HookEvent, HookMatcher};
    /// use claude_proto::model::initialize::InitializeRequest;
    /// let init = InitializeRequest::new()
    ///     .with_hook(HookEvent::PreToolUse, HookMatcher::new(["hook_0"]).with_matcher("Bash"))
    ///     .with_system_prompt("You are terse.");
    /// assert_eq!(
    ///     serde_json::to_value(&init).unwrap(),
    ///     serde_json::json!({
    ///         "hooks": {"PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_0"]}]},
    ///         "systemPrompt": ["You are terse."]
    ///     }),
    /// );
    /// ```
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct InitializeRequest {
        /// Hook registrations per event.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub hooks: Option<BTreeMap<HookEvent, Vec<HookMatcher>>>,
        /// Names of MCP servers the host serves itself (reached via `mcp_message`).
        #[serde(
            rename = "sdkMcpServers",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub sdk_mcp_servers: Option<Vec<String>>,
        /// Options for those servers, by name.
        #[serde(
            rename = "sdkMcpServerConfigs",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub sdk_mcp_server_configs: Option<BTreeMap<String, SdkMcpServerOptions>>,
        /// Pre-captured handshakes of those servers, by name.
        #[serde(
            rename = "sdkMcpServerManifests",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub sdk_mcp_server_manifests: Option<BTreeMap<String, SdkMcpServerManifest>>,
        /// Where the manifests come from (`host_per_send`).
        #[serde(
            rename = "sdkMcpServerManifestsOrigin",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub sdk_mcp_server_manifests_origin: Option<String>,
        /// JSON schema the final answer must follow (structured output).
        #[serde(
            rename = "jsonSchema",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub json_schema: Option<Json>,
        /// A custom system prompt replacing Claude Code's.
        #[serde(
            rename = "systemPrompt",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub system_prompt: Option<SystemPrompt>,
        /// Text appended to Claude Code's own system prompt.
        #[serde(
            rename = "appendSystemPrompt",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub append_system_prompt: Option<String>,
        /// Ask for a snapshot of the effective system prompt.
        #[serde(
            rename = "systemPromptSnapshot",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub system_prompt_snapshot: Option<bool>,
        /// Instructions used in plan mode.
        #[serde(
            rename = "planModeInstructions",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub plan_mode_instructions: Option<String>,
        /// Alternative names for tools.
        #[serde(
            rename = "toolAliases",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub tool_aliases: Option<BTreeMap<String, String>>,
        /// Leave per-session dynamic sections out of the system prompt.
        #[serde(
            rename = "excludeDynamicSections",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub exclude_dynamic_sections: Option<bool>,
        /// Custom subagents, by name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub agents: Option<BTreeMap<String, AgentDefinition>>,
        /// Session title.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub title: Option<String>,
        /// Skills to enable.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub skills: Option<Vec<String>>,
        /// Emit `prompt_suggestion` messages.
        #[serde(
            rename = "promptSuggestions",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub prompt_suggestions: Option<bool>,
        /// Emit progress summaries for subagents.
        #[serde(
            rename = "agentProgressSummaries",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub agent_progress_summaries: Option<bool>,
        /// Forward subagents' text output.
        #[serde(
            rename = "forwardSubagentText",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub forward_subagent_text: Option<bool>,
        /// Dialog kinds the host can show (`request_user_dialog` is only sent
        /// for these).
        #[serde(
            rename = "supportedDialogKinds",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub supported_dialog_kinds: Option<Vec<String>>,
        /// The host can stop individual tasks.
        #[serde(
            rename = "perTaskStopAffordance",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub per_task_stop_affordance: Option<bool>,
        /// Plugins to load (read only at launch with `--await-initialize`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub plugins: Option<Vec<SdkPluginConfig>>,
        /// MCP servers to start (read only at launch with `--await-initialize`).
        #[serde(
            rename = "mcpServers",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub mcp_servers: Option<BTreeMap<String, McpServerConfig>>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl InitializeRequest {
    /// An empty request: the CLI uses its defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers `matcher` for `event` (appending to earlier ones).
    pub fn with_hook(mut self, event: HookEvent, matcher: HookMatcher) -> Self {
        self.hooks
            .get_or_insert_with(BTreeMap::new)
            .entry(event)
            .or_default()
            .push(matcher);
        self
    }

    /// Declares an MCP server served by the host under `name`.
    pub fn with_sdk_mcp_server(mut self, name: impl Into<String>) -> Self {
        self.sdk_mcp_servers
            .get_or_insert_with(Vec::new)
            .push(name.into());
        self
    }

    /// Defines subagent `name`.
    pub fn with_agent(mut self, name: impl Into<String>, agent: AgentDefinition) -> Self {
        self.agents
            .get_or_insert_with(BTreeMap::new)
            .insert(name.into(), agent);
        self
    }

    /// Replaces the system prompt.
    pub fn with_system_prompt(mut self, prompt: impl Into<SystemPrompt>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// Appends `text` to Claude Code's system prompt.
    pub fn with_append_system_prompt(mut self, text: impl Into<String>) -> Self {
        self.append_system_prompt = Some(text.into());
        self
    }

    /// Requires the final answer to follow `schema`.
    pub fn with_json_schema(mut self, schema: Json) -> Self {
        self.json_schema = Some(schema);
        self
    }

    /// Sets the session title.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Declares that the host can show dialogs of `kind`.
    pub fn with_supported_dialog_kind(mut self, kind: impl Into<String>) -> Self {
        self.supported_dialog_kinds
            .get_or_insert_with(Vec::new)
            .push(kind.into());
        self
    }

    /// Adds MCP server `name` (honoured only at launch with
    /// `--await-initialize`).
    pub fn with_mcp_server(mut self, name: impl Into<String>, config: McpServerConfig) -> Self {
        self.mcp_servers
            .get_or_insert_with(BTreeMap::new)
            .insert(name.into(), config);
        self
    }

    /// Adds a plugin (honoured only at launch with `--await-initialize`).
    pub fn with_plugin(mut self, plugin: SdkPluginConfig) -> Self {
        self.plugins.get_or_insert_with(Vec::new).push(plugin);
        self
    }

    /// `true` when some hook matcher asks for `onFailure: block` (the TS SDK
    /// then holds prompts until the initialize answer is checked).
    pub fn has_blocking_hooks(&self) -> bool {
        self.hooks.as_ref().is_some_and(|h| {
            h.values().flatten().any(|m| {
                m.on_failure
                    .as_ref()
                    .is_some_and(|f| *f != super::hooks::HookFailureMode::Continue)
            })
        })
    }

    /// The fields present here that CLI 2.1.330 reads only at launch, and
    /// only when started with `--await-initialize` (`plugins`,
    /// `mcpServers`, `settings`, `managedSettings`, `disallowedTools`),
    /// by their wire names. Without the flag the CLI ignores them silently.
    pub fn launch_fields(&self) -> Vec<&'static str> {
        let mut fields = Vec::new();
        if self.plugins.is_some() {
            fields.push("plugins");
        }
        if self.mcp_servers.is_some() {
            fields.push("mcpServers");
        }
        for name in LAUNCH_EXTRA_FIELDS {
            if self.extra.contains_key(name) {
                fields.push(name);
            }
        }
        fields
    }
}

/// Launch-only `initialize` fields this crate keeps in `extra`.
const LAUNCH_EXTRA_FIELDS: [&str; 3] = ["settings", "managedSettings", "disallowedTools"];

wire_struct! {
    /// A slash command the session offers.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct SlashCommand {
        /// Command name without the slash.
        pub name: String,
        /// What it does.
        pub description: String,
        /// Hint for its arguments.
        #[serde(rename = "argumentHint")]
        pub argument_hint: String,
        /// Other names.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub aliases: Option<Vec<String>>,
        /// Built into the CLI (as opposed to user-defined).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub builtin: Option<bool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A subagent the session offers.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct AgentInfo {
        /// Agent name.
        pub name: String,
        /// When it is used.
        pub description: String,
        /// Its model, if fixed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub model: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A model the session can switch to.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ModelInfo {
        /// Value to pass to `set_model`.
        pub value: String,
        /// Full model id the value resolves to.
        #[serde(
            rename = "resolvedModel",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub resolved_model: Option<String>,
        /// Name for display.
        #[serde(rename = "displayName")]
        pub display_name: String,
        /// Description for display.
        pub description: String,
        /// Accepts an effort setting.
        #[serde(
            rename = "supportsEffort",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub supports_effort: Option<bool>,
        /// Effort levels it accepts.
        #[serde(
            rename = "supportedEffortLevels",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub supported_effort_levels: Option<Vec<EffortLevel>>,
        /// Supports adaptive thinking.
        #[serde(
            rename = "supportsAdaptiveThinking",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub supports_adaptive_thinking: Option<bool>,
        /// Supports fast mode.
        #[serde(
            rename = "supportsFastMode",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub supports_fast_mode: Option<bool>,
        /// Supports the auto permission mode.
        #[serde(
            rename = "supportsAutoMode",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub supports_auto_mode: Option<bool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

string_enum! {
    /// Which API the CLI talks to.
    pub enum ApiProvider {
        /// Anthropic's API.
        FirstParty = "firstParty",
        /// Amazon Bedrock.
        Bedrock = "bedrock",
        /// Google Vertex AI.
        Vertex = "vertex",
        /// Microsoft Foundry.
        Foundry = "foundry",
        /// Anthropic on AWS.
        AnthropicAws = "anthropicAws",
        /// Anthropic on Google Cloud.
        AnthropicGoogleCloud = "anthropicGoogleCloud",
        /// Mantle.
        Mantle = "mantle",
        /// A gateway.
        Gateway = "gateway",
    }
}

wire_struct! {
    /// The account the CLI is signed in with.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct AccountInfo {
        /// Account email.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub email: Option<String>,
        /// Organization name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub organization: Option<String>,
        /// Subscription type.
        #[serde(
            rename = "subscriptionType",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub subscription_type: Option<String>,
        /// Where the auth token comes from.
        #[serde(
            rename = "tokenSource",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub token_source: Option<String>,
        /// Where the API key comes from.
        #[serde(
            rename = "apiKeySource",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub api_key_source: Option<String>,
        /// Which API is used.
        #[serde(
            rename = "apiProvider",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub api_provider: Option<ApiProvider>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// The CLI's answer to `initialize`.
    ///
    /// Every field may be missing: the six that CLI 2.1.332 always sends
    /// (`commands`, `agents`, `output_style`, `available_output_styles`,
    /// `models`, `account`) read as empty when a CLI leaves one out, so a
    /// CLI version that drops one never costs the session
    /// (`an_initialize_answer_missing_any_field_still_reads`).
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct InitializeResponse {
        /// Slash commands available.
        #[serde(default)]
        pub commands: Vec<SlashCommand>,
        /// Subagents available.
        #[serde(default)]
        pub agents: Vec<AgentInfo>,
        /// Output style in use (empty when the CLI did not say).
        #[serde(default)]
        pub output_style: String,
        /// Output styles available.
        #[serde(default)]
        pub available_output_styles: Vec<String>,
        /// Models available.
        #[serde(default)]
        pub models: Vec<ModelInfo>,
        /// The signed-in account (all its fields empty when the CLI did not say).
        #[serde(default)]
        pub account: AccountInfo,
        /// Whether the hooks of the request were installed (`false` when another
        /// client owns them).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub hooks_applied: Option<bool>,
        /// The CLI honours `onFailure` on hook matchers.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub hook_on_failure_supported: Option<bool>,
        /// Whether the request's plugins were loaded.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub plugins_applied: Option<bool>,
        /// Whether the request's MCP servers were started.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub mcp_servers_applied: Option<bool>,
        /// What happened to each SDK server manifest (`parked`,
        /// `already_connected`, `malformed`, ...).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub sdk_mcp_manifests_parked: Option<BTreeMap<String, String>>,
        /// The CLI's version.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub claude_code_version: Option<String>,
        /// Fast mode state (`off`, `cooldown`, `on`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub fast_mode_state: Option<String>,
        /// Why fast mode is unavailable.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub fast_mode_disabled_reason: Option<String>,
        /// The CLI's process id (reported by current CLIs, not part of the
        /// public schema).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub pid: Option<serde_json::Number>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::hooks::HookFailureMode;
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
    fn an_initialize_answer_missing_any_field_still_reads() {
        let full = json!({"commands":[],"agents":[],"output_style":"default",
            "available_output_styles":["default"],"models":[],"account":{},"pid":7});
        for key in [
            "commands",
            "agents",
            "output_style",
            "available_output_styles",
            "models",
            "account",
        ] {
            let mut answer = full.clone();
            answer.as_object_mut().unwrap().remove(key);
            let read: InitializeResponse =
                serde_json::from_value(answer).unwrap_or_else(|e| panic!("without {key}: {e}"));
            assert_eq!(read.pid, Some(7.into()), "without {key}");
        }
        let empty: InitializeResponse = serde_json::from_value(json!({})).unwrap();
        assert_eq!(empty, InitializeResponse::default());
    }

    #[test]
    fn full_request_round_trips() {
        let req: InitializeRequest = round_trip(json!({
            "hooks":{
                "PreToolUse":[{"matcher":"Write|Edit","hookCallbackIds":["hook_0"],"timeout":30,"onFailure":"block"}],
                "Stop":[{"hookCallbackIds":["hook_1"]}],
                "BeforeLunch":[{"hookCallbackIds":["hook_2"]}]
            },
            "sdkMcpServers":["calc"],
            "sdkMcpServerConfigs":{"calc":{"timeout":5000,"tools":[{"name":"add","permission_policy":"always_ask"}],"connectorId":"c"}},
            "sdkMcpServerManifests":{"calc":{"initializeResult":{"protocolVersion":"2025-11-25"},"toolsListResult":{"tools":[]}}},
            "sdkMcpServerManifestsOrigin":"host_per_send",
            "jsonSchema":{"type":"object"},
            "systemPrompt":["You are terse.","SYSTEM_PROMPT_DYNAMIC_BOUNDARY"],
            "appendSystemPrompt":"Be nice.",
            "systemPromptSnapshot":false,
            "planModeInstructions":"plan",
            "toolAliases":{"Shell":"Bash"},
            "excludeDynamicSections":true,
            "agents":{"reviewer":{"description":"Reviews code","prompt":"Review.","tools":["Read"],"model":"sonnet",
                "mcpServers":["github",{"local":{"command":"srv"}}],"effort":"high","maxTurns":5,"memory":"project",
                "permissionMode":"plan","background":false},
                "thinker":{"description":"d","prompt":"p","effort":2048}},
            "title":"My session",
            "skills":["pdf"],
            "promptSuggestions":true,
            "agentProgressSummaries":true,
            "forwardSubagentText":false,
            "supportedDialogKinds":["refusal_fallback_prompt"],
            "perTaskStopAffordance":true,
            "plugins":[{"type":"local","path":"/p"},{"type":"remote","url":"u"}],
            "mcpServers":{"fs":{"type":"stdio","command":"fs-srv"},"web":{"type":"http","url":"https://w"}},
            "workspaceTrust":{"accepted":true,"directory":"/w"}
        }));
        assert!(req.has_blocking_hooks());
        let hooks = req.hooks.as_ref().map(BTreeMap::len);
        assert_eq!(hooks, Some(3));
        assert!(req.extra.contains_key("workspaceTrust"));
        assert!(matches!(
            req.plugins.as_deref(),
            Some([SdkPluginConfig::Local(_), SdkPluginConfig::Unknown(_)])
        ));
        let agents = req.agents.as_ref().expect("agents");
        assert!(matches!(
            agents["thinker"].effort,
            Some(AgentEffort::Number(_))
        ));
        assert!(matches!(
            agents["reviewer"].effort,
            Some(AgentEffort::Level(EffortLevel::High))
        ));
    }

    #[test]
    fn system_prompt_as_plain_string_survives() {
        let req: InitializeRequest = round_trip(json!({"systemPrompt":"just a string"}));
        assert_eq!(
            req.system_prompt,
            Some(SystemPrompt::Text("just a string".into()))
        );
        round_trip::<InitializeRequest>(json!({}));
        round_trip::<InitializeRequest>(json!({"jsonSchema":null}));
    }

    #[test]
    fn launch_fields_are_named() {
        assert!(InitializeRequest::new().launch_fields().is_empty());
        let plain = InitializeRequest::new()
            .with_title("t")
            .with_system_prompt("s");
        assert!(plain.launch_fields().is_empty());
        let mut launch = InitializeRequest::new()
            .with_plugin(SdkPluginConfig::local("/p"))
            .with_mcp_server("ext", McpServerConfig::stdio("x", Vec::new()));
        launch.extra.insert("settings".into(), json!({}));
        launch
            .extra
            .insert("disallowedTools".into(), json!(["Bash"]));
        assert_eq!(
            launch.launch_fields(),
            ["plugins", "mcpServers", "settings", "disallowedTools"]
        );
    }

    #[test]
    fn builders() {
        let req = InitializeRequest::new()
            .with_hook(
                HookEvent::PreToolUse,
                HookMatcher::new(["hook_0"]).with_on_failure(HookFailureMode::Continue),
            )
            .with_hook(HookEvent::PreToolUse, HookMatcher::new(["hook_1"]))
            .with_sdk_mcp_server("calc")
            .with_agent(
                "r",
                AgentDefinition::new("Reviews", "Review.").with_tools(["Read"]),
            )
            .with_append_system_prompt("extra")
            .with_json_schema(json!({"type":"object"}))
            .with_title("t")
            .with_supported_dialog_kind("refusal_fallback_prompt")
            .with_mcp_server("calc2", McpServerConfig::sdk("calc2"))
            .with_plugin(SdkPluginConfig::local("/p"));
        assert!(!req.has_blocking_hooks());
        assert_eq!(
            serde_json::to_value(&req).unwrap(),
            json!({
                "hooks":{"PreToolUse":[{"hookCallbackIds":["hook_0"],"onFailure":"continue"},{"hookCallbackIds":["hook_1"]}]},
                "sdkMcpServers":["calc"],
                "agents":{"r":{"description":"Reviews","prompt":"Review.","tools":["Read"]}},
                "appendSystemPrompt":"extra",
                "jsonSchema":{"type":"object"},
                "title":"t",
                "supportedDialogKinds":["refusal_fallback_prompt"],
                "mcpServers":{"calc2":{"type":"sdk","name":"calc2"}},
                "plugins":[{"type":"local","path":"/p"}]
            })
        );
        assert_eq!(
            serde_json::to_value(InitializeRequest::default()).unwrap(),
            json!({})
        );
    }

    #[test]
    fn response_round_trips() {
        let resp: InitializeResponse = round_trip(json!({
            "commands":[{"name":"compact","description":"Compact","argumentHint":"<instructions>","builtin":true},
                        {"name":"review","description":"Review","argumentHint":"","aliases":["r"],"plugin":"p"}],
            "agents":[{"name":"general-purpose","description":"General"},{"name":"x","description":"y","model":"haiku"}],
            "output_style":"default",
            "available_output_styles":["default","Explanatory"],
            "models":[{"value":"default","displayName":"Default","description":"Recommended","resolvedModel":"claude-x",
                       "supportsEffort":true,"supportedEffortLevels":["low","medium","high","ultra"],"supportsFastMode":false,
                       "supportsAdaptiveThinking":true,"supportsAutoMode":true,"disabled":false}],
            "account":{"email":"a@b.c","organization":"Org","subscriptionType":"max","tokenSource":"oauth","apiProvider":"firstParty"},
            "hooks_applied":true,"hook_on_failure_supported":true,"plugins_applied":true,"mcp_servers_applied":false,
            "sdk_mcp_manifests_parked":{"calc":"parked"},
            "claude_code_version":"2.1.330","fast_mode_state":"off","pid":4242,
            "pending_permission_requests":[],"capabilities":["ui_surface_v1"],"current_permission_mode":"default"
        }));
        assert_eq!(resp.commands.len(), 2);
        assert_eq!(resp.account.api_provider, Some(ApiProvider::FirstParty));
        assert_eq!(resp.claude_code_version.as_deref(), Some("2.1.330"));
        assert!(resp.extra.contains_key("capabilities"));
        let levels = resp.models[0]
            .supported_effort_levels
            .as_deref()
            .unwrap_or_default();
        assert_eq!(levels.last(), Some(&EffortLevel::Unknown("ultra".into())));
        round_trip::<InitializeResponse>(
            json!({"commands":[],"agents":[],"output_style":"default",
            "available_output_styles":[],"models":[],"account":{}}),
        );
    }
}
