//! Pools for a threaded service: the async adapters' `Pool` (spares for
//! claims) and `StartedPool` (started sessions) on threads. The refill
//! rules are the host crate's [`Refill`].

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};
use std::time::Instant;

use claude_proto_adapter::spare::{HandOut, cold_settings, hand_out, not_for_a_started_pool};
use claude_proto_adapter::{Configure, PoolStats};
use claude_proto_host::{Claim, Error, Refill, SpawnError};
use claude_proto_process::log;

use crate::builder::ClaudeBuilder;
use crate::client::Claude;
use crate::spare::Spare;

type Make = dyn Fn() -> ClaudeBuilder + Send + Sync;

/// Keeps `size` spares of one set of host-level options parked, and turns
/// each request for a session into a claimed one, or a cold start when no
/// spare is parked or a claim fails. The rules are the async adapters'
/// (`claude_proto_async::Pool`): one pool per set of host-level options
/// (`make` builds the builder of every spare and cold start); at most
/// `size` spares parked or starting at once, failed starts backing off
/// (see [`Refill`]); a spare handed out is replaced once its session is
/// on its way.
///
/// Each spare starts on a thread of its own, which ends once the spare is
/// parked. A parked spare that dies is found when it would be handed out,
/// and replaced then (the async pool watches its spares instead).
///
/// **Memory:** each parked spare is a started CLI, about 150 to 260 MB.
///
/// Closing ([`close`](Self::close)) or dropping the pool stops the refills
/// and closes every parked spare; a spare still starting is closed when it
/// is ready. Sessions already handed out are the caller's.
pub struct Pool {
    inner: Arc<Inner>,
}

struct Inner {
    make: Box<Make>,
    /// What is parked: spares waiting for a claim ([`Pool`]), or sessions
    /// started for the pool's own folder and options ([`StartedPool`]).
    parks: Parks,
    state: Mutex<State>,
    /// Signalled when a spare parks, a start fails or the pool closes.
    changed: Condvar,
}

/// What a pool starts and parks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Parks {
    /// [`ClaudeBuilder::prewarm`]: spares, parked for a claim.
    Spares,
    /// [`ClaudeBuilder::startup`]: sessions, started as they will run.
    Started,
}

struct State {
    refill: Refill,
    /// Each parked spare (or started session) with when it was parked
    /// (how long it lived, if it dies).
    parked: VecDeque<(Instant, Claude)>,
    size: usize,
    closed: bool,
    timer: Option<Instant>,
    last_failure: Option<Error>,
    stats: PoolStats,
}

impl fmt::Debug for Pool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.inner.lock();
        f.debug_struct("Pool")
            .field("refill", &state.refill)
            .field("stats", &state.stats)
            .finish_non_exhaustive()
    }
}

impl Pool {
    /// A pool that keeps `size` spares started from `make()`'s builder.
    /// Starts filling at once.
    pub fn new(size: usize, make: impl Fn() -> ClaudeBuilder + Send + Sync + 'static) -> Self {
        Self::parking(Parks::Spares, size, Box::new(make))
    }

    fn parking(parks: Parks, size: usize, make: Box<Make>) -> Self {
        let inner = Arc::new(Inner {
            make,
            parks,
            state: Mutex::new(State {
                refill: Refill::new(size),
                parked: VecDeque::new(),
                size,
                closed: false,
                timer: None,
                last_failure: None,
                stats: PoolStats::default(),
            }),
            changed: Condvar::new(),
        });
        fill(&inner);
        Self { inner }
    }

    /// A running session for `claim`: a parked spare claimed for it, or,
    /// when none is parked or the claim fails, one started cold with the
    /// options the claim describes. What the async `Pool::session` does,
    /// blocking.
    pub fn session(&self, claim: Claim) -> Result<Claude, Error> {
        let cold = self.cold_builder(&claim)?;
        let _refill = RefillOnDrop(&self.inner);
        if let Some(parked) = self.take() {
            let outcome = Spare::new(parked).claim(claim);
            // The lock goes before the match: closing takes time.
            let verdict = hand_out(&mut self.inner.lock().stats, outcome);
            match verdict {
                HandOut::Claimed(claude) => return Ok(claude),
                HandOut::Cold { close } => {
                    if let Some(session) = close {
                        let _ = session.close();
                    }
                }
            }
        }
        self.inner.lock().stats.started_cold += 1;
        Ok(cold.spawn()?)
    }

