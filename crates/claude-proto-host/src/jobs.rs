//! Requests from the CLI that a user's handler answers: which handler, how
//! many run at once, and how their results become answers.

use std::collections::{HashSet, VecDeque};

use claude_proto::IncomingId;
use claude_proto::Reply;
use claude_proto::dispatch::{
    HookKey, HookRegistry, McpRoute, McpServerSpec, ToolOutput, reply_for_failure,
    reply_without_handler, route_mcp, tool_call_response,
};
use claude_proto::model::Json;
use claude_proto::model::hooks::{HookInput, HookOutput};
use claude_proto::model::incoming::{
    CanUseTool, CliRequest, ElicitationRequest, ElicitationResult, McpMessageResponse,
    UserDialogRequest, UserDialogResult,
};
use claude_proto::model::initialize::InitializeRequest;
use claude_proto::model::mcp::{JsonRpcId, JsonRpcMessage};
use claude_proto::model::permission::PermissionResult;

/// Which handlers the user registered, so the host knows which requests to
/// hand out as [`Job`]s and which to answer itself.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Capabilities {
    /// A permission handler is registered.
    pub permission: bool,
    /// The registered hooks.
    pub hooks: HookRegistry,
    /// The in-process MCP servers whose tools the host lists and routes.
    pub mcp_servers: Vec<McpServerSpec>,
    /// The in-process MCP servers that speak MCP themselves (an `rmcp`
    /// server, say): every message the CLI sends to one of these names
    /// becomes a [`JobKind::McpMessage`], unchanged.
    pub mcp_endpoints: Vec<String>,
    /// An elicitation handler is registered (MCP servers asking the user
    /// for input); without one, elicitations are declined.
    pub elicitation: bool,
    /// A user-dialog handler is registered for these dialog kinds, which
    /// `initialize` advertises (`supportedDialogKinds`); without one, no
    /// kind is advertised and dialogs are cancelled.
    pub user_dialog_kinds: Option<Vec<String>>,
}

impl Capabilities {
    /// `true` when the CLI may call this session back: a permission,
    /// elicitation or dialog handler, hooks, or in-process MCP servers.
    /// A one-shot run keeps stdin open for them until the run is over
    /// ([`Command::EndInputAtRunEnd`](crate::Command::EndInputAtRunEnd)).
    pub fn calls_back(&self) -> bool {
        self.permission
            || self.elicitation
            || self.user_dialog_kinds.is_some()
            || !self.hooks.is_empty()
            || !self.mcp_servers.is_empty()
            || !self.mcp_endpoints.is_empty()
    }

    /// Adds the hooks and MCP server names to the `initialize` request.
    pub fn complete_initialize(&self, request: &mut InitializeRequest) {
        let hooks = self.hooks.matchers();
        if !hooks.is_empty() {
            request.hooks = Some(hooks);
        }
        if let Some(kinds) = &self.user_dialog_kinds {
            request.supported_dialog_kinds = Some(kinds.clone());
        }
        if !self.mcp_servers.is_empty() || !self.mcp_endpoints.is_empty() {
            let names = request.sdk_mcp_servers.get_or_insert_with(Vec::new);
            let served = self.mcp_servers.iter().map(|spec| &spec.name);
            for name in served.chain(&self.mcp_endpoints) {
                if !names.contains(name) {
                    names.push(name.clone());
                }
            }
        }
    }
}

/// A handler to run for a request from the CLI: run it off the read path,
/// then give [`Job::finish`]'s result to
/// [`Host::handle_completion`](crate::Host::handle_completion).
#[derive(Debug)]
#[must_use = "the CLI waits until the job's completion is handed back to the host"]
pub struct Job {
    /// The request this answers.
    pub id: IncomingId,
    /// Which handler, with its input.
    pub kind: JobKind,
    request: CliRequest,
    subtype: String,
    cost: usize,
}

/// Which handler a [`Job`] is for.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum JobKind {
    /// The permission handler.
    Permission(CanUseTool),
    /// A hook callback.
    Hook {
        /// Which registered hook.
        key: HookKey,
        /// The hook's input.
        input: HookInput,
        /// The tool use it is about, if any.
        tool_use_id: Option<String>,
    },
    /// The elicitation handler: an MCP server asks the user for input.
    Elicitation(ElicitationRequest),
    /// The user-dialog handler: the CLI asks the host to show a dialog.
    UserDialog(UserDialogRequest),
    /// An in-process MCP tool.
    Tool {
        /// The server's name. Names, not positions, because the tools may
        /// change while the call runs (see
        /// [`Command::UpdateMcpServer`](crate::Command::UpdateMcpServer)).
        server: String,
        /// The tool's name.
        tool: String,
        /// The call's arguments.
        arguments: Json,
        /// The JSON-RPC id to answer.
        rpc_id: JsonRpcId,
    },
    /// A message for an in-process MCP server that speaks MCP itself
    /// ([`Capabilities::mcp_endpoints`]): hand it over as it came and
    /// finish with [`Outcome::Mcp`].
    McpMessage {
        /// The server's name.
        server: String,
        /// The JSON-RPC message, as the CLI sent it.
        message: Json,
    },
}

