//! Pools for a service: [`Pool`] keeps spares parked, hands out claimed
//! sessions, and starts one cold when a claim fails; [`StartedPool`] keeps
//! sessions started and hands them out as they are. The refill rules are
//! the host crate's [`Refill`].

use std::collections::VecDeque;
use std::fmt;
use std::future::poll_fn;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Poll, Waker};
use std::time::Instant;

use claude_proto_adapter::spare::{HandOut, cold_settings, hand_out, not_for_a_started_pool};
use claude_proto_adapter::{Configure, PoolStats};
use claude_proto_host::{Claim, Error, Refill, SpawnError};
use claude_proto_process::log;

use crate::builder::ClaudeBuilder;
use crate::client::Claude;
use crate::runtime::Runtime;
use crate::spare::Spare;

type Make<R> = dyn Fn() -> ClaudeBuilder<R> + Send + Sync;

/// Keeps `size` spares of one set of host-level options parked, and turns
/// each request for a session into a claimed one, or a cold start when no
/// spare is parked or a claim fails.
///
/// One pool serves one set of host-level options: `make` builds the
/// builder every spare (and every cold start) of this pool starts from
/// (options, handlers, limits). Keep one pool per distinct set; when they
/// change (new credentials, an updated CLI), close the pool and make
/// another.
///
/// Refills run in the background on the runtime: at most `size` spares
/// are parked or starting at once, whatever happens to claims; starts that
/// fail and spares that die parked back off the next start (100 ms,
/// doubling to 30 s, reset only once a spare is handed out alive or has
/// lived parked a minute; see [`Refill`]). A spare handed out is replaced once
/// its session is on its way (claimed, or started cold), so the new
/// spare's start does not compete with the claim for the CPU.
///
/// **Memory:** each parked spare is a started CLI: about 230 to 260 MB
/// for the pinned CLI, otherwise idle. A pool of `size` holds `size` of
/// them, and up to `size` more while claimed sessions run.
///
/// Closing ([`close`](Self::close)) or dropping the pool stops the refills
/// and closes every parked spare; a spare still starting is closed when it
/// is ready. Sessions already handed out are the caller's.
pub struct Pool<R: Runtime> {
    inner: Arc<Inner<R>>,
}

struct Inner<R: Runtime> {
    make: Box<Make<R>>,
    runtime: R,
    /// What is parked: spares waiting for a claim ([`Pool`]), or sessions
    /// started for the pool's own folder and options ([`StartedPool`]).
    parks: Parks,
    state: Mutex<State<R>>,
}

/// What a pool starts and parks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Parks {
    /// [`ClaudeBuilder::prewarm`]: spares, parked for a claim.
    Spares,
    /// [`ClaudeBuilder::startup`]: sessions, started as they will run.
    Started,
}

struct State<R: Runtime> {
    refill: Refill,
    /// Each parked spare (or started session) with its id (for its
    /// watcher) and when it was parked (how long it lived, if it dies).
    parked: VecDeque<(u64, Instant, Claude<R>)>,
    next_id: u64,
    /// When the back-off timer fires, if one is armed.
    timer: Option<Instant>,
    stats: PoolStats,
    size: usize,
    closed: bool,
    /// The last start that failed.
    last_failure: Option<Error>,
    /// [`Pool::ready`] callers, woken when a spare parks or a start fails.
    ready_waiters: Vec<Waker>,
}

impl<R: Runtime> fmt::Debug for Pool<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.inner.lock();
        f.debug_struct("Pool")
            .field("refill", &state.refill)
            .field("stats", &state.stats)
            .finish_non_exhaustive()
    }
}

impl<R: Runtime> Pool<R> {
    /// A pool that keeps `size` spares started from `make()`'s builder, on
    /// the runtime this is called in. Starts filling at once.
    pub fn new(
        size: usize,
        make: impl Fn() -> ClaudeBuilder<R> + Send + Sync + 'static,
    ) -> Result<Self, SpawnError> {
        Self::with_runtime(size, R::current()?, make)
    }

    /// [`new`](Self::new) on `runtime`.
    pub fn with_runtime(
        size: usize,
        runtime: R,
        make: impl Fn() -> ClaudeBuilder<R> + Send + Sync + 'static,
    ) -> Result<Self, SpawnError> {
        Ok(Self::parking(Parks::Spares, size, runtime, Box::new(make)))
    }

