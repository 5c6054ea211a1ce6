//! The reproduce line a campaign prints for a loom job, run as printed: `cargo campaign`
//! is this package's `pipecheck` binary with `campaign`, and the campaign it starts
//! builds its loom worker with `$CARGO` (as cargo's own subcommands do). Here `$CARGO`
//! is a stand-in that reports the binary this test build already made, so no cargo
//! runs inside the test.
#![cfg(feature = "loom")]

use std::process::Command;

const JOB: &str = "0:loom:pipe/consume-to-segment-boundary:KeepsConsumedSegment";

#[test]
fn a_loom_jobs_reproduce_line_reruns_that_job() {
    let worker = Command::new(env!("CARGO_BIN_EXE_pipecheck"))
        .args(["worker", "--iterations", "100", "--time", "20", "--loom-bound", "2", "--seed", "1", JOB])
        .output()
        .expect("the worker binary starts");
    let stdout = String::from_utf8_lossy(&worker.stdout);
    let result = stdout.lines().find(|l| l.starts_with("pipecheck-result")).expect("a result line");
    let json: serde_json::Value =
        serde_json::from_str(result.trim_start_matches("pipecheck-result").trim()).expect("a JSON result");
    let line = json["reproduce"].as_str().unwrap_or_else(|| panic!("no reproduce line: {result}"));
    // `LOOM_MAX_PREEMPTIONS=2 cargo run -p pipecheck-models --bin pipecheck -- <args>   (a hint)`
    let command = line.split("   (").next().expect("the command");
    let (assignment, rest) = command.split_once(' ').expect("VAR=value cargo run ...");
    let (var, bound) = assignment.split_once('=').expect("VAR=value");
    assert_eq!((var, bound), ("LOOM_MAX_PREEMPTIONS", "2"));
    let args = rest
        .strip_prefix("cargo run -p pipecheck-models --bin pipecheck -- ")
        .unwrap_or_else(|| panic!("not a campaign command: {line}"));
    assert_eq!(args, "--engine loom --scenario consume-to-segment-boundary --fault KeepsConsumedSegment");

    let dir = std::env::temp_dir().join(format!("pipecheck-reproduce-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let stand_in = dir.join("cargo");
    let artifact = serde_json::json!({
        "reason": "compiler-artifact",
        "target": { "name": "pipecheck" },
        "executable": env!("CARGO_BIN_EXE_pipecheck"),
    });
    std::fs::write(&stand_in, format!("#!/bin/sh\necho '{artifact}'\n")).expect("the stand-in");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&stand_in, std::fs::Permissions::from_mode(0o755)).expect("executable");
    }
    let campaign = Command::new(env!("CARGO_BIN_EXE_pipecheck"))
        .arg("campaign")
        .args(args.split_whitespace())
        .env(var, bound)
        .env("CARGO", &stand_in)
        .env("CARGO_TARGET_DIR", &dir)
        .output()
        .expect("the campaign starts");
    let report = String::from_utf8_lossy(&campaign.stdout);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        campaign.status.success(),
        "the campaign failed:\n{report}\n{}",
        String::from_utf8_lossy(&campaign.stderr)
    );
    assert!(
        report.contains("caught as segments-in-use"),
        "the printed command did not run the job that caught the bug:\n{report}"
    );
}
