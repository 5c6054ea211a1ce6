//! spin 0.5.0's `RwLock`, with the two bugs of zesterer/spin-rs#65 (RUSTSEC-2019-0013,
//! fixed in 0.5.2 by zesterer/spin-rs#66, which rewrote the lock):
//!
//! * the write guard's `Drop` released the lock with `store(0, Ordering::Relaxed)`, so
//!   the next holder's accesses to the data race with the last writer's (weak memory);
//! * `try_read` loaded the lock word, then compare-and-swapped `old + 1` in: a reader
//!   that arrives between the two makes it fail although no writer holds the lock.
//!
//! The fixed code keeps 0.5.0's lock word (the writer bit in the top bit, readers below)
//! and takes its orderings and `try_read` from 0.5.2: the write guard's drop stores with
//! `Release`, the writer waits for readers with `Acquire`, and `try_read` is a
//! `fetch_add` of a reader that it undoes if a writer holds the lock.

use std::ops::Deref;

use pipecheck::cell::UnsafeCell;
use pipecheck::hint::spin_loop;
use pipecheck::prelude::*;
use pipecheck::sync::atomic::{AtomicUsize, Ordering};

/// `rwlock-writes-counted`: after every writer has unlocked, the data holds one
/// increment per write lock taken.
pub const WRITES_COUNTED: InvariantId = InvariantId::new("rwlock-writes-counted");

/// `rwlock-try-read-succeeds-unlocked`: with no writer anywhere, `try_read` succeeds.
pub const TRY_READ: InvariantId = InvariantId::new("rwlock-try-read-succeeds-unlocked");

planted_faults! {
    /// spin 0.5.0's `Drop for RwLockWriteGuard`: `self.lock.store(0, Ordering::Relaxed)`.
    /// The next writer's compare-and-swap reads that 0 with no happens-before edge to
    /// the last writer's accesses, so the two writers' accesses to the data race; only
    /// weak memory shows it.
    WriteUnlockRelaxed breaks InvariantId::NO_DATA_RACE, weak_memory, caught_in(&["writers-race"]);
    /// spin 0.5.0's `try_read`: `let old = (!USIZE_MSB) & self.lock.load(..)`, then
    /// `compare_and_swap(old, old + 1, ..)`, giving up when it fails: another reader
    /// arriving in between makes `try_read` return `None` with no writer anywhere.
    TryReadLoadThenSwap breaks TRY_READ, caught_in(&["readers-race"]);
}

const WRITER: usize = 1 << (usize::BITS - 1);

/// A spinning reader-writer lock.
pub struct RwLock<T> {
    lock: AtomicUsize,
    data: UnsafeCell<T>,
}

impl<T> std::fmt::Debug for RwLock<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RwLock").field("lock", &self.lock).finish_non_exhaustive()
    }
}

// SAFETY: the data is written only under the write lock and read only under a read
// lock, whose acquisition (Acquire) follows the last release (Release) of the write lock
// (WriteUnlockRelaxed breaks that, and loom reports the race).
unsafe impl<T: Send + Sync> Sync for RwLock<T> {}

/// Shared access, until dropped.
#[derive(Debug)]
pub struct ReadGuard<'a, T> {
    lock: &'a RwLock<T>,
}

/// Exclusive access, until dropped.
#[derive(Debug)]
pub struct WriteGuard<'a, T> {
    lock: &'a RwLock<T>,
}

impl<T> RwLock<T> {
    /// A lock holding `data`.
    pub fn new(data: T) -> RwLock<T> {
        RwLock { lock: AtomicUsize::new(0), data: UnsafeCell::new(data) }
    }

    /// Shared access if no writer holds the lock, without waiting.
    pub fn try_read(&self) -> Option<ReadGuard<'_, T>> {
        if TryReadLoadThenSwap.is_active() {
            let old = !WRITER & self.lock.load(Ordering::Relaxed);
            return self
                .lock
                .compare_exchange(old, old + 1, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
                .then_some(ReadGuard { lock: self });
        }
        let old = self.lock.fetch_add(1, Ordering::Acquire);
        if old & WRITER != 0 {
            self.lock.fetch_sub(1, Ordering::Release);
            return None;
        }
        Some(ReadGuard { lock: self })
    }

