//! The reading end: `read`, `advance_to`, and returning consumed segments.

mod at_least;
mod fast;
mod fast_advance;
mod poll;

use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::fault;
use crate::pipe::error::{Failure, PipeError};
use crate::pipe::observe::{PipeEnd, PipeEvent, PipeOperation, SegmentId};
use crate::pipe::parked_head;
use crate::pipe::pool::{PoolReturner, Shell};
use crate::pipe::published::READER_PARKED;
use crate::pipe::read_buf::{Position, ReadBuf, ReadResult};
use crate::pipe::{Shared, State, hand_over, register_end_waker, spin};
use fast::FastMiss;
use pipecheck_sync::sync::Arc;

/// The single reader of a pipe.
///
/// # Examples
///
// Under loom and shuttle the sync primitives only work inside a model: compile, do not run.
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// use pipecheck_sync::future::block_on;
/// let (mut writer, mut reader) = pipecheck_pipe::pipe();
/// writer.write(b"ping").unwrap();
/// writer.complete(None);
/// let result = block_on(reader.read()).unwrap();
/// assert!(result.is_completed());
/// let first = result.buffer().position(2).unwrap();
/// let end = result.buffer().end();
/// reader.advance_to(first, end).unwrap(); // consumed "pi", examined all
/// let again = reader.try_read().unwrap().expect("the writer completed, so reads are ready");
/// assert_eq!(again.buffer().to_vec(), b"ng");
/// ```
pub struct Reader {
    shared: Arc<Shared>,
    pool: PoolReturner,
    /// The front of the shared segment list as of the last read (always a prefix of it).
    view: VecDeque<Shell>,
    /// The buffer handed out and not yet released by `advance_to`: `[start, end)`.
    outstanding: Option<(u64, u64)>,
    /// The outstanding buffer came from a canceled read: it is tentative, and the next
    /// read releases it without `advance_to` (as .NET's `ReadingTentative`).
    outstanding_tentative: bool,
    /// Number of the last read; positions carry it.
    read_count: u64,
    /// The consumed and examined offsets of the last `advance_to` (the state's copies
    /// are the same; these spare the lock-free read a look at the state).
    consumed: u64,
    examined: u64,
    completed: bool,
    /// [`LockScope::EveryOperation`](crate::LockScope::EveryOperation), read once: the
    /// pre-seed design returns consumed segments while holding the lock (benchmarks).
    lock_every_operation: bool,
    /// Empty between advances: the list the segments an advance unlinks are collected
    /// in, kept so that unlinking allocates nothing (it held no segment on return).
    unlinked: Vec<Shell>,
    /// The last `advance_to` resumed the paused writer: the next read that finds nothing
    /// looks again a few times before it parks (see `spin`).
    resumed_writer: bool,
    /// Whether a read that finds nothing waits for the streaming writer's next bytes
    /// before it parks (see `spin`).
    batching: spin::Batching,
    /// A head this reader claimed while it held bytes not consumed yet (`HeadKept`), and
    /// its end: it stays linked until an advance consumes to that end, which returns it
    /// even while it is the last linked segment and the writer is idle.
    kept_head: Option<Reclaimed>,
    /// Twice the number of lock-free `advance_to`s so far: the count the reader
    /// publishes for the lock holders' handshake (see `published`).
    advances: u64,
}

/// What a successful poll of a read produced.
struct Ready {
    start: u64,
    end: u64,
    is_completed: bool,
    is_canceled: bool,
}

impl Reader {
    pub(crate) fn new(shared: Arc<Shared>, pool: PoolReturner) -> Reader {
        let lock_every_operation = shared.config.lock_every_operation;
        Reader {
            shared,
            pool,
            view: VecDeque::new(),
            outstanding: None,
            outstanding_tentative: false,
            read_count: 0,
            consumed: 0,
            examined: 0,
            completed: false,
            lock_every_operation,
            unlinked: Vec::new(),
            resumed_writer: false,
            batching: spin::Batching::default(),
            kept_head: None,
            advances: 0,
        }
    }

