//! Shuttle jobs: random or PCT schedules of a scenario from a recorded seed, through
//! `pipecheck-traces`. A failure without a planted bug is a real bug: its schedule is
//! minimized and saved under `target/pipecheck/traces/`, with the one command that replays it.

use crate::target::TargetScenario;
use crate::target::engine::shuttle::PCT_DEPTHS;
use crate::target::engine::shuttle::SchedulerKind;
use crate::trace::explore;
use crate::trace::explore::{Exploration, Settings};
use crate::trace::location;
use crate::trace::minimize::{DEFAULT_RUNS, minimized_trace};
use crate::trace::trace_file::replay_command;

use super::Budget;
use crate::campaign::jobs::{Engine, Job};
use crate::campaign::outcome::{Fired, JobResult};
use crate::campaign::registry;

pub(crate) fn run(job: &Job, scenario: &TargetScenario, budget: Budget) -> JobResult {
    let seed = budget.seed_for(job);
    let settings = Settings { iterations: budget.iterations as usize, seed, ..Settings::default() };
    let scheduler = match job.engine {
        Engine::ShuttlePct => SchedulerKind::Pct { depth: PCT_DEPTHS[0] },
        _ => SchedulerKind::Random,
    };
    let target = registry::target(&job.target).expect("the job's scenario was found in it");
    let exploration = explore::explore_in(target, scenario, job.planted(), scheduler, &settings);
    let mut result = match exploration {
        Exploration::Passed { iterations, seconds } => JobResult::new(job, None, iterations as u64, seconds),
        Exploration::Failed(found) => {
            let mut result = JobResult::new(
                job,
                Some(Fired::from(&found.failure.kind)),
                found.before as u64 + found.iteration,
                found.seconds,
            );
            if job.fault.is_none() {
                save_trace(&found, &settings, &mut result);
            }
            result
        }
    };
    result.seed = Some(seed);
    if result.message.is_some() && result.reproduce.is_none() {
        let fault = job.fault.as_deref().map_or(String::new(), |f| format!(" --fault {f}"));
        result.reproduce = Some(format!(
            "{} --engine {} --scenario {}{fault} --iterations {} --exact-seed {seed}",
            registry::campaign().command(),
            job.engine,
            scenario.name,
            budget.iterations
        ));
    }
    result
}

/// Minimizes a real failure's schedule and saves it under `target/pipecheck/traces/`.
fn save_trace(found: &explore::Found, settings: &Settings, result: &mut JobResult) {
    let trace = minimized_trace(found, settings.max_steps, DEFAULT_RUNS);
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
