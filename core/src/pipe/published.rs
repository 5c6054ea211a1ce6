//! The committed end and the fast path's flags in one atomic word: how a flush that
//! need not wait publishes without the pipe lock (seed 001).
//!
//! The word holds `committed << FLAG_BITS | flags`. The writer's fast flush publishes
//! with one compare-and-swap that succeeds only while no flag is set: no reader is
//! parked and nothing makes the flush take the slow path (a pause, a pending cancel, a
//! completed reader). Every flag is set and cleared under the pipe lock; the fast
//! publish is the only change made without it. Because the flags and the committed end
//! live in the same word, a reader that parks (sets [`READER_PARKED`] with one
//! read-modify-write) and a flush that publishes are totally ordered:
//!
//! * the publish came first: the reader's `fetch_or` returns the new end, the reader
//!   sees the bytes and does not park (it must *re-check* that value — reading the end
//!   before parking and trusting it is the `ParksWithoutRecheck` planted bug);
//! * the park came first: the compare-and-swap fails, and the flush takes the lock and
//!   wakes the reader.
//!
//! The publish is a release operation and every reader of the end acquires it, so the
//! bytes written before a flush are visible to the read that returns them (a relaxed
//! publish is the `RelaxedPublish` planted bug: loom reports the reader's access to the
//! segment bytes as a causality violation).
//!
//! The reader's side of the same word: a read takes published bytes without the lock
//! ([`snapshot`](Published::snapshot), one acquiring read-modify-write) unless
//! [`READ_SLOW`] or [`READER_PARKED`] is set. `READ_SLOW` is set, under the lock,
//! *before* whatever it stands for becomes visible: a segment is linked before the
//! bytes in it are published, the writer's completion before its last bytes. So a read
//! that acquires an end from the word either sees the flag that end needs, or needs
//! none (a relaxed snapshot is the `RelaxedFastRead` planted bug).

use crate::primitive::sync::atomic::{AtomicU64, Ordering};

/// Low bits of the word reserved for flags.
const FLAG_BITS: u32 = 3;
const FLAG_MASK: u64 = (1 << FLAG_BITS) - 1;

/// A reader waker is registered: a publish must take the lock and wake it. Set by the
/// reader under the lock as it parks; cleared, under the lock, by whoever takes the
/// waker (or by the parking read itself when its re-check finds bytes and no waker is
/// registered).
pub(crate) const READER_PARKED: u64 = 1;
/// A flush must take the lock: the writer is paused, a flush cancel is pending, or the
/// reader has completed. Mirrors those fields of the state, under the lock.
pub(crate) const FLUSH_SLOW: u64 = 2;
/// A read must take the lock: a read cancel is pending, the writer completed, a
/// `read_at_least` waits, or a segment was linked that the reader has not taken into
/// its view yet. Mirrors those fields of the state, under the lock
/// ([`Shared::sync_read_flag`](super::Shared::sync_read_flag)).
pub(crate) const READ_SLOW: u64 = 4;

/// The writer's committed end and the fast-path flags (see the module docs).
#[derive(Debug)]
pub(crate) struct Published {
    word: AtomicU64,
    /// What back-pressure subtracts from the committed end (the examined offset; the
    /// consumed one under the `BackpressureByConsumed` planted bug), stored by the
    /// reader under the lock *after* its `Consumed` event, so a fast flush that sees a
    /// value never runs ahead of the event log. A stale value only over-counts, which
    /// sends the flush to the lock to decide the pause.
    released: AtomicU64,
}

impl Published {
    pub(crate) fn new() -> Published {
        Published { word: AtomicU64::new(0), released: AtomicU64::new(0) }
    }

    /// The committed end, acquiring the bytes published with it. A read-modify-write
    /// (adding nothing), not a load: it reads the newest end in the word's modification
    /// order. A load may return an older end — the fast publish is not ordered with the
    /// pipe lock — so a read that starts after a flush returned could miss that flush's
    /// bytes: not linearizable (loom's `pipe-linearizable` model finds such a history).
    pub(crate) fn committed(&self) -> u64 {
        self.word.fetch_add(0, Ordering::Acquire) >> FLAG_BITS
    }

