//! Launch options for the Claude Code CLI, turned into a command line and an
//! environment as plain data.
//!
//! [`Options`] gathers every setting that travels to the CLI as a command-line
//! flag or an environment variable. [`Options::command`] checks it and returns
//! a [`CommandLine`]: the argument vector (without the program), the
//! environment changes, whether to start from an empty environment, and the
//! working directory. Nothing here reads the environment, touches the file
//! system or starts a process; an adapter feeds the result to its own
//! `Command` type. There is no shell anywhere: every argument is one vector
//! element, and the prompt never goes on the command line (it is written to
//! the CLI's stdin).
//!
//! [`Options`] is also the one place for the settings the CLI reads from the
//! `initialize` control request rather than from its command line (system
//! prompt, appended system prompt, agents): [`Options::initialize_request`]
//! returns them as an [`InitializeRequest`], and the adapters send it. The
//! JSON schema of structured output is set once, as
//! [`Options::json_schema`], and travels both ways, as the TypeScript SDK
//! sends it: `--json-schema` on the command line and `jsonSchema` in
//! `initialize`. Hooks and in-process MCP servers are registered as handlers
//! on an adapter's builder, which adds them to the same request.
//!
//! # Argument form
//!
//! Every flag with a value is emitted as one element `--flag=value`, as the
//! current TypeScript SDK does. A value that begins with `-` (a model alias, a
//! path, a session id) therefore can never be mistaken for another flag. This
//! includes `--mcp-config` and `--settings`, which the TypeScript SDK still
//! passes as two elements: the CLI accepts the `=` form for them too, and a
//! settings *path* starting with `-` would otherwise be read as a flag.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::path::{Path, PathBuf};

use crate::model::common::string_enum;
use crate::model::initialize::{AgentDefinition, InitializeRequest, SystemPrompt};
use crate::model::permission::PermissionMode;

/// Value of `CLAUDE_CODE_ENTRYPOINT` when [`Options::entrypoint`] is not
/// changed: `sdk-cli`, one of the three values (with the official SDKs'
/// `sdk-ts` and `sdk-py`) for which CLI 2.1.330 runs a session as an SDK
/// session, and the one it picks itself for a non-interactive run. Any
/// other value gets a session the SDKs' users do not get (an extra
/// `claude-code-guide` agent in the `initialize` answer, among other
/// entrypoint-keyed differences).
pub const DEFAULT_ENTRYPOINT: &str = "sdk-cli";

/// Value of `CLAUDE_AGENT_SDK_CLIENT_APP` when [`Options::client_app`] is
/// not set and the environment the CLI inherits has none: this library and
/// its version. The CLI adds it to the `User-Agent` of its requests
/// (`client-app/claude-proto/<version>`).
///
/// This is the library's identity; [`AGENT_SDK_VERSION`] says that an
/// Agent SDK drives the CLI, without claiming one of its versions.
pub const DEFAULT_CLIENT_APP: &str = concat!("claude-proto/", env!("CARGO_PKG_VERSION"));

/// Value of `CLAUDE_AGENT_SDK_VERSION`: `unknown`, the value the CLI's own
/// Agent SDK entry point uses when it is not told a version.
///
/// The official SDKs set the variable to their own version (the Python SDK
/// always, the TypeScript SDK unless its `env` option sets it; both replace
/// an inherited value). CLI 2.1.330 reads it in four places: the
/// `agent-sdk/<version>` of its `User-Agent`, its telemetry (which keeps
/// `unknown` as is and turns any other non-version into `other`), its
/// policy facts, and whether a session started with `sdk-cli` gets an AI
/// title: without the variable such a session is run like `claude -p` and
/// never titled, with it the CLI asks the model for a title as it does for
/// the SDKs' sessions. Nothing in it compares the value with a version. So
/// the CLI runs our sessions as it runs the official SDKs' ones, and no SDK
/// version is claimed that this library is not; a future CLI that keys
/// behaviour on the SDK's version cannot mistake `unknown` for an old one.
///
/// Set in every session unless [`Options::env`] sets or removes the
/// variable (remove it to get `claude -p`'s behaviour, no titles included);
/// an inherited value is replaced, as both SDKs replace it (inside a Claude
/// Code shell it names the *outer* session's SDK).
pub const AGENT_SDK_VERSION: &str = "unknown";

/// The arguments every stream-json session starts with, in order
/// (`--output-format stream-json --verbose --input-format stream-json`).
pub const BASE_ARGS: [&str; 5] = [
    "--output-format",
    "stream-json",
    "--verbose",
    "--input-format",
    "stream-json",
];

/// Environment variable naming the caller of the CLI.
pub const ENV_ENTRYPOINT: &str = "CLAUDE_CODE_ENTRYPOINT";
/// Environment variable naming the program that drives the CLI, for the
/// `User-Agent` of the CLI's requests.
pub const ENV_CLIENT_APP: &str = "CLAUDE_AGENT_SDK_CLIENT_APP";
/// Environment variable telling the CLI that an Agent SDK drives it (and
/// which version), see [`AGENT_SDK_VERSION`].
pub const ENV_AGENT_SDK_VERSION: &str = "CLAUDE_AGENT_SDK_VERSION";
/// Environment variable naming the working directory, set to [`Options::cwd`]
/// when that is absolute (and removed when it is relative, rather than left
/// naming the caller's directory).
pub const ENV_PWD: &str = "PWD";
/// Environment variable that makes the CLI emit `system/session_state_changed` frames.
pub const ENV_READS_SESSION_STATE: &str = "CLAUDE_CODE_SDK_READS_SESSION_STATE";
/// Environment variable that turns on file checkpointing for `rewind_files`.
pub const ENV_FILE_CHECKPOINTING: &str = "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING";

/// Variables removed from an inherited environment unless [`Options::env`]
/// sets them: `NODE_OPTIONS` (a host's Node flags must not leak into the
/// CLI), `DEBUG` (the TypeScript SDK clears it too) and `CLAUDECODE`
/// (set inside Claude Code's own shells: a CLI that inherits it believes
/// it runs nested in Claude Code and turns host paths off; the Python SDK
/// drops it too),
/// and `CLAUDE_AGENT_SDK_DERIVED_CLIENT_APP` (a label the Python SDK derives
/// for the app around an outer session; it names that app, not this one,
/// and the Python SDK drops an inherited one too).
pub const ENV_ALWAYS_REMOVED: [&str; 4] = [
    "NODE_OPTIONS",
    "DEBUG",
    "CLAUDECODE",
    "CLAUDE_AGENT_SDK_DERIVED_CLIENT_APP",
];

/// The CLI a wrapped launch ([`Options::wrapper`]) runs when
/// [`Options::cli_path`] is not set: the bare name, for the wrapper's side
/// (a container's or a remote host's `PATH`) to resolve.
pub const WRAPPED_CLI: &str = "claude";

/// Text shown instead of a secret in `Debug` output.
const REDACTED: &str = "<redacted>";

/// Extra-argument names that would break the stream-json protocol.
const RESERVED_FLAGS: [&str; 4] = ["output-format", "input-format", "print", "verbose"];

/// Flags that may legitimately appear more than once.
const REPEATABLE_FLAGS: [&str; 3] = ["add-dir", "plugin-dir", "plugin-dir-no-mcp"];

string_enum! {
    /// How hard the model works on each answer (`--effort`).
    ///
    /// Open: a level added by a newer CLI can be passed as
    /// `Effort::from("new-level")`.
    pub enum Effort {
        /// `low`.
        Low = "low",
        /// `medium`.
        Medium = "medium",
        /// `high`.
        High = "high",
        /// `xhigh`.
        Xhigh = "xhigh",
        /// `max`.
        Max = "max",
    }
}

string_enum! {
    /// How thinking text is shown in the output (`--thinking-display`).
    pub enum ThinkingDisplay {
        /// `summarized`: thinking blocks carry a summary.
        Summarized = "summarized",
        /// `omitted`: thinking text is left out.
        Omitted = "omitted",
    }
}

string_enum! {
    /// A settings file layer the CLI may load (`--setting-sources`).
    pub enum SettingSource {
        /// `user`: `~/.claude/settings.json`.
        User = "user",
        /// `project`: `.claude/settings.json` of the project.
        Project = "project",
        /// `local`: `.claude/settings.local.json` of the project.
        Local = "local",
    }
}

string_enum! {
    /// Who answers the CLI's permission prompts (`--permission-prompts`,
    /// the TypeScript SDK's `permissionPrompts`).
    pub enum PermissionPrompts {
        /// `host`, the CLI's default: this program, through a permission
        /// handler (`can_use_tool`) or a permission-prompt MCP tool.
        Host = "host",
        /// `none`: nobody. Permission modes, rules and hooks still decide;
        /// whatever would prompt is denied at once, with a message telling
        /// the model the session has no one to ask. A permission handler
        /// is never called.
        Nobody = "none",
    }
}

/// A command the CLI is started through ([`Options::wrapper`]): the
/// process actually started is `program args... <cli> <cli args...>`,
/// over the same stdin and stdout.
#[derive(Clone, PartialEq, Eq)]
pub struct Wrapper {
    /// The program to start (`docker`, `ssh`, `env`, `nice`, ...): a path,
    /// or a bare name looked up on `PATH` by the OS.
    pub program: PathBuf,
    /// Its arguments, before the CLI's path.
    pub args: Vec<OsString>,
}

impl fmt::Debug for Wrapper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let args: Vec<RedactedWrapperArg<'_>> =
            self.args.iter().map(|a| RedactedWrapperArg(a)).collect();
        f.debug_struct("Wrapper")
            .field("program", &self.program)
            .field("args", &args)
            .finish()
    }
}

/// Extended-thinking configuration, mirroring the SDKs' `thinking` option.
///
/// Use [`Options::thinking`], or [`Options::max_thinking_tokens`] for the
/// older token-count form (which maps onto this type).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Thinking {
    /// The model decides how much to think (`--thinking=adaptive`).
    Adaptive {
        /// How thinking is shown; `None` keeps the CLI default.
        display: Option<ThinkingDisplay>,
    },
    /// Thinking with a token budget (`--max-thinking-tokens=N`); without a
    /// budget this is the same as [`Thinking::Adaptive`].
    Enabled {
        /// Maximum thinking tokens per turn.
        budget_tokens: Option<u32>,
        /// How thinking is shown; `None` keeps the CLI default.
        display: Option<ThinkingDisplay>,
    },
    /// No thinking (`--thinking=disabled`).
    Disabled,
}

/// Which tools exist for the model at all (`--tools`), as opposed to which
/// are pre-approved (`allowed_tools`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Tools {
    /// Exactly these built-in tools; an empty list means no built-in tools.
    List(Vec<String>),
    /// The CLI's default tool set (`--tools=default`, the `claude_code` preset).
    Default,
}

/// A local plugin directory (`--plugin-dir` or `--plugin-dir-no-mcp`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginDir {
    /// Path of the plugin's directory.
    pub path: PathBuf,
    /// Do not start the MCP servers the plugin declares.
    pub skip_mcp_discovery: bool,
}

/// The `--settings` value: a settings file or an inline settings object.
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub enum Settings {
    /// Path of a settings JSON file.
    Path(PathBuf),
    /// An inline settings object (must be a JSON object), sent as JSON text.
    Inline(serde_json::Value),
}

impl fmt::Debug for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Settings::Path(p) => f.debug_tuple("Path").field(p).finish(),
            Settings::Inline(v) => f.debug_tuple("Inline").field(&RedactedJson(v)).finish(),
        }
    }
}

/// The `--mcp-config` value: MCP servers given inline or in a file.
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub enum McpConfig {
    /// The whole `{"mcpServers": {name: config, ...}}` object (must be a
    /// JSON object). It reaches the CLI through a private file, never on
    /// its command line.
    Inline(serde_json::Value),
    /// Path of a file holding that object, passed as it is; the CLI reads it.
    Path(PathBuf),
}

impl fmt::Debug for McpConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            McpConfig::Path(p) => f.debug_tuple("Path").field(p).finish(),
            McpConfig::Inline(v) => f.debug_tuple("Inline").field(&RedactedJson(v)).finish(),
        }
    }
}

/// Which skills the session may use ([`Options::skills`], Python's
/// `ClaudeAgentOptions.skills`).
///
/// This filters what the model is offered; it is not a sandbox: an
/// unlisted skill's files stay on disk, readable through `Read` or `Bash`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Skills {
    /// Every skill the CLI discovers: `Skill` joins `--allowedTools`.
    All,
    /// Only these, by exact name (the skill's directory or `name`, or
    /// `plugin:skill`): each becomes a `Skill(name)` rule in
    /// `--allowedTools`, and `initialize.skills` lists them, so the CLI
    /// hides the others from the model and its Skill tool refuses them.
    /// An empty list hides every skill.
    Only(Vec<String>),
}

/// Which system prompt a session runs with ([`Options::system_prompt`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum SystemPromptChoice {
    /// An empty system prompt, the official SDKs' default: the model gets
    /// the tools and the conversation, not Claude Code's instructions
    /// (sent as `initialize.systemPrompt: [""]`, as the TypeScript SDK
    /// does).
    #[default]
    Empty,
    /// Claude Code's own system prompt (the SDKs' `claude_code` preset):
    /// no `systemPrompt` is sent, so the CLI uses its own;
    /// [`Options::append_system_prompt`] adds to it.
    ClaudeCode,
    /// A system prompt of your own, replacing Claude Code's (sent in
    /// `initialize.systemPrompt`).
    Custom(SystemPrompt),
    /// The system prompt in this file (`--system-prompt-file`).
    File(PathBuf),
}

