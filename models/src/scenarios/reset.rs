//! The reset family: a pipe whose both sides completed is reset and
//! used again, as Kestrel pools pipes. The monitor starts the pipe's invariants afresh
//! at the reset (after checking the ending run's obligations), so the second run is
//! checked as a new pipe: offsets from 0, every byte once, the back-pressure count.
//!
//! The first run leaves the examined offset at 1; the second writes two bytes while
//! the reader waits. The `ResetKeepsExamined` planted bug keeps that stale examined
//! offset, so the second run's first flush counts 2 − 1 bytes against the pause
//! threshold where 2 are buffered, which **backpressure** reports at that flush.
//!
//! `reset-then-fast-flushes-cross-pause` checks what the lock-free flush keeps across a
//! reset: its back-pressure count (committed − the released offset in the published
//! word). The first run ends with two bytes examined, the second flushed lock-free;
//! after the reset the writer flushes one byte, then a second into the same segment
//! (lock-free unless the count reaches the pause threshold of two), so the second must
//! take the lock and pause until the reader examines. The `ResetKeepsReleased` planted
//! bug leaves the released offset at 2, so the second flush publishes lock-free with
//! two bytes unexamined, which **backpressure** reports. So does the
//! `ResetKeepsReleasedCopy` planted bug, which leaves the writer's own copy of that
//! offset at the first run's value (the copy it re-reads only when the pause looks
//! near): the second flush counts 2 − 1 and does not look again.

use std::sync::Arc;

use pipecheck::ensure;
use pipecheck::thread;
use pipecheck_properties::{CheckConfig, Monitor, checked_pipe, reset_checked};

use super::drive::{join, read_to_end};
use crate::Scenario;
use pipecheck::Scale;

/// Scenarios of this family.
pub(crate) const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "reset-then-reuse",
        summary: "one byte through the pipe, both sides complete, reset; then a writer sends two \
                  bytes and completes while the reader reads to the end",
        scale: Scale::Small,
        config: reset_config,
        body: reset_then_reuse,
    },
    Scenario {
        name: "reset-then-fast-flushes-cross-pause",
        summary: "two bytes through the pipe (the second flushed lock-free), both sides complete, reset; then \
                  a writer sends one byte and one more into the same segment (reaching the pause threshold of two) and completes while \
                  the reader reads to the end",
        scale: Scale::Small,
        config: pause_at_two_after_reset,
        body: reset_then_fast_flushes_cross_pause,
    },
];

fn reset_config() -> CheckConfig {
    CheckConfig {
        minimum_segment_size: 4,
        maximum_segment_size: 4,
        // Above anything written: the count is checked at every flush, no flush pauses.
        pause_writer_threshold: 16,
        resume_writer_threshold: 8,
        max_pooled_segments: 2,
        pool_first_chunk: 1,
    }
}

/// As [`reset_config`], pausing at two unexamined bytes (resuming below one).
fn pause_at_two_after_reset() -> CheckConfig {
    CheckConfig { pause_writer_threshold: 2, resume_writer_threshold: 1, ..reset_config() }
}

fn reset_then_fast_flushes_cross_pause(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    // The first run, on one thread. The first read examines "a" and consumes nothing,
    // so the head stays linked and the flush of "b" into it is lock-free (its count,
    // 2 committed − 1 examined, is below the threshold).
    writer.send(b"a").expect("the first run's first flush succeeds");
    let first = reader.read_and_consume(|_| 0).expect("the first run's first read succeeds");
    writer.send(b"b").expect("the first run's second flush succeeds");
    let second = reader.read_and_consume(|len| len).expect("the first run's second read succeeds");
    writer.complete(None);
    let rest = reader.drain().expect("the first run's last read succeeds");
    reader.complete(None);
    let read = [first.bytes, second.bytes, rest].concat();
    ensure(read == b"aab", pipecheck_pipe::invariant::BYTE_EXACT, || {
        format!("the first run read {read:?}, not \"a\" then \"ab\"")
    });
    reset_checked(&mut writer, &mut reader).expect("both sides completed, so the pipe resets");
    let writer = thread::spawn(move || {
        writer.send(b"d").expect("the second run's first flush succeeds");
        writer.send(b"e").expect("the second run's second flush succeeds");
        writer.complete(None);
    });
    let second = read_to_end(&mut reader, monitor, |len| len).expect("the second run's reads succeed");
    reader.complete(None);
    join(writer);
    ensure(second == b"de", pipecheck_pipe::invariant::BYTE_EXACT, || {
        format!("the reset pipe's second run read {second:?}, not \"de\" (from offset 0)")
    });
}

fn reset_then_reuse(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    // The first run, on one thread: it only has to end with examined at 1.
    writer.send(b"a").expect("the first run's flush succeeds");
    writer.complete(None);
    let first = reader.drain().expect("the first run's reads succeed");
    reader.complete(None);
    ensure(first == b"a", pipecheck_pipe::invariant::BYTE_EXACT, || {
        format!("the first run read {first:?}, not \"a\"")
    });
    reset_checked(&mut writer, &mut reader).expect("both sides completed, so the pipe resets");

    // The second run: the writer's flush and completion race the reader's waits.
    let writer = thread::spawn(move || {
        writer.send(b"bc").expect("the second run's flush succeeds");
        writer.complete(None);
    });
    let second = read_to_end(&mut reader, monitor, |len| len).expect("the second run's reads succeed");
    reader.complete(None);
    join(writer);
    ensure(second == b"bc", pipecheck_pipe::invariant::BYTE_EXACT, || {
        format!("the reset pipe's second run read {second:?}, not \"bc\" (from offset 0)")
    });
}
