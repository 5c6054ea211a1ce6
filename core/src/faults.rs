//! Planted bugs: runtime-selectable faults that prove each invariant's checker can fail.
//!
//! [`Fault`] is always defined so tools can name faults, but a pipe can only be built
//! with one when the `faults` feature is on ([`FaultSet::with`]). With the feature off,
//! [`FaultSet`] is zero-sized and [`FaultSet::contains`] is the constant `false`, so
//! every fault branch compiles away.

use std::fmt;
use std::str::FromStr;

use crate::InvariantId;

/// A planted bug, each matching the invariant whose checker must catch it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Fault {
    /// The segment pool hands out the most recently returned segment (a LIFO stack).
    /// Breaks **fifo-pool**.
    LifoPool,
    /// A consumed segment is returned to the pool twice. Breaks **no-double-return**.
    DoubleReturn,
    /// The pool's cap check counts the pool once per batch of returns, so it undercounts
    /// and the pool grows past its maximum. Breaks **bounded-pool**.
    PoolOverflow,
    /// Completing the writer forgets to wake a pending read. Breaks **no-lost-wakeup**.
    LostWakeOnComplete,
    /// The writing head is returned to the pool while the writer still holds it.
    /// Breaks **no-double-return**.
    ReturnWriteHead,
    /// The reader's view extends one byte past the committed end, into memory the
    /// writer may be filling. Breaks **no-data-race** and **byte-exact**.
    ReadPastCommit,
    /// Consuming below the resume threshold releases a paused flush but forgets to
    /// wake it. Breaks **no-lost-wakeup**.
    NoResumeOnConsume,
    /// A flush crossing the pause threshold does not pause the writer.
    /// Breaks **backpressure**.
    NoPauseOnFlush,
    /// Completing both sides forgets to release the last segment's buffer.
    /// Breaks **release-once**.
    LeakOnComplete,
    /// An async-mutex entrant on the contended path that finds no waiter queued takes
    /// the lock, as if an empty queue meant a free lock, while the holder is still
    /// inside. Breaks **mutual-exclusion**.
    MutexDoubleAdmit,
    /// An async-mutex exit that finds no waiter queued yet forgets to leave the permit
    /// for the entrant that has counted itself in the gate but not queued itself: that
    /// entrant then waits forever. Breaks **no-lost-wakeup**.
    MutexSkipWakeOnExit,
    /// The message channel's close discards the data messages it drains while waiting
    /// for the close frame, instead of handing them back. Breaks **byte-exact**.
    CloseDropsFrame,
    /// The completion source's `set_result` skips the version check, so a late
    /// completion of an earlier operation completes the current one. Breaks **token-reuse**.
    StaleTokenAccepted,
    /// The completion source's `set_result` takes the waiter's waker in one critical
    /// section and publishes the result in another, so a waiter registering in between
    /// is never woken. Breaks **no-lost-wakeup**.
    LostCompletionWake,
    /// A partitioned-pool renter stealing from another partition takes that partition's
    /// whole list out under the lock, pops from it outside the lock and puts the rest
    /// back under a second lock, overwriting a buffer the owner returned in between: that
    /// return goes missing. Breaks **balanced-pool**.
    PartitionLeak,
    /// Back-pressure counts committed − *consumed* bytes (pipecheck's accounting before
    /// it followed .NET), so a reader that examines a partial frame without consuming it
    /// never releases a paused writer. Breaks **backpressure**.
    BackpressureByConsumed,
    /// A canceled read is not tentative: the next read refuses with `AdvanceRequired`
    /// until the canceled buffer is released with `advance_to` (pipecheck's behaviour
    /// before it followed .NET). Breaks **tentative-cancel**.
    CanceledReadNeedsAdvance,
    /// After the reader completed, the writer sets aside every segment it moves off
    /// (discarded, outgrown or reused) instead of giving its buffer back, holding them
    /// all until it completes too: writes nobody will read pile up in memory, though
    /// every result is the same. Breaks **bounded-after-reader-complete**.
    WritesPileUpAfterReaderCompleted,
    /// The failure a side completed with reaches the other side rebuilt from its
    /// message, without its cause (pipecheck's failures before they carried one): the
    /// message matches, the error type is gone. Breaks **failure-cause**.
    FailureLosesCause,
    /// An async-mutex `Lock` future dropped after an exit handed it the lock (between
    /// the hand-over and its next poll) takes the hand-over for a plain dequeue and does
    /// not pass the lock on: the next waiter sleeps forever. Breaks **no-lost-wakeup**.
    MutexDropLosesHandoff,
    /// The completion source's `reset` drops the registered waker of the operation it
    /// ends without waking it (pipecheck's behaviour before issue 13): a task awaiting
    /// the old operation never learns that its token went stale. Breaks **no-lost-wakeup**.
    ResetStrandsWaiter,
    /// A reader that consumes everything leaves the idle writing head rented instead of
    /// taking it back (pipecheck's behaviour before it followed .NET: the last segment
    /// stayed until the writer completed). Breaks **segments-in-use**.
    KeepsIdleWriteHead,
    /// `advance_to` leaves the last fully consumed segment linked (when another follows
    /// it) until a later `advance_to`: a segment kept one step too long, though every
    /// byte read is right. Breaks **segments-in-use**.
    KeepsConsumedSegment,
    /// A pending `read_at_least(n)` leaves a paused writer paused, and flushes go on
    /// pausing while it waits (.NET un-pauses the writer): with `n` above the pause
    /// threshold the reader waits for bytes the paused writer cannot send. Breaks
    /// **backpressure** (a deadlock otherwise).
    ReadAtLeastKeepsWriterPaused,
    /// `Reader::buffered_len` reports committed − *consumed* bytes, counting bytes the
    /// reader has examined but not consumed. Breaks **buffered-length**.
    LengthCountsConsumed,
    /// A flush commits bytes but forgets to wake the pending read: only a later writer
    /// completion (if any) would release it. Breaks **no-lost-wakeup**.
    FlushForgetsWake,
    /// A pending read or flush polled again with a different waker (its task moved)
    /// keeps the waker of the first poll, so the pipe wakes the old task and the new one
    /// waits forever. Breaks **no-lost-wakeup**.
    KeepsStaleWaker,
    /// Completing the writer publishes the segments but not the bytes advanced since
    /// the last flush: the reader sees completion without them. Breaks **byte-exact**.
    CompleteDropsUnflushed,
    /// A flush after the reader completed still pauses when the bytes it drops would
    /// have crossed the pause threshold, and waits instead of reporting completion:
    /// nothing will ever release it. Breaks **backpressure**.
    PausesAfterReaderCompleted,
    /// A read that finds bytes ready clears the cancel flag without reporting it: the
    /// cancel is lost. Breaks **cancel-observed**.
    ReadLosesCancel,
    /// `reset_pipe` puts the committed and consumed offsets back to 0 but leaves the
    /// examined offset where the ending run left it: the next run's back-pressure (and
    /// `buffered_len`) counts committed − a stale examined offset, under-counting what
    /// is buffered (and a read waits until the new run commits past the old run's
    /// end). Breaks **backpressure**.
    ResetKeepsExamined,
    /// The async mutex's `try_lock` fails on a free mutex once any holder has ever
    /// released it: every holder is still alone (mutual exclusion holds) and nobody
    /// waits, but no sequential mutex refuses a free lock. Breaks **linearizable**.
    TryLockFailsAfterRelease,
    /// A flush that is not paused clears the cancel flag without reporting it: the
    /// cancel is lost (the flush side of `ReadLosesCancel`). Breaks **cancel-observed**.
    FlushLosesCancel,
    /// A read about to wait decides from the committed end it loaded when it took the
    /// lock, and parks without re-checking the value its park (`fetch_or` of the parked
    /// flag) returned: a fast flush that published in between saw no parked reader and
    /// woke nobody. Check-then-park. Breaks **no-lost-wakeup**.
    ParksWithoutRecheck,
    /// The fast flush publishes the committed end with a relaxed compare-and-swap: the
    /// reader that acquires the new end is not ordered after the writer's bytes.
    /// Breaks **no-data-race** (loom's causality check on the segment bytes; shuttle
    /// runs sequentially consistent and cannot see it).
    RelaxedPublish,
    /// `advance_to` decides whether to release a paused flush from the committed end
    /// of its own read (stale: the writer may have flushed and paused since), so it
    /// resumes the writer with the pause threshold still crossed. Breaks **backpressure**.
    ResumesOnStaleCount,
    /// The message channel's `close`, finding the receive lock held, takes it that the
    /// receive in flight will read the close frame and returns `Ok` with nothing drained
    /// at once, without waiting for the close frame. Every message read still reaches
    /// exactly one caller (**byte-exact** holds) and nothing waits; only the history shows
    /// a close that returned before the sender sent its close frame, or with a message
    /// still queued. Breaks **linearizable**.
    CloseReturnsWhileReceiving,
    /// A read that finds unexamined bytes under the lock returns them without loading
    /// the published committed end (sparing the atomic read-modify-write), so it misses
    /// bytes a fast flush published — and returned from — before the read began, when
    /// another lock holder (a cancel, the reader's own `advance_to`) last refreshed the
    /// end. Every byte still arrives once and in order, at a later read (**byte-exact**
    /// holds; counts lagging a `Published` are allowed), and nothing waits: only the
    /// history shows a read that began after a flush returned and missed its bytes.
    /// Breaks **linearizable**.
    ReadSkipsPublishedEnd,
    /// The read side's lock-free flag leaves out a pending read cancel (the classic
    /// mistake of a fast path that checks only for a parked reader), so a read that
    /// starts after `cancel_pending_read` takes the bytes without the lock and reports
    /// no cancel. Breaks **cancel-observed**.
    FastReadIgnoresCancel,
    /// The lock-free read takes the committed end with a relaxed read-modify-write: the
    /// reader's access to the bytes is not ordered after the writer's. Breaks
    /// **no-data-race** (loom's causality check; shuttle cannot see it).
    RelaxedFastRead,
    /// A flush under the lock sets its `LOCKED` flag but does not wait for a lock-free
    /// `advance_to` already in progress (the classic half-handshake): it reads the
    /// reader's offsets while the advance is storing them, and decides its pause on an
    /// examined offset the log already shows replaced, or leaves the state with the
    /// older one. Breaks **backpressure**.
    AdvanceSkipsHandshake,
}

