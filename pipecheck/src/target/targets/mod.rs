//! [`Target`]: a checked piece of concurrent code, as every engine and tool sees it.
//!
//! A target declares, in one value:
//!
//! * its **scenarios** ([`TargetScenario`]): named bodies over the sync facade, small
//!   ones for loom and large ones for shuttle, each with its loom bound
//!   ([`Target::with_loom_bound`]);
//! * its **invariants**: checkers over its own event type, run online by an
//!   [`EventMonitor`](crate::EventMonitor) (a target with a monitor of its own adds
//!   type-erased scenarios with [`Target::scenarios`]);
//! * optionally a **sequential model** ([`Target::linearizable`] with an
//!   [`OpsSpec`](crate::linearizability::OpsSpec)): generated concurrent scenarios
//!   checked for `linearizable`;
//! * its **planted faults** ([`PlantedFault`]): an open set of bugs, each breaking one
//!   invariant, that the code under test asks [`PlantedFault::is_active`] about.
//!
//! The loom harness (`loom_harness`, feature `loom`), the shuttle engine
//! (`engine::shuttle`, feature `shuttle`), the traces tool ([`crate::trace`]) and the
//! campaign ([`campaign_main!`](crate::campaign_main)) all take targets.
//!
//! # Examples
//!
//! ```
//! use std::sync::Arc;
//!
//! use pipecheck::InvariantId;
//! use pipecheck::{EventScenario, Target};
//! use pipecheck::{EventMonitor, FnInvariant, Invariant};
//!
//! const COUNTS: InvariantId = InvariantId::new("counts-every-add");
//! pipecheck::planted_faults! {
//!     /// An add is dropped.
//!     LosesAdd breaks COUNTS, caught_in(&["one-add"]);
//! }
//!
//! #[derive(Debug)]
//! enum Ev { Added, Total(u32) }
//!
//! fn counts_every_add() -> Vec<Box<dyn Invariant<Ev>>> {
//!     let statement = "the total is the number of adds";
//!     let invariant = FnInvariant::new(COUNTS, statement, 0u32, |adds, ev: &Ev| match ev {
//!         Ev::Added => {
//!             *adds += 1;
//!             Ok(())
//!         }
//!         Ev::Total(t) if *t != *adds => Err(format!("total {t} after {adds} adds")),
//!         Ev::Total(_) => Ok(()),
//!     });
//!     vec![invariant.boxed()]
//! }
//!
//! fn one_add(monitor: &EventMonitor<Ev>) {
//!     monitor.record(Ev::Added);
//!     monitor.record(Ev::Total(if LosesAdd.is_active() { 0 } else { 1 }));
//! }
//!
//! // A `const` list: a reference to a `static` is not promoted in a function body.
//! const SCENARIOS: &[EventScenario<Ev>] = &[EventScenario::small("one-add", "one add, then the total", one_add)];
//!
//! let target = Target::new("counter", "a counter").faults(ALL).checked(counts_every_add, SCENARIOS);
//! target.validate().unwrap();
//! let scenario = target.scenario("one-add").unwrap();
//! scenario.run_once(None, &|_| {});
//! let planted = std::panic::AssertUnwindSafe(|| scenario.run_once(Some(&LosesAdd), &|_| {}));
//! let caught = std::panic::catch_unwind(planted);
//! let violation = caught.unwrap_err().downcast::<pipecheck::Violation>().unwrap();
//! assert_eq!(violation.invariant, LosesAdd.breaks());
//! ```

mod docs_table;
mod error;
mod linearizable;
mod runs;
mod scenario;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::check::{FailureKind, Invariants};
use pipecheck_sync::{InvariantId, PlantedFault};

pub use docs_table::{TABLE_END, TABLE_START, invariants_table, with_table};
pub use error::TargetError;
pub use linearizable::{GeneratedScenarios, LARGE_SCENARIO, SMALL_SCENARIO};
pub use runs::{EngineClass, TargetRun};
pub use scenario::{EventScenario, Publish, TargetScenario};

/// The loom preemption bound of a scenario that declares none, on a target that declares
/// none ([`Target::with_loom_bound`]): two preemptions find most bugs of small scenarios
/// (loom's and tokio's own guidance) within seconds.
pub const DEFAULT_LOOM_BOUND: usize = 2;

