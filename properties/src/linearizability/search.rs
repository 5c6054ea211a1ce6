//! Wing & Gong's search with Lowe's memoization, over one partition of a history.
//!
//! Wing and Gong ("Testing and verifying concurrent objects", 1993) build a
//! linearization one operation at a time, choosing any *minimal* operation (one that
//! no unplaced operation precedes in real time) that the model accepts, and backtrack
//! when none fits. Lowe ("Testing for linearizability", 2017) prunes the search with a
//! cache of the configurations already explored — the set of placed operations and the
//! model state — since a configuration that failed once fails again.
//!
//! "Precedes" is the history's [`Precedence`](super::history::Precedence): real time by
//! the stamps, or program order plus happens-before edges (the transitive closure,
//! computed once per check).
//!
//! Here a thread runs one operation at a time, so the placed set is always a prefix of
//! each thread's operations: a vector of per-thread counts encodes it exactly (the
//! bitset of the literature, without its size), and the minimal operations are at most
//! each thread's next one, found in O(threads).

use std::collections::HashSet;
use std::time::Instant;

use super::history::{History, OpId};
use super::model::SequentialModel;
use super::outcome::Exhausted;

/// What the search of one partition found.
#[derive(Debug)]
pub(super) enum Found {
    /// A linearization.
    Order(Vec<OpId>),
    /// None exists: the longest prefix and the operation that could not follow it.
    Stuck { longest_prefix: Vec<OpId>, unplaced: OpId },
    /// The budget ran out.
    Exhausted(Exhausted),
}

/// The shared allowance of one check, spent by every partition's search.
#[derive(Debug)]
pub(super) struct Allowance {
    pub(super) states: u64,
    pub(super) max_states: u64,
    pub(super) deadline: Option<Instant>,
}

impl Allowance {
    /// Counts one more state; an error once a limit is reached.
    fn spend(&mut self) -> Result<(), Exhausted> {
        self.states += 1;
        if self.states > self.max_states {
            return Err(Exhausted::States);
        }
        // Reading the clock costs more than a state; look every 1024 states.
        if self.states.is_multiple_of(1024)
            && self.deadline.is_some_and(|deadline| Instant::now() >= deadline)
        {
            return Err(Exhausted::Time);
        }
        Ok(())
    }
}

/// A point of the search: how many operations of each thread are placed, the model
/// state they lead to, and the placements still to try from here.
struct Frame<S> {
    progress: Vec<usize>,
    choices: Vec<(usize, S)>,
    next: usize,
}

/// One partition's operations, per thread, in program order.
pub(super) struct Partition<'h, M: SequentialModel> {
    model: &'h M,
    history: &'h History<M::Input, M::Output>,
    threads: Vec<Vec<OpId>>,
    /// Per thread, how many operations returned (a pending one can only be last).
    completed: Vec<usize>,
    /// `before[b][a]`: `a` must precede `b` (happens-before precedence); `None`: real time.
    before: Option<&'h [Vec<bool>]>,
}

impl<'h, M: SequentialModel> Partition<'h, M> {
    /// The partition made of `threads`' operations (each list in program order);
    /// `before` is the history's happens-before closure, if it has one.
    pub(super) fn new(
        model: &'h M,
        history: &'h History<M::Input, M::Output>,
        threads: Vec<Vec<OpId>>,
        before: Option<&'h [Vec<bool>]>,
    ) -> Self {
        let completed = threads
            .iter()
            .map(|ops| ops.iter().filter(|id| history.get(**id).is_complete()).count())
            .collect();
        Partition { model, history, threads, completed, before }
    }

    /// Searches for a linearization.
    pub(super) fn search(&self, allowance: &mut Allowance) -> Found {
        let init = self.model.init();
        let root = vec![0; self.threads.len()];
        if self.done(&root) {
            return Found::Order(Vec::new());
        }
        let mut visited: HashSet<(Vec<usize>, M::State)> = HashSet::new();
        visited.insert((root.clone(), init.clone()));
        let mut stack = vec![Frame { choices: self.choices(&root, &init), progress: root.clone(), next: 0 }];
        let mut path: Vec<OpId> = Vec::new();
        let mut best: (Vec<OpId>, Vec<usize>) = (Vec::new(), root);
        while let Some(top) = stack.last_mut() {
            let Some((thread, state)) = top.choices.get(top.next).cloned() else {
                stack.pop();
                path.pop();
                continue;
            };
            top.next += 1;
            let mut progress = top.progress.clone();
            let placed = self.threads[thread][progress[thread]];
            progress[thread] += 1;
            if !visited.insert((progress.clone(), state.clone())) {
                continue;
            }
            if let Err(exhausted) = allowance.spend() {
                return Found::Exhausted(exhausted);
            }
            path.push(placed);
            if self.done(&progress) {
                return Found::Order(path);
            }
            if path.len() > best.0.len() {
                best = (path.clone(), progress.clone());
            }
            stack.push(Frame { choices: self.choices(&progress, &state), progress, next: 0 });
        }
        let unplaced = self.first_unreturned(&best.1);
        Found::Stuck { longest_prefix: best.0, unplaced }
    }

    /// Whether every returned operation is placed (pending ones may stay unplaced: they
    /// may never have taken effect).
    fn done(&self, progress: &[usize]) -> bool {
        progress.iter().zip(&self.completed).all(|(placed, completed)| placed >= completed)
    }

    /// The placements possible after `progress` in `state`: each thread's next operation
    /// if it is minimal in real time, with every state the model allows it to lead to.
    fn choices(&self, progress: &[usize], state: &M::State) -> Vec<(usize, M::State)> {
        let mut choices = Vec::new();
        for (thread, ops) in self.threads.iter().enumerate() {
            let Some(&id) = ops.get(progress[thread]) else { continue };
            let op = self.history.get(id);
            if !self.is_minimal(progress, thread, id) {
                continue;
            }
            match &op.output {
                Some(output) => {
                    if let Some(next) = self.model.step(state, &op.input, output) {
                        choices.push((thread, next));
                    }
                }
                None => choices
                    .extend(self.model.step_pending(state, &op.input).into_iter().map(|next| (thread, next))),
            }
        }
        choices
    }

    /// Whether no other thread's next unplaced operation precedes `id` (a thread's
    /// later operations follow that one, so none of them precedes `id` either).
    fn is_minimal(&self, progress: &[usize], thread: usize, id: OpId) -> bool {
        self.threads.iter().enumerate().all(|(other, ops)| {
            other == thread || ops.get(progress[other]).is_none_or(|&first| !self.precedes(first, id))
        })
    }

    /// Whether `a` must precede `b`.
    fn precedes(&self, a: OpId, b: OpId) -> bool {
        match self.before {
            Some(before) => before[b.0][a.0],
            None => self.history.get(a).precedes(self.history.get(b)),
        }
    }

    /// Of the returned operations not placed after `progress`, the one that returned
    /// first: everything invoked after its response must follow it, so it is the one
    /// the search could not place (under happens-before precedence, stamps of different
    /// threads are not comparable: the one whose thread's stamp is smallest).
    fn first_unreturned(&self, progress: &[usize]) -> OpId {
        self.threads
            .iter()
            .enumerate()
            .filter_map(|(thread, ops)| ops.get(progress[thread]).copied())
            .filter_map(|id| self.history.get(id).responded.map(|responded| (responded, id)))
            .min()
            .map(|(_, id)| id)
            .expect("a failed search leaves a returned operation unplaced")
    }
}
