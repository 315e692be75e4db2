//! Spares: a CLI started before the session it will serve is known
//! (`prewarm`), parked in a private directory with `--await-claim`, and
//! bound to a folder later by a [`Claim`]. What
//! every adapter shares: the options a spare starts with, and how a claim
//! that was not wholly applied is told apart from one to start cold.

use std::fmt;

use claude_proto::options::Options;
use claude_proto_host::{Claim, Claimed, Error, SpawnError};
use claude_proto_process::log;
use claude_proto_process::private::PrivateDir;

use crate::resume::{Prepared, SessionDir};
use crate::settings::Settings;

/// Makes `prepared` start a spare: `--await-claim`, and unless the options
/// name a working directory, a private parking directory (0700, removed
/// with the session) as the CLI's. Refuses what describes a session,
/// which a spare has none of yet (resume, continue, fork), and a session
/// store (its transcript key is the claimed folder's, not known yet).
pub fn park(prepared: &mut Prepared, has_store: bool) -> Result<(), SpawnError> {
    not_for_a_spare(&prepared.options, has_store)?;
    prepared.options.await_claim = true;
    if prepared.options.cwd.is_none() {
        let dir = PrivateDir::create("claude-proto-spare")?;
        prepared.options.cwd = Some(dir.path().to_path_buf());
        prepared.dir = Some(SessionDir::new(dir));
    }
    Ok(())
}

fn not_for_a_spare(options: &Options, has_store: bool) -> Result<(), SpawnError> {
    let what = match session_named(options) {
        Some(what) => what,
        None if has_store => "a session store",
        None => return Ok(()),
    };
    Err(SpawnError::NotForASpare { what })
}

/// Refuses the options of a pool of started sessions that name a session
/// to carry on (resume, continue, fork): every session the pool hands
/// out would carry on that one conversation. A session store is fine:
/// each new session is mirrored under its own id.
pub fn not_for_a_started_pool(options: &Options) -> Result<(), SpawnError> {
    match session_named(options) {
        Some(what) => Err(SpawnError::NotForAPool { what }),
        None => Ok(()),
    }
}

/// The option that names an existing session to carry on, if any.
fn session_named(options: &Options) -> Option<&'static str> {
    if options.resume.is_some() {
        Some("resume")
    } else if options.continue_conversation {
        Some("continue_conversation")
    } else if options.fork_session {
        Some("fork_session")
    } else {
        None
    }
}

/// What a claim's outcome makes of the session that was the spare: every
/// adapter's `Spare::claim` decides through this, and only closes a
/// [`Failed`](Judged::Failed) spare its own way.
pub fn judge<S>(session: S, outcome: Result<Claimed, Error>) -> Judged<S> {
    match outcome {
        Ok(claimed) if claimed.not_applied.is_empty() => Judged::Running(session),
        Ok(claimed) => Judged::Settled(ClaimError::NotApplied {
            session: Box::new(session),
            claimed: Box::new(claimed),
        }),
        Err(error) => Judged::Failed {
            spare: session,
            error,
        },
    }
}

/// The verdict of [`judge`].
#[derive(Debug)]
pub enum Judged<S> {
    /// The session runs as asked.
    Running(S),
    /// The session runs, but not wholly as asked: hand the error out.
    Settled(ClaimError<S>),
    /// The claim failed: close the spare (wait until it is gone), then
    /// hand out [`ClaimError::StartCold`] with `error`.
    Failed {
        /// The spare, being let go.
        spare: S,
        /// Why.
        error: Error,
    },
}

/// What a pool has done so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PoolStats {
    /// Sessions handed out from a claimed spare.
    pub claimed: u64,
    /// Sessions handed out already started (a pool of started sessions).
    pub handed_out: u64,
    /// Sessions started cold: none was parked, or its claim failed.
    pub started_cold: u64,
    /// Claims that failed (the session was then started cold).
    pub claims_failed: u64,
    /// Spares (or started sessions) that started and parked.
    pub spares_started: u64,
    /// Spares (or sessions) that failed to start for the pool.
    pub starts_failed: u64,
    /// Spares (or sessions) that died while parked.
    pub spares_lost: u64,
}

/// What a pool does with a claim's outcome: every adapter's pool decides
/// through this and counts it in `stats`. A session that runs as asked is
/// handed out; any other outcome means a cold start, after closing the
/// session the claim gave without its model or thinking budget, if any.
pub fn hand_out<S>(stats: &mut PoolStats, outcome: Result<S, ClaimError<S>>) -> HandOut<S> {
    match outcome {
        Ok(session) => {
            stats.claimed += 1;
            HandOut::Claimed(session)
        }
        Err(error) => {
            stats.claims_failed += 1;
            match error {
                ClaimError::NotApplied { session, claimed } => {
                    log::warn(format_args!(
                        "a claimed spare did not take {:?}: started cold instead",
                        claimed.not_applied
                    ));
                    HandOut::Cold {
                        close: Some(*session),
                    }
                }
                ClaimError::StartCold(error) => {
                    log::debug(format_args!("a claim failed, starting cold: {error}"));
                    HandOut::Cold { close: None }
                }
            }
        }
    }
}

