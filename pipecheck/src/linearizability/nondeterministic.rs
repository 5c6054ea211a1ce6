//! [`NondeterministicModel`]: a specification whose operations may leave one of several
//! states, and [`PowerSet`], the [`SequentialModel`] that tracks the set of states it
//! may be in (porcupine's `NondeterministicModel.ToModel`).

use std::fmt::{self, Debug};
use std::hash::{BuildHasher, Hash, Hasher};

use rustc_hash::FxBuildHasher;

use super::history::{History, OpId};
use super::model::SequentialModel;

/// A sequential specification in which an operation, applied to a state with an
/// observed output, may lead to any of several states (none: it could not have
/// returned that output there). [`PowerSet`] makes it a [`SequentialModel`].
///
/// # Examples
///
/// A register whose write may be lost (the write returns, the value may not change):
///
/// ```
/// use pipecheck::linearizability::{Budget, History, NondeterministicModel, PowerSet, check};
///
/// #[derive(Debug)]
/// struct Lossy;
/// impl NondeterministicModel for Lossy {
///     type State = u32;
///     type Input = Option<u32>; // Some(v): write v; None: read
///     type Output = u32; // what a read returned (0 for a write)
///     fn init(&self) -> Vec<u32> { vec![0] }
///     fn step(&self, state: &u32, input: &Option<u32>, output: &u32) -> Vec<u32> {
///         match input {
///             Some(value) => vec![*state, *value],
///             None if output == state => vec![*state],
///             None => Vec::new(),
///         }
///     }
/// }
///
/// let mut history = History::new();
/// history.complete(0, Some(5), 0, 0, 1);
/// history.complete(0, None, 0, 2, 3); // the write was lost
/// history.complete(0, None, 7, 4, 5); // but 7 was never written
/// let model = PowerSet(Lossy);
/// assert!(!check(&model, &history, Budget::default()).unwrap().is_linearizable());
/// ```
pub trait NondeterministicModel: Sync {
    /// The object's abstract state.
    type State: Clone + Eq + Hash + Debug + Send + Sync;
    /// An operation with its arguments.
    type Input: Clone + Debug + Sync;
    /// What an operation returned.
    type Output: Clone + Debug + Sync;

    /// The states the object may start in.
    fn init(&self) -> Vec<Self::State>;

    /// Every state `input` may leave when it returned `output` in `state` (none if it
    /// could not have).
    fn step(&self, state: &Self::State, input: &Self::Input, output: &Self::Output) -> Vec<Self::State>;

    /// Every state `input` may leave in `state` with an output nobody observed (a
    /// pending operation that took effect); by default none.
    fn step_pending(&self, state: &Self::State, input: &Self::Input) -> Vec<Self::State> {
        let _ = (state, input);
        Vec::new()
    }

    /// As [`SequentialModel::partition`].
    fn partition(&self, input: &Self::Input) -> impl Hash + Eq + Debug {
        let _ = input;
    }

    /// As [`SequentialModel::partition_history`].
    fn partition_history(&self, history: &History<Self::Input, Self::Output>) -> Option<Vec<Vec<OpId>>> {
        let _ = history;
        None
    }

    /// As [`SequentialModel::describe_state`], for one state of the set.
    fn describe_state(&self, state: &Self::State) -> String {
        format!("{state:?}")
    }

    /// As [`SequentialModel::describe`].
    fn describe(&self, input: &Self::Input, output: Option<&Self::Output>) -> String {
        super::model::debug_description(input, output)
    }
}

/// The [`SequentialModel`] of a [`NondeterministicModel`]: its state is the set of
/// states the object may be in, and an operation is accepted when some state of the
/// set accepts it.
#[derive(Clone, Copy, Debug, Default)]
pub struct PowerSet<M>(pub M);

/// A set of states, compared as a set (order and repeats do not matter), hashed as the
/// XOR of its members' hashes.
#[derive(Clone)]
pub struct StateSet<S>(Vec<S>);

impl<S: Eq> StateSet<S> {
    /// The set of `states`, repeats removed.
    fn of(states: impl IntoIterator<Item = S>) -> StateSet<S> {
        let mut set: Vec<S> = Vec::new();
        for state in states {
            if !set.contains(&state) {
                set.push(state);
            }
        }
        StateSet(set)
    }

    /// Its members.
    pub fn states(&self) -> &[S] {
        &self.0
    }
}

impl<S: Eq> PartialEq for StateSet<S> {
    fn eq(&self, other: &Self) -> bool {
        self.0.len() == other.0.len() && self.0.iter().all(|state| other.0.contains(state))
    }
}

impl<S: Eq> Eq for StateSet<S> {}

impl<S: Hash> Hash for StateSet<S> {
    fn hash<H: Hasher>(&self, hasher: &mut H) {
        let xor = self.0.iter().fold(0u64, |xor, state| xor ^ FxBuildHasher.hash_one(state));
        hasher.write_u64(xor);
    }
}

impl<S: Debug> Debug for StateSet<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(&self.0).finish()
    }
}

impl<M: NondeterministicModel> SequentialModel for PowerSet<M> {
    type State = StateSet<M::State>;
    type Input = M::Input;
    type Output = M::Output;

    fn init(&self) -> Self::State {
        StateSet::of(self.0.init())
    }

    fn step(&self, state: &Self::State, input: &M::Input, output: &M::Output) -> Option<Self::State> {
        let next = StateSet::of(state.0.iter().flat_map(|state| self.0.step(state, input, output)));
        (!next.0.is_empty()).then_some(next)
    }

    fn step_pending(&self, state: &Self::State, input: &M::Input) -> Vec<Self::State> {
        let next = StateSet::of(state.0.iter().flat_map(|state| self.0.step_pending(state, input)));
        if next.0.is_empty() { Vec::new() } else { vec![next] }
    }

    fn partition(&self, input: &M::Input) -> impl Hash + Eq + Debug {
        self.0.partition(input)
    }

    fn partition_history(&self, history: &History<M::Input, M::Output>) -> Option<Vec<Vec<OpId>>> {
        self.0.partition_history(history)
    }

    fn state_heap_bytes(&self, state: &Self::State) -> usize {
        state.0.capacity() * size_of::<M::State>()
            + state.0.iter().map(super::heap::estimate_heap_bytes).sum::<usize>()
    }

    fn describe_state(&self, state: &Self::State) -> String {
        let members: Vec<String> = state.0.iter().map(|state| self.0.describe_state(state)).collect();
        format!("{{{}}}", members.join(", "))
    }

    fn describe(&self, input: &M::Input, output: Option<&M::Output>) -> String {
        self.0.describe(input, output)
    }
}
