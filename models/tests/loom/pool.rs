//! Loom: the segment pool family (**no-double-return**, **fifo-pool**,
//! **bounded-pool**): the reader returning segments outside the lock while the writer
//! takes them, and the pool at its maximum.
use pipecheck::loom_harness::{check_target, expect_target_caught};
use pipecheck_models::builtin;
use pipecheck_pipe::fault;

/// Bound 4. The race that matters is one return batch (count, push, count, push,
/// outside the pipe lock) against the writer's take (a pop) for its next segment: two
/// preemptions already put the take anywhere inside the batch, and every planted pool
/// bug is found at bound 2. Four covers the second write and both completions racing
/// as well, at 52,950 interleavings for `return-races-take` (11 s here). Since the idle
/// head is handed over by a swap on each side (and may join the return batch), bound 5
/// grew to 267,770 interleavings (86 s): too slow for the suite, for no bug found.
const BOUND: usize = 4;

#[test]
fn return_races_take() {
    check_target(&builtin::pipe(), "return-races-take", None, BOUND).unwrap();
}

#[test]
fn return_races_take_catches_lifo_pool() {
    expect_target_caught(&builtin::pipe(), "return-races-take", fault::LifoPool.name(), BOUND).unwrap();
}

#[test]
fn return_races_take_catches_double_return() {
    expect_target_caught(&builtin::pipe(), "return-races-take", fault::DoubleReturn.name(), BOUND).unwrap();
}

#[test]
fn return_races_take_catches_return_write_head() {
    expect_target_caught(&builtin::pipe(), "return-races-take", fault::ReturnWriteHead.name(), BOUND)
        .unwrap();
}

#[test]
fn pool_at_maximum() {
    check_target(&builtin::pipe(), "pool-at-maximum", None, BOUND).unwrap();
}

#[test]
fn pool_at_maximum_catches_pool_overflow() {
    expect_target_caught(&builtin::pipe(), "pool-at-maximum", fault::PoolOverflow.name(), BOUND).unwrap();
}

/// Bound 2 for the size-class pool: two tasks, two returns and two rents each a lock
/// section of its class.
const CLASS_BOUND: usize = 2;

#[test]
fn size_classes_returned_concurrently() {
    check_target(&builtin::pipe(), "size-classes-returned-concurrently", None, CLASS_BOUND).unwrap();
}

#[test]
fn size_classes_returned_concurrently_catches_class_of_next_size() {
    expect_target_caught(
        &builtin::pipe(),
        "size-classes-returned-concurrently",
        fault::ClassOfNextSize.name(),
        CLASS_BOUND,
    )
    .unwrap();
}
