//! Exploration: many executions of a scenario under shuttle's random or PCT scheduler,
//! stopping at the first failure, with budgets and seeds from the environment.

use std::str::FromStr;
use std::time::Instant;

use crate::check::{FailureKind, Violation};
use crate::target::TargetScenario;
use crate::target::engine::shuttle::PCT_DEPTHS;
use crate::target::engine::shuttle::{DEFAULT_MAX_STEPS, SchedulerKind};
use crate::target::{Target, find_target};
use pipecheck_sync::{InvariantId, PlantedFault};

use crate::trace::record::Recorder;
use crate::trace::run::{Failure, fresh, run};
use crate::trace::schedule::Schedule;
use crate::trace::trace_file::{Size, Trace};
use pipecheck_sync::record::Detail;

/// Iterations per scenario and scheduler (env `PIPECHECK_SHUTTLE_ITERATIONS`).
pub const DEFAULT_ITERATIONS: usize = 300;
/// The exploration seed (env `PIPECHECK_SHUTTLE_SEED`).
pub const DEFAULT_SEED: u64 = 0x5eed_9c4e_c0de;
/// PCT's bug depth (env `PIPECHECK_SHUTTLE_PCT_DEPTH`).
pub const DEFAULT_PCT_DEPTH: usize = PCT_DEPTHS[0];

/// Budgets and seeds, from the environment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Executions per scenario and scheduler.
    pub iterations: usize,
    /// The exploration seed.
    pub seed: u64,
    /// PCT's depth.
    pub pct_depth: usize,
    /// Step bound per execution.
    pub max_steps: usize,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            iterations: DEFAULT_ITERATIONS,
            seed: DEFAULT_SEED,
            pct_depth: DEFAULT_PCT_DEPTH,
            max_steps: DEFAULT_MAX_STEPS,
        }
    }
}

impl Settings {
    /// The defaults, overridden by `PIPECHECK_SHUTTLE_ITERATIONS`, `PIPECHECK_SHUTTLE_SEED`,
    /// `PIPECHECK_SHUTTLE_PCT_DEPTH` and `PIPECHECK_SHUTTLE_MAX_STEPS`.
    ///
    /// # Errors
    ///
    /// A variable that is set but not a number (or a zero depth).
    pub fn from_env() -> Result<Settings, String> {
        fn var<T: FromStr>(name: &str, default: T) -> Result<T, String> {
            match std::env::var(name) {
                Ok(v) => v.trim().parse().map_err(|_| format!("{name}={v} is not a valid number")),
                Err(_) => Ok(default),
            }
        }
        let d = Settings::default();
        let settings = Settings {
            iterations: var("PIPECHECK_SHUTTLE_ITERATIONS", d.iterations)?,
            seed: var("PIPECHECK_SHUTTLE_SEED", d.seed)?,
            pct_depth: var("PIPECHECK_SHUTTLE_PCT_DEPTH", d.pct_depth)?,
            max_steps: var("PIPECHECK_SHUTTLE_MAX_STEPS", d.max_steps)?,
        };
        if settings.pct_depth == 0 {
            return Err("PIPECHECK_SHUTTLE_PCT_DEPTH must be at least 1".into());
        }
        if std::env::var("SHUTTLE_RANDOM_SEED").is_ok() {
            return Err(
                "SHUTTLE_RANDOM_SEED overrides every seed inside shuttle; set PIPECHECK_SHUTTLE_SEED instead"
                    .into(),
            );
        }
        Ok(settings)
    }

    /// The two schedulers every scenario runs under: random, and PCT at this depth.
    pub fn schedulers(&self) -> [SchedulerKind; 2] {
        [SchedulerKind::Random, SchedulerKind::Pct { depth: self.pct_depth }]
    }
}

/// A failing execution found by exploring.
#[derive(Clone, Debug)]
pub struct Found {
    /// The target's name.
    pub target: &'static str,
    /// The scenario.
    pub scenario: TargetScenario,
    /// The planted fault switched on, if any.
    pub fault: Option<&'static PlantedFault>,
    /// The scheduler.
    pub scheduler: SchedulerKind,
    /// The exploration's seed.
    pub seed: u64,
    /// The failing iteration of `scheduler`, 1-based.
    pub iteration: u64,
    /// Iterations run by the schedulers of the policy tried before `scheduler`.
    pub before: usize,
    /// Seconds from the start of the exploration to the failure.
    pub seconds: f64,
    /// What broke.
    pub failure: Failure,
    /// The failing execution's schedule.
    pub schedule: Schedule,
    /// Its size.
    pub size: Size,
}

