//! What every adapter's builder collects, and the host it becomes.

use std::hash::{BuildHasher, RandomState};
use std::sync::Arc;
use std::time::{Duration, Instant};

use claude_proto::Config;
use claude_proto::model::initialize::InitializeRequest;
use claude_proto::options::Options;
use claude_proto_host::{Capabilities, Host, Limits, SpawnError, Transport};

use crate::resume::Prepared;
use crate::store::StoreSettings;
use claude_proto_process::StderrCallback;

/// `CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK` is set to a non-empty value: the
/// CLI's version is not checked, whatever the limits say.
fn skip_version_check() -> bool {
    skips_version_check(std::env::var_os(claude_proto::version::ENV_SKIP_VERSION_CHECK).as_deref())
}

/// Whether this value of `CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK` turns the
/// check off: any non-empty value does, as in the Python SDK.
fn skips_version_check(value: Option<&std::ffi::OsStr>) -> bool {
    value.is_some_and(|v| !v.is_empty())
}

/// How a session ends its child process when asked to close: close stdin
/// (the CLI finishes its turn and exits), wait `close_grace`; if still
/// running send SIGTERM, wait `term_grace`; then SIGKILL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ShutdownPolicy {
    /// How long the CLI may take to exit after its stdin closes. Default 2 s.
    pub close_grace: Duration,
    /// How long it may take after SIGTERM before SIGKILL. Default 5 s.
    pub term_grace: Duration,
}

impl Default for ShutdownPolicy {
    fn default() -> Self {
        let limits = Limits::default();
        Self::new(limits.close_grace, limits.term_grace)
    }
}

impl ShutdownPolicy {
    /// A policy with the given grace periods.
    pub fn new(close_grace: Duration, term_grace: Duration) -> Self {
        Self {
            close_grace,
            term_grace,
        }
    }
}

/// Everything an adapter's builder collects before starting a session,
/// whatever the runtime. `H` is the adapter's handler registry.
#[non_exhaustive]
pub struct Settings<H> {
    /// The CLI's options (argv, environment, working directory).
    pub options: Options,
    /// Protocol limits of the core.
    pub config: Config,
    /// Byte budgets, handler concurrency and grace periods of the host.
    pub limits: Limits,
    /// The handlers answering the CLI's requests.
    pub handlers: H,
    /// Low-level extra fields of the `initialize` request, for those with
    /// no [`Options`] equivalent (title, skills, tool aliases, plan mode
    /// instructions, prompt suggestions, agent progress summaries, plugins
    /// or MCP servers read at launch, ...). The fields `options` owns
    /// (system prompt, appended system prompt, agents, JSON schema) are
    /// written over these by [`Options::fill_initialize`] when set there,
    /// and hooks and in-process MCP servers are added from the handlers.
    pub initialize: InitializeRequest,
    /// Called with each stderr line.
    pub stderr_callback: Option<StderrCallback>,
    /// The session store the transcript is mirrored to and resumed from.
    pub store: Option<StoreSettings>,
}

impl<H> std::fmt::Debug for Settings<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("options", &self.options)
            .field("config", &self.config)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl<H: Default> Settings<H> {
    /// Defaults for `options`.
    pub fn new(options: Options) -> Self {
        Self {
            options,
            config: Config::default(),
            limits: Limits::default(),
            handlers: H::default(),
            initialize: InitializeRequest::default(),
            stderr_callback: None,
            store: None,
        }
    }
}

impl<H> Settings<H> {
    /// Sets the close sequence's grace periods.
    pub fn set_shutdown(&mut self, policy: ShutdownPolicy) {
        self.limits.close_grace = policy.close_grace;
        self.limits.term_grace = policy.term_grace;
    }

    /// The `initialize` request these settings send, before the handlers'
    /// hooks and MCP servers are added: the extra fields of `initialize`
    /// with the fields `options` owns written over them.
    pub fn initialize_request(&self) -> InitializeRequest {
        let mut request = self.initialize.clone();
        self.options.fill_initialize(&mut request);
        request
    }

    /// The options the CLI is started with: [`options`](Self::options),
    /// with `--await-initialize` added when the `initialize` request
    /// carries a field the CLI reads only at launch
    /// ([`InitializeRequest::launch_fields`]), so that none is silently
    /// ignored, and `--session-mirror` with a session store.
    pub fn spawn_options(&self) -> Options {
        let mut options = self.options.clone();
        if !self.initialize_request().launch_fields().is_empty() {
            options.await_initialize = true;
        }
        if self.store.is_some() {
            options.session_mirror = true;
        }
        options
    }

