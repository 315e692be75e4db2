//! The part of an adapter's driver that does not depend on the runtime.
//!
//! A [`Host`] wraps the core [`Session`] with what every adapter needs
//! around it: which requests go to which handler ([`Job`]s), who is waiting
//! for which control answer, where `initialize` stands, what the user
//! should see ([`Event`]s), and how everything settles when the process
//! ends. An adapter feeds it bytes and commands, runs the jobs it hands
//! out, and does the IO; nothing here blocks, spawns or reads a clock.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use claude_proto::dispatch::{
    HookKey, HookRegistry, McpRoute, McpServerSpec, ToolOutput, reply_for_failure,
    reply_without_handler, route_mcp, tool_call_response,
};
use claude_proto::model::Json;
use claude_proto::model::control::ControlRequest;
use claude_proto::model::hooks::{HookInput, HookOutput};
use claude_proto::model::incoming::{CanUseTool, CliRequest, McpMessageResponse};
use claude_proto::model::initialize::{InitializeRequest, InitializeResponse};
use claude_proto::model::mcp::JsonRpcId;
use claude_proto::model::permission::PermissionResult;
use claude_proto::model::user::UserMessage;
use claude_proto::{
    ControlError, ControlOutcome, ControlSuccess, Event as CoreEvent, IncomingId, Reply, RequestId,
    Session,
};

use crate::error::{Error, ExitReport};
use crate::event::Event;

/// What handlers the adapter has, so the host knows which requests to hand
/// out as [`Job`]s and which to answer itself.
#[derive(Debug, Clone, Default)]
pub struct Capabilities {
    /// A permission handler is registered.
    pub permission: bool,
    /// The registered hooks.
    pub hooks: HookRegistry,
    /// The in-process MCP servers.
    pub mcp_servers: Vec<McpServerSpec>,
}

impl Capabilities {
    /// Adds the hooks and MCP server names to the `initialize` request.
    pub fn complete_initialize(&self, request: &mut InitializeRequest) {
        let hooks = self.hooks.matchers();
        if !hooks.is_empty() {
            request.hooks = Some(hooks);
        }
        if !self.mcp_servers.is_empty() {
            let names = request.sdk_mcp_servers.get_or_insert_with(Vec::new);
            for spec in &self.mcp_servers {
                if !names.contains(&spec.name) {
                    names.push(spec.name.clone());
                }
            }
        }
    }
}

/// Where the `initialize` exchange stands.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum InitState {
    /// Sent, not answered yet.
    Pending,
    /// Answered with success.
    Ready(Arc<InitializeResponse>),
    /// It failed.
    Failed(InitFailure),
}

impl InitState {
    /// The answer, the failure, or `None` while still pending.
    pub fn outcome(&self) -> Option<Result<Arc<InitializeResponse>, Error>> {
        match self {
            InitState::Pending => None,
            InitState::Ready(response) => Some(Ok(response.clone())),
            InitState::Failed(failure) => Some(Err(failure.clone().into_error())),
        }
    }
}

/// Why `initialize` did not succeed (cloneable, unlike [`Error`]).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum InitFailure {
    /// The CLI refused it or it timed out.
    Control(ControlError),
    /// The CLI exited first.
    Exited(ExitReport),
    /// The answer could not be read.
    Decode(String),
    /// The session ended without a process exit to report.
    Closed,
}

impl InitFailure {
    /// The error to give the user.
    pub fn into_error(self) -> Error {
        match self {
            InitFailure::Control(e) => Error::Control(e),
            InitFailure::Exited(r) => Error::Exited(r),
            InitFailure::Decode(m) => Error::Io(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("the CLI's initialize answer could not be read: {m}"),
            )),
            InitFailure::Closed => Error::Closed,
        }
    }
}