    /// Blocks until the pool is full (`size` spares parked), to warm it up
    /// before serving; fails with the error of a start that fails while it
    /// waits (the pool goes on trying, backing off).
    pub fn ready(&self) -> Result<(), Error> {
        let mut state = self.inner.lock();
        let failed_before = state.stats.starts_failed;
        loop {
            if state.parked.len() >= state.size || state.closed {
                return Ok(());
            }
            if state.stats.starts_failed > failed_before {
                if let Some(error) = &state.last_failure {
                    return Err(error.clone());
                }
            }
            state = self
                .inner
                .changed
                .wait(state)
                .unwrap_or_else(|e| e.into_inner());
        }
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
            .filter_map(|(_, parked)| parked.pid())
            .collect()
    }

    /// What the pool has done so far.
    pub fn stats(&self) -> PoolStats {
        self.inner.lock().stats
    }

    /// Stops the refills and closes every parked spare, waiting for each
    /// to exit. A spare still starting is closed when it is ready.
    pub fn close(self) {
        for parked in self.inner.shut() {
            let _ = parked.close();
        }
    }

    fn cold_builder(&self, claim: &Claim) -> Result<ClaudeBuilder, Error> {
        let mut builder = (self.inner.make)();
        cold_settings(builder.settings_mut(), claim).map_err(Error::from)?;
        Ok(builder)
    }

    /// The first parked spare (or started session) that is alive, if any;
    /// dead ones on the way are counted lost.
    fn take(&self) -> Option<Claude> {
        let now = Instant::now();
        let mut state = self.inner.lock();
        while let Some((parked_at, parked)) = state.parked.pop_front() {
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

impl Drop for Pool {
    fn drop(&mut self) {
        // Dropped spares close in the background.
        drop(self.inner.shut());
    }
}

impl Inner {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Counts and a queue, consistent between statements: a panic
        // elsewhere leaves nothing half-done in them.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn shut(&self) -> Vec<Claude> {
        let mut state = self.lock();
        state.refill.close();
        state.closed = true;
        self.changed.notify_all();
        state.parked.drain(..).map(|(_, parked)| parked).collect()
    }
}

/// Fills the pool when dropped.
struct RefillOnDrop<'a>(&'a Arc<Inner>);

impl Drop for RefillOnDrop<'_> {
    fn drop(&mut self) {
        fill(self.0);
    }
}

/// Starts what the refill rules allow now, each on a thread, and arms the
/// back-off timer.
fn fill(inner: &Arc<Inner>) {
    let now = Instant::now();
    let mut state = inner.lock();
    while state.refill.poll_start(now) {
        let weak = Arc::downgrade(inner);
        let builder = (inner.make)();
        let parks = inner.parks;
        let started = std::thread::Builder::new()
            .name("claude-spare-start".into())
            .spawn(move || {
                let started = match parks {
                    Parks::Spares => builder.prewarm().map(Spare::into_claude),
                    Parks::Started => builder.startup(),
                };
                if let Some(inner) = weak.upgrade() {
                    start_ended(&inner, started);
                }
            });
        if let Err(error) = started {
            // No thread: counted as a failed start, backing off.
            state.refill.handle_started(false, now);
            state.stats.starts_failed += 1;
            log::warn(format_args!("could not start a spare's thread: {error}"));
        }
    }
    if let Some(at) = state.refill.poll_timeout() {
        if state.timer.is_none_or(|armed| at < armed) {
            state.timer = Some(at);
            arm_timer(Arc::downgrade(inner), at);
        }
    }
}

/// Fills the pool at `at` (the back-off's end), on a thread of its own.
fn arm_timer(weak: Weak<Inner>, at: Instant) {
    let timer = std::thread::Builder::new()
        .name("claude-pool-timer".into())
        .spawn(move || {
            std::thread::sleep(at.saturating_duration_since(Instant::now()));
            if let Some(inner) = weak.upgrade() {
                inner.lock().timer = None;
                fill(&inner);
            }
        });
    if let Err(error) = timer {
        log::warn(format_args!(
            "could not start the pool's timer thread ({error}); it refills on the next session"
        ));
    }
}

