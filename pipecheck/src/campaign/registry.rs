//! The campaign's targets, registered once per process by [`crate::campaign::main`]: the
//! orchestrator plans from them, and each worker (the same binary, rebuilt with the
//! `loom` or `shuttle` feature) finds a job's target, scenario and fault in them by name.

use std::sync::OnceLock;

use pipecheck_sync::PlantedFault;
use crate::target::{Target, TargetScenario};

use crate::campaign::Campaign;

static REGISTERED: OnceLock<(Campaign, Vec<Target>)> = OnceLock::new();

/// Registers `campaign` and its targets; a second call keeps the first.
pub(crate) fn register(campaign: Campaign) {
    let targets = (campaign.targets)();
    let _ = REGISTERED.set((campaign, targets));
}

fn registered() -> &'static (Campaign, Vec<Target>) {
    REGISTERED.get().expect("`campaign::main` registers its campaign before anything asks for it")
}

/// The campaign being run.
pub(crate) fn campaign() -> &'static Campaign {
    &registered().0
}

/// Every target of the campaign.
pub(crate) fn targets() -> &'static [Target] {
    &registered().1
}

/// The target called `name`.
pub(crate) fn target(name: &str) -> Option<&'static Target> {
    targets().iter().find(|t| t.name() == name)
}

/// `target`'s scenario called `scenario`.
pub(crate) fn scenario(target: &str, scenario: &str) -> Option<&'static TargetScenario> {
    self::target(target)?.scenario(scenario).ok()
}

/// `target`'s planted fault called `fault`.
pub(crate) fn fault(target: &str, fault: &str) -> Option<&'static PlantedFault> {
    self::target(target)?.fault(fault).ok()
}
