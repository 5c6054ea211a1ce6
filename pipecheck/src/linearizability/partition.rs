//! [`Part`]: one partition of a history (P-compositionality), renumbered for the
//! search: its operations, per thread in program order, with what the search asks of
//! each in constant time (its stamps, whether it must be placed, and under causal
//! precedence its predecessors and successors inside the partition).

use std::collections::HashMap;
use std::fmt::Debug;
use std::hash::Hash;

use rustc_hash::FxHashMap;

use super::history::{History, HistoryError, OpId, PendingPolicy, Precedence};
use super::model::SequentialModel;

/// An operation of a partition, as the search sees it.
#[derive(Clone, Copy, Debug)]
pub(super) struct LocalOp {
    /// Its index in the history.
    pub(super) id: OpId,
    /// Its thread, renumbered from 0 within the partition.
    pub(super) thread: u32,
    /// Its invocation stamp.
    pub(super) invoked: u64,
    /// Its response stamp, `u64::MAX` if pending.
    pub(super) responded: u64,
    /// Whether every linearization must place it (it returned).
    pub(super) required: bool,
    /// Whether it is pending, may have taken effect, and has no recorded output: the
    /// model alone says what it may have done.
    pub(super) unrecorded: bool,
}

/// Causal precedence inside a partition: each operation's nearest predecessors in the
/// partition (through any path of the whole history's order), as counts and
/// successor lists.
#[derive(Debug)]
pub(super) struct Causal {
    /// Per operation, how many partition operations precede it directly.
    pub(super) preds: Vec<u32>,
    /// Per operation, the partition operations it directly precedes.
    pub(super) succs: Vec<Vec<u32>>,
}

/// One partition, ready to search.
#[derive(Debug)]
pub(super) struct Part {
    /// The key's `Debug` form.
    pub(super) key: String,
    pub(super) ops: Vec<LocalOp>,
    /// Per thread, its operations (local indices) in program order.
    pub(super) threads: Vec<Vec<u32>>,
    /// `None` under real-time precedence.
    pub(super) causal: Option<Causal>,
}

/// Splits `history` by `model`'s partitions: its
/// [`partition_history`](SequentialModel::partition_history) groups, or else each
/// operation's [`partition`](SequentialModel::partition) key. Partitions come in the order
/// of their first operation, so their numbering does not depend on the keys' values;
/// operations that never took effect ([`PendingPolicy::NeverTookEffect`]) are left out.
///
/// # Errors
///
/// Groups of `partition_history` that repeat an operation, name one the history does not
/// have, or leave out one that may have taken effect.
pub(super) fn partitions<M: SequentialModel>(
    model: &M,
    history: &History<M::Input, M::Output>,
) -> Result<Vec<Part>, HistoryError> {
    partitions_in(model, history, &history.program_order())
}

/// [`partitions`], given the history's [`History::program_order`].
pub(super) fn partitions_in<M: SequentialModel>(
    model: &M,
    history: &History<M::Input, M::Output>,
    program_order: &[OpId],
) -> Result<Vec<Part>, HistoryError> {
    let (keys, membership) = match model.partition_history(history) {
        Some(groups) => group_membership(history, &groups)?,
        None => key_membership(model, history),
    };
    let count = keys.len();
    let mut sizes = vec![0; count];
    for &part in &membership {
        if let Some(size) = sizes.get_mut(part) {
            *size += 1;
        }
    }
    let mut per_part: Vec<Vec<OpId>> = sizes.into_iter().map(Vec::with_capacity).collect();
    // By thread, then program order: the list order is what `Part` renumbers.
    for &id in program_order {
        if let Some(list) = per_part.get_mut(membership[id.0]) {
            list.push(id);
        }
    }
    // Number partitions by their first operation in the history.
    let mut first: Vec<(usize, usize)> = per_part
        .iter()
        .enumerate()
        .map(|(part, ids)| (ids.iter().map(|id| id.0).min().unwrap_or(usize::MAX), part))
        .collect();
    first.sort_unstable();
    let successors = (history.precedence() == Precedence::Causal).then(|| history.successors());
    Ok(first
        .into_iter()
        .map(|(_, part)| Part::new(history, keys[part].clone(), &per_part[part], successors.as_deref()))
        .collect())
}

/// Whether `id` is left out of every partition: pending, and never took effect.
fn left_out<I, O>(history: &History<I, O>, id: OpId) -> bool {
    !history.get(id).is_complete() && history.pending_policy(id) == PendingPolicy::NeverTookEffect
}

