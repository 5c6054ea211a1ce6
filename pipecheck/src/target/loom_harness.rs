//! Running models under loom through the [`Loom`] engine: a stated preemption bound, a
//! count of the interleavings explored, and failures reported by their [`Verdict`],
//! with the commands that reproduce them.
//!
//! loom reports three kinds of failure, and the verdict names each: a checker's
//! [`Violation`](crate::Violation); a deadlock (every thread blocked: a
//! waiting side was never woken, **no-lost-wakeup**); a causality violation on an
//! `UnsafeCell` (two threads touched the same segment bytes or pool slot without a
//! happens-before edge, **no-data-race**).
//!
//! Planted-bug twins ([`expect_target_caught`], [`expect_model_caught`]) run their model in a
//! child process ([`must_fail_in_child`]).

use std::cell::RefCell;
use std::sync::Arc;

use crate::check::{Checked, Engine, FailureKind, Row, RunLog, Verdict};
use crate::linearizability::{ConcurrentShape, OpsSpec, fixed_scenarios, run_concurrent};
use pipecheck_sync::{InvariantId, PlantedFault};

use crate::target::engine::loom::Loom;
pub use crate::target::engine::loom::with_loom_log;
use crate::target::invocation::TestInvocation;
use crate::target::must_fail::{ChildVerdict, must_fail_in_child, must_fail_in_child_as};
use crate::target::{EngineClass, Target, TargetError, TargetScenario};

/// Explores every interleaving of `body` within `bound` preemptions
/// (`LOOM_MAX_PREEMPTIONS` wins when set); `model` names it in the report.
///
/// # Panics
///
/// When loom finds a failing interleaving: with the failure and how to reproduce it.
pub fn explore(model: &str, bound: usize, body: impl Fn() + Send + Sync + 'static) -> Checked {
    let engine = Loom::with_bound(bound);
    let checked = engine.check(Arc::new(body));
    let monitor = MONITOR.with(|m| m.borrow_mut().take());
    if let Verdict::Fail(failure) = &checked.verdict {
        // A monitor's violation carries its log tail; loom's own failures get it here.
        let tail = match (failure, monitor) {
            (FailureKind::InvariantViolated(_), _) | (_, None) => String::new(),
            (_, Some(monitor)) => tail(&monitor.rows()),
        };
        panic!(
            "{failure}\n{tail}in loom model `{model}` at interleaving {} ({}, {:.2?})\n{}",
            checked.executions,
            engine.name(),
            checked.elapsed,
            reproduce(engine.bound)
        );
    }
    eprintln!(
        "loom model `{model}`: preemption bound {}, {} interleavings explored in {:.2?}",
        engine.bound, checked.executions, checked.elapsed
    );
    if let Some(caveat) = checked.caveat {
        eprintln!("loom model `{model}` passed with a caveat: {caveat}");
    }
    checked
}

/// Like [`expect_target_caught`], for any model `body` (e.g. a queue-level model) that
/// plants its bug itself and must be reported as breaking `expected`.
///
/// # Panics
///
/// When the model passes, or fails naming another invariant.
pub fn expect_model_caught(
    expected: InvariantId,
    bound: usize,
    body: impl Fn() + Send + Sync + 'static,
) -> ChildVerdict {
    let test = std::thread::current().name().unwrap_or("<test name>").to_owned();
    must_fail_in_child(&test, expected, &[], || Loom::with_bound(bound).check(Arc::new(body)))
}

thread_local! {
    /// The log of the interleaving running now: loom runs every model thread on the
    /// test's own thread.
    static MONITOR: RefCell<Option<Arc<dyn RunLog>>> = const { RefCell::new(None) };
}

/// Keeps `log` for the report of a failure its monitor does not see (a deadlock, a race).
fn publish_log(log: Arc<dyn RunLog>) {
    MONITOR.with(|m| *m.borrow_mut() = Some(log));
}