impl Fault {
    /// Every fault, in declaration order.
    pub const ALL: &'static [Fault] = &[
        Fault::LifoPool,
        Fault::DoubleReturn,
        Fault::PoolOverflow,
        Fault::LostWakeOnComplete,
        Fault::ReturnWriteHead,
        Fault::ReadPastCommit,
        Fault::NoResumeOnConsume,
        Fault::NoPauseOnFlush,
        Fault::LeakOnComplete,
        Fault::MutexDoubleAdmit,
        Fault::MutexSkipWakeOnExit,
        Fault::CloseDropsFrame,
        Fault::StaleTokenAccepted,
        Fault::LostCompletionWake,
        Fault::PartitionLeak,
        Fault::BackpressureByConsumed,
        Fault::CanceledReadNeedsAdvance,
        Fault::WritesPileUpAfterReaderCompleted,
        Fault::FailureLosesCause,
        Fault::MutexDropLosesHandoff,
        Fault::ResetStrandsWaiter,
        Fault::KeepsIdleWriteHead,
        Fault::KeepsConsumedSegment,
        Fault::ReadAtLeastKeepsWriterPaused,
        Fault::LengthCountsConsumed,
        Fault::FlushForgetsWake,
        Fault::KeepsStaleWaker,
        Fault::CompleteDropsUnflushed,
        Fault::PausesAfterReaderCompleted,
        Fault::ReadLosesCancel,
        Fault::ResetKeepsExamined,
        Fault::TryLockFailsAfterRelease,
        Fault::FlushLosesCancel,
        Fault::ParksWithoutRecheck,
        Fault::RelaxedPublish,
        Fault::ResumesOnStaleCount,
        Fault::CloseReturnsWhileReceiving,
        Fault::ReadSkipsPublishedEnd,
        Fault::FastReadIgnoresCancel,
        Fault::RelaxedFastRead,
        Fault::AdvanceSkipsHandshake,
    ];

    /// The fault's stable name, as used in trace files and on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            Fault::LifoPool => "LifoPool",
            Fault::DoubleReturn => "DoubleReturn",
            Fault::PoolOverflow => "PoolOverflow",
            Fault::LostWakeOnComplete => "LostWakeOnComplete",
            Fault::ReturnWriteHead => "ReturnWriteHead",
            Fault::ReadPastCommit => "ReadPastCommit",
            Fault::NoResumeOnConsume => "NoResumeOnConsume",
            Fault::NoPauseOnFlush => "NoPauseOnFlush",
            Fault::LeakOnComplete => "LeakOnComplete",
            Fault::MutexDoubleAdmit => "MutexDoubleAdmit",
            Fault::MutexSkipWakeOnExit => "MutexSkipWakeOnExit",
            Fault::CloseDropsFrame => "CloseDropsFrame",
            Fault::StaleTokenAccepted => "StaleTokenAccepted",
            Fault::LostCompletionWake => "LostCompletionWake",
            Fault::PartitionLeak => "PartitionLeak",
            Fault::BackpressureByConsumed => "BackpressureByConsumed",
            Fault::CanceledReadNeedsAdvance => "CanceledReadNeedsAdvance",
            Fault::WritesPileUpAfterReaderCompleted => "WritesPileUpAfterReaderCompleted",
            Fault::FailureLosesCause => "FailureLosesCause",
            Fault::MutexDropLosesHandoff => "MutexDropLosesHandoff",
            Fault::ResetStrandsWaiter => "ResetStrandsWaiter",
            Fault::KeepsIdleWriteHead => "KeepsIdleWriteHead",
            Fault::KeepsConsumedSegment => "KeepsConsumedSegment",
            Fault::ReadAtLeastKeepsWriterPaused => "ReadAtLeastKeepsWriterPaused",
            Fault::LengthCountsConsumed => "LengthCountsConsumed",
            Fault::FlushForgetsWake => "FlushForgetsWake",
            Fault::KeepsStaleWaker => "KeepsStaleWaker",
            Fault::CompleteDropsUnflushed => "CompleteDropsUnflushed",
            Fault::PausesAfterReaderCompleted => "PausesAfterReaderCompleted",
            Fault::ReadLosesCancel => "ReadLosesCancel",
            Fault::ResetKeepsExamined => "ResetKeepsExamined",
            Fault::TryLockFailsAfterRelease => "TryLockFailsAfterRelease",
            Fault::FlushLosesCancel => "FlushLosesCancel",
            Fault::ParksWithoutRecheck => "ParksWithoutRecheck",
            Fault::RelaxedPublish => "RelaxedPublish",
            Fault::ResumesOnStaleCount => "ResumesOnStaleCount",
            Fault::CloseReturnsWhileReceiving => "CloseReturnsWhileReceiving",
            Fault::ReadSkipsPublishedEnd => "ReadSkipsPublishedEnd",
            Fault::FastReadIgnoresCancel => "FastReadIgnoresCancel",
            Fault::RelaxedFastRead => "RelaxedFastRead",
            Fault::AdvanceSkipsHandshake => "AdvanceSkipsHandshake",
        }
    }

    /// The invariant this fault is planted to break: a check that catches it counts
    /// only when it reports this invariant.
    pub const fn breaks(self) -> InvariantId {
        match self {
            Fault::LifoPool => InvariantId::FIFO_POOL,
            Fault::DoubleReturn | Fault::ReturnWriteHead => InvariantId::NO_DOUBLE_RETURN,
            Fault::PoolOverflow => InvariantId::BOUNDED_POOL,
            Fault::LostWakeOnComplete
            | Fault::NoResumeOnConsume
            | Fault::MutexSkipWakeOnExit
            | Fault::LostCompletionWake => InvariantId::NO_LOST_WAKEUP,
            Fault::ReadPastCommit => InvariantId::NO_DATA_RACE,
            Fault::NoPauseOnFlush | Fault::BackpressureByConsumed => InvariantId::BACKPRESSURE,
            Fault::LeakOnComplete => InvariantId::RELEASE_ONCE,
            Fault::MutexDoubleAdmit => InvariantId::MUTUAL_EXCLUSION,
            Fault::CloseDropsFrame => InvariantId::BYTE_EXACT,
            Fault::StaleTokenAccepted => InvariantId::TOKEN_REUSE,
            Fault::PartitionLeak => InvariantId::BALANCED_POOL,
            Fault::CanceledReadNeedsAdvance => InvariantId::TENTATIVE_CANCEL,
            Fault::WritesPileUpAfterReaderCompleted => InvariantId::BOUNDED_AFTER_READER_COMPLETE,
            Fault::FailureLosesCause => InvariantId::FAILURE_CAUSE,
            Fault::MutexDropLosesHandoff | Fault::ResetStrandsWaiter => InvariantId::NO_LOST_WAKEUP,
            Fault::KeepsIdleWriteHead | Fault::KeepsConsumedSegment => InvariantId::SEGMENTS_IN_USE,
            Fault::ReadAtLeastKeepsWriterPaused => InvariantId::BACKPRESSURE,
            Fault::LengthCountsConsumed => InvariantId::BUFFERED_LENGTH,
            Fault::FlushForgetsWake | Fault::KeepsStaleWaker => InvariantId::NO_LOST_WAKEUP,
            Fault::CompleteDropsUnflushed => InvariantId::BYTE_EXACT,
            Fault::PausesAfterReaderCompleted => InvariantId::BACKPRESSURE,
            Fault::ReadLosesCancel => InvariantId::CANCEL_OBSERVED,
            Fault::ResetKeepsExamined => InvariantId::BACKPRESSURE,
            Fault::TryLockFailsAfterRelease
            | Fault::CloseReturnsWhileReceiving
            | Fault::ReadSkipsPublishedEnd => InvariantId::LINEARIZABLE,
            Fault::FlushLosesCancel | Fault::FastReadIgnoresCancel => InvariantId::CANCEL_OBSERVED,
            Fault::ParksWithoutRecheck => InvariantId::NO_LOST_WAKEUP,
            Fault::RelaxedPublish | Fault::RelaxedFastRead => InvariantId::NO_DATA_RACE,
            Fault::ResumesOnStaleCount | Fault::AdvanceSkipsHandshake => InvariantId::BACKPRESSURE,
        }
    }

    /// Whether only a weak memory model can catch this fault: it changes an atomic
    /// ordering and nothing else, and shuttle (like the proptest driver) runs
    /// sequentially consistent, so only loom's causality check sees it.
    pub const fn needs_weak_memory(self) -> bool {
        matches!(self, Fault::RelaxedPublish | Fault::RelaxedFastRead)
    }

    // Only `FaultSet`'s feature-gated code and the tests use it.
    #[cfg_attr(not(any(feature = "faults", test)), allow(dead_code))]
    const fn bit(self) -> u64 {
        1 << self as u64
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing an unknown fault name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownFault(pub String);

impl fmt::Display for UnknownFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<_> = Fault::ALL.iter().map(|f| f.name()).collect();
        write!(f, "unknown fault `{}` (known: {})", self.0, names.join(", "))
    }
}

