//! Answers allowed only while an overlapping operation is in flight, and the criterion
//! that accepts them: [`Relaxed`], [`Criterion`], [`PendingAware`].
//!
//! Some correct objects are not strictly linearizable. In Vyukov's bounded MPMC queue a
//! push claims a cell (its linearization point: the position is taken) and publishes the
//! value later; a pop that reaches the claimed cell before the publication answers
//! "empty", though the queue holds that value, and though a later push may already
//! have returned. Symmetrically a push may answer "full" while a pop that took a value
//! has not yet freed its cell. No sequential order explains those answers, yet no value
//! is lost or duplicated and each answer is justified by an operation that overlaps it.
//!
//! A model states such answers with
//! [`SequentialModel::step_while_overlapped`](super::SequentialModel::step_while_overlapped):
//! given the state, the operation, its output, and the operations that *overlap* it and
//! already took effect (placed before it in the linearization, but not returned before it
//! was invoked: in flight when it ran), it names the relaxed answer and the state it
//! leaves. The check accepts these answers only under [`Criterion::PendingAware`]
//! (wrap the model in [`PendingAware`]); the default, [`Criterion::Strict`], is
//! linearizability, and a strict failure that the relaxed answers would explain says so,
//! naming them.
//!
//! ## Relation to known criteria
//!
//! * **Linearizability** (Herlihy and Wing): every operation takes effect at one point
//!   between its invocation and response. `Strict` checks it.
//! * **Pending-aware answers** (this criterion): linearizability, except that an
//!   operation may instead take a declared relaxed step when an operation that justifies
//!   it overlaps it in real time. Every other answer, and every state change, is still
//!   strict, so a pop that answers empty with nothing overlapping, a lost value or a
//!   duplicated one fail as before. It is strictly stronger than
//!   **quiescent consistency** (Aspnes, Herlihy and Shavit), which lets any operations
//!   separated by no quiescent point reorder freely, and is the shape of
//!   *set-linearizability*/*interval-linearizability* (Neiger; Castañeda, Rajsbaum and
//!   Raynal) restricted to answers a model names one by one.
//!
//! Checking stays Wing & Gong's search: the relaxed step depends on the placed set and
//! the state only (the overlap is a property of the history), so Lowe's memoization
//! remains sound.

use std::fmt::Debug;
use std::hash::Hash;

use proptest::strategy::BoxedStrategy;

use super::history::{History, OpId};
use super::model::SequentialModel;
use super::ops_spec::OpsSpec;
use super::partition::Part;

/// An answer a model allows only while an overlapping operation is in flight: its name
/// (reports print it) and the state it leaves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relaxed<S> {
    /// The answer's name, e.g. `empty-while-push-in-flight`.
    pub answer: &'static str,
    /// The state after it (usually the state before: the answer changed nothing).
    pub state: S,
}

/// Which answers a linearizability check accepts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Criterion {
    /// Linearizability: only [`SequentialModel::step`]'s answers (the default).
    #[default]
    Strict,
    /// Linearizability with the answers
    /// [`SequentialModel::step_while_overlapped`] allows while an overlapping operation
    /// is in flight (see [`PendingAware`]).
    PendingAware,
}

/// A relaxed answer a check used: the operation and the answer's name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelaxedAnswer {
    /// The operation that answered.
    pub op: OpId,
    /// The answer's name ([`Relaxed::answer`]).
    pub answer: &'static str,
}