/// The last observations of a failing interleaving, as a monitor's report shows them.
fn tail(log: &[Row]) -> String {
    if log.is_empty() {
        return "the failing interleaving recorded no observations before it failed\n".to_owned();
    }
    let from = log.len().saturating_sub(16);
    let mut tail = format!("last {} observations of the failing interleaving:\n", log.len() - from);
    for row in &log[from..] {
        tail.push_str(&format!("{:>4}  {:<8} {}\n", row.step, row.role.as_deref().unwrap_or("-"), row.text));
    }
    tail
}

/// Explores every interleaving of `target`'s scenario `scenario` with `fault` (a name
/// the target declares) switched on, within `bound` preemptions.
///
/// # Errors
///
/// A [`TargetError`] for an unknown scenario or fault.
///
/// # Panics
///
/// When loom finds a failing interleaving: with the failure, the log tail, and the
/// command that reproduces it in the calling crate.
pub fn check_target(
    target: &Target,
    scenario: &str,
    fault: Option<&str>,
    bound: usize,
) -> Result<Checked, TargetError> {
    let (scenario, fault) = resolve(target, scenario, fault)?;
    let model = format!("{}/{}", target.name(), scenario.name);
    Ok(explore(&model, bound, move || scenario.run_once(fault, &publish_log)))
}

/// Explores `target`'s scenario `scenario` with the planted fault `fault` switched on,
/// in a child process, and asserts that loom's verdict names the invariant the fault
/// breaks: a kill-matrix cell as a test.
///
/// # Errors
///
/// A [`TargetError`] for an unknown scenario or fault.
///
/// # Panics
///
/// When the model passes despite the planted bug, or fails naming another invariant.
pub fn expect_target_caught(
    target: &Target,
    scenario: &str,
    fault: &str,
    bound: usize,
) -> Result<ChildVerdict, TargetError> {
    let (scenario, planted) = resolve(target, scenario, Some(fault))?;
    let planted: &'static PlantedFault = planted.expect("resolved from Some");
    Ok(expect_model_caught(planted.breaks(), bound, move || scenario.run_once(Some(planted), &publish_log)))
}

/// Set in the child process of one planted-bug run of [`check_target_all`] to that
/// run's `scenario/fault`.
pub const CHILD_RUN_ENV: &str = "PIPECHECK_CHILD_RUN";

/// Every run loom makes of `target` ([`Target::runs`] of [`EngineClass::Exhaustive`]),
/// each within `bound` preemptions: every small scenario clean, which must pass, then
/// each planted bug on each scenario that claims it, in a child process, which must fail
/// naming an invariant the bug breaks ([`PlantedFault::broken_as`]). A whole target's
/// loom suite as one test: the child runs the calling test again with
/// [`CHILD_RUN_ENV`] naming its run.
///
/// # Examples
///
/// ```no_run
/// # use pipecheck::prelude::*;
/// # fn my_target() -> Target {
/// #     let ones = FnInvariant::new(InvariantId::new("only-ones"), "every event is 1", (), |_, e: &u32| {
/// #         if *e == 1 { Ok(()) } else { Err(format!("{e}")) }
/// #     });
/// #     let scenarios = [EventScenario::small("one", "records 1", |m| m.record(1))];
/// #     Target::new("ones", "ones").checked(ones, &scenarios)
/// # }
/// #[test]
/// fn every_loom_run_of_my_target() {
///     pipecheck::loom_harness::check_target_all(&my_target());
/// }
/// ```
///
/// # Panics
///
/// When a clean run fails (with the failure and how to reproduce it), or a planted bug
/// passes or is reported as another invariant.
pub fn check_target_all(target: &Target) {
    let test = std::thread::current().name().unwrap_or("<test name>").to_owned();
    let runs = target.runs(EngineClass::Exhaustive);
    // The target's name too: one test may check several targets (`pipecheck::verify_all`).
    let name = |scenario: &TargetScenario, fault: &PlantedFault| {
        format!("{}/{}/{}", target.name(), scenario.name, fault.name())
    };
    let child = std::env::var(CHILD_RUN_ENV).ok();
    for (scenario, fault) in runs {
        let model = format!("{}/{}", target.name(), scenario.name);
        let bound = target.loom_bound_for(scenario);
        let scenario = scenario.clone();
        match fault {
            None if child.is_none() => {
                drop(explore(&model, bound, move || scenario.run_once(None, &publish_log)))
            }
            None => {}
            Some(fault) if child.as_ref().is_none_or(|run| *run == name(&scenario, fault)) => {
                let run = name(&scenario, fault);
                eprintln!("loom model `{model}` with `{fault}` planted:");
                must_fail_in_child_as(&test, &fault.broken_as(), &[(CHILD_RUN_ENV, &run)], move || {
                    Loom::with_bound(bound)
                        .check(Arc::new(move || scenario.run_once(Some(fault), &publish_log)))
                });
            }
            Some(_) => {}
        }
    }
}

