//! The handlers of a blocking session: plain closures, run on handler
//! threads, and the [`CancelToken`] that tells them the CLI gave up.

use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, sync_channel};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use claude_proto::model::Json;
use claude_proto_adapter::McpReply;
use claude_proto_adapter::handlers::{Blocking, HandlerError, Handlers, unknown_tool};
use claude_proto_host::{Job, JobKind, Outcome};
use claude_proto_process::panic_message;

/// An in-process MCP server whose tools are plain functions, run on
/// handler threads: build it with `McpServer::new(name, version).tool(name,
/// description, fn)` and add it with
/// [`ClaudeBuilder::mcp_server`](crate::ClaudeBuilder::mcp_server). See
/// [`McpServer::tool`](claude_proto_adapter::handlers::McpServer::tool).
pub type McpServer = claude_proto_adapter::handlers::McpServer<Blocking>;

/// One MCP tool as a plain function, for adding to a running session with
/// [`Controller::add_tool`](crate::Controller::add_tool) (or to an
/// [`McpServer`] with `with_tool`).
pub type Tool = claude_proto_adapter::handlers::Tool<Blocking>;

/// The handlers of a blocking session.
pub(crate) type SyncHandlers = Handlers<Blocking>;

/// Runs `job`'s handler on this thread, with `token` as the
/// [`CancelToken::current`]. Errors and panics come out as `Err(message)`,
/// ready for [`Job::finish`].
pub(crate) fn run(
    handlers: &SyncHandlers,
    job: &Job,
    token: &CancelToken,
) -> Result<Outcome, String> {
    let call = || -> Option<Result<Outcome, HandlerError>> {
        Some(match &job.kind {
            JobKind::Permission(ask) => {
                (handlers.permission()?)(ask.clone()).map(Outcome::Permission)
            }
            JobKind::Hook {
                key,
                input,
                tool_use_id,
            } => (handlers.hook(*key)?)(input.clone(), tool_use_id.clone()).map(Outcome::Hook),
            JobKind::Elicitation(request) => {
                (handlers.elicitation()?)(request.clone()).map(Outcome::Elicitation)
            }
            JobKind::UserDialog(request) => {
                (handlers.user_dialog()?)(request.clone()).map(Outcome::UserDialog)
            }
            JobKind::Tool {
                server,
                tool,
                arguments,
                ..
            } => match handlers.tool(server, tool) {
                Some(run) => run(arguments.clone()).map(Outcome::Tool),
                // Removed while the call was on its way.
                None => Ok(Outcome::Tool(unknown_tool(tool))),
            },
            // MCP messages for an endpoint are started with `start_mcp`;
            // future kinds have no handler here.
            _ => return None,
        })
    };
    CURRENT.with(|current| *current.borrow_mut() = Some(token.clone()));
    let result = catch_unwind(AssertUnwindSafe(call));
    CURRENT.with(|current| current.borrow_mut().take());
    match result {
        Ok(Some(Ok(outcome))) => Ok(outcome),
        Ok(Some(Err(error))) => Err(error.to_string()),
        Ok(None) => Err("no handler is registered for this request".to_owned()),
        Err(panic) => Err(panic_message(&*panic)),
    }
}

/// The answer an MCP endpoint gives to one message (see [`start_mcp`]).
pub(crate) type McpAnswer = Receiver<Result<Option<Json>, String>>;

/// Hands a [`JobKind::McpMessage`] job's message to its endpoint now, on
/// the calling thread (the driver's: so the endpoint gets the CLI's
/// messages in the order they came), and returns where its answer will
/// arrive: the endpoint's reply, or an error once `token` is cancelled
/// (the CLI withdrew the request or the session ended), so a thread
/// waiting for it is never stuck. `None` for any other job.
pub(crate) fn start_mcp(
    handlers: &SyncHandlers,
    job: &Job,
    token: &CancelToken,
) -> Option<McpAnswer> {
    let JobKind::McpMessage { server, message } = &job.kind else {
        return None;
    };
    let (answered, answer) = sync_channel(2);
    let withdrawn = answered.clone();
    token.on_cancel(move || {
        let _ = withdrawn.try_send(Err("the request was withdrawn".to_owned()));
    });
    let Some(endpoint) = handlers.mcp_endpoint(server) else {
        let _ = answered.try_send(Err("no handler is registered for this request".to_owned()));
        return Some(answer);
    };
    let reply = McpReply::new(move |reply| {
        let _ = answered.try_send(reply);
    });
    // `handle` must not block (the trait says so); a panic in it is the
    // request's failure, answered like a handler's.
    if let Err(panic) = catch_unwind(AssertUnwindSafe(|| endpoint.handle(message.clone(), reply))) {
        let (failed, answer) = sync_channel(1);
        let _ = failed.try_send(Err(panic_message(&*panic)));
        return Some(answer);
    }
    Some(answer)
}