/// `M` checked under [`Criterion::PendingAware`]: everything else is `M`'s (its
/// [`OpsSpec`] too, so a target takes it as it takes `M`).
///
/// # Examples
///
/// A cell whose read may answer `None` while a write overlaps it (a cell that is
/// cleared while a write is under way, say):
///
/// ```
/// use pipecheck::linearizability::{Budget, History, PendingAware, Relaxed, SequentialModel, check};
///
/// #[derive(Debug)]
/// struct Cell;
/// impl SequentialModel for Cell {
///     type State = Option<u8>;
///     type Input = Option<u8>; // `Some(v)`: write v; `None`: read
///     type Output = Option<u8>; // what a read saw
///     fn init(&self) -> Option<u8> { None }
///     fn step(&self, cell: &Option<u8>, op: &Option<u8>, out: &Option<u8>) -> Option<Option<u8>> {
///         match op {
///             Some(v) => Some(Some(*v)),
///             None => (out == cell).then_some(*cell),
///         }
///     }
///     fn step_while_overlapped(
///         &self, cell: &Option<u8>, op: &Option<u8>, out: &Option<u8>, overlapping: &[&Option<u8>],
///     ) -> Option<Relaxed<Option<u8>>> {
///         let write_in_flight = overlapping.iter().any(|o| o.is_some());
///         (op.is_none() && out.is_none() && write_in_flight)
///             .then_some(Relaxed { answer: "unset-while-write-in-flight", state: *cell })
///     }
/// }
///
/// let mut history = History::new();
/// history.complete(2, Some(2), None, 0, 1); // a write of 2, done
/// history.complete(0, Some(1), None, 0, 10); // a write of 1, in flight...
/// history.complete(1, None, None, 2, 3); // ... while a read saw nothing
/// history.complete(1, None, Some(1), 4, 5);
/// assert!(!check(&Cell, &history, Budget::default()).unwrap().is_linearizable());
/// assert!(check(&PendingAware(Cell), &history, Budget::default()).unwrap().is_linearizable());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PendingAware<M>(pub M);

impl<M: SequentialModel> SequentialModel for PendingAware<M> {
    type State = M::State;
    type Input = M::Input;
    type Output = M::Output;

    fn init(&self) -> M::State {
        self.0.init()
    }

    fn step(&self, state: &M::State, input: &M::Input, output: &M::Output) -> Option<M::State> {
        self.0.step(state, input, output)
    }

    fn step_while_overlapped(
        &self,
        state: &M::State,
        input: &M::Input,
        output: &M::Output,
        overlapping: &[&M::Input],
    ) -> Option<Relaxed<M::State>> {
        self.0.step_while_overlapped(state, input, output, overlapping)
    }

    /// [`Criterion::PendingAware`].
    fn criterion(&self) -> Criterion {
        Criterion::PendingAware
    }

    fn expected(&self, state: &M::State, input: &M::Input) -> Option<M::Output> {
        self.0.expected(state, input)
    }

    fn step_pending(&self, state: &M::State, input: &M::Input) -> Vec<M::State> {
        self.0.step_pending(state, input)
    }

    fn partition(&self, input: &M::Input) -> impl Hash + Eq + Debug {
        self.0.partition(input)
    }

    fn partition_history(&self, history: &History<M::Input, M::Output>) -> Option<Vec<Vec<OpId>>> {
        self.0.partition_history(history)
    }

    fn state_heap_bytes(&self, state: &M::State) -> usize {
        self.0.state_heap_bytes(state)
    }

    fn describe_state(&self, state: &M::State) -> String {
        self.0.describe_state(state)
    }

    fn describe(&self, input: &M::Input, output: Option<&M::Output>) -> String {
        self.0.describe(input, output)
    }
}

impl<S: OpsSpec> OpsSpec for PendingAware<S> {
    type Handle = S::Handle;

    fn handles(&self, threads: usize) -> Vec<S::Handle> {
        self.0.handles(threads)
    }

    fn apply(&self, handle: &mut S::Handle, input: &S::Input) -> S::Output {
        self.0.apply(handle, input)
    }

    fn inputs(&self) -> BoxedStrategy<S::Input> {
        self.0.inputs()
    }

    fn enabled(&self, state: &S::State, input: &S::Input) -> bool {
        self.0.enabled(state, input)
    }

    fn thread_ops(&self, max_ops: usize) -> BoxedStrategy<Vec<S::Input>> {
        self.0.thread_ops(max_ops)
    }

    fn role(&self, input: &S::Input) -> Option<usize> {
        self.0.role(input)
    }