/// Everything a user chooses about a session: what reaches the CLI as a flag
/// or an environment variable ([`Options::command`]) and what it reads from
/// the `initialize` request ([`Options::initialize_request`]: system prompt,
/// appended system prompt, agents, JSON schema, skills).
///
/// Build it with [`Options::new`] (or `Default`) and the consuming setters,
/// or assign the public fields directly; then call [`Options::command`].
/// The defaults start a plain session: no flags beyond the stream-json ones,
/// the caller's environment inherited, `CLAUDE_CODE_ENTRYPOINT=sdk-cli`,
/// `CLAUDE_AGENT_SDK_VERSION=unknown`, and, unless inherited,
/// `CLAUDE_AGENT_SDK_CLIENT_APP=claude-proto/<version>` and
/// `CLAUDE_CODE_SDK_READS_SESSION_STATE=1`.
///
/// `Debug` output never shows the values of secret-looking environment
/// variables or JSON keys (names containing KEY, TOKEN, SECRET, PASSWORD,
/// AUTH or CREDENTIAL, in any case), nor any value of an `env` or
/// `headers` object in the JSON options (MCP servers', the settings'),
/// whatever its name.
#[derive(Clone)]
#[non_exhaustive]
pub struct Options {
    /// Model name or alias (`--model`).
    pub model: Option<String>,
    /// Model used when the main one is overloaded (`--fallback-model`); must
    /// differ from `model`.
    pub fallback_model: Option<String>,
    /// Stop after this many agentic turns (`--max-turns`); must be at least 1.
    pub max_turns: Option<u32>,
    /// Stop once the session has cost this many US dollars (`--max-budget-usd`).
    pub max_budget_usd: Option<f64>,
    /// Token budget for the whole task (`--task-budget`).
    pub task_budget: Option<u64>,
    /// Extended-thinking configuration (`--thinking`, `--max-thinking-tokens`,
    /// `--thinking-display`).
    pub thinking: Option<Thinking>,
    /// Effort level (`--effort`).
    pub effort: Option<Effort>,
    /// Initial permission mode (`--permission-mode`). `bypassPermissions`
    /// also needs `allow_dangerously_skip_permissions`.
    pub permission_mode: Option<PermissionMode>,
    /// The host answers permission prompts itself through `can_use_tool`
    /// control requests (`--permission-prompt-tool=stdio`). Adapters set this
    /// when a permission handler is registered. Conflicts with
    /// `permission_prompt_tool`.
    pub permission_prompt_stdio: bool,
    /// An MCP tool that answers permission prompts
    /// (`--permission-prompt-tool=<name>`). Conflicts with
    /// `permission_prompt_stdio`.
    pub permission_prompt_tool: Option<String>,
    /// Who answers permission prompts (`--permission-prompts=<host|none>`);
    /// `None` sends no flag (the CLI's default, `host`). With
    /// [`PermissionPrompts::Nobody`], anything that would prompt is denied
    /// and no permission handler is called.
    pub permission_prompts: Option<PermissionPrompts>,
    /// Allow switching to `bypassPermissions` later in the session
    /// (`--allow-dangerously-skip-permissions`).
    pub allow_dangerously_skip_permissions: bool,
    /// Continue the most recent conversation in the working directory (`--continue`).
    pub continue_conversation: bool,
    /// Resume the session with this id (`--resume`).
    pub resume: Option<String>,
    /// When resuming, continue in a new session id instead of appending (`--fork-session`).
    pub fork_session: bool,
    /// When resuming, stop the history at this message uuid (`--resume-session-at`).
    pub resume_session_at: Option<String>,
    /// With `resume_session_at`: the prompt uuid of the turn this truncating
    /// resume means to discard (`--resume-drops-turn`). The CLI checks that
    /// everything past the cut belongs to that turn and otherwise refuses
    /// the resume (an `error_during_execution` result whose message starts
    /// with `Resume rejected by --resume-drops-turn:`); do not retry a
    /// refusal, it is deterministic. Needs `resume_session_at`.
    pub resume_drops_turn: Option<String>,
    /// Use this uuid as the new session's id (`--session-id`). With `resume`
    /// or `continue_conversation` it needs `fork_session`.
    pub session_id: Option<String>,
    /// Tools (or rules such as `Bash(git log:*)`) allowed without asking (`--allowedTools`).
    pub allowed_tools: Vec<String>,
    /// Tools removed from the model's tool set (`--disallowedTools`).
    pub disallowed_tools: Vec<String>,
    /// The set of built-in tools (`--tools`); `None` leaves the CLI default.
    pub tools: Option<Tools>,
    /// MCP servers to start (`--mcp-config`), inline or in a file.
    /// In-process (SDK) servers are declared in `initialize` instead and do
    /// not belong here.
    pub mcp_config: Option<McpConfig>,
    /// Settings layers to load (`--setting-sources`). `None` sends no flag
    /// (the CLI loads all layers) unless `skills` is set, which loads
    /// `user,project` as Python's SDK does; an empty list loads none.
    pub setting_sources: Option<Vec<SettingSource>>,
    /// The skills the session may use; `None` leaves the CLI's defaults
    /// (which is not "no skills": [`Skills::Only`] with an empty list is).
    /// With `setting_sources` unset, setting it loads the `user` and
    /// `project` layers, where skills are installed.
    pub skills: Option<Skills>,
    /// Use only the MCP servers of `mcp_config`, ignoring configured ones (`--strict-mcp-config`).
    pub strict_mcp_config: bool,
    /// Emit `stream_event` lines with partial assistant output (`--include-partial-messages`).
    pub include_partial_messages: bool,
    /// Emit hook lifecycle `system` messages (`--include-hook-events`).
    pub include_hook_events: bool,
    /// Make the CLI read the `initialize` request before its startup work
    /// (`--await-initialize`). Needed for the fields of `initialize` that
    /// the CLI reads only at launch (plugins, MCP servers, settings; see
    /// [`InitializeRequest::launch_fields`]); the adapters turn it on
    /// whenever the request they send carries one, so none is ignored.
    pub await_initialize: bool,
    /// Start the CLI as a parked spare (`--await-claim`): it starts up,
    /// answers `initialize`, and waits for a `claim_session` request that
    /// binds it to a folder before it reads a prompt. Set by the adapters'
    /// `prewarm`; a spare given a prompt before a claim answers it with a
    /// `not_claimed` error result and exits.
    pub await_claim: bool,
    /// Stream each line the CLI writes to its transcript as a
    /// `transcript_mirror` message (`--session-mirror`). The adapters turn
    /// it on when a session store is set, and route those lines to it.
    pub session_mirror: bool,
    /// Extra directories the tools may access (`--add-dir`, one per entry).
    pub add_dirs: Vec<PathBuf>,
    /// Local plugin directories (`--plugin-dir` / `--plugin-dir-no-mcp`, one per entry).
    pub plugin_dirs: Vec<PluginDir>,
    /// Do not write the session to disk (`--no-session-persistence`).
    pub no_session_persistence: bool,
    /// JSON schema the final result must follow (structured output). Sent
    /// as `--json-schema` and as `initialize.jsonSchema`, as the TypeScript
    /// SDK does; must be a JSON object.
    pub json_schema: Option<serde_json::Value>,
    /// Which system prompt the session runs with. The default, as in the
    /// official SDKs, is an empty one ([`SystemPromptChoice::Empty`]): Claude
    /// Code's own prompt is used only when asked for
    /// ([`claude_code_system_prompt`](Self::claude_code_system_prompt)).
    pub system_prompt: SystemPromptChoice,
    /// Text appended to the system prompt (sent in
    /// `initialize.appendSystemPrompt`); with the Claude Code preset, this
    /// is how to add to Claude Code's own prompt.
    pub append_system_prompt: Option<String>,
    /// Custom subagents the model can delegate to, by name (sent in
    /// `initialize.agents`). Unlike `agent`, which picks the agent the main
    /// thread runs as.
    pub agents: BTreeMap<String, AgentDefinition>,
    /// Anthropic API beta headers (`--betas`).
    pub betas: Vec<String>,
    /// Run as this configured agent (`--agent`).
    pub agent: Option<String>,
    /// Settings file or inline settings (`--settings`).
    pub settings: Option<Settings>,
    /// Sandbox settings for the commands the model runs (the settings'
    /// `sandbox` object: `enabled`, `autoAllowBashIfSandboxed`, `network`,
    /// `filesystem`, ...; a JSON object). Sent inside `--settings`, as both
    /// official SDKs do: merged into the `sandbox` of inline
    /// [`settings`](Self::settings) (objects key by key, a value set here
    /// replacing the same path there, lists replaced rather than combined),
    /// or alone as `--settings={"sandbox":...}`. With `enabled: true`,
    /// `failIfUnavailable` defaults to `true` as in the TypeScript SDK: a
    /// CLI that cannot sandbox fails at start instead of running commands
    /// unsandboxed. Cannot be combined with a settings *file*
    /// ([`Settings::Path`]), which this crate does not read.
    pub sandbox: Option<serde_json::Value>,
    /// Policy-tier settings from the program that starts the CLI
    /// (`--managed-settings=<JSON>`, the TypeScript SDK's
    /// `managedSettings`; a JSON object). The CLI keeps only their
    /// restrictive parts, and drops them where an administrator's managed
    /// settings exist unless those opt in.
    pub managed_settings: Option<serde_json::Value>,
    /// The trusted checkout that `cwd` is a worktree of
    /// (`--project-config-root`): project settings, `.mcp.json`, the
    /// `.claude` trees and `CLAUDE_PROJECT_DIR` come from here instead of
    /// `cwd`. Must be absolute.
    pub project_config_root: Option<PathBuf>,
    /// Turn on CLI debug logging (`--debug`); ignored when `debug_file` is set.
    pub debug: bool,
    /// Write CLI debug logs to this file (`--debug-file`, implies debug).
    pub debug_file: Option<PathBuf>,
    /// Further flags, in order, after all others: `(name, value)` becomes
    /// `--name=value`, or `--name` when the value is `None`. Names are given
    /// without the leading `--`.
    pub extra_args: Vec<(String, Option<String>)>,
    /// Working directory of the CLI; `None` keeps the caller's. When set,
    /// `PWD` follows it (see [`ENV_PWD`]) unless `env` names `PWD`.
    pub cwd: Option<PathBuf>,
    /// Variables to set, in order (setting a name again replaces its value).
    /// Names set here are never changed by the crate's own defaults.
    pub env: Vec<(OsString, OsString)>,
    /// Variables to remove from the inherited environment. Names removed here
    /// are never set by the crate's own defaults.
    pub env_remove: Vec<OsString>,
    /// Start from the caller's environment (`true`, the default) or from an
    /// empty one (`false`: then `env` must provide `PATH`, `HOME`, API keys...).
    pub inherit_env: bool,
    /// Start the CLI in a process group of its own (`true`, the default), so
    /// that ending the session ends everything the CLI started
    /// (MCP servers, Bash commands, background shells, hooks): the group
    /// gets the CLI's close sequence, and what is left of it when the CLI
    /// has exited gets SIGTERM, then SIGKILL after the grace period; and if
    /// the caller's process dies abruptly, a watchdog in the group kills it.
    /// `false` keeps the CLI in the caller's group and leaves its children
    /// to outlive it. A descendant that leaves the group on purpose (its
    /// own `setsid`) is out of reach of the group's signals either way:
    /// the CLI (2.1.330) starts each Bash tool command in a session of its
    /// own and ends them itself on SIGTERM, which every way of ending a
    /// session sends before SIGKILL; a CLI that crashes leaves them behind.
    ///
    /// On Linux and the BSDs, macOS included, all of this holds as
    /// described. Windows has no process groups or signals: there the CLI
    /// is put in a Job Object of its own with kill-on-close right after it
    /// starts. What it starts from then on is in the job, and closing the
    /// job kills them all, which happens when the CLI has exited, when the
    /// session kills the CLI (on Windows terminating is killing: there is
    /// no SIGTERM), and when the caller's process dies, however abruptly.
    /// A job that cannot be made is logged, and the session runs without.
    pub own_process_group: bool,
    /// Value of `CLAUDE_CODE_ENTRYPOINT` (default [`DEFAULT_ENTRYPOINT`],
    /// `sdk-cli`). Values other than `sdk-cli`, `sdk-ts` and `sdk-py` make
    /// CLI 2.1.330 run the session as something other than an SDK session.
    pub entrypoint: String,
    /// Value of `CLAUDE_AGENT_SDK_CLIENT_APP`, the name the CLI puts in the
    /// `User-Agent` of its requests; name your application here. `None`
    /// (the default) keeps a value the CLI inherits, as the Python SDK
    /// does, and otherwise sends [`DEFAULT_CLIENT_APP`]; `Some("")` sends
    /// an empty name, which the CLI reads as none, so an inherited one is
    /// not sent either.
    pub client_app: Option<String>,
    /// Set `CLAUDE_CODE_SDK_READS_SESSION_STATE=1` (default `true`), which
    /// makes the CLI report `system/session_state_changed` frames; the `idle`
    /// one is the reliable signal that a run is over. As in the Python SDK,
    /// a value the CLI inherits, or one set in [`Options::env`], is kept.
    pub reads_session_state: bool,
    /// Set `CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=true` so that
    /// `rewind_files` can restore files.
    pub enable_file_checkpointing: bool,
    /// The `claude` executable to run; `None` lets
    /// [`discovery::locate`](crate::discovery::locate) search for it.
    /// With a [`wrapper`](Self::wrapper) it is passed to the wrapper as
    /// given (default [`WRAPPED_CLI`], `claude`), not searched for here.
    pub cli_path: Option<PathBuf>,
    /// Start the CLI through this command ([`Options::wrapper`]); `None`
    /// starts it directly.
    pub wrapper: Option<Wrapper>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            model: None,
            fallback_model: None,
            max_turns: None,
            max_budget_usd: None,
            task_budget: None,
            thinking: None,
            effort: None,
            permission_mode: None,
            permission_prompt_stdio: false,
            permission_prompt_tool: None,
            permission_prompts: None,
            allow_dangerously_skip_permissions: false,
            continue_conversation: false,
            resume: None,
            fork_session: false,
            resume_session_at: None,
            resume_drops_turn: None,
            session_id: None,
            allowed_tools: Vec::new(),
            disallowed_tools: Vec::new(),
            tools: None,
            mcp_config: None,
            setting_sources: None,
            skills: None,
            strict_mcp_config: false,
            include_partial_messages: false,
            include_hook_events: false,
            await_initialize: false,
            await_claim: false,
            session_mirror: false,
            add_dirs: Vec::new(),
            plugin_dirs: Vec::new(),
            no_session_persistence: false,
            json_schema: None,
            system_prompt: SystemPromptChoice::Empty,
            append_system_prompt: None,
            agents: BTreeMap::new(),
            betas: Vec::new(),
            agent: None,
            settings: None,
            sandbox: None,
            managed_settings: None,
            project_config_root: None,
            debug: false,
            debug_file: None,
            extra_args: Vec::new(),
            cwd: None,
            env: Vec::new(),
            env_remove: Vec::new(),
            inherit_env: true,
            own_process_group: true,
            entrypoint: DEFAULT_ENTRYPOINT.to_owned(),
            client_app: None,
            reads_session_state: true,
            enable_file_checkpointing: false,
            cli_path: None,
            wrapper: None,
        }
    }
}

/// One change to the child's environment, applied in order.
#[derive(Clone, PartialEq, Eq)]
pub enum EnvChange {
    /// Set the variable to the value.
    Set(OsString, OsString),
    /// Remove the variable.
    Remove(OsString),
    /// Set the variable unless the environment the CLI starts from has it
    /// (the caller's own environment, when [`CommandLine::clear_env`] is
    /// `false`): a default that an inherited value overrides, as the Python
    /// SDK treats `CLAUDE_AGENT_SDK_CLIENT_APP` and
    /// `CLAUDE_CODE_SDK_READS_SESSION_STATE`.
    SetUnlessInherited(OsString, OsString),
}

