//! Every scenario on plain threads ([`Threads`]): no schedule control, only what the OS
//! interleaves, but the same bodies, checkers and verdicts as under loom and shuttle;
//! and a planted bug that needs no particular interleaving is caught as its invariant.
//! Also the check that `docs/invariants.md`'s table is the one the pipe's declarations
//! give ([`docs_table`]).
//!
//! Run: `cargo test -p pipecheck-models --test threads`.
#![cfg(not(any(feature = "loom", feature = "shuttle")))]

use pipecheck::{Engine, Threads, Verdict};
use pipecheck_pipe::fault;

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

/// `docs/invariants.md`'s table of the pipe's invariants and planted bugs, generated from
/// the targets' declarations ([`pipecheck::invariants_table`]).
mod docs_table {
    use pipecheck::{invariants_table, with_table};
    use pipecheck_models::builtin;

    const DOC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/invariants.md");

    /// `docs/invariants.md`'s table is the one the pipe's and the primitives' declarations
    /// give; `PIPECHECK_WRITE_DOCS=1` writes it there instead (the only run that edits a
    /// tracked file, and only when asked).
    #[test]
    fn the_invariants_table_in_the_docs_is_generated_from_the_declarations() {
        let table = invariants_table(&[builtin::pipe(), builtin::primitives()]);
        let doc = std::fs::read_to_string(DOC).expect("docs/invariants.md");
        let expected = with_table(&doc, &table).unwrap_or_else(|e| panic!("{DOC}: {e}"));
        if std::env::var_os("PIPECHECK_WRITE_DOCS").is_some() {
            std::fs::write(DOC, &expected).expect("docs/invariants.md is writable");
            return;
        }
        assert!(
            doc == expected,
            "docs/invariants.md's invariants table differs from the declarations; regenerate it with\n  \
             PIPECHECK_WRITE_DOCS=1 cargo test -p pipecheck-models --test threads docs_table\n\
             the table they give:\n{table}"
        );
    }
}
