//! Configuring and starting a session.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::sync::mpsc::sync_channel;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use claude_proto::Config;
use claude_proto::model::hooks::{HookEvent, HookInput, HookOutput};
use claude_proto::model::incoming::CanUseTool;
use claude_proto::model::initialize::InitializeRequest;
use claude_proto::model::permission::PermissionResult;
use claude_proto::options::Options;
use claude_proto_process::handlers::HandlerError;
use claude_proto_process::{
    Error, HookOptions, Settings, SharedChild, ShutdownPolicy, build_command,
};

use crate::client::{Claude, Events};
use crate::driver::{
    Driver, Input, Pool, Shared, Stream, chunk_size, input_channel, reader_loop, wait_loop,
    writer_loop,
};
use crate::handlers::{McpServer, SyncHandlers};

/// Configures a session: the CLI's options, the protocol limits, and the
/// handlers that answer the CLI's requests. Finish with
/// [`spawn`](Self::spawn) or [`connect`](Self::connect).
#[derive(Debug)]
pub struct ClaudeBuilder {
    settings: Settings<SyncHandlers>,
}

impl ClaudeBuilder {
    /// A builder with these CLI options and default limits.
    pub fn new(options: Options) -> Self {
        Self {
            settings: Settings::new(options),
        }
    }

    /// Protocol limits: line length, request timeout, pending requests.
    pub fn config(mut self, config: Config) -> Self {
        self.settings.config = config;
        self
    }

    /// The `initialize` request's own fields: system prompt, agents, title,
    /// and so on. Hooks and in-process MCP servers registered on this
    /// builder are added to it.
    pub fn initialize_request(mut self, request: InitializeRequest) -> Self {
        self.settings.initialize = request;
        self
    }

    /// How long to wait for the answer to `initialize` (default: the
    /// config's request timeout).
    pub fn initialize_timeout(mut self, timeout: Duration) -> Self {
        self.settings.init_timeout = Some(timeout);
        self
    }

    /// Answers the CLI's permission prompts (`can_use_tool`), on a handler
    /// thread.
    ///
    /// Registering it makes the CLI ask (`--permission-prompt-tool stdio`).
    /// The request's `tool_use_id` is echoed for you. If the handler fails
    /// or panics, the tool is denied. If the CLI withdraws the prompt
    /// meanwhile, the answer is dropped (see [`CancelToken`](crate::CancelToken)).
    pub fn on_permission<F>(mut self, handler: F) -> Self
    where
        F: Fn(CanUseTool) -> Result<PermissionResult, HandlerError> + Send + Sync + 'static,
    {
        self.settings.handlers.set_permission(handler);
        self.settings.options.permission_prompt_stdio = true;
        self
    }

    /// Registers a hook for `event`, called (on a handler thread) with the
    /// hook's input and the tool use id when there is one. Return
    /// `HookOutput::default()` for "no opinion". If it fails or panics, the
    /// CLI applies the matcher's `on_failure` (by default it continues).
    pub fn hook<F>(mut self, event: HookEvent, options: HookOptions, handler: F) -> Self
    where
        F: Fn(HookInput, Option<String>) -> Result<HookOutput, HandlerError>
            + Send
            + Sync
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
    pub fn mcp_server(mut self, server: McpServer) -> Self {
        self.settings.handlers.add_mcp_server(server);
        self
    }

    /// How [`Claude::close`] and dropping the handle end the process.
    pub fn shutdown_policy(mut self, policy: ShutdownPolicy) -> Self {
        self.settings.shutdown = policy;
        self
    }

    /// How many events may wait for you to read them (default 256). The
    /// CLI's output is read no faster than that. Events travel to your
    /// thread in batches of up to `min(capacity, 64)`, so one batch held by
    /// the driver and the one you are reading may add up to twice that.
    pub fn event_capacity(mut self, capacity: usize) -> Self {
        self.settings.event_capacity = capacity.max(1);
        self
    }

    /// How many handlers may run at once (default 16), each on its own
    /// thread; further requests wait their turn.
    pub fn max_concurrent_handlers(mut self, limit: usize) -> Self {
        self.settings.max_concurrent_handlers = limit.max(1);
        self
    }

    /// Called (on the driver thread) with each line the CLI writes to
    /// stderr. stderr is always drained, and its last bytes kept for error
    /// reports, callback or not.
    pub fn on_stderr(mut self, callback: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.settings.stderr_callback = Some(Arc::new(callback));
        self
    }

    /// How many bytes of stderr to keep for error reports (default 8 KiB).
    pub fn stderr_tail(mut self, bytes: usize) -> Self {
        self.settings.stderr_tail = bytes;
        self
    }

