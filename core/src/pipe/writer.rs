//! The writing end: `get_memory`/`advance` without the lock, `flush` to publish.

mod commit;
mod poll;

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::fault;
use crate::pipe::error::{Failure, PipeError};
use crate::pipe::observe::{PipeEnd, PipeEvent, PipeOperation, SegmentId};
use crate::pipe::parked_head::ParkedHead;
use crate::pipe::pool::{PoolTaker, Shell};
use crate::pipe::segment::{Segment, SegmentMemory};
use crate::pipe::{Shared, State, hand_over, register_end_waker, spin};

use commit::{Committed, canceled_flush_result, emit_flush_returned};
use pipecheck_sync::sync::Arc;

/// What a completed flush reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlushResult {
    /// The reader has completed: nothing written from now on will be read.
    pub is_completed: bool,
    /// The flush was released by [`Writer::cancel_pending_flush`].
    pub is_canceled: bool,
}

/// The single writer of a pipe.
///
/// Once the reader has completed, nothing written is read: as in .NET, the writer's
/// flushes report [`FlushResult::is_completed`] and, from the first flush or new
/// segment after the completion, [`advance`](Self::advance) is a no-op and one private
/// segment is reused, so a writer that ignores the completion holds no more memory.
/// (pipecheck learns of it at those two points rather than at every `advance`, which
/// takes no lock; bytes advanced in between are dropped there.)
///
/// A flush ends the write, as in .NET: the memory `get_memory` handed out before it may
/// not be advanced into afterwards (call `get_memory` again). The idle head is parked,
/// and a reader that consumes everything returns it to the pool, so a fully consumed
/// pipe holds no segment; the next `get_memory` takes the head back if the reader has
/// not, or starts a new one (usually a pooled segment object).
///
/// # Examples
///
// Under loom and shuttle the sync primitives only work inside a model: compile, do not run.
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// use pipecheck_sync::future::block_on;
/// let (mut writer, mut reader) = pipecheck_pipe::pipe();
/// let memory = writer.get_memory(5).unwrap();
/// memory[..5].copy_from_slice(b"hello");
/// writer.advance(5).unwrap();
/// block_on(writer.flush()).unwrap();
/// let result = block_on(reader.read()).unwrap();
/// assert_eq!(result.buffer().to_vec(), b"hello");
/// ```
pub struct Writer {
    shared: Arc<Shared>,
    pool: PoolTaker,
    /// The segment being written, if any (`None` while it is parked).
    head: Option<Shell>,
    /// The last flush parked the head (see `parked_head`): the next `get_memory` or
    /// `complete` takes it back, unless the reader claimed it first. The `head_*`
    /// fields below still describe it.
    parked: Option<ParkedHead>,
    /// Whether `head` is in the shared list (the reader may be reading its front).
    head_linked: bool,
    /// Bytes advanced into `head`.
    head_written: usize,
    /// Bytes of `head`'s buffer.
    head_capacity: usize,
    /// Whether `get_memory` handed out `head`'s free tail (so `advance` may use it).
    memory_handed_out: bool,
    /// Filled former heads not yet linked (linked, in order, by the next flush).
    unlinked: Vec<Shell>,
    /// Bytes advanced since the last flush.
    unflushed: u64,
    /// The committed end as this writer last published it (only the writer moves it).
    published_end: u64,
    /// The word's carried flags as the fast flush last saw them: what its
    /// compare-and-swap expects next (see `Published::try_publish`).
    carried_flags_seen: u64,
    /// The reader's released offset as the fast flush last read it (see
    /// `fast_commit`): at most the current one.
    released_seen: u64,
    /// Stream offset of the end of advanced bytes.
    written: u64,
    /// Size of the next new segment: doubles from the minimum up to the maximum.
    next_segment_size: usize,
    next_segment_id: SegmentId,
    completed: bool,
    /// The writer has seen the reader's completion (at a flush, or when starting a
    /// segment): from then on `advance` is a no-op and one private segment is reused,
    /// so a writer that ignores the completion holds no more memory.
    reader_gone: bool,
    /// [`LockScope::EveryOperation`](crate::LockScope::EveryOperation), read once: the
    /// pre-seed design takes the lock in `get_memory` and `advance` too (benchmarks).
    lock_every_operation: bool,
}