/// Waits for an endpoint's answer (see [`start_mcp`]), ready for
/// [`Job::finish`].
pub(crate) fn await_mcp(answer: &McpAnswer) -> Result<Outcome, String> {
    match answer.recv() {
        Ok(Ok(response)) => Ok(Outcome::Mcp(response)),
        Ok(Err(message)) => Err(message),
        Err(_) => Err("the MCP server went away".to_owned()),
    }
}

thread_local! {
    static CURRENT: RefCell<Option<CancelToken>> = const { RefCell::new(None) };
}

/// Tells a running handler that the CLI withdrew its request.
///
/// A blocking closure cannot be stopped from outside. When the CLI cancels
/// a request (or the session ends) while its handler runs, the handler's
/// result is dropped (never sent), and its token is cancelled so a
/// long-running handler can notice and return early: poll
/// [`is_cancelled`](Self::is_cancelled), block in [`wait`](Self::wait) /
/// [`wait_timeout`](Self::wait_timeout), or register
/// [`on_cancel`](Self::on_cancel) to unblock whatever the handler waits on.
/// Get the token of the request being handled with
/// [`CancelToken::current`] at the start of the handler (it is per thread:
/// clone it before handing work to other threads).
///
/// Each handler runs on a thread of its own. A handler that never returns
/// keeps that thread; until the CLI withdraws its request it also keeps
/// one of the
/// [`max_concurrent_handlers`](crate::Configure::max_concurrent_handlers)
/// slots. A withdrawn handler that is still running no longer counts
/// against them.
#[derive(Clone, Default)]
pub struct CancelToken {
    inner: Arc<Flag>,
}

type Callback = Box<dyn FnOnce() + Send>;

#[derive(Default)]
struct Flag {
    cancelled: AtomicBool,
    /// Callbacks waiting for the cancellation (taken by it).
    callbacks: Mutex<Vec<Callback>>,
    changed: Condvar,
}

impl std::fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CancelToken")
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}

impl CancelToken {
    /// A token that is not cancelled.
    pub fn new() -> Self {
        Self::default()
    }

    /// The token of the request whose handler runs on this thread (`None`
    /// outside a handler).
    pub fn current() -> Option<CancelToken> {
        CURRENT.with(|current| current.borrow().clone())
    }

    fn callbacks(&self) -> std::sync::MutexGuard<'_, Vec<Callback>> {
        self.inner
            .callbacks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Cancels it: wakes every [`wait`](Self::wait) and runs the
    /// [`on_cancel`](Self::on_cancel) callbacks (once).
    pub fn cancel(&self) {
        let callbacks = {
            let mut callbacks = self.callbacks();
            if self.inner.cancelled.swap(true, Ordering::SeqCst) {
                return;
            }
            self.inner.changed.notify_all();
            std::mem::take(&mut *callbacks)
        };
        for callback in callbacks {
            // A panicking callback must not take the session down with it.
            let _ = catch_unwind(AssertUnwindSafe(callback));
        }
    }

    /// Runs `callback` when the token is cancelled, or at once if it
    /// already is. For the session's tokens it runs on the session's
    /// driver thread at the moment the CLI withdraws the request, before
    /// anything the CLI wrote after that is handled: keep it short (set a
    /// flag, shut a socket, kill a process the handler waits on). The
    /// session waits for it; a call made on the session from inside it
    /// waits for the session in turn, until the call's own deadline.
    pub fn on_cancel(&self, callback: impl FnOnce() + Send + 'static) {
        let mut callbacks = self.callbacks();
        if self.is_cancelled() {
            drop(callbacks);
            callback();
        } else {
            callbacks.push(Box::new(callback));
        }
    }

    /// `true` once cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::SeqCst)
    }

    /// Blocks until cancelled.
    pub fn wait(&self) {
        let mut guard = self.callbacks();
        while !self.is_cancelled() {
            guard = self
                .inner
                .changed
                .wait(guard)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Blocks until cancelled or `timeout` passed; `true` if cancelled.
    pub fn wait_timeout(&self, timeout: Duration) -> bool {
        let Some(deadline) = Instant::now().checked_add(timeout) else {
            // Too far to represent: as good as forever.
            self.wait();
            return true;
        };
        let mut guard = self.callbacks();
        while !self.is_cancelled() {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            guard = self
                .inner
                .changed
                .wait_timeout(guard, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        true
    }
}