    /// Waits until there are unexamined committed bytes, the writer completed, or the
    /// read is canceled, and returns the unconsumed bytes.
    ///
    /// A canceled read is *tentative*, as in .NET: its buffer may be released with
    /// [`advance_to`](Self::advance_to), but need not be — the next read releases it
    /// as if nothing had been consumed or examined, and returns the same bytes (and any
    /// new ones).
    ///
    /// # Errors
    ///
    /// [`PipeError::ReaderCompleted`] after completion; [`PipeError::AdvanceRequired`]
    /// while a previous buffer (of a read that was not canceled) is outstanding;
    /// [`PipeError::WriterFailed`] when the writer completed with a failure.
    pub fn read(&mut self) -> ReadFuture<'_> {
        ReadFuture { reader: Some(self), minimum: None }
    }

    /// Like [`read`](Self::read), without waiting: `Ok(None)` when a read would wait.
    ///
    /// # Errors
    ///
    /// As [`read`](Self::read).
    pub fn try_read(&mut self) -> Result<Option<ReadResult<'_>>, PipeError> {
        match self.poll_read(None, None) {
            Poll::Ready(Ok(ready)) => Ok(Some(self.result(ready))),
            Poll::Ready(Err(e)) => Err(e),
            Poll::Pending => Ok(None),
        }
    }

    fn result(&self, ready: Ready) -> ReadResult<'_> {
        ReadResult {
            buffer: ReadBuf::new(&self.view, ready.start, ready.end, self.read_count),
            is_completed: ready.is_completed,
            is_canceled: ready.is_canceled,
        }
    }

    /// The committed bytes the reader has not examined yet: what back-pressure counts
    /// (.NET's unconsumed length, which `AdvanceTo` lowers by the newly *examined*
    /// bytes) and what [`read_at_least`](Self::read_at_least) waits for.
    ///
    /// It is committed − examined, where examined is the `examined` position of the last
    /// [`advance_to`](Self::advance_to): bytes the reader looked at but did not consume
    /// still sit in the next read's buffer, but no longer count. While a read's buffer is
    /// outstanding they count as before the read. The writer's unflushed bytes do not
    /// count; a flush from another thread may change the length right after it is read.
    ///
    /// # Examples
    ///
    // Under loom and shuttle the sync primitives only work inside a model: compile, do not run.
    #[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
    #[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
    /// use pipecheck_sync::future::block_on;
    /// let (mut writer, mut reader) = pipecheck_pipe::pipe();
    /// writer.write(b"hello").unwrap();
    /// block_on(writer.flush()).unwrap();
    /// assert_eq!(reader.buffered_len().unwrap(), 5);
    /// let result = block_on(reader.read()).unwrap();
    /// let (start, end) = (result.buffer().start(), result.buffer().end());
    /// reader.advance_to(start, end).unwrap(); // examined everything, consumed nothing
    /// assert_eq!(reader.buffered_len().unwrap(), 0);
    /// ```
    ///
    /// # Errors
    ///
    /// [`PipeError::ReaderCompleted`] after the reader completed.
    pub fn buffered_len(&self) -> Result<u64, PipeError> {
        if self.completed {
            return Err(PipeError::ReaderCompleted);
        }
        let shared = &*self.shared;
        let state = shared.lock_as_reader(self.consumed, self.examined);
        let len = if fault::LengthCountsConsumed.is_active() {
            // The planted bug: bytes examined but not consumed still count.
            state.committed.saturating_sub(state.consumed)
        } else {
            state.unexamined()
        };
        shared.observer.emit(|| PipeEvent::LengthObserved { len });
        Ok(len)
    }

    /// One attempt at a read; registers `cx`'s waker when it must wait. With
    /// `minimum`, a read-at-least: ready only with that many unexamined bytes.
    fn poll_read(
        &mut self,
        cx: Option<&Context<'_>>,
        minimum: Option<u64>,
    ) -> Poll<Result<Ready, PipeError>> {
        if self.completed {
            return Poll::Ready(Err(PipeError::ReaderCompleted));
        }
        let shared = &*self.shared;
        if self.outstanding.is_some() {
            let tentative = self.outstanding_tentative && !fault::CanceledReadNeedsAdvance.is_active();
            if !tentative {
                return Poll::Ready(Err(PipeError::AdvanceRequired));
            }
            // The canceled read's buffer goes back untouched: nothing consumed, nothing
            // examined, so the shared offsets stay as they are.
            self.outstanding = None;
            self.outstanding_tentative = false;
        }
        let writer_resumed = std::mem::take(&mut self.resumed_writer);
        let missed = match self.fast_read(minimum) {
            Ok(ready) => return Poll::Ready(Ok(self.hand_out(ready))),
            Err(missed) => missed,
        };
        // The writer this reader just resumed is about to flush, or a writer streaming on
        // another thread publishes its next bytes within microseconds: look a few times
        // before locking to park. The lock-free read decides, as on the first try. (A
        // flagged miss has the lock to see first: a cancel or the writer's completion
        // would otherwise wait out the batching looks.)
        let wait = if writer_resumed {
            Some(spin::Wait::Short)
        } else if cx.is_some() && missed == FastMiss::TooFewBytes && self.batching.should_wait() {
            Some(spin::Wait::Batching)
        } else {
            None
        };
        let examined = self.examined;
        let found = wait.is_some_and(|wait| {
            let found = spin::spin_until(shared, PipeEnd::Reader, wait, || {
                shared.published.committed_hint() > examined
            });
            if wait == spin::Wait::Batching {
                self.batching.waited(found);
            }
            found
        });
        if found {
            if fault::SpinTrustsHint.is_active() {
                // The planted bug: the end the look saw is taken as the read's.
                let (start, end) = (self.consumed, shared.published.committed_hint());
                shared.observer.emit(|| PipeEvent::ReadReturned {
                    start,
                    end,
                    completed: false,
                    canceled: false,
                });
                let ready = Ready { start, end, is_completed: false, is_canceled: false };
                return Poll::Ready(Ok(self.hand_out(ready)));
            }
            if let Ok(ready) = self.fast_read(minimum) {
                return Poll::Ready(Ok(self.hand_out(ready)));
            }
        }
        let mut state = if fault::ReadSkipsPublishedEnd.is_active() {
            // The planted bug: with bytes to return, the end the last lock holder
            // loaded is taken as the newest.
            shared.lock_as_reader_unless_unexamined(self.consumed, self.examined)
        } else {
            shared.lock_as_reader(self.consumed, self.examined)
        };
        // The writer's failure comes first, as in .NET's `GetReadResult`
        // (`IsCompletedOrThrow` before `ObserveCancellation`): a read canceled after the
        // writer failed reports the failure, and the cancel stays pending, unobserved.
        if let Some(Some(failure)) = &state.writer_completion {
            return Poll::Ready(Err(PipeError::WriterFailed(hand_over(failure))));
        }
        let mut is_canceled = std::mem::take(&mut state.read_canceled);
        if is_canceled && state.committed > state.examined && fault::ReadLosesCancel.is_active() {
            // The planted bug: bytes are ready, so the cancel is dropped unreported.
            is_canceled = false;
        }
        let is_completed = state.writer_completion.is_some();
        if !is_canceled {
            // A plain read waits for one unexamined byte; so does `read_at_least(0)`, as
            // in .NET.
            let wanted = minimum.unwrap_or(0).max(1);
            if !is_completed
                && counted(state.committed, state.consumed, state.examined, minimum) < wanted
                && !park_finds_bytes(shared, &mut state, wanted, minimum, cx)
            {
                let mut writer_waker = None;
                if let Some(cx) = cx {
                    register_end_waker(shared, &mut state.reader_waker, cx, PipeEnd::Reader);
                    shared.observer.emit(|| PipeEvent::WakerRegistered { end: PipeEnd::Reader });
                    let awaits_end = state.examined + wanted;
                    shared.observer.emit(|| PipeEvent::ReadParked { awaits_end });
                    state.read_minimum = minimum;
                    shared.sync_read_flag(&mut state);
                    if let Some(minimum) = minimum {
                        writer_waker = at_least::wait_for(shared, &mut state, minimum);
                    }
                }
                drop(state);
                if let Some(waker) = writer_waker {
                    waker.wake();
                }
                return Poll::Pending;
            }
        }
        state.read_minimum = None;
        let known = self.view.len();
        self.view.extend(state.segments.iter().skip(known).cloned());
        // The view now holds every linked segment: lock-free reads may resume.
        state.unseen_link = false;
        shared.sync_read_flag(&mut state);
        let start = state.consumed;
        let end = self.read_end(state.committed);
        shared.observer.emit(|| PipeEvent::ReadReturned {
            start,
            end,
            completed: is_completed,
            canceled: is_canceled,
        });
        drop(state);
        Poll::Ready(Ok(self.hand_out(Ready { start, end, is_completed, is_canceled })))
    }

    /// The end of the buffer a read returns, given the committed end: that end itself.
    /// The `ReadPastCommit` planted bug goes one byte past it, into the writer's free
    /// tail.
    fn read_end(&self, committed: u64) -> u64 {
        if fault::ReadPastCommit.is_active()
            && let Some(last) = self.view.back()
            && last.base + last.memory().capacity() as u64 > committed
        {
            return committed + 1;
        }
        committed
    }

    /// Makes `ready` the outstanding buffer (under the lock or not: the state is the
    /// reader's own) and returns it.
    fn hand_out(&mut self, ready: Ready) -> Ready {
        self.read_count += 1;
        self.outstanding = Some((ready.start, ready.end));
        // The planted bug keeps a mark no read released.
        self.outstanding_tentative =
            ready.is_canceled || (self.outstanding_tentative && fault::TentativeOutlivesAdvance.is_active());
        ready
    }

    /// Releases the buffer from the last read: bytes before `consumed` are gone for
    /// good, bytes before `examined` have been looked at (the next read waits for more
    /// unless `examined` is before the end). Fully consumed segments go back to the
    /// pool in this call, outside the lock — including the writer's head once
    /// everything is consumed and the writer is idle (it flushed and has not asked for
    /// memory since), so a fully consumed pipe keeps no segment, as in .NET; the next
    /// write then takes a pooled segment. Back-pressure counts *examined* bytes, as in .NET: a
    /// paused writer resumes once committed − examined drops below the resume
    /// threshold, so examining a partial frame without consuming it lets the writer
    /// send the rest.
    ///
    /// # Errors
    ///
    /// [`PipeError::NothingToAdvance`] without an outstanding buffer;
    /// [`PipeError::StalePosition`], [`PipeError::PositionOutOfRange`],
    /// [`PipeError::ExaminedBeforeConsumed`], [`PipeError::ExaminedWentBackwards`] for bad
    /// positions (the buffer stays outstanding; .NET 9 accepts examined going back, see
    /// that variant); [`PipeError::ReaderCompleted`] after completion.
    pub fn advance_to(&mut self, consumed: Position, examined: Position) -> Result<(), PipeError> {
        if self.completed {
            return Err(PipeError::ReaderCompleted);
        }
        let (start, end) = self.outstanding.ok_or(PipeError::NothingToAdvance)?;
        for p in [consumed, examined] {
            if p.read != self.read_count {
                return Err(PipeError::StalePosition {
                    position_read: p.read,
                    current_read: self.read_count,
                });
            }
            if p.offset < start || p.offset > end {
                return Err(PipeError::PositionOutOfRange { offset: p.offset, start, end });
            }
        }
        if fault::MisuseMovesExamined.is_active() {
            // The planted bug: the offsets are taken before they are checked.
            (self.consumed, self.examined) = (consumed.offset, examined.offset);
        }
        if examined.offset < consumed.offset {
            return Err(PipeError::ExaminedBeforeConsumed {
                consumed: consumed.offset,
                examined: examined.offset,
            });
        }
        if examined.offset < self.examined {
            return Err(PipeError::ExaminedWentBackwards {
                previous: self.examined,
                examined: examined.offset,
            });
        }
        self.outstanding = None;
        // The planted bug: the mark of a canceled read outlives its release.
        self.outstanding_tentative &= fault::TentativeOutlivesAdvance.is_active();
        self.consumed = consumed.offset;
        self.examined = examined.offset;

        if self.fast_advance(end) {
            return Ok(());
        }
        let shared = &*self.shared;
        let (state, writer_waker, unlinked) = {
            let mut state = shared.lock_as_reader(self.consumed, self.examined);
            self.batching.advanced(end, state.committed);
            // For the lock holders after a later lock-free advance, which may mark itself
            // begun and then take the lock instead (see `published`): the atomics must
            // hold the offsets the log shows last.
            shared.published.store_offsets(self.consumed, self.examined);
            let unconsumed = state.unconsumed();
            shared.observer.emit(|| PipeEvent::Consumed {
                consumed: consumed.offset,
                examined: examined.offset,
                unconsumed,
            });
            // After the event: a fast flush that reads it finds the event in the log.
            shared.publish_released(&mut state);
            // The resume is decided on the count under this lock: while the writer is
            // paused it cannot publish, so the committed end is exact here. The planted
            // bug counts from the end of its own read, which the writer may have
            // passed (and paused at) since.
            let counted = if fault::ResumesOnStaleCount.is_active() {
                end.saturating_sub(state.released())
            } else {
                unconsumed
            };
            let writer_waker = if state.writer_paused && counted < shared.config.resume_writer_threshold {
                self.resumed_writer = true;
                shared.resume_writer(&mut state, !fault::NoResumeOnConsume.is_active())
            } else {
                None
            };
            let claimed = if consumed.offset == state.committed && state.writer_completion.is_none() {
                reclaim_idle_head(shared, consumed.offset, state.segments.back())
            } else {
                None
            };
            let reclaimed = take_claim(&mut self.kept_head, claimed);
            // A head kept earlier ends where its claim read, as a reclaimed one does.
            let known_end = reclaimed.or(self.kept_head);
            let unlinked =
                unlink_consumed(&mut state, consumed.offset, known_end, std::mem::take(&mut self.unlinked));
            forget_unlinked_kept_head(&mut self.kept_head, &state);
            shared.observer.emit(|| PipeEvent::LockReleased { op: PipeOperation::AdvanceTo });
            (state, writer_waker, unlinked)
        };
        if self.lock_every_operation {
            // The pre-seed design: buffers and segment objects go back under the lock.
            self.unlinked = release_consumed(&mut self.view, &mut self.pool, shared, unlinked);
            drop(state);
            if let Some(waker) = writer_waker {
                waker.wake();
            }
        } else {
            drop(state);
            if let Some(waker) = writer_waker {
                waker.wake();
            }
            self.unlinked = release_consumed(&mut self.view, &mut self.pool, shared, unlinked);
        }
        shared.observer.emit(|| PipeEvent::AdvanceFinished);
        Ok(())
    }

    /// Shorthand for `advance_to(consumed, consumed)`.
    ///
    /// # Errors
    ///
    /// As [`advance_to`](Self::advance_to).
    pub fn advance(&mut self, consumed: Position) -> Result<(), PipeError> {
        self.advance_to(consumed, consumed)
    }

    /// Completes the reader: the writer is woken (its flushes now report completion)
    /// and no further reader operation succeeds. Idempotent; also done on drop.
    pub fn complete(&mut self, failure: Option<Failure>) {
        if self.completed {
            return;
        }
        self.completed = true;
        self.outstanding = None;
        self.view.clear();
        let failed = failure.is_some();
        let shared = self.shared.clone();
        let (writer_waker, release) = {
            let mut state = shared.lock_as_reader(self.consumed, self.examined);
            state.reader_completion = Some(failure);
            // `FLUSH_SLOW` before the event: a writer's `start_segment` that reads the
            // word without it is then ordered before the completion in the log too.
            shared.sync_flush_flag(&mut state);
            state.read_minimum = None;
            shared.sync_read_flag(&mut state);
            shared.unpark_reader(&mut state);
            shared.observer.emit(|| PipeEvent::ReaderCompleted { failed });
            if state.writer_paused {
                // Its flag sync changes nothing: the completion above keeps `FLUSH_SLOW`
                // set. The waker is taken below, paused or not.
                shared.resume_writer(&mut state, false);
            }
            let writer_waker = shared.observer.take_waker(&mut state.writer_waker, PipeEnd::Writer);
            shared.observer.emit(|| PipeEvent::LockReleased { op: PipeOperation::CompleteReader });
            (writer_waker, state.take_all_if_both_completed())
        };
        if let Some(waker) = writer_waker {
            waker.wake();
        }
        shared.release_final(release);
    }

    /// The state both ends share.
    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// After [`reset_pipe`](crate::reset_pipe): a new reader's own state, keeping the
    /// segment pool and the read count (positions from before the reset stay stale).
    pub(crate) fn reset_after_completion(&mut self) {
        self.view.clear();
        self.outstanding = None;
        self.outstanding_tentative = false;
        self.consumed = 0;
        self.examined = 0;
        self.completed = false;
        self.resumed_writer = false;
        self.batching = spin::Batching::default();
        self.kept_head = None;
    }

    /// Releases a pending read (or the next read) with `is_canceled` set.
    pub fn cancel_pending_read(&self) {
        cancel_read(&self.shared);
    }

    /// A handle that cancels pending reads from another thread or task.
    pub fn read_canceller(&self) -> ReadCanceller {
        ReadCanceller { shared: self.shared.clone() }
    }
}

