//! The drift test: the wire types the pinned CLI's own TypeScript SDK
//! declares, against what our model types.
//!
//! `@anthropic-ai/claude-agent-sdk` (pinned in `tests/peer/sdk`, its
//! `claudeCodeVersion` the CLI pinned in `tests/peer`) ships `sdk.d.ts` and
//! `sdk-tools.d.ts`. Every stdout message type, control request subtype
//! (both directions), hook input and built-in tool input declared there must
//! have a typed variant or struct here, each of its fields a typed field,
//! and every string-literal union we model as an open string enum must have
//! all its values known. What we leave raw on purpose is in [`ALLOW`], each
//! entry with its reason. A failure lists everything that drifted at once.
//!
//! Needs the SDK: `npm ci --prefix tests/peer/sdk` (or
//! `CLAUDE_AGENT_SDK_DIR` naming an unpacked copy). Without it the test says
//! it was skipped and passes, except under CI, where it fails.

use std::collections::BTreeMap;

use claude_proto::model::{
    MessageType, WireFields, WireValues, WireVariants, assistant, control, hooks, incoming,
    initialize, mcp, misc, permission, result, stdout, stream, system, tools, user,
};
use claude_proto_tests::drift::check::{Coverage, Dispatch, Model, Typed, Values, check};
use claude_proto_tests::drift::{sdk_declarations, sdk_dir};

/// What we leave raw on purpose: `(key, why)`. A key names a declaration
/// (`SDKFooMessage`), a field (`SDKFooMessage.bar`) or a value
/// (`PermissionMode = 'x'`), as the failure message prints them. An entry
/// that no longer matches anything fails the test too.
const ALLOW: &[(&str, &str)] = &[
    // Tool inputs with nothing to type: the schema has no properties.
    ("EnterPlanModeInput", "no fields: the input is always {}"),
    ("TaskListInput", "no fields: the input is always {}"),
    ("CronListInput", "no fields: the input is always {}"),
    (
        "ShowOnboardingRolePickerInput",
        "no fields: the input is always {}",
    ),
    (
        "ReadNotificationsInput",
        "no fields: the input is always {}",
    ),
    // Any MCP tool's input: an open object with no declared keys.
    (
        "McpInput",
        "an MCP tool's input is whatever its server's schema says",
    ),
];

/// The struct of the model that types each declaration, with its keys
/// (`as variant of Enum`: a variant of that tagged enum, whose tag key it reads too).
macro_rules! structs {
    ($($ts:literal => $rust:ty $(as variant of $tagged:ty)?,)*) => {{
        let mut map = BTreeMap::new();
        $(
            #[allow(unused_mut)]
            let mut fields = <$rust as WireFields>::all_fields();
            $( fields.push(<$tagged as WireVariants>::TAG); )?
            let previous = map.insert($ts, Typed { rust: stringify!($rust), fields });
            assert!(previous.is_none(), "{} is listed twice", $ts);
        )*
        map
    }};
}

/// The open string enum of the model that types each string-literal union.
macro_rules! values {
    ($($ts:literal => $rust:ty,)*) => {
        vec![$(Values {
            ts: $ts,
            rust: stringify!($rust),
            values: <$rust as WireValues>::VALUES.to_vec(),
        },)*]
    };
}

/// A tagged enum's typed variants, for the declarations with tag `when`.
fn dispatch<T: WireVariants>(
    rust: &'static str,
    when: Option<(&'static str, &'static str)>,
) -> Dispatch {
    Dispatch {
        rust,
        tag: T::TAG,
        variants: T::VARIANTS.to_vec(),
        when,
    }
}

