//! [`hunt`]: runs the operation-sequence property ([`PipeTest`]) from a fixed seed, with
//! planted bugs switched on or not, and reports the first failure after shrinking.
//!
//! This is what the fault tests and the campaign runner's proptest engine call: the
//! same seed gives the same cases, the same failure and the same shrunk sequence.

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use pipecheck::PlantedFault;
use pipecheck_pipe::fault;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};
use proptest_state_machine::{ReferenceStateMachine, StateMachineTest};

use crate::machine::{PipeMachine, PipeTest};
use crate::{CheckConfig, Op};
use pipecheck::Capture;
use pipecheck::{FailureKind, classify, panic_message};

/// The planted bugs that pipe operations reach, i.e. those [`hunt`] is for: the pipe's
/// faults declared `in_sequences` (the others are planted in the seed primitives beside
/// the pipe, or need a schedule or weak memory that one thread's sequence cannot give).
pub fn pipe_faults() -> impl Iterator<Item = &'static PlantedFault> {
    fault::ALL.iter().copied().filter(|f| f.reached_by_sequences())
}

/// How long the generated sequences are (transitions per case). Deep states — the
/// reader completed with a pause threshold's worth written after it, two segments
/// waiting in the pool, a write head returned while the writer still holds it — take
/// dozens of operations. Measured on the seven slowest-caught planted bugs, 40 seeds ×
/// 100 cases each: 1..64 missed 16 of the 280 hunts (`PausesAfterReaderCompleted` 10
/// of 40), 16..128 missed 4; shorter sequences are still reached by shrinking.
pub const HUNT_SEQUENCE_LENGTH: std::ops::Range<usize> = 16..128;

/// A failure found by [`hunt`], shrunk.
#[derive(Clone, Debug)]
pub struct HuntFailure {
    /// The case (1-based) at which the first failure happened, before shrinking.
    pub first_failing_case: usize,
    /// The shrunk pipe settings (with the hunt's faults).
    pub config: CheckConfig,
    /// The shrunk sequence (the driver's teardown — complete, drain, complete — follows it).
    pub ops: Vec<Op>,
    /// How the shrunk case fails: an invariant violated, a model mismatch, a panic.
    pub failure: FailureKind,
}

/// What a [`hunt`] did.
#[derive(Clone, Debug)]
pub struct Hunt {
    /// Cases run, including those run while shrinking.
    pub cases_run: usize,
    /// The failure, if a case failed.
    pub failure: Option<HuntFailure>,
}

/// Runs up to `cases` random sequences with `faults` switched on, from `seed`, stopping
/// (and shrinking) at the first failure. Cases stop being generated after `time`.
/// Panics are caught, and kept quiet while the hunt runs.
///
/// # Examples
///
// Under loom and shuttle the pipe's primitives only work inside a model: compile only.
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// use pipecheck_pipe::fault;
/// # std::panic::set_hook(Box::new(|_| {}));
/// let hunt = pipecheck_properties::hunt(Some(&fault::LostWakeOnComplete), 1000, 7, None);
/// let failure = hunt.failure.expect("the planted bug is caught");
/// assert_eq!(failure.failure.invariant(), Some(pipecheck::InvariantId::NO_LOST_WAKEUP));
/// ```
pub fn hunt(fault: Option<&'static PlantedFault>, cases: u32, seed: u64, time: Option<Duration>) -> Hunt {
    PlantedFault::activate_opt(fault, || hunt_switched_on(cases, seed, time))
}

/// [`hunt`] with its fault (if any) already switched on for this thread.
fn hunt_switched_on(cases: u32, seed: u64, time: Option<Duration>) -> Hunt {
    let config = Config { cases, failure_persistence: None, ..Config::default() };
    let mut seed_bytes = [0u8; 32];
    for chunk in seed_bytes.chunks_mut(8) {
        chunk.copy_from_slice(&seed.to_le_bytes());
    }
    let mut runner =
        TestRunner::new_with_rng(config.clone(), TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes));
    let strategy = PipeMachine::sequential_strategy(HUNT_SEQUENCE_LENGTH);
    let capture = Capture::start(true);
    let started = Instant::now();
    let runs = Cell::new(0usize);
    let first_failure = Cell::new(None);
    let result = runner.run(&strategy, |(model, ops, seen)| {
        if first_failure.get().is_none() && time.is_some_and(|t| started.elapsed() > t) {
            return Ok(()); // out of time: pass the remaining cases without running them
        }
        runs.set(runs.get() + 1);
        catch_unwind(AssertUnwindSafe(|| PipeTest::test_sequential(config.clone(), model, ops, seen)))
            .map_err(|panic| {
                if first_failure.get().is_none() {
                    first_failure.set(Some(runs.get()));
                }
                TestCaseError::fail(panic_message(&*panic))
            })
    });
    let failure = match result {
        Ok(()) => None,
        Err(TestError::Fail(_, (model, ops, seen))) => {
            // The shrunk case, once more, for its typed failure (the runs are deterministic).
            let settings = model.config().clone();
            let rerun = catch_unwind(AssertUnwindSafe(|| {
                PipeTest::test_sequential(config, model, ops.clone(), seen)
            }));
            let failure = match rerun {
                Err(panic) => classify(&*panic, None),
                Ok(()) => FailureKind::Panic {
                    message: "the shrunk case passed when run again".into(),
                    location: None,
                },
            };
            Some(HuntFailure {
                first_failing_case: first_failure.get().unwrap_or(0),
                config: settings,
                ops,
                failure,
            })
        }
        Err(TestError::Abort(reason)) => Some(HuntFailure {
            first_failing_case: 0,
            config: CheckConfig::default(),
            ops: Vec::new(),
            failure: FailureKind::Panic { message: format!("the hunt aborted: {reason}"), location: None },
        }),
    };
    drop(capture);
    Hunt { cases_run: runs.get(), failure }
}
