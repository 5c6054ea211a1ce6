//! The reset family (issue 12, rule 6): a pipe whose both sides completed is reset and
//! used again, as Kestrel pools pipes. The monitor starts the pipe's invariants afresh
//! at the reset (after checking the ending run's obligations), so the second run is
//! checked as a new pipe: offsets from 0, every byte once, the back-pressure count.
//!
//! The first run leaves the examined offset at 1; the second writes two bytes while
//! the reader waits. The `ResetKeepsExamined` planted bug keeps that stale examined
//! offset, so the second run's first flush counts 2 − 1 bytes against the pause
//! threshold where 2 are buffered, which **backpressure** reports at that flush.

use std::sync::Arc;

use pipecheck_core::InvariantId;
use pipecheck_core::primitive::thread;
use pipecheck_properties::{CheckConfig, Monitor, checked_pipe, ensure, reset_checked};

use super::drive::{join, read_to_end};
use crate::{Scale, Scenario};

/// Scenarios of this family.
pub(crate) const SCENARIOS: &[Scenario] = &[Scenario {
    name: "reset-then-reuse",
    summary: "one byte through the pipe, both sides complete, reset; then a writer sends two \
              bytes and completes while the reader reads to the end",
    scale: Scale::Small,
    config: reset_config,
    body: reset_then_reuse,
}];

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

fn reset_then_reuse(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    // The first run, on one thread: it only has to end with examined at 1.
    writer.send(b"a").expect("the first run's flush succeeds");
    writer.complete(None);
    let first = reader.drain().expect("the first run's reads succeed");
    reader.complete(None);
    ensure(first == b"a", InvariantId::BYTE_EXACT, || format!("the first run read {first:?}, not \"a\""));
    reset_checked(&mut writer, &mut reader).expect("both sides completed, so the pipe resets");

    // The second run: the writer's flush and completion race the reader's waits.
    let writer = thread::spawn(move || {
        writer.send(b"bc").expect("the second run's flush succeeds");
        writer.complete(None);
    });
    let second = read_to_end(&mut reader, monitor, |len| len).expect("the second run's reads succeed");
    reader.complete(None);
    join(writer);
    ensure(second == b"bc", InvariantId::BYTE_EXACT, || {
        format!("the reset pipe's second run read {second:?}, not \"bc\" (from offset 0)")
    });
}
