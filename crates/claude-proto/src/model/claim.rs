//! Claiming a parked spare: a CLI started with `--await-claim` (see
//! [`Options::await_claim`](crate::options::Options::await_claim)) starts up,
//! answers `initialize`, and waits for `claim_session`, which binds it to
//! a folder and a session before it reads a prompt.
//!
//! The request and its success answer are typed here; a refusal is an
//! error answer whose text starts with its reason (`cwd_not_found: …`),
//! read by [`ClaimRefusal::from_error`]. After a refusal the CLI answers a
//! prompt already sent with a `not_claimed` error result and exits.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::common::{Extra, Json, string_enum};
use super::initialize::AgentDefinition;
use super::permission::PermissionMode;
use super::wire::wire_struct;

wire_struct! {
    /// `claim_session`: bind a parked spare to a session. Fields left out
    /// keep what the spare was started with.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct ClaimSessionRequest {
        /// The session's working directory (the CLI expands `~/`).
        pub cwd: String,
        /// Environment for the session: only the variables the CLI reads
        /// after start-up (`CLAUDE_CODE_OAUTH_TOKEN`,
        /// `CLAUDE_CODE_SESSION_ACCESS_TOKEN`,
        /// `CLAUDE_CODE_HOST_SESSION_ID`); any other refuses the claim
        /// with `env_key_not_claimable`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub env: Option<BTreeMap<String, String>>,
        /// As `--add-dir`; relative entries resolve against `cwd`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub additional_directories: Option<Vec<String>>,
        /// The permission mode, applied as part of the claim: one the
        /// process cannot take refuses the claim
        /// (`permission_mode_not_claimable`), so a session never runs under
        /// another mode than the one asked for.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub permission_mode: Option<PermissionMode>,
        /// A system prompt replacing the spare's.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub system_prompt: Option<Vec<String>>,
        /// Text appended to the system prompt.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub append_system_prompt: Option<String>,
        /// Subagents of the session.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub agents: Option<BTreeMap<String, AgentDefinition>>,
        /// The session's title.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub title: Option<String>,
        /// The names of the in-process MCP servers the spare was started
        /// with, which the claimed session keeps.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub sdk_mcp_servers: Option<Vec<String>>,
        /// Ask for a fresh `initialize` answer for the claimed session.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub include_initialize: Option<bool>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

impl ClaimSessionRequest {
    /// A claim of the folder `cwd`, everything else as the spare started.
    pub fn new(cwd: impl Into<String>) -> Self {
        Self {
            cwd: cwd.into(),
            ..Self::default()
        }
    }
}

wire_struct! {
    /// The answer to a `claim_session` the CLI accepted.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[non_exhaustive]
    pub struct ClaimSessionResponse {
        /// `"ok"`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub status: Option<String>,
        /// The session's working directory as the CLI resolved it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub cwd: Option<String>,
        /// The session's id: its transcript's name.
        pub session_id: String,
        /// How long the spare was parked, in milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub parked_ms: Option<u64>,
        /// Whether the in-process MCP servers had connected when the claim
        /// was answered.
        #[serde(default)]
        pub sdk_mcp_settled: bool,
        /// The claimed session's `initialize` answer, when asked for with
        /// `include_initialize`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub initialize: Option<Json>,
        /// Fields not modelled by this crate.
        #[serde(flatten)]
        pub extra: Extra,
    }
}

string_enum! {
    /// Why the CLI refused a claim: the text before the first `:` of its
    /// error answer (or its `error_code`). After any of these the spare
    /// exits; start the session cold.
    pub enum ClaimRefusal {
        /// The process was not started with `--await-claim`, or was
        /// claimed already.
        NotASpare = "not_a_spare",
        /// The folder does not exist or cannot be entered.
        CwdNotFound = "cwd_not_found",
        /// An environment key the CLI reads only at start-up.
        EnvKeyNotClaimable = "env_key_not_claimable",
        /// The folder's project or local settings set something a claim
        /// cannot apply (`env`, `model`, `agent`, `fallbackModel`, a
        /// default permission mode).
        ProjectSettingsNotClaimable = "project_settings_not_claimable",
        /// The permission mode asked for cannot be taken.
        PermissionModeNotClaimable = "permission_mode_not_claimable",
        /// The claim broke after it began.
        ClaimFailed = "claim_failed",
        /// A proxy authentication helper is configured.
        ProxyAuthHelperNotClaimable = "proxy_auth_helper_not_claimable",
        /// An API key helper is configured.
        ApiKeyHelperNotClaimable = "api_key_helper_not_claimable",
        /// The provider's credentials are read at start-up.
        ProviderCredentialsNotClaimable = "provider_credentials_not_claimable",
    }
}

impl ClaimRefusal {
    /// The reason of a refused claim, from the CLI's error answer: the
    /// message's text before the first `": "` when that is a
    /// reason-shaped word (`snake_case`, the shape the TypeScript SDK
    /// trusts; its `claimed` rejects with this text), else the answer's
    /// `error_code` if it has that shape, else `None`.
    pub fn from_error(message: &str, code: Option<&str>) -> Option<Self> {
        let reason = message
            .split_once(": ")
            .map(|(head, _)| head)
            .filter(|head| is_reason(head))
            .or_else(|| code.filter(|c| is_reason(c)))?;
        Some(Self::from(reason))
    }
}

/// `^[a-z][a-z0-9_]{0,63}$`, the shape of an error code.
fn is_reason(text: &str) -> bool {
    let bytes = text.as_bytes();
    matches!(bytes.first(), Some(b'a'..=b'z'))
        && bytes.len() <= 64
        && bytes
            .iter()
            .all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'_'))
}

