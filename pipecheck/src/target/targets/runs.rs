//! [`Target::runs`]: which runs of a target an engine makes, by what it explores
//! ([`EngineClass`]): the one rule the campaign's plan and the one-call tests
//! (`loom_harness::check_target_all`, `engine::shuttle::check_target_all`) share.

use pipecheck_sync::PlantedFault;

use super::{Target, TargetScenario};
use crate::target::Scale;

/// What an engine explores, which decides the scenarios it can afford and the planted
/// bugs it can see.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineClass {
    /// loom: every interleaving, so small scenarios only; a weak memory model (it sees
    /// [`weak_memory`](PlantedFault::weak_memory) bugs); histories ordered by
    /// happens-before (it cannot see [`real_time`](PlantedFault::real_time) ones).
    Exhaustive,
    /// shuttle's schedulers and plain threads: sampled schedules of any scenario,
    /// sequentially consistent (blind to weak-memory bugs), histories in real time.
    Sampling,
}

/// One run of a target: a scenario, clean (`None`) or with a planted bug switched on.
pub type TargetRun<'a> = (&'a TargetScenario, Option<&'static PlantedFault>);

impl Target {
    /// The runs an engine of `class` makes of this target: every scenario it can afford,
    /// clean, then each planted bug it can see on each affordable scenario that claims it.
    ///
    /// # Examples
    ///
    /// ```
    /// use pipecheck::prelude::*;
    /// use pipecheck::{EngineClass, TargetRun};
    ///
    /// const ONES: InvariantId = InvariantId::new("only-ones");
    /// pipecheck::planted_faults! {
    ///     /// Seen only under a weak memory model.
    ///     StaleRead breaks ONES, caught_in(&["one", "many"]), weak_memory;
    ///     /// Seen only in real-time order.
    ///     LateWrite breaks ONES, caught_in(&["one", "many"]), real_time;
    /// }
    /// let ones = FnInvariant::new(ONES, "every event is 1", (), |_, event: &u32| {
    ///     if *event == 1 { Ok(()) } else { Err(format!("{event}")) }
    /// });
    /// let scenarios = [
    ///     EventScenario::small("one", "records 1", |m| m.record(1)),
    ///     EventScenario::large("many", "records 1 a hundred times", |m| (0..100).for_each(|_| m.record(1))),
    /// ];
    /// let target = Target::new("ones", "ones").faults(ALL).checked(ones, &scenarios);
    /// let named = |runs: Vec<TargetRun<'_>>| -> Vec<(&str, Option<&str>)> {
    ///     runs.into_iter().map(|(scenario, fault)| (scenario.name, fault.map(|f| f.name()))).collect()
    /// };
    /// // loom: small scenarios only; weak memory, no real time.
    /// assert_eq!(named(target.runs(EngineClass::Exhaustive)), [("one", None), ("one", Some("StaleRead"))]);
    /// // shuttle: every scenario; real time, no weak memory.
    /// assert_eq!(
    ///     named(target.runs(EngineClass::Sampling)),
    ///     [("one", None), ("many", None), ("one", Some("LateWrite")), ("many", Some("LateWrite"))]
    /// );
    /// ```
    pub fn runs(&self, class: EngineClass) -> Vec<TargetRun<'_>> {
        let affordable =
            self.scenarios.iter().filter(|s| class == EngineClass::Sampling || s.scale == Scale::Small);
        let visible = |f: &&&PlantedFault| match class {
            EngineClass::Exhaustive => !f.needs_real_time(),
            EngineClass::Sampling => !f.needs_weak_memory(),
        };
        let clean = affordable.clone().map(|s| (s, None));
        let planted = affordable.flat_map(|s| s.catches.iter().filter(visible).map(move |&f| (s, Some(f))));
        clean.chain(planted).collect()
    }
}
