//! Claiming a parked spare: what a claim may carry, the order its requests
//! go out in, and how their answers decide the outcome.
//!
//! A spare is a CLI started with `--await-claim` (see [`Host::park`]). A
//! claim ([`Command::Claim`]) sends, in order: the part of the settings
//! overlay that decides which of the folder's servers and plugins start
//! (`apply_flag_settings`), `claim_session`, `set_model`,
//! `set_max_thinking_tokens`, and the overlay's keys that must follow the
//! folder's own settings ([`SETTINGS_AFTER_CLAIM`]). Prompts are held
//! from the moment the host parks until every one of those is answered, so
//! none reaches a CLI that has not taken the session as asked:
//!
//! - `claim_session` refused, or any answer missing (timeout, exit): the
//!   claim fails, no prompt was written, and the spare is let go (stdin
//!   closed; the CLI exits on its own). Start the session cold.
//! - the overlay refused: the same, with [`Error::ClaimSettingsNotApplied`].
//! - only `model` or `max_thinking_tokens` refused: the claim succeeds
//!   with [`Claimed::not_applied`] naming them, and the session runs
//!   without them; the caller decides whether to use it.
//!
//! [`Host::park`]: crate::Host::park
//! [`Command::Claim`]: crate::Command::Claim

use std::path::PathBuf;
use std::time::Duration;

use claude_proto::model::claim::{
    ClaimRefusal, ClaimSessionRequest, ClaimSessionResponse, HOOK_SETTINGS, SETTINGS_AFTER_CLAIM,
};
use claude_proto::model::control::ControlRequest;
use claude_proto::model::initialize::AgentDefinition;
use claude_proto::model::permission::PermissionMode;
use claude_proto::model::{Extra, Json};
use claude_proto::options::{Options, Settings};
use claude_proto::{ControlError, ControlOutcome, RequestId};

use crate::error::{Error, UnmergeableSettings};

/// What a claim binds a parked spare to: the session's folder and the
/// per-session options a running CLI can still take. Everything else (the
/// executable, tools, hooks, handlers, in-process MCP servers, settings
/// read at start-up, the environment) was fixed when the spare started.
#[derive(Debug, Clone, PartialEq)]
#[must_use = "a claim does nothing until it is given to a spare"]
pub struct Claim {
    request: ClaimSessionRequest,
    model: Option<String>,
    max_thinking_tokens: Option<u64>,
    settings: Option<Extra>,
}

impl Claim {
    /// A claim of the folder `cwd` (relative paths resolve against the
    /// CLI's parking directory, so give an absolute one; `~/` is expanded
    /// by the CLI).
    pub fn new(cwd: impl Into<String>) -> Self {
        Self {
            request: ClaimSessionRequest::new(cwd),
            model: None,
            max_thinking_tokens: None,
            settings: None,
        }
    }

