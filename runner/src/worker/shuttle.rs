//! Shuttle jobs: random or PCT schedules of a scenario, from a recorded seed.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use pipecheck_core::FaultSet;
use pipecheck_models::Scenario;
use shuttle::scheduler::{PctScheduler, RandomScheduler};
use shuttle::{Config, FailurePersistence, Runner};

use super::{Budget, catch_failure, first_line, timed};
use crate::jobs::{Engine, Job};
use crate::outcome::JobResult;

/// PCT's bug depth: the number of priority change points (2-3 finds most ordering bugs).
const PCT_DEPTH: usize = 3;

pub(crate) fn run(job: &Job, scenario: Scenario, faults: FaultSet, budget: Budget) -> JobResult {
    let seed = budget.seed_for(job.id);
    let executions = Arc::new(AtomicU64::new(0));
    let counter = executions.clone();
    let mut config = Config::new();
    config.failure_persistence = FailurePersistence::None;
    config.max_time = Some(budget.time);
    let iterations = budget.iterations as usize;
    let body = move || {
        counter.fetch_add(1, Ordering::Relaxed);
        scenario.run_once(faults);
    };
    let (failure, seconds) = timed(|| {
        catch_failure(|| {
            match job.engine {
                Engine::ShuttlePct => {
                    Runner::new(PctScheduler::new_from_seed(seed, PCT_DEPTH, iterations), config).run(body)
                }
                _ => Runner::new(RandomScheduler::new_from_seed(seed, iterations), config).run(body),
            };
        })
    });
    let mut result = JobResult::new(
        job,
        failure.map(|(m, i)| (first_line(&m), i)),
        executions.load(Ordering::Relaxed),
        seconds,
    );
    result.seed = Some(seed);
    if result.message.is_some() {
        let fault = job.fault.map_or(String::new(), |f| format!(" --fault {f}"));
        result.reproduce = Some(format!(
            "cargo campaign --engine {} --scenario {}{fault} --seed-of-job {seed}",
            job.engine, scenario.name
        ));
    }
    result
}
