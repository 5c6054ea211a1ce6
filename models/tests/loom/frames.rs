//! Loom: the framing family (**backpressure**): a frame four times the pause threshold
//! crosses the pipe while the reader examines everything and consumes nothing until
//! the frame is whole.
use pipecheck::loom_harness::{check_target, expect_target_caught};
use pipecheck_models::builtin;
use pipecheck_pipe::fault;

/// Bound 2. Both flushes pause the writer and each examine-all releases it: the race is a
/// flush against the reader's advance, both lock sections; bound 1 finds the planted
/// bug, two covers a pause racing a release from either side. Three covered every pause
/// racing every release until the lock-free `advance_to`'s handshake took it from about
/// 9 s to 254,288 interleavings (19 s); at 2 it is 21,656 (2 s).
const BOUND: usize = 2;

#[test]
fn frame_crosses_pause() {
    check_target(&builtin::pipe(), "frame-crosses-pause", None, BOUND).unwrap();
}

#[test]
fn frame_crosses_pause_catches_backpressure_by_consumed() {
    expect_target_caught(
        &builtin::pipe(),
        "frame-crosses-pause",
        fault::BackpressureByConsumed.name(),
        BOUND,
    )
    .unwrap();
}
