//! Proptest jobs: a target's random operation sequences (its
//! [`Sequences`](crate::Sequences)), every invariant checked after each
//! operation.

use crate::check::engine::timed;

use super::Budget;
use crate::campaign::jobs::Job;
use crate::campaign::outcome::{Fired, JobResult};
use crate::campaign::registry;

pub(crate) fn run(job: &Job, budget: Budget) -> JobResult {
    let Some(sequences) = registry::target(&job.target).and_then(|t| t.sequences_runner()) else {
        return JobResult::error(job, format!("target `{}` declares no operation sequences", job.target));
    };
    let seed = budget.seed_for(job);
    let cases = u32::try_from(budget.iterations).unwrap_or(u32::MAX);
    let (run, elapsed) = timed(|| sequences(job.planted(), cases, seed, Some(budget.time)));
    let iterations = run.failure.as_ref().map_or(run.cases_run, |f| f.first_failing_case) as u64;
    let fired = run.failure.map(|f| {
        let fired = Fired::from(&f.failure);
        Fired { message: format!("{} [shrunk to {}]", fired.message, f.shrunk), ..fired }
    });
    let mut result = JobResult::new(job, fired, iterations, elapsed.as_secs_f64());
    result.seed = Some(seed);
    if result.message.is_some() {
        let fault = job.fault.as_deref().map_or(String::new(), |f| format!(" --fault {f}"));
        result.reproduce = Some(format!(
            "{} --engine proptest{fault} --iterations {cases} --exact-seed {seed}",
            registry::campaign().command()
        ));
    }
    result
}