/// A start ended.
fn start_ended(inner: &Arc<Inner>, started: Result<Claude, Error>) {
    let now = Instant::now();
    let mut closed_meanwhile = None;
    {
        let mut state = inner.lock();
        state.refill.handle_started(started.is_ok(), now);
        match started {
            Ok(parked) => {
                state.stats.spares_started += 1;
                if state.refill.parked() > state.parked.len() {
                    state.parked.push_back((now, parked));
                } else {
                    // The pool was closed: dropped below, which closes it.
                    closed_meanwhile = Some(parked);
                }
            }
            Err(error) => {
                state.stats.starts_failed += 1;
                log::warn(format_args!("a spare did not start: {error}"));
                state.last_failure = Some(error);
            }
        }
        inner.changed.notify_all();
    }
    drop(closed_meanwhile);
    fill(inner);
}

/// Keeps `size` sessions started from one builder and hands each out as
/// it is: the async adapters' `StartedPool` on threads, for a service
/// whose sessions share their options and folder. A session from the pool
/// has done its start-up ([`ClaudeBuilder::startup`]) before it is asked
/// for, so its first event comes as fast as the CLI answers a prompt.
///
/// The rules are [`Pool`]'s (at most `size` parked or starting, failed
/// starts backing off, a session handed out replaced once it is on its
/// way); [`session`](Self::session) starts one cold from the same builder
/// when none is parked. The builder must describe a new session each time
/// (no resume, continue or fork). A parked session that dies is found
/// when it would be handed out, and replaced then.
///
/// **Memory:** each parked session is a started CLI, about 150 to 260 MB.
///
/// Closing ([`close`](Self::close)) or dropping the pool stops the refills
/// and closes every parked session; one still starting is closed when it
/// is ready. Sessions already handed out are the caller's.
pub struct StartedPool {
    pool: Pool,
}

impl fmt::Debug for StartedPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.pool.inner.lock();
        f.debug_struct("StartedPool")
            .field("refill", &state.refill)
            .field("stats", &state.stats)
            .finish_non_exhaustive()
    }
}

impl StartedPool {
    /// A pool that keeps `size` sessions started from `make()`'s builder.
    /// Starts filling at once. Fails with [`SpawnError::NotForAPool`] if
    /// the builder resumes, continues or forks a session, before anything
    /// starts.
    pub fn new(
        size: usize,
        make: impl Fn() -> ClaudeBuilder + Send + Sync + 'static,
    ) -> Result<Self, SpawnError> {
        not_for_a_started_pool(&make().settings.options)?;
        Ok(Self {
            pool: Pool::parking(Parks::Started, size, Box::new(make)),
        })
    }

    /// A started session: a parked one that is alive, or, when none is,
    /// one started now from the pool's builder. Either way it has answered
    /// `initialize`. Fails as [`ClaudeBuilder::startup`] fails, only when
    /// it starts one cold.
    pub fn session(&self) -> Result<Claude, Error> {
        let inner = &self.pool.inner;
        let _refill = RefillOnDrop(inner);
        if let Some(parked) = self.pool.take() {
            inner.lock().stats.handed_out += 1;
            return Ok(parked);
        }
        inner.lock().stats.started_cold += 1;
        (inner.make)().startup()
    }

    /// Blocks until the pool is full (`size` sessions parked); fails with
    /// the error of a start that fails while it waits (the pool goes on
    /// trying, backing off).
    pub fn ready(&self) -> Result<(), Error> {
        self.pool.ready()
    }

    /// Sessions parked now.
    pub fn parked(&self) -> usize {
        self.pool.parked()
    }

    /// The process ids of the sessions parked now.
    pub fn parked_pids(&self) -> Vec<u32> {
        self.pool.parked_pids()
    }

    /// What the pool has done so far ([`PoolStats::handed_out`] sessions
    /// taken from the pool, `started_cold` started on request).
    pub fn stats(&self) -> PoolStats {
        self.pool.stats()
    }

    /// Stops the refills and closes every parked session, waiting for each
    /// to exit. One still starting is closed when it is ready.
    pub fn close(self) {
        self.pool.close();
    }
}
