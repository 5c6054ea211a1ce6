//! The reader-gone family: the writer keeps writing while, and after, the reader
//! completes. As in .NET, once the writer has seen the completion (at a flush, or when
//! it needs a new segment) `advance` is a no-op and one private segment is reused, so
//! whatever the writer does it holds at most one segment more (**bounded-after-reader-complete**).

use std::sync::Arc;

use pipecheck::thread;
use pipecheck_properties::{CheckConfig, Monitor, checked_pipe};

use super::drive::join;
use crate::Scenario;
use pipecheck::Scale;

/// Scenarios of this family.
pub(crate) const SCENARIOS: &[Scenario] = &[Scenario {
    name: "writes-after-reader-completes",
    summary: "the reader reads once and completes while the writer sends two bytes, then asks for \
              memory of 1 and 2 bytes, advancing into each; then, after the reader completed, 4 and 16",
    scale: Scale::Small,
    config: growing_segments,
    body: writes_after_reader_completes,
}];

/// Segments from 1 to 16 bytes, no back-pressure, a pool of two.
fn growing_segments() -> CheckConfig {
    CheckConfig {
        minimum_segment_size: 1,
        maximum_segment_size: 16,
        pause_writer_threshold: 0,
        resume_writer_threshold: 0,
        ..CheckConfig::default()
    }
}

fn writes_after_reader_completes(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    let reader = thread::spawn(move || {
        reader.read_and_consume(|len| len).expect("the writer does not fail");
        reader.complete(None);
    });
    writer.send(b"ab").expect("the reader completes without failure");
    // Growing requests, each a new segment: the first two race the reader's
    // completion, the last two come after it whatever the schedule (once the writer has
    // seen the completion, `advance` is a no-op, so only a request its head cannot hold
    // makes it start a segment again).
    for len in [1, 2] {
        writer.write_contiguous(&vec![b'x'; len]).expect("the writer is open");
    }
    join(reader);
    for len in [4, 16] {
        writer.write_contiguous(&vec![b'y'; len]).expect("the writer is open");
    }
    writer.flush().expect("the reader completes without failure");
    writer.complete(None);
}
