//! Loom: the back-pressure family (**backpressure**): pause and resume thresholds
//! crossed concurrently by flushes and consumes.
#![cfg(feature = "loom")]

use pipecheck_core::{Fault, FaultSet};
use pipecheck_models::loom_harness::{Checks, check_scenario, expect_caught};

/// Bound 5. A flush crossing the pause threshold against a consume crossing the resume
/// threshold is two lock sections, interleaved every way at bound 2 (which finds the
/// planted bug); five also covers the second flush and the completion racing the
/// reader's loop: 71,445 interleavings, about twenty seconds here.
const BOUND: usize = 4;

#[test]
fn thresholds_crossed_concurrently() {
    check_scenario("thresholds-crossed-concurrently", FaultSet::NONE, BOUND, Checks::Registry);
}

#[test]
fn thresholds_crossed_concurrently_catches_no_pause_on_flush() {
    expect_caught("thresholds-crossed-concurrently", Fault::NoPauseOnFlush, BOUND, Checks::Registry);
}
