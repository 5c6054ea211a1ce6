//! `loom_harness::check_target_all` means what it says: a target whose planted bugs
//! its scenario catches passes, and the same target with a planted bug no interleaving
//! shows fails (its child process reports a pass; the run is printed before it).
//!
//! Run: `cargo test -p pipecheck-models --features loom --test loom -- target_all::`.

use pipecheck::loom_harness::check_target_all;

#[path = "../common/adder.rs"]
mod adder;
use adder::{ALL, AddsOne, target};

#[test]
fn a_target_whose_bugs_are_caught_passes() {
    check_target_all(&target(&[&AddsOne]));
}

#[test]
#[should_panic(expected = "the planted bug went unnoticed")]
fn a_planted_bug_no_interleaving_shows_fails_the_check() {
    check_target_all(&target(ALL));
}
