//! What a pipe reports about itself: events for invariant checkers.
//!
//! A [`PipeObserver`] installed with [`PipeOptions::observer`](crate::PipeOptions::observer)
//! receives a [`PipeEvent`] at each step that an invariant talks about. Events are
//! emitted at points chosen so that, with the observer serializing them (e.g. a
//! mutex-protected log), the log order is consistent with the real order:
//!
//! * events about the shared state (flush, read, consume, complete, cancel, head
//!   release) are emitted *while the pipe lock is held*, so they appear in lock order;
//! * a segment's return is reported *before* the pool publishes it, and a take is
//!   reported *before* the pool publishes the slot as free.
//!
//! Observers therefore must not call back into the pipe. Without an observer each
//! emission point costs one `None` check.

use std::fmt;

/// Identity of a segment object (the pooled shell), stable across its reuses.
pub type SegmentId = u64;

/// One observable step of a pipe.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PipeEvent {
    /// The writer created a new segment object with a buffer of `capacity` bytes.
    SegmentCreated {
        /// The new segment.
        segment: SegmentId,
        /// Bytes in its buffer.
        capacity: usize,
    },
    /// The writer took a pooled segment object, to give it a new buffer.
    SegmentTaken {
        /// The reused segment.
        segment: SegmentId,
    },
    /// The writer stopped writing into its head segment (it moved on or completed).
    HeadReleased {
        /// The former writing head.
        segment: SegmentId,
    },
    /// The reader returned a consumed segment object to the pool.
    SegmentReturned {
        /// The returned segment.
        segment: SegmentId,
    },
    /// The reader dropped a consumed segment object because the pool looked full.
    SegmentDiscarded {
        /// The discarded segment.
        segment: SegmentId,
    },
    /// A flush committed bytes; `paused` tells whether the writer must now wait.
    Flushed {
        /// Stream offset of the end of committed data.
        committed: u64,
        /// Committed bytes the reader has not examined (what back-pressure counts).
        unconsumed: u64,
        /// Whether the flush crossed the pause threshold.
        paused: bool,
    },
    /// A paused flush was released (consumed below the resume threshold, reader
    /// completed, or canceled).
    FlushResumed {
        /// Committed bytes not yet examined at that moment.
        unconsumed: u64,
    },
    /// The reader consumed and examined up to these stream offsets.
    Consumed {
        /// Stream offset consumed up to.
        consumed: u64,
        /// Stream offset examined up to.
        examined: u64,
        /// Committed bytes still unexamined (what back-pressure counts).
        unconsumed: u64,
    },
    /// The writer completed (committing any unflushed bytes).
    WriterCompleted {
        /// Whether it completed with an error.
        failed: bool,
        /// Stream offset of the end of committed data, final.
        committed: u64,
    },
    /// The reader completed.
    ReaderCompleted {
        /// Whether it completed with an error.
        failed: bool,
    },
    /// A read completed and handed out bytes `[start, end)`. Under the pipe lock, or
    /// right after a [`FastReadTried`](PipeEvent::FastReadTried) for a read that took
    /// published bytes without the lock.
    ReadReturned {
        /// First stream offset of the buffer.
        start: u64,
        /// End stream offset of the buffer.
        end: u64,
        /// Whether the writer had completed.
        completed: bool,
        /// Whether the read observed a cancel.
        canceled: bool,
    },
    /// `cancel_pending_read` was called.
    ReadCanceled,
    /// `cancel_pending_flush` was called.
    FlushCanceled,
    /// An end found it must wait and registered its waker: a read with nothing to
    /// read, or a paused flush.
    WakerRegistered {
        /// The end that waits.
        end: PipeEnd,
    },
    /// A read parked (after its [`WakerRegistered`](PipeEvent::WakerRegistered)): it
    /// waits for the committed end to reach `awaits_end`, having re-checked the end the
    /// park's read-modify-write returned. Emitted under the pipe lock. A flush that
    /// published that end without the lock before the park (its
    /// [`FlushReturned`](PipeEvent::FlushReturned) after [`Published`](PipeEvent::Published),
    /// in either log order) is a wake nobody will deliver: the fast path publishes
    /// only while no reader is parked.
    ReadParked {
        /// The committed end the read waits for (examined + the bytes it needs).
        awaits_end: u64,
    },
    /// The end emitting this took the other end's registered waker to wake it (a flush
    /// or a writer completion waking a pending read, a consume waking a paused flush,
    /// a cancel waking its own end). Emitted by the waking thread, so a log shows who
    /// woke whom; a lost wakeup shows as a registration never followed by this.
    Woke {
        /// The end that is woken.
        end: PipeEnd,
    },
    /// A flush left the writer idle: its head (every byte in it committed, no memory
    /// handed out) is parked where the reader may take it back once it consumes
    /// everything. Emitted under the pipe lock.
    HeadParked {
        /// The idle writing head.
        segment: SegmentId,
    },
    /// The writer's next `get_memory` (or its completion) took its parked head back
    /// before the reader did: it writes there again. Emitted after the take, outside
    /// the lock.
    HeadResumed {
        /// The resumed writing head.
        segment: SegmentId,
    },
    /// The reader consumed everything and took the parked head back from the idle
    /// writer: the head is the reader's to return. Emitted under the pipe lock.
    HeadReclaimed {
        /// The reclaimed head.
        segment: SegmentId,
    },
    /// The reader consumed everything but found no parked head to take back: the writer
    /// had already resumed writing (or held no head). Its claim found the flag clear, or
    /// the word a lock-free `advance_to` loaded showed no head parked (a park after that
    /// load comes after the advance). Emitted before the advance ends.
    HeadBusy,
    /// A flush (or the writer's completion) linked a segment into the list the reader
    /// reads, after the ones linked before it. Emitted under the pipe lock.
    SegmentLinked {
        /// The linked segment.
        segment: SegmentId,
        /// Stream offset of its first byte: the end of the segment linked before it.
        base: u64,
    },
    /// An `advance_to` finished: every segment it unlinked has gone back (returned or
    /// discarded). Emitted after the returns, outside the lock.
    AdvanceFinished,
    /// A `read_at_least(minimum)` found fewer than `minimum` unexamined bytes and waits
    /// (emitted after its [`WakerRegistered`](PipeEvent::WakerRegistered)). Until a read
    /// returns, flushes do not pause the writer below `minimum` unexamined bytes, and a
    /// writer paused until now is released right after this event
    /// ([`FlushResumed`](PipeEvent::FlushResumed)), as .NET's `ReadAtLeastAsync` does.
    ReadAtLeastPending {
        /// Unexamined bytes the read waits for.
        minimum: u64,
        /// Committed bytes not yet examined at that moment.
        unconsumed: u64,
        /// Whether the writer stays paused while the read waits (only a planted bug).
        writer_stays_paused: bool,
    },
    /// `Reader::buffered_len` returned `len`.
    LengthObserved {
        /// The length it reported.
        len: u64,
    },
    /// `reset_pipe` made the pipe new again: offsets back to 0, both ends open.
    Reset,
    /// A read or flush that must wait registered for this waker (emitted just before
    /// [`PipeEvent::WakerRegistered`]): the waker its task waits on *now*. A future
    /// polled again from another task (it moved) names a different waker, and only a
    /// wake of this one ends the wait.
    WakerPolled {
        /// The end that waits.
        end: PipeEnd,
        /// The waker of that poll.
        waker: WakerId,
    },
    /// The waker the pipe took to wake `end` (emitted just before [`PipeEvent::Woke`]).
    WakerTaken {
        /// The end that is woken.
        end: PipeEnd,
        /// The waker that will be woken.
        waker: WakerId,
    },
    /// An operation that may owe a wake is about to release the pipe lock: every wake
    /// it owes must have been taken ([`PipeEvent::Woke`]) by now. Emitted under the
    /// lock, as the operation's last event, so a checker can decide online that the
    /// operation returned without a wake it owed.
    LockReleased {
        /// The operation.
        op: PipeOperation,
    },
    /// A flush returned its result (not an error): the flush side of
    /// [`PipeEvent::ReadReturned`]. A flush that took the lock emits it under the lock
    /// when the result is decided, so its log order against
    /// [`PipeEvent::FlushCanceled`] is the lock order. A fast flush (its
    /// [`Published`](PipeEvent::Published) not followed by
    /// [`Flushed`](PipeEvent::Flushed)) emits it after its publish succeeded, without
    /// the lock: its result was decided by the publish, which succeeds only while no
    /// flush cancel is pending, so a checker judges it against the cancels logged
    /// before its `Published` (a cancel logged after it came after the publish, and is
    /// left for the next flush).
    FlushReturned {
        /// Whether the reader had completed.
        completed: bool,
        /// Whether the flush observed a cancel.
        canceled: bool,
    },
    /// A flush that need not wait is about to publish its bytes without the pipe lock
    /// (the fast path: nothing to link, no reader parked, no pause in sight). Emitted
    /// *before* the atomic publish, so every read that can see these bytes comes later
    /// in the log; if the publish then finds a flag set, the flush takes the lock and
    /// reports [`Flushed`](PipeEvent::Flushed) with the same end. Not ordered by the
    /// lock: checkers take the committed end from it but owe no lock-ordered wake.
    Published {
        /// Stream offset of the end of committed data once published.
        committed: u64,
    },
    /// The reader's `advance_to` took the writer's parked head, but a fast flush had
    /// published bytes in it after the reader looked at the committed end: the head
    /// stays linked with those bytes (it is no longer idle, so nothing is owed for it
    /// yet), and the writer, finding no head to resume, starts a new one. Its end is
    /// known from then on: the advance that consumes to it returns it.
    HeadKept {
        /// The head left linked.
        segment: SegmentId,
        /// Its end: the committed end the claim read (nothing is written into a
        /// claimed head).
        end: u64,
    },
    /// A read tries to take published bytes without the pipe lock (seed 001's
    /// uncontended read). Emitted *before* the read-modify-write that decides it, so a
    /// cancel logged before this was flagged before the read looked, and the read goes
    /// to the lock. Followed by the read's [`ReadReturned`](PipeEvent::ReadReturned)
    /// (never canceled or completed) when it took the bytes, or by
    /// [`FastReadMissed`](PipeEvent::FastReadMissed). Not ordered by the lock: a
    /// checker judges the lock-free read against the cancels logged before this.
    FastReadTried,
    /// The read of the last [`FastReadTried`](PipeEvent::FastReadTried) found a flag
    /// set or too few bytes, and takes the pipe lock: its events from here are ordered
    /// by the lock, as any read's.
    FastReadMissed,
    /// A wait looked again before going on: one the other end is about to end (see
    /// [`PipeOptions::spins_before_park`](crate::PipeOptions::spins_before_park)), a
    /// flush paused by back-pressure (`end` is the writer) or the first read after an
    /// `advance_to` that resumed the writer (the reader); or a read that found nothing
    /// while the writer streams (the reader; see
    /// [`PipeOptions::batching_looks`](crate::PipeOptions::batching_looks)). Emitted
    /// after the last look, outside the lock; what follows is decided as without the
    /// spin (the locked wait, or the lock-free read). Not emitted when the option is 0.
    Spun {
        /// The end that waited.
        end: PipeEnd,
        /// How many times it looked (at most the option's value).
        looks: u32,
        /// The last look found what the wait is for (the pause lifted, bytes
        /// published); `false`: it ran out, and the wait goes on to park.
        ended: bool,
    },
}

