//! [`EventMonitor`]: online checking of a user target's own events.
//!
//! The pipe reports [`Observation`](crate::Observation)s to its [`Monitor`](crate::Monitor);
//! a user's concurrent code reports events of its own type `E` to an
//! `EventMonitor<E>`, which logs them and runs the target's [`Invariant<E>`]s on each, as
//! it happens. At the first violation it raises a typed
//! [`Violation`](pipecheck_core::Violation) with the log tail as its context, which every
//! engine turns into a failing, reproducible case, exactly as for the pipe.
//!
//! The lock is a plain `std` mutex on purpose: it must add no happens-before edge that
//! loom could see (that would hide the user's races), and no checker primitive runs
//! while it is held.

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use pipecheck_core::Violation;

use crate::invariant::{Invariant, first_violation};
use crate::run_log::{Row, RunLog};

/// How many log rows a violation's context shows.
const TAIL: usize = 16;

struct State<E> {
    invariants: Vec<Box<dyn Invariant<E>>>,
    log: Vec<(Option<&'static str>, E)>,
    violation: Option<Violation>,
}

/// Records the events of one run of a user target and checks its invariants online.
///
/// # Examples
///
/// ```
/// use pipecheck_core::{InvariantId, Violation};
/// use pipecheck_properties::{EventMonitor, Invariant};
///
/// #[derive(Debug)]
/// enum Ev { Sent(u32), Received(u32) }
///
/// /// Every received value was sent.
/// #[derive(Default)]
/// struct NoInvention(Vec<u32>);
///
/// impl Invariant<Ev> for NoInvention {
///     fn id(&self) -> InvariantId { InvariantId::new("no-invention") }
///     fn statement(&self) -> &'static str { "every received value was sent" }
///     fn observe(&mut self, ev: &Ev) -> Result<(), String> {
///         match ev {
///             Ev::Sent(v) => self.0.push(*v),
///             Ev::Received(v) if !self.0.contains(v) => return Err(format!("{v} was never sent")),
///             Ev::Received(_) => {}
///         }
///         Ok(())
///     }
/// }
///
/// let monitor = EventMonitor::new(vec![Box::new(NoInvention::default())]);
/// monitor.record(Ev::Sent(1));
/// monitor.record_by("receiver", Ev::Received(1));
/// monitor.assert_finished();
///
/// let caught = std::panic::catch_unwind(|| monitor.record(Ev::Received(7)));
/// let violation = caught.unwrap_err().downcast::<Violation>().unwrap();
/// assert_eq!(violation.invariant, InvariantId::new("no-invention"));
/// assert_eq!(violation.step, Some(2));
/// ```
pub struct EventMonitor<E> {
    state: Mutex<State<E>>,
}

impl<E: fmt::Debug + Send + 'static> EventMonitor<E> {
    /// A monitor checking `invariants`, raising at the first violation.
    pub fn new(invariants: Vec<Box<dyn Invariant<E>>>) -> Arc<EventMonitor<E>> {
        crate::panic_hook::install();
        Arc::new(EventMonitor { state: Mutex::new(State { invariants, log: Vec::new(), violation: None }) })
    }

    fn lock(&self) -> MutexGuard<'_, State<E>> {
        // A violation panics while the log is consistent; later readers still need it.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records `event` and checks it.
    ///
    /// # Panics
    ///
    /// With the [`Violation`] as payload, at the first event an invariant rejects.
    pub fn record(&self, event: E) {
        self.push(None, event);
    }

    /// Records `event`, made by the task called `task`, and checks it.
    ///
    /// # Panics
    ///
    /// As [`record`](EventMonitor::record).
    pub fn record_by(&self, task: &'static str, event: E) {
        self.push(Some(task), event);
    }

    fn push(&self, task: Option<&'static str>, event: E) {
        let raised = {
            let mut state = self.lock();
            let step = state.log.len();
            state.log.push((task, event));
            if state.violation.is_some() {
                return;
            }
            let State { invariants, log, violation } = &mut *state;
            *violation = first_violation(invariants, |i| i.observe(&log[step].1));
            state.violation.clone().map(|v| with_context(v, step, &state.log))
        };
        if let Some(violation) = raised {
            violation.raise();
        }
    }

    /// Runs the end-of-run checks.
    ///
    /// # Errors
    ///
    /// The run's first violation, if any (also when it was found earlier).
    pub fn finish(&self) -> Result<(), Violation> {
        let mut state = self.lock();
        if let Some(v) = &state.violation {
            return Err(v.clone());
        }
        let step = state.log.len();
        let State { invariants, violation, .. } = &mut *state;
        *violation = first_violation(invariants, |i| i.finish());
        match &state.violation {
            Some(v) => Err(with_context(v.clone(), step, &state.log)),
            None => Ok(()),
        }
    }

    /// Runs the end-of-run checks and raises the violation (with the log), if any.
    ///
    /// # Panics
    ///
    /// With the [`Violation`] as payload.
    pub fn assert_finished(&self) {
        if let Err(v) = self.finish() {
            v.raise();
        }
    }
}

fn describe<E: fmt::Debug>(step: usize, (task, event): &(Option<&'static str>, E)) -> Row {
    Row { step, role: task.map(str::to_owned), text: format!("{event:?}") }
}

/// `violation` at log index `step`, with the log tail as its context.
fn with_context<E: fmt::Debug>(
    violation: Violation,
    step: usize,
    log: &[(Option<&'static str>, E)],
) -> Violation {
    let from = log.len().saturating_sub(TAIL);
    let mut context = format!("last {} events:\n", log.len() - from);
    for (i, entry) in log.iter().enumerate().skip(from) {
        let row = describe(i, entry);
        context.push_str(&format!(
            "{:>4}  {:<8} {}\n",
            row.step,
            row.role.as_deref().unwrap_or("-"),
            row.text
        ));
    }
    Violation { step: violation.step.or(Some(step)), context, ..violation }
}

impl<E: fmt::Debug + Send + 'static> RunLog for EventMonitor<E> {
    fn len(&self) -> usize {
        self.lock().log.len()
    }

    fn rows(&self) -> Vec<Row> {
        self.lock().log.iter().enumerate().map(|(i, entry)| describe(i, entry)).collect()
    }
}

impl<E> fmt::Debug for EventMonitor<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventMonitor").finish_non_exhaustive()
    }
}
