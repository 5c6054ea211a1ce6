//! Under shuttle's random and PCT schedulers, the wake and outcome bugs are caught
//! *online*, as the monitor's typed violation of the invariant they break, in every
//! scenario that declares them — not as the deadlock a lost wake may lead to. In
//! `flush-races-read` the writer completes right after the flush, and its completion
//! wakes the read the flush forgot, so only an online check can catch it there.
//!
//! Budgets and seeds: as `explore_faults.rs` (`PIPECHECK_SHUTTLE_SEED`, ...).
#![cfg(feature = "shuttle")]

use pipecheck::FailureKind;
use pipecheck::PlantedFault;
use pipecheck::trace::explore::{Exploration, Settings, explore_in};
use pipecheck_pipe::fault;

const FAULTS: &[&PlantedFault] = &[
    &fault::FlushForgetsWake,
    &fault::KeepsStaleWaker,
    &fault::CompleteDropsUnflushed,
    &fault::PausesAfterReaderCompleted,
    &fault::ReadLosesCancel,
    &fault::FlushLosesCancel,
];

#[test]
fn wake_and_outcome_bugs_are_caught_online_in_every_declaring_scenario() {
    let settings = Settings::from_env().unwrap_or_else(|e| panic!("{e}"));
    eprintln!("seed {} (PIPECHECK_SHUTTLE_SEED), {} iterations", settings.seed, settings.iterations);
    let mut missed = Vec::new();
    let pipe = pipecheck_models::builtin::pipe();
    for &fault in FAULTS {
        let scenarios = pipe.scenarios_catching(fault);
        assert!(!scenarios.is_empty(), "no scenario declares {fault}");
        for scenario in scenarios {
            for kind in settings.schedulers() {
                match explore_in(&pipe, scenario, Some(fault), kind, &settings) {
                    Exploration::Failed(found) => {
                        let online = matches!(&found.failure.kind, FailureKind::InvariantViolated(v)
                            if v.invariant == fault.breaks());
                        eprintln!(
                            "{fault:<28} {:<36} {:<14} {} at iteration {}",
                            scenario.name,
                            kind.to_string(),
                            found.failure.kind.label(),
                            found.iteration
                        );
                        if !online {
                            missed.push(format!(
                                "{fault} in {} under {kind}: {}",
                                scenario.name, found.failure.kind
                            ));
                        }
                    }
                    Exploration::Passed { iterations, .. } => {
                        missed
                            .push(format!("{fault} in {} under {kind}: passed {iterations}", scenario.name));
                    }
                }
            }
        }
    }
    assert!(missed.is_empty(), "not caught online: {missed:#?}");
}
