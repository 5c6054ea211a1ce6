//! The committed end and the fast path's flags in one atomic word: how a flush that
//! need not wait publishes without the pipe lock (seed 001).
//!
//! The word holds `committed << FLAG_BITS | flags`. The writer's fast flush publishes
//! with one compare-and-swap that succeeds only while no flag is set: no reader is
//! parked and nothing makes the flush take the slow path (a pause, a pending cancel, a
//! completed reader). Every flag but [`HEAD_PARKED`] is set and cleared under the pipe
//! lock; the fast publish is the only other change made without it. Because the flags and the committed end
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
//!
//! **The idle head's hand-off.** [`HEAD_PARKED`] is the one flag set without the lock:
//! the publishing flush sets it with its bytes when it leaves the head idle, and the
//! writer's next `get_memory` and a reader that has consumed everything each clear it
//! with one read-modify-write; whoever finds it set owns the head (see `parked_head`).
//! The fast publish carries it over like the flags below.
//!
//! **The lock-free `advance_to`.** The reader's consumed and examined offsets live in
//! atomics on the reader's own cache line ([`store_offsets`](Published::store_offsets)),
//! so an `advance_to` that returns no segment and resumes no writer need not lock. It is
//! excluded from every other lock holder by a store-then-load handshake (Dekker's), in
//! which the reader writes only its own line: it marks its advance in progress (an odd
//! count in the reader's line), issues a sequentially consistent fence and loads the
//! word, and goes to the lock instead if that finds [`LOCKED`]; a lock holder sets
//! `LOCKED` with its read-modify-write of the word, issues the same fence, loads the
//! count, and waits (briefly: the advance only stores and reports) while it is odd. The
//! two fences are totally ordered, and whichever comes second sees the other side's
//! mark, so at least one side backs off: the lock-free advance and its `Consumed`
//! event are ordered with every locked section exactly as a locked advance would be,
//! and the checkers read the log as before. A count the lock holder has not seen yet
//! tells it the state's copies of the offsets are older than the atomics. (Without the
//! wait, a flush under the lock decides its pause on an examined offset the log
//! already shows replaced: the `AdvanceSkipsHandshake` planted bug; without the
//! reader's fence, both sides can read the other's old value and go on together: the
//! `AdvanceSkipsFence` planted bug.) The advance costs the word's line one load, not
//! two read-modify-writes that the writer's next publish would wait for.

use crossbeam_utils::CachePadded;
use pipecheck_sync::Violation;

use pipecheck_sync::sync::atomic::{AtomicU64, Ordering, fence};

/// Low bits of the word reserved for flags.
const FLAG_BITS: u32 = 5;
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
/// A lock holder other than the reader is inside its locked section: a lock-free
/// `advance_to` must take the lock instead. Set right after the mutex is taken and
/// cleared right before it is released ([`begin_locked`](Published::begin_locked)).
pub(crate) const LOCKED: u64 = 8;
/// The writer's idle head is parked: the reader may claim it (see `parked_head`). Set
/// by the publishing flush in the same read-modify-write as its bytes; cleared by
/// whichever side claims the head first, the writer's next `get_memory` (or completion)
/// or a reader that has consumed exactly the committed end read from the same word.
pub(crate) const HEAD_PARKED: u64 = 16;
/// Flags neither the fast flush nor the fast read stops for: the fast flush carries
/// them over in its compare-and-swap.
const CARRIED: u64 = READ_SLOW | LOCKED | HEAD_PARKED;

/// The writer's committed end and the fast-path flags (see the module docs).
///
/// The word and the reader's offsets sit on cache lines of their own: the reader
/// writes only its line on every lock-free `advance_to`, and the writer writes the
/// word on every fast flush.
#[derive(Debug)]
pub(crate) struct Published {
    word: CachePadded<AtomicU64>,
    reader: CachePadded<ReaderOffsets>,
}

/// What the reader stores for the writer and the lock holders.
#[derive(Debug)]
struct ReaderOffsets {
    /// What back-pressure subtracts from the committed end (the examined offset; the
    /// consumed one under the `BackpressureByConsumed` planted bug), stored by the
    /// reader under the lock *after* its `Consumed` event, so a fast flush that sees a
    /// value never runs ahead of the event log. A stale value only over-counts, which
    /// sends the flush to the lock to decide the pause.
    released: AtomicU64,
    /// The reader's consumed and examined offsets as of its last `advance_to`, for the
    /// lock holders after a lock-free one (see the module docs).
    consumed: AtomicU64,
    examined: AtomicU64,
    /// Twice the number of lock-free `advance_to`s begun, minus one while one is in
    /// progress: odd, a lock holder waits; a value it has not seen, it loads the
    /// offsets. Written only by the reader.
    advances: AtomicU64,
}

