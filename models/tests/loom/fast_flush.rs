//! Loom: the lock-free flush protocol (`core/src/pipe/published.rs`), one
//! model per race, each with the planted bug of its classic mistake:
//!
//! * a read registering its waker while a flush publishes — check-then-park without
//!   re-checking after the park (`ParksWithoutRecheck`, the parked read is never woken:
//!   **no-lost-wakeup**: the park for bytes already published, or the engine's deadlock), and a relaxed publish of the committed
//!   end (`RelaxedPublish`, the reader's access to the bytes is not ordered after the
//!   writer's: loom's causality check, **no-data-race**);
//! * a flush crossing the pause threshold while the reader consumes below resume — the
//!   resume decided on a stale count (`ResumesOnStaleCount`, **backpressure**);
//! * the reader's lock-free `advance_to` racing a flush that decides its pause under
//!   the lock — a lock holder that does not wait for the advance in progress
//!   (`AdvanceSkipsHandshake`, **backpressure**), and an advance that marks itself
//!   begun and loads the word without the fence between (`AdvanceSkipsFence`: both
//!   sides read the other's old value, and the advance keeps a segment the writer's
//!   completion made returnable, **segments-in-use**);
//! * cancel and complete racing each other on both ends (no planted bug of its own:
//!   the existing cancel and completion bugs are caught by their families).
use pipecheck::loom_harness::{check_target, expect_target_caught};
use pipecheck_models::builtin;
use pipecheck_pipe::fault;

/// Bound 2: each race needs one preemption inside the reader's or the writer's step and
/// one to bring the other side in (figures in models/LOOM.md).
const BOUND: usize = 2;

#[test]
fn read_parks_while_flush_publishes() {
    check_target(&builtin::pipe(), "read-parks-while-flush-publishes", None, BOUND).unwrap();
}

#[test]
fn read_parks_while_flush_publishes_catches_parks_without_recheck() {
    expect_target_caught(
        &builtin::pipe(),
        "read-parks-while-flush-publishes",
        fault::ParksWithoutRecheck.name(),
        BOUND,
    )
    .unwrap();
}

#[test]
fn read_parks_while_flush_publishes_catches_relaxed_publish() {
    let verdict = expect_target_caught(
        &builtin::pipe(),
        "read-parks-while-flush-publishes",
        fault::RelaxedPublish.name(),
        BOUND,
    )
    .unwrap();
    // The read bound is right (the end is the writer's): only the memory model sees it.
    assert_eq!(
        verdict.kind, "data-race",
        "caught as {}, not by loom's race check:\n{}",
        verdict.kind, verdict.report
    );
}

#[test]
fn pause_crossed_while_consuming() {
    check_target(&builtin::pipe(), "pause-crossed-while-consuming", None, BOUND).unwrap();
}

#[test]
fn pause_crossed_while_consuming_catches_resumes_on_stale_count() {
    expect_target_caught(
        &builtin::pipe(),
        "pause-crossed-while-consuming",
        fault::ResumesOnStaleCount.name(),
        BOUND,
    )
    .unwrap();
}

#[test]
fn cancel_and_complete_race() {
    check_target(&builtin::pipe(), "cancel-and-complete-race", None, BOUND).unwrap();
}

#[test]
fn read_parks_while_flush_publishes_catches_relaxed_fast_read() {
    let verdict = expect_target_caught(
        &builtin::pipe(),
        "read-parks-while-flush-publishes",
        fault::RelaxedFastRead.name(),
        BOUND,
    )
    .unwrap();
    // As for the relaxed publish: the bytes are the writer's, only their ordering is not.
    assert_eq!(
        verdict.kind, "data-race",
        "caught as {}, not by loom's race check:\n{}",
        verdict.kind, verdict.report
    );
}

#[test]
fn cancel_races_lock_free_read() {
    check_target(&builtin::pipe(), "cancel-races-lock-free-read", None, BOUND).unwrap();
}

#[test]
fn cancel_races_lock_free_read_catches_fast_read_ignores_cancel() {
    expect_target_caught(
        &builtin::pipe(),
        "cancel-races-lock-free-read",
        fault::FastReadIgnoresCancel.name(),
        BOUND,
    )
    .unwrap();
}

#[test]
fn advance_races_locked_flush() {
    check_target(&builtin::pipe(), "advance-races-locked-flush", None, BOUND).unwrap();
}

#[test]
fn advance_races_locked_flush_catches_advance_skips_handshake() {
    expect_target_caught(
        &builtin::pipe(),
        "advance-races-locked-flush",
        fault::AdvanceSkipsHandshake.name(),
        BOUND,
    )
    .unwrap();
}

#[test]
fn advance_races_locked_flush_catches_advance_skips_fence() {
    expect_target_caught(
        &builtin::pipe(),
        "advance-races-locked-flush",
        fault::AdvanceSkipsFence.name(),
        BOUND,
    )
    .unwrap();
}
