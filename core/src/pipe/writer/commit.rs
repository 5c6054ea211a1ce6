//! The flush's commit: the lock-free fast path (seed 001's uncontended flush) and the
//! single-lock slow path, and the flush results they report.

use crate::fault;
use crate::pipe::error::PipeError;
use crate::pipe::observe::{PipeEvent, PipeOperation};
use crate::pipe::parked_head::ParkedHead;
use crate::pipe::writer::{FlushResult, Writer, give_back_memory, link};
use crate::pipe::{Shared, State, hand_over};
use pipecheck_sync::Violation;

impl Writer {
    /// Publishes advanced bytes: without the lock when it can ([`fast_commit`](Self::fast_commit)),
    /// else under it ([`locked_commit`](Self::locked_commit)).
    // Always inlined with `fast_commit` (both or neither: `commit` alone inlined cost
    // 5 more instructions per 64 B chunk, both saved 17; callgrind, see
    // core/benches/PERFORMANCE.md); `locked_commit` stays out of line.
    #[inline(always)]
    pub(crate) fn commit(&mut self) -> Committed {
        match self.fast_commit() {
            FastCommit::Published => Committed::Published,
            FastCommit::Announced { parked } => Committed::Locked(self.locked_commit(Some(parked))),
            FastCommit::NotTried => Committed::Locked(self.locked_commit(None)),
        }
    }

    /// The uncontended flush (seed 001): with nothing to link and no pause in sight,
    /// publishes the committed end with one release compare-and-swap, which succeeds
    /// only while no reader is parked and nothing else needs the lock (see
    /// `published`), and returns ready. Otherwise the flush must take the lock; nothing
    /// was published then, but the bytes may have been announced (`Published`).
    ///
    /// The head is linked already (the reader reads its front): the same
    /// compare-and-swap parks it for a reader that consumes everything to reclaim.
    #[inline(always)]
    fn fast_commit(&mut self) -> FastCommit {
        let shared = &*self.shared;
        let nothing_to_link = self.unlinked.is_empty() && (self.head_linked || self.head_written == 0);
        if self.lock_every_operation || self.reader_gone || !nothing_to_link {
            return FastCommit::NotTried;
        }
        // Only the writer changes the committed end, so its own copy is exact.
        let committed = self.published_end + self.unflushed;
        let pause = shared.config.pause_writer_threshold;
        // The reader's released offset as last read: the reader only moves it forward,
        // so a stale copy only over-counts, and the reader's line is read again only
        // when the copy says the pause is near (reading it on every flush costs a
        // cache-line transfer per chunk at 64 B; see core/benches/PERFORMANCE.md).
        // Read before the event: the reader stores it only after its `Consumed` event,
        // so the log never shows less examined than this flush decides with.
        if pause > 0 && committed.saturating_sub(self.released_seen) >= pause {
            self.released_seen = shared.published.released();
            if committed.saturating_sub(self.released_seen) >= pause {
                return FastCommit::NotTried;
            }
        }
        shared.observer.emit(|| PipeEvent::Published { committed });
        // The write ends here: a linked head is parked by the publish itself.
        let park = self.park_head();
        let relaxed = fault::RelaxedPublish.is_active();
        if !self.shared.published.try_publish(
            self.published_end,
            self.unflushed,
            park,
            &mut self.carried_flags_seen,
            relaxed,
        ) {
            // The lock publishes the same bytes, and with them the park.
            return FastCommit::Announced { parked: park };
        }
        self.published_end = committed;
        self.unflushed = 0;
        self.memory_handed_out = false;
        // Decided by the publish (no flush cancel was pending at it), not under the
        // lock: checkers judge it against the cancels logged before `Published`.
        emit_flush_returned(&self.shared, &FlushResult::default());
        FastCommit::Published
    }