/// What a handler produced.
#[derive(Debug)]
#[non_exhaustive]
pub enum Outcome {
    /// The permission handler's decision.
    Permission(PermissionResult),
    /// A hook's output.
    Hook(HookOutput),
    /// A tool's output.
    Tool(ToolOutput),
    /// The elicitation handler's answer.
    Elicitation(ElicitationResult),
    /// The user-dialog handler's answer.
    UserDialog(UserDialogResult),
    /// An MCP server's answer to a [`JobKind::McpMessage`]: its JSON-RPC
    /// response to a request, `None` for a notification or a response.
    Mcp(Option<Json>),
}

/// A finished [`Job`], ready for
/// [`Host::handle_completion`](crate::Host::handle_completion).
#[derive(Debug)]
pub struct Completion {
    pub(crate) id: IncomingId,
    pub(crate) subtype: String,
    pub(crate) answer: Answer,
}

impl Completion {
    /// The request it answers.
    pub fn id(&self) -> IncomingId {
        self.id
    }
}

#[derive(Debug)]
pub(crate) enum Answer {
    Permission(PermissionResult),
    Hook(HookOutput),
    Mcp(McpMessageResponse),
    /// A success answer with this payload.
    Reply(Reply),
    Failed {
        reply: Reply,
        message: String,
    },
}

impl Job {
    /// Turns the handler's result (`Err` carries an error or panic message)
    /// into the answer for the CLI. A failure, or an outcome of the wrong
    /// kind, becomes the failure answer of [`reply_for_failure`].
    pub fn finish(self, result: Result<Outcome, String>) -> Completion {
        let Job {
            id,
            kind,
            request,
            subtype,
            ..
        } = self;
        let failed = |message: String| Answer::Failed {
            reply: reply_for_failure(&request, &message),
            message,
        };

        let answer = match (result, kind) {
            (Ok(Outcome::Permission(r)), JobKind::Permission(_)) => Answer::Permission(r),
            (Ok(Outcome::Hook(o)), JobKind::Hook { .. }) => Answer::Hook(o),
            (Ok(Outcome::Tool(output)), JobKind::Tool { rpc_id, .. }) => {
                Answer::Mcp(tool_call_response(rpc_id, output))
            }
            // An answer that cannot be encoded fails like a handler error.
            (Ok(Outcome::Elicitation(result)), JobKind::Elicitation(_)) => {
                match Reply::success(&result) {
                    Ok(reply) => Answer::Reply(reply),
                    Err(error) => failed(format!("the answer could not be encoded: {error}")),
                }
            }
            (Ok(Outcome::UserDialog(result)), JobKind::UserDialog(_)) => {
                match Reply::success(&result) {
                    Ok(reply) => Answer::Reply(reply),
                    Err(error) => failed(format!("the answer could not be encoded: {error}")),
                }
            }
            (Ok(Outcome::Mcp(None)), JobKind::McpMessage { .. }) => {
                Answer::Mcp(McpMessageResponse::notification_ack())
            }
            (Ok(Outcome::Mcp(Some(response))), JobKind::McpMessage { .. }) => {
                match serde_json::from_value(response) {
                    Ok(response @ (JsonRpcMessage::Response(_) | JsonRpcMessage::Error(_))) => {
                        Answer::Mcp(McpMessageResponse::new(response))
                    }
                    _ => failed("the MCP server's answer is not a JSON-RPC response".to_owned()),
                }
            }
            (Ok(_), _) => failed("the handler returned an answer of the wrong kind".into()),
            (Err(message), _) => failed(message),
        };
        Completion {
            id,
            subtype,
            answer,
        }
    }

    /// The request's subtype.
    pub fn subtype(&self) -> &str {
        &self.subtype
    }

    /// A message for an endpoint server that is not a request (a
    /// notification such as `notifications/cancelled`, or a response):
    /// handing it over never waits for the server, so it does not wait for
    /// a handler slot either, and a cancellation reaches a server whose
    /// calls hold every slot.
    fn is_prompt(&self) -> bool {
        matches!(&self.kind, JobKind::McpMessage { message, .. }
            if message.get("method").is_none() || message.get("id").is_none())
    }
}

/// How the host answers one request from the CLI.
pub(crate) enum Route {
    /// A handler runs it.
    Job(Box<Job>),
    /// The host answers at once (MCP handshake, no handler, unknown server).
    Answer(DirectAnswer),
}

/// An answer the host gives without a handler.
pub(crate) enum DirectAnswer {
    Mcp(McpMessageResponse),
    Reply(Reply),
}

