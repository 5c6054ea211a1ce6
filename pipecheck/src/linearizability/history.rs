//! [`History`]: the operations of a concurrent run, each with its thread, arguments,
//! result, and invocation and response times.
//!
//! Precedence, the order a linearization must respect, comes in two kinds
//! ([`Precedence`]):
//!
//! * **Real time** (the default): times are stamps of one clock shared by the threads
//!   (the [`Recorder`](super::Recorder)'s counter, a foreign log's line numbers, or
//!   hand-written numbers in tests): an operation *precedes* another when its response
//!   stamp is smaller than the other's invocation stamp; otherwise the two overlap and
//!   may linearize in either order.
//! * **Causal**: under a weak memory model (C11, as loom explores it) a relaxed clock's
//!   order is not real time, so precedence is given explicitly: each thread's program
//!   order (the order its operations were added) plus edges "`a` happens before `b`"
//!   ([`History::order`]: spawn and join, lock hand-overs), taken transitively. Stamps
//!   are then only drawn, never used. Such an order is any DAG, not an interval order.
//!
//! A thread runs one operation at a time, so its operations are totally ordered, and
//! only its last one may be pending (invoked, never returned); what a pending operation
//! may have done is its [`PendingPolicy`].

use std::fmt;

use super::annotations::Notes;

/// The index of an operation in its [`History`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpId(pub usize);

impl fmt::Display for OpId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// One operation of a history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operation<I, O> {
    /// The thread that ran it (any small number; threads need not be contiguous).
    pub thread: usize,
    /// The operation and its arguments.
    pub input: I,
    /// What it returned; `None` while pending.
    pub output: Option<O>,
    /// Clock stamp of the invocation.
    pub invoked: u64,
    /// Clock stamp of the response; `None` while pending.
    pub responded: Option<u64>,
}

impl<I, O> Operation<I, O> {
    /// Whether the operation returned.
    pub fn is_complete(&self) -> bool {
        self.responded.is_some()
    }

    /// Whether `self` returned before `other` was invoked (real-time order).
    pub fn precedes(&self, other: &Operation<I, O>) -> bool {
        self.responded.is_some_and(|responded| responded < other.invoked)
    }
}

/// A malformed history: what the checker refuses to decide.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HistoryError {
    /// An operation's response is stamped before its invocation.
    ResponseBeforeInvocation(OpId),
    /// Two operations of one thread overlap, or are listed out of order.
    ThreadOverlap {
        /// The thread.
        thread: usize,
        /// The earlier-listed operation.
        first: OpId,
        /// The operation that overlaps it.
        second: OpId,
    },
    /// A pending operation is followed by another operation of its thread.
    PendingNotLast(OpId),
    /// An explicit order names an operation the history does not have.
    UnknownOperation(OpId),
    /// The explicit orders and program order form a cycle through this operation.
    Cycle(OpId),
    /// An explicit order puts a pending operation before another: an operation that
    /// never returned cannot happen before anything.
    PendingOrderedBefore(OpId),
    /// The model's [`partition_history`](super::SequentialModel::partition_history)
    /// puts this operation in two groups (or twice in one).
    PartitionRepeats(OpId),
    /// The model's [`partition_history`](super::SequentialModel::partition_history)
    /// leaves out this operation, which may have taken effect.
    PartitionOmits(OpId),
}

impl fmt::Display for HistoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HistoryError::ResponseBeforeInvocation(op) => {
                write!(f, "operation {op} responded before it was invoked")
            }
            HistoryError::ThreadOverlap { thread, first, second } => {
                write!(f, "thread {thread}: operation {second} was invoked before {first} returned")
            }
            HistoryError::PendingNotLast(op) => write!(f, "pending operation {op} is not its thread's last"),
            HistoryError::UnknownOperation(op) => {
                write!(f, "an order names {op}, which is not in the history")
            }
            HistoryError::Cycle(op) => write!(f, "the happens-before order has a cycle through {op}"),
            HistoryError::PendingOrderedBefore(op) => {
                write!(f, "pending operation {op} is ordered before another operation")
            }
            HistoryError::PartitionRepeats(op) => {
                write!(f, "the model's partition_history puts operation {op} in more than one group")
            }
            HistoryError::PartitionOmits(op) => {
                write!(
                    f,
                    "the model's partition_history leaves out operation {op}, which may have taken effect"
                )
            }
        }
    }
}

