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
    let before = history.happens_before();
    for (partition, threads) in partitions(model, history) {
        match Partition::new(model, history, threads, before.as_deref()).search(&mut allowance) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linearizability::Precedence;

    /// A counter whose `increment` returns the value before it.
    #[derive(Debug)]
    struct Counter;

    impl SequentialModel for Counter {
        type State = u32;
        type Input = ();
        type Output = u32;
        fn init(&self) -> u32 {
            0
        }
        fn step(&self, state: &u32, _: &(), seen: &u32) -> Option<u32> {
            (seen == state).then_some(state + 1)
        }
    }

    /// Thread 0's increment returned 1 "before" thread 1's returned 0, by the stamps.
    fn stale_by_the_clock() -> History<(), u32> {
        let mut history = History::new();
        history.complete(0, (), 1, 0, 1);
        history.complete(1, (), 0, 2, 3);
        history
    }

    #[test]
    fn happens_before_precedence_ignores_the_stamps_of_other_threads() {
        let mut history = stale_by_the_clock();
        assert!(!check(&Counter, &history, Budget::default()).unwrap().is_linearizable());
        history.set_precedence(Precedence::HappensBefore(Vec::new()));
        assert!(check(&Counter, &history, Budget::default()).unwrap().is_linearizable());
    }

    #[test]
    fn happens_before_edges_order_threads_transitively() {
        // 0: a ; 1: b (after a, by an edge) ; 2: c (after b, by an edge): c sees 0, so
        // it must be first, but a precedes it through b.
        let mut history = History::new();
        let a = history.complete(0, (), 1, 0, 1);
        let b = history.complete(1, (), 2, 0, 1);
        let c = history.complete(2, (), 0, 0, 1);
        history.set_precedence(Precedence::HappensBefore(vec![(a, b), (b, c)]));
        assert!(!check(&Counter, &history, Budget::default()).unwrap().is_linearizable());
        history.set_precedence(Precedence::HappensBefore(vec![(a, b)]));
        assert!(check(&Counter, &history, Budget::default()).unwrap().is_linearizable());
    }

    #[test]
    fn an_edge_from_a_pending_operation_is_malformed() {
        let mut history: History<(), u32> = History::new();
        let a = history.pending(0, (), 0);
        let b = history.complete(1, (), 0, 0, 1);
        history.set_precedence(Precedence::HappensBefore(vec![(a, b)]));
        assert_eq!(check(&Counter, &history, Budget::default()).unwrap_err(), HistoryError::BadEdge(a, b));
    }
}