    /// A linked head becomes the parked one (`parked_head`), which the publish that
    /// follows hands over by setting `HEAD_PARKED`. Returns whether it parked. The
    /// event comes first and the writer lets go of its `Arc` before the publish: once
    /// the flag is up, the reader may claim the head, log that, and return it. An empty
    /// head that was never linked is not parked (the reader cannot reach it) and stays.
    #[inline]
    fn park_head(&mut self) -> bool {
        if !self.head_linked {
            return false;
        }
        let Some(head) = self.head.take() else { return false };
        let id = head.id;
        self.shared.observer.emit(|| PipeEvent::HeadParked { segment: id });
        self.parked = Some(ParkedHead::park(head));
        true
    }

    /// Links unlinked segments and publishes advanced bytes, under the lock. Returns
    /// the flush's outcome when it must not wait, so a flush that need not wait takes
    /// the lock once. After the reader completed, the advanced bytes are dropped
    /// instead and their segments given back — unless the fast path already announced
    /// them (`announced` is `Some(parked)`): the flush then counts as having come first,
    /// and publishes them (into the linked head: nothing is added), so the log's
    /// `Published` holds, with the park the fast path `parked` the head for.
    #[inline(never)]
    fn locked_commit(&mut self, announced: Option<bool>) -> Option<Result<FlushResult, PipeError>> {
        // A handle of its own, so the head can be parked (`&mut self`) under the lock.
        let shared = self.shared.clone();
        let shared = &*shared;
        let mut discarded = Vec::new();
        // Bytes committed under the lock and published after the flush's event, and
        // whether that publish parks the head.
        let mut to_publish = 0;
        let mut park = false;
        let (reader_waker, early) = {
            let mut state = shared.lock_for_flush(self.published_end);
            let reader = state.reader_completion.clone();
            if reader.is_some() {
                if let Some(parked) = announced {
                    if parked && let Some(parked) = self.parked.take() {
                        // The fast path parked the head, but no flag was published: it is
                        // still the writer's alone, and stays so (nothing will be read).
                        let id = parked.id;
                        self.head = Some(parked.unpublished());
                        shared.observer.emit(|| PipeEvent::HeadResumed { segment: id });
                    }
                    state.committed = shared.published.publish_locked(self.unflushed, false);
                    self.published_end = state.committed;
                    self.unflushed = 0;
                }
                // Nothing will be read: keep the bytes out of the list and reuse memory.
                self.reader_gone = true;
                if !fault::WritesPileUpAfterReaderCompleted.is_active() {
                    discarded.append(&mut self.unlinked);
                }
                if !self.head_linked {
                    self.head_written = 0;
                }
                // The planted bug: the dropped bytes still count against the threshold.
                let pause = shared.config.pause_writer_threshold;
                if fault::PausesAfterReaderCompleted.is_active() && pause > 0 && self.unflushed >= pause {
                    state.writer_paused = true;
                }
                self.unflushed = 0;
            } else {
                for shell in self.unlinked.drain(..) {
                    link(shared, &mut state, shell);
                }
                if let Some(head) = &self.head
                    && !self.head_linked
                    && self.head_written > 0
                {
                    link(shared, &mut state, head.clone());
                    self.head_linked = true;
                }
                // Committed under the lock now, published below, after its `Flushed`:
                // a lock-free read may see the new end as soon as it is published, and
                // must find the flush in the log by then. (Only the writer moves the
                // end, so it is exact before the publish.)
                to_publish = std::mem::take(&mut self.unflushed);
                state.committed = self.published_end + to_publish;
                self.published_end = state.committed;
                // The write has ended: every byte of the head is committed and the memory
                // handed out may not be advanced into any more. Park the head (the publish
                // below hands it over), so that a reader that consumes everything can
                // return it (.NET's idle writing head). A fast path that got here parked it.
                park = match announced {
                    Some(parked) => parked,
                    None => self.park_head(),
                };
                self.memory_handed_out = false;
            }
            if let Some(reader) = reader {
                state.flush_canceled = false;
                let (committed, paused) = (state.committed, state.writer_paused);
                shared.observer.emit(|| PipeEvent::Flushed { committed, unconsumed: 0, paused });
                // Only the planted bug pauses here; the flush then waits in `poll`.
                let early = (!paused).then(|| match reader {
                    Some(failure) => Err(PipeError::ReaderFailed(hand_over(&failure))),
                    None => Ok(FlushResult { is_completed: true, is_canceled: false }),
                });
                if let Some(Ok(result)) = &early {
                    emit_flush_returned(shared, result);
                }
                shared.sync_flush_flag(&mut state);
                shared.observer.emit(|| PipeEvent::LockReleased { op: PipeOperation::Flush });
                (None, early)
            } else {
                if state.flush_must_pause(&shared.config) {
                    state.writer_paused = true;
                }
                // Under the lock, so the event log orders it with the reader's events.
                let (committed, unconsumed, paused) =
                    (state.committed, state.unconsumed(), state.writer_paused);
                shared.observer.emit(|| PipeEvent::Flushed { committed, unconsumed, paused });
                let published = shared.published.publish_locked(to_publish, park);
                let holds = published == committed;
                Violation::raise_unless(
                    holds,
                    crate::invariant::MONOTONIC_OFFSETS,
                    "only the writer moves the committed end",
                );
                let waker = if state.committed > state.examined && !fault::FlushForgetsWake.is_active() {
                    shared.take_reader_waker(&mut state)
                } else {
                    None
                };
                // Decided here, under this lock, so a flush that need not wait returns
                // ready without locking again in the future's first poll (the order of
                // the checks is the poll's: a pending cancel first, then the pause).
                let early = if std::mem::take(&mut state.flush_canceled) {
                    Some(Ok(canceled_flush_result(&state)))
                } else if !state.writer_paused {
                    Some(Ok(FlushResult::default()))
                } else {
                    None
                };
                if let Some(Ok(result)) = &early {
                    emit_flush_returned(shared, result);
                }
                shared.sync_flush_flag(&mut state);
                shared.observer.emit(|| PipeEvent::LockReleased { op: PipeOperation::Flush });
                (waker, early)
            }
        };
        give_back_memory(shared, discarded);
        if let Some(waker) = reader_waker {
            waker.wake();
        }
        early
    }
}