impl std::error::Error for HistoryError {}

/// The operations of a concurrent run.
///
/// # Examples
///
/// ```
/// use pipecheck::linearizability::History;
///
/// let mut history: History<&str, u32> = History::new();
/// let write = history.complete(0, "write 1", 0, 0, 10);
/// let read = history.pending(1, "read", 5);
/// assert!(history.validate().is_ok());
/// assert!(!history.get(write).precedes(history.get(read)));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct History<I, O> {
    ops: Vec<Operation<I, O>>,
    /// Per operation; only pending operations read theirs.
    pending: Vec<PendingPolicy>,
    precedence: Precedence,
    /// Explicit happens-before edges (causal precedence only).
    edges: Vec<(OpId, OpId)>,
    /// What the picture shows besides the operations.
    pub(super) notes: Notes,
}

impl<I, O> Default for History<I, O> {
    fn default() -> Self {
        History {
            ops: Vec::new(),
            pending: Vec::new(),
            precedence: Precedence::RealTime,
            edges: Vec::new(),
            notes: Notes::default(),
        }
    }
}

/// Where a history's precedence (the order every linearization respects) comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Precedence {
    /// From the stamps: `a` precedes `b` when `a` responded before `b` was invoked.
    RealTime,
    /// From program order plus the explicit [`History::order`] edges, transitively;
    /// stamps are ignored.
    Causal,
}

/// What a pending operation (invoked, never returned) may have done.
///
/// # Examples
///
/// Jepsen marks a write whose outcome the client never learned (a timeout) `:info`: it
/// may or may not have taken effect, at any time after its invocation. In porcupine's
/// etcd histories, reading such a write's value later is correct, and so is never
/// seeing it; 20 of the 23 linearizable histories need this, and are refused when the
/// write is assumed never to have happened:
///
/// ```
/// use pipecheck::linearizability::{History, PendingPolicy};
///
/// let mut history: History<&str, &str> = History::new();
/// let write = history.indeterminate(0, "write 3", "ok", 0);
/// assert_eq!(history.pending_policy(write), PendingPolicy::MayHaveTakenEffect);
/// history.set_pending_policy(write, PendingPolicy::NeverTookEffect);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PendingPolicy {
    /// As the model says: never took effect, or took effect leaving one of
    /// [`SequentialModel::step_pending`](super::SequentialModel::step_pending)'s states
    /// (by default none: a waiting request changes nothing).
    #[default]
    Model,
    /// Never took effect: the checker leaves it out.
    NeverTookEffect,
    /// May or may not have taken effect, at any point after its invocation (Jepsen's
    /// `:info`). If it did, it returned the output recorded with it
    /// ([`History::indeterminate`]; for a write, its acknowledgement), checked by
    /// [`SequentialModel::step`](super::SequentialModel::step); without a recorded
    /// output, leaving one of
    /// [`SequentialModel::step_pending`](super::SequentialModel::step_pending)'s states,
    /// and if the model gives none there and no
    /// [`expected`](super::SequentialModel::expected) output either, a failing check
    /// answers unknown rather than blaming the history.
    MayHaveTakenEffect,
}

impl<I, O> History<I, O> {
    /// An empty history with real-time precedence (from stamps).
    pub fn new() -> History<I, O> {
        History::default()
    }

    /// An empty history with causal precedence: program order plus the edges added by
    /// [`History::order`]; stamps are only drawn.
    ///
    /// # Examples
    ///
    /// Two threads of two operations each, fully concurrent but for one hand-over:
    ///
    /// ```
    /// use pipecheck::linearizability::{History, Precedence};
    ///
    /// let mut history: History<&str, u32> = History::causal();
    /// let a1 = history.complete(0, "a1", 0, 0, 0);
    /// let _a2 = history.complete(0, "a2", 0, 0, 0);
    /// let _b1 = history.complete(1, "b1", 0, 0, 0);
    /// let b2 = history.complete(1, "b2", 0, 0, 0);
    /// history.order(a1, b2);
    /// assert_eq!(history.precedence(), Precedence::Causal);
    /// assert!(history.validate().is_ok());
    /// ```
    pub fn causal() -> History<I, O> {
        History { precedence: Precedence::Causal, ..History::default() }
    }

