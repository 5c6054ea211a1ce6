//! [`SequentialModel`]: the sequential specification a concurrent history is checked
//! against.
//!
//! The shape is porcupine's (`Model{Init, Step, Partition}`): the checker asks the model
//! whether an operation, applied to a state, may return the output that was observed,
//! and if so in which state it leaves the object. A check rather than a computed output
//! admits nondeterministic specifications (a `try_lock` that may fail spuriously, a pool
//! that may hand out any free buffer).
//!
//! ## Blocking operations (the dual-data-structure rule)
//!
//! A blocking operation (a read that waits for bytes, a lock that waits for the holder,
//! a receive on an empty channel) is specified the way Scherer and Scott specify dual
//! data structures: its *request* is invoked, and its *follow-up* takes effect at one
//! point between invocation and response, **in a state where the operation is enabled**.
//! A model says "not enabled here" by returning `None` from [`SequentialModel::step`]
//! (a receive in the empty state): the checker then cannot place the operation there and
//! must place it later, after some other operation has enabled it, and before its own
//! response. An operation that is still waiting when the history ends is *pending*: it
//! either never took effect (always allowed: a waiting request changes nothing) or took
//! effect with an output nobody saw, as [`SequentialModel::step_pending`] allows.
//! Whether a waiter that stays pending *should* have been woken is a liveness question,
//! left to the `no-lost-wakeup` invariant.

use std::fmt::Debug;
use std::hash::Hash;

use super::history::{History, OpId};
use super::overlap::{Criterion, Relaxed};

/// A sequential specification: an initial state and a transition per operation.
///
/// # Examples
///
/// A register (porcupine's example model):
///
/// ```
/// use pipecheck::linearizability::SequentialModel;
///
/// #[derive(Debug)]
/// struct Register;
///
/// #[derive(Clone, Debug)]
/// enum RegisterOp { Write(u32), Read }
///
/// impl SequentialModel for Register {
///     type State = u32;
///     type Input = RegisterOp;
///     type Output = Option<u32>; // `Some(value)` for a read
///
///     fn init(&self) -> u32 { 0 }
///
///     fn step(&self, state: &u32, input: &RegisterOp, output: &Option<u32>) -> Option<u32> {
///         match input {
///             RegisterOp::Write(value) => Some(*value),
///             RegisterOp::Read => (*output == Some(*state)).then_some(*state),
///         }
///     }
/// }
///
/// assert_eq!(Register.step(&0, &RegisterOp::Write(7), &None), Some(7));
/// assert_eq!(Register.step(&7, &RegisterOp::Read, &Some(0)), None);
/// ```
///
/// # Implementer notes
///
/// * `step` must be a pure function of its arguments: the checker calls it many times,
///   in any order, on states it cached.
/// * `State`'s `Eq` and `Hash` define which states the memoization merges (Lowe's cache
///   of linearized set and state): two states that compare equal must behave the same
///   for every later operation.
/// * With a [`partition`](SequentialModel::partition), operations with different keys
///   must commute and be independent (P-compositionality: a history is linearizable iff
///   each sub-history is); each sub-history is checked from [`init`](SequentialModel::init).
/// * The model is `Sync`, its states `Send`, its inputs and outputs `Sync`: partitions
///   are searched on several threads at once.
pub trait SequentialModel: Sync {
    /// The object's abstract state.
    type State: Clone + Eq + Hash + Debug + Send;
    /// An operation with its arguments.
    type Input: Clone + Debug + Sync;
    /// What an operation returned.
    type Output: Clone + Debug + Sync;

    /// The state before any operation.
    fn init(&self) -> Self::State;

    /// The state after `input` returned `output` in `state`, or `None` if a sequential
    /// object in `state` could not have returned `output` (including: the operation is
    /// blocking and not enabled in `state`).
    fn step(&self, state: &Self::State, input: &Self::Input, output: &Self::Output) -> Option<Self::State>;

    /// The output a sequential object in `state` returns for `input`, when the model is
    /// deterministic there: failure messages show it next to what was observed (the
    /// default: not known, only the observed output and the state are shown; a
    /// [`DeterministicModel`](super::DeterministicModel) knows it).
    fn expected(&self, state: &Self::State, input: &Self::Input) -> Option<Self::Output> {
        let _ = (state, input);
        None
    }

