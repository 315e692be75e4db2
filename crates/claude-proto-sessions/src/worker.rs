//! A store's own thread for its blocking calls (file IO, a synchronous
//! database client), so that the futures it hands out never block the
//! async runtime polling them.
//!
//! Jobs run one at a time, in the order they were sent; a store sends a
//! call's job when the call is made (not when its future is first polled),
//! so calls made one after another take effect in that order even if their
//! futures are polled out of order, or dropped.

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};
use std::thread;

use crate::store::{StoreError, StoreFuture};

type Job<S> = Box<dyn FnOnce(&mut S) + Send>;

/// The handle to the thread: dropping it ends the thread once the jobs
/// already sent have run.
pub(crate) struct Worker<S> {
    /// `Err` if the thread could not be started: every call then fails
    /// with this reason.
    jobs: Result<Sender<Job<S>>, String>,
}

impl<S: Send + 'static> Worker<S> {
    /// Starts the thread, which owns `state` and hands it to each job. If
    /// the system cannot start a thread, every call fails with
    /// [`StoreError::Backend`] saying so.
    pub(crate) fn spawn(name: &str, state: S) -> Self {
        let (jobs, incoming) = mpsc::channel::<Job<S>>();
        let started = thread::Builder::new().name(name.to_owned()).spawn(move || {
            let mut state = state;
            // Ends when every sender is gone: when the store is dropped.
            for job in incoming {
                // A panicking job drops its reply, which its caller sees as
                // an error; the jobs after it still run.
                let _ = catch_unwind(AssertUnwindSafe(|| job(&mut state)));
            }
        });
        Self {
            jobs: started
                .map(|_| jobs)
                .map_err(|e| format!("could not start the store's thread: {e}")),
        }
    }

    /// Sends `job` to the thread now, and returns a future of its result.
    pub(crate) fn run<T, F>(&self, job: F) -> StoreFuture<'static, T>
    where
        T: Send + 'static,
        F: FnOnce(&mut S) -> Result<T, StoreError> + Send + 'static,
    {
        let jobs = match &self.jobs {
            Ok(jobs) => jobs,
            Err(reason) => {
                let error = StoreError::backend(reason.clone());
                return Box::pin(std::future::ready(Err(error)));
            }
        };
        let (reply, answer) = oneshot();
        let sent = jobs.send(Box::new(move |state: &mut S| {
            reply.send(job(state));
        }));
        // If the thread is gone, the job (and its reply) came back and was
        // dropped here, so the answer is already "worker gone".
        drop(sent);
        Box::pin(answer)
    }
}

/// A single reply from the worker to the caller's future.
fn oneshot<T>() -> (Reply<T>, Answer<T>) {
    let shared = Arc::new(Mutex::new(Slot {
        value: None,
        replier_gone: false,
        waker: None,
    }));
    (
        Reply {
            shared: Arc::clone(&shared),
        },
        Answer { shared },
    )
}

struct Slot<T> {
    value: Option<Result<T, StoreError>>,
    /// The reply was dropped without a value: the job panicked, or never ran.
    replier_gone: bool,
    waker: Option<Waker>,
}

fn lock<T>(slot: &Mutex<Slot<T>>) -> MutexGuard<'_, Slot<T>> {
    slot.lock().unwrap_or_else(PoisonError::into_inner)
}

struct Reply<T> {
    shared: Arc<Mutex<Slot<T>>>,
}

impl<T> Reply<T> {
    fn send(self, value: Result<T, StoreError>) {
        lock(&self.shared).value = Some(value);
        // Drop wakes the caller.
    }
}

impl<T> Drop for Reply<T> {
    fn drop(&mut self) {
        let waker = {
            let mut slot = lock(&self.shared);
            slot.replier_gone = true;
            slot.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

struct Answer<T> {
    shared: Arc<Mutex<Slot<T>>>,
}

impl<T> Future for Answer<T> {
    type Output = Result<T, StoreError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut slot = lock(&self.shared);
        if let Some(value) = slot.value.take() {
            return Poll::Ready(value);
        }
        if slot.replier_gone {
            return Poll::Ready(Err(StoreError::backend(
                "the store's worker thread failed before answering (a panic, or it has ended)",
            )));
        }
        slot.waker = Some(cx.waker().clone());
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block_on;

    #[test]
    fn jobs_run_in_order_and_answer() {
        let worker = Worker::spawn("test-worker", Vec::new());
        let first = worker.run(|log: &mut Vec<u32>| {
            log.push(1);
            Ok(log.len())
        });
        let second = worker.run(|log: &mut Vec<u32>| {
            log.push(2);
            Ok(log.clone())
        });
        assert_eq!(block_on(second).expect("answers"), [1, 2]);
        assert_eq!(block_on(first).expect("answers"), 1);
    }

    #[test]
    fn a_panicking_job_fails_its_call_only() {
        let worker = Worker::spawn("test-worker", ());
        let panicked = worker.run(|_: &mut ()| -> Result<(), StoreError> { panic!("on purpose") });
        assert!(matches!(block_on(panicked), Err(StoreError::Backend(_))));
        assert_eq!(
            block_on(worker.run(|_: &mut ()| Ok(7))).expect("answers"),
            7
        );
    }

    #[test]
    fn the_thread_ends_when_the_worker_is_dropped() {
        let (ended, has_ended) = mpsc::channel::<()>();
        struct SignalOnDrop(Sender<()>);
        impl Drop for SignalOnDrop {
            fn drop(&mut self) {
                let _ = self.0.send(());
            }
        }
        let worker = Worker::spawn("test-worker", SignalOnDrop(ended));
        drop(worker);
        // The thread drops its state on the way out; this waits for that.
        assert!(
            has_ended
                .recv_timeout(std::time::Duration::from_secs(30))
                .is_ok()
        );
    }
}
