//! What a job produced, as exchanged between workers and the orchestrator (one JSON
//! object per line on the worker's stdout) and written by `--json`, and how a job with
//! a planted bug is judged: caught only as the invariant the bug breaks.

use crate::check::{FailureKind, first_line};
use pipecheck_sync::{InvariantId, PlantedFault};
use serde::{Deserialize, Serialize};

use crate::campaign::jobs::Job;

/// The prefix of a result line in a worker's output.
pub(crate) const RESULT_PREFIX: &str = "pipecheck-result ";
/// The prefix of a job-started line in a worker's output.
pub(crate) const START_PREFIX: &str = "pipecheck-start ";

/// How a job ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Outcome {
    /// No fault, no failure within the budget.
    Passed,
    /// No fault switched on, yet a check failed: a real bug.
    Failed,
    /// The planted bug was caught as the invariant it breaks.
    Caught,
    /// The planted bug failed the run, but not as its invariant (a model mismatch, a
    /// panic, another invariant): that does not count as caught.
    Misattributed,
    /// The planted bug survived the whole budget.
    Escaped,
    /// The job could not run (unknown scenario, worker crash, ...).
    Error,
    /// The engine stopped at the job's time limit before it ran everything it promised
    /// (loom: not every interleaving within the bound), and nothing failed before: not
    /// a pass, and for a planted bug not a catch.
    Incomplete,
}

/// What a failing job's verdict said, in the fields a result records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Fired {
    /// The failure's kind (`invariant-violated`, `deadlock`, `model-mismatch`, ...).
    pub(crate) kind: String,
    /// The invariant it counts as breaking, if any.
    pub(crate) invariant: Option<InvariantId>,
    /// The cell label (`fifo-pool`, `model mismatch`, `panic: ...`).
    pub(crate) label: String,
    /// First line of the failure, plus any detail the engine adds.
    pub(crate) message: String,
}

impl From<&FailureKind> for Fired {
    fn from(failure: &FailureKind) -> Fired {
        Fired {
            kind: failure.kind().to_owned(),
            invariant: failure.invariant(),
            label: failure.label(),
            message: first_line(&failure.to_string()).to_owned(),
        }
    }
}

/// The result of one job.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct JobResult {
    pub(crate) job: Job,
    pub(crate) outcome: Outcome,
    /// The failure's kind, if it failed.
    pub(crate) kind: Option<String>,
    /// The invariant the failure counts as breaking, if any: for a `caught` job, always
    /// the planted bug's own.
    pub(crate) invariant: Option<String>,
    /// What the failure was, in a few words (the kill-matrix cell).
    pub(crate) label: Option<String>,
    /// First line of the failure message.
    pub(crate) message: Option<String>,
    /// Executions (loom, shuttle) or cases (proptest) run: to the first failure if any.
    pub(crate) iterations: u64,
    pub(crate) seconds: f64,
    /// The seed used, for randomized engines.
    pub(crate) seed: Option<u64>,
    /// A saved failing schedule, if one was written.
    pub(crate) trace: Option<String>,
    /// The one command that reproduces the failure.
    pub(crate) reproduce: Option<String>,
    /// Why a pass is not exact ([`Checked::caveat`](crate::Checked::caveat)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) caveat: Option<String>,
}

/// The outcome of a run that was to break `expected` (`None`: no planted bug).
#[cfg(test)]
pub(crate) fn judge(expected: Option<InvariantId>, fired: Option<&Fired>) -> Outcome {
    judge_by(expected.map(|id| move |fired: InvariantId| fired == id), fired)
}

/// The outcome of a run with `planted` switched on (if any): caught only as an
/// invariant the bug is declared to break.
pub(crate) fn judge_planted(planted: Option<&PlantedFault>, fired: Option<&Fired>) -> Outcome {
    judge_by(planted.map(|p| move |fired: InvariantId| p.is_broken_as(fired)), fired)
}