/// Explores `count` generated scenarios of `spec` (drawn from seed 1, each of
/// [`ConcurrentShape::SMALL`]: 2 threads of at most 2 operations), each within `bound`
/// preemptions, every history checked for `linearizable` (by program order and
/// spawn/join, as loom orders it).
///
/// # Examples
///
/// ```no_run
/// # fn demo<S: pipecheck::linearizability::OpsSpec>(my_spec: S) {
/// pipecheck::loom_harness::check_generated(my_spec, 12, 3);
/// # }
/// ```
///
/// # Panics
///
/// When loom finds a failing interleaving of one of them: with the scenario and the failure.
pub fn check_generated<S: OpsSpec>(spec: S, count: usize, bound: usize) {
    for (index, threads) in fixed_scenarios(&spec, ConcurrentShape::SMALL, 1, count).into_iter().enumerate() {
        let (model, spec) = (format!("{spec:?}-generated-{index}: {threads:?}"), spec.clone());
        explore(&model, bound, move || drop(run_concurrent(&spec, &threads)));
    }
}

/// The scenario and planted fault named.
fn resolve(
    target: &Target,
    scenario: &str,
    fault: Option<&str>,
) -> Result<(TargetScenario, Option<&'static PlantedFault>), TargetError> {
    let scenario = target.scenario(scenario)?.clone();
    let fault = fault.map(|f| target.fault(f)).transpose()?;
    Ok((scenario, fault))
}

/// How to reproduce a loom failure of the current test: in the package cargo ran it
/// from, with its `loom` feature, and the test file or library unit tests it is in.
fn reproduce(bound: usize) -> String {
    let invocation = TestInvocation::current();
    let test = &invocation.test;
    let command = invocation.command("loom");
    format!(
        "reproduce:\n  \
           LOOM_MAX_PREEMPTIONS={bound} {command}\n  \
           interleaving log: add LOOM_LOG=info (thread switches) or LOOM_LOG=1 (every operation; long), and LOOM_LOCATION=1 for source locations\n  \
           jump to the failing interleaving: run once with --features loom,loom-checkpoint and \
           LOOM_CHECKPOINT_FILE=/tmp/{test}.json LOOM_CHECKPOINT_INTERVAL=1, then rerun with the same \
           file and LOOM_LOG=1"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_before_any_observation_says_so_instead_of_counting_none() {
        assert_eq!(tail(&[]), "the failing interleaving recorded no observations before it failed\n");
        let row = |step| Row { step, role: None, text: format!("event {step}") };
        let log: Vec<Row> = (0..20).map(row).collect();
        let text = tail(&log);
        assert!(text.starts_with("last 16 observations of the failing interleaving:\n"), "{text}");
        assert!(text.contains("event 4") && !text.contains("event 3\n"), "{text}");
    }
}