    fn parking(parks: Parks, size: usize, runtime: R, make: Box<Make<R>>) -> Self {
        let inner = Arc::new(Inner {
            make,
            runtime,
            parks,
            state: Mutex::new(State {
                refill: Refill::new(size),
                parked: VecDeque::new(),
                next_id: 0,
                timer: None,
                stats: PoolStats::default(),
                size,
                closed: false,
                last_failure: None,
                ready_waiters: Vec::new(),
            }),
        });
        fill(&inner);
        Self { inner }
    }

    /// A running session for `claim`: a parked spare claimed for it, or,
    /// when none is parked or the claim fails, one started cold with the
    /// options the claim describes ([`Claim::cold_options`]). Either way
    /// the prompt is yours to send, and nothing of a failed claim is left
    /// (the spare has exited before the cold start begins).
    ///
    /// A claim the CLI took without its `model` or thinking budget
    /// ([`ClaimError::NotApplied`](claude_proto_adapter::ClaimError::NotApplied)) is closed and started cold too, so the
    /// session runs with what was asked for as a cold start would.
    ///
    /// Fails as a cold start fails ([`ClaudeBuilder::spawn`]), or at once,
    /// before taking a spare, if the claim's settings overlay cannot be
    /// merged into this pool's settings for a cold start.
    pub async fn session(&self, claim: Claim) -> Result<Claude<R>, Error> {
        let cold = self.cold_builder(&claim)?;
        // The refill starts once this session is on its way (or this
        // future is dropped): a spare starting beside the claim would take
        // the CPU the claim needs.
        let _refill = RefillOnDrop(&self.inner);
        if let Some(parked) = self.take() {
            let outcome = Spare::new(parked).claim(claim).await;
            // The lock goes before the match: closing takes time.
            let verdict = hand_out(&mut self.inner.lock().stats, outcome);
            match verdict {
                HandOut::Claimed(claude) => return Ok(claude),
                HandOut::Cold { close } => {
                    if let Some(session) = close {
                        let _ = session.close().await;
                    }
                }
            }
        }
        self.inner.lock().stats.started_cold += 1;
        Ok(cold.spawn().await?)
    }

    /// Waits until the pool is full (`size` spares parked), to warm it up
    /// before serving. Fails with the error of a start that fails while it
    /// waits (the pool goes on trying, backing off). Cancel-safe.
    pub async fn ready(&self) -> Result<(), Error> {
        let failed_before = self.inner.lock().stats.starts_failed;
        poll_fn(|cx| {
            let mut state = self.inner.lock();
            if state.parked.len() >= state.size || state.closed {
                return Poll::Ready(Ok(()));
            }
            if state.stats.starts_failed > failed_before {
                if let Some(error) = &state.last_failure {
                    return Poll::Ready(Err(error.clone()));
                }
            }
            state.ready_waiters.push(cx.waker().clone());
            Poll::Pending
        })
        .await
    }

    /// Spares parked now.
    pub fn parked(&self) -> usize {
        self.inner.lock().parked.len()
    }

    /// The process ids of the spares parked now.
    pub fn parked_pids(&self) -> Vec<u32> {
        let state = self.inner.lock();
        state
            .parked
            .iter()
            .filter_map(|(_, _, parked)| parked.pid())
            .collect()
    }

    /// What the pool has done so far.
    pub fn stats(&self) -> PoolStats {
        self.inner.lock().stats
    }

    /// Stops the refills and closes every parked spare, waiting for each
    /// to exit. A spare still starting is closed when it is ready.
    pub async fn close(self) {
        let parked = self.inner.shut();
        for (_, _, parked) in parked {
            let _ = parked.close().await;
        }
    }

    /// The builder of a cold start for `claim`.
    fn cold_builder(&self, claim: &Claim) -> Result<ClaudeBuilder<R>, Error> {
        let mut builder = (self.inner.make)().runtime(self.inner.runtime.clone());
        cold_settings(builder.settings_mut(), claim).map_err(Error::from)?;
        Ok(builder)
    }

    /// The first parked spare (or started session) that is alive, if any;
    /// dead ones on the way are counted lost.
    fn take(&self) -> Option<Claude<R>> {
        let now = self.inner.runtime.now();
        let mut state = self.inner.lock();
        while let Some((_, parked_at, parked)) = state.parked.pop_front() {
            if !parked.has_ended() {
                state.refill.handle_taken();
                return Some(parked);
            }
            state.refill.handle_lost(parked_at, now);
            state.stats.spares_lost += 1;
        }
        None
    }
}

