//! A campaign over any targets, in the build's checker: every scenario without a fault
//! must pass, and every planted fault must be caught as the invariant it breaks by some
//! engine (the kill matrix). [`main`] is the entry a user crate calls from a small
//! binary, once built with `--features loom` (small scenarios, every interleaving within
//! the bound) and once with `--features shuttle` (random and PCT schedules).

use std::process::ExitCode;

use pipecheck_properties::{Engine, Verdict};

use super::Target;
use crate::Scale;

/// An engine of the campaign, and whether it can afford large scenarios.
pub struct CampaignEngine {
    /// The engine.
    pub engine: Box<dyn Engine>,
    /// It runs [`Scale::Large`] scenarios too (shuttle), not only small ones (loom).
    pub large: bool,
}

impl std::fmt::Debug for CampaignEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CampaignEngine")
            .field("engine", &self.engine.name())
            .field("large", &self.large)
            .finish()
    }
}

/// A number from the environment variable `name`, or `default`.
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), allow(dead_code))]
fn env_number<T: std::str::FromStr>(name: &str, default: T) -> Result<T, String> {
    match std::env::var(name) {
        Ok(v) => v.trim().parse().map_err(|_| format!("{name}={v} is not a valid number")),
        Err(_) => Ok(default),
    }
}

/// The engines of this build: loom at preemption bound `PIPECHECK_LOOM_BOUND` (2), or
/// shuttle's random and PCT schedulers with `PIPECHECK_SHUTTLE_ITERATIONS` (300)
/// executions from seed `PIPECHECK_SHUTTLE_SEED` (1); none without a checker feature.
///
/// # Errors
///
/// A variable that is set but not a number.
pub fn build_engines() -> Result<Vec<CampaignEngine>, String> {
    #[allow(unused_mut)]
    let mut engines = Vec::new();
    #[cfg(feature = "loom")]
    {
        let bound = env_number("PIPECHECK_LOOM_BOUND", 2)?;
        engines.push(CampaignEngine {
            engine: Box::new(crate::engine::loom::Loom::with_bound(bound)),
            large: false,
        });
    }
    #[cfg(feature = "shuttle")]
    {
        use crate::engine::shuttle::{DEFAULT_MAX_STEPS, PCT_DEPTHS, SchedulerKind, Shuttle};
        let iterations = env_number("PIPECHECK_SHUTTLE_ITERATIONS", 300)?;
        let seed = env_number("PIPECHECK_SHUTTLE_SEED", 1)?;
        for kind in [SchedulerKind::Random, SchedulerKind::Pct { depth: PCT_DEPTHS[0] }] {
            let engine = Shuttle { kind, seed, iterations, max_steps: DEFAULT_MAX_STEPS };
            engines.push(CampaignEngine { engine: Box::new(engine), large: true });
        }
    }
    Ok(engines)
}

/// Runs the campaign over `targets` with [`build_engines`], prints the clean runs and
/// the kill matrix as tables, and fails when a clean run fails or a planted fault is
/// caught as its own invariant by no engine.
///
/// # Examples
///
/// ```no_run
/// # fn my_target() -> pipecheck_models::Target { unimplemented!() }
/// // src/bin/campaign.rs of the user's crate, run with `--features loom` and `--features shuttle`
/// fn main() -> std::process::ExitCode {
///     pipecheck_models::target::campaign::main(vec![my_target()])
/// }
/// ```
pub fn main(targets: Vec<Target>) -> ExitCode {
    let engines = match build_engines() {
        Ok(engines) if !engines.is_empty() => engines,
        Ok(_) => {
            eprintln!(
                "error: the campaign runs a checker: build with `--features loom` or `--features shuttle`"
            );
            return ExitCode::FAILURE;
        }
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    for target in &targets {
        if let Err(e) = target.validate() {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    }
    if run(&targets, &engines) { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// Runs and prints the campaign; whether it passed.
pub fn run(targets: &[Target], engines: &[CampaignEngine]) -> bool {
    let names: Vec<String> = engines.iter().map(|e| e.engine.name()).collect();
    println!("campaign: {} target(s) under {}\n", targets.len(), names.join(", "));
    let mut ok = true;
    println!("| target | scenario | engine | verdict |\n|---|---|---|---|");
    for target in targets {
        for scenario in target.all_scenarios() {
            for e in engines.iter().filter(|e| e.large || scenario.scale == Scale::Small) {
                let checked = e.engine.check(scenario.execution(None));
                ok &= checked.verdict == Verdict::Pass;
                println!(
                    "| {} | {} | {} | {} ({} executions, {:.2?}) |",
                    target.name(),
                    scenario.name,
                    e.engine.name(),
                    checked.verdict.failure().map_or("pass".to_owned(), |f| format!("FAIL: {}", f.label())),
                    checked.executions,
                    checked.elapsed
                );
            }
        }
    }
    println!("\nKill matrix (a planted fault counts as caught only as the invariant it breaks):\n");
    println!("| target | fault (breaks) | engine | verdict |\n|---|---|---|---|");
    for target in targets {
        for &fault in target.planted() {
            let mut caught_by_any = false;
            for e in engines {
                let mut cell = "not run (no scenario of this scale claims it)".to_owned();
                for scenario in target.scenarios_catching(fault) {
                    if !(e.large || scenario.scale == Scale::Small) {
                        continue;
                    }
                    let checked = e.engine.check(scenario.execution(Some(fault)));
                    let caught = checked.verdict.names(fault.breaks());
                    cell = match checked.verdict.failure() {
                        Some(_) if caught => format!(
                            "caught as {} in {} ({} executions)",
                            fault.breaks(),
                            scenario.name,
                            checked.executions
                        ),
                        Some(f) => {
                            format!("failed as {}, not {} in {}", f.label(), fault.breaks(), scenario.name)
                        }
                        None => format!("ESCAPED {} ({} executions)", scenario.name, checked.executions),
                    };
                    if caught {
                        caught_by_any = true;
                        break;
                    }
                }
                println!(
                    "| {} | {} ({}) | {} | {cell} |",
                    target.name(),
                    fault.name(),
                    fault.breaks(),
                    e.engine.name()
                );
            }
            if !caught_by_any {
                ok = false;
                println!(
                    "| {} | {} | - | NOT CAUGHT as its invariant by any engine |",
                    target.name(),
                    fault.name()
                );
            }
        }
    }
    ok
}
