//! [`check`] and [`check_report`]: split a history by partition (P-compositionality)
//! and search the partitions in turns, concurrently.
//!
//! Partitions take turns of growing quotas (4 096 states, then 4× more each round), so
//! a partition that fails quickly is found even beside one whose search explodes: a
//! definite failure anywhere wins over running out of budget elsewhere, and which
//! partitions are searched does not depend on how their keys are numbered. Within a
//! later round, up to [`Budget::threads`] partitions run at once (`std::thread::scope`;
//! the first round runs on the caller's thread, as it is too short to pay for threads),
//! and the first failure stops the others. Searches pause and resume, so no work is redone.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use super::allowance::{Allowance, Pool};
use super::history::{History, HistoryError, OpId};
use super::model::SequentialModel;
use super::outcome::{Budget, Exhausted, Linearization, NonLinearizable};
use super::overlap::Criterion;
use super::partition::partitions_in;
use super::search::{Search, Step};
use super::stats::{CheckReport, PartitionStats, PartitionVerdict};

/// The first round's quota of states per partition.
const FIRST_QUOTA: u64 = 4096;

/// Decides whether `history` is linearizable with respect to `model`, within `budget`.
///
/// Each partition (see [`SequentialModel::partition`]) is searched on its own; a
/// failure in any of them decides the verdict. See [`check_report`] for the
/// statistics and the failure's dead ends.
///
/// # Examples
///
/// ```
/// use pipecheck::linearizability::{Budget, History, SequentialModel, check};
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
    // Without the dead ends, which only the picture draws: a small check is mostly setup.
    check_report_as(model, history, budget, model.criterion(), false).map(|report| report.verdict)
}

/// [`check`], with statistics (states explored, cache hits, time per partition) and,
/// for a failure, the dead ends of its partition (what
/// the HTML picture draws).
///
/// # Errors
///
/// A [`HistoryError`] if the history is malformed (see [`History::validate`]).
pub fn check_report<M: SequentialModel>(
    model: &M,
    history: &History<M::Input, M::Output>,
    budget: Budget,
) -> Result<CheckReport, HistoryError> {
    check_report_as(model, history, budget, model.criterion(), true)
}

/// [`check_report`] under `criterion`, whatever the model's; a failure's dead ends are
/// recorded only if `dead_ends`.
pub(super) fn check_report_as<M: SequentialModel>(
    model: &M,
    history: &History<M::Input, M::Output>,
    budget: Budget,
    criterion: Criterion,
    dead_ends: bool,
) -> Result<CheckReport, HistoryError> {
    let program_order = history.program_order();
    history.validate_in(&program_order)?;
    let started = Instant::now();
    let pool = Pool::new(&budget);
    let searches: Vec<Mutex<Search<'_, M>>> = partitions_in(model, history, &program_order)?
        .into_iter()
        .map(|part| Mutex::new(Search::new(model, history, part, criterion, dead_ends)))
        .collect();
    let mut verdicts = vec![PartitionVerdict::Undecided; searches.len()];
    let mut orders: Vec<Vec<OpId>> = vec![Vec::new(); searches.len()];
    let mut relaxed = Vec::new();
    // Small partitions first: they decide quickly and a failure ends the check.
    let mut undecided: Vec<usize> = (0..searches.len()).collect();
    undecided.sort_by_key(|&at| (lock(&searches[at]).part.ops.len(), at));
    let workers = budget
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |cores| cores.get()))
        .max(1);
    let mut quota = if undecided.len() == 1 { u64::MAX } else { FIRST_QUOTA };
    let mut failed: Option<usize> = None;
    let mut exhausted: Option<Exhausted> = None;
    let mut peak_bytes = 0;
    let mut first_round = true;
    while !undecided.is_empty() {
        // The first round is short: threads would cost more than they save.
        let threads = if first_round { 1 } else { workers };
        first_round = false;
        let steps = round(&searches, &undecided, &pool, quota, threads);
        peak_bytes = peak_bytes.max(pool.bytes_in_use());
        for (at, step) in undecided.iter().copied().zip(steps) {
            match step {
                Step::Linearizable(order) => {
                    verdicts[at] = PartitionVerdict::Linearizable;
                    orders[at] = order;
                    let mut search = lock(&searches[at]);
                    relaxed.extend(search.relaxed_answers());
                    pool.release_bytes(search.release());
                }
                Step::NonLinearizable => {
                    verdicts[at] = PartitionVerdict::NonLinearizable;
                    // Several failing in one round: the first partition reports.
                    failed = Some(failed.map_or(at, |first| first.min(at)));
                }
                Step::Exhausted(why) => exhausted = exhausted.or(Some(why)),
                Step::Paused => {}
            }
        }
        if failed.is_some() || exhausted.is_some() {
            break;
        }
        undecided.retain(|&at| verdicts[at] == PartitionVerdict::Undecided);
        quota = quota.saturating_mul(4);
    }
    let partitions = searches
        .iter()
        .zip(&verdicts)
        .map(|(search, &verdict)| {
            let search = lock(search);
            PartitionStats {
                key: search.part.key.clone(),
                ops: search.part.ops.len(),
                states: search.states(),
                cache_hits: search.cache_hits(),
                elapsed: search.elapsed,
                verdict,
            }
        })
        .collect::<Vec<_>>();
    let (verdict, dead_ends) = match (failed, exhausted) {
        (Some(at), _) if lock(&searches[at]).undescribed => (
            Linearization::Unknown {
                why: Exhausted::PendingEffectUnknown,
                states: partitions.iter().map(|part| part.states).sum(),
            },
            Vec::new(),
        ),
        (Some(at), _) => {
            let search = lock(&searches[at]);
            let failure = NonLinearizable {
                partition: at,
                key: search.part.key.clone(),
                longest_prefix: search.longest_prefix(),
                unplaced: search.unplaced(),
            };
            (Linearization::NonLinearizable(failure), search.dead_ends())
        }
        (None, Some(why)) => (
            Linearization::Unknown { why, states: partitions.iter().map(|part| part.states).sum() },
            Vec::new(),
        ),
        (None, None) => (Linearization::Linearizable(orders.concat()), Vec::new()),
    };
    for search in &searches {
        lock(search).release();
    }
    relaxed.sort_by_key(|answer: &super::overlap::RelaxedAnswer| answer.op);
    Ok(CheckReport { verdict, partitions, elapsed: started.elapsed(), peak_bytes, dead_ends, relaxed })
}

