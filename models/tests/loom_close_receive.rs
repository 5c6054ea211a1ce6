//! Loom: the close/receive family, exhaustively.
#![cfg(feature = "loom")]

use pipecheck_core::{Fault, FaultSet};
use pipecheck_models::find;

fn explore(name: &str, faults: FaultSet) {
    let scenario = find(name).expect("scenario exists");
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(2);
    builder.check(move || scenario.run_once(faults));
}

#[test]
fn writer_complete_races_read() {
    explore("writer-complete-races-read", FaultSet::NONE);
}

#[test]
#[should_panic]
fn writer_complete_races_read_catches_lost_wake() {
    explore("writer-complete-races-read", FaultSet::NONE.with(Fault::LostWakeOnComplete));
}