impl std::error::Error for UnknownFault {}

impl FromStr for Fault {
    type Err = UnknownFault;

    fn from_str(s: &str) -> Result<Fault, UnknownFault> {
        Fault::ALL
            .iter()
            .copied()
            .find(|f| f.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownFault(s.to_owned()))
    }
}

// A `FaultSet` is one bit per fault in a `u64`.
const _: () = assert!(Fault::ALL.len() <= 64, "FaultSet's bits are full: widen it to u128");

/// The set of faults switched on for one pipe. Empty (and zero-sized) without the
/// `faults` feature.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub struct FaultSet {
    #[cfg(feature = "faults")]
    bits: u64,
}

impl FaultSet {
    /// The empty set: the pipe behaves correctly.
    pub const NONE: FaultSet = FaultSet {
        #[cfg(feature = "faults")]
        bits: 0,
    };

    /// Whether `fault` is switched on. Always `false` without the `faults` feature.
    #[inline(always)]
    pub fn contains(self, fault: Fault) -> bool {
        #[cfg(feature = "faults")]
        {
            self.bits & fault.bit() != 0
        }
        #[cfg(not(feature = "faults"))]
        {
            let _ = fault;
            false
        }
    }

    /// This set plus `fault` (feature `faults` only).
    #[cfg(feature = "faults")]
    pub fn with(self, fault: Fault) -> FaultSet {
        FaultSet { bits: self.bits | fault.bit() }
    }

    /// Whether no fault is switched on.
    pub fn is_empty(self) -> bool {
        !Fault::ALL.iter().any(|&f| self.contains(f))
    }
}

impl fmt::Debug for FaultSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(Fault::ALL.iter().filter(|&&x| self.contains(x))).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for &fault in Fault::ALL {
            assert_eq!(fault.name().parse::<Fault>(), Ok(fault));
        }
        assert!("NoSuchFault".parse::<Fault>().is_err());
    }

    #[test]
    fn bits_are_distinct() {
        let mut seen = 0u64;
        for &fault in Fault::ALL {
            assert_eq!(seen & fault.bit(), 0);
            seen |= fault.bit();
        }
    }

    #[cfg(not(feature = "faults"))]
    #[test]
    fn without_the_feature_no_fault_is_on() {
        assert_eq!(std::mem::size_of::<FaultSet>(), 0);
        assert!(FaultSet::NONE.is_empty());
    }
}
