//! The pipe: shared state under one lock, and the [`Writer`] and [`Reader`] ends.
//!
//! Modelled on System.IO.Pipelines' `Pipe` after its contention work (seeds 000, 001):
//!
//! * **one lock** guards the linked segment list, the state's copies of the
//!   committed/consumed/examined offsets, completion, cancellation and the two wakers. Wakers are woken only after
//!   the lock is released, and every flag they depend on changes under the lock, so no
//!   wakeup is lost;
//! * **the uncontended writer path takes no lock**: `get_memory` and `advance` touch only
//!   writer-owned state; a flush into an already linked head that need not wait publishes
//!   the committed end with one release compare-and-swap ([`published`]) and returns
//!   ready without the lock. A flush that links segments, pauses, or finds a parked
//!   reader or a pending cancel takes the lock once, and returns ready from there when
//!   it need not wait (no second lock in the future's first poll);
//! * **the uncontended read takes no lock either**: a read that finds published bytes
//!   in segments already in its view takes them with one acquiring read-modify-write of
//!   the same word, unless a flag sends it to the lock (a pending cancel, the writer's
//!   completion, a waiting `read_at_least`, a segment it has not seen, its own parked
//!   waker: `reader/fast.rs`);
//! * **the uncontended `advance_to` takes no lock**: one that returns no segment and
//!   resumes no writer stores the reader's offsets in atomics on its own cache line,
//!   inside a store-fence-load handshake with the word's `LOCKED` flag that keeps it out
//!   of every other holder's locked section ([`published`]; `reader/fast_advance.rs`),
//!   so the writer's pause decisions see exactly the offsets the log shows;
//! * **rent and return happen outside the lock**: the writer rents buffers and takes
//!   segment objects from the pool before linking; the reader unlinks consumed
//!   segments under the lock and returns buffers and segment objects after releasing it;
//! * **the segment pool is an SPSC FIFO** between the reader and the writer;
//! * **a fully consumed pipe keeps no segment** (as .NET): a flush parks the idle
//!   writing head with a flag in the word it publishes through, and a reader that
//!   consumes everything claims it and returns it to the pool, unless the writer took
//!   it back first to write again ([`parked_head`]).

#[cfg(any(feature = "tokio", feature = "futures-io"))]
pub mod adapters;
pub(crate) mod buffer_pool;
pub(crate) mod error;
pub(crate) mod observe;
pub(crate) mod options;
pub mod spsc;

mod parked_head;
mod pool;
mod published;
mod read_buf;
mod reader;
mod reset;
mod segment;
mod spin;
mod state_lock;
mod writer;

use std::collections::VecDeque;
use std::fmt;
use std::task::{Context, Waker};

pub use read_buf::{Chunks, Position, ReadBuf, ReadCursor, ReadResult};
pub use reader::{ReadCanceller, ReadFuture, Reader};
pub use reset::reset_pipe;
pub use writer::{FlushCanceller, FlushFuture, FlushResult, Writer};

use crate::fault;
use crate::pipe::buffer_pool::BufferPool;
use crate::pipe::error::Failure;
use crate::pipe::observe::{Observer, PipeEnd, PipeEvent, WakerId};
use crate::pipe::options::{LockScope, PipeOptions, PoolDesign};
use pipecheck_sync::sync::{Arc, Mutex};
use pool::Shell;
use published::{FLUSH_SLOW, Published, READ_SLOW, READER_PARKED};

/// Builds a pipe from validated options.
pub(crate) fn new_pipe(options: PipeOptions) -> (Writer, Reader) {
    let design = if fault::LifoPool.is_active() { PoolDesign::LockedStack } else { options.pool_design };
    let (returner, taker) = pool::segment_pool(design, options.pool_first_chunk);
    let shared = Arc::new(Shared {
        state: Mutex::new(State::default()),
        config: Config {
            minimum_segment_size: options.minimum_segment_size,
            maximum_segment_size: options.maximum_segment_size,
            pause_writer_threshold: options.pause_writer_threshold,
            // A paused flush resumes when `unconsumed < resume`; with a threshold of 0 that
            // never holds, so the writer would hang even on a drained pipe (the same hang as
            // dotnet/runtime#75166). Like .NET since that fix, treat 0 as 1: resume once
            // everything is consumed.
            resume_writer_threshold: options.resume_writer_threshold.max(1),
            max_pooled_segments: options.max_pooled_segments,
            lock_every_operation: options.lock_scope == LockScope::EveryOperation,
            spins_before_park: options.spins_before_park,
            batching_looks: options.batching_looks,
        },
        buffer_pool: options.buffer_pool,
        observer: options.observer,
        published: Published::new(),
    });
    (Writer::new(shared.clone(), taker), Reader::new(shared, returner))
}

