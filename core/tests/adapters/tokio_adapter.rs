//! The tokio adapters (feature `tokio`) under tokio's runtime: `Reader` as `AsyncRead` +
//! `AsyncBufRead`, `Writer` as `AsyncWrite`, and the copy helpers. Round trips, partial
//! reads, back-pressure against a concurrent reader, completion as end of file, failures
//! and cancellation as I/O errors.

use std::io;
use std::pin::{Pin, pin};
use std::task::{Context, Poll};

use crate::common::transfer::{check_pattern, fill_pattern};
use crate::common::watched::WatchFuture;
use crate::common::{Recorder, WakeCounter};
use pipecheck_pipe::adapters::tokio::{copy_from_reader, copy_to_writer};
use pipecheck_pipe::{Failure, PipeError, PipeEvent, PipeOptions, Reader, Writer};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

fn alphabet() -> Vec<u8> {
    (b'a'..=b'z').collect()
}

fn pattern(len: usize) -> Vec<u8> {
    let mut data = vec![0; len];
    fill_pattern(&mut data, 0);
    data
}

/// A pipe of `segment`-byte segments with pause/resume thresholds `pause`/`resume`.
fn pipe(segment: usize, pause: u64, resume: u64) -> (Writer, Reader) {
    PipeOptions::new()
        .minimum_segment_size(segment)
        .maximum_segment_size(segment)
        .pause_writer_threshold(pause)
        .resume_writer_threshold(resume)
        .build()
        .unwrap()
}

/// Polls `f` once with `waker`'s context.
fn poll_once_with<T>(waker: &std::task::Waker, f: impl FnOnce(&mut Context<'_>) -> Poll<T>) -> Poll<T> {
    f(&mut Context::from_waker(waker))
}

fn pipe_error(error: &io::Error) -> &PipeError {
    error.get_ref().and_then(|e| e.downcast_ref::<PipeError>()).expect("the inner error is the PipeError")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn write_all_and_read_to_end_round_trip_across_tasks() {
    let data = pattern(1 << 20);
    let (mut writer, mut reader) = pipe(4096, 16 * 1024, 4096);
    let sent = data.clone();
    let writing = tokio::spawn(async move {
        for piece in sent.chunks(10_000) {
            writer.write_all(piece).watched().await.unwrap();
        }
        writer.shutdown().watched().await.unwrap();
    });
    let mut received = Vec::new();
    reader.read_to_end(&mut received).watched().await.unwrap();
    writing.watched().await.unwrap();
    assert_eq!(received.len(), data.len());
    assert!(received == data, "bytes differ");
}

#[tokio::test]
async fn shutdown_reads_as_end_of_file_after_the_data() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    writer.write_all(b"last words").watched().await.unwrap();
    writer.shutdown().watched().await.unwrap();
    let mut buf = [0u8; 32];
    assert_eq!(AsyncReadExt::read(&mut reader, &mut buf).watched().await.unwrap(), 10);
    assert_eq!(&buf[..10], b"last words");
    assert_eq!(AsyncReadExt::read(&mut reader, &mut buf).watched().await.unwrap(), 0, "end of file");
    assert_eq!(AsyncReadExt::read(&mut reader, &mut buf).watched().await.unwrap(), 0, "end of file, again");
    // The writer is done: writes are refused, flushing has nothing left to do.
    let error = AsyncWriteExt::write(&mut writer, b"more").watched().await.unwrap_err();
    assert_eq!(error.kind(), io::ErrorKind::BrokenPipe);
    assert_eq!(pipe_error(&error), &PipeError::WriterCompleted);
    AsyncWriteExt::flush(&mut writer).watched().await.unwrap();
}

#[tokio::test]
async fn writes_are_published_by_flush() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    writer.write_all(b"buffered").watched().await.unwrap();
    assert_eq!(writer.unflushed_bytes(), 8);
    assert!(reader.try_read().unwrap().is_none(), "nothing is committed before the flush");
    AsyncWriteExt::flush(&mut writer).watched().await.unwrap();
    assert_eq!(writer.unflushed_bytes(), 0);
    let mut buf = [0u8; 8];
    reader.read_exact(&mut buf).watched().await.unwrap();
    assert_eq!(&buf, b"buffered");
}

