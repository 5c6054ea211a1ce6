//! Loom: the segment pool family (**no-double-return**, **fifo-pool**,
//! **bounded-pool**): the reader returning segments outside the lock while the writer
//! takes them, and the pool at its maximum.
#![cfg(feature = "loom")]

use pipecheck_core::{Fault, FaultSet};
use pipecheck_models::loom_harness::{Checks, check_scenario, expect_caught};

// Preemption bounds. The race that matters is one return batch (count, push, count,
// push, outside the pipe lock) against the writer's take (pop) for its next segment;
// two preemptions already put the take anywhere inside the batch, and every planted
// pool bug is found at bound 2. The bounds below go further, within seconds here.

/// Bound 5: the pool's central race (seed 000's return-outside-the-lock against the
/// take): 53,408 interleavings, ~30 s here.
const RETURN_RACES_TAKE: usize = 5;
/// Bound 4: the same body with a pool of one (bound 5 is 38,206 interleavings, ~30 s).
const AT_MAXIMUM: usize = 4;

#[test]
fn return_races_take() {
    check_scenario("return-races-take", FaultSet::NONE, RETURN_RACES_TAKE, Checks::Registry);
}

#[test]
fn return_races_take_catches_lifo_pool() {
    expect_caught("return-races-take", Fault::LifoPool, RETURN_RACES_TAKE, Checks::Registry);
}

#[test]
fn return_races_take_catches_double_return() {
    expect_caught("return-races-take", Fault::DoubleReturn, RETURN_RACES_TAKE, Checks::Registry);
}

#[test]
fn return_races_take_catches_return_write_head() {
    expect_caught("return-races-take", Fault::ReturnWriteHead, RETURN_RACES_TAKE, Checks::Registry);
}

#[test]
fn pool_at_maximum() {
    check_scenario("pool-at-maximum", FaultSet::NONE, AT_MAXIMUM, Checks::Registry);
}

#[test]
fn pool_at_maximum_catches_pool_overflow() {
    expect_caught("pool-at-maximum", Fault::PoolOverflow, AT_MAXIMUM, Checks::Registry);
}
