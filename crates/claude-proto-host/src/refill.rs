//! When a pool of spares starts another: the refill rules, without IO or a
//! clock, so they are tested on a virtual clock and shared by every
//! adapter's pool.
//!
//! - At most `size` spares are parked or starting at once: a pool never
//!   holds more CLIs than it was sized for, however many sessions it hands
//!   out or claims fail (a failed claim costs the spare it used, nothing
//!   more).
//! - A start that fails, or a spare that dies while parked, backs the next
//!   start off: 100 ms after the first failure in a row, doubling up to
//!   30 s. A CLI that cannot start (not installed, bad options, no
//!   credentials) is then tried a few times a minute, not in a loop; so
//!   is one that starts and then dies parked (a start alone proves
//!   nothing: its death counts as the next failure in the row).
//! - The back-off resets only when a spare proves healthy: it is handed
//!   out alive, or it dies after living parked [`HEALTHY_AFTER`] or more
//!   (that death then counts as a first failure).
//! - Once closed, nothing starts.

use std::time::{Duration, Instant};

use crate::limits::deadline;

/// The back-off after the first failure in a row.
pub const FIRST_BACKOFF: Duration = Duration::from_millis(100);
/// The longest back-off.
pub const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// How long a spare lives parked before its death no longer counts
/// against the CLI: one that dies after that had been healthy (an idle
/// timeout, a deploy), and its replacement starts after the first
/// back-off.
pub const HEALTHY_AFTER: Duration = Duration::from_secs(60);

/// How many spares a pool has and is starting, and when it may start the
/// next. Call [`poll_start`](Self::poll_start) after every input until it
/// says no, and wake at [`poll_timeout`](Self::poll_timeout).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refill {
    size: usize,
    parked: usize,
    starting: usize,
    failures_in_a_row: u32,
    not_before: Option<Instant>,
    closed: bool,
}

impl Refill {
    /// A pool that keeps `size` spares.
    pub fn new(size: usize) -> Self {
        Self {
            size,
            parked: 0,
            starting: 0,
            failures_in_a_row: 0,
            not_before: None,
            closed: false,
        }
    }

    /// Whether to start a spare now; `true` counts it as starting, to be
    /// followed by one [`handle_started`](Self::handle_started).
    #[must_use = "a start that is granted must be carried out"]
    pub fn poll_start(&mut self, now: Instant) -> bool {
        if self.closed || self.parked + self.starting >= self.size {
            return false;
        }
        if self.not_before.is_some_and(|at| now < at) {
            return false;
        }
        self.starting += 1;
        true
    }

    /// When to call [`poll_start`](Self::poll_start) again while backing
    /// off (`None`: only after the next input).
    pub fn poll_timeout(&self) -> Option<Instant> {
        if self.closed || self.parked + self.starting >= self.size {
            return None;
        }
        self.not_before
    }

    /// A start ended: `parked` if the spare is parked, else it failed. A
    /// spare that starts after [`close`](Self::close) is not counted: the
    /// caller closes it.
    pub fn handle_started(&mut self, parked: bool, now: Instant) {
        self.starting = self.starting.saturating_sub(1);
        if self.closed {
            return;
        }
        if parked {
            // Not a reset: a spare that dies parked is the next failure.
            self.parked += 1;
        } else {
            self.back_off(now);
        }
    }

    /// A parked spare was handed out alive (found dead when handed out:
    /// [`handle_lost`](Self::handle_lost) instead): the CLI works, so the
    /// back-off resets.
    pub fn handle_taken(&mut self) {
        self.parked = self.parked.saturating_sub(1);
        self.failures_in_a_row = 0;
        self.not_before = None;
    }

    /// A spare parked at `parked_at` died: it is replaced after a back-off
    /// as for a failed start, counted from the first if it had lived
    /// [`HEALTHY_AFTER`] or more.
    pub fn handle_lost(&mut self, parked_at: Instant, now: Instant) {
        self.parked = self.parked.saturating_sub(1);
        if self.closed {
            return;
        }
        if now.saturating_duration_since(parked_at) >= HEALTHY_AFTER {
            self.failures_in_a_row = 0;
        }
        self.back_off(now);
    }

    /// Nothing starts any more.
    pub fn close(&mut self) {
        self.closed = true;
        self.parked = 0;
    }

    /// Spares parked.
    pub fn parked(&self) -> usize {
        self.parked
    }

    /// Spares starting.
    pub fn starting(&self) -> usize {
        self.starting
    }