impl fmt::Debug for EnvChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A value is shown unless its name looks secret.
        let set = |f: &mut fmt::Formatter<'_>, kind: &str, k: &OsString, v: &OsString| {
            let mut t = f.debug_tuple(kind);
            t.field(k);
            if is_secret_name(&k.to_string_lossy()) {
                t.field(&format_args!("{REDACTED}"));
            } else {
                t.field(v);
            }
            t.finish()
        };
        match self {
            EnvChange::Set(k, v) => set(f, "Set", k, v),
            EnvChange::SetUnlessInherited(k, v) => set(f, "SetUnlessInherited", k, v),
            EnvChange::Remove(k) => f.debug_tuple("Remove").field(k).finish(),
        }
    }
}

/// What to start: arguments, environment and working directory, ready for a
/// process builder.
///
/// To apply it: start from an empty environment if `clear_env`, then apply
/// `env` in order (`Set` then `Remove` of the same name leaves it removed),
/// set `cwd` if present, and start the program with the arguments
/// [`Options::program_and_args`] gives: `args` after the CLI found by
/// [`discovery::locate`](crate::discovery::locate), or after the wrapper
/// and the CLI's name with [`Options::wrapper`]. Never join the arguments
/// into a shell command.
#[derive(Clone, PartialEq, Eq)]
pub struct CommandLine {
    /// Arguments, without the program itself.
    pub args: Vec<OsString>,
    /// Environment changes, in the order to apply them.
    pub env: Vec<EnvChange>,
    /// Start the child with an empty environment before applying `env`.
    pub clear_env: bool,
    /// Working directory of the child; `None` keeps the caller's.
    pub cwd: Option<PathBuf>,
}

impl fmt::Debug for CommandLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let args: Vec<RedactedArg<'_>> = self.args.iter().map(|a| RedactedArg(a)).collect();
        f.debug_struct("CommandLine")
            .field("args", &args)
            .field("env", &self.env)
            .field("clear_env", &self.clear_env)
            .field("cwd", &self.cwd)
            .finish()
    }
}

/// Why [`Options::command`] refused the options.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum OptionsError {
    /// An `extra_args` entry has an empty name.
    #[error(
        "extra_args entry {index} has an empty flag name; give the name without the leading `--`, e.g. \"debug-to-stderr\""
    )]
    EmptyExtraArg {
        /// Position in `extra_args`.
        index: usize,
    },
    /// An `extra_args` name starts with `-`.
    #[error("extra_args flag {flag:?} starts with `-`; give the name without dashes (\"{}\"), the crate adds `--`", flag.trim_start_matches('-'))]
    ExtraArgStartsWithDash {
        /// The name as given.
        flag: String,
    },
    /// An `extra_args` name contains `=`.
    #[error(
        "extra_args flag {flag:?} contains `=`; pass the value as the second element of the pair instead"
    )]
    ExtraArgContainsEquals {
        /// The name as given.
        flag: String,
    },
    /// An `extra_args` name is one of the stream-json protocol flags.
    #[error(
        "extra_args flag {flag:?} is set by the crate itself for the stream-json protocol and cannot be overridden; remove it"
    )]
    ReservedExtraArg {
        /// The name as given.
        flag: String,
    },
    /// An `extra_args` name repeats a flag already produced by a typed option.
    #[error("extra_args flag {flag:?} is already set by a typed option; set it in one place only")]
    DuplicateFlag {
        /// The flag name, without `--`.
        flag: String,
    },
    /// `fallback_model` equals `model`.
    #[error(
        "fallback_model is the same as model ({model:?}); choose a different fallback model or leave it unset"
    )]
    FallbackSameAsModel {
        /// The model named twice.
        model: String,
    },
    /// Both stdio permission prompts and a permission-prompt MCP tool are set.
    #[error(
        "permission prompts go either to the host (permission_prompt_stdio, set when a permission handler is registered) or to the MCP tool {tool:?}, not both; drop one"
    )]
    ConflictingPermissionPromptTool {
        /// The MCP tool name that was also set.
        tool: String,
    },
    /// `max_turns` is zero.
    #[error("max_turns must be at least 1; leave it unset for no limit")]
    ZeroMaxTurns,
    /// `max_budget_usd` is negative, NaN or infinite.
    #[error("max_budget_usd must be a finite, non-negative number of dollars (got {value})")]
    InvalidBudget {
        /// The value given.
        value: f64,
    },
    /// `session_id` combined with resuming, without forking.
    #[error(
        "session_id can only be combined with resume or continue_conversation when fork_session is also set; set fork_session or drop session_id"
    )]
    SessionIdWithoutFork,
    /// A JSON option is not a JSON object.
    #[error("{option} must be a JSON object ({expected})")]
    NotAnObject {
        /// Which option (`mcp_config`, `settings`, `sandbox`,
        /// `managed_settings` or `json_schema`).
        option: &'static str,
        /// What shape it should have.
        expected: &'static str,
    },
    /// An environment variable name is empty or contains `=` or NUL.
    #[error(
        "environment variable name {name:?} is invalid; it must be non-empty and contain neither `=` nor NUL"
    )]
    InvalidEnvName {
        /// The name, lossily converted to text.
        name: String,
    },
    /// The same variable is both set in `env` and listed in `env_remove`.
    #[error("environment variable {name:?} is both set (env) and removed (env_remove); keep one")]
    EnvSetAndRemoved {
        /// The name, lossily converted to text.
        name: String,
    },
    /// `sandbox` combined with a settings file, which would have to be read
    /// to merge the two.
    #[error(
        "sandbox cannot be merged into a settings file ({path:?}); give the settings inline (Settings::Inline) or put the sandbox block in the file"
    )]
    SandboxWithSettingsPath {
        /// The settings file.
        path: PathBuf,
    },
    /// `resume_drops_turn` without `resume_session_at`.
    #[error(
        "resume_drops_turn names the turn a truncating resume discards, so it needs resume_session_at; set both or neither"
    )]
    ResumeDropsTurnWithoutResumeSessionAt,
    /// `project_config_root` is not an absolute path.
    #[error("project_config_root must be an absolute path (got {path:?})")]
    RelativeProjectConfigRoot {
        /// The path given.
        path: PathBuf,
    },
    /// The wrapper's program is empty.
    #[error(
        "the wrapper's program is empty; name the command to start the CLI through (e.g. \"docker\")"
    )]
    EmptyWrapper,
    /// A name in [`Options::skills`] cannot name a skill, or cannot ride
    /// in a `Skill(name)` rule of `--allowedTools` (which the CLI splits on
    /// commas and spaces outside parentheses, with no escaping).
    #[error("invalid skill name {name:?}: {reason}")]
    InvalidSkillName {
        /// The name as given.
        name: String,
        /// What is wrong with it, and what to give instead.
        reason: &'static str,
    },
    /// An argument or environment value contains a NUL byte, which no
    /// process can receive.
    #[error("{what} contains a NUL byte, which cannot be passed to a process; remove it")]
    ContainsNul {
        /// Which flag or variable.
        what: String,
    },
}

impl Options {
    /// Default options: see [`Options`].
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets `model`.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// Sets `fallback_model`.
    pub fn fallback_model(mut self, model: impl Into<String>) -> Self {
        self.fallback_model = Some(model.into());
        self
    }

    /// Sets `max_turns`.
    pub fn max_turns(mut self, turns: u32) -> Self {
        self.max_turns = Some(turns);
        self
    }

    /// Sets `max_budget_usd`.
    pub fn max_budget_usd(mut self, usd: f64) -> Self {
        self.max_budget_usd = Some(usd);
        self
    }

    /// Sets `task_budget`.
    pub fn task_budget(mut self, tokens: u64) -> Self {
        self.task_budget = Some(tokens);
        self
    }

    /// Sets `thinking`.
    pub fn thinking(mut self, thinking: Thinking) -> Self {
        self.thinking = Some(thinking);
        self
    }

    /// The older token-count form of [`Options::thinking`]: `0` disables
    /// thinking, any other value enables it with that budget.
    pub fn max_thinking_tokens(mut self, tokens: u32) -> Self {
        self.thinking = Some(if tokens == 0 {
            Thinking::Disabled
        } else {
            Thinking::Enabled {
                budget_tokens: Some(tokens),
                display: None,
            }
        });
        self
    }

    /// Sets `effort`.
    pub fn effort(mut self, effort: impl Into<Effort>) -> Self {
        self.effort = Some(effort.into());
        self
    }

    /// Sets `permission_mode`: a [`PermissionMode`], or its wire name (an
    /// unknown name is kept as [`PermissionMode::Unknown`] and passed on).
    pub fn permission_mode(mut self, mode: impl Into<PermissionMode>) -> Self {
        self.permission_mode = Some(mode.into());
        self
    }

    /// Sets `permission_prompt_stdio`.
    pub fn permission_prompt_stdio(mut self, on: bool) -> Self {
        self.permission_prompt_stdio = on;
        self
    }

    /// Sets `permission_prompt_tool`.
    pub fn permission_prompt_tool(mut self, mcp_tool: impl Into<String>) -> Self {
        self.permission_prompt_tool = Some(mcp_tool.into());
        self
    }

    /// Sets `permission_prompts`.
    pub fn permission_prompts(mut self, who: PermissionPrompts) -> Self {
        self.permission_prompts = Some(who);
        self
    }

    /// Sets `allow_dangerously_skip_permissions`.
    pub fn allow_dangerously_skip_permissions(mut self, on: bool) -> Self {
        self.allow_dangerously_skip_permissions = on;
        self
    }

    /// Sets `continue_conversation`.
    pub fn continue_conversation(mut self, on: bool) -> Self {
        self.continue_conversation = on;
        self
    }

    /// Sets `resume`.
    pub fn resume(mut self, session_id: impl Into<String>) -> Self {
        self.resume = Some(session_id.into());
        self
    }

    /// Sets `fork_session`.
    pub fn fork_session(mut self, on: bool) -> Self {
        self.fork_session = on;
        self
    }

    /// Sets `resume_session_at`.
    pub fn resume_session_at(mut self, message_uuid: impl Into<String>) -> Self {
        self.resume_session_at = Some(message_uuid.into());
        self
    }

    /// Sets `resume_drops_turn` (with `resume_session_at`).
    pub fn resume_drops_turn(mut self, prompt_uuid: impl Into<String>) -> Self {
        self.resume_drops_turn = Some(prompt_uuid.into());
        self
    }

    /// Sets `session_id`.
    pub fn session_id(mut self, session_id: impl Into<String>) -> Self {
        self.session_id = Some(session_id.into());
        self
    }

    /// Appends to `allowed_tools`.
    pub fn allowed_tools<I, S>(mut self, tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allowed_tools.extend(tools.into_iter().map(Into::into));
        self
    }

    /// Appends to `disallowed_tools`.
    pub fn disallowed_tools<I, S>(mut self, tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.disallowed_tools
            .extend(tools.into_iter().map(Into::into));
        self
    }

    /// Sets `tools`.
    pub fn tools(mut self, tools: Tools) -> Self {
        self.tools = Some(tools);
        self
    }

    /// Sets `mcp_config` to an inline object (the whole
    /// `{"mcpServers": {...}}` object).
    pub fn mcp_config(mut self, config: serde_json::Value) -> Self {
        self.mcp_config = Some(McpConfig::Inline(config));
        self
    }

