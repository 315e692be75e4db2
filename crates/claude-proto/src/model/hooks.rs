//! Hooks: registering callbacks in `initialize`, the input the CLI sends in
//! a `hook_callback` request, and the output the host answers with.
//!
//! The host registers [`HookMatcher`]s per [`HookEvent`] in the
//! [`InitializeRequest`](super::initialize::InitializeRequest). Whenever a
//! matching event happens, the CLI sends a `hook_callback` control request
//! carrying one of the callback ids and a [`HookInput`]; the host replies with
//! a [`HookOutput`]. Answering [`HookOutput::default()`] (`{}`) means "no
//! opinion".

use super::open_enum::open_enum;
use super::wire::wire_struct;
use std::cmp::Ordering;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::common::{Extra, Json, string_enum};
use super::mcp::McpServerRef;
use super::permission::{PermissionMode, PermissionUpdate, deserialize_some};

string_enum! {
    /// The moments at which the CLI can call a hook.
    pub enum HookEvent {
        /// Before a tool runs; the hook may allow, deny, ask or change the input.
        PreToolUse = "PreToolUse",
        /// After a tool succeeded.
        PostToolUse = "PostToolUse",
        /// After a tool failed.
        PostToolUseFailure = "PostToolUseFailure",
        /// After a batch of parallel tool calls finished.
        PostToolBatch = "PostToolBatch",
        /// When the CLI shows the user a notification.
        Notification = "Notification",
        /// When a prompt is submitted, before the model sees it.
        UserPromptSubmit = "UserPromptSubmit",
        /// When a slash command or MCP prompt is expanded into a prompt.
        UserPromptExpansion = "UserPromptExpansion",
        /// When a session starts, resumes, is cleared or compacted.
        SessionStart = "SessionStart",
        /// When a session ends.
        SessionEnd = "SessionEnd",
        /// When the main agent is about to finish its turn.
        Stop = "Stop",
        /// When a turn ended because of an API error.
        StopFailure = "StopFailure",
        /// When a subagent starts.
        SubagentStart = "SubagentStart",
        /// When a subagent is about to finish.
        SubagentStop = "SubagentStop",
        /// Before the conversation is compacted.
        PreCompact = "PreCompact",
        /// After the conversation was compacted.
        PostCompact = "PostCompact",
        /// Before the model is switched.
        PreModelSwitch = "PreModelSwitch",
        /// After the model was switched.
        PostModelSwitch = "PostModelSwitch",
        /// When a permission prompt would be shown.
        PermissionRequest = "PermissionRequest",
        /// When a tool call was denied.
        PermissionDenied = "PermissionDenied",
        /// During repository setup or maintenance.
        Setup = "Setup",
        /// When a teammate agent becomes idle.
        TeammateIdle = "TeammateIdle",
        /// When a task is created.
        TaskCreated = "TaskCreated",
        /// When a task is completed.
        TaskCompleted = "TaskCompleted",
        /// When an MCP server asks the user for input.
        Elicitation = "Elicitation",
        /// When the user answered an MCP elicitation.
        ElicitationResult = "ElicitationResult",
        /// When a settings file or skill changed.
        ConfigChange = "ConfigChange",
        /// When a git worktree is to be created.
        WorktreeCreate = "WorktreeCreate",
        /// When a git worktree is removed.
        WorktreeRemove = "WorktreeRemove",
        /// When an instructions (CLAUDE.md-style) file is loaded.
        InstructionsLoaded = "InstructionsLoaded",
        /// When the working directory changed.
        CwdChanged = "CwdChanged",
        /// When a watched file changed.
        FileChanged = "FileChanged",
        /// When a directory was added to the workspace.
        DirectoryAdded = "DirectoryAdded",
        /// When assistant text is displayed.
        MessageDisplay = "MessageDisplay",
        /// Before a shell command written in a skill's or slash command's
        /// text runs (CLI 2.1.332).
        PreSkillShellCommand = "PreSkillShellCommand",
    }
}

impl HookEvent {
    /// Every event this crate knows, in the CLI's order.
    pub const ALL: [HookEvent; 34] = [
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::PostToolUseFailure,
        HookEvent::PostToolBatch,
        HookEvent::Notification,
        HookEvent::UserPromptSubmit,
        HookEvent::UserPromptExpansion,
        HookEvent::SessionStart,
        HookEvent::SessionEnd,
        HookEvent::Stop,
        HookEvent::StopFailure,
        HookEvent::SubagentStart,
        HookEvent::SubagentStop,
        HookEvent::PreCompact,
        HookEvent::PostCompact,
        HookEvent::PreModelSwitch,
        HookEvent::PostModelSwitch,
        HookEvent::PermissionRequest,
        HookEvent::PermissionDenied,
        HookEvent::Setup,
        HookEvent::TeammateIdle,
        HookEvent::TaskCreated,
        HookEvent::TaskCompleted,
        HookEvent::Elicitation,
        HookEvent::ElicitationResult,
        HookEvent::ConfigChange,
        HookEvent::WorktreeCreate,
        HookEvent::WorktreeRemove,
        HookEvent::InstructionsLoaded,
        HookEvent::CwdChanged,
        HookEvent::FileChanged,
        HookEvent::DirectoryAdded,
        HookEvent::MessageDisplay,
        HookEvent::PreSkillShellCommand,
    ];
}

/// Orders events by their wire name (so a `BTreeMap` of hooks serializes in
/// a stable order); an unknown event sorts after a known one of the same name.
impl Ord for HookEvent {
    fn cmp(&self, other: &Self) -> Ordering {
        self.as_str().cmp(other.as_str()).then_with(|| {
            matches!(self, HookEvent::Unknown(_)).cmp(&matches!(other, HookEvent::Unknown(_)))
        })
    }
}

