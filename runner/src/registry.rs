//! The campaign's targets, registered once per process by [`crate::main`]: the
//! orchestrator plans from them, and each worker (the same binary, rebuilt with the
//! `loom` or `shuttle` feature) finds a job's target, scenario and fault in them by name.

use std::sync::OnceLock;

use pipecheck_core::PlantedFault;
use pipecheck_models::{Target, TargetScenario};

use crate::Campaign;

static REGISTERED: OnceLock<(Campaign, Vec<Target>)> = OnceLock::new();

/// Registers `campaign` and its targets; a second call keeps the first.
pub(crate) fn register(campaign: Campaign) {
    let targets = (campaign.targets)();
    let _ = REGISTERED.set((campaign, targets));
}

fn registered() -> &'static (Campaign, Vec<Target>) {
    REGISTERED.get_or_init(|| {
        let campaign = Campaign::builtin();
        let targets = (campaign.targets)();
        (campaign, targets)
    })
}

/// The campaign being run (pipecheck's own when nothing was registered, as in tests).
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