    /// An answer `input` may give only while an operation that overlaps it is in
    /// flight, and the state it leaves: `overlapping` holds the inputs of the operations
    /// placed before it in the linearization that had not returned when it was invoked
    /// (under causal precedence: that do not happen before it). Called only when
    /// [`step`](SequentialModel::step) refused `output`, and accepted only under
    /// [`Criterion::PendingAware`]; a strict check that fails names the relaxed answers
    /// that would explain the history. The default: none (see
    /// [`overlap`](super::PendingAware) for the criterion and a queue's example).
    ///
    /// Like `step`, a pure function of its arguments.
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

    /// Which answers a check of this model accepts: [`Criterion::Strict`]
    /// (linearizability, the default) or [`Criterion::PendingAware`] (with
    /// [`step_while_overlapped`](SequentialModel::step_while_overlapped)'s answers; wrap
    /// the model in [`PendingAware`](super::PendingAware) rather than overriding this).
    fn criterion(&self) -> Criterion {
        Criterion::Strict
    }

    /// The states a *pending* operation (invoked, never returned) may leave if it took
    /// effect with an output nobody observed. Not taking effect is always considered.
    /// The default is the state the [`expected`](SequentialModel::expected) output
    /// leads to, when the model knows it (a deterministic model), and no state
    /// otherwise. A model whose operations have several possible outputs overrides
    /// it (with every state any output leads to), and a blocking operation that is
    /// not enabled in `state` leaves none.
    ///
    /// A pending operation marked [`PendingPolicy::MayHaveTakenEffect`](super::PendingPolicy)
    /// without a recorded output, for which neither this nor `expected` gives anything
    /// in some state the search tried, cannot make a history non-linearizable: a check
    /// that fails with one answers [`Exhausted::PendingEffectUnknown`](super::Exhausted)
    /// instead.
    fn step_pending(&self, state: &Self::State, input: &Self::Input) -> Vec<Self::State> {
        self.expected(state, input).and_then(|output| self.step(state, input, &output)).into_iter().collect()
    }

    /// The P-compositionality key of an operation: operations with different keys act
    /// on independent parts of the object (e.g. keys of a map), so each key's
    /// sub-history is checked on its own, concurrently with the others. Any `Hash + Eq`
    /// value serves (a `String` key of a store, a `u64`, a tuple); the default puts
    /// everything in one partition.
    fn partition(&self, input: &Self::Input) -> impl Hash + Eq + Debug {
        let _ = input;
    }

    /// The history's partitions, for objects whose independent parts an operation's
    /// input alone does not name (porcupine's `Partition`): each group, a list of
    /// operations checked on its own, concurrently with the others. Every operation that
    /// may have taken effect must be in exactly one group (operations that never took
    /// effect may be left out), or the check refuses the history
    /// ([`HistoryError::PartitionRepeats`](super::HistoryError::PartitionRepeats),
    /// [`HistoryError::PartitionOmits`](super::HistoryError::PartitionOmits)): an
    /// operation left unchecked would make "linearizable" claim more than was checked.
    /// The default, `None`, splits by [`partition`](SequentialModel::partition).
    fn partition_history(&self, history: &History<Self::Input, Self::Output>) -> Option<Vec<Vec<OpId>>> {
        let _ = history;
        None
    }

    /// The heap memory a state owns beyond its own size (a `String`'s capacity, a
    /// `Vec`'s buffer, a `BTreeMap`'s nodes), counted against
    /// [`Budget::max_bytes`](super::Budget::max_bytes) for every state the search
    /// caches (it is asked once per new state). The default,
    /// [`estimate_heap_bytes`](super::estimate_heap_bytes), estimates it from what the
    /// state hashes (0 for states that hold no container) and errs high; a model that
    /// knows better (e.g. `state.capacity()` for a `String`) says so.
    fn state_heap_bytes(&self, state: &Self::State) -> usize {
        super::heap::estimate_heap_bytes(state)
    }

    /// A short text for a state, for the picture's "state before / after" of each
    /// linearized operation (porcupine's `DescribeState`); the default is its `Debug`
    /// form.
    fn describe_state(&self, state: &Self::State) -> String {
        format!("{state:?}")
    }

    /// A short text for an operation and its result, for the failure's timeline; the
    /// default is the `Debug` forms.
    fn describe(&self, input: &Self::Input, output: Option<&Self::Output>) -> String {
        debug_description(input, output)
    }
}

/// An operation and its result in their `Debug` forms (`describe`'s default).
pub(super) fn debug_description(input: &impl Debug, output: Option<&impl Debug>) -> String {
    match output {
        Some(output) => format!("{input:?} -> {output:?}"),
        None => format!("{input:?} -> (pending)"),
    }
}