/// A checked piece of concurrent code: its scenarios, invariants and planted faults.
#[derive(Clone)]
pub struct Target {
    name: &'static str,
    summary: &'static str,
    faults: Vec<&'static PlantedFault>,
    invariants: Vec<(InvariantId, &'static str)>,
    scenarios: Vec<TargetScenario>,
    model: Option<&'static str>,
    sequences: Option<Sequences>,
    loom_bound: usize,
    /// The declared sequential model's own checks at a loom bound ([`crate::target::verify`]).
    pub(crate) model_check: Option<Arc<dyn Fn(usize) + Send + Sync>>,
}

/// A target's operation sequences, the campaign's proptest engine: runs up to `cases`
/// random sequences from `seed` with `fault` (if any) switched on, within `time`, and
/// reports the first failure after shrinking.
pub type Sequences =
    fn(fault: Option<&'static PlantedFault>, cases: u32, seed: u64, time: Option<Duration>) -> SequencesRun;

/// What one run of a target's [`Sequences`] did.
#[derive(Clone, Debug)]
pub struct SequencesRun {
    /// Cases run, including those run while shrinking.
    pub cases_run: usize,
    /// The failure, if a case failed.
    pub failure: Option<SequencesFailure>,
}

/// The first failing sequence, shrunk.
#[derive(Clone, Debug)]
pub struct SequencesFailure {
    /// The case (1-based) at which the first failure happened, before shrinking.
    pub first_failing_case: usize,
    /// How the shrunk case fails.
    pub failure: FailureKind,
    /// The shrunk sequence, printed.
    pub shrunk: String,
}

impl Target {
    /// An empty target called `name` (trace headers and the command line use it).
    pub fn new(name: &'static str, summary: &'static str) -> Target {
        Target {
            name,
            summary,
            faults: Vec::new(),
            invariants: Vec::new(),
            scenarios: Vec::new(),
            model: None,
            sequences: None,
            loom_bound: DEFAULT_LOOM_BOUND,
            model_check: None,
        }
    }

    /// Declares the loom preemption bound of every scenario that declares none of its
    /// own ([`DEFAULT_LOOM_BOUND`] if this is never called). The campaign, `cargo test
    /// --features loom` ([`verify`](crate::verify)) and the loom harness all explore
    /// each scenario at its bound, so no command needs a flag to explore the same thing.
    pub fn with_loom_bound(mut self, bound: usize) -> Target {
        self.loom_bound = bound;
        self
    }

    /// The loom preemption bound `scenario` is explored at: its own, else the target's.
    pub fn loom_bound_for(&self, scenario: &TargetScenario) -> usize {
        scenario.loom_bound.unwrap_or(self.loom_bound)
    }

    /// The loom bound of the target's sequential-model checks (its generated scenarios):
    /// the target's own.
    pub fn loom_bound(&self) -> usize {
        self.loom_bound
    }

    /// Declares the target's operation sequences: the campaign runs them as its
    /// proptest engine, clean and with each fault declared
    /// [`in_sequences`](PlantedFault::in_sequences).
    pub fn sequences(mut self, run: Sequences) -> Target {
        self.sequences = Some(run);
        self
    }

    /// Its operation sequences, if declared.
    pub fn sequences_runner(&self) -> Option<Sequences> {
        self.sequences
    }

    /// Declares planted faults (names unique within the target); each names the
    /// scenarios that catch it ([`PlantedFault::caught_in`]).
    pub fn faults(mut self, faults: &[&'static PlantedFault]) -> Target {
        self.faults.extend_from_slice(faults);
        self.link();
        self
    }

    /// Fills in each scenario's [`catches`](TargetScenario::catches): the target's
    /// faults that name it.
    fn link(&mut self) {
        for scenario in &mut self.scenarios {
            scenario.catches =
                self.faults.iter().copied().filter(|f| f.is_caught_in(scenario.name)).collect();
        }
    }

    /// Adds scenarios reporting events `E`, each run checked by a fresh
    /// [`EventMonitor`](crate::EventMonitor) of `invariants`: a function
    /// returning them, or one [`FnInvariant`](crate::FnInvariant)
    /// ([`Invariants`]); the invariants' statements join the target's legend.
    pub fn checked<E: fmt::Debug + Send + 'static>(
        mut self,
        invariants: impl Invariants<E>,
        scenarios: &[EventScenario<E>],
    ) -> Target {
        let invariants: Arc<dyn Invariants<E>> = Arc::new(invariants);
        for invariant in invariants.fresh() {
            if !self.invariants.iter().any(|(id, _)| *id == invariant.id()) {
                self.invariants.push((invariant.id(), invariant.statement()));
            }
        }
        self.scenarios.extend(scenarios.iter().map(|s| TargetScenario::from_events(*s, invariants.clone())));
        self.link();
        self
    }

    /// Adds type-erased scenarios and the statements of the invariants they check (for
    /// targets with a monitor of their own).
    pub fn scenarios(
        mut self,
        invariants: Vec<(InvariantId, &'static str)>,
        scenarios: Vec<TargetScenario>,
    ) -> Target {
        for (id, statement) in invariants {
            if !self.invariants.iter().any(|(known, _)| *known == id) {
                self.invariants.push((id, statement));
            }
        }
        self.scenarios.extend(scenarios);
        self.link();
        self
    }

    /// The target's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// What it is, in one line.
    pub fn summary(&self) -> &'static str {
        self.summary
    }

    /// Its planted faults, in declaration order.
    pub fn planted(&self) -> &[&'static PlantedFault] {
        &self.faults
    }

    /// Its invariants and their statements (the legend of a report).
    pub fn invariants(&self) -> &[(InvariantId, &'static str)] {
        &self.invariants
    }

    /// The sequential model [`Target::linearizable`] checks its histories against (the
    /// spec's type name without its path, e.g. `OneshotModel`), if it has one.
    pub fn sequential_model(&self) -> Option<&'static str> {
        self.model
    }

    /// The scenarios that check a recorded history against the sequential model
    /// ([`SMALL_SCENARIO`] and [`LARGE_SCENARIO`]); none without a model.
    pub fn linearizability_scenarios(&self) -> impl Iterator<Item = &TargetScenario> {
        let checked = self.model.is_some();
        self.scenarios.iter().filter(move |s| checked && [SMALL_SCENARIO, LARGE_SCENARIO].contains(&s.name))
    }

    /// Its scenarios, in declaration order.
    pub fn all_scenarios(&self) -> &[TargetScenario] {
        &self.scenarios
    }

    /// The scenario called `name`.
    ///
    /// # Errors
    ///
    /// [`TargetError::UnknownScenario`], listing the known ones.
    pub fn scenario(&self, name: &str) -> Result<&TargetScenario, TargetError> {
        self.scenarios.iter().find(|s| s.name == name).ok_or_else(|| TargetError::UnknownScenario {
            target: self.name,
            name: name.to_owned(),
            known: self.scenarios.iter().map(|s| s.name).collect(),
        })
    }

    /// The planted fault called `name` (case-insensitive).
    ///
    /// # Errors
    ///
    /// [`TargetError::UnknownFault`], listing the known ones.
    pub fn fault(&self, name: &str) -> Result<&'static PlantedFault, TargetError> {
        self.faults.iter().copied().find(|f| f.name().eq_ignore_ascii_case(name)).ok_or_else(|| {
            TargetError::UnknownFault {
                target: self.name,
                name: name.to_owned(),
                known: self.faults.iter().map(|f| f.name()).collect(),
            }
        })
    }

    /// The scenarios declaring that they catch `fault`, large ones first (shuttle's
    /// hunting order).
    pub fn scenarios_catching(&self, fault: &PlantedFault) -> Vec<&TargetScenario> {
        let mut found: Vec<&TargetScenario> =
            self.scenarios.iter().filter(|s| s.catches.iter().any(|c| c.name() == fault.name())).collect();
        found.sort_by_key(|s| s.scale != crate::target::Scale::Large);
        found
    }

    /// Checks the declaration: unique scenario and fault names, every fault a scenario
    /// claims declared by the target, every fault claimed by some scenario and breaking
    /// one of the target's invariants (or a failure an engine reports as one: a
    /// deadlock is `no-lost-wakeup`, a loom race `no-data-race`).
    ///
    /// # Errors
    ///
    /// The first problem found.
    pub fn validate(&self) -> Result<(), TargetError> {
        for (i, s) in self.scenarios.iter().enumerate() {
            if self.scenarios[..i].iter().any(|t| t.name == s.name) {
                return Err(TargetError::Duplicate { target: self.name, what: "scenario", name: s.name });
            }
        }
        for fault in &self.faults {
            if let Some(&missing) = fault.scenarios().iter().find(|&&name| self.scenario(name).is_err()) {
                return Err(TargetError::Undeclared {
                    target: self.name,
                    scenario: missing,
                    fault: fault.name(),
                });
            }
        }
        let engine_named = crate::check::ENGINE_NAMED;
        for (i, f) in self.faults.iter().enumerate() {
            if self.faults[..i].iter().any(|g| g.name() == f.name()) {
                return Err(TargetError::Duplicate { target: self.name, what: "fault", name: f.name() });
            }
            if self.scenarios_catching(f).is_empty() {
                return Err(TargetError::Unclaimed { target: self.name, fault: f.name() });
            }
            let known = self.invariants.iter().any(|(id, _)| *id == f.breaks());
            if !known && !engine_named.contains(&f.breaks()) {
                return Err(TargetError::UnknownInvariant {
                    target: self.name,
                    fault: f.name(),
                    invariant: f.breaks(),
                });
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Target")
            .field("name", &self.name)
            .field("faults", &self.faults.iter().map(|f| f.name()).collect::<Vec<_>>())
            .field("scenarios", &self.scenarios.iter().map(|s| s.name).collect::<Vec<_>>())
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

/// The target called `name` among `targets`.
///
/// # Errors
///
/// [`TargetError::UnknownTarget`], listing the known ones.
pub fn find_target<'a>(targets: &'a [Target], name: &str) -> Result<&'a Target, TargetError> {
    targets.iter().find(|t| t.name == name).ok_or_else(|| TargetError::UnknownTarget {
        name: name.to_owned(),
        known: targets.iter().map(|t| t.name).collect(),
    })
}
