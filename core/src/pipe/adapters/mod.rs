//! The pipe as async I/O: [`Reader`] and [`Writer`] implement the `AsyncRead`,
//! `AsyncBufRead` and `AsyncWrite` traits of tokio (feature `tokio`) and of `futures-io`
//! (feature `futures-io`), and copy helpers move bytes between a pipe end and any such
//! stream, the role of .NET's `PipeReader.Create(stream)` and `PipeReader.CopyToAsync`.
//!
//! Both trait families are thin shells over the poll functions here, which are built on
//! [`Reader::poll_read_result`] and [`Writer::poll_flush_result`]: nothing is stored
//! between polls but the pipe's own state, so no future borrows an end across polls.
//!
//! # Reading
//!
//! `poll_read` copies from the unconsumed bytes and consumes what it copied; the rest
//! is returned by the next read at once. A completed writer reads as end of file once
//! drained, a writer that completed with a failure as an error of kind
//! [`Other`](io::ErrorKind::Other) whose inner error is the [`PipeError::WriterFailed`],
//! and a read canceled by [`Reader::cancel_pending_read`] as
//! [`Interrupted`](io::ErrorKind::Interrupted) (retrying reads on: nothing is consumed),
//! as .NET's pipe stream throws `OperationCanceledException`. `poll_fill_buf` hands out
//! the first contiguous piece (one segment) and `consume` consumes from it. A buffer left
//! outstanding by [`Reader::read`] is released unconsumed by the next adapter read.
//!
//! # Writing
//!
//! `poll_write` copies into [`Writer::get_memory`] and [`Writer::advance`]s, without
//! the pipe lock, like a `BufWriter`: the bytes are published by `poll_flush` (a commit,
//! then a wait while the reader is behind by the pause threshold or more). So that
//! back-pressure holds for writers that flush rarely, `poll_write` also commits once the
//! unflushed bytes reach the pause threshold, and never accepts bytes while the writer
//! is paused. `poll_shutdown` (`poll_close`) [`complete`](Writer::complete)s the writer,
//! which commits everything. Once the reader has completed, writes and flushes fail with
//! [`BrokenPipe`](io::ErrorKind::BrokenPipe), as tokio's `DuplexStream` does.
//!
//! # Method names
//!
//! The ends' own `Reader::read`, `Writer::write` and `Writer::flush` are inherent
//! methods, so they win over the extension traits' methods of the same name: call those
//! as `AsyncReadExt::read(&mut reader, &mut buf)`, `AsyncWriteExt::write(&mut writer,
//! bytes)` and `AsyncWriteExt::flush(&mut writer)`. The other helpers (`read_exact`,
//! `read_to_end`, `write_all`, `shutdown`, `fill_buf`, `read_line`, …) are not shadowed.

use std::io;
use std::task::{Context, Poll, Waker, ready};

use crate::fault;
use crate::pipe::error::PipeError;
use crate::pipe::{FlushResult, Reader, Writer};

mod copy;
#[cfg(feature = "futures-io")]
pub mod futures_io;
#[cfg(feature = "tokio")]
pub mod tokio;

/// Reads: copies up to `room` bytes of the pipe into `put`, consumes them, and returns
/// how many. `Ok(0)` is end of file (or `room == 0`).
pub(crate) fn poll_read(
    reader: &mut Reader,
    cx: &mut Context<'_>,
    room: usize,
    mut put: impl FnMut(&[u8]),
) -> Poll<io::Result<usize>> {
    if room == 0 {
        return Poll::Ready(Ok(0));
    }
    release(reader)?;
    // Planted (`ReadForgetsWaker`): the pipe keeps a waker nobody polls with, so the
    // read that returns Pending is never woken.
    let mut forgetful = Context::from_waker(Waker::noop());
    let cx = if fault::ReadForgetsWaker.is_active() { &mut forgetful } else { cx };
    let (copied, canceled) = {
        let result = ready!(reader.poll_read_result(cx)).map_err(to_io)?;
        let mut copied = 0;
        if !result.is_canceled() {
            for chunk in result.buffer().chunks() {
                let n = chunk.len().min(room - copied);
                put(&chunk[..n]);
                copied += n;
                if copied == room {
                    break;
                }
            }
        }
        (copied, result.is_canceled())
    };
    reader.consume(copied).map_err(to_io)?;
    if canceled {
        return Poll::Ready(Err(canceled_read()));
    }
    Poll::Ready(Ok(copied))
}