/// What an advance's claim of the idle head leaves to unlink now: the reclaimed idle
/// head. A head kept with bytes not consumed yet goes to `kept_head` instead (the
/// reader's), for the advance that consumes to its end.
fn take_claim(kept_head: &mut Option<Reclaimed>, claimed: Option<Claimed>) -> Option<Reclaimed> {
    match claimed? {
        Claimed::Idle(reclaimed) => Some(reclaimed),
        Claimed::Kept(kept) => {
            // The planted bug forgets the kept head's end: the head stays linked after it
            // is consumed, until the writer links a new head or completes.
            if !fault::ForgetsKeptHeadEnd.is_active() {
                *kept_head = Some(kept);
            }
            None
        }
    }
}

/// After an unlink under the lock: a kept head that is no longer linked is done.
fn forget_unlinked_kept_head(kept_head: &mut Option<Reclaimed>, state: &State) {
    if let Some(kept) = *kept_head
        && !state.segments.iter().any(|segment| segment.id == kept.head)
    {
        *kept_head = None;
    }
}

/// `READER_PARKED` is set exactly while a reader waker is registered (so every flush
/// that would have woken it under the lock still does).
///
/// A read about to wait parks first, then re-checks: it sets `READER_PARKED` and looks
/// at the committed end that read-modify-write returned, the newest. A fast flush that
/// published after this read took the lock is seen here (the read returns its bytes
/// and unparks); one that publishes later finds the flag and takes the lock to wake
/// the read (see `published`). Returns whether the bytes the read waits for are there.
/// Under the lock; `try_read` (no `cx`) never parks.
fn park_finds_bytes(
    shared: &Shared,
    state: &mut State,
    wanted: u64,
    minimum: Option<u64>,
    cx: Option<&Context<'_>>,
) -> bool {
    if cx.is_none() {
        return false;
    }
    let latest = shared.published.set(&mut state.flags, READER_PARKED);
    if fault::ParksWithoutRecheck.is_active() {
        // The planted bug: check-then-park, trusting the end loaded with the lock.
        return false;
    }
    state.committed = latest;
    if counted(state.committed, state.consumed, state.examined, minimum) < wanted {
        return false;
    }
    // The flag stands for a registered waker, which a flush must wake (even one an
    // earlier poll left): only without one does the fast path open again.
    if state.reader_waker.is_none() {
        shared.unpark_reader(state);
    }
    true
}

