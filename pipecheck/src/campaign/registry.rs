//! The campaign's targets, registered once per process by [`crate::campaign::main`]: the
//! orchestrator plans from them, and each worker (the same binary, rebuilt with the
//! `loom` or `shuttle` feature) finds a job's target, scenario and fault in them by name.

use std::sync::OnceLock;

use crate::target::{Target, TargetScenario};
use pipecheck_sync::PlantedFault;

use crate::campaign::Campaign;

static REGISTERED: OnceLock<(Campaign, Vec<Target>)> = OnceLock::new();

/// Registers `campaign` and its targets; a second call keeps the first.
pub(crate) fn register(campaign: Campaign) {
    let targets = (campaign.targets)();
    let _ = REGISTERED.set((campaign, targets));
}

fn registered() -> &'static (Campaign, Vec<Target>) {
    // The framework's unit tests run no campaign binary: they plan, run and report over
    // the fixture campaign (`campaign::fixture`).
    #[cfg(test)]
    register_fixture();
    REGISTERED.get().expect("`campaign::main` registers its campaign before anything asks for it")
}

/// Registers the fixture campaign, unless a campaign is registered already.
#[cfg(test)]
fn register_fixture() {
    if REGISTERED.get().is_none() {
        crate::campaign::fixture::register();
    }
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
