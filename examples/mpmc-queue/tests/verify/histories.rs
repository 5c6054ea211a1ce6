//! The queue's specification on hand-written histories: the relaxed answers the queue
//! gives are accepted only pending-aware, and the answers of a broken queue never.

use mpmc_queue::queue_check::{Op, Out, QueueModel};
use pipecheck::linearizability::{Budget, History, PendingAware, check};

/// Whether the strict and the pending-aware model accept `history`.
fn verdicts(history: &History<Op, Out>) -> (bool, bool) {
    let strict = check(&QueueModel(2), history, Budget::default()).unwrap().is_linearizable();
    let aware = check(&PendingAware(QueueModel(2)), history, Budget::default()).unwrap().is_linearizable();
    (strict, aware)
}

/// Push 1 (thread 0) claims cell 0 and stalls over [0, 10]; thread 1 pushes 2, then pops.
fn stalled_push_then(pop: Out) -> History<Op, Out> {
    let mut history = History::new();
    history.complete(0, Op::Push(1), Out::Push(Ok(())), 0, 10);
    history.complete(1, Op::Push(2), Out::Push(Ok(())), 1, 2);
    history.complete(1, Op::Pop, pop, 3, 4);
    history
}

#[test]
fn empty_while_the_heads_push_is_in_flight_is_accepted_pending_aware_only() {
    assert_eq!(verdicts(&stalled_push_then(Out::Pop(None))), (false, true));
}

#[test]
fn empty_with_nothing_in_flight_is_refused() {
    let mut history = History::new();
    history.complete(0, Op::Push(1), Out::Push(Ok(())), 0, 1);
    history.complete(1, Op::Pop, Out::Pop(None), 2, 3);
    assert_eq!(verdicts(&history), (false, false));
}

#[test]
fn a_lost_value_is_refused() {
    let mut history = stalled_push_then(Out::Pop(None));
    history.complete(1, Op::Pop, Out::Pop(Some(2)), 11, 12);
    assert_eq!(verdicts(&history), (false, false));
}

#[test]
fn a_duplicated_value_is_refused() {
    let mut history = stalled_push_then(Out::Pop(Some(1)));
    history.complete(1, Op::Pop, Out::Pop(Some(1)), 11, 12);
    assert_eq!(verdicts(&history), (false, false));
}

#[test]
fn full_while_a_pop_is_in_flight_is_accepted_pending_aware_only() {
    let mut history = History::new();
    history.complete(0, Op::Push(1), Out::Push(Ok(())), 0, 1);
    history.complete(0, Op::Push(2), Out::Push(Ok(())), 2, 3);
    history.complete(1, Op::Pop, Out::Pop(Some(1)), 4, 20);
    history.complete(2, Op::Pop, Out::Pop(Some(2)), 5, 6);
    history.complete(0, Op::Push(3), Out::Push(Err(3)), 7, 8);
    assert_eq!(verdicts(&history), (false, true));
}
