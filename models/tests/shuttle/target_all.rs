//! `engine::shuttle::check_target_all` means what it says: a target whose planted bugs
//! its scenario catches passes, and the same target with a planted bug no run can see
//! fails, naming it.
//!
//! Run: `cargo test -p pipecheck-models --features shuttle --test shuttle -- target_all::`.

use pipecheck::engine::shuttle::check_target_all;

#[path = "../common/adder.rs"]
mod adder;
use adder::{ALL, AddsOne, target};

#[test]
fn a_target_whose_bugs_are_caught_passes() {
    check_target_all(&target(&[&AddsOne]), 1, 20);
}

#[test]
#[should_panic(expected = "adder/two-adds with `Inert` planted: no scheduler reported it")]
fn a_planted_bug_no_scheduler_sees_fails_the_check() {
    check_target_all(&target(ALL), 1, 20);
}
