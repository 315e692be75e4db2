//! The trait a backend implements.

use std::future::Future;
use std::pin::Pin;

use crate::SessionKey;

/// One transcript line, as the CLI wrote it: a JSON object, kept as its
/// text. Backends store it as it is; reading it back must give a value
/// equal to it as JSON (key order and number spelling may differ, as in a
/// database's JSON column).
pub type Entry = claude_proto::transcript::Entry;

/// What a store's methods return: a boxed future, so a store can be shared
/// as `Arc<dyn SessionStore>` and called from any runtime (or from a plain
/// thread with [`block_on`](crate::block_on)).
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// A session listed by [`SessionStore::list_sessions`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSession {
    /// The session's id.
    pub session_id: String,
    /// When the store last wrote it, in Unix epoch milliseconds.
    pub mtime: i64,
}

/// A session's summary, kept up to date by the store as it appends (see
/// [`SessionStore::list_session_summaries`]): the core's type, so a store
/// folds with [`claude_proto::transcript::fold_summary`].
pub use claude_proto::transcript::SessionSummary;

/// Why a store call failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The store does not implement this optional method.
    #[error("this session store does not implement `{method}`")]
    Unsupported {
        /// The method's name.
        method: &'static str,
    },
    /// The key cannot be stored by this backend (a path component that
    /// would leave its directory, say).
    #[error("the session key `{key}` cannot be stored here: {reason}")]
    InvalidKey {
        /// The key.
        key: SessionKey,
        /// Why.
        reason: String,
    },
    /// The backend failed (I/O, the database, the network).
    #[error("the session store failed: {0}")]
    Backend(#[source] Box<dyn std::error::Error + Send + Sync>),
}

impl StoreError {
    /// A backend failure from any error.
    pub fn backend(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Self::Backend(error.into())
    }

    /// `true` if the method is not implemented by this store.
    pub fn is_unsupported(&self) -> bool {
        matches!(self, Self::Unsupported { .. })
    }
}

/// A place that keeps session transcripts, shared by the machines that run
/// sessions.
///
/// Only [`append`](Self::append) and [`load`](Self::load) are required;
/// the others return [`StoreError::Unsupported`] unless implemented, and
/// callers treat that as "this store cannot" (deleting from a store without
/// [`delete`](Self::delete) does nothing, for example). Every backend in
/// this crate implements all of them and passes the
/// [`conformance`](crate::conformance) suite.
pub trait SessionStore: Send + Sync + 'static {
    /// Appends `entries` to the transcript at `key`, after what earlier
    /// calls appended. An empty slice changes nothing (and creates no
    /// key). Called by a session's mirror one batch at a time, in order;
    /// a batch may be retried after a failure, so a store may skip entries
    /// whose `uuid` it already holds for `key`.
    fn append<'a>(&'a self, key: &'a SessionKey, entries: &'a [Entry]) -> StoreFuture<'a, ()>;

    /// Everything appended at `key`, in order; `None` if nothing ever was.
    fn load<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<Entry>>>;

    /// The sessions of a project (main transcripts only), in any order.
    fn list_sessions<'a>(&'a self, project_key: &'a str) -> StoreFuture<'a, Vec<StoredSession>> {
        let _ = project_key;
        unsupported("list_sessions")
    }

    /// The summaries of a project's sessions, in one call: a store that
    /// keeps them (folding each main-transcript batch with
    /// `claude_proto::transcript::fold_summary` as it appends) lets a
    /// listing skip loading every session.
    fn list_session_summaries<'a>(
        &'a self,
        project_key: &'a str,
    ) -> StoreFuture<'a, Vec<SessionSummary>> {
        let _ = project_key;
        unsupported("list_session_summaries")
    }

    /// Deletes the transcript at `key`; a main transcript's key also
    /// deletes everything under its session (its subagents). Deleting a
    /// key that does not exist succeeds.
    fn delete<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, ()> {
        let _ = key;
        unsupported("delete")
    }

    /// The subpaths under `key`'s session (its subagents' transcripts),
    /// in any order; never the main transcript.
    fn list_subkeys<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Vec<String>> {
        let _ = key;
        unsupported("list_subkeys")
    }
}

fn unsupported<'a, T: Send + 'a>(method: &'static str) -> StoreFuture<'a, T> {
    Box::pin(std::future::ready(Err(StoreError::Unsupported { method })))
}
