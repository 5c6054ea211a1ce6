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
    /// use pipecheck::EngineClass;
    /// use pipecheck_models::builtin;
    ///
    /// let primitives = builtin::primitives();
    /// let loom = primitives.runs(EngineClass::Exhaustive);
    /// assert!(loom.iter().all(|(_, fault)| fault.is_none_or(|f| !f.needs_real_time())));
    /// let shuttle = primitives.runs(EngineClass::Sampling);
    /// assert!(shuttle.iter().all(|(_, fault)| fault.is_none_or(|f| !f.needs_weak_memory())));
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