    /// Sets `mcp_config` to a file holding the `{"mcpServers": {...}}`
    /// object (Python's `mcp_servers` given as a path).
    pub fn mcp_config_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.mcp_config = Some(McpConfig::Path(path.into()));
        self
    }

    /// Lets the session use only these skills (Python's `skills=[...]`):
    /// see [`Skills::Only`]. [`Options::command`] refuses a name that
    /// cannot be a skill's ([`OptionsError::InvalidSkillName`]).
    ///
    /// ```
    /// use claude_proto::options::Options;
    /// let line = Options::new().skills(["pdf", "docs:review"]).command().unwrap();
    /// let args: Vec<_> = line.args.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    /// assert!(args.contains(&"--allowedTools=Skill(pdf),Skill(docs:review)".to_owned()));
    /// assert!(args.contains(&"--setting-sources=user,project".to_owned()));
    /// ```
    pub fn skills<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.skills = Some(Skills::Only(names.into_iter().map(Into::into).collect()));
        self
    }

    /// Lets the session use every skill the CLI discovers (Python's
    /// `skills="all"`): see [`Skills::All`].
    pub fn all_skills(mut self) -> Self {
        self.skills = Some(Skills::All);
        self
    }

    /// Sets `setting_sources`.
    pub fn setting_sources<I>(mut self, sources: I) -> Self
    where
        I: IntoIterator<Item = SettingSource>,
    {
        self.setting_sources = Some(sources.into_iter().collect());
        self
    }

    /// Sets `strict_mcp_config`.
    pub fn strict_mcp_config(mut self, on: bool) -> Self {
        self.strict_mcp_config = on;
        self
    }

    /// Sets `include_partial_messages`.
    pub fn include_partial_messages(mut self, on: bool) -> Self {
        self.include_partial_messages = on;
        self
    }

    /// Sets `await_initialize`.
    pub fn await_initialize(mut self, on: bool) -> Self {
        self.await_initialize = on;
        self
    }

    /// Sets `await_claim`.
    pub fn await_claim(mut self, on: bool) -> Self {
        self.await_claim = on;
        self
    }

    /// Sets `session_mirror`.
    pub fn session_mirror(mut self, on: bool) -> Self {
        self.session_mirror = on;
        self
    }

    /// Sets `include_hook_events`.
    pub fn include_hook_events(mut self, on: bool) -> Self {
        self.include_hook_events = on;
        self
    }

    /// Appends one directory to `add_dirs`.
    pub fn add_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.add_dirs.push(dir.into());
        self
    }

    /// Appends one plugin directory to `plugin_dirs` (MCP discovery on).
    pub fn plugin_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.plugin_dirs.push(PluginDir {
            path: dir.into(),
            skip_mcp_discovery: false,
        });
        self
    }

    /// Appends one plugin directory whose MCP servers are not started.
    pub fn plugin_dir_no_mcp(mut self, dir: impl Into<PathBuf>) -> Self {
        self.plugin_dirs.push(PluginDir {
            path: dir.into(),
            skip_mcp_discovery: true,
        });
        self
    }

    /// Sets `no_session_persistence`.
    pub fn no_session_persistence(mut self, on: bool) -> Self {
        self.no_session_persistence = on;
        self
    }

    /// Sets `json_schema`.
    pub fn json_schema(mut self, schema: serde_json::Value) -> Self {
        self.json_schema = Some(schema);
        self
    }

    /// A custom system prompt: a string (one block) or a list of blocks
    /// ([`SystemPromptChoice::Custom`]).
    pub fn system_prompt(mut self, prompt: impl Into<SystemPrompt>) -> Self {
        self.system_prompt = SystemPromptChoice::Custom(prompt.into());
        self
    }

    /// Claude Code's own system prompt (the `claude_code` preset of the
    /// official SDKs), with [`append_system_prompt`](Self::append_system_prompt)
    /// added to it if set.
    pub fn claude_code_system_prompt(mut self) -> Self {
        self.system_prompt = SystemPromptChoice::ClaudeCode;
        self
    }

    /// The system prompt read from a file (`--system-prompt-file`).
    pub fn system_prompt_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.system_prompt = SystemPromptChoice::File(path.into());
        self
    }

    /// Sets `append_system_prompt`.
    pub fn append_system_prompt(mut self, text: impl Into<String>) -> Self {
        self.append_system_prompt = Some(text.into());
        self
    }

    /// Adds (or replaces) the agent `name` in `agents`.
    pub fn agent_definition(mut self, name: impl Into<String>, agent: AgentDefinition) -> Self {
        self.agents.insert(name.into(), agent);
        self
    }

    /// Appends to `betas`.
    pub fn betas<I, S>(mut self, betas: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.betas.extend(betas.into_iter().map(Into::into));
        self
    }

    /// Sets `agent`.
    pub fn agent(mut self, agent: impl Into<String>) -> Self {
        self.agent = Some(agent.into());
        self
    }

    /// Sets `settings`.
    pub fn settings(mut self, settings: Settings) -> Self {
        self.settings = Some(settings);
        self
    }

    /// Sets `sandbox` (a JSON object, the settings' `sandbox` block).
    ///
    /// ```
    /// use claude_proto::options::Options;
    /// let options = Options::new().sandbox(serde_json::json!({"enabled": true}));
    /// let argv = options.command().unwrap().args;
    /// assert!(argv.iter().any(|a| a
    ///     == r#"--settings={"sandbox":{"enabled":true,"failIfUnavailable":true}}"#));
    /// ```
    pub fn sandbox(mut self, sandbox: serde_json::Value) -> Self {
        self.sandbox = Some(sandbox);
        self
    }

    /// Sets `managed_settings` (a JSON object).
    pub fn managed_settings(mut self, settings: serde_json::Value) -> Self {
        self.managed_settings = Some(settings);
        self
    }

    /// Sets `project_config_root`.
    pub fn project_config_root(mut self, dir: impl Into<PathBuf>) -> Self {
        self.project_config_root = Some(dir.into());
        self
    }

    /// Sets `debug`.
    pub fn debug(mut self, on: bool) -> Self {
        self.debug = on;
        self
    }

    /// Sets `debug_file`.
    pub fn debug_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.debug_file = Some(path.into());
        self
    }

    /// Appends one flag to `extra_args` (name without `--`).
    pub fn extra_arg(mut self, flag: impl Into<String>, value: Option<String>) -> Self {
        self.extra_args.push((flag.into(), value));
        self
    }

    /// Sets `cwd`.
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// Sets one variable in `env`, replacing an earlier value of the same name.
    pub fn env(mut self, name: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        let name = name.into();
        let value = value.into();
        match self.env.iter_mut().find(|(k, _)| *k == name) {
            Some(slot) => slot.1 = value,
            None => self.env.push((name, value)),
        }
        self
    }

    /// Appends one name to `env_remove`.
    pub fn env_remove(mut self, name: impl Into<OsString>) -> Self {
        self.env_remove.push(name.into());
        self
    }

    /// Sets `inherit_env`.
    pub fn inherit_env(mut self, on: bool) -> Self {
        self.inherit_env = on;
        self
    }

    /// Sets `own_process_group`.
    pub fn own_process_group(mut self, on: bool) -> Self {
        self.own_process_group = on;
        self
    }

    /// Sets `entrypoint`.
    pub fn entrypoint(mut self, entrypoint: impl Into<String>) -> Self {
        self.entrypoint = entrypoint.into();
        self
    }

    /// Sets `client_app`: the name of your application, which the CLI puts
    /// in the `User-Agent` of its requests; `""` sends none, not even an
    /// inherited one.
    pub fn client_app(mut self, name: impl Into<String>) -> Self {
        self.client_app = Some(name.into());
        self
    }

    /// Sets `reads_session_state`.
    pub fn reads_session_state(mut self, on: bool) -> Self {
        self.reads_session_state = on;
        self
    }

    /// Sets `enable_file_checkpointing`.
    pub fn enable_file_checkpointing(mut self, on: bool) -> Self {
        self.enable_file_checkpointing = on;
        self
    }

    /// Sets `cli_path`.
    pub fn cli_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.cli_path = Some(path.into());
        self
    }

    /// Starts the CLI through a wrapper command: the process started is
    /// `program args... <cli> <cli args...>`, and the protocol runs over
    /// its stdin and stdout as usual. This runs the CLI in a container
    /// (`docker exec -i NAME`), on another host (`ssh HOST`), as another
    /// user (`sudo -u NAME --preserve-env`), under a JavaScript runtime of
    /// your choice with its flags (`node --max-old-space-size=4096`, for a
    /// `cli.js`), or under `env`, `nice`, `timeout`, ... It is the simple form
    /// of the TypeScript SDK's `spawnClaudeCodeProcess`.
    ///
    /// The CLI is named by [`cli_path`](Self::cli_path) as given, or
    /// [`WRAPPED_CLI`] (`claude`) when unset: it lives where the wrapper
    /// runs it, so it is not searched for here (neither `CLAUDE_BIN` nor
    /// `PATH`). The environment changes and working directory of
    /// [`Options::command`] apply to the wrapper process; whether they reach
    /// the CLI is the wrapper's business (`env` and `sudo --preserve-env`
    /// pass the environment on; `docker exec` needs `-e NAME` and `-w DIR`,
    /// `ssh` neither). Closing signals the wrapper, not the CLI: choose one
    /// that ends the CLI when its stdin closes or it is signalled (`docker
    /// exec -i` and `ssh` do).
    ///
    /// ```
    /// use claude_proto::options::Options;
    /// let options = Options::new().wrapper("docker", ["exec", "-i", "sandbox"]);
    /// let line = options.command().unwrap();
    /// let cli = options.wrapped_cli().unwrap();
    /// let (program, args) = options.program_and_args(&cli, &line);
    /// assert_eq!(program, std::path::Path::new("docker"));
    /// assert_eq!(&args[..5], ["exec", "-i", "sandbox", "claude", "--output-format"]);
    /// ```
    pub fn wrapper<I, S>(mut self, program: impl Into<PathBuf>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.wrapper = Some(Wrapper {
            program: program.into(),
            args: args.into_iter().map(Into::into).collect(),
        });
        self
    }

    /// The CLI a wrapped launch passes to its wrapper: `cli_path` as given,
    /// or [`WRAPPED_CLI`]; `None` when there is no wrapper (then the CLI
    /// is found with [`discovery::locate`](crate::discovery::locate)).
    pub fn wrapped_cli(&self) -> Option<PathBuf> {
        self.wrapper.as_ref().map(|_| {
            self.cli_path
                .clone()
                .unwrap_or_else(|| PathBuf::from(WRAPPED_CLI))
        })
    }

    /// The program to start and all of its arguments, given the CLI's path
    /// (the located one, or [`wrapped_cli`](Self::wrapped_cli) when
    /// wrapped) and the command line these options produced: `cli
    /// line.args...`, or through a [`wrapper`](Self::wrapper), `program
    /// args... cli line.args...`.
    pub fn program_and_args(&self, cli: &Path, line: &CommandLine) -> (PathBuf, Vec<OsString>) {
        match &self.wrapper {
            None => (cli.to_path_buf(), line.args.clone()),
            Some(wrapper) => {
                let mut args = wrapper.args.clone();
                args.push(cli.as_os_str().to_owned());
                args.extend(line.args.iter().cloned());
                (wrapper.program.clone(), args)
            }
        }
    }

    /// The fields of the `initialize` request these options own: system
    /// prompt, appended system prompt, agents and JSON schema. Everything
    /// else in it is left at its default; adapters add hooks and in-process
    /// MCP servers.
    ///
    /// ```
    /// use claude_proto::options::Options;
    /// let options = Options::new().system_prompt("You are terse.").model("haiku");
    /// let init = options.initialize_request();
    /// assert_eq!(
    ///     serde_json::to_value(&init).unwrap(),
    ///     serde_json::json!({"systemPrompt": ["You are terse."]}),
    /// );
    /// // The model is a flag, the system prompt is not.
    /// let argv = options.command().unwrap().args;
    /// assert!(argv.iter().any(|a| a == "--model=haiku"));
    /// assert!(!argv.iter().any(|a| a.to_string_lossy().contains("terse")));
    /// ```
    pub fn initialize_request(&self) -> InitializeRequest {
        let mut request = InitializeRequest::default();
        self.fill_initialize(&mut request);
        request
    }

    /// Writes the fields these options own into `request` (see
    /// [`initialize_request`](Self::initialize_request)): a value set here
    /// replaces the request's, an agent defined here replaces the request's
    /// agent of the same name, and fields unset here are left alone. The
    /// system prompt: a choice made here (`Custom`, `ClaudeCode`, `File`)
    /// replaces the request's; the default (`Empty`) fills it only when the
    /// request has none.
    pub fn fill_initialize(&self, request: &mut InitializeRequest) {
        match &self.system_prompt {
            // The default yields to a prompt given through the request itself.
            SystemPromptChoice::Empty => {
                if request.system_prompt.is_none() {
                    request.system_prompt = Some(SystemPrompt::Blocks(vec![String::new()]));
                }
            }
            SystemPromptChoice::Custom(prompt) => request.system_prompt = Some(prompt.clone()),
            SystemPromptChoice::ClaudeCode | SystemPromptChoice::File(_) => {
                request.system_prompt = None;
            }
        }
        if let Some(text) = &self.append_system_prompt {
            request.append_system_prompt = Some(text.clone());
        }
        if let Some(schema) = &self.json_schema {
            request.json_schema = Some(schema.clone());
        }
        if let Some(Skills::Only(names)) = &self.skills {
            request.skills = Some(names.clone());
        }
        if !self.agents.is_empty() {
            let agents = request.agents.get_or_insert_with(BTreeMap::new);
            for (name, agent) in &self.agents {
                agents.insert(name.clone(), agent.clone());
            }
        }
    }

    /// Checks the options and produces the command line and environment.
    ///
    /// The arguments start with `--output-format stream-json --verbose
    /// --input-format stream-json`, followed by the flags in the order the
    /// TypeScript SDK uses, then `extra_args`. The environment always gets
    /// `CLAUDE_CODE_ENTRYPOINT` and `CLAUDE_AGENT_SDK_VERSION`;
    /// `CLAUDE_AGENT_SDK_CLIENT_APP` is `client_app` if set, else an
    /// inherited value, else [`DEFAULT_CLIENT_APP`];
    /// `CLAUDE_CODE_SDK_READS_SESSION_STATE` is `1` by default unless
    /// inherited; with a `cwd`, `PWD` follows it; the
    /// [`ENV_ALWAYS_REMOVED`] variables are removed from an inherited
    /// environment. A name the caller sets or removes explicitly is left to
    /// the caller.
    ///
    /// # Errors
    ///
    /// [`OptionsError`] when the options contradict each other or a value
    /// cannot be passed to a process; each variant says what to change.
    pub fn command(&self) -> Result<CommandLine, OptionsError> {
        self.validate()?;
        let args = self.build_args()?;
        let env = self.build_env()?;
        Ok(CommandLine {
            args,
            env,
            clear_env: !self.inherit_env,
            cwd: self.cwd.clone(),
        })
    }

    fn validate(&self) -> Result<(), OptionsError> {
        if let (Some(model), Some(fallback)) = (&self.model, &self.fallback_model) {
            if model == fallback {
                return Err(OptionsError::FallbackSameAsModel {
                    model: model.clone(),
                });
            }
        }
        if let Some(tool) = &self.permission_prompt_tool {
            if self.permission_prompt_stdio && tool != "stdio" {
                return Err(OptionsError::ConflictingPermissionPromptTool { tool: tool.clone() });
            }
        }
        if self.max_turns == Some(0) {
            return Err(OptionsError::ZeroMaxTurns);
        }
        if let Some(value) = self.max_budget_usd {
            if !value.is_finite() || value < 0.0 {
                return Err(OptionsError::InvalidBudget { value });
            }
        }
        if self.session_id.is_some()
            && (self.resume.is_some() || self.continue_conversation)
            && !self.fork_session
        {
            return Err(OptionsError::SessionIdWithoutFork);
        }
        if let Some(Skills::Only(names)) = &self.skills {
            for name in names {
                check_skill_name(name)?;
            }
        }
        if matches!(&self.mcp_config, Some(McpConfig::Inline(v)) if !v.is_object()) {
            return Err(OptionsError::NotAnObject {
                option: "mcp_config",
                expected: "{\"mcpServers\": {name: config, ...}}, or use Options::mcp_config_file for a file",
            });
        }
        if matches!(&self.settings, Some(Settings::Inline(v)) if !v.is_object()) {
            return Err(OptionsError::NotAnObject {
                option: "settings",
                expected: "a settings object, or use Settings::Path for a file",
            });
        }
        if self.json_schema.as_ref().is_some_and(|v| !v.is_object()) {
            return Err(OptionsError::NotAnObject {
                option: "json_schema",
                expected: "a JSON Schema object",
            });
        }
        if self.sandbox.as_ref().is_some_and(|v| !v.is_object()) {
            return Err(OptionsError::NotAnObject {
                option: "sandbox",
                expected: "a sandbox settings object, e.g. {\"enabled\": true}",
            });
        }
        if let (Some(_), Some(Settings::Path(path))) = (&self.sandbox, &self.settings) {
            return Err(OptionsError::SandboxWithSettingsPath { path: path.clone() });
        }
        if self
            .managed_settings
            .as_ref()
            .is_some_and(|v| !v.is_object())
        {
            return Err(OptionsError::NotAnObject {
                option: "managed_settings",
                expected: "a settings object",
            });
        }
        if self.resume_drops_turn.is_some() && self.resume_session_at.is_none() {
            return Err(OptionsError::ResumeDropsTurnWithoutResumeSessionAt);
        }
        if let Some(path) = &self.project_config_root {
            if !path.is_absolute() {
                return Err(OptionsError::RelativeProjectConfigRoot { path: path.clone() });
            }
        }
        if let Some(wrapper) = &self.wrapper {
            if wrapper.program.as_os_str().is_empty() {
                return Err(OptionsError::EmptyWrapper);
            }
            let cli = self.wrapped_cli().unwrap_or_default();
            let parts = [wrapper.program.as_os_str(), cli.as_os_str()];
            if parts
                .into_iter()
                .chain(wrapper.args.iter().map(OsString::as_os_str))
                .any(has_nul)
            {
                return Err(OptionsError::ContainsNul {
                    what: "the wrapper command".to_owned(),
                });
            }
        }
        Ok(())
    }

    fn build_args(&self) -> Result<Vec<OsString>, OptionsError> {
        let mut a = Args::default();
        for s in BASE_ARGS {
            a.raw(s);
        }

        match &self.thinking {
            None => {}
            Some(Thinking::Adaptive { display }) => {
                a.value("thinking", "adaptive");
                if let Some(d) = display {
                    a.value("thinking-display", d.as_str());
                }
            }
            Some(Thinking::Enabled {
                budget_tokens,
                display,
            }) => {
                match budget_tokens {
                    Some(n) => a.value("max-thinking-tokens", n.to_string()),
                    None => a.value("thinking", "adaptive"),
                }
                if let Some(d) = display {
                    a.value("thinking-display", d.as_str());
                }
            }
            Some(Thinking::Disabled) => a.value("thinking", "disabled"),
        }
        if let Some(effort) = &self.effort {
            a.value("effort", effort.as_str());
        }
        if let Some(n) = self.max_turns {
            a.value("max-turns", n.to_string());
        }
        if let Some(usd) = self.max_budget_usd {
            a.value("max-budget-usd", usd.to_string());
        }
        if let Some(n) = self.task_budget {
            a.value("task-budget", n.to_string());
        }
        if let Some(model) = &self.model {
            a.value("model", model);
        }
        if let Some(agent) = &self.agent {
            a.value("agent", agent);
        }
        if !self.betas.is_empty() {
            a.value("betas", self.betas.join(","));
        }
        if let Some(schema) = &self.json_schema {
            a.value("json-schema", schema.to_string());
        }
        if let SystemPromptChoice::File(path) = &self.system_prompt {
            a.value("system-prompt-file", path);
        }
        if let Some(path) = &self.debug_file {
            a.value("debug-file", path);
        } else if self.debug {
            a.flag("debug");
        }
        if self.permission_prompt_stdio {
            a.value("permission-prompt-tool", "stdio");
        } else if let Some(tool) = &self.permission_prompt_tool {
            a.value("permission-prompt-tool", tool);
        }
        if let Some(who) = &self.permission_prompts {
            a.value("permission-prompts", who.as_str());
        }
        if self.continue_conversation {
            a.flag("continue");
        }
        if let Some(id) = &self.resume {
            a.value("resume", id);
        }
        let allowed_tools = self.allowed_tools_with_skills();
        if !allowed_tools.is_empty() {
            a.value("allowedTools", allowed_tools.join(","));
        }
        if !self.disallowed_tools.is_empty() {
            a.value("disallowedTools", self.disallowed_tools.join(","));
        }
        match &self.tools {
            None => {}
            Some(Tools::List(list)) => a.value("tools", list.join(",")),
            Some(Tools::Default) => a.value("tools", "default"),
        }
        match &self.mcp_config {
            None => {}
            Some(McpConfig::Inline(config)) => a.value("mcp-config", config.to_string()),
            Some(McpConfig::Path(path)) => a.value("mcp-config", path),
        }
        let skill_sources = [SettingSource::User, SettingSource::Project];
        let sources = match (&self.setting_sources, &self.skills) {
            (Some(sources), _) => Some(sources.as_slice()),
            (None, Some(_)) => Some(skill_sources.as_slice()),
            (None, None) => None,
        };
        if let Some(sources) = sources {
            let joined: Vec<&str> = sources.iter().map(SettingSource::as_str).collect();
            a.value("setting-sources", joined.join(","));
        }
        if self.strict_mcp_config {
            a.flag("strict-mcp-config");
        }
        if let Some(mode) = &self.permission_mode {
            a.value("permission-mode", mode.as_str());
        }
        if self.allow_dangerously_skip_permissions {
            a.flag("allow-dangerously-skip-permissions");
        }
        if let Some(model) = &self.fallback_model {
            a.value("fallback-model", model);
        }
        if self.include_hook_events {
            a.flag("include-hook-events");
        }
        if self.await_initialize {
            a.flag("await-initialize");
        }
        if self.await_claim {
            a.flag("await-claim");
        }
        if self.session_mirror {
            a.flag("session-mirror");
        }
        if self.include_partial_messages {
            a.flag("include-partial-messages");
        }
        if let Some(root) = &self.project_config_root {
            a.value("project-config-root", root);
        }
        for dir in &self.add_dirs {
            a.value("add-dir", dir);
        }
        for plugin in &self.plugin_dirs {
            let flag = if plugin.skip_mcp_discovery {
                "plugin-dir-no-mcp"
            } else {
                "plugin-dir"
            };
            a.value(flag, &plugin.path);
        }
        if self.fork_session {
            a.flag("fork-session");
        }
        if let Some(uuid) = &self.resume_session_at {
            a.value("resume-session-at", uuid);
        }
        if let Some(uuid) = &self.resume_drops_turn {
            a.value("resume-drops-turn", uuid);
        }
        if let Some(id) = &self.session_id {
            a.value("session-id", id);
        }
        if self.no_session_persistence {
            a.flag("no-session-persistence");
        }
        if let Some(managed) = &self.managed_settings {
            a.value("managed-settings", managed.to_string());
        }
        match (&self.settings, &self.sandbox) {
            (None, None) => {}
            (Some(Settings::Path(path)), _) => a.value("settings", path),
            (Some(Settings::Inline(value)), None) => a.value("settings", value.to_string()),
            (inline, Some(sandbox)) => {
                let settings = match inline {
                    Some(Settings::Inline(value)) => Some(value),
                    _ => None,
                };
                a.value("settings", with_sandbox(settings, sandbox).to_string());
            }
        }

        let typed: Vec<String> = a.names.clone();
        for (index, (flag, value)) in self.extra_args.iter().enumerate() {
            check_extra_flag(index, flag)?;
            if typed.iter().any(|t| t == flag) && !REPEATABLE_FLAGS.contains(&flag.as_str()) {
                return Err(OptionsError::DuplicateFlag { flag: flag.clone() });
            }
            match value {
                Some(v) => a.value(flag, v),
                None => a.flag(flag),
            }
        }

        for (arg, name) in a.args.iter().zip(a.arg_names.iter()) {
            if has_nul(arg) {
                return Err(OptionsError::ContainsNul {
                    what: format!("--{name}"),
                });
            }
        }
        Ok(a.args)
    }

    fn build_env(&self) -> Result<Vec<EnvChange>, OptionsError> {
        for name in self.env.iter().map(|(k, _)| k).chain(&self.env_remove) {
            if name.is_empty() || has_nul(name) || name.to_string_lossy().contains('=') {
                return Err(OptionsError::InvalidEnvName {
                    name: name.to_string_lossy().into_owned(),
                });
            }
        }
        for (name, value) in &self.env {
            if self.env_remove.iter().any(|r| same_env_name(r, name)) {
                return Err(OptionsError::EnvSetAndRemoved {
                    name: name.to_string_lossy().into_owned(),
                });
            }
            if has_nul(value) {
                return Err(OptionsError::ContainsNul {
                    what: format!("environment variable {}", name.to_string_lossy()),
                });
            }
        }
        for (what, value) in [
            ("entrypoint", &self.entrypoint),
            (
                "client_app",
                self.client_app.as_ref().unwrap_or(&String::new()),
            ),
        ] {
            if has_nul(OsStr::new(value)) {
                return Err(OptionsError::ContainsNul {
                    what: what.to_owned(),
                });
            }
        }

        let mentioned = |name: &str| {
            self.env
                .iter()
                .map(|(k, _)| k)
                .chain(&self.env_remove)
                .any(|k| same_env_name(k, OsStr::new(name)))
        };

        let mut out = Vec::new();
        if self.inherit_env {
            for name in ENV_ALWAYS_REMOVED {
                if !mentioned(name) {
                    out.push(EnvChange::Remove(name.into()));
                }
            }
            for name in &self.env_remove {
                out.push(EnvChange::Remove(name.clone()));
            }
        }
        for (name, value) in &self.env {
            out.push(EnvChange::Set(name.clone(), value.clone()));
        }
        if !mentioned(ENV_ENTRYPOINT) {
            out.push(EnvChange::Set(
                ENV_ENTRYPOINT.into(),
                self.entrypoint.clone().into(),
            ));
        }
        if !mentioned(ENV_CLIENT_APP) {
            out.push(match &self.client_app {
                Some(name) => EnvChange::Set(ENV_CLIENT_APP.into(), name.into()),
                None => {
                    EnvChange::SetUnlessInherited(ENV_CLIENT_APP.into(), DEFAULT_CLIENT_APP.into())
                }
            });
        }
        if !mentioned(ENV_AGENT_SDK_VERSION) {
            out.push(EnvChange::Set(
                ENV_AGENT_SDK_VERSION.into(),
                AGENT_SDK_VERSION.into(),
            ));
        }
        if let Some(cwd) = self.cwd.as_ref().filter(|_| !mentioned(ENV_PWD)) {
            // A shell's `PWD` names the directory it was started in; the
            // CLI's Bash tool and hooks would inherit the caller's instead
            // of the one the CLI runs in. The Python SDK sets it too.
            out.push(if cwd.is_absolute() {
                EnvChange::Set(ENV_PWD.into(), cwd.clone().into_os_string())
            } else {
                EnvChange::Remove(ENV_PWD.into())
            });
        }
        if self.reads_session_state && !mentioned(ENV_READS_SESSION_STATE) {
            out.push(EnvChange::SetUnlessInherited(
                ENV_READS_SESSION_STATE.into(),
                "1".into(),
            ));
        }
        if self.enable_file_checkpointing && !mentioned(ENV_FILE_CHECKPOINTING) {
            out.push(EnvChange::Set(ENV_FILE_CHECKPOINTING.into(), "true".into()));
        }
        Ok(out)
    }
}

