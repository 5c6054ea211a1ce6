//! Loom: the data family — bytes across segments (**byte-exact**), release when both
//! sides complete (**release-once**), and the writer's tail against the reader's
//! front (**no-data-race**, found by loom's own race detector).
#![cfg(feature = "loom")]

use pipecheck_core::{Fault, FaultSet};
use pipecheck_models::loom_harness::{Checks, check_scenario, expect_caught};

// Preemption bounds. Each race is a read (or its advance) against one flush or
// completion; bound 2 finds every planted bug here, and the bounds below go further.

/// Bound 4: two flushes over three segments against a reader looping over reads
/// (bound 5 is 32,038 interleavings, ~11 s).
const BYTES: usize = 4;
/// Bound 5: one send and two completions against one read.
const SHORT: usize = 5;

#[test]
fn bytes_across_segments() {
    check_scenario("bytes-across-segments", FaultSet::NONE, BYTES, Checks::Registry);
}

#[test]
fn bytes_across_segments_catches_read_past_commit() {
    expect_caught("bytes-across-segments", Fault::ReadPastCommit, BYTES, Checks::Registry);
}

#[test]
fn both_complete_race_last_read() {
    check_scenario("both-complete-race-last-read", FaultSet::NONE, SHORT, Checks::Registry);
}

#[test]
fn both_complete_race_last_read_catches_leak_on_complete() {
    expect_caught("both-complete-race-last-read", Fault::LeakOnComplete, SHORT, Checks::Registry);
}

/// The full registry plus loom's detector: disjoint ranges raise no false alarm.
#[test]
fn writer_fills_tail_while_reader_reads() {
    check_scenario("writer-fills-tail-while-reader-reads", FaultSet::NONE, SHORT, Checks::Registry);
}

/// The protocol-level read-bound check is left out, so the overlap must be found by
/// loom's race detector on the tracked segment memory.
#[test]
fn writer_fills_tail_while_reader_reads_catches_read_past_commit_by_race_detector() {
    let report = expect_caught(
        "writer-fills-tail-while-reader-reads",
        Fault::ReadPastCommit,
        SHORT,
        Checks::MemoryByLoomOnly,
    );
    assert!(report.contains("Causality violation"), "expected loom's race detector to report it:\n{report}");
}
