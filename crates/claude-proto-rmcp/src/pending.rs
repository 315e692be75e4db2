//! The requests rmcp is working on, each with the reply that answers it,
//! and where the server's own messages go. Shared by the endpoint (which
//! adds requests) and the transport on rmcp's thread (which answers them).

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use claude_proto_process::{McpOutlet, McpReply};
use rmcp::model::RequestId;

/// Why a request was not handed to rmcp.
pub(crate) enum Refusal {
    /// A request with the same id is still in flight; rmcp would lose one
    /// of the two responses.
    DuplicateId,
    /// The server's loop has ended.
    Stopped,
}

/// The bridge's shared state. No user code runs under its lock: replies
/// are taken out and answered after it is released.
#[derive(Default)]
pub(crate) struct Pending {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    replies: HashMap<RequestId, McpReply>,
    outlet: Option<McpOutlet>,
    stopped: bool,
}

impl Pending {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Nothing panics under this lock; if something did, the map is
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

    /// Remembers `reply` under `id` and calls `forward`, under one lock so
    /// that [`stop`](Self::stop) cannot run in between and leave the reply
    /// unanswered. `forward` returns whether rmcp got the message.
    pub(crate) fn admit(
        &self,
        id: RequestId,
        reply: McpReply,
        forward: impl FnOnce() -> bool,
    ) -> Result<(), (McpReply, Refusal)> {
        let mut state = self.lock();
        if state.stopped {
            return Err((reply, Refusal::Stopped));
        }
        if state.replies.contains_key(&id) {
            return Err((reply, Refusal::DuplicateId));
        }
        if !forward() {
            state.stopped = true;
            return Err((reply, Refusal::Stopped));
        }
        state.replies.insert(id, reply);
        Ok(())
    }

    /// The reply waiting for `id`, if any; it is no longer pending.
    pub(crate) fn take(&self, id: &RequestId) -> Option<McpReply> {
        self.lock().replies.remove(id)
    }

    /// Marks the server stopped and hands back every pending reply, for
    /// the caller to answer. Later calls return nothing.
    #[must_use = "the returned replies must be answered"]
    pub(crate) fn stop(&self) -> Vec<(RequestId, McpReply)> {
        let mut state = self.lock();
        state.stopped = true;
        state.replies.drain().collect()
    }
}
