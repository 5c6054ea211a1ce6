//! Copying between a pipe end and an async stream, for both trait families: the loops
//! are written once over [`Source`] and [`Sink`], which `tokio.rs` and `futures_io.rs`
//! implement for their `AsyncRead` and `AsyncWrite`.

use std::future::poll_fn;
use std::io;
use std::task::{Context, Poll, ready};

use super::{canceled_read, poll_commit, release, to_io};
use crate::pipe::error::PipeError;
use crate::pipe::{Reader, Writer};

/// How much room a read from a source asks the pipe for: less makes many small reads
/// at the ends of segments, more wastes the tail of a segment that cannot hold it.
const READ_SIZE_HINT: usize = 4096;

/// A stream to read from: one `poll_read` into initialized memory.
pub(crate) trait Source {
    /// Reads into `dst`; `Ok(0)` is end of file.
    fn poll_read_into(&mut self, cx: &mut Context<'_>, dst: &mut [u8]) -> Poll<io::Result<usize>>;
}

/// A stream to write to.
pub(crate) trait Sink {
    /// Writes some of `src`; returns how much.
    fn poll_write_from(&mut self, cx: &mut Context<'_>, src: &[u8]) -> Poll<io::Result<usize>>;
    /// Flushes what was written.
    fn poll_flush_sink(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>>;
}

/// Reads `source` to its end straight into the pipe's memory, flushing when the source
/// has nothing ready and at the end, and waiting while the writer is paused. Returns the
/// bytes copied. The writer is not completed.
pub(crate) async fn from_source(source: &mut impl Source, writer: &mut Writer) -> io::Result<u64> {
    let mut copied = 0u64;
    let mut at_end = false;
    poll_fn(|cx| {
        loop {
            if at_end {
                ready!(poll_commit(writer, cx))?;
                return Poll::Ready(Ok(copied));
            }
            // As in `poll_write`: after a commit, wait out a pause before reading more.
            let unflushed = writer.unflushed_bytes();
            if unflushed == 0 || unflushed >= writer.commit_limit() {
                ready!(poll_commit(writer, cx))?;
            }
            let memory = match writer.get_memory(READ_SIZE_HINT) {
                Err(PipeError::SizeHintTooLarge { max, .. }) => writer.get_memory(max),
                other => other,
            }
            .map_err(to_io)?;
            match source.poll_read_into(cx, memory) {
                Poll::Ready(Ok(0)) => at_end = true,
                Poll::Ready(Ok(n)) => {
                    writer.advance(n).map_err(to_io)?;
                    copied += n as u64;
                }
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => {
                    // Publish what was read before waiting for the source.
                    if writer.unflushed_bytes() > 0 {
                        ready!(poll_commit(writer, cx))?;
                    }
                    return Poll::Pending;
                }
            }
        }
    })
    .await
}

/// Writes everything the pipe's writer sends into `sink`, consuming what was written,
/// until the writer completes; flushes `sink` whenever the pipe has nothing ready and at
/// the end. Returns the bytes copied. The reader is not completed.
pub(crate) async fn to_sink(reader: &mut Reader, sink: &mut impl Sink) -> io::Result<u64> {
    let mut copied = 0u64;
    poll_fn(|cx| {
        release(reader)?;
        loop {
            let canceled = match reader.poll_read_result(cx) {
                Poll::Pending => {
                    ready!(sink.poll_flush_sink(cx))?;
                    return Poll::Pending;
                }
                Poll::Ready(result) => result.map_err(to_io)?.is_canceled(),
            };
            if canceled {
                release(reader)?;
                return Poll::Ready(Err(canceled_read()));
            }
            let chunk = reader
                .outstanding_buffer()
                .expect("a ready read leaves its buffer outstanding")
                .first_chunk();
            if chunk.is_empty() {
                // Only a completed writer's drained pipe reads empty.
                release(reader)?;
                ready!(sink.poll_flush_sink(cx))?;
                return Poll::Ready(Ok(copied));
            }
            let written = sink.poll_write_from(cx, chunk);
            let n = match &written {
                Poll::Ready(Ok(n)) => *n,
                _ => 0,
            };
            reader.consume(n).map_err(to_io)?;
            match written {
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(n)) => copied += n as u64,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            }
        }
    })
    .await
}
