//! The length family: the buffered length a reader sees while a
//! writer flushes, checked against the monitor's replay of committed − examined.
//!
//! The reader examines everything and consumes nothing until the frame is whole, and
//! asks `buffered_len` after each release: bytes examined but not consumed must no
//! longer count. The `LengthCountsConsumed` planted bug counts them, which
//! **buffered-length** reports at the first such question.

use std::sync::Arc;

use pipecheck::ensure;
use pipecheck::thread;
use pipecheck_properties::{Monitor, Observation, checked_pipe};

use super::drive::{expect_bytes, join};
use super::segment_reuse::four_byte_segments;
use crate::Scenario;
use pipecheck::Scale;

/// Scenarios of this family.
pub(crate) const SCENARIOS: &[Scenario] = &[Scenario {
    name: "length-while-flushing",
    summary: "a 4-byte frame in two 2-byte flushes; the reader examines all, consumes nothing until \
              the frame is whole, and asks buffered_len after every release",
    scale: Scale::Small,
    config: four_byte_segments,
    body: length_while_flushing,
}];

fn length_while_flushing(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    let writer = thread::spawn(move || {
        writer.send(b"ab").unwrap();
        writer.send(b"cd").unwrap();
        writer.complete(None);
    });
    let mut frame = Vec::new();
    loop {
        let outcome = reader.read_and_consume(|len| if len == 4 { len } else { 0 }).expect("reads succeed");
        // The pipe reports the length to the monitor under its lock, which checks it.
        let len = reader.buffered_len().expect("the reader is open");
        ensure(len <= 4, pipecheck_pipe::invariant::BUFFERED_LENGTH, || {
            format!("{len} bytes buffered; only 4 were written")
        });
        if outcome.bytes.len() == 4 {
            frame = outcome.bytes;
        }
        if outcome.completed {
            break;
        }
    }
    monitor.record_by("reader", Observation::Drained);
    reader.complete(None);
    join(writer);
    expect_bytes(&frame, b"abcd");
}
