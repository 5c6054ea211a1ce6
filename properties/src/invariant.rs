//! The [`Invariant`] trait and the [`Violation`] it reports.

use std::fmt;

use crate::monitor::CheckConfig;
use crate::observation::Observation;

/// A named property every run of the pipe must keep.
///
/// The monitor calls [`observe`](Invariant::observe) for each observation in log
/// order, and [`finish`](Invariant::finish) once the run has ended normally.
/// Return `Err(detail)` to report a violation; the monitor adds the name and the log.
pub trait Invariant: Send {
    /// The stable name, as in README's invariant table (e.g. `"fifo-pool"`).
    fn name(&self) -> &'static str;

    /// The statement, in one line.
    fn statement(&self) -> &'static str;

    /// Checks one observation.
    ///
    /// # Errors
    ///
    /// A description of the violation.
    fn observe(&mut self, observation: &Observation) -> Result<(), String>;

    /// Checks the end of a run that finished without a panic.
    ///
    /// # Errors
    ///
    /// A description of the violation.
    fn finish(&mut self) -> Result<(), String> {
        Ok(())
    }
}

/// A broken invariant: its name, what happened, and where in the log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The invariant's name.
    pub invariant: &'static str,
    /// What went wrong.
    pub detail: String,
    /// Index in the monitor's log of the observation that broke it (the log length
    /// for end-of-run checks).
    pub step: usize,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invariant `{}` violated at step {}: {}", self.invariant, self.step, self.detail)
    }
}

impl std::error::Error for Violation {}

/// Builds the invariant from the run's settings; used by [`crate::registry`].
pub(crate) type Constructor = fn(&CheckConfig) -> Box<dyn Invariant>;
