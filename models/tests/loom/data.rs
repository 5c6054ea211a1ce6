//! Loom: the data family — bytes across segments (**byte-exact**), release when both
//! sides complete (**release-once**), and the writer's tail against the reader's
//! front (**no-data-race**, found by loom's own race detector).
use pipecheck::InvariantId;
use pipecheck::loom_harness::{check_target, expect_model_caught, expect_target_caught};
use pipecheck_models::builtin;
use pipecheck_pipe::fault;
use pipecheck_properties::{Monitor, registry};

/// Bound 4. Each race is a read (or its advance) against one flush or completion; bound
/// 2 finds every planted bug here. (Bound 5 took `bytes-across-segments` to 160,432
/// interleavings, 14 s `--release`, once the lock-free read put an atomic step on every
/// read; 4 still goes well past what the twins need.)
const BOUND: usize = 4;

#[test]
fn bytes_across_segments() {
    check_target(&builtin::pipe(), "bytes-across-segments", None, BOUND).unwrap();
}

#[test]
fn bytes_across_segments_catches_read_past_commit() {
    expect_target_caught(&builtin::pipe(), "bytes-across-segments", fault::ReadPastCommit.name(), BOUND)
        .unwrap();
}

#[test]
fn both_complete_race_last_read() {
    check_target(&builtin::pipe(), "both-complete-race-last-read", None, BOUND).unwrap();
}

#[test]
fn both_complete_race_last_read_catches_leak_on_complete() {
    expect_target_caught(
        &builtin::pipe(),
        "both-complete-race-last-read",
        fault::LeakOnComplete.name(),
        BOUND,
    )
    .unwrap();
}

/// The full registry plus loom's detector: disjoint ranges raise no false alarm.
#[test]
fn writer_fills_tail_while_reader_reads() {
    check_target(&builtin::pipe(), "writer-fills-tail-while-reader-reads", None, BOUND).unwrap();
}

/// The protocol-level read-bound check is left out, so the overlap must be found by
/// loom's race detector on the tracked segment memory.
#[test]
fn writer_fills_tail_while_reader_reads_catches_read_past_commit_by_race_detector() {
    let scenario =
        pipecheck_models::find("writer-fills-tail-while-reader-reads").expect("the scenario exists");
    let verdict = expect_model_caught(InvariantId::NO_DATA_RACE, BOUND, move || {
        fault::ReadPastCommit.activate(|| {
            let config = (scenario.config)();
            let left_to_loom = [InvariantId::NO_DATA_RACE, pipecheck_pipe::invariant::BYTE_EXACT];
            let invariants =
                registry(&config).into_iter().filter(|i| !left_to_loom.contains(&i.id())).collect();
            let monitor = Monitor::with_invariants(config, invariants);
            (scenario.body)(&monitor);
            monitor.assert_finished();
        });
    });
    assert_eq!(verdict.kind, "data-race", "expected loom's race detector to report it:\n{}", verdict.report);
}

/// Bound 2 for the batching wait's model: 29,797 interleavings, 5 s. The writer yields
/// after each flush, so the reader's read and advance fall between two flushes without
/// a preemption; without the yields the look that matters needed bound 3 (25,714
/// interleavings), and with them bound 3 explores 491,588 in 83 s. (A hand-made bug that
/// ends the read after a look without its minimum fails at interleaving 4,374:
/// docs/independent-bugs.md.)
const BATCHING_BOUND: usize = 2;

#[test]
fn reader_batches_streaming_writer() {
    check_target(&builtin::pipe(), "reader-batches-streaming-writer", None, BATCHING_BOUND).unwrap();
}

/// Loom reaches `SpinTrustsHint` here, where the pipe's defaults leave the spins out of
/// its models: the look's plain load sees "c", and the read returns it without its
/// minimum.
#[test]
fn reader_batches_streaming_writer_catches_spin_trusts_hint() {
    expect_target_caught(
        &builtin::pipe(),
        "reader-batches-streaming-writer",
        fault::SpinTrustsHint.name(),
        BATCHING_BOUND,
    )
    .unwrap();
}
