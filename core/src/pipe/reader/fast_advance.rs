//! The uncontended `advance_to` (seed 001's lock-free path, on the reader's side): an
//! advance that returns no segment, reclaims no idle head and resumes no writer stores
//! the reader's offsets without the pipe lock.
//!
//! It runs inside a handshake with every other lock holder (see `published`): it marks
//! itself begun in the reader's own cache line, fences, loads the word, and goes to the
//! lock instead if that finds `LOCKED`; a lock holder that finds the mark waits for the
//! advance to end before it reads the offsets. So a lock-free advance, and its
//! `Consumed` event, fall wholly between two locked sections, as a locked one does: the
//! writer's pause decisions and the checkers' reading of the log are what they were with
//! the lock.
//!
//! The same load returns the flags and the committed end that decide
//! whether the lock is needed after all:
//!
//! * `FLUSH_SLOW`: the writer may be paused (its resume is decided under the lock), a
//!   flush cancel is pending, or the reader completed;
//! * `READ_SLOW`: the writer completed (the last segment's end is known and may be
//!   returned), or a segment was linked that the reader's view lacks (so the view does
//!   not tell which segments are fully consumed);
//! * the advance consumes a whole segment, which goes back to the pool.
//!
//! An advance that consumes everything published claims the writer's parked head as a
//! locked one does (`reclaim_idle_head`, after its `Consumed`) if the word it loaded
//! shows the head parked. Most often it does not: the writer is writing into it again,
//! and the advance reports `HeadBusy` without touching the word. (A park the load did
//! not see comes after the advance in the word's order, as a flush after a locked
//! advance does: .NET keeps that head too, until the reader's next advance.) When the
//! flag is set, the claim's read-modify-write decides; only a head it did claim must be
//! unlinked, under the lock, after the advance has ended (the head is the reader's by
//! then: the writer lost the flag). The writer may link a new head behind it before
//! that lock; the claimed head then ends where the new one starts.

use crate::fault;
use crate::pipe::observe::{PipeEvent, PipeOperation};
use crate::pipe::published::{FLUSH_SLOW, HEAD_PARKED, LOCKED, Published, READ_SLOW};
use crate::pipe::reader::{
    Reader, Reclaimed, forget_unlinked_kept_head, reclaim_idle_head, release_consumed, take_claim,
    unlink_consumed,
};
use crate::pipe::released;

impl Reader {
    /// Advances to the offsets already stored in `self.consumed` and `self.examined`
    /// without the lock, if nothing needs it; `false` sends the advance to the lock
    /// (nothing was changed or reported). `read_end` is the end of the read it ends.
    pub(super) fn fast_advance(&mut self, read_end: u64) -> bool {
        let shared = &*self.shared;
        // The pre-seed design locks every operation.
        if self.lock_every_operation {
            return false;
        }
        let (consumed, examined) = (self.consumed, self.examined);
        // Known without the word: a whole segment consumed (its end is the next one's
        // base, or the end of a head kept earlier) goes back under the lock.
        if self.view.is_empty()
            || self.view.get(1).is_some_and(|next| consumed >= next.base)
            || self.kept_head.is_some_and(|kept| consumed >= kept.end)
        {
            return false;
        }
        self.advances += 2;
        let (committed, flags) =
            shared.published.begin_advance(self.advances - 1, fault::AdvanceSkipsFence.is_active());
        // Ends the advance on every way out, a checker's panic included: a lock holder
        // waits while it is in progress, and the ends' drops lock.
        let advancing = Advancing { published: &shared.published, ended: self.advances };
        self.batching.advanced(read_end, committed);
        // Past the committed end only under the `ReadPastCommit` planted bug: the lock
        // sorts it out.
        if flags & (LOCKED | FLUSH_SLOW | READ_SLOW) != 0 || consumed > committed {
            return false;
        }
        shared.published.store_offsets(consumed, examined);
        let released = released(consumed, examined);
        let unconsumed = committed.saturating_sub(released);
        shared.observer.emit(|| PipeEvent::Consumed { consumed, examined, unconsumed });
        // After the event, as under the lock: a fast flush that reads it finds the event
        // in the log.
        shared.published.set_released(released);
        let claimed = if consumed != committed {
            None
        } else if flags & HEAD_PARKED != 0 {
            reclaim_idle_head(shared, consumed, self.view.back())
        } else {
            shared.observer.emit(|| PipeEvent::HeadBusy);
            None
        };
        drop(advancing);
        let reclaimed = take_claim(&mut self.kept_head, claimed);
        if let Some(reclaimed) = reclaimed {
            self.unlink_reclaimed(reclaimed);
        }
        self.shared.observer.emit(|| PipeEvent::AdvanceFinished);
        true
    }

    /// After a lock-free advance took the writer's idle head back: unlinks it (and
    /// whatever it consumed before it) under the lock, then returns them to the pools
    /// outside it, as a locked advance does.
    fn unlink_reclaimed(&mut self, reclaimed: Reclaimed) {
        let shared = &*self.shared;
        let unlinked = {
            let mut state = shared.lock_as_reader(self.consumed, self.examined);
            let unlinked = unlink_consumed(
                &mut state,
                self.consumed,
                Some(reclaimed),
                std::mem::take(&mut self.unlinked),
            );
            forget_unlinked_kept_head(&mut self.kept_head, &state);
            shared.observer.emit(|| PipeEvent::LockReleased { op: PipeOperation::AdvanceTo });
            unlinked
        };
        self.unlinked = release_consumed(&mut self.view, &mut self.pool, shared, unlinked);
    }
}

/// A lock-free advance in progress: ends it when dropped.
struct Advancing<'a> {
    published: &'a Published,
    /// The reader's count once this advance has ended.
    ended: u64,
}

impl Drop for Advancing<'_> {
    fn drop(&mut self) {
        if !pipecheck_sync::skip_locking_cleanup() {
            self.published.end_advance(self.ended);
        }
    }
}
