//! The [`Budget`] of one check, shared by the searches of all its partitions, which
//! may run on several threads.
//!
//! States and bytes are drawn from shared pools in small grants, so a search touches
//! the shared counters once per grant rather than once per state, and no pool is ever
//! overdrawn: a limit is honoured exactly for states and bytes, and for time to within
//! one clock check (every [`CLOCK_EVERY`] states).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use super::outcome::{Budget, Exhausted};

/// States between two looks at the clock: a state costs tens of nanoseconds, a clock
/// read about twenty, so this keeps the clock under 1% and the overrun under a
/// millisecond.
pub(super) const CLOCK_EVERY: u64 = 128;

/// States a search draws at once.
const STATE_GRANT: u64 = 256;

/// Bytes a search draws at once.
const BYTE_GRANT: u64 = 1 << 20;

/// What every search of one check draws from.
#[derive(Debug)]
pub(super) struct Pool {
    states_left: AtomicU64,
    bytes_left: AtomicU64,
    max_bytes: u64,
    deadline: Option<Instant>,
    /// Set by the first definite failure (or exhaustion): the others stop.
    stop: AtomicBool,
}

impl Pool {
    /// The pool of `budget`, its clock starting now.
    pub(super) fn new(budget: &Budget) -> Pool {
        Pool {
            states_left: AtomicU64::new(budget.max_states),
            bytes_left: AtomicU64::new(budget.max_bytes),
            max_bytes: budget.max_bytes,
            deadline: budget.time.map(|time| Instant::now() + time),
            stop: AtomicBool::new(false),
        }
    }

    /// Bytes drawn and not returned: held by visited sets (and unused grants).
    pub(super) fn bytes_in_use(&self) -> u64 {
        self.max_bytes - self.bytes_left.load(Ordering::Relaxed)
    }

    /// Returns the bytes of a visited set that was freed.
    pub(super) fn release_bytes(&self, bytes: u64) {
        Pool::give_back(&self.bytes_left, bytes);
    }

    /// Tells every search to stop at its next clock check.
    pub(super) fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Whether some search asked the others to stop.
    pub(super) fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Whether the deadline passed.
    pub(super) fn late(&self) -> bool {
        self.deadline.is_some_and(|deadline| Instant::now() >= deadline)
    }

    /// Takes up to `want` from `pool`, at least `need`; `false` if fewer than `need`
    /// are left.
    fn draw(pool: &AtomicU64, need: u64, want: u64) -> Option<u64> {
        let mut left = pool.load(Ordering::Relaxed);
        loop {
            if left < need {
                return None;
            }
            let take = want.max(need).min(left);
            match pool.compare_exchange_weak(left, left - take, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return Some(take),
                Err(now) => left = now,
            }
        }
    }

    /// Returns what a search drew and did not use.
    fn give_back(pool: &AtomicU64, amount: u64) {
        pool.fetch_add(amount, Ordering::Relaxed);
    }
}

/// One search's view of the pool: what it holds, what it used, and its own quota.
#[derive(Debug)]
pub(super) struct Allowance<'p> {
    pool: &'p Pool,
    /// States held, drawn and not yet used.
    states_held: u64,
    bytes_held: u64,
    /// States this search may still use in this round (its share of the schedule).
    quota: u64,
    /// States used since the last clock check.
    since_clock: u64,
}

impl<'p> Allowance<'p> {
    /// A view of `pool` allowing at most `quota` more states.
    pub(super) fn new(pool: &'p Pool, quota: u64) -> Allowance<'p> {
        Allowance { pool, states_held: 0, bytes_held: 0, quota, since_clock: 0 }
    }

    /// Counts one more state. `Err(None)` when this search's quota is spent (it may
    /// resume later), `Err(Some(why))` when the check must stop.
    pub(super) fn spend_state(&mut self) -> Result<(), Option<Exhausted>> {
        if self.quota == 0 {
            return Err(None);
        }
        if self.states_held == 0 {
            self.states_held =
                Pool::draw(&self.pool.states_left, 1, STATE_GRANT).ok_or(Some(Exhausted::States))?;
        }
        self.since_clock += 1;
        if self.since_clock >= CLOCK_EVERY {
            self.since_clock = 0;
            if self.pool.late() {
                return Err(Some(Exhausted::Time));
            }
            if self.pool.stopped() {
                return Err(None);
            }
        }
        self.states_held -= 1;
        self.quota -= 1;
        Ok(())
    }

    /// Counts `bytes` more memory held by the search.
    pub(super) fn spend_bytes(&mut self, bytes: u64) -> Result<(), Exhausted> {
        if bytes > self.bytes_held {
            let need = bytes - self.bytes_held;
            self.bytes_held +=
                Pool::draw(&self.pool.bytes_left, need, BYTE_GRANT).ok_or(Exhausted::Memory)?;
        }
        self.bytes_held -= bytes;
        Ok(())
    }
}

impl Drop for Allowance<'_> {
    fn drop(&mut self) {
        Pool::give_back(&self.pool.states_left, self.states_held);
        Pool::give_back(&self.pool.bytes_left, self.bytes_held);
    }
}
