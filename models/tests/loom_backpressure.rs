//! Loom: the back-pressure family (**backpressure**): pause and resume thresholds
//! crossed concurrently by flushes and consumes.
#![cfg(feature = "loom")]

use pipecheck_core::{Fault, FaultSet};
use pipecheck_models::loom_harness::{Checks, check_scenario, expect_caught};

/// Bound 4. A flush crossing the pause threshold against a consume crossing the resume
/// threshold is two lock sections, interleaved every way at bound 2 (which finds the
/// planted bug); four also covers the second flush and the completion racing the
/// reader's loop. The bound was 5 (71,445 interleavings) until the lock-free flush's
/// atomic accesses grew the model: 86,790 interleavings at 4 after the merge (LOOM.md).
const BOUND: usize = 4;

#[test]
fn thresholds_crossed_concurrently() {
    check_scenario("thresholds-crossed-concurrently", FaultSet::NONE, BOUND, Checks::Registry);
}

#[test]
fn thresholds_crossed_concurrently_catches_no_pause_on_flush() {
    expect_caught("thresholds-crossed-concurrently", Fault::NoPauseOnFlush, BOUND, Checks::Registry);
}