impl<R: Runtime> Drop for Pool<R> {
    fn drop(&mut self) {
        // Dropped spares close in the background.
        drop(self.inner.shut());
    }
}

impl<R: Runtime> Inner<R> {
    fn lock(&self) -> MutexGuard<'_, State<R>> {
        // The state is counts and a queue, consistent between statements:
        // a panic elsewhere leaves nothing half-done in it.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Stops the refills; the parked spares (or sessions), to close.
    fn shut(&self) -> Vec<(u64, Instant, Claude<R>)> {
        let mut state = self.lock();
        state.refill.close();
        state.closed = true;
        state.ready_waiters.drain(..).for_each(Waker::wake);
        state.parked.drain(..).collect()
    }
}

/// Fills the pool when dropped.
struct RefillOnDrop<'a, R: Runtime>(&'a Arc<Inner<R>>);

impl<R: Runtime> Drop for RefillOnDrop<'_, R> {
    fn drop(&mut self) {
        fill(self.0);
    }
}

/// Starts what the refill rules allow now, and arms the back-off timer.
fn fill<R: Runtime>(inner: &Arc<Inner<R>>) {
    let now = inner.runtime.now();
    let mut state = inner.lock();
    while state.refill.poll_start(now) {
        let weak = Arc::downgrade(inner);
        let builder = (inner.make)().runtime(inner.runtime.clone());
        let parks = inner.parks;
        inner.runtime.spawn(Box::pin(async move {
            let started = match parks {
                Parks::Spares => builder.prewarm().await.map(Spare::into_claude),
                Parks::Started => builder.startup().await,
            };
            if let Some(inner) = weak.upgrade() {
                start_ended(&inner, started);
            }
            // Else the pool is gone: a started spare is dropped, closed.
        }));
    }
    if let Some(at) = state.refill.poll_timeout() {
        if state.timer.is_none_or(|armed| at < armed) {
            state.timer = Some(at);
            let weak = Arc::downgrade(inner);
            let sleep = inner.runtime.sleep_until(at);
            inner.runtime.spawn(Box::pin(async move {
                sleep.await;
                if let Some(inner) = weak.upgrade() {
                    inner.lock().timer = None;
                    fill(&inner);
                }
            }));
        }
    }
}

/// A start ended.
fn start_ended<R: Runtime>(inner: &Arc<Inner<R>>, started: Result<Claude<R>, Error>) {
    let now = inner.runtime.now();
    {
        let mut state = inner.lock();
        state.refill.handle_started(started.is_ok(), now);
        match started {
            Ok(parked) => {
                state.stats.spares_started += 1;
                if state.refill.parked() > state.parked.len() {
                    let id = state.next_id;
                    state.next_id += 1;
                    watch(inner, id, &parked);
                    state.parked.push_back((id, now, parked));
                }
                // Else the pool was closed: the spare is dropped, closed.
            }
            Err(error) => {
                state.stats.starts_failed += 1;
                log::warn(format_args!("a spare did not start: {error}"));
                state.last_failure = Some(error);
            }
        }
        state.ready_waiters.drain(..).for_each(Waker::wake);
    }
    fill(inner);
}

/// Replaces the spare (or session) `id` if it dies while parked.
fn watch<R: Runtime>(inner: &Arc<Inner<R>>, id: u64, parked: &Claude<R>) {
    let weak = Arc::downgrade(inner);
    let exited = parked.finished();
    inner.runtime.spawn(Box::pin(async move {
        exited.await;
        let Some(inner) = weak.upgrade() else {
            return;
        };
        let now = inner.runtime.now();
        let lost = {
            let mut state = inner.lock();
            let at = state.parked.iter().position(|(parked, _, _)| *parked == id);
            let lost = at.and_then(|at| state.parked.remove(at));
            if let Some((_, parked_at, _)) = &lost {
                state.refill.handle_lost(*parked_at, now);
                state.stats.spares_lost += 1;
            }
            lost
        };
        if lost.is_some() {
            log::warn(format_args!("a parked spare exited; starting another"));
            drop(lost);
            fill(&inner);
        }
    }));
}

