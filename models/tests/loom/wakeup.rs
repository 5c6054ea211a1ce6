//! Loom: **no-lost-wakeup** checked online. A wake that an operation owes and does not
//! take is reported as that operation releases the pipe lock, so these planted bugs
//! must be caught as *invariant violations* (the monitor names the flush), not as the
//! deadlock a lost wake may lead to, and also where a later wake (the writer's
//! completion) would have rescued the wait.
use pipecheck::PlantedFault;
use pipecheck::loom_harness::{check_target, expect_target_caught};
use pipecheck_models::builtin;
use pipecheck_pipe::fault;

/// Bound 3: a lost wake needs two preemptions (the reader between its check and its
/// registration, the writer inside its flush); the two-pipe model stays small at 3
/// (figures in models/LOOM.md).
const BOUND: usize = 3;

/// Asserts the planted bug was caught online, as the monitor's violation.
fn caught_online(name: &str, fault: &'static PlantedFault, bound: usize) {
    let verdict = expect_target_caught(&builtin::pipe(), name, fault.name(), bound).unwrap();
    assert_eq!(
        verdict.kind, "invariant-violated",
        "{fault} in `{name}` was caught only as a {}, not online:\n{}",
        verdict.kind, verdict.report
    );
}

#[test]
fn flush_wake_is_the_only_wake() {
    check_target(&builtin::pipe(), "flush-wake-is-the-only-wake", None, BOUND).unwrap();
}

#[test]
fn flush_wake_is_the_only_wake_catches_flush_forgets_wake() {
    caught_online("flush-wake-is-the-only-wake", &fault::FlushForgetsWake, BOUND);
}

/// The writer completes right after the flush, and its completion wakes the read the
/// flush forgot: only the online check can see the lost wake here.
#[test]
fn flush_races_read_catches_flush_forgets_wake() {
    caught_online("flush-races-read", &fault::FlushForgetsWake, BOUND);
}

#[test]
fn read_repolled_from_another_task() {
    check_target(&builtin::pipe(), "read-repolled-from-another-task", None, BOUND).unwrap();
}

#[test]
fn read_repolled_from_another_task_catches_keeps_stale_waker() {
    caught_online("read-repolled-from-another-task", &fault::KeepsStaleWaker, BOUND);
}

/// The stale-waker family (models/src/scenarios/stale_waker.rs): a waker left by a
/// read given up keeps reads on the lock until it is taken.
#[test]
fn read_at_least_abandoned_then_peeked() {
    check_target(&builtin::pipe(), "read-at-least-abandoned-then-peeked", None, BOUND).unwrap();
}

#[test]
fn read_at_least_abandoned_then_peeked_catches_fast_read_ignores_parked() {
    caught_online("read-at-least-abandoned-then-peeked", &fault::FastReadIgnoresParked, BOUND);
}

/// The older lost-wake bugs are now caught online too.
#[test]
fn writer_complete_races_read_catches_lost_wake_on_complete_online() {
    caught_online("writer-complete-races-read", &fault::LostWakeOnComplete, BOUND);
}

#[test]
fn consume_races_paused_flush_catches_no_resume_on_consume_online() {
    caught_online("consume-races-paused-flush", &fault::NoResumeOnConsume, BOUND);
}

/// The outcomes family (models/src/scenarios/outcomes.rs): results checked as typed
/// violations.
#[test]
fn complete_with_unflushed_races_read() {
    check_target(&builtin::pipe(), "complete-with-unflushed-races-read", None, BOUND).unwrap();
}

#[test]
fn complete_with_unflushed_races_read_catches_complete_drops_unflushed() {
    expect_target_caught(
        &builtin::pipe(),
        "complete-with-unflushed-races-read",
        fault::CompleteDropsUnflushed.name(),
        BOUND,
    )
    .unwrap();
}

#[test]
fn reader_complete_races_pausing_flush() {
    check_target(&builtin::pipe(), "reader-complete-races-pausing-flush", None, BOUND).unwrap();
}

#[test]
fn reader_complete_races_pausing_flush_catches_pauses_after_reader_completed() {
    caught_online("reader-complete-races-pausing-flush", &fault::PausesAfterReaderCompleted, BOUND);
}

/// cancel-observed: a read that finds bytes ready must still report the cancel (three
/// threads, as `close_receive.rs` runs this model: bound 3).
#[test]
fn cancel_from_third_thread_races_read_catches_read_loses_cancel() {
    expect_target_caught(
        &builtin::pipe(),
        "cancel-from-third-thread-races-read",
        fault::ReadLosesCancel.name(),
        BOUND,
    )
    .unwrap();
}