fn judge_by(counts: Option<impl Fn(InvariantId) -> bool>, fired: Option<&Fired>) -> Outcome {
    match (counts, fired) {
        (None, None) => Outcome::Passed,
        (None, Some(_)) => Outcome::Failed,
        (Some(_), None) => Outcome::Escaped,
        (Some(counts), Some(fired)) if fired.invariant.is_some_and(&counts) => Outcome::Caught,
        (Some(_), Some(_)) => Outcome::Misattributed,
    }
}

impl JobResult {
    /// A result for `job` from what failed, if anything.
    pub(crate) fn new(job: &Job, fired: Option<Fired>, iterations: u64, seconds: f64) -> Self {
        JobResult {
            job: job.clone(),
            outcome: judge_planted(job.planted(), fired.as_ref()),
            kind: fired.as_ref().map(|f| f.kind.clone()),
            invariant: fired.as_ref().and_then(|f| f.invariant).map(|i| i.name().to_owned()),
            label: fired.as_ref().map(|f| f.label.clone()),
            message: fired.map(|f| f.message),
            iterations,
            seconds,
            seed: None,
            trace: None,
            reproduce: None,
            caveat: None,
        }
    }

    /// An error result.
    pub(crate) fn error(job: &Job, message: String) -> Self {
        JobResult { outcome: Outcome::Error, message: Some(message), ..JobResult::new(job, None, 0, 0.0) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::jobs::Engine;

    fn fired(failure: &FailureKind) -> Fired {
        Fired::from(failure)
    }

    #[test]
    fn only_the_faults_own_invariant_counts_as_caught() {
        let expected = Some(InvariantId::new("counts-every-add"));
        let own = FailureKind::InvariantViolated(crate::check::Violation::new(
            InvariantId::new("counts-every-add"),
            "x",
        ));
        let other = FailureKind::InvariantViolated(crate::check::Violation::new(
            InvariantId::new("another-invariant"),
            "x",
        ));
        let panic = FailureKind::Panic { message: "index out of bounds".into(), location: None };
        let deadlock = FailureKind::Deadlock { detail: "deadlock; threads = []".into() };
        assert_eq!(judge(expected, Some(&fired(&own))), Outcome::Caught);
        assert_eq!(judge(expected, Some(&fired(&other))), Outcome::Misattributed);
        assert_eq!(judge(expected, Some(&fired(&panic))), Outcome::Misattributed);
        assert_eq!(judge(expected, Some(&fired(&deadlock))), Outcome::Misattributed);
        assert_eq!(judge(Some(InvariantId::NO_LOST_WAKEUP), Some(&fired(&deadlock))), Outcome::Caught);
        assert_eq!(judge(expected, None), Outcome::Escaped);
    }

    #[test]
    fn a_bug_declared_to_panic_is_caught_by_its_panic() {
        let panic = FailureKind::Panic { message: "index out of bounds".into(), location: None };
        assert_eq!(judge(Some(InvariantId::NO_PANIC), Some(&fired(&panic))), Outcome::Caught);
    }

    /// A job of the fixture campaign's (`campaign::fixture`) counter with `StuckAtZero`,
    /// which breaks `counts-every-add`.
    #[test]
    fn caught_results_carry_the_faults_own_invariant() {
        let job = Job {
            id: 0,
            engine: Engine::Proptest,
            target: "counter".into(),
            scenario: "x".into(),
            fault: Some("StuckAtZero".into()),
        };
        assert_eq!(job.planted().map(|f| f.breaks()), Some(crate::campaign::fixture::COUNTS));
        let own = FailureKind::InvariantViolated(crate::check::Violation::new(
            InvariantId::new("counts-every-add"),
            "x",
        ));
        let result = JobResult::new(&job, Some(fired(&own)), 1, 0.0);
        assert_eq!(
            (result.outcome, result.invariant.as_deref()),
            (Outcome::Caught, Some("counts-every-add"))
        );
    }
}