/// The bytes a read counts toward what it waits for: the unexamined ones, committed −
/// examined (a read-at-least's `minimum`, or one byte). The `ReadAtLeastCountsConsumed`
/// planted bug counts a read-at-least's from the consumed offset, bytes the reader has
/// already examined included.
pub(super) fn counted(committed: u64, consumed: u64, examined: u64, minimum: Option<u64>) -> u64 {
    let from =
        if minimum.is_some() && fault::ReadAtLeastCountsConsumed.is_active() { consumed } else { examined };
    committed.saturating_sub(from)
}

/// Everything consumed and the writer idle: claims its parked head, so a fully
/// consumed pipe keeps no segment (.NET), and returns it. The claim decides it
/// (`parked_head`): if the writer's `get_memory` took the head back first, it is
/// writing there again and the head stays. `last_linked` is the last segment of the
/// list, which a parked head is. Under the lock, or inside a lock-free `advance_to`
/// (where the reader's view is the list).
///
/// The `KeepsIdleWriteHead` planted bug never claims the head.
fn reclaim_idle_head(shared: &Shared, consumed: u64, last_linked: Option<&Shell>) -> Option<Claimed> {
    if fault::KeepsIdleWriteHead.is_active() {
        return None;
    }
    let Some(claimed_end) = shared.published.claim_head() else {
        shared.observer.emit(|| PipeEvent::HeadBusy);
        return None;
    };
    let Some(head) = last_linked else {
        pipecheck_sync::Violation::new(
            crate::invariant::RELEASE_ONCE,
            "a head was parked without being linked",
        )
        .raise();
    };
    // The writer's count is the reader's now, whatever the end: the writer starts a new
    // head at its next `get_memory`.
    parked_head::drop_claimed(head);
    let id = head.id;
    // The end the reader compared may predate a fast flush that published into the
    // head and parked it again (no lock between the two): the claim read the end from
    // the same word as the flag. Such a head holds bytes not consumed yet, so it is not
    // idle: it stays linked, and its bytes are read as any segment's. The planted bug
    // trusts the end it compared.
    let end = if fault::ReclaimTrustsLockedEnd.is_active() { consumed } else { claimed_end };
    if end != consumed {
        shared.observer.emit(|| PipeEvent::HeadKept { segment: id, end });
        return Some(Claimed::Kept(Reclaimed { head: id, end }));
    }
    shared.observer.emit(|| PipeEvent::HeadReclaimed { segment: id });
    Some(Claimed::Idle(Reclaimed { head: id, end }))
}

