//! [`check_target_all`]: every run shuttle makes of a target, as one call (one test).

use pipecheck_properties::{Engine, Verdict};

use super::shuttle::{DEFAULT_MAX_STEPS, PCT_DEPTHS, SchedulerKind, Shuttle};
use crate::{EngineClass, Target};

/// Every run shuttle makes of `target` ([`Target::runs`] of [`EngineClass::Sampling`]),
/// under the random scheduler and PCT (depth 3, then 2), `iterations` schedules each
/// from `seed`: every scenario clean must pass under both; each planted bug on each
/// scenario that claims it must be caught, its verdict naming an invariant it breaks
/// ([`PlantedFault::broken_as`](pipecheck_core::PlantedFault::broken_as)), by at least
/// one of them: the campaign's rule, where a bug is caught when some engine catches it.
/// Prints which scheduler caught each bug, after how many schedules.
///
/// # Examples
///
/// ```no_run
/// # fn my_target() -> pipecheck_models::Target { pipecheck_models::builtin::primitives() }
/// #[test]
/// fn every_shuttle_run_of_my_target() {
///     pipecheck_models::engine::shuttle::check_target_all(&my_target(), 1, 300);
/// }
/// ```
///
/// # Panics
///
/// When a clean run fails, or a planted bug escapes both schedulers or is reported as
/// another invariant.
pub fn check_target_all(target: &Target, seed: u64, iterations: usize) {
    let engines = [SchedulerKind::Random, SchedulerKind::Pct { depth: PCT_DEPTHS[0] }].map(|kind| Shuttle {
        kind,
        seed,
        iterations,
        max_steps: DEFAULT_MAX_STEPS,
    });
    for (scenario, fault) in target.runs(EngineClass::Sampling) {
        let run = format!("{}/{}", target.name(), scenario.name);
        let Some(fault) = fault else {
            for engine in &engines {
                let verdict = engine.check(scenario.execution(None)).verdict;
                assert_eq!(verdict, Verdict::Pass, "{run} under {}", engine.name());
            }
            continue;
        };
        let mut escaped = Vec::new();
        for engine in &engines {
            let checked = engine.check(scenario.execution(Some(fault)));
            let named = checked.verdict.failure().and_then(|f| f.invariant());
            let outcome =
                format!("{} after {} schedules: {}", engine.name(), checked.executions, checked.verdict);
            if named.is_some_and(|i| fault.is_broken_as(i)) {
                eprintln!("{run} with `{fault}` planted: caught by {outcome}");
                escaped.clear();
                break;
            }
            escaped.push(outcome);
        }
        assert!(
            escaped.is_empty(),
            "{run} with `{fault}` planted: not caught as {:?}: {escaped:?}",
            fault.broken_as()
        );
    }
}