/// A handler to run for a request from the CLI. Run it off the read path,
/// then give [`Job::finish`]'s result to [`Host::complete`].
#[derive(Debug)]
#[must_use = "the CLI waits until the job's completion is given to Host::complete"]
pub struct Job {
    /// The request this answers.
    pub id: IncomingId,
    /// Which handler, with its input.
    pub kind: JobKind,
    request: CliRequest,
    subtype: String,
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
    /// An in-process MCP tool.
    Tool {
        /// Index of the server in [`Capabilities::mcp_servers`].
        server: usize,
        /// Index of the tool in that server.
        tool: usize,
        /// The call's arguments.
        arguments: Json,
        /// The JSON-RPC id to answer.
        rpc_id: JsonRpcId,
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
}

/// A finished [`Job`], ready for [`Host::complete`].
#[derive(Debug)]
pub struct Completion {
    id: IncomingId,
    subtype: String,
    answer: Answer,
}

impl Completion {
    /// The request it answers.
    pub fn id(&self) -> IncomingId {
        self.id
    }
}

#[derive(Debug)]
enum Answer {
    Permission(PermissionResult),
    Hook(HookOutput),
    Mcp(McpMessageResponse),
    Failed { reply: Reply, message: String },
}

impl Job {
    /// Turns the handler's result (`Err` carries an error or panic message)
    /// into the answer for the CLI. A failure, or an outcome of the wrong
    /// kind, becomes the failure answer of
    /// [`reply_for_failure`].
    pub fn finish(self, result: Result<Outcome, String>) -> Completion {
        let Job {
            id,
            kind,
            request,
            subtype,
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
            (Ok(_), _) => failed("the handler returned an answer of the wrong kind".into()),
            (Err(message), _) => failed(message),
        };
        Completion {
            id,
            subtype,
            answer,
        }
    }
}

/// What the adapter must do for the host.
#[derive(Debug)]
#[non_exhaustive]
pub enum Action<W> {
    /// Run this handler.
    Run(Box<Job>),
    /// The CLI withdrew the request: drop its handler (no answer is sent).
    Abort(IncomingId),
    /// A control request finished: hand the result to whoever waits.
    Resolve(W, Result<ControlSuccess, Error>),
    /// `initialize` was answered or failed.
    Initialized(InitState),
}

/// The runtime-independent state of an adapter's driver. `W` is the
/// adapter's "someone waits for this control answer" type (a oneshot
/// sender, usually).
#[derive(Debug)]
pub struct Host<W> {
    session: Session,
    capabilities: Arc<Capabilities>,
    events: VecDeque<Event>,
    actions: VecDeque<Action<W>>,
    waiting: HashMap<RequestId, W>,
    running: HashSet<IncomingId>,
    init_id: Option<RequestId>,
    init_settled: bool,
    report: Option<ExitReport>,
    ended: bool,
}

impl<W> Host<W> {
    /// Wraps `session` and sends `initialize` (completed with the hooks and
    /// MCP servers of `capabilities`).
    pub fn new(
        mut session: Session,
        capabilities: Arc<Capabilities>,
        mut initialize: InitializeRequest,
        init_timeout: Option<Duration>,
        now: Instant,
    ) -> Self {
        capabilities.complete_initialize(&mut initialize);
        let mut actions = VecDeque::new();
        let init_id = match session.initialize(&initialize, init_timeout, now) {
            Ok(id) => Some(id),
            Err(e) => {
                actions.push_back(Action::Initialized(InitState::Failed(InitFailure::Decode(
                    e.to_string(),
                ))));
                None
            }
        };
        Self {
            session,
            capabilities,
            events: VecDeque::new(),
            actions,
            waiting: HashMap::new(),
            running: HashSet::new(),
            init_settled: init_id.is_none(),
            init_id,
            report: None,
            ended: false,
        }
    }

    /// The core session (for inputs: bytes, timeouts).
    pub fn session(&mut self) -> &mut Session {
        &mut self.session
    }

    /// The handlers the host knows about.
    pub fn capabilities(&self) -> &Arc<Capabilities> {
        &self.capabilities
    }

    /// Drains the core into events and actions, and appends the bytes to
    /// write to `transmit`. Call after every input and command.
    pub fn pump(&mut self, transmit: &mut Vec<u8>) {
        loop {
            self.session.poll_transmit(transmit);
            let Some(event) = self.session.poll_event() else {
                break;
            };
            self.on_core_event(event);
        }
    }

    /// The next thing the adapter must do.
    pub fn poll_action(&mut self) -> Option<Action<W>> {
        self.actions.pop_front()
    }

    /// `true` while events wait for the user. Adapters read no more output
    /// until these are handed over: that is the backpressure.
    pub fn has_events(&self) -> bool {
        !self.events.is_empty()
    }

    /// The next event for the user.
    pub fn pop_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// Nobody reads events any more: drop them and stop queueing.
    pub fn discard_events(&mut self) {
        self.events.clear();
        self.ended = true;
    }

    /// Sends a user message.
    pub fn send(&mut self, message: &UserMessage) -> Result<(), Error> {
        self.session
            .send_user_message(message)
            .map_err(|e| self.send_error(e))
    }

