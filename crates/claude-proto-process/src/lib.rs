//! The CLI's process: the operating system's side of a session, whatever
//! the runtime.
//!
//! Finding the `claude` executable and building its command line and
//! environment from [`Options`] ([`build_command`], [`cli_env`]), starting
//! it with piped streams in a process group of its own and watching it
//! until it is reaped ([`spawn`]), pipes whose blocking reads and writes
//! can be stopped ([`StoppableRead`]), signals ([`terminate`]), private
//! files and temporary directories for what may hold secrets
//! ([`private`]), and the stderr tail with the user's callback, its panics
//! contained ([`StderrLines`]). The decisions (when to read, write, signal,
//! what to answer) are the sans-IO host's, in `claude_proto_host`; what
//! every adapter shares above the OS is in `claude_proto_adapter`.
// docs.rs: each feature-gated item is labelled with the feature it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

mod child;
mod command;
pub mod log;
mod pipe;
pub mod private;
mod signal;
mod spawn;
mod stderr;
mod trace_context;
mod unwind;

pub use command::{Launch, SystemLookup, build_command, cli_env, locate_cli, run_end_ceiling};
pub use pipe::{PipeFd, Stop, StoppableRead, StoppableWrite, is_stopped};
pub use private::PrivateDir;
pub use signal::{process_exit, terminate};
pub use spawn::{ProcessHandle, Spawned, spawn};
pub use stderr::{MAX_STDERR_LINE, StderrCallback, StderrLines};
pub use unwind::{CatchUnwind, panic_message};

pub use claude_proto::options::Options;

// The crate's README, whose examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
