//! The channel under shuttle: every scenario under the random and PCT schedulers, and
//! the kill matrix of its planted faults: each caught, by each scheduler, as the
//! invariant it breaks. Run with `cargo test -p oneshot --features shuttle --test shuttle_oneshot`.
#![cfg(feature = "shuttle")]

use pipecheck_models::engine::shuttle::{DEFAULT_MAX_STEPS, SchedulerKind, Shuttle};
use pipecheck_properties::{Engine, Verdict};

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
fn every_scenario_passes_under_both_schedulers() {
    let target = oneshot::target();
    for scenario in target.all_scenarios() {
        for engine in engines() {
            let checked = engine.check(scenario.execution(None));
            eprintln!(
                "{} under {} (seed {SEED}): {} in {} executions",
                scenario.name,
                engine.name(),
                checked.verdict,
                checked.executions
            );
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

/// The committed schedules, `examples/oneshot/traces/`.
fn saved_traces() -> Vec<std::path::PathBuf> {
    pipecheck_traces::location::traces_in(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("traces"))
}

#[test]
fn every_saved_schedule_replays_to_its_invariant() {
    use pipecheck_traces::replay::replay_in;
    use pipecheck_traces::trace_file::Trace;
    let targets = [oneshot::target()];
    let saved = saved_traces();
    assert!(saved.len() >= 2, "examples/oneshot/traces/ holds a schedule per planted fault");
    for path in saved {
        let trace = Trace::load_for(&path, &targets).unwrap_or_else(|e| panic!("{e}"));
        let replayed = replay_in(&trace, &path, &targets).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(replayed.failure.expect("fails").invariant, trace.invariant, "{}", path.display());
    }
}

#[test]
fn a_failure_is_minimized_saved_and_replayed_to_the_same_invariant() {
    use pipecheck_traces::explore::{Exploration, Settings, explore_in};
    use pipecheck_traces::minimize::{DEFAULT_RUNS, minimized_trace};
    use pipecheck_traces::replay::replay_in;
    use pipecheck_traces::trace_file::Trace;
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
    let loaded = Trace::load_for(&path, &targets).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(loaded.target, "oneshot");
    let replayed = replay_in(&loaded, &path, &targets).unwrap_or_else(|e| panic!("{e}"));
    std::fs::remove_file(&path).unwrap();
    assert_eq!(replayed.failure.expect("fails").invariant, "oneshot-wake");
    assert_eq!(replayed.size, loaded.minimized);
}

/// `corpus --rerecord` through the crate's own traces command (`replay_main`, which
/// re-invokes this same binary for each trace): a stale copy of a saved schedule is
/// hunted again in the oneshot target and rewritten, the other copies are kept. On
/// copies under cargo's `target/` temporary directory, never in `traces/`.
#[test]
fn the_crates_command_rerecords_a_stale_schedule() {
    use pipecheck_traces::rerecord::staleness_in;
    use pipecheck_traces::trace_file::{Size, Trace};
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
    let mut trace = Trace::load_for(&stale, &targets).unwrap_or_else(|e| panic!("{e}"));
    let half = trace.schedule.len() / 2;
    trace.schedule.steps.truncate(half);
    trace.minimized = Size { steps: half, ..trace.minimized };
    trace.save(&stale).expect("saved");
    assert!(staleness_in(&stale, &targets).is_some(), "a cut schedule no longer replays as recorded");

    let output = std::process::Command::new(env!("CARGO_BIN_EXE_oneshot-traces"))
        .args(["corpus", "--rerecord", "--out"])
        .arg(&dir)
        .env_remove("SHUTTLE_RANDOM_SEED")
        .output()
        .expect("runs");
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let summary = format!("{} traces: {} kept, 1 rewritten, 0 failed", saved.len(), saved.len() - 1);
    assert!(stdout.contains(&summary), "{stdout}\n{stderr}");
    let rerecorded = pipecheck_traces::location::traces_in(&dir);
    assert_eq!(rerecorded.len(), saved.len(), "one file per trace: {rerecorded:?}");
    for path in rerecorded {
        assert_eq!(staleness_in(&path, &targets), None, "{} replays as recorded", path.display());
        let trace = Trace::load_for(&path, &targets).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(trace.target, "oneshot", "{}", path.display());
    }
    let _ = std::fs::remove_dir_all(dir);
}
