//! Shuttle jobs: random or PCT schedules of a scenario from a recorded seed, through
//! `pipecheck-traces`. A failure without a planted bug is a real bug: its schedule is
//! minimized and saved under `target/pipecheck/traces/`, with the one command that replays it.

use pipecheck_core::FaultSet;
use pipecheck_models::Scenario;
use pipecheck_traces::explore::{self, Exploration, SchedulerKind, Settings};
use pipecheck_traces::location;
use pipecheck_traces::minimize::minimized_trace;
use pipecheck_traces::trace_file::replay_command;

use super::{Budget, first_line};
use crate::jobs::{Engine, Job};
use crate::outcome::JobResult;

/// PCT's first bug depth (depth - 1 priority change points); depth 2 follows if it passes.
const PCT_DEPTH: usize = 3;
/// Executions the minimizer may spend on one failure.
const MINIMIZE_RUNS: usize = 300;

pub(crate) fn run(job: &Job, scenario: Scenario, _faults: FaultSet, budget: Budget) -> JobResult {
    let seed = budget.seed_for(job.id);
    let settings = Settings { iterations: budget.iterations as usize, seed, ..Settings::default() };
    let scheduler = match job.engine {
        Engine::ShuttlePct => SchedulerKind::Pct { depth: PCT_DEPTH },
        _ => SchedulerKind::Random,
    };
    let mut exploration = explore::explore(scenario, job.fault, scheduler, &settings);
    let mut spent = (0, 0.0);
    if let (Exploration::Passed { iterations, seconds }, SchedulerKind::Pct { .. }) =
        (&exploration, scheduler)
    {
        // A two-task bug can hide from depth 3's extra change point: depth 2 gets the
        // same budget (the range is depth 2 to 3).
        spent = (*iterations as u64, *seconds);
        exploration = explore::explore(scenario, job.fault, SchedulerKind::Pct { depth: 2 }, &settings);
    }
    let mut result = match exploration {
        Exploration::Passed { iterations, seconds } => {
            JobResult::new(job, None, spent.0 + iterations as u64, spent.1 + seconds)
        }
        Exploration::Failed(found) => {
            let message = first_line(&found.failure.message);
            let mut result = JobResult::new(
                job,
                Some((message, Some(found.failure.invariant.clone()))),
                spent.0 + found.iteration,
                spent.1 + found.seconds,
            );
            if job.fault.is_none() {
                save_trace(&found, &settings, &mut result);
            }
            result
        }
    };
    result.seed = Some(seed);
    if result.message.is_some() && result.reproduce.is_none() {
        let fault = job.fault.map_or(String::new(), |f| format!(" --fault {f}"));
        result.reproduce = Some(format!(
            "cargo campaign --engine {} --scenario {}{fault} --iterations {} --exact-seed {seed}",
            job.engine, scenario.name, budget.iterations
        ));
    }
    result
}

/// Minimizes a real failure's schedule and saves it under `target/pipecheck/traces/`.
fn save_trace(found: &explore::Found, settings: &Settings, result: &mut JobResult) {
    let trace = minimized_trace(found, settings.max_steps, MINIMIZE_RUNS);
    match location::save_found(&trace) {
        Ok(path) => {
            result.trace = Some(location::from_root(&path).display().to_string());
            result.reproduce = Some(replay_command(&path));
        }
        Err(e) => {
            result.message =
                Some(format!("{} (could not save the trace: {e})", result.message.take().unwrap_or_default()))
        }
    }
}
