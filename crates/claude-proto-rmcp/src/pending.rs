//! The requests rmcp is working on, each with the reply that answers it,
//! and where the server's own messages go. Shared by the endpoint (which
//! adds requests) and the transport on rmcp's thread (which answers them).
//!
//! rmcp never sees the CLI's request ids: each request is renumbered with
//! an id of the bridge's own, unique for the endpoint's life. rmcp keys its
//! cancellation tokens on the id and forgets a cancelled one before its
//! handler has finished, so an id reused after a cancellation would get the
//! old handler's response, and lose its own. Fresh ids make that
//! impossible; a late response of a cancelled request finds nobody
//! waiting and is dropped.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use claude_proto_adapter::{McpOutlet, McpReply};
use rmcp::model::{NumberOrString, RequestId};

/// Why a request was not handed to rmcp.
pub(crate) enum Refusal {
    /// A request with the same id is still in flight; JSON-RPC requires
    /// ids to be unique among them, or the answers are ambiguous.
    DuplicateId,
    /// The server's loop has ended.
    Stopped,
    /// The server has [`INBOUND_CAPACITY`](crate::endpoint::INBOUND_CAPACITY)
    /// messages waiting already.
    Busy,
}

/// A request rmcp is working on.
struct InFlight {
    /// The CLI's id, for the response.
    cli_id: RequestId,
    reply: McpReply,
}

/// The bridge's shared state. No user code runs under its lock: replies
/// are taken out and answered after it is released.
#[derive(Default)]
pub(crate) struct Pending {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Keyed by the id rmcp sees.
    in_flight: HashMap<RequestId, InFlight>,
    /// The CLI's id → the id rmcp sees.
    by_cli_id: HashMap<RequestId, RequestId>,
    next_id: i64,
    outlet: Option<McpOutlet>,
    stopped: bool,
}

impl Pending {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Nothing panics under this lock; if something did, the maps are
        // still consistent, so carry on rather than hang every reply.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn set_outlet(&self, outlet: McpOutlet) {
        self.lock().outlet = Some(outlet);
    }

    /// Where server notifications go; `None` before `connect`.
    pub(crate) fn outlet(&self) -> Option<McpOutlet> {
        self.lock().outlet.clone()
    }

    /// Remembers `reply` for the request the CLI calls `cli_id` and calls
    /// `forward` with the id rmcp is to see, under one lock so that
    /// [`stop`](Self::stop) cannot run in between and leave the reply
    /// unanswered. `forward` returns whether rmcp got the message.
    pub(crate) fn admit(
        &self,
        cli_id: RequestId,
        reply: McpReply,
        forward: impl FnOnce(RequestId) -> Result<(), Refusal>,
    ) -> Result<(), (McpReply, Refusal)> {
        let mut state = self.lock();
        if state.stopped {
            return Err((reply, Refusal::Stopped));
        }
        if state.by_cli_id.contains_key(&cli_id) {
            return Err((reply, Refusal::DuplicateId));
        }
        let rmcp_id = NumberOrString::Number(state.next_id);
        if let Err(refusal) = forward(rmcp_id.clone()) {
            state.stopped |= matches!(refusal, Refusal::Stopped);
            return Err((reply, refusal));
        }
        state.next_id += 1;
        state.by_cli_id.insert(cli_id.clone(), rmcp_id.clone());
        state.in_flight.insert(rmcp_id, InFlight { cli_id, reply });
        Ok(())
    }

    /// The CLI's id and the reply of the request rmcp knows as `rmcp_id`,
    /// if it is still pending; it no longer is.
    pub(crate) fn take(&self, rmcp_id: &RequestId) -> Option<(RequestId, McpReply)> {
        let mut state = self.lock();
        let in_flight = state.in_flight.remove(rmcp_id)?;
        state.by_cli_id.remove(&in_flight.cli_id);
        Some((in_flight.cli_id, in_flight.reply))
    }

    /// The id rmcp knows and the reply of the request the CLI calls
    /// `cli_id`, if it is still pending; it no longer is.
    pub(crate) fn take_by_cli_id(&self, cli_id: &RequestId) -> Option<(RequestId, McpReply)> {
        let mut state = self.lock();
        let rmcp_id = state.by_cli_id.remove(cli_id)?;
        let in_flight = state.in_flight.remove(&rmcp_id)?;
        Some((rmcp_id, in_flight.reply))
    }

    /// Marks the server stopped and hands back every pending reply with
    /// the CLI's id, for the caller to answer. Later calls return nothing.
    #[must_use = "the returned replies must be answered"]
    pub(crate) fn stop(&self) -> Vec<(RequestId, McpReply)> {
        let mut state = self.lock();
        state.stopped = true;
        state.by_cli_id.clear();
        state
            .in_flight
            .drain()
            .map(|(_, in_flight)| (in_flight.cli_id, in_flight.reply))
            .collect()
    }
}
