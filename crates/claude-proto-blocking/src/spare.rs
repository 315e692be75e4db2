//! A parked spare: a CLI started before its session is known
//! ([`ClaudeBuilder::prewarm`](crate::ClaudeBuilder::prewarm)), bound to a
//! session by [`Spare::claim`].

use claude_proto_adapter::ClaimError;
use claude_proto_adapter::spare::{Judged, judge};
use std::sync::Arc;

use claude_proto::model::initialize::InitializeResponse;
use claude_proto_host::{Claim, Error, ExitReport};

use crate::client::Claude;

/// A CLI that has done its start-up and waits to be bound to a session.
///
/// Single use: [`claim`](Self::claim) turns it into a running [`Claude`],
/// or fails, after which it is gone. Until then it writes nothing to the
/// CLI but the claim. Dropping it closes the CLI and removes its parking
/// directory, as for any session; a spare whose CLI dies while parked
/// says so ([`is_alive`](Self::is_alive)) and fails its claim with
/// [`ClaimError::StartCold`].
#[derive(Debug)]
pub struct Spare {
    claude: Claude,
}

impl Spare {
    pub(crate) fn new(claude: Claude) -> Self {
        Self { claude }
    }

    /// The session inside: a pool parks spares as sessions.
    pub(crate) fn into_claude(self) -> Claude {
        self.claude
    }

    /// The CLI's process id.
    pub fn pid(&self) -> Option<u32> {
        self.claude.pid()
    }

    /// The spare's answer to `initialize`: what it started with (tools,
    /// models, account, the agents and commands of its parking directory).
    /// After a claim, the session's own answer replaces it.
    pub fn initialization(&self) -> Result<Arc<InitializeResponse>, Error> {
        self.claude.initialization()
    }

    /// Whether the spare's CLI still runs: a spare that died while parked
    /// should be replaced (its claim would fail).
    pub fn is_alive(&self) -> bool {
        !self.claude.has_ended()
    }

    /// Binds the spare to the session `claim` describes and returns it,
    /// running: send its first prompt with [`Claude::query`] as on any
    /// session. Blocks until the CLI has answered every request of the
    /// claim (bounded by their deadlines), so a session is never handed
    /// out under other settings than those asked for.
    ///
    /// Fails with [`ClaimError::StartCold`] when the claim was refused
    /// ([`Error::ClaimRefused`], with the CLI's reason), its settings
    /// overlay was refused ([`Error::ClaimSettingsNotApplied`]), or the
    /// spare died or did not answer: no prompt was written, and the spare
    /// is gone (its process has exited and its parking directory is
    /// removed by the time this returns); start the session with
    /// [`ClaudeBuilder::spawn`](crate::ClaudeBuilder::spawn). With
    /// [`ClaimError::NotApplied`], the session runs without the `model` or
    /// thinking budget the CLI refused; it comes with the error.
    ///
    /// After a claim, [`initialization`](crate::Controller::initialization)
    /// gives the claimed session's own `initialize` answer. The limits of a
    /// claimed session are those of the async adapters' `Spare::claim`:
    /// hook settings cannot be claimed (see [`Claim::settings`]), and that
    /// answer predates the model and the overlay keys applied after the
    /// claim.
    pub fn claim(self, claim: Claim) -> Result<Claude, ClaimError<Claude>> {
        let outcome = self.claude.claim(claim);
        match judge(self.claude, outcome) {
            Judged::Running(claude) => Ok(claude),
            Judged::Settled(error) => Err(error),
            Judged::Failed { spare, error } => {
                // The spare is let go: wait until it is gone, so the caller
                // starting cold never has two CLIs for one session.
                let _ = spare.close();
                Err(ClaimError::StartCold(error))
            }
        }
    }

    /// Discards the spare: closes its CLI and waits for it to exit (see
    /// [`Claude::close`]).
    pub fn close(self) -> Result<Option<ExitReport>, Error> {
        self.claude.close()
    }
}