/// The fixed settings of one pipe.
#[derive(Debug)]
pub(crate) struct Config {
    pub(crate) minimum_segment_size: usize,
    pub(crate) maximum_segment_size: usize,
    pub(crate) pause_writer_threshold: u64,
    pub(crate) resume_writer_threshold: u64,
    pub(crate) max_pooled_segments: usize,
    /// [`LockScope::EveryOperation`]: the design before seeds 000/001 (benchmarks).
    pub(crate) lock_every_operation: bool,
    /// How often a short wait looks again before it parks ([`spin`]).
    pub(crate) spins_before_park: u32,
    /// How often a read that finds nothing looks again while the writer streams ([`spin`]).
    pub(crate) batching_looks: u32,
}

/// What both ends share.
pub(crate) struct Shared {
    pub(crate) state: Mutex<State>,
    pub(crate) config: Config,
    pub(crate) buffer_pool: Box<dyn BufferPool>,
    pub(crate) observer: Observer,
    /// The committed end and the fast path's flags, outside the lock ([`published`]).
    pub(crate) published: Published,
}

/// Everything guarded by the pipe lock. Offsets are absolute stream positions.
#[derive(Default)]
pub(crate) struct State {
    /// Linked segments, from the one holding `consumed` to the newest committed one.
    pub(crate) segments: VecDeque<Shell>,
    /// End of the bytes the writer has flushed: a copy of [`Shared::published`]'s,
    /// refreshed by [`Shared::lock`] (a fast flush publishes without the lock).
    pub(crate) committed: u64,
    /// End of the bytes the reader has consumed.
    pub(crate) consumed: u64,
    /// End of the bytes the reader has examined; a read waits until `committed` passes it.
    pub(crate) examined: u64,
    /// A flush crossed the pause threshold (counted by [`State::unconsumed`]) and has not
    /// been released.
    pub(crate) writer_paused: bool,
    /// `cancel_pending_read` was called and no read has observed it yet.
    pub(crate) read_canceled: bool,
    /// `cancel_pending_flush` was called and no flush has observed it yet.
    pub(crate) flush_canceled: bool,
    /// A `read_at_least(n)` went pending and no read has returned since: `Some(n)`.
    /// While set, a flush leaving fewer than `n` bytes unexamined does not pause the
    /// writer (the reader needs them to make progress), as .NET's `_minimumReadBytes`.
    pub(crate) read_minimum: Option<u64>,
    pub(crate) reader_waker: Option<Waker>,
    pub(crate) writer_waker: Option<Waker>,
    /// `Some` once the writer completed, with its failure if any.
    pub(crate) writer_completion: Option<Option<Failure>>,
    /// `Some` once the reader completed, with its failure if any.
    pub(crate) reader_completion: Option<Option<Failure>>,
    /// A segment was linked since the reader last took the list into its view (under
    /// the lock): until it does, a read must lock ([`READ_SLOW`]).
    pub(crate) unseen_link: bool,
    /// The flags set in [`Shared::published`]'s word (they change only under the lock).
    pub(crate) flags: u64,
    /// The value last stored as [`Published::released`], to store only changes.
    pub(crate) released_published: u64,
    /// The reader's count of lock-free `advance_to`s as the last lock holder saw it
    /// ([`Published::begin_locked`]): another value means newer offsets in the atomics.
    pub(crate) advances_seen: u64,
}

impl State {
    /// The bytes back-pressure counts: committed bytes the reader has not *examined*
    /// (.NET's `_unconsumedBytes`, which `AdvanceTo` lowers by the newly examined bytes).
    /// A reader that examines a partial frame without consuming it releases the writer,
    /// so a frame larger than the pause threshold can still arrive whole.
    ///
    /// The `BackpressureByConsumed` planted bug counts committed − consumed instead.
    /// (Saturating: only a planted bug consumes past the commit, and its checker must
    /// get to see that.)
    pub(crate) fn unconsumed(&self) -> u64 {
        self.committed.saturating_sub(self.released())
    }