/// Each operation's partition by its key (`usize::MAX`: left out), and the keys'
/// `Debug` forms by partition number.
fn key_membership<M: SequentialModel>(
    model: &M,
    history: &History<M::Input, M::Output>,
) -> (Vec<String>, Vec<usize>) {
    let mut index = FxHashMap::default();
    let mut keys = Vec::new();
    let mut membership = vec![usize::MAX; history.len()];
    // Partitions are numbered afterwards by their first operation: the order here
    // does not matter.
    for id in (0..history.len()).map(OpId) {
        if !left_out(history, id) {
            membership[id.0] = index_of(&mut index, &mut keys, model.partition(&history.get(id).input));
        }
    }
    (keys, membership)
}

/// Each operation's partition by the model's `groups` (keys `group 0`, `group 1`, …, as
/// the model listed them), checked to cover every operation that may have taken effect
/// exactly once.
fn group_membership<I, O>(
    history: &History<I, O>,
    groups: &[Vec<OpId>],
) -> Result<(Vec<String>, Vec<usize>), HistoryError> {
    let mut membership = vec![usize::MAX; history.len()];
    for (group, ids) in groups.iter().enumerate() {
        for &id in ids {
            let slot = membership.get_mut(id.0).ok_or(HistoryError::UnknownOperation(id))?;
            if *slot != usize::MAX {
                return Err(HistoryError::PartitionRepeats(id));
            }
            *slot = group;
        }
    }
    // Every operation that may have taken effect is in a group; one that never took
    // effect is left out even when a group lists it.
    for (at, slot) in membership.iter_mut().enumerate() {
        if left_out(history, OpId(at)) {
            *slot = usize::MAX;
        } else if *slot == usize::MAX {
            return Err(HistoryError::PartitionOmits(OpId(at)));
        }
    }
    Ok(((0..groups.len()).map(|group| format!("group {group}")).collect(), membership))
}

/// The number of `key`'s partition, a new one if it is new.
fn index_of<K: Hash + Eq + Debug>(index: &mut FxHashMap<K, usize>, keys: &mut Vec<String>, key: K) -> usize {
    let next = index.len();
    *index.entry(key).or_insert_with_key(|key| {
        keys.push(format!("{key:?}"));
        next
    })
}

impl Part {
    /// The partition of `ids` (grouped by thread, each in program order).
    fn new<I, O>(
        history: &History<I, O>,
        key: String,
        ids: &[OpId],
        successors: Option<&[Vec<OpId>]>,
    ) -> Part {
        let mut threads: Vec<Vec<u32>> = Vec::new();
        let mut ops = Vec::with_capacity(ids.len());
        let mut last_thread = None;
        for &id in ids {
            let op = history.get(id);
            // Each thread's operations are contiguous in `ids`.
            if last_thread != Some(op.thread) {
                last_thread = Some(op.thread);
                let run = ids[ops.len()..]
                    .iter()
                    .take_while(|&&next| history.get(next).thread == op.thread)
                    .count();
                threads.push(Vec::with_capacity(run));
            }
            let thread = threads.len() as u32 - 1;
            let at = ops.len() as u32;
            threads[thread as usize].push(at);
            ops.push(LocalOp {
                id,
                thread,
                invoked: op.invoked,
                responded: op.responded.unwrap_or(u64::MAX),
                required: op.is_complete(),
                unrecorded: op.output.is_none()
                    && history.pending_policy(id) == PendingPolicy::MayHaveTakenEffect,
            });
        }
        let causal = successors.map(|successors| {
            let local: HashMap<OpId, u32> =
                ops.iter().enumerate().map(|(at, op)| (op.id, at as u32)).collect();
            Causal::new(&ops, &local, successors)
        });
        Part { key, ops, threads, causal }
    }
}

impl Causal {
    /// The partition's order induced by the history's: for each operation, a search
    /// forward through non-partition operations to the first partition operations.
    fn new(ops: &[LocalOp], local: &HashMap<OpId, u32>, successors: &[Vec<OpId>]) -> Causal {
        let mut preds = vec![0u32; ops.len()];
        let mut succs = vec![Vec::new(); ops.len()];
        let mut seen = vec![usize::MAX; successors.len()];
        let mut stack = Vec::new();
        for (from, op) in ops.iter().enumerate() {
            stack.extend(successors[op.id.0].iter().copied());
            while let Some(next) = stack.pop() {
                if seen[next.0] == from {
                    continue;
                }
                seen[next.0] = from;
                match local.get(&next) {
                    Some(&to) => {
                        succs[from].push(to);
                        preds[to as usize] += 1;
                    }
                    None => stack.extend(successors[next.0].iter().copied()),
                }
            }
        }
        Causal { preds, succs }
    }
}
