//! A session store on a session: the CLI mirrors its transcript to it, and
//! a session resumed with it is loaded from it first.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use claude_proto::options::Options;
use claude_proto_host::{MirrorAppend, MirrorConfig, MirrorId};
use claude_proto_sessions::SessionStore;

use claude_proto_process::{CatchUnwind, panic_message};
use claude_proto_sessions::config_dir;

/// The session store of a session and how it is used. Set it with
/// [`Configure::session_store`](crate::Configure::session_store).
///
/// With a store, the CLI starts with `--session-mirror`; every line it
/// writes to its transcript is appended to the store (once per turn, at
/// its `result`, or at every line when [`eager`](Self::eager)), in order,
/// off the protocol's path. A failure is retried twice (after 200 ms and
/// 800 ms), then reported as
/// [`Event::MirrorFailed`](claude_proto_host::Event::MirrorFailed); the
/// session goes on and the CLI's own transcript on disk keeps every line.
/// A resumed session (`resume` or `continue_conversation` in the options)
/// is first loaded from the store into a private temporary config
/// directory, which is removed when the session ends.
#[derive(Clone)]
#[non_exhaustive]
pub struct StoreSettings {
    /// The store.
    pub store: Arc<dyn SessionStore>,
    /// Append after every mirrored line rather than once per turn (the
    /// Python SDK's `session_store_flush="eager"`). Default `false`.
    pub eager: bool,
    /// How long one append may take before it is abandoned (and reported,
    /// not retried: it may still land). Default 60 s.
    pub append_timeout: Duration,
    /// How long each load from the store may take when resuming. Default
    /// 60 s.
    pub load_timeout: Duration,
    /// The most bytes of mirrored lines held while the store is slow or
    /// down; beyond it lines are reported, not held. Default 64 MiB.
    pub max_buffered_bytes: usize,
}

impl fmt::Debug for StoreSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoreSettings")
            .field("eager", &self.eager)
            .field("append_timeout", &self.append_timeout)
            .field("load_timeout", &self.load_timeout)
            .field("max_buffered_bytes", &self.max_buffered_bytes)
            .finish_non_exhaustive()
    }
}

impl StoreSettings {
    /// `store` with the defaults.
    pub fn new(store: impl SessionStore) -> Self {
        Self::shared(Arc::new(store))
    }

    /// A store shared with other sessions (or with code that lists and
    /// reads sessions from it), with the defaults.
    pub fn shared(store: Arc<dyn SessionStore>) -> Self {
        let mirror = MirrorConfig::new("");
        Self {
            store,
            eager: mirror.eager,
            append_timeout: mirror.append_timeout,
            load_timeout: Duration::from_secs(60),
            max_buffered_bytes: mirror.max_buffered_bytes,
        }
    }

    /// Sets [`eager`](Self::eager).
    #[must_use]
    pub fn eager(mut self, on: bool) -> Self {
        self.eager = on;
        self
    }

    /// Sets [`append_timeout`](Self::append_timeout).
    #[must_use]
    pub fn append_timeout(mut self, timeout: Duration) -> Self {
        self.append_timeout = timeout;
        self
    }

    /// Sets [`load_timeout`](Self::load_timeout).
    #[must_use]
    pub fn load_timeout(mut self, timeout: Duration) -> Self {
        self.load_timeout = timeout;
        self
    }

    /// The host's mirror settings for a CLI started with `options`.
    pub fn mirror_config(&self, options: &Options) -> MirrorConfig {
        let projects = config_dir(options).join("projects");
        let mut config = MirrorConfig::new(projects.to_string_lossy());
        config.eager = self.eager;
        config.append_timeout = self.append_timeout;
        config.max_buffered_bytes = self.max_buffered_bytes;
        config
    }
}

/// Runs one [`MirrorAppend`] on `store`: the outcome to hand to
/// [`Host::handle_mirror_done`](claude_proto_host::Host::handle_mirror_done),
/// with a panicking store turned into an error.
pub async fn run_append(
    store: Arc<dyn SessionStore>,
    append: MirrorAppend,
) -> (MirrorId, Result<(), String>) {
    let id = append.id;
    let work = async move { store.append(&append.key, &append.entries).await };
    let result = match CatchUnwind::new(work).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(error)) => Err(error.to_string()),
        Err(payload) => Err(format!("the session store {}", panic_message(&*payload))),
    };
    (id, result)
}
