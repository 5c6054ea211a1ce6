//! Loom: the close/receive family — every waiting side wakes, every time
//! (**no-lost-wakeup**). A lost wake leaves both threads blocked: loom's deadlock,
//! which the harness reports as a no-lost-wakeup violation.
use pipecheck::loom_harness::{check_target, expect_target_caught};
use pipecheck_models::builtin;
use pipecheck_pipe::fault;

/// Bound 4. A lost wake needs only two preemptions: the waiting side between its
/// check and registering its waker, and the waking side inside its transition (every
/// planted lost wake here is found at bound 2). The bound was 5 until the lock-free
/// flush's atomic accesses grew the models (`consume-races-paused-flush`: 71,445
/// interleavings at 5 before; 107,328 at 4 after the merge, see LOOM.md); each bound up
/// costs 3-4x the interleavings.
const BOUND: usize = 4;

#[test]
fn writer_complete_races_read() {
    check_target(&builtin::pipe(), "writer-complete-races-read", None, BOUND).unwrap();
}

#[test]
fn writer_complete_races_read_catches_lost_wake_on_complete() {
    expect_target_caught(
        &builtin::pipe(),
        "writer-complete-races-read",
        fault::LostWakeOnComplete.name(),
        BOUND,
    )
    .unwrap();
}

#[test]
fn cancel_races_read() {
    check_target(&builtin::pipe(), "cancel-races-read", None, BOUND).unwrap();
}

#[test]
fn cancel_races_read_catches_lost_wake_on_complete() {
    expect_target_caught(&builtin::pipe(), "cancel-races-read", fault::LostWakeOnComplete.name(), BOUND)
        .unwrap();
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
    check_target(&builtin::pipe(), "cancel-from-third-thread-races-read", None, THREE_THREADS).unwrap();
}

#[test]
fn cancel_from_third_thread_races_read_catches_lost_wake_on_complete() {
    expect_target_caught(
        &builtin::pipe(),
        "cancel-from-third-thread-races-read",
        fault::LostWakeOnComplete.name(),
        THREE_THREADS,
    )
    .unwrap();
}

#[test]
fn flush_races_read() {
    check_target(&builtin::pipe(), "flush-races-read", None, BOUND).unwrap();
}

#[test]
fn flush_races_read_catches_lost_wake_on_complete() {
    expect_target_caught(&builtin::pipe(), "flush-races-read", fault::LostWakeOnComplete.name(), BOUND)
        .unwrap();
}

#[test]
fn consume_races_paused_flush() {
    check_target(&builtin::pipe(), "consume-races-paused-flush", None, PAUSED_FLUSH).unwrap();
}

#[test]
fn consume_races_paused_flush_catches_no_resume_on_consume() {
    expect_target_caught(
        &builtin::pipe(),
        "consume-races-paused-flush",
        fault::NoResumeOnConsume.name(),
        PAUSED_FLUSH,
    )
    .unwrap();
}

#[test]
fn reader_complete_races_paused_flush() {
    check_target(&builtin::pipe(), "reader-complete-races-paused-flush", None, BOUND).unwrap();
}

#[test]
fn reader_complete_races_paused_flush_catches_no_pause_on_flush() {
    expect_target_caught(
        &builtin::pipe(),
        "reader-complete-races-paused-flush",
        fault::NoPauseOnFlush.name(),
        BOUND,
    )
    .unwrap();
}
