//! What the seed primitives report about themselves: events for invariant checkers.
//!
//! The pipe reports [`PipeEvent`](crate::PipeEvent)s to a
//! [`PipeObserver`](crate::PipeObserver); the seed primitives ([`AsyncMutex`](crate::AsyncMutex),
//! [`CompletionSource`](crate::CompletionSource), the message channel and
//! [`PartitionedPool`](crate::PartitionedPool)) report [`PrimitiveEvent`]s to a
//! [`PrimitiveObserver`] the same way, so one monitor checks both online.
//!
//! Emission points keep the log order consistent with the real order, with the
//! observer serializing events (e.g. a mutex-protected log):
//!
//! * a state change made under a primitive's lock is reported under that lock;
//! * a lock holder reports [`MutexReleased`](PrimitiveEvent::MutexReleased) *before*
//!   the release, and an entrant [`MutexAcquired`](PrimitiveEvent::MutexAcquired)
//!   *after* it was admitted, so two holders overlapping in the log overlapped really;
//! * an operation that owes a wake reports the obligation's outcome before it reports
//!   that it returns.
//!
//! Without an observer each emission point costs one `None` check. Observers must not
//! call back into the primitive.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// Identity of one observed primitive object, given by its observer
/// ([`PrimitiveObserver::register`]).
///
/// # Examples
///
/// ```
/// use pipecheck_pipe::PrimitiveId;
/// assert_eq!(PrimitiveId(3).to_string(), "#3");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PrimitiveId(pub u64);

impl fmt::Display for PrimitiveId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// Whom an async-mutex exit handed the lock to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Handover {
    /// The queued waiter with this ticket (woken next, see
    /// [`MutexWoke`](PrimitiveEvent::MutexWoke)).
    Waiter(u64),
    /// No waiter was queued yet: the permit is reserved for the entrant that counted
    /// itself in but has not queued itself.
    Reserved,
    /// A waiter whose future was dropped while queued: the exit takes its count off on
    /// its behalf (and then owes the next hand-over if others are still counted).
    Abandoned,
}

/// One observable step of a seed primitive.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PrimitiveEvent {
    /// A task was admitted to the async mutex (`ticket`: the queued waiter it was, if
    /// it got the lock by hand-over; a dropped `Lock` that was handed the lock reports
    /// this too, before passing the lock on).
    MutexAcquired {
        /// The mutex.
        mutex: PrimitiveId,
        /// The waiter's ticket when the lock was handed over through the queue.
        ticket: Option<u64>,
    },
    /// The holder is about to release the async mutex.
    MutexReleased {
        /// The mutex.
        mutex: PrimitiveId,
    },
    /// An entrant found the lock taken and queued itself with its waker.
    MutexQueued {
        /// The mutex.
        mutex: PrimitiveId,
        /// Its place in the queue.
        ticket: u64,
    },
    /// A queued waiter's `Lock` future was dropped while still queued.
    MutexAbandoned {
        /// The mutex.
        mutex: PrimitiveId,
        /// The waiter's ticket.
        ticket: u64,
    },
    /// An exit found other tasks counted in the gate: it owes a hand-over.
    MutexExitContended {
        /// The mutex.
        mutex: PrimitiveId,
        /// Which exit (exits can overlap in the log: a woken waiter may exit before
        /// the exit that woke it has returned).
        exit: u64,
    },
    /// An exit handed the lock over.
    MutexHandedOver {
        /// The mutex.
        mutex: PrimitiveId,
        /// Which exit.
        exit: u64,
        /// To whom.
        to: Handover,
    },
    /// An exit woke the waiter it handed the lock to.
    MutexWoke {
        /// The mutex.
        mutex: PrimitiveId,
        /// Which exit.
        exit: u64,
        /// The woken waiter's ticket.
        ticket: u64,
    },
    /// A contended exit returns.
    MutexExitReturned {
        /// The mutex.
        mutex: PrimitiveId,
        /// Which exit.
        exit: u64,
    },
    /// The drop of a queued `Lock` future returns (whatever it found).
    MutexLockDropped {
        /// The mutex.
        mutex: PrimitiveId,
        /// The dropped waiter's ticket.
        ticket: u64,
    },
    /// A completion source started operation `version`.
    CompletionReset {
        /// The source.
        source: PrimitiveId,
        /// The new operation.
        version: u64,
    },
    /// `reset` returns.
    CompletionResetReturned {
        /// The source.
        source: PrimitiveId,
    },
    /// A result was accepted for the operation of `token`, while `version` was current.
    CompletionResultSet {
        /// The source.
        source: PrimitiveId,
        /// The version of the token the result came with.
        token: u64,
    },
    /// A `set_result` that accepted its result returns.
    CompletionSetReturned {
        /// The source.
        source: PrimitiveId,
    },
    /// A waiter of operation `version` registered its waker (found no result).
    CompletionWaiting {
        /// The source.
        source: PrimitiveId,
        /// The awaited operation.
        version: u64,
    },
    /// The waiter of operation `version` had its waker taken to be woken.
    CompletionWoke {
        /// The source.
        source: PrimitiveId,
        /// The waiter's operation.
        version: u64,
    },
    /// The waiter of operation `version` stopped waiting (it resolved or was dropped).
    CompletionWaiterLeft {
        /// The source.
        source: PrimitiveId,
        /// The waiter's operation.
        version: u64,
    },
    /// The result of operation `version` was handed out (to `get_result` or a waiter).
    CompletionResultTaken {
        /// The source.
        source: PrimitiveId,
        /// The operation.
        version: u64,
    },
    /// The sender is about to write data message `seq`.
    MessageSent {
        /// The channel.
        channel: PrimitiveId,
        /// Its number, from 0.
        seq: u64,
        /// Its payload.
        payload: Vec<u8>,
    },
    /// The receiving side read data message `seq` off the pipe (under its async mutex).
    MessageRead {
        /// The channel.
        channel: PrimitiveId,
        /// Its number, from 0.
        seq: u64,
        /// Whether a `close` read it (and owes it in its drained list).
        by_close: bool,
    },
    /// Data message `seq` was handed to a caller: returned by `receive` or put in the
    /// list `close` returns.
    MessageDelivered {
        /// The channel.
        channel: PrimitiveId,
        /// Its number.
        seq: u64,
        /// Its payload as delivered.
        payload: Vec<u8>,
    },
    /// A `close` of the receiving side returns its drained messages.
    ChannelCloseReturned {
        /// The channel.
        channel: PrimitiveId,
    },
    /// A renter took a buffer: from `partition` (leaving `pooled` there), or newly
    /// allocated (`partition: None`).
    PoolRented {
        /// The pool.
        pool: PrimitiveId,
        /// Where the buffer came from.
        partition: Option<usize>,
        /// Buffers left in that partition.
        pooled: usize,
    },
    /// A renter locked `partition` and found it empty.
    PoolMissed {
        /// The pool.
        pool: PrimitiveId,
        /// The partition.
        partition: usize,
    },
    /// A buffer was given back into `partition`, which now holds `pooled`.
    PoolReturned {
        /// The pool.
        pool: PrimitiveId,
        /// The partition.
        partition: usize,
        /// Buffers there now.
        pooled: usize,
    },
    /// A buffer given back was dropped because its home partition was full.
    PoolDiscarded {
        /// The pool.
        pool: PrimitiveId,
        /// The partition.
        partition: usize,
    },
    /// A size-class buffer pool handed out a buffer of `len` bytes for a rent of at
    /// least `min_len`: from (or newly allocated for) the size class of `class_len`
    /// bytes, or unpooled (`class_len: None`, past the largest class).
    ClassRented {
        /// The pool.
        pool: PrimitiveId,
        /// The length asked for.
        min_len: usize,
        /// The length of the class it came from.
        class_len: Option<usize>,
        /// The buffer's length.
        len: usize,
    },
    /// A buffer of `len` bytes was given back to a size-class buffer pool, which filed
    /// it under the class of `class_len` bytes (`None`: not pooled, freed).
    ClassReturned {
        /// The pool.
        pool: PrimitiveId,
        /// The buffer's length.
        len: usize,
        /// The length of the class it went into.
        class_len: Option<usize>,
    },
}