/// Decides who answers `request`: a handler of `caps` (a job), or the host.
pub(crate) fn route(
    caps: &Capabilities,
    id: IncomingId,
    subtype: String,
    request: CliRequest,
    cost: usize,
) -> Route {
    let kind = match &request {
        CliRequest::CanUseTool(ask) if caps.permission => Some(JobKind::Permission(ask.clone())),
        CliRequest::HookCallback(call) => {
            caps.hooks
                .resolve(&call.callback_id)
                .map(|key| JobKind::Hook {
                    key,
                    input: call.input.clone(),
                    tool_use_id: call.tool_use_id.clone(),
                })
        }
        CliRequest::Elicitation(request) if caps.elicitation => {
            Some(JobKind::Elicitation(request.clone()))
        }
        CliRequest::RequestUserDialog(request) if caps.user_dialog_kinds.is_some() => {
            Some(JobKind::UserDialog(request.clone()))
        }
        CliRequest::McpMessage(message) if caps.mcp_endpoints.contains(&message.server_name) => {
            serde_json::to_value(&message.message)
                .ok()
                .map(|json| JobKind::McpMessage {
                    server: message.server_name.clone(),
                    message: json,
                })
        }
        CliRequest::McpMessage(message) => match route_mcp(&caps.mcp_servers, message) {
            McpRoute::Respond(response) => return Route::Answer(DirectAnswer::Mcp(response)),
            McpRoute::CallTool {
                server,
                tool,
                id: rpc_id,
                arguments,
            } => {
                // `route_mcp` gives positions in the slice it was given.
                let spec = caps.mcp_servers.get(server);
                spec.zip(spec.and_then(|s| s.tools.get(tool)))
                    .map(|(spec, tool)| JobKind::Tool {
                        server: spec.name.clone(),
                        tool: tool.name.clone(),
                        arguments,
                        rpc_id,
                    })
            }
            McpRoute::UnknownServer(reply) => return Route::Answer(DirectAnswer::Reply(reply)),
            _ => None,
        },
        _ => None,
    };
    match kind {
        Some(kind) => Route::Job(Box::new(Job {
            id,
            kind,
            request,
            subtype,
            cost,
        })),
        None => Route::Answer(DirectAnswer::Reply(reply_without_handler(&request))),
    }
}

/// Jobs running and jobs waiting for a slot.
#[derive(Debug)]
pub(crate) struct Jobs {
    running: HashSet<IncomingId>,
    waiting: VecDeque<Job>,
    waiting_bytes: usize,
    max_running: usize,
}

impl Jobs {
    pub(crate) fn new(max_running: usize) -> Self {
        Self {
            running: HashSet::new(),
            waiting: VecDeque::new(),
            waiting_bytes: 0,
            max_running,
        }
    }

    /// Takes a job: returns it if it may start now, else queues it. A
    /// prompt job (see [`Job::is_prompt`]) starts without a free slot, but
    /// never ahead of a waiting job, so messages keep the CLI's order.
    pub(crate) fn admit(&mut self, job: Job) -> Option<Job> {
        let prompt = job.is_prompt() && self.waiting.is_empty();
        if self.running.len() < self.max_running || prompt {
            self.running.insert(job.id);
            Some(job)
        } else {
            self.waiting_bytes += job.cost;
            self.waiting.push_back(job);
            None
        }
    }

    /// A job ended (answered or aborted): `true` if it was running. The
    /// caller then starts [`next`](Self::next).
    pub(crate) fn finished(&mut self, id: IncomingId) -> bool {
        self.running.remove(&id)
    }

    /// The next waiting job, if a slot is free (or it is a prompt one).
    pub(crate) fn next(&mut self) -> Option<Job> {
        let head = self.waiting.front()?;
        if self.running.len() >= self.max_running && !head.is_prompt() {
            return None;
        }
        let job = self.waiting.pop_front()?;
        self.waiting_bytes -= job.cost;
        self.running.insert(job.id);
        Some(job)
    }

    /// The CLI withdrew `id`: `Some(true)` if it was running (abort it),
    /// `Some(false)` if it was waiting (dropped here), `None` if unknown.
    pub(crate) fn withdraw(&mut self, id: IncomingId) -> Option<bool> {
        if self.running.remove(&id) {
            return Some(true);
        }
        let at = self.waiting.iter().position(|job| job.id == id)?;
        let job = self.waiting.remove(at)?;
        self.waiting_bytes -= job.cost;
        Some(false)
    }

    /// Ends everything: the running jobs' ids (to abort); waiting ones are
    /// dropped.
    pub(crate) fn drain(&mut self) -> Vec<IncomingId> {
        self.waiting.clear();
        self.waiting_bytes = 0;
        let mut ids: Vec<IncomingId> = self.running.drain().collect();
        ids.sort_unstable();
        ids
    }

    pub(crate) fn waiting_bytes(&self) -> usize {
        self.waiting_bytes
    }

    pub(crate) fn running(&self) -> usize {
        self.running.len()
    }
}
