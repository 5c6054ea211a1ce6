//! Large streaming scenarios, for shuttle's randomized and PCT schedules: a writer and
//! a reader move hundreds of messages through many small segments, with back-pressure
//! on and the segment pool running near its maximum.
//!
//! Too big for loom (thousands of scheduling points); every engine but loom runs them.

use std::sync::Arc;

use pipecheck::ensure;
use pipecheck::thread;
use pipecheck_properties::{CheckConfig, CheckedReader, Monitor, Observation, checked_pipe};

use crate::Scenario;
use crate::scenarios::drive::join;
use pipecheck::Scale;

/// Scenarios of this family.
pub(crate) const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "large-stream",
        summary: "a writer sends 200 messages of 1-9 bytes through 4-16 byte segments; the reader \
                  consumes most reads fully and some partially; back-pressure pauses the writer",
        scale: Scale::Large,
        config: stream_config,
        body: large_stream,
    },
    Scenario {
        name: "large-pool-churn",
        summary: "300 full 8-byte segments cycle through a pool of at most 4, so the reader's \
                  batched returns keep the pool at its maximum",
        scale: Scale::Large,
        config: churn_config,
        body: large_pool_churn,
    },
];

fn stream_config() -> CheckConfig {
    CheckConfig {
        minimum_segment_size: 4,
        maximum_segment_size: 16,
        pause_writer_threshold: 24,
        resume_writer_threshold: 12,
        max_pooled_segments: 4,
        pool_first_chunk: 1,
    }
}

fn churn_config() -> CheckConfig {
    CheckConfig {
        minimum_segment_size: 8,
        maximum_segment_size: 8,
        pause_writer_threshold: 64,
        resume_writer_threshold: 32,
        // At most 4: since a fully consumed pipe returns the writer's idle head too, fewer
        // segments are in use at once, and a pool of 6 was rarely full (random schedules
        // no longer overfilled it under `PoolOverflow` within 3,000 runs; at 4, within 20).
        max_pooled_segments: 4,
        pool_first_chunk: 2,
    }
}

/// Message `i` of the stream: 1 to 9 bytes, each byte depending on its position.
pub(crate) fn message(i: usize) -> Vec<u8> {
    let len = 1 + (i * 7) % 9;
    (0..len).map(|j| (i * 31 + j * 7) as u8).collect()
}

/// Reads until the writer has completed and everything is consumed. Every fourth read
/// leaves its last two bytes unconsumed (fewer than any resume threshold here, so a
/// paused writer is always released). Records [`Observation::Drained`]; returns the
/// number of bytes consumed.
pub(crate) fn read_to_end(reader: &mut CheckedReader, monitor: &Monitor) -> u64 {
    let mut total = 0u64;
    for n in 0usize.. {
        let mut consumed = 0;
        let outcome = reader
            .read_and_consume(|len| {
                consumed = if n % 4 == 3 && len > 2 { len - 2 } else { len };
                consumed
            })
            .expect("reads succeed");
        total += consumed as u64;
        if outcome.completed && consumed == outcome.bytes.len() {
            break;
        }
    }
    monitor.record_by("reader", Observation::Drained);
    total
}

fn large_stream(monitor: &Arc<Monitor>) {
    const MESSAGES: usize = 200;
    let (mut writer, mut reader) = checked_pipe(monitor);
    let writer = thread::spawn(move || {
        let mut sent = 0u64;
        for i in 0..MESSAGES {
            let bytes = message(i);
            writer.send(&bytes).expect("the reader stays open");
            sent += bytes.len() as u64;
        }
        writer.complete(None);
        sent
    });
    let read = read_to_end(&mut reader, monitor);
    reader.complete(None);
    let sent = join(writer);
    expect_all_consumed(read, sent);
}

/// The run's outcome: the reader consumed as many bytes as were sent (**byte-exact**;
/// their values are checked online, against the log of what was written).
pub(super) fn expect_all_consumed(read: u64, sent: u64) {
    ensure(read == sent, pipecheck_pipe::invariant::BYTE_EXACT, || {
        format!("the reader consumed {read} bytes; {sent} were sent")
    });
}

fn large_pool_churn(monitor: &Arc<Monitor>) {
    const SEGMENTS: usize = 300;
    let (mut writer, mut reader) = checked_pipe(monitor);
    let writer = thread::spawn(move || {
        for i in 0..SEGMENTS {
            // One full segment per message: each send ends a segment.
            let bytes: Vec<u8> = (0..8).map(|j| (i * 8 + j) as u8).collect();
            writer.send(&bytes).expect("the reader stays open");
        }
        writer.complete(None);
    });
    let bytes = reader.drain().expect("reads succeed");
    reader.complete(None);
    join(writer);
    expect_all_consumed(bytes.len() as u64, (SEGMENTS * 8) as u64);
}