/// Receives the seed primitives' [`PrimitiveEvent`]s, from any thread, at times while a
/// primitive's lock is held: it must not call back into the primitive.
pub trait PrimitiveObserver: Send + Sync {
    /// Handles one event.
    fn on_primitive_event(&self, event: PrimitiveEvent);

    /// The identity of an object starting to report here. By default unique in the
    /// process; an observer of one run (a checker's monitor) numbers objects itself, so
    /// a replayed run reports the same identities.
    fn register(&self) -> PrimitiveId {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        PrimitiveId(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// A primitive's handle on an optional observer, with the object's identity.
///
/// The observer sits behind a `std` `Arc` on purpose: it is checking machinery, not
/// part of the protocol under test, so loom and shuttle must not see its reference
/// counts.
#[derive(Clone, Default)]
pub(crate) struct Probe(Option<std::sync::Arc<Installed>>);

/// An installed observer, the object's identity, and its operation counter (a std
/// atomic: bookkeeping, outside the checkers' view).
struct Installed {
    id: PrimitiveId,
    observer: std::sync::Arc<dyn PrimitiveObserver>,
    operations: AtomicU64,
}

impl Probe {
    /// A probe reporting to `observer` under the identity it gives.
    pub(crate) fn new(observer: std::sync::Arc<dyn PrimitiveObserver>) -> Probe {
        let id = observer.register();
        Probe(Some(std::sync::Arc::new(Installed { id, observer, operations: AtomicU64::new(1) })))
    }

    /// A number for one operation of this object (0 when no observer is installed, and
    /// then never reported), so a checker can tell apart operations whose events
    /// interleave.
    #[inline(always)]
    pub(crate) fn operation(&self) -> u64 {
        match &self.0 {
            Some(installed) => installed.operations.fetch_add(1, Ordering::Relaxed),
            None => 0,
        }
    }

    /// Emits the event `event` builds from the object's identity; the closure only runs
    /// when an observer is installed.
    #[inline(always)]
    pub(crate) fn emit(&self, event: impl FnOnce(PrimitiveId) -> PrimitiveEvent) {
        if let Some(installed) = &self.0 {
            installed.observer.on_primitive_event(event(installed.id));
        }
    }
}

impl fmt::Debug for Probe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(installed) => write!(f, "Probe({})", installed.id),
            None => f.write_str("Probe(none)"),
        }
    }
}
