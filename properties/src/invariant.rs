//! The [`Invariant`] trait and the [`Violation`] it reports.

use std::fmt;

use pipecheck_core::InvariantId;

use crate::monitor::CheckConfig;
use crate::observation::Observation;

/// A named property every run of the pipe must keep.
///
/// The monitor calls [`observe`](Invariant::observe) for each observation in log
/// order, and [`finish`](Invariant::finish) once the run has ended normally.
/// Return `Err(detail)` to report a violation; the monitor adds the id and the log.
pub trait Invariant: Send {
    /// Which invariant this checks (e.g. [`InvariantId::FIFO_POOL`]).
    fn id(&self) -> InvariantId;

    /// The statement, in one line: what reports print next to the id.
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

/// A broken invariant: which one, what happened, and where in the log.
///
/// A checker reports it by [`raise`](Violation::raise)-ing it: the panic payload is the
/// value itself, so engines and reports learn what broke from its fields, and people
/// read its [`Display`](fmt::Display).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The broken invariant.
    pub invariant: InvariantId,
    /// What went wrong.
    pub detail: String,
    /// Index in the monitor's log of the observation that broke it (the log length
    /// for end-of-run checks); `None` for checks made outside a monitor.
    pub step: Option<usize>,
    /// What led there, for people (the monitor's log tail); may be empty.
    pub context: String,
}

impl Violation {
    /// A violation of `invariant`, found outside a monitor.
    pub fn new(invariant: InvariantId, detail: impl Into<String>) -> Violation {
        Violation { invariant, detail: detail.into(), step: None, context: String::new() }
    }

    /// Fails the current execution with this violation as the panic payload.
    pub fn raise(self) -> ! {
        crate::panic_hook::install();
        std::panic::panic_any(self)
    }
}

/// Fails the current execution with a violation of `invariant` unless `holds`.
///
/// # Examples
///
/// ```
/// use pipecheck_core::InvariantId;
/// use pipecheck_properties::{Violation, ensure};
///
/// ensure(1 + 1 == 2, InvariantId::BYTE_EXACT, || "arithmetic".to_owned());
/// let caught = std::panic::catch_unwind(|| ensure(false, InvariantId::BYTE_EXACT, || "lost".to_owned()));
/// let violation = caught.unwrap_err().downcast::<Violation>().unwrap();
/// assert_eq!(violation.invariant, InvariantId::BYTE_EXACT);
/// ```
#[track_caller]
pub fn ensure(holds: bool, invariant: InvariantId, detail: impl FnOnce() -> String) {
    if !holds {
        Violation::new(invariant, detail()).raise();
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invariant `{}` violated", self.invariant)?;
        if let Some(step) = self.step {
            write!(f, " at step {step}")?;
        }
        write!(f, ": {}", self.detail)?;
        if !self.context.is_empty() {
            write!(f, "\n{}", self.context)?;
        }
        Ok(())
    }
}

impl std::error::Error for Violation {}

/// Builds the invariant from the run's settings; used by [`crate::registry`].
pub(crate) type Constructor = fn(&CheckConfig) -> Box<dyn Invariant>;
