//! Where the session's tasks run.

use std::fmt;
use std::sync::Arc;

use claude_proto_process::handlers::BoxFuture;

type SpawnFn = dyn Fn(BoxFuture<()>) + Send + Sync;

/// The executor a session spawns its tasks on: its driver, and one task per
/// running handler.
///
/// Everything else (the child process, its pipes, timers) runs on the
/// `async-io` reactor that async-std and smol share, so the same session
/// code serves both; only spawning differs. The default is smol's global
/// executor when the `smol` feature is on, async-std's otherwise. Tasks are
/// detached: a session never needs its executor to outlive it, and it
/// cancels its own handlers.
#[derive(Clone)]
pub struct Runtime {
    kind: Kind,
}

#[derive(Clone)]
enum Kind {
    #[cfg(feature = "async-std")]
    AsyncStd,
    #[cfg(feature = "smol")]
    Smol,
    Custom(Arc<SpawnFn>),
    #[cfg(not(any(feature = "async-std", feature = "smol")))]
    Threads,
}

impl Runtime {
    /// async-std's executor (`async_std::task::spawn`).
    #[cfg(feature = "async-std")]
    pub fn async_std() -> Self {
        Self {
            kind: Kind::AsyncStd,
        }
    }

    /// smol's global executor (`smol::spawn`).
    #[cfg(feature = "smol")]
    pub fn smol() -> Self {
        Self { kind: Kind::Smol }
    }

    /// Any executor: `spawn` must run the future to completion (or until
    /// the executor itself is dropped), for example
    /// `move |task| executor.spawn(task).detach()` with a
    /// `smol::Executor` of your own.
    pub fn custom(spawn: impl Fn(BoxFuture<()>) + Send + Sync + 'static) -> Self {
        Self {
            kind: Kind::Custom(Arc::new(spawn)),
        }
    }

    pub(crate) fn spawn(&self, task: BoxFuture<()>) {
        match &self.kind {
            #[cfg(feature = "async-std")]
            Kind::AsyncStd => drop(async_std::task::spawn(task)),
            #[cfg(feature = "smol")]
            Kind::Smol => smol::spawn(task).detach(),
            Kind::Custom(spawn) => spawn(task),
            #[cfg(not(any(feature = "async-std", feature = "smol")))]
            Kind::Threads => {
                std::thread::spawn(move || async_io::block_on(task));
            }
        }
    }
}

impl Default for Runtime {
    /// smol with the `smol` feature, else async-std with the `async-std`
    /// feature (the default); with neither, each task gets a thread of its
    /// own driven by `async_io::block_on` (choose an executor with
    /// [`Runtime::custom`] instead).
    fn default() -> Self {
        #[cfg(feature = "smol")]
        return Self::smol();
        #[cfg(all(feature = "async-std", not(feature = "smol")))]
        return Self::async_std();
        #[cfg(not(any(feature = "async-std", feature = "smol")))]
        return Self {
            kind: Kind::Threads,
        };
    }
}

impl fmt::Debug for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match &self.kind {
            #[cfg(feature = "async-std")]
            Kind::AsyncStd => "async-std",
            #[cfg(feature = "smol")]
            Kind::Smol => "smol",
            Kind::Custom(_) => "custom",
            #[cfg(not(any(feature = "async-std", feature = "smol")))]
            Kind::Threads => "threads",
        };
        f.debug_tuple("Runtime").field(&name).finish()
    }
}