    /// Adds an environment variable for the session. The pinned CLI takes
    /// only `CLAUDE_CODE_OAUTH_TOKEN`, `CLAUDE_CODE_SESSION_ACCESS_TOKEN`
    /// and `CLAUDE_CODE_HOST_SESSION_ID` here; any other refuses the claim
    /// ([`ClaimRefusal::EnvKeyNotClaimable`]): give it to the spare's
    /// options instead.
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.request
            .env
            .get_or_insert_with(Default::default)
            .insert(key.into(), value.into());
        self
    }

    /// Adds a directory the session may use, as `--add-dir` (relative to
    /// the claimed folder; a missing one is skipped).
    pub fn additional_directory(mut self, dir: impl Into<String>) -> Self {
        self.request
            .additional_directories
            .get_or_insert_with(Vec::new)
            .push(dir.into());
        self
    }

    /// The session's permission mode. It is part of the claim itself: a
    /// mode the CLI cannot take refuses the claim
    /// ([`ClaimRefusal::PermissionModeNotClaimable`]), so a session never
    /// runs under another mode than this one.
    pub fn permission_mode(mut self, mode: PermissionMode) -> Self {
        self.request.permission_mode = Some(mode);
        self
    }

    /// The session's model, set right after the claim (`set_model`). If
    /// the CLI refuses it, the claim still succeeds, with
    /// [`Claimed::not_applied`] saying so.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// The session's thinking budget, set right after the claim; refused,
    /// it is reported like [`model`](Self::model).
    pub fn max_thinking_tokens(mut self, tokens: u64) -> Self {
        self.max_thinking_tokens = Some(tokens);
        self
    }

    /// Text appended to the system prompt the spare started with.
    pub fn append_system_prompt(mut self, text: impl Into<String>) -> Self {
        self.request.append_system_prompt = Some(text.into());
        self
    }

    /// The session's title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.request.title = Some(title.into());
        self
    }

    /// Adds a subagent.
    pub fn agent(mut self, name: impl Into<String>, agent: AgentDefinition) -> Self {
        self.request
            .agents
            .get_or_insert_with(Default::default)
            .insert(name.into(), agent);
        self
    }

    /// A flag-layer settings overlay (`{"effortLevel": "high"}`, permission
    /// rules, which of the folder's MCP servers may start, ...), applied as
    /// `apply_flag_settings` does. Prompts wait until the CLI accepted it;
    /// refused, the claim fails with [`Error::ClaimSettingsNotApplied`].
    ///
    /// Keys that govern hooks ([`HOOK_SETTINGS`]) are refused here, before
    /// anything is sent: the folder's hooks may run before a claim's
    /// overlay is applied. Give them to the spare's options instead.
    pub fn settings(mut self, overlay: Extra) -> Result<Self, UnclaimableSettings> {
        let keys: Vec<String> = HOOK_SETTINGS
            .iter()
            .filter(|key| overlay.contains_key(**key))
            .map(|key| (*key).to_owned())
            .collect();
        if !keys.is_empty() {
            return Err(UnclaimableSettings { keys });
        }
        self.settings = Some(overlay);
        Ok(self)
    }

    /// The `claim_session` request this claim sends (without the in-process
    /// MCP servers, which the host adds).
    pub fn request(&self) -> &ClaimSessionRequest {
        &self.request
    }

    /// The options of the cold session this claim describes, made from the
    /// options the spare started with: what to start when a claim fails.
    /// The folder becomes the working directory, and the rest goes where a
    /// cold start reads it: the environment, `--add-dir`, the permission
    /// mode, model and thinking budget, the appended system prompt (which
    /// replaces the spare's), the agents, and the overlay merged over
    /// inline settings. The title goes in the `initialize` request (the
    /// [`request`](Self::request)'s `title`).
    ///
    /// Fails only when the claim has a settings overlay and the spare's
    /// settings are a file, which cannot be merged.
    pub fn cold_options(&self, mut options: Options) -> Result<Options, UnmergeableSettings> {
        if let Some(overlay) = &self.settings {
            options.settings = match options.settings.take() {
                None => Some(Settings::Inline(Json::Object(overlay.clone()))),
                Some(Settings::Inline(Json::Object(mut base))) => {
                    base.extend(overlay.clone());
                    Some(Settings::Inline(Json::Object(base)))
                }
                Some(Settings::Inline(_)) => Some(Settings::Inline(Json::Object(overlay.clone()))),
                Some(Settings::Path(path)) => {
                    return Err(UnmergeableSettings {
                        what: format!("the settings file {}", path.display()),
                    });
                }
                Some(other) => {
                    return Err(UnmergeableSettings {
                        what: format!("{other:?}"),
                    });
                }
            };
        }
        let request = &self.request;
        options.await_claim = false;
        options.cwd = Some(PathBuf::from(&request.cwd));
        for (key, value) in request.env.iter().flatten() {
            options = options.env(key, value);
        }
        options.add_dirs.extend(
            request
                .additional_directories
                .iter()
                .flatten()
                .map(PathBuf::from),
        );
        if let Some(mode) = &request.permission_mode {
            options.permission_mode = Some(mode.clone());
        }
        if let Some(text) = &request.append_system_prompt {
            options.append_system_prompt = Some(text.clone());
        }
        if let Some(agents) = &request.agents {
            options.agents.extend(agents.clone());
        }
        if let Some(model) = &self.model {
            options.model = Some(model.clone());
        }
        if let Some(tokens) = self.max_thinking_tokens {
            options = options.max_thinking_tokens(u32::try_from(tokens).unwrap_or(u32::MAX));
        }
        Ok(options)
    }

    /// The requests of the claim, in the order they are written, each with
    /// its part.
    fn requests(&self, sdk_mcp_servers: Vec<String>) -> Vec<(Part, ControlRequest)> {
        let mut requests = Vec::new();
        let (before, after) = match &self.settings {
            Some(overlay) => {
                let (after, before): (Extra, Extra) = overlay
                    .clone()
                    .into_iter()
                    .partition(|(key, _)| SETTINGS_AFTER_CLAIM.contains(&key.as_str()));
                (Some(before), Some(after))
            }
            None => (None, None),
        };
        if let Some(before) = before.filter(|b| !b.is_empty()) {
            requests.push((Part::Settings, ControlRequest::apply_flag_settings(before)));
        }
        let mut request = self.request.clone();
        request.sdk_mcp_servers = Some(sdk_mcp_servers);
        // The claimed session's own `initialize` answer, as the TypeScript
        // SDK asks for it: the folder's agents, commands, permission mode.
        request.include_initialize = Some(true);
        requests.push((Part::Claim, ControlRequest::ClaimSession(request)));
        if let Some(model) = &self.model {
            requests.push((Part::Model, ControlRequest::set_model(Some(model))));
        }
        if let Some(tokens) = self.max_thinking_tokens {
            requests.push((
                Part::MaxThinkingTokens,
                ControlRequest::set_max_thinking_tokens(Some(tokens)),
            ));
        }
        if let Some(after) = after.filter(|a| !a.is_empty()) {
            requests.push((Part::Settings, ControlRequest::apply_flag_settings(after)));
        }
        requests
    }
}

