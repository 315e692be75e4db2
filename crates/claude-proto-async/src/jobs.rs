//! Handler jobs as detached tasks that the driver can stop.
//!
//! A job's task runs the user's handler (panics contained by the
//! handlers' [`CatchUnwind`](claude_proto_process::CatchUnwind)) and hands
//! the completion back through the shared state. When the CLI withdraws
//! the request, the driver aborts the job: its task completes at the next
//! poll, which drops the handler's future, so the handler really stops.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

use claude_proto::IncomingId;
use claude_proto_host::{Job, MirrorAppend, MirrorId};
use claude_proto_sessions::SessionStore;

use crate::handlers::AsyncHandlers;
use crate::runtime::{BoxFuture, Runtime};
use crate::shared::Shared;

/// The running jobs, by the request they answer, and the session-store
/// append, if one runs.
#[derive(Default)]
pub(crate) struct Running {
    jobs: HashMap<IncomingId, Arc<AbortFlag>>,
    append: Option<(MirrorId, Arc<AbortFlag>)>,
}

impl Running {
    /// Starts `job` on `runtime`.
    pub(crate) fn start<R: Runtime>(
        &mut self,
        runtime: &R,
        handlers: &AsyncHandlers,
        shared: &Arc<Shared>,
        job: Job,
    ) {
        let flag = Arc::new(AbortFlag::default());
        self.jobs.insert(job.id, flag.clone());
        let handler = crate::handlers::run(handlers, &job);
        let shared = shared.clone();
        let work = Box::pin(async move {
            let result = handler.await;
            shared.push_completion(job.finish(result));
        });
        runtime.spawn(Box::pin(Abortable {
            work: Some(work),
            flag,
        }));
    }

    /// Starts a session-store append on `runtime`; its outcome goes back
    /// through the shared state. A panicking store is an error outcome.
    pub(crate) fn start_append<R: Runtime>(
        &mut self,
        runtime: &R,
        store: Arc<dyn SessionStore>,
        shared: &Arc<Shared>,
        append: MirrorAppend,
    ) {
        let flag = Arc::new(AbortFlag::default());
        self.append = Some((append.id, flag.clone()));
        let shared = shared.clone();
        let work = Box::pin(async move {
            let (id, result) = claude_proto_adapter::run_append(store, append).await;
            shared.push_mirror_done(id, result);
        });
        runtime.spawn(Box::pin(Abortable {
            work: Some(work),
            flag,
        }));
    }

    /// The append's outcome arrived, or the host gave up on it: stop its
    /// task if it still runs.
    pub(crate) fn end_append(&mut self, id: MirrorId) {
        if let Some((_, flag)) = self.append.take_if(|(running, _)| *running == id) {
            flag.abort();
        }
    }

    /// The job's completion arrived: it no longer needs stopping.
    pub(crate) fn finished(&mut self, id: IncomingId) {
        self.jobs.remove(&id);
    }

    /// Stops the job's handler (its future is dropped, no answer sent).
    pub(crate) fn abort(&mut self, id: IncomingId) {
        if let Some(flag) = self.jobs.remove(&id) {
            flag.abort();
        }
    }

    /// Stops every job (the session has ended). A session-store append
    /// goes on: the host waits for the store to have the last lines.
    pub(crate) fn abort_all(&mut self) {
        for (_, flag) in self.jobs.drain() {
            flag.abort();
        }
    }

    /// Stops everything, the append too (the driver is going away).
    pub(crate) fn abort_everything(&mut self) {
        self.abort_all();
        if let Some((_, flag)) = self.append.take() {
            flag.abort();
        }
    }
}

#[derive(Default)]
struct AbortFlag {
    state: Mutex<(bool, Option<Waker>)>,
}

impl AbortFlag {
    fn abort(&self) {
        let waker = {
            let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
            state.0 = true;
            state.1.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// `true` once aborted; otherwise remembers whom to wake.
    fn aborted(&self, waker: &Waker) -> bool {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if !state.0 {
            match &mut state.1 {
                Some(w) if w.will_wake(waker) => {}
                slot => *slot = Some(waker.clone()),
            }
        }
        state.0
    }
}

/// A job's task: done when the work is, or at once when aborted.
struct Abortable {
    work: Option<BoxFuture<()>>,
    flag: Arc<AbortFlag>,
}

impl Future for Abortable {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.flag.aborted(cx.waker()) {
            // Dropped here, not when the executor gets round to freeing
            // the task: the handler stops now.
            self.work = None;
            return Poll::Ready(());
        }
        match self.work.as_mut() {
            Some(work) => work.as_mut().poll(cx),
            None => Poll::Ready(()),
        }
    }
}
