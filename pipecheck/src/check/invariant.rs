//! The [`Invariant`] trait, and [`ensure`] for checks made outside a monitor.

use pipecheck_sync::{InvariantId, Violation};

/// A named property every run of a target must keep, checked over the events `E` the
/// run reports (by an [`EventMonitor`](crate::check::EventMonitor)).
///
/// The monitor calls [`observe`](Invariant::observe) for each event in log order, and
/// [`finish`](Invariant::finish) once the run has ended normally. Return `Err(detail)`
/// to report a violation; the monitor adds the id and the log. An invariant that is a
/// state and a check needs no type of its own: [`FnInvariant`](crate::check::FnInvariant).
pub trait Invariant<E>: Send {
    /// Which invariant this checks (e.g. [`InvariantId::NO_LOST_WAKEUP`]).
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
/// use pipecheck::InvariantId;
/// use pipecheck::{Violation, ensure};
///
/// ensure(1 + 1 == 2, InvariantId::new("sums"), || "arithmetic".to_owned());
/// let caught = std::panic::catch_unwind(|| ensure(false, InvariantId::new("sums"), || "lost".to_owned()));
/// let violation = caught.unwrap_err().downcast::<Violation>().unwrap();
/// assert_eq!(violation.invariant, InvariantId::new("sums"));
/// ```
#[track_caller]
pub fn ensure(holds: bool, invariant: InvariantId, detail: impl FnOnce() -> String) {
    if !holds {
        crate::check::panic_hook::install();
        Violation::new(invariant, detail()).raise();
    }
}

/// The first violation `check` finds, running it on each of `invariants` in order: a
/// monitor's one loop, for an event (`|i| i.observe(event)`) and at the end of a run
/// (`|i| i.finish()`).
pub fn first_violation<E>(
    invariants: &mut [Box<dyn Invariant<E>>],
    mut check: impl FnMut(&mut dyn Invariant<E>) -> Result<(), String>,
) -> Option<Violation> {
    invariants.iter_mut().find_map(|invariant| {
        check(invariant.as_mut()).err().map(|detail| Violation::new(invariant.id(), detail))
    })
}
