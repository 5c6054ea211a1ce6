//! The worker side: runs jobs in this process and prints one result line per job.
//!
//! The orchestrator starts one worker per build (std, `--features loom`,
//! `--features shuttle`), because loom and shuttle replace the sync primitives of the
//! whole program.

#[cfg(feature = "loom")]
mod loom;
mod proptest;
#[cfg(all(feature = "shuttle", not(feature = "loom")))]
mod shuttle;

use std::time::Duration;

use pipecheck_models::TargetScenario;

use crate::jobs::{Engine, Job};
use crate::outcome::{JobResult, RESULT_PREFIX, START_PREFIX};
use crate::registry;

/// Limits for one job.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Budget {
    /// Shuttle iterations / proptest cases.
    pub(crate) iterations: u64,
    /// Wall-clock limit per job.
    pub(crate) time: Duration,
    /// Loom's preemption bound.
    pub(crate) loom_bound: usize,
    /// Base seed; each job derives its own from it and its id.
    pub(crate) seed: u64,
    /// A seed to use as is, to reproduce one job.
    pub(crate) exact_seed: Option<u64>,
}

impl Budget {
    /// The seed of job `id`: independent of sharding, different per job.
    pub(crate) fn seed_for(&self, id: usize) -> u64 {
        if let Some(seed) = self.exact_seed {
            return seed;
        }
        splitmix64(self.seed ^ (id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }
}

/// One round of splitmix64: spreads nearby inputs over the whole `u64` range.
pub(crate) fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Runs `jobs`, printing a start line and a result line for each.
pub(crate) fn run(jobs: &[Job], budget: Budget) {
    for job in jobs {
        println!("{START_PREFIX}{}", job.id);
        eprintln!("{START_PREFIX}{}", job.id);
        let result = run_one(job, budget);
        println!("{RESULT_PREFIX}{}", serde_json::to_string(&result).expect("results serialize"));
        // After a failing execution shuttle's per-process state is not reliably reusable:
        // stop, and the orchestrator starts a fresh worker for the remaining jobs.
        if result.message.is_some() && matches!(job.engine, Engine::ShuttleRandom | Engine::ShuttlePct) {
            return;
        }
    }
}

/// Runs one job in this process (the engines keep their checkers' panics quiet).
pub(crate) fn run_one(job: &Job, budget: Budget) -> JobResult {
    if job.fault.is_some() && job.planted().is_none() {
        return JobResult::error(
            job,
            format!(
                "target `{}` declares no planted bug `{}`",
                job.target,
                job.fault.as_deref().unwrap_or("")
            ),
        );
    }
    if job.engine == Engine::Proptest {
        return proptest::run(job, budget);
    }
    let Some(scenario) = registry::scenario(&job.target, &job.scenario) else {
        return JobResult::error(job, format!("target `{}` has no scenario `{}`", job.target, job.scenario));
    };
    run_scenario(job, scenario, budget)
}

#[cfg(feature = "loom")]
fn run_scenario(job: &Job, scenario: &TargetScenario, budget: Budget) -> JobResult {
    match job.engine {
        Engine::Loom => loom::run(job, scenario, budget),
        _ => JobResult::error(job, format!("this worker was built for loom, not {}", job.engine)),
    }
}

#[cfg(all(feature = "shuttle", not(feature = "loom")))]
fn run_scenario(job: &Job, scenario: &TargetScenario, budget: Budget) -> JobResult {
    match job.engine {
        Engine::ShuttleRandom | Engine::ShuttlePct => shuttle::run(job, scenario, budget),
        _ => JobResult::error(job, format!("this worker was built for shuttle, not {}", job.engine)),
    }
}

#[cfg(not(any(feature = "loom", feature = "shuttle")))]
fn run_scenario(job: &Job, _: &TargetScenario, _: Budget) -> JobResult {
    JobResult::error(job, format!("{} jobs need a worker built with `--features {}`", job.engine, job.engine))
}