#[tokio::test]
async fn small_buffers_read_in_order_across_segments() {
    let (mut writer, mut reader) = pipe(8, 0, 0);
    writer.write_all(&alphabet()).watched().await.unwrap();
    writer.shutdown().watched().await.unwrap();
    let mut pieces = Vec::new();
    let mut buf = [0u8; 3];
    loop {
        let n = AsyncReadExt::read(&mut reader, &mut buf).watched().await.unwrap();
        if n == 0 {
            break;
        }
        pieces.push(buf[..n].to_vec());
    }
    assert!(pieces.iter().all(|p| p.len() == 3 || p == b"yz"), "{pieces:?}");
    assert_eq!(pieces.concat(), alphabet());
    // A read spanning a segment boundary copies from both segments.
    assert_eq!(pieces[2], b"ghi");
}

#[tokio::test]
async fn a_read_into_no_room_returns_at_once() {
    let (_writer, mut reader) = pipecheck_pipe::pipe();
    let mut empty = [0u8; 0];
    // The pipe is empty and its writer alive: only a read that asks for nothing is ready.
    assert_eq!(AsyncReadExt::read(&mut reader, &mut empty).watched().await.unwrap(), 0);
}

#[tokio::test]
async fn fill_buf_hands_out_a_segment_and_consume_advances_in_it() {
    let (mut writer, mut reader) = pipe(8, 0, 0);
    writer.write_all(&alphabet()).watched().await.unwrap();
    AsyncWriteExt::flush(&mut writer).watched().await.unwrap();
    assert_eq!(reader.fill_buf().watched().await.unwrap(), b"abcdefgh");
    // Without `consume`, the same bytes again.
    assert_eq!(reader.fill_buf().watched().await.unwrap(), b"abcdefgh");
    Pin::new(&mut reader).consume(3);
    assert_eq!(reader.fill_buf().watched().await.unwrap(), b"defgh");
    Pin::new(&mut reader).consume(5);
    assert_eq!(reader.fill_buf().watched().await.unwrap(), b"ijklmnop", "the next segment");
    // Mixed with `read`: it starts where `consume` left off.
    let mut buf = [0u8; 4];
    reader.read_exact(&mut buf).watched().await.unwrap();
    assert_eq!(&buf, b"ijkl");
    // Helpers built on fill_buf/consume.
    writer.write_all(b"\nsecond line\n").watched().await.unwrap();
    writer.shutdown().watched().await.unwrap();
    let mut line = Vec::new();
    reader.read_until(b'\n', &mut line).watched().await.unwrap();
    assert_eq!(line, b"mnopqrstuvwxyz\n");
    let mut line = String::new();
    reader.read_line(&mut line).watched().await.unwrap();
    assert_eq!(line, "second line\n");
    assert_eq!(reader.fill_buf().watched().await.unwrap(), b"", "end of file");
}

#[test]
#[should_panic(expected = "consume(27) past the unconsumed bytes")]
fn consume_past_the_unconsumed_bytes_panics() {
    let (mut writer, mut reader) = pipe(8, 0, 0);
    writer.write(&alphabet()).unwrap();
    writer.complete(None);
    let waker = std::task::Waker::noop();
    let filled = poll_once_with(waker, |cx| Pin::new(&mut reader).poll_fill_buf(cx).map_ok(|b| b.len()));
    assert!(matches!(filled, Poll::Ready(Ok(8))));
    // Past the piece but within the pipe's bytes is well defined (like tokio's
    // `BufReader`, which clamps); past every unconsumed byte is a bug.
    Pin::new(&mut reader).consume(27);
}

