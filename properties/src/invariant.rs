//! The [`Invariant`] trait, and [`ensure`] for checks made outside a monitor.

use pipecheck_core::{InvariantId, Violation};

use crate::monitor::CheckConfig;
use crate::observation::Observation;

/// A named property every run of a target must keep, checked over the events `E` the
/// run reports: the pipe's [`Observation`]s (the default), or a user target's own event
/// type (checked by an [`EventMonitor`](crate::EventMonitor)).
///
/// The monitor calls [`observe`](Invariant::observe) for each event in log order, and
/// [`finish`](Invariant::finish) once the run has ended normally. Return `Err(detail)`
/// to report a violation; the monitor adds the id and the log. An invariant that is a
/// state and a check needs no type of its own: [`FnInvariant`](crate::FnInvariant).
pub trait Invariant<E = Observation>: Send {
    /// Which invariant this checks (e.g. [`InvariantId::FIFO_POOL`]).
    fn id(&self) -> InvariantId;

    /// The statement, in one line: what reports print next to the id.
    fn statement(&self) -> &'static str;

    /// Checks one event.
    ///
    /// # Errors
    ///
    /// A description of the violation.
    fn observe(&mut self, observation: &E) -> Result<(), String>;

    /// Checks the end of a run that finished without a panic.
    ///
    /// # Errors
    ///
    /// A description of the violation.
    fn finish(&mut self) -> Result<(), String> {
        Ok(())
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
        crate::panic_hook::install();
        Violation::new(invariant, detail()).raise();
    }
}

/// The first violation `check` finds, running it on each of `invariants` in order: the
/// one loop of both monitors, for an event (`|i| i.observe(event)`) and at the end of
/// a run (`|i| i.finish()`).
pub(crate) fn first_violation<E>(
    invariants: &mut [Box<dyn Invariant<E>>],
    mut check: impl FnMut(&mut dyn Invariant<E>) -> Result<(), String>,
) -> Option<Violation> {
    invariants.iter_mut().find_map(|invariant| {
        check(invariant.as_mut()).err().map(|detail| Violation::new(invariant.id(), detail))
    })
}

/// Builds the invariant from the run's settings; used by [`crate::registry`].
pub(crate) type Constructor = fn(&CheckConfig) -> Box<dyn Invariant>;
