//! `read_at_least(n)`: a read that waits for `n` unexamined bytes (.NET's
//! `ReadAtLeastAsync` on `Pipe`).
//!
//! The wake-up protocol, all under the pipe lock (so no step can fall between a check
//! and a registration):
//!
//! 1. a read-at-least that must wait registers its waker and records its minimum in
//!    `State::read_minimum`;
//! 2. if the writer is paused it is released at once: it waits for the reader to
//!    examine bytes, and the reader will not examine any before it has `n` of them (the
//!    deadlock .NET's `ReadAtLeastAsyncCore` avoids the same way);
//! 3. while the minimum is recorded, a flush that leaves fewer than `n` bytes
//!    unexamined does not pause (`State::flush_must_pause`); a flush that reaches `n`
//!    pauses as usual, since the reader is about to get its bytes;
//! 4. every flush wakes the pending read as for a plain read; the read polls again and
//!    either returns or registers again. Any read that returns clears the minimum.
//!
//! A read-at-least whose future is dropped while pending keeps its minimum until the
//! next read is polled, as .NET keeps `_minimumReadBytes` until a read yields.

use std::task::{Context, Poll, Waker};

use crate::fault;
use crate::pipe::error::PipeError;
use crate::pipe::observe::PipeEvent;
use crate::pipe::read_buf::ReadResult;
use crate::pipe::reader::{ReadFuture, Reader};
use crate::pipe::{Shared, State};

impl Reader {
    /// Waits until at least `minimum` committed bytes are unexamined, the writer
    /// completed, or the read is canceled, and returns the unconsumed bytes (.NET's
    /// `ReadAtLeastAsync`).
    ///
    /// The count is the one [`buffered_len`](Self::buffered_len) reports: committed −
    /// examined. To wait for a whole frame of `n` bytes, release a partial frame with
    /// nothing examined past what was consumed (`advance_to(start, start)`), then
    /// `read_at_least(n)`; bytes examined by an earlier `advance_to` no longer count
    /// (as in .NET's `Pipe`). `minimum` 0 waits like [`read`](Self::read), as in .NET.
    ///
    /// Back-pressure never deadlocks it: while it waits, a paused writer is released and
    /// flushes do not pause the writer until `minimum` bytes are there, even when
    /// `minimum` exceeds the pause threshold (.NET does the same).
    ///
    /// # Examples
    ///
    // Under loom and shuttle the sync primitives only work inside a model: compile, do not run.
    #[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
    #[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
    /// use pipecheck_sync::future::block_on;
    /// let (mut writer, mut reader) = pipecheck_pipe::pipe();
    /// writer.write(b"ab").unwrap();
    /// block_on(writer.flush()).unwrap();
    /// assert!(reader.try_read_at_least(4).unwrap().is_none()); // 2 of 4 bytes
    /// writer.write(b"cd").unwrap();
    /// block_on(writer.flush()).unwrap();
    /// let result = block_on(reader.read_at_least(4)).unwrap();
    /// assert_eq!(result.buffer().to_vec(), b"abcd");
    /// ```
    ///
    /// # Errors
    ///
    /// As [`read`](Self::read): [`PipeError::ReaderCompleted`],
    /// [`PipeError::AdvanceRequired`] while a buffer is outstanding,
    /// [`PipeError::WriterFailed`].
    pub fn read_at_least(&mut self, minimum: usize) -> ReadFuture<'_> {
        ReadFuture { reader: Some(self), minimum: Some(minimum as u64) }
    }

    /// Like [`read_at_least`](Self::read_at_least), without waiting: `Ok(None)` while
    /// fewer than `minimum` bytes are unexamined (and nothing completed or canceled).
    ///
    /// Only a read that waits releases a paused writer: a `None` here leaves the writer
    /// as it is, so a loop of `try_read_at_least` with `minimum` above the pause
    /// threshold must wait with [`read_at_least`](Self::read_at_least) to make progress.
    ///
    /// # Errors
    ///
    /// As [`read`](Self::read).
    pub fn try_read_at_least(&mut self, minimum: usize) -> Result<Option<ReadResult<'_>>, PipeError> {
        match self.poll_read(None, Some(minimum as u64)) {
            Poll::Ready(Ok(ready)) => Ok(Some(self.result(ready))),
            Poll::Ready(Err(e)) => Err(e),
            Poll::Pending => Ok(None),
        }
    }

    /// Polls a read-at-least: the poll form of [`read_at_least`](Self::read_at_least),
    /// as [`poll_read_result`](Self::poll_read_result) is of `read`.
    ///
    /// `Poll::Pending` registers `cx`'s waker and releases a paused writer (see
    /// `read_at_least`); poll again with the same `minimum` when woken.
    ///
    /// # Examples
    ///
    // Under loom and shuttle the sync primitives only work inside a model: compile, do not run.
    #[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
    #[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
    /// use std::future::poll_fn;
    /// use pipecheck_sync::future::block_on;
    ///
    /// let (mut writer, mut reader) = pipecheck_pipe::pipe();
    /// writer.write(b"ping").unwrap();
    /// block_on(writer.flush()).unwrap();
    /// let len = block_on(poll_fn(|cx| reader.poll_read_at_least_result(cx, 4).map_ok(|r| r.buffer().len())));
    /// assert_eq!(len.unwrap(), 4);
    /// ```
    ///
    /// # Errors
    ///
    /// As [`read`](Self::read).
    pub fn poll_read_at_least_result(
        &mut self,
        cx: &mut Context<'_>,
        minimum: usize,
    ) -> Poll<Result<ReadResult<'_>, PipeError>> {
        match self.poll_read(Some(cx), Some(minimum as u64)) {
            Poll::Ready(Ok(ready)) => Poll::Ready(Ok(self.result(ready))),
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => Poll::Pending,
        }
    }
}

/// A read-at-least for `minimum` bytes is about to wait (its waker is registered and
/// its minimum recorded): reports it and releases a paused writer. Returns the writer's
/// waker, to be woken once the lock is released. Runs under the pipe lock.
pub(super) fn wait_for(shared: &Shared, state: &mut State, minimum: u64) -> Option<Waker> {
    let keep_paused = fault::ReadAtLeastKeepsWriterPaused.is_active();
    let release = state.writer_paused && !keep_paused;
    let unconsumed = state.unexamined();
    let writer_stays_paused = state.writer_paused && keep_paused;
    shared.observer.emit(|| PipeEvent::ReadAtLeastPending { minimum, unconsumed, writer_stays_paused });
    if !release {
        return None;
    }
    shared.resume_writer(state, true)
}