    /// Locates and starts the CLI, sends `initialize`, and returns at once
    /// (use [`Claude::initialization`] to wait for the answer).
    pub fn spawn(self) -> Result<Claude, Error> {
        let (program, mut command) = build_command(&self.settings.options)?;
        let mut child = command.spawn().map_err(|source| Error::Spawn {
            program: program.clone(),
            source,
        })?;
        let pipes = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let child = Arc::new(SharedChild::new(child));
        let (Some(stdin), Some(stdout), Some(stderr)) = pipes else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(Error::Io(std::io::Error::other(
                "the child's standard streams were not piped",
            )));
        };
        self.start(
            Box::new(stdout),
            Box::new(stdin),
            Some(Box::new(stderr)),
            Some(child),
        )
    }

    /// Runs the session over any reader/writer pair instead of a child
    /// process: `reader` carries what the CLI writes, `writer` what it
    /// reads (a socket to a CLI started elsewhere, an SSH channel, a
    /// pipe). Closing ends the writer and stops after the close grace.
    ///
    /// Each gets its own thread, blocked in `read` or `write`; a reader
    /// that never ends keeps its thread (not the session) until it does.
    pub fn connect<R, W>(self, reader: R, writer: W) -> Result<Claude, Error>
    where
        R: Read + Send + 'static,
        W: Write + Send + 'static,
    {
        self.start(Box::new(reader), Box::new(writer), None, None)
    }

    fn start(
        self,
        reader: Box<dyn Read + Send>,
        writer: Box<dyn Write + Send>,
        stderr: Option<Box<dyn Read + Send>>,
        child: Option<Arc<SharedChild>>,
    ) -> Result<Claude, Error> {
        let pid = child.as_ref().map(|child| child.id());
        let (input_tx, input) = input_channel();
        let settings = self.settings;
        let (event_capacity, command_capacity, max_handlers) = (
            settings.event_capacity,
            settings.command_capacity,
            settings.max_concurrent_handlers,
        );
        let capabilities = settings.handlers.capabilities().clone();
        let (core, handlers) = settings.into_core(
            capabilities,
            child.is_some(),
            stderr.is_some(),
            Instant::now(),
        );
        // Commands the user may queue ahead of the driver; senders wait
        // while it is full (the driver stops taking commands while stdin is
        // backed up).
        let (commands_tx, commands) = sync_channel(command_capacity);
        // Events that may wait for the user, the backpressure's bound: at
        // most `event_capacity` in all, handed over in batches of up to
        // `batch` (plus the one batch the user is reading).
        let batch = event_capacity.clamp(1, 64);
        let (events_tx, events_rx) = sync_channel((event_capacity / batch).max(1));
        // The writer thread has at most one order at a time.
        let (writer_tx, writer_rx) = sync_channel(1);
        let shared = Arc::new(Shared::default());

        // From here on a failure to start a thread must not leave the child
        // running: kill it (the waiter, started first, reaps it).
        let fail = |error: std::io::Error| {
            if let Some(child) = &child {
                let _ = child.kill();
            }
            Error::Io(error)
        };
        if let Some(child) = &child {
            let (waited, input) = (child.clone(), input_tx.clone());
            if let Err(e) = thread("claude-wait", move || wait_loop(waited, input)) {
                let _ = child.kill();
                let _ = child.wait();
                return Err(Error::Io(e));
            }
        }
        let stdout_ack = spawn_reader(reader, Stream::Stdout, &input_tx).map_err(fail)?;
        let stderr_ack = match stderr {
            Some(stderr) => Some(spawn_reader(stderr, Stream::Stderr, &input_tx).map_err(fail)?),
            None => None,
        };
        {
            let input = input_tx.clone();
            thread("claude-write", move || {
                writer_loop(writer, writer_rx, input)
            })
            .map_err(fail)?;
        }
        let driver = Driver {
            core,
            input,
            commands: Some(commands),
            events: events_tx,
            batch,
            shared: shared.clone(),
            child: child.clone(),
            writer: Some(writer_tx),
            stdout_ack: Some(stdout_ack),
            stderr_ack,
            pool: Pool::new(handlers, input_tx.clone(), max_handlers),
            write_buf: None,
            writer_busy: false,
            stdout_chunks: VecDeque::new(),
            stdout_end_pending: false,
            stderr_chunk: None,
            held: None,
        };
        let driver = thread("claude-driver", move || driver.run()).map_err(fail)?;
        Ok(Claude {
            commands: commands_tx,
            input: input_tx.clone(),
            events: Events {
                rx: Mutex::new(events_rx),
                batch: VecDeque::new(),
                input: input_tx,
                shared: shared.clone(),
            },
            shared,
            driver: Some(driver),
            pid,
        })
    }
}

/// Starts a reader thread; returns where its buffers go back.
fn spawn_reader(
    reader: Box<dyn Read + Send>,
    stream: Stream,
    input: &std::sync::mpsc::SyncSender<Input>,
) -> std::io::Result<std::sync::mpsc::SyncSender<Vec<u8>>> {
    // Room for every buffer the reader owns.
    let (ack, returned) = sync_channel(crate::driver::STDOUT_BUFFERS);
    let input = input.clone();
    let name = match stream {
        Stream::Stdout => "claude-stdout",
        Stream::Stderr => "claude-stderr",
    };
    thread(name, move || {
        reader_loop(reader, stream, chunk_size(stream), input, returned);
    })?;
    Ok(ack)
}

fn thread<T: Send + 'static>(
    name: &str,
    run: impl FnOnce() -> T + Send + 'static,
) -> std::io::Result<std::thread::JoinHandle<T>> {
    std::thread::Builder::new().name(name.to_owned()).spawn(run)
}
