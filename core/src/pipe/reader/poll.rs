//! The reader in poll form, for `poll_*` implementations such as the I/O adapters.
//!
//! [`Reader::read`] returns a future that borrows the reader, so a type that must store
//! its pending read across polls (an `AsyncRead`) would have to hold a self-referential
//! future. [`Reader::poll_read_result`] is the same read as one poll, with nothing to
//! store: the waker is registered under the pipe lock like the future's, and a later
//! poll with a different waker replaces it.

use std::task::{Context, Poll};

use crate::pipe::error::PipeError;
use crate::pipe::read_buf::ReadResult;
use crate::pipe::reader::Reader;

impl Reader {
    /// Polls for a read: the poll form of [`read`](Self::read).
    ///
    /// `Poll::Pending` registers `cx`'s waker (replacing the one of an earlier poll), and
    /// the pipe wakes it on flush, writer completion or cancellation. A ready result is
    /// outstanding exactly like one from `read`: release it with
    /// [`advance_to`](Self::advance_to) before reading again.
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
    /// let len = block_on(poll_fn(|cx| reader.poll_read_result(cx).map_ok(|r| r.buffer().len()))).unwrap();
    /// assert_eq!(len, 4);
    /// ```
    ///
    /// # Errors
    ///
    /// As [`read`](Self::read).
    pub fn poll_read_result(&mut self, cx: &mut Context<'_>) -> Poll<Result<ReadResult<'_>, PipeError>> {
        match self.poll_read(Some(cx), None) {
            Poll::Ready(Ok(ready)) => Poll::Ready(Ok(self.result(ready))),
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => Poll::Pending,
        }
    }

    /// The buffer of the outstanding read, if one is outstanding.
    #[cfg(any(feature = "tokio", feature = "futures-io"))]
    pub(crate) fn outstanding_buffer(&self) -> Option<crate::pipe::ReadBuf<'_>> {
        let (start, end) = self.outstanding?;
        Some(crate::pipe::ReadBuf::new(&self.view, start, end, self.read_count))
    }

    /// Releases the outstanding read with its first `consumed` bytes consumed and nothing
    /// more examined than those (or than an earlier `advance_to` examined), so the next
    /// read returns the rest at once. Without an outstanding read, `consume(0)` does
    /// nothing.
    ///
    /// # Errors
    ///
    /// [`PipeError::NothingToAdvance`] for `consumed > 0` without an outstanding read;
    /// [`PipeError::PositionOutOfRange`] past the end of the outstanding buffer.
    #[cfg(any(feature = "tokio", feature = "futures-io"))]
    pub(crate) fn consume(&mut self, consumed: usize) -> Result<(), PipeError> {
        let Some((start, end)) = self.outstanding else {
            return if consumed == 0 { Ok(()) } else { Err(PipeError::NothingToAdvance) };
        };
        let offset = start.saturating_add(consumed as u64);
        if offset > end {
            return Err(PipeError::PositionOutOfRange { offset, start, end });
        }
        let read = self.read_count;
        let examined = offset.max(self.examined).min(end);
        use crate::pipe::Position;
        self.advance_to(Position { offset, read }, Position { offset: examined, read })
    }
}
