//! The host machine of the `claude-proto` adapters: everything a session
//! decides above the protocol core that is not a syscall.
//!
//! [`claude_proto::Session`] speaks the protocol. A [`Host`] runs one
//! session of it for a user: it routes the CLI's requests to the user's
//! handlers as [`Job`]s (at most so many at once), matches the user's
//! commands to their answers, numbers the turns so each prompt gets its own
//! `result`, keeps every queue bounded in bytes, and closes the process in
//! steps (stdin, SIGTERM, SIGKILL) as timed outputs. Like the core it does
//! no IO, starts no threads and reads no clock: time comes in as an
//! [`Instant`](std::time::Instant) argument, so it is tested on a virtual
//! clock against the test kit's scripted CLI, serving by itself.
//!
//! The adapters (`claude-proto-tokio`, `claude-proto-async-std`,
//! `claude-proto-blocking`) are runtime glue around it: they move bytes
//! between pipes and the host, run jobs, wake on the host's deadline, and
//! hand events to the user.
//!
//! # Driving a host
//!
//! After creating it, and after every `handle_*` call:
//!
//! 1. drain [`Host::poll_output`] until `None`, carrying out each
//!    [`Output`] (start or abort a job, resolve a waiter, signal the
//!    process, stop reading, record the end);
//! 2. perform [`Host::poll_stdin`]'s step if the pipe can take it;
//! 3. hand [`Host::poll_event`]s to the user while they have room;
//! 4. read stdout if [`Host::wants_stdout`], stderr if
//!    [`Host::wants_stderr`], wait for the exit if [`Host::wants_exit`],
//!    and wake at [`Host::poll_timeout`].
//!
//! The session is over at [`Output::Ended`]; deliver the events still
//! queued, then drop everything.
// docs.rs: each feature-gated item is labelled with the feature it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

mod buffer;
mod claim;
mod error;
mod event;
mod host;
mod jobs;
mod limits;
mod mirror;
pub mod refill;
pub mod run_end;
mod stderr;
mod turn;
mod turn_item;
mod turn_reader;

pub use buffer::{ReadBuffer, deque_spare, trim_deque};
pub use claim::{Claim, Claimed, NotApplied, UnclaimableSettings};
pub use error::{
    EndReason, Error, ExitReport, SessionEnded, SpawnError, Stall, UnmergeableSettings,
};
pub use event::{Delivery, Event, TurnId};
pub use host::{
    CallReply, CloseStage, Command, Host, InitAnswer, Output, ProcessExit, Signal, State,
    StdinStep, Timeout, TimeoutReason, Transport,
};
pub use jobs::{Capabilities, Completion, Job, JobKind, Outcome};
pub use limits::{
    Limits, LimitsError, MAX_BYTES, MAX_DURATION, check_count, check_duration, deadline,
};
pub use mirror::{MirrorAppend, MirrorConfig, MirrorFailure, MirrorId};
pub use refill::Refill;
pub use stderr::{LineSplitter, StderrTail};
pub use turn::{Step, Turn, TurnCollector, TurnCursor};
pub use turn_item::TurnItem;
pub use turn_reader::{INTERRUPT_GRACE, TurnReader};

// The crate's README, whose examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