impl fmt::Debug for Options {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Destructured without `..` so that a new field cannot be forgotten here.
        let Options {
            model,
            fallback_model,
            max_turns,
            max_budget_usd,
            task_budget,
            thinking,
            effort,
            permission_mode,
            permission_prompt_stdio,
            permission_prompt_tool,
            permission_prompts,
            allow_dangerously_skip_permissions,
            continue_conversation,
            resume,
            fork_session,
            resume_session_at,
            resume_drops_turn,
            session_id,
            allowed_tools,
            disallowed_tools,
            tools,
            mcp_config,
            setting_sources,
            skills,
            strict_mcp_config,
            include_partial_messages,
            include_hook_events,
            await_initialize,
            await_claim,
            session_mirror,
            add_dirs,
            plugin_dirs,
            no_session_persistence,
            json_schema,
            system_prompt,
            append_system_prompt,
            agents,
            betas,
            agent,
            settings,
            sandbox,
            managed_settings,
            project_config_root,
            debug,
            debug_file,
            extra_args,
            cwd,
            env,
            env_remove,
            inherit_env,
            own_process_group,
            entrypoint,
            client_app,
            reads_session_state,
            enable_file_checkpointing,
            cli_path,
            wrapper,
        } = self;
        let env: Vec<EnvChange> = env
            .iter()
            .map(|(k, v)| EnvChange::Set(k.clone(), v.clone()))
            .collect();
        let extra_args: Vec<RedactedExtraArg<'_>> = extra_args
            .iter()
            .map(|(k, v)| RedactedExtraArg(k, v.as_deref()))
            .collect();
        f.debug_struct("Options")
            .field("model", model)
            .field("fallback_model", fallback_model)
            .field("max_turns", max_turns)
            .field("max_budget_usd", max_budget_usd)
            .field("task_budget", task_budget)
            .field("thinking", thinking)
            .field("effort", effort)
            .field("permission_mode", permission_mode)
            .field("permission_prompt_stdio", permission_prompt_stdio)
            .field("permission_prompt_tool", permission_prompt_tool)
            .field("permission_prompts", permission_prompts)
            .field(
                "allow_dangerously_skip_permissions",
                allow_dangerously_skip_permissions,
            )
            .field("continue_conversation", continue_conversation)
            .field("resume", resume)
            .field("fork_session", fork_session)
            .field("resume_session_at", resume_session_at)
            .field("resume_drops_turn", resume_drops_turn)
            .field("session_id", session_id)
            .field("allowed_tools", allowed_tools)
            .field("disallowed_tools", disallowed_tools)
            .field("tools", tools)
            .field("mcp_config", mcp_config)
            .field("setting_sources", setting_sources)
            .field("skills", skills)
            .field("strict_mcp_config", strict_mcp_config)
            .field("include_partial_messages", include_partial_messages)
            .field("include_hook_events", include_hook_events)
            .field("await_initialize", await_initialize)
            .field("await_claim", await_claim)
            .field("session_mirror", session_mirror)
            .field("add_dirs", add_dirs)
            .field("plugin_dirs", plugin_dirs)
            .field("no_session_persistence", no_session_persistence)
            .field("json_schema", &json_schema.as_ref().map(RedactedJson))
            .field("system_prompt", system_prompt)
            .field("append_system_prompt", append_system_prompt)
            .field("agents", agents)
            .field("betas", betas)
            .field("agent", agent)
            .field("settings", settings)
            .field("sandbox", &sandbox.as_ref().map(RedactedJson))
            .field(
                "managed_settings",
                &managed_settings.as_ref().map(RedactedJson),
            )
            .field("project_config_root", project_config_root)
            .field("debug", debug)
            .field("debug_file", debug_file)
            .field("extra_args", &extra_args)
            .field("cwd", cwd)
            .field("env", &env)
            .field("env_remove", env_remove)
            .field("inherit_env", inherit_env)
            .field("own_process_group", own_process_group)
            .field("entrypoint", entrypoint)
            .field("client_app", client_app)
            .field("reads_session_state", reads_session_state)
            .field("enable_file_checkpointing", enable_file_checkpointing)
            .field("cli_path", cli_path)
            .field("wrapper", wrapper)
            .finish()
    }
}

/// Argument accumulator that remembers which flag produced each element.
impl Options {
    /// `allowed_tools` with the rules `skills` adds: `Skill` for
    /// [`Skills::All`], `Skill(name)` for each listed name, each once.
    fn allowed_tools_with_skills(&self) -> Vec<String> {
        let mut tools = self.allowed_tools.clone();
        let added: Vec<String> = match &self.skills {
            None => Vec::new(),
            Some(Skills::All) => vec!["Skill".to_owned()],
            Some(Skills::Only(names)) => names.iter().map(|n| format!("Skill({n})")).collect(),
        };
        for rule in added {
            if !tools.contains(&rule) {
                tools.push(rule);
            }
        }
        tools
    }
}