impl Writer {
    pub(crate) fn new(shared: Arc<Shared>, pool: PoolTaker) -> Writer {
        let next_segment_size = shared.config.minimum_segment_size;
        let lock_every_operation = shared.config.lock_every_operation;
        Writer {
            shared,
            pool,
            head: None,
            parked: None,
            head_linked: false,
            head_written: 0,
            head_capacity: 0,
            memory_handed_out: false,
            unlinked: Vec::new(),
            unflushed: 0,
            published_end: 0,
            carried_flags_seen: 0,
            released_seen: 0,
            written: 0,
            next_segment_size,
            next_segment_id: 0,
            completed: false,
            reader_gone: false,
            lock_every_operation,
        }
    }

    /// A writable region of at least `max(size_hint, 1)` bytes at the end of the data.
    ///
    /// Bytes written there are not part of the pipe until [`advance`](Self::advance)
    /// counts them and [`flush`](Self::flush) publishes them.
    ///
    /// # Errors
    ///
    /// [`PipeError::WriterCompleted`] after [`complete`](Self::complete);
    /// [`PipeError::SizeHintTooLarge`] above the maximum segment size (where .NET hands
    /// out a separate array: see [`PipeOptions::maximum_segment_size`](crate::PipeOptions::maximum_segment_size)).
    // Always inlined: as a call, its frame (six registers pushed and popped) and the
    // `Result` returned through memory were 33 of the ~280 instructions of a 64 B
    // chunk's get_memory/copy/advance/flush (callgrind, core/benches/PERFORMANCE.md).
    // The rare paths stay out of line (`resume_head`'s claim, `start_segment`).
    #[inline(always)]
    pub fn get_memory(&mut self, size_hint: usize) -> Result<&mut [u8], PipeError> {
        if self.completed {
            return Err(PipeError::WriterCompleted);
        }
        let needed = size_hint.max(1);
        let max = self.shared.config.maximum_segment_size;
        if needed > max {
            return Err(PipeError::SizeHintTooLarge { size_hint, max });
        }
        if self.parked.is_some() {
            self.resume_head();
        }
        if self.head.is_none() || self.head_capacity - self.head_written < needed {
            self.start_segment(needed);
        } else if self.lock_every_operation {
            self.pre_seed_lock_round_trip();
        }
        self.memory_handed_out = true;
        let head = self.head.as_ref().expect("start_segment installs a head");
        // SAFETY: we are the writer and the range starts at `head_written`, at or above
        // everything committed in this segment; the slice borrows `self` mutably, so no
        // other writer slice of it can live at the same time.
        Ok(unsafe { head.memory().write(self.head_written..self.head_capacity) })
    }

    /// Takes the parked head back to write into it again. If the reader claimed it
    /// first (it consumed everything and returns it to the pool), the writer holds no
    /// head and starts a new one.
    #[inline]
    fn resume_head(&mut self) {
        if let Some(head) = self.take_back_parked() {
            let id = head.id;
            self.head = Some(head);
            // After the claim, so a log never shows the writer resuming a head the
            // reader reclaimed (only one of the two read-modify-writes finds the flag).
            self.shared.observer.emit(|| PipeEvent::HeadResumed { segment: id });
        } else {
            self.head_linked = false;
            self.head_written = 0;
            self.head_capacity = 0;
        }
    }

    /// The writer's claim on its parked head (its next `get_memory`, or its
    /// completion): the head if the writer's read-modify-write found `HEAD_PARKED` still
    /// set; `None` if the reader claimed it first (it is the reader's then) or nothing
    /// was parked.
    #[inline]
    fn take_back_parked(&mut self) -> Option<Shell> {
        let parked = self.parked.take()?;
        if self.shared.published.take_back_head(&mut self.carried_flags_seen) {
            Some(parked.resume())
        } else {
            parked.lost();
            None
        }
    }

