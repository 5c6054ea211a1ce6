//! Loom: the reset family: a pipe used, completed on both sides and
//! reset, then a second run whose flush and completion race the reader's waits. The
//! monitor restarts the pipe's invariants at the reset, so **backpressure** counts the
//! second run from 0 and catches a reset that keeps the examined offset.
use pipecheck::loom_harness::{check_target, expect_target_caught};
use pipecheck_models::builtin;
use pipecheck_pipe::fault;

/// Bound 5, as the other two-thread pipe models (`data.rs`): the second run has
/// two threads taking the pipe lock a few times each (flush, complete; read, register,
/// read again, advance, complete), and 5,915 interleavings take under a second. The
/// first run and the reset happen on one thread before the race.
const BOUND: usize = 5;

#[test]
fn reset_then_reuse() {
    check_target(&builtin::pipe(), "reset-then-reuse", None, BOUND).unwrap();
}

#[test]
fn reset_then_reuse_catches_reset_keeps_examined() {
    expect_target_caught(&builtin::pipe(), "reset-then-reuse", fault::ResetKeepsExamined.name(), BOUND)
        .unwrap();
}

/// Bound 2 for the lock-free flushes after a reset: the second flush before the
/// reader's first advance is one preemption.
const FAST_BOUND: usize = 2;

#[test]
fn reset_then_fast_flushes_cross_pause() {
    check_target(&builtin::pipe(), "reset-then-fast-flushes-cross-pause", None, FAST_BOUND).unwrap();
}

#[test]
fn reset_then_fast_flushes_cross_pause_catches_reset_keeps_released() {
    expect_target_caught(
        &builtin::pipe(),
        "reset-then-fast-flushes-cross-pause",
        fault::ResetKeepsReleased.name(),
        FAST_BOUND,
    )
    .unwrap();
}

#[test]
fn reset_then_fast_flushes_cross_pause_catches_reset_keeps_released_copy() {
    expect_target_caught(
        &builtin::pipe(),
        "reset-then-fast-flushes-cross-pause",
        fault::ResetKeepsReleasedCopy.name(),
        FAST_BOUND,
    )
    .unwrap();
}