/// An operation of the pipe that can owe the other end (or its own) a wake, as named
/// by [`PipeEvent::LockReleased`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PipeOperation {
    /// A flush committing bytes (owes a wake to a pending read).
    Flush,
    /// The writer completing (owes a wake to a pending read).
    CompleteWriter,
    /// `cancel_pending_flush` (owes a wake to a paused flush).
    CancelFlush,
    /// `advance_to` (owes a wake to a paused flush it releases).
    AdvanceTo,
    /// The reader completing (owes a wake to a paused flush).
    CompleteReader,
    /// `cancel_pending_read` (owes a wake to a pending read).
    CancelRead,
}

impl fmt::Display for PipeOperation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PipeOperation::Flush => "flush",
            PipeOperation::CompleteWriter => "Writer::complete",
            PipeOperation::CancelFlush => "cancel_pending_flush",
            PipeOperation::AdvanceTo => "advance_to",
            PipeOperation::CompleteReader => "Reader::complete",
            PipeOperation::CancelRead => "cancel_pending_read",
        })
    }
}

/// Identity of a [`Waker`](std::task::Waker): its data pointer, which names the task it
/// wakes. The vtable is left out on purpose: a by-reference waker (as `block_on`s lend
/// to their futures) and its owned clone share the data but not the vtable, and wake
/// the same task.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct WakerId(usize);

