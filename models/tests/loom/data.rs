//! Loom: the data family — bytes across segments (**byte-exact**), release when both
//! sides complete (**release-once**), and the writer's tail against the reader's
//! front (**no-data-race**, found by loom's own race detector).
use pipecheck_core::fault;
use pipecheck_models::loom_harness::{Checks, check_scenario, expect_caught};

/// Bound 4. Each race is a read (or its advance) against one flush or completion; bound
/// 2 finds every planted bug here. (Bound 5 took `bytes-across-segments` to 160,432
/// interleavings, 14 s `--release`, once the lock-free read put an atomic step on every
/// read; 4 still goes well past what the twins need.)
const BOUND: usize = 4;

#[test]
fn bytes_across_segments() {
    check_scenario("bytes-across-segments", None, BOUND, Checks::Registry);
}

#[test]
fn bytes_across_segments_catches_read_past_commit() {
    expect_caught("bytes-across-segments", &fault::ReadPastCommit, BOUND, Checks::Registry);
}

#[test]
fn both_complete_race_last_read() {
    check_scenario("both-complete-race-last-read", None, BOUND, Checks::Registry);
}

#[test]
fn both_complete_race_last_read_catches_leak_on_complete() {
    expect_caught("both-complete-race-last-read", &fault::LeakOnComplete, BOUND, Checks::Registry);
}

/// The full registry plus loom's detector: disjoint ranges raise no false alarm.
#[test]
fn writer_fills_tail_while_reader_reads() {
    check_scenario("writer-fills-tail-while-reader-reads", None, BOUND, Checks::Registry);
}

/// The protocol-level read-bound check is left out, so the overlap must be found by
/// loom's race detector on the tracked segment memory.
#[test]
fn writer_fills_tail_while_reader_reads_catches_read_past_commit_by_race_detector() {
    let verdict = expect_caught(
        "writer-fills-tail-while-reader-reads",
        &fault::ReadPastCommit,
        BOUND,
        Checks::MemoryByLoomOnly,
    );
    assert_eq!(verdict.kind, "data-race", "expected loom's race detector to report it:\n{}", verdict.report);
}