fn model() -> Model {
    let structs = structs! {
        // ----- stdout messages (SDKMessage, plus the two StdoutMessage adds)
        "SDKAssistantMessage" => assistant::AssistantMessage,
        "SDKUserMessage" => user::UserMessage,
        "SDKUserMessageReplay" => user::UserMessage,
        "SDKResultSuccess" => result::ResultMessage,
        "SDKResultError" => result::ResultMessage,
        "SDKSystemMessage" => system::InitMessage,
        "SDKPartialAssistantMessage" => stream::StreamEventMessage,
        "SDKCompactBoundaryMessage" => system::CompactBoundaryMessage,
        "SDKStatusMessage" => system::StatusMessage,
        "SDKAPIRetryMessage" => system::ApiRetryMessage,
        "SDKControlRequestProgressMessage" => system::ControlRequestProgressMessage,
        "SDKModelRefusalFallbackMessage" => system::ModelRefusalFallbackMessage,
        "SDKModelRefusalNoFallbackMessage" => system::ModelRefusalNoFallbackMessage,
        "SDKLocalCommandOutputMessage" => system::LocalCommandOutputMessage,
        "SDKHookStartedMessage" => system::HookStartedMessage,
        "SDKHookProgressMessage" => system::HookProgressMessage,
        "SDKHookResponseMessage" => system::HookResponseMessage,
        "SDKPluginInstallMessage" => system::PluginInstallMessage,
        "SDKToolProgressMessage" => misc::ToolProgressMessage,
        "SDKAuthStatusMessage" => misc::AuthStatusMessage,
        "SDKTaskNotificationMessage" => system::TaskNotificationMessage,
        "SDKTaskStartedMessage" => system::TaskStartedMessage,
        "SDKTaskUpdatedMessage" => system::TaskUpdatedMessage,
        "SDKTaskProgressMessage" => system::TaskProgressMessage,
        "SDKBackgroundTasksChangedMessage" => system::BackgroundTasksChangedMessage,
        "SDKThinkingTokensMessage" => system::ThinkingTokensMessage,
        "SDKSessionStateChangedMessage" => system::SessionStateChangedMessage,
        "SDKWorkerShuttingDownMessage" => system::WorkerShuttingDownMessage,
        "SDKCommandsChangedMessage" => system::CommandsChangedMessage,
        "SDKNotificationMessage" => system::NotificationMessage,
        "SDKFilesPersistedEvent" => system::FilesPersistedMessage,
        "SDKToolUseSummaryMessage" => misc::ToolUseSummaryMessage,
        "SDKMemoryRecallMessage" => system::MemoryRecallMessage,
        "SDKRateLimitEvent" => misc::RateLimitEventMessage,
        "SDKElicitationCompleteMessage" => system::ElicitationCompleteMessage,
        "SDKPermissionDeniedMessage" => system::PermissionDeniedMessage,
        "SDKPromptSuggestionMessage" => misc::PromptSuggestionMessage,
        "SDKMirrorErrorMessage" => system::MirrorErrorMessage,
        "SDKInformationalMessage" => system::InformationalMessage,
        "SDKConversationResetMessage" => misc::ConversationResetMessage,
        "SDKSessionWritesLostMessage" => system::SessionWritesLostMessage,
        "SDKActiveGoalMessage" => misc::ActiveGoalMessage,
        "SDKKeepAliveMessage" => misc::KeepAliveMessage,

        // ----- control requests, both directions (SDKControlRequestInner)
        "SDKControlInterruptRequest" => control::InterruptRequest,
        "SDKControlPermissionRequest" => incoming::CanUseTool,
        "SDKControlInitializeRequest" => initialize::InitializeRequest,
        "SDKControlSetPermissionModeRequest" => control::SetPermissionModeRequest,
        "SDKControlSetModelRequest" => control::SetModelRequest,
        "SDKControlSetMaxThinkingTokensRequest" => control::SetMaxThinkingTokensRequest,
        "SDKControlRenameSessionRequest" => control::RenameSessionRequest,
        "SDKControlSetColorRequest" => control::SetColorRequest,
        "SDKControlMcpStatusRequest" => control::McpStatusRequest,
        "SDKControlGetContextUsageRequest" => control::GetContextUsageRequest,
        "SDKControlGetSessionCostRequest" => control::GetSessionCostRequest,
        "SDKControlListModelsRequest" => control::ListModelsRequest,
        "SDKControlGetUsageRequest" => control::GetUsageRequest,
        "SDKControlGetBinaryVersionRequest" => control::GetBinaryVersionRequest,
        "SDKControlMcpCallRequest" => control::McpCallRequest,
        "SDKControlFileSuggestionsRequest" => control::FileSuggestionsRequest,
        "SDKHookCallbackRequest" => incoming::HookCallback,
        "SDKControlMcpMessageRequest" => incoming::McpMessage,
        "SDKControlRewindFilesRequest" => control::RewindFilesRequest,
        "SDKControlCancelAsyncMessageRequest" => control::CancelAsyncMessageRequest,
        "SDKControlReadFileRequest" => control::ReadFileRequest,
        "SDKControlSeedReadStateRequest" => control::SeedReadStateRequest,
        "SDKControlMcpSetServersRequest" => control::McpSetServersRequest,
        "SDKControlRegisterRepoRootRequest" => control::RegisterRepoRootRequest,
        "SDKControlReloadPluginsRequest" => control::ReloadPluginsRequest,
        "SDKControlReloadSkillsRequest" => control::ReloadSkillsRequest,
        "SDKControlReloadOutputStylesRequest" => control::ReloadOutputStylesRequest,
        "SDKControlMcpReconnectRequest" => control::McpReconnectRequest,
        "SDKControlMcpToggleRequest" => control::McpToggleRequest,
        "SDKControlSetHasSubscribersRequest" => control::SetHasSubscribersRequest,
        "SDKControlStopTaskRequest" => control::StopTaskRequest,
        "SDKControlBackgroundTasksRequest" => control::BackgroundTasksRequest,
        "SDKControlGetTaskOutputRequest" => control::GetTaskOutputRequest,
        "SDKControlApplyFlagSettingsRequest" => control::ApplyFlagSettingsRequest,
        "SDKControlGetSettingsRequest" => control::GetSettingsRequest,
        "SDKControlGetHooksListingRequest" => control::GetHooksListingRequest,
        "SDKControlUpdateSettingsRequest" => control::UpdateSettingsRequest,
        "SDKControlElicitationRequest" => incoming::ElicitationRequest,
        "SDKControlRequestUserDialogRequest" => incoming::UserDialogRequest,
        "SDKControlListPermissionRulesRequest" => control::ListPermissionRulesRequest,
        "SDKControlMcpReadResourceRequest" => control::McpReadResourceRequest,

        // ----- hook inputs (HookInput)
        "PreToolUseHookInput" => hooks::PreToolUseInput,
        "PostToolUseHookInput" => hooks::PostToolUseInput,
        "PostToolUseFailureHookInput" => hooks::PostToolUseFailureInput,
        "PostToolBatchHookInput" => hooks::PostToolBatchInput,
        "PermissionDeniedHookInput" => hooks::PermissionDeniedInput,
        "NotificationHookInput" => hooks::NotificationInput,
        "UserPromptSubmitHookInput" => hooks::UserPromptSubmitInput,
        "UserPromptExpansionHookInput" => hooks::UserPromptExpansionInput,
        "SessionStartHookInput" => hooks::SessionStartInput,
        "SessionEndHookInput" => hooks::SessionEndInput,
        "StopHookInput" => hooks::StopInput,
        "StopFailureHookInput" => hooks::StopFailureInput,
        "SubagentStartHookInput" => hooks::SubagentStartInput,
        "SubagentStopHookInput" => hooks::SubagentStopInput,
        "PreCompactHookInput" => hooks::PreCompactInput,
        "PostCompactHookInput" => hooks::PostCompactInput,
        "PreModelSwitchHookInput" => hooks::ModelSwitchInput,
        "PostModelSwitchHookInput" => hooks::ModelSwitchInput,
        "PermissionRequestHookInput" => hooks::PermissionRequestInput,
        "SetupHookInput" => hooks::SetupInput,
        "TeammateIdleHookInput" => hooks::TeammateIdleInput,
        "TaskCreatedHookInput" => hooks::TaskInput,
        "TaskCompletedHookInput" => hooks::TaskInput,
        "ElicitationHookInput" => hooks::ElicitationInput,
        "ElicitationResultHookInput" => hooks::ElicitationResultInput,
        "ConfigChangeHookInput" => hooks::ConfigChangeInput,
        "InstructionsLoadedHookInput" => hooks::InstructionsLoadedInput,
        "WorktreeCreateHookInput" => hooks::WorktreeCreateInput,
        "WorktreeRemoveHookInput" => hooks::WorktreeRemoveInput,
        "CwdChangedHookInput" => hooks::CwdChangedInput,
        "FileChangedHookInput" => hooks::FileChangedInput,
        "DirectoryAddedHookInput" => hooks::DirectoryAddedInput,
        "MessageDisplayHookInput" => hooks::MessageDisplayInput,
        "PreSkillShellCommandHookInput" => hooks::PreSkillShellCommandInput,

        // ----- built-in tool inputs (sdk-tools.d.ts, ToolInputSchemas)
        "AgentInput" => tools::AgentInput,
        "BashInput" => tools::BashInput,
        "FileEditInput" => tools::EditInput,
        "FileReadInput" => tools::ReadInput,
        "FileWriteInput" => tools::WriteInput,
        "GlobInput" => tools::GlobInput,
        "GrepInput" => tools::GrepInput,
        "NotebookEditInput" => tools::NotebookEditInput,
        "TodoWriteInput" => tools::TodoWriteInput,
        "WebFetchInput" => tools::WebFetchInput,
        "WebSearchInput" => tools::WebSearchInput,
        "AskUserQuestionInput" => tools::AskUserQuestionInput,
        "ArtifactInput" => tools::ArtifactInput,
        "ClaudeDesignInput" => tools::ClaudeDesignInput,
        "CronCreateInput" => tools::CronCreateInput,
        "CronDeleteInput" => tools::CronDeleteInput,
        "EnterWorktreeInput" => tools::EnterWorktreeInput,
        "ExitPlanModeInput" => tools::ExitPlanModeInput,
        "ExitWorktreeInput" => tools::ExitWorktreeInput,
        "ListMcpResourcesInput" => tools::ListMcpResourcesInput,
        "MonitorInput" => tools::MonitorInput,
        "OfferChromeSetupInput" => tools::OfferChromeSetupInput,
        "ProjectsInput" => tools::ProjectsInput,
        "ProposeGoalInput" => tools::ProposeGoalInput,
        "ProposeSkillsInput" => tools::ProposeSkillsInput,
        "PushNotificationInput" => tools::PushNotificationInput,
        "ReadMcpResourceDirInput" => tools::ReadMcpResourceDirInput,
        "ReadMcpResourceInput" => tools::ReadMcpResourceInput,
        "RefreshMcpToolsInput" => tools::RefreshMcpToolsInput,
        "RemoteTriggerInput" => tools::RemoteTriggerInput,
        "ReportFindingsInput" => tools::ReportFindingsInput,
        "ScheduleWakeupInput" => tools::ScheduleWakeupInput,
        "SendFeedbackInput" => tools::SendFeedbackInput,
        "TaskCreateInput" => tools::TaskCreateInput,
        "TaskGetInput" => tools::TaskGetInput,
        "TaskStopInput" => tools::TaskStopInput,
        "TaskUpdateInput" => tools::TaskUpdateInput,
        "WorkflowInput" => tools::WorkflowInput,

        // ----- nested objects and answers: fields only
        "BaseHookInput" => hooks::HookBaseInput,
        "BackgroundTaskSummary" => hooks::BackgroundTaskSummary,
        "SessionCronSummary" => hooks::SessionCronSummary,
        "PostToolBatchToolCall" => hooks::ToolCallSummary,
        "SDKHookCallbackMatcher" => hooks::HookMatcher,
        "SyncHookJSONOutput" => hooks::SyncHookOutput,
        "AsyncHookJSONOutput" => hooks::AsyncHookOutput,
        "PreToolUseHookSpecificOutput" => hooks::PreToolUseOutput as variant of hooks::HookSpecificOutput,
        "UserPromptSubmitHookSpecificOutput" => hooks::UserPromptSubmitOutput as variant of hooks::HookSpecificOutput,
        "UserPromptExpansionHookSpecificOutput" => hooks::UserPromptExpansionOutput as variant of hooks::HookSpecificOutput,
        "SessionStartHookSpecificOutput" => hooks::SessionStartOutput as variant of hooks::HookSpecificOutput,
        "PreModelSwitchHookSpecificOutput" => hooks::PreModelSwitchOutput as variant of hooks::HookSpecificOutput,
        "PostToolUseHookSpecificOutput" => hooks::PostToolUseOutput as variant of hooks::HookSpecificOutput,
        "PermissionDeniedHookSpecificOutput" => hooks::PermissionDeniedOutput as variant of hooks::HookSpecificOutput,
        "PermissionRequestHookSpecificOutput" => hooks::PermissionRequestOutput as variant of hooks::HookSpecificOutput,
        "ElicitationHookSpecificOutput" => hooks::ElicitationOutput as variant of hooks::HookSpecificOutput,
        "WorktreeCreateHookSpecificOutput" => hooks::WorktreeCreateOutput as variant of hooks::HookSpecificOutput,
        "MessageDisplayHookSpecificOutput" => hooks::MessageDisplayOutput as variant of hooks::HookSpecificOutput,
        "PreSkillShellCommandHookSpecificOutput" => hooks::PreSkillShellCommandOutput as variant of hooks::HookSpecificOutput,
        "SDKControlInitializeResponse" => initialize::InitializeResponse,
        "AccountInfo" => initialize::AccountInfo,
        "AgentDefinition" => initialize::AgentDefinition,
        "AgentInfo" => initialize::AgentInfo,
        "ModelInfo" => initialize::ModelInfo,
        "SlashCommand" => initialize::SlashCommand,
        "McpServerStatus" => mcp::McpServerStatus,
        "McpServerToolPolicy" => mcp::McpServerToolPolicy,
        "McpSetServersResult" => mcp::McpSetServersResult,
        "McpStdioServerConfig" => mcp::McpStdioServerConfig,
        "McpSSEServerConfig" => mcp::McpSseServerConfig,
        "McpHttpServerConfig" => mcp::McpHttpServerConfig,
        "McpSdkServerConfig" => mcp::McpSdkServerConfig,
        "McpClaudeAIProxyServerConfig" => mcp::McpClaudeAiProxyServerConfig,
        "ModelUsage" => result::ModelUsage,
        "SDKPermissionDenial" => result::PermissionDenial,
        "SDKDeferredToolUse" => result::DeferredToolUse,
        "SDKRateLimitInfo" => misc::RateLimitInfo,
        "PermissionRuleValue" => permission::PermissionRuleValue,
        "RewindFilesResult" => control::RewindFilesResult,
        "SDKControlInterruptResponse" => control::InterruptResponse,
        "SDKControlGetContextUsageResponse" => control::ContextUsage,
        "SDKContextUsageCategory" => control::ContextCategory,
        "SDKControlReadFileResponse" => control::ReadFileResponse,
        "SDKControlMcpReadResourceResponse" => control::McpReadResourceResponse,
        "SDKControlReloadPluginsResponse" => control::ReloadPluginsResponse,
        "SDKControlReloadSkillsResponse" => control::ReloadSkillsResponse,
        "SDKControlReloadOutputStylesResponse" => control::ReloadOutputStylesResponse,
        "SDKControlGetTaskOutputResponse" => control::TaskOutput,
        "BashOutput" => tools::BashOutput,
        "FileEditOutput" => tools::EditOutput,
        "FileWriteOutput" => tools::WriteOutput,
        "GlobOutput" => tools::GlobOutput,
        "GrepOutput" => tools::GrepOutput,
        "WebFetchOutput" => tools::WebFetchOutput,
        "WebSearchOutput" => tools::WebSearchOutput,
        "TodoWriteOutput" => tools::TodoWriteOutput,
        "AskUserQuestionOutput" => tools::AskUserQuestionOutput,
    };
    let values = values! {
        "SDKMessage:type" => MessageType,
        "SDKActiveGoalMessage:type" => MessageType,
        "SDKKeepAliveMessage:type" => MessageType,
        "SDKAssistantMessageError" => assistant::AssistantError,
        "SDKControlSetMaxThinkingTokensRequest.thinking_display" => control::ThinkingDisplay,
        "SDKControlGetContextUsageRequest.detail" => control::ContextUsageDetail,
        "SDKControlReadFileRequest.encoding" => control::FileEncoding,
        "SDKControlUpdateSettingsRequest.source" => control::SettingsSource,
        "HOOK_EVENTS" => hooks::HookEvent,
        "HookEvent" => hooks::HookEvent,
        "SDKHookCallbackMatcher.onFailure" => hooks::HookFailureMode,
        "SessionStartHookInput.source" => hooks::SessionStartSource,
        "ExitReason" => hooks::SessionEndReason,
        "PreCompactHookInput.trigger" => hooks::CompactTrigger,
        "ElicitationHookInput.mode" => hooks::ElicitationMode,
        "ElicitationResultHookInput.action" => hooks::ElicitationAction,
        "PreSkillShellCommandHookInput.invoked_by" => hooks::SkillInvoker,
        "HookPermissionDecision" => hooks::HookPermissionDecision,
        "SyncHookJSONOutput.decision" => hooks::HookDecision,
        "SDKControlPermissionRequest.decision_reason_type" => incoming::DecisionReasonType,
        "EffortLevel" => initialize::EffortLevel,
        "AgentDefinition.memory" => initialize::AgentMemoryScope,
        "AccountInfo.apiProvider" => initialize::ApiProvider,
        "McpServerToolPolicy.permission_policy" => mcp::McpToolPermissionPolicy,
        "McpServerToolPolicy.org_max_permission" => mcp::McpOrgMaxPermission,
        "McpServerStatus.status" => mcp::McpConnectionStatus,
        "SDKRateLimitInfo.status" => misc::RateLimitStatus,
        "PermissionMode" => permission::PermissionMode,
        "PermissionBehavior" => permission::PermissionBehavior,
        "PermissionUpdateDestination" => permission::PermissionUpdateDestination,
        "PermissionDecisionClassification" => permission::PermissionDecisionClassification,
        "SDKResultMessage:subtype" => result::ResultSubtype,
        "TerminalReason" => result::TerminalReason,
        "ApiKeySource" => system::ApiKeySource,
        "SDKCompactBoundaryMessage.compact_metadata.trigger" => system::CompactTrigger,
        "SDKStatusMessage.status" => system::SessionStatus,
        "SDKHookResponseMessage.outcome" => system::HookOutcome,
        "SDKPluginInstallMessage.status" => system::PluginInstallStatus,
        "SDKTaskNotificationMessage.status" => system::TaskStatus,
        "SDKTaskUpdatedMessage.patch.status" => system::TaskStatus,
        "SDKSessionStateChangedMessage.state" => system::SessionState,
        "SDKNotificationMessage.priority" => system::NotificationPriority,
        "SDKInformationalMessage.level" => system::InformationalLevel,
        "GrepInput.output_mode" => tools::GrepOutputMode,
        "TodoWriteInput.todos.status" => tools::TodoStatus,
        "FileReadOutput:type" => tools::ReadOutputKind,
        "FileWriteOutput.type" => tools::WriteKind,
        "SDKUserMessage.priority" => user::Priority,
    };
    Model { structs, values }
}

