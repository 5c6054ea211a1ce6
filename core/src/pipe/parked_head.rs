//! The idle writing head's hand-off: how a fully consumed pipe keeps no segment.
//!
//! System.IO.Pipelines returns the writing head to the pool when the reader consumes
//! everything while no write is in progress (`_writingHead` is dropped in `AdvanceReader`
//! only when `!IsWritingActive` and no bytes are buffered in it; the writer rents anew on
//! its next `GetMemory`). .NET can look at the writer's state under its lock because its
//! `GetMemory` takes that lock once per write. pipecheck's `get_memory` takes no lock, so
//! the writer hands the head over explicitly instead, through one flag of the published
//! word ([`HEAD_PARKED`](super::published::HEAD_PARKED)):
//!
//! 1. **park** — a flush that leaves the head linked (every byte of it committed, the
//!    memory handed out by `get_memory` no longer usable) sets the flag in the same
//!    read-modify-write that publishes its bytes, and turns the writer's reference to
//!    the head into a [`ParkedHead`]: a strong count that belongs to whichever side
//!    clears the flag. The head is the last linked segment from then on (the writer
//!    links nothing while it is parked).
//! 2. **claim** — one read-modify-write clears the flag. The writer does it at its next
//!    `get_memory` (or completion) to resume writing; the reader does it when an
//!    `advance_to` has consumed everything it saw committed, to return the head to the
//!    pool. Exactly one of them finds the flag set: the winner owns the parked strong
//!    count (the writer converts it back, the reader drops it), and the loser leaves it
//!    alone (the writer then starts a new head; the reader leaves the head linked, as
//!    the writer is writing it).
//!
//! The reader's claim also returns the committed end *read from the same word* as the
//! flag. A fast flush may have resumed the head, published into it and parked it again
//! after the reader compared its consumed offset: the claim then still wins the count,
//! but the head holds unconsumed bytes, so it is not idle. It stays linked, to be read
//! and unlinked as any segment (`HeadKept`), and the writer starts a new head. Its end
//! is the one the claim read (the writer writes nothing more into a head it lost), so
//! the advance that consumes to it returns it even while it is the last linked segment
//! and the writer is idle (forgetting that end is the `ForgetsKeptHeadEnd` planted bug:
//! the consumed head then stays rented until the writer links a new one or completes). (Ending
//! the head at the offset the reader compared instead is the `ReclaimTrustsLockedEnd`
//! planted bug.) Neither side acts on the head without winning the flag (the
//! `ReturnWriteHead` planted bug is what acting on "everything is consumed" alone looks
//! like).
//!
//! A head that was never linked (the flush found it empty) is not parked: the reader
//! cannot reach it, and the writer keeps it for its next write.

use crate::pipe::observe::SegmentId;
use crate::pipe::pool::Shell;
use crate::pipe::segment::Segment;
use pipecheck_sync::sync::Arc;

/// The writer's strong count on its parked head, owned by whichever side clears
/// `HEAD_PARKED` first. Neither the writer nor the reader dereferences it while parked.
#[derive(Debug)]
pub(crate) struct ParkedHead {
    /// From `Arc::into_raw`: one strong count of the head, not dropped by this value.
    raw: *const Segment,
    /// The head's id, kept for the events (the head is not read while parked).
    pub(crate) id: SegmentId,
}

// SAFETY: the pointer stands for one strong count of an `Arc<Segment>`, which is
// `Send`; `ParkedHead` only ever converts it back to that `Arc` or forgets it.
unsafe impl Send for ParkedHead {}
// SAFETY: a shared reference reaches only `id`; the pointer is used by value, through
// the methods that consume `self`.
unsafe impl Sync for ParkedHead {}

impl ParkedHead {
    /// The writer parks `head` (right before the read-modify-write that sets the flag).
    #[inline]
    pub(crate) fn park(head: Shell) -> ParkedHead {
        let id = head.id;
        ParkedHead { raw: Arc::into_raw(head), id }
    }

    /// The writer's claim won (the flag was still set): the head is the writer's again.
    #[inline]
    pub(crate) fn resume(self) -> Shell {
        self.into_shell()
    }

    /// The publish that was to set the flag did not happen (the flush went to the lock
    /// and found the reader completed): the head is the writer's again.
    #[inline]
    pub(crate) fn unpublished(self) -> Shell {
        self.into_shell()
    }

    /// The parked strong count as the writer's `Arc` again. Called only by
    /// [`resume`](Self::resume) and [`unpublished`](Self::unpublished): the two cases in
    /// which the reader cannot own the count.
    #[inline]
    fn into_shell(self) -> Shell {
        // SAFETY: `raw` came from `Arc::into_raw` in `park` and stands for one strong
        // count, converted back once (this consumes the `ParkedHead`, and the writer
        // parks each head once). The count is still the writer's in both callers' cases:
        // its take-back found the flag set, so the reader's claim finds it clear and
        // leaves the count alone (`resume`); or no flag for this park was ever published,
        // so the reader had nothing to claim (`unpublished`).
        unsafe { Arc::from_raw(self.raw) }
    }

    /// The writer's claim lost: the reader owns the strong count (and drops it,
    /// [`drop_claimed`]); the writer must not touch it.
    #[inline]
    pub(crate) fn lost(self) {}
}

/// The reader's claim won: drops the writer's parked strong count on `head`, the last
/// linked segment (the writer parked it and links nothing while it is parked). The
/// list's and the view's counts remain, so the head goes back to the pool when it is
/// unlinked.
pub(crate) fn drop_claimed(head: &Shell) {
    // SAFETY: the reader cleared `HEAD_PARKED`, so the writer's `ParkedHead` for this
    // segment (the last linked one: it was linked before the park was published, and
    // nothing is linked until the writer takes the head back, which it now cannot)
    // gave its strong count to the reader: [1] the writer converts it back only after
    // finding the flag set, which it no longer is; [2] the reader's claim succeeds once
    // per park. The count is real, so decrementing it cannot free the segment while the
    // list still holds it.
    unsafe { Arc::decrement_strong_count(Arc::as_ptr(head)) }
}
