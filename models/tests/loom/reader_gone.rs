//! Loom: the reader-gone family (**bounded-after-reader-complete**): whenever the
//! reader's completion lands among the writer's writes, the writer holds at most one
//! segment more.
use pipecheck::loom_harness::{check_target, expect_target_caught};
use pipecheck_models::builtin;
use pipecheck_pipe::fault;

/// Bound 4. The race is the reader's completion (one lock section) against each point
/// where the writer can learn of it (a flush under the lock, or a new segment, where a
/// read-modify-write of the published word says whether to look under the lock) and
/// against its rents outside the lock; the planted bug is found at bound 1. It was 5,
/// as the other two-thread models, until the lock-free `advance_to`'s handshake took it
/// from 24,299 to 202,293 interleavings (16 s); at 4 it was 41,625 (3.8 s), before the
/// scenario's last two writes waited for the reader's completion.
const BOUND: usize = 4;

#[test]
fn writes_after_reader_completes() {
    check_target(&builtin::pipe(), "writes-after-reader-completes", None, BOUND).unwrap();
}

#[test]
fn writes_after_reader_completes_catches_writes_pile_up_after_reader_completed() {
    expect_target_caught(
        &builtin::pipe(),
        "writes-after-reader-completes",
        fault::WritesPileUpAfterReaderCompleted.name(),
        BOUND,
    )
    .unwrap();
}