/// What the reader's claim of the writer's parked head won.
pub(super) enum Claimed {
    /// The head is idle: everything in it is consumed, and this advance unlinks it.
    Idle(Reclaimed),
    /// The head holds bytes not consumed yet: it stays linked, with its end known.
    Kept(Reclaimed),
}

/// The writer's head, claimed by the reader, and its end: the committed end the claim
/// read (for an idle head, everything the reader consumed).
#[derive(Clone, Copy)]
pub(super) struct Reclaimed {
    /// The head's id: it stays linked until the reader unlinks it, so no other linked
    /// segment has it.
    head: SegmentId,
    end: u64,
}

/// What an advance unlinked, for [`release_consumed`] to give back outside the lock.
pub(super) struct Unlinked {
    /// The unlinked segments, in list order.
    returned: Vec<Shell>,
    /// The `LeakOnComplete` planted bug leaks the last of them.
    leak_last: bool,
}

/// Unlinks fully consumed segments, in list order; consuming exactly to a segment's
/// end returns it. The last linked segment may be the writer's head: its end is known
/// only once the writer has completed (the committed offset) or the head was
/// `reclaimed` (the end its claim read). Under the lock; `returned` is the empty list
/// to collect the unlinked segments in.
fn unlink_consumed(
    state: &mut State,
    consumed: u64,
    reclaimed: Option<Reclaimed>,
    mut returned: Vec<Shell>,
) -> Unlinked {
    let last_end = if state.writer_completion.is_some() || fault::ReturnWriteHead.is_active() {
        Some(state.committed)
    } else {
        // Only while the head is the last segment: after a lock-free advance claimed
        // it, the writer may have linked a new head behind it before this lock, and
        // then the claimed head ends where that one starts. Its end is the one its
        // claim read: nothing is published into a claimed head.
        reclaimed.filter(|r| state.segments.back().is_some_and(|last| last.id == r.head)).map(|r| r.end)
    };
    while !state.segments.is_empty() {
        let segment_end = match (state.segments.get(1), last_end) {
            (Some(next), _) => next.base,
            (None, Some(end)) => end,
            (None, None) => break,
        };
        if consumed < segment_end {
            break;
        }
        returned.extend(state.segments.pop_front());
    }
    if fault::KeepsConsumedSegment.is_active()
        && !state.segments.is_empty()
        && let Some(kept) = returned.pop()
    {
        // The planted bug: the last fully consumed segment stays linked until a later
        // `advance_to` (harmless to the data: reads skip it).
        state.segments.push_front(kept);
    }
    // The planted bug leaks the stream's final segment, if this unlinked it.
    let leak_last = fault::LeakOnComplete.is_active()
        && state.writer_completion.is_some()
        && state.segments.is_empty()
        && !returned.is_empty();
    Unlinked { returned, leak_last }
}

