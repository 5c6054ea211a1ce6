//! Under loom: the strict model refuses the queue, naming the relaxed answer.

use std::sync::Arc;

use mpmc_queue::queue_check::{EMPTY_WHILE_PUSH_IN_FLIGHT, QueueModel};
use pipecheck::Engine;
use pipecheck::InvariantId;
use pipecheck::engine::loom::Loom;
use pipecheck::linearizability::run_concurrent;
use pipecheck::must_fail::must_fail_in_child;

#[test]
fn the_strict_model_refuses_an_empty_answer_while_a_push_is_in_flight_by_name() {
    const TEST: &str = "loom::the_strict_model_refuses_an_empty_answer_while_a_push_is_in_flight_by_name";
    let verdict = must_fail_in_child(TEST, InvariantId::LINEARIZABLE, &[], || {
        let threads = super::push_then_pop();
        Loom::with_bound(3).check(Arc::new(move || drop(run_concurrent(&QueueModel(2), &threads))))
    });
    assert!(verdict.report.contains(EMPTY_WHILE_PUSH_IN_FLIGHT), "{}", verdict.report);
}
