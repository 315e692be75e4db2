//! What flows between the session's threads: the driver's one input
//! channel and what is sent on it, the writer thread's orders, and where a
//! command's outcome goes.

use std::io;
use std::process::ExitStatus;
use std::sync::mpsc::SyncSender;

use claude_proto_host::{CallReply, Command, Completion, Error, MirrorId};

/// Messages that may wait in the input channel. Every producer has a
/// bounded number outstanding (a reader waits for its buffer, the writer
/// for its next order, a handler sends once, a caller waits for its
/// reply), and the driver empties the channel continuously, so a full
/// channel only delays a sender by the driver's current step.
pub(crate) const INPUT_CAPACITY: usize = 64;

/// Where a command's outcome goes: a one-slot channel, sent to once.
pub(crate) type Waiter = SyncSender<Result<CallReply, Error>>;

/// What happened, as told to the driver.
pub(crate) enum Input {
    /// A chunk of stdout: the buffer and how much of it was read.
    Stdout(Vec<u8>, usize),
    /// stdout ended (or reading it failed or was stopped).
    StdoutEnd,
    /// A chunk of stderr.
    Stderr(Vec<u8>),
    /// stderr ended.
    StderrEnd,
    /// The writer wrote the whole buffer, or failed.
    Written(Vec<u8>, io::Result<()>),
    /// The writer flushed, or failed.
    Flushed(io::Result<()>),
    /// The writer closed stdin.
    StdinClosed,
    /// The process exited (and was reaped).
    Exited(io::Result<ExitStatus>),
    /// A handler finished.
    Completed(Box<Completion>),
    /// A session-store append finished.
    MirrorDone(MirrorId, Result<(), String>),
    /// A user command.
    Command(Command<Waiter>),
    /// The reader finished a batch while the driver had more.
    Room,
    /// `close()` or a dropped handle: nobody reads events any more, and
    /// the close sequence starts.
    Close,
}

/// An order for the writer thread; it has at most one at a time.
pub(crate) enum WriteOp {
    Write(Vec<u8>),
    Flush,
    Close,
}
