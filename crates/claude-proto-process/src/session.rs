//! The runtime-independent half of an adapter's user handle and builder:
//! the [`Turn`] a query returns and how it is collected
//! ([`TurnCollector`]), how a session's end is recorded ([`SessionExit`]),
//! and the methods every async adapter offers the same
//! way ([`async_session_methods!`](crate::async_session_methods) and
//! [`async_builder_methods!`](crate::async_builder_methods)), written once
//! here so the adapters add only their runtime glue.

use std::sync::OnceLock;

use claude_proto::model::result::ResultMessage;
use claude_proto::model::stdout::StdoutMessage;

use crate::error::{Error, ExitReport};
use crate::event::Event;

/// One turn, from the prompt to its `result`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Turn {
    /// Every message of the turn in order, the result included.
    pub messages: Vec<StdoutMessage>,
    /// The turn's result: outcome, text, cost and usage.
    pub result: ResultMessage,
}

impl Turn {
    /// The result text (`None` for error results without one).
    pub fn text(&self) -> Option<&str> {
        self.result.result.as_deref()
    }
}

/// Collects events into a [`Turn`]: messages up to and including the next
/// `result`. Protocol errors and handler failures on the way are skipped
/// (they are not part of the conversation).
#[derive(Debug, Default)]
pub struct TurnCollector {
    messages: Vec<StdoutMessage>,
}

impl TurnCollector {
    /// Takes the next event; returns the turn once its `result` arrived.
    pub fn push(&mut self, event: Event) -> Result<Option<Turn>, Error> {
        let Event::Message(message) = event else {
            return Ok(None);
        };
        if message.is_result() {
            let result: ResultMessage = message.deserialize()?;
            self.messages.push(StdoutMessage::Result(result.clone()));
            return Ok(Some(Turn {
                messages: std::mem::take(&mut self.messages),
                result,
            }));
        }
        self.messages.push(message.parse()?);
        Ok(None)
    }

    /// The events ended before a `result`: the error to report (the exit,
    /// if the process exited).
    pub fn ended(self, exit: &SessionExit) -> Error {
        match exit.report() {
            Some(report) => Error::Exited(report),
            None => Error::NoResult,
        }
    }
}

/// How a session ended, recorded once by its driver and read by its handle.
#[derive(Debug, Default)]
pub struct SessionExit {
    exit: OnceLock<Option<ExitReport>>,
}

impl SessionExit {
    /// Records the end: the process's exit report, or `None` over a custom
    /// transport. Only the first call counts.
    pub fn set(&self, report: Option<ExitReport>) {
        let _ = self.exit.set(report);
    }

    /// `Some` once the session has ended (with the exit report inside, if
    /// there was a process).
    pub fn get(&self) -> Option<&Option<ExitReport>> {
        self.exit.get()
    }

    /// The process's exit report, once it exited.
    pub fn report(&self) -> Option<ExitReport> {
        self.exit.get().cloned().flatten()
    }

    /// The error for an operation on a session that has ended.
    pub fn ended_error(&self) -> Error {
        match self.report() {
            Some(report) => Error::Exited(report),
            None => Error::Closed,
        }
    }
}

#[doc(hidden)]
pub mod __private {
    pub use claude_proto;
}

