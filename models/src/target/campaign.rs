//! A campaign over any targets, in the build's checker: every scenario without a fault
//! must pass, and every planted fault must be caught as the invariant it breaks by some
//! engine (the kill matrix). A `linearizable` column says, per target, whether its
//! histories were checked green against its sequential model (`-` without one). [`main`] is the entry a user crate calls from a small
//! binary, once built with `--features loom` (small scenarios, every interleaving within
//! the bound) and once with `--features shuttle` (random and PCT schedules).

use std::process::ExitCode;

use pipecheck_core::InvariantId;
use pipecheck_properties::{Checked, Engine, Verdict};

use super::{LARGE_SCENARIO, SMALL_SCENARIO, Target};
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

/// Runs the campaign over `targets` with [`build_engines`], prints the clean runs, the
/// `linearizable` column (per target with a sequential model) and the kill matrix as
/// tables, and fails when a clean run fails or a planted fault is
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

/// One clean run of the campaign: a scenario of a target under one engine.
struct CleanRun<'a> {
    target: &'a Target,
    scenario: &'static str,
    checked: Checked,
}

/// Runs every scenario of `targets` without a fault under each engine that can afford
/// it, printing one table row per run.
fn clean_runs<'a>(targets: &'a [Target], engines: &[CampaignEngine]) -> Vec<CleanRun<'a>> {
    let mut runs = Vec::new();
    println!("| target | scenario | engine | verdict |\n|---|---|---|---|");
    for target in targets {
        for scenario in target.all_scenarios() {
            for e in engines.iter().filter(|e| e.large || scenario.scale == Scale::Small) {
                let checked = e.engine.check(scenario.execution(None));
                println!(
                    "| {} | {} | {} | {} ({} executions, {:.2?}) |",
                    target.name(),
                    scenario.name,
                    e.engine.name(),
                    checked.verdict.failure().map_or("pass".to_owned(), |f| format!("FAIL: {}", f.label())),
                    checked.executions,
                    checked.elapsed
                );
                runs.push(CleanRun { target, scenario: scenario.name, checked });
            }
        }
    }
    runs
}

/// The `linearizable` cell of a target, in the words of the workspace campaign's
/// column: `-` without a sequential model; else, over the clean runs of its
/// linearizability scenarios, `FAIL (<model>)` when one failed as `linearizable`,
/// `green (<model>)` when all passed (each history check ran and found an order), and
/// `unchecked (<model>)` when one failed another way first (or none ran).
fn linearizable_cell(model: Option<&str>, verdicts: &[&Verdict]) -> String {
    let Some(model) = model else {
        return "-".to_owned();
    };
    if verdicts.iter().any(|v| v.names(InvariantId::LINEARIZABLE)) {
        format!("FAIL ({model})")
    } else if !verdicts.is_empty() && verdicts.iter().all(|v| **v == Verdict::Pass) {
        format!("green ({model})")
    } else {
        // A run that failed another way stopped before its history was checked.
        format!("unchecked ({model})")
    }
}

