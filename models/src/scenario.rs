//! The [`Scenario`] type: a named concurrent body plus the settings it runs with.

use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use pipecheck::{Execution, RunLog, Scale, TargetScenario};
use pipecheck::{InvariantId, PlantedFault, Violation};
use pipecheck_properties::{CheckConfig, Monitor};

/// A named concurrent scenario, runnable under any engine.
#[derive(Clone, Copy)]
pub struct Scenario {
    /// Stable name (used in trace files and on the command line).
    pub name: &'static str,
    /// What it does, in one line.
    pub summary: &'static str,
    /// Which engines can afford it.
    pub scale: Scale,
    /// The run's settings (sizes, thresholds).
    pub config: fn() -> CheckConfig,
    /// The body: builds a pipe from the monitor, spawns facade threads, joins them.
    pub body: fn(&Arc<Monitor>),
}

impl Scenario {
    /// The monitor for one execution.
    pub fn monitor(&self) -> Arc<Monitor> {
        Monitor::new((self.config)())
    }

    /// One execution with `fault` (if any) switched on: runs the body under a fresh
    /// monitor and checks the end of the run. Raises the
    /// [`Violation`](pipecheck::Violation) on a violation. Call it inside a
    /// loom model, a shuttle test, or directly.
    pub fn run_once(&self, fault: Option<&'static PlantedFault>) {
        PlantedFault::activate_opt(fault, || {
            let monitor = self.monitor();
            (self.body)(&monitor);
            monitor.assert_finished();
        });
    }

    /// This scenario with `fault` as an [`Execution`] for any engine.
    pub fn execution(self, fault: Option<&'static PlantedFault>) -> Execution {
        Arc::new(move || self.run_once(fault))
    }

    /// As [`execution`](Self::execution), except that a violation of `tolerated` that
    /// ends the body (as a history check after the joins does) is counted in `hits`
    /// instead of failing the execution; every other invariant is still checked, online
    /// and at the end of the run. An engine that passes every execution with a planted
    /// bug on, and `hits` above zero, shows that the bug breaks `tolerated` and nothing
    /// else in this scenario.
    pub fn execution_tolerating(
        self,
        fault: Option<&'static PlantedFault>,
        tolerated: InvariantId,
        hits: Arc<AtomicU64>,
    ) -> Execution {
        Arc::new(move || {
            PlantedFault::activate_opt(fault, || {
                let monitor = self.monitor();
                if let Err(payload) = catch_unwind(AssertUnwindSafe(|| (self.body)(&monitor))) {
                    match payload.downcast_ref::<Violation>() {
                        Some(violation) if violation.invariant == tolerated => {
                            hits.fetch_add(1, Ordering::Relaxed);
                        }
                        _ => resume_unwind(payload),
                    }
                }
                monitor.assert_finished();
            })
        })
    }
}

/// The pipe's scenarios as a [`Target`](pipecheck::Target) takes them (through
/// [`Target::scenarios`](pipecheck::Target::scenarios), as any target with a monitor of
/// its own declares its scenarios): its whole invariant registry's statements, and each
/// scenario type-erased.
pub(crate) fn declare(target: pipecheck::Target, scenarios: &[Scenario]) -> pipecheck::Target {
    target.scenarios(crate::invariants(), scenarios.iter().map(|&s| s.target_scenario()).collect())
}

impl Scenario {
    /// This scenario as a [`TargetScenario`]: each execution runs under a fresh
    /// monitor that it publishes first, and checks a recorded history against the
    /// sequential model its name declares, if any.
    pub fn target_scenario(self) -> TargetScenario {
        let erased = TargetScenario::new(self.name, self.summary, self.scale, move |fault, publish| {
            PlantedFault::activate_opt(fault, || {
                let monitor = self.monitor();
                publish(monitor.clone() as Arc<dyn RunLog>);
                (self.body)(&monitor);
                monitor.assert_finished();
            });
        });
        match crate::sequential_model(self.name) {
            Some(model) => erased.checking_model(model),
            None => erased,
        }
    }
}

impl fmt::Debug for Scenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scenario")
            .field("name", &self.name)
            .field("scale", &self.scale)
            .finish_non_exhaustive()
    }
}
