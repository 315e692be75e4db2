//! The `type` discriminator of a line.

use super::common::string_enum;

string_enum! {
    /// The `type` field of a line, read before anything else about it.
    ///
    /// The set grows with every CLI release; anything not listed here is
    /// [`MessageType::Unknown`] and is still delivered.
    pub enum MessageType {
        /// `assistant`: a model message (one per completed content block while streaming).
        Assistant = "assistant",
        /// `user`: a user message, a tool result, or a replay of one.
        User = "user",
        /// `result`: the end of a turn, with cost and usage.
        Result = "result",
        /// `stream_event`: a raw Messages API stream event (with partial messages enabled).
        StreamEvent = "stream_event",
        /// `system`: one of many `subtype`s (`init`, `status`, ...).
        System = "system",
        /// `tool_progress`: a tool is still running.
        ToolProgress = "tool_progress",
        /// `auth_status`: authentication progress.
        AuthStatus = "auth_status",
        /// `tool_use_summary`: a summary of preceding tool calls.
        ToolUseSummary = "tool_use_summary",
        /// `rate_limit_event`: rate limit status changed.
        RateLimitEvent = "rate_limit_event",
        /// `prompt_suggestion`: a suggested next prompt (after `result`).
        PromptSuggestion = "prompt_suggestion",
        /// `conversation_reset`: the conversation was cleared.
        ConversationReset = "conversation_reset",
        /// `active_goal`: the active goal changed.
        ActiveGoal = "active_goal",
        /// `keep_alive`: a heartbeat; carries nothing.
        KeepAlive = "keep_alive",
        /// `control_request`: a request on the control channel.
        ControlRequest = "control_request",
        /// `control_response`: the answer to a control request.
        ControlResponse = "control_response",
        /// `control_cancel_request`: the sender withdrew a control request.
        ControlCancelRequest = "control_cancel_request",
        /// `transcript_mirror`: lines the CLI wrote to a transcript file, sent
        /// only when it runs with `--session-mirror` (see
        /// [`crate::transcript::MirrorFrame`]).
        TranscriptMirror = "transcript_mirror",
    }
}
