//! `campaign --worker FEATURE=PATH`: the campaign runs a worker built beforehand (as CI
//! runs the ones its test builds made) without building one, and refuses a binary built
//! with another backend, saying which.

use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_pipecheck");

/// The campaign with `args`, where running cargo fails: nothing may be built.
fn campaign(args: &[&str]) -> (Output, String) {
    let dir = std::env::temp_dir().join(format!("pipecheck-prebuilt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let output = Command::new(BIN)
        .arg("campaign")
        .args(args)
        .env("CARGO", "/nonexistent/cargo")
        .env("CARGO_TARGET_DIR", &dir)
        .output()
        .expect("the campaign starts");
    let _ = std::fs::remove_dir_all(&dir);
    let report = String::from_utf8_lossy(&output.stdout).into_owned();
    (output, report)
}

#[cfg(feature = "loom")]
#[test]
fn a_prebuilt_loom_worker_runs_its_jobs_without_a_build() {
    let worker = format!("loom={BIN}");
    let args = ["--worker", &worker, "--engine", "loom", "--scenario", "consume-to-segment-boundary"];
    let (output, report) = campaign(&[&args[..], &["--fault", "KeepsConsumedSegment"]].concat());
    assert!(output.status.success(), "the campaign failed:\n{report}");
    assert!(report.contains("caught as segments-in-use"), "{report}");
    assert!(!report.contains("building the loom worker"), "{report}");
}

#[test]
fn a_worker_of_another_backend_is_refused_by_name() {
    // A std build that can switch planted bugs on (the pipe's suite is one) says `faults`.
    let (backend, other) = match pipecheck::BACKEND {
        "shuttle" => ("shuttle", "loom"),
        "std" if pipecheck::PlantedFault::can_activate() => ("faults", "shuttle"),
        backend => (backend, "shuttle"),
    };
    let worker = format!("{other}={BIN}");
    let engine = if other == "loom" { "loom" } else { "shuttle-random" };
    let args =
        ["--worker", &worker, "--engine", engine, "--scenario", "consume-to-segment-boundary", "--no-faults"];
    let (output, report) = campaign(&args);
    assert!(!output.status.success(), "a wrong worker passed:\n{report}");
    let refusal = format!("is not a {other} worker: it says its backend is `{backend}`");
    assert!(report.contains(&refusal), "no `{refusal}` in:\n{report}");
}

#[test]
fn a_worker_argument_without_a_feature_is_a_usage_error() {
    let (output, _) = campaign(&["--worker", "/some/path"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("expected `loom=<path>`, `shuttle=<path>` or `faults=<path>`"), "{stderr}");
}
