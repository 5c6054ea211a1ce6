//! Vyukov's bounded MPMC queue ("Bounded MPMC queue", 1024cores.net, 2010).
//!
//! A ring of cells, each with a *sequence* number, and two positions that only grow:
//! `enqueue` (the next cell to fill) and `dequeue` (the next to empty). Cell `pos %
//! capacity` is free for the push of position `pos` when its sequence is `pos`, and
//! holds that push's value when its sequence is `pos + 1`:
//!
//! * a push reads `enqueue`, and if the cell's sequence (`Acquire`) equals the position,
//!   claims it by a compare-and-swap of `enqueue` (its linearization point), writes the
//!   value, and publishes it by storing the sequence `pos + 1` with `Release`; a sequence
//!   below the position means the cell still holds the value of `capacity` pushes ago:
//!   full;
//! * a pop likewise claims position `pos` when the cell's sequence is `pos + 1`, reads
//!   the value, and frees the cell for position `pos + capacity` (`Release`); a sequence
//!   below `pos + 1` means nothing was published there: empty.
//!
//! Not strictly linearizable: a pop that reaches a claimed, not yet published cell
//! answers empty though the value is in the queue (and a later push may have returned);
//! a push likewise answers full while a pop that took the cell's value has not freed it.
//! [`crate::queue_check`] states those answers as allowed while the justifying operation
//! is in flight, and nothing else.
//!
//! Everything comes from pipecheck's sync facade, so the same code runs on std, under
//! loom and under shuttle.

use pipecheck::cell::UnsafeCell;
use pipecheck::sync::atomic::{AtomicUsize, Ordering};

use crate::queue_check::{PositionWithoutCas, RelaxedPublish, StalePosition, TrustPositions};

struct Cell<T> {
    /// Which position the cell is ready for (see the module docs).
    sequence: AtomicUsize,
    /// The value, written by the push that claimed the cell and read by the pop that did.
    value: UnsafeCell<Option<T>>,
}

/// A bounded lock-free queue for any number of producers and consumers.
///
/// # Examples
///
/// ```
/// # #[cfg(not(any(feature = "loom", feature = "shuttle")))] {
/// use mpmc_queue::Queue;
///
/// let queue = Queue::new(2);
/// assert_eq!(queue.push(1), Ok(()));
/// assert_eq!(queue.push(2), Ok(()));
/// assert_eq!(queue.push(3), Err(3)); // full
/// assert_eq!(queue.pop(), Some(1));
/// assert_eq!(queue.pop(), Some(2));
/// assert_eq!(queue.pop(), None);
/// # }
/// ```
pub struct Queue<T> {
    cells: Box<[Cell<T>]>,
    enqueue: AtomicUsize,
    dequeue: AtomicUsize,
}

// SAFETY: values move between threads (`T: Send`); a cell's value is accessed only by the
// push or the pop that claimed the cell, whose sequence loads and stores order the
// accesses (module docs), never through a shared `&T`.
unsafe impl<T: Send> Sync for Queue<T> {}

impl<T> std::fmt::Debug for Queue<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Queue").field("capacity", &self.cells.len()).finish_non_exhaustive()
    }
}

impl<T: Copy> Queue<T> {
    /// An empty queue with room for `capacity` values.
    ///
    /// # Panics
    ///
    /// When `capacity` is below 2: with one cell, the sequence a push publishes (`pos +
    /// 1`) is the one the next push waits for, and a full queue would take another value.
    pub fn new(capacity: usize) -> Queue<T> {
        assert!(capacity >= 2, "Vyukov's queue needs at least two cells");
        let cells = (0..capacity)
            .map(|pos| Cell { sequence: AtomicUsize::new(pos), value: UnsafeCell::new(None) })
            .collect();
        Queue { cells, enqueue: AtomicUsize::new(0), dequeue: AtomicUsize::new(0) }
    }

    fn cell(&self, pos: usize) -> &Cell<T> {
        &self.cells[pos % self.cells.len()]
    }

    /// Appends `value`.
    ///
    /// # Errors
    ///
    /// `value` back when the cell to fill still holds a value (full).
    pub fn push(&self, value: T) -> Result<(), T> {
        let mut pos = self.enqueue.load(Ordering::Relaxed);
        loop {
            let cell = self.cell(pos);
            let sequence = cell.sequence.load(Ordering::Acquire);
            if sequence == pos {
                if PositionWithoutCas.is_active() {
                    self.enqueue.store(pos + 1, Ordering::Relaxed);
                } else if let Err(now) =
                    self.enqueue.compare_exchange(pos, pos + 1, Ordering::Relaxed, Ordering::Relaxed)
                {
                    pos = now;
                    continue;
                }
                // SAFETY: the claim above made this push the cell's only writer; the pop
                // that emptied it stored its sequence with Release, read by the Acquire
                // load above.
                cell.value.with_mut(|slot| unsafe { *slot = Some(value) });
                let publish = if RelaxedPublish.is_active() { Ordering::Relaxed } else { Ordering::Release };
                cell.sequence.store(pos + 1, publish);
                return Ok(());
            }
            if sequence < pos {
                return Err(value);
            }
            // Another push claimed this position: retry at the current one.
            pipecheck::hint::spin_loop();
            pos = self.enqueue.load(Ordering::Relaxed);
        }
    }

    /// Takes the oldest value, if one is published.
    pub fn pop(&self) -> Option<T> {
        let mut pos = self.dequeue.load(Ordering::Relaxed);
        loop {
            let cell = self.cell(pos);
            let sequence = cell.sequence.load(Ordering::Acquire);
            // The planted bug trusts the positions: a claimed cell counts as published.
            let ready = if TrustPositions.is_active() {
                pos < self.enqueue.load(Ordering::Acquire) && sequence <= pos + 1
            } else {
                sequence == pos + 1
            };
            if ready {
                if let Err(now) =
                    self.dequeue.compare_exchange(pos, pos + 1, Ordering::Relaxed, Ordering::Relaxed)
                {
                    pos = now;
                    continue;
                }
                // SAFETY: the claim made this pop the cell's only reader; the push that
                // filled it stored its sequence with Release, read by the Acquire load
                // above (not so under the planted `TrustPositions`).
                let value = cell.value.with_mut(|slot| unsafe { (*slot).take() });
                cell.sequence.store(pos + self.cells.len(), Ordering::Release);
                return value;
            }
            if sequence < pos + 1 {
                return None;
            }
            // Another pop took this position: retry at the current one (the planted
            // `StalePosition` retries at the same one, forever).
            pipecheck::hint::spin_loop();
            if !StalePosition.is_active() {
                pos = self.dequeue.load(Ordering::Relaxed);
            }
        }
    }
}
