//! Running a scenario under shuttle through the shuttle engine's
//! [`run_with`](crate::engine::shuttle::run_with), with the scheduler that
//! records or replays, and the verdict as a [`Failure`].

use std::sync::{Arc, Mutex};

use crate::check::{FailureKind, Row, Verdict};
use crate::target::TargetScenario;
use crate::target::engine::shuttle::run_with;
use pipecheck_sync::PlantedFault;
use pipecheck_sync::record::{Detail, FacadeOp, Recording};
use shuttle::scheduler::Scheduler;

use crate::trace::record::{MonitorSlot, SharedTape, Tape, lock};

/// A failed execution: its verdict, and the name a trace header records it under.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// How it failed.
    pub kind: FailureKind,
    /// The invariant it counts as breaking (a deadlock is `no-lost-wakeup`); otherwise
    /// `step-bound` or `scenario-panic`. What a trace's `invariant` header says.
    pub invariant: String,
    /// The monitor's log index of the observation that broke the invariant, if known.
    pub step: Option<usize>,
}

impl Failure {
    /// The failure of `kind`.
    pub fn new(kind: FailureKind) -> Failure {
        let invariant = match (&kind, kind.invariant()) {
            (_, Some(id)) => id.name().to_owned(),
            (FailureKind::StepBound { .. }, None) => "step-bound".to_owned(),
            (_, None) => "scenario-panic".to_owned(),
        };
        let step = match &kind {
            FailureKind::InvariantViolated(violation) => violation.step,
            _ => None,
        };
        Failure { kind, invariant, step }
    }

    /// What happened, for people.
    pub fn message(&self) -> String {
        self.kind.to_string()
    }
}

/// What running an execution (or an exploration) produced.
#[derive(Debug)]
pub(crate) struct Ran {
    /// The failure, if the last execution failed.
    pub(crate) failure: Option<Failure>,
    /// The last execution's tape.
    pub(crate) tape: Tape,
    /// The last execution's monitor log.
    pub(crate) log: Vec<Row>,
    /// The facade's operations in the last execution, when recorded.
    pub(crate) facade: Vec<FacadeOp>,
}

/// Runs executions of `scenario` with `fault` until `scheduler` stops or one fails,
/// recording the facade's operations of `detail` (meant for one execution: a replay).
pub(crate) fn run(
    scenario: &TargetScenario,
    fault: Option<&'static PlantedFault>,
    scheduler: impl Scheduler + Send + 'static,
    (tape, slot): (&SharedTape, &MonitorSlot),
    max_steps: usize,
    detail: Detail,
) -> Ran {
    let inner_slot = slot.clone();
    let execution =
        scenario.execution_logged(fault, std::sync::Arc::new(move |log| *lock(&inner_slot) = Some(log)));
    let explore = move || match run_with(scheduler, max_steps, move || execution()) {
        Verdict::Fail(kind) => Some(Failure::new(kind)),
        // Shuttle runs the schedules it is given to the end.
        Verdict::Pass | Verdict::Incomplete { .. } => None,
    };
    let (failure, facade) = if detail == Detail::None {
        (explore(), Vec::new())
    } else {
        // Each operation is placed after the target's events logged before it. The
        // slot's lock is never held across a scheduling point, and `try_lock` never
        // waits: an operation made while it is held keeps the last known place.
        let anchor_slot = slot.clone();
        let anchor = move || anchor_slot.try_lock().ok().and_then(|log| log.as_ref().map(|m| m.len()));
        let recording = Recording::anchored(detail, Box::new(anchor));
        (recording.run(explore), recording.ops())
    };
    let monitor = lock(slot).take();
    Ran { failure, tape: lock(tape).clone(), log: monitor.map(|m| m.rows()).unwrap_or_default(), facade }
}

/// A fresh tape and monitor slot.
pub(crate) fn fresh() -> (SharedTape, MonitorSlot) {
    (Arc::new(Mutex::new(Tape::default())), Arc::new(Mutex::new(None)))
}
