//! [`check_target_all`]: every run shuttle makes of a target, as one call (one test),
//! through the campaign's own runner ([`explore_in`]): a failing clean run is saved as a
//! trace file (the campaign's format, under [`found_dir`]) and the one command printed
//! is the campaign binary's `replay <file>`.

use std::path::PathBuf;

use super::shuttle::{DEFAULT_MAX_STEPS, PCT_DEPTHS, SchedulerKind};
use crate::target::{EngineClass, Target, TestInvocation};
use crate::trace::explore::{Exploration, Found, Settings, explore_in};
use crate::trace::location::{file_name, found_dir};
use crate::trace::trace_file::replay_command_for;
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
    let settings = Settings { iterations, seed, max_steps: DEFAULT_MAX_STEPS, ..Settings::default() };
    let schedulers = [SchedulerKind::Random, SchedulerKind::Pct { depth: PCT_DEPTHS[0] }];
    for (scenario, fault) in target.runs(EngineClass::Sampling) {
        let run = format!("{}/{}", target.name(), scenario.name);
        let Some(fault) = fault else {
            for kind in schedulers {
                if let Exploration::Failed(found) = explore_in(target, scenario, None, kind, &settings) {
                    panic!("{run} under shuttle-{kind}: {}", saved(&found));
                }
            }
            continue;
        };
        let mut caught = false;
        for kind in schedulers {
            let explored = explore_in(target, scenario, Some(fault), kind, &settings);
            let (outcome, found) = match &explored {
                Exploration::Failed(found) => {
                    let by_this = found.failure.kind.invariant().is_some_and(|i| fault.is_broken_as(i));
                    caught |= by_this;
                    let what = format!(
                        "after {} schedules: {}",
                        found.before + found.iteration as usize,
                        found.failure.message()
                    );
                    (if by_this { "caught by" } else { "ESCAPED" }, what)
                }
                Exploration::Passed { iterations, .. } => {
                    ("ESCAPED", format!("after {iterations} schedules: Passed"))
                }
            };
            eprintln!("{run} with `{fault}` planted: {outcome} shuttle-{kind} {found}");
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

/// Saves `found` as a trace file under [`found_dir`] and says what failed, where it went
/// and the command that replays it (or why it could not be saved).
fn saved(found: &Found) -> String {
    let trace = found.trace_with(found.size, found.schedule.clone());
    let name = file_name(
        found.fault.map(|f| f.name()),
        found.scenario.name,
        &found.scheduler.to_string(),
        found.seed,
    );
    let path: PathBuf = found_dir().join(name);
    let written = std::fs::create_dir_all(found_dir())
        .map_err(|e| e.to_string())
        .and_then(|()| trace.save(&path).map_err(|e| e.to_string()));
    let failure = found.failure.message();
    match written {
        Ok(()) => format!(
            "{failure}\nfailing schedule saved to {}\nreplay it (one execution, the failing one):\n  {}",
            path.display(),
            replay_command_for(&path, &TestInvocation::current()),
        ),
        Err(e) => format!("{failure}\nthe failing schedule could not be saved to {}: {e}", path.display()),
    }
}