    /// Counts `bytes` of the memory from [`get_memory`](Self::get_memory) as written.
    ///
    /// Once the writer has seen the reader's completion (a flush reported
    /// `is_completed`, or a new segment was needed), `advance` is a no-op, as in .NET:
    /// the same memory is handed out again and the writer holds at most one segment,
    /// however much it goes on writing.
    ///
    /// # Errors
    ///
    /// [`PipeError::AdvancePastMemory`] when `bytes` exceeds what is left of the memory
    /// handed out; [`PipeError::WriterCompleted`] after completion.
    #[inline]
    pub fn advance(&mut self, bytes: usize) -> Result<(), PipeError> {
        if self.completed {
            return Err(PipeError::WriterCompleted);
        }
        let available = if self.memory_handed_out { self.head_capacity - self.head_written } else { 0 };
        if bytes > available {
            return Err(PipeError::AdvancePastMemory { requested: bytes, available });
        }
        if self.reader_gone {
            // As .NET: once the reader has completed, nothing written will be read.
            return Ok(());
        }
        if self.lock_every_operation {
            self.pre_seed_lock_round_trip();
        }
        self.head_written += bytes;
        self.written += bytes as u64;
        self.unflushed += bytes as u64;
        Ok(())
    }

    /// [`LockScope::EveryOperation`](crate::LockScope::EveryOperation) only: takes and
    /// releases the pipe lock, as the pre-seed design did around the head bookkeeping of
    /// `get_memory` and `advance`. Out of line, so the default path stays lock-free and
    /// small (the bookkeeping touches writer-owned fields only, so holding the lock
    /// across it or just before it contends the same way).
    #[cold]
    #[inline(never)]
    fn pre_seed_lock_round_trip(&self) {
        drop(self.shared.state.lock());
    }

    /// Copies `data` into the pipe (unflushed), across segments as needed.
    ///
    /// # Errors
    ///
    /// [`PipeError::WriterCompleted`] after completion.
    pub fn write(&mut self, mut data: &[u8]) -> Result<(), PipeError> {
        if self.completed {
            return Err(PipeError::WriterCompleted);
        }
        while !data.is_empty() {
            let memory = self.get_memory(1)?;
            let n = memory.len().min(data.len());
            memory[..n].copy_from_slice(&data[..n]);
            self.advance(n)?;
            data = &data[n..];
        }
        Ok(())
    }

    /// Bytes advanced but not yet flushed.
    pub fn unflushed_bytes(&self) -> u64 {
        self.unflushed
    }

