//! Loom: the close/receive family — every waiting side wakes, every time
//! (**no-lost-wakeup**). A lost wake leaves both threads blocked: loom's deadlock,
//! which the harness reports as a no-lost-wakeup violation.
use pipecheck_core::fault;
use pipecheck_models::loom_harness::{Checks, check_scenario, expect_caught};

/// Bound 4. A lost wake needs only two preemptions: the waiting side between its
/// check and registering its waker, and the waking side inside its transition (every
/// planted lost wake here is found at bound 2). The bound was 5 until the lock-free
/// flush's atomic accesses grew the models (`consume-races-paused-flush`: 71,445
/// interleavings at 5 before; 107,328 at 4 after the merge, see LOOM.md); each bound up
/// costs 3-4x the interleavings.
const BOUND: usize = 4;

#[test]
fn writer_complete_races_read() {
    check_scenario("writer-complete-races-read", None, BOUND, Checks::Registry);
}

#[test]
fn writer_complete_races_read_catches_lost_wake_on_complete() {
    expect_caught("writer-complete-races-read", &fault::LostWakeOnComplete, BOUND, Checks::Registry);
}

#[test]
fn cancel_races_read() {
    check_scenario("cancel-races-read", None, BOUND, Checks::Registry);
}

#[test]
fn cancel_races_read_catches_lost_wake_on_complete() {
    expect_caught("cancel-races-read", &fault::LostWakeOnComplete, BOUND, Checks::Registry);
}

/// Bound 2 for the one three-thread model: a lost wake needs only two preemptions. It
/// was 3 (23,545 interleavings, about ten seconds) until the lock-free `advance_to`'s
/// handshake grew it to 132,764 interleavings (13 s) at 3.
const THREE_THREADS: usize = 2;

/// Bound 3 for the consume racing a paused flush: since the lock-free read added an
/// atomic step to every read, bound 4 explores 228,922 interleavings (18.7 s,
/// `--release`); 3 still holds the race (one preemption inside the consume, one inside
/// the flush's pause, one to switch back) and catches its twin.
const PAUSED_FLUSH: usize = 3;

#[test]
fn cancel_from_third_thread_races_read() {
    check_scenario("cancel-from-third-thread-races-read", None, THREE_THREADS, Checks::Registry);
}

#[test]
fn cancel_from_third_thread_races_read_catches_lost_wake_on_complete() {
    expect_caught(
        "cancel-from-third-thread-races-read",
        &fault::LostWakeOnComplete,
        THREE_THREADS,
        Checks::Registry,
    );
}

#[test]
fn flush_races_read() {
    check_scenario("flush-races-read", None, BOUND, Checks::Registry);
}

#[test]
fn flush_races_read_catches_lost_wake_on_complete() {
    expect_caught("flush-races-read", &fault::LostWakeOnComplete, BOUND, Checks::Registry);
}

#[test]
fn consume_races_paused_flush() {
    check_scenario("consume-races-paused-flush", None, PAUSED_FLUSH, Checks::Registry);
}

#[test]
fn consume_races_paused_flush_catches_no_resume_on_consume() {
    expect_caught("consume-races-paused-flush", &fault::NoResumeOnConsume, PAUSED_FLUSH, Checks::Registry);
}

#[test]
fn reader_complete_races_paused_flush() {
    check_scenario("reader-complete-races-paused-flush", None, BOUND, Checks::Registry);
}

#[test]
fn reader_complete_races_paused_flush_catches_no_pause_on_flush() {
    expect_caught("reader-complete-races-paused-flush", &fault::NoPauseOnFlush, BOUND, Checks::Registry);
}
