//! Loom: the read-at-least family (**backpressure**): `read_at_least(4)` with a pause
//! threshold of 1 races the two flushes that would pause the writer, and the length
//! family (**buffered-length**): the length a reader sees while the writer flushes.
use pipecheck_core::fault;
use pipecheck_models::loom_harness::{Checks, check_scenario, expect_caught};

/// Bound 3, as the framing model it mirrors: each flush races the read-at-least's
/// registration (and its release of the paused writer), both lock sections; three
/// preemptions put either flush before, between or after the reader's two polls.
const BOUND: usize = 3;

#[test]
fn read_at_least_above_pause() {
    check_scenario("read-at-least-above-pause", None, BOUND, Checks::Registry);
}

#[test]
fn read_at_least_above_pause_catches_read_at_least_keeps_writer_paused() {
    expect_caught("read-at-least-above-pause", &fault::ReadAtLeastKeepsWriterPaused, BOUND, Checks::Registry);
}

#[test]
fn length_while_flushing() {
    check_scenario("length-while-flushing", None, BOUND, Checks::Registry);
}

#[test]
fn length_while_flushing_catches_length_counts_consumed() {
    expect_caught("length-while-flushing", &fault::LengthCountsConsumed, BOUND, Checks::Registry);
}