/// A claim's settings overlay carried keys that govern hooks; nothing was
/// sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "a claim cannot apply hook settings ({}): the folder's hooks may run before it; give them to the spare's options (`Options::settings`), where they hold before any hook as on a cold start",
    keys.join(", ")
)]
pub struct UnclaimableSettings {
    /// The keys refused.
    pub keys: Vec<String>,
}

/// A claim the CLI accepted.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Claimed {
    /// The session's id: its transcript's name.
    pub session_id: String,
    /// The folder as the CLI resolved it, if it said.
    pub cwd: Option<String>,
    /// How long the spare was parked, if the CLI said.
    pub parked: Option<Duration>,
    /// Options the CLI did not take (`model`, `max_thinking_tokens`): the
    /// session runs without them. Empty when everything was applied.
    pub not_applied: Vec<NotApplied>,
    /// The whole `claim_session` answer.
    pub answer: ClaimSessionResponse,
}

/// An option of a claim the CLI refused while it took the session.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct NotApplied {
    /// `model` or `max_thinking_tokens`.
    pub option: &'static str,
    /// Why, in the CLI's words.
    pub reason: String,
}

/// Which request of a claim an answer is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Claim,
    Settings,
    Model,
    MaxThinkingTokens,
}

/// A claim whose answers are still coming.
#[derive(Debug)]
pub(crate) struct Claiming<W> {
    waiter: W,
    waiting: Vec<(RequestId, Part)>,
    answer: Option<ClaimSessionResponse>,
    settings_refused: Option<String>,
    not_applied: Vec<NotApplied>,
}

/// Where a session stands as a spare.
#[derive(Debug, Default)]
pub(crate) enum Spare<W> {
    /// Not a spare, or claimed: prompts are not held for a claim.
    #[default]
    No,
    /// Waiting for its claim.
    Parked,
    /// A claim is under way.
    Claiming(Box<Claiming<W>>),
    /// The claim failed: the spare is being let go.
    Failed,
}

/// What an answer did to a claim under way.
pub(crate) enum Step<W> {
    /// Not an answer of the claim: given back.
    NotMine(ControlOutcome),
    /// More answers are due.
    Waiting,
    /// The claim is decided.
    Done(W, Result<Claimed, Error>),
}

impl<W> Spare<W> {
    /// Whether prompts wait for a claim.
    pub(crate) fn holds(&self) -> bool {
        matches!(self, Spare::Parked | Spare::Claiming(_) | Spare::Failed)
    }

    /// Starts `claim`, if the session is parked: `send` writes one request
    /// and gives its id. Gives the waiter back with the error otherwise.
    pub(crate) fn begin(
        &mut self,
        claim: &Claim,
        sdk_mcp_servers: Vec<String>,
        waiter: W,
        mut send: impl FnMut(&ControlRequest) -> Result<RequestId, Error>,
    ) -> Result<(), (W, Error)> {
        match self {
            Spare::Parked => {}
            Spare::No => {
                return Err((
                    waiter,
                    Error::NotParked {
                        why: "it was not started as a spare, or was claimed already",
                    },
                ));
            }
            Spare::Claiming(_) | Spare::Failed => {
                return Err((
                    waiter,
                    Error::NotParked {
                        why: "a claim was made already",
                    },
                ));
            }
        }
        let mut waiting = Vec::new();
        for (part, request) in claim.requests(sdk_mcp_servers) {
            match send(&request) {
                Ok(id) => waiting.push((id, part)),
                Err(error) => {
                    *self = Spare::Failed;
                    return Err((waiter, error));
                }
            }
        }
        *self = Spare::Claiming(Box::new(Claiming {
            waiter,
            waiting,
            answer: None,
            settings_refused: None,
            not_applied: Vec::new(),
        }));
        Ok(())
    }