fn coverage() -> Vec<Coverage> {
    vec![
        Coverage {
            label: "stdout message",
            // StdoutMessage (not exported) adds these two and the control
            // envelopes, which the session reads, not the model.
            from: vec!["SDKMessage", "SDKActiveGoalMessage", "SDKKeepAliveMessage"],
            suffix: None,
            rules: vec![
                dispatch::<stdout::StdoutMessage>("stdout::StdoutMessage", None),
                dispatch::<system::SystemMessage>(
                    "system::SystemMessage",
                    Some(("type", "system")),
                ),
            ],
        },
        Coverage {
            label: "control request",
            from: vec!["SDKControlRequestInner"],
            suffix: None,
            rules: vec![
                dispatch::<control::ControlRequest>("control::ControlRequest", None),
                dispatch::<incoming::CliRequest>("incoming::CliRequest", None),
            ],
        },
        Coverage {
            label: "hook input",
            from: vec!["HookInput"],
            suffix: None,
            rules: vec![dispatch::<hooks::HookInput>("hooks::HookInput", None)],
        },
        Coverage {
            label: "built-in tool input",
            from: vec!["ToolInputSchemas"],
            suffix: Some("Input"),
            rules: vec![],
        },
    ]
}

#[test]
fn the_model_types_everything_the_pinned_sdk_declares() {
    let Some(decls) = sdk_declarations() else {
        return;
    };
    let report = check(&decls, &model(), &coverage(), ALLOW);
    assert!(
        report.is_clean(),
        "the model drifted from the declarations in {}:\n\n{}",
        sdk_dir().display(),
        report.render()
    );
}

#[test]
fn the_pinned_sdk_states_the_pinned_cli_version() {
    if sdk_declarations().is_none() {
        return;
    }
    let read = |path: std::path::PathBuf| -> serde_json::Value {
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    let sdk = read(sdk_dir().join("package.json"));
    let peer = read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("peer/package.json"));
    let cli = &peer["dependencies"]["@anthropic-ai/claude-code"];
    assert_eq!(
        &sdk["claudeCodeVersion"], cli,
        "the Agent SDK {} declares the wire types of CLI {}, but tests/peer pins CLI {}: \
         pin the SDK release whose claudeCodeVersion is the pinned CLI (tests/peer/sdk/package.json)",
        sdk["version"], sdk["claudeCodeVersion"], cli
    );
}