    /// The committed end and the flags, for a read that may take the bytes without the
    /// lock: a read-modify-write (the newest end, as [`committed`](Self::committed))
    /// that acquires the bytes published with it. `relaxed` is the `RelaxedFastRead`
    /// planted bug.
    pub(crate) fn snapshot(&self, relaxed: bool) -> (u64, u64) {
        let order = if relaxed { Ordering::Relaxed } else { Ordering::Acquire };
        let word = self.word.fetch_add(0, order);
        (word >> FLAG_BITS, word & FLAG_MASK)
    }

    /// The fast flush: moves the committed end from `committed` (the writer's own
    /// last publish: only the writer changes it) to `committed + bytes`, unless a flag
    /// that concerns the flush is set ([`READER_PARKED`], [`FLUSH_SLOW`]; [`READ_SLOW`]
    /// concerns only reads and is carried over). With the end known, a compare-and-swap
    /// fails only when the flags differ from the expected ones: it expects `read_slow`,
    /// the `READ_SLOW` bit the writer last saw (updated here), and tries again only when
    /// that bit alone was wrong — so in the steady state it is one compare-and-swap.
    /// On `false` the flush must take the lock (nothing was published). `relaxed` is
    /// the `RelaxedPublish` planted bug.
    pub(crate) fn try_publish(&self, committed: u64, bytes: u64, read_slow: &mut u64, relaxed: bool) -> bool {
        let success = if relaxed { Ordering::Relaxed } else { Ordering::Release };
        let mut current = committed << FLAG_BITS | *read_slow & READ_SLOW;
        loop {
            let next = current + (bytes << FLAG_BITS);
            match self.word.compare_exchange(current, next, success, Ordering::Relaxed) {
                Ok(_) => return true,
                Err(actual) => {
                    assert_eq!(actual >> FLAG_BITS, committed, "only the writer moves the committed end");
                    *read_slow = actual & READ_SLOW;
                    if actual & FLAG_MASK & !READ_SLOW != 0 {
                        return false;
                    }
                    current = actual;
                }
            }
        }
    }

    /// Publishes `bytes` more as committed whatever the flags (the slow flush and the
    /// writer's completion, under the lock). Returns the new committed end.
    pub(crate) fn publish_locked(&self, bytes: u64) -> u64 {
        let before = self.word.fetch_add(bytes << FLAG_BITS, Ordering::AcqRel);
        (before >> FLAG_BITS) + bytes
    }

    /// Sets `flag`; returns the committed end at that instant (the latest, as a
    /// read-modify-write reads the newest value). Under the lock; `flags` is the
    /// state's copy of the flags (they change only under the lock, so the copy is
    /// exact and spares an atomic access — a scheduling point under loom — whenever a
    /// flag already is as wanted).
    pub(crate) fn set(&self, flags: &mut u64, flag: u64) -> u64 {
        *flags |= flag;
        self.word.fetch_or(flag, Ordering::AcqRel) >> FLAG_BITS
    }

    /// Clears `flag` if set. Under the lock; `flags` as for [`set`](Self::set).
    pub(crate) fn clear(&self, flags: &mut u64, flag: u64) {
        if *flags & flag != 0 {
            *flags &= !flag;
            self.word.fetch_and(!flag, Ordering::AcqRel);
        }
    }

    /// Sets or clears `flag` unless it already is so. Under the lock.
    pub(crate) fn mirror(&self, flags: &mut u64, flag: u64, on: bool) {
        if on && *flags & flag == 0 {
            self.set(flags, flag);
        } else if !on {
            self.clear(flags, flag);
        }
    }

    /// What back-pressure subtracts from the committed end, as of the reader's last
    /// `advance_to` the writer has seen.
    pub(crate) fn released(&self) -> u64 {
        self.released.load(Ordering::Acquire)
    }

    /// Records what back-pressure subtracts now. Under the lock.
    pub(crate) fn set_released(&self, released: u64) {
        self.released.store(released, Ordering::Release);
    }

    /// Back to a new pipe's word (both ends completed, so no fast path runs). Under
    /// the lock.
    pub(crate) fn reset(&self) {
        self.word.store(0, Ordering::Release);
        self.released.store(0, Ordering::Release);
    }
}

