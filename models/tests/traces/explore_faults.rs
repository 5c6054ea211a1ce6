//! Exploration under shuttle's random and PCT schedulers: every scenario passes without
//! faults, and every planted bug is caught within the default budget.
//!
//! Budgets and seeds: `PIPECHECK_SHUTTLE_ITERATIONS`, `PIPECHECK_SHUTTLE_SEED`,
//! `PIPECHECK_SHUTTLE_PCT_DEPTH`, `PIPECHECK_SHUTTLE_MAX_STEPS` (see traces/README.md).
#![cfg(feature = "shuttle")]

use pipecheck::Scale;
use pipecheck::trace::explore::{Exploration, Settings, explore_in, hunt_in};
use pipecheck::trace::location;
use pipecheck::trace::minimize::{DEFAULT_RUNS, minimized_trace};
use pipecheck::trace::trace_file::replay_command;
use pipecheck_models::builtin;
use pipecheck_pipe::fault;

/// The least budget of a fault hunt (`PIPECHECK_SHUTTLE_ITERATIONS` when larger).
const HUNT_ITERATIONS: usize = 1_000;

fn settings() -> Settings {
    let settings = Settings::from_env().unwrap_or_else(|e| panic!("{e}"));
    eprintln!(
        "seed {} (PIPECHECK_SHUTTLE_SEED), {} iterations (PIPECHECK_SHUTTLE_ITERATIONS), PCT depth {}",
        settings.seed, settings.iterations, settings.pct_depth
    );
    settings
}

#[test]
fn every_scenario_passes_under_random_and_pct_schedules() {
    let settings = settings();
    // Random, and PCT by its depth policy (the configured depth, then depth 2).
    for target in builtin::all() {
        for scenario in target.all_scenarios() {
            for kind in settings.schedulers() {
                match explore_in(&target, scenario, None, kind, &settings) {
                    Exploration::Passed { iterations, seconds } => {
                        eprintln!(
                            "{:<28} {:<14} passed {iterations} iterations in {seconds:.2}s",
                            scenario.name,
                            kind.to_string()
                        );
                    }
                    Exploration::Failed(found) => {
                        // A real failure: minimize it and save it under target/ for replay.
                        let trace = minimized_trace(&found, settings.max_steps, DEFAULT_RUNS);
                        let path = location::save_found(&trace).unwrap_or_else(|e| panic!("{e}"));
                        panic!(
                            "{} failed under {kind} at iteration {}: {}\nsaved {}; replay it with:\n    {}",
                            scenario.name,
                            found.iteration,
                            found.failure.message(),
                            location::from_root(&path).display(),
                            replay_command(&path)
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn every_fault_is_caught_under_random_and_under_pct() {
    // A hunt stops at its first failure, so a budget above the passing runs' costs only
    // when a fault is missed. Small scenarios need it under random: every `UnsafeCell`
    // access is a scheduling point, so a random schedule in which the reader of
    // `writes-after-reader-completes` finishes before the writer's next rent is rarer
    // (first failure over seeds 1-6 and the default: 101 iterations on average before,
    // 208 after; 401 at the default seed).
    let settings = settings();
    let settings = Settings { iterations: settings.iterations.max(HUNT_ITERATIONS), ..settings };
    let mut missed = Vec::new();
    let targets = builtin::all();
    for &fault in fault::ALL {
        let Some(target) = targets.iter().find(|t| !t.scenarios_catching(fault).is_empty()) else {
            eprintln!("{fault}: skipped, no scenario declares it");
            continue;
        };
        if fault.needs_weak_memory() {
            eprintln!("{fault}: skipped, shuttle runs sequentially consistent (loom catches it)");
            continue;
        }
        for kind in settings.schedulers() {
            match hunt_in(target, fault, kind, &settings) {
                (Some(found), spent) => {
                    let invariant = &found.failure.invariant;
                    assert!(
                        pipecheck_models::invariants()
                            .iter()
                            .map(|(id, _)| id.name())
                            .collect::<Vec<_>>()
                            .contains(&invariant.as_str()),
                        "{fault}: {}",
                        found.failure.message()
                    );
                    eprintln!(
                        "{:<20} {:<14} `{invariant}` broke in {} at iteration {} ({} iterations in all) after \
                         {:.3}s",
                        fault.name(),
                        kind.to_string(),
                        found.scenario.name,
                        found.iteration,
                        spent + found.iteration as usize,
                        found.seconds
                    );
                }
                (None, spent) => missed.push(format!("{fault} under {kind} ({spent} iterations)")),
            }
        }
    }
    assert!(missed.is_empty(), "not caught within the budget: {missed:?}");
}

#[test]
fn every_large_scenario_catches_each_fault_it_declares() {
    // Small scenarios are sized for loom's exhaustive search, which checks their catches.
    let settings = settings();
    let mut missed = Vec::new();
    for target in builtin::all() {
        for scenario in target.all_scenarios().iter().filter(|s| s.scale == Scale::Large) {
            for &fault in &scenario.catches {
                let caught = settings.schedulers().iter().any(|&kind| {
                    matches!(
                        explore_in(&target, scenario, Some(fault), kind, &settings),
                        Exploration::Failed(_)
                    )
                });
                if !caught {
                    missed.push(format!("{} does not catch {fault}", scenario.name));
                }
            }
        }
    }
    assert!(missed.is_empty(), "{missed:?}");
}