    /// Loading a resumed session from the session store, when there is a
    /// store and the options resume (see [`crate::prepare`]); `None`
    /// otherwise. Bound it by the store's `load_timeout`, then give the
    /// result to [`prepared`](Self::prepared).
    pub fn resume_load(&self) -> Option<crate::handlers::BoxFuture<Result<Prepared, SpawnError>>> {
        crate::resume::prepare(self.store.as_ref()?, self.spawn_options())
    }

    /// The options to start the CLI with: those [`resume_load`]
    /// prepared, if it ran, else [`spawn_options`](Self::spawn_options).
    /// The host's mirror is set up for where that CLI writes (the
    /// temporary config directory of a resumed session).
    ///
    /// [`resume_load`]: Self::resume_load
    pub fn prepared<W>(&self, host: &mut Host<W>, prepared: Option<Prepared>) -> Prepared {
        let prepared = prepared.unwrap_or_else(|| Prepared::unchanged(self.spawn_options()));
        if let Some(store) = &self.store {
            host.set_mirror(store.mirror_config(&prepared.options));
        }
        prepared
    }

    /// The host for a session with these settings and `capabilities`: a
    /// core session (its request ids seeded at random unless the config
    /// fixes a seed) that has queued `initialize`. The CLI's version is not
    /// checked if `CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK` is set to a
    /// non-empty value in this process's environment. With a session
    /// store, the host mirrors the transcript to it. Fails on limits that
    /// cannot work, and on file checkpointing with a session store (as the
    /// official SDKs refuse it); call it before spawning anything.
    pub fn host<W>(
        &self,
        capabilities: Capabilities,
        transport: Transport,
        now: Instant,
    ) -> Result<Host<W>, SpawnError> {
        if self.store.is_some() && self.options.enable_file_checkpointing {
            return Err(SpawnError::SessionStore {
                what: "checking the options".into(),
                source: "enable_file_checkpointing cannot be combined with a session store: \
                         checkpoints stay on the local disk and would not match the stored \
                         transcript on another machine"
                    .into(),
            });
        }
        let mut config = self.config.clone();
        if config.request_id_seed == 0 {
            config.request_id_seed = RandomState::new().hash_one(now);
        }
        let mut limits = self.limits.clone();
        if skip_version_check() {
            limits.check_cli_version = false;
        }
        let mut host = Host::new(
            config,
            limits,
            Arc::new(capabilities),
            self.initialize_request(),
            transport,
            now,
        )?;
        if let Some(store) = &self.store {
            host.set_mirror(store.mirror_config(&self.options));
        }
        Ok(host)
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;

    use super::*;
    use crate::handlers::{Blocking, Handlers};

    #[test]
    fn any_non_empty_value_of_the_switch_skips_the_version_check() {
        assert!(!skips_version_check(None));
        assert!(!skips_version_check(Some(OsStr::new(""))));
        assert!(skips_version_check(Some(OsStr::new("1"))));
        assert!(skips_version_check(Some(OsStr::new("false"))));
    }

    #[test]
    fn a_session_store_refuses_file_checkpointing_and_adds_the_mirror_flag() {
        let store = crate::StoreSettings::new(claude_proto_sessions::MemoryStore::new());
        let mut settings = Settings::<Handlers<Blocking>>::new(Options::default());
        settings.store = Some(store);
        assert!(settings.spawn_options().session_mirror);
        let host = settings.host::<()>(Capabilities::default(), Transport::Process, Instant::now());
        assert!(host.is_ok());
        settings.options.enable_file_checkpointing = true;
        let refused =
            settings.host::<()>(Capabilities::default(), Transport::Process, Instant::now());
        assert!(
            matches!(&refused, Err(SpawnError::SessionStore { source, .. }) if source.to_string().contains("enable_file_checkpointing")),
            "{refused:?}"
        );
    }

    #[test]
    fn launch_fields_add_await_initialize() {
        use claude_proto::model::mcp::McpServerConfig;
        let mut settings = Settings::<Handlers<Blocking>>::new(Options::default());
        assert!(!settings.spawn_options().await_initialize);
        settings.initialize = InitializeRequest::new()
            .with_mcp_server("ext", McpServerConfig::stdio("x", Vec::new()));
        assert!(settings.spawn_options().await_initialize);
    }
}