/// Keeps `size` sessions started from one builder and hands each out as
/// it is, for a service whose sessions share their options and folder:
/// the first event of a session from the pool comes as fast as the CLI
/// answers a prompt, its start-up (process, config, tools, MCP servers,
/// `initialize`) done beforehand.
///
/// Where [`Pool`] parks spares that a claim binds to any folder, this
/// pool parks sessions started by `make()`'s builder with
/// [`ClaudeBuilder::startup`], each exactly as a cold start of that
/// builder would run: same folder, options, handlers and MCP servers. Use
/// it when every request gets a session like every other (a chat
/// service's, a worker's); use [`Pool`] when each request names its own
/// folder or model. The builder must describe a new session each time (no
/// resume, continue or fork of one session: two handed-out sessions would
/// write to one transcript).
///
/// The rules are [`Pool`]'s: refills run in the background on the
/// runtime, at most `size` sessions parked or starting at once; failed
/// starts and sessions that die parked back off the next start (100 ms,
/// doubling to 30 s; see [`Refill`]); a session handed out is replaced
/// once it is on its way. When none is parked, [`session`](Self::session)
/// starts one cold from the same builder.
///
/// **Memory:** each parked session is a started CLI (about 230 to 260 MB
/// for the pinned CLI), otherwise idle.
///
/// Closing ([`close`](Self::close)) or dropping the pool stops the refills
/// and closes every parked session; one still starting is closed when it
/// is ready. Sessions already handed out are the caller's.
pub struct StartedPool<R: Runtime> {
    pool: Pool<R>,
}

impl<R: Runtime> fmt::Debug for StartedPool<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.pool.inner.lock();
        f.debug_struct("StartedPool")
            .field("refill", &state.refill)
            .field("stats", &state.stats)
            .finish_non_exhaustive()
    }
}

impl<R: Runtime> StartedPool<R> {
    /// A pool that keeps `size` sessions started from `make()`'s builder,
    /// on the runtime this is called in. Starts filling at once. Fails as
    /// [`with_runtime`](Self::with_runtime) does, or without a runtime.
    pub fn new(
        size: usize,
        make: impl Fn() -> ClaudeBuilder<R> + Send + Sync + 'static,
    ) -> Result<Self, SpawnError> {
        Self::with_runtime(size, R::current()?, make)
    }

    /// [`new`](Self::new) on `runtime`. Fails with
    /// [`SpawnError::NotForAPool`] if `make()`'s builder resumes, continues
    /// or forks a session, before anything starts.
    pub fn with_runtime(
        size: usize,
        runtime: R,
        make: impl Fn() -> ClaudeBuilder<R> + Send + Sync + 'static,
    ) -> Result<Self, SpawnError> {
        not_for_a_started_pool(&make().settings.options)?;
        Ok(Self {
            pool: Pool::parking(Parks::Started, size, runtime, Box::new(make)),
        })
    }

    /// A started session: a parked one that is alive, or, when none is,
    /// one started now from the pool's builder (as
    /// [`ClaudeBuilder::startup`] starts it). Either way it has answered
    /// `initialize`; send its first prompt with [`Claude::query`].
    ///
    /// Fails as [`ClaudeBuilder::startup`] fails, only when it starts one
    /// cold. Cancel-safe: a future dropped during a cold start drops that
    /// session, which closes it.
    pub async fn session(&self) -> Result<Claude<R>, Error> {
        let inner = &self.pool.inner;
        let _refill = RefillOnDrop(inner);
        if let Some(parked) = self.pool.take() {
            inner.lock().stats.handed_out += 1;
            return Ok(parked);
        }
        inner.lock().stats.started_cold += 1;
        (inner.make)()
            .runtime(inner.runtime.clone())
            .startup()
            .await
    }

    /// Waits until the pool is full (`size` sessions parked), to warm it
    /// up before serving. Fails with the error of a start that fails while
    /// it waits (the pool goes on trying, backing off). Cancel-safe.
    pub async fn ready(&self) -> Result<(), Error> {
        self.pool.ready().await
    }

    /// Sessions parked now.
    pub fn parked(&self) -> usize {
        self.pool.parked()
    }

    /// The process ids of the sessions parked now.
    pub fn parked_pids(&self) -> Vec<u32> {
        self.pool.parked_pids()
    }

    /// What the pool has done so far: [`PoolStats::handed_out`] sessions
    /// taken from the pool, `started_cold` started on request,
    /// `spares_started` started for the pool, `spares_lost` that died
    /// parked, `starts_failed`.
    pub fn stats(&self) -> PoolStats {
        self.pool.stats()
    }

    /// Stops the refills and closes every parked session, waiting for each
    /// to exit. One still starting is closed when it is ready.
    pub async fn close(self) {
        self.pool.close().await;
    }
}
