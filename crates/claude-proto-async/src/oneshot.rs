//! A one-value channel: how a call's answer, and the process's exit,
//! reach the task waiting for them.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

struct Slot<T> {
    value: Option<T>,
    waker: Option<Waker>,
    /// The sender is gone (after sending, or without sending).
    closed: bool,
}

/// The sending half; dropping it without sending closes the channel.
pub(crate) struct Sender<T> {
    slot: Arc<Mutex<Slot<T>>>,
}

/// The receiving half: a future of the value, or `Err(Closed)` if the
/// sender was dropped without sending.
pub(crate) struct Receiver<T> {
    slot: Arc<Mutex<Slot<T>>>,
}

/// The sender went away without a value.
#[derive(Debug)]
pub(crate) struct Closed;

pub(crate) fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let slot = Arc::new(Mutex::new(Slot {
        value: None,
        waker: None,
        closed: false,
    }));
    (Sender { slot: slot.clone() }, Receiver { slot })
}

fn lock<T>(slot: &Mutex<Slot<T>>) -> MutexGuard<'_, Slot<T>> {
    // A panic while holding this lock cannot leave the slot inconsistent.
    slot.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<T> Sender<T> {
    /// Delivers `value` (dropped if the receiver is gone).
    pub(crate) fn send(self, value: T) {
        lock(&self.slot).value = Some(value);
        // Drop wakes the receiver.
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let waker = {
            let mut slot = lock(&self.slot);
            slot.closed = true;
            slot.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl<T> Future for Receiver<T> {
    type Output = Result<T, Closed>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut slot = lock(&self.slot);
        if let Some(value) = slot.value.take() {
            return Poll::Ready(Ok(value));
        }
        if slot.closed {
            return Poll::Ready(Err(Closed));
        }
        match &mut slot.waker {
            Some(waker) if waker.will_wake(cx.waker()) => {}
            waker => *waker = Some(cx.waker().clone()),
        }
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::task::Waker;

    fn poll<T>(rx: &mut Receiver<T>) -> Poll<Result<T, Closed>> {
        Pin::new(rx).poll(&mut Context::from_waker(Waker::noop()))
    }

    #[test]
    fn delivers_a_value_or_reports_the_sender_gone() {
        let (tx, mut rx) = channel();
        assert!(poll(&mut rx).is_pending());
        tx.send(7);
        assert!(matches!(poll(&mut rx), Poll::Ready(Ok(7))));
        let (tx, mut rx) = channel::<u8>();
        drop(tx);
        assert!(matches!(poll(&mut rx), Poll::Ready(Err(Closed))));
    }
}
