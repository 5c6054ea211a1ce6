//! Large cancel-and-close scenarios, for shuttle: a canceller task races pending reads
//! and paused flushes, and a reader that closes early races a paused writer (seed 004's
//! close running concurrently with receive, at scale).

use std::sync::Arc;

use pipecheck::thread;
use pipecheck_properties::{CheckConfig, Monitor, checked_pipe};

use super::large_stream::{expect_all_consumed, message, read_to_end};
use crate::Scenario;
use crate::scenarios::drive::join;
use pipecheck::Scale;

/// Scenarios of this family.
pub(crate) const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "large-cancel",
        summary: "writer, reader and a canceller: 150 messages while 30 read and flush cancels \
                  land at random points",
        scale: Scale::Large,
        config: cancel_config,
        body: large_cancel,
    },
    Scenario {
        name: "large-reader-closes",
        summary: "the reader consumes 300 bytes and completes while the writer keeps sending and \
                  may be paused; the writer stops once a flush reports completion",
        scale: Scale::Large,
        config: cancel_config,
        body: large_reader_closes,
    },
];

fn cancel_config() -> CheckConfig {
    CheckConfig {
        minimum_segment_size: 4,
        maximum_segment_size: 16,
        pause_writer_threshold: 20,
        resume_writer_threshold: 10,
        max_pooled_segments: 3,
        pool_first_chunk: 1,
    }
}

fn large_cancel(monitor: &Arc<Monitor>) {
    const MESSAGES: usize = 150;
    const CANCELS: usize = 30;
    let (mut writer, mut reader) = checked_pipe(monitor);
    let read_canceller = reader.inner().read_canceller();
    let flush_canceller = writer.inner().flush_canceller();
    let canceller = thread::spawn(move || {
        for _ in 0..CANCELS {
            read_canceller.cancel_pending_read();
            flush_canceller.cancel_pending_flush();
            thread::yield_now();
        }
    });
    let writer = thread::spawn(move || {
        let mut sent = 0u64;
        for i in 0..MESSAGES {
            let bytes = message(i);
            // A canceled flush still committed its bytes; the writer just moves on.
            writer.send(&bytes).expect("the reader stays open");
            sent += bytes.len() as u64;
        }
        writer.complete(None);
        sent
    });
    let read = read_to_end(&mut reader, monitor);
    reader.complete(None);
    let sent = join(writer);
    join(canceller);
    expect_all_consumed(read, sent);
}

fn large_reader_closes(monitor: &Arc<Monitor>) {
    const WANTED: u64 = 300;
    let (mut writer, mut reader) = checked_pipe(monitor);
    let writer = thread::spawn(move || {
        for i in 0.. {
            let result = writer.send(&message(i)).expect("the reader completes without failure");
            if result.is_completed {
                break;
            }
        }
        writer.complete(None);
    });
    let mut read = 0u64;
    while read < WANTED {
        let outcome = reader.read_and_consume(|len| len).expect("reads succeed");
        read += outcome.bytes.len() as u64;
    }
    reader.complete(None);
    join(writer);
}
