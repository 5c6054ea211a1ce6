//! What a job produced, as exchanged between workers and the orchestrator (one JSON
//! object per line on the worker's stdout) and written by `--json`.

use serde::{Deserialize, Serialize};

use crate::jobs::Job;

/// The prefix of a result line in a worker's output.
pub(crate) const RESULT_PREFIX: &str = "pipecheck-result ";
/// The prefix of a panic line in a worker's log: `pipecheck-panic[<executions>] <message>`.
pub(crate) const PANIC_PREFIX: &str = "pipecheck-panic";
/// The prefix of a job-started line in a worker's output.
pub(crate) const START_PREFIX: &str = "pipecheck-start ";

/// How a job ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Outcome {
    /// No fault, no violation within the budget.
    Passed,
    /// No fault switched on, yet an invariant broke: a real bug.
    Failed,
    /// The planted bug was caught.
    Caught,
    /// The planted bug survived the whole budget.
    Escaped,
    /// The job could not run (unknown scenario, worker crash, ...).
    Error,
}

/// The result of one job.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct JobResult {
    pub(crate) job: Job,
    pub(crate) outcome: Outcome,
    /// The invariant named by the failure, if any.
    pub(crate) invariant: Option<String>,
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
}

impl JobResult {
    /// A result for `job` from whether it failed.
    pub(crate) fn new(
        job: &Job,
        failure: Option<(String, Option<String>)>,
        iterations: u64,
        seconds: f64,
    ) -> Self {
        let outcome = match (&failure, job.fault) {
            (None, None) => Outcome::Passed,
            (Some(_), None) => Outcome::Failed,
            (Some(_), Some(_)) => Outcome::Caught,
            (None, Some(_)) => Outcome::Escaped,
        };
        let (message, invariant) = failure.map_or((None, None), |(m, i)| (Some(m), i));
        JobResult {
            job: job.clone(),
            outcome,
            invariant,
            message,
            iterations,
            seconds,
            seed: None,
            trace: None,
            reproduce: None,
        }
    }

    /// An error result.
    pub(crate) fn error(job: &Job, message: String) -> Self {
        JobResult { outcome: Outcome::Error, ..JobResult::new(job, Some((message, None)), 0, 0.0) }
    }
}

/// The invariant a failure message names: "invariant `x`" from the monitor, or a
/// deadlock reported by loom or shuttle (a waiting side never woken).
pub(crate) fn invariant_of(message: &str) -> Option<String> {
    if let Some(rest) = message.split("invariant `").nth(1) {
        return rest.split('`').next().map(str::to_owned);
    }
    message.to_lowercase().contains("deadlock").then(|| "no-lost-wakeup".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_name_their_invariant() {
        assert_eq!(
            invariant_of("pipecheck: invariant `fifo-pool` violated at step 3"),
            Some("fifo-pool".into())
        );
        assert_eq!(invariant_of("deadlock; threads = [..]"), Some("no-lost-wakeup".into()));
        assert_eq!(invariant_of("index out of bounds"), None);
    }
}
