//! The writer in poll form, for `poll_*` implementations such as the I/O adapters.
//!
//! [`Writer::flush`] commits when called and returns a future that borrows the writer.
//! [`Writer::poll_flush_result`] is the same flush as one poll, with nothing to store
//! between polls: it commits what was advanced since the last commit, then waits while
//! the writer is paused. Polling it again commits nothing new and only waits.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::pipe::error::PipeError;
use crate::pipe::writer::commit::Committed;
use crate::pipe::writer::{FlushFuture, FlushResult, Writer};

impl Writer {
    /// Polls a flush: commits the bytes advanced since the last commit (if any) and waits
    /// while the reader is behind by the pause threshold or more; the poll form of
    /// [`flush`](Self::flush).
    ///
    /// `Poll::Pending` registers `cx`'s waker (replacing the one of an earlier poll); the
    /// pipe wakes it when the reader consumes below the resume threshold, completes, or
    /// the flush is canceled. Poll until ready: a pending flush has already committed.
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
    /// let result = block_on(poll_fn(|cx| writer.poll_flush_result(cx))).unwrap();
    /// assert!(!result.is_completed);
    /// assert_eq!(reader.try_read().unwrap().unwrap().buffer().len(), 4);
    /// ```
    ///
    /// # Errors
    ///
    /// As [`flush`](Self::flush).
    pub fn poll_flush_result(&mut self, cx: &mut Context<'_>) -> Poll<Result<FlushResult, PipeError>> {
        let mut future = if self.completed {
            FlushFuture::decided(self, Some(Err(PipeError::WriterCompleted)))
        } else if self.unflushed > 0 {
            match self.commit() {
                Committed::Published => return Poll::Ready(Ok(FlushResult::default())),
                Committed::Locked(early) => FlushFuture::decided(self, early),
            }
        } else {
            FlushFuture::decided(self, None)
        };
        Pin::new(&mut future).poll(cx)
    }

    /// The pause threshold, or `u64::MAX` when back-pressure is off: how many unflushed
    /// bytes the adapters let pile up before they commit.
    #[cfg(any(feature = "tokio", feature = "futures-io"))]
    pub(crate) fn commit_limit(&self) -> u64 {
        match self.shared.config.pause_writer_threshold {
            0 => u64::MAX,
            pause => pause,
        }
    }
}
