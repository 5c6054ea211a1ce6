//! Every planted bug of the pipe is caught by the operation-sequence property, under
//! the invariant it is planted to break.
//!
//! Each test runs [`hunt`] (the property of `op_sequences.rs`, from a fixed seed, so the
//! hunt is deterministic) with one fault switched on, asserts that it fails and that
//! the shrunk failure names `fault.breaks()`, and prints how many cases the hunt took
//! and the shrunk sequence. Replay one with
//! `cargo test -p pipecheck-properties --test properties -- fault_sequences::<test name> --nocapture`.
#![cfg(not(any(feature = "loom", feature = "shuttle")))]

use pipecheck::{InvariantId, PlantedFault};
use pipecheck_pipe::fault;
use pipecheck_properties::{hunt, pipe_faults};

/// The hunts' seed: fixed, so every run finds the same failure in the same number of cases.
const SEED: u64 = 0x005E_ED0F_FA17;
/// Cases a hunt may take before the fault counts as missed.
const MAX_CASES: u32 = 4096;

/// Asserts that the property catches `fault` under the invariant it breaks.
fn caught(fault: &'static PlantedFault) -> Result<(), String> {
    let found = hunt(Some(fault), MAX_CASES, SEED, None);
    let Some(failure) = found.failure else {
        return Err(format!(
            "{fault} was not caught in {MAX_CASES} cases: the op-sequence property misses it"
        ));
    };
    println!(
        "{fault}: caught at case {} ({} cases with shrinking); shrunk to {} op(s) + teardown: {:?}\n  \
         settings: {:?}",
        failure.first_failing_case,
        found.cases_run,
        failure.ops.len(),
        failure.ops,
        failure.config
    );
    if failure.failure.invariant() != Some(fault.breaks()) {
        return Err(format!(
            "{fault} failed the property, but not as `{}`: {}",
            fault.breaks(),
            failure.failure
        ));
    }
    Ok(())
}

/// Every pipe fault declared `in_sequences` (in `pipecheck_pipe::fault`) is caught by
/// operation sequences as the invariant it breaks. The list is the declarations': a
/// new fault flagged `in_sequences` is hunted here with nothing else to add.
#[test]
fn every_fault_declared_in_sequences_is_caught_as_its_invariant() {
    let missed: Vec<String> = pipe_faults().filter_map(|fault| caught(fault).err()).collect();
    assert!(pipe_faults().count() >= 20, "the pipe's sequence-reachable faults went missing");
    assert!(missed.is_empty(), "{}", missed.join("\n"));
}

/// The history-only fault in operation sequences: it breaks **linearizable** and no
/// per-event invariant, so an operation sequence cannot catch it *as its invariant*
/// (it is not declared `in_sequences`, and the campaign's proptest jobs leave it out).
/// One thread's sequence is a sequential history, though, and its reference model is a
/// sequential specification: it sees the bug, as a model mismatch, and no invariant fires.
#[test]
fn a_history_only_fault_is_a_model_mismatch() {
    let fault = &fault::ReadSkipsPublishedEnd;
    assert!(!fault.reached_by_sequences());
    let found = hunt(Some(fault), MAX_CASES, SEED, None);
    let Some(failure) = found.failure else {
        panic!("{fault} was not seen in {MAX_CASES} cases");
    };
    println!(
        "{fault}: seen at case {} as {}; shrunk to {:?}",
        failure.first_failing_case,
        failure.failure.label(),
        failure.ops
    );
    assert_eq!(failure.failure.kind(), "model-mismatch", "{fault}: {}", failure.failure);
    assert_eq!(fault.breaks(), InvariantId::LINEARIZABLE);
}
