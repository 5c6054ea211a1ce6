//! Every planted bug of the pipe is caught by the operation-sequence property, under
//! the invariant it is planted to break.
//!
//! Each test runs [`hunt`] (the property of `op_sequences.rs`, from a fixed seed, so the
//! hunt is deterministic) with one fault switched on, asserts that it fails and that
//! the shrunk failure names `fault.breaks()`, and prints how many cases the hunt took
//! and the shrunk sequence. Replay one with
//! `cargo test -p pipecheck-properties --test fault_sequences <test name> -- --nocapture`.
#![cfg(not(any(feature = "loom", feature = "shuttle")))]

use pipecheck_core::{Fault, FaultSet};
use pipecheck_properties::{PIPE_FAULTS, hunt};

/// The hunts' seed: fixed, so every run finds the same failure in the same number of cases.
const SEED: u64 = 0x005E_ED0F_FA17;
/// Cases a hunt may take before the fault counts as missed.
const MAX_CASES: u32 = 4096;

/// Asserts that the property catches `fault` under the invariant it breaks.
fn caught(fault: Fault) {
    let found = hunt(FaultSet::NONE.with(fault), MAX_CASES, SEED, None);
    let Some(failure) = found.failure else {
        panic!("{fault} was not caught in {MAX_CASES} cases: the op-sequence property misses it");
    };
    println!(
        "{fault}: caught at case {} ({} cases with shrinking); shrunk to {} op(s) + teardown: {:?}\n  \
         settings: {:?}",
        failure.first_failing_case,
        found.cases_run,
        failure.ops.len(),
        failure.ops,
        failure.config
    );
    assert_eq!(
        failure.failure.invariant(),
        Some(fault.breaks()),
        "{fault} failed the property, but not as `{}`: {}",
        fault.breaks(),
        failure.failure
    );
}

/// Faults planted in the seed primitives beside the pipe (async mutex, message channel,
/// completion source, partitioned pool): pipe operations cannot reach them, so their
/// property tests are the models' loom and shuttle suites, not operation sequences.
/// Likewise the faults of `reset_pipe`, which no operation sequence calls (a sequence
/// is one run of the pipe, ended by the driver's teardown).
const NOT_IN_THE_PIPE: &[Fault] = &[
    Fault::MutexDoubleAdmit,
    Fault::MutexSkipWakeOnExit,
    Fault::CloseDropsFrame,
    Fault::StaleTokenAccepted,
    Fault::LostCompletionWake,
    Fault::PartitionLeak,
    Fault::MutexDropLosesHandoff,
    Fault::ResetStrandsWaiter,
    Fault::ResetKeepsExamined,
    Fault::TryLockFailsAfterRelease,
    // The lock-free flush's races: a fast flush racing the reader's park or
    // consume, or the memory ordering of its publish. One thread running an operation
    // sequence never interleaves them; the loom and shuttle models do.
    Fault::ParksWithoutRecheck,
    Fault::RelaxedPublish,
    Fault::ResumesOnStaleCount,
    // The lock-free read's memory ordering: one thread never races itself.
    Fault::RelaxedFastRead,
    // A lock holder not waiting for a lock-free advance in progress: on one thread
    // the advance always ends before the next lock is taken.
    Fault::AdvanceSkipsHandshake,
    // The message channel's close returning while a receive runs: planted in the channel.
    Fault::CloseReturnsWhileReceiving,
];

/// Pipe faults that only a history names: they break **linearizable** and no per-event
/// invariant, so an operation sequence cannot catch them *as their invariant* (the
/// campaign's proptest jobs leave them out). One thread's sequence is a sequential
/// history, though, and its reference model is a sequential specification:
/// [`history_only_faults_are_model_mismatches`] shows it sees them, as a model mismatch.
const HISTORY_ONLY: &[Fault] = &[Fault::ReadSkipsPublishedEnd];