/// The verdict of [`hand_out`].
#[derive(Debug)]
pub enum HandOut<S> {
    /// Hand this session out.
    Claimed(S),
    /// Start cold, after closing `close`.
    Cold {
        /// A session to close first (one running without what was asked).
        close: Option<S>,
    },
}

/// Sets `settings` up for the cold start `claim` describes (see
/// `Claim::cold_options`), the
/// title in the `initialize` request: a pool's fallback when a claim fails.
pub fn cold_settings<H>(settings: &mut Settings<H>, claim: &Claim) -> Result<(), SpawnError> {
    settings.options = claim
        .cold_options(settings.options.clone())
        .map_err(SpawnError::ClaimSettings)?;
    if let Some(title) = &claim.request().title {
        settings.initialize.title = Some(title.clone());
    }
    Ok(())
}

/// Why a claim did not give a session that runs as asked.
///
/// Either way, no prompt has been written. [`StartCold`](Self::StartCold):
/// the spare is gone (it exits on its own); start the session as usual.
/// [`NotApplied`](Self::NotApplied): the session is running, without the
/// options the CLI refused; use it, or close it and start cold.
#[non_exhaustive]
pub enum ClaimError<S> {
    /// The claim failed: refused by the CLI ([`Error::ClaimRefused`]), its
    /// settings overlay refused ([`Error::ClaimSettingsNotApplied`]), the
    /// spare dead or timed out. Start the session cold.
    StartCold(Error),
    /// The CLI took the session but not `model` or `max_thinking_tokens`
    /// ([`Claimed::not_applied`] says which and why).
    NotApplied {
        /// The claimed session, running without those options.
        session: Box<S>,
        /// The claim's answer.
        claimed: Box<Claimed>,
    },
}

impl<S> ClaimError<S> {
    /// Whether the caller must start the session cold (`false`: a session
    /// is running and comes with the error).
    pub fn must_start_cold(&self) -> bool {
        matches!(self, ClaimError::StartCold(_))
    }

    /// The running session, if the claim gave one.
    pub fn into_session(self) -> Option<S> {
        match self {
            ClaimError::NotApplied { session, .. } => Some(*session),
            ClaimError::StartCold(_) => None,
        }
    }
}

impl<S> fmt::Debug for ClaimError<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClaimError::StartCold(error) => f.debug_tuple("StartCold").field(error).finish(),
            ClaimError::NotApplied { claimed, .. } => f
                .debug_struct("NotApplied")
                .field("claimed", claimed)
                .finish_non_exhaustive(),
        }
    }
}

impl<S> fmt::Display for ClaimError<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClaimError::StartCold(error) => write!(f, "{error}"),
            ClaimError::NotApplied { claimed, .. } => {
                write!(f, "the spare took the session but not ")?;
                for (i, not) in claimed.not_applied.iter().enumerate() {
                    let sep = if i == 0 { "" } else { "; " };
                    write!(f, "{sep}{} ({})", not.option, not.reason)?;
                }
                write!(
                    f,
                    ": the session runs without them (no prompt was sent); use it or close it"
                )
            }
        }
    }
}

impl<S> std::error::Error for ClaimError<S> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ClaimError::StartCold(error) => Some(error),
            ClaimError::NotApplied { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_spare_parks_in_a_private_directory_removed_with_it() {
        let mut prepared = Prepared::unchanged(Options::new());
        park(&mut prepared, false).unwrap();
        assert!(prepared.options.await_claim);
        let dir = prepared.options.cwd.clone().unwrap();
        assert!(dir.is_dir());
        drop(prepared);
        assert!(!dir.exists(), "the parking directory was left behind");
    }

    #[test]
    fn a_spare_parks_where_the_options_say() {
        let mut prepared = Prepared::unchanged(Options::new().cwd("/srv/spares"));
        park(&mut prepared, false).unwrap();
        assert_eq!(
            prepared.options.cwd.as_deref(),
            Some("/srv/spares".as_ref())
        );
        assert!(prepared.dir.is_none());
    }

    #[test]
    fn what_describes_a_session_is_refused_for_a_spare() {
        for (options, store, what) in [
            (Options::new().resume("s"), false, "resume"),
            (
                Options::new().continue_conversation(true),
                false,
                "continue_conversation",
            ),
            (Options::new().fork_session(true), false, "fork_session"),
            (Options::new(), true, "a session store"),
        ] {
            let mut prepared = Prepared::unchanged(options);
            let Err(SpawnError::NotForASpare { what: got }) = park(&mut prepared, store) else {
                panic!("{what} was not refused");
            };
            assert_eq!(got, what);
            assert!(prepared.dir.is_none());
        }
    }
}
