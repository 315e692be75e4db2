//! Sessions in one place: where the CLI keeps them on disk, and where a
//! session's transcript is kept besides: a session store.
//!
//! - [`Sessions`]: a user's sessions in the CLI's own files: list, read
//!   (and their subagents'), rename, tag, fork, delete; blocking file IO.
//!   [`StoreSessions`] asks the same of a store, with async methods.
//! - [`SessionStore`]: where a session's transcript is mirrored. With a
//!   store set on a session, the CLI is started with `--session-mirror`
//!   and streams every line it writes to its transcript
//!   (`transcript_mirror`); the session appends them to the store in
//!   order, off the protocol's path. A session resumed with a store is
//!   loaded from it into a private temporary config directory first, so a
//!   session started on one machine continues on another that shares the
//!   store.
//! - [`import_transcripts`]: copies sessions from the CLI's files into a
//!   store.
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
// docs.rs: each feature-gated item is labelled with the feature it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

mod block_on;
mod config_dir;
pub mod conformance;
mod directory;
mod disk;
mod import;
mod memory;
#[cfg(feature = "postgres")]
mod postgres;
mod store;
mod worker;

pub use block_on::{block_on, block_on_until};
pub use claude_proto::transcript::SessionKey;
pub use config_dir::{config_dir, configured_config_dir};
pub use directory::DirectoryStore;
pub use disk::{
    ForkError, ForkOptions, Forked, Page, SessionInfo, SessionMessage, Sessions, SessionsError,
    StoreForked, StoreSessions, project_key_for_directory,
};
pub use import::{ImportError, ImportReport, import_transcripts};
pub use memory::MemoryStore;
#[cfg(feature = "postgres")]
pub use postgres::{PostgresOptions, PostgresStore};
pub use store::{Entry, SessionStore, SessionSummary, StoreError, StoreFuture, StoredSession};

// The crate's README, whose examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