/// The twin of the history-only faults in operation sequences: the reference model
/// catches each as a model mismatch, and no invariant fires.
#[test]
fn history_only_faults_are_model_mismatches() {
    for &fault in HISTORY_ONLY {
        let found = hunt(FaultSet::NONE.with(fault), MAX_CASES, SEED, None);
        let Some(failure) = found.failure else {
            panic!("{fault} was not seen in {MAX_CASES} cases");
        };
        println!(
            "{fault}: seen at case {} as {}; shrunk to {:?}",
            failure.first_failing_case,
            failure.failure.label(),
            failure.ops
        );
        assert_eq!(failure.failure.kind(), "model-mismatch", "{fault}: {}", failure.failure);
        assert_eq!(fault.breaks(), pipecheck_core::InvariantId::LINEARIZABLE);
    }
}

/// One test per pipe fault, and a check that every fault is either hunted here or
/// planted outside the pipe.
macro_rules! fault_tests {
    ($($test:ident: $fault:ident,)*) => {
        $(
            #[test]
            fn $test() {
                caught(Fault::$fault);
            }
        )*

        #[test]
        fn every_pipe_fault_has_a_hunt() {
            let hunted = [$(Fault::$fault),*];
            for fault in Fault::ALL {
                assert!(
                    hunted.contains(fault) || NOT_IN_THE_PIPE.contains(fault) || HISTORY_ONLY.contains(fault),
                    "no op-sequence hunt for {fault}: add it to fault_tests! (or, if it is planted \
                     outside the pipe, to NOT_IN_THE_PIPE)"
                );
            }
            assert_eq!(hunted, PIPE_FAULTS, "keep pipecheck_properties::PIPE_FAULTS in step");
        }
    };
}

fault_tests! {
    lifo_pool_breaks_fifo_pool: LifoPool,
    double_return_breaks_no_double_return: DoubleReturn,
    pool_overflow_breaks_bounded_pool: PoolOverflow,
    lost_wake_on_complete_breaks_no_lost_wakeup: LostWakeOnComplete,
    return_write_head_breaks_no_double_return: ReturnWriteHead,
    read_past_commit_breaks_no_data_race: ReadPastCommit,
    no_resume_on_consume_breaks_no_lost_wakeup: NoResumeOnConsume,
    no_pause_on_flush_breaks_backpressure: NoPauseOnFlush,
    leak_on_complete_breaks_release_once: LeakOnComplete,
    backpressure_by_consumed_breaks_backpressure: BackpressureByConsumed,
    canceled_read_needs_advance_breaks_tentative_cancel: CanceledReadNeedsAdvance,
    writes_pile_up_after_reader_completed_breaks_bounded_after_reader_complete:
        WritesPileUpAfterReaderCompleted,
    failure_loses_cause_breaks_failure_cause: FailureLosesCause,
    keeps_idle_write_head_breaks_segments_in_use: KeepsIdleWriteHead,
    keeps_consumed_segment_breaks_segments_in_use: KeepsConsumedSegment,
    read_at_least_keeps_writer_paused_breaks_backpressure: ReadAtLeastKeepsWriterPaused,
    length_counts_consumed_breaks_buffered_length: LengthCountsConsumed,
    flush_forgets_wake_breaks_no_lost_wakeup: FlushForgetsWake,
    keeps_stale_waker_breaks_no_lost_wakeup: KeepsStaleWaker,
    complete_drops_unflushed_breaks_byte_exact: CompleteDropsUnflushed,
    pauses_after_reader_completed_breaks_backpressure: PausesAfterReaderCompleted,
    read_loses_cancel_breaks_cancel_observed: ReadLosesCancel,
    flush_loses_cancel_breaks_cancel_observed: FlushLosesCancel,
    fast_read_ignores_cancel_breaks_cancel_observed: FastReadIgnoresCancel,
}

#[test]
fn the_clean_pipe_passes_the_same_hunt() {
    // The twin of the hunts: same seed, no fault, no failure.
    let found = hunt(FaultSet::NONE, 512, SEED, None);
    assert!(found.failure.is_none(), "{:?}", found.failure);
    assert_eq!(found.cases_run, 512);
}