/// Drops the reader's holds on the unlinked segments, then gives their buffers back to
/// the buffer pool and the objects to the segment pool. Runs outside the pipe lock (inside it only for
/// [`LockScope::EveryOperation`](crate::LockScope::EveryOperation)). Returns the list
/// emptied, for the next advance to collect in.
fn release_consumed(
    view: &mut VecDeque<Shell>,
    pool: &mut PoolReturner,
    shared: &Shared,
    unlinked: Unlinked,
) -> Vec<Shell> {
    let Unlinked { mut returned, leak_last } = unlinked;
    // Our view holds the same segments at its front: drop those holds first.
    view.drain(..returned.len().min(view.len()));
    if leak_last && let Some(mut last) = returned.pop() {
        // Freed without going back to the buffer pool; the object is dropped, and
        // reported as such (what is missing is the buffer's return, not the segment's).
        let id = last.id;
        shared.observer.emit(|| PipeEvent::SegmentDiscarded { segment: id });
        drop(Arc::get_mut(&mut last).and_then(|s| s.memory.take()));
    }
    if returned.is_empty() {
        return returned;
    }
    returned.retain_mut(|shell| match Arc::get_mut(shell) {
        Some(segment) => {
            if let Some(memory) = segment.memory.take() {
                shared.buffer_pool.give_back(memory.into_buffer());
            }
            true
        }
        // Still held by the writer: only the planted bug returns it anyway.
        None => fault::ReturnWriteHead.is_active(),
    });
    pool.return_all(returned.drain(..), shared.config.max_pooled_segments, &shared.observer);
    returned
}

