//! Loom jobs: every interleaving of a small scenario within the preemption bound,
//! through the models' [`Loom`] engine.

use crate::check::Engine;
use crate::target::TargetScenario;
use crate::target::engine::loom::Loom;

use super::Budget;
use crate::campaign::jobs::Job;
use crate::campaign::outcome::{Fired, JobResult, Outcome};
use crate::campaign::registry;
use crate::check::Verdict;

pub(crate) fn run(job: &Job, scenario: &TargetScenario, budget: Budget) -> JobResult {
    let declared = registry::target(&job.target)
        .map_or(crate::target::DEFAULT_LOOM_BOUND, |t| t.loom_bound_for(scenario));
    let bound = budget.loom_bound.unwrap_or(declared);
    let engine = Loom { bound, max_duration: Some(budget.time) };
    let checked = engine.check(scenario.execution(job.planted()));
    let fired = checked.verdict.failure().map(Fired::from);
    let mut result = JobResult::new(job, fired, checked.executions, checked.elapsed.as_secs_f64());
    result.caveat = checked.caveat.map(str::to_owned);
    if let Verdict::Incomplete { reason } = &checked.verdict {
        result.outcome = Outcome::Incomplete;
        result.message = Some(reason.clone());
    }
    if result.message.is_some() {
        let fault = job.fault.as_deref().map_or(String::new(), |f| format!(" --fault {f}"));
        // A branch limit the run was given is part of what reproduces it.
        let branches =
            std::env::var("LOOM_MAX_BRANCHES").map_or(String::new(), |b| format!("LOOM_MAX_BRANCHES={b} "));
        result.reproduce = Some(format!(
            "{branches}LOOM_MAX_PREEMPTIONS={} {} --engine loom --scenario {}{fault}   (add LOOM_LOG=1 for loom's interleaving log)",
            bound,
            registry::campaign().command(),
            scenario.name
        ));
    }
    result
}