    /// Publishes the advanced bytes to the reader and waits while the reader is behind
    /// by the pause threshold or more. After the reader completed it publishes nothing
    /// (the bytes are dropped) and reports `is_completed`.
    ///
    /// A flush ends the write: the writer's head is parked, idle, and a reader that
    /// consumes everything returns it to the pool (as .NET, a fully consumed pipe keeps
    /// no segment). Call [`get_memory`](Self::get_memory) before advancing again.
    ///
    /// The bytes are committed when `flush` is called, before the future is polled, so
    /// dropping the future only gives up the wait.
    ///
    /// # Errors
    ///
    /// The future resolves to [`PipeError::WriterCompleted`] after completion (.NET's
    /// `FlushAsync` after `Complete` returns a result instead: use after completion is
    /// refused here, see that variant), and to [`PipeError::ReaderFailed`] when the
    /// reader completed with a failure.
    #[inline]
    pub fn flush(&mut self) -> FlushFuture<'_> {
        if self.completed {
            return FlushFuture::decided(self, Some(Err(PipeError::WriterCompleted)));
        }
        match self.commit() {
            Committed::Published => FlushFuture { writer: self, published: true, early: None },
            Committed::Locked(early) => FlushFuture::decided(self, early),
        }
    }

    /// Completes the writer: pending bytes are committed, the reader is woken, and no
    /// further writer operation succeeds. Idempotent; also done on drop.
    pub fn complete(&mut self, failure: Option<Failure>) {
        if self.completed {
            return;
        }
        self.completed = true;
        self.memory_handed_out = false;
        let failed = failure.is_some();
        let shared = self.shared.clone();
        // The writer lets go of its head *before* the completion is published: once the
        // reader sees it, it may unlink and recycle that segment, which needs the
        // segment to be held by the list alone.
        // A parked head is taken back first; if the reader claimed it, it is gone already.
        let head = if self.parked.is_some() { self.take_back_parked() } else { self.head.take() };
        let mut empty_head = None;
        let (reader_waker, release) = {
            let mut state = shared.lock_as_writer(self.published_end);
            for shell in self.unlinked.drain(..) {
                link(&shared, &mut state, shell);
            }
            if let Some(head) = head {
                let id = head.id;
                if self.head_linked {
                    drop(head); // the list holds it too: this only drops our count
                } else if self.head_written > 0 {
                    link(&shared, &mut state, head);
                } else {
                    empty_head = Some(head);
                }
                shared.observer.emit(|| PipeEvent::HeadReleased { segment: id });
            }
            // The completion's flag goes up before its last bytes: a lock-free read that
            // sees them also sees that it must take the lock and report the completion.
            state.writer_completion = Some(failure);
            shared.sync_read_flag(&mut state);
            if !fault::CompleteDropsUnflushed.is_active() {
                state.committed = shared.published.publish_locked(self.unflushed, false);
                self.published_end = state.committed;
            }
            self.unflushed = 0;
            let committed = state.committed;
            shared.observer.emit(|| PipeEvent::WriterCompleted { failed, committed });
            let reader_waker = if fault::LostWakeOnComplete.is_active() {
                None
            } else {
                shared.take_reader_waker(&mut state)
            };
            shared.observer.emit(|| PipeEvent::LockReleased { op: PipeOperation::CompleteWriter });
            (reader_waker, state.take_all_if_both_completed())
        };
        if let Some(mut head) = empty_head {
            // Never linked, so never seen by the reader: its buffer goes straight back.
            if let Some(memory) = Arc::get_mut(&mut head).and_then(|s| s.memory.take()) {
                shared.buffer_pool.give_back(memory.into_buffer());
            }
        }
        if let Some(waker) = reader_waker {
            waker.wake();
        }
        shared.release_final(release);
    }

    /// The state both ends share.
    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// After [`reset_pipe`](crate::reset_pipe): a new writer's own state, keeping the
    /// segment pool and the segment numbering (ids stay unique across resets).
    pub(crate) fn reset_after_completion(&mut self) {
        self.head = None;
        self.parked = None;
        self.head_linked = false;
        self.head_written = 0;
        self.head_capacity = 0;
        self.memory_handed_out = false;
        self.unlinked.clear();
        self.unflushed = 0;
        self.published_end = 0;
        self.carried_flags_seen = 0;
        if !fault::ResetKeepsReleasedCopy.is_active() {
            self.released_seen = 0;
        }
        self.written = 0;
        self.next_segment_size = self.shared.config.minimum_segment_size;
        self.completed = false;
        self.reader_gone = false;
    }

    /// Releases a pending flush (or the next flush) with `is_canceled` set.
    pub fn cancel_pending_flush(&self) {
        cancel_flush(&self.shared);
    }

    /// A handle that cancels pending flushes from another thread or task.
    pub fn flush_canceller(&self) -> FlushCanceller {
        FlushCanceller { shared: self.shared.clone() }
    }

    /// Contended acquisitions of this pipe's lock so far (feature `contention-stats`).
    #[cfg(feature = "contention-stats")]
    pub fn lock_contention(&self) -> u64 {
        self.shared.state.contended_acquisitions()
    }

    /// Acquisitions of this pipe's lock so far, contended or not (feature
    /// `contention-stats`).
    #[cfg(feature = "contention-stats")]
    pub fn lock_acquisitions(&self) -> u64 {
        self.shared.state.acquisitions()
    }

    /// Contended acquisitions of the segment pool's own lock so far: always 0 for the
    /// lock-free [`PoolDesign::Fifo`](crate::PoolDesign::Fifo) (feature `contention-stats`).
    #[cfg(feature = "contention-stats")]
    pub fn segment_pool_contention(&self) -> u64 {
        self.pool.lock_contention()
    }

    /// Moves writing to a new segment with room for `needed` bytes.
    #[inline(never)]
    fn start_segment(&mut self, needed: usize) {
        let shared = &*self.shared;
        // The pre-seed design rents the buffer and takes the segment object under the
        // pipe lock; by default the writer never holds the lock here.
        let pre_seed_lock = self.lock_every_operation.then(|| shared.state.lock());
        let config = &shared.config;
        // Whether the reader has completed (as .NET's `AllocateWriteHeadSynchronized`):
        // once per new segment, never while renting. A completed reader keeps
        // `FLUSH_SLOW` set in the published word, and a read-modify-write reads the
        // word's newest value, so without the flag the reader has not completed (its
        // completion comes later in the word's order) and no lock is needed; with it,
        // the lock tells a completion from a pause or a pending cancel. Not a plain
        // load: one may return a stale word for as long as nothing else synchronizes,
        // and the writer would go on starting segments that nobody reads.
        if !self.reader_gone {
            self.reader_gone = match &pre_seed_lock {
                Some(state) => state.reader_completion.is_some(),
                None => {
                    shared.published.flush_may_be_slow() && shared.state.lock().reader_completion.is_some()
                }
            };
        }
        if self.reader_gone {
            // Nothing will be read: drop what was advanced and reuse a private head.
            let pile_up = fault::WritesPileUpAfterReaderCompleted.is_active();
            if !pile_up {
                give_back_memory(shared, std::mem::take(&mut self.unlinked));
            }
            if self.head.is_some() && !self.head_linked {
                self.head_written = 0;
                if self.head_capacity >= needed {
                    if pile_up {
                        // The planted bug: the head is set aside (held until the writer
                        // completes) and a fresh one of the same size is rented.
                        let old = self.head.take().expect("checked above");
                        self.unlinked.push(old);
                        let (shell, _) = new_head(
                            &mut self.pool,
                            shared,
                            &mut self.next_segment_id,
                            self.written,
                            self.head_capacity,
                        );
                        self.head = Some(shell);
                    }
                    return;
                }
            }
        }
        let size = needed.max(self.next_segment_size);
        self.next_segment_size = (self.next_segment_size * 2).min(config.maximum_segment_size);

        if self.reader_gone
            && !self.head_linked
            && fault::WritesPileUpAfterReaderCompleted.is_active()
            && let Some(old) = self.head.take()
        {
            // The planted bug: the outgrown head is set aside, held until the writer
            // completes, instead of giving its buffer back.
            self.unlinked.push(old);
        }
        // An empty unlinked head is still private to the writer: reuse its object. Its
        // old buffer goes back before the new one is rented.
        if let Some(head) = self.head.as_mut().filter(|_| !self.head_linked && self.head_written == 0) {
            let segment = Arc::get_mut(head).expect("an unlinked head is held by the writer only");
            if let Some(old) = segment.memory.take() {
                shared.buffer_pool.give_back(old.into_buffer());
            }
            let memory = SegmentMemory::new(shared.buffer_pool.rent(size), size);
            self.head_capacity = memory.capacity();
            segment.memory = Some(memory);
            segment.base = self.written;
            return;
        }
        if let Some(old) = self.head.take() {
            let id = old.id;
            if !self.head_linked {
                self.unlinked.push(old);
            }
            shared.observer.emit(|| PipeEvent::HeadReleased { segment: id });
        }
        let (shell, capacity) =
            new_head(&mut self.pool, shared, &mut self.next_segment_id, self.written, size);
        self.head = Some(shell);
        self.head_linked = false;
        self.head_written = 0;
        self.head_capacity = capacity;
    }
}