    /// Where precedence comes from.
    pub fn precedence(&self) -> Precedence {
        self.precedence
    }

    /// Records that `before` happens before `after` (causal precedence; a real-time
    /// history ignores it).
    pub fn order(&mut self, before: OpId, after: OpId) {
        self.edges.push((before, after));
    }

    /// The explicit happens-before edges.
    pub fn edges(&self) -> &[(OpId, OpId)] {
        &self.edges
    }

    /// The history of `ops` (porcupine's `CheckOperations` shape: each operation with
    /// its call and return stamps), numbered in the order given. Intervals are closed,
    /// as porcupine's: an operation returned at 20 and one called at 20 overlap. An
    /// operation without a response is pending and may have taken effect at any time
    /// after its call, as in [`History::from_events`].
    ///
    /// # Examples
    ///
    /// ```
    /// use pipecheck::linearizability::{History, OpId, Operation};
    ///
    /// let history = History::from_operations([
    ///     Operation { thread: 0, input: "write 1", output: Some(0), invoked: 0, responded: Some(20) },
    ///     Operation { thread: 1, input: "read", output: Some(1), invoked: 20, responded: Some(30) },
    /// ]);
    /// assert!(!history.get(OpId(0)).precedes(history.get(OpId(1))));
    /// ```
    pub fn from_operations(ops: impl IntoIterator<Item = Operation<I, O>>) -> History<I, O> {
        let mut history = History::new();
        for op in ops {
            let pending = !op.is_complete();
            let id = history.push(op);
            if pending {
                history.set_pending_policy(id, PendingPolicy::MayHaveTakenEffect);
            }
        }
        history
    }

    /// Adds an operation as it is.
    pub fn push(&mut self, op: Operation<I, O>) -> OpId {
        self.ops.push(op);
        self.pending.push(PendingPolicy::Model);
        OpId(self.ops.len() - 1)
    }

    /// Adds an operation whose outcome is unknown (Jepsen's `:info`): it may or may not
    /// have taken effect, after `invoked`, returning `output` if it did.
    pub fn indeterminate(&mut self, thread: usize, input: I, output: O, invoked: u64) -> OpId {
        let id = self.push(Operation { thread, input, output: Some(output), invoked, responded: None });
        self.pending[id.0] = PendingPolicy::MayHaveTakenEffect;
        id
    }

    /// What the pending operation `id` may have done.
    ///
    /// # Panics
    ///
    /// If `id` is not an operation of this history.
    pub fn pending_policy(&self, id: OpId) -> PendingPolicy {
        self.pending[id.0]
    }

    /// Sets what the pending operation `id` may have done (ignored if it returned).
    ///
    /// # Panics
    ///
    /// If `id` is not an operation of this history.
    pub fn set_pending_policy(&mut self, id: OpId, policy: PendingPolicy) {
        self.pending[id.0] = policy;
    }

    /// Adds an operation that returned `output`.
    pub fn complete(&mut self, thread: usize, input: I, output: O, invoked: u64, responded: u64) -> OpId {
        self.push(Operation { thread, input, output: Some(output), invoked, responded: Some(responded) })
    }

    /// Adds an operation that never returned.
    pub fn pending(&mut self, thread: usize, input: I, invoked: u64) -> OpId {
        self.push(Operation { thread, input, output: None, invoked, responded: None })
    }

    /// The operation `id`.
    ///
    /// # Panics
    ///
    /// If `id` is not an operation of this history.
    pub fn get(&self, id: OpId) -> &Operation<I, O> {
        &self.ops[id.0]
    }

    /// The operation `id`, to fill in its response.
    pub(crate) fn op_mut(&mut self, id: OpId) -> &mut Operation<I, O> {
        &mut self.ops[id.0]
    }

    /// Every operation, in the order they were added.
    pub fn ops(&self) -> &[Operation<I, O>] {
        &self.ops
    }

