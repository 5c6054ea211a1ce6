//! The one runner for "must fail" twins: a check with a planted bug runs in a child
//! process (the same test binary, filtered to the calling test), and the parent
//! asserts that its verdict names the invariant the bug breaks.
//!
//! A child process, because loom may abort the process on a failure (its panic
//! unwinds through loom objects whose destructors panic again), and `catch_unwind`
//! cannot observe an abort. The child [`announce`]s its verdict on stderr as a typed
//! line (kind and invariant as fields) the moment the first failure happens, so the
//! parent reads the verdict even when the child then aborts.

use std::io::Write;
use std::process::Command;

use crate::check::{Checked, FailureKind, Verdict};
use pipecheck_sync::InvariantId;

/// Set in a child test process to the name of the test it must run for its parent.
pub const CHILD_TEST_ENV: &str = "PIPECHECK_CHILD_TEST";
/// Starts the verdict line a child writes: `pipecheck-verdict<TAB>kind<TAB>invariant`.
const VERDICT_PREFIX: &str = "pipecheck-verdict\t";

/// Writes `failure` to stderr, past the test harness's capture: the verdict line, then
/// the failure for people.
pub fn announce(failure: &FailureKind) {
    announce_after(failure, None);
}

/// As [`announce`], with the number of the failing execution when the engine knows it.
pub fn announce_after(failure: &FailureKind, executions: Option<u64>) {
    let invariant = failure.invariant().map_or("-", InvariantId::name);
    let executions = executions.map_or_else(|| "-".to_owned(), |n| n.to_string());
    let _ = write!(
        std::io::stderr(),
        "{VERDICT_PREFIX}{}\t{invariant}\t{executions}\n{failure}\n",
        failure.kind()
    );
}

/// What a child's check concluded, as read from its verdict line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChildVerdict {
    /// The failure's kind ([`FailureKind::kind`]), or `pass`.
    pub kind: String,
    /// The invariant the failure counts as breaking.
    pub invariant: Option<InvariantId>,
    /// The failing execution's number, when the engine said.
    pub executions: Option<u64>,
    /// The child's stderr from its verdict on, for people.
    pub report: String,
}

impl ChildVerdict {
    /// The first verdict [`announce`]d in `output` (a child's stderr, a worker's log).
    pub fn read(output: &str) -> Option<ChildVerdict> {
        let (_, from_verdict) = output.split_once(VERDICT_PREFIX)?;
        let mut fields = from_verdict.lines().next().unwrap_or("").split('\t');
        let kind = fields.next().unwrap_or("").to_owned();
        let invariant = fields.next().filter(|&i| i != "-").map(InvariantId::intern);
        let executions = fields.next().and_then(|n| n.parse().ok());
        Some(ChildVerdict { kind, invariant, executions, report: from_verdict.to_owned() })
    }
}

/// Asserts that `check` (a check with a planted bug) fails, counting as a violation of
/// `expected`, running it in a child process.
///
/// `test` is the calling test's full name as libtest prints it (`module::test_name`):
/// the parent re-runs the current test binary filtered to exactly that test with
/// [`CHILD_TEST_ENV`] and `child_env` set; the child sees the variable, runs `check`
/// and exits.
///
/// # Panics
///
/// When the child passes, fails naming another invariant (or none), or did not run.
pub fn must_fail_in_child(
    test: &str,
    expected: InvariantId,
    child_env: &[(&str, &str)],
    check: impl FnOnce() -> Checked,
) -> ChildVerdict {
    must_fail_in_child_as(test, &[expected], child_env, check)
}

/// [`must_fail_in_child`] for a planted bug that counts as caught when the verdict names
/// any of `expected` (its own invariant, and the one it
/// [`also_breaks`](crate::PlantedFault::also_breaks)).
///
/// # Panics
///
/// When the child passes, fails naming none of `expected`, or did not run.
pub fn must_fail_in_child_as(
    test: &str,
    expected: &[InvariantId],
    child_env: &[(&str, &str)],
    check: impl FnOnce() -> Checked,
) -> ChildVerdict {
    if std::env::var(CHILD_TEST_ENV).as_deref() == Ok(test) {
        match check().verdict {
            Verdict::Pass => {
                let _ = writeln!(std::io::stderr(), "{VERDICT_PREFIX}pass\t-");
            }
            Verdict::Incomplete { reason } => {
                let _ = writeln!(std::io::stderr(), "{VERDICT_PREFIX}incomplete\t-\n{reason}");
            }
            Verdict::Fail(failure) => announce(&failure),
        }
        // The caller's own checks belong to the parent.
        std::process::exit(0);
    }
    let ChildOutput { stderr, .. } = in_child(test, child_env, || unreachable!("the child ran above"));
    let Some(verdict) = ChildVerdict::read(&stderr) else {
        panic!("the child run of `{test}` reported no verdict:\n{stderr}");
    };
    let named = expected.iter().map(|i| format!("`{i}`")).collect::<Vec<_>>().join(" or ");
    assert!(verdict.kind != "pass", "`{test}`: the planted bug went unnoticed ({named} should break)");
    assert!(
        verdict.kind != "incomplete",
        "`{test}`: the exploration was cut before it caught the planted bug ({named} should break):\n{}",
        verdict.report
    );
    let Some(caught) = verdict.invariant.filter(|i| expected.contains(i)) else {
        panic!(
            "`{test}`: the planted bug should be reported as a violation of {named}, got {}:\n{}",
            verdict.kind, verdict.report
        );
    };
    eprintln!("`{test}`: planted bug caught as `{caught}` ({})", verdict.kind);
    verdict
}

/// What a child run of a test printed, and how it ended.
#[derive(Clone, Debug)]
pub struct ChildOutput {
    /// The child exited with success (`body` returned).
    pub success: bool,
    /// Everything it wrote to stderr.
    pub stderr: String,
}

/// Runs `body` in a child process: the calling test `test` (its full name, as libtest
/// prints it) re-run from the current test binary with [`CHILD_TEST_ENV`] and `child_env`
/// set. In that child, runs `body` and exits (a panic in `body` fails the child); in the
/// parent, returns the child's output. For tests of what a failure prints, and of the
/// commands it prints.
///
/// # Panics
///
/// When the child process cannot be started.
pub fn in_child(test: &str, child_env: &[(&str, &str)], body: impl FnOnce()) -> ChildOutput {
    if std::env::var(CHILD_TEST_ENV).as_deref() == Ok(test) {
        body();
        std::process::exit(0);
    }
    let output = Command::new(std::env::current_exe().expect("the test binary's path"))
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_TEST_ENV, test)
        .env("RUST_BACKTRACE", "0")
        .envs(child_env.iter().copied())
        .output()
        .expect("could not run the child test process");
    ChildOutput {
        success: output.status.success(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}