impl PartialOrd for HookEvent {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

string_enum! {
    /// What happens when a hook callback errors or gives an invalid answer.
    pub enum HookFailureMode {
        /// Carry on as if the hook had no opinion.
        Continue = "continue",
        /// Block the action the hook guards (ignored for Stop, SubagentStop,
        /// TaskCompleted and TeammateIdle).
        Block = "block",
    }
}

wire_struct! {
    /// One hook registration, as sent in `initialize.hooks[event]`.
    ///
    /// ```
    /// use claude_proto::model::hooks::HookMatcher;
    /// let m = HookMatcher::new(["hook_0"]).with_matcher("Bash").with_timeout(30);
    /// assert_eq!(
    ///     serde_json::to_value(&m).unwrap(),
    ///     serde_json::json!({"matcher":"Bash","hookCallbackIds":["hook_0"],"timeout":30}),
    /// );
    /// ```
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct HookMatcher {
        /// Which occurrences trigger the hook (for tool events a tool-name
        /// pattern such as `Write|Edit`); absent means all of them.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub matcher: Option<String>,
        /// Ids the CLI will put in `hook_callback.callback_id`; the host maps
        /// them back to its callbacks.
        #[serde(rename = "hookCallbackIds")]
        pub hook_callback_ids: Vec<String>,
        /// How long the CLI waits for an answer, in seconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub timeout: Option<serde_json::Number>,
        /// What a failed callback means.
        #[serde(rename = "onFailure", default, skip_serializing_if = "Option::is_none")]
        pub on_failure: Option<HookFailureMode>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl HookMatcher {
    /// A registration for the given callback ids, matching everything.
    pub fn new<I, S>(callback_ids: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            hook_callback_ids: callback_ids.into_iter().map(Into::into).collect(),
            ..Self::default()
        }
    }

    /// Only fire for occurrences matching `pattern`.
    pub fn with_matcher(mut self, pattern: impl Into<String>) -> Self {
        self.matcher = Some(pattern.into());
        self
    }

    /// Wait at most `seconds` for the callback.
    pub fn with_timeout(mut self, seconds: u64) -> Self {
        self.timeout = Some(seconds.into());
        self
    }

    /// Choose what a failing callback means.
    pub fn with_on_failure(mut self, mode: HookFailureMode) -> Self {
        self.on_failure = Some(mode);
        self
    }
}

// ---------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------

wire_struct! {
    /// The reasoning effort in force when a hook fired.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct HookEffort {
        /// Effort level name, e.g. `high`.
        pub level: String,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Fields every hook input carries, whatever the event.
    ///
    /// Flattened into each event's input; it has no `extra` of its own (unknown
    /// fields land in the event input's `extra`).
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct HookBaseInput {
        /// The session the event belongs to.
        pub session_id: String,
        /// Path of the session's transcript file.
        pub transcript_path: String,
        /// Working directory of the session.
        pub cwd: String,
        /// Id of the prompt being processed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub prompt_id: Option<String>,
        /// Permission mode in force.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub permission_mode: Option<PermissionMode>,
        /// Set when the event comes from a subagent: its id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub agent_id: Option<String>,
        /// The agent type (for subagents, and for sessions started with an agent).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub agent_type: Option<String>,
        /// Reasoning effort in force.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub effort: Option<HookEffort>,
    }
}

macro_rules! hook_input_struct {
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
            /// Fields common to every hook input.
            #[serde(flatten)]
            pub base: HookBaseInput,
            $( $(#[$($fmeta)*])* pub $field: $ty, )*
            /// Fields not modelled by this crate.
            #[serde(flatten)]
            pub extra: Extra,
        }
        }
    };
}

hook_input_struct! {
    /// Input of `PreToolUse`: the tool call about to run.
    pub struct PreToolUseInput {
        /// Tool name.
        pub tool_name: String,
        /// Tool input as the model produced it.
        pub tool_input: Json,
        /// Id of the tool call.
        pub tool_use_id: String,
        /// The MCP server providing the tool, for MCP tools.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub mcp_server: Option<McpServerRef>,
    }
}

hook_input_struct! {
    /// Input of `PostToolUse`: a tool call that succeeded.
    pub struct PostToolUseInput {
        /// Tool name.
        pub tool_name: String,
        /// Tool input.
        pub tool_input: Json,
        /// What the tool returned.
        pub tool_response: Json,
        /// Id of the tool call.
        pub tool_use_id: String,
        /// How long the call took, in milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub duration_ms: Option<serde_json::Number>,
        /// The MCP server providing the tool, for MCP tools.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub mcp_server: Option<McpServerRef>,
    }
}

hook_input_struct! {
    /// Input of `PostToolUseFailure`: a tool call that failed.
    pub struct PostToolUseFailureInput {
        /// Tool name.
        pub tool_name: String,
        /// Tool input.
        pub tool_input: Json,
        /// Id of the tool call.
        pub tool_use_id: String,
        /// The error message.
        pub error: String,
        /// `true` when the failure was an interruption.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub is_interrupt: Option<bool>,
        /// How long the call took, in milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub duration_ms: Option<serde_json::Number>,
        /// The MCP server providing the tool, for MCP tools.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub mcp_server: Option<McpServerRef>,
    }
}

wire_struct! {
    /// One call in a [`PostToolBatchInput`].
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ToolCallSummary {
        /// Tool name.
        pub tool_name: String,
        /// Tool input.
        pub tool_input: Json,
        /// Id of the tool call.
        pub tool_use_id: String,
        /// What the tool returned, if it did.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub tool_response: Option<Json>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

hook_input_struct! {
    /// Input of `PostToolBatch`: every call of a finished batch.
    pub struct PostToolBatchInput {
        /// The calls in the batch.
        pub tool_calls: Vec<ToolCallSummary>,
    }
}

hook_input_struct! {
    /// Input of `Notification`.
    pub struct NotificationInput {
        /// Notification text.
        pub message: String,
        /// Notification title.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub title: Option<String>,
        /// Kind of notification (e.g. `permission_prompt`, `idle_prompt`).
        pub notification_type: String,
    }
}

hook_input_struct! {
    /// Input of `UserPromptSubmit`.
    pub struct UserPromptSubmitInput {
        /// The submitted prompt.
        pub prompt: String,
        /// Who submitted it (`user`, `sdk`, `system`, `loop_wakeup`, ...).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub source: Option<String>,
        /// Current session title.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub session_title: Option<String>,
    }
}

hook_input_struct! {
    /// Input of `UserPromptExpansion`.
    pub struct UserPromptExpansionInput {
        /// `slash_command` or `mcp_prompt`.
        pub expansion_type: String,
        /// Name of the command being expanded.
        pub command_name: String,
        /// Arguments given to it.
        pub command_args: String,
        /// Where the command is defined.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub command_source: Option<String>,
        /// The expanded prompt.
        pub prompt: String,
    }
}

string_enum! {
    /// Why a session (re)started.
    pub enum SessionStartSource {
        /// A fresh session.
        Startup = "startup",
        /// A resumed session.
        Resume = "resume",
        /// After `/clear`.
        Clear = "clear",
        /// After compaction.
        Compact = "compact",
        /// A forked session.
        Fork = "fork",
    }
}

hook_input_struct! {
    /// Input of `SessionStart` (the agent type, when any, is in the base).
    pub struct SessionStartInput {
        /// Why the session started.
        pub source: SessionStartSource,
        /// Model in use.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub model: Option<String>,
        /// Current session title.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub session_title: Option<String>,
        /// Seconds since the last model response (on resume).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub seconds_since_last_response: Option<serde_json::Number>,
        /// Tokens currently in context.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub context_tokens: Option<serde_json::Number>,
        /// Whether the prompt cache has probably expired.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub prompt_cache_likely_expired: Option<bool>,
        /// Estimated cost in USD of rewriting the cache.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub estimated_cache_write_usd: Option<serde_json::Number>,
    }
}

string_enum! {
    /// Why a session ended.
    pub enum SessionEndReason {
        /// `/clear`.
        Clear = "clear",
        /// Switched to another session.
        Resume = "resume",
        /// The user logged out.
        Logout = "logout",
        /// The prompt input was exited.
        PromptInputExit = "prompt_input_exit",
        /// Any other reason.
        Other = "other",
    }
}

hook_input_struct! {
    /// Input of `SessionEnd`.
    pub struct SessionEndInput {
        /// Why the session ended.
        pub reason: SessionEndReason,
    }
}

wire_struct! {
    /// A background task still running when the agent stops.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct BackgroundTaskSummary {
        /// Task id.
        pub id: String,
        /// Task type (shell, agent, ...).
        #[serde(rename = "type")]
        pub kind: String,
        /// Task status.
        pub status: String,
        /// What the task does.
        pub description: String,
        /// Shell command, for shell tasks.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub command: Option<String>,
        /// Agent type, for agent tasks.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub agent_type: Option<String>,
        /// MCP server, for MCP tasks.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub server: Option<String>,
        /// Tool name, for tool tasks.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tool: Option<String>,
        /// Display name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub name: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A scheduled prompt of the session.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct SessionCronSummary {
        /// Schedule id.
        pub id: String,
        /// Schedule expression.
        pub schedule: String,
        /// Whether it repeats.
        pub recurring: bool,
        /// The prompt it sends.
        pub prompt: String,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

hook_input_struct! {
    /// Input of `Stop`.
    pub struct StopInput {
        /// `true` when the agent is already continuing because of a stop hook
        /// (check it to avoid looping forever).
        pub stop_hook_active: bool,
        /// Text of the last assistant message.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub last_assistant_message: Option<String>,
        /// Background tasks still running.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub background_tasks: Option<Vec<BackgroundTaskSummary>>,
        /// Scheduled prompts of the session.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub session_crons: Option<Vec<SessionCronSummary>>,
    }
}

hook_input_struct! {
    /// Input of `StopFailure`.
    pub struct StopFailureInput {
        /// Error category (`rate_limit`, `overloaded`, ...).
        pub error: String,
        /// More detail about the error.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub error_details: Option<Json>,
        /// Text of the last assistant message.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub last_assistant_message: Option<String>,
    }
}

hook_input_struct! {
    /// Input of `SubagentStart`; the subagent's id and type are in the base
    /// (`agent_id`, `agent_type`).
    pub struct SubagentStartInput {}
}

hook_input_struct! {
    /// Input of `SubagentStop`; the subagent's id and type are in the base.
    pub struct SubagentStopInput {
        /// `true` when the subagent is already continuing because of a stop hook.
        pub stop_hook_active: bool,
        /// The subagent's transcript file.
        pub agent_transcript_path: String,
        /// Text of the subagent's last message.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub last_assistant_message: Option<String>,
        /// Background tasks still running.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub background_tasks: Option<Vec<BackgroundTaskSummary>>,
        /// Scheduled prompts of the session.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub session_crons: Option<Vec<SessionCronSummary>>,
    }
}

string_enum! {
    /// What started a compaction.
    pub enum CompactTrigger {
        /// The user asked for it.
        Manual = "manual",
        /// The context was full.
        Auto = "auto",
    }
}

hook_input_struct! {
    /// Input of `PreCompact`.
    pub struct PreCompactInput {
        /// What started the compaction.
        pub trigger: CompactTrigger,
        /// Instructions given with `/compact`, or `null`.
        #[serde(deserialize_with = "crate::model::common::nullable")]
        pub custom_instructions: Option<String>,
    }
}

hook_input_struct! {
    /// Input of `PostCompact`.
    pub struct PostCompactInput {
        /// What started the compaction.
        pub trigger: CompactTrigger,
        /// The summary that replaced the conversation.
        pub compact_summary: String,
    }
}

hook_input_struct! {
    /// Input of `PreModelSwitch` and `PostModelSwitch`.
    pub struct ModelSwitchInput {
        /// Model before the switch.
        pub from_model: String,
        /// Model after the switch.
        pub to_model: String,
        /// What was asked for (an alias, say), or `null`.
        #[serde(deserialize_with = "crate::model::common::nullable")]
        pub requested_model: Option<String>,
        /// Who switched: `command`, `picker`, `sdk` (and after the fact also
        /// `auto`, `resume`).
        pub source: String,
        /// Tokens currently in context.
        pub context_tokens: serde_json::Number,
        /// Whether the prompt cache is warm.
        pub prompt_cache_warm: bool,
        /// Cache lifetime (`5m` or `1h`).
        pub cache_ttl: String,
        /// Estimated cost in USD of rewriting the cache for the new model.
        pub estimated_cache_write_usd: serde_json::Number,
        /// Where the price came from (`configured`, `catalog`, `default`).
        pub pricing: String,
    }
}

hook_input_struct! {
    /// Input of `PermissionRequest`: a permission prompt about to be shown.
    pub struct PermissionRequestInput {
        /// Tool name.
        pub tool_name: String,
        /// Tool input.
        pub tool_input: Json,
        /// Rule changes the CLI would offer the user.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub permission_suggestions: Option<Vec<PermissionUpdate>>,
        /// The MCP server providing the tool, for MCP tools.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub mcp_server: Option<McpServerRef>,
    }
}

hook_input_struct! {
    /// Input of `PermissionDenied`.
    pub struct PermissionDeniedInput {
        /// Tool name.
        pub tool_name: String,
        /// Tool input.
        pub tool_input: Json,
        /// Id of the tool call.
        pub tool_use_id: String,
        /// Why it was denied.
        pub reason: String,
        /// The MCP server providing the tool, for MCP tools.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub mcp_server: Option<McpServerRef>,
    }
}

hook_input_struct! {
    /// Input of `Setup`.
    pub struct SetupInput {
        /// `init` or `maintenance`.
        pub trigger: String,
    }
}

hook_input_struct! {
    /// Input of `TeammateIdle`.
    pub struct TeammateIdleInput {
        /// The idle teammate.
        pub teammate_name: String,
        /// The team (deprecated by the CLI).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub team_name: Option<String>,
    }
}

hook_input_struct! {
    /// Input of `TaskCreated` and `TaskCompleted`.
    pub struct TaskInput {
        /// Task id.
        pub task_id: String,
        /// Task subject line.
        pub task_subject: String,
        /// Task description.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub task_description: Option<String>,
        /// Teammate owning the task.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub teammate_name: Option<String>,
        /// Team owning the task.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub team_name: Option<String>,
    }
}

string_enum! {
    /// How an MCP elicitation collects its answer.
    pub enum ElicitationMode {
        /// The user fills in a form described by a JSON schema.
        Form = "form",
        /// The user visits a URL.
        Url = "url",
    }
}

string_enum! {
    /// The user's response to an MCP elicitation.
    pub enum ElicitationAction {
        /// The user answered (with `content`).
        Accept = "accept",
        /// The user said no.
        Decline = "decline",
        /// The user dismissed the request.
        Cancel = "cancel",
    }
}

hook_input_struct! {
    /// Input of `Elicitation`.
    pub struct ElicitationInput {
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
    }
}

hook_input_struct! {
    /// Input of `ElicitationResult`.
    pub struct ElicitationResultInput {
        /// The MCP server that asked.
        pub mcp_server_name: String,
        /// Id of the elicitation.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub elicitation_id: Option<String>,
        /// Form or URL.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub mode: Option<ElicitationMode>,
        /// What the user did.
        pub action: ElicitationAction,
        /// The user's answer.
        #[serde(
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub content: Option<Json>,
    }
}

hook_input_struct! {
    /// Input of `ConfigChange`.
    pub struct ConfigChangeInput {
        /// Which configuration changed (`user_settings`, `skills`, ...).
        pub source: String,
        /// The changed file.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub file_path: Option<String>,
    }
}

hook_input_struct! {
    /// Input of `WorktreeCreate`.
    pub struct WorktreeCreateInput {
        /// Name of the worktree to create.
        pub name: String,
    }
}

hook_input_struct! {
    /// Input of `WorktreeRemove`.
    pub struct WorktreeRemoveInput {
        /// Path of the removed worktree.
        pub worktree_path: String,
    }
}

hook_input_struct! {
    /// Input of `InstructionsLoaded`.
    pub struct InstructionsLoadedInput {
        /// The loaded file.
        pub file_path: String,
        /// `User`, `Project`, `Local` or `Managed`.
        pub memory_type: String,
        /// Why it was loaded (`session_start`, `nested_traversal`, ...).
        pub load_reason: String,
        /// Path globs the file applies to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub globs: Option<Vec<String>>,
        /// The file whose access caused the load.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub trigger_file_path: Option<String>,
        /// The file that included this one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub parent_file_path: Option<String>,
    }
}

hook_input_struct! {
    /// Input of `CwdChanged`.
    pub struct CwdChangedInput {
        /// Previous working directory.
        pub old_cwd: String,
        /// New working directory.
        pub new_cwd: String,
    }
}

hook_input_struct! {
    /// Input of `FileChanged`.
    pub struct FileChangedInput {
        /// The file.
        pub file_path: String,
        /// `change`, `add` or `unlink`.
        pub event: String,
    }
}

hook_input_struct! {
    /// Input of `DirectoryAdded`.
    pub struct DirectoryAddedInput {
        /// The added directory.
        pub directory: String,
        /// How it was added (`slash_command`, `register_repo_root`).
        pub source: String,
    }
}

hook_input_struct! {
    /// Input of `MessageDisplay`: a chunk of assistant text being shown.
    pub struct MessageDisplayInput {
        /// Turn the message belongs to.
        pub turn_id: String,
        /// Message id.
        pub message_id: String,
        /// Position of this chunk.
        pub index: serde_json::Number,
        /// `true` for the last chunk.
        #[serde(rename = "final")]
        pub is_final: bool,
        /// The new text.
        pub delta: String,
    }
}

string_enum! {
    /// Who started loading the skill or command whose shell command a
    /// `PreSkillShellCommand` hook is asked about.
    pub enum SkillInvoker {
        /// The user typed it, or an SDK host sent it.
        User = "user",
        /// The model, through the Skill tool or a turn it scheduled.
        Claude = "claude",
        /// Anything else (a subagent's preload, a channel message), or not known.
        Other = "other",
    }
}

wire_struct! {
    /// The `tool_input` of a `PreSkillShellCommand` hook.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct SkillShellCommand {
        /// The command as it would run, with the arguments filled in.
        pub command: String,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

hook_input_struct! {
    /// Input of `PreSkillShellCommand`: a shell command written in a skill's
    /// or slash command's text (`!` lines), before it runs.
    pub struct PreSkillShellCommandInput {
        /// The shell tool that would run it: `Bash` or `PowerShell`.
        pub tool_name: String,
        /// The command.
        pub tool_input: SkillShellCommand,
        /// Identifies this command; it names no tool call in the transcript.
        pub tool_use_id: String,
        /// The skill or command whose text holds the shell command.
        pub command_name: String,
        /// Where that skill or command is defined.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub command_source: Option<String>,
        /// Who started loading the skill or command.
        pub invoked_by: SkillInvoker,
    }
}

macro_rules! hook_inputs {
    ($( $variant:ident($ty:ty) = $wire:literal, )+) => {
        open_enum! {
            /// The `input` of a `hook_callback` request, tagged by
            /// `hook_event_name`.
            ///
            /// Each variant carries the common fields in `base` plus the
            /// event's own fields. An unknown event, or a known one whose fields
            /// do not match, is kept in [`HookInput::Unknown`].
            #[derive(Debug, Clone, PartialEq)]
            #[non_exhaustive]
            pub enum HookInput tagged "hook_event_name" {
                /// An input this crate does not know or could not read.
                Unknown;
                $(
                    #[doc = concat!("Input of the `", $wire, "` event.")]
                    $variant($ty) = $wire,
                )+
            }
        }

        impl HookInput {
            /// The event this input is for (read from `hook_event_name` for an
            /// unknown input; empty when that is missing).
            pub fn event(&self) -> HookEvent {
                match self {
                    $( Self::$variant(_) => HookEvent::$variant, )+
                    Self::Unknown(v) => HookEvent::from(
                        v.get("hook_event_name").and_then(Json::as_str).unwrap_or_default(),
                    ),
                }
            }

            /// The common fields, for a known input.
            pub fn base(&self) -> Option<&HookBaseInput> {
                match self {
                    $( Self::$variant(x) => Some(&x.base), )+
                    Self::Unknown(_) => None,
                }
            }

            /// The fields this crate does not model, for a known input.
            pub fn extra(&self) -> Option<&Extra> {
                match self {
                    $( Self::$variant(x) => Some(&x.extra), )+
                    Self::Unknown(_) => None,
                }
            }
        }
    };
}

hook_inputs! {
    PreToolUse(PreToolUseInput) = "PreToolUse",
    PostToolUse(PostToolUseInput) = "PostToolUse",
    PostToolUseFailure(PostToolUseFailureInput) = "PostToolUseFailure",
    PostToolBatch(PostToolBatchInput) = "PostToolBatch",
    Notification(NotificationInput) = "Notification",
    UserPromptSubmit(UserPromptSubmitInput) = "UserPromptSubmit",
    UserPromptExpansion(UserPromptExpansionInput) = "UserPromptExpansion",
    SessionStart(SessionStartInput) = "SessionStart",
    SessionEnd(SessionEndInput) = "SessionEnd",
    Stop(StopInput) = "Stop",
    StopFailure(StopFailureInput) = "StopFailure",
    SubagentStart(SubagentStartInput) = "SubagentStart",
    SubagentStop(SubagentStopInput) = "SubagentStop",
    PreCompact(PreCompactInput) = "PreCompact",
    PostCompact(PostCompactInput) = "PostCompact",
    PreModelSwitch(ModelSwitchInput) = "PreModelSwitch",
    PostModelSwitch(ModelSwitchInput) = "PostModelSwitch",
    PermissionRequest(PermissionRequestInput) = "PermissionRequest",
    PermissionDenied(PermissionDeniedInput) = "PermissionDenied",
    Setup(SetupInput) = "Setup",
    TeammateIdle(TeammateIdleInput) = "TeammateIdle",
    TaskCreated(TaskInput) = "TaskCreated",
    TaskCompleted(TaskInput) = "TaskCompleted",
    Elicitation(ElicitationInput) = "Elicitation",
    ElicitationResult(ElicitationResultInput) = "ElicitationResult",
    ConfigChange(ConfigChangeInput) = "ConfigChange",
    WorktreeCreate(WorktreeCreateInput) = "WorktreeCreate",
    WorktreeRemove(WorktreeRemoveInput) = "WorktreeRemove",
    InstructionsLoaded(InstructionsLoadedInput) = "InstructionsLoaded",
    CwdChanged(CwdChangedInput) = "CwdChanged",
    FileChanged(FileChangedInput) = "FileChanged",
    DirectoryAdded(DirectoryAddedInput) = "DirectoryAdded",
    MessageDisplay(MessageDisplayInput) = "MessageDisplay",
    PreSkillShellCommand(PreSkillShellCommandInput) = "PreSkillShellCommand",
}

impl HookInput {
    fn base_str(&self, key: &str, pick: fn(&HookBaseInput) -> Option<&str>) -> Option<&str> {
        match (self.base(), self) {
            (Some(b), _) => pick(b),
            (None, Self::Unknown(v)) => v.get(key).and_then(Json::as_str),
            (None, _) => None,
        }
    }

    /// The session id (also read from an unknown input).
    pub fn session_id(&self) -> Option<&str> {
        self.base_str("session_id", |b| Some(&b.session_id))
    }

    /// The transcript path (also read from an unknown input).
    pub fn transcript_path(&self) -> Option<&str> {
        self.base_str("transcript_path", |b| Some(&b.transcript_path))
    }

    /// The working directory (also read from an unknown input).
    pub fn cwd(&self) -> Option<&str> {
        self.base_str("cwd", |b| Some(&b.cwd))
    }

    /// The permission mode in force, if reported.
    pub fn permission_mode(&self) -> Option<PermissionMode> {
        self.base_str("permission_mode", |b| {
            b.permission_mode.as_ref().map(PermissionMode::as_str)
        })
        .map(PermissionMode::from)
    }

    /// The subagent id, when the event comes from a subagent.
    pub fn agent_id(&self) -> Option<&str> {
        self.base_str("agent_id", |b| b.agent_id.as_deref())
    }

    /// The agent type, if reported.
    pub fn agent_type(&self) -> Option<&str> {
        self.base_str("agent_type", |b| b.agent_type.as_deref())
    }

    /// The tool name, for events about a tool call.
    pub fn tool_name(&self) -> Option<&str> {
        match self {
            Self::PreToolUse(x) => Some(&x.tool_name),
            Self::PostToolUse(x) => Some(&x.tool_name),
            Self::PostToolUseFailure(x) => Some(&x.tool_name),
            Self::PermissionRequest(x) => Some(&x.tool_name),
            Self::PermissionDenied(x) => Some(&x.tool_name),
            Self::PreSkillShellCommand(x) => Some(&x.tool_name),
            Self::Unknown(v) => v.get("tool_name").and_then(Json::as_str),
            _ => None,
        }
    }
}

// ---------------------------------------------------------------------------
// Outputs
// ---------------------------------------------------------------------------

string_enum! {
    /// A `PreToolUse` hook's verdict on a tool call.
    pub enum HookPermissionDecision {
        /// Run the tool without asking.
        Allow = "allow",
        /// Refuse the tool call.
        Deny = "deny",
        /// Ask the host through `can_use_tool` (the reason is passed along).
        Ask = "ask",
        /// Leave the decision to the normal permission flow.
        Defer = "defer",
    }
}

string_enum! {
    /// The top-level `decision` of a hook output.
    pub enum HookDecision {
        /// Approve (older spelling of "no objection").
        Approve = "approve",
        /// Block the action; `reason` says why.
        Block = "block",
    }
}

wire_struct! {
    /// `hookSpecificOutput` for `PreToolUse`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct PreToolUseOutput {
        /// The verdict on the tool call.
        #[serde(
            rename = "permissionDecision",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub permission_decision: Option<HookPermissionDecision>,
        /// Why; shown to the model on deny and to the host on ask.
        #[serde(
            rename = "permissionDecisionReason",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub permission_decision_reason: Option<String>,
        /// Replacement tool input.
        #[serde(
            rename = "updatedInput",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub updated_input: Option<Json>,
        /// Text added to the model's context.
        #[serde(
            rename = "additionalContext",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub additional_context: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `hookSpecificOutput` for `UserPromptSubmit`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct UserPromptSubmitOutput {
        /// Text added to the model's context along with the prompt.
        #[serde(
            rename = "additionalContext",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub additional_context: Option<String>,
        /// New session title.
        #[serde(
            rename = "sessionTitle",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub session_title: Option<String>,
        /// Drop the original prompt (keeping only the added context).
        #[serde(
            rename = "suppressOriginalPrompt",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub suppress_original_prompt: Option<bool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `hookSpecificOutput` for `UserPromptExpansion`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct UserPromptExpansionOutput {
        /// Text added to the model's context.
        #[serde(
            rename = "additionalContext",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub additional_context: Option<String>,
        /// Drop the expanded prompt.
        #[serde(
            rename = "suppressOriginalPrompt",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub suppress_original_prompt: Option<bool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `hookSpecificOutput` for `SessionStart`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct SessionStartOutput {
        /// Text added to the model's context.
        #[serde(
            rename = "additionalContext",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub additional_context: Option<String>,
        /// A first user message to start the session with.
        #[serde(
            rename = "initialUserMessage",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub initial_user_message: Option<String>,
        /// New session title.
        #[serde(
            rename = "sessionTitle",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub session_title: Option<String>,
        /// Paths to watch (they trigger `FileChanged`).
        #[serde(
            rename = "watchPaths",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub watch_paths: Option<Vec<String>>,
        /// Reload skills.
        #[serde(
            rename = "reloadSkills",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub reload_skills: Option<bool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `hookSpecificOutput` for the events whose only field is
    /// `additionalContext` (Setup, PostModelSwitch, SubagentStart,
    /// PostToolUseFailure, PostToolBatch, Stop, SubagentStop, Notification).
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct AdditionalContextOutput {
        /// Text added to the model's context.
        #[serde(
            rename = "additionalContext",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub additional_context: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `hookSpecificOutput` for `PreModelSwitch`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct PreModelSwitchOutput {
        /// Allow, deny or ask about the switch.
        #[serde(
            rename = "permissionDecision",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub permission_decision: Option<HookPermissionDecision>,
        /// Why.
        #[serde(
            rename = "permissionDecisionReason",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub permission_decision_reason: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `hookSpecificOutput` for `PostToolUse`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct PostToolUseOutput {
        /// Text added to the model's context.
        #[serde(
            rename = "additionalContext",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub additional_context: Option<String>,
        /// Context for the auto-mode classifier.
        #[serde(
            rename = "classifierContext",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub classifier_context: Option<String>,
        /// Replacement for the tool's output.
        #[serde(
            rename = "updatedToolOutput",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub updated_tool_output: Option<Json>,
        /// Replacement for an MCP tool's output.
        #[serde(
            rename = "updatedMCPToolOutput",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub updated_mcp_tool_output: Option<Json>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `hookSpecificOutput` for `PermissionDenied`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct PermissionDeniedOutput {
        /// Let the model retry the call.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub retry: Option<bool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Allow branch of a [`PermissionRequestDecision`].
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct PermissionRequestAllow {
        /// Replacement tool input.
        #[serde(
            rename = "updatedInput",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub updated_input: Option<Json>,
        /// Permission changes to apply.
        #[serde(
            rename = "updatedPermissions",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub updated_permissions: Option<Vec<PermissionUpdate>>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// Deny branch of a [`PermissionRequestDecision`].
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct PermissionRequestDeny {
        /// Why.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub message: Option<String>,
        /// Also stop the turn.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub interrupt: Option<bool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

open_enum! {
    /// A `PermissionRequest` hook's answer to the prompt, tagged by `behavior`.
    #[derive(Debug, Clone, PartialEq)]
    pub enum PermissionRequestDecision tagged "behavior" {
        /// A decision this crate does not know, kept as is.
        Unknown;
        /// Grant the permission.
        Allow(PermissionRequestAllow) = "allow",
        /// Refuse it.
        Deny(PermissionRequestDeny) = "deny",
    }
}

wire_struct! {
    /// `hookSpecificOutput` for `PermissionRequest`.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct PermissionRequestOutput {
        /// The answer to the permission prompt.
        pub decision: PermissionRequestDecision,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `hookSpecificOutput` for `Elicitation` and `ElicitationResult`: answer (or
    /// override the answer to) an MCP elicitation.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct ElicitationOutput {
        /// The response to give.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub action: Option<ElicitationAction>,
        /// The answer's content.
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

wire_struct! {
    /// `hookSpecificOutput` for `CwdChanged` and `FileChanged`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct WatchPathsOutput {
        /// Paths to watch from now on.
        #[serde(
            rename = "watchPaths",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub watch_paths: Option<Vec<String>>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `hookSpecificOutput` for `WorktreeCreate`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct WorktreeCreateOutput {
        /// Where the hook created the worktree.
        #[serde(rename = "worktreePath")]
        pub worktree_path: String,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `hookSpecificOutput` for `MessageDisplay`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct MessageDisplayOutput {
        /// Text to display instead.
        #[serde(
            rename = "displayContent",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub display_content: Option<String>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// `hookSpecificOutput` for `PreSkillShellCommand`.
    ///
    /// `allow` adds nothing (the command runs unless a hook refuses it);
    /// `deny`, `ask` and `defer` all keep it from running. The CLI never
    /// applies `updatedInput`: any value keeps the command from running.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct PreSkillShellCommandOutput {
        /// The verdict on the command.
        #[serde(
            rename = "permissionDecision",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub permission_decision: Option<HookPermissionDecision>,
        /// Why.
        #[serde(
            rename = "permissionDecisionReason",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub permission_decision_reason: Option<String>,
        /// Never applied by the CLI: any value keeps the command from running.
        #[serde(
            rename = "updatedInput",
            default,
            deserialize_with = "deserialize_some",
            skip_serializing_if = "Option::is_none"
        )]
        pub updated_input: Option<Json>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl PreSkillShellCommandOutput {
    /// Let the command run (unless another hook refuses it).
    pub fn allow() -> Self {
        Self {
            permission_decision: Some(HookPermissionDecision::Allow),
            ..Self::default()
        }
    }

    /// Keep the command from running; `reason` says why.
    pub fn deny(reason: impl Into<String>) -> Self {
        Self {
            permission_decision: Some(HookPermissionDecision::Deny),
            permission_decision_reason: Some(reason.into()),
            ..Self::default()
        }
    }
}

macro_rules! hook_outputs {
    ($( $variant:ident($ty:ty) = $wire:literal, )+) => {
        open_enum! {
            /// Event-specific part of a hook's answer, tagged by `hookEventName`
            /// (which must match the event being answered).
            #[derive(Debug, Clone, PartialEq)]
            pub enum HookSpecificOutput tagged "hookEventName" {
                /// An output this crate does not know, kept as is.
                Unknown;
                $(
                    #[doc = concat!("Output for the `", $wire, "` event.")]
                    $variant($ty) = $wire,
                )+
            }
        }

        impl HookSpecificOutput {
            /// The event this output answers (read from `hookEventName` for
            /// an unknown output; empty when that is missing).
            pub fn event(&self) -> HookEvent {
                match self {
                    $( Self::$variant(_) => HookEvent::$variant, )+
                    Self::Unknown(v) => HookEvent::from(
                        v.get("hookEventName").and_then(Json::as_str).unwrap_or_default(),
                    ),
                }
            }
        }
    };
}

hook_outputs! {
    PreToolUse(PreToolUseOutput) = "PreToolUse",
    UserPromptSubmit(UserPromptSubmitOutput) = "UserPromptSubmit",
    UserPromptExpansion(UserPromptExpansionOutput) = "UserPromptExpansion",
    SessionStart(SessionStartOutput) = "SessionStart",
    Setup(AdditionalContextOutput) = "Setup",
    PreModelSwitch(PreModelSwitchOutput) = "PreModelSwitch",
    PostModelSwitch(AdditionalContextOutput) = "PostModelSwitch",
    SubagentStart(AdditionalContextOutput) = "SubagentStart",
    PostToolUse(PostToolUseOutput) = "PostToolUse",
    PostToolUseFailure(AdditionalContextOutput) = "PostToolUseFailure",
    PostToolBatch(AdditionalContextOutput) = "PostToolBatch",
    Stop(AdditionalContextOutput) = "Stop",
    SubagentStop(AdditionalContextOutput) = "SubagentStop",
    PermissionDenied(PermissionDeniedOutput) = "PermissionDenied",
    Notification(AdditionalContextOutput) = "Notification",
    PermissionRequest(PermissionRequestOutput) = "PermissionRequest",
    Elicitation(ElicitationOutput) = "Elicitation",
    ElicitationResult(ElicitationOutput) = "ElicitationResult",
    CwdChanged(WatchPathsOutput) = "CwdChanged",
    FileChanged(WatchPathsOutput) = "FileChanged",
    WorktreeCreate(WorktreeCreateOutput) = "WorktreeCreate",
    MessageDisplay(MessageDisplayOutput) = "MessageDisplay",
    PreSkillShellCommand(PreSkillShellCommandOutput) = "PreSkillShellCommand",
}

impl HookSpecificOutput {
    /// Adds `text` to the model's context for `event`.
    ///
    /// For an event whose output has no `additionalContext` field in this
    /// crate's model, the text still goes out as
    /// `{"hookEventName": event, "additionalContext": text}` (kept in `extra`
    /// or in [`HookSpecificOutput::Unknown`]).
    pub fn additional_context(event: HookEvent, text: impl Into<String>) -> Self {
        let text = Some(text.into());
        let plain = || AdditionalContextOutput {
            additional_context: text.clone(),
            extra: Extra::new(),
        };
        match event {
            HookEvent::PreToolUse => Self::PreToolUse(PreToolUseOutput {
                additional_context: text,
                ..Default::default()
            }),
            HookEvent::UserPromptSubmit => Self::UserPromptSubmit(UserPromptSubmitOutput {
                additional_context: text,
                ..Default::default()
            }),
            HookEvent::UserPromptExpansion => {
                Self::UserPromptExpansion(UserPromptExpansionOutput {
                    additional_context: text,
                    ..Default::default()
                })
            }
            HookEvent::SessionStart => Self::SessionStart(SessionStartOutput {
                additional_context: text,
                ..Default::default()
            }),
            HookEvent::PostToolUse => Self::PostToolUse(PostToolUseOutput {
                additional_context: text,
                ..Default::default()
            }),
            HookEvent::Setup => Self::Setup(plain()),
            HookEvent::PostModelSwitch => Self::PostModelSwitch(plain()),
            HookEvent::SubagentStart => Self::SubagentStart(plain()),
            HookEvent::PostToolUseFailure => Self::PostToolUseFailure(plain()),
            HookEvent::PostToolBatch => Self::PostToolBatch(plain()),
            HookEvent::Stop => Self::Stop(plain()),
            HookEvent::SubagentStop => Self::SubagentStop(plain()),
            HookEvent::Notification => Self::Notification(plain()),
            other => {
                let mut obj = Extra::new();
                obj.insert(
                    "hookEventName".into(),
                    Json::String(other.as_str().to_owned()),
                );
                if let Some(t) = text {
                    obj.insert("additionalContext".into(), Json::String(t));
                }
                // Decode it so that the result equals what the CLI would read
                // back (a typed variant with the text in `extra`, or Unknown).
                let value = Json::Object(obj);
                serde_json::from_value(value.clone()).unwrap_or(Self::Unknown(value))
            }
        }
    }
}

/// Marker for the `"async": true` field of an [`AsyncHookOutput`]; reads
/// only `true` and always writes `true`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct AsyncTrue;

impl Serialize for AsyncTrue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bool(true)
    }
}

impl<'de> Deserialize<'de> for AsyncTrue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        if bool::deserialize(deserializer)? {
            Ok(AsyncTrue)
        } else {
            Err(serde::de::Error::custom("expected `true`"))
        }
    }
}

wire_struct! {
    /// "I will answer later": the CLI carries on without waiting.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct AsyncHookOutput {
        /// Always `"async": true`.
        #[serde(rename = "async")]
        pub is_async: AsyncTrue,
        /// How long the asynchronous work may take, in milliseconds.
        #[serde(
            rename = "asyncTimeout",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub async_timeout: Option<serde_json::Number>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

wire_struct! {
    /// A hook's answer given right away.
    ///
    /// Every field is optional; the empty object means "no opinion".
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct SyncHookOutput {
        /// `false` stops the agent after this hook (with `stop_reason`).
        #[serde(rename = "continue", default, skip_serializing_if = "Option::is_none")]
        pub continue_: Option<bool>,
        /// Hide the hook's output from the transcript.
        #[serde(
            rename = "suppressOutput",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub suppress_output: Option<bool>,
        /// Message shown when `continue` is `false`.
        #[serde(
            rename = "stopReason",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub stop_reason: Option<String>,
        /// `block` prevents the action (for Stop: makes the agent keep going).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub decision: Option<HookDecision>,
        /// A message shown to the user.
        #[serde(
            rename = "systemMessage",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub system_message: Option<String>,
        /// Terminal escape sequence to emit.
        #[serde(
            rename = "terminalSequence",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub terminal_sequence: Option<String>,
        /// Why; given to the model with `decision: block`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub reason: Option<String>,
        /// The event-specific part.
        #[serde(
            rename = "hookSpecificOutput",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub hook_specific_output: Option<HookSpecificOutput>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

/// The success payload of a `hook_callback` response.
///
/// ```
/// use claude_proto::model::hooks::HookOutput;
/// let out = HookOutput::pre_tool_use_deny("touches /etc");
/// assert_eq!(
///     serde_json::to_value(&out).unwrap(),
///     serde_json::json!({"hookSpecificOutput":{"hookEventName":"PreToolUse",
///         "permissionDecision":"deny","permissionDecisionReason":"touches /etc"}}),
/// );
/// assert_eq!(serde_json::to_value(HookOutput::default()).unwrap(), serde_json::json!({}));
/// ```
// Built once per callback and moved straight into a response: keeping the
// immediate answer unboxed makes matching and building it simpler.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum HookOutput {
    /// `{"async": true, ...}`: answer comes later.
    Async(AsyncHookOutput),
    /// An immediate answer.
    Sync(SyncHookOutput),
    /// Something that is not a valid hook output, kept as is.
    Unknown(Json),
}

impl Default for HookOutput {
    /// `{}`: no opinion.
    fn default() -> Self {
        Self::Sync(SyncHookOutput::default())
    }
}

impl<'de> Deserialize<'de> for HookOutput {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Json::deserialize(deserializer)?;
        let is_async = value.get("async") == Some(&Json::Bool(true));
        // Read tolerantly: a nested part that does not fit (a
        // `hookSpecificOutput` with a changed shape) stays in its own
        // `Unknown` instead of making the whole output unknown.
        let parsed = if is_async {
            super::open_enum::from_value(&value).map(HookOutput::Async)
        } else {
            super::open_enum::from_value(&value).map(HookOutput::Sync)
        };
        Ok(parsed.unwrap_or(HookOutput::Unknown(value)))
    }
}

impl From<SyncHookOutput> for HookOutput {
    fn from(value: SyncHookOutput) -> Self {
        Self::Sync(value)
    }
}

impl From<HookSpecificOutput> for HookOutput {
    fn from(value: HookSpecificOutput) -> Self {
        Self::hook_specific(value)
    }
}

impl HookOutput {
    /// `{"async": true}`: the CLI does not wait for this hook.
    pub fn asynchronous() -> Self {
        Self::Async(AsyncHookOutput::default())
    }

    /// `{"async": true, "asyncTimeout": ms}`.
    pub fn asynchronous_with_timeout(ms: u64) -> Self {
        Self::Async(AsyncHookOutput {
            async_timeout: Some(ms.into()),
            ..AsyncHookOutput::default()
        })
    }

    /// `{"decision": "block", "reason": reason}`: prevent the action; for
    /// Stop hooks, keep the agent going with `reason` as its instruction.
    pub fn block(reason: impl Into<String>) -> Self {
        Self::Sync(SyncHookOutput {
            decision: Some(HookDecision::Block),
            reason: Some(reason.into()),
            ..SyncHookOutput::default()
        })
    }

    /// `{"continue": false, "stopReason": reason}`: stop the agent.
    pub fn stop(reason: impl Into<String>) -> Self {
        Self::Sync(SyncHookOutput {
            continue_: Some(false),
            stop_reason: Some(reason.into()),
            ..SyncHookOutput::default()
        })
    }

    /// `{"hookSpecificOutput": output}`.
    pub fn hook_specific(output: HookSpecificOutput) -> Self {
        Self::Sync(SyncHookOutput {
            hook_specific_output: Some(output),
            ..SyncHookOutput::default()
        })
    }

    fn pre_tool_use(decision: HookPermissionDecision, reason: Option<String>) -> Self {
        Self::hook_specific(HookSpecificOutput::PreToolUse(PreToolUseOutput {
            permission_decision: Some(decision),
            permission_decision_reason: reason,
            ..PreToolUseOutput::default()
        }))
    }

    /// PreToolUse: run the tool without asking.
    pub fn pre_tool_use_allow() -> Self {
        Self::pre_tool_use(HookPermissionDecision::Allow, None)
    }

    /// PreToolUse: run the tool without asking, with `input` instead of the
    /// requested input.
    pub fn pre_tool_use_allow_with_input(input: Json) -> Self {
        Self::hook_specific(HookSpecificOutput::PreToolUse(PreToolUseOutput {
            permission_decision: Some(HookPermissionDecision::Allow),
            updated_input: Some(input),
            ..PreToolUseOutput::default()
        }))
    }

    /// PreToolUse: refuse the tool call; `reason` is shown to the model.
    pub fn pre_tool_use_deny(reason: impl Into<String>) -> Self {
        Self::pre_tool_use(HookPermissionDecision::Deny, Some(reason.into()))
    }

    /// PreToolUse: ask the host through `can_use_tool`, passing `reason`.
    pub fn pre_tool_use_ask(reason: impl Into<String>) -> Self {
        Self::pre_tool_use(HookPermissionDecision::Ask, Some(reason.into()))
    }

    /// PreToolUse: leave the decision to the normal permission flow.
    pub fn pre_tool_use_defer() -> Self {
        Self::pre_tool_use(HookPermissionDecision::Defer, None)
    }

    /// PermissionRequest: grant the permission.
    pub fn permission_request_allow() -> Self {
        Self::hook_specific(HookSpecificOutput::PermissionRequest(
            PermissionRequestOutput {
                decision: PermissionRequestDecision::Allow(PermissionRequestAllow::default()),
                extra: Extra::new(),
            },
        ))
    }

    /// PermissionRequest: refuse the permission with `message`.
    pub fn permission_request_deny(message: impl Into<String>) -> Self {
        Self::hook_specific(HookSpecificOutput::PermissionRequest(
            PermissionRequestOutput {
                decision: PermissionRequestDecision::Deny(PermissionRequestDeny {
                    message: Some(message.into()),
                    ..PermissionRequestDeny::default()
                }),
                extra: Extra::new(),
            },
        ))
    }

    /// Adds `text` to the model's context for `event` (see
    /// [`HookSpecificOutput::additional_context`]).
    pub fn additional_context(event: HookEvent, text: impl Into<String>) -> Self {
        Self::hook_specific(HookSpecificOutput::additional_context(event, text))
    }

    /// The immediate answer, if this is one.
    pub fn as_sync(&self) -> Option<&SyncHookOutput> {
        match self {
            Self::Sync(s) => Some(s),
            _ => None,
        }
    }

    fn map_sync(mut self, f: impl FnOnce(&mut SyncHookOutput)) -> Self {
        if let Self::Sync(s) = &mut self {
            f(s);
        }
        self
    }

    /// Shows `message` to the user. No effect on an async answer.
    pub fn with_system_message(self, message: impl Into<String>) -> Self {
        let message = message.into();
        self.map_sync(|s| s.system_message = Some(message))
    }

    /// Hides the hook's output from the transcript. No effect on an async
    /// answer.
    pub fn with_suppress_output(self, suppress: bool) -> Self {
        self.map_sync(|s| s.suppress_output = Some(suppress))
    }

    /// Sets `reason`. No effect on an async answer.
    pub fn with_reason(self, reason: impl Into<String>) -> Self {
        let reason = reason.into();
        self.map_sync(|s| s.reason = Some(reason))
    }

    /// Sets the event-specific part. No effect on an async answer.
    pub fn with_hook_specific_output(self, output: HookSpecificOutput) -> Self {
        self.map_sync(|s| s.hook_specific_output = Some(output))
    }
}

// ---------------------------------------------------------------------------
// Typed hooks
// ---------------------------------------------------------------------------

/// The error a fallible handler returns (the same type as the adapters'
/// `HandlerError`).
pub type HandlerError = Box<dyn std::error::Error + Send + Sync>;

/// A hook event as a type: the event's wire name, the input it is called
/// with and the output it answers with.
///
/// Implemented by one marker type per event ([`PreToolUse`], [`Stop`],
/// ...), which the adapters' typed `hook` methods take, so a hook
/// registered for `PreToolUse` receives a [`PreToolUseInput`] and answers
/// with a [`PreToolUseOutput`]. Events whose answer has no event-specific
/// part answer with a [`HookOutput`]. Any typed hook may also answer with
/// a plain [`HookOutput`] (to block, stop, or add a system message).
///
/// The tool use id of tool events is in the input
/// (e.g. [`PreToolUseInput::tool_use_id`]).
///
/// ```
/// use claude_proto::model::hooks::{Hook, HookEvent, PreToolUse};
/// assert_eq!(PreToolUse::EVENT, HookEvent::PreToolUse);
/// ```
pub trait Hook: Copy + Send + Sync + 'static {
    /// The event.
    const EVENT: HookEvent;
    /// What the hook is called with.
    type Input: Send + 'static;
    /// What the hook answers with (see [`IntoHookOutput`] for everything
    /// accepted).
    type Output: IntoHookOutput<Self> + Send + 'static;

    /// The event's own input, or the input back (boxed) when it is another
    /// event's, or one this crate could not read.
    fn input(input: HookInput) -> Result<Self::Input, Box<HookInput>>;
}

/// What a typed hook for `H` may answer with: `H`'s output type, a plain
/// [`HookOutput`], or either in a `Result<_, HandlerError>` (an error
/// makes the CLI apply the hook's `on_failure`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an answer to a `{H}` hook",
    label = "a `{H}` hook must answer with its own output type or a `HookOutput`",
    note = "return `<{H} as Hook>::Output`, `HookOutput`, or either in `Result<_, HandlerError>`"
)]
pub trait IntoHookOutput<H: Hook> {
    /// The answer to send.
    fn into_hook_output(self) -> Result<HookOutput, HandlerError>;
}

impl<H: Hook> IntoHookOutput<H> for HookOutput {
    fn into_hook_output(self) -> Result<HookOutput, HandlerError> {
        Ok(self)
    }
}

impl<H: Hook> IntoHookOutput<H> for Result<HookOutput, HandlerError> {
    fn into_hook_output(self) -> Result<HookOutput, HandlerError> {
        self
    }
}

macro_rules! typed_hooks {
    (
        specific { $( $name:ident($input:ty) => $output:ty, )+ }
        plain { $( $pname:ident($pinput:ty), )+ }
    ) => {
        $(
            #[doc = concat!("The `", stringify!($name), "` hook event as a type (see [`Hook`]): input [`",
                stringify!($input), "`], output [`", stringify!($output), "`].")]
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
            pub struct $name;

            impl Hook for $name {
                const EVENT: HookEvent = HookEvent::$name;
                type Input = $input;
                type Output = $output;

                fn input(input: HookInput) -> Result<$input, Box<HookInput>> {
                    match input {
                        HookInput::$name(input) => Ok(input),
                        other => Err(Box::new(other)),
                    }
                }
            }

            impl IntoHookOutput<$name> for $output {
                fn into_hook_output(self) -> Result<HookOutput, HandlerError> {
                    Ok(HookOutput::hook_specific(HookSpecificOutput::$name(self)))
                }
            }

            impl IntoHookOutput<$name> for Result<$output, HandlerError> {
                fn into_hook_output(self) -> Result<HookOutput, HandlerError> {
                    self.and_then(IntoHookOutput::<$name>::into_hook_output)
                }
            }
        )+
        $(
            #[doc = concat!("The `", stringify!($pname), "` hook event as a type (see [`Hook`]): input [`",
                stringify!($pinput), "`], output [`HookOutput`].")]
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
            pub struct $pname;

            impl Hook for $pname {
                const EVENT: HookEvent = HookEvent::$pname;
                type Input = $pinput;
                type Output = HookOutput;

                fn input(input: HookInput) -> Result<$pinput, Box<HookInput>> {
                    match input {
                        HookInput::$pname(input) => Ok(input),
                        other => Err(Box::new(other)),
                    }
                }
            }
        )+
    };
}

typed_hooks! {
    specific {
        PreToolUse(PreToolUseInput) => PreToolUseOutput,
        PostToolUse(PostToolUseInput) => PostToolUseOutput,
        PostToolUseFailure(PostToolUseFailureInput) => AdditionalContextOutput,
        PostToolBatch(PostToolBatchInput) => AdditionalContextOutput,
        Notification(NotificationInput) => AdditionalContextOutput,
        UserPromptSubmit(UserPromptSubmitInput) => UserPromptSubmitOutput,
        UserPromptExpansion(UserPromptExpansionInput) => UserPromptExpansionOutput,
        SessionStart(SessionStartInput) => SessionStartOutput,
        Stop(StopInput) => AdditionalContextOutput,
        SubagentStart(SubagentStartInput) => AdditionalContextOutput,
        SubagentStop(SubagentStopInput) => AdditionalContextOutput,
        PreModelSwitch(ModelSwitchInput) => PreModelSwitchOutput,
        PostModelSwitch(ModelSwitchInput) => AdditionalContextOutput,
        PermissionRequest(PermissionRequestInput) => PermissionRequestOutput,
        PermissionDenied(PermissionDeniedInput) => PermissionDeniedOutput,
        Setup(SetupInput) => AdditionalContextOutput,
        Elicitation(ElicitationInput) => ElicitationOutput,
        ElicitationResult(ElicitationResultInput) => ElicitationOutput,
        CwdChanged(CwdChangedInput) => WatchPathsOutput,
        FileChanged(FileChangedInput) => WatchPathsOutput,
        WorktreeCreate(WorktreeCreateInput) => WorktreeCreateOutput,
        MessageDisplay(MessageDisplayInput) => MessageDisplayOutput,
        PreSkillShellCommand(PreSkillShellCommandInput) => PreSkillShellCommandOutput,
    }
    plain {
        SessionEnd(SessionEndInput),
        StopFailure(StopFailureInput),
        PreCompact(PreCompactInput),
        PostCompact(PostCompactInput),
        TeammateIdle(TeammateIdleInput),
        TaskCreated(TaskInput),
        TaskCompleted(TaskInput),
        ConfigChange(ConfigChangeInput),
        WorktreeRemove(WorktreeRemoveInput),
        InstructionsLoaded(InstructionsLoadedInput),
        DirectoryAdded(DirectoryAddedInput),
    }
}

impl PreToolUseOutput {
    fn decision(decision: HookPermissionDecision, reason: Option<String>) -> Self {
        Self {
            permission_decision: Some(decision),
            permission_decision_reason: reason,
            ..Self::default()
        }
    }

    /// Run the tool without asking.
    pub fn allow() -> Self {
        Self::decision(HookPermissionDecision::Allow, None)
    }

    /// Refuse the tool call; `reason` is shown to the model.
    ///
    /// ```
    /// use claude_proto::model::hooks::{HookOutput, IntoHookOutput, PreToolUse, PreToolUseOutput};
    /// let out = IntoHookOutput::<PreToolUse>::into_hook_output(PreToolUseOutput::deny("no rm"));
    /// assert_eq!(out.ok(), Some(HookOutput::pre_tool_use_deny("no rm")));
    /// ```
    pub fn deny(reason: impl Into<String>) -> Self {
        Self::decision(HookPermissionDecision::Deny, Some(reason.into()))
    }

    /// Ask the host through `can_use_tool`, passing `reason`.
    pub fn ask(reason: impl Into<String>) -> Self {
        Self::decision(HookPermissionDecision::Ask, Some(reason.into()))
    }

    /// Leave the decision to the normal permission flow.
    pub fn defer() -> Self {
        Self::decision(HookPermissionDecision::Defer, None)
    }

    /// Sets the reason (shown to the model on deny, to the host on ask).
    pub fn with_reason(mut self, reason: impl Into<String>) -> Self {
        self.permission_decision_reason = Some(reason.into());
        self
    }

    /// Runs the tool with `input` instead of the requested input.
    pub fn with_updated_input(mut self, input: Json) -> Self {
        self.updated_input = Some(input);
        self
    }

    /// Adds `text` to the model's context.
    pub fn with_additional_context(mut self, text: impl Into<String>) -> Self {
        self.additional_context = Some(text.into());
        self
    }
}

impl AdditionalContextOutput {
    /// Adds `text` to the model's context.
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            additional_context: Some(text.into()),
            extra: Extra::new(),
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
        assert_eq!(serde_json::to_value(&typed).expect("encode"), value);
        typed
    }

    fn with_base(mut v: Json) -> Json {
        let base = json!({"session_id":"s1","transcript_path":"/t.jsonl","cwd":"/w"});
        if let (Some(obj), Some(b)) = (v.as_object_mut(), base.as_object()) {
            for (k, val) in b {
                obj.insert(k.clone(), val.clone());
            }
        }
        v
    }

    #[test]
    fn event_names() {
        assert_eq!(HookEvent::ALL.len(), 34);
        for e in HookEvent::ALL {
            assert_eq!(HookEvent::from(e.as_str()), e);
            assert!(!matches!(e, HookEvent::Unknown(_)));
        }
        let e: HookEvent = serde_json::from_value(json!("BeforeLunch")).unwrap();
        assert_eq!(e, HookEvent::Unknown("BeforeLunch".into()));
        assert!(HookEvent::PostToolUse < HookEvent::PreToolUse);
    }

    #[test]
    fn matcher_round_trip_and_builders() {
        round_trip::<HookMatcher>(
            json!({"matcher":"Write|Edit","hookCallbackIds":["hook_0","hook_1"],
            "timeout":1.5,"onFailure":"block","contextOnly":true}),
        );
        round_trip::<HookMatcher>(json!({"hookCallbackIds":[]}));
        let m = HookMatcher::new(["hook_2"]).with_on_failure(HookFailureMode::Continue);
        assert_eq!(
            serde_json::to_value(&m).unwrap(),
            json!({"hookCallbackIds":["hook_2"],"onFailure":"continue"})
        );
    }

    #[test]
    fn every_event_input_decodes_to_its_variant() {
        let inputs = vec![
            json!({"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"toolu_1",
                   "permission_mode":"default","prompt_id":"p","effort":{"level":"high"}}),
            json!({"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"echo hi"},
                   "tool_response":{"stdout":"hi","stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false},
                   "tool_use_id":"toolu_1","duration_ms":12,"mcp_server":{"name":"gh","source":"user"}}),
            json!({"hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{},"tool_use_id":"t","error":"boom","is_interrupt":false,"duration_ms":0.5}),
            json!({"hook_event_name":"PostToolBatch","tool_calls":[{"tool_name":"Read","tool_input":{},"tool_use_id":"a","tool_response":null},{"tool_name":"Read","tool_input":{},"tool_use_id":"b"}]}),
            json!({"hook_event_name":"Notification","message":"waiting","notification_type":"idle_prompt","title":"Claude"}),
            json!({"hook_event_name":"UserPromptSubmit","prompt":"hi","source":"sdk","session_title":"t"}),
            json!({"hook_event_name":"UserPromptExpansion","expansion_type":"slash_command","command_name":"review","command_args":"","command_source":"project","prompt":"Review"}),
            json!({"hook_event_name":"SessionStart","source":"startup","model":"claude-x","agent_type":"reviewer","context_tokens":0,"prompt_cache_likely_expired":false}),
            json!({"hook_event_name":"SessionEnd","reason":"prompt_input_exit"}),
            json!({"hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"done",
                   "background_tasks":[{"id":"b1","type":"shell","status":"running","description":"server","command":"npm start"}],
                   "session_crons":[{"id":"c","schedule":"0 * * * *","recurring":true,"prompt":"check"}]}),
            json!({"hook_event_name":"StopFailure","error":"rate_limit","error_details":"429"}),
            json!({"hook_event_name":"SubagentStart","agent_id":"a1","agent_type":"explorer"}),
            json!({"hook_event_name":"SubagentStop","stop_hook_active":true,"agent_id":"a1","agent_type":"explorer","agent_transcript_path":"/a.jsonl"}),
            json!({"hook_event_name":"PreCompact","trigger":"auto","custom_instructions":null}),
            json!({"hook_event_name":"PostCompact","trigger":"manual","compact_summary":"sum"}),
            json!({"hook_event_name":"PreModelSwitch","from_model":"a","to_model":"b","requested_model":null,"source":"sdk","context_tokens":1000,
                   "prompt_cache_warm":true,"cache_ttl":"5m","estimated_cache_write_usd":0.012,"pricing":"catalog"}),
            json!({"hook_event_name":"PostModelSwitch","from_model":"a","to_model":"b","requested_model":"opus","source":"auto","context_tokens":1000,
                   "prompt_cache_warm":false,"cache_ttl":"1h","estimated_cache_write_usd":0,"pricing":"default"}),
            json!({"hook_event_name":"PermissionRequest","tool_name":"Write","tool_input":{"file_path":"/x"},
                   "permission_suggestions":[{"type":"setMode","mode":"acceptEdits","destination":"session"}],"tool_kind":"mcp_skill"}),
            json!({"hook_event_name":"PermissionDenied","tool_name":"Bash","tool_input":{},"tool_use_id":"t","reason":"rule"}),
            json!({"hook_event_name":"Setup","trigger":"init"}),
            json!({"hook_event_name":"TeammateIdle","teammate_name":"bob","team_name":"red"}),
            json!({"hook_event_name":"TaskCreated","task_id":"1","task_subject":"do it"}),
            json!({"hook_event_name":"TaskCompleted","task_id":"1","task_subject":"do it","task_description":"d","teammate_name":"bob"}),
            json!({"hook_event_name":"Elicitation","mcp_server_name":"m","message":"name?","mode":"form","requested_schema":{"type":"object"},"elicitation_id":"e"}),
            json!({"hook_event_name":"ElicitationResult","mcp_server_name":"m","action":"accept","content":{"name":"x"}}),
            json!({"hook_event_name":"ConfigChange","source":"user_settings","file_path":"/s.json"}),
            json!({"hook_event_name":"WorktreeCreate","name":"feature"}),
            json!({"hook_event_name":"WorktreeRemove","worktree_path":"/w/feature"}),
            json!({"hook_event_name":"InstructionsLoaded","file_path":"/w/CLAUDE.md","memory_type":"Project","load_reason":"session_start","globs":["*.rs"]}),
            json!({"hook_event_name":"CwdChanged","old_cwd":"/a","new_cwd":"/b"}),
            json!({"hook_event_name":"FileChanged","file_path":"/a/x","event":"unlink"}),
            json!({"hook_event_name":"DirectoryAdded","directory":"/d","source":"slash_command"}),
            json!({"hook_event_name":"MessageDisplay","turn_id":"t","message_id":"m","index":0,"final":true,"delta":"Hello"}),
            json!({"hook_event_name":"PreSkillShellCommand","tool_name":"Bash","tool_input":{"command":"git status"},
                   "tool_use_id":"skill_1","command_name":"review","command_source":"projectSettings","invoked_by":"claude"}),
        ];
        assert_eq!(inputs.len(), 34);
        for (raw, expected) in inputs.into_iter().zip(HookEvent::ALL) {
            let v = with_base(raw);
            let input: HookInput = round_trip(v.clone());
            assert!(!matches!(input, HookInput::Unknown(_)), "fell back: {v}");
            assert_eq!(input.event(), expected);
            assert_eq!(input.session_id(), Some("s1"));
            assert_eq!(input.cwd(), Some("/w"));
            assert_eq!(input.transcript_path(), Some("/t.jsonl"));
        }
    }

    #[test]
    fn input_accessors_and_fallback() {
        let input: HookInput = round_trip(with_base(
            json!({"hook_event_name":"PreToolUse","tool_name":"Bash",
            "tool_input":{"command":"ls"},"tool_use_id":"toolu_1","permission_mode":"plan","agent_id":"sub1","future_field":[1]}),
        ));
        assert_eq!(input.permission_mode(), Some(PermissionMode::Plan));
        assert_eq!(input.agent_id(), Some("sub1"));
        assert_eq!(input.tool_name(), Some("Bash"));
        assert!(
            input
                .extra()
                .is_some_and(|e| e.contains_key("future_field"))
        );
        match &input {
            HookInput::PreToolUse(p) => assert_eq!(p.tool_input, json!({"command":"ls"})),
            other => panic!("unexpected {other:?}"),
        }

        let unknown: HookInput = round_trip(with_base(
            json!({"hook_event_name":"BeforeLunch","menu":"soup","agent_type":"chef"}),
        ));
        assert!(matches!(unknown, HookInput::Unknown(_)));
        assert_eq!(unknown.event(), HookEvent::Unknown("BeforeLunch".into()));
        assert_eq!(unknown.session_id(), Some("s1"));
        assert_eq!(unknown.agent_type(), Some("chef"));

        // Known event with a missing required field stays lossless.
        let broken: HookInput = round_trip(with_base(
            json!({"hook_event_name":"PreToolUse","tool_name":"Bash"}),
        ));
        assert!(matches!(broken, HookInput::Unknown(_)));
        assert_eq!(broken.event(), HookEvent::PreToolUse);
        // No base fields at all.
        let bare: HookInput =
            round_trip(json!({"hook_event_name":"Stop","stop_hook_active":false}));
        assert!(matches!(bare, HookInput::Unknown(_)));
    }

    #[test]
    fn outputs_round_trip() {
        for v in [
            json!({}),
            json!({"async":true}),
            json!({"async":true,"asyncTimeout":30000}),
            json!({"async":false}),
            json!({"continue":false,"stopReason":"enough","suppressOutput":true,"systemMessage":"bye","terminalSequence":"\u{7}"}),
            json!({"decision":"approve","reason":"fine"}),
            json!({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"driver says ask"}}),
            json!({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls"},"additionalContext":"c","permissionDisplay":{}}}),
            json!({"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"x","updatedMCPToolOutput":null}}),
            json!({"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"x","sessionTitle":"t","suppressOriginalPrompt":false}}),
            json!({"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"x","watchPaths":["/a"],"reloadSkills":true,"initialUserMessage":"go"}}),
            json!({"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedPermissions":[{"type":"addDirectories","directories":["/x"],"destination":"session"}]}}}),
            json!({"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"no","interrupt":true}}}),
            json!({"hookSpecificOutput":{"hookEventName":"PermissionDenied","retry":true}}),
            json!({"hookSpecificOutput":{"hookEventName":"Elicitation","action":"accept","content":{"a":1}}}),
            json!({"hookSpecificOutput":{"hookEventName":"WorktreeCreate","worktreePath":"/w/x"}}),
            json!({"hookSpecificOutput":{"hookEventName":"MessageDisplay","displayContent":"hi"}}),
            json!({"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","permissionDecision":"deny","permissionDecisionReason":"no git"}}),
            json!({"hookSpecificOutput":{"hookEventName":"PreModelSwitch","permissionDecision":"deny","permissionDecisionReason":"cost"}}),
            json!({"hookSpecificOutput":{"hookEventName":"CwdChanged","watchPaths":[]}}),
            json!({"hookSpecificOutput":{"hookEventName":"Teatime","biscuits":2}}),
            json!({"hookSpecificOutput":{"hookEventName":"WorktreeCreate"}}),
            json!({"continue":"maybe"}),
        ] {
            round_trip::<HookOutput>(v);
        }
        let o: HookOutput = serde_json::from_value(json!({"async":true})).unwrap();
        assert!(matches!(o, HookOutput::Async(_)));
        let o: HookOutput = serde_json::from_value(json!({"continue":"maybe"})).unwrap();
        assert!(matches!(o, HookOutput::Unknown(_)));
        let o: HookOutput =
            serde_json::from_value(json!({"hookSpecificOutput":{"hookEventName":"Teatime"}}))
                .unwrap();
        assert!(matches!(
            o.as_sync().and_then(|s| s.hook_specific_output.as_ref()),
            Some(HookSpecificOutput::Unknown(_))
        ));
    }

    #[test]
    fn a_bad_hook_specific_output_leaves_the_output_typed() {
        let v = json!({"continue":true,"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecisionReason":5}});
        let out: HookOutput = crate::model::from_value(&v).unwrap();
        let HookOutput::Sync(sync) = &out else {
            panic!("{out:?}");
        };
        assert!(matches!(
            sync.hook_specific_output,
            Some(HookSpecificOutput::Unknown(_))
        ));
        assert_eq!(serde_json::to_value(&out).unwrap(), v);
    }

    #[test]
    fn output_constructors() {
        let to = |o: HookOutput| serde_json::to_value(o).unwrap();
        assert_eq!(to(HookOutput::default()), json!({}));
        assert_eq!(
            to(HookOutput::block("too risky")),
            json!({"decision":"block","reason":"too risky"})
        );
        assert_eq!(
            to(HookOutput::stop("halt")),
            json!({"continue":false,"stopReason":"halt"})
        );
        assert_eq!(to(HookOutput::asynchronous()), json!({"async":true}));
        assert_eq!(
            to(HookOutput::asynchronous_with_timeout(500)),
            json!({"async":true,"asyncTimeout":500})
        );
        assert_eq!(
            to(HookOutput::pre_tool_use_deny("no")),
            json!({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}})
        );
        assert_eq!(
            to(HookOutput::pre_tool_use_allow()),
            json!({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}})
        );
        assert_eq!(
            to(HookOutput::pre_tool_use_ask("check")),
            json!({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"check"}})
        );
        assert_eq!(
            to(HookOutput::pre_tool_use_defer()),
            json!({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer"}})
        );
        assert_eq!(
            to(HookOutput::pre_tool_use_allow_with_input(
                json!({"command":"ls"})
            )),
            json!({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls"}}})
        );
        assert_eq!(
            to(
                HookOutput::additional_context(HookEvent::UserPromptSubmit, "ctx")
                    .with_system_message("hi")
            ),
            json!({"systemMessage":"hi","hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"ctx"}})
        );
        assert_eq!(
            to(HookOutput::additional_context(HookEvent::Stop, "ctx")),
            json!({"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":"ctx"}})
        );
        assert_eq!(
            to(HookOutput::additional_context(
                HookEvent::ConfigChange,
                "ctx"
            )),
            json!({"hookSpecificOutput":{"hookEventName":"ConfigChange","additionalContext":"ctx"}})
        );
        assert_eq!(
            to(HookOutput::permission_request_allow()),
            json!({"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}})
        );
        assert_eq!(
            to(HookOutput::permission_request_deny("nope")),
            json!({"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"nope"}}})
        );
        for e in HookEvent::ALL {
            let o = HookSpecificOutput::additional_context(e.clone(), "x");
            assert_eq!(o.event(), e);
            let v = serde_json::to_value(&o).unwrap();
            assert_eq!(v["additionalContext"], json!("x"));
            assert_eq!(
                crate::model::from_value::<HookSpecificOutput>(&v).unwrap(),
                o
            );
        }
    }

    /// The two answers a `PreSkillShellCommand` hook gives, as the CLI
    /// reads them.
    #[test]
    fn skill_shell_command_answers() {
        let out = |o: PreSkillShellCommandOutput| {
            serde_json::to_value(
                IntoHookOutput::<PreSkillShellCommand>::into_hook_output(o).unwrap(),
            )
            .unwrap()
        };
        assert_eq!(
            out(PreSkillShellCommandOutput::allow()),
            json!({"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","permissionDecision":"allow"}})
        );
        assert_eq!(
            out(PreSkillShellCommandOutput::deny("no git here")),
            json!({"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand",
                "permissionDecision":"deny","permissionDecisionReason":"no git here"}})
        );
    }
}
