//! The back-pressure family: the pause and resume thresholds crossed by the writer's
//! flushes and the reader's consumes at the same time.

use std::sync::Arc;

use pipecheck::thread;
use pipecheck_properties::{CheckConfig, Monitor, checked_pipe};

use super::drive::{expect_bytes, join, read_to_end};
use crate::Scenario;
use pipecheck::Scale;

/// Scenarios of this family.
pub(crate) const SCENARIOS: &[Scenario] = &[Scenario {
    name: "thresholds-crossed-concurrently",
    summary: "the writer's flushes cross the pause threshold while the reader's partial consumes cross \
              the resume threshold",
    scale: Scale::Small,
    config: pause_at_three,
    body: thresholds_crossed_concurrently,
}];

/// Pause the writer at three unconsumed bytes, resume it below two.
fn pause_at_three() -> CheckConfig {
    CheckConfig { pause_writer_threshold: 3, resume_writer_threshold: 2, ..CheckConfig::default() }
}

/// "abc" pauses the writer; the reader consumes at most two bytes per read, which
/// drops below the resume threshold; "d" then brings the pipe back to two unconsumed
/// bytes, under the pause threshold.
fn thresholds_crossed_concurrently(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    let writer = thread::spawn(move || {
        writer.send(b"abc").unwrap();
        writer.send(b"d").unwrap();
        writer.complete(None);
    });
    let bytes = read_to_end(&mut reader, monitor, |len| len.min(2)).unwrap();
    reader.complete(None);
    join(writer);
    expect_bytes(&bytes, b"abcd");
}