    /// The number of operations.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Whether there are no operations.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// The operations of each thread in program order (by invocation; under causal
    /// precedence, the order they were added), threads in ascending order.
    pub fn by_thread(&self) -> Vec<(usize, Vec<OpId>)> {
        let order = self.program_order();
        order
            .chunk_by(|a, b| self.ops[a.0].thread == self.ops[b.0].thread)
            .map(|ids| (self.ops[ids[0].0].thread, ids.to_vec()))
            .collect()
    }

    /// Every operation, by thread (ascending) and then in program order: the
    /// concatenation of [`History::by_thread`]'s lists, in one allocation.
    pub(super) fn program_order(&self) -> Vec<OpId> {
        let by_invocation = self.precedence == Precedence::RealTime;
        let stamp = |op: &Operation<I, O>| if by_invocation { op.invoked } else { 0 };
        // Thread numbers that span few values (the usual case): a counting sort by thread
        // keeps each thread's operations in the order they were added, which is already
        // their program order unless they were added out of invocation order.
        let threads = self.ops.iter().map(|op| op.thread).max().map_or(0, |high| high.saturating_add(1));
        if threads <= 4 * self.ops.len() + 64 {
            let mut starts = vec![0usize; threads + 1];
            for op in &self.ops {
                starts[op.thread + 1] += 1;
            }
            for thread in 1..starts.len() {
                starts[thread] += starts[thread - 1];
            }
            let mut order = vec![OpId(0); self.ops.len()];
            for (index, op) in self.ops.iter().enumerate() {
                order[starts[op.thread]] = OpId(index);
                starts[op.thread] += 1;
            }
            for run in order.chunk_by_mut(|a, b| self.ops[a.0].thread == self.ops[b.0].thread) {
                // Stable: operations invoked at the same stamp stay in the order added.
                if !run.is_sorted_by_key(|id| stamp(&self.ops[id.0])) {
                    run.sort_by_key(|id| stamp(&self.ops[id.0]));
                }
            }
            return order;
        }
        // Keys computed once: sorting them is several times faster than looking them up,
        // and packed in one word when they fit (small threads, stamps and histories).
        let fits =
            self.ops.len() < 1 << 16 && self.ops.iter().all(|op| op.thread < 1 << 16 && stamp(op) < 1 << 32);
        if fits {
            let mut keys: Vec<u64> = (self.ops.iter().enumerate())
                .map(|(index, op)| (op.thread as u64) << 48 | stamp(op) << 16 | index as u64)
                .collect();
            keys.sort_unstable();
            return keys.into_iter().map(|key| OpId((key & 0xffff) as usize)).collect();
        }
        let mut keys: Vec<(usize, u64, usize)> =
            (self.ops.iter().enumerate()).map(|(index, op)| (op.thread, stamp(op), index)).collect();
        keys.sort_unstable();
        keys.into_iter().map(|(_, _, index)| OpId(index)).collect()
    }

    /// Checks the history is well formed: responses after invocations, each thread's
    /// operations one after another, a pending operation last in its thread.
    ///
    /// # Errors
    ///
    /// The first [`HistoryError`] found.
    pub fn validate(&self) -> Result<(), HistoryError> {
        self.validate_in(&self.program_order())
    }

