//! What a fork is asked for and what it makes ([`ForkOptions`],
//! [`Forked`]), and the plan the disk and a store both fork from.

use std::path::PathBuf;

use super::error::SessionsError;
use super::stamp::{new_uuid, now_millis};

/// What a fork is made from, beyond the session.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ForkOptions {
    /// Copy the conversation up to and including this message (a uuid);
    /// all of it if `None`.
    pub up_to_message_id: Option<String>,
    /// The fork's title; `<source title> (fork)` if `None` or blank.
    pub title: Option<String>,
}

impl ForkOptions {
    /// Copy up to and including `message_id`.
    #[must_use]
    pub fn up_to(mut self, message_id: impl Into<String>) -> Self {
        self.up_to_message_id = Some(message_id.into());
        self
    }

    /// Title the fork `title`.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }
}

/// A session made by [`Sessions::fork`](crate::Sessions::fork).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Forked {
    /// The new session's id.
    pub session_id: String,
    /// Its transcript.
    pub path: PathBuf,
}

/// The fork of `source` as `options` ask, and the title to derive it from
/// when they give none (`derive` runs only then): shared by the disk and
/// the store.
pub(crate) fn plan_fork(
    source: claude_proto::transcript::ForkSource,
    options: &ForkOptions,
    derive: impl FnOnce() -> Option<String>,
) -> Result<(claude_proto::transcript::Fork, Option<String>), SessionsError> {
    let up_to = options.up_to_message_id.as_deref();
    if let Some(up_to) = up_to.filter(|id| !claude_proto::transcript::is_uuid(id)) {
        return Err(SessionsError::InvalidMessageId(up_to.to_owned()));
    }
    let plan = claude_proto::transcript::Fork::plan(source, up_to, now_millis(), &mut new_uuid)?;
    let derived = match options.title.as_deref().map(str::trim) {
        Some(title) if !title.is_empty() => None,
        _ => derive(),
    };
    Ok((plan, derived))
}
