//! Loom: the back-pressure family (**backpressure**): pause and resume thresholds
//! crossed concurrently by flushes and consumes.
#![cfg(feature = "loom")]

use pipecheck_core::{Fault, FaultSet};
use pipecheck_models::loom_harness::{Checks, check_scenario, expect_caught};

/// Bound 4: a flush crossing the pause threshold against a consume crossing the resume
/// threshold, each one lock section: bound 2 interleaves them every way and finds the
/// planted bug; 4 also covers the second flush and the completion racing the reader's
/// loop (bound 5 is 71,445 interleavings, ~20 s).
const BOUND: usize = 4;

#[test]
fn thresholds_crossed_concurrently() {
    check_scenario("thresholds-crossed-concurrently", FaultSet::NONE, BOUND, Checks::Registry);
}

#[test]
fn thresholds_crossed_concurrently_catches_no_pause_on_flush() {
    expect_caught("thresholds-crossed-concurrently", Fault::NoPauseOnFlush, BOUND, Checks::Registry);
}