    /// [`History::validate`], given the [`History::program_order`].
    pub(super) fn validate_in(&self, program_order: &[OpId]) -> Result<(), HistoryError> {
        if self.precedence == Precedence::Causal {
            return self.validate_causal();
        }
        for (index, op) in self.ops.iter().enumerate() {
            if op.responded.is_some_and(|responded| responded < op.invoked) {
                return Err(HistoryError::ResponseBeforeInvocation(OpId(index)));
            }
        }
        for pair in program_order.windows(2) {
            let (first, second) = (&self.ops[pair[0].0], &self.ops[pair[1].0]);
            if first.thread != second.thread {
                continue;
            }
            match first.responded {
                None => return Err(HistoryError::PendingNotLast(pair[0])),
                Some(responded) if responded >= second.invoked => {
                    return Err(HistoryError::ThreadOverlap {
                        thread: first.thread,
                        first: pair[0],
                        second: pair[1],
                    });
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// The causal checks: pending operations last in their thread and before nothing,
    /// edges between known operations, and no cycle.
    fn validate_causal(&self) -> Result<(), HistoryError> {
        let threads = self.by_thread();
        for (_, ids) in &threads {
            if let Some(pending) = ids.iter().rev().skip(1).find(|id| !self.ops[id.0].is_complete()) {
                return Err(HistoryError::PendingNotLast(*pending));
            }
        }
        for &(before, after) in &self.edges {
            for id in [before, after] {
                if id.0 >= self.ops.len() {
                    return Err(HistoryError::UnknownOperation(id));
                }
            }
            if !self.ops[before.0].is_complete() {
                return Err(HistoryError::PendingOrderedBefore(before));
            }
        }
        // Kahn's algorithm: whatever is never freed lies on a cycle.
        let successors = self.successors();
        let mut preds = vec![0usize; self.ops.len()];
        for next in successors.iter().flatten() {
            preds[next.0] += 1;
        }
        let mut ready: Vec<usize> = (0..self.ops.len()).filter(|op| preds[*op] == 0).collect();
        let mut freed = 0;
        while let Some(op) = ready.pop() {
            freed += 1;
            for next in &successors[op] {
                preds[next.0] -= 1;
                if preds[next.0] == 0 {
                    ready.push(next.0);
                }
            }
        }
        match (0..self.ops.len()).find(|op| preds[*op] > 0) {
            Some(op) if freed < self.ops.len() => Err(HistoryError::Cycle(OpId(op))),
            _ => Ok(()),
        }
    }

    /// A history made from this one operation by operation (each derived operation with
    /// the operation of `self` it comes from, e.g. a close split into its parts), with
    /// this history's precedence: under [`Precedence::Causal`], an edge between two
    /// derived operations whenever their origins are ordered (program order and edges,
    /// transitively; parts of one origin keep only their own threads' program order);
    /// under real time the derived stamps carry it.
    ///
    /// # Panics
    ///
    /// When an origin is not an operation of `self`.
    pub fn derive<I2, O2>(&self, derived: Vec<(OpId, Operation<I2, O2>)>) -> History<I2, O2> {
        let causal = self.precedence == Precedence::Causal;
        let mut history = if causal { History::causal() } else { History::new() };
        let origins: Vec<OpId> = derived.iter().map(|(origin, _)| *origin).collect();
        for (_, op) in derived {
            history.push(op);
        }
        if causal {
            let successors = self.successors();
            // after[a]: every operation of `self` that `a` precedes.
            let after: Vec<Vec<bool>> = (0..self.ops.len())
                .map(|a| {
                    let mut seen = vec![false; self.ops.len()];
                    let mut stack = successors[a].clone();
                    while let Some(next) = stack.pop() {
                        if !std::mem::replace(&mut seen[next.0], true) {
                            stack.extend(&successors[next.0]);
                        }
                    }
                    seen
                })
                .collect();
            for (a, from) in origins.iter().enumerate() {
                for (b, to) in origins.iter().enumerate() {
                    if from != to && after[from.0][to.0] && history.ops[a].is_complete() {
                        history.order(OpId(a), OpId(b));
                    }
                }
            }
        }
        history
    }

    /// Causal precedence as adjacency: program order (each operation to its thread's
    /// next) plus the explicit edges.
    pub(super) fn successors(&self) -> Vec<Vec<OpId>> {
        let mut successors = vec![Vec::new(); self.ops.len()];
        for (_, ids) in self.by_thread() {
            for pair in ids.windows(2) {
                successors[pair[0].0].push(pair[1]);
            }
        }
        for &(before, after) in &self.edges {
            successors[before.0].push(after);
        }
        successors
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn program_order_is_by_thread_then_invocation_whatever_the_order_added() {
        // Small thread numbers (a counting sort), operations added out of order.
        let mut history: History<(), ()> = History::new();
        let late = history.complete(1, (), (), 5, 6);
        let other = history.complete(0, (), (), 0, 9);
        let early = history.complete(1, (), (), 1, 2);
        assert_eq!(history.program_order(), vec![other, early, late]);
        // A thread number far beyond the history's size (a sort of packed keys).
        let mut history: History<(), ()> = History::new();
        let late = history.complete(usize::MAX, (), (), 5, 6);
        let early = history.complete(usize::MAX, (), (), 1, 2);
        let other = history.complete(3, (), (), 0, 9);
        assert_eq!(history.program_order(), vec![other, early, late]);
    }
}