    /// What back-pressure subtracts from the committed end: the examined offset (the
    /// consumed one under the `BackpressureByConsumed` planted bug).
    pub(crate) fn released(&self) -> u64 {
        released(self.consumed, self.examined)
    }

    /// Committed bytes the reader has not examined, whatever the planted bugs: what
    /// `read_at_least` waits for and `Reader::buffered_len` reports.
    pub(crate) fn unexamined(&self) -> u64 {
        self.committed.saturating_sub(self.examined)
    }

    /// Whether a flush that leaves `self.unconsumed(..)` bytes must pause the writer:
    /// at or above the pause threshold, unless a pending `read_at_least` still waits for
    /// more than is there (pausing then would deadlock: the reader will not examine
    /// before it has its minimum, and the writer would wait for it to).
    pub(crate) fn flush_must_pause(&self, config: &Config) -> bool {
        let pause = config.pause_writer_threshold;
        let read_waits_for_more = self.read_minimum.is_some_and(|minimum| self.unexamined() < minimum)
            && !fault::ReadAtLeastKeepsWriterPaused.is_active();
        pause > 0 && self.unconsumed() >= pause && !fault::NoPauseOnFlush.is_active() && !read_waits_for_more
    }

    /// Back to a new pipe's state, keeping the segment list's allocation (it is empty:
    /// both sides completed, so every segment was released).
    /// The reader's count of lock-free advances goes on across a reset, and so does
    /// the copy of it: the state's offsets start over here, and the next holder must
    /// not load them again from the atomics on account of the reset alone.
    pub(crate) fn reset(&mut self) {
        let mut segments = std::mem::take(&mut self.segments);
        segments.clear();
        let advances_seen = self.advances_seen;
        *self = State::default();
        self.segments = segments;
        self.advances_seen = advances_seen;
    }

    /// Takes the segments for release once both sides have completed.
    pub(crate) fn take_all_if_both_completed(&mut self) -> Vec<Shell> {
        if self.writer_completion.is_some() && self.reader_completion.is_some() {
            self.segments.drain(..).collect()
        } else {
            Vec::new()
        }
    }
}

impl fmt::Debug for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("State")
            .field("segments", &self.segments.len())
            .field("committed", &self.committed)
            .field("consumed", &self.consumed)
            .field("examined", &self.examined)
            .field("writer_paused", &self.writer_paused)
            .field("writer_completed", &self.writer_completion.is_some())
            .field("reader_completed", &self.reader_completion.is_some())
            .finish_non_exhaustive()
    }
}

impl Shared {
    /// Makes the fast flush's `FLUSH_SLOW` flag match `state`: set while a flush must
    /// look at the state under the lock (paused, cancel pending, reader completed).
    /// Called under the lock after each change of those fields.
    pub(crate) fn sync_flush_flag(&self, state: &mut State) {
        let slow = state.writer_paused || state.flush_canceled || state.reader_completion.is_some();
        self.published.mirror(&mut state.flags, FLUSH_SLOW, slow);
    }

    /// Releases the paused writer, under the lock: logs `FlushResumed`, then clears
    /// `FLUSH_SLOW`, then takes the writer's waker for the caller to wake outside the
    /// lock (unless `wake` is false: the `NoResumeOnConsume` planted bug). The order is
    /// the point: once the flag clears, a lock-free flush may publish and return at
    /// once, and the log must show the resume first (the other order is a false
    /// `backpressure` report on plain threads).
    pub(crate) fn resume_writer(&self, state: &mut State, wake: bool) -> Option<Waker> {
        state.writer_paused = false;
        let unconsumed = state.unconsumed();
        self.observer.emit(|| PipeEvent::FlushResumed { unconsumed });
        self.sync_flush_flag(state);
        if wake { self.observer.take_waker(&mut state.writer_waker, PipeEnd::Writer) } else { None }
    }