    /// Takes `outcome` if it answers one of the claim's requests.
    /// `convert` turns a failure into the session's error.
    pub(crate) fn answer(
        &mut self,
        outcome: ControlOutcome,
        convert: impl FnOnce(ControlError) -> Error,
    ) -> Step<W> {
        let Spare::Claiming(claiming) = self else {
            return Step::NotMine(outcome);
        };
        let Some(at) = claiming.waiting.iter().position(|(w, _)| *w == outcome.id) else {
            return Step::NotMine(outcome);
        };
        let (_, part) = claiming.waiting.swap_remove(at);
        match (part, outcome.result) {
            (Part::Claim, Ok(success)) => match success.decode_as::<ClaimSessionRequest>() {
                Ok(answer) => claiming.answer = Some(answer),
                Err(error) => return self.fail(Error::from(error)),
            },
            (Part::Claim, Err(ControlError::Rejected { message, code, .. })) => {
                let refusal = ClaimRefusal::from_error(&message, code.as_deref());
                return self.fail(Error::ClaimRefused { refusal, message });
            }
            (Part::Claim, Err(other)) => return self.fail(convert(other)),
            (Part::Settings, Ok(_)) | (Part::Model, Ok(_)) | (Part::MaxThinkingTokens, Ok(_)) => {}
            (Part::Settings, Err(error)) => {
                claiming.settings_refused = Some(convert(error).to_string());
            }
            (Part::Model, Err(error)) => claiming.not_applied.push(NotApplied {
                option: "model",
                reason: convert(error).to_string(),
            }),
            (Part::MaxThinkingTokens, Err(error)) => claiming.not_applied.push(NotApplied {
                option: "max_thinking_tokens",
                reason: convert(error).to_string(),
            }),
        }
        if !claiming.waiting.is_empty() {
            return Step::Waiting;
        }
        let Spare::Claiming(claiming) = std::mem::take(self) else {
            return Step::Waiting;
        };
        let Claiming {
            waiter,
            answer,
            settings_refused,
            not_applied,
            ..
        } = *claiming;
        let Some(answer) = answer else {
            // Unreachable: the claim's own answer is among those awaited,
            // and a failed one returned above.
            *self = Spare::Failed;
            return Step::Done(
                waiter,
                Err(Error::NotParked {
                    why: "the claim was not answered",
                }),
            );
        };
        if let Some(message) = settings_refused {
            *self = Spare::Failed;
            return Step::Done(
                waiter,
                Err(Error::ClaimSettingsNotApplied {
                    message,
                    session_id: answer.session_id,
                }),
            );
        }
        Step::Done(
            waiter,
            Ok(Claimed {
                session_id: answer.session_id.clone(),
                cwd: answer.cwd.clone(),
                parked: answer.parked_ms.map(Duration::from_millis),
                not_applied,
                answer,
            }),
        )
    }

    fn fail(&mut self, error: Error) -> Step<W> {
        match std::mem::replace(self, Spare::Failed) {
            Spare::Claiming(claiming) => Step::Done(claiming.waiter, Err(error)),
            // Only called while claiming.
            _ => Step::Waiting,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn overlay(value: serde_json::Value) -> Extra {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn a_failed_claim_starts_cold_with_what_it_asked_for() {
        let claim = Claim::new("/srv/project")
            .env("CLAUDE_CODE_HOST_SESSION_ID", "h-1")
            .additional_directory("/srv/shared")
            .permission_mode(PermissionMode::Plan)
            .model("opus")
            .max_thinking_tokens(2048)
            .append_system_prompt("Be brief.")
            .title("t")
            .settings(overlay(json!({"effortLevel": "high"})))
            .unwrap();
        let spare = Options::new()
            .await_claim(true)
            .settings(Settings::Inline(json!({"env": {"A": "1"}})));
        let cold = claim.cold_options(spare).unwrap();
        assert!(!cold.await_claim);
        assert_eq!(cold.cwd.as_deref(), Some("/srv/project".as_ref()));
        assert_eq!(cold.add_dirs, [PathBuf::from("/srv/shared")]);
        assert_eq!(cold.permission_mode, Some(PermissionMode::Plan));
        assert_eq!(cold.model.as_deref(), Some("opus"));
        assert_eq!(cold.append_system_prompt.as_deref(), Some("Be brief."));
        assert!(
            cold.env
                .iter()
                .any(|(k, v)| k == "CLAUDE_CODE_HOST_SESSION_ID" && v == "h-1")
        );
        let Some(Settings::Inline(settings)) = &cold.settings else {
            panic!("{:?}", cold.settings)
        };
        assert_eq!(settings, &json!({"env": {"A": "1"}, "effortLevel": "high"}));
        assert_eq!(claim.request().title.as_deref(), Some("t"));
        assert_eq!(
            cold.thinking,
            Options::new().max_thinking_tokens(2048).thinking
        );
    }

    #[test]
    fn an_overlay_cannot_be_merged_into_a_settings_file() {
        let claim = Claim::new("/a")
            .settings(overlay(json!({"effortLevel": "high"})))
            .unwrap();
        let error = claim
            .cold_options(Options::new().settings(Settings::Path("/etc/s.json".into())))
            .unwrap_err();
        assert!(error.what.contains("/etc/s.json"), "{error}");
        // Without an overlay the file stays.
        assert!(
            Claim::new("/a")
                .cold_options(Options::new().settings(Settings::Path("/etc/s.json".into())))
                .is_ok()
        );
    }
}