    /// Sends a control request; `waiter` gets its result through
    /// [`Action::Resolve`]. A request that cannot be sent resolves at once.
    pub fn control(
        &mut self,
        request: &ControlRequest,
        timeout: Option<Duration>,
        now: Instant,
        waiter: W,
    ) {
        match self.session.send_control(request, timeout, now) {
            Ok(id) => {
                self.waiting.insert(id, waiter);
            }
            Err(e) => {
                let error = self.send_error(e);
                self.actions.push_back(Action::Resolve(waiter, Err(error)));
            }
        }
    }

    /// Closes the CLI's stdin after what is queued (the adapter then closes
    /// the writer once its buffer is empty).
    pub fn end_input(&mut self) {
        self.session.close_input();
    }

    /// A finished job: its answer goes to the CLI (unless the CLI cancelled
    /// the request meanwhile). A failure is also reported as
    /// [`Event::HandlerFailed`].
    pub fn complete(&mut self, completion: Completion) {
        if !self.running.remove(&completion.id) {
            return;
        }
        let id = completion.id;
        // NotPending only means the CLI cancelled it: nothing to send.
        let _ = match completion.answer {
            Answer::Permission(result) => self.session.respond_permission(id, result),
            Answer::Hook(output) => self.session.respond_hook(id, &output),
            Answer::Mcp(response) => self.session.respond_mcp(id, &response),
            Answer::Failed { reply, message } => {
                self.emit(Event::HandlerFailed {
                    subtype: completion.subtype,
                    message,
                });
                self.session.respond(id, reply)
            }
        };
    }

    /// The process exited (or the transport ended): everything still
    /// waiting settles with `report`, running handlers are aborted, and the
    /// host's remaining events are the last ones.
    pub fn finish(&mut self, report: Option<ExitReport>, transmit: &mut Vec<u8>) {
        self.report = report;
        self.session.handle_eof();
        self.pump(transmit);
        for id in self.running.drain() {
            self.actions.push_back(Action::Abort(id));
        }
        for (_, waiter) in self.waiting.drain() {
            let error = ended_error(self.report.as_ref());
            self.actions.push_back(Action::Resolve(waiter, Err(error)));
        }
        if !self.init_settled {
            self.init_settled = true;
            let failure = match &self.report {
                Some(report) => InitFailure::Exited(report.clone()),
                None => InitFailure::Closed,
            };
            self.actions
                .push_back(Action::Initialized(InitState::Failed(failure)));
        }
    }

    /// The error for anything attempted after the end.
    pub fn ended_error(&self) -> Error {
        ended_error(self.report.as_ref())
    }

    fn send_error(&self, error: claude_proto::SendError) -> Error {
        match (&error, &self.report) {
            (claude_proto::SendError::OutputEnded, Some(report)) => Error::Exited(report.clone()),
            _ => Error::Send(error),
        }
    }

    fn emit(&mut self, event: Event) {
        if !self.ended {
            self.events.push_back(event);
        }
    }

    fn on_core_event(&mut self, event: CoreEvent) {
        match event {
            CoreEvent::Message(message) => self.emit(Event::Message(message)),
            CoreEvent::Request(request) => self.dispatch(request),
            CoreEvent::RequestCancelled { id, .. } if self.running.remove(&id) => {
                self.actions.push_back(Action::Abort(id));
            }
            CoreEvent::Response(outcome) => self.on_outcome(outcome),
            CoreEvent::ProtocolError(error) => self.emit(Event::ProtocolError(error)),
            CoreEvent::RequestRefused {
                request_id,
                subtype,
                reason,
            } => self.emit(Event::RequestRefused {
                request_id,
                subtype,
                reason,
            }),
            _ => {}
        }
    }

    fn on_outcome(&mut self, outcome: ControlOutcome) {
        if Some(outcome.id) == self.init_id {
            self.init_settled = true;
            let state = match outcome.result {
                Ok(success) => match success.decode::<InitializeResponse>() {
                    Ok(response) => InitState::Ready(Arc::new(response)),
                    Err(e) => InitState::Failed(InitFailure::Decode(e.to_string())),
                },
                Err(ControlError::OutputEnded { .. }) => match &self.report {
                    Some(report) => InitState::Failed(InitFailure::Exited(report.clone())),
                    None => InitState::Failed(InitFailure::Closed),
                },
                Err(e) => InitState::Failed(InitFailure::Control(e)),
            };
            self.actions.push_back(Action::Initialized(state));
            return;
        }
        if let Some(waiter) = self.waiting.remove(&outcome.id) {
            let result = outcome.result.map_err(|e| match (e, &self.report) {
                (ControlError::OutputEnded { .. }, Some(report)) => Error::Exited(report.clone()),
                (e, _) => Error::Control(e),
            });
            self.actions.push_back(Action::Resolve(waiter, result));
        }
    }