    /// Makes the read side's `READ_SLOW` flag match `state`: set while a read must look
    /// at the state under the lock (a read cancel pending, the writer completed, a
    /// `read_at_least` waiting, a segment linked that the reader's view lacks). Called
    /// under the lock after each change of those fields, and before the bytes they
    /// concern are published.
    ///
    /// The `FastReadIgnoresCancel` planted bug leaves a pending read cancel out.
    pub(crate) fn sync_read_flag(&self, state: &mut State) {
        let cancel = state.read_canceled && !fault::FastReadIgnoresCancel.is_active();
        let slow =
            cancel || state.writer_completion.is_some() || state.read_minimum.is_some() || state.unseen_link;
        self.published.mirror(&mut state.flags, READ_SLOW, slow);
    }

    /// Clears the reader's parked flag, if set. Under the lock.
    pub(crate) fn unpark_reader(&self, state: &mut State) {
        self.published.clear(&mut state.flags, READER_PARKED);
    }

    /// Publishes what back-pressure subtracts now, if it changed: after the reader's
    /// `Consumed` event (see [`Published::released`]). Under the lock.
    pub(crate) fn publish_released(&self, state: &mut State) {
        let released = state.released();
        if released != state.released_published {
            state.released_published = released;
            self.published.set_released(released);
        }
    }

    /// Takes the reader's waker to wake it (reporting it), then clears its parked flag:
    /// the fast flush may publish, and a read may take bytes, without the lock again.
    /// Reported first, so a lock-free read that finds the flag clear is logged after
    /// the take (**fast-read-unparked**). Under the lock.
    pub(crate) fn take_reader_waker(&self, state: &mut State) -> Option<Waker> {
        let waker = self.observer.take_waker(&mut state.reader_waker, PipeEnd::Reader);
        self.unpark_reader(state);
        waker
    }

    /// Gives the buffers of `segments` back to the buffer pool, exactly once each.
    /// Called outside the lock, once nothing else refers to the segments.
    pub(crate) fn release_final(&self, segments: Vec<Shell>) {
        let leak_last = fault::LeakOnComplete.is_active();
        let count = segments.len();
        for (i, mut shell) in segments.into_iter().enumerate() {
            let Some(segment) = Arc::get_mut(&mut shell) else {
                // Another holder remains (only possible under a planted bug); its last
                // drop frees the memory.
                continue;
            };
            if let Some(memory) = segment.memory.take() {
                if leak_last && i + 1 == count {
                    // The planted bug: the buffer is freed without going back to the pool.
                    drop(memory);
                } else {
                    self.buffer_pool.give_back(memory.into_buffer());
                }
            }
        }
    }
}

impl fmt::Debug for Shared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Shared").field("config", &self.config).finish_non_exhaustive()
    }
}

/// The failure one side completed with, as the other side gets it: a clone, so it
/// carries the very same cause (the `FailureLosesCause` planted bug rebuilds it from
/// its message instead).
pub(crate) fn hand_over(failure: &Failure) -> Failure {
    if fault::FailureLosesCause.is_active() { Failure::new(failure.message()) } else { failure.clone() }
}

/// What back-pressure subtracts from the committed end, given the reader's offsets:
/// `examined` (`consumed` under the `BackpressureByConsumed` planted bug). Shared by
/// the state and the lock-free `advance_to`, which has no state at hand.
pub(crate) fn released(consumed: u64, examined: u64) -> u64 {
    if fault::BackpressureByConsumed.is_active() { consumed } else { examined }
}

/// Stores `cx`'s waker in `slot` unless an equivalent one is already there.
pub(crate) fn register_waker(slot: &mut Option<Waker>, cx: &Context<'_>) {
    match slot {
        Some(waker) if waker.will_wake(cx.waker()) => {}
        _ => *slot = Some(cx.waker().clone()),
    }
}

/// [`register_waker`] for a waiting end of the pipe, reporting which waker `end`'s task
/// now waits on ([`PipeEvent::WakerPolled`]). A future polled again from another task
/// (it moved) brings a different waker, which must replace the old one: only the new
/// task can end the wait.
///
/// The `KeepsStaleWaker` planted bug keeps whatever waker is already there.
pub(crate) fn register_end_waker(shared: &Shared, slot: &mut Option<Waker>, cx: &Context<'_>, end: PipeEnd) {
    if !(slot.is_some() && fault::KeepsStaleWaker.is_active()) {
        register_waker(slot, cx);
    }
    shared.observer.emit(|| PipeEvent::WakerPolled { end, waker: WakerId::of(cx.waker()) });
}