/// Refuses a skill name the CLI could never match, or that the
/// `--allowedTools` tokenizer would split or rewrite (Python's checks,
/// with its reasons).
fn check_skill_name(name: &str) -> Result<(), OptionsError> {
    let refuse = |reason| {
        Err(OptionsError::InvalidSkillName {
            name: name.to_owned(),
            reason,
        })
    };
    if name.trim().is_empty() {
        return refuse("skill names must be non-empty");
    }
    if name != name.trim() {
        return refuse(
            "leading or trailing whitespace can never match; the Skill tool trims the name it is given",
        );
    }
    let forbidden = |c: char| matches!(c, '(' | ')' | ',' | '\u{feff}') || c.is_control();
    if name.contains(forbidden) {
        return refuse(
            "parentheses, commas, control characters and byte-order marks are not allowed; give the skill's directory name, or plugin:skill",
        );
    }
    if name == "*" {
        return refuse("use Options::all_skills to enable every skill");
    }
    if name.ends_with(":*") || name.ends_with(" *") {
        return refuse("wildcard suffixes are not allowed; list each skill by its exact name");
    }
    if name.starts_with('/') {
        return refuse("give the skill's name, not its slash-command form");
    }
    if name.contains("\\\\") {
        return refuse(
            "consecutive backslashes are not allowed: the CLI's rule parser collapses them, so the rule would name another skill",
        );
    }
    if name.ends_with('\\') {
        return refuse("a name may not end with an unpaired backslash");
    }
    Ok(())
}

#[derive(Default)]
struct Args {
    args: Vec<OsString>,
    /// Flag name of each element of `args` (same length).
    arg_names: Vec<String>,
    /// Names of the flags emitted so far.
    names: Vec<String>,
}

impl Args {
    fn raw(&mut self, s: &str) {
        self.args.push(s.into());
        self.arg_names.push(s.trim_start_matches('-').to_owned());
    }

    fn flag(&mut self, name: &str) {
        self.args.push(format!("--{name}").into());
        self.arg_names.push(name.to_owned());
        self.names.push(name.to_owned());
    }

    fn value(&mut self, name: &str, value: impl AsRef<OsStr>) {
        let mut arg = OsString::from(format!("--{name}="));
        arg.push(value.as_ref());
        self.args.push(arg);
        self.arg_names.push(name.to_owned());
        self.names.push(name.to_owned());
    }
}

fn check_extra_flag(index: usize, flag: &str) -> Result<(), OptionsError> {
    if flag.is_empty() {
        return Err(OptionsError::EmptyExtraArg { index });
    }
    if flag.starts_with('-') {
        return Err(OptionsError::ExtraArgStartsWithDash {
            flag: flag.to_owned(),
        });
    }
    if flag.contains('=') {
        return Err(OptionsError::ExtraArgContainsEquals {
            flag: flag.to_owned(),
        });
    }
    if RESERVED_FLAGS.contains(&flag) {
        return Err(OptionsError::ReservedExtraArg {
            flag: flag.to_owned(),
        });
    }
    Ok(())
}

/// Inline settings with the `sandbox` option merged into their `sandbox`
/// object: objects key by key, any other value of the option replacing the
/// settings' one; `failIfUnavailable: true` added when the option enables
/// the sandbox and neither side sets it.
fn with_sandbox(
    settings: Option<&serde_json::Value>,
    sandbox: &serde_json::Value,
) -> serde_json::Value {
    fn merge(into: &mut serde_json::Value, from: &serde_json::Value) {
        match (into, from) {
            (serde_json::Value::Object(into), serde_json::Value::Object(from)) => {
                for (key, value) in from {
                    match into.get_mut(key) {
                        Some(slot) if slot.is_object() && value.is_object() => merge(slot, value),
                        _ => {
                            into.insert(key.clone(), value.clone());
                        }
                    }
                }
            }
            (into, from) => *into = from.clone(),
        }
    }
    let mut out = match settings {
        Some(value @ serde_json::Value::Object(_)) => value.clone(),
        _ => serde_json::Value::Object(serde_json::Map::new()),
    };
    if let serde_json::Value::Object(map) = &mut out {
        let slot = map
            .entry("sandbox")
            .or_insert_with(|| serde_json::Value::Object(serde_json::Map::new()));
        if !slot.is_object() {
            *slot = serde_json::Value::Object(serde_json::Map::new());
        }
        merge(slot, sandbox);
        if sandbox.get("enabled") == Some(&serde_json::Value::Bool(true)) {
            if let serde_json::Value::Object(block) = slot {
                block
                    .entry("failIfUnavailable")
                    .or_insert(serde_json::Value::Bool(true));
            }
        }
    }
    out
}

fn has_nul(s: &OsStr) -> bool {
    s.as_encoded_bytes().contains(&0)
}

/// Environment names are compared without regard to ASCII case: Windows
/// treats them so, and on Unix a case variant of one of our variables is
/// better left alone than duplicated.
fn same_env_name(a: &OsStr, b: &OsStr) -> bool {
    a.as_encoded_bytes()
        .eq_ignore_ascii_case(b.as_encoded_bytes())
}

/// Whether a variable or key name looks like it holds a secret.
fn is_secret_name(name: &str) -> bool {
    const MARKERS: [&str; 6] = ["KEY", "TOKEN", "SECRET", "PASSWORD", "AUTH", "CREDENTIAL"];
    let upper = name.to_ascii_uppercase();
    MARKERS.iter().any(|m| upper.contains(m))
}

/// Debug view of JSON with secrets hidden: every value of an `env` or
/// `headers` object (an MCP server's, the settings' `env`), whatever its
/// name (`DATABASE_URL` holds a password as often as `API_TOKEN` does), and
/// the value of any other secret-looking key.
struct RedactedJson<'a>(&'a serde_json::Value);

/// Keys whose objects hold nothing but secrets, as far as `Debug` knows.
const SECRET_MAPS: [&str; 2] = ["env", "headers"];

fn redact_json(value: &serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::Object(map) => serde_json::Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let v = if is_secret_name(k) {
                        serde_json::Value::String(REDACTED.to_owned())
                    } else if SECRET_MAPS.contains(&k.as_str()) && v.is_object() {
                        redact_every_value(v)
                    } else {
                        redact_json(v)
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        serde_json::Value::Array(items) => {
            serde_json::Value::Array(items.iter().map(redact_json).collect())
        }
        other => other.clone(),
    }
}

/// `map` with its keys kept and every plain value hidden; an object or
/// array inside is looked through like the rest. (An MCP server *named*
/// `env` has its fields hidden too: hiding too much is the safe mistake.)
fn redact_every_value(map: &serde_json::Value) -> serde_json::Value {
    match map {
        serde_json::Value::Object(map) => serde_json::Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let v = if v.is_object() || v.is_array() {
                        redact_json(v)
                    } else {
                        serde_json::Value::String(REDACTED.to_owned())
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        other => redact_json(other),
    }
}

impl fmt::Debug for RedactedJson<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", redact_json(self.0))
    }
}

/// Debug view of one `extra_args` pair.
struct RedactedExtraArg<'a>(&'a str, Option<&'a str>);

impl fmt::Debug for RedactedExtraArg<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let value = self.1.map(|v| redact_value(self.0, v));
        f.debug_tuple("").field(&self.0).field(&value).finish()
    }
}

/// Debug view of one wrapper argument: the value of a secret-looking
/// `NAME=value` or `--name=value` (`docker exec -e API_KEY=...`) is hidden.
struct RedactedWrapperArg<'a>(&'a OsStr);

impl fmt::Debug for RedactedWrapperArg<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.0.to_string_lossy();
        match text.split_once('=') {
            Some((name, _)) if is_secret_name(name.trim_start_matches('-')) => {
                write!(f, "\"{}={REDACTED}\"", name.escape_debug())
            }
            _ => fmt::Debug::fmt(self.0, f),
        }
    }
}

/// `Debug` view of one argument of a command line, secrets hidden as in
/// [`CommandLine`]'s: the value of a secret-looking `--flag=value` or
/// `NAME=value` (`docker exec -e API_KEY=...`), and in a JSON value (an
/// inline `--mcp-config` or `--settings`) what [`Options`]' own `Debug`
/// hides. For showing a command built from [`CommandLine::args`] (an
/// adapter's `Launch`) without its secrets.
#[derive(Clone, Copy)]
pub struct RedactedArg<'a>(&'a OsStr);

impl<'a> RedactedArg<'a> {
    /// A view of `arg`.
    pub fn new(arg: &'a OsStr) -> Self {
        Self(arg)
    }
}

impl fmt::Debug for RedactedArg<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.0.to_string_lossy();
        match text.strip_prefix("--").and_then(|t| t.split_once('=')) {
            Some((name, value)) => {
                write!(
                    f,
                    "\"--{name}={}\"",
                    redact_value(name, value).escape_debug()
                )
            }
            None => fmt::Debug::fmt(&RedactedWrapperArg(self.0), f),
        }
    }
}

