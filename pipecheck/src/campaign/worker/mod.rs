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

use crate::target::TargetScenario;

use crate::campaign::jobs::{Engine, Job};
use crate::campaign::outcome::{JobResult, RESULT_PREFIX, START_PREFIX};
use crate::campaign::registry;

/// Limits for one job.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Budget {
    /// Shuttle iterations / proptest cases.
    pub(crate) iterations: u64,
    /// Wall-clock limit per job.
    pub(crate) time: Duration,
    /// Loom's preemption bound for every job (`--loom-bound`), instead of each
    /// scenario's own.
    pub(crate) loom_bound: Option<usize>,
    /// Base seed; each job derives its own from it and what the job runs.
    pub(crate) seed: u64,
    /// A seed to use as is, to reproduce one job.
    pub(crate) exact_seed: Option<u64>,
}

impl Budget {
    /// The seed of `job`: different per job, and derived from what it runs (engine,
    /// target, scenario, planted bug), not from its place in the plan, so that neither
    /// sharding nor a scenario or planted bug added to the plan moves any other job's
    /// schedules (with the index, one new scenario reseeded every job after it, and
    /// cells of the kill matrix changed with nothing in their code changed).
    pub(crate) fn seed_for(&self, job: &Job) -> u64 {
        if let Some(seed) = self.exact_seed {
            return seed;
        }
        let identity =
            format!("{}:{}/{}:{}", job.engine, job.target, job.scenario, job.fault.as_deref().unwrap_or("-"));
        splitmix64(self.seed ^ fnv1a(identity.as_bytes()))
    }
}

/// FNV-1a, 64 bits: a stable hash of a job's identity (std's hasher may change
/// between releases, and a seed must not).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xCBF2_9CE4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01B3)
    })
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
    if job.fault.is_some() && !pipecheck_sync::PlantedFault::can_activate() {
        return JobResult::error(
            job,
            "this build cannot switch planted bugs on: it needs pipecheck's `faults`, `loom` or \
             `shuttle` feature"
                .to_owned(),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(exact_seed: Option<u64>) -> Budget {
        Budget { iterations: 1, time: Duration::from_secs(1), loom_bound: Some(1), seed: 7, exact_seed }
    }

    fn job(id: usize, scenario: &str, fault: Option<&str>) -> Job {
        Job {
            id,
            engine: Engine::ShuttleRandom,
            target: "counter".to_owned(),
            scenario: scenario.to_owned(),
            fault: fault.map(str::to_owned),
        }
    }

    #[test]
    fn a_jobs_seed_follows_what_it_runs_not_its_place_in_the_plan() {
        let budget = budget(None);
        let seed = budget.seed_for(&job(3, "large-stream", Some("LostWakeOnComplete")));
        assert_eq!(seed, budget.seed_for(&job(40, "large-stream", Some("LostWakeOnComplete"))));
        assert_ne!(seed, budget.seed_for(&job(3, "large-stream", None)));
        assert_ne!(seed, budget.seed_for(&job(3, "large-frames", Some("LostWakeOnComplete"))));
        let pct = Job { engine: Engine::ShuttlePct, ..job(3, "large-stream", Some("LostWakeOnComplete")) };
        assert_ne!(seed, budget.seed_for(&pct));
        assert_ne!(
            seed,
            Budget { seed: 8, ..budget }.seed_for(&job(3, "large-stream", Some("LostWakeOnComplete")))
        );
    }

    #[test]
    fn an_exact_seed_is_every_jobs_seed() {
        let budget = budget(Some(42));
        assert_eq!(budget.seed_for(&job(0, "large-stream", None)), 42);
        assert_eq!(budget.seed_for(&job(9, "large-frames", Some("LostWakeOnComplete"))), 42);
    }
}