/// Without the address: logs of replayed runs must read the same (compare identities
/// with `==`, as the checkers do).
impl fmt::Debug for WakerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("WakerId(..)")
    }
}

impl WakerId {
    /// The identity of `waker`.
    pub fn of(waker: &std::task::Waker) -> WakerId {
        WakerId(waker.data() as usize)
    }
}

/// One end of a pipe, as named in [`PipeEvent`]s.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PipeEnd {
    /// The reading end.
    Reader,
    /// The writing end.
    Writer,
}

/// Receives a pipe's [`PipeEvent`]s, from the reader's and the writer's threads, at times
/// while the pipe's lock is held: it must not call back into the pipe.
pub trait PipeObserver: Send + Sync {
    /// Handles one event.
    fn on_event(&self, event: PipeEvent);
}

impl<T: PipeObserver + ?Sized> PipeObserver for std::sync::Arc<T> {
    fn on_event(&self, event: PipeEvent) {
        (**self).on_event(event)
    }
}

/// The pipe's handle on an optional observer.
#[derive(Default)]
pub(crate) struct Observer(Option<Box<dyn PipeObserver>>);

impl Observer {
    pub(crate) fn new(observer: Box<dyn PipeObserver>) -> Observer {
        Observer(Some(observer))
    }

    /// Whether an observer is installed.
    pub(crate) fn is_installed(&self) -> bool {
        self.0.is_some()
    }

    /// Takes the waker in `slot` to wake `end`, reporting [`PipeEvent::Woke`] if there
    /// was one. Called under the pipe lock, like the state events.
    #[inline(always)]
    pub(crate) fn take_waker(
        &self,
        slot: &mut Option<std::task::Waker>,
        end: PipeEnd,
    ) -> Option<std::task::Waker> {
        let waker = slot.take();
        if let Some(taken) = &waker {
            self.emit(|| PipeEvent::WakerTaken { end, waker: WakerId::of(taken) });
            self.emit(|| PipeEvent::Woke { end });
        }
        waker
    }

    /// Emits the event built by `event`, which only runs when an observer is installed.
    #[inline(always)]
    pub(crate) fn emit(&self, event: impl FnOnce() -> PipeEvent) {
        if let Some(observer) = &self.0 {
            observer.on_event(event());
        }
    }
}

impl fmt::Debug for Observer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() { "Observer(installed)" } else { "Observer(none)" })
    }
}
