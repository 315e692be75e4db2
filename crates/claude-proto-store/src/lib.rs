//! Where a session's transcript is kept besides the CLI's own files: the
//! [`SessionStore`] trait, its backends, and the suite every backend must
//! pass.
//!
//! With a store set on a session, the CLI is started with
//! `--session-mirror` and streams every line it writes to its transcript
//! (`transcript_mirror`); the session appends them to the store in order,
//! off the protocol's path. A session resumed with a store is loaded from
//! it into a private temporary config directory first, so a session
//! started on one machine continues on another that shares the store.
//!
//! The backends:
//!
//! - [`MemoryStore`]: in this process, for tests and single-run programs.
//! - [`DirectoryStore`]: one JSONL file per transcript under a directory,
//!   the default needing no server (a network mount shares it between
//!   machines).
//! - `PostgresStore` (feature `postgres`): one table in a PostgreSQL
//!   database, for machines that share a server.
//!
//! A backend of your own implements [`SessionStore`] and checks itself
//! with [`conformance::run`] or [`conformance::run_with`], the contracts of
//! the Python SDK's conformance suite.
#![deny(missing_docs)]

mod block_on;
pub mod conformance;
mod directory;
mod memory;
#[cfg(feature = "postgres")]
mod postgres;
mod store;
mod worker;

pub use block_on::{block_on, block_on_until};
pub use claude_proto::transcript::SessionKey;
pub use directory::DirectoryStore;
pub use memory::MemoryStore;
#[cfg(feature = "postgres")]
pub use postgres::{PostgresOptions, PostgresStore};
pub use store::{Entry, SessionStore, SessionSummary, StoreError, StoreFuture, StoredSession};