/// `fill_buf`: the first contiguous piece of the unconsumed bytes, left outstanding for
/// [`consume`]. Empty at end of file.
pub(crate) fn poll_fill_buf<'a>(reader: &'a mut Reader, cx: &mut Context<'_>) -> Poll<io::Result<&'a [u8]>> {
    release(reader)?;
    let canceled = ready!(reader.poll_read_result(cx)).map_err(to_io)?.is_canceled();
    if canceled {
        reader.consume(0).map_err(to_io)?;
        return Poll::Ready(Err(canceled_read()));
    }
    let buffer = reader.outstanding_buffer().expect("a ready read leaves its buffer outstanding");
    Poll::Ready(Ok(buffer.first_chunk()))
}

/// `consume(amt)` after [`poll_fill_buf`].
///
/// # Panics
///
/// When `amt` is more than the unconsumed bytes: the traits require `amt` to be at most
/// what `poll_fill_buf` returned.
pub(crate) fn consume(reader: &mut Reader, amt: usize) {
    if let Err(e) = reader.consume(amt) {
        panic!("consume({amt}) past the unconsumed bytes: {e}");
    }
}

/// Writes: waits while the writer is paused (or commits first when the unflushed bytes
/// reached the pause threshold), then copies as much of `bufs`, in order, as fits under
/// the threshold into the pipe, unflushed.
pub(crate) fn poll_write<'b>(
    writer: &mut Writer,
    cx: &mut Context<'_>,
    bufs: impl Iterator<Item = &'b [u8]> + Clone,
) -> Poll<io::Result<usize>> {
    let total: usize = bufs.clone().map(<[u8]>::len).sum();
    if total == 0 {
        return Poll::Ready(Ok(0));
    }
    let limit = writer.commit_limit();
    let unflushed = writer.unflushed_bytes();
    // Right after a commit (nothing unflushed), the commit may have paused the writer:
    // check under the lock. In between, writes take no lock until the limit.
    if unflushed == 0 || unflushed >= limit {
        match poll_commit(writer, cx) {
            // Planted (`WriteRefusesWhilePaused`): a paused writer answers "no room" (a
            // write of 0 bytes: end of stream to the caller) instead of waiting.
            Poll::Pending if fault::WriteRefusesWhilePaused.is_active() => return Poll::Ready(Ok(0)),
            polled => ready!(polled)?,
        }
    }
    let room = limit.saturating_sub(writer.unflushed_bytes()).min(total as u64) as usize;
    let mut copied = 0;
    for mut data in bufs {
        while copied < room && !data.is_empty() {
            let memory = writer.get_memory(1).map_err(to_io)?;
            let n = memory.len().min(room - copied).min(data.len());
            memory[..n].copy_from_slice(&data[..n]);
            writer.advance(n).map_err(to_io)?;
            copied += n;
            data = &data[n..];
        }
    }
    Poll::Ready(Ok(copied))
}

/// Flushes: commits and waits for back-pressure. A completed writer has nothing left to
/// flush.
pub(crate) fn poll_flush(writer: &mut Writer, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
    Poll::Ready(match ready!(writer.poll_flush_result(cx)) {
        Err(PipeError::WriterCompleted) => Ok(()),
        other => flush_outcome(other),
    })
}

/// Shutdown (`close`): completes the writer, which commits everything.
pub(crate) fn poll_shutdown(writer: &mut Writer) -> Poll<io::Result<()>> {
    writer.complete(None);
    Poll::Ready(Ok(()))
}

/// [`Writer::poll_flush_result`] as I/O.
pub(crate) fn poll_commit(writer: &mut Writer, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
    Poll::Ready(flush_outcome(ready!(writer.poll_flush_result(cx))))
}

/// A flush's outcome as I/O: a completed reader is a broken pipe and a canceled flush is
/// interrupted.
fn flush_outcome(result: Result<FlushResult, PipeError>) -> io::Result<()> {
    let result = result.map_err(to_io)?;
    if result.is_completed {
        Err(io::Error::new(io::ErrorKind::BrokenPipe, PipeError::ReaderCompleted))
    } else if result.is_canceled {
        Err(io::Error::new(io::ErrorKind::Interrupted, "the flush was canceled"))
    } else {
        Ok(())
    }
}

/// Releases, unconsumed, a buffer left outstanding by `poll_fill_buf` without `consume`
/// or by a direct [`Reader::read`].
pub(crate) fn release(reader: &mut Reader) -> io::Result<()> {
    reader.consume(0).map_err(to_io)
}

pub(crate) fn canceled_read() -> io::Error {
    io::Error::new(io::ErrorKind::Interrupted, "the read was canceled")
}

/// A pipe error as an I/O error, with the [`PipeError`] as its inner error.
pub(crate) fn to_io(error: PipeError) -> io::Error {
    let kind = match error {
        PipeError::WriterCompleted | PipeError::ReaderCompleted | PipeError::ReaderFailed(_) => {
            io::ErrorKind::BrokenPipe
        }
        PipeError::WriterFailed(_) => io::ErrorKind::Other,
        _ => io::ErrorKind::InvalidInput,
    };
    io::Error::new(kind, error)
}