/// Rents a buffer of `size` bytes and puts it in a segment object from the pool (or a
/// new one) starting at stream offset `base`: the writer's next head. Returns it and
/// its capacity.
fn new_head(
    pool: &mut PoolTaker,
    shared: &Shared,
    next_id: &mut SegmentId,
    base: u64,
    size: usize,
) -> (Shell, usize) {
    let memory = SegmentMemory::new(shared.buffer_pool.rent(size), size);
    let capacity = memory.capacity();
    let mut shell = take_shell(pool, shared, next_id, capacity);
    let segment = Arc::get_mut(&mut shell).expect("take_shell returns an unshared object");
    segment.base = base;
    segment.memory = Some(memory);
    (shell, capacity)
}

/// Appends `shell` to the shared list (under the pipe lock), reporting it with its base
/// so checkers know where each segment's bytes end. Sets `READ_SLOW` before any byte in
/// the segment is published: a lock-free read must not pass the end of its view.
fn link(shared: &Shared, state: &mut State, shell: Shell) {
    let (id, base) = (shell.id, shell.base);
    shared.observer.emit(|| PipeEvent::SegmentLinked { segment: id, base });
    state.segments.push_back(shell);
    state.unseen_link = true;
    shared.sync_read_flag(state);
}

/// Gives the buffers of segments the writer never linked back to the buffer pool (their
/// objects are dropped: only the reader returns objects to the segment pool).
fn give_back_memory(shared: &Shared, segments: Vec<Shell>) {
    for mut shell in segments {
        if let Some(memory) = Arc::get_mut(&mut shell).and_then(|s| s.memory.take()) {
            shared.buffer_pool.give_back(memory.into_buffer());
        }
    }
}

