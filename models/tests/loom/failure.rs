//! Loom: the failure family (**failure-cause**): the writer's typed failure reaches the
//! reader intact, however its completion races the reader's reads.
use pipecheck::loom_harness::{check_target, expect_target_caught};
use pipecheck_models::builtin;
use pipecheck_pipe::fault;

/// Bound 5, as the other two-thread close/receive models: the completion can land
/// before, during or after each of the reader's reads.
const BOUND: usize = 5;

#[test]
fn writer_failure_reaches_reader() {
    check_target(&builtin::pipe(), "writer-failure-reaches-reader", None, BOUND).unwrap();
}

#[test]
fn writer_failure_reaches_reader_catches_failure_loses_cause() {
    expect_target_caught(
        &builtin::pipe(),
        "writer-failure-reaches-reader",
        fault::FailureLosesCause.name(),
        BOUND,
    )
    .unwrap();
}