/// How the fast flush ended.
enum FastCommit {
    /// Published without the lock: ready, neither completed nor canceled (reported).
    Published,
    /// `Published` was reported but a flag stopped the publish: the lock must publish
    /// the very same bytes, and park the head if `parked` (it is parked already).
    Announced { parked: bool },
    /// The fast path did not apply; nothing was reported.
    NotTried,
}

/// What a flush's [`commit`](Writer::commit) decided.
pub(crate) enum Committed {
    /// Published without the lock: ready, neither completed nor canceled (reported).
    Published,
    /// Went to the lock: the outcome when the flush must not wait, else `None`.
    Locked(Option<Result<FlushResult, PipeError>>),
}

/// Reports a flush's result to the observer (under the pipe lock, where it is decided)
/// and returns it.
#[inline]
pub(super) fn emit_flush_returned(shared: &Shared, result: &FlushResult) -> FlushResult {
    let (completed, canceled) = (result.is_completed, result.is_canceled);
    shared.observer.emit(|| PipeEvent::FlushReturned { completed, canceled });
    *result
}

/// The result of a flush that took a pending cancel (under the lock, after clearing
/// it): `is_canceled` — or, under the `FlushLosesCancel` planted bug, nothing reported
/// when the flush would not wait anyway.
pub(super) fn canceled_flush_result(state: &State) -> FlushResult {
    if !state.writer_paused && fault::FlushLosesCancel.is_active() {
        return FlushResult::default();
    }
    FlushResult { is_completed: false, is_canceled: true }
}
