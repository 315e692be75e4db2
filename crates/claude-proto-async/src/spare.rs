//! A parked spare: a CLI started before its session is known
//! ([`ClaudeBuilder::prewarm`](crate::ClaudeBuilder::prewarm)), bound to a
//! session by [`Spare::claim`].

use std::fmt;
use std::future::Future;

use claude_proto_adapter::ClaimError;
use claude_proto_adapter::spare::{Judged, judge};
use std::sync::Arc;

use claude_proto::model::initialize::InitializeResponse;
use claude_proto_host::{Claim, Error, ExitReport};

use crate::client::Claude;
use crate::runtime::Runtime;

/// A CLI that has done its start-up and waits to be bound to a session.
///
/// Single use: [`claim`](Self::claim) turns it into a running [`Claude`],
/// or fails, after which it is gone. Until then it writes nothing to the
/// CLI but the claim. Dropping it closes the CLI and removes its parking
/// directory, as for any session; a spare whose CLI dies while parked
/// reports it ([`is_alive`](Self::is_alive), [`exited`](Self::exited)) and
/// fails its claim with [`ClaimError::StartCold`].
pub struct Spare<R: Runtime> {
    claude: Claude<R>,
}

impl<R: Runtime> fmt::Debug for Spare<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Spare")
            .field("pid", &self.claude.pid())
            .finish_non_exhaustive()
    }
}

impl<R: Runtime> Spare<R> {
    pub(crate) fn new(claude: Claude<R>) -> Self {
        Self { claude }
    }

    /// The session inside: a pool parks spares as sessions.
    pub(crate) fn into_claude(self) -> Claude<R> {
        self.claude
    }

    /// The CLI's process id.
    pub fn pid(&self) -> Option<u32> {
        self.claude.pid()
    }

    /// The spare's answer to `initialize`: what it started with (tools,
    /// models, account, the agents and commands of its parking directory).
    /// After a claim, the session's own answer replaces it.
    pub async fn initialization(&self) -> Result<Arc<InitializeResponse>, Error> {
        self.claude.initialization().await
    }

    /// Whether the spare's CLI still runs: a spare that died while parked
    /// should be replaced (its claim would fail).
    pub fn is_alive(&self) -> bool {
        !self.claude.has_ended()
    }

    /// Resolves when the spare's CLI has exited (a parked spare that dies,
    /// say); it does not borrow the spare, so a task can watch it while the
    /// spare waits elsewhere. Cancel-safe.
    pub fn exited(&self) -> impl Future<Output = ()> + Send + 'static {
        self.claude.finished()
    }

    /// Binds the spare to the session `claim` describes and returns it,
    /// running: send its first prompt with [`Claude::query`] as on any
    /// session. Returns once the CLI has answered every request of the
    /// claim, so a session is never handed out under other settings than
    /// those asked for.
    ///
    /// Fails with [`ClaimError::StartCold`] when the claim was refused
    /// ([`Error::ClaimRefused`], with the CLI's reason), its settings
    /// overlay was refused ([`Error::ClaimSettingsNotApplied`]), or the
    /// spare died or did not answer: no prompt was written, the spare is
    /// gone (its process has exited and its parking directory is removed
    /// by the time this returns); start the session with
    /// [`ClaudeBuilder::spawn`](crate::ClaudeBuilder::spawn). With
    /// [`ClaimError::NotApplied`], the session runs without the `model` or
    /// thinking budget the CLI refused; it comes with the error.
    ///
    /// After a claim, the session's hooks and callbacks are a cold
    /// session's in that folder, and its transcript holds the same
    /// conversation, with `relocated` entries the CLI adds (where the
    /// session moved to); and
    /// [`initialization`](crate::Controller::initialization) gives the
    /// claimed session's own `initialize` answer (the folder's agents,
    /// commands, permission mode), with the limits the TypeScript SDK
    /// names: hook settings cannot be claimed (see [`Claim::settings`]),
    /// and that answer is taken as part of the claim, before the model and
    /// the overlay keys that follow the claim are applied, so fields they
    /// decide (`fast_mode_state`, `output_style`, say) may not show them.
    ///
    /// Cancel-safe in effect: a future dropped before the answer drops the
    /// session, which closes the spare.
    pub async fn claim(self, claim: Claim) -> Result<Claude<R>, ClaimError<Claude<R>>> {
        let outcome = self.claude.claim(claim).await;
        match judge(self.claude, outcome) {
            Judged::Running(claude) => Ok(claude),
            Judged::Settled(error) => Err(error),
            Judged::Failed { spare, error } => {
                // The spare is let go: wait until it is gone, so the caller
                // starting cold never has two CLIs for one session. Its exit
                // is already under way (stdin closed), so this is short.
                let _ = spare.close().await;
                Err(ClaimError::StartCold(error))
            }
        }
    }

    /// Discards the spare: closes its CLI and waits for it to exit (see
    /// [`Claude::close`]).
    pub async fn close(self) -> Result<Option<ExitReport>, Error> {
        self.claude.close().await
    }
}
