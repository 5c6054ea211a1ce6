//! `corpus --rerecord`: a trace that still replays is kept, a stale one is hunted again
//! and rewritten, a corrupt or unrecordable one fails with a message naming the file;
//! all in a directory under `target/` (never the committed corpus).
#![cfg(feature = "shuttle")]

use std::path::{Path, PathBuf};

use pipecheck::trace::explore::{Found, Settings};
use pipecheck::trace::location;
use pipecheck::trace::minimize::{DEFAULT_RUNS, minimized_trace};
use pipecheck::trace::rerecord::{Rerecorder, Status, stale_message, staleness};
use pipecheck::trace::trace_file::{RERECORD_COMMAND, Size, Trace};
use pipecheck_models::builtin;

/// A small committed trace: 14 steps, caught at the first iteration.
const SMALL: &str = "FlushForgetsWake-flush-races-read-random-104374622666974.trace";

/// An empty directory of its own under cargo's temporary directory in `target/`.
fn temp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("rerecord-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// A copy of the committed trace `name` in `dir`.
fn copy_of(name: &str, dir: &Path) -> PathBuf {
    let to = dir.join(name);
    std::fs::copy(location::corpus_dir().join(name), &to).expect("copy a corpus trace");
    to
}

/// Cuts the trace's schedule in half (and says so in the header, so it still parses):
/// what a trace looks like after the program gained scheduling points.
fn make_stale(path: &Path) {
    let mut trace = Trace::load(path, &pipecheck_models::builtin::all()).unwrap_or_else(|e| panic!("{e}"));
    let half = trace.schedule.len() / 2;
    trace.schedule.steps.truncate(half);
    trace.minimized = Size { steps: half, ..trace.minimized };
    trace.save(path).expect("saved");
}

fn settings() -> Settings {
    let settings = Settings::from_env().unwrap_or_else(|e| panic!("{e}"));
    eprintln!("seed {} (PIPECHECK_SHUTTLE_SEED), {} iterations", settings.seed, settings.iterations);
    settings
}

fn in_process(found: &Found) -> Trace {
    minimized_trace(found, pipecheck::engine::shuttle::DEFAULT_MAX_STEPS, DEFAULT_RUNS)
}

#[test]
fn a_trace_that_still_replays_is_kept_untouched() {
    let dir = temp_dir("kept");
    let path = copy_of(SMALL, &dir);
    let before = std::fs::read_to_string(&path).expect("read");
    let outcome =
        Rerecorder { targets: &builtin::all(), settings: settings(), force: false, minimize: &in_process }
            .file(&path);
    assert_eq!(outcome.status, Status::Kept);
    assert_eq!(std::fs::read_to_string(&path).expect("read"), before, "a kept trace is not rewritten");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_stale_trace_says_so_and_names_the_command() {
    let dir = temp_dir("stale-message");
    let path = copy_of(SMALL, &dir);
    make_stale(&path);
    let why = staleness(&path, &pipecheck_models::builtin::all())
        .expect("a cut schedule no longer replays as recorded");
    let message = stale_message(&why);
    assert!(message.contains(&path.display().to_string()), "{message}");
    assert!(message.contains("the trace is stale") && message.contains(RERECORD_COMMAND), "{message}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_stale_trace_is_hunted_again_minimized_and_rewritten_in_place() {
    let dir = temp_dir("rewritten");
    let path = copy_of(SMALL, &dir);
    make_stale(&path);
    let outcome =
        Rerecorder { targets: &builtin::all(), settings: settings(), force: false, minimize: &in_process }
            .file(&path);
    let Status::Rewritten { why, path: new_path, .. } = &outcome.status else {
        panic!("expected a rewrite: {:?}", outcome.status);
    };
    assert!(why.contains("no longer matches the program"), "{why}");
    assert_eq!(new_path, &path, "same scheduler and seed: the file keeps its name");
    assert_eq!(
        staleness(&path, &pipecheck_models::builtin::all()),
        None,
        "the rewritten trace replays as recorded and passes with the fault off"
    );
    let trace = Trace::load(&path, &pipecheck_models::builtin::all()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (trace.fault.as_deref(), trace.invariant.as_str()),
        (Some("FlushForgetsWake"), "no-lost-wakeup")
    );
    assert_eq!(location::traces_in(&dir), vec![path.clone()], "no stray files");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_corrupt_trace_fails_naming_file_and_line_and_the_others_go_on() {
    let dir = temp_dir("corrupt");
    let good = copy_of(SMALL, &dir);
    let bad = dir.join("Broken-flush-races-read-random-1.trace");
    let text = std::fs::read_to_string(&good).expect("read").replace("# seed: ", "# seed ");
    let seed_line = 1 + text.lines().position(|line| line.starts_with("# seed ")).expect("a seed line");
    std::fs::write(&bad, text).expect("write");
    let outcomes =
        Rerecorder { targets: &builtin::all(), settings: settings(), force: false, minimize: &in_process }
            .directory(&dir, |_, _, _| {});
    assert_eq!(outcomes.len(), 2);
    let Status::Failed(why) = &outcomes[0].status else { panic!("{:?}", outcomes[0]) };
    assert!(why.starts_with(&format!("{}:{seed_line}: malformed header line", bad.display())), "{why}");
    assert_eq!(outcomes[1].status, Status::Kept);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_fault_its_scenario_does_not_catch_fails_and_leaves_the_file() {
    let dir = temp_dir("uncaught");
    let path = copy_of(SMALL, &dir);
    // The pool's LIFO bug cannot show in a scenario that never returns a segment.
    let text = std::fs::read_to_string(&path)
        .expect("read")
        .replace("# fault: FlushForgetsWake", "# fault: LifoPool");
    std::fs::write(&path, &text).expect("write");
    let settings = Settings { iterations: 20, ..settings() };
    let outcome =
        Rerecorder { targets: &builtin::all(), settings, force: false, minimize: &in_process }.file(&path);
    let Status::Failed(why) = &outcome.status else { panic!("{:?}", outcome.status) };
    assert!(why.starts_with(&path.display().to_string()), "{why}");
    assert!(
        why.contains("LifoPool could not be recorded again") && why.contains("not caught in 20"),
        "{why}"
    );
    assert_eq!(std::fs::read_to_string(&path).expect("read"), text, "a failed trace is left as it was");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_command_reports_each_trace_and_exits_non_zero_naming_the_failure() {
    let dir = temp_dir("command");
    let stale = copy_of(SMALL, &dir);
    make_stale(&stale);
    let bad = dir.join("Broken-flush-races-read-random-1.trace");
    std::fs::write(&bad, "# pipecheck-trace v1\n# scenario: no-such-scenario\n").expect("write");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_pipecheck"))
        .args(["corpus", "--rerecord", "--out"])
        .arg(&dir)
        .env_remove("SHUTTLE_RANDOM_SEED")
        .output()
        .expect("runs");
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert_eq!(output.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stdout.contains(&format!("| {SMALL} | rewritten |")), "{stdout}");
    assert!(stdout.contains("| Broken-flush-races-read-random-1.trace | FAILED |"), "{stdout}");
    assert!(stdout.contains("2 traces: 0 kept, 1 rewritten, 1 failed"), "{stdout}");
    assert!(
        stderr.contains(&format!("{}:2: unknown scenario `no-such-scenario`", bad.display())),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked at"), "no panic: {stderr}");
    assert_eq!(staleness(&stale, &pipecheck_models::builtin::all()), None, "the stale trace was rewritten");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_status_line_reads_back_whatever_its_message_holds() {
    for status in [
        Status::Kept,
        Status::Failed("a\tb\nc \\ d".into()),
        Status::Rewritten {
            why: "x:1: y".into(),
            path: PathBuf::from("dir/a b.trace"),
            minimized: "3 steps, 0 preemptions".into(),
        },
    ] {
        assert_eq!(Status::from_line(&status.to_line()), Some(status.clone()));
    }
    assert_eq!(Status::from_line("test panicked in task 'task-1'"), None);
}

/// `corpus` without `--fault` keeps a fault's trace that still reproduces it (so running it
/// on a clean tree leaves the committed corpus as it is), and records one whose scenario
/// no longer claims the fault, whose schedule went stale, or that has a rival file.
#[test]
fn corpus_keeps_the_trace_of_a_fault_that_nothing_changed() {
    use pipecheck::trace::rerecord::current_trace;
    let targets = builtin::all();
    let header = Trace::load(&location::corpus_dir().join(SMALL), &pipecheck_models::builtin::all())
        .unwrap_or_else(|e| panic!("{e}"));
    let target = targets.iter().find(|t| t.name() == header.target).expect("its target");
    let fault = target.fault(header.fault.as_deref().expect("a fault")).expect("declared");

    let dir = temp_dir("corpus-keeps");
    let path = copy_of(SMALL, &dir);
    assert_eq!(current_trace(&dir, target, fault, &targets), Ok(path.clone()));

    // Another scenario in its header, one that does not claim the fault: recorded again.
    let mut moved = Trace::load(&path, &pipecheck_models::builtin::all()).unwrap_or_else(|e| panic!("{e}"));
    let other = target.all_scenarios().iter().find(|s| s.catches.iter().all(|f| f.name() != fault.name()));
    let other = other.expect("a scenario that does not claim it");
    moved.scenario = other.name.to_owned();
    moved.save(&path).expect("saved");
    let why = current_trace(&dir, target, fault, &targets).unwrap_err();
    assert!(why.contains("scenario"), "{why}");

    // A stale schedule: recorded again.
    let path = copy_of(SMALL, &dir);
    make_stale(&path);
    assert!(current_trace(&dir, target, fault, &targets).is_err(), "a stale trace is not kept");

    // Two files of the fault: recorded again (one replaces both).
    let path = copy_of(SMALL, &dir);
    std::fs::copy(&path, dir.join(format!("{}-other.trace", fault.name()))).expect("copy");
    assert!(current_trace(&dir, target, fault, &targets).is_err(), "two traces of one fault");
}