fn redact_value(name: &str, value: &str) -> String {
    if is_secret_name(name) {
        return REDACTED.to_owned();
    }
    match serde_json::from_str::<serde_json::Value>(value) {
        Ok(json @ serde_json::Value::Object(_)) => redact_json(&json).to_string(),
        _ => value.to_owned(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Absolute paths on the platform the tests run on (on Windows, a path
    /// without a drive is not absolute).
    #[cfg(not(windows))]
    const WORK: &str = "/work";
    #[cfg(windows)]
    const WORK: &str = r"C:\work";
    #[cfg(not(windows))]
    const APP: &str = "/srv/app";
    #[cfg(windows)]
    const APP: &str = r"C:\srv\app";
    #[cfg(not(windows))]
    const CHECKOUT: &str = "/srv/checkout";
    #[cfg(windows)]
    const CHECKOUT: &str = r"C:\srv\checkout";
    use serde_json::json;

    fn argv(cmd: &CommandLine) -> Vec<String> {
        cmd.args
            .iter()
            .map(|a| a.to_str().unwrap().to_owned())
            .collect()
    }

    fn set(k: &str, v: &str) -> EnvChange {
        EnvChange::Set(k.into(), v.into())
    }

    fn rm(k: &str) -> EnvChange {
        EnvChange::Remove(k.into())
    }

    fn default(k: &str, v: &str) -> EnvChange {
        EnvChange::SetUnlessInherited(k.into(), v.into())
    }

    #[test]
    fn default_command_line() {
        let cmd = Options::default().command().unwrap();
        assert_eq!(
            argv(&cmd),
            [
                "--output-format",
                "stream-json",
                "--verbose",
                "--input-format",
                "stream-json"
            ]
        );
        assert_eq!(
            cmd.env,
            [
                rm("NODE_OPTIONS"),
                rm("DEBUG"),
                rm("CLAUDECODE"),
                rm("CLAUDE_AGENT_SDK_DERIVED_CLIENT_APP"),
                set("CLAUDE_CODE_ENTRYPOINT", "sdk-cli"),
                default("CLAUDE_AGENT_SDK_CLIENT_APP", DEFAULT_CLIENT_APP),
                set("CLAUDE_AGENT_SDK_VERSION", "unknown"),
                default("CLAUDE_CODE_SDK_READS_SESSION_STATE", "1"),
            ]
        );
        assert!(!cmd.clear_env);
        assert_eq!(cmd.cwd, None);
    }

    fn full() -> Options {
        Options::new()
            .model("claude-opus-4-1")
            .fallback_model("claude-sonnet-4-5")
            .max_turns(7)
            .max_budget_usd(2.5)
            .task_budget(100_000)
            .thinking(Thinking::Enabled {
                budget_tokens: Some(8000),
                display: Some(ThinkingDisplay::Summarized),
            })
            .effort(Effort::Xhigh)
            .permission_mode(PermissionMode::AcceptEdits)
            .permission_prompt_stdio(true)
            .allow_dangerously_skip_permissions(true)
            .resume("4b1c")
            .fork_session(true)
            .resume_session_at("msg-9")
            .session_id("new-id")
            .allowed_tools(["Read", "Bash(git log:*)"])
            .disallowed_tools(["WebFetch"])
            .tools(Tools::List(vec!["Read".into(), "Bash".into()]))
            .mcp_config(json!({"mcpServers": {"fs": {"command": "mcp-fs"}}}))
            .setting_sources([SettingSource::User, SettingSource::Project])
            .strict_mcp_config(true)
            .include_partial_messages(true)
            .include_hook_events(true)
            .add_dir("/a")
            .add_dir("/b c")
            .plugin_dir("/p1")
            .plugin_dir_no_mcp("/p2")
            .no_session_persistence(true)
            .json_schema(json!({"type": "object"}))
            .betas(["context-1m-2025-08-07"])
            .agent("reviewer")
            .settings(Settings::Inline(json!({"model": "x"})))
            .debug(true)
            .debug_file("/tmp/d.log")
            .extra_arg("debug-to-stderr", None)
            .extra_arg("workload", Some("batch".into()))
            .cwd(WORK)
            .env("ANTHROPIC_API_KEY", "sk-secret")
            .env("FOO", "bar")
            .env_remove("HTTP_PROXY")
            .entrypoint("my-app")
            .client_app("my-app/1.2")
            .enable_file_checkpointing(true)
            .cli_path("/opt/claude")
    }

    #[test]
    fn full_command_line() {
        let cmd = full().command().unwrap();
        assert_eq!(
            argv(&cmd),
            [
                "--output-format",
                "stream-json",
                "--verbose",
                "--input-format",
                "stream-json",
                "--max-thinking-tokens=8000",
                "--thinking-display=summarized",
                "--effort=xhigh",
                "--max-turns=7",
                "--max-budget-usd=2.5",
                "--task-budget=100000",
                "--model=claude-opus-4-1",
                "--agent=reviewer",
                "--betas=context-1m-2025-08-07",
                r#"--json-schema={"type":"object"}"#,
                "--debug-file=/tmp/d.log",
                "--permission-prompt-tool=stdio",
                "--resume=4b1c",
                "--allowedTools=Read,Bash(git log:*)",
                "--disallowedTools=WebFetch",
                "--tools=Read,Bash",
                r#"--mcp-config={"mcpServers":{"fs":{"command":"mcp-fs"}}}"#,
                "--setting-sources=user,project",
                "--strict-mcp-config",
                "--permission-mode=acceptEdits",
                "--allow-dangerously-skip-permissions",
                "--fallback-model=claude-sonnet-4-5",
                "--include-hook-events",
                "--include-partial-messages",
                "--add-dir=/a",
                "--add-dir=/b c",
                "--plugin-dir=/p1",
                "--plugin-dir-no-mcp=/p2",
                "--fork-session",
                "--resume-session-at=msg-9",
                "--session-id=new-id",
                "--no-session-persistence",
                r#"--settings={"model":"x"}"#,
                "--debug-to-stderr",
                "--workload=batch",
            ]
        );
        assert_eq!(
            cmd.env,
            [
                rm("NODE_OPTIONS"),
                rm("DEBUG"),
                rm("CLAUDECODE"),
                rm("CLAUDE_AGENT_SDK_DERIVED_CLIENT_APP"),
                rm("HTTP_PROXY"),
                set("ANTHROPIC_API_KEY", "sk-secret"),
                set("FOO", "bar"),
                set("CLAUDE_CODE_ENTRYPOINT", "my-app"),
                set("CLAUDE_AGENT_SDK_CLIENT_APP", "my-app/1.2"),
                set("CLAUDE_AGENT_SDK_VERSION", "unknown"),
                set("PWD", WORK),
                default("CLAUDE_CODE_SDK_READS_SESSION_STATE", "1"),
                set("CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING", "true"),
            ]
        );
        assert_eq!(cmd.cwd, Some(PathBuf::from(WORK)));
        assert!(!cmd.clear_env);
    }

    #[test]
    fn thinking_variants() {
        let one = |t: Thinking| argv(&Options::new().thinking(t).command().unwrap())[5..].to_vec();
        assert_eq!(
            one(Thinking::Adaptive { display: None }),
            ["--thinking=adaptive"]
        );
        assert_eq!(
            one(Thinking::Adaptive {
                display: Some(ThinkingDisplay::Omitted)
            }),
            ["--thinking=adaptive", "--thinking-display=omitted"]
        );
        assert_eq!(
            one(Thinking::Enabled {
                budget_tokens: None,
                display: None
            }),
            ["--thinking=adaptive"]
        );
        assert_eq!(one(Thinking::Disabled), ["--thinking=disabled"]);
        let zero = Options::new().max_thinking_tokens(0).command().unwrap();
        assert_eq!(argv(&zero)[5..], ["--thinking=disabled"]);
        let n = Options::new().max_thinking_tokens(1024).command().unwrap();
        assert_eq!(argv(&n)[5..], ["--max-thinking-tokens=1024"]);
    }

    #[test]
    fn other_list_forms() {
        let cmd = Options::new()
            .tools(Tools::List(vec![]))
            .setting_sources([])
            .command()
            .unwrap();
        assert_eq!(argv(&cmd)[5..], ["--tools=", "--setting-sources="]);
        let cmd = Options::new()
            .tools(Tools::Default)
            .continue_conversation(true)
            .debug(true)
            .permission_prompt_tool("mcp__perm__ask")
            .settings(Settings::Path("/etc/s.json".into()))
            .effort(Effort::from("ultra"))
            .command()
            .unwrap();
        assert_eq!(
            argv(&cmd)[5..],
            [
                "--effort=ultra",
                "--debug",
                "--permission-prompt-tool=mcp__perm__ask",
                "--continue",
                "--tools=default",
                "--settings=/etc/s.json",
            ]
        );
    }

    /// Python's `skills`: `Skill(name)` rules after the caller's own
    /// (each once), `user,project` sources unless the caller chose, the
    /// list in `initialize.skills`; `All` adds a bare `Skill` and no list.
    #[test]
    fn skills_become_rules_sources_and_the_initialize_list() {
        let line = |options: Options| argv(&options.command().unwrap())[5..].to_vec();
        assert_eq!(
            line(
                Options::new()
                    .allowed_tools(["Read", "Skill(pdf)"])
                    .skills(["pdf", "docs:review"])
            ),
            [
                "--allowedTools=Read,Skill(pdf),Skill(docs:review)",
                "--setting-sources=user,project",
            ]
        );
        assert_eq!(
            line(
                Options::new()
                    .skills(["pdf"])
                    .setting_sources([SettingSource::Project])
            ),
            ["--allowedTools=Skill(pdf)", "--setting-sources=project"]
        );
        assert_eq!(
            line(Options::new().skills(["pdf"]).setting_sources([])),
            ["--allowedTools=Skill(pdf)", "--setting-sources="]
        );
        // An empty list allows nothing new but still loads the layers and
        // tells the CLI to hide every skill.
        assert_eq!(
            line(Options::new().skills(Vec::<String>::new())),
            ["--setting-sources=user,project"]
        );
        assert_eq!(
            line(Options::new().all_skills()),
            ["--allowedTools=Skill", "--setting-sources=user,project"]
        );
        assert_eq!(
            line(Options::new().allowed_tools(["Skill"]).all_skills()),
            ["--allowedTools=Skill", "--setting-sources=user,project"]
        );
        let init = |options: Options| serde_json::to_value(options.initialize_request()).unwrap();
        assert_eq!(
            init(Options::new().skills(["pdf"]))["skills"],
            json!(["pdf"])
        );
        assert_eq!(
            init(Options::new().skills(Vec::<String>::new()))["skills"],
            json!([])
        );
        assert_eq!(init(Options::new().all_skills()).get("skills"), None);
        assert_eq!(init(Options::new()).get("skills"), None);
    }

    /// Each name Python refuses is refused, and says why.
    #[test]
    fn skill_names_that_cannot_match_are_refused() {
        for (name, says) in [
            ("", "non-empty"),
            ("   ", "non-empty"),
            (" pdf", "whitespace"),
            ("pdf\t", "whitespace"),
            ("a(b)", "parentheses"),
            ("a,b", "commas"),
            ("a\u{7}b", "control"),
            ("a\u{85}b", "control"),
            ("\u{feff}pdf", "byte-order"),
            ("*", "all_skills"),
            ("docs:*", "wildcard"),
            ("docs *", "wildcard"),
            ("/pdf", "slash-command"),
            ("a\\\\b", "consecutive backslashes"),
            ("pdf\\", "unpaired backslash"),
        ] {
            let err = Options::new().skills(["ok", name]).command().unwrap_err();
            assert!(
                matches!(&err, OptionsError::InvalidSkillName { name: n, .. } if n == name),
                "{name:?}: {err:?}"
            );
            assert!(err.to_string().contains(says), "{name:?}: {err}");
        }
        for name in ["pdf", "docs:review", "my skill", "a\\b", "ünï"] {
            Options::new().skills([name]).command().unwrap();
        }
    }

    /// Python's `mcp_servers` as a path: passed as it is.
    #[test]
    fn mcp_config_from_a_file() {
        let cmd = Options::new()
            .mcp_config_file("/etc/mcp.json")
            .command()
            .unwrap();
        assert_eq!(argv(&cmd)[5..], ["--mcp-config=/etc/mcp.json"]);
        assert!(matches!(
            Options::new().mcp_config(json!("/etc/mcp.json")).command(),
            Err(OptionsError::NotAnObject {
                option: "mcp_config",
                ..
            })
        ));
    }

    #[test]
    fn dash_values_stay_in_one_element() {
        let cmd = Options::new()
            .model("-weird-model")
            .resume("--help")
            .add_dir("-dir")
            .settings(Settings::Path("-s.json".into()))
            .extra_arg("foo", Some("--bar".into()))
            .command()
            .unwrap();
        let args = argv(&cmd);
        assert_eq!(
            args[5..],
            [
                "--model=-weird-model",
                "--resume=--help",
                "--add-dir=-dir",
                "--settings=-s.json",
                "--foo=--bar",
            ]
        );
        assert!(!args.iter().any(|a| a == "--help" || a == "-dir"));
    }

    #[test]
    fn initialize_fields_stay_off_the_command_line() {
        let options = Options::new()
            .model("haiku")
            .permission_mode(PermissionMode::Plan)
            .json_schema(json!({"type": "object"}))
            .system_prompt("You are terse.")
            .append_system_prompt("Answer in French.")
            .agent_definition(
                "reviewer",
                AgentDefinition::new("Reviews diffs", "You review code.").with_model("opus"),
            );
        let args = argv(&options.command().unwrap());
        assert_eq!(
            args[5..],
            [
                "--model=haiku",
                "--json-schema={\"type\":\"object\"}",
                "--permission-mode=plan",
            ]
        );
        for word in ["terse", "French", "reviewer", "review"] {
            assert!(!args.iter().any(|a| a.contains(word)), "{word} on argv");
        }
        assert_eq!(
            serde_json::to_value(options.initialize_request()).unwrap(),
            json!({
                "jsonSchema": {"type": "object"},
                "systemPrompt": ["You are terse."],
                "appendSystemPrompt": "Answer in French.",
                "agents": {"reviewer": {
                    "description": "Reviews diffs",
                    "prompt": "You review code.",
                    "model": "opus"
                }}
            })
        );
        // By default, as in the official SDKs, an empty system prompt and
        // nothing else.
        assert_eq!(
            serde_json::to_value(Options::new().initialize_request()).unwrap(),
            json!({"systemPrompt": [""]})
        );
    }

    #[test]
    fn system_prompt_choices() {
        let init = |options: Options| serde_json::to_value(options.initialize_request()).unwrap();
        // Claude Code's own prompt: nothing sent (so the CLI uses it), with
        // an addition if asked.
        assert_eq!(init(Options::new().claude_code_system_prompt()), json!({}));
        assert_eq!(
            init(
                Options::new()
                    .claude_code_system_prompt()
                    .append_system_prompt("Be brief.")
            ),
            json!({"appendSystemPrompt": "Be brief."})
        );
        // A file: a flag, nothing in initialize.
        let options = Options::new().system_prompt_file("/etc/prompt.md");
        assert_eq!(init(options.clone()), json!({}));
        assert!(
            argv(&options.command().unwrap())
                .contains(&"--system-prompt-file=/etc/prompt.md".to_owned())
        );
        // The escape hatch's prompt is replaced by a choice made here, and
        // kept over the default.
        let mut request = InitializeRequest::new().with_system_prompt("hatch");
        Options::new()
            .claude_code_system_prompt()
            .fill_initialize(&mut request);
        assert_eq!(request.system_prompt, None);
        let mut request = InitializeRequest::new().with_system_prompt("hatch");
        Options::new().fill_initialize(&mut request);
        assert_eq!(request.system_prompt, Some(SystemPrompt::from("hatch")));
    }

    #[test]
    fn options_write_over_their_own_initialize_fields_only() {
        let mut request: InitializeRequest = serde_json::from_value(json!({
            "title": "kept",
            "systemPrompt": ["replaced"],
            "appendSystemPrompt": "kept too",
            "agents": {"a": {"description": "old", "prompt": "old"},
                       "b": {"description": "b", "prompt": "b"}}
        }))
        .unwrap();
        Options::new()
            .system_prompt(vec!["one".to_owned(), "two".to_owned()])
            .agent_definition("a", AgentDefinition::new("new", "new"))
            .fill_initialize(&mut request);
        assert_eq!(
            serde_json::to_value(&request).unwrap(),
            json!({
                "title": "kept",
                "systemPrompt": ["one", "two"],
                "appendSystemPrompt": "kept too",
                "agents": {"a": {"description": "new", "prompt": "new"},
                           "b": {"description": "b", "prompt": "b"}}
            })
        );
    }

    #[test]
    fn every_permission_mode_reaches_the_flag() {
        let modes = [
            (PermissionMode::Default, "default"),
            (PermissionMode::AcceptEdits, "acceptEdits"),
            (PermissionMode::BypassPermissions, "bypassPermissions"),
            (PermissionMode::Plan, "plan"),
            (PermissionMode::DontAsk, "dontAsk"),
            (PermissionMode::Auto, "auto"),
            (PermissionMode::from("future"), "future"),
        ];
        for (mode, wire) in modes {
            let args = argv(&Options::new().permission_mode(mode).command().unwrap());
            assert_eq!(args[5..], [format!("--permission-mode={wire}")]);
        }
        // A wire name is accepted and typed.
        assert_eq!(
            Options::new().permission_mode("dontAsk").permission_mode,
            Some(PermissionMode::DontAsk)
        );
    }

    #[test]
    fn extra_args_are_validated() {
        let err = |flag: &str| Options::new().extra_arg(flag, None).command().unwrap_err();
        assert_eq!(err(""), OptionsError::EmptyExtraArg { index: 0 });
        assert_eq!(
            err("--foo"),
            OptionsError::ExtraArgStartsWithDash {
                flag: "--foo".into()
            }
        );
        assert_eq!(
            err("-f"),
            OptionsError::ExtraArgStartsWithDash { flag: "-f".into() }
        );
        assert_eq!(
            err("foo=bar"),
            OptionsError::ExtraArgContainsEquals {
                flag: "foo=bar".into()
            }
        );
        assert_eq!(
            err("output-format"),
            OptionsError::ReservedExtraArg {
                flag: "output-format".into()
            }
        );
        let dup = Options::new()
            .model("m")
            .extra_arg("model", Some("n".into()))
            .command()
            .unwrap_err();
        assert_eq!(
            dup,
            OptionsError::DuplicateFlag {
                flag: "model".into()
            }
        );
        let dup = Options::new()
            .permission_prompt_stdio(true)
            .extra_arg("permission-prompt-tool", Some("x".into()))
            .command()
            .unwrap_err();
        assert!(matches!(dup, OptionsError::DuplicateFlag { .. }));
        // Repeatable flags may be added through extra_args as well.
        let ok = Options::new()
            .add_dir("/a")
            .extra_arg("add-dir", Some("/b".into()))
            .command()
            .unwrap();
        assert_eq!(argv(&ok)[5..], ["--add-dir=/a", "--add-dir=/b"]);
        let msg = err("--foo").to_string();
        assert!(msg.contains("\"foo\""), "{msg}");
    }

    #[test]
    fn contradictions_are_refused() {
        assert_eq!(
            Options::new().model("m").fallback_model("m").command(),
            Err(OptionsError::FallbackSameAsModel { model: "m".into() })
        );
        assert_eq!(
            Options::new()
                .permission_prompt_stdio(true)
                .permission_prompt_tool("mcp__x__y")
                .command(),
            Err(OptionsError::ConflictingPermissionPromptTool {
                tool: "mcp__x__y".into()
            })
        );
        assert_eq!(
            Options::new().max_turns(0).command(),
            Err(OptionsError::ZeroMaxTurns)
        );
        assert!(matches!(
            Options::new().max_budget_usd(f64::NAN).command(),
            Err(OptionsError::InvalidBudget { .. })
        ));
        assert!(matches!(
            Options::new().max_budget_usd(-1.0).command(),
            Err(OptionsError::InvalidBudget { .. })
        ));
        assert_eq!(
            Options::new().resume("a").session_id("b").command(),
            Err(OptionsError::SessionIdWithoutFork)
        );
        assert!(Options::new().session_id("b").command().is_ok());
        assert!(matches!(
            Options::new().mcp_config(json!([1])).command(),
            Err(OptionsError::NotAnObject {
                option: "mcp_config",
                ..
            })
        ));
        assert!(matches!(
            Options::new()
                .settings(Settings::Inline(json!("x")))
                .command(),
            Err(OptionsError::NotAnObject {
                option: "settings",
                ..
            })
        ));
        assert!(matches!(
            Options::new().model("a\0b").command(),
            Err(OptionsError::ContainsNul { .. })
        ));
    }

    #[test]
    fn session_mirror_is_a_flag() {
        let cmd = Options::new().session_mirror(true).command().unwrap();
        assert!(argv(&cmd).iter().any(|a| a == "--session-mirror"));
        let cmd = Options::new().command().unwrap();
        assert!(!argv(&cmd).iter().any(|a| a == "--session-mirror"));
    }

    #[test]
    fn await_claim_is_a_flag() {
        let cmd = Options::new().await_claim(true).command().unwrap();
        assert!(argv(&cmd).iter().any(|a| a == "--await-claim"));
        let cmd = Options::new().command().unwrap();
        assert!(!argv(&cmd).iter().any(|a| a == "--await-claim"));
    }

    #[test]
    fn await_initialize_is_a_flag() {
        let cmd = Options::new().await_initialize(true).command().unwrap();
        assert_eq!(
            argv(&cmd).last().map(String::as_str),
            Some("--await-initialize")
        );
        let cmd = Options::new().command().unwrap();
        assert!(!argv(&cmd).iter().any(|a| a == "--await-initialize"));
    }

    /// Python's rules for the two names it lets an inherited value keep:
    /// the defaults yield to one, an explicit `client_app` does not, and
    /// `client_app("")` sends an empty name (the CLI reads it as none).
    #[test]
    fn inherited_client_app_and_session_state_are_kept_as_python_keeps_them() {
        let env = |options: Options| options.command().unwrap().env;
        let defaults = env(Options::new());
        assert!(defaults.contains(&default("CLAUDE_AGENT_SDK_CLIENT_APP", DEFAULT_CLIENT_APP)));
        assert!(defaults.contains(&default("CLAUDE_CODE_SDK_READS_SESSION_STATE", "1")));
        assert!(defaults.contains(&rm("CLAUDE_AGENT_SDK_DERIVED_CLIENT_APP")));
        assert!(
            env(Options::new().client_app("my-app/2"))
                .contains(&set("CLAUDE_AGENT_SDK_CLIENT_APP", "my-app/2"))
        );
        assert!(
            env(Options::new().client_app("")).contains(&set("CLAUDE_AGENT_SDK_CLIENT_APP", ""))
        );
        let off = env(Options::new().reads_session_state(false));
        assert!(!off.iter().any(|c| matches!(c,
            EnvChange::Set(n, _) | EnvChange::SetUnlessInherited(n, _) if n == "CLAUDE_CODE_SDK_READS_SESSION_STATE")));
    }

    #[test]
    fn env_rules() {
        // Caller's own values win over the crate's defaults.
        let cmd = Options::new()
            .env("CLAUDE_CODE_ENTRYPOINT", "mine")
            .env("NODE_OPTIONS", "--max-old-space-size=4096")
            .env_remove("CLAUDE_CODE_SDK_READS_SESSION_STATE")
            .env_remove("CLAUDE_AGENT_SDK_CLIENT_APP")
            .env("CLAUDE_AGENT_SDK_VERSION", "1.2.3")
            .reads_session_state(true)
            .command()
            .unwrap();
        assert_eq!(
            cmd.env,
            [
                rm("DEBUG"),
                rm("CLAUDECODE"),
                rm("CLAUDE_AGENT_SDK_DERIVED_CLIENT_APP"),
                rm("CLAUDE_CODE_SDK_READS_SESSION_STATE"),
                rm("CLAUDE_AGENT_SDK_CLIENT_APP"),
                set("CLAUDE_CODE_ENTRYPOINT", "mine"),
                set("NODE_OPTIONS", "--max-old-space-size=4096"),
                set("CLAUDE_AGENT_SDK_VERSION", "1.2.3"),
            ]
        );
        // Removed by the caller: not set (the CLI then runs an `sdk-cli`
        // session as it runs `claude -p`).
        let cmd = Options::new()
            .env_remove("CLAUDE_AGENT_SDK_VERSION")
            .command()
            .unwrap();
        assert!(cmd.env.contains(&rm("CLAUDE_AGENT_SDK_VERSION")));
        assert!(
            !cmd.env
                .iter()
                .any(|c| matches!(c, EnvChange::Set(n, _) if n == "CLAUDE_AGENT_SDK_VERSION"))
        );
        // A clean environment has nothing to remove.
        let cmd = Options::new()
            .inherit_env(false)
            .env("PATH", "/usr/bin")
            .env("PATH", "/bin")
            .env_remove("X")
            .reads_session_state(false)
            .command()
            .unwrap();
        assert!(cmd.clear_env);
        assert_eq!(
            cmd.env,
            [
                set("PATH", "/bin"),
                set("CLAUDE_CODE_ENTRYPOINT", "sdk-cli"),
                default("CLAUDE_AGENT_SDK_CLIENT_APP", DEFAULT_CLIENT_APP),
                set("CLAUDE_AGENT_SDK_VERSION", "unknown"),
            ]
        );
        // `PWD` follows an absolute working directory, goes with a relative
        // one, and is the caller's when they name it.
        let pwd = |options: Options| {
            options
                .command()
                .unwrap()
                .env
                .into_iter()
                .filter(|change| match change {
                    EnvChange::Set(name, _)
                    | EnvChange::Remove(name)
                    | EnvChange::SetUnlessInherited(name, _) => name == "PWD",
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(pwd(Options::new()), []);
        assert_eq!(pwd(Options::new().cwd(APP)), [set("PWD", APP)]);
        assert_eq!(pwd(Options::new().cwd("app")), [rm("PWD")]);
        assert_eq!(
            pwd(Options::new().cwd(APP).env("PWD", "/mine")),
            [set("PWD", "/mine")]
        );
        assert_eq!(
            Options::new().env("A", "1").env_remove("A").command(),
            Err(OptionsError::EnvSetAndRemoved { name: "A".into() })
        );
        assert_eq!(
            Options::new().env("A=B", "1").command(),
            Err(OptionsError::InvalidEnvName { name: "A=B".into() })
        );
        assert!(matches!(
            Options::new().env("", "1").command(),
            Err(OptionsError::InvalidEnvName { .. })
        ));
    }

    #[test]
    fn debug_output_hides_secrets() {
        let opts = full()
            .env("github_token", "ghp_abc")
            .env("MY_PASSWORD", "hunter2")
            .env("AWS_SECRET_ACCESS_KEY", "aws-s3cr3t")
            .env("Credentials_File", "cred-path")
            .env("HTTP_AUTHORIZATION", "Bearer zzz")
            .mcp_config(json!({"mcpServers": {
                "gh": {
                    "command": "gh-mcp",
                    "env": {"GITHUB_TOKEN": "ghp_in_json", "DATABASE_URL": "postgres://u:pw-in-url@db"},
                    "headers": {"Authorization": "Bearer in_json", "X-Tenant": "tenant-in-header"}
                }
            }}))
            .settings(Settings::Inline(json!({"env": {"UPSTREAM": "https://u:pw-in-settings@h"}})))
            .extra_arg("api-key", Some("xk-extra".into()));
        let secrets = [
            "sk-secret",
            "ghp_abc",
            "hunter2",
            "aws-s3cr3t",
            "cred-path",
            "Bearer zzz",
            "ghp_in_json",
            "Bearer in_json",
            "xk-extra",
            // Every value of an `env` or `headers` object, whatever its name.
            "pw-in-url",
            "tenant-in-header",
            "pw-in-settings",
        ];
        let shown = format!("{opts:?} {:#?}", opts);
        for s in secrets {
            assert!(!shown.contains(s), "{s} leaked in {shown}");
        }
        assert!(shown.contains("ANTHROPIC_API_KEY"));
        assert!(shown.contains("DATABASE_URL"), "names stay visible");
        assert!(shown.contains("bar"), "non-secret values stay visible");
        assert!(shown.contains("gh-mcp"));

        let cmd = opts.command().unwrap();
        let shown = format!("{cmd:?} {:#?}", cmd);
        for s in secrets {
            assert!(!shown.contains(s), "{s} leaked in {shown}");
        }
        assert!(shown.contains("<redacted>"));
        assert!(shown.contains("--model=claude-opus-4-1"));
        assert!(shown.contains("FOO"));
    }

    #[test]
    fn launch_options_reach_their_flags() {
        let cmd = Options::new()
            .permission_prompts(PermissionPrompts::Nobody)
            .resume("0bd9ee5c-0000-4000-8000-000000000000")
            .resume_session_at("a1")
            .resume_drops_turn("p1")
            .project_config_root(CHECKOUT)
            .managed_settings(json!({"permissions": {"deny": ["Bash"]}}))
            .thinking(Thinking::Adaptive {
                display: Some(ThinkingDisplay::Omitted),
            })
            .command()
            .unwrap();
        let args = argv(&cmd);
        for expected in [
            "--permission-prompts=none",
            "--resume-session-at=a1",
            "--resume-drops-turn=p1",
            &format!("--project-config-root={CHECKOUT}"),
            r#"--managed-settings={"permissions":{"deny":["Bash"]}}"#,
            "--thinking=adaptive",
            "--thinking-display=omitted",
        ] {
            assert!(args.iter().any(|a| a == expected), "{expected} in {args:?}");
        }
        let host = Options::new().permission_prompts(PermissionPrompts::Host);
        assert!(
            argv(&host.command().unwrap())
                .iter()
                .any(|a| a == "--permission-prompts=host")
        );
        // None of them appears unless set.
        let plain = argv(&Options::new().command().unwrap());
        assert!(!plain.iter().any(|a| a.starts_with("--permission-prompts")
            || a.starts_with("--resume-drops-turn")
            || a.starts_with("--project-config-root")
            || a.starts_with("--managed-settings")
            || a.starts_with("--settings")));
    }

    #[test]
    fn launch_options_are_checked() {
        let err = Options::new()
            .resume_drops_turn("p1")
            .command()
            .unwrap_err();
        assert_eq!(err, OptionsError::ResumeDropsTurnWithoutResumeSessionAt);
        let err = Options::new()
            .project_config_root("relative/dir")
            .command()
            .unwrap_err();
        assert!(matches!(
            err,
            OptionsError::RelativeProjectConfigRoot { .. }
        ));
        let err = Options::new()
            .managed_settings(json!(["not", "an", "object"]))
            .command()
            .unwrap_err();
        assert!(matches!(
            err,
            OptionsError::NotAnObject {
                option: "managed_settings",
                ..
            }
        ));
        let err = Options::new().sandbox(json!(true)).command().unwrap_err();
        assert!(matches!(
            err,
            OptionsError::NotAnObject {
                option: "sandbox",
                ..
            }
        ));
        let err = Options::new()
            .settings(Settings::Path("/etc/claude.json".into()))
            .sandbox(json!({"enabled": true}))
            .command()
            .unwrap_err();
        assert!(matches!(err, OptionsError::SandboxWithSettingsPath { .. }));
        assert!(err.to_string().contains("Settings::Inline"));
        // The flag belongs to a typed option now.
        let err = Options::new()
            .sandbox(json!({}))
            .extra_arg("settings", Some("{}".into()))
            .command()
            .unwrap_err();
        assert!(matches!(err, OptionsError::DuplicateFlag { .. }));
    }

    fn settings_arg(options: &Options) -> serde_json::Value {
        let args = argv(&options.command().unwrap());
        let value = args
            .iter()
            .find_map(|a| a.strip_prefix("--settings="))
            .expect("a --settings flag");
        serde_json::from_str(value).unwrap()
    }

    #[test]
    fn sandbox_goes_inside_settings() {
        // Alone: its own settings object, failing closed when enabled.
        let alone = Options::new()
            .sandbox(json!({"enabled": true, "network": {"allowLocalBinding": true}}));
        assert_eq!(
            settings_arg(&alone),
            json!({"sandbox": {"enabled": true, "failIfUnavailable": true,
                "network": {"allowLocalBinding": true}}})
        );
        // Merged into inline settings: objects key by key, the option's
        // values winning, the settings' other keys kept.
        let merged = Options::new()
            .settings(Settings::Inline(json!({
                "model": "haiku",
                "sandbox": {"enabled": false, "failIfUnavailable": false,
                    "network": {"allowUnixSockets": ["/a"], "allowLocalBinding": false}}
            })))
            .sandbox(json!({"enabled": true, "network": {"allowLocalBinding": true}}));
        assert_eq!(
            settings_arg(&merged),
            json!({"model": "haiku", "sandbox": {"enabled": true, "failIfUnavailable": false,
                "network": {"allowUnixSockets": ["/a"], "allowLocalBinding": true}}})
        );
        // Not enabled here: no failIfUnavailable added.
        let off = Options::new().sandbox(json!({"autoAllowBashIfSandboxed": true}));
        assert_eq!(
            settings_arg(&off),
            json!({"sandbox": {"autoAllowBashIfSandboxed": true}})
        );
        // Settings alone are unchanged.
        let plain = Options::new().settings(Settings::Inline(json!({"model": "haiku"})));
        assert_eq!(settings_arg(&plain), json!({"model": "haiku"}));
    }

    #[test]
    fn a_wrapper_goes_before_the_cli() {
        let options = Options::new()
            .wrapper("docker", ["exec", "-i", "box"])
            .model("haiku");
        let line = options.command().unwrap();
        // Not searched for: the bare name, for the wrapper's side to resolve.
        let cli = options.wrapped_cli().unwrap();
        assert_eq!(cli, Path::new(WRAPPED_CLI));
        let (program, args) = options.program_and_args(&cli, &line);
        assert_eq!(program, Path::new("docker"));
        let mut expected: Vec<OsString> = ["exec", "-i", "box", "claude"]
            .into_iter()
            .map(OsString::from)
            .collect();
        expected.extend(line.args.iter().cloned());
        assert_eq!(args, expected);
        assert!(args.iter().any(|a| a == "--model=haiku"));

        // cli_path is passed as given.
        let options = options.cli_path("/opt/claude/bin/claude");
        let cli = options.wrapped_cli().unwrap();
        let (_, args) = options.program_and_args(&cli, &line);
        assert_eq!(args[3], "/opt/claude/bin/claude");

        // Without a wrapper: the located CLI and its arguments.
        let plain = Options::new();
        assert_eq!(plain.wrapped_cli(), None);
        let line = plain.command().unwrap();
        let (program, args) = plain.program_and_args(Path::new("/usr/bin/claude"), &line);
        assert_eq!(program, Path::new("/usr/bin/claude"));
        assert_eq!(args, line.args);

        // A wrapper with no arguments, and the checks.
        let env = Options::new().wrapper("env", Vec::<OsString>::new());
        let line = env.command().unwrap();
        let (program, args) = env.program_and_args(&env.wrapped_cli().unwrap(), &line);
        assert_eq!(program, Path::new("env"));
        assert_eq!(args[0], "claude");
        let err = Options::new().wrapper("", ["x"]).command().unwrap_err();
        assert_eq!(err, OptionsError::EmptyWrapper);
        let err = Options::new()
            .wrapper("ssh", ["host\0"])
            .command()
            .unwrap_err();
        assert!(matches!(err, OptionsError::ContainsNul { .. }));
    }

    #[test]
    fn debug_output_hides_wrapper_secrets() {
        let options = Options::new().wrapper(
            "docker",
            ["exec", "-e", "ANTHROPIC_API_KEY=sk-wrapped", "-i", "box"],
        );
        let shown = format!("{options:?}");
        assert!(!shown.contains("sk-wrapped"), "{shown}");
        assert!(shown.contains("ANTHROPIC_API_KEY=<redacted>"), "{shown}");
        assert!(shown.contains("\"box\""), "{shown}");
    }
}
