//! Proptest jobs: random operation sequences against the reference model, every
//! invariant checked after each operation (`pipecheck_properties::hunt`).

use pipecheck_core::FaultSet;

use super::{Budget, first_line, timed};
use crate::jobs::Job;
use crate::outcome::{JobResult, invariant_of};

pub(crate) fn run(job: &Job, faults: FaultSet, budget: Budget) -> JobResult {
    let seed = budget.seed_for(job.id);
    let cases = u32::try_from(budget.iterations).unwrap_or(u32::MAX);
    let (hunt, seconds) = timed(|| pipecheck_properties::hunt(faults, cases, seed, Some(budget.time)));
    let iterations = hunt.failure.as_ref().map_or(hunt.cases_run, |f| f.first_failing_case) as u64;
    let failure = hunt.failure.map(|f| {
        let invariant = invariant_of(&f.message);
        (format!("{} [shrunk to {} ops: {:?}]", first_line(&f.message), f.ops.len(), f.ops), invariant)
    });
    let mut result = JobResult::new(job, failure, iterations, seconds);
    result.seed = Some(seed);
    if result.message.is_some() {
        let fault = job.fault.map_or(String::new(), |f| format!(" --fault {f}"));
        result.reproduce =
            Some(format!("cargo campaign --engine proptest{fault} --iterations {cases} --exact-seed {seed}"));
    }
    result
}
