//! What pipecheck reports to people and to its own tools: the names of invariants and
//! planted bugs (verdicts and trace files match on them), the text of a violation and
//! of an operation, and how failures compare. Small values, checked exactly, so a
//! change of wording is a decision and not an accident.

use std::io;

use pipecheck_pipe::{Failure, PipeOperation, PipeOptions, PrimitiveId};
use pipecheck_sync::{InvariantId, PlantedFault, Violation};

#[test]
fn an_invariant_is_named_and_displayed_by_its_name() {
    let id = InvariantId::new("wakes-receiver");
    assert_eq!(id.name(), "wakes-receiver");
    assert_eq!(id.to_string(), "wakes-receiver");
    assert_eq!(InvariantId::new("wakes-receiver"), id, "the same name is the same invariant");
}

#[test]
fn a_planted_fault_keeps_its_name_invariant_and_summary() {
    static FORGETS_WAKE: PlantedFault = PlantedFault::new(
        "ForgetsWake",
        InvariantId::new("wakes-receiver"),
        "send stores the value but does not wake the receiver",
    );
    assert_eq!(FORGETS_WAKE.name(), "ForgetsWake");
    assert_eq!(FORGETS_WAKE.breaks().name(), "wakes-receiver");
    assert_eq!(FORGETS_WAKE.summary(), "send stores the value but does not wake the receiver");
    assert_eq!(FORGETS_WAKE.to_string(), "ForgetsWake");
    assert!(!FORGETS_WAKE.is_active(), "off unless a harness switches it on");
}

#[test]
fn a_violation_reads_invariant_step_detail_then_context() {
    let mut violation = Violation::new(InvariantId::new("byte-exact"), "byte 3 read twice");
    assert_eq!(violation.to_string(), "invariant `byte-exact` violated: byte 3 read twice");
    violation.step = Some(7);
    violation.context = "last 1 observation:\n   7  reader  Read".to_owned();
    assert_eq!(
        violation.to_string(),
        "invariant `byte-exact` violated at step 7: byte 3 read twice\nlast 1 observation:\n   7  reader  Read"
    );
}

#[test]
fn operations_and_primitives_are_displayed_as_the_reports_name_them() {
    let names: Vec<String> = [
        PipeOperation::Flush,
        PipeOperation::CompleteWriter,
        PipeOperation::CancelFlush,
        PipeOperation::AdvanceTo,
        PipeOperation::CompleteReader,
        PipeOperation::CancelRead,
    ]
    .iter()
    .map(ToString::to_string)
    .collect();
    assert_eq!(
        names,
        [
            "flush",
            "Writer::complete",
            "cancel_pending_flush",
            "advance_to",
            "Reader::complete",
            "cancel_pending_read"
        ]
    );
    assert_eq!(PrimitiveId(3).to_string(), "#3");
}

#[test]
fn failures_compare_by_message_and_share_a_cause_only_through_clones() {
    let failure = Failure::from_error(io::Error::other("disk gone"));
    let clone = failure.clone();
    assert!(failure.same_cause(&clone), "a clone carries the very same cause");
    let lookalike = Failure::from_error(io::Error::other("disk gone"));
    assert_eq!(failure, lookalike, "equal: the same message");
    assert!(!failure.same_cause(&lookalike), "but not the same cause");
    assert!(Failure::new("no cause").same_cause(&Failure::new("no cause either")), "neither has a cause");
    assert!(!Failure::new("disk gone").same_cause(&failure), "one has a cause, one has none");
    assert_ne!(Failure::new("a"), Failure::new("b"));
}

#[test]
fn options_report_the_pool_chunk_they_were_given() {
    assert_eq!(PipeOptions::new().pool_first_chunk(3).get_pool_first_chunk(), 3);
    assert_eq!(PipeOptions::new().pool_first_chunk(0).get_pool_first_chunk(), 1, "at least one slot");
}

#[test]
fn failures_hash_by_their_message() {
    use std::hash::{BuildHasher, RandomState};
    let state = RandomState::new();
    let a = Failure::new("disk gone");
    assert_eq!(state.hash_one(&a), state.hash_one(Failure::from_error(io::Error::other("disk gone"))));
    assert_ne!(
        state.hash_one(&a),
        state.hash_one(Failure::new("disk full")),
        "different messages, different hashes"
    );
}