#[tokio::test]
async fn a_buffer_left_outstanding_by_read_is_released_by_the_next_adapter_read() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    writer.write_all(b"kept").watched().await.unwrap();
    AsyncWriteExt::flush(&mut writer).watched().await.unwrap();
    // A direct read whose buffer is never advanced.
    assert_eq!(pipecheck_pipe::Reader::read(&mut reader).watched().await.unwrap().buffer().len(), 4);
    let mut buf = [0u8; 4];
    reader.read_exact(&mut buf).watched().await.unwrap();
    assert_eq!(&buf, b"kept");
}

#[tokio::test]
async fn a_failed_writer_is_an_io_error_carrying_the_failure() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    writer.complete(Some(Failure::new("upstream reset")));
    let mut buf = [0u8; 8];
    let error = AsyncReadExt::read(&mut reader, &mut buf).watched().await.unwrap_err();
    assert_eq!(error.kind(), io::ErrorKind::Other);
    assert_eq!(pipe_error(&error), &PipeError::WriterFailed(Failure::new("upstream reset")));
    let error = reader.fill_buf().watched().await.unwrap_err();
    assert_eq!(pipe_error(&error), &PipeError::WriterFailed(Failure::new("upstream reset")));
}

#[tokio::test]
async fn a_completed_reader_breaks_the_pipe_for_the_writer() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    writer.write_all(b"unread").watched().await.unwrap();
    reader.complete(None);
    let error = AsyncWriteExt::flush(&mut writer).watched().await.unwrap_err();
    assert_eq!(error.kind(), io::ErrorKind::BrokenPipe);
    assert_eq!(
        AsyncWriteExt::write(&mut writer, b"more").watched().await.unwrap_err().kind(),
        io::ErrorKind::BrokenPipe
    );

    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    reader.complete(Some(Failure::new("parse error")));
    let error = writer.write_all(b"x").watched().await.unwrap_err();
    assert_eq!(error.kind(), io::ErrorKind::BrokenPipe);
    assert_eq!(pipe_error(&error), &PipeError::ReaderFailed(Failure::new("parse error")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_canceled_read_is_interrupted_and_loses_nothing() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    let canceller = reader.read_canceller();
    let cancelling = tokio::spawn(async move { canceller.cancel_pending_read() });
    let mut buf = [0u8; 8];
    let error = AsyncReadExt::read(&mut reader, &mut buf).watched().await.unwrap_err();
    assert_eq!(error.kind(), io::ErrorKind::Interrupted);
    cancelling.watched().await.unwrap();
    // Canceled with bytes buffered: still interrupted, and the bytes stay for the retry.
    writer.write_all(b"data").watched().await.unwrap();
    AsyncWriteExt::flush(&mut writer).watched().await.unwrap();
    reader.cancel_pending_read();
    assert_eq!(
        AsyncReadExt::read(&mut reader, &mut buf).watched().await.unwrap_err().kind(),
        io::ErrorKind::Interrupted
    );
    assert_eq!(AsyncReadExt::read(&mut reader, &mut buf).watched().await.unwrap(), 4);
    assert_eq!(&buf[..4], b"data");
}

#[test]
fn a_flush_waits_at_the_pause_threshold_until_the_reader_consumes() {
    let (mut writer, mut reader) = pipe(64, 16, 8);
    let (wakes, waker) = WakeCounter::new();
    let wrote = poll_once_with(&waker, |cx| Pin::new(&mut writer).poll_write(cx, &[7; 16]));
    assert!(matches!(wrote, Poll::Ready(Ok(16))));
    let flushed = poll_once_with(&waker, |cx| Pin::new(&mut writer).poll_flush(cx));
    assert!(flushed.is_pending(), "16 unconsumed bytes reach the pause threshold");
    // Paused: a write is not accepted either, even though nothing is unflushed.
    let wrote = poll_once_with(&waker, |cx| Pin::new(&mut writer).poll_write(cx, b"x"));
    assert!(wrote.is_pending());
    assert_eq!(writer.unflushed_bytes(), 0);

    let mut buf = [0u8; 4];
    let noop = std::task::Waker::noop();
    let read = poll_once_with(noop, |cx| {
        Pin::new(&mut reader).poll_read(cx, &mut tokio::io::ReadBuf::new(&mut buf))
    });
    assert!(matches!(read, Poll::Ready(Ok(()))));
    assert_eq!(wakes.wakes(), 0, "12 unconsumed is not below the resume threshold");
    let mut buf = [0u8; 8];
    let read = poll_once_with(noop, |cx| {
        Pin::new(&mut reader).poll_read(cx, &mut tokio::io::ReadBuf::new(&mut buf))
    });
    assert!(matches!(read, Poll::Ready(Ok(()))));
    assert_eq!(wakes.wakes(), 1, "4 unconsumed resumes the writer");
    assert!(poll_once_with(&waker, |cx| Pin::new(&mut writer).poll_flush(cx)).is_ready());
    assert!(matches!(
        poll_once_with(&waker, |cx| Pin::new(&mut writer).poll_write(cx, b"x")),
        Poll::Ready(Ok(1))
    ));
}

#[test]
fn writes_commit_on_their_own_at_the_pause_threshold() {
    let (mut writer, mut reader) = pipe(64, 16, 8);
    let noop = std::task::Waker::noop();
    // 40 bytes offered: only up to the threshold is accepted into one unflushed batch.
    let wrote = poll_once_with(noop, |cx| Pin::new(&mut writer).poll_write(cx, &[1; 40]));
    assert!(matches!(wrote, Poll::Ready(Ok(16))));
    assert_eq!(writer.unflushed_bytes(), 16);
    // The next write commits the batch first, and the commit pauses the writer.
    let wrote = poll_once_with(noop, |cx| Pin::new(&mut writer).poll_write(cx, &[1; 24]));
    assert!(wrote.is_pending());
    assert_eq!(writer.unflushed_bytes(), 0);
    assert_eq!(reader.try_read().unwrap().unwrap().buffer().len(), 16, "committed without a flush");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn back_pressure_bounds_the_unconsumed_bytes_with_a_concurrent_reader() {
    const PAUSE: u64 = 4096;
    const RESUME: u64 = 1024;
    let recorder = Recorder::new();
    let (mut writer, mut reader) = PipeOptions::new()
        .minimum_segment_size(1024)
        .maximum_segment_size(1024)
        .pause_writer_threshold(PAUSE)
        .resume_writer_threshold(RESUME)
        .observer(recorder.clone())
        .build()
        .unwrap();
    let total = 1 << 20;
    // The writer never flushes by hand: back-pressure must come from `poll_write`.
    let writing = tokio::spawn(async move {
        writer.write_all(&pattern(total)).watched().await.unwrap();
        writer.shutdown().watched().await.unwrap();
    });
    let reading = tokio::spawn(async move {
        let mut offset = 0u64;
        let mut buf = vec![0u8; 700];
        loop {
            let n = AsyncReadExt::read(&mut reader, &mut buf).watched().await.unwrap();
            if n == 0 {
                return offset;
            }
            check_pattern(&buf[..n], offset);
            offset += n as u64;
        }
    });
    writing.watched().await.unwrap();
    assert_eq!(reading.watched().await.unwrap(), total as u64);
    let events = recorder.events();
    let mut paused = 0;
    for event in &events {
        if let PipeEvent::Flushed { unconsumed, paused: p, .. } = event {
            // A commit adds at most PAUSE bytes, and only after the writer was released
            // below RESUME.
            assert!(*unconsumed < PAUSE + RESUME, "{unconsumed} unconsumed after a commit");
            paused += usize::from(*p);
        }
    }
    assert!(paused > 0, "the writer never paused");
    assert!(events.iter().any(|e| matches!(e, PipeEvent::FlushResumed { .. })));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_helpers_pump_a_stream_through_a_pipe_and_out() {
    // duplex → copy_from_reader → pipe → copy_to_writer → duplex, every piece a task.
    let data = pattern(3 << 20);
    let (mut source_in, mut source_out) = tokio::io::duplex(8192);
    let (mut sink_in, mut sink_out) = tokio::io::duplex(8192);
    let (mut writer, mut reader) = pipe(2048, 8192, 2048);
    let sent = data.clone();
    let producing = tokio::spawn(async move {
        source_in.write_all(&sent).watched().await.unwrap();
        source_in.shutdown().watched().await.unwrap();
    });
    let filling = tokio::spawn(async move {
        let copied = copy_from_reader(&mut source_out, &mut writer).watched().await.unwrap();
        writer.complete(None);
        copied
    });
    let draining = tokio::spawn(async move {
        let copied = copy_to_writer(&mut reader, &mut sink_in).watched().await.unwrap();
        sink_in.shutdown().watched().await.unwrap();
        copied
    });
    let mut received = Vec::new();
    sink_out.read_to_end(&mut received).watched().await.unwrap();
    producing.watched().await.unwrap();
    assert_eq!(filling.watched().await.unwrap(), data.len() as u64);
    assert_eq!(draining.watched().await.unwrap(), data.len() as u64);
    assert!(received == data, "bytes differ");
}

#[tokio::test]
async fn copy_from_reader_fills_segments_in_place() {
    let (mut writer, mut reader) = pipe(64, 0, 0);
    let data = pattern(1000);
    let copied = copy_from_reader(&mut &data[..], &mut writer).watched().await.unwrap();
    assert_eq!(copied, 1000);
    assert_eq!(writer.unflushed_bytes(), 0, "flushed at the end of the source");
    writer.complete(None);
    assert_eq!(reader.try_read().unwrap().unwrap().buffer().to_vec(), data);
}

#[tokio::test]
async fn copy_from_reader_reports_the_source_error_and_a_completed_reader() {
    struct Failing;
    impl AsyncRead for Failing {
        fn poll_read(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
            _: &mut tokio::io::ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            Poll::Ready(Err(io::Error::new(io::ErrorKind::ConnectionReset, "reset")))
        }
    }
    let (mut writer, _reader) = pipecheck_pipe::pipe();
    let error = copy_from_reader(&mut Failing, &mut writer).watched().await.unwrap_err();
    assert_eq!(error.kind(), io::ErrorKind::ConnectionReset);

    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    reader.complete(None);
    let error = copy_from_reader(&mut &b"ignored"[..], &mut writer).watched().await.unwrap_err();
    assert_eq!(error.kind(), io::ErrorKind::BrokenPipe);
}

#[tokio::test]
async fn copy_to_writer_stops_at_completion_and_keeps_what_the_sink_refused() {
    let (mut writer, mut reader) = pipe(8, 0, 0);
    writer.write_all(&alphabet()).watched().await.unwrap();
    writer.shutdown().watched().await.unwrap();
    let mut sink = Vec::new();
    assert_eq!(copy_to_writer(&mut reader, &mut sink).watched().await.unwrap(), 26);
    assert_eq!(sink, alphabet());

    // A sink that takes 5 bytes, then fails: the rest stays in the pipe.
    struct TakesFive(Vec<u8>);
    impl AsyncWrite for TakesFive {
        fn poll_write(mut self: Pin<&mut Self>, _: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
            let room = 5 - self.0.len();
            if room == 0 {
                return Poll::Ready(Err(io::ErrorKind::StorageFull.into()));
            }
            let n = room.min(buf.len());
            self.0.extend_from_slice(&buf[..n]);
            Poll::Ready(Ok(n))
        }
        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }
    let (mut writer, mut reader) = pipe(8, 0, 0);
    writer.write_all(&alphabet()).watched().await.unwrap();
    writer.shutdown().watched().await.unwrap();
    let mut sink = TakesFive(Vec::new());
    let error = copy_to_writer(&mut reader, &mut sink).watched().await.unwrap_err();
    assert_eq!(error.kind(), io::ErrorKind::StorageFull);
    assert_eq!(sink.0, b"abcde");
    let mut rest = Vec::new();
    reader.read_to_end(&mut rest).watched().await.unwrap();
    assert_eq!(rest, b"fghijklmnopqrstuvwxyz");
}

#[tokio::test]
async fn copy_to_writer_flushes_the_sink_while_the_pipe_waits() {
    // A sink that counts flushes: the copy must flush before it waits on the pipe.
    struct Counting {
        data: Vec<u8>,
        flushes: usize,
    }
    impl AsyncWrite for Counting {
        fn poll_write(mut self: Pin<&mut Self>, _: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
            self.data.extend_from_slice(buf);
            Poll::Ready(Ok(buf.len()))
        }
        fn poll_flush(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            self.flushes += 1;
            Poll::Ready(Ok(()))
        }
        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    writer.write_all(b"first").watched().await.unwrap();
    AsyncWriteExt::flush(&mut writer).watched().await.unwrap();
    let mut sink = Counting { data: Vec::new(), flushes: 0 };
    {
        let mut copying = pin!(copy_to_writer(&mut reader, &mut sink));
        let noop = std::task::Waker::noop();
        assert!(poll_once_with(noop, |cx| copying.as_mut().poll(cx)).is_pending());
    }
    assert_eq!(sink.data, b"first");
    assert_eq!(sink.flushes, 1, "flushed before waiting for more");
    writer.complete(None);
    assert_eq!(copy_to_writer(&mut reader, &mut sink).watched().await.unwrap(), 0);
    assert_eq!(sink.flushes, 2, "and at the end");
}

#[tokio::test]
async fn a_read_polled_again_wakes_the_latest_waker_only() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    let (first, first_waker) = WakeCounter::new();
    let (second, second_waker) = WakeCounter::new();
    let mut buf = [0u8; 4];
    let read = |reader: &mut Reader, waker, buf: &mut [u8]| {
        poll_once_with(waker, |cx| Pin::new(reader).poll_read(cx, &mut tokio::io::ReadBuf::new(buf)))
    };
    assert!(read(&mut reader, &first_waker, &mut buf).is_pending());
    assert!(read(&mut reader, &second_waker, &mut buf).is_pending());
    writer.write_all(b"ping").watched().await.unwrap();
    AsyncWriteExt::flush(&mut writer).watched().await.unwrap();
    assert_eq!((first.wakes(), second.wakes()), (0, 1));
    assert!(matches!(read(&mut reader, &second_waker, &mut buf), Poll::Ready(Ok(()))));
    assert_eq!(&buf, b"ping");
}

#[test]
fn a_vectored_write_takes_every_buffer_up_to_the_pause_threshold() {
    let (mut writer, mut reader) = pipe(8, 16, 8);
    assert!(writer.is_write_vectored());
    let noop = std::task::Waker::noop();
    let bufs =
        [io::IoSlice::new(b"abc"), io::IoSlice::new(b""), io::IoSlice::new(b"defghijklmnopqrstuvwxyz")];
    // One call takes from every buffer, in order, up to the 16-byte threshold.
    let wrote = poll_once_with(noop, |cx| Pin::new(&mut writer).poll_write_vectored(cx, &bufs));
    assert!(matches!(wrote, Poll::Ready(Ok(16))));
    writer.complete(None);
    assert_eq!(reader.try_read().unwrap().unwrap().buffer().to_vec(), b"abcdefghijklmnop");
}

#[tokio::test]
async fn write_vectored_round_trips_through_the_ext_trait() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    let bufs = [io::IoSlice::new(b"head "), io::IoSlice::new(b"body")];
    assert_eq!(writer.write_vectored(&bufs).watched().await.unwrap(), 9);
    writer.shutdown().watched().await.unwrap();
    let mut text = String::new();
    reader.read_to_string(&mut text).watched().await.unwrap();
    assert_eq!(text, "head body");
}
