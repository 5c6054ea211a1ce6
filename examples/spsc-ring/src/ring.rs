//! A bounded lock-free single-producer single-consumer ring.
//!
//! Lamport's ring ("Specifying concurrent program modules", 1983) with the C11 orderings
//! of the usual Rust SPSC queues: two monotonic indices, `tail` written only by the
//! [`Producer`] and `head` written only by the [`Consumer`]; slot `i % capacity` holds
//! the value number `i`. Each side reads its own index `Relaxed` (nobody else writes
//! it), publishes it with `Release`, and reads the other side's with `Acquire`:
//!
//! * the producer's `Release` store of `tail` publishes the slot it just wrote, and the
//!   consumer's `Acquire` load of `tail` makes it visible before the consumer reads it;
//! * the consumer's `Release` store of `head` says it finished reading a slot, and the
//!   producer's `Acquire` load of `head` orders that read before the slot is reused.
//!
//! [`Producer::close`] sets `closed` with `Release` after the producer's last push: a
//! consumer that finds the ring empty and `closed` set (`Acquire`) loads `tail` again,
//! since the close made every push before it visible; only if the ring is still empty is
//! it closed. No lock anywhere: the handles' `&mut self` make one producer and one
//! consumer the only callers.
//!
//! Everything comes from pipecheck's sync facade (`pipecheck`), so the
//! same code runs on std, under loom and under shuttle.

use std::mem::MaybeUninit;

use pipecheck::cell::UnsafeCell;
use pipecheck::sync::Arc;
use pipecheck::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::ring_check::{CloseRelaxed, ClosedWithoutRecheck, HeadBeforeRead};

/// Why [`Producer::push`] handed its value back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PushError<T> {
    /// Every slot holds a value the consumer has not popped yet.
    Full(T),
    /// The producer closed the ring.
    Closed(T),
}

/// Why [`Consumer::pop`] returned no value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PopError {
    /// No value now; the producer may push more.
    Empty,
    /// No value, and the producer closed the ring: none will come.
    Closed,
}

struct Shared<T> {
    /// Slot `i % capacity` holds value number `i` while `head <= i < tail`.
    slots: Box<[UnsafeCell<MaybeUninit<T>>]>,
    /// The number of values popped; written by the consumer only.
    head: AtomicUsize,
    /// The number of values pushed; written by the producer only.
    tail: AtomicUsize,
    /// Set by the producer after its last push.
    closed: AtomicBool,
}

impl<T> Shared<T> {
    fn slot(&self, index: usize) -> &UnsafeCell<MaybeUninit<T>> {
        &self.slots[index % self.slots.len()]
    }
}

// SAFETY: the ring moves `T`s from the producer's thread to the consumer's, so it is
// `Send` and `Sync` when `T: Send`; each slot is accessed by one side at a time (the
// protocol in the module docs), never through a shared `&T`.
unsafe impl<T: Send> Sync for Shared<T> {}

impl<T> Drop for Shared<T> {
    fn drop(&mut self) {
        // Relaxed: the last handle's drop synchronized with the other's (`Arc`).
        let (head, tail) = (self.head.load(Ordering::Relaxed), self.tail.load(Ordering::Relaxed));
        for index in head..tail {
            // SAFETY: `&mut self`: both handles are gone. Slots `head..tail` hold the
            // values pushed and never popped, each initialized once by `push`.
            self.slot(index).with_mut(|slot| unsafe { (*slot).assume_init_drop() });
        }
    }
}

/// The pushing side of a [`ring`]: the only one, since pushing takes `&mut self`.
pub struct Producer<T> {
    shared: Arc<Shared<T>>,
}

/// The popping side of a [`ring`]: the only one, since popping takes `&mut self`.
pub struct Consumer<T> {
    shared: Arc<Shared<T>>,
}

impl<T> std::fmt::Debug for Producer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Producer").finish_non_exhaustive()
    }
}

impl<T> std::fmt::Debug for Consumer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Consumer").finish_non_exhaustive()
    }
}

