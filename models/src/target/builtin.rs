//! pipecheck's own targets, registered through the public [`Target`] API: the pipe
//! (`pipe`) and the seed primitives (`primitives`).
//!
//! Their planted bugs stay the [`Fault`] enum the pipe's options switch on; each is
//! declared here as a [`PlantedFault`] of the same name, and a scenario's run turns
//! the planted fault it is given back into the [`FaultSet`] its monitor builds the pipe
//! or primitive with.

use std::sync::Arc;

use pipecheck_core::{Fault, FaultSet, PlantedFault};
use pipecheck_properties::RunLog;

use super::{Target, TargetScenario};
use crate::Scenario;

/// Every [`Fault`] as a [`PlantedFault`], in [`Fault::ALL`] order.
static PLANTED: [PlantedFault; Fault::ALL.len()] = {
    let mut planted = [PlantedFault::new("", pipecheck_core::InvariantId::new(""), ""); Fault::ALL.len()];
    let mut i = 0;
    while i < Fault::ALL.len() {
        let fault = Fault::ALL[i];
        planted[i] =
            PlantedFault::new(fault.name(), fault.breaks(), "a planted bug of pipecheck (see `Fault`)");
        i += 1;
    }
    planted
};

/// The [`PlantedFault`] declaring `fault`.
pub fn planted(fault: Fault) -> &'static PlantedFault {
    &PLANTED[Fault::ALL.iter().position(|&f| f == fault).expect("every fault is in Fault::ALL")]
}

/// The [`Fault`] a built-in planted fault declares.
pub fn fault_of(planted: &PlantedFault) -> Option<Fault> {
    planted.name().parse().ok()
}

/// The pipe's scenarios (everything but the seed primitives') as a target.
pub fn pipe() -> Target {
    let primitives: Vec<&str> = crate::primitives::SCENARIOS.iter().map(|s| s.name).collect();
    from_scenarios(
        "pipe",
        "the segmented single-reader/single-writer byte pipe",
        crate::all().into_iter().filter(|s| !primitives.contains(&s.name)).collect(),
    )
}

/// The seed primitives' scenarios (async mutex, message channel, completion source,
/// partitioned pool) as a target.
pub fn primitives() -> Target {
    from_scenarios(
        "primitives",
        "the seed primitives: async mutex, message channel, completion source, partitioned pool",
        crate::primitives::SCENARIOS.to_vec(),
    )
}

/// pipecheck's own targets: [`pipe`] and [`primitives`].
pub fn all() -> Vec<Target> {
    vec![pipe(), primitives()]
}

/// A target of pipe-monitor scenarios; its faults are those its scenarios catch.
fn from_scenarios(name: &'static str, summary: &'static str, scenarios: Vec<Scenario>) -> Target {
    let faults: Vec<&'static PlantedFault> = Fault::ALL
        .iter()
        .filter(|f| scenarios.iter().any(|s| s.catches.contains(f)))
        .map(|&f| planted(f))
        .collect();
    let scenarios = scenarios.into_iter().map(erase).collect();
    Target::new(name, summary).faults(&faults).scenarios(crate::invariants(), scenarios)
}

/// `scenario` as a [`TargetScenario`]: the planted fault becomes the monitor's fault set.
fn erase(scenario: Scenario) -> TargetScenario {
    let catches = scenario.catches.iter().map(|&f| planted(f)).collect();
    TargetScenario::new(scenario.name, scenario.summary, scenario.scale, catches, move |fault, publish| {
        let faults = fault.and_then(fault_of).map_or(FaultSet::NONE, |f| FaultSet::NONE.with(f));
        let monitor = scenario.monitor(faults);
        publish(monitor.clone() as Arc<dyn RunLog>);
        (scenario.body)(&monitor);
        monitor.assert_finished();
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_targets_are_valid_and_declare_every_fault_once() {
        let targets = all();
        for target in &targets {
            target.validate().unwrap_or_else(|e| panic!("{e}"));
        }
        let every_scenario = crate::all();
        for &fault in Fault::ALL {
            let owners = targets.iter().filter(|t| t.fault(fault.name()).is_ok()).count();
            // A fault no scenario claims (asserted by its own test only) cannot be
            // declared: a target rejects unclaimed faults.
            let claimed = every_scenario.iter().any(|s| s.catches.contains(&fault));
            assert_eq!(owners, usize::from(claimed), "{fault} is declared by {owners} built-in targets");
            assert_eq!(planted(fault).breaks(), fault.breaks());
            assert_eq!(fault_of(planted(fault)), Some(fault));
        }
        let scenarios: usize = targets.iter().map(|t| t.all_scenarios().len()).sum();
        assert_eq!(scenarios, every_scenario.len());
    }
}
