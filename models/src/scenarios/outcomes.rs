//! The outcomes family: races whose *result* is the point, checked in every engine as
//! typed violations rather than left to "nothing panicked".
//!
//! * the writer completes with bytes advanced but never flushed while the reader
//!   reads: completion commits them, and the reader must get every one
//!   (**byte-exact**, `CompleteDropsUnflushed`);
//! * the reader completes while (or before) the writer flushes enough to pause: the
//!   flush must report completion, never stay paused, and a flush once the reader is
//!   known to be gone must not pause at all (**backpressure**,
//!   `PausesAfterReaderCompleted`).

use std::sync::Arc;

use pipecheck::ensure;
use pipecheck::thread;
use pipecheck_properties::{CheckConfig, Monitor, checked_pipe};

use super::drive::join;
use crate::Scenario;
use pipecheck::Scale;

/// Scenarios of this family.
pub(crate) const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "complete-with-unflushed-races-read",
        summary: "the writer flushes a byte, advances two more without flushing and completes, while the reader \
                  drains",
        scale: Scale::Small,
        config: CheckConfig::default,
        body: complete_with_unflushed_races_read,
    },
    Scenario {
        name: "reader-complete-races-pausing-flush",
        summary: "the reader completes while the writer flushes two bytes at a pause threshold of two, then two \
                  more: both flushes report completion",
        scale: Scale::Small,
        config: pause_at_two,
        body: reader_complete_races_pausing_flush,
    },
];

/// Pause the writer at two unconsumed bytes, resume it below one.
fn pause_at_two() -> CheckConfig {
    CheckConfig { pause_writer_threshold: 2, resume_writer_threshold: 1, ..CheckConfig::default() }
}

fn complete_with_unflushed_races_read(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    let writer = thread::spawn(move || {
        writer.send(b"a").unwrap();
        writer.write(b"bc").unwrap();
        writer.complete(None);
    });
    let bytes = reader.drain().unwrap();
    reader.complete(None);
    join(writer);
    // Checked once both sides are done, so a failure ends the run with no task mid-way.
    ensure(bytes == b"abc", pipecheck_pipe::invariant::BYTE_EXACT, || {
        format!("the reader drained {bytes:?}; the writer wrote \"abc\", the last two unflushed")
    });
}

/// The first flush may pause (the reader has not completed yet) and is then released
/// by the completion, or find the reader gone; either way it reports completion. The
/// second comes after the writer has seen the completion, so it must not pause.
fn reader_complete_races_pausing_flush(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    let writer = thread::spawn(move || {
        for frame in [b"ab", b"cd"] {
            let flushed = writer.send(frame).unwrap();
            ensure(
                flushed.is_completed && !flushed.is_canceled,
                pipecheck_pipe::invariant::BACKPRESSURE,
                || format!("a flush racing the reader's completion returned {flushed:?}, not completed"),
            );
        }
        writer.complete(None);
    });
    reader.complete(None);
    join(writer);
}
