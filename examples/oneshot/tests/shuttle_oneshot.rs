//! The channel under shuttle: every scenario under the random and PCT schedulers, and
//! the kill matrix of its planted faults: each caught, by each scheduler, as the
//! invariant it breaks. Run with `cargo test -p oneshot --features shuttle --test shuttle_oneshot`.
#![cfg(feature = "shuttle")]

use pipecheck_models::engine::shuttle::{DEFAULT_MAX_STEPS, SchedulerKind, Shuttle};
use pipecheck_properties::{Engine, Verdict};

const SEED: u64 = 1;
const ITERATIONS: usize = 200;

fn engines() -> [Shuttle; 2] {
    [SchedulerKind::Random, SchedulerKind::Pct { depth: 3 }]
        .map(|kind| Shuttle { kind, seed: SEED, iterations: ITERATIONS, max_steps: DEFAULT_MAX_STEPS })
}

#[test]
fn every_scenario_passes_under_both_schedulers() {
    let target = oneshot::target();
    for scenario in target.all_scenarios() {
        for engine in engines() {
            let checked = engine.check(scenario.execution(None));
            eprintln!("{} under {} (seed {SEED}): {} in {} executions", scenario.name, engine.name(), checked.verdict, checked.executions);
            assert_eq!(checked.verdict, Verdict::Pass, "{} under {}", scenario.name, engine.name());
        }
    }
}

#[test]
fn every_planted_fault_is_caught_as_its_invariant_by_every_scenario_claiming_it() {
    let target = oneshot::target();
    for &fault in target.planted() {
        for scenario in target.scenarios_catching(fault) {
            for engine in engines() {
                let checked = engine.check(scenario.execution(Some(fault)));
                eprintln!(
                    "{fault} in {} under {} (seed {SEED}): {} after {} executions",
                    scenario.name,
                    engine.name(),
                    checked.verdict.failure().map_or("escaped".to_owned(), |f| f.label()),
                    checked.executions
                );
                assert!(
                    checked.verdict.names(fault.breaks()),
                    "{fault} in {} under {}: expected `{}`, got {}",
                    scenario.name,
                    engine.name(),
                    fault.breaks(),
                    checked.verdict
                );
            }
        }
    }
}
