//! Regression corpus: every committed trace replays, deterministically, to its recorded
//! invariant with its fault on, and passes with the fault off. A trace that no longer
//! replays as recorded is reported as stale, with the command that records it again.
#![cfg(feature = "shuttle")]

use std::path::PathBuf;

use pipecheck::trace::location;
use pipecheck::trace::replay::{replay, replay_without_fault};
use pipecheck::trace::rerecord::stale_message;
use pipecheck::trace::trace_file::Trace;

/// The committed corpus, `traces/corpus/` (never the traces runs save under `target/`).
fn corpus() -> Vec<PathBuf> {
    location::traces_in(&location::corpus_dir())
}

#[test]
fn every_committed_trace_fails_as_recorded_ten_times_over() {
    let files = corpus();
    assert!(!files.is_empty(), "traces/corpus/ holds the corpus");
    for path in files {
        let trace = Trace::load(&path, &pipecheck_models::builtin::all())
            .unwrap_or_else(|e| panic!("{}", stale_message(&e)));
        let first = replay(&trace, &path, &pipecheck_models::builtin::all())
            .unwrap_or_else(|e| panic!("{}", stale_message(&e)));
        for _ in 1..10 {
            let again = replay(&trace, &path, &pipecheck_models::builtin::all())
                .unwrap_or_else(|e| panic!("{}", stale_message(&e)));
            assert_eq!(again.fingerprint(), first.fingerprint(), "{}: replays differ", path.display());
        }
        eprintln!("{}: `{}` broke, 10 identical replays", path.display(), trace.invariant);
    }
}

#[test]
fn every_committed_trace_passes_with_its_fault_off() {
    for path in corpus() {
        let trace = Trace::load(&path, &pipecheck_models::builtin::all())
            .unwrap_or_else(|e| panic!("{}", stale_message(&e)));
        let replayed = replay_without_fault(&trace, &path, &pipecheck_models::builtin::all())
            .unwrap_or_else(|e| panic!("{}", stale_message(&e)));
        if let Some(f) = replayed.failure {
            let why = format!(
                "{}: with the fault off it still breaks `{}`: {}",
                path.display(),
                f.invariant,
                f.message()
            );
            panic!("{}", stale_message(&why));
        }
    }
}

#[test]
fn stock_shuttle_replays_a_trace_body_to_the_same_invariant() {
    // Our encoding is shuttle's: `shuttle::replay` with the schedule string reproduces it.
    let path =
        corpus().into_iter().find(|p| p.to_string_lossy().contains("NoPauseOnFlush")).expect("a trace");
    let trace = Trace::load(&path, &pipecheck_models::builtin::all()).unwrap_or_else(|e| panic!("{e}"));
    let scenario = pipecheck_models::find(&trace.scenario).expect("known scenario");
    let name = trace.fault.as_deref().expect("a fault trace");
    let fault = pipecheck_pipe::fault::ALL.iter().copied().find(|f| f.name() == name).expect("a pipe fault");
    let encoded = trace.schedule.encode();
    let result =
        std::panic::catch_unwind(|| shuttle::replay(move || scenario.run_once(Some(fault)), &encoded));
    let payload = result.expect_err("the replay fails");
    let failure = pipecheck::classify(&*payload, None);
    assert_eq!(failure.invariant().map(|i| i.name()), Some(trace.invariant.as_str()), "{failure}");
}

/// The replay line a trace carries, run as written (the campaign binary that
/// `cargo run -p pipecheck-models --features shuttle --bin pipecheck --` runs, from the
/// workspace root),
/// fails again as recorded, and says which invariant broke.
#[test]
fn the_replay_line_of_every_committed_trace_runs_as_written() {
    const CARGO_RUN: &str = "cargo run -p pipecheck-models --features shuttle --bin pipecheck -- ";
    let root = location::corpus_dir()
        .parent()
        .and_then(|traces| traces.parent())
        .expect("the workspace root")
        .to_owned();
    for path in corpus() {
        let text = std::fs::read_to_string(&path).expect("readable");
        let trace = Trace::load(&path, &pipecheck_models::builtin::all())
            .unwrap_or_else(|e| panic!("{}", stale_message(&e)));
        let line = text
            .lines()
            .find_map(|l| l.strip_prefix("# replay: "))
            .unwrap_or_else(|| panic!("{}: no replay line", path.display()));
        let args = line.strip_prefix(CARGO_RUN).unwrap_or_else(|| {
            panic!("{}: the replay line does not run the traces tool: {line}", path.display())
        });
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_pipecheck"))
            .args(args.split_whitespace())
            .current_dir(&root)
            .env_remove("SHUTTLE_RANDOM_SEED")
            .output()
            .expect("the traces tool runs");
        let all =
            format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        assert!(
            all.contains(&format!("`{}`", trace.invariant)),
            "{}: `{line}` did not report `{}`:\n{all}",
            path.display(),
            trace.invariant
        );
    }
}

#[test]
fn recording_the_facade_changes_no_replay() {
    // The facade's recording adds no scheduling point: every trace replays the same
    // with it off and with everything recorded, whether or not it still replays.
    use pipecheck::record::Detail;
    use pipecheck::trace::replay::replay_recording;
    let targets = pipecheck_models::builtin::all();
    let outcome = |trace: &Trace, path: &std::path::Path, detail| {
        replay_recording(trace, path, &targets, detail).map(|r| (r.fingerprint(), r.facade.is_empty()))
    };
    let mut replayed = 0;
    for path in corpus() {
        let trace = Trace::load(&path, &pipecheck_models::builtin::all()).unwrap_or_else(|e| panic!("{e}"));
        let (off, all) = (outcome(&trace, &path, Detail::None), outcome(&trace, &path, Detail::All));
        match (off, all) {
            (Ok((a, no_ops)), Ok((b, ops_empty))) => {
                replayed += 1;
                assert_eq!(a, b, "{}: the recorded replay differs", path.display());
                assert!(no_ops && !ops_empty, "{}: operations recorded only when asked", path.display());
            }
            (Err(a), Err(b)) => assert_eq!(a.message, b.message, "{}", path.display()),
            (a, b) => panic!("{}: off {:?} but recorded {:?}", path.display(), a.is_ok(), b.is_ok()),
        }
    }
    eprintln!("{replayed} of {} traces replayed identically with and without recording", corpus().len());
}