impl Found {
    /// The failure a trace file of one of `targets` records, to minimize it again.
    ///
    /// # Errors
    ///
    /// An unknown target, scenario, fault or scheduler.
    pub fn from_trace(trace: &Trace, targets: &[Target]) -> Result<Found, String> {
        let target = find_target(targets, &trace.target).map_err(|e| e.to_string())?;
        Ok(Found {
            target: target.name(),
            scenario: target.scenario(&trace.scenario).map_err(|e| e.to_string())?.clone(),
            fault: trace.fault.as_deref().map(|f| target.fault(f)).transpose().map_err(|e| e.to_string())?,
            scheduler: trace.scheduler.parse()?,
            seed: trace.seed,
            iteration: trace.iteration,
            before: 0,
            seconds: 0.0,
            failure: Failure::new(recorded(&trace.invariant)),
            schedule: trace.schedule.clone(),
            size: trace.original,
        })
    }
}

impl Found {
    /// This failure as a trace whose saved schedule is `schedule` (of `size`): the
    /// found one itself, or a minimized one.
    pub fn trace_with(&self, size: Size, schedule: Schedule) -> Trace {
        Trace::new(
            self.target,
            self.scenario.name,
            &self.scheduler.to_string(),
            self.seed,
            self.iteration,
            self.fault.map(|f| f.name()),
            &self.failure.invariant,
            self.size,
            size,
            schedule,
        )
    }
}

/// A failure of the kind a trace header names (`step-bound`, `scenario-panic`, or an
/// invariant), to compare a minimized run with.
fn recorded(name: &str) -> FailureKind {
    let detail = "as recorded in the trace".to_owned();
    match name {
        "step-bound" => FailureKind::StepBound { detail },
        "scenario-panic" => FailureKind::Panic { message: detail, location: None },
        name => FailureKind::InvariantViolated(Violation::new(InvariantId::intern(name), detail)),
    }
}

/// How an exploration ended.
#[derive(Clone, Debug)]
pub enum Exploration {
    /// Every execution passed.
    Passed {
        /// Executions run.
        iterations: usize,
        /// Seconds taken.
        seconds: f64,
    },
    /// An execution failed.
    Failed(Box<Found>),
}

/// Runs up to `settings.iterations` executions of `target`'s `scenario` with `fault`
/// on, under each scheduler of `scheduler`'s [`policy`](SchedulerKind::policy) in turn
/// (PCT: its depth, then depth 2), stopping at the first failure.
pub fn explore_in(
    target: &Target,
    scenario: &TargetScenario,
    fault: Option<&'static PlantedFault>,
    scheduler: SchedulerKind,
    settings: &Settings,
) -> Exploration {
    let start = Instant::now();
    let mut before = 0;
    for kind in scheduler.policy() {
        let (tape, slot) = fresh();
        let inner = kind.scheduler(settings.seed, settings.iterations);
        let ran = run(
            scenario,
            fault,
            Recorder::new(inner, tape.clone()),
            (&tape, &slot),
            settings.max_steps,
            Detail::None,
        );
        let Some(failure) = ran.failure else {
            before += ran.tape.iteration as usize;
            continue;
        };
        return Exploration::Failed(Box::new(Found {
            target: target.name(),
            scenario: scenario.clone(),
            fault,
            scheduler: kind,
            seed: settings.seed,
            iteration: ran.tape.iteration,
            before,
            seconds: start.elapsed().as_secs_f64(),
            failure,
            size: ran.tape.size(),
            schedule: ran.tape.schedule,
        }));
    }
    Exploration::Passed { iterations: before, seconds: start.elapsed().as_secs_f64() }
}

/// Explores each scenario of `target` that declares `fault` until one fails. Returns
/// the failure and the iterations spent on explorations that passed before it.
pub fn hunt_in(
    target: &Target,
    fault: &'static PlantedFault,
    scheduler: SchedulerKind,
    settings: &Settings,
) -> (Option<Found>, usize) {
    let mut spent = 0;
    for scenario in target.scenarios_catching(fault) {
        match explore_in(target, scenario, Some(fault), scheduler, settings) {
            Exploration::Failed(found) => return (Some(*found), spent),
            Exploration::Passed { iterations, .. } => spent += iterations,
        }
    }
    (None, spent)
}
