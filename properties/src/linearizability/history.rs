//! [`History`]: the operations of a concurrent run, each with its thread, arguments,
//! result, and invocation and response times.
//!
//! Which operation must precede which is the history's [`Precedence`]:
//!
//! * [`Precedence::RealTime`] (the default): times are stamps of one clock shared by the
//!   threads (the [`Recorder`](super::Recorder)'s counter under shuttle and on threads,
//!   or hand-written numbers in tests): an operation *precedes* another when its
//!   response stamp is smaller than the other's invocation stamp; otherwise the two
//!   overlap and may linearize in either order.
//! * [`Precedence::HappensBefore`]: only what the execution established orders
//!   operations of different threads: program order within each thread plus explicit
//!   happens-before edges (spawn and join), closed transitively. Stamps then order each
//!   thread's own operations only. This is the order a weak-memory execution (loom's
//!   C11 model) guarantees: an operation that starts "later" by any clock may still read
//!   stale values unless an edge orders it after the other.
//!
//! A thread runs one operation at a time, so its operations are totally ordered, and
//! only its last one may be pending (invoked, never returned).

use std::fmt;

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

/// Which operations of a [`History`] must precede which in a linearization.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Precedence {
    /// Real-time order of the stamps, which come from one clock shared by the threads
    /// ([`Operation::precedes`]).
    #[default]
    RealTime,
    /// Program order within each thread plus these edges `(a, b)` (`a` returned before
    /// `b` was invoked, established by the execution: `a` ran before the spawn of `b`'s
    /// thread, or `b` after the join of `a`'s), closed transitively. Stamps order each
    /// thread's own operations only.
    HappensBefore(Vec<(OpId, OpId)>),
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
    /// A happens-before edge names an operation the history does not have, or goes
    /// from a pending operation (which never returned) to another.
    BadEdge(OpId, OpId),
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
            HistoryError::BadEdge(a, b) => {
                write!(f, "happens-before edge {a} -> {b} is not between a returned operation and another")
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
/// use pipecheck_properties::linearizability::History;
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
    precedence: Precedence,
}

impl<I, O> Default for History<I, O> {
    fn default() -> Self {
        History { ops: Vec::new(), precedence: Precedence::RealTime }
    }
}

impl<I, O> History<I, O> {
    /// An empty history.
    pub fn new() -> History<I, O> {
        History::default()
    }

    /// Adds an operation as it is.
    pub fn push(&mut self, op: Operation<I, O>) -> OpId {
        self.ops.push(op);
        OpId(self.ops.len() - 1)
    }

    /// Adds an operation that returned `output`.
    pub fn complete(&mut self, thread: usize, input: I, output: O, invoked: u64, responded: u64) -> OpId {
        self.push(Operation { thread, input, output: Some(output), invoked, responded: Some(responded) })
    }

    /// Adds an operation that never returned.
    pub fn pending(&mut self, thread: usize, input: I, invoked: u64) -> OpId {
        self.push(Operation { thread, input, output: None, invoked, responded: None })
    }

    /// Orders operations of different threads by `precedence` instead of real time.
    pub fn set_precedence(&mut self, precedence: Precedence) {
        self.precedence = precedence;
    }

    /// How operations of different threads are ordered.
    pub fn precedence(&self) -> &Precedence {
        &self.precedence
    }

    /// Under [`Precedence::HappensBefore`], `before[b][a]`: whether `a` must precede `b`
    /// (program order and the edges, transitively); `None` under real time.
    pub(super) fn happens_before(&self) -> Option<Vec<Vec<bool>>> {
        let Precedence::HappensBefore(edges) = &self.precedence else { return None };
        let mut direct: Vec<Vec<usize>> = vec![Vec::new(); self.ops.len()];
        for (_, ids) in self.by_thread() {
            for pair in ids.windows(2) {
                direct[pair[1].0].push(pair[0].0);
            }
        }
        for (a, b) in edges {
            direct[b.0].push(a.0);
        }
        let mut before = vec![vec![false; self.ops.len()]; self.ops.len()];
        for (op, row) in before.iter_mut().enumerate() {
            let mut stack = direct[op].clone();
            while let Some(pred) = stack.pop() {
                if !std::mem::replace(&mut row[pred], true) {
                    stack.extend(&direct[pred]);
                }
            }
        }
        Some(before)
    }

    /// Gives `derived`, a history made from this one operation by operation
    /// (`origin[i]` is the operation of `self` that derived operation `i` of `derived`,
    /// e.g. a close split into its parts), this history's precedence: under
    /// [`Precedence::HappensBefore`], an edge between two derived operations whenever
    /// their origins are ordered (parts of one origin keep only their own threads'
    /// program order); under real time nothing, the derived stamps carry it.
    ///
    /// # Panics
    ///
    /// When `origin` is not one operation of `self` per operation of `derived`.
    pub fn carry_precedence<I2, O2>(&self, derived: &mut History<I2, O2>, origin: &[OpId]) {
        assert_eq!(origin.len(), derived.len(), "one origin per derived operation");
        let Some(before) = self.happens_before() else { return };
        let mut edges = Vec::new();
        for (a, from) in origin.iter().enumerate() {
            for (b, to) in origin.iter().enumerate() {
                if from != to && before[to.0][from.0] && derived.ops[a].is_complete() {
                    edges.push((OpId(a), OpId(b)));
                }
            }
        }
        derived.set_precedence(Precedence::HappensBefore(edges));
    }

    /// The operation `id`.
    ///
    /// # Panics
    ///
    /// If `id` is not an operation of this history.
    pub fn get(&self, id: OpId) -> &Operation<I, O> {
        &self.ops[id.0]
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

    /// The operations of each thread in program order (by invocation), threads in
    /// ascending order.
    pub fn by_thread(&self) -> Vec<(usize, Vec<OpId>)> {
        let mut threads: std::collections::BTreeMap<usize, Vec<OpId>> = std::collections::BTreeMap::new();
        for (index, op) in self.ops.iter().enumerate() {
            threads.entry(op.thread).or_default().push(OpId(index));
        }
        threads
            .into_iter()
            .map(|(thread, mut ids)| {
                ids.sort_by_key(|id| self.ops[id.0].invoked);
                (thread, ids)
            })
            .collect()
    }

    /// Checks the history is well formed: responses after invocations, each thread's
    /// operations one after another, a pending operation last in its thread, and
    /// happens-before edges between a returned operation and another.
    ///
    /// # Errors
    ///
    /// The first [`HistoryError`] found.
    pub fn validate(&self) -> Result<(), HistoryError> {
        for (index, op) in self.ops.iter().enumerate() {
            if op.responded.is_some_and(|responded| responded < op.invoked) {
                return Err(HistoryError::ResponseBeforeInvocation(OpId(index)));
            }
        }
        for (thread, ids) in self.by_thread() {
            for pair in ids.windows(2) {
                let (first, second) = (&self.ops[pair[0].0], &self.ops[pair[1].0]);
                match first.responded {
                    None => return Err(HistoryError::PendingNotLast(pair[0])),
                    Some(responded) if responded >= second.invoked => {
                        return Err(HistoryError::ThreadOverlap { thread, first: pair[0], second: pair[1] });
                    }
                    Some(_) => {}
                }
            }
        }
        if let Precedence::HappensBefore(edges) = &self.precedence {
            let returned = |id: OpId| self.ops.get(id.0).is_some_and(Operation::is_complete);
            if let Some(&(a, b)) = edges.iter().find(|(a, b)| !returned(*a) || b.0 >= self.ops.len()) {
                return Err(HistoryError::BadEdge(a, b));
            }
        }
        Ok(())
    }
}
