//! Loom: the tentative-cancel family (**tentative-cancel**): a canceled read needs no
//! `advance_to` before the next read, whichever way the cancel races the read.
use pipecheck::loom_harness::{check_target, expect_target_caught};
use pipecheck_models::builtin;
use pipecheck_pipe::fault;

/// Bound 4: the cancel can land before, during or after the reader's wait, and the
/// second read after it. It was 5, as the other two-thread close/receive models, until
/// the lock-free `advance_to`'s handshake took it to 195,888 interleavings (14 s); at 4
/// it is 37,510 (3.4 s).
const BOUND: usize = 4;

#[test]
fn canceled_read_is_tentative() {
    check_target(&builtin::pipe(), "canceled-read-is-tentative", None, BOUND).unwrap();
}

/// Bound 2 for the flush-cancel model: at 5 it explores 77,973 interleavings (40 s); a
/// cancel landing before either flush needs no preemption, one between the flush's
/// commit and its poll needs one (LOOM.md).
const FLUSH_CANCEL_BOUND: usize = 2;

/// cancel-observed, flush side.
#[test]
fn cancel_flush_races_flush() {
    check_target(&builtin::pipe(), "cancel-flush-races-flush", None, FLUSH_CANCEL_BOUND).unwrap();
}

#[test]
fn cancel_flush_races_flush_catches_flush_loses_cancel() {
    expect_target_caught(
        &builtin::pipe(),
        "cancel-flush-races-flush",
        fault::FlushLosesCancel.name(),
        FLUSH_CANCEL_BOUND,
    )
    .unwrap();
}

#[test]
fn canceled_read_is_tentative_catches_canceled_read_needs_advance() {
    expect_target_caught(
        &builtin::pipe(),
        "canceled-read-is-tentative",
        fault::CanceledReadNeedsAdvance.name(),
        BOUND,
    )
    .unwrap();
}

/// Bound 2: the reader's reads are sequential; the writer's flush and completion fall
/// before, between or after them.
const REREAD_BOUND: usize = 2;

#[test]
fn canceled_read_advanced_then_reread() {
    check_target(&builtin::pipe(), "canceled-read-advanced-then-reread", None, REREAD_BOUND).unwrap();
}

#[test]
fn canceled_read_advanced_then_reread_catches_tentative_outlives_advance() {
    expect_target_caught(
        &builtin::pipe(),
        "canceled-read-advanced-then-reread",
        fault::TentativeOutlivesAdvance.name(),
        REREAD_BOUND,
    )
    .unwrap();
}
