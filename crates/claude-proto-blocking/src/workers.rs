//! The threads that run the handlers' jobs. A thread that finished a job
//! waits for the next one instead of ending, so a call does not pay for
//! starting a thread: on a loaded two-core machine a new thread sometimes
//! waits a whole scheduler tick before it first runs (p99 of an
//! in-process tool call 4.1 ms with a thread per call; BENCHMARKS.md,
//! "in-process MCP tool call").
//!
//! Idle threads end after [`IDLE`] without work, and at once when the
//! session ends ([`Workers::close`]); a thread busy with a job ends when
//! the job does. So the session's thread count never exceeds the host's
//! handler concurrency, and nothing outlives the session but the jobs
//! still running.

use std::io;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use claude_proto_host::Job;

use crate::driver::Input;
use crate::handlers::{CancelToken, SyncHandlers};

/// How long a thread without work waits for the next job before ending.
const IDLE: Duration = Duration::from_secs(10);

/// A job and the token that cancels it.
type Task = (Box<Job>, CancelToken);

/// The session's handler threads.
#[derive(Debug, Default)]
pub(crate) struct Workers {
    idle: Arc<Mutex<Idle>>,
}

#[derive(Debug, Default)]
struct Idle {
    /// The session is over: threads end instead of waiting.
    closed: bool,
    /// One sender per waiting thread; the only sender of that thread's
    /// channel, so dropping it ends the wait.
    ready: Vec<SyncSender<Task>>,
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
        done: &SyncSender<Input>,
    ) -> Result<(), (Box<Job>, io::Error)> {
        let mut task = (job, token);
        loop {
            let Some(worker) = self.lock().ready.pop() else {
                break;
            };
            // A thread that stopped waiting (idle too long) has dropped its
            // receiver: try the next one.
            match worker.send(task) {
                Ok(()) => return Ok(()),
                Err(returned) => task = returned.0,
            }
        }
        let (hand, take) = sync_channel::<Task>(1);
        let idle = self.idle.clone();
        let handlers = handlers.clone();
        let done = done.clone();
        let started = std::thread::Builder::new()
            .name("claude-handler".into())
            .spawn(move || work(&handlers, &idle, &done, take));
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
    handlers: &SyncHandlers,
    idle: &Mutex<Idle>,
    done: &SyncSender<Input>,
    mut take: Receiver<Task>,
) {
    let mut wait = None;
    loop {
        let task = match wait.take() {
            None => take.recv().ok(),
            // Waited too long, or the session ended.
            Some(limit) => take.recv_timeout(limit).ok(),
        };
        let Some((job, token)) = task else { return };
        let result = crate::handlers::run(handlers, &job, &token);
        // The session may be over: nobody to tell.
        let _ = done.send(Input::Completed(Box::new(job.finish(result))));
        // A fresh channel per wait, whose only sender the driver holds:
        // when the session ends, dropping it ends the wait at once.
        let (hand, next) = sync_channel::<Task>(1);
        {
            let mut idle = idle.lock().unwrap_or_else(PoisonError::into_inner);
            if idle.closed {
                return;
            }
            idle.ready.push(hand);
        }
        take = next;
        wait = Some(IDLE);
    }
}
