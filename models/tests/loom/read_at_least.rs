//! Loom: the read-at-least family (**backpressure**): `read_at_least(4)` with a pause
//! threshold of 1 races the two flushes that would pause the writer, and the length
//! family (**buffered-length**): the length a reader sees while the writer flushes.
use pipecheck::loom_harness::{check_target, expect_target_caught};
use pipecheck_models::builtin;
use pipecheck_pipe::fault;

/// Bound 3, as the framing model it mirrors: each flush races the read-at-least's
/// registration (and its release of the paused writer), both lock sections; three
/// preemptions put either flush before, between or after the reader's two polls.
const BOUND: usize = 3;

#[test]
fn read_at_least_above_pause() {
    check_target(&builtin::pipe(), "read-at-least-above-pause", None, BOUND).unwrap();
}

#[test]
fn read_at_least_above_pause_catches_read_at_least_keeps_writer_paused() {
    expect_target_caught(
        &builtin::pipe(),
        "read-at-least-above-pause",
        fault::ReadAtLeastKeepsWriterPaused.name(),
        BOUND,
    )
    .unwrap();
}

#[test]
fn length_while_flushing() {
    check_target(&builtin::pipe(), "length-while-flushing", None, BOUND).unwrap();
}

#[test]
fn length_while_flushing_catches_length_counts_consumed() {
    expect_target_caught(
        &builtin::pipe(),
        "length-while-flushing",
        fault::LengthCountsConsumed.name(),
        BOUND,
    )
    .unwrap();
}

/// Bound 2 for the read-at-least after an examining advance: the second read's wait
/// against the second flush is one preemption; about a second to explore.
const EXAMINED_BOUND: usize = 2;

#[test]
fn read_at_least_after_examining() {
    check_target(&builtin::pipe(), "read-at-least-after-examining", None, EXAMINED_BOUND).unwrap();
}

#[test]
fn read_at_least_after_examining_catches_read_at_least_counts_consumed() {
    expect_target_caught(
        &builtin::pipe(),
        "read-at-least-after-examining",
        fault::ReadAtLeastCountsConsumed.name(),
        EXAMINED_BOUND,
    )
    .unwrap();
}
