//! What the campaign binary's `verify_every_target` does not check under shuttle: each
//! planted bug caught by *each* scheduler (it asks one), the committed schedules replayed, a failure minimized,
//! saved and replayed, the traces command's re-recording, and the sequential model's
//! generated scenarios shrunk to a minimal failing split.

use pipecheck::Engine;
use pipecheck::engine::shuttle::{DEFAULT_MAX_STEPS, SchedulerKind, Shuttle};

const SEED: u64 = 1;
const ITERATIONS: usize = 200;

fn engines() -> [Shuttle; 2] {
    [SchedulerKind::Random, SchedulerKind::Pct { depth: 3 }].map(|kind| Shuttle {
        kind,
        seed: SEED,
        iterations: ITERATIONS,
        max_steps: DEFAULT_MAX_STEPS,
    })
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

/// The committed schedules, `examples/oneshot/traces/`.
fn saved_traces() -> Vec<std::path::PathBuf> {
    pipecheck::trace::location::traces_in(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("traces"))
}

#[test]
fn every_saved_schedule_replays_to_its_invariant() {
    use pipecheck::trace::replay::replay;
    use pipecheck::trace::trace_file::Trace;
    let targets = [oneshot::target()];
    let saved = saved_traces();
    assert!(saved.len() >= 2, "examples/oneshot/traces/ holds a schedule per planted fault");
    for path in saved {
        let trace = Trace::load(&path, &targets).unwrap_or_else(|e| panic!("{e}"));
        let replayed = replay(&trace, &path, &targets).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(replayed.failure.expect("fails").invariant, trace.invariant, "{}", path.display());
    }
}

#[test]
fn a_failure_is_minimized_saved_and_replayed_to_the_same_invariant() {
    use pipecheck::trace::explore::{Exploration, Settings, explore_in};
    use pipecheck::trace::minimize::{DEFAULT_RUNS, minimized_trace};
    use pipecheck::trace::replay::replay;
    use pipecheck::trace::trace_file::Trace;
    let targets = [oneshot::target()];
    let target = &targets[0];
    let fault = target.fault("SkipRecheck").unwrap();
    let scenario = target.scenario("many-rounds").unwrap();
    let settings = Settings { seed: SEED, ..Settings::default() };
    let Exploration::Failed(found) =
        explore_in(target, scenario, Some(fault), SchedulerKind::Random, &settings)
    else {
        panic!("SkipRecheck escaped {} iterations of seed {SEED}", settings.iterations);
    };
    let trace = minimized_trace(&found, settings.max_steps, DEFAULT_RUNS);
    let path = std::env::temp_dir().join(format!("oneshot-round-trip-{}.trace", std::process::id()));
    trace.save(&path).unwrap();
    let loaded = Trace::load(&path, &targets).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(loaded.target, "oneshot");
    let replayed = replay(&loaded, &path, &targets).unwrap_or_else(|e| panic!("{e}"));
    std::fs::remove_file(&path).unwrap();
    assert_eq!(replayed.failure.expect("fails").invariant, "oneshot-wake");
    assert_eq!(replayed.size, loaded.minimized);
}

/// `corpus --rerecord` through the crate's own traces command (`trace::cli::main`, which
/// re-invokes this same binary for each trace): a stale copy of a saved schedule is
/// hunted again in the oneshot target and rewritten, the other copies are kept. On
/// copies under cargo's `target/` temporary directory, never in `traces/`.
#[test]
fn the_crates_command_rerecords_a_stale_schedule() {
    use pipecheck::trace::rerecord::staleness;
    use pipecheck::trace::trace_file::{Size, Trace};
    let targets = [oneshot::target()];
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("oneshot-rerecord-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let saved = saved_traces();
    for path in &saved {
        std::fs::copy(path, dir.join(path.file_name().expect("a file"))).expect("copy a saved trace");
    }
    // Half the schedule, and a header that says so: what a trace looks like after the
    // channel gained scheduling points.
    let stale = dir.join(saved[0].file_name().expect("a file"));
    let mut trace = Trace::load(&stale, &targets).unwrap_or_else(|e| panic!("{e}"));
    let half = trace.schedule.len() / 2;
    trace.schedule.steps.truncate(half);
    trace.minimized = Size { steps: half, ..trace.minimized };
    trace.save(&stale).expect("saved");
    assert!(staleness(&stale, &targets).is_some(), "a cut schedule no longer replays as recorded");

    let output = std::process::Command::new(env!("CARGO_BIN_EXE_oneshot"))
        .args(["corpus", "--rerecord", "--out"])
        .arg(&dir)
        .env_remove("SHUTTLE_RANDOM_SEED")
        .output()
        .expect("runs");
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let summary = format!("{} traces: {} kept, 1 rewritten, 0 failed", saved.len(), saved.len() - 1);
    assert!(stdout.contains(&summary), "{stdout}\n{stderr}");
    let rerecorded = pipecheck::trace::location::traces_in(&dir);
    assert_eq!(rerecorded.len(), saved.len(), "one file per trace: {rerecorded:?}");
    for path in rerecorded {
        assert_eq!(staleness(&path, &targets), None, "{} replays as recorded", path.display());
        let trace = Trace::load(&path, &targets).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(trace.target, "oneshot", "{}", path.display());
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// The channel's sequential model: generated concurrent scenarios (2–3 threads) under
/// both schedulers, checked for linearizable, a failure shrunk to a minimal split; and
/// a failing schedule of the target's `linearizable-large` saved and replayed.
mod generated {
    use std::sync::Arc;

    use oneshot::faults::{CompleteBeforeValue, SendIgnoresClosedReceiver};
    use oneshot::model::{OneshotModel, OneshotOp};
    use pipecheck::PlantedFault;
    use pipecheck::engine::shuttle::{DEFAULT_MAX_STEPS, SchedulerKind, Shuttle};
    use pipecheck::linearizability::{ConcurrentConfig, run_concurrent, shrink_concurrent};
    use pipecheck::{Engine, Verdict};

    use super::SEED;

    /// Schedules per generated scenario and scheduler.
    const SCHEDULES: usize = 50;

    /// Both schedulers on `threads` with `fault` switched on: `Err` naming the first
    /// that fails, and how.
    fn check(threads: &[Vec<OneshotOp>], fault: Option<&'static PlantedFault>) -> Result<(), String> {
        for kind in [SchedulerKind::Random, SchedulerKind::Pct { depth: 3 }] {
            let engine = Shuttle { kind, seed: SEED, iterations: SCHEDULES, max_steps: DEFAULT_MAX_STEPS };
            let threads = threads.to_vec();
            let checked = engine.check(Arc::new(move || {
                PlantedFault::activate_opt(fault, || run_concurrent(&OneshotModel, &threads));
            }));
            if checked.verdict != Verdict::Pass {
                return Err(format!("{} (seed {SEED}): {}", engine.name(), checked.verdict));
            }
        }
        Ok(())
    }

    #[test]
    fn generated_scenarios_are_linearizable() {
        let config = ConcurrentConfig { cases: 128, ..ConcurrentConfig::default() };
        shrink_concurrent(&OneshotModel, &config, |threads| check(threads, None)).unwrap();
    }

    #[test]
    fn send_ignores_closed_receiver_shrinks_to_a_minimal_split_caught_as_linearizable() {
        let failure = shrink_concurrent(&OneshotModel, &ConcurrentConfig::default(), |threads| {
            check(threads, Some(&SendIgnoresClosedReceiver))
        })
        .expect_err("the lost value escaped");
        eprintln!("{failure}");
        assert!(failure.reason.contains("invariant `linearizable` violated"), "{failure}");
        // Drop the receiver, then send, plus the second thread's one operation.
        assert!(failure.operations() <= 3, "not minimal: {:?}", failure.threads);
    }

    /// `CompleteBeforeValue` is declared as breaking `oneshot-delivery` (the event
    /// scenarios catch it so); the generated scenarios see the same bug as a history no
    /// sequential order explains.
    #[test]
    fn complete_before_value_is_seen_by_linearizability_too() {
        let failure = shrink_concurrent(&OneshotModel, &ConcurrentConfig::default(), |threads| {
            check(threads, Some(&CompleteBeforeValue))
        })
        .expect_err("the early completion escaped");
        eprintln!("{failure}");
        assert!(failure.reason.contains("invariant `linearizable` violated"), "{failure}");
    }

    #[test]
    fn a_failing_generated_schedule_is_saved_and_replayed_as_linearizable() {
        use pipecheck::trace::explore::{Exploration, Settings, explore_in};
        use pipecheck::trace::minimize::{DEFAULT_RUNS, minimized_trace};
        use pipecheck::trace::replay::replay;
        use pipecheck::trace::trace_file::Trace;
        let targets = [oneshot::target()];
        let target = &targets[0];
        let scenario = target.scenario(pipecheck::LARGE_SCENARIO).unwrap();
        let settings = Settings { seed: SEED, ..Settings::default() };
        let Exploration::Failed(found) =
            explore_in(target, scenario, Some(&SendIgnoresClosedReceiver), SchedulerKind::Random, &settings)
        else {
            panic!("SendIgnoresClosedReceiver escaped {} iterations of seed {SEED}", settings.iterations);
        };
        let trace = minimized_trace(&found, settings.max_steps, DEFAULT_RUNS);
        let path = std::env::temp_dir().join(format!("oneshot-generated-{}.trace", std::process::id()));
        trace.save(&path).unwrap();
        let loaded = Trace::load(&path, &targets).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((loaded.target.as_str(), loaded.scenario.as_str()), ("oneshot", "linearizable-large"));
        let replayed = replay(&loaded, &path, &targets).unwrap_or_else(|e| panic!("{e}"));
        std::fs::remove_file(&path).unwrap();
        assert_eq!(replayed.failure.expect("fails").invariant, "linearizable");
    }
}