/// A ring of `capacity` slots, as its two ends.
///
/// # Examples
///
/// ```
/// # #[cfg(not(any(feature = "loom", feature = "shuttle")))] {
/// use spsc_ring::{PopError, PushError, ring};
///
/// let (mut tx, mut rx) = ring(1);
/// tx.push(1).unwrap();
/// assert_eq!(tx.push(2), Err(PushError::Full(2)));
/// assert_eq!(rx.pop(), Ok(1));
/// assert_eq!(rx.pop(), Err(PopError::Empty));
/// tx.close();
/// assert_eq!(rx.pop(), Err(PopError::Closed));
/// # }
/// ```
///
/// # Panics
///
/// When `capacity` is 0.
pub fn ring<T>(capacity: usize) -> (Producer<T>, Consumer<T>) {
    assert!(capacity > 0, "a ring needs at least one slot");
    let shared = Arc::new(Shared {
        slots: (0..capacity).map(|_| UnsafeCell::new(MaybeUninit::uninit())).collect(),
        head: AtomicUsize::new(0),
        tail: AtomicUsize::new(0),
        closed: AtomicBool::new(false),
    });
    (Producer { shared: shared.clone() }, Consumer { shared })
}

impl<T> Producer<T> {
    /// Appends `value`.
    ///
    /// # Errors
    ///
    /// [`PushError::Full`] when every slot holds an unpopped value,
    /// [`PushError::Closed`] after [`close`](Producer::close); either way with `value`.
    pub fn push(&mut self, value: T) -> Result<(), PushError<T>> {
        let shared = &*self.shared;
        // Relaxed: only this thread writes `closed` and `tail`.
        if shared.closed.load(Ordering::Relaxed) {
            return Err(PushError::Closed(value));
        }
        let tail = shared.tail.load(Ordering::Relaxed);
        // Acquire: the consumer's reads of the slots below `head` happen before this.
        let head = shared.head.load(Ordering::Acquire);
        if tail.wrapping_sub(head) == shared.slots.len() {
            return Err(PushError::Full(value));
        }
        // SAFETY: [1] only the producer writes slots, and `&mut self` makes this the only
        // producer call; [2] slot `tail % capacity` is free: value `tail - capacity` (if
        // any) was read before the consumer stored `head > tail - capacity`, and the
        // Acquire load above made that read happen before this write; [3] the consumer
        // reads this slot only after loading `tail + 1`, stored below with Release.
        shared.slot(tail).with_mut(|slot| unsafe { slot.write(MaybeUninit::new(value)) });
        shared.tail.store(tail.wrapping_add(1), Ordering::Release);
        Ok(())
    }

    /// Closes the ring: later pushes fail, and the consumer, once it popped every value
    /// pushed before, gets [`PopError::Closed`].
    pub fn close(&mut self) {
        // Release: every push before this is visible to a consumer that sees `closed`.
        let order = if CloseRelaxed.is_active() { Ordering::Relaxed } else { Ordering::Release };
        self.shared.closed.store(true, order);
    }
}

impl<T> Consumer<T> {
    /// Takes the oldest value.
    ///
    /// # Errors
    ///
    /// [`PopError::Empty`] when there is none now, [`PopError::Closed`] when there is
    /// none and the producer closed the ring.
    pub fn pop(&mut self) -> Result<T, PopError> {
        let shared = &*self.shared;
        // Relaxed: only this thread writes `head`.
        let head = shared.head.load(Ordering::Relaxed);
        // Acquire: the producer's write of slot `head` happens before the read below.
        let mut tail = shared.tail.load(Ordering::Acquire);
        if tail == head {
            if !shared.closed.load(Ordering::Acquire) {
                return Err(PopError::Empty);
            }
            // The close made every push before it visible: look again.
            if !ClosedWithoutRecheck.is_active() {
                tail = shared.tail.load(Ordering::Acquire);
            }
            if tail == head {
                return Err(PopError::Closed);
            }
        }
        let reuse_early = HeadBeforeRead.is_active();
        if reuse_early {
            shared.head.store(head.wrapping_add(1), Ordering::Release);
        }
        // SAFETY: [1] only the consumer reads slots, and `&mut self` makes this the only
        // consumer call; [2] `head < tail`: the producer wrote slot `head % capacity`
        // before its Release store of `tail`, which the Acquire load above read from;
        // [3] the producer writes this slot again only after loading a `head` past it,
        // stored below with Release after this read (the planted `HeadBeforeRead`
        // breaks this: it stores `head` first); [4] the value is read once: `head`
        // moves past it.
        let value = shared.slot(head).with(|slot| unsafe { slot.read().assume_init() });
        if !reuse_early {
            shared.head.store(head.wrapping_add(1), Ordering::Release);
        }
        Ok(value)
    }
}
