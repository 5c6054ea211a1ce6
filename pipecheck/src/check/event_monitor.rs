//! [`EventMonitor`]: online checking of a run's events, for any event type.
//!
//! A user's concurrent code reports events of its own type `E` to an
//! `EventMonitor<E>`, which logs them and runs the target's [`Invariant<E>`]s on each, as
//! it happens ([`EventMonitor::with_wiring`] adds a way of showing events and a boundary
//! event that restarts some invariants, as a structure that can be reset needs). At
//! the first violation it raises a typed
//! [`Violation`](crate::Violation) with the log tail as its context, which every
//! engine turns into a failing, reproducible case.
//!
//! The lock is a plain `std` mutex on purpose: it must add no happens-before edge that
//! loom could see (that would hide the user's races), and no checker primitive runs
//! while it is held.

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use pipecheck_sync::Violation;

use crate::check::invariant::{Invariant, first_violation};
use crate::check::run_log::{Row, RunLog};

/// How many log rows a violation's context shows.
const TAIL: usize = 16;

/// At an event that ends a run of some invariants (a structure's reset): their end-of-run
/// checks, then fresh instances. Returns the first violation.
pub type Restart<E> = Box<dyn FnMut(&mut [Box<dyn Invariant<E>>]) -> Option<Violation> + Send>;

/// An event that ends a run of some invariants (a predicate), and their [`Restart`].
pub type Boundary<E> = (fn(&E) -> bool, Restart<E>);

/// How a monitor's log shows its events.
#[derive(Debug)]
pub struct Shown<E> {
    /// The word a violation's context uses for its rows ("events", "observations").
    pub noun: &'static str,
    /// The role a row names when its recorder did not say.
    pub role: fn(&E) -> Option<String>,
    /// A row's text in a replay table.
    pub text: fn(&E) -> String,
}

struct State<E> {
    invariants: Vec<Box<dyn Invariant<E>>>,
    log: Vec<(Option<&'static str>, E)>,
    violation: Option<Violation>,
    /// Events that end a run of some invariants, and what happens to those then.
    boundary: Option<Boundary<E>>,
}

/// Records the events of one run of a user target and checks its invariants online.
///
/// # Examples
///
/// ```
/// use pipecheck::{InvariantId, Violation};
/// use pipecheck::{EventMonitor, Invariant};
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
///
/// A monitor is a handle: clones share one log (hand one to each thread of a scenario).
pub struct EventMonitor<E> {
    shared: Arc<Shared<E>>,
}

/// What every clone of one monitor shares.
struct Shared<E> {
    state: Mutex<State<E>>,
    shown: Shown<E>,
}

impl<E> Clone for EventMonitor<E> {
    fn clone(&self) -> Self {
        EventMonitor { shared: Arc::clone(&self.shared) }
    }
}

impl<E: fmt::Debug + Send + 'static> EventMonitor<E> {
    /// A monitor checking `invariants`, raising at the first violation.
    pub fn new(invariants: Vec<Box<dyn Invariant<E>>>) -> EventMonitor<E> {
        let shown = Shown { noun: "events", role: |_| None, text: |e| format!("{e:?}") };
        EventMonitor::with_wiring(invariants, shown, None)
    }

    /// A monitor with its own way of showing events and, optionally, a boundary event
    /// at which `restart` starts some invariants afresh.
    pub fn with_wiring(
        invariants: Vec<Box<dyn Invariant<E>>>,
        shown: Shown<E>,
        boundary: Option<Boundary<E>>,
    ) -> EventMonitor<E> {
        crate::check::panic_hook::install();
        let state = Mutex::new(State { invariants, log: Vec::new(), violation: None, boundary });
        EventMonitor { shared: Arc::new(Shared { state, shown }) }
    }

