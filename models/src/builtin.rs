//! pipecheck's own targets, declared with the same public [`Target`] API a user's crate
//! uses: the pipe (`pipe`) and the seed primitives (`primitives`). Their planted bugs
//! are the `PlantedFault` statics of `pipecheck_pipe::fault`, switched on by the engines
//! exactly as a user's are.

use std::time::Duration;

use pipecheck::PlantedFault;
use pipecheck_pipe::fault;

use crate::Scenario;
use pipecheck::{SequencesFailure, SequencesRun, Target};

/// The pipe's scenarios (everything but the seed primitives') as a target.
pub fn pipe() -> Target {
    let primitives: Vec<&str> = crate::primitives::SCENARIOS.iter().map(|s| s.name).collect();
    let scenarios: Vec<Scenario> =
        crate::all().into_iter().filter(|s| !primitives.contains(&s.name)).collect();
    crate::scenario::declare(
        Target::new("pipe", "the segmented single-reader/single-writer byte pipe"),
        &scenarios,
    )
    .faults(&claimed_in(&scenarios))
    .sequences(pipe_sequences)
}

/// The pipe's operation sequences against its reference model, every invariant checked
/// after each operation ([`pipecheck_properties::hunt`]).
fn pipe_sequences(
    fault: Option<&'static PlantedFault>,
    cases: u32,
    seed: u64,
    time: Option<Duration>,
) -> SequencesRun {
    let hunt = pipecheck_properties::hunt(fault, cases, seed, time);
    SequencesRun {
        cases_run: hunt.cases_run,
        failure: hunt.failure.map(|f| SequencesFailure {
            first_failing_case: f.first_failing_case,
            shrunk: format!("{} ops: {:?}", f.ops.len(), f.ops),
            failure: f.failure,
        }),
    }
}

/// The seed primitives' scenarios (async mutex, message channel, completion source,
/// partitioned pool) as a target.
pub fn primitives() -> Target {
    crate::scenario::declare(
        Target::new(
            "primitives",
            "the seed primitives: async mutex, message channel, completion source, partitioned pool",
        ),
        crate::primitives::SCENARIOS,
    )
    .faults(&claimed_in(crate::primitives::SCENARIOS))
}

/// pipecheck's planted bugs that name one of `scenarios`: the pipe's and the seed
/// primitives' (`pipecheck_pipe::fault`), and the scenario fixtures' own
/// ([`spin_wait`](crate::scenarios::spin_wait)).
fn claimed_in(scenarios: &[Scenario]) -> Vec<&'static PlantedFault> {
    every_fault().filter(|f| scenarios.iter().any(|s| f.is_caught_in(s.name))).collect()
}

/// Every planted bug of the built-in targets.
fn every_fault() -> impl Iterator<Item = &'static PlantedFault> {
    fault::ALL.iter().chain(crate::scenarios::spin_wait::ALL).copied()
}

/// pipecheck's own targets: [`pipe`] and [`primitives`].
pub fn all() -> Vec<Target> {
    vec![pipe(), primitives()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_targets_are_valid_and_declare_every_claimed_fault_once() {
        let targets = all();
        for target in &targets {
            target.validate().unwrap_or_else(|e| panic!("{e}"));
        }
        let every_scenario = crate::all();
        for planted in every_fault() {
            let owners = targets.iter().filter(|t| t.fault(planted.name()).is_ok()).count();
            // A fault no scenario claims (asserted by its own test only) cannot be
            // declared: a target rejects unclaimed faults.
            let claimed = every_scenario.iter().any(|s| planted.is_caught_in(s.name));
            assert_eq!(owners, usize::from(claimed), "{planted} is declared by {owners} built-in targets");
        }
        let scenarios: usize = targets.iter().map(|t| t.all_scenarios().len()).sum();
        assert_eq!(scenarios, every_scenario.len());
    }
}