/// The methods of an async adapter's `Claude` handle that only build on
/// its primitives, generated inside its `impl Claude { ... }`: `send_text`,
/// `query`, `receive_turn` and the typed control requests.
///
/// The handle must have these inherent methods:
/// `async fn send(&self, UserMessage) -> Result<(), Error>`,
/// `async fn control(&self, ControlRequest, Option<Duration>) ->
/// Result<ControlSuccess, Error>`, `async fn next_event(&mut self) ->
/// Option<Event>` and `fn session_exit(&self) -> &SessionExit`.
#[macro_export]
macro_rules! async_session_methods {
    () => {
        /// Sends a text prompt.
        pub async fn send_text(&self, text: impl Into<String>) -> Result<(), $crate::Error> {
            self.send($crate::session::__private::claude_proto::model::user::UserMessage::text(text))
                .await
        }

        /// Sends `prompt` and collects the turn up to its `result`.
        pub async fn query(
            &mut self,
            prompt: impl Into<String>,
        ) -> Result<$crate::session::Turn, $crate::Error> {
            self.send_text(prompt).await?;
            self.receive_turn().await
        }

        /// Collects messages up to and including the next `result`.
        ///
        /// Protocol errors and handler failures on the way are skipped (they are
        /// not part of the conversation); if the CLI exits first, the error
        /// carries its exit status and stderr.
        pub async fn receive_turn(&mut self) -> Result<$crate::session::Turn, $crate::Error> {
            let mut turn = $crate::session::TurnCollector::default();
            while let Some(event) = self.next_event().await {
                if let Some(done) = turn.push(event)? {
                    return Ok(done);
                }
            }
            Err(turn.ended(self.session_exit()))
        }

        /// Interrupts the current turn; it ends with an error `result`.
        pub async fn interrupt(
            &self,
        ) -> Result<$crate::session::__private::claude_proto::model::control::InterruptResponse, $crate::Error>
        {
            let request = $crate::session::__private::claude_proto::model::control::ControlRequest::interrupt();
            Ok(self.control(request, None).await?.decode()?)
        }

        /// Switches the model (`None`: back to the default).
        pub async fn set_model(&self, model: Option<&str>) -> Result<(), $crate::Error> {
            self.control(
                $crate::session::__private::claude_proto::model::control::ControlRequest::set_model(model),
                None,
            )
            .await?;
            Ok(())
        }

        /// Switches the permission mode.
        pub async fn set_permission_mode(
            &self,
            mode: $crate::session::__private::claude_proto::model::permission::PermissionMode,
        ) -> Result<(), $crate::Error> {
            self.control(
                $crate::session::__private::claude_proto::model::control::ControlRequest::set_permission_mode(mode),
                None,
            )
            .await?;
            Ok(())
        }

        /// Sets the thinking budget (`None`: the default).
        pub async fn set_max_thinking_tokens(&self, tokens: Option<u64>) -> Result<(), $crate::Error> {
            self.control(
                $crate::session::__private::claude_proto::model::control::ControlRequest::set_max_thinking_tokens(tokens),
                None,
            )
            .await?;
            Ok(())
        }

        /// The status of every MCP server.
        pub async fn mcp_status(
            &self,
        ) -> Result<$crate::session::__private::claude_proto::model::control::McpStatusResponse, $crate::Error>
        {
            let request = $crate::session::__private::claude_proto::model::control::ControlRequest::mcp_status();
            Ok(self.control(request, None).await?.decode()?)
        }

        /// How the context window is used.
        pub async fn get_context_usage(
            &self,
        ) -> Result<$crate::session::__private::claude_proto::model::control::ContextUsage, $crate::Error>
        {
            let request =
                $crate::session::__private::claude_proto::model::control::ControlRequest::get_context_usage();
            Ok(self.control(request, None).await?.decode()?)
        }

        /// Rewinds files changed since the given user message (needs file
        /// checkpointing enabled in the options).
        pub async fn rewind_files(
            &self,
            user_message_id: &str,
            dry_run: bool,
        ) -> Result<$crate::session::__private::claude_proto::model::control::RewindFilesResult, $crate::Error>
        {
            let request = $crate::session::__private::claude_proto::model::control::ControlRequest::rewind_files(
                user_message_id,
                dry_run,
            );
            Ok(self.control(request, None).await?.decode()?)
        }

        /// Stops a background task.
        pub async fn stop_task(&self, task_id: &str) -> Result<(), $crate::Error> {
            self.control(
                $crate::session::__private::claude_proto::model::control::ControlRequest::stop_task(task_id),
                None,
            )
            .await?;
            Ok(())
        }
    };
}

