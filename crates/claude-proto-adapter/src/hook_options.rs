//! What a hook registration says besides its event: which occurrences,
//! how long the CLI waits, what it does on failure.

use claude_proto::model::hooks::HookFailureMode;

/// Options for one hook registration beyond its event.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct HookOptions {
    /// Which occurrences call the hook: for tool events a pattern of tool
    /// names such as `Write|Edit`; `None` means all.
    pub matcher: Option<String>,
    /// How long the CLI waits for the hook, in seconds.
    pub timeout_secs: Option<u64>,
    /// What the CLI does if the hook fails (its default: continue).
    pub on_failure: Option<HookFailureMode>,
}

impl HookOptions {
    /// Only for occurrences matching `pattern`.
    pub fn matching(pattern: impl Into<String>) -> Self {
        Self {
            matcher: Some(pattern.into()),
            ..Self::default()
        }
    }

    /// With a timeout in seconds.
    pub fn with_timeout(mut self, seconds: u64) -> Self {
        self.timeout_secs = Some(seconds);
        self
    }

    /// With a failure mode.
    pub fn with_on_failure(mut self, mode: HookFailureMode) -> Self {
        self.on_failure = Some(mode);
        self
    }
}
