//! Loom: the close/receive family — every waiting side wakes, every time
//! (**no-lost-wakeup**). A lost wake leaves both threads blocked: loom's deadlock,
//! which the harness reports as a no-lost-wakeup violation.
#![cfg(feature = "loom")]

use pipecheck_core::{Fault, FaultSet};
use pipecheck_models::loom_harness::{Checks, check_scenario, expect_caught};

/// Bound 2: a lost wake needs the waiting side to register its waker and the waking
/// side to run its whole transition in between — one preemption of each thread.
const BOUND: usize = 2;

#[test]
fn writer_complete_races_read() {
    check_scenario("writer-complete-races-read", FaultSet::NONE, BOUND, Checks::Registry);
}

#[test]
fn writer_complete_races_read_catches_lost_wake_on_complete() {
    expect_caught("writer-complete-races-read", Fault::LostWakeOnComplete, BOUND, Checks::Registry);
}

#[test]
fn cancel_races_read() {
    check_scenario("cancel-races-read", FaultSet::NONE, BOUND, Checks::Registry);
}

#[test]
fn cancel_races_read_catches_lost_wake_on_complete() {
    expect_caught("cancel-races-read", Fault::LostWakeOnComplete, BOUND, Checks::Registry);
}

#[test]
fn flush_races_read() {
    check_scenario("flush-races-read", FaultSet::NONE, BOUND, Checks::Registry);
}

#[test]
fn flush_races_read_catches_lost_wake_on_complete() {
    expect_caught("flush-races-read", Fault::LostWakeOnComplete, BOUND, Checks::Registry);
}

#[test]
fn consume_races_paused_flush() {
    check_scenario("consume-races-paused-flush", FaultSet::NONE, BOUND, Checks::Registry);
}

#[test]
fn consume_races_paused_flush_catches_no_resume_on_consume() {
    expect_caught("consume-races-paused-flush", Fault::NoResumeOnConsume, BOUND, Checks::Registry);
}

#[test]
fn reader_complete_races_paused_flush() {
    check_scenario("reader-complete-races-paused-flush", FaultSet::NONE, BOUND, Checks::Registry);
}

#[test]
fn reader_complete_races_paused_flush_catches_no_pause_on_flush() {
    expect_caught("reader-complete-races-paused-flush", Fault::NoPauseOnFlush, BOUND, Checks::Registry);
}