    /// Runs `read` on the log: each entry's recording task (if it said) and event.
    pub fn with_log<R>(&self, read: impl FnOnce(&[(Option<&'static str>, E)]) -> R) -> R {
        read(&self.lock().log)
    }

    fn lock(&self) -> MutexGuard<'_, State<E>> {
        // A violation panics while the log is consistent; later readers still need it.
        self.shared.state.lock().unwrap_or_else(PoisonError::into_inner)
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
            let State { invariants, log, violation, boundary } = &mut *state;
            let event = &log[step].1;
            *violation = first_violation(invariants, |i| i.observe(event));
            if let Some((ends_a_run, restart)) = boundary
                && violation.is_none()
                && ends_a_run(event)
            {
                *violation = restart(invariants);
            }
            state.violation.clone().map(|v| self.with_context(v, step, &state.log))
        };
        // Not while this thread unwinds from an earlier failure: an end dropped on the
        // way out (the shuttle backend runs its cleanup) reports events that may break
        // an invariant too, and a second panic from a destructor would abort the
        // process, losing the first failure's verdict. The violation stays recorded
        // (`finish` returns it).
        if let Some(violation) = raised
            && !std::thread::panicking()
        {
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
            Some(v) => Err(self.with_context(v.clone(), step, &state.log)),
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

impl<E: fmt::Debug> EventMonitor<E> {
    /// The role of a row: the recording task, or the one the event names.
    fn role(&self, task: Option<&'static str>, event: &E) -> Option<String> {
        task.map(str::to_owned).or_else(|| (self.shared.shown.role)(event))
    }

    /// `violation` at log index `step`, with the log tail as its context.
    fn with_context(
        &self,
        violation: Violation,
        step: usize,
        log: &[(Option<&'static str>, E)],
    ) -> Violation {
        let from = log.len().saturating_sub(TAIL);
        let mut context = format!("last {} {}:\n", log.len() - from, self.shared.shown.noun);
        for (i, (task, event)) in log.iter().enumerate().skip(from) {
            let role = self.role(*task, event);
            context.push_str(&format!("{i:>4}  {:<8} {event:?}\n", role.as_deref().unwrap_or("-")));
        }
        Violation { step: violation.step.or(Some(step)), context, ..violation }
    }
}

impl<E: fmt::Debug + Send + 'static> RunLog for EventMonitor<E> {
    fn len(&self) -> usize {
        self.lock().log.len()
    }

    fn rows(&self) -> Vec<Row> {
        self.with_log(|log| {
            log.iter()
                .enumerate()
                .map(|(step, (task, event))| Row {
                    step,
                    role: self.role(*task, event),
                    text: (self.shared.shown.text)(event),
                })
                .collect()
        })
    }
}

impl<E> fmt::Debug for EventMonitor<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventMonitor").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use std::panic::{AssertUnwindSafe, catch_unwind};

    use pipecheck_sync::InvariantId;

    use super::EventMonitor;
    use crate::check::FnInvariant;

    /// Reports a `true` event when dropped, as a pipe end reports its completion.
    struct ReportsOnDrop(EventMonitor<bool>);

    impl Drop for ReportsOnDrop {
        fn drop(&mut self) {
            self.0.record(true);
        }
    }

    /// An end dropped while its thread unwinds reports an event that breaks an
    /// invariant: the monitor records the violation but does not panic again (from a
    /// destructor, that would abort the process and lose the first failure).
    #[test]
    fn a_violation_while_unwinding_is_recorded_not_raised() {
        let never_true =
            FnInvariant::new(InvariantId::new("never-true"), "no event is true", (), |_, event: &bool| {
                if *event { Err("a true event".to_owned()) } else { Ok(()) }
            });
        let monitor = EventMonitor::new(vec![Box::new(never_true)]);
        let caught = catch_unwind(AssertUnwindSafe(|| {
            let _end = ReportsOnDrop(monitor.clone());
            panic!("the first failure");
        }));
        assert_eq!(caught.unwrap_err().downcast_ref::<&str>(), Some(&"the first failure"));
        assert_eq!(monitor.finish().unwrap_err().invariant, InvariantId::new("never-true"));
    }
}
