//! What a session's handles share, made by the builder: the driver's
//! input channel, the shared state and event handoff, the timeouts.

use std::sync::Arc;
use std::sync::mpsc::SyncSender;
use std::time::{Duration, Instant};

use claude_proto_adapter::handlers::{Blocking, LiveTools};

use crate::channels::Input;
use crate::events::Handoff;
use crate::shared::Shared;

/// What the handle needs from the builder.
#[derive(Debug)]
pub(crate) struct Parts {
    pub(crate) input: SyncSender<Input>,
    pub(crate) shared: Arc<Shared>,
    pub(crate) handoff: Arc<Handoff>,
    pub(crate) pid: Option<u32>,
    pub(crate) request_timeout: Duration,
    pub(crate) init_timeout: Duration,
    /// When the initialize timeout, counted from the start, runs out
    /// (`None`: too far to represent).
    pub(crate) init_deadline: Option<Instant>,
    /// The in-process MCP tools, shared with the handler threads.
    pub(crate) tools: LiveTools<Blocking>,
}