/// The `linearizable` column: each target and its [`linearizable_cell`] over `runs`.
fn linearizable_column(targets: &[Target], runs: &[CleanRun<'_>]) -> Vec<(&'static str, String)> {
    targets
        .iter()
        .map(|target| {
            let checked: Vec<&str> = target.linearizability_scenarios().map(|s| s.name).collect();
            let verdicts: Vec<&Verdict> = runs
                .iter()
                .filter(|r| r.target.name() == target.name() && checked.contains(&r.scenario))
                .map(|r| &r.checked.verdict)
                .collect();
            (target.name(), linearizable_cell(target.sequential_model(), &verdicts))
        })
        .collect()
}

/// Runs and prints the campaign; whether it passed.
pub fn run(targets: &[Target], engines: &[CampaignEngine]) -> bool {
    let names: Vec<String> = engines.iter().map(|e| e.engine.name()).collect();
    println!("campaign: {} target(s) under {}\n", targets.len(), names.join(", "));
    let runs = clean_runs(targets, engines);
    let mut ok = runs.iter().all(|r| r.checked.verdict == Verdict::Pass);
    println!(
        "\nLinearizable (each target's {SMALL_SCENARIO}/{LARGE_SCENARIO} runs above, their histories checked \
         against its sequential model; - without one):\n"
    );
    println!("| target | linearizable |\n|---|---|");
    for (target, cell) in linearizable_column(targets, &runs) {
        println!("| {target} | {cell} |");
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

#[cfg(all(test, not(any(feature = "loom", feature = "shuttle"))))]
mod tests {
    use pipecheck_core::primitive::sync::atomic::{AtomicU64, Ordering};
    use pipecheck_properties::linearizability::{OpsSpec, SequentialModel};
    use pipecheck_properties::{FailureKind, Threads};
    use proptest::prelude::Just;
    use proptest::strategy::{BoxedStrategy, Strategy};

    use super::*;
    use crate::target::{GeneratedScenarios, TargetScenario};

    /// A shared counter's `fetch_add(1)`, which returns the count before it.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    struct Increment;

    /// A counter as an [`OpsSpec`]; `off_by_one` is a wrong model (an increment returns
    /// the count after it), so that no history of the correct counter linearizes.
    #[derive(Clone, Copy, Debug)]
    struct Counter {
        off_by_one: bool,
    }

    impl SequentialModel for Counter {
        type State = u64;
        type Input = Increment;
        type Output = u64;

        fn init(&self) -> u64 {
            0
        }

        fn step(&self, count: &u64, _: &Increment, returned: &u64) -> Option<u64> {
            let expected = if self.off_by_one { count + 1 } else { *count };
            (*returned == expected).then_some(count + 1)
        }
    }

    impl OpsSpec for Counter {
        type Real = AtomicU64;

        fn build(&self) -> AtomicU64 {
            AtomicU64::new(0)
        }

        fn apply(&self, real: &AtomicU64, _: &Increment) -> u64 {
            real.fetch_add(1, Ordering::SeqCst)
        }

        fn inputs(&self) -> BoxedStrategy<Increment> {
            Just(Increment).boxed()
        }
    }

    fn counter(name: &'static str, off_by_one: bool) -> Target {
        Target::new(name, "a counter").linearizable(Counter { off_by_one }, GeneratedScenarios::new(&[]))
    }

    fn no_model() -> Target {
        let scenario = TargetScenario::new("nothing", "does nothing", Scale::Small, Vec::new(), |_, _| {});
        Target::new("no-model", "a target without a sequential model").scenarios(Vec::new(), vec![scenario])
    }

    #[test]
    fn the_linearizable_column_is_green_fail_or_dash_per_target() {
        let targets = [counter("counter", false), counter("wrong-model", true), no_model()];
        let engines = [CampaignEngine { engine: Box::new(Threads { runs: 3 }), large: true }];
        let runs = clean_runs(&targets, &engines);
        let column = linearizable_column(&targets, &runs);
        assert_eq!(
            column,
            [
                ("counter", "green (Counter)".to_owned()),
                ("wrong-model", "FAIL (Counter)".to_owned()),
                ("no-model", "-".to_owned()),
            ]
        );
        // The wrong model's failures are the campaign's: it does not pass.
        assert!(!run(&targets, &engines));
        assert!(run(&targets[..1], &engines));
    }

    #[test]
    fn a_model_whose_runs_failed_another_way_first_is_unchecked() {
        let panicked = Verdict::Fail(FailureKind::Panic { message: "boom".to_owned(), location: None });
        assert_eq!(linearizable_cell(Some("Counter"), &[&Verdict::Pass, &panicked]), "unchecked (Counter)");
        assert_eq!(linearizable_cell(Some("Counter"), &[]), "unchecked (Counter)");
        assert_eq!(linearizable_cell(None, &[&panicked]), "-");
    }
}
