//! Every scenario on plain threads ([`Threads`]): no schedule control, only what the OS
//! interleaves, but the same bodies, checkers and verdicts as under loom and shuttle;
//! and a planted bug that needs no particular interleaving is caught as its invariant.
//!
//! Run: `cargo test -p pipecheck-models --test threads`.
#![cfg(not(any(feature = "loom", feature = "shuttle")))]

use pipecheck_pipe::fault;
use pipecheck::{Engine, Threads, Verdict};

/// Executions per scenario: enough for the OS to vary the interleaving a little.
const RUNS: u64 = 20;

#[test]
fn every_scenario_passes_on_plain_threads() {
    for scenario in pipecheck_models::all() {
        let checked = Threads { runs: RUNS }.check(scenario.execution(None));
        assert_eq!(checked.verdict, Verdict::Pass, "{}: {}", scenario.name, checked.verdict);
        assert_eq!(checked.executions, RUNS);
    }
}

#[test]
fn a_sequential_planted_bug_is_caught_as_its_invariant_on_plain_threads() {
    // A leaked buffer is found at the end of every run, whatever the interleaving.
    let scenario = pipecheck_models::find("both-complete-race-last-read").expect("scenario");
    let fault = &fault::LeakOnComplete;
    let checked = Threads { runs: 1 }.check(scenario.execution(Some(fault)));
    assert!(checked.verdict.names(fault.breaks()), "{}", checked.verdict);
}
