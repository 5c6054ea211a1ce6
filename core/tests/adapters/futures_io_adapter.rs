//! The `futures-io` adapters (feature `futures-io`), run on tokio's runtime: the same
//! behaviour as the tokio adapters through `futures-io`'s traits (`poll_close` completes
//! the writer) and the `futures-util` extension methods.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use crate::common::transfer::{check_pattern, fill_pattern};
use crate::common::watched::WatchFuture;
use crate::common::{Recorder, WakeCounter};
use futures_io::{AsyncBufRead, AsyncRead, AsyncWrite};
use futures_util::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
use pipecheck_pipe::adapters::futures_io::{copy_from_reader, copy_to_writer};
use pipecheck_pipe::{Failure, PipeError, PipeEvent, PipeOptions, Reader, Writer};

fn alphabet() -> Vec<u8> {
    (b'a'..=b'z').collect()
}

fn pattern(len: usize) -> Vec<u8> {
    let mut data = vec![0; len];
    fill_pattern(&mut data, 0);
    data
}

fn pipe(segment: usize, pause: u64, resume: u64) -> (Writer, Reader) {
    PipeOptions::new()
        .minimum_segment_size(segment)
        .maximum_segment_size(segment)
        .pause_writer_threshold(pause)
        .resume_writer_threshold(resume)
        .build()
        .unwrap()
}

fn poll_once_with<T>(waker: &Waker, f: impl FnOnce(&mut Context<'_>) -> Poll<T>) -> Poll<T> {
    f(&mut Context::from_waker(waker))
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
        writer.close().watched().await.unwrap();
    });
    let mut received = Vec::new();
    reader.read_to_end(&mut received).watched().await.unwrap();
    writing.watched().await.unwrap();
    assert!(received == data, "bytes differ");
}

#[tokio::test]
async fn close_reads_as_end_of_file_and_small_reads_keep_order() {
    let (mut writer, mut reader) = pipe(8, 0, 0);
    writer.write_all(&alphabet()).watched().await.unwrap();
    writer.close().watched().await.unwrap();
    let mut buf = [0u8; 5];
    let mut received = Vec::new();
    loop {
        let n = AsyncReadExt::read(&mut reader, &mut buf).watched().await.unwrap();
        if n == 0 {
            break;
        }
        received.extend_from_slice(&buf[..n]);
    }
    assert_eq!(received, alphabet());
    let error = AsyncWriteExt::write(&mut writer, b"late").watched().await.unwrap_err();
    assert_eq!(error.kind(), io::ErrorKind::BrokenPipe);
}

#[tokio::test]
async fn fill_buf_and_consume_walk_the_segments() {
    let (mut writer, mut reader) = pipe(8, 0, 0);
    writer.write_all(b"abcdefgh12345678\nrest").watched().await.unwrap();
    writer.close().watched().await.unwrap();
    assert_eq!(reader.fill_buf().watched().await.unwrap(), b"abcdefgh");
    Pin::new(&mut reader).consume(6);
    assert_eq!(reader.fill_buf().watched().await.unwrap(), b"gh");
    let mut line = String::new();
    reader.read_line(&mut line).watched().await.unwrap();
    assert_eq!(line, "gh12345678\n");
    let mut rest = Vec::new();
    reader.read_to_end(&mut rest).watched().await.unwrap();
    assert_eq!(rest, b"rest");
    assert_eq!(reader.fill_buf().watched().await.unwrap(), b"");
}

#[tokio::test]
async fn failures_and_cancellation_are_io_errors() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    writer.complete(Some(Failure::new("disk on fire")));
    let error = AsyncReadExt::read(&mut reader, &mut [0u8; 4]).watched().await.unwrap_err();
    let inner = error.get_ref().and_then(|e| e.downcast_ref::<PipeError>());
    assert_eq!(inner, Some(&PipeError::WriterFailed(Failure::new("disk on fire"))));

    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    writer.write_all(b"safe").watched().await.unwrap();
    AsyncWriteExt::flush(&mut writer).watched().await.unwrap();
    reader.cancel_pending_read();
    let mut buf = [0u8; 4];
    let error = AsyncReadExt::read(&mut reader, &mut buf).watched().await.unwrap_err();
    assert_eq!(error.kind(), io::ErrorKind::Interrupted);
    reader.read_exact(&mut buf).watched().await.unwrap();
    assert_eq!(&buf, b"safe");

    reader.complete(None);
    let error = writer.write_all(b"x").watched().await.unwrap_err();
    assert_eq!(error.kind(), io::ErrorKind::BrokenPipe);
}

