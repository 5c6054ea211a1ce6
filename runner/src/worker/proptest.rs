//! Proptest jobs: random operation sequences against the reference model
//! (`pipecheck_properties::hunt`), from the job's seed, shrunk on failure.

use pipecheck_core::FaultSet;

use super::{Budget, catch_failure, first_line, timed};
use crate::jobs::Job;
use crate::outcome::{JobResult, invariant_of};

pub(crate) fn run(job: &Job, faults: FaultSet, budget: Budget) -> JobResult {
    let seed = budget.seed_for(job.id);
    let cases = u32::try_from(budget.iterations).unwrap_or(u32::MAX);
    let mut hunt = None;
    // `hunt` catches the cases' panics itself; this catches one outside any case.
    let (outside, seconds) = timed(|| {
        catch_failure(|| hunt = Some(pipecheck_properties::hunt(faults, cases, seed, Some(budget.time))))
    });
    let failure = hunt.as_ref().and_then(|h| h.failure.as_ref()).map(|f| {
        let detail = format!("{} (shrunk to {} ops: {:?})", first_line(&f.message), f.ops.len(), f.ops);
        (detail, invariant_of(&f.message))
    });
    // Cases to the first failure (not counting shrinking), else all cases run.
    let cases_run =
        hunt.as_ref().map_or(0, |h| h.failure.as_ref().map_or(h.cases_run, |f| f.first_failing_case));
    let mut result = JobResult::new(job, failure.or(outside), cases_run as u64, seconds);
    result.seed = Some(seed);
    if result.message.is_some() {
        let fault = job.fault.map_or(String::new(), |f| format!(" --fault {f}"));
        result.reproduce = Some(format!("cargo campaign --engine proptest{fault} --exact-seed {seed}"));
    }
    result
}
