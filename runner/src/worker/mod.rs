//! The worker side: runs jobs in this process and prints one result line per job.
//!
//! The orchestrator starts one worker per build (std, `--features loom`,
//! `--features shuttle`), because loom and shuttle replace the sync primitives of the
//! whole program.

#[cfg(feature = "loom")]
mod loom;
mod proptest;
#[cfg(feature = "shuttle")]
mod shuttle;

use std::panic::{self, AssertUnwindSafe};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use pipecheck_core::FaultSet;
use pipecheck_models::Scenario;

use crate::jobs::{Engine, Job};
use crate::outcome::{JobResult, PANIC_PREFIX, RESULT_PREFIX, START_PREFIX, invariant_of};

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

/// The message of the last panic, captured by the quiet hook (checkers panic by design;
/// their backtraces would drown the output).
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// Executions of the current job so far (std atomic: invisible to the checkers), so a
/// worker that aborts mid-job still reports how far it got.
pub(crate) static EXECUTIONS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Whether this process is a worker (whose stderr is the orchestrator's log).
static IN_WORKER: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn install_quiet_panic_hook() {
    panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| info.payload().downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_else(|| info.to_string());
        // One line to stderr (the worker log): if the checker aborts the process after
        // this panic, the orchestrator still learns what broke.
        if IN_WORKER.load(std::sync::atomic::Ordering::Relaxed) {
            let executions = EXECUTIONS.load(std::sync::atomic::Ordering::Relaxed);
            eprintln!("{PANIC_PREFIX}[{executions}] {}", message.lines().next().unwrap_or(""));
        }
        *LAST_PANIC.lock().unwrap_or_else(|e| e.into_inner()) = Some(message);
    }));
}

/// Runs `body`, turning a panic into `(message, invariant)`.
#[cfg_attr(not(feature = "loom"), allow(dead_code))]
pub(crate) fn catch_failure(body: impl FnOnce()) -> Option<(String, Option<String>)> {
    LAST_PANIC.lock().unwrap_or_else(|e| e.into_inner()).take();
    let result = panic::catch_unwind(AssertUnwindSafe(body));
    let payload = result.err()?;
    let from_payload = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_default();
    let first = LAST_PANIC.lock().unwrap_or_else(|e| e.into_inner()).take().unwrap_or_default();
    // The monitor's own message names the invariant; a checker may wrap it.
    let invariant = invariant_of(&first).or_else(|| invariant_of(&from_payload));
    let message = if first.is_empty() { from_payload } else { first };
    Some((message, invariant))
}

/// The first line of a message, for tables.
pub(crate) fn first_line(message: &str) -> String {
    message.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim().to_owned()
}

/// Runs `jobs`, printing a start line and a result line for each.
pub(crate) fn run(jobs: &[Job], budget: Budget) {
    IN_WORKER.store(true, std::sync::atomic::Ordering::Relaxed);
    install_quiet_panic_hook();
    for job in jobs {
        println!("{START_PREFIX}{}", job.id);
        eprintln!("{START_PREFIX}{}", job.id);
        let result = run_job(job, budget);
        println!("{RESULT_PREFIX}{}", serde_json::to_string(&result).expect("results serialize"));
        // After a failing execution shuttle's per-process state is not reliably reusable:
        // stop, and the orchestrator starts a fresh worker for the remaining jobs.
        if result.message.is_some() && matches!(job.engine, Engine::ShuttleRandom | Engine::ShuttlePct) {
            return;
        }
    }
}

/// Runs one job in this process, with checker panics kept quiet.
pub(crate) fn run_one(job: &Job, budget: Budget) -> JobResult {
    let previous = panic::take_hook();
    install_quiet_panic_hook();
    let result = run_job(job, budget);
    panic::set_hook(previous);
    result
}

fn run_job(job: &Job, budget: Budget) -> JobResult {
    let faults = job.fault.map_or(FaultSet::NONE, |f| FaultSet::NONE.with(f));
    if job.engine == Engine::Proptest {
        return proptest::run(job, faults, budget);
    }
    let Some(scenario) = pipecheck_models::find(&job.scenario) else {
        return JobResult::error(job, format!("no scenario named `{}`", job.scenario));
    };
    run_scenario(job, scenario, faults, budget)
}

#[cfg(feature = "loom")]
fn run_scenario(job: &Job, scenario: Scenario, faults: FaultSet, budget: Budget) -> JobResult {
    match job.engine {
        Engine::Loom => loom::run(job, scenario, faults, budget),
        _ => JobResult::error(job, format!("this worker was built for loom, not {}", job.engine)),
    }
}

#[cfg(feature = "shuttle")]
fn run_scenario(job: &Job, scenario: Scenario, faults: FaultSet, budget: Budget) -> JobResult {
    match job.engine {
        Engine::ShuttleRandom | Engine::ShuttlePct => shuttle::run(job, scenario, faults, budget),
        _ => JobResult::error(job, format!("this worker was built for shuttle, not {}", job.engine)),
    }
}

#[cfg(not(any(feature = "loom", feature = "shuttle")))]
fn run_scenario(job: &Job, _: Scenario, _: FaultSet, _: Budget) -> JobResult {
    JobResult::error(job, format!("{} jobs need a worker built with `--features {}`", job.engine, job.engine))
}

/// Times `body`.
pub(crate) fn timed<T>(body: impl FnOnce() -> T) -> (T, f64) {
    let start = Instant::now();
    let value = body();
    (value, start.elapsed().as_secs_f64())
}
