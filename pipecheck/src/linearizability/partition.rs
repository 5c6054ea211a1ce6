//! [`Part`]: one partition of a history (P-compositionality), renumbered for the
//! search: its operations, per thread in program order, with what the search asks of
//! each in constant time (its stamps, whether it must be placed, and under causal
//! precedence its predecessors and successors inside the partition).

use std::collections::HashMap;
use std::fmt::Debug;
use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

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
    /// Its operations, by thread and each thread's in program order: thread `t`'s are
    /// the local indices [`Part::thread`]`(t)`.
    pub(super) ops: Vec<LocalOp>,
    /// Where each thread's operations begin in `ops`, and then their end (one list, not
    /// one per thread: a small check would spend more on allocating than searching).
    thread_starts: Vec<u32>,
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
    let successors = (history.precedence() == Precedence::Causal).then(|| history.successors());
    if keys.len() == 1 {
        // One partition (a model without keys): the program order, without what is left
        // out, and no list per partition to build.
        let key = keys.into_iter().next().unwrap_or_default();
        let part = if membership.iter().all(|&part| part == 0) {
            Part::new(history, key, program_order, successors.as_deref())
        } else {
            let ids: Vec<OpId> = program_order.iter().copied().filter(|id| membership[id.0] == 0).collect();
            Part::new(history, key, &ids, successors.as_deref())
        };
        return Ok(vec![part]);
    }
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
    // Each partition's key, and a table of their indices by hash (the keys are not
    // `Clone`: only this list owns them).
    let mut keys = Vec::new();
    let mut table: HashTable<usize> = HashTable::new();
    let mut membership = vec![usize::MAX; history.len()];
    // Successive operations often share a key (always, for a model without keys), and
    // comparing with the last one costs less than hashing.
    let mut last = usize::MAX;
    // Partitions are numbered afterwards by their first operation: the order here
    // does not matter.
    for id in (0..history.len()).map(OpId) {
        if left_out(history, id) {
            continue;
        }
        let key = model.partition(&history.get(id).input);
        if keys.get(last) != Some(&key) {
            let hash = FxBuildHasher.hash_one(&key);
            last = match table.find(hash, |&at| keys[at] == key) {
                Some(&at) => at,
                None => {
                    table.insert_unique(hash, keys.len(), |&at| FxBuildHasher.hash_one(&keys[at]));
                    keys.push(key);
                    keys.len() - 1
                }
            };
        }
        membership[id.0] = last;
    }
    (keys.iter().map(|key| format!("{key:?}")).collect(), membership)
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

impl Part {
    /// The partition of `ids` (grouped by thread, each in program order).
    fn new<I, O>(
        history: &History<I, O>,
        key: String,
        ids: &[OpId],
        successors: Option<&[Vec<OpId>]>,
    ) -> Part {
        let mut thread_starts = vec![];
        let mut ops = Vec::with_capacity(ids.len());
        let mut last_thread = None;
        for &id in ids {
            let op = history.get(id);
            // Each thread's operations are contiguous in `ids`.
            if last_thread != Some(op.thread) {
                last_thread = Some(op.thread);
                thread_starts.push(ops.len() as u32);
            }
            let thread = thread_starts.len() as u32 - 1;
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
        thread_starts.push(ops.len() as u32);
        Part { key, ops, thread_starts, causal }
    }

    /// The number of threads.
    pub(super) fn threads(&self) -> usize {
        self.thread_starts.len() - 1
    }

    /// The operations of thread `thread`, in program order.
    pub(super) fn thread(&self, thread: usize) -> std::ops::Range<u32> {
        self.thread_starts[thread]..self.thread_starts[thread + 1]
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
