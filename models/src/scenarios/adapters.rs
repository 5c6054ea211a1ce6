//! The async I/O adapters (`pipecheck_pipe::adapters`): the pipe driven through tokio's
//! and futures-io's `AsyncRead` / `AsyncWrite`, as a caller's `write_all` and read loop
//! drive them, under every engine. Each accepted write is recorded; the bytes read are
//! compared with them once the reader is done (**byte-exact**: a read through the
//! adapters consumes inside the poll, so it cannot be recorded before its consume, as
//! the monitor's online check needs).
//!
//! * a write of twice the pause threshold: its second `poll_write` commits the first
//!   bytes and finds the writer paused, and must wait (`Pending`) until the reader
//!   consumes, never answer `Ok(0)`, which the traits define as "accepts no more bytes"
//!   (`WriteRefusesWhilePaused`); the `poll_flush` after it commits the rest, reaches the
//!   threshold again and must wait too (its return is recorded, so **backpressure** sees
//!   one that does not);
//! * a read polled on an empty pipe while another thread writes and flushes: the read
//!   that returns `Pending` must have registered the caller's waker, or nothing wakes it
//!   (`ReadForgetsWaker`, a deadlock every engine names `no-lost-wakeup`).
//!
//! In both, the writer outlives its shutdown (`poll_shutdown`, `poll_close`) until the
//! reader has read to the end: the end of file must come from the shutdown, not from
//! dropping the writer (which completes it too).

use std::future::poll_fn;
use std::pin::Pin;
use std::sync::Arc;

use pipecheck::ensure;
use pipecheck::future::block_on;
use pipecheck::thread;
use pipecheck_pipe::{Reader, Writer};
use pipecheck_properties::{CheckConfig, Monitor, Observation, checked_pipe};

use super::data::one_segment_of_four;
use super::drive::{expect_bytes, join};
use crate::Scenario;
use pipecheck::Scale;

/// Scenarios of this family.
pub(crate) const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "adapter-write-waits-while-paused",
        summary: "tokio's AsyncWrite writes four bytes into a pipe that pauses at two, then flushes, while \
                  futures-io's AsyncRead reads them two at a time; shutdown, then end of file",
        scale: Scale::Small,
        config: pause_at_two,
        body: write_waits_while_paused,
    },
    Scenario {
        name: "adapter-read-races-flush",
        summary: "tokio's AsyncRead polls an empty pipe while futures-io's AsyncWrite writes a byte, flushes \
                  and closes from another thread",
        scale: Scale::Small,
        config: one_segment_of_four,
        body: read_races_flush,
    },
];

/// Pause at two unflushed-and-unexamined bytes, resume below one.
fn pause_at_two() -> CheckConfig {
    CheckConfig { pause_writer_threshold: 2, resume_writer_threshold: 1, ..one_segment_of_four() }
}

/// An adapter call that failed: in these scenarios neither end completes before every
/// byte is through (the reader completes after the end of file, which only the writer's
/// shutdown gives), so a failed read, write or flush means bytes were lost
/// (**byte-exact**), named as such rather than an `unwrap` panic.
fn lost<T>(error: std::io::Error) -> T {
    let detail = format!("an adapter call failed before every byte was through: {error}");
    pipecheck::Violation::new(pipecheck_pipe::invariant::BYTE_EXACT, detail).raise()
}

/// `write_all` over tokio's `poll_write`: every poll must accept bytes or wait.
fn tokio_write_all(writer: &mut Writer, monitor: &Monitor, mut bytes: &[u8], written: &mut u64) {
    use tokio::io::AsyncWrite;
    while !bytes.is_empty() {
        let accepted =
            block_on(poll_fn(|cx| Pin::new(&mut *writer).poll_write(cx, bytes))).unwrap_or_else(lost);
        ensure(accepted > 0, pipecheck_pipe::invariant::BACKPRESSURE, || {
            format!("poll_write accepted 0 of {} bytes: a paused writer must wait, not refuse", bytes.len())
        });
        monitor
            .record_by("writer", Observation::Wrote { offset: *written, bytes: bytes[..accepted].to_vec() });
        *written += accepted as u64;
        bytes = &bytes[accepted..];
    }
}

/// Reads through futures-io's `poll_read`, `room` bytes at a time, until end of file.
fn futures_read_to_end(reader: &mut Reader, monitor: &Monitor, room: usize) -> Vec<u8> {
    use futures_io::AsyncRead;
    let mut all = Vec::new();
    let mut buf = vec![0; room];
    loop {
        let n = block_on(poll_fn(|cx| Pin::new(&mut *reader).poll_read(cx, &mut buf))).unwrap_or_else(lost);
        if n == 0 {
            monitor.record_by("reader", Observation::Drained);
            return all;
        }
        all.extend_from_slice(&buf[..n]);
    }
}

fn write_waits_while_paused(monitor: &Arc<Monitor>) {
    use tokio::io::AsyncWrite;
    let (mut writer, mut reader) = checked_pipe(monitor);
    let writing_monitor = monitor.clone();
    let writer = thread::spawn(move || {
        let (monitor, inner) = (&writing_monitor, writer.inner());
        tokio_write_all(inner, monitor, b"abcd", &mut 0);
        block_on(poll_fn(|cx| Pin::new(&mut *inner).poll_flush(cx))).unwrap_or_else(lost);
        monitor.record_by("writer", Observation::FlushReturned { canceled: false, completed: false });
        block_on(poll_fn(|cx| Pin::new(&mut *inner).poll_shutdown(cx))).unwrap_or_else(lost);
        writer
    });
    let bytes = futures_read_to_end(reader.inner(), monitor, 2);
    reader.complete(None);
    let _writer = join(writer);
    expect_bytes(&bytes, b"abcd");
}

fn read_races_flush(monitor: &Arc<Monitor>) {
    use futures_io::AsyncWrite;
    use tokio::io::{AsyncRead, ReadBuf};
    let (mut writer, mut reader) = checked_pipe(monitor);
    let writing_monitor = monitor.clone();
    let writer = thread::spawn(move || {
        let inner = writer.inner();
        let accepted =
            block_on(poll_fn(|cx| Pin::new(&mut *inner).poll_write(cx, b"x"))).unwrap_or_else(lost);
        writing_monitor
            .record_by("writer", Observation::Wrote { offset: 0, bytes: b"x"[..accepted].to_vec() });
        block_on(poll_fn(|cx| Pin::new(&mut *inner).poll_flush(cx))).unwrap_or_else(lost);
        block_on(poll_fn(|cx| Pin::new(&mut *inner).poll_close(cx))).unwrap_or_else(lost);
        writer
    });
    let reader = reader.inner();
    let mut all = Vec::new();
    loop {
        let mut storage = [0u8; 4];
        let mut buf = ReadBuf::new(&mut storage);
        block_on(poll_fn(|cx| Pin::new(&mut *reader).poll_read(cx, &mut buf))).unwrap_or_else(lost);
        if buf.filled().is_empty() {
            monitor.record_by("reader", Observation::Drained);
            break;
        }
        all.extend_from_slice(buf.filled());
    }
    reader.complete(None);
    let _writer = join(writer);
    expect_bytes(&all, b"x");
}
