//! The threads that run the handlers' jobs. A thread that finished a job
//! waits for the next one instead of ending, so a call does not pay for
//! starting a thread: on a loaded two-core machine a new thread sometimes
//! waits a whole scheduler tick before it first runs (p99 of an
//! in-process tool call 4.1 ms with a thread per call; BENCHMARKS.md,
//! "Earlier results").
//!
//! Idle threads end after [`IDLE`] without work, and at once when the
//! session ends ([`Workers::close`]); a thread busy with a job ends when
//! the job does. A thread says it is idle before it reports its job done,
//! so the driver, which starts a job only after a completion frees its
//! slot, always finds it: the session never runs more threads than the
//! host's handler concurrency, and nothing outlives the session but the
//! jobs still running.

use std::io;
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use claude_proto_host::Job;

use crate::channels::Input;
use crate::handlers::{CancelToken, McpAnswer, SyncHandlers};

/// How long a thread without work waits for the next job before ending.
const IDLE: Duration = Duration::from_secs(10);

/// A job, the token that cancels it, and, for a message already handed
/// to an MCP endpoint, where its answer arrives (the thread only waits).
type Task = (Box<Job>, CancelToken, Option<McpAnswer>);

/// The session's handler threads.
#[derive(Debug, Default)]
pub(crate) struct Workers {
    idle: Arc<Mutex<Idle>>,
}

#[derive(Debug, Default)]
struct Idle {
    /// The session is over: threads end instead of waiting.
    closed: bool,
    /// Which thread to name next.
    next_id: u64,
    /// The waiting threads: each one's id and the only sender of its
    /// channel, so dropping it ends the wait.
    ready: Vec<(u64, SyncSender<Task>)>,
}

impl Workers {
    fn lock(&self) -> MutexGuard<'_, Idle> {
        self.idle.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `job` on a waiting thread, or on a new one; its completion
    /// goes to `done`. Gives the job back if no thread could be started.
    pub(crate) fn run(
        &self,
        handlers: &Arc<SyncHandlers>,
        job: Box<Job>,
        token: CancelToken,
        mcp: Option<McpAnswer>,
        done: &SyncSender<Input>,
    ) -> Result<(), (Box<Job>, io::Error)> {
        let mut task = (job, token, mcp);
        loop {
            let Some((_, worker)) = self.lock().ready.pop() else {
                break;
            };
            // Never blocks (one slot, and a popped thread is handed one
            // task). Fails only if the thread is gone.
            match worker.try_send(task) {
                Ok(()) => return Ok(()),
                Err(TrySendError::Full(returned) | TrySendError::Disconnected(returned)) => {
                    task = returned;
                }
            }
        }
        let (hand, take) = sync_channel::<Task>(1);
        let id = {
            let mut idle = self.lock();
            idle.next_id += 1;
            idle.next_id
        };
        let idle = self.idle.clone();
        let handlers = handlers.clone();
        let done = done.clone();
        let started = std::thread::Builder::new()
            .name("claude-handler".into())
            .spawn(move || work(id, &handlers, &idle, &done, take));
        match started {
            Ok(_) => {
                // The thread waits on `take` for exactly this task.
                let _ = hand.send(task);
                Ok(())
            }
            Err(error) => Err((task.0, error)),
        }
    }

    /// The session is over: waiting threads end now, busy ones after
    /// their job.
    pub(crate) fn close(&self) {
        let mut idle = self.lock();
        idle.closed = true;
        idle.ready.clear();
    }
}

/// One thread's life: run the task it was started for, then each task it
/// is handed while it waits, until it waits too long or the session ends.
fn work(
    id: u64,
    handlers: &SyncHandlers,
    idle: &Mutex<Idle>,
    done: &SyncSender<Input>,
    mut take: Receiver<Task>,
) {
    let lock = || idle.lock().unwrap_or_else(PoisonError::into_inner);
    let mut task = take.recv().ok();
    while let Some((job, token, mcp)) = task.take() {
        let result = match &mcp {
            Some(answer) => crate::handlers::await_mcp(answer),
            None => crate::handlers::run(handlers, &job, &token),
        };
        // Idle first, then done: once the driver learns of the completion
        // (and may start the next job), this thread is there to take it.
        // A fresh channel per wait, whose only sender the driver holds:
        // when the session ends, dropping it ends the wait at once.
        let (hand, next) = sync_channel::<Task>(1);
        let closed = {
            let mut idle = lock();
            if !idle.closed {
                idle.ready.push((id, hand));
            }
            idle.closed
        };
        // The session may be over: nobody to tell.
        let _ = done.send(Input::Completed(Box::new(job.finish(result))));
        if closed {
            return;
        }
        take = next;
        task = match take.recv_timeout(IDLE) {
            Ok(task) => Some(task),
            Err(RecvTimeoutError::Disconnected) => None,
            Err(RecvTimeoutError::Timeout) => {
                let mut idle = lock();
                match idle.ready.iter().position(|(waiting, _)| *waiting == id) {
                    // Still listed: nobody can hand it a task any more.
                    Some(at) => {
                        idle.ready.swap_remove(at);
                        None
                    }
                    // Taken off the list by the driver, whose task is on
                    // its way (or already in the slot): take it.
                    None => {
                        drop(idle);
                        take.recv().ok()
                    }
                }
            }
        };
    }
}
