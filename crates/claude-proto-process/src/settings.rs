//! What every adapter's builder collects, and how it becomes a loop.

use std::hash::{BuildHasher, RandomState};
use std::sync::Arc;
use std::time::{Duration, Instant};

use claude_proto::model::initialize::InitializeRequest;
use claude_proto::options::Options;
use claude_proto::{Config, Session};

use crate::driver::DriverCore;
use crate::host::{Capabilities, Host};
use crate::stderr::{StderrCallback, StderrTail};
use crate::{DEFAULT_STDERR_TAIL, ShutdownPolicy};

/// Options for one hook registration beyond its event.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct HookOptions {
    /// Which occurrences call the hook: for tool events a pattern of tool
    /// names such as `Write|Edit`; `None` means all.
    pub matcher: Option<String>,
    /// How long the CLI waits for the hook, in seconds.
    pub timeout_secs: Option<u64>,
    /// What the CLI does if the hook fails (its default: continue).
    pub on_failure: Option<claude_proto::model::hooks::HookFailureMode>,
}

impl HookOptions {
    /// Only for occurrences matching `pattern`.
    pub fn matching(pattern: impl Into<String>) -> Self {
        Self {
            matcher: Some(pattern.into()),
            ..Self::default()
        }
    }

    /// With a timeout in seconds.
    pub fn with_timeout(mut self, seconds: u64) -> Self {
        self.timeout_secs = Some(seconds);
        self
    }

    /// With a failure mode.
    pub fn with_on_failure(mut self, mode: claude_proto::model::hooks::HookFailureMode) -> Self {
        self.on_failure = Some(mode);
        self
    }
}

/// Everything an adapter's builder collects before starting a session,
/// whatever the runtime. `H` is the adapter's handler registry.
#[non_exhaustive]
pub struct Settings<H> {
    /// The CLI's options (argv, environment, working directory).
    pub options: Options,
    /// Protocol limits.
    pub config: Config,
    /// The handlers answering the CLI's requests.
    pub handlers: H,
    /// The `initialize` request's own fields.
    pub initialize: InitializeRequest,
    /// How long to wait for the initialize answer (`None`: the config's
    /// request timeout).
    pub init_timeout: Option<Duration>,
    /// How closing ends the process.
    pub shutdown: ShutdownPolicy,
    /// Events that may wait for the user (default 256).
    pub event_capacity: usize,
    /// Commands that may wait for the driver (default 64).
    pub command_capacity: usize,
    /// Handlers running at once (default 16).
    pub max_concurrent_handlers: usize,
    /// Called with each stderr line.
    pub stderr_callback: Option<StderrCallback>,
    /// Bytes of stderr kept for error reports (default 8 KiB).
    pub stderr_tail: usize,
}

impl<H> std::fmt::Debug for Settings<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("options", &self.options)
            .field("config", &self.config)
            .field("shutdown", &self.shutdown)
            .field("event_capacity", &self.event_capacity)
            .field("max_concurrent_handlers", &self.max_concurrent_handlers)
            .finish_non_exhaustive()
    }
}

impl<H: Default> Settings<H> {
    /// Defaults for `options`.
    pub fn new(options: Options) -> Self {
        Self {
            options,
            config: Config::default(),
            handlers: H::default(),
            initialize: InitializeRequest::default(),
            init_timeout: None,
            shutdown: ShutdownPolicy::default(),
            event_capacity: 256,
            command_capacity: 64,
            max_concurrent_handlers: 16,
            stderr_callback: None,
            stderr_tail: DEFAULT_STDERR_TAIL,
        }
    }
}

impl<H> Settings<H> {
    /// Builds the loop state: a session (its request ids seeded at random
    /// unless the config fixes a seed), a host that has queued
    /// `initialize`, and the driver core. Returns the core and the handlers
    /// for the adapter to run.
    pub fn into_core<W>(
        self,
        capabilities: Capabilities,
        has_child: bool,
        has_stderr: bool,
        now: Instant,
    ) -> (DriverCore<W>, H) {
        let mut config = self.config;
        if config.request_id_seed == 0 {
            config.request_id_seed = RandomState::new().hash_one(now);
        }
        let host = Host::new(
            Session::new(config),
            Arc::new(capabilities),
            self.initialize,
            self.init_timeout,
            now,
        );
        let core = DriverCore::new(
            host,
            has_child,
            has_stderr,
            self.shutdown,
            StderrTail::new(self.stderr_tail, self.stderr_callback),
        );
        (core, self.handlers)
    }
}