/// A segment object from the pool, or a new one.
fn take_shell(pool: &mut PoolTaker, shared: &Shared, next_id: &mut SegmentId, capacity: usize) -> Shell {
    // A pooled object still referenced elsewhere can only come from a planted bug (a
    // double or premature return): using it would alias memory, so leave it be.
    if let Some(mut shell) = pool.take(&shared.observer)
        && Arc::get_mut(&mut shell).is_some()
    {
        return shell;
    }
    let id = *next_id;
    *next_id += 1;
    shared.observer.emit(|| PipeEvent::SegmentCreated { segment: id, capacity });
    Arc::new(Segment::new(id))
}

/// Sets the flush-canceled flag and wakes a paused flush.
fn cancel_flush(shared: &Shared) {
    let waker = {
        let mut state = shared.lock();
        state.flush_canceled = true;
        shared.sync_flush_flag(&mut state);
        shared.observer.emit(|| PipeEvent::FlushCanceled);
        let waker = shared.observer.take_waker(&mut state.writer_waker, PipeEnd::Writer);
        shared.observer.emit(|| PipeEvent::LockReleased { op: PipeOperation::CancelFlush });
        waker
    };
    if let Some(waker) = waker {
        waker.wake();
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        if pipecheck_sync::skip_locking_cleanup() {
            return;
        }
        self.complete(None);
    }
}

impl fmt::Debug for Writer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Writer")
            .field("written", &self.written)
            .field("unflushed", &self.unflushed)
            .field("completed", &self.completed)
            .finish_non_exhaustive()
    }
}

/// Cancels a pipe's pending flush from anywhere. See [`Writer::cancel_pending_flush`].
#[derive(Clone)]
pub struct FlushCanceller {
    shared: Arc<Shared>,
}

impl FlushCanceller {
    /// Releases a pending flush (or the next flush) with `is_canceled` set.
    pub fn cancel_pending_flush(&self) {
        cancel_flush(&self.shared);
    }
}