    fn back_off(&mut self, now: Instant) {
        self.failures_in_a_row = self.failures_in_a_row.saturating_add(1);
        let doublings = self.failures_in_a_row.saturating_sub(1).min(16);
        let backoff = FIRST_BACKOFF
            .saturating_mul(1 << doublings)
            .min(MAX_BACKOFF);
        self.not_before = Some(deadline(now, backoff));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn starts(refill: &mut Refill, now: Instant) -> usize {
        std::iter::from_fn(|| refill.poll_start(now).then_some(()))
            .take(1000)
            .count()
    }

    #[test]
    fn no_more_than_size_are_parked_or_starting() {
        let now = Instant::now();
        let mut refill = Refill::new(3);
        assert_eq!(starts(&mut refill, now), 3);
        refill.handle_started(true, now);
        assert_eq!(starts(&mut refill, now), 0);
        refill.handle_taken();
        assert_eq!(starts(&mut refill, now), 1);
        assert_eq!(refill.parked() + refill.starting(), 3);
    }

    /// Twelve failures in a row, each `fail` (after a granted start) at
    /// the end of the last back-off: the back-offs, and the time after
    /// the last. Checks that nothing starts while backing off.
    fn back_offs(
        refill: &mut Refill,
        fail: impl Fn(&mut Refill, Instant),
    ) -> (Vec<Duration>, Instant) {
        let mut now = Instant::now();
        let mut waits = Vec::new();
        for _ in 0..12 {
            assert!(refill.poll_start(now));
            fail(refill, now);
            assert!(!refill.poll_start(now), "no start while backing off");
            let at = refill.poll_timeout().unwrap();
            waits.push(at - now);
            now = at;
        }
        (waits, now)
    }

    /// Doubling from the first back-off up to the ceiling.
    fn assert_doubling(waits: &[Duration]) {
        assert_eq!(waits[0], FIRST_BACKOFF);
        assert_eq!(waits[1], FIRST_BACKOFF * 2);
        assert_eq!(waits[2], FIRST_BACKOFF * 4);
        assert_eq!(*waits.last().unwrap(), MAX_BACKOFF);
    }

    #[test]
    fn failures_back_off_doubling_to_a_ceiling_and_a_hand_out_resets_it() {
        let mut refill = Refill::new(1);
        let (waits, now) = back_offs(&mut refill, |refill, now| {
            refill.handle_started(false, now);
        });
        assert_doubling(&waits);
        assert!(refill.poll_start(now));
        refill.handle_started(true, now);
        refill.handle_taken();
        assert!(refill.poll_start(now), "a hand-out resets the back-off");
        refill.handle_started(false, now);
        assert_eq!(refill.poll_timeout(), Some(now + FIRST_BACKOFF));
    }

    /// Finding: spares that started, then died parked, were restarted
    /// every 100 ms without end, each start resetting the back-off.
    #[test]
    fn spares_that_start_then_die_parked_back_off_doubling_to_the_ceiling() {
        let mut refill = Refill::new(1);
        let (waits, _) = back_offs(&mut refill, |refill, now| {
            refill.handle_started(true, now);
            refill.handle_lost(now, now);
        });
        assert_doubling(&waits);
    }

    #[test]
    fn a_spare_that_lived_long_before_dying_starts_the_back_off_over() {
        let mut now = Instant::now();
        let mut refill = Refill::new(1);
        for _ in 0..6 {
            assert!(refill.poll_start(now));
            refill.handle_started(false, now);
            now = refill.poll_timeout().unwrap();
        }
        assert!(refill.poll_start(now));
        refill.handle_started(true, now);
        let parked_at = now;
        now += HEALTHY_AFTER;
        refill.handle_lost(parked_at, now);
        assert_eq!(refill.poll_timeout(), Some(now + FIRST_BACKOFF));
        // One that dies sooner goes on counting.
        now += FIRST_BACKOFF;
        assert!(refill.poll_start(now));
        refill.handle_started(true, now);
        refill.handle_lost(now, now + HEALTHY_AFTER / 2);
        assert_eq!(
            refill.poll_timeout(),
            Some(now + HEALTHY_AFTER / 2 + FIRST_BACKOFF * 2)
        );
    }

    #[test]
    fn claims_that_fail_cost_one_start_each() {
        // A pool of 2 handing out 100 sessions whose claims all fail: each
        // hand-out frees one place, and only one start follows it.
        let now = Instant::now();
        let mut refill = Refill::new(2);
        let mut started = starts(&mut refill, now);
        refill.handle_started(true, now);
        refill.handle_started(true, now);
        for _ in 0..100 {
            refill.handle_taken();
            started += starts(&mut refill, now);
            refill.handle_started(true, now);
        }
        assert_eq!(started, 102);
        assert_eq!(refill.parked(), 2);
    }

    #[test]
    fn a_spare_that_dies_is_replaced_after_a_back_off() {
        let now = Instant::now();
        let mut refill = Refill::new(1);
        assert!(refill.poll_start(now));
        refill.handle_started(true, now);
        refill.handle_lost(now, now);
        assert!(!refill.poll_start(now));
        assert!(refill.poll_start(refill.poll_timeout().unwrap()));
    }

    #[test]
    fn nothing_starts_once_closed() {
        let now = Instant::now();
        let mut refill = Refill::new(2);
        assert!(refill.poll_start(now));
        refill.close();
        refill.handle_started(true, now);
        assert_eq!(refill.parked(), 0);
        assert!(!refill.poll_start(now));
        assert_eq!(refill.poll_timeout(), None);
    }
}
