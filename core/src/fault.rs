//! The planted bugs of the pipe and of the seed primitives beside it: each proves that
//! the checker of the invariant it breaks can fail.
//!
//! They are declared here once, with [`planted_faults!`](pipecheck_sync::planted_faults), the
//! same macro a user's crate declares its own with: each is a `static`
//! [`PlantedFault`](pipecheck_sync::PlantedFault) named as its stable name, whose doc says what
//! goes wrong and which invariant it breaks, flagged `weak_memory` when only loom can
//! see it, `real_time` when only a real-time history check can, and `in_sequences` when the pipe's operation sequences (the proptest engine)
//! reach it, with the scenarios built to catch it (`caught_in`). The code under test asks [`PlantedFault::is_active`](pipecheck_sync::PlantedFault::is_active)
//! where the bug sits; without the `faults` feature that is the constant `false` and
//! every planted branch compiles away. [`ALL`] lists them.

use pipecheck_sync::InvariantId;

pipecheck_sync::planted_faults! {
    /// The segment pool hands out the most recently returned segment (a LIFO stack).
    /// Breaks **fifo-pool**.
    LifoPool breaks crate::invariant::FIFO_POOL, in_sequences, caught_in(&["large-stream", "large-pool-churn", "return-races-take"]);
    /// A consumed segment is returned to the pool twice. Breaks **no-double-return**.
    DoubleReturn breaks crate::invariant::NO_DOUBLE_RETURN, in_sequences, caught_in(&["large-reader-closes", "large-stream", "large-pool-churn", "return-races-take"]);
    /// The pool's cap check counts the pool once per batch of returns, so it undercounts
    /// and the pool grows past its maximum. Breaks **bounded-pool**.
    PoolOverflow breaks crate::invariant::BOUNDED_POOL, in_sequences, caught_in(&["large-pool-churn", "pool-at-maximum"]);
    /// Completing the writer forgets to wake a pending read. Breaks **no-lost-wakeup**.
    LostWakeOnComplete breaks InvariantId::NO_LOST_WAKEUP, in_sequences, caught_in(&["writer-complete-races-read", "cancel-races-read", "cancel-from-third-thread-races-read", "flush-races-read", "large-cancel", "large-stream"]);
    /// The writing head is returned to the pool while the writer still holds it.
    /// Breaks **no-double-return**.
    ReturnWriteHead breaks crate::invariant::NO_DOUBLE_RETURN, in_sequences, caught_in(&["large-stream", "return-races-take", "idle-head-races-next-write"]);
    /// The reader's view extends one byte past the committed end, into memory the
    /// writer may be filling. Breaks **no-data-race**, and **monotonic-offsets** (a consume
    /// past the commit), which catches it alone in `properties/tests/properties/smoke.rs`.
    ReadPastCommit breaks InvariantId::NO_DATA_RACE, also_breaks(crate::invariant::MONOTONIC_OFFSETS), in_sequences, caught_in(&["bytes-across-segments", "writer-fills-tail-while-reader-reads", "large-cancel", "large-stream"]);
    /// Consuming below the resume threshold releases a paused flush but forgets to
    /// wake it. Breaks **no-lost-wakeup**.
    NoResumeOnConsume breaks InvariantId::NO_LOST_WAKEUP, in_sequences, caught_in(&["consume-races-paused-flush", "large-frames", "large-cancel", "large-stream", "large-read-at-least"]);
    /// A flush crossing the pause threshold does not pause the writer.
    /// Breaks **backpressure**.
    NoPauseOnFlush breaks crate::invariant::BACKPRESSURE, in_sequences, caught_in(&["thresholds-crossed-concurrently", "reader-complete-races-paused-flush", "large-frames", "large-reader-closes", "large-stream", "large-pool-churn", "large-read-at-least"]);
    /// Completing both sides forgets to release the last segment's buffer.
    /// Breaks **release-once**.
    LeakOnComplete breaks crate::invariant::RELEASE_ONCE, in_sequences, caught_in(&["both-complete-race-last-read", "large-reader-closes", "large-stream"]);
    /// An async-mutex entrant on the contended path that finds no waiter queued takes
    /// the lock, as if an empty queue meant a free lock, while the holder is still
    /// inside. Breaks **mutual-exclusion**.
    MutexDoubleAdmit breaks crate::invariant::MUTUAL_EXCLUSION, caught_in(&["mutex-mutual-exclusion"]);
    /// An async-mutex exit that finds no waiter queued yet forgets to leave the permit
    /// for the entrant that has counted itself in the gate but not queued itself: that
    /// entrant then waits forever. Breaks **no-lost-wakeup**.
    MutexSkipWakeOnExit breaks InvariantId::NO_LOST_WAKEUP, caught_in(&["mutex-exit-races-enter"]);
    /// The message channel's close discards the data messages it drains while waiting
    /// for the close frame, instead of handing them back. Breaks **byte-exact**.
    CloseDropsFrame breaks crate::invariant::BYTE_EXACT, caught_in(&["channel-close-races-receive", "channel-receive-dropped-while-close-drains"]);
    /// The completion source's `set_result` skips the version check, so a late
    /// completion of an earlier operation completes the current one. Breaks **token-reuse**.
    StaleTokenAccepted breaks crate::invariant::TOKEN_REUSE, caught_in(&["completion-stale-token", "completion-abandoned-then-reset"]);
    /// The completion source's `set_result` takes the waiter's waker in one critical
    /// section and publishes the result in another, so a waiter registering in between
    /// is never woken. Breaks **no-lost-wakeup**.
    LostCompletionWake breaks InvariantId::NO_LOST_WAKEUP, caught_in(&["completion-wakes-waiter"]);
    /// A partitioned-pool renter stealing from another partition takes that partition's
    /// whole list out under the lock, pops from it outside the lock and puts the rest
    /// back under a second lock, overwriting a buffer the owner returned in between: that
    /// return goes missing. Breaks **balanced-pool**.
    PartitionLeak breaks crate::invariant::BALANCED_POOL, caught_in(&["pool-rents-and-returns-balance"]);
    /// Back-pressure counts committed − *consumed* bytes (pipecheck's accounting before
    /// it followed .NET), so a reader that examines a partial frame without consuming it
    /// never releases a paused writer. Breaks **backpressure**.
    BackpressureByConsumed breaks crate::invariant::BACKPRESSURE, in_sequences, caught_in(&["frame-crosses-pause", "large-frames"]);
    /// A canceled read is not tentative: the next read refuses with `AdvanceRequired`
    /// until the canceled buffer is released with `advance_to` (pipecheck's behaviour
    /// before it followed .NET). Breaks **tentative-cancel**.
    CanceledReadNeedsAdvance breaks crate::invariant::TENTATIVE_CANCEL, in_sequences, caught_in(&["canceled-read-is-tentative"]);
    /// After the reader completed, the writer sets aside every segment it moves off
    /// (discarded, outgrown or reused) instead of giving its buffer back, holding them
    /// all until it completes too: writes nobody will read pile up in memory, though
    /// every result is the same. Breaks **bounded-after-reader-complete**.
    WritesPileUpAfterReaderCompleted breaks crate::invariant::BOUNDED_AFTER_READER_COMPLETE, in_sequences, caught_in(&["writes-after-reader-completes"]);
    /// The failure a side completed with reaches the other side rebuilt from its
    /// message, without its cause (pipecheck's failures before they carried one): the
    /// message matches, the error type is gone. Breaks **failure-cause**.
    FailureLosesCause breaks crate::invariant::FAILURE_CAUSE, in_sequences, caught_in(&["writer-failure-reaches-reader"]);
    /// An async-mutex `Lock` future dropped after an exit handed it the lock (between
    /// the hand-over and its next poll) takes the hand-over for a plain dequeue and does
    /// not pass the lock on: the next waiter sleeps forever. Breaks **no-lost-wakeup**.
    MutexDropLosesHandoff breaks InvariantId::NO_LOST_WAKEUP, caught_in(&["mutex-lock-dropped-at-handoff"]);
    /// The completion source's `reset` drops the registered waker of the operation it
    /// ends without waking it: a task awaiting
    /// the old operation never learns that its token went stale. Breaks **no-lost-wakeup**.
    ResetStrandsWaiter breaks InvariantId::NO_LOST_WAKEUP, caught_in(&["completion-reset-wakes-stale-waiter"]);
    /// A reader that consumes everything leaves the idle writing head rented instead of
    /// taking it back (pipecheck's behaviour before it followed .NET: the last segment
    /// stayed until the writer completed). Breaks **segments-in-use**.
    KeepsIdleWriteHead breaks crate::invariant::SEGMENTS_IN_USE, in_sequences, caught_in(&["idle-head-races-next-write", "idle-head-returned-while-writer-waits"]);
    /// An `advance_to` that claims the writer's idle head ends it at the committed end
    /// the reader compared (loaded with the lock), not at the end its claim read from
    /// the same word as the flag, though a fast flush may have resumed the head,
    /// published into it and parked it again in between: the head goes back to the
    /// pool with a byte unread. Breaks **byte-exact**.
    ReclaimTrustsLockedEnd breaks crate::invariant::BYTE_EXACT, caught_in(&["fast-flush-behind-reclaimed-head", "idle-head-races-next-write"]);
    /// An `advance_to` whose claim finds the head holding bytes not consumed yet
    /// (`HeadKept`) forgets the end its claim read: once the reader has consumed the
    /// head, it stays linked (the last segment, its end unknown) while the writer waits
    /// idle, until the writer links a new head or completes (pipecheck's behaviour
    /// until session 18). Breaks **segments-in-use**.
    ForgetsKeptHeadEnd breaks crate::invariant::SEGMENTS_IN_USE, caught_in(&["head-reparked-while-reader-reclaims"]);
    /// The reader's spin (`spin`: after resuming the paused writer, or batching while
    /// the writer streams) hands out the bytes up to the end its plain load saw, instead
    /// of going back to the lock-free read with its acquiring read-modify-write and its
    /// flags: a segment the writer linked since the reader took its view is not in the
    /// view, and a writer's completion or a cancel goes unreported. Breaks
    /// **byte-exact**. Under loom the pipe does not spin by default
    /// (`PipeOptions::DEFAULT_SPINS_BEFORE_PARK`, `DEFAULT_BATCHING_LOOKS`): loom reaches
    /// it only in `reader-batches-streaming-writer`, which turns the batching wait on.
    SpinTrustsHint breaks crate::invariant::BYTE_EXACT, caught_in(&["consume-races-paused-flush", "large-frames", "reader-batches-streaming-writer"]);
    /// `advance_to` leaves the last fully consumed segment linked (when another follows
    /// it) until a later `advance_to`: a segment kept one step too long, though every
    /// byte read is right. Breaks **segments-in-use**.
    KeepsConsumedSegment breaks crate::invariant::SEGMENTS_IN_USE, in_sequences, caught_in(&["consume-to-segment-boundary"]);
    /// A pending `read_at_least(n)` leaves a paused writer paused, and flushes go on
    /// pausing while it waits (.NET un-pauses the writer): with `n` above the pause
    /// threshold the reader waits for bytes the paused writer cannot send. Breaks
    /// **backpressure** (a deadlock otherwise).
    ReadAtLeastKeepsWriterPaused breaks crate::invariant::BACKPRESSURE, in_sequences, caught_in(&["read-at-least-above-pause", "large-read-at-least"]);
    /// `Reader::buffered_len` reports committed − *consumed* bytes, counting bytes the
    /// reader has examined but not consumed. Breaks **buffered-length**.
    LengthCountsConsumed breaks crate::invariant::BUFFERED_LENGTH, in_sequences, caught_in(&["length-while-flushing"]);
    /// A flush commits bytes but forgets to wake the pending read: only a later writer
    /// completion (if any) would release it. Breaks **no-lost-wakeup**.
    FlushForgetsWake breaks InvariantId::NO_LOST_WAKEUP, in_sequences, caught_in(&["flush-races-read", "flush-wake-is-the-only-wake"]);
    /// A pending read or flush polled again with a different waker (its task moved)
    /// keeps the waker of the first poll, so the pipe wakes the old task and the new one
    /// waits forever. Breaks **no-lost-wakeup**.
    KeepsStaleWaker breaks InvariantId::NO_LOST_WAKEUP, in_sequences, caught_in(&["read-repolled-from-another-task"]);
    /// Completing the writer publishes the segments but not the bytes advanced since
    /// the last flush: the reader sees completion without them. Breaks **byte-exact**.
    CompleteDropsUnflushed breaks crate::invariant::BYTE_EXACT, in_sequences, caught_in(&["complete-with-unflushed-races-read"]);
    /// A flush after the reader completed still pauses when the bytes it drops would
    /// have crossed the pause threshold, and waits instead of reporting completion:
    /// nothing will ever release it. Breaks **backpressure**.
    PausesAfterReaderCompleted breaks crate::invariant::BACKPRESSURE, in_sequences, caught_in(&["reader-complete-races-pausing-flush"]);
    /// A read that finds bytes ready clears the cancel flag without reporting it: the
    /// cancel is lost. Breaks **cancel-observed**.
    ReadLosesCancel breaks crate::invariant::CANCEL_OBSERVED, in_sequences, caught_in(&["cancel-from-third-thread-races-read"]);
    /// `reset_pipe` puts the committed and consumed offsets back to 0 but leaves the
    /// examined offset where the ending run left it: the next run's back-pressure (and
    /// `buffered_len`) counts committed − a stale examined offset, under-counting what
    /// is buffered (and a read waits until the new run commits past the old run's
    /// end). Breaks **backpressure**.
    ResetKeepsExamined breaks crate::invariant::BACKPRESSURE, caught_in(&["reset-then-reuse"]);
    /// The async mutex's `try_lock` fails on a free mutex once any holder has ever
    /// released it: every holder is still alone (mutual exclusion holds) and nobody
    /// waits, but no sequential mutex refuses a free lock. Breaks **linearizable**.
    TryLockFailsAfterRelease breaks InvariantId::LINEARIZABLE, caught_in(&["mutex-linearizable"]);
    /// A flush that is not paused clears the cancel flag without reporting it: the
    /// cancel is lost (the flush side of `ReadLosesCancel`). Breaks **cancel-observed**.
    FlushLosesCancel breaks crate::invariant::CANCEL_OBSERVED, in_sequences, caught_in(&["cancel-flush-races-flush"]);
    /// A read about to wait decides from the committed end it loaded when it took the
    /// lock, and parks without re-checking the value its park (`fetch_or` of the parked
    /// flag) returned: a fast flush that published in between saw no parked reader and
    /// woke nobody. Check-then-park. Breaks **no-lost-wakeup**.
    ParksWithoutRecheck breaks InvariantId::NO_LOST_WAKEUP, caught_in(&["read-parks-while-flush-publishes"]);
    /// The fast flush publishes the committed end with a relaxed compare-and-swap: the
    /// reader that acquires the new end is not ordered after the writer's bytes.
    /// Breaks **no-data-race** (loom's causality check on the segment bytes; shuttle
    /// runs sequentially consistent and cannot see it).
    RelaxedPublish breaks InvariantId::NO_DATA_RACE, weak_memory, caught_in(&["read-parks-while-flush-publishes"]);
    /// `advance_to` decides whether to release a paused flush from the committed end
    /// of its own read (stale: the writer may have flushed and paused since), so it
    /// resumes the writer with the pause threshold still crossed. Breaks **backpressure**.
    ResumesOnStaleCount breaks crate::invariant::BACKPRESSURE, caught_in(&["pause-crossed-while-consuming"]);
    /// The message channel's `close`, finding the receive lock held, takes it that the
    /// receive in flight will read the close frame and returns `Ok` with nothing drained
    /// at once, without waiting for the close frame. Every message read still reaches
    /// exactly one caller (**byte-exact** holds) and nothing waits; only the history shows
    /// a close that returned before the sender sent its close frame, or with a message
    /// still queued. Breaks **linearizable**.
    CloseReturnsWhileReceiving breaks InvariantId::LINEARIZABLE, real_time, caught_in(&["channel-linearizable"]);
    /// A read that finds unexamined bytes under the lock returns them without loading
    /// the published committed end (sparing the atomic read-modify-write), so it misses
    /// bytes a fast flush published — and returned from — before the read began, when
    /// another lock holder (a cancel, the reader's own `advance_to`) last refreshed the
    /// end. Every byte still arrives once and in order, at a later read (**byte-exact**
    /// holds; counts lagging a `Published` are allowed), and nothing waits: only the
    /// history shows a read that began after a flush returned and missed its bytes.
    /// Breaks **linearizable**.
    ReadSkipsPublishedEnd breaks InvariantId::LINEARIZABLE, real_time, caught_in(&["pipe-reread-linearizable"]);
    /// The read side's lock-free flag leaves out a pending read cancel (the classic
    /// mistake of a fast path that checks only for a parked reader), so a read that
    /// starts after `cancel_pending_read` takes the bytes without the lock and reports
    /// no cancel. Breaks **cancel-observed**.
    FastReadIgnoresCancel breaks crate::invariant::CANCEL_OBSERVED, in_sequences, caught_in(&["cancel-races-lock-free-read"]);
    /// The lock-free read checks only `READ_SLOW` and ignores `READER_PARKED`: a read
    /// polled while a waker of an earlier poll is registered (a `read_at_least` given
    /// up, a read polled while a flush publishes under the lock) takes the bytes
    /// without the lock, and the waker and the flag stay behind it. Breaks
    /// **fast-read-unparked**.
    FastReadIgnoresParked breaks InvariantId::new("fast-read-unparked"), caught_in(&["read-at-least-abandoned-then-peeked"]);
    /// The lock-free read takes the committed end with a relaxed read-modify-write: the
    /// reader's access to the bytes is not ordered after the writer's. Breaks
    /// **no-data-race** (loom's causality check; shuttle cannot see it).
    RelaxedFastRead breaks InvariantId::NO_DATA_RACE, weak_memory, caught_in(&["read-parks-while-flush-publishes"]);
    /// A flush under the lock sets its `LOCKED` flag but does not wait for a lock-free
    /// `advance_to` already in progress (the classic half-handshake): it reads the
    /// reader's offsets while the advance is storing them, and decides its pause on an
    /// examined offset the log already shows replaced, or leaves the state with the
    /// older one. Breaks **backpressure**.
    AdvanceSkipsHandshake breaks crate::invariant::BACKPRESSURE, caught_in(&["advance-races-locked-flush"]);
    /// The lock-free `advance_to` marks itself begun and loads the word without the
    /// sequentially consistent fence between (the classic Dekker mistake: a store and a
    /// later load of another location may be reordered, and release/acquire does not
    /// forbid it): the advance may load a word older than a lock holder's `LOCKED` while
    /// the lock holder misses its mark, and both go on. Here the writer completes under
    /// the lock while the advance, not seeing the completion's `READ_SLOW`, consumes to
    /// the end without the lock and keeps the segment the completion made returnable.
    /// Breaks **segments-in-use** (loom; shuttle runs sequentially consistent and cannot
    /// see it).
    AdvanceSkipsFence breaks crate::invariant::SEGMENTS_IN_USE, weak_memory, caught_in(&["advance-races-locked-flush"]);
    /// The async I/O adapters' `poll_write` (tokio `AsyncWrite`, futures-io
    /// `AsyncWrite`) answers a paused writer with `Ready(Ok(0))`, which the traits define
    /// as "accepts no more bytes", instead of `Pending` until the reader catches up.
    /// Breaks **backpressure**.
    WriteRefusesWhilePaused breaks crate::invariant::BACKPRESSURE, caught_in(&["adapter-write-waits-while-paused"]);
    /// The async I/O adapters' `poll_read` returns `Pending` with a waker the pipe keeps
    /// but nobody polls with: the caller's own waker is never registered, and the read
    /// is never woken. Breaks **no-lost-wakeup**.
    ReadForgetsWaker breaks InvariantId::NO_LOST_WAKEUP, caught_in(&["adapter-read-races-flush"]);
    /// `read_at_least(n)` counts the bytes it would return (committed − *consumed*)
    /// instead of the unexamined ones (committed − examined): after an `advance_to` that
    /// examined past what it consumed, it returns at once with bytes the reader has
    /// already looked at, not `n` new ones. Breaks **buffered-length**.
    ReadAtLeastCountsConsumed breaks crate::invariant::BUFFERED_LENGTH, caught_in(&["read-at-least-after-examining"]);
    /// A canceled read's tentative mark outlives the `advance_to` that released it and
    /// the reads after it: the next read that was *not* canceled is taken for tentative
    /// too, so a read after it is handed the same bytes again without `advance_to`
    /// instead of being refused. Breaks **tentative-cancel**.
    TentativeOutlivesAdvance breaks crate::invariant::TENTATIVE_CANCEL, caught_in(&["canceled-read-advanced-then-reread"]);
    /// `reset_pipe` starts the published committed end over at 0 but leaves the
    /// released offset the lock-free flush counts back-pressure from at the ending
    /// run's value: the next run's lock-free flushes count committed − a stale offset,
    /// never take the lock to pause, and cross the pause threshold unpaused.
    /// Breaks **backpressure**.
    ResetKeepsReleased breaks crate::invariant::BACKPRESSURE, caught_in(&["reset-then-fast-flushes-cross-pause"]);
    /// The writer's reset keeps its own copy of the reader's released offset (the copy
    /// its lock-free flush counts back-pressure from, re-read only when the pause looks
    /// near): a cached index used past the reset that starts the offsets over. The
    /// next run's flushes count committed − the ending run's offset, which saturates
    /// at 0, never read the reader's offset again, and cross the pause threshold
    /// unpaused. Breaks **backpressure**.
    ResetKeepsReleasedCopy breaks crate::invariant::BACKPRESSURE, caught_in(&["reset-then-fast-flushes-cross-pause"]);
    /// A size-class buffer pool files a returned buffer under the class of one byte more
    /// than its length (an inclusive bound taken for an exclusive one): every buffer goes
    /// one class up, and a rent of that class gets a buffer half the class's size.
    /// Breaks **pool-size-class**.
    ClassOfNextSize breaks InvariantId::new("pool-size-class"), caught_in(&["size-classes-returned-concurrently"]);
    /// `advance_to` takes the requested offsets before it checks them, so the check
    /// against the previous examined offset compares with the new one: an advance with
    /// examined going backwards is accepted (and one refused for examined before
    /// consumed has still moved the reader's offsets). Breaks **monotonic-offsets**.
    MisuseMovesExamined breaks crate::invariant::MONOTONIC_OFFSETS, caught_in(&["misused-advance-races-flush"]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_every_fault_breaks_an_invariant() {
        for (i, fault) in ALL.iter().enumerate() {
            assert!(ALL[..i].iter().all(|other| other.name() != fault.name()), "{fault} declared twice");
            assert!(!fault.breaks().name().is_empty());
            assert!(fault.summary().contains("Breaks"), "{fault}: the doc must name what it breaks");
        }
    }
}