    fn deadlock_free(&self, threads: &[Vec<S::Input>]) -> bool {
        self.0.deadlock_free(threads)
    }
}

/// Whether operation `before` precedes `after` in `part` (local indices): by stamps in
/// real time, through the successor lists under causal precedence.
fn precedes(part: &Part, before: u32, after: u32) -> bool {
    let Some(causal) = &part.causal else {
        return part.ops[before as usize].responded < part.ops[after as usize].invoked;
    };
    let mut seen = vec![false; part.ops.len()];
    let mut stack = vec![before];
    while let Some(op) = stack.pop() {
        for &next in &causal.succs[op as usize] {
            if next == after {
                return true;
            }
            if !std::mem::replace(&mut seen[next as usize], true) {
                stack.push(next);
            }
        }
    }
    false
}

/// Of the operations `placed` (local indices), those that overlap `candidate`: placed
/// before it, and not preceding it.
pub(super) fn overlapping(part: &Part, placed: impl Iterator<Item = u32>, candidate: u32) -> Vec<u32> {
    placed.filter(|&op| !precedes(part, op, candidate)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linearizability::{Budget, History, check, check_report};

    /// A bounded queue of 2 whose pop may answer empty while the head's push is in
    /// flight, and whose push may answer full while a pop is.
    #[derive(Debug)]
    struct Queue;

    /// `Some(v)`: push v; `None`: pop. Outputs: a pop's value, or a push's `Some(v)`
    /// when it was full (`None` when it went in).
    type Op = Option<u8>;

    impl SequentialModel for Queue {
        type State = Vec<u8>;
        type Input = Op;
        type Output = Option<u8>;
        fn init(&self) -> Vec<u8> {
            Vec::new()
        }
        fn step(&self, queue: &Vec<u8>, op: &Op, out: &Option<u8>) -> Option<Vec<u8>> {
            let mut queue = queue.clone();
            match (op, out) {
                (Some(v), None) if queue.len() < 2 => queue.push(*v),
                (Some(v), Some(back)) if queue.len() == 2 && v == back => {}
                (None, None) if queue.is_empty() => {}
                (None, Some(v)) if queue.first() == Some(v) => drop(queue.remove(0)),
                _ => return None,
            }
            Some(queue)
        }
        fn step_while_overlapped(
            &self,
            queue: &Vec<u8>,
            op: &Op,
            out: &Option<u8>,
            overlapping: &[&Op],
        ) -> Option<Relaxed<Vec<u8>>> {
            let answer = match (op, out) {
                (None, None) if overlapping.contains(&&Some(*queue.first()?)) => "empty-while-push-in-flight",
                (Some(_), Some(_)) if overlapping.contains(&&None) => "full-while-pop-in-flight",
                _ => return None,
            };
            Some(Relaxed { answer, state: queue.clone() })
        }
    }

    fn verdicts(history: &History<Op, Option<u8>>) -> (bool, bool) {
        let strict = check(&Queue, history, Budget::default()).unwrap().is_linearizable();
        let relaxed = check(&PendingAware(Queue), history, Budget::default()).unwrap().is_linearizable();
        (strict, relaxed)
    }

    /// Push 1 claims its cell and stalls; push 2 completes; a pop finds the head's cell
    /// unpublished and answers empty; then the values come out in order.
    fn empty_while_claimed() -> History<Op, Option<u8>> {
        let mut history = History::new();
        history.complete(0, Some(1), None, 0, 10);
        history.complete(1, Some(2), None, 1, 2);
        history.complete(1, None, None, 3, 4);
        history.complete(1, None, Some(1), 11, 12);
        history.complete(1, None, Some(2), 13, 14);
        history
    }

    #[test]
    fn an_empty_answer_while_the_heads_push_is_in_flight_is_relaxed_and_named() {
        let history = empty_while_claimed();
        assert_eq!(verdicts(&history), (false, true));
        let report = check_report(&PendingAware(Queue), &history, Budget::default()).unwrap();
        assert_eq!(report.relaxed, [RelaxedAnswer { op: OpId(2), answer: "empty-while-push-in-flight" }]);
        let strict = check_report(&Queue, &history, Budget::default()).unwrap();
        assert!(strict.relaxed.is_empty());
    }

    #[test]
    fn a_strict_failure_names_the_relaxed_answers_that_would_explain_it() {
        use crate::linearizability::ensure_linearizable;
        let history = empty_while_claimed();
        let caught = std::panic::catch_unwind(|| ensure_linearizable(&Queue, &history, Budget::default()));
        let violation = caught.unwrap_err().downcast::<crate::Violation>().unwrap();
        let text = violation.to_string();
        assert!(text.contains("#2 None -> None `empty-while-push-in-flight`"), "{text}");
        assert!(text.contains("PendingAware(model) accepts them"), "{text}");
        let mut red = History::new();
        red.complete(0, Some(1), None, 0, 1);
        red.complete(1, None, None, 2, 3);
        let caught = std::panic::catch_unwind(|| ensure_linearizable(&Queue, &red, Budget::default()));
        let text = caught.unwrap_err().downcast::<crate::Violation>().unwrap().to_string();
        assert!(!text.contains("relaxed answers"), "nothing relaxed explains it: {text}");
    }

    #[test]
    fn a_full_answer_while_a_pop_is_in_flight_is_relaxed() {
        let mut history = History::new();
        history.complete(0, Some(1), None, 0, 1);
        history.complete(0, Some(2), None, 2, 3);
        history.complete(1, None, Some(1), 4, 20); // took 1, frees its cell late
        history.complete(2, None, Some(2), 5, 6); // so 1 was taken before
        history.complete(0, Some(3), Some(3), 7, 8); // full, though the queue is empty
        assert_eq!(verdicts(&history), (false, true));
    }

    #[test]
    fn an_empty_answer_with_nothing_overlapping_stays_red() {
        let mut history = History::new();
        history.complete(0, Some(1), None, 0, 1);
        history.complete(1, None, None, 2, 3);
        assert_eq!(verdicts(&history), (false, false));
    }

    #[test]
    fn an_empty_answer_beside_a_push_that_is_not_the_heads_stays_red() {
        let mut history = History::new();
        history.complete(0, Some(1), None, 0, 1);
        history.complete(1, Some(2), None, 2, 10);
        history.complete(2, None, None, 3, 4); // 1 is published: no excuse
        assert_eq!(verdicts(&history), (false, false));
    }

    #[test]
    fn a_lost_value_stays_red() {
        let mut history = History::new();
        history.complete(0, Some(1), None, 0, 10);
        history.complete(1, Some(2), None, 1, 2);
        history.complete(1, None, None, 3, 4); // relaxed: 1's push is in flight
        history.complete(1, None, Some(2), 11, 12); // but 1 never comes out
        history.complete(1, None, None, 13, 14);
        assert_eq!(verdicts(&history), (false, false));
    }

    #[test]
    fn a_duplicated_value_stays_red() {
        let mut history = History::new();
        history.complete(0, Some(1), None, 0, 10);
        history.complete(1, None, Some(1), 2, 3);
        history.complete(1, None, Some(1), 4, 5);
        assert_eq!(verdicts(&history), (false, false));
    }

    #[test]
    fn under_causal_precedence_overlap_is_the_absence_of_happens_before() {
        // Push 2 happens before the pop, push 1 maybe not: the pop's empty answer
        // needs 1's push in flight.
        let build = |ordered: bool| {
            let mut history = History::causal();
            let first = history.complete(0, Some(1), None, 0, 0);
            let second = history.complete(2, Some(2), None, 0, 0);
            let pop = history.complete(1, None, None, 0, 0);
            history.complete(1, None, Some(1), 0, 0);
            history.order(second, pop);
            if ordered {
                history.order(first, pop);
            }
            history
        };
        assert_eq!(verdicts(&build(false)), (false, true));
        assert_eq!(
            verdicts(&build(true)),
            (false, false),
            "a push that happens before the pop justifies nothing"
        );
    }
}
