//! In-process MCP servers that speak MCP themselves.
//!
//! The tool tables built with `McpServer::tool` are answered by the host:
//! it speaks the MCP handshake and listing, and calls a tool function per
//! `tools/call`. An [`McpEndpoint`] is the other kind: a whole MCP server
//! living in this process (an `rmcp` server, through the
//! `claude-proto-rmcp` crate, or any other), which gets every JSON-RPC
//! message the CLI sends to its name, unchanged, and answers them itself.
//! Everything MCP offers (typed arguments, annotations, `_meta`,
//! structured output, resources, prompts, cancellation) is then the
//! server's to give, with nothing re-declared here.
//!
//! Runtime-neutral by design: messages go in through a plain call and
//! answers come back through a callback, from any thread, so one endpoint
//! serves every adapter.

use std::fmt;
use std::sync::Arc;

use claude_proto::ControlSuccess;
use claude_proto::model::control::ControlRequest;
use claude_proto::model::incoming::McpMessageResponse;
use serde_json::Value as Json;

/// An MCP server in this process that reads and writes MCP JSON-RPC itself.
///
/// Attach one to a session with the builder's `mcp_endpoint(name, ..)`.
/// Every `mcp_message` the CLI sends to that name reaches
/// [`handle`](Self::handle), in the order the CLI sent them, each with the
/// [`McpReply`] that answers it. An endpoint belongs to one session:
/// [`connect`](Self::connect) is called once, when that session starts.
pub trait McpEndpoint: Send + Sync + 'static {
    /// Called once, when the session starts and before any message, with
    /// where the server's own messages to the CLI go (notifications such as
    /// `notifications/tools/list_changed` or progress).
    fn connect(&self, to_cli: McpOutlet);

    /// One JSON-RPC message from the CLI: a request, a notification, or a
    /// response to a request of the server's. Must not block: hand it over
    /// and return. `reply` answers it, once, from any thread: with the
    /// response for a request, with `None` for anything else. A reply
    /// dropped unanswered answers the CLI with a JSON-RPC error, so the CLI
    /// never waits for an answer that will not come.
    fn handle(&self, message: Json, reply: McpReply);
}

/// The answer to one message handed to an [`McpEndpoint`]; see
/// [`McpEndpoint::handle`].
#[must_use = "the CLI waits for the answer; a reply dropped unanswered answers it with an error"]
pub struct McpReply {
    answer: Option<Answer>,
}

/// Called once with the answer: `Ok` sent, `Err` failed or dropped.
type Answer = Box<dyn FnOnce(Result<Option<Json>, String>) + Send>;

impl McpReply {
    /// A reply that calls `answer` once: with `Ok` when
    /// [`send`](Self::send) is called, with `Err` when dropped unanswered.
    /// For adapters and tests.
    pub fn new(answer: impl FnOnce(Result<Option<Json>, String>) + Send + 'static) -> Self {
        Self {
            answer: Some(Box::new(answer)),
        }
    }

    /// Answers: the server's JSON-RPC response for a request, `None` for a
    /// notification or a response.
    pub fn send(mut self, response: Option<Json>) {
        if let Some(answer) = self.answer.take() {
            answer(Ok(response));
        }
    }

    /// Answers with a failure: the CLI gets a JSON-RPC error carrying
    /// `message` (for a request), or an acknowledgement (otherwise).
    pub fn fail(mut self, message: impl Into<String>) {
        if let Some(answer) = self.answer.take() {
            answer(Err(message.into()));
        }
    }
}

impl Drop for McpReply {
    fn drop(&mut self) {
        if let Some(answer) = self.answer.take() {
            answer(Err(
                "the MCP server dropped the request unanswered".to_owned()
            ));
        }
    }
}

impl fmt::Debug for McpReply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpReply")
            .field("answered", &self.answer.is_none())
            .finish()
    }
}

