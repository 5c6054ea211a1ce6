//! Proptest jobs: random operation sequences against the reference model, every
//! invariant checked after each operation (`pipecheck_properties::hunt`).

use pipecheck_core::FaultSet;
use pipecheck_properties::engine::timed;

use super::Budget;
use crate::jobs::Job;
use crate::outcome::{Fired, JobResult};

pub(crate) fn run(job: &Job, faults: FaultSet, budget: Budget) -> JobResult {
    let seed = budget.seed_for(job.id);
    let cases = u32::try_from(budget.iterations).unwrap_or(u32::MAX);
    let (hunt, elapsed) = timed(|| pipecheck_properties::hunt(faults, cases, seed, Some(budget.time)));
    let iterations = hunt.failure.as_ref().map_or(hunt.cases_run, |f| f.first_failing_case) as u64;
    let fired = hunt.failure.map(|f| {
        let fired = Fired::from(&f.failure);
        Fired { message: format!("{} [shrunk to {} ops: {:?}]", fired.message, f.ops.len(), f.ops), ..fired }
    });
    let mut result = JobResult::new(job, fired, iterations, elapsed.as_secs_f64());
    result.seed = Some(seed);
    if result.message.is_some() {
        let fault = job.fault.map_or(String::new(), |f| format!(" --fault {f}"));
        result.reproduce =
            Some(format!("cargo campaign --engine proptest{fault} --iterations {cases} --exact-seed {seed}"));
    }
    result
}
