//! Proptest jobs: random operation sequences against the reference model.

use pipecheck_core::FaultSet;

use super::Budget;
use crate::jobs::Job;
use crate::outcome::JobResult;

pub(crate) fn run(job: &Job, _faults: FaultSet, _budget: Budget) -> JobResult {
    JobResult::error(job, "the proptest engine is wired in with the operation-sequence driver".into())
}
