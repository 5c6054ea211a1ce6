//! A loom worker survives its verdicts: an invariant that fires inside the pipe's
//! critical section must not take the whole worker process down with it.
//!
//! Under loom, a panic while the pipe lock is held poisons loom's mutex; the pipe ends'
//! destructors used to lock it again while unwinding, and Rust aborted the process. The
//! campaign then judged the job from the worker's log and restarted a worker per fault
//! job, and a restart that failed on the CI machine lost every job after it.
#![cfg(feature = "loom")]

use std::process::Command;

/// Runs the worker binary over `jobs` (`id:engine:target/scenario:fault` specs).
fn worker(jobs: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_pipecheck"))
        .args(["worker", "--iterations", "100", "--time", "20", "--loom-bound", "2", "--seed", "1"])
        .args(jobs)
        .output()
        .expect("the worker binary starts")
}

#[test]
fn a_fault_caught_under_the_pipe_lock_does_not_abort_the_worker() {
    // `NoPauseOnFlush` fires in the flush's commit, under the lock; the job runs first in
    // a fresh process, where the abort used to happen, and a clean job follows it.
    let output = worker(&[
        "0:loom:pipe/reader-complete-races-paused-flush:NoPauseOnFlush",
        "1:loom:pipe/writer-complete-races-read:-",
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the worker ended with {}:\n{stderr}", output.status);
    let results: Vec<&str> = stdout.lines().filter(|l| l.starts_with("pipecheck-result")).collect();
    assert_eq!(results.len(), 2, "one result per job:\n{stdout}");
    assert!(
        results[0].contains(r#""invariant":"backpressure""#),
        "caught as its own invariant: {}",
        results[0]
    );
    assert!(results[1].contains(r#""outcome":"passed""#), "the clean job after it passes: {}", results[1]);
}