impl fmt::Debug for FlushCanceller {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FlushCanceller").finish_non_exhaustive()
    }
}

/// The future of [`Writer::flush`]: resolves once the writer may continue.
#[must_use = "a flush commits at once, but waiting for back-pressure needs the future polled"]
pub struct FlushFuture<'a> {
    writer: &'a mut Writer,
    /// Published without the lock: ready with the default result. A flag of its own,
    /// not a value in `early`: the lock-free path would write one tag byte there and
    /// the poll read the whole 40-byte result back, and on x86 a load the store buffer
    /// cannot forward waits for every store before it, the chunk's copied bytes and
    /// the publish included, to reach the cache (at 64 B chunks, most of the writer's
    /// time; see core/benches/PERFORMANCE.md).
    published: bool,
    /// The outcome decided under the lock when the flush must not wait.
    early: Option<Result<FlushResult, PipeError>>,
}

impl<'a> FlushFuture<'a> {
    /// A flush that did not publish without the lock, with what the lock decided.
    fn decided(writer: &'a mut Writer, early: Option<Result<FlushResult, PipeError>>) -> FlushFuture<'a> {
        FlushFuture { writer, published: false, early }
    }
}

impl Future for FlushFuture<'_> {
    type Output = Result<FlushResult, PipeError>;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        // Decided by `flush` itself (always, on the lock-free path): no lock here.
        if this.published {
            return Poll::Ready(Ok(FlushResult::default()));
        }
        if let Some(result) = this.early.take() {
            return Poll::Ready(result);
        }
        // Paused (or a flush cancel is pending): the reader is consuming, and the advance
        // that resumes the writer clears `FLUSH_SLOW`. Look a few times before locking to
        // park; the locked wait decides either way (see `spin`).
        let shared = &*this.writer.shared;
        spin::spin_until(shared, PipeEnd::Writer, spin::Wait::Short, || !shared.published.flush_slow_hint());
        this.poll_locked(cx)
    }
}

impl FlushFuture<'_> {
    /// A flush that `flush` could not decide: waits, under the lock, while paused.
    #[inline(never)]
    fn poll_locked(&mut self, cx: &mut Context<'_>) -> Poll<Result<FlushResult, PipeError>> {
        let this = self;
        let shared = &*this.writer.shared;
        let mut state = shared.lock();
        if state.writer_paused
            && state.reader_completion.is_some()
            && fault::PausesAfterReaderCompleted.is_active()
        {
            // The planted bug: the pause is looked at before the reader's completion (and
            // only then: a paused flush the reader has not released behaves as without it).
            register_end_waker(shared, &mut state.writer_waker, cx, PipeEnd::Writer);
            shared.observer.emit(|| PipeEvent::WakerRegistered { end: PipeEnd::Writer });
            return Poll::Pending;
        }
        if let Some(reader) = state.reader_completion.clone() {
            let canceled = std::mem::take(&mut state.flush_canceled);
            shared.sync_flush_flag(&mut state);
            return Poll::Ready(match reader {
                Some(failure) => Err(PipeError::ReaderFailed(hand_over(&failure))),
                None => Ok(emit_flush_returned(
                    shared,
                    &FlushResult { is_completed: true, is_canceled: canceled },
                )),
            });
        }
        if state.flush_canceled {
            state.flush_canceled = false;
            shared.sync_flush_flag(&mut state);
            return Poll::Ready(Ok(emit_flush_returned(shared, &canceled_flush_result(&state))));
        }
        if !state.writer_paused {
            return Poll::Ready(Ok(emit_flush_returned(shared, &FlushResult::default())));
        }
        register_end_waker(shared, &mut state.writer_waker, cx, PipeEnd::Writer);
        shared.observer.emit(|| PipeEvent::WakerRegistered { end: PipeEnd::Writer });
        Poll::Pending
    }
}

impl fmt::Debug for FlushFuture<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FlushFuture").finish_non_exhaustive()
    }
}
