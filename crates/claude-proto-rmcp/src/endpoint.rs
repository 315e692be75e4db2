//! [`RmcpEndpoint`]: the [`McpEndpoint`] in front of one rmcp server, and
//! the thread its loop runs on.

use std::fmt;
use std::io;
use std::sync::Arc;
use std::thread;

use claude_proto_adapter::{McpEndpoint, McpOutlet, McpReply};
use rmcp::ServerHandler;
use rmcp::model::{ClientJsonRpcMessage, RequestId};
use rmcp::service::serve_directly;
use serde_json::Value as Json;
use tokio::runtime::{Builder, Runtime};
use tokio::sync::{mpsc, oneshot};

use crate::catch_panic::CatchPanic;
use crate::inbound::{Inbound, classify, with_rmcp_id};
use crate::jsonrpc::{INTERNAL_ERROR, INVALID_REQUEST, REQUEST_CANCELLED, error_response, id_json};
use crate::pending::{Pending, Refusal};
use crate::transport::BridgeTransport;

/// What a request gets once the server's loop has ended.
const STOPPED: &str = "the MCP server has stopped";
const BUSY: &str = "the MCP server is busy: too many messages wait for it";

/// Messages from the CLI that may wait for the server's loop: requests are
/// few (each holds a handler slot until answered), but notifications are
/// acknowledged at once, so a CLI could otherwise queue them without end
/// while a tool blocks the loop. Beyond it a request is answered with a
/// -32603 error and a notification is dropped.
pub(crate) const INBOUND_CAPACITY: usize = 256;

/// An rmcp server served in-process, as a claude-proto [`McpEndpoint`].
///
/// Create one per server with [`new`](Self::new) and attach it to a
/// session under the server's name. Every message the CLI sends is
/// answered exactly once, whatever happens to the server:
///
/// * a request, with rmcp's response;
/// * a notification or a response, with `None`, after handing it to rmcp;
/// * a message that is not JSON-RPC 2.0 as rmcp reads it, with a -32600
///   error carrying the id when one could be read (`null` otherwise);
/// * a request reusing the id of one still in flight, with a -32600
///   error, without reaching rmcp;
/// * a request named by `notifications/cancelled`, with a -32800 error
///   ("Request cancelled") at once, as rmcp drops the response of a
///   cancelled request; the handler sees its `ctx.ct` cancelled;
/// * a panicking handler: see below;
/// * every request pending when the loop ends, and every later one, with
///   a -32603 error.
///
/// A panic inside `tools/call` becomes a tool result with `isError: true`
/// and the text `"the tool panicked: <message>"` (MCP reports tool failures
/// as results, so the model sees them); a panic in any other handler
/// becomes a -32603 error. The server keeps serving either way.
///
/// Server-to-client requests (`roots/list`, sampling, elicitation) go to
/// the CLI through the [`McpOutlet`] given to
/// [`connect`](McpEndpoint::connect), and the CLI's answer comes back to
/// the handler that asked: in the CLI's acknowledgement (under that
/// request's id, whatever id the CLI wrote), or, as CLI 2.1.330 does it,
/// as a message of its own after an empty acknowledgement. When no answer
/// can come (not connected yet, the session over, the CLI refused) the
/// handler gets an error instead of waiting forever.
/// Server notifications go to the same outlet; those sent before
/// `connect` are dropped.
///
/// The CLI's messages wait for the server's loop in a queue of 256:
/// while a tool blocks the loop, a request
/// beyond it is answered -32603 "busy" and a notification is dropped.
///
/// An endpoint belongs to one session: `connect` replaces the outlet, so
/// sharing one between sessions would send one session's messages to the
/// other's CLI.
///
/// rmcp sees requests renumbered with ids of the endpoint's own (so a
/// handler's `ctx.id` is not the CLI's id); responses carry the CLI's id
/// again. This keeps an id the CLI reuses after a cancellation from
/// receiving the cancelled handler's late response.
///
/// The server runs on a dedicated thread with a current-thread tokio
/// runtime (timers enabled), so tools may use tokio's timers and must be
/// `Send`; they do not run on the caller's executor.
#[must_use = "dropping the endpoint stops its server"]
pub struct RmcpEndpoint {
    /// To rmcp's transport. Dropping it closes the transport.
    inbound: mpsc::Sender<ClientJsonRpcMessage>,
    /// Keeps the channel of the CLI's answers to the server's own requests
    /// open while the endpoint lives (the transport holds it weakly).
    _loopback: mpsc::UnboundedSender<ClientJsonRpcMessage>,
    pending: Arc<Pending>,
    /// Tells the thread to drop the runtime, and with it every task.
    stop: Option<oneshot::Sender<()>>,
}

