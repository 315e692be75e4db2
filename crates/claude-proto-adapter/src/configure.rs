//! The options every adapter's builder takes, written once.
//!
//! Where to add one: a new option is a field in [`Settings`] (or in
//! [`Limits`] or [`Config`]) plus one provided method on [`Configure`]
//! here, with its doc comment (what it sets, its default, what it
//! guarantees). Every builder gets it at once; nothing in the adapters
//! changes unless the option means something only one runtime has, and
//! then it belongs on that adapter's builder instead.

use std::sync::Arc;
use std::time::Duration;

use claude_proto::Config;
use claude_proto::model::initialize::InitializeRequest;
use claude_proto_host::Limits;

use crate::settings::{Settings, ShutdownPolicy};
use crate::store::StoreSettings;

/// The options every adapter's `ClaudeBuilder` takes: the protocol and
/// host limits, the `initialize` request's extra fields, the close
/// sequence and the stderr callback. The adapters re-export it at their
/// roots and in their preludes; bring it into scope to call these
/// methods:
///
/// ```
/// use claude_proto_adapter::{Configure, Settings, handlers::{Blocking, Handlers}};
///
/// // An adapter's builder: it owns the settings and hands them over.
/// struct Builder(Settings<Handlers<Blocking>>);
///
/// impl Configure for Builder {
///     type Handlers = Handlers<Blocking>;
///     fn settings_mut(&mut self) -> &mut Settings<Handlers<Blocking>> {
///         &mut self.0
///     }
/// }
///
/// let builder = Builder(Settings::new(Default::default()))
///     .read_ahead_bytes(1 << 20)
///     .max_concurrent_handlers(4);
/// assert_eq!(builder.0.limits.read_ahead_bytes, 1 << 20);
/// assert_eq!(builder.0.limits.max_concurrent_handlers, 4);
/// ```
///
/// Without the trait in scope the methods are not found:
///
/// ```compile_fail
/// # use claude_proto_adapter::{Settings, handlers::{Blocking, Handlers}};
/// # struct Builder(Settings<Handlers<Blocking>>);
/// # impl claude_proto_adapter::Configure for Builder {
/// #     type Handlers = Handlers<Blocking>;
/// #     fn settings_mut(&mut self) -> &mut Settings<Handlers<Blocking>> { &mut self.0 }
/// # }
/// let builder = Builder(Settings::new(Default::default())).read_ahead_bytes(1 << 20);
/// ```
///
/// Every value is taken as given and checked when the session starts:
/// `spawn` and `connect` refuse one that cannot work (a zero or huge
/// budget, a grace period too long to add to a clock reading) with
/// [`SpawnError::Limits`](claude_proto_host::SpawnError::Limits), before
/// anything is started.
pub trait Configure: Sized {
    /// The builder's handler registry (the `H` of its [`Settings`]).
    #[doc(hidden)]
    type Handlers;

    /// The settings the builder collects, for the provided methods to
    /// write to.
    // Hidden: it is the plumbing between this trait and the builders that
    // implement it, not a way to configure. Both builders live in other
    // crates, so it must be public; a caller who reaches for it gets
    // nothing the provided methods do not give.
    #[doc(hidden)]
    fn settings_mut(&mut self) -> &mut Settings<Self::Handlers>;

    /// Protocol limits of the core ([`Config`]): longest line, default
    /// request timeout, pending requests from the CLI. Default
    /// [`Config::default`]. (`Config::refuse_unknown_requests` matters
    /// only to a program driving the core itself: an adapter answers a CLI
    /// request of an unknown subtype with `unsupported_request` either
    /// way.)
    fn config(mut self, config: Config) -> Self {
        self.settings_mut().config = config;
        self
    }

    /// Every byte budget, handler bound and grace period at once
    /// ([`Limits`], default [`Limits::default`]). It replaces what
    /// [`read_ahead_bytes`](Self::read_ahead_bytes),
    /// [`max_concurrent_handlers`](Self::max_concurrent_handlers),
    /// [`stderr_tail`](Self::stderr_tail),
    /// [`initialize_timeout`](Self::initialize_timeout) and
    /// [`shutdown_policy`](Self::shutdown_policy) set before it; call
    /// those after it to change one field.
    fn limits(mut self, limits: Limits) -> Self {
        self.settings_mut().limits = limits;
        self
    }

