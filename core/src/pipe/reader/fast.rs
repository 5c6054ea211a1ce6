//! The uncontended read (seed 001's lock-free path, on the reader's side): a read that
//! finds published bytes in segments already in its view takes them with one acquiring
//! read-modify-write of the published word and no lock.
//!
//! The word's `READ_SLOW` flag stands for everything a read must see under the lock: a
//! pending read cancel, the writer's completion, a waiting `read_at_least`, a segment
//! linked since the reader last looked at the list. Each is flagged under the lock
//! before it matters (a segment before its bytes are published, the completion before
//! its last bytes, a cancel before its event), so a read that acquires an end from the
//! word and finds no flag may return `[consumed, end)` from its view, neither canceled
//! nor completed: it is ordered before whatever sets the flag next. `READER_PARKED`
//! sends a read with a registered waker to the lock as well, where its waker is kept
//! exact.
//!
//! **The event log.** The read reports `FastReadTried` *before* its read-modify-write
//! and then either `ReadReturned` (it took the bytes) or `FastReadMissed` (it goes to
//! the lock). A cancel's flag is set before its `ReadCanceled` is logged, so a cancel
//! logged before the try was flagged before the read looked, and the read went to the
//! lock; checkers judge a lock-free read against the cancels logged before its try
//! (`cancel-observed`), as they judge a fast flush against those logged before its
//! `Published`.

use crate::fault;
use crate::pipe::observe::PipeEvent;
use crate::pipe::published::{READ_SLOW, READER_PARKED};
use crate::pipe::reader::{Reader, Ready, counted};

impl Reader {
    /// The read without the lock, when the word allows it and at least `minimum` (a
    /// plain read: 1) unexamined bytes are published; otherwise the read goes to the
    /// lock, and the miss says whether only the bytes were lacking.
    pub(super) fn fast_read(&self, minimum: Option<u64>) -> Result<Ready, FastMiss> {
        let shared = &*self.shared;
        // The pre-seed design locks every operation; the `ReadSkipsPublishedEnd` planted
        // bug lives in the locked read, which must stay the one that returns bytes.
        if self.lock_every_operation || fault::ReadSkipsPublishedEnd.is_active() {
            return Err(FastMiss::Flagged);
        }
        shared.observer.emit(|| PipeEvent::FastReadTried);
        let (committed, flags) = shared.published.snapshot(fault::RelaxedFastRead.is_active());
        let wanted = minimum.unwrap_or(0).max(1);
        // The planted bug checks only `READ_SLOW`.
        let parked = if fault::FastReadIgnoresParked.is_active() { 0 } else { READER_PARKED };
        if flags & (READ_SLOW | parked) != 0 {
            shared.observer.emit(|| PipeEvent::FastReadMissed);
            return Err(FastMiss::Flagged);
        }
        if counted(committed, self.consumed, self.examined, minimum) < wanted {
            shared.observer.emit(|| PipeEvent::FastReadMissed);
            return Err(FastMiss::TooFewBytes);
        }
        let start = self.consumed;
        let end = self.read_end(committed);
        shared.observer.emit(|| PipeEvent::ReadReturned { start, end, completed: false, canceled: false });
        Ok(Ready { start, end, is_completed: false, is_canceled: false })
    }
}

/// Why a read went to the lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FastMiss {
    /// Too few unexamined bytes were published: the read waits for more.
    TooFewBytes,
    /// A flag (or the design) sends every read to the lock: a cancel, the writer's
    /// completion, a segment the view lacks, a registered waker.
    Flagged,
}
