//! [`check`]: splits a history by partition (P-compositionality) and searches each.

use std::collections::BTreeMap;
use std::time::Instant;

use super::history::{History, HistoryError, OpId};
use super::model::SequentialModel;
use super::outcome::{Budget, Linearization, NonLinearizable};
use super::search::{Allowance, Found, Partition};

/// Decides whether `history` is linearizable with respect to `model`, within `budget`.
///
/// Each partition (see [`SequentialModel::partition`]) is searched on its own, in
/// ascending key order; the first one that fails decides the verdict.
///
/// # Examples
///
/// ```
/// use pipecheck_properties::linearizability::{Budget, History, SequentialModel, check};
///
/// /// A counter whose `increment` returns the value before it.
/// #[derive(Debug)]
/// struct Counter;
/// impl SequentialModel for Counter {
///     type State = u32;
///     type Input = ();
///     type Output = u32;
///     fn init(&self) -> u32 { 0 }
///     fn step(&self, state: &u32, _: &(), seen: &u32) -> Option<u32> {
///         (seen == state).then_some(state + 1)
///     }
/// }
///
/// let mut history = History::new();
/// history.complete(0, (), 1, 0, 10); // overlaps the other thread's increment
/// history.complete(1, (), 0, 5, 15);
/// assert!(check(&Counter, &history, Budget::default()).unwrap().is_linearizable());
///
/// let mut history = History::new();
/// history.complete(0, (), 1, 0, 4); // returned before the other began: must be first
/// history.complete(1, (), 0, 5, 15);
/// assert!(!check(&Counter, &history, Budget::default()).unwrap().is_linearizable());
/// ```
///
/// # Errors
///
/// A [`HistoryError`] if the history is malformed (see [`History::validate`]).
pub fn check<M: SequentialModel>(
    model: &M,
    history: &History<M::Input, M::Output>,
    budget: Budget,
) -> Result<Linearization, HistoryError> {
    history.validate()?;
    let mut allowance = Allowance {
        states: 0,
        max_states: budget.max_states,
        deadline: budget.time.map(|time| Instant::now() + time),
    };
    let mut order = Vec::with_capacity(history.len());
    for (partition, threads) in partitions(model, history) {
        match Partition::new(model, history, threads).search(&mut allowance) {
            Found::Order(placed) => order.extend(placed),
            Found::Stuck { longest_prefix, unplaced } => {
                return Ok(Linearization::NonLinearizable(NonLinearizable {
                    partition,
                    longest_prefix,
                    unplaced,
                }));
            }
            Found::Exhausted(why) => return Ok(Linearization::Unknown { why, states: allowance.states }),
        }
    }
    Ok(Linearization::Linearizable(order))
}

/// The history's operations per partition key, then per thread in program order.
fn partitions<M: SequentialModel>(
    model: &M,
    history: &History<M::Input, M::Output>,
) -> BTreeMap<u64, Vec<Vec<OpId>>> {
    let mut keyed: BTreeMap<u64, BTreeMap<usize, Vec<OpId>>> = BTreeMap::new();
    for (_, ids) in history.by_thread() {
        for id in ids {
            let op = history.get(id);
            keyed.entry(model.partition(&op.input)).or_default().entry(op.thread).or_default().push(id);
        }
    }
    keyed.into_iter().map(|(key, threads)| (key, threads.into_values().collect())).collect()
}