    /// Decides who answers a request from the CLI: a handler (a job), or
    /// the host itself (MCP handshake, missing handlers).
    fn dispatch(&mut self, request: claude_proto::IncomingRequest) {
        let subtype = request.subtype().to_owned();
        let (id, request) = request.into_parts();
        let caps = self.capabilities.clone();
        let kind = match &request {
            CliRequest::CanUseTool(ask) if caps.permission => {
                Some(JobKind::Permission(ask.clone()))
            }
            CliRequest::HookCallback(call) => {
                caps.hooks
                    .resolve(&call.callback_id)
                    .map(|key| JobKind::Hook {
                        key,
                        input: call.input.clone(),
                        tool_use_id: call.tool_use_id.clone(),
                    })
            }
            CliRequest::McpMessage(message) => match route_mcp(&caps.mcp_servers, message) {
                McpRoute::Respond(response) => {
                    let _ = self.session.respond_mcp(id, &response);
                    return;
                }
                McpRoute::CallTool {
                    server,
                    tool,
                    id: rpc_id,
                    arguments,
                } => Some(JobKind::Tool {
                    server,
                    tool,
                    arguments,
                    rpc_id,
                }),
                McpRoute::UnknownServer(reply) => {
                    let _ = self.session.respond(id, reply);
                    return;
                }
                _ => None,
            },
            _ => None,
        };
        match kind {
            Some(kind) => {
                self.running.insert(id);
                self.actions.push_back(Action::Run(Box::new(Job {
                    id,
                    kind,
                    request,
                    subtype,
                })));
            }
            None => {
                let _ = self.session.respond(id, reply_without_handler(&request));
            }
        }
    }
}

fn ended_error(report: Option<&ExitReport>) -> Error {
    match report {
        Some(report) => Error::Exited(report.clone()),
        None => Error::Closed,
    }
}

/// The close sequence of a child process, as a state machine: close stdin
/// and wait, then SIGTERM and wait, then SIGKILL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShutdownSequence {
    stage: Stage,
    policy: crate::ShutdownPolicy,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Running,
    Grace,
    Terminated,
    Killed,
}

/// What to do when a [`ShutdownSequence`] deadline passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ShutdownStep {
    /// Send SIGTERM; call [`ShutdownSequence::on_deadline`] again after the
    /// returned grace.
    Terminate(Duration),
    /// Send SIGKILL (also when SIGTERM could not be sent).
    Kill,
    /// Nothing more to do.
    Done,
}

impl ShutdownSequence {
    /// A sequence that has not started.
    pub fn new(policy: crate::ShutdownPolicy) -> Self {
        Self {
            stage: Stage::Running,
            policy,
        }
    }

    /// `true` once [`begin`](Self::begin) was called.
    pub fn started(&self) -> bool {
        self.stage != Stage::Running
    }

    /// Starts the sequence (stdin is being closed): returns how long to
    /// wait before [`on_deadline`](Self::on_deadline), or `None` if it had
    /// already started.
    pub fn begin(&mut self) -> Option<Duration> {
        if self.started() {
            return None;
        }
        self.stage = Stage::Grace;
        Some(self.policy.close_grace)
    }

    /// The current wait ran out with the process still alive.
    pub fn on_deadline(&mut self) -> ShutdownStep {
        match self.stage {
            Stage::Grace => {
                self.stage = Stage::Terminated;
                ShutdownStep::Terminate(self.policy.term_grace)
            }
            Stage::Terminated => {
                self.stage = Stage::Killed;
                ShutdownStep::Kill
            }
            Stage::Running | Stage::Killed => ShutdownStep::Done,
        }
    }

