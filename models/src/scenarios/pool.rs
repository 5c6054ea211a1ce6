//! The segment pool family: the reader returning consumed segments (outside the lock)
//! while the writer takes them, the pool's count read while the other side enqueues
//! or dequeues, and the pool at its maximum.
//!
//! Two-byte segments make every write of a few bytes span segments; a first pool
//! chunk of one slot makes the queue grow (and free chunks) within a short run.

use std::sync::Arc;

use pipecheck::thread;
use pipecheck_properties::{CheckConfig, Monitor, checked_pipe};

use crate::Scenario;
use crate::scenarios::drive::{expect_bytes, join};
use pipecheck::Scale;

/// Scenarios of this family.
pub(crate) const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "return-races-take",
        summary: "the reader returns two consumed segments while the writer takes one for its next write",
        scale: Scale::Small,
        config: pool_of_two,
        body: return_races_take,
    },
    Scenario {
        name: "pool-at-maximum",
        summary: "a batch of two returns meets a pool of at most one while the writer takes",
        scale: Scale::Small,
        config: pool_of_one,
        body: return_races_take,
    },
];

/// Two-byte segments, no back-pressure, a pool of at most two, a one-slot first chunk.
fn pool_of_two() -> CheckConfig {
    CheckConfig {
        minimum_segment_size: 2,
        maximum_segment_size: 2,
        pause_writer_threshold: 0,
        resume_writer_threshold: 0,
        max_pooled_segments: 2,
        pool_first_chunk: 1,
    }
}

/// As [`pool_of_two`], with a pool of at most one: the second of a batch is dropped.
fn pool_of_one() -> CheckConfig {
    CheckConfig { max_pooled_segments: 1, ..pool_of_two() }
}

/// The writer fills three segments in one flush, then writes two more bytes (taking a
/// pooled segment if the reader has returned one) and completes; the reader drains.
/// Consuming the first flush in one `advance_to` returns two segments in one batch
/// (the third is still the writer's head).
fn return_races_take(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    let writer = thread::spawn(move || {
        writer.send(b"abcdef").unwrap();
        writer.send(b"gh").unwrap();
        writer.complete(None);
    });
    let bytes = reader.drain().unwrap();
    reader.complete(None);
    join(writer);
    expect_bytes(&bytes, b"abcdefgh");
}
