//! [`check_target_all`]: every run shuttle makes of a target, as one call (one test).

use crate::check::{Engine, Verdict};

use super::shuttle::{DEFAULT_MAX_STEPS, PCT_DEPTHS, SchedulerKind, Shuttle};
use crate::target::{EngineClass, Target};

/// Every run shuttle makes of `target` ([`Target::runs`] of [`EngineClass::Sampling`]),
/// under the random scheduler and PCT (depth 3, then 2), `iterations` schedules each
/// from `seed`: every scenario clean must pass under both; each planted bug on each
/// scenario that claims it must be caught, its verdict naming an invariant it breaks
/// ([`PlantedFault::broken_as`](crate::PlantedFault::broken_as)), by at least
/// one of them: the campaign's rule, where a bug is caught when some engine catches it.
/// Every scheduler runs every bug; what each found is printed (`--nocapture`).
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
/// fn every_shuttle_run_of_my_target() {
///     pipecheck::engine::shuttle::check_target_all(&my_target(), 1, 300);
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
        let mut caught = false;
        for engine in &engines {
            let checked = engine.check(scenario.execution(Some(fault)));
            let named = checked.verdict.failure().and_then(|f| f.invariant());
            let by_this = named.is_some_and(|i| fault.is_broken_as(i));
            let outcome = if by_this { "caught by" } else { "ESCAPED" };
            let (name, executions) = (engine.name(), checked.executions);
            eprintln!(
                "{run} with `{fault}` planted: {outcome} {name} after {executions} schedules: {}",
                checked.verdict
            );
            caught |= by_this;
        }
        assert!(caught, "{run} with `{fault}` planted: no scheduler reported it as {:?}", fault.broken_as());
    }
    // Said, not skipped in silence: shuttle runs sequentially consistent.
    for fault in target.planted().iter().filter(|f| f.needs_weak_memory()) {
        eprintln!(
            "{}: `{fault}` not run here (weak memory: only loom sees it; run `cargo test --features loom`)",
            target.name()
        );
    }
}