    /// Low-level escape hatch: extra fields of the `initialize` request
    /// that have no [`Options`](claude_proto::options::Options)
    /// equivalent (title, skills, tool aliases, plan mode instructions,
    /// prompt suggestions, agent progress summaries, supported dialog
    /// kinds, plugins or MCP servers read at launch, ...). Default: none.
    ///
    /// Set the system prompt, appended system prompt, agents and JSON
    /// schema on `Options` instead: those written there replace the same
    /// fields here. Hooks and in-process MCP servers registered on the
    /// builder are added to the request.
    fn initialize_request(mut self, request: InitializeRequest) -> Self {
        self.settings_mut().initialize = request;
        self
    }

    /// How long to wait for the answer to `initialize`
    /// ([`Limits::initialize_timeout`]; default: the config's request
    /// timeout, 60 s). Past it, waiting for initialization fails with a
    /// timeout.
    fn initialize_timeout(mut self, timeout: Duration) -> Self {
        self.settings_mut().limits.initialize_timeout = Some(timeout);
        self
    }

    /// How closing the session and dropping its handle end the process
    /// (default: 2 s after stdin closes, then SIGTERM, then SIGKILL 5 s
    /// later; see [`ShutdownPolicy`]). Sets [`Limits::close_grace`] and
    /// [`Limits::term_grace`]. The child is always reaped, whatever the
    /// grace periods.
    fn shutdown_policy(mut self, policy: ShutdownPolicy) -> Self {
        self.settings_mut().set_shutdown(policy);
        self
    }

    /// Bytes of events the session reads ahead of you before it stops
    /// reading the CLI's output ([`Limits::read_ahead_bytes`], default
    /// 4 MiB). Below it the CLI's output is read as fast as it comes, so
    /// answers to your control calls and the CLI's requests never wait
    /// behind events you have not read; past it reading pauses until you
    /// catch up (one line may overshoot it), and a call then waiting fails
    /// naming this budget.
    fn read_ahead_bytes(mut self, bytes: usize) -> Self {
        self.settings_mut().limits.read_ahead_bytes = bytes;
        self
    }

    /// How many handlers may run at once
    /// ([`Limits::max_concurrent_handlers`], default 16); further requests
    /// from the CLI wait their turn, counted in
    /// [`read_ahead_bytes`](Self::read_ahead_bytes).
    fn max_concurrent_handlers(mut self, limit: usize) -> Self {
        self.settings_mut().limits.max_concurrent_handlers = limit;
        self
    }

    /// Called with each line the CLI writes to stderr (default: none).
    /// stderr is always drained, and its last bytes kept for error
    /// reports, callback or not. A callback that panics is contained: it
    /// is not called again, and the session goes on.
    fn on_stderr(mut self, callback: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.settings_mut().stderr_callback = Some(Arc::new(callback));
        self
    }

    /// How many bytes of stderr to keep for error reports
    /// ([`Limits::stderr_tail_bytes`], default 8 KiB); 0 keeps none.
    fn stderr_tail(mut self, bytes: usize) -> Self {
        self.settings_mut().limits.stderr_tail_bytes = bytes;
        self
    }

    /// Mirrors the session's transcript to a session store, and resumes
    /// from it (default: none). The CLI starts with `--session-mirror`;
    /// its transcript lines go to the store in order, off the protocol's
    /// path, and what cannot be stored is reported as
    /// [`Event::MirrorFailed`](claude_proto_host::Event::MirrorFailed).
    /// With `resume` or `continue_conversation` in the options, the
    /// session is loaded from the store into a private temporary config
    /// directory before the CLI starts (so it resumes on a machine that
    /// never ran it), removed when the session ends. See [`StoreSettings`].
    fn session_store(mut self, store: StoreSettings) -> Self {
        self.settings_mut().store = Some(store);
        self
    }
}
