//! Loom: concurrent pipe histories are **linearizable** against the pipe's sequential
//! model, in every interleaving within the bound.
use pipecheck::loom_harness::{check_target, expect_target_caught};
use pipecheck_models::builtin;
use pipecheck_pipe::fault;

/// Bound 2 for this three-thread model (see models/LOOM.md for its size and time).
const BOUND: usize = 2;

#[test]
fn pipe_linearizable() {
    check_target(&builtin::pipe(), "pipe-linearizable", None, BOUND).unwrap();
}

#[test]
fn mutex_linearizable() {
    check_target(&builtin::pipe(), "mutex-linearizable", None, BOUND).unwrap();
}

#[test]
fn mutex_linearizable_catches_try_lock_fails_after_release() {
    expect_target_caught(
        &builtin::pipe(),
        "mutex-linearizable",
        fault::TryLockFailsAfterRelease.name(),
        BOUND,
    )
    .unwrap();
}

#[test]
fn completion_linearizable() {
    check_target(&builtin::pipe(), "completion-linearizable", None, BOUND).unwrap();
}

#[test]
fn channel_linearizable() {
    check_target(&builtin::pipe(), "channel-linearizable", None, BOUND).unwrap();
}

// `CloseReturnsWhileReceiving` and `ReadSkipsPublishedEnd` are declared `real_time`:
// under loom a history is ordered by program order and spawn/join only
// (docs/invariants.md#linearizability), and each shows only as an operation that began
// after another returned with nothing ordering the two. Shuttle catches both
// (shuttle_primitives.rs, the campaign); the campaign does not plan them under loom.

#[test]
fn pipe_reread_linearizable() {
    check_target(&builtin::pipe(), "pipe-reread-linearizable", None, BOUND).unwrap();
}

#[test]
fn pipe_backpressure_linearizable() {
    check_target(&builtin::pipe(), "pipe-backpressure-linearizable", None, BOUND).unwrap();
}
