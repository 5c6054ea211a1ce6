//! Loom: the framing family (**backpressure**): a frame four times the pause threshold
//! crosses the pipe while the reader examines everything and consumes nothing until
//! the frame is whole.
#![cfg(feature = "loom")]

use pipecheck_core::{Fault, FaultSet};
use pipecheck_models::loom_harness::{Checks, check_scenario, expect_caught};

/// Bound 3. Both flushes pause the writer and each examine-all releases it: the race is a
/// flush against the reader's advance, both lock sections; bound 1 finds the planted
/// bug, three covers every pause racing every release.
const BOUND: usize = 3;

#[test]
fn frame_crosses_pause() {
    check_scenario("frame-crosses-pause", FaultSet::NONE, BOUND, Checks::Registry);
}

#[test]
fn frame_crosses_pause_catches_backpressure_by_consumed() {
    expect_caught("frame-crosses-pause", Fault::BackpressureByConsumed, BOUND, Checks::Registry);
}
