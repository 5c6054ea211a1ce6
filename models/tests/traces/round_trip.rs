//! A live round trip: fail under shuttle, minimize, save, load, replay to the same
//! invariant; and replays that no longer fit the program say so, naming the file.
#![cfg(feature = "shuttle")]

use std::path::PathBuf;

use pipecheck::engine::shuttle::SchedulerKind;
use pipecheck::trace::explore::{Exploration, Settings, explore_in};
use pipecheck::trace::minimize::{DEFAULT_RUNS, minimize};
use pipecheck::trace::replay::{replay, replay_without_fault};
use pipecheck::trace::table::render;
use pipecheck::trace::trace_file::{Size, Trace};
use pipecheck_pipe::fault;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pipecheck-traces-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Finds, minimizes and saves a PoolOverflow failure (a schedule-dependent one).
fn saved_trace(dir: &std::path::Path) -> (PathBuf, Trace) {
    let settings = Settings::default();
    let pipe = pipecheck_models::builtin::pipe();
    let scenario = pipe.scenario("large-pool-churn").expect("scenario");
    let Exploration::Failed(found) =
        explore_in(&pipe, scenario, Some(&fault::PoolOverflow), SchedulerKind::Random, &settings)
    else {
        panic!("PoolOverflow is caught within the default budget");
    };
    let minimized = minimize(&found, settings.max_steps, DEFAULT_RUNS);
    assert_eq!(minimized.failure.invariant, "bounded-pool");
    assert!(minimized.size <= found.size, "{} is not smaller than {}", minimized.size, found.size);
    eprintln!("found at iteration {}: {} minimized to {}", found.iteration, found.size, minimized.size);
    let trace = found.trace_with(minimized.size, minimized.schedule);
    assert_eq!((trace.target.as_str(), trace.scenario.as_str()), ("pipe", scenario.name));
    let path = dir.join("PoolOverflow-round-trip.trace");
    trace.save(&path).expect("saved");
    (path, trace)
}

#[test]
fn a_failure_is_minimized_saved_and_replayed_to_the_same_invariant() {
    let dir = temp_dir("round-trip");
    let (path, saved) = saved_trace(&dir);
    let loaded = Trace::load(&path, &pipecheck_models::builtin::all()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(loaded.schedule, saved.schedule);
    let replayed =
        replay(&loaded, &path, &pipecheck_models::builtin::all()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(replayed.failure.as_ref().expect("fails").invariant, "bounded-pool");
    assert_eq!(replayed.size, saved.minimized);
    let table = render(&replayed, None);
    assert!(table.contains("task 0 (reader)") && table.contains("(writer)"), "{table}");
    assert!(table.contains("✗ `bounded-pool` broke"), "{table}");
    let fixed = replay_without_fault(&loaded, &path, &pipecheck_models::builtin::all())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(fixed.failure.is_none(), "passes with the fault off");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_schedule_that_no_longer_fits_the_program_is_reported_with_the_file() {
    let dir = temp_dir("mismatch");
    let (path, _) = saved_trace(&dir);
    // The same schedule against another scenario: the program takes other steps.
    let text = std::fs::read_to_string(&path).expect("read");
    let moved = dir.join("moved.trace");
    std::fs::write(&moved, text.replace("# scenario: large-pool-churn", "# scenario: large-cancel"))
        .expect("write");
    let trace = Trace::load(&moved, &pipecheck_models::builtin::all()).unwrap_or_else(|e| panic!("{e}"));
    let e = replay(&trace, &moved, &pipecheck_models::builtin::all()).expect_err("does not fit");
    assert_eq!(e.path, moved);
    assert!(e.message.contains("no longer matches the program"), "{e}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_schedule_cut_short_is_reported_with_the_file() {
    let dir = temp_dir("cut");
    let (path, mut trace) = saved_trace(&dir);
    // Keep only the first half of the decisions (and say so in the header, so the file parses).
    let half = trace.schedule.len() / 2;
    trace.schedule.steps.truncate(half);
    trace.minimized = Size { steps: half, ..trace.minimized };
    trace.save(&path).expect("saved");
    let loaded = Trace::load(&path, &pipecheck_models::builtin::all()).unwrap_or_else(|e| panic!("{e}"));
    let e = replay(&loaded, &path, &pipecheck_models::builtin::all()).expect_err("no longer fails");
    assert_eq!(e.path, path);
    assert!(e.message.contains("no longer matches the program"), "{e}");
    let _ = std::fs::remove_dir_all(dir);
}

/// A trace whose failure the program no longer has (here: a PoolOverflow trace replayed
/// without the planted bug, as a user's trace is after the fix) says that it passes now.
#[test]
fn a_trace_that_passes_now_says_so() {
    let dir = temp_dir("passes-now");
    let (_, saved) = saved_trace(&dir);
    let mut fixed = saved.clone();
    fixed.fault = None;
    let path = dir.join("nofault-large-pool-churn-fixed.trace");
    fixed.save(&path).expect("saved");
    let loaded = Trace::load(&path, &pipecheck_models::builtin::all()).unwrap_or_else(|e| panic!("{e}"));
    let error =
        replay(&loaded, &path, &pipecheck_models::builtin::all()).expect_err("the bug is gone").to_string();
    assert!(error.contains("the recorded failure no longer happens: this trace passes now"), "{error}");
    assert!(error.contains("nofault-large-pool-churn-fixed.trace"), "names the file: {error}");
    assert!(
        error.find("passes now") < error.find("was the scenario or the code it checks changed"),
        "{error}"
    );
    let _ = std::fs::remove_dir_all(dir);
}