impl Published {
    pub(crate) fn new() -> Published {
        Published {
            word: CachePadded::new(AtomicU64::new(0)),
            reader: CachePadded::new(ReaderOffsets {
                released: AtomicU64::new(0),
                consumed: AtomicU64::new(0),
                examined: AtomicU64::new(0),
                advances: AtomicU64::new(0),
            }),
        }
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
    /// that concerns the flush is set ([`READER_PARKED`], [`FLUSH_SLOW`]; the others are
    /// carried over). With the end known, a compare-and-swap fails only when the flags
    /// differ from the expected ones: it expects `carried`, the carried flags the writer
    /// last saw (updated here), and tries again only when those alone were wrong — so in
    /// the steady state it is one compare-and-swap.
    /// With `park`, the same compare-and-swap sets [`HEAD_PARKED`]: the writer's head,
    /// written before, is the reader's to claim from then on.
    /// On `false` the flush must take the lock (nothing was published). `relaxed` is
    /// the `RelaxedPublish` planted bug.
    #[inline]
    pub(crate) fn try_publish(
        &self,
        committed: u64,
        bytes: u64,
        park: bool,
        carried: &mut u64,
        relaxed: bool,
    ) -> bool {
        let success = if relaxed { Ordering::Relaxed } else { Ordering::Release };
        let current = committed << FLAG_BITS | *carried & CARRIED;
        let parked = if park { HEAD_PARKED } else { 0 };
        let next = (current + (bytes << FLAG_BITS)) | parked;
        // The steady state: the flags are as the writer last saw them.
        match self.word.compare_exchange(current, next, success, Ordering::Relaxed) {
            Ok(_) => {
                *carried |= parked;
                true
            }
            Err(actual) => self.retry_publish(committed, bytes, parked, carried, actual, success),
        }
    }

    /// [`try_publish`](Self::try_publish) after its first compare-and-swap found other
    /// flags than expected (`actual`): learns the carried ones and tries again while only
    /// those differ.
    /// `parked` is the flag the publish sets ([`HEAD_PARKED`] or nothing).
    #[inline(never)]
    fn retry_publish(
        &self,
        committed: u64,
        bytes: u64,
        parked: u64,
        carried: &mut u64,
        mut actual: u64,
        success: Ordering,
    ) -> bool {
        loop {
            let moved = actual >> FLAG_BITS != committed;
            Violation::raise_unless(
                !moved,
                crate::invariant::MONOTONIC_OFFSETS,
                "only the writer moves the committed end",
            );
            // Only the writer parks, and it parks only a head it holds.
            Violation::raise_unless(
                actual & parked == 0,
                crate::invariant::RELEASE_ONCE,
                "a head was parked twice",
            );
            *carried = actual & CARRIED;
            if actual & FLAG_MASK & !CARRIED != 0 {
                return false;
            }
            let current = actual;
            let next = (current + (bytes << FLAG_BITS)) | parked;
            match self.word.compare_exchange(current, next, success, Ordering::Relaxed) {
                Ok(_) => {
                    *carried |= parked;
                    return true;
                }
                Err(now) => actual = now,
            }
        }
    }

    /// Whether [`FLUSH_SLOW`] is set: the writer may be paused, a flush cancel may be
    /// pending, or the reader may have completed. A [`snapshot`](Self::snapshot): it
    /// reads the newest flags.
    pub(crate) fn flush_may_be_slow(&self) -> bool {
        self.snapshot(false).1 & FLUSH_SLOW != 0
    }

    /// Whether [`FLUSH_SLOW`] looks set, by a plain load: for a paused flush's spin
    /// (`spin`), which only decides when to take the lock and look for real. Relaxed: no
    /// data is read on its word.
    pub(crate) fn flush_slow_hint(&self) -> bool {
        self.word.load(Ordering::Relaxed) & FLUSH_SLOW != 0
    }

    /// The committed end by a plain load, possibly older than the newest: for the
    /// reader's spin (`spin`), which reads bytes only through
    /// [`snapshot`](Self::snapshot) after it. Relaxed, for the same reason.
    pub(crate) fn committed_hint(&self) -> u64 {
        self.word.load(Ordering::Relaxed) >> FLAG_BITS
    }

    /// Publishes `bytes` more as committed whatever the flags (the slow flush and the
    /// writer's completion, under the lock), and with `park` sets [`HEAD_PARKED`] in the
    /// same read-modify-write (the writer holds its head, so the flag is clear: adding it
    /// sets it). Returns the new committed end.
    pub(crate) fn publish_locked(&self, bytes: u64, park: bool) -> u64 {
        let parked = if park { HEAD_PARKED } else { 0 };
        let before = self.word.fetch_add(bytes << FLAG_BITS | parked, Ordering::AcqRel);
        Violation::raise_unless(
            before & parked == 0,
            crate::invariant::RELEASE_ONCE,
            "a head was parked twice",
        );
        (before >> FLAG_BITS) + bytes
    }

    /// The writer takes its parked head back (its next `get_memory`, or its completion):
    /// clears [`HEAD_PARKED`] and returns whether it was still set, that is whether the
    /// head is still the writer's. `false`: the reader claimed it first. AcqRel: the
    /// read-modify-write orders the two claims; the loser does not touch the head again.
    #[inline]
    pub(crate) fn take_back_head(&self, carried: &mut u64) -> bool {
        *carried &= !HEAD_PARKED;
        self.word.fetch_and(!HEAD_PARKED, Ordering::AcqRel) & HEAD_PARKED != 0
    }

    /// The reader claims the writer's parked head (an `advance_to` that consumed up to
    /// the committed end it knew): clears [`HEAD_PARKED`] and, if it was set, returns
    /// the committed end in the same word, which a flush may have moved since the
    /// reader looked (the head then holds bytes not consumed yet). `None`: the writer
    /// took the head back first. AcqRel, as [`take_back_head`](Self::take_back_head);
    /// acquiring also makes the head's bytes up to that end visible.
    pub(crate) fn claim_head(&self) -> Option<u64> {
        let word = self.word.fetch_and(!HEAD_PARKED, Ordering::AcqRel);
        (word & HEAD_PARKED != 0).then_some(word >> FLAG_BITS)
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
        self.reader.released.load(Ordering::Acquire)
    }

    /// Records what back-pressure subtracts now: under the lock, or inside a lock-free
    /// `advance_to`.
    pub(crate) fn set_released(&self, released: u64) {
        self.reader.released.store(released, Ordering::Release);
    }

    /// Back to a new pipe's word (both ends completed, so no fast path runs). Under
    /// the lock; `LOCKED` stays set until the holder releases it.
    pub(crate) fn reset(&self) {
        self.word.store(LOCKED, Ordering::Release);
        self.reader.released.store(0, Ordering::Release);
        self.reader.consumed.store(0, Ordering::Relaxed);
        self.reader.examined.store(0, Ordering::Relaxed);
    }

    /// A lock holder's half of the handshake, right after taking the mutex: sets
    /// [`LOCKED`], then (after the fence that orders it with the reader's mark) waits
    /// while a lock-free `advance_to` is in progress. Returns the committed end as the
    /// `fetch_or` read it (the newest, as [`committed`](Self::committed)'s: one
    /// read-modify-write does both, one scheduling point less under loom on every
    /// lock), and the reader's offsets `(consumed, examined)` if an advance stored
    /// offsets since the count in `seen` (else `None`: the state's copies are current);
    /// `seen` is updated. `skip_wait` is the `AdvanceSkipsHandshake` planted bug.
    pub(crate) fn begin_locked(&self, skip_wait: bool, seen: &mut u64) -> (u64, Option<(u64, u64)>) {
        let first = self.word.fetch_or(LOCKED, Ordering::AcqRel);
        // Dekker's handshake: this fence and the reader's are totally ordered, so either
        // the reader's load of the word sees `LOCKED`, or this load sees its mark.
        fence(Ordering::SeqCst);
        let mut advances = self.reader.advances.load(Ordering::Acquire);
        while advances % 2 == 1 && !skip_wait {
            // The advance holds no lock and only stores and reports: it ends soon.
            pipecheck_sync::thread::yield_now();
            advances = self.reader.advances.load(Ordering::Acquire);
        }
        let offsets = (advances != *seen).then(|| {
            *seen = advances;
            (self.reader.consumed.load(Ordering::Relaxed), self.reader.examined.load(Ordering::Relaxed))
        });
        (first >> FLAG_BITS, offsets)
    }

    /// A lock holder's other half, right before releasing the mutex: clears [`LOCKED`].
    pub(crate) fn end_locked(&self) {
        self.word.fetch_and(!LOCKED, Ordering::Release);
    }

    /// The reader's half, starting its lock-free `advance_to` number `begun` (odd: the
    /// count of advances begun before, doubled, plus one): marks it in progress in the
    /// reader's line, then loads the word, and returns the committed end and the flags.
    /// With [`LOCKED`] among them the advance must [`abandon`](Self::end_advance) and
    /// lock. `skip_fence` is the `AdvanceSkipsFence` planted bug.
    ///
    /// The load may return an older end than the newest (a fast publish is not ordered
    /// with it), never one older than the reader has read: bytes past it are only
    /// reported later, never consumed by this advance.
    #[inline]
    pub(crate) fn begin_advance(&self, begun: u64, skip_fence: bool) -> (u64, u64) {
        self.reader.advances.store(begun, Ordering::Relaxed);
        if !skip_fence {
            fence(Ordering::SeqCst);
        }
        let word = self.word.load(Ordering::Acquire);
        (word >> FLAG_BITS, word & FLAG_MASK)
    }

    /// Ends (or abandons) a lock-free `advance_to` (`ended`: the even count after
    /// `begun`), publishing the offsets stored in between to the next lock holder.
    #[inline]
    pub(crate) fn end_advance(&self, ended: u64) {
        self.reader.advances.store(ended, Ordering::Release);
    }

    /// Stores the reader's offsets, inside a lock-free `advance_to` (published by
    /// [`end_advance`](Self::end_advance)).
    pub(crate) fn store_offsets(&self, consumed: u64, examined: u64) {
        self.reader.consumed.store(consumed, Ordering::Relaxed);
        self.reader.examined.store(examined, Ordering::Relaxed);
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
        assert!(published.try_publish(0, 3, false, &mut 0, false));
        assert_eq!(published.set(&mut flags, READER_PARKED), 3, "set returns the end at that instant");
        assert_eq!(flags, READER_PARKED);
        assert!(
            !published.try_publish(3, 2, false, &mut 0, false),
            "a parked reader sends the flush to the lock"
        );
        assert_eq!(published.committed(), 3);
        published.clear(&mut flags, READER_PARKED);
        assert_eq!(flags, 0);
        assert!(published.try_publish(3, 2, false, &mut 0, false));
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
        assert!(!published.try_publish(0, 1, false, &mut 0, false), "FLUSH_SLOW is still set in the word");
        published.clear(&mut flags, FLUSH_SLOW);
        assert_eq!(flags, 0);
        assert!(published.try_publish(0, 1, false, &mut 0, false));
        published.clear(&mut flags, READER_PARKED); // not set: nothing changes
        assert_eq!(flags, 0);
        assert!(published.try_publish(1, 1, false, &mut 0, false));
    }

    #[test]
    fn mirror_sets_and_clears_as_asked() {
        let published = Published::new();
        let mut flags = 0;
        published.mirror(&mut flags, FLUSH_SLOW, true);
        assert_eq!(flags, FLUSH_SLOW);
        assert!(!published.try_publish(0, 1, false, &mut 0, false));
        published.mirror(&mut flags, FLUSH_SLOW, true);
        assert_eq!(flags, FLUSH_SLOW, "already set: unchanged");
        published.mirror(&mut flags, FLUSH_SLOW, false);
        assert_eq!(flags, 0);
        assert!(published.try_publish(0, 1, false, &mut 0, false));
    }

    #[test]
    fn a_locked_publish_adds_whatever_the_flags() {
        let published = Published::new();
        let mut flags = 0;
        published.set(&mut flags, READER_PARKED);
        assert_eq!(published.publish_locked(4, false), 4);
        assert_eq!(published.committed(), 4);
        published.clear(&mut flags, READER_PARKED);
        assert!(published.try_publish(4, 1, false, &mut 0, false), "the flag bits were left intact");
        assert_eq!(published.committed(), 5);
    }

    #[test]
    fn a_snapshot_reads_the_end_and_the_flags_and_changes_nothing() {
        let published = Published::new();
        let mut flags = 0;
        assert!(published.try_publish(0, 6, false, &mut 0, false));
        assert_eq!(published.snapshot(false), (6, 0));
        published.set(&mut flags, READ_SLOW);
        published.set(&mut flags, READER_PARKED);
        assert_eq!(published.snapshot(false), (6, READ_SLOW | READER_PARKED));
        published.clear(&mut flags, READER_PARKED);
        assert_eq!(published.snapshot(true), (6, READ_SLOW), "relaxed or not, the same value");
        let mut read_slow = 0;
        assert!(
            published.try_publish(6, 1, false, &mut read_slow, false),
            "READ_SLOW does not stop the fast flush"
        );
        assert_eq!(read_slow, READ_SLOW, "the writer learned the bit");
        assert!(published.try_publish(7, 1, false, &mut read_slow, false));
        assert_eq!(published.snapshot(false), (8, READ_SLOW), "the flag was carried over");
    }

    #[test]
    fn a_publish_that_parks_hands_the_head_to_exactly_one_claim() {
        let published = Published::new();
        let mut carried = 0;
        assert!(published.try_publish(0, 4, true, &mut carried, false));
        assert_eq!(carried, HEAD_PARKED, "the writer knows its park is in the word");
        assert_eq!(published.snapshot(false), (4, HEAD_PARKED));
        assert_eq!(published.claim_head(), Some(4), "the reader's claim reads the end with the flag");
        assert_eq!(published.claim_head(), None, "one claim only");
        assert!(!published.take_back_head(&mut carried), "the writer lost the head");
        assert_eq!(carried, 0);
        // The writer wins this time: the reader's claim finds nothing.
        assert!(published.try_publish(4, 1, true, &mut carried, false));
        assert!(published.take_back_head(&mut carried));
        assert_eq!(published.claim_head(), None);
        assert_eq!(published.snapshot(false), (5, 0));
    }

    #[test]
    fn a_parked_flag_the_writer_did_not_expect_is_learned_and_carried() {
        let published = Published::new();
        let mut carried = 0;
        assert!(published.try_publish(0, 1, true, &mut carried, false));
        // A flush with nothing new while the head is still parked carries the flag...
        let mut stale = 0;
        assert!(published.try_publish(1, 0, false, &mut stale, false));
        assert_eq!(stale, HEAD_PARKED);
        assert_eq!(published.snapshot(false), (1, HEAD_PARKED));
        // ...and after a claim the next publish learns that it is gone.
        assert_eq!(published.claim_head(), Some(1));
        assert!(published.try_publish(1, 2, false, &mut stale, false));
        assert_eq!(stale, 0);
        assert_eq!(published.snapshot(false), (3, 0));
    }

    #[test]
    fn a_locked_publish_parks_with_its_bytes() {
        let published = Published::new();
        assert_eq!(published.publish_locked(3, true), 3);
        assert_eq!(published.snapshot(false), (3, HEAD_PARKED));
        let mut carried = HEAD_PARKED;
        assert!(published.take_back_head(&mut carried));
        assert_eq!(published.publish_locked(2, false), 5);
        assert_eq!(published.claim_head(), None, "not parked");
    }

    #[test]
    fn a_lock_holder_loads_the_offsets_only_after_an_advance_it_has_not_seen() {
        let published = Published::new();
        let mut seen = 0;
        assert_eq!(published.begin_locked(false, &mut seen), (0, None), "no advance yet");
        published.end_locked();
        assert_eq!(published.begin_advance(1, false), (0, 0), "no lock holder: the advance goes on");
        published.store_offsets(3, 4);
        published.end_advance(2);
        assert_eq!(published.begin_locked(false, &mut seen), (0, Some((3, 4))));
        assert_eq!(seen, 2);
        assert_eq!(published.begin_advance(3, false), (0, LOCKED), "inside a locked section: LOCKED");
        published.end_advance(4);
        published.end_locked();
        assert_eq!(published.begin_advance(5, false), (0, 0), "LOCKED cleared, nothing else");
        published.end_advance(6);
        assert_eq!(published.begin_locked(false, &mut seen).1, Some((3, 4)), "a newer count: loaded again");
        published.end_locked();
        assert_eq!(published.begin_locked(false, &mut seen).1, None, "the same count: the state is current");
        published.end_locked();
    }

    #[test]
    fn a_lock_holder_that_skips_the_wait_reads_an_advance_in_progress() {
        let published = Published::new();
        let mut seen = 0;
        published.begin_advance(1, false);
        published.store_offsets(1, 2);
        // The `AdvanceSkipsHandshake` planted bug: with the wait, this would spin.
        assert_eq!(published.begin_locked(true, &mut seen), (0, Some((1, 2))));
        assert_eq!(seen, 1, "the odd count is remembered, so the end's count loads again");
        published.end_advance(2);
        published.end_locked();
        assert_eq!(published.begin_locked(false, &mut seen).1, Some((1, 2)));
    }

    #[test]
    fn released_reads_what_was_stored_and_reset_clears_both() {
        let published = Published::new();
        published.set_released(7);
        assert_eq!(published.released(), 7);
        published.publish_locked(9, false);
        published.reset();
        assert_eq!((published.committed(), published.released()), (0, 0));
    }
}
