//! `futures-io`'s traits for the pipe's ends (feature `futures-io`): [`Reader`] is an
//! [`AsyncRead`] and [`AsyncBufRead`], [`Writer`] an [`AsyncWrite`] (`poll_close`
//! completes it), and [`copy_from_reader`] / [`copy_to_writer`] pump bytes between a
//! pipe end and a `futures-io` stream. The behaviour is described in
//! [`adapters`](super), and is the same as with feature `tokio`.
//!
//! # Examples
//!
//! ```
//! # #[cfg(not(any(feature = "loom", feature = "shuttle")))]
//! # fn main() {
//! use futures_io::{AsyncRead, AsyncWrite};
//! use pipecheck_sync::future::block_on;
//! # use std::future::poll_fn;
//! # use std::pin::Pin;
//!
//! let (mut writer, mut reader) = pipecheck_pipe::pipe();
//! block_on(poll_fn(|cx| Pin::new(&mut writer).poll_write(cx, b"hello"))).unwrap();
//! block_on(poll_fn(|cx| Pin::new(&mut writer).poll_close(cx))).unwrap();
//! let mut buf = [0u8; 8];
//! let n = block_on(poll_fn(|cx| Pin::new(&mut reader).poll_read(cx, &mut buf))).unwrap();
//! assert_eq!(&buf[..n], b"hello");
//! let n = block_on(poll_fn(|cx| Pin::new(&mut reader).poll_read(cx, &mut buf))).unwrap();
//! assert_eq!(n, 0, "end of file");
//! # }
//! # #[cfg(any(feature = "loom", feature = "shuttle"))]
//! # fn main() {}
//! ```

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_io::{AsyncBufRead, AsyncRead, AsyncWrite};

use super::copy::{self, Sink, Source};
use crate::pipe::{Reader, Writer};

impl AsyncRead for Reader {
    /// Copies unconsumed bytes into `buf` and consumes them; `Ok(0)` is end of file.
    /// See [`adapters`](super) for errors and cancellation.
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        let mut filled = 0;
        super::poll_read(self.get_mut(), cx, buf.len(), |bytes| {
            buf[filled..filled + bytes.len()].copy_from_slice(bytes);
            filled += bytes.len();
        })
    }
}

impl AsyncBufRead for Reader {
    /// The first contiguous piece of the unconsumed bytes (empty at end of file).
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        super::poll_fill_buf(self.get_mut(), cx)
    }

    /// Consumes `amt` bytes of the piece from `poll_fill_buf`.
    ///
    /// # Panics
    ///
    /// When `amt` is more than the unconsumed bytes (consuming past the piece but within
    /// the bytes the pipe holds is allowed).
    fn consume(self: Pin<&mut Self>, amt: usize) {
        super::consume(self.get_mut(), amt);
    }
}

impl AsyncWrite for Writer {
    /// Copies into the pipe without publishing (flush publishes), after waiting out a
    /// pause; commits on its own when the unflushed bytes reach the pause threshold.
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        super::poll_write(self.get_mut(), cx, std::iter::once(buf))
    }

    /// As `poll_write`, taking from every buffer in order (one call, one pause check).
    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        super::poll_write(self.get_mut(), cx, bufs.iter().map(|b| &**b))
    }

    /// Commits, then waits while the reader is behind by the pause threshold or more.
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        super::poll_flush(self.get_mut(), cx)
    }

    /// Completes the writer: everything written is committed and the reader sees end of
    /// file after it.
    fn poll_close(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        super::poll_shutdown(self.get_mut())
    }
}

struct Io<'a, T: ?Sized>(&'a mut T);

impl<R: AsyncRead + Unpin + ?Sized> Source for Io<'_, R> {
    fn poll_read_into(&mut self, cx: &mut Context<'_>, dst: &mut [u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut *self.0).poll_read(cx, dst)
    }
}

impl<W: AsyncWrite + Unpin + ?Sized> Sink for Io<'_, W> {
    fn poll_write_from(&mut self, cx: &mut Context<'_>, src: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut *self.0).poll_write(cx, src)
    }

    fn poll_flush_sink(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut *self.0).poll_flush(cx)
    }
}

/// Reads `source` to its end into the pipe, straight into the writer's memory, and
/// returns how many bytes were copied; as [`tokio::copy_from_reader`](super::tokio), for
/// `futures-io` streams. The writer is not completed.
///
/// # Examples
///
/// ```
/// # #[cfg(not(any(feature = "loom", feature = "shuttle")))]
/// # fn main() {
/// use pipecheck_pipe::adapters::futures_io::copy_from_reader;
/// use pipecheck_sync::future::block_on;
///
/// let (mut writer, mut reader) = pipecheck_pipe::pipe();
/// let mut source: &[u8] = b"from a stream"; // any futures-io AsyncRead
/// assert_eq!(block_on(copy_from_reader(&mut source, &mut writer)).unwrap(), 13);
/// writer.complete(None);
/// assert_eq!(reader.try_read().unwrap().unwrap().buffer().to_vec(), b"from a stream");
/// # }
/// # #[cfg(any(feature = "loom", feature = "shuttle"))]
/// # fn main() {}
/// ```
///
/// # Errors
///
/// The first error of `source`; [`BrokenPipe`](io::ErrorKind::BrokenPipe) once the
/// pipe's reader has completed or when the writer has completed.
pub async fn copy_from_reader<R>(source: &mut R, writer: &mut Writer) -> io::Result<u64>
where
    R: AsyncRead + Unpin + ?Sized,
{
    copy::from_source(&mut Io(source), writer).await
}

/// Writes everything the pipe delivers into `sink` until the pipe's writer completes,
/// consuming what `sink` accepted, and returns how many bytes were copied; as
/// [`tokio::copy_to_writer`](super::tokio), for `futures-io` streams. Neither the reader
/// nor `sink` is completed or closed.
///
/// # Examples
///
/// ```
/// # #[cfg(not(any(feature = "loom", feature = "shuttle")))]
/// # fn main() {
/// use pipecheck_pipe::adapters::futures_io::copy_to_writer;
/// use pipecheck_sync::future::block_on;
///
/// let (mut writer, mut reader) = pipecheck_pipe::pipe();
/// writer.write(b"to a stream").unwrap();
/// writer.complete(None);
/// let mut sink = Vec::new(); // any futures-io AsyncWrite
/// assert_eq!(block_on(copy_to_writer(&mut reader, &mut sink)).unwrap(), 11);
/// assert_eq!(sink, b"to a stream");
/// # }
/// # #[cfg(any(feature = "loom", feature = "shuttle"))]
/// # fn main() {}
/// ```
///
/// # Errors
///
/// The first error of `sink` ([`WriteZero`](io::ErrorKind::WriteZero) if it accepts
/// nothing); the writer's failure; [`Interrupted`](io::ErrorKind::Interrupted) when the
/// read is canceled (the unwritten bytes stay in the pipe).
pub async fn copy_to_writer<W>(reader: &mut Reader, sink: &mut W) -> io::Result<u64>
where
    W: AsyncWrite + Unpin + ?Sized,
{
    copy::to_sink(reader, &mut Io(sink)).await
}
