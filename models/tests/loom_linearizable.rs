//! Loom: concurrent pipe histories are **linearizable** against the pipe's sequential
//! model, in every interleaving within the bound.
#![cfg(feature = "loom")]

use pipecheck_core::FaultSet;
use pipecheck_models::loom_harness::{Checks, check_scenario};

/// Bound 2 for this three-thread model (see models/LOOM.md for its size and time).
const BOUND: usize = 2;

#[test]
fn pipe_linearizable() {
    check_scenario("pipe-linearizable", FaultSet::NONE, BOUND, Checks::Registry);
}