impl RmcpEndpoint {
    /// Starts serving `server` on a new thread; call it once per server,
    /// before attaching the endpoint to a session.
    ///
    /// The server is not sent an `initialize` of its own: it answers the
    /// CLI's handshake as the CLI sends it. Fails only if the runtime or
    /// its thread cannot be created.
    pub fn new<S: ServerHandler>(server: S) -> Result<Self, io::Error> {
        // Built here, not on the thread, so that failing to build it is
        // the caller's error rather than a silently dead endpoint.
        let runtime = Builder::new_current_thread().enable_time().build()?;
        let (inbound, inbound_rx) = mpsc::channel(INBOUND_CAPACITY);
        let (loopback, loopback_rx) = mpsc::unbounded_channel();
        let (stop, stop_rx) = oneshot::channel();
        let pending = Arc::new(Pending::default());
        let transport = BridgeTransport {
            inbound: inbound_rx,
            answers: loopback_rx,
            loopback: loopback.downgrade(),
            pending: pending.clone(),
        };
        let loop_pending = pending.clone();
        // Detached: the thread ends by itself once the loop ends or the
        // endpoint is dropped (see `Drop`), so nothing joins it and a tool
        // stuck in blocking code can never hang the caller's drop.
        thread::Builder::new()
            .name("claude-proto-rmcp".to_owned())
            .spawn(move || serve(runtime, server, transport, &loop_pending, stop_rx))?;
        Ok(Self {
            inbound,
            _loopback: loopback,
            pending,
            stop: Some(stop),
        })
    }

    fn forward(&self, message: ClientJsonRpcMessage) -> Result<(), Refusal> {
        self.inbound.try_send(message).map_err(|error| match error {
            mpsc::error::TrySendError::Full(_) => Refusal::Busy,
            mpsc::error::TrySendError::Closed(_) => Refusal::Stopped,
        })
    }
}

impl McpEndpoint for RmcpEndpoint {
    fn connect(&self, to_cli: McpOutlet) {
        self.pending.set_outlet(to_cli);
    }

    fn handle(&self, message: Json, reply: McpReply) {
        match classify(message) {
            Inbound::Invalid(error) => reply.send(Some(error)),
            Inbound::Request { id, message } => {
                let refused = self.pending.admit(id.clone(), reply, |rmcp_id| {
                    self.forward(with_rmcp_id(message, rmcp_id))
                });
                if let Err((reply, refusal)) = refused {
                    let (code, why) = match refusal {
                        Refusal::DuplicateId => (
                            INVALID_REQUEST,
                            "Invalid Request: duplicate id, a request with this id is still in flight",
                        ),
                        Refusal::Stopped => (INTERNAL_ERROR, STOPPED),
                        Refusal::Busy => (INTERNAL_ERROR, BUSY),
                    };
                    reply.send(Some(error_response(id_json(&id), code, why)));
                }
            }
            Inbound::Cancel {
                request_id,
                message,
            } => {
                // Taken before rmcp sees the cancellation, so the answer
                // is ours whichever finishes first; a response rmcp still
                // writes finds nobody waiting and is dropped.
                let cancelled = request_id.and_then(|cli_id| {
                    let (rmcp_id, reply) = self.pending.take_by_cli_id(&cli_id)?;
                    Some((cli_id, rmcp_id, reply))
                });
                // A request that is not pending has nothing to cancel; and
                // passing its id on could cancel an unrelated request that
                // rmcp happens to know by that number.
                if let Some((cli_id, rmcp_id, cancelled)) = cancelled {
                    // If the loop has ended there is nothing left to cancel.
                    let _ = self.forward(with_rmcp_id(message, rmcp_id));
                    cancelled.send(Some(error_response(
                        id_json(&cli_id),
                        REQUEST_CANCELLED,
                        "Request cancelled",
                    )));
                }
                reply.send(None);
            }
            Inbound::Forward(message) => {
                let _ = self.forward(message);
                reply.send(None);
            }
        }
    }
}

impl Drop for RmcpEndpoint {
    /// Answers every pending request with a -32603 error, then stops the
    /// server: its runtime is dropped with every task (tool futures are
    /// dropped, not awaited), then the server itself. Does not wait for
    /// the thread.
    fn drop(&mut self) {
        answer_stopped(self.pending.stop());
        if let Some(stop) = self.stop.take() {
            // The thread may be gone already, with the loop.
            let _ = stop.send(());
        }
    }
}

impl fmt::Debug for RmcpEndpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RmcpEndpoint")
            .field("open", &!self.inbound.is_closed())
            .finish_non_exhaustive()
    }
}

/// The endpoint's thread: runs rmcp's loop until it ends or the endpoint
/// is dropped, then answers whatever is still pending.
fn serve<S: ServerHandler>(
    runtime: Runtime,
    server: S,
    transport: BridgeTransport,
    pending: &Pending,
    stop: oneshot::Receiver<()>,
) {
    // Also answers if the loop panics out of `block_on`.
    let _answer_leftovers = AnswerOnExit(pending);
    runtime.block_on(async move {
        // Without a handshake of its own: the CLI's `initialize` reaches
        // the server like any request, and a notification before it does
        // not kill the session as `serve_server` would.
        let running = serve_directly(CatchPanic(server), transport, None);
        tokio::select! {
            // The server quit, or its loop panicked: either way, done.
            _ = running.waiting() => {}
            // Sent or dropped: the endpoint is gone.
            _ = stop => {}
        }
    });
    // Drops every task now, tool futures included, without waiting for
    // any blocking work they may have started.
    runtime.shutdown_background();
}

/// Answers every pending request when the endpoint's thread ends.
struct AnswerOnExit<'a>(&'a Pending);

impl Drop for AnswerOnExit<'_> {
    fn drop(&mut self) {
        answer_stopped(self.0.stop());
    }
}

fn answer_stopped(replies: Vec<(RequestId, McpReply)>) {
    for (id, reply) in replies {
        reply.send(Some(error_response(id_json(&id), INTERNAL_ERROR, STOPPED)));
    }
}
