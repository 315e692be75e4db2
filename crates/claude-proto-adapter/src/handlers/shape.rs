//! The shapes a handler may take, as traits that tell a closure which
//! does not fit how to fit.
//!
//! Each is a plain `Fn` bound under another name: every `Fn` of the right
//! shape implements it, and nothing else can. What the name buys is the
//! compiler's error: a closure that does not fit is told what would (the
//! accepted forms, `with_state`), not only which `Fn` trait it misses.

use std::future::Future;

/// An async handler taking `In`: `async |input| ...`, an `async fn`, or
/// [`with_state`](super::with_state) around one. What the async adapters'
/// `on_permission`, `hook`, `on_elicitation`, `on_user_dialog` and typed
/// tools take; the future runs as a task of its own, so it owns what it
/// uses (`Send + 'static`).
///
/// You never implement it: every closure and function of that shape
/// does. Name it in a bound of your own to accept handlers the way the
/// builders do. It exists so that a closure that does not fit gets an
/// error naming the fix (`tests/compile-errors/ui` pins those errors).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an async handler taking `{In}`",
    label = "not `Fn({In}) -> impl Future + Send + 'static`",
    note = "a handler is `async |input| ...` or an `async fn`; its future runs as a task of its own, so it cannot borrow from the closure",
    note = "to keep state (a log, a counter, a channel), pass it with `with_state(state, async |state, input: {In}| ...)`: each call gets a clone of `state` (an `Arc`, a sender)"
)]
pub trait AsyncHandler<In, Fut>: Fn(In) -> Fut + Send + Sync + 'static
where
    Fut: Future + Send + 'static,
{
}

#[diagnostic::do_not_recommend]
impl<In, Fut, F> AsyncHandler<In, Fut> for F
where
    F: Fn(In) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'static,
{
}

/// A blocking handler taking `In`: `|input| ...`, a `fn`, or
/// [`with_state`](super::with_state) around one. What the blocking
/// adapter's `on_permission`, `hook`, `on_elicitation`, `on_user_dialog`
/// and typed tools take; it runs on a worker thread, and may run on
/// several at once.
///
/// You never implement it: every closure and function of that shape
/// does. Name it in a bound of your own to accept handlers the way the
/// builders do. It exists so that a closure that does not fit gets an
/// error naming the fix (`tests/compile-errors/ui` pins those errors).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a handler taking `{In}`",
    label = "not `Fn({In}) -> _ + Send + Sync + 'static`",
    note = "a handler is `|input| ...` or a `fn`; it may run on several threads at once, so it cannot change what it captures (`FnMut`) or borrow from its caller",
    note = "to keep state (a log, a counter, a channel), pass it with `with_state(state, |state, input: {In}| ...)`: each call gets a clone of `state` (an `Arc<Mutex<_>>`, an atomic)"
)]
pub trait BlockingHandler<In, Out>: Fn(In) -> Out + Send + Sync + 'static {}

#[diagnostic::do_not_recommend]
impl<In, Out, F> BlockingHandler<In, Out> for F where F: Fn(In) -> Out + Send + Sync + 'static {}