fn cancel_read(shared: &Shared) {
    let waker = {
        let mut state = shared.lock();
        state.read_canceled = true;
        // The flag before the event: a lock-free read that tried after the event was
        // logged finds the flag and takes the lock (see `reader/fast.rs`).
        shared.sync_read_flag(&mut state);
        shared.observer.emit(|| PipeEvent::ReadCanceled);
        let waker = shared.take_reader_waker(&mut state);
        shared.observer.emit(|| PipeEvent::LockReleased { op: PipeOperation::CancelRead });
        waker
    };
    if let Some(waker) = waker {
        waker.wake();
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        if pipecheck_sync::skip_locking_cleanup() {
            return;
        }
        self.complete(None);
    }
}

impl fmt::Debug for Reader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Reader")
            .field("reads", &self.read_count)
            .field("examined", &self.examined)
            .field("outstanding", &self.outstanding)
            .field("completed", &self.completed)
            .finish_non_exhaustive()
    }
}

/// Cancels a pipe's pending read from anywhere. See [`Reader::cancel_pending_read`].
#[derive(Clone)]
pub struct ReadCanceller {
    shared: Arc<Shared>,
}

impl ReadCanceller {
    /// Releases a pending read (or the next read) with `is_canceled` set.
    pub fn cancel_pending_read(&self) {
        cancel_read(&self.shared);
    }
}

impl fmt::Debug for ReadCanceller {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadCanceller").finish_non_exhaustive()
    }
}

/// The future of [`Reader::read`] and [`Reader::read_at_least`].
#[must_use = "futures do nothing unless polled"]
pub struct ReadFuture<'a> {
    reader: Option<&'a mut Reader>,
    /// `read_at_least`'s minimum of unexamined bytes; `None` for a plain read.
    minimum: Option<u64>,
}

impl<'a> Future for ReadFuture<'a> {
    type Output = Result<ReadResult<'a>, PipeError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let reader = self.reader.take().expect("ReadFuture polled after completion");
        match reader.poll_read(Some(cx), self.minimum) {
            Poll::Pending => {
                self.reader = Some(reader);
                Poll::Pending
            }
            Poll::Ready(Ok(ready)) => {
                let reader: &'a Reader = reader;
                Poll::Ready(Ok(reader.result(ready)))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
        }
    }
}

impl fmt::Debug for ReadFuture<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadFuture")
            .field("minimum", &self.minimum)
            .field("done", &self.reader.is_none())
            .finish()
    }
}