    /// SIGTERM could not be sent: go straight to killing.
    pub fn terminate_failed(&mut self) -> ShutdownStep {
        self.stage = Stage::Killed;
        ShutdownStep::Kill
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use claude_proto::Config;
    use claude_proto::model::hooks::HookEvent;
    use serde_json::json;

    fn host(caps: Capabilities) -> (Host<u32>, Vec<u8>) {
        let mut host = Host::new(
            Session::new(Config::default()),
            Arc::new(caps),
            InitializeRequest::default(),
            None,
            Instant::now(),
        );
        let mut out = Vec::new();
        host.pump(&mut out);
        (host, out)
    }

    fn feed(host: &mut Host<u32>, line: serde_json::Value, out: &mut Vec<u8>) {
        host.session().handle_input(format!("{line}\n").as_bytes());
        host.pump(out);
    }

    #[test]
    fn requests_become_jobs_only_when_a_handler_exists() {
        let mut caps = Capabilities::default();
        caps.hooks.register(HookEvent::Stop, None, None, None);
        let (mut h, mut out) = host(caps);
        let first: serde_json::Value =
            serde_json::from_slice(out.split(|&b| b == b'\n').next().unwrap()).unwrap();
        assert_eq!(
            first["request"]["hooks"]["Stop"][0]["hookCallbackIds"][0],
            "hook_0"
        );
        out.clear();
        feed(
            &mut h,
            json!({"type":"control_request","request_id":"p","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{},"tool_use_id":"t"}}),
            &mut out,
        );
        // No permission handler: answered by the host, no job.
        assert!(h.poll_action().is_none());
        assert!(String::from_utf8_lossy(&out).contains("canUseTool callback is not provided"));
        out.clear();
        feed(
            &mut h,
            json!({"type":"control_request","request_id":"h","request":{"subtype":"hook_callback","callback_id":"hook_0","input":{"hook_event_name":"Stop","session_id":"s","transcript_path":"t","cwd":"/","stop_hook_active":false}}}),
            &mut out,
        );
        let Some(Action::Run(job)) = h.poll_action() else {
            panic!("expected a job")
        };
        assert!(matches!(job.kind, JobKind::Hook { .. }));
        assert!(out.is_empty());
        h.complete(job.finish(Err("boom".into())));
        h.pump(&mut out);
        assert!(String::from_utf8_lossy(&out).contains("Hook callback failed: boom"));
        assert!(matches!(h.pop_event(), Some(Event::HandlerFailed { .. })));
    }

    #[test]
    fn cancelled_jobs_are_aborted_and_their_answers_dropped() {
        let caps = Capabilities {
            permission: true,
            ..Capabilities::default()
        };
        let (mut h, mut out) = host(caps);
        out.clear();
        feed(
            &mut h,
            json!({"type":"control_request","request_id":"p","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{},"tool_use_id":"t"}}),
            &mut out,
        );
        let Some(Action::Run(job)) = h.poll_action() else {
            panic!()
        };
        feed(
            &mut h,
            json!({"type":"control_cancel_request","request_id":"p"}),
            &mut out,
        );
        assert!(matches!(h.poll_action(), Some(Action::Abort(id)) if id == job.id));
        h.complete(job.finish(Ok(Outcome::Permission(PermissionResult::allow()))));
        h.pump(&mut out);
        assert!(out.is_empty(), "a cancelled request must not be answered");
    }

    #[test]
    fn finish_settles_waiters_and_initialize_with_the_exit() {
        let (mut h, mut out) = host(Capabilities::default());
        h.control(&ControlRequest::interrupt(), None, Instant::now(), 7);
        let report = ExitReport {
            code: Some(3),
            signal: None,
            stderr_tail: "boom".into(),
        };
        h.finish(Some(report), &mut out);
        let mut resolved = false;
        let mut init_failed = false;
        while let Some(action) = h.poll_action() {
            match action {
                Action::Resolve(7, Err(Error::Exited(r))) => resolved = r.code == Some(3),
                Action::Initialized(InitState::Failed(InitFailure::Exited(r))) => {
                    init_failed = r.code == Some(3)
                }
                other => panic!("{other:?}"),
            }
        }
        assert!(resolved && init_failed);
        assert!(matches!(h.ended_error(), Error::Exited(_)));
    }

    #[test]
    fn shutdown_sequence_escalates_once() {
        let mut s = ShutdownSequence::new(crate::ShutdownPolicy::default());
        assert_eq!(s.begin(), Some(Duration::from_secs(2)));
        assert_eq!(s.begin(), None);
        assert_eq!(
            s.on_deadline(),
            ShutdownStep::Terminate(Duration::from_secs(5))
        );
        assert_eq!(s.on_deadline(), ShutdownStep::Kill);
        assert_eq!(s.on_deadline(), ShutdownStep::Done);
    }
}
