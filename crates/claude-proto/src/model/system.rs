//! `system` messages: session, task, hook and status notices, told apart by
//! their `subtype`.

use super::open_enum::open_enum;
use super::wire::wire_struct;
use serde::{Deserialize, Serialize};

use super::assistant::AssistantError;
use super::common::{Extra, Json, Maybe, string_enum, wire_tag};
use super::initialize::{EffortLevel, SlashCommand};
use super::permission::PermissionMode;

wire_tag! {
    /// The `"type":"system"` marker carried by every system message.
    pub struct SystemTag = "system";
}

/// Declares a system message struct: the listed fields plus the `type`
/// marker, `uuid`, `session_id` and the bag of unknown fields.
macro_rules! system_struct {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $( $(#[$($fmeta:tt)*])* pub $field:ident : $ty:ty, )*
        }
    ) => {
        wire_struct! {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[non_exhaustive]
        pub struct $name {
            /// Always `"system"`.
            #[serde(rename = "type")]
            pub kind: SystemTag,
            $( $(#[$($fmeta)*])* pub $field: $ty, )*
            /// Unique id of this message.
            pub uuid: String,
            /// Session the message belongs to.
            pub session_id: String,
            /// Fields not modelled here, kept verbatim.
            #[serde(flatten)]
            pub extra: Extra,
        }
        }
    };
}

open_enum! {
    /// A `system` message, tagged by `subtype`.
    ///
    /// New subtypes appear often; those this crate does not know (and known ones
    /// whose fields changed shape) arrive as [`SystemMessage::Unknown`] with the
    /// whole line kept.
    #[derive(Debug, Clone, PartialEq)]
    #[non_exhaustive]
    pub enum SystemMessage tagged "subtype" {
        /// A subtype this crate does not know (or whose shape changed), kept verbatim.
        Unknown;
        /// Session setup, sent at the start of every turn (boxed: it is much
        /// larger than the other subtypes).
        Init(Box<InitMessage>) = "init",
        /// The conversation was compacted.
        CompactBoundary(CompactBoundaryMessage) = "compact_boundary",
        /// Status changed (requesting, compacting, permission mode).
        Status(StatusMessage) = "status",
        /// A failed API request will be retried.
        ApiRetry(ApiRetryMessage) = "api_retry",
        /// Progress of a long control request.
        ControlRequestProgress(ControlRequestProgressMessage) = "control_request_progress",
        /// The model refused and another model is used instead.
        ModelRefusalFallback(ModelRefusalFallbackMessage) = "model_refusal_fallback",
        /// The model refused and no fallback model is available.
        ModelRefusalNoFallback(ModelRefusalNoFallbackMessage) = "model_refusal_no_fallback",
        /// Output of a local slash command.
        LocalCommandOutput(LocalCommandOutputMessage) = "local_command_output",
        /// A hook started.
        HookStarted(HookStartedMessage) = "hook_started",
        /// Output of a running hook.
        HookProgress(HookProgressMessage) = "hook_progress",
        /// A hook finished.
        HookResponse(HookResponseMessage) = "hook_response",
        /// Plugin installation progress.
        PluginInstall(PluginInstallMessage) = "plugin_install",
        /// A task (subagent, background command, ...) started.
        TaskStarted(TaskStartedMessage) = "task_started",
        /// Progress of a running task.
        TaskProgress(TaskProgressMessage) = "task_progress",
        /// Some fields of a task changed.
        TaskUpdated(TaskUpdatedMessage) = "task_updated",
        /// A task finished.
        TaskNotification(TaskNotificationMessage) = "task_notification",
        /// The full list of background tasks (replaces the previous list).
        BackgroundTasksChanged(BackgroundTasksChangedMessage) = "background_tasks_changed",
        /// Estimated reasoning tokens so far.
        ThinkingTokens(ThinkingTokensMessage) = "thinking_tokens",
        /// The session became idle, running, or is waiting for an answer.
        SessionStateChanged(SessionStateChangedMessage) = "session_state_changed",
        /// The worker process is shutting down.
        WorkerShuttingDown(WorkerShuttingDownMessage) = "worker_shutting_down",
        /// The full list of slash commands (replaces the previous list).
        CommandsChanged(CommandsChangedMessage) = "commands_changed",
        /// A notice for the user.
        Notification(NotificationMessage) = "notification",
        /// Files were uploaded to persistent storage.
        FilesPersisted(FilesPersistedMessage) = "files_persisted",
        /// Memories were recalled into the context.
        MemoryRecall(MemoryRecallMessage) = "memory_recall",
        /// An MCP elicitation was completed.
        ElicitationComplete(ElicitationCompleteMessage) = "elicitation_complete",
        /// A tool call was denied.
        PermissionDenied(PermissionDeniedMessage) = "permission_denied",
        /// Writing to a session store mirror failed.
        MirrorError(MirrorErrorMessage) = "mirror_error",
        /// An informational notice.
        Informational(InformationalMessage) = "informational",
        /// Session data could not be written (disk full or over quota).
        SessionWritesLost(SessionWritesLostMessage) = "session_writes_lost",
    }
}

/// Runs `$body` with `$m` bound to the struct of any known variant, or
/// `$unknown` with `$v` bound to the JSON of an unknown one.
macro_rules! with_variant {
    ($self:expr, $m:ident => $body:expr, $v:ident => $unknown:expr) => {
        match $self {
            SystemMessage::Init($m) => $body,
            SystemMessage::CompactBoundary($m) => $body,
            SystemMessage::Status($m) => $body,
            SystemMessage::ApiRetry($m) => $body,
            SystemMessage::ControlRequestProgress($m) => $body,
            SystemMessage::ModelRefusalFallback($m) => $body,
            SystemMessage::ModelRefusalNoFallback($m) => $body,
            SystemMessage::LocalCommandOutput($m) => $body,
            SystemMessage::HookStarted($m) => $body,
            SystemMessage::HookProgress($m) => $body,
            SystemMessage::HookResponse($m) => $body,
            SystemMessage::PluginInstall($m) => $body,
            SystemMessage::TaskStarted($m) => $body,
            SystemMessage::TaskProgress($m) => $body,
            SystemMessage::TaskUpdated($m) => $body,
            SystemMessage::TaskNotification($m) => $body,
            SystemMessage::BackgroundTasksChanged($m) => $body,
            SystemMessage::ThinkingTokens($m) => $body,
            SystemMessage::SessionStateChanged($m) => $body,
            SystemMessage::WorkerShuttingDown($m) => $body,
            SystemMessage::CommandsChanged($m) => $body,
            SystemMessage::Notification($m) => $body,
            SystemMessage::FilesPersisted($m) => $body,
            SystemMessage::MemoryRecall($m) => $body,
            SystemMessage::ElicitationComplete($m) => $body,
            SystemMessage::PermissionDenied($m) => $body,
            SystemMessage::MirrorError($m) => $body,
            SystemMessage::Informational($m) => $body,
            SystemMessage::SessionWritesLost($m) => $body,
            SystemMessage::Unknown($v) => $unknown,
        }
    };
}

impl SystemMessage {
    /// The `subtype` as written on the wire (read from the JSON for unknown ones).
    pub fn subtype(&self) -> &str {
        match self {
            SystemMessage::Init(_) => "init",
            SystemMessage::CompactBoundary(_) => "compact_boundary",
            SystemMessage::Status(_) => "status",
            SystemMessage::ApiRetry(_) => "api_retry",
            SystemMessage::ControlRequestProgress(_) => "control_request_progress",
            SystemMessage::ModelRefusalFallback(_) => "model_refusal_fallback",
            SystemMessage::ModelRefusalNoFallback(_) => "model_refusal_no_fallback",
            SystemMessage::LocalCommandOutput(_) => "local_command_output",
            SystemMessage::HookStarted(_) => "hook_started",
            SystemMessage::HookProgress(_) => "hook_progress",
            SystemMessage::HookResponse(_) => "hook_response",
            SystemMessage::PluginInstall(_) => "plugin_install",
            SystemMessage::TaskStarted(_) => "task_started",
            SystemMessage::TaskProgress(_) => "task_progress",
            SystemMessage::TaskUpdated(_) => "task_updated",
            SystemMessage::TaskNotification(_) => "task_notification",
            SystemMessage::BackgroundTasksChanged(_) => "background_tasks_changed",
            SystemMessage::ThinkingTokens(_) => "thinking_tokens",
            SystemMessage::SessionStateChanged(_) => "session_state_changed",
            SystemMessage::WorkerShuttingDown(_) => "worker_shutting_down",
            SystemMessage::CommandsChanged(_) => "commands_changed",
            SystemMessage::Notification(_) => "notification",
            SystemMessage::FilesPersisted(_) => "files_persisted",
            SystemMessage::MemoryRecall(_) => "memory_recall",
            SystemMessage::ElicitationComplete(_) => "elicitation_complete",
            SystemMessage::PermissionDenied(_) => "permission_denied",
            SystemMessage::MirrorError(_) => "mirror_error",
            SystemMessage::Informational(_) => "informational",
            SystemMessage::SessionWritesLost(_) => "session_writes_lost",
            SystemMessage::Unknown(v) => v.get("subtype").and_then(Json::as_str).unwrap_or(""),
        }
    }

    /// The message's uuid (`None` only for an unknown subtype without one).
    pub fn uuid(&self) -> Option<&str> {
        with_variant!(self, m => Some(m.uuid.as_str()), v => v.get("uuid").and_then(Json::as_str))
    }

    /// The session id (`None` only for an unknown subtype without one).
    pub fn session_id(&self) -> Option<&str> {
        with_variant!(
            self,
            m => Some(m.session_id.as_str()),
            v => v.get("session_id").and_then(Json::as_str)
        )
    }

    /// The fields of a known subtype that this crate does not model
    /// (`None` for an unknown subtype, whose JSON is kept whole).
    pub fn extra(&self) -> Option<&Extra> {
        with_variant!(self, m => Some(&m.extra), _v => None)
    }
}

// ---------------------------------------------------------------- init

system_struct! {
    /// `init`: how the session is set up (model, tools, MCP servers, ...).
    ///
    /// Sent at the start of every turn, before the turn's other messages.
    pub struct InitMessage {
        /// Names of the available subagents.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub agents: Option<Vec<String>>,
        /// Where the API key comes from.
        #[serde(rename = "apiKeySource")]
        pub api_key_source: ApiKeySource,
        /// API beta features turned on.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub betas: Option<Vec<String>>,
        /// Version of the CLI.
        pub claude_code_version: String,
        /// Working directory.
        pub cwd: String,
        /// Names of the tools the model may use.
        pub tools: Vec<String>,
        /// Configured MCP servers and their connection status.
        pub mcp_servers: Vec<McpServerInfo>,
        /// The model in use.
        pub model: String,
        /// The current permission mode.
        #[serde(rename = "permissionMode")]
        pub permission_mode: PermissionMode,
        /// Available slash commands.
        pub slash_commands: Vec<String>,
        /// Slash commands that only work in a terminal.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub terminal_slash_commands: Option<Vec<String>>,
        /// The output style in use.
        pub output_style: String,
        /// Names of the available skills.
        pub skills: Vec<String>,
        /// Loaded plugins.
        pub plugins: Vec<PluginInfo>,
        /// Plugins that failed to load, and why.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub plugin_errors: Option<Vec<Json>>,
        /// Fast mode state (`off`, `cooldown`, `on`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub fast_mode_state: Option<String>,
        /// Why fast mode is unavailable, when it is.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub fast_mode_disabled_reason: Option<String>,
        /// Effort level (`low` .. `max`), or `null` for the model default.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub effort: Maybe<EffortLevel>,
        /// Display mode (`focus` or `default`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub view_mode: Option<String>,
        /// Protocol features this CLI supports (e.g. `interrupt_receipt_v1`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub capabilities: Option<Vec<String>>,
    }
}

impl InitMessage {
    /// `true` when the CLI lists `name` among its capabilities.
    pub fn has_capability(&self, name: &str) -> bool {
        self.capabilities
            .as_deref()
            .is_some_and(|caps| caps.iter().any(|c| c == name))
    }
}

string_enum! {
    /// Where the CLI's API credentials come from.
    pub enum ApiKeySource {
        /// The `ANTHROPIC_API_KEY` environment variable.
        AnthropicApiKey = "ANTHROPIC_API_KEY",
        /// A configured key helper program.
        ApiKeyHelper = "apiKeyHelper",
        /// A key managed by `/login`.
        LoginManagedKey = "/login managed key",
        /// No key.
        None = "none",
        /// User settings.
        User = "user",
        /// Project settings.
        Project = "project",
        /// Organization settings.
        Org = "org",
        /// A temporary key.
        Temporary = "temporary",
        /// An OAuth login.
        Oauth = "oauth",
    }
}

wire_struct! {
    /// An MCP server as listed in `init`.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct McpServerInfo {
        /// Server name.
        pub name: String,
        /// Connection status (`connected`, `failed`, `pending`, `needs-auth`, ...).
        pub status: String,
        /// Where the server is configured.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub source: Option<String>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A plugin as listed in `init`.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct PluginInfo {
        /// Plugin name.
        pub name: String,
        /// Where the plugin lives on disk.
        pub path: String,
        /// Plugin version.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub version: Option<String>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

// ---------------------------------------------------------------- compaction and status

system_struct! {
    /// `compact_boundary`: earlier conversation was replaced by a summary.
    pub struct CompactBoundaryMessage {
        /// What was compacted and how.
        pub compact_metadata: CompactMetadata,
    }
}

wire_struct! {
    /// Details of a compaction.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct CompactMetadata {
        /// Whether a user asked for it or it happened automatically.
        pub trigger: CompactTrigger,
        /// Context size before, in tokens.
        pub pre_tokens: u64,
        /// Context size after, in tokens.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub post_tokens: Option<u64>,
        /// How long it took, in milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub duration_ms: Option<u64>,
        /// The message range kept verbatim (head, anchor and tail uuids).
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub preserved_segment: Maybe<Json>,
        /// The messages kept verbatim (anchor uuid and the list of uuids).
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub preserved_messages: Maybe<Json>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

string_enum! {
    /// What started a compaction.
    pub enum CompactTrigger {
        /// A user asked for it (`/compact`).
        Manual = "manual",
        /// The context was nearly full.
        Auto = "auto",
    }
}

system_struct! {
    /// `status`: what the session is doing, or a permission mode change.
    pub struct StatusMessage {
        /// Current activity, `None` when nothing special is going on.
        #[serde(deserialize_with = "crate::model::common::nullable")]
        pub status: Option<SessionStatus>,
        /// The permission mode, when it changed.
        #[serde(rename = "permissionMode", default, skip_serializing_if = "Option::is_none")]
        pub permission_mode: Option<PermissionMode>,
        /// Outcome of a compaction (`success` or `failed`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub compact_result: Option<String>,
        /// Why a compaction failed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub compact_error: Option<String>,
    }
}

string_enum! {
    /// Activity reported by a `status` message.
    pub enum SessionStatus {
        /// The conversation is being compacted.
        Compacting = "compacting",
        /// An API request is about to be sent.
        Requesting = "requesting",
    }
}

system_struct! {
    /// `api_retry`: an API request failed and will be tried again.
    pub struct ApiRetryMessage {
        /// Which attempt comes next (1-based).
        pub attempt: u64,
        /// How many retries are allowed.
        pub max_retries: u64,
        /// Wait before the retry, in milliseconds.
        pub retry_delay_ms: u64,
        /// HTTP status of the failure, `None` when there was no response.
        #[serde(deserialize_with = "crate::model::common::nullable")]
        pub error_status: Option<i64>,
        /// Kind of failure.
        pub error: AssistantError,
        /// Set when no response arrived at all (how long was waited).
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub no_response: Maybe<Json>,
    }
}

system_struct! {
    /// `control_request_progress`: progress of a long control request.
    pub struct ControlRequestProgressMessage {
        /// Id of the control request.
        pub request_id: String,
        /// `started` or `api_retry`.
        pub status: String,
        /// Retry attempt, on `api_retry`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub attempt: Option<u64>,
        /// Maximum retries, on `api_retry`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub max_retries: Option<u64>,
        /// Wait before the retry, in milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub retry_delay_ms: Option<u64>,
        /// HTTP status of the failure.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub error_status: Maybe<i64>,
    }
}

system_struct! {
    /// `model_refusal_fallback`: the model refused, so another model answers.
    pub struct ModelRefusalFallbackMessage {
        /// What caused the switch (`refusal`).
        pub trigger: String,
        /// How the switch applies (`retry`, `revert`, `sticky`).
        pub direction: String,
        /// Whether the switch holds for the session or this request (`session`, `local`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub scope: Option<String>,
        /// The model that refused.
        pub original_model: String,
        /// The model used instead.
        pub fallback_model: String,
        /// Id of the refused API request, if known.
        #[serde(deserialize_with = "crate::model::common::nullable")]
        pub request_id: Option<String>,
        /// Refusal category given by the API.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub api_refusal_category: Maybe<String>,
        /// Refusal explanation given by the API.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub api_refusal_explanation: Maybe<String>,
        /// Messages (by uuid) withdrawn because of the refusal.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub retracted_message_uuids: Option<Vec<String>>,
        /// The user message that was refused.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub refused_user_message_uuid: Maybe<String>,
        /// Text to show the user.
        pub content: String,
    }
}

system_struct! {
    /// `model_refusal_no_fallback`: the model refused and nothing can stand in.
    pub struct ModelRefusalNoFallbackMessage {
        /// The model that refused.
        pub original_model: String,
        /// Id of the refused API request, if known.
        #[serde(deserialize_with = "crate::model::common::nullable")]
        pub request_id: Option<String>,
        /// Refusal category given by the API.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub api_refusal_category: Maybe<String>,
        /// Refusal explanation given by the API.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub api_refusal_explanation: Maybe<String>,
        /// The user message that was refused.
        #[serde(default, skip_serializing_if = "Maybe::is_absent")]
        pub refused_user_message_uuid: Maybe<String>,
        /// Text to show the user.
        pub content: String,
    }
}

system_struct! {
    /// `local_command_output`: what a local slash command printed.
    pub struct LocalCommandOutputMessage {
        /// The output text.
        pub content: String,
    }
}

// ---------------------------------------------------------------- hooks and plugins

system_struct! {
    /// `hook_started`: a hook began running.
    pub struct HookStartedMessage {
        /// Id of this hook run.
        pub hook_id: String,
        /// Name of the hook.
        pub hook_name: String,
        /// The event that fired it (e.g. `PreToolUse`).
        pub hook_event: String,
    }
}

system_struct! {
    /// `hook_progress`: output so far of a running hook.
    pub struct HookProgressMessage {
        /// Id of this hook run.
        pub hook_id: String,
        /// Name of the hook.
        pub hook_name: String,
        /// The event that fired it.
        pub hook_event: String,
        /// Standard output so far.
        pub stdout: String,
        /// Standard error so far.
        pub stderr: String,
        /// Combined output so far.
        pub output: String,
    }
}

system_struct! {
    /// `hook_response`: a hook finished.
    pub struct HookResponseMessage {
        /// Id of this hook run.
        pub hook_id: String,
        /// Name of the hook.
        pub hook_name: String,
        /// The event that fired it.
        pub hook_event: String,
        /// Combined output.
        pub output: String,
        /// Standard output.
        pub stdout: String,
        /// Standard error.
        pub stderr: String,
        /// Exit code of a command hook.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub exit_code: Option<i64>,
        /// How the hook ended.
        pub outcome: HookOutcome,
    }
}

string_enum! {
    /// How a hook run ended.
    pub enum HookOutcome {
        /// It succeeded.
        Success = "success",
        /// It failed.
        Error = "error",
        /// It was cancelled.
        Cancelled = "cancelled",
    }
}

system_struct! {
    /// `plugin_install`: plugin installation progress.
    pub struct PluginInstallMessage {
        /// Stage reached.
        pub status: PluginInstallStatus,
        /// The plugin concerned.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub name: Option<String>,
        /// What went wrong, on failure.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub error: Option<String>,
    }
}

string_enum! {
    /// Stage of a plugin installation.
    pub enum PluginInstallStatus {
        /// Installation began.
        Started = "started",
        /// One plugin was installed.
        Installed = "installed",
        /// Installation failed.
        Failed = "failed",
        /// All installations are done.
        Completed = "completed",
    }
}

// ---------------------------------------------------------------- tasks

system_struct! {
    /// `task_started`: a task (subagent, background shell, workflow, ...) began.
    pub struct TaskStartedMessage {
        /// Id of the task.
        pub task_id: String,
        /// Id of this run of the task.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub run_id: Option<String>,
        /// The tool call that started it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tool_use_id: Option<String>,
        /// What the task does.
        pub description: String,
        /// Kind of subagent, for subagent tasks.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub subagent_type: Option<String>,
        /// `Some(true)` when it runs in the background.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub is_backgrounded: Option<bool>,
        /// Nesting depth (0 for tasks started by the main agent).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub spawn_depth: Option<u64>,
        /// The task that started this one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub parent_task_id: Option<String>,
        /// Kind of task.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub task_type: Option<String>,
        /// Name of the workflow, for workflow tasks.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub workflow_name: Option<String>,
        /// The prompt given to the task.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub prompt: Option<String>,
        /// `Some(true)` when the task is kept out of the transcript.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub skip_transcript: Option<bool>,
        /// `Some(true)` for ambient (not user-requested) tasks.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub ambient: Option<bool>,
    }
}

system_struct! {
    /// `task_progress`: a running task's usage so far.
    pub struct TaskProgressMessage {
        /// Id of the task.
        pub task_id: String,
        /// Id of this run of the task.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub run_id: Option<String>,
        /// The tool call that started it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tool_use_id: Option<String>,
        /// What the task does.
        pub description: String,
        /// Kind of subagent, for subagent tasks.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub subagent_type: Option<String>,
        /// Usage so far.
        pub usage: TaskUsage,
        /// The tool the task used last.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub last_tool_name: Option<String>,
        /// Short summary of progress.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub summary: Option<String>,
    }
}

wire_struct! {
    /// Resources used by a task.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct TaskUsage {
        /// Tokens used.
        pub total_tokens: u64,
        /// Tool calls made.
        pub tool_uses: u64,
        /// Running time, in milliseconds.
        pub duration_ms: u64,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

system_struct! {
    /// `task_updated`: some fields of a task changed (only those are present).
    pub struct TaskUpdatedMessage {
        /// Id of the task.
        pub task_id: String,
        /// Id of this run of the task.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub run_id: Option<String>,
        /// The changed fields.
        pub patch: TaskPatch,
    }
}

wire_struct! {
    /// The changed fields of a task.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct TaskPatch {
        /// New state.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub status: Option<TaskStatus>,
        /// New description.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub description: Option<String>,
        /// End time (milliseconds since the Unix epoch).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub end_time: Option<u64>,
        /// Total time spent paused, in milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub total_paused_ms: Option<u64>,
        /// Error text, when it failed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub error: Option<String>,
        /// Whether it now runs in the background.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub is_backgrounded: Option<bool>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

string_enum! {
    /// State of a task.
    pub enum TaskStatus {
        /// Not started yet.
        Pending = "pending",
        /// Running.
        Running = "running",
        /// Finished successfully.
        Completed = "completed",
        /// Finished with an error.
        Failed = "failed",
        /// Stopped by someone.
        Killed = "killed",
        /// Stopped before it finished (the task's own stop, not a failure).
        Stopped = "stopped",
        /// Paused.
        Paused = "paused",
    }
}

system_struct! {
    /// `task_notification`: a task finished.
    pub struct TaskNotificationMessage {
        /// Id of the task.
        pub task_id: String,
        /// Id of this run of the task.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub run_id: Option<String>,
        /// The tool call that started it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tool_use_id: Option<String>,
        /// How it ended (`completed`, `failed`, `stopped`).
        pub status: String,
        /// Why it ended, when not on its own (e.g. `worker_restart`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub reason: Option<String>,
        /// File holding the task's full output.
        pub output_file: String,
        /// Summary of the result.
        pub summary: String,
        /// Resources used.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub usage: Option<TaskUsage>,
        /// Resources (files, links) the task produced.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub resource_links: Option<Vec<Json>>,
        /// `Some(true)` when the task is kept out of the transcript.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub skip_transcript: Option<bool>,
        /// `Some(true)` for ambient tasks.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub ambient: Option<bool>,
    }
}

system_struct! {
    /// `background_tasks_changed`: the complete current list of background tasks.
    pub struct BackgroundTasksChangedMessage {
        /// The tasks; replaces any earlier list.
        pub tasks: Vec<BackgroundTask>,
    }
}

wire_struct! {
    /// A background task as listed by `background_tasks_changed`.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct BackgroundTask {
        /// Id of the task.
        pub task_id: String,
        /// Id of this run of the task.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub run_id: Option<String>,
        /// Kind of task.
        pub task_type: String,
        /// Kind of subagent, for subagent tasks.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub subagent_type: Option<String>,
        /// What the task does.
        pub description: String,
        /// The task that started this one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub parent_task_id: Option<String>,
        /// `Some(true)` for ambient tasks.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub ambient: Option<bool>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

// ---------------------------------------------------------------- session

system_struct! {
    /// `thinking_tokens`: estimated reasoning tokens of the current response.
    pub struct ThinkingTokensMessage {
        /// Estimated total so far.
        pub estimated_tokens: u64,
        /// Change since the previous estimate.
        pub estimated_tokens_delta: i64,
        /// Client uuid of the user message being answered.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub user_message_uuid: Option<String>,
    }
}

system_struct! {
    /// `session_state_changed`: the session went idle, started running, or
    /// is waiting for an answer. `idle` reliably means the turn is over.
    pub struct SessionStateChangedMessage {
        /// The new state.
        pub state: SessionState,
    }
}

string_enum! {
    /// Coarse state of a session.
    pub enum SessionState {
        /// Nothing is running.
        Idle = "idle",
        /// A turn is running.
        Running = "running",
        /// Waiting for the host (e.g. a permission answer).
        RequiresAction = "requires_action",
    }
}

system_struct! {
    /// `worker_shutting_down`: the worker process is about to exit.
    pub struct WorkerShuttingDownMessage {
        /// Why.
        pub reason: String,
    }
}

system_struct! {
    /// `commands_changed`: the complete current list of slash commands.
    pub struct CommandsChangedMessage {
        /// The commands; replaces any earlier list.
        pub commands: Vec<SlashCommand>,
    }
}

system_struct! {
    /// `notification`: a notice to show the user.
    pub struct NotificationMessage {
        /// Identifies the notice (a newer one with the same key replaces it).
        pub key: String,
        /// The text.
        pub text: String,
        /// How urgent it is.
        pub priority: NotificationPriority,
        /// Suggested color.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub color: Option<String>,
        /// How long to show it, in milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub timeout_ms: Option<u64>,
    }
}

string_enum! {
    /// Urgency of a notification.
    pub enum NotificationPriority {
        /// Low.
        Low = "low",
        /// Medium.
        Medium = "medium",
        /// High.
        High = "high",
        /// Show at once.
        Immediate = "immediate",
    }
}

system_struct! {
    /// `files_persisted`: files were uploaded to persistent storage.
    pub struct FilesPersistedMessage {
        /// Files stored, with their ids.
        pub files: Vec<PersistedFile>,
        /// Files that could not be stored.
        pub failed: Vec<FailedFile>,
        /// When the upload was processed (ISO 8601).
        pub processed_at: String,
    }
}

wire_struct! {
    /// A file that was stored.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct PersistedFile {
        /// File name.
        pub filename: String,
        /// Id given by the storage.
        pub file_id: String,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A file that could not be stored.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct FailedFile {
        /// File name.
        pub filename: String,
        /// What went wrong.
        pub error: String,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

system_struct! {
    /// `memory_recall`: memory files were brought into the context.
    pub struct MemoryRecallMessage {
        /// How they were used (`select` or `synthesize`).
        pub mode: String,
        /// The memories.
        pub memories: Vec<RecalledMemory>,
    }
}

wire_struct! {
    /// A memory brought into the context.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct RecalledMemory {
        /// Path of the memory file.
        pub path: String,
        /// Who shares it (`personal`, `team`, `organization`).
        pub scope: String,
        /// Its content, when included.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub content: Option<String>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

system_struct! {
    /// `elicitation_complete`: an MCP server's request for user input was completed.
    pub struct ElicitationCompleteMessage {
        /// The MCP server that asked.
        pub mcp_server_name: String,
        /// Id of the elicitation.
        pub elicitation_id: String,
    }
}

system_struct! {
    /// `permission_denied`: a tool call was refused.
    pub struct PermissionDeniedMessage {
        /// The tool's name.
        pub tool_name: String,
        /// Id of the refused call.
        pub tool_use_id: String,
        /// Subagent that made the call.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub agent_id: Option<String>,
        /// Kind of rule or check behind the refusal.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub decision_reason_type: Option<String>,
        /// Explanation of the decision.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub decision_reason: Option<String>,
        /// Message shown for the refusal.
        pub message: String,
    }
}

system_struct! {
    /// `mirror_error`: writing a session to an external store failed.
    pub struct MirrorErrorMessage {
        /// What went wrong.
        pub error: String,
        /// Which store entry was concerned.
        pub key: MirrorKey,
    }
}

wire_struct! {
    /// Identifies an entry in a session store.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct MirrorKey {
        /// Project key.
        #[serde(rename = "projectKey")]
        pub project_key: String,
        /// Session id.
        #[serde(rename = "sessionId")]
        pub session_id: String,
        /// Sub-path within the session, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub subpath: Option<String>,
        /// Fields not modelled here, kept verbatim.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

system_struct! {
    /// `informational`: a notice to display.
    pub struct InformationalMessage {
        /// The text.
        pub content: String,
        /// How prominent it should be.
        pub level: InformationalLevel,
        /// The tool call it relates to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tool_use_id: Option<String>,
        /// `Some(true)` when the turn does not go on after this.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub prevent_continuation: Option<bool>,
        /// Label grouping related notices.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tag: Option<String>,
    }
}

string_enum! {
    /// Prominence of an informational notice.
    pub enum InformationalLevel {
        /// Plain information.
        Info = "info",
        /// Worth noticing.
        Notice = "notice",
        /// A suggestion.
        Suggestion = "suggestion",
        /// A warning.
        Warning = "warning",
    }
}

system_struct! {
    /// `session_writes_lost`: session data could not be saved.
    pub struct SessionWritesLostMessage {
        /// The error (`ENOSPC`: disk full, `EDQUOT`: over quota).
        pub error_code: String,
        /// What could not be written (`transcript`, `global_config`).
        pub lost: Vec<String>,
        /// Sessions whose transcripts are affected.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub transcript_session_ids: Option<Vec<String>>,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn round_trip(v: Json) -> SystemMessage {
        let m: SystemMessage = crate::model::from_value(&v).expect("decode");
        assert_eq!(serde_json::to_value(&m).expect("encode"), v);
        m
    }

    fn sys(subtype: &str, fields: Json) -> Json {
        let mut v = json!({"type":"system","subtype":subtype,"uuid":"u-1","session_id":"s-1"});
        if let (Some(obj), Json::Object(more)) = (v.as_object_mut(), fields) {
            obj.extend(more);
        }
        v
    }

    #[test]
    fn init_round_trips() {
        let v = sys(
            "init",
            json!({"cwd":"/w","tools":["Bash","Read"],"mcp_servers":[{"name":"fs","status":"connected"}],
                "model":"claude-sonnet-4-5","permissionMode":"default","slash_commands":["compact"],
                "apiKeySource":"ANTHROPIC_API_KEY","claude_code_version":"2.1.330","output_style":"default",
                "agents":["general-purpose"],"skills":[],"plugins":[{"name":"p","path":"/p","source":"x"}],
                "capabilities":["interrupt_receipt_v1"],"effort":null,"fast_mode_state":"off",
                "memory_paths":{"auto":"/m"},"betas":[]}),
        );
        let m = round_trip(v);
        let SystemMessage::Init(init) = &m else {
            panic!("not init: {m:?}")
        };
        assert!(init.has_capability("interrupt_receipt_v1"));
        assert_eq!(init.permission_mode, PermissionMode::Default);
        assert_eq!(init.effort, Maybe::Null);
        assert_eq!(m.uuid(), Some("u-1"));
        assert_eq!(m.session_id(), Some("s-1"));
        assert_eq!(m.subtype(), "init");
    }

    #[test]
    fn every_subtype_round_trips() {
        let cases = [
            (
                "compact_boundary",
                json!({"compact_metadata":{"trigger":"auto","pre_tokens":150000,"post_tokens":20000,
                "preserved_segment":{"head_uuid":"a","anchor_uuid":"b","tail_uuid":"c"}},"logical_parent_uuid":null}),
            ),
            (
                "status",
                json!({"status":null,"permissionMode":"acceptEdits"}),
            ),
            (
                "status",
                json!({"status":"requesting","user_message_uuids":["x"]}),
            ),
            (
                "api_retry",
                json!({"attempt":1,"max_retries":10,"retry_delay_ms":500,"error_status":null,"error":"unknown"}),
            ),
            (
                "control_request_progress",
                json!({"request_id":"r","status":"api_retry","attempt":2,"error_status":529}),
            ),
            (
                "model_refusal_fallback",
                json!({"trigger":"refusal","direction":"retry","original_model":"a","fallback_model":"b",
                "request_id":null,"api_refusal_category":null,"refused_user_message_uuid":"q","content":"Switched"}),
            ),
            (
                "model_refusal_no_fallback",
                json!({"original_model":"a","request_id":"req_1","api_refusal_explanation":null,"content":"No"}),
            ),
            ("local_command_output", json!({"content":"ok"})),
            (
                "hook_started",
                json!({"hook_id":"h","hook_name":"SessionStart:startup","hook_event":"SessionStart","plugin_name":"p"}),
            ),
            (
                "hook_progress",
                json!({"hook_id":"h","hook_name":"n","hook_event":"Stop","stdout":"a","stderr":"","output":"a"}),
            ),
            (
                "hook_response",
                json!({"hook_id":"h","hook_name":"n","hook_event":"Stop","stdout":"a","stderr":"","output":"a","exit_code":0,"outcome":"success"}),
            ),
            (
                "plugin_install",
                json!({"status":"failed","name":"p","error":"boom"}),
            ),
            (
                "task_started",
                json!({"task_id":"t","description":"Explore","subagent_type":"Explore","is_backgrounded":false,"awaited":true}),
            ),
            (
                "task_progress",
                json!({"task_id":"t","description":"Explore","usage":{"total_tokens":10,"tool_uses":1,"duration_ms":5},"last_tool_name":"Grep"}),
            ),
            (
                "task_updated",
                json!({"task_id":"t","patch":{"status":"killed","end_time":1700000000000u64}}),
            ),
            (
                "task_notification",
                json!({"task_id":"t","status":"completed","output_file":"/o","summary":"done",
                "usage":{"total_tokens":1,"tool_uses":0,"duration_ms":9},"resource_links":[{"uri":"file:///a","name":"a"}]}),
            ),
            (
                "background_tasks_changed",
                json!({"tasks":[{"task_id":"t","task_type":"local_bash","description":"sleep","off_host":false}]}),
            ),
            (
                "thinking_tokens",
                json!({"estimated_tokens":120,"estimated_tokens_delta":-3}),
            ),
            (
                "session_state_changed",
                json!({"state":"idle","sdk_host_only":true}),
            ),
            ("worker_shutting_down", json!({"reason":"drain"})),
            (
                "commands_changed",
                json!({"commands":[{"name":"compact","description":"Compact","argumentHint":"","builtin":true}]}),
            ),
            (
                "notification",
                json!({"key":"k","text":"hi","priority":"immediate","timeout_ms":3000}),
            ),
            (
                "files_persisted",
                json!({"files":[{"filename":"a","file_id":"f"}],"failed":[{"filename":"b","error":"e"}],"processed_at":"2026-01-01T00:00:00Z"}),
            ),
            (
                "memory_recall",
                json!({"mode":"select","memories":[{"path":"/m.md","scope":"personal"}]}),
            ),
            (
                "elicitation_complete",
                json!({"mcp_server_name":"srv","elicitation_id":"e"}),
            ),
            (
                "permission_denied",
                json!({"tool_name":"Bash","tool_use_id":"t","decision_reason_type":"rule","message":"no","decision_reason_code":"x"}),
            ),
            (
                "mirror_error",
                json!({"error":"e","key":{"projectKey":"p","sessionId":"s"}}),
            ),
            (
                "informational",
                json!({"content":"c","level":"warning","prevent_continuation":true}),
            ),
            (
                "session_writes_lost",
                json!({"error_code":"ENOSPC","lost":["transcript"]}),
            ),
        ];
        for (subtype, fields) in cases {
            let m = round_trip(sys(subtype, fields));
            assert!(
                !matches!(m, SystemMessage::Unknown(_)),
                "{subtype} fell back to Unknown"
            );
            assert_eq!(m.subtype(), subtype);
            assert_eq!(m.uuid(), Some("u-1"));
        }
    }

    #[test]
    fn unknown_and_malformed_subtypes_survive() {
        let m = round_trip(sys(
            "post_turn_summary",
            json!({"summary":"s","nested":{"a":null}}),
        ));
        assert!(matches!(m, SystemMessage::Unknown(_)));
        assert_eq!(m.subtype(), "post_turn_summary");
        assert_eq!(m.session_id(), Some("s-1"));
        // Known subtype, wrong field type: kept whole rather than failing.
        let m = round_trip(sys("session_state_changed", json!({"state":7})));
        assert!(matches!(m, SystemMessage::Unknown(_)));
        let m = round_trip(sys("session_state_changed", json!({"state":"hibernating"})));
        let SystemMessage::SessionStateChanged(s) = m else {
            panic!("wrong variant")
        };
        assert_eq!(s.state, SessionState::Unknown("hibernating".into()));
    }
}