#[test]
fn a_paused_writer_wakes_the_latest_waker_when_the_reader_consumes() {
    let (mut writer, mut reader) = pipe(64, 16, 8);
    let (first, first_waker) = WakeCounter::new();
    let (second, second_waker) = WakeCounter::new();
    let wrote = poll_once_with(&first_waker, |cx| Pin::new(&mut writer).poll_write(cx, &[3; 16]));
    assert!(matches!(wrote, Poll::Ready(Ok(16))));
    assert!(poll_once_with(&first_waker, |cx| Pin::new(&mut writer).poll_flush(cx)).is_pending());
    assert!(poll_once_with(&second_waker, |cx| Pin::new(&mut writer).poll_flush(cx)).is_pending());
    let mut buf = [0u8; 16];
    let read = poll_once_with(Waker::noop(), |cx| Pin::new(&mut reader).poll_read(cx, &mut buf));
    assert!(matches!(read, Poll::Ready(Ok(16))));
    assert_eq!((first.wakes(), second.wakes()), (0, 1));
    assert!(matches!(
        poll_once_with(&second_waker, |cx| Pin::new(&mut writer).poll_flush(cx)),
        Poll::Ready(Ok(()))
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn back_pressure_holds_with_a_concurrent_reader() {
    const PAUSE: u64 = 2048;
    const RESUME: u64 = 512;
    let recorder = Recorder::new();
    let (mut writer, mut reader) = PipeOptions::new()
        .minimum_segment_size(512)
        .maximum_segment_size(512)
        .pause_writer_threshold(PAUSE)
        .resume_writer_threshold(RESUME)
        .observer(recorder.clone())
        .build()
        .unwrap();
    let total = 512 * 1024;
    let writing = tokio::spawn(async move {
        writer.write_all(&pattern(total)).watched().await.unwrap();
        writer.close().watched().await.unwrap();
    });
    let mut offset = 0u64;
    let mut buf = vec![0u8; 300];
    loop {
        let n = AsyncReadExt::read(&mut reader, &mut buf).watched().await.unwrap();
        if n == 0 {
            break;
        }
        check_pattern(&buf[..n], offset);
        offset += n as u64;
    }
    writing.watched().await.unwrap();
    assert_eq!(offset, total as u64);
    let events = recorder.events();
    assert!(events.iter().any(|e| matches!(e, PipeEvent::Flushed { paused: true, .. })));
    for event in &events {
        if let PipeEvent::Flushed { unconsumed, .. } = event {
            assert!(*unconsumed < PAUSE + RESUME, "{unconsumed} unconsumed after a commit");
        }
    }
}

#[tokio::test]
async fn copy_helpers_move_a_stream_in_and_out() {
    let data = pattern(100_000);
    let (mut writer, mut reader) = pipe(1024, 0, 0);
    assert_eq!(copy_from_reader(&mut &data[..], &mut writer).watched().await.unwrap(), 100_000);
    writer.complete(None);
    let mut sink = Vec::new();
    assert_eq!(copy_to_writer(&mut reader, &mut sink).watched().await.unwrap(), 100_000);
    assert!(sink == data, "bytes differ");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_helpers_run_concurrently_with_back_pressure() {
    // One task fills the pipe from a stream, another drains it into a stream; the pause
    // threshold is far below the data, so the filler waits on the drainer many times.
    let data = pattern(1 << 20);
    let (mut writer, mut reader) = pipe(1024, 4096, 1024);
    let sent = data.clone();
    let filling = tokio::spawn(async move {
        let copied = copy_from_reader(&mut &sent[..], &mut writer).watched().await.unwrap();
        writer.complete(None);
        copied
    });
    let mut sink = Vec::new();
    assert_eq!(copy_to_writer(&mut reader, &mut sink).watched().await.unwrap(), data.len() as u64);
    assert_eq!(filling.watched().await.unwrap(), data.len() as u64);
    assert!(sink == data, "bytes differ");
}

#[test]
fn read_and_write_report_nothing_for_empty_buffers() {
    let (mut writer, mut reader) = pipecheck_pipe::pipe();
    let noop = Waker::noop();
    assert!(matches!(
        poll_once_with(noop, |cx| Pin::new(&mut reader).poll_read(cx, &mut [])),
        Poll::Ready(Ok(0))
    ));
    assert!(matches!(
        poll_once_with(noop, |cx| Pin::new(&mut writer).poll_write(cx, &[])),
        Poll::Ready(Ok(0))
    ));
    assert_eq!(writer.unflushed_bytes(), 0);
}

#[tokio::test]
async fn write_vectored_takes_every_buffer() {
    let (mut writer, mut reader) = pipe(4, 0, 0);
    let bufs = [io::IoSlice::new(b"split "), io::IoSlice::new(b"across "), io::IoSlice::new(b"segments")];
    assert_eq!(writer.write_vectored(&bufs).watched().await.unwrap(), 21);
    writer.close().watched().await.unwrap();
    let mut text = String::new();
    reader.read_to_string(&mut text).watched().await.unwrap();
    assert_eq!(text, "split across segments");
}
