//! Loom: concurrent pipe histories are **linearizable** against the pipe's sequential
//! model, in every interleaving within the bound.
use pipecheck_core::fault;
use pipecheck_models::loom_harness::{Checks, check_scenario, expect_caught};

/// Bound 2 for this three-thread model (see models/LOOM.md for its size and time).
const BOUND: usize = 2;

#[test]
fn pipe_linearizable() {
    check_scenario("pipe-linearizable", None, BOUND, Checks::Registry);
}

#[test]
fn mutex_linearizable() {
    check_scenario("mutex-linearizable", None, BOUND, Checks::Registry);
}

#[test]
fn mutex_linearizable_catches_try_lock_fails_after_release() {
    expect_caught("mutex-linearizable", &fault::TryLockFailsAfterRelease, BOUND, Checks::Registry);
}

#[test]
fn completion_linearizable() {
    check_scenario("completion-linearizable", None, BOUND, Checks::Registry);
}

#[test]
fn channel_linearizable() {
    check_scenario("channel-linearizable", None, BOUND, Checks::Registry);
}

// `CloseReturnsWhileReceiving` and `ReadSkipsPublishedEnd` are declared `real_time`:
// under loom a history is ordered by program order and spawn/join only
// (docs/invariants.md#linearizability), and each shows only as an operation that began
// after another returned with nothing ordering the two. Shuttle catches both
// (shuttle_primitives.rs, the campaign); the campaign does not plan them under loom.

#[test]
fn pipe_reread_linearizable() {
    check_scenario("pipe-reread-linearizable", None, BOUND, Checks::Registry);
}

#[test]
fn pipe_backpressure_linearizable() {
    check_scenario("pipe-backpressure-linearizable", None, BOUND, Checks::Registry);
}