/// Where an [`McpEndpoint`]'s own messages to the CLI go: each becomes an
/// `mcp_message` control request under the server's name. Cheap to clone;
/// never blocks.
#[derive(Clone)]
pub struct McpOutlet {
    notify: Arc<dyn Fn(Json) + Send + Sync>,
    request: Arc<dyn Fn(Json, McpReply) + Send + Sync>,
}

impl McpOutlet {
    /// An outlet that calls `notify` for each notification and `request`
    /// for each request, with the reply that must carry the CLI's answer
    /// back. For adapters and tests.
    pub fn new(
        notify: impl Fn(Json) + Send + Sync + 'static,
        request: impl Fn(Json, McpReply) + Send + Sync + 'static,
    ) -> Self {
        Self {
            notify: Arc::new(notify),
            request: Arc::new(request),
        }
    }

    /// Sends one JSON-RPC notification to the CLI. A message sent after
    /// the session ended goes nowhere. Never blocks: the async adapters
    /// queue it for the session's driver; the blocking adapter drops it
    /// (with a warning in the log) when the driver's input is full.
    pub fn send(&self, message: Json) {
        (self.notify)(message);
    }

    /// Sends one JSON-RPC request of the server's to the CLI (`roots/list`,
    /// `elicitation/create`, ...). `answer` gets the JSON-RPC response if
    /// the CLI's acknowledgement carries one, `None` if it is empty (CLI
    /// 2.1.330 acknowledges so, and sends its MCP client's response as an
    /// `mcp_message` of its own, which reaches [`McpEndpoint::handle`]), and
    /// fails if the session ends or the CLI refuses.
    pub fn request(&self, message: Json, answer: McpReply) {
        (self.request)(message, answer);
    }
}

/// The CLI's answer to an `mcp_message` request of a server's, as the
/// JSON-RPC response it carries (`None` if it carries none). For adapters
/// building an [`McpOutlet`].
///
/// # Errors
///
/// If the answer is not the `{"mcp_response": ...}` the CLI sends.
pub fn mcp_answer_from_cli(success: &ControlSuccess) -> Result<Option<Json>, String> {
    let answer: McpMessageResponse = success
        .decode()
        .map_err(|error| format!("the CLI's answer is not an MCP response: {error}"))?;
    answer
        .mcp_response
        .map(|response| serde_json::to_value(response).map_err(|error| error.to_string()))
        .transpose()
}

/// The control request that carries `message`, a message of the endpoint
/// server `server`, to the CLI. For adapters building an [`McpOutlet`].
pub fn mcp_message_to_cli(server: &str, message: Json) -> ControlRequest {
    // Any JSON converts: shapes JSON-RPC does not know are kept as they are.
    let message = serde_json::from_value(message.clone())
        .unwrap_or(claude_proto::model::mcp::JsonRpcMessage::Unknown(message));
    ControlRequest::mcp_message(server, message)
}

impl fmt::Debug for McpOutlet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpOutlet").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    type Seen = Arc<Mutex<Vec<Result<Option<Json>, String>>>>;

    #[test]
    fn a_reply_answers_once_and_a_dropped_one_answers_with_an_error() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let record = |seen: &Seen| {
            let seen = seen.clone();
            move |answer| seen.lock().unwrap_or_else(|e| e.into_inner()).push(answer)
        };
        McpReply::new(record(&seen)).send(Some(serde_json::json!({"id": 1})));
        McpReply::new(record(&seen)).send(None);
        drop(McpReply::new(record(&seen)));
        McpReply::new(record(&seen)).fail("no");
        let seen = seen.lock().unwrap_or_else(|e| e.into_inner());
        assert_eq!(seen.len(), 4);
        assert_eq!(seen[0], Ok(Some(serde_json::json!({"id": 1}))));
        assert_eq!(seen[1], Ok(None));
        assert!(seen[2].as_ref().is_err_and(|e| e.contains("dropped")));
        assert_eq!(seen[3], Err("no".to_owned()));
    }
}