/// One turn of each `undecided` search with `quota` states, on up to `workers`
/// threads; their steps, in `undecided`'s order.
fn round<M: SequentialModel>(
    searches: &[Mutex<Search<'_, M>>],
    undecided: &[usize],
    pool: &Pool,
    quota: u64,
    workers: usize,
) -> Vec<Step> {
    let turn = |at: usize| {
        let mut allowance = Allowance::new(pool, quota);
        let step = lock(&searches[at]).run(&mut allowance);
        if matches!(step, Step::NonLinearizable | Step::Exhausted(_)) {
            pool.stop();
        }
        step
    };
    let workers = workers.min(undecided.len());
    if workers <= 1 {
        // One partition (the common case for a model without keys): no thread.
        return undecided.iter().map(|&at| if pool.stopped() { Step::Paused } else { turn(at) }).collect();
    }
    let next = AtomicUsize::new(0);
    let steps: Vec<Mutex<Option<Step>>> = undecided.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&at) = undecided.get(index) else { break };
                    let step = if pool.stopped() { Step::Paused } else { turn(at) };
                    *lock(&steps[index]) = Some(step);
                }
            });
        }
    });
    steps
        .into_iter()
        .map(|step| step.into_inner().unwrap_or_else(|e| e.into_inner()).unwrap_or(Step::Paused))
        .collect()
}

/// Locks `mutex`, ignoring poisoning (a panicking model step is re-raised by the scope).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod weak_memory_tests {
    use super::*;

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

    /// Thread 0's increment returned 1 "before" thread 1's returned 0, by the stamps of a
    /// relaxed clock: under C11 nothing orders them, so causal precedence accepts it.
    #[test]
    fn causal_precedence_ignores_the_stamps_of_other_threads() {
        let (mut real_time, mut causal) = (History::new(), History::causal());
        for history in [&mut real_time, &mut causal] {
            history.complete(0, (), 1, 0, 1);
            history.complete(1, (), 0, 2, 3);
        }
        assert!(!check(&Counter, &real_time, Budget::default()).unwrap().is_linearizable());
        assert!(check(&Counter, &causal, Budget::default()).unwrap().is_linearizable());
    }

    #[test]
    fn causal_edges_order_threads_transitively() {
        // 0: a ; 1: b (after a) ; 2: c (after b): c saw 0, so it must come first, but a
        // precedes it through b.
        let build = |edges: &[(usize, usize)]| {
            let mut history = History::causal();
            let ids: Vec<_> = [1, 2, 0]
                .into_iter()
                .enumerate()
                .map(|(t, seen)| history.complete(t, (), seen, 0, 1))
                .collect();
            edges.iter().for_each(|&(a, b)| history.order(ids[a], ids[b]));
            history
        };
        assert!(!check(&Counter, &build(&[(0, 1), (1, 2)]), Budget::default()).unwrap().is_linearizable());
        assert!(check(&Counter, &build(&[(0, 1)]), Budget::default()).unwrap().is_linearizable());
    }
}
