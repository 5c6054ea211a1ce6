//! Every planted bug is caught by the operation-sequence property, under the invariant
//! it is planted to break.
//!
//! Each test runs `PipeTest` (the same property as `op_sequences.rs`) with one fault
//! switched on, from a fixed proptest seed so the hunt is deterministic, and asserts
//! that it fails, that the shrunk failure names `fault.breaks()`, and prints how many
//! cases the hunt took and how short the shrunk sequence is. Replay a hunt with
//! `cargo test -p pipecheck-properties --test fault_sequences <fault> -- --nocapture`.
#![cfg(not(any(feature = "loom", feature = "shuttle")))]

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;

use pipecheck_core::{Fault, FaultSet};
use pipecheck_properties::{Op, PipeMachine, PipeTest};
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};
use proptest_state_machine::{ReferenceStateMachine, StateMachineTest};

/// The hunts' seed: fixed, so every run finds the same failure in the same number of cases.
const SEED: [u8; 32] = *b"pipecheck fault hunt, seed no. 1";
/// Cases a hunt may take before the fault counts as missed.
const MAX_CASES: u32 = 4096;

/// What a hunt found.
struct Caught {
    /// Cases run until the first failure (1-based).
    cases: usize,
    /// The shrunk failing sequence.
    ops: Vec<Op>,
    /// The shrunk failure's message.
    message: String,
}

/// Hides the panic messages of the expected failures (hundreds, while shrinking);
/// anything else still reaches the default hook.
fn quiet_expected_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let message = panic_message(info.payload());
            if !message.contains("pipecheck: invariant") && !message.contains("model mismatch") {
                default(info);
            }
        }));
    });
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_default()
}

/// Runs the op-sequence property with `fault` on until it fails, and shrinks.
fn hunt(fault: Fault) -> Option<Caught> {
    quiet_expected_panics();
    let config = Config { cases: MAX_CASES, failure_persistence: None, ..Config::default() };
    let mut runner =
        TestRunner::new_with_rng(config.clone(), TestRng::from_seed(RngAlgorithm::ChaCha, &SEED));
    let strategy = PipeMachine::sequential_strategy(1..64);
    let runs = Cell::new(0usize);
    let first_failure = Cell::new(None);
    let result = runner.run(&strategy, |(mut model, ops, seen)| {
        model.config_mut().faults = FaultSet::NONE.with(fault);
        runs.set(runs.get() + 1);
        let run = catch_unwind(AssertUnwindSafe(|| {
            PipeTest::test_sequential(config.clone(), model, ops, seen);
        }));
        run.map_err(|panic| {
            if first_failure.get().is_none() {
                first_failure.set(Some(runs.get()));
            }
            TestCaseError::fail(panic_message(&*panic))
        })
    });
    match result {
        Ok(()) => None,
        Err(TestError::Fail(reason, (_, ops, _))) => Some(Caught {
            cases: first_failure.get().expect("a case failed"),
            ops,
            message: reason.message().to_owned(),
        }),
        Err(TestError::Abort(reason)) => panic!("{fault}: the hunt aborted: {reason}"),
    }
}

/// Asserts that the property catches `fault` under the invariant it breaks.
fn caught(fault: Fault) {
    let Some(caught) = hunt(fault) else {
        panic!("{fault} was not caught in {MAX_CASES} cases: the op-sequence property misses it");
    };
    let expected = format!("invariant `{}` violated", fault.breaks());
    println!(
        "{fault}: caught after {} case(s); shrunk to {} op(s): {:?}",
        caught.cases,
        caught.ops.len(),
        caught.ops
    );
    assert!(
        caught.message.contains(&expected),
        "{fault} failed the property, but not as `{}`:\n{}",
        fault.breaks(),
        caught.message
    );
}

/// One test per fault, and a check that the list is complete.
macro_rules! fault_tests {
    ($($test:ident: $fault:ident,)*) => {
        $(
            #[test]
            fn $test() {
                caught(Fault::$fault);
            }
        )*

        #[test]
        fn every_fault_has_a_hunt() {
            let hunted = [$(Fault::$fault),*];
            for fault in Fault::ALL {
                assert!(hunted.contains(fault), "no op-sequence hunt for {fault}: add it to fault_tests!");
            }
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
}

#[test]
fn the_clean_pipe_passes_the_same_hunt() {
    // The twin of the hunts: same seed and budget, no fault, no failure.
    quiet_expected_panics();
    let config = Config { cases: 512, failure_persistence: None, ..Config::default() };
    let mut runner =
        TestRunner::new_with_rng(config.clone(), TestRng::from_seed(RngAlgorithm::ChaCha, &SEED));
    runner
        .run(&PipeMachine::sequential_strategy(1..64), |(model, ops, seen)| {
            PipeTest::test_sequential(config.clone(), model, ops, seen);
            Ok(())
        })
        .unwrap();
}
