//! Loom jobs: every interleaving of a small scenario within the preemption bound.

use std::sync::atomic::Ordering;

use pipecheck_core::FaultSet;
use pipecheck_models::Scenario;

use super::{Budget, catch_failure, first_line, timed};
use crate::jobs::Job;
use crate::outcome::JobResult;

pub(crate) fn run(job: &Job, scenario: Scenario, faults: FaultSet, budget: Budget) -> JobResult {
    let executions = &super::EXECUTIONS;
    executions.store(0, Ordering::Relaxed);
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(budget.loom_bound);
    builder.max_duration = Some(budget.time);
    let (failure, seconds) = timed(|| {
        catch_failure(move || {
            builder.check(move || {
                super::EXECUTIONS.fetch_add(1, Ordering::Relaxed);
                scenario.run_once(faults);
            })
        })
    });
    let mut result = JobResult::new(
        job,
        failure.map(|(m, i)| (first_line(&m), i)),
        executions.load(Ordering::Relaxed),
        seconds,
    );
    if result.message.is_some() {
        let fault = job.fault.map_or(String::new(), |f| format!(" --fault {f}"));
        result.reproduce = Some(format!(
            "LOOM_MAX_PREEMPTIONS={} cargo campaign --engine loom --scenario {}{fault}   (add LOOM_LOG=1 for loom's interleaving log)",
            budget.loom_bound, scenario.name
        ));
    }
    result
}
