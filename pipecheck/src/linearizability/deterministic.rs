//! [`DeterministicModel`]: a sequential specification written as one function that
//! runs an operation on a state (in place) and returns its output, from which the
//! [`SequentialModel`] (its `step` and `expected`) follows.

use std::fmt::Debug;
use std::hash::Hash;

use super::model::SequentialModel;
use super::overlap::Relaxed;

/// A sequential specification in which every operation, in every state, has exactly one
/// output and one next state: [`run`](DeterministicModel::run) computes both (the next
/// state in place, on a copy the derived `step` makes), and every
/// `DeterministicModel` is a [`SequentialModel`] whose `step` accepts exactly that output
/// and whose `expected` is it.
///
/// # Examples
///
/// A counter whose `add` returns the new total:
///
/// ```
/// use pipecheck::linearizability::{DeterministicModel, SequentialModel};
///
/// #[derive(Debug)]
/// struct Counter;
///
/// impl DeterministicModel for Counter {
///     type State = u64;
///     type Input = u64; // add this much
///     type Output = u64; // the total after the add
///     fn initial(&self) -> u64 { 0 }
///     fn run(&self, total: &mut u64, add: &u64) -> u64 { *total += add; *total }
/// }
///
/// assert_eq!(Counter.step(&1, &2, &3), Some(3));
/// assert_eq!(Counter.step(&1, &2, &1), None);
/// assert_eq!(Counter.expected(&1, &2), Some(3));
/// ```
///
/// # Implementer notes
///
/// * [`run`](DeterministicModel::run) must be a pure function of its arguments, as
///   [`SequentialModel::step`] is: the state it leaves and the output depend on the
///   state and the input only.
/// * A model with blocking operations (not enabled in some states), outputs the model
///   cannot predict, a partition, or its own `describe` implements [`SequentialModel`]
///   directly: the derived one has the defaults (every operation enabled everywhere,
///   one partition).
pub trait DeterministicModel: Sync {
    /// The object's abstract state.
    type State: Clone + Eq + Hash + Debug + Send;
    /// An operation with its arguments.
    type Input: Clone + Debug + Sync;
    /// What an operation returned.
    type Output: Clone + Debug + Sync + PartialEq;

    /// The state before any operation ([`SequentialModel::init`]).
    fn initial(&self) -> Self::State;

    /// What `input` returns in `state`, leaving in `state` the state after it.
    fn run(&self, state: &mut Self::State, input: &Self::Input) -> Self::Output;

    /// [`SequentialModel::step_while_overlapped`], for this model (the default: none).
    fn step_while_overlapped(
        &self,
        state: &Self::State,
        input: &Self::Input,
        output: &Self::Output,
        overlapping: &[&Self::Input],
    ) -> Option<Relaxed<Self::State>> {
        let _ = (state, input, output, overlapping);
        None
    }
}

impl<M: DeterministicModel> SequentialModel for M {
    type State = M::State;
    type Input = M::Input;
    type Output = M::Output;

    fn init(&self) -> M::State {
        self.initial()
    }

    /// The next state when `output` is the one [`run`](DeterministicModel::run) computes.
    fn step(&self, state: &M::State, input: &M::Input, output: &M::Output) -> Option<M::State> {
        let mut next = state.clone();
        (self.run(&mut next, input) == *output).then_some(next)
    }

    /// [`DeterministicModel::step_while_overlapped`].
    fn step_while_overlapped(
        &self,
        state: &M::State,
        input: &M::Input,
        output: &M::Output,
        overlapping: &[&M::Input],
    ) -> Option<Relaxed<M::State>> {
        DeterministicModel::step_while_overlapped(self, state, input, output, overlapping)
    }

    /// The output [`run`](DeterministicModel::run) computes.
    fn expected(&self, state: &M::State, input: &M::Input) -> Option<M::Output> {
        Some(self.run(&mut state.clone(), input))
    }
}
