//! The close/receive family: every way a waiting side must be woken, raced against the
//! wait itself — writer completion, cancel and flush racing a pending read (seed 004's
//! `CloseAsync` running concurrently with `ReceiveAsync`), and consume and reader
//! completion racing a paused flush.
//!
//! A wake an operation owes and does not take is reported online by the monitor as a
//! **no-lost-wakeup** violation naming that operation; a wait nobody ends is also
//! loom's deadlock, which the harness counts as the same invariant. The reads'
//! outcomes (the bytes, the reported cancel) are checked after the joins, typed.

use std::sync::Arc;

use pipecheck::ensure;
use pipecheck::thread;
use pipecheck_properties::{CheckConfig, CheckedReader, Monitor, Observation, checked_pipe};

use super::drive::{expect_bytes, join, read_to_end};
use crate::Scenario;
use pipecheck::Scale;

/// Scenarios of this family.
pub(crate) const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "writer-complete-races-read",
        summary: "the writer sends two bytes and completes while the reader drains",
        scale: Scale::Small,
        config: CheckConfig::default,
        body: writer_complete_races_read,
    },
    Scenario {
        name: "cancel-races-read",
        summary: "the read is canceled, then the writer completes, while the reader drains",
        scale: Scale::Small,
        config: CheckConfig::default,
        body: cancel_races_read,
    },
    Scenario {
        name: "cancel-from-third-thread-races-read",
        summary: "a third thread cancels the read while the writer sends a byte and completes and the reader drains",
        scale: Scale::Small,
        config: CheckConfig::default,
        body: cancel_from_third_thread_races_read,
    },
    Scenario {
        name: "flush-races-read",
        summary: "the writer flushes a two-byte frame byte by byte while the reader waits for the whole frame",
        scale: Scale::Small,
        config: CheckConfig::default,
        body: flush_races_read,
    },
    Scenario {
        name: "consume-races-paused-flush",
        summary: "the reader consumes below the resume threshold while the writer's flush is pausing",
        scale: Scale::Small,
        config: pause_at_two,
        body: consume_races_paused_flush,
    },
    Scenario {
        name: "reader-complete-races-paused-flush",
        summary: "the reader consumes too little to resume the writer, then completes, while the flush pauses",
        scale: Scale::Small,
        config: pause_at_two,
        body: reader_complete_races_paused_flush,
    },
];

/// Drains like [`CheckedReader::drain`], counting the reads that reported a cancel.
fn drain_counting_cancels(reader: &mut CheckedReader, monitor: &Monitor) -> (Vec<u8>, usize) {
    let (mut bytes, mut cancels) = (Vec::new(), 0);
    loop {
        let outcome = reader.read_and_consume(|len| len).unwrap();
        bytes.extend_from_slice(&outcome.bytes);
        cancels += usize::from(outcome.canceled);
        if outcome.completed {
            monitor.record_by("reader", Observation::Drained);
            return (bytes, cancels);
        }
    }
}

/// Pause the writer at two unconsumed bytes, resume it below one.
fn pause_at_two() -> CheckConfig {
    CheckConfig { pause_writer_threshold: 2, resume_writer_threshold: 1, ..CheckConfig::default() }
}

fn writer_complete_races_read(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    let writer = thread::spawn(move || {
        writer.send(b"ab").unwrap();
        writer.complete(None);
    });
    let bytes = reader.drain().unwrap();
    reader.complete(None);
    join(writer);
    expect_bytes(&bytes, b"ab");
}

/// A pending read is released by the cancel (or sees it at once); the reader then
/// reads again and must be woken by the completion.
fn cancel_races_read(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    let canceller = reader.inner().read_canceller();
    let writer = thread::spawn(move || {
        canceller.cancel_pending_read();
        writer.complete(None);
    });
    let (bytes, cancels) = drain_counting_cancels(&mut reader, monitor);
    reader.complete(None);
    join(writer);
    expect_bytes(&bytes, b"");
    // The cancel comes before the completion, and the reader reads until it sees the
    // completion: some read after the cancel reports it, exactly one.
    ensure(cancels == 1, pipecheck_pipe::invariant::CANCEL_OBSERVED, || {
        format!("{cancels} reads reported the one cancel")
    });
}

/// As `cancel-races-read`, with the cancel on a thread of its own (seed 004's
/// `CloseAsync` on another thread than `ReceiveAsync`), so it can land between the
/// writer's flush and its completion as well as anywhere in the reader's loop.
fn cancel_from_third_thread_races_read(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    let canceller = reader.inner().read_canceller();
    let cancel = thread::spawn(move || canceller.cancel_pending_read());
    let writer = thread::spawn(move || {
        writer.send(b"a").unwrap();
        writer.complete(None);
    });
    let (bytes, cancels) = drain_counting_cancels(&mut reader, monitor);
    reader.complete(None);
    join(writer);
    join(cancel);
    expect_bytes(&bytes, b"a");
    // The cancel may come after the last read (then no read reports it), never twice;
    // the monitor's cancel-observed checks that a read after it reports it.
    ensure(cancels <= 1, pipecheck_pipe::invariant::CANCEL_OBSERVED, || {
        format!("{cancels} reads reported the one cancel")
    });
}

/// The reader consumes only whole two-byte frames but examines everything, so after
/// seeing one byte it waits for a flush that commits past what it examined.
fn flush_races_read(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    let writer = thread::spawn(move || {
        writer.send(b"a").unwrap();
        writer.send(b"b").unwrap();
        writer.complete(None);
    });
    let frames = read_to_end(&mut reader, monitor, |len| len - len % 2).unwrap();
    reader.complete(None);
    join(writer);
    expect_bytes(&frames, b"ab");
}

/// The first flush pauses the writer (two bytes unconsumed); the reader's consume must
/// release and wake it, or both sides wait forever (the reader for the writer's
/// completion).
fn consume_races_paused_flush(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    let writer = thread::spawn(move || {
        writer.send(b"ab").unwrap();
        writer.send(b"c").unwrap();
        writer.complete(None);
    });
    let bytes = reader.drain().unwrap();
    reader.complete(None);
    join(writer);
    expect_bytes(&bytes, b"abc");
}

/// Consuming one of two bytes leaves the writer paused (one is not below the resume
/// threshold of one); only the reader's completion releases the flush.
fn reader_complete_races_paused_flush(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    let writer = thread::spawn(move || {
        let flushed = writer.send(b"ab").unwrap();
        ensure(!flushed.is_canceled, pipecheck_pipe::invariant::CANCEL_OBSERVED, || {
            format!("a flush returned {flushed:?}: canceled, but nobody canceled it")
        });
        writer.complete(None);
    });
    reader.read_and_consume(|len| len.min(1)).unwrap();
    reader.complete(None);
    join(writer);
}
