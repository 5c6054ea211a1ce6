//! [`check_sequences`]: proptest operation sequences of an [`OpsSpec`] on one thread,
//! each output checked by the model, a failure shrunk to a minimal sequence.
//!
//! The real object runs on the sync facade's `std` build: in a loom or shuttle build
//! the facade only works inside a model, so run sequence checks in the `std` build
//! (the concurrent runs are for loom and shuttle).

use std::fmt;

use proptest::collection::vec;
use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};

use super::ops_spec::OpsSpec;
use super::seeded::seeded_runner;

/// How many sequences [`check_sequences`] runs, how long, from which seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SequenceConfig {
    /// Sequences generated (before shrinking).
    pub cases: u32,
    /// Operations per sequence, at most.
    pub max_len: usize,
    /// The proptest seed (printed by every run; the same seed generates the same sequences).
    pub seed: u64,
}

impl Default for SequenceConfig {
    /// 256 sequences of up to 16 operations from seed `0x5eed`.
    fn default() -> SequenceConfig {
        SequenceConfig { cases: 256, max_len: 16, seed: 0x5eed }
    }
}

/// What a passing [`check_sequences`] ran.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SequencesPassed {
    /// Sequences run.
    pub sequences: u32,
    /// Operations applied to the real object, over all sequences.
    pub applied: u64,
    /// Operations skipped because they were not [`enabled`](OpsSpec::enabled).
    pub skipped: u64,
}

/// The minimal failing sequence of a [`check_sequences`] run, and where it failed.
#[derive(Clone, Debug)]
pub struct SequenceMismatch<I, O> {
    /// The proptest seed that generated it.
    pub seed: u64,
    /// The shrunk sequence (skipped operations included).
    pub sequence: Vec<I>,
    /// The index in `sequence` of the operation whose output the model refused.
    pub index: usize,
    /// That operation.
    pub input: I,
    /// What the real object returned.
    pub observed: O,
    /// What the model expected, when it says ([`SequentialModel::expected`](super::SequentialModel::expected)).
    pub expected: Option<O>,
    /// The model state before the operation (its `Debug` form).
    pub state: String,
}

impl<I: fmt::Debug, O: fmt::Debug> fmt::Display for SequenceMismatch<I, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "operation #{} {:?} returned {:?}", self.index, self.input, self.observed)?;
        match &self.expected {
            Some(expected) => write!(f, ", but the model expected {expected:?}")?,
            None => f.write_str(", which the model does not allow")?,
        }
        write!(
            f,
            " (model state before it: {}); minimal sequence of {} operations: {:?}; proptest seed {:#x}",
            self.state,
            self.sequence.len(),
            self.sequence,
            self.seed
        )
    }
}

impl<I: fmt::Debug, O: fmt::Debug> std::error::Error for SequenceMismatch<I, O> {}

/// Runs `config.cases` generated sequences of `spec`'s operations, each on a fresh real
/// object on this thread, and checks every output with [`SequentialModel::step`](super::SequentialModel::step);
/// operations that are not [`enabled`](OpsSpec::enabled) where they come are skipped.
/// Prints the seed.
///
/// # Examples
///
/// See [`OpsSpec`].
///
/// # Errors
///
/// The first failing sequence, shrunk by proptest to a minimal one, with the operation
/// the model refused.
///
/// # Panics
///
/// When the real object panics, or the minimal sequence passes when run again (the
/// real object is not deterministic on one thread).
pub fn check_sequences<S: OpsSpec>(
    spec: &S,
    config: &SequenceConfig,
) -> Result<SequencesPassed, SequenceMismatch<S::Input, S::Output>> {
    eprintln!(
        "check_sequences({spec:?}): {} sequences of up to {} operations, proptest seed {:#x}",
        config.cases, config.max_len, config.seed
    );
    let mut runner: TestRunner = seeded_runner(
        Config { cases: config.cases, failure_persistence: None, ..Config::default() },
        config.seed,
    );
    let totals = std::cell::Cell::new(SequencesPassed::default());
    let strategy = vec(spec.inputs(), 1..=config.max_len.max(1));
    let result = runner.run(&strategy, |sequence| {
        let (applied, skipped) =
            run_sequence(spec, &sequence, config.seed).map_err(|m| TestCaseError::fail(m.to_string()))?;
        let mut sum = totals.get();
        sum.sequences += 1;
        sum.applied += applied;
        sum.skipped += skipped;
        totals.set(sum);
        Ok(())
    });
    match result {
        Ok(()) => Ok(totals.get()),
        Err(TestError::Fail(reason, minimal)) => match run_sequence(spec, &minimal, config.seed) {
            Err(mismatch) => Err(mismatch),
            Ok(_) => panic!("the minimal sequence {minimal:?} passes when run again: {reason}"),
        },
        Err(TestError::Abort(reason)) => panic!("proptest gave up: {reason}"),
    }
}

/// Applies `sequence` to a fresh real object, each operation through its role's handle;
/// the operations applied and skipped.
fn run_sequence<S: OpsSpec>(
    spec: &S,
    sequence: &[S::Input],
    seed: u64,
) -> Result<(u64, u64), SequenceMismatch<S::Input, S::Output>> {
    let mut handles = spec.handles(1);
    let mut state = spec.init();
    let (mut applied, mut skipped) = (0, 0);
    for (index, input) in sequence.iter().enumerate() {
        if !spec.enabled(&state, input) {
            skipped += 1;
            continue;
        }
        let role = spec.role(input).unwrap_or(0);
        let handle = handles.get_mut(role).expect("OpsSpec::handles gave a handle per role");
        let observed = spec.apply(handle, input);
        applied += 1;
        match spec.step(&state, input, &observed) {
            Some(next) => state = next,
            None => {
                return Err(SequenceMismatch {
                    seed,
                    sequence: sequence.to_vec(),
                    index,
                    input: input.clone(),
                    expected: spec.expected(&state, input),
                    observed,
                    state: format!("{state:?}"),
                });
            }
        }
    }
    Ok((applied, skipped))
}
