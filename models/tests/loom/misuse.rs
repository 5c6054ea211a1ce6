//! Loom: the misuse family: `advance_to` misused (examined going backwards, examined
//! before consumed) while the writer flushes and completes; each misuse must be
//! refused with its typed error and change nothing (**buffered-length** checks the
//! count the reader sees right after, **monotonic-offsets** the offsets released).
use pipecheck::loom_harness::{check_target, expect_target_caught};
use pipecheck_models::builtin;
use pipecheck_pipe::fault;

/// Bound 2: the reader's steps are sequential; two preemptions put the writer's two
/// flushes and its completion anywhere among them.
const BOUND: usize = 2;

#[test]
fn misused_advance_races_flush() {
    check_target(&builtin::pipe(), "misused-advance-races-flush", None, BOUND).unwrap();
}

#[test]
fn misused_advance_races_flush_catches_misuse_moves_examined() {
    expect_target_caught(
        &builtin::pipe(),
        "misused-advance-races-flush",
        fault::MisuseMovesExamined.name(),
        BOUND,
    )
    .unwrap();
}
