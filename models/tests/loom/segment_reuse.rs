//! Loom: the segment-reuse family (**segments-in-use**, **no-double-return**): the
//! reader's fully consuming `advance_to` racing the writer's next
//! `get_memory`/`advance`/`flush` for the idle head, and a consume that ends exactly at
//! a segment's end, and a fast flush into the last linked segment behind a reclaimed
//! head.
use std::collections::BTreeSet;
use std::sync::Mutex;

use pipecheck::loom_harness::{check_target, expect_target_caught, explore};
use pipecheck_models::builtin;
use pipecheck_models::find;
use pipecheck_pipe::{PipeEvent, fault};
use pipecheck_properties::Observation;

/// Bound 3. The race is one swap against one swap: the reader's take of the parked head
/// (inside its `advance_to` lock section) against the writer's take in `get_memory`,
/// with the writer's `advance` and `flush` after it. One preemption already puts the
/// writer's take before or after the reader's, and every planted bug here is found at
/// bound 1; 3 also moves the writer's completion around the reader's last read.
const BOUND: usize = 3;

#[test]
fn idle_head_races_next_write() {
    check_target(&builtin::pipe(), "idle-head-races-next-write", None, BOUND).unwrap();
}

/// Both outcomes of the race are reached: the reader reclaims the idle head, or finds
/// the writer already writing into it (and leaves it).
#[test]
fn idle_head_races_next_write_reaches_both_outcomes() {
    static SEEN: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let scenario = find("idle-head-races-next-write").expect("the scenario exists");
    explore("idle-head-races-next-write (outcomes)", BOUND, move || {
        let monitor = scenario.monitor();
        (scenario.body)(&monitor);
        monitor.assert_finished();
        let mut seen = SEEN.lock().unwrap();
        for entry in monitor.log() {
            match entry.observation {
                Observation::Pipe(PipeEvent::HeadReclaimed { .. }) => seen.insert("reclaimed"),
                Observation::Pipe(PipeEvent::HeadBusy) => seen.insert("busy"),
                _ => false,
            };
        }
    });
    let seen = SEEN.lock().unwrap();
    assert!(seen.contains("reclaimed"), "no interleaving where the reader takes the idle head: {seen:?}");
    assert!(seen.contains("busy"), "no interleaving where the writer takes it first: {seen:?}");
}

/// Bound 2 for the model whose writer waits for a reply: only the writer's one send
/// races the reader's read, and bound 2 already puts the read before and after it
/// (4,992 interleavings, 1 s; bound 3 explores 61,884 in 12 s). A skipped idle head
/// fails in every interleaving.
const WAITING_WRITER_BOUND: usize = 2;

#[test]
fn idle_head_returned_while_writer_waits() {
    check_target(&builtin::pipe(), "idle-head-returned-while-writer-waits", None, WAITING_WRITER_BOUND)
        .unwrap();
}

#[test]
fn idle_head_returned_while_writer_waits_catches_keeps_idle_write_head() {
    expect_target_caught(
        &builtin::pipe(),
        "idle-head-returned-while-writer-waits",
        fault::KeepsIdleWriteHead.name(),
        WAITING_WRITER_BOUND,
    )
    .unwrap();
}

#[test]
fn idle_head_races_next_write_catches_keeps_idle_write_head() {
    expect_target_caught(
        &builtin::pipe(),
        "idle-head-races-next-write",
        fault::KeepsIdleWriteHead.name(),
        BOUND,
    )
    .unwrap();
}

/// The classic mistake: the reader returns the head because everything is consumed,
/// without winning the hand-off, while the writer may be writing into it.
#[test]
fn idle_head_races_next_write_catches_return_write_head() {
    expect_target_caught(
        &builtin::pipe(),
        "idle-head-races-next-write",
        fault::ReturnWriteHead.name(),
        BOUND,
    )
    .unwrap();
}

/// The claim's end ignored: the reader consumed "ab", the writer resumed the head,
/// wrote "c" and parked it again before the claim, and the head goes back with "c"
/// unread. (In `head-reparked-while-reader-reclaims` the same bug shows as a deadlock:
/// there the writer waits for a reply instead of completing.)
#[test]
fn idle_head_races_next_write_catches_reclaim_trusts_locked_end() {
    expect_target_caught(
        &builtin::pipe(),
        "idle-head-races-next-write",
        fault::ReclaimTrustsLockedEnd.name(),
        BOUND,
    )
    .unwrap();
}

#[test]
fn consume_to_segment_boundary() {
    check_target(&builtin::pipe(), "consume-to-segment-boundary", None, BOUND).unwrap();
}

#[test]
fn consume_to_segment_boundary_catches_keeps_consumed_segment() {
    expect_target_caught(
        &builtin::pipe(),
        "consume-to-segment-boundary",
        fault::KeepsConsumedSegment.name(),
        BOUND,
    )
    .unwrap();
}

#[test]
fn fast_flush_behind_reclaimed_head() {
    check_target(&builtin::pipe(), "fast-flush-behind-reclaimed-head", None, BOUND).unwrap();
}

/// The claim's end ignored: found with the reader preempted inside its advance, between
/// the end it compares and its claim, while the writer resumes the head, writes "c",
/// flushes and completes.
#[test]
fn fast_flush_behind_reclaimed_head_catches_reclaim_trusts_locked_end() {
    expect_target_caught(
        &builtin::pipe(),
        "fast-flush-behind-reclaimed-head",
        fault::ReclaimTrustsLockedEnd.name(),
        BOUND,
    )
    .unwrap();
}

/// Bound 2 (7,666 interleavings in the campaign's dev build): the writer waits for the
/// reader's reply after it re-parks the head, so the race takes one preemption.
const REPARKED_BOUND: usize = 2;

/// Clean, and the window is reached: in some interleaving the reader's claim finds the
/// head parked again behind the end it compared and keeps it (`HeadKept`).
#[test]
fn head_reparked_while_reader_reclaims_keeps_the_head() {
    static KEPT: Mutex<bool> = Mutex::new(false);
    let scenario = find("head-reparked-while-reader-reclaims").expect("the scenario exists");
    explore("head-reparked-while-reader-reclaims", REPARKED_BOUND, move || {
        let monitor = scenario.monitor();
        (scenario.body)(&monitor);
        monitor.assert_finished();
        if monitor
            .log()
            .iter()
            .any(|e| matches!(e.observation, Observation::Pipe(PipeEvent::HeadKept { .. })))
        {
            *KEPT.lock().unwrap() = true;
        }
    });
    assert!(
        *KEPT.lock().unwrap(),
        "no interleaving where the reader finds the head parked again and keeps it"
    );
}

/// The kept head's end is remembered: once the reader consumes the head it kept, the
/// advance returns it although the writer waits idle (no new head behind it, no
/// completion). Found at the reparked bound.
#[test]
fn head_reparked_while_reader_reclaims_catches_forgets_kept_head_end() {
    expect_target_caught(
        &builtin::pipe(),
        "head-reparked-while-reader-reclaims",
        fault::ForgetsKeptHeadEnd.name(),
        REPARKED_BOUND,
    )
    .unwrap();
}
