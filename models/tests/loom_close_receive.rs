//! Loom: the close/receive family — every waiting side wakes, every time
//! (**no-lost-wakeup**). A lost wake leaves both threads blocked: loom's deadlock,
//! which the harness reports as a no-lost-wakeup violation.
#![cfg(feature = "loom")]

use pipecheck_core::{Fault, FaultSet};
use pipecheck_models::loom_harness::{Checks, check_scenario, expect_caught};

// Preemption bounds. A lost wake needs only two: the waiting side preempted between
// its check and registering its waker, and the waking side preempted inside its
// transition (planted lost wakes are all found at bound 2). The bounds below go past
// that as far as a few seconds per model allow here (see models/LOOM.md): the next
// bound up costs 3-4x the interleavings.

/// Bound 5: the writer side is just a cancel (or a send) and a completion.
const SHORT: usize = 5;
/// Bound 4: two flushes and a completion against a reader looping over reads
/// (bound 5 is 15,917 / 71,445 interleavings, 10-30 s).
const LONG: usize = 4;

#[test]
fn writer_complete_races_read() {
    check_scenario("writer-complete-races-read", FaultSet::NONE, SHORT, Checks::Registry);
}

#[test]
fn writer_complete_races_read_catches_lost_wake_on_complete() {
    expect_caught("writer-complete-races-read", Fault::LostWakeOnComplete, SHORT, Checks::Registry);
}

#[test]
fn cancel_races_read() {
    check_scenario("cancel-races-read", FaultSet::NONE, SHORT, Checks::Registry);
}

#[test]
fn cancel_races_read_catches_lost_wake_on_complete() {
    expect_caught("cancel-races-read", Fault::LostWakeOnComplete, SHORT, Checks::Registry);
}

#[test]
fn flush_races_read() {
    check_scenario("flush-races-read", FaultSet::NONE, LONG, Checks::Registry);
}

#[test]
fn flush_races_read_catches_lost_wake_on_complete() {
    expect_caught("flush-races-read", Fault::LostWakeOnComplete, LONG, Checks::Registry);
}

#[test]
fn consume_races_paused_flush() {
    check_scenario("consume-races-paused-flush", FaultSet::NONE, LONG, Checks::Registry);
}

#[test]
fn consume_races_paused_flush_catches_no_resume_on_consume() {
    expect_caught("consume-races-paused-flush", Fault::NoResumeOnConsume, LONG, Checks::Registry);
}

#[test]
fn reader_complete_races_paused_flush() {
    check_scenario("reader-complete-races-paused-flush", FaultSet::NONE, SHORT, Checks::Registry);
}

#[test]
fn reader_complete_races_paused_flush_catches_no_pause_on_flush() {
    expect_caught("reader-complete-races-paused-flush", Fault::NoPauseOnFlush, SHORT, Checks::Registry);
}