    /// Exclusive access: sets the writer bit, then waits for the readers to leave.
    pub fn write(&self) -> WriteGuard<'_, T> {
        loop {
            let old = !WRITER & self.lock.load(Ordering::Relaxed);
            if self.lock.compare_exchange(old, WRITER | old, Ordering::SeqCst, Ordering::Relaxed).is_ok() {
                while self.lock.load(Ordering::Acquire) != WRITER {
                    spin_loop();
                }
                return WriteGuard { lock: self };
            }
            spin_loop();
        }
    }
}

impl<T> Deref for ReadGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: a read guard means no writer holds the lock, and its acquisition
        // happened after the last writer's release.
        self.lock.data.with(|p| unsafe { &*p })
    }
}

impl<T> Drop for ReadGuard<'_, T> {
    fn drop(&mut self) {
        self.lock.lock.fetch_sub(1, Ordering::SeqCst);
    }
}

impl<T> WriteGuard<'_, T> {
    /// Runs `f` on the data.
    pub fn update<R>(&mut self, f: impl FnOnce(&mut T) -> R) -> R {
        // SAFETY: the write guard is exclusive, and its acquisition happened after the
        // last release of the lock.
        self.lock.data.with_mut(|p| f(unsafe { &mut *p }))
    }
}

impl<T> Drop for WriteGuard<'_, T> {
    fn drop(&mut self) {
        let order = if WriteUnlockRelaxed.is_active() { Ordering::Relaxed } else { Ordering::Release };
        self.lock.lock.store(0, order);
    }
}

/// What a run records.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// A writer incremented the data (under the write lock).
    Wrote,
    /// After every writer unlocked, a reader saw this value.
    Total(u64),
    /// `try_read` with no writer anywhere returned a guard (`true`) or `None`.
    TryRead(bool),
}

fn writes_counted() -> Vec<Box<dyn Invariant<Event>>> {
    let counted = FnInvariant::new(
        WRITES_COUNTED,
        "after every writer unlocked, the data holds one increment per write lock taken",
        0u64,
        |writes, event: &Event| match *event {
            Event::Wrote => {
                *writes += 1;
                Ok(())
            }
            Event::Total(total) if total != *writes => {
                Err(format!("{writes} writes, the data holds {total}"))
            }
            _ => Ok(()),
        },
    );
    let try_read =
        FnInvariant::new(TRY_READ, "with no writer anywhere, try_read succeeds", (), |_, event: &Event| {
            match *event {
                Event::TryRead(false) => Err("try_read returned None, and no writer exists".to_owned()),
                _ => Ok(()),
            }
        });
    vec![counted.boxed(), try_read.boxed()]
}

/// Two threads take the write lock and increment, then a read sees both increments.
fn writers_race(monitor: &EventMonitor<Event>) {
    let lock = Arc::new(RwLock::new(0u64));
    let (other, m) = (lock.clone(), monitor.clone());
    let writer = thread::spawn(move || {
        other.write().update(|v| *v += 1);
        m.record_by("writer 1", Event::Wrote);
    });
    lock.write().update(|v| *v += 1);
    monitor.record_by("writer 2", Event::Wrote);
    writer.join().expect("writer 1 panicked");
    let total = *lock.try_read().expect("no writer is left");
    monitor.record_by("reader", Event::Total(total));
}

/// Two threads `try_read` at once, with no writer anywhere.
fn readers_race(monitor: &EventMonitor<Event>) {
    let lock = Arc::new(RwLock::new(7u64));
    let (other, m) = (lock.clone(), monitor.clone());
    let reader = thread::spawn(move || {
        let ok = other.try_read().is_some();
        m.record_by("reader 1", Event::TryRead(ok));
    });
    let ok = lock.try_read().is_some();
    monitor.record_by("reader 2", Event::TryRead(ok));
    reader.join().expect("reader 1 panicked");
}

/// The lock as a pipecheck target.
pub fn target() -> Target {
    Target::new(
        "spin-rwlock",
        "spin 0.5.0's RwLock: a Relaxed write unlock, a try_read that fails spuriously",
    )
    .faults(ALL)
    .checked(
        writes_counted,
        &[
            EventScenario::small(
                "writers-race",
                "two threads take the write lock and increment, then a reader checks the total",
                writers_race,
            ),
            EventScenario::small(
                "readers-race",
                "two threads try_read at once, no writer anywhere",
                readers_race,
            ),
        ],
    )
}