// The word's protocol on its own, in plain std tests: the loom models check it against
// the reader and the writer, but cargo-mutants' per-mutant command runs only the std
// tests, which reach the fast path's flag handling only through whole pipes.
#[cfg(all(test, not(any(feature = "loom", feature = "shuttle"))))]
mod tests {
    use super::*;

    #[test]
    fn a_flag_stops_the_fast_publish_until_it_is_cleared() {
        let published = Published::new();
        let mut flags = 0;
        assert!(published.try_publish(0, 3, &mut 0, false));
        assert_eq!(published.set(&mut flags, READER_PARKED), 3, "set returns the end at that instant");
        assert_eq!(flags, READER_PARKED);
        assert!(!published.try_publish(3, 2, &mut 0, false), "a parked reader sends the flush to the lock");
        assert_eq!(published.committed(), 3);
        published.clear(&mut flags, READER_PARKED);
        assert_eq!(flags, 0);
        assert!(published.try_publish(3, 2, &mut 0, false));
        assert_eq!(published.committed(), 5);
    }

    #[test]
    fn clearing_one_flag_keeps_the_other_in_the_copy_and_the_word() {
        let published = Published::new();
        let mut flags = 0;
        published.set(&mut flags, READER_PARKED);
        published.set(&mut flags, FLUSH_SLOW);
        assert_eq!(flags, READER_PARKED | FLUSH_SLOW);
        published.clear(&mut flags, READER_PARKED);
        assert_eq!(flags, FLUSH_SLOW);
        assert!(!published.try_publish(0, 1, &mut 0, false), "FLUSH_SLOW is still set in the word");
        published.clear(&mut flags, FLUSH_SLOW);
        assert_eq!(flags, 0);
        assert!(published.try_publish(0, 1, &mut 0, false));
        published.clear(&mut flags, READER_PARKED); // not set: nothing changes
        assert_eq!(flags, 0);
        assert!(published.try_publish(1, 1, &mut 0, false));
    }

    #[test]
    fn mirror_sets_and_clears_as_asked() {
        let published = Published::new();
        let mut flags = 0;
        published.mirror(&mut flags, FLUSH_SLOW, true);
        assert_eq!(flags, FLUSH_SLOW);
        assert!(!published.try_publish(0, 1, &mut 0, false));
        published.mirror(&mut flags, FLUSH_SLOW, true);
        assert_eq!(flags, FLUSH_SLOW, "already set: unchanged");
        published.mirror(&mut flags, FLUSH_SLOW, false);
        assert_eq!(flags, 0);
        assert!(published.try_publish(0, 1, &mut 0, false));
    }

    #[test]
    fn a_locked_publish_adds_whatever_the_flags() {
        let published = Published::new();
        let mut flags = 0;
        published.set(&mut flags, READER_PARKED);
        assert_eq!(published.publish_locked(4), 4);
        assert_eq!(published.committed(), 4);
        published.clear(&mut flags, READER_PARKED);
        assert!(published.try_publish(4, 1, &mut 0, false), "the flag bits were left intact");
        assert_eq!(published.committed(), 5);
    }

    #[test]
    fn a_snapshot_reads_the_end_and_the_flags_and_changes_nothing() {
        let published = Published::new();
        let mut flags = 0;
        assert!(published.try_publish(0, 6, &mut 0, false));
        assert_eq!(published.snapshot(false), (6, 0));
        published.set(&mut flags, READ_SLOW);
        published.set(&mut flags, READER_PARKED);
        assert_eq!(published.snapshot(false), (6, READ_SLOW | READER_PARKED));
        published.clear(&mut flags, READER_PARKED);
        assert_eq!(published.snapshot(true), (6, READ_SLOW), "relaxed or not, the same value");
        let mut read_slow = 0;
        assert!(published.try_publish(6, 1, &mut read_slow, false), "READ_SLOW does not stop the fast flush");
        assert_eq!(read_slow, READ_SLOW, "the writer learned the bit");
        assert!(published.try_publish(7, 1, &mut read_slow, false));
        assert_eq!(published.snapshot(false), (8, READ_SLOW), "the flag was carried over");
    }

    #[test]
    fn released_reads_what_was_stored_and_reset_clears_both() {
        let published = Published::new();
        published.set_released(7);
        assert_eq!(published.released(), 7);
        published.publish_locked(9);
        published.reset();
        assert_eq!((published.committed(), published.released()), (0, 0));
    }
}