/// The configuration methods of an async adapter's `ClaudeBuilder`,
/// generated inside its `impl ClaudeBuilder { ... }`: `config`,
/// `initialize_request`, `initialize_timeout`, `on_permission`, `hook`,
/// `mcp_server`, `shutdown_policy`, `event_capacity`,
/// `max_concurrent_handlers`, `on_stderr`, `stderr_tail`.
///
/// The builder must have a field `settings:
/// Settings<AsyncHandlers>`.
#[macro_export]
macro_rules! async_builder_methods {
    () => {
        /// Protocol limits: line length, request timeout, pending requests.
        pub fn config(mut self, config: $crate::session::__private::claude_proto::Config) -> Self {
            self.settings.config = config;
            self
        }

        /// The `initialize` request's own fields: system prompt, agents, title,
        /// and so on. Hooks and in-process MCP servers registered on this
        /// builder are added to it.
        pub fn initialize_request(
            mut self,
            request: $crate::session::__private::claude_proto::model::initialize::InitializeRequest,
        ) -> Self {
            self.settings.initialize = request;
            self
        }

        /// How long to wait for the answer to `initialize` (default: the
        /// config's request timeout).
        pub fn initialize_timeout(mut self, timeout: ::std::time::Duration) -> Self {
            self.settings.init_timeout = Some(timeout);
            self
        }

        /// Answers the CLI's permission prompts (`can_use_tool`).
        ///
        /// Registering it makes the CLI ask (`--permission-prompt-tool stdio`).
        /// The request's `tool_use_id` is echoed for you. If the handler fails
        /// or panics, the tool is denied.
        pub fn on_permission<F, Fut>(mut self, handler: F) -> Self
        where
            F: Fn($crate::session::__private::claude_proto::model::incoming::CanUseTool) -> Fut
                + Send
                + Sync
                + 'static,
            Fut: ::std::future::Future<
                    Output = Result<
                        $crate::session::__private::claude_proto::model::permission::PermissionResult,
                        $crate::handlers::HandlerError,
                    >,
                > + Send
                + 'static,
        {
            self.settings.handlers.set_permission(handler);
            self.settings.options.permission_prompt_stdio = true;
            self
        }

        /// Registers a hook for `event`, called with the hook's input and the
        /// tool use id when there is one. Return `HookOutput::default()` for
        /// "no opinion". If it fails or panics, the CLI applies the matcher's
        /// `on_failure` (by default it continues).
        pub fn hook<F, Fut>(
            mut self,
            event: $crate::session::__private::claude_proto::model::hooks::HookEvent,
            options: $crate::HookOptions,
            handler: F,
        ) -> Self
        where
            F: Fn(
                    $crate::session::__private::claude_proto::model::hooks::HookInput,
                    Option<String>,
                ) -> Fut
                + Send
                + Sync
                + 'static,
            Fut: ::std::future::Future<
                    Output = Result<
                        $crate::session::__private::claude_proto::model::hooks::HookOutput,
                        $crate::handlers::HandlerError,
                    >,
                > + Send
                + 'static,
        {
            self.settings.handlers.add_hook(
                event,
                options.matcher,
                options.timeout_secs,
                options.on_failure,
                handler,
            );
            self
        }

        /// Hosts an in-process MCP server whose tools the model can call.
        pub fn mcp_server(mut self, server: $crate::handlers::McpServer) -> Self {
            self.settings.handlers.add_mcp_server(server);
            self
        }

        /// How `Claude::close` and dropping the handle end the process.
        pub fn shutdown_policy(mut self, policy: $crate::ShutdownPolicy) -> Self {
            self.settings.shutdown = policy;
            self
        }

        /// How many events may wait for you to read them (default 256). The
        /// CLI's output is read no faster than that.
        pub fn event_capacity(mut self, capacity: usize) -> Self {
            self.settings.event_capacity = capacity.max(1);
            self
        }

        /// How many handlers may run at once (default 16); further requests
        /// wait their turn.
        pub fn max_concurrent_handlers(mut self, limit: usize) -> Self {
            self.settings.max_concurrent_handlers = limit.max(1);
            self
        }

        /// Called with each line the CLI writes to stderr. stderr is always
        /// drained, and its last bytes kept for error reports, callback or not.
        pub fn on_stderr(mut self, callback: impl Fn(&str) + Send + Sync + 'static) -> Self {
            self.settings.stderr_callback = Some(::std::sync::Arc::new(callback));
            self
        }

        /// How many bytes of stderr to keep for error reports (default 8 KiB).
        pub fn stderr_tail(mut self, bytes: usize) -> Self {
            self.settings.stderr_tail = bytes;
            self
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use claude_proto::{Config, Event as CoreEvent, Session};

    fn message(line: &str) -> Event {
        let mut session = Session::new(Config::default());
        session.handle_input(format!("{line}\n").as_bytes());
        match session.poll_event() {
            Some(CoreEvent::Message(message)) => Event::Message(message),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn collects_messages_until_the_end() {
        let mut turn = TurnCollector::default();
        let first = turn
            .push(message(
                r#"{"type":"system","subtype":"init","session_id":"s"}"#,
            ))
            .expect("parses");
        assert!(first.is_none());
        let exit = SessionExit::default();
        assert!(matches!(
            TurnCollector::default().ended(&exit),
            Error::NoResult
        ));
    }

    #[test]
    fn the_end_is_recorded_once() {
        let exit = SessionExit::default();
        assert!(exit.get().is_none());
        assert!(matches!(exit.ended_error(), Error::Closed));
        exit.set(Some(ExitReport {
            code: Some(3),
            signal: None,
            stderr_tail: String::new(),
        }));
        exit.set(None);
        assert_eq!(exit.report().and_then(|r| r.code), Some(3));
        assert!(matches!(exit.ended_error(), Error::Exited(_)));
    }
}