/// Settings keys that govern hooks: a claim cannot apply them, since the
/// folder's hooks may already run (give them to the spare when it starts).
pub const HOOK_SETTINGS: &[&str] = &[
    "hooks",
    "disableAllHooks",
    "allowManagedHooksOnly",
    "allowedHttpHookUrls",
    "httpHookAllowedEnvVars",
];

/// Settings keys of a claim's overlay that the CLI applies after the claim
/// (they must follow the folder's own settings); the rest of the overlay
/// goes before it, so it decides which of the folder's MCP servers and
/// plugins start.
pub const SETTINGS_AFTER_CLAIM: &[&str] = &[
    "model",
    "agent",
    "fastMode",
    "permissions",
    "availableModels",
    "disableAutoMode",
];

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn a_claim_writes_only_what_it_sets() {
        let mut claim = ClaimSessionRequest::new("/work");
        claim.permission_mode = Some(PermissionMode::Plan);
        claim.sdk_mcp_servers = Some(vec!["tools".into()]);
        assert_eq!(
            serde_json::to_value(&claim).unwrap(),
            json!({"cwd": "/work", "permission_mode": "plan", "sdk_mcp_servers": ["tools"]})
        );
    }

    #[test]
    fn the_answer_of_the_pinned_cli_is_read_whole() {
        let line = json!({"status":"ok","cwd":"/w","session_id":"s-1","parked_ms":2569,"sdk_mcp_settled":true,"workspace_trust_recorded":false});
        let answer: ClaimSessionResponse = serde_json::from_value(line.clone()).unwrap();
        assert_eq!(answer.session_id, "s-1");
        assert_eq!(answer.parked_ms, Some(2569));
        assert!(answer.sdk_mcp_settled);
        assert_eq!(serde_json::to_value(&answer).unwrap(), line);
    }

    #[test]
    fn a_refusal_is_read_from_the_code_or_the_text() {
        // As the pinned CLI words them.
        let cases = [
            (
                "cwd_not_found: the claim cwd does not exist or is not accessible",
                None,
                ClaimRefusal::CwdNotFound,
            ),
            (
                "env_key_not_claimable: FOO is read during start-up; pass it in the spare's spawn env instead",
                None,
                ClaimRefusal::EnvKeyNotClaimable,
            ),
            (
                "project_settings_not_claimable: settings.json in the claimed directory sets model",
                Some("project_settings_not_claimable"),
                ClaimRefusal::ProjectSettingsNotClaimable,
            ),
            (
                "permission_mode_not_claimable: Cannot set permission mode",
                None,
                ClaimRefusal::PermissionModeNotClaimable,
            ),
            (
                "brand_new: text",
                None,
                ClaimRefusal::Unknown("brand_new".into()),
            ),
        ];
        for (message, code, want) in cases {
            assert_eq!(ClaimRefusal::from_error(message, code), Some(want));
        }
        assert_eq!(ClaimRefusal::from_error("Something: broke", None), None);
        assert_eq!(ClaimRefusal::from_error("no reason", None), None);
        assert_eq!(
            ClaimRefusal::from_error("no reason", Some("claim_failed")),
            Some(ClaimRefusal::ClaimFailed)
        );
    }
}
