//! The idle writing head's hand-off slot: how a fully consumed pipe keeps no segment.
//!
//! System.IO.Pipelines returns the writing head to the pool when the reader consumes
//! everything while no write is in progress (`_writingHead` is dropped in `AdvanceReader`
//! only when `!IsWritingActive` and no bytes are buffered in it; the writer rents anew on
//! its next `GetMemory`). .NET can look at the writer's state under its lock because its
//! `GetMemory` takes that lock once per write. pipecheck's `get_memory` takes no lock, so
//! the writer hands the head over explicitly instead:
//!
//! 1. **park** — a flush (under the pipe lock, every byte committed, the memory handed
//!    out by `get_memory` no longer usable) moves the writer's only reference to its
//!    head into this slot. From then on the writer holds nothing it could write through.
//! 2. **take** — one atomic swap empties the slot. The writer takes at its next
//!    `get_memory` (or completion) to resume writing; the reader takes when an
//!    `advance_to` has consumed everything, to return the head to the pool. Exactly one
//!    of them gets the head: the loser sees an empty slot (the writer then rents a new
//!    head; the reader leaves the head linked, as the writer is writing it).
//!
//! The swap is the whole protocol: no flag is read and then acted on, so there is no
//! window in which both sides own the head (the `ReturnWriteHead` planted bug is what
//! acting without winning the swap looks like).

use std::fmt;
use std::ptr;

use crossbeam_utils::CachePadded;

use crate::InvariantId;
use crate::check::violation::ensure_internal;
use crate::pipe::pool::Shell;
use crate::pipe::segment::Segment;
use crate::primitive::sync::Arc;
use crate::primitive::sync::atomic::{AtomicPtr, Ordering};

/// One slot holding the writer's idle head, or nothing.
pub(crate) struct ParkedHead {
    /// Null, or a pointer from `Arc::into_raw` whose strong count the slot owns. On a
    /// cache line of its own: both ends swap it, and nothing else should move with it.
    slot: CachePadded<AtomicPtr<Segment>>,
}

impl ParkedHead {
    pub(crate) fn new() -> ParkedHead {
        ParkedHead { slot: CachePadded::new(AtomicPtr::new(ptr::null_mut())) }
    }

    /// Parks the writer's idle head. Called by the writer only, under the pipe lock.
    ///
    /// # Panics
    ///
    /// With a `release-once` violation if a head is parked already (the writer parks only
    /// a head it holds, and it holds none while one is parked).
    #[inline]
    pub(crate) fn park(&self, head: Shell) {
        let raw = Arc::into_raw(head).cast_mut();
        // Release: the head's bytes and bookkeeping, written before, are visible to the
        // side whose swap takes it.
        let previous = self.slot.swap(raw, Ordering::AcqRel);
        // The head parked before would never go back to the pool.
        ensure_internal(previous.is_null(), InvariantId::RELEASE_ONCE, "a head was parked twice");
    }

    /// Takes the parked head, if any: the single point where the writer (resuming) and
    /// the reader (reclaiming) race, decided by one atomic swap.
    #[inline]
    pub(crate) fn take(&self) -> Option<Shell> {
        // AcqRel: the taker sees everything the parker did before parking, and a loser
        // (which reads the null stored by the winner) sees everything the winner did
        // before its swap.
        let raw = self.slot.swap(ptr::null_mut(), Ordering::AcqRel);
        if raw.is_null() {
            return None;
        }
        // SAFETY: a non-null slot value came from `Arc::into_raw` in `park`, and the
        // swap moved it out of the slot, so this is the only conversion back for that
        // strong count: [1] `park` stores each pointer once; [2] every read of the slot
        // is a swap that leaves null behind.
        Some(unsafe { Arc::from_raw(raw.cast_const()) })
    }
}

impl Drop for ParkedHead {
    fn drop(&mut self) {
        // Both ends are gone; a head still parked is dropped with the last reference
        // (its buffer was released by the pipe's completion paths).
        drop(self.take());
    }
}

impl fmt::Debug for ParkedHead {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParkedHead").finish_non_exhaustive()
    }
}
