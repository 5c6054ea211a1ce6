//! Loom: the back-pressure family (**backpressure**): pause and resume thresholds
//! crossed concurrently by flushes and consumes.
use pipecheck::loom_harness::{check_target, expect_target_caught};
use pipecheck_models::builtin;
use pipecheck_pipe::fault;

/// Bound 3. A flush crossing the pause threshold against a consume crossing the resume
/// threshold is two lock sections, interleaved every way at bound 2 (which finds the
/// planted bug); three also brings the second flush in. The bound was 5 (71,445
/// interleavings) until the lock-free flush's atomic accesses grew the model (86,790 at
/// 4), and 4 until the lock-free `advance_to`'s handshake grew it again (375,906 at 4,
/// 28 s; 46,870 at 3, 3.5 s: LOOM.md).
const BOUND: usize = 3;

#[test]
fn thresholds_crossed_concurrently() {
    check_target(&builtin::pipe(), "thresholds-crossed-concurrently", None, BOUND).unwrap();
}

#[test]
fn thresholds_crossed_concurrently_catches_no_pause_on_flush() {
    expect_target_caught(
        &builtin::pipe(),
        "thresholds-crossed-concurrently",
        fault::NoPauseOnFlush.name(),
        BOUND,
    )
    .unwrap();
}
