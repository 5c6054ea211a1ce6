//! Running a scenario under shuttle: one `Runner` per exploration or replay, shuttle's
//! own failure printing switched off, and the failure attributed to an invariant.

use std::any::Any;
use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Arc, Mutex, Once};

use pipecheck_core::FaultSet;
use pipecheck_models::Scenario;
use pipecheck_properties::{Entry, Monitor};
use shuttle::scheduler::{RoundRobinScheduler, Scheduler};
use shuttle::{Config, FailurePersistence, MaxSteps, Runner};

use crate::record::{MonitorSlot, SharedTape, Tape, lock};
use crate::trace_file::known_invariants;

/// A failed execution: the invariant it broke, and the panic message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The invariant's name; a deadlock is `no-lost-wakeup`; otherwise `step-bound` or
    /// `scenario-panic`.
    pub invariant: String,
    /// What was reported.
    pub message: String,
    /// The monitor's log index of the observation that broke the invariant, if known.
    pub step: Option<usize>,
}

/// What running an execution (or an exploration) produced.
#[derive(Debug)]
pub(crate) struct Outcome {
    /// The failure, if the last execution failed.
    pub(crate) failure: Option<Failure>,
    /// The last execution's tape.
    pub(crate) tape: Tape,
    /// The last execution's monitor log.
    pub(crate) log: Vec<Entry>,
}

thread_local! {
    /// Set while our runner runs: failing executions are reported by us, not by the
    /// panic hook (shuttle runs every task on the calling thread).
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Installs (once) a panic hook that stays silent on the thread running our runner and
/// defers to the previous hook elsewhere. shuttle's own hook is installed first, so that
/// ours wraps it.
fn install_quiet_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        // The first shuttle execution installs shuttle's hook; make it happen now.
        Runner::new(RoundRobinScheduler::new(1), config(1_000)).run(|| {});
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                previous(info);
            }
        }));
    });
}

fn config(max_steps: usize) -> Config {
    let mut config = Config::new();
    config.failure_persistence = FailurePersistence::None;
    config.max_steps = MaxSteps::FailAfter(max_steps);
    config.silence_warnings = true;
    config
}

/// Runs executions of `scenario` with `faults` until `scheduler` stops or one fails.
pub(crate) fn run(
    scenario: Scenario,
    faults: FaultSet,
    scheduler: impl Scheduler + 'static,
    tape: &SharedTape,
    slot: &MonitorSlot,
    max_steps: usize,
) -> Outcome {
    install_quiet_hook();
    let runner = Runner::new(scheduler, config(max_steps));
    let inner_slot = slot.clone();
    let body = move || {
        let monitor = scenario.monitor(faults);
        *lock(&inner_slot) = Some(monitor.clone());
        (scenario.body)(&monitor);
        monitor.assert_finished();
    };
    QUIET.with(|q| q.set(true));
    let result = panic::catch_unwind(AssertUnwindSafe(|| runner.run(body)));
    QUIET.with(|q| q.set(false));
    let monitor = lock(slot).take();
    let failure = result.err().map(|payload| classify(payload.as_ref(), monitor.as_deref()));
    Outcome { failure, tape: lock(tape).clone(), log: monitor.map(|m| m.log()).unwrap_or_default() }
}

/// A fresh tape and monitor slot.
pub(crate) fn fresh() -> (SharedTape, MonitorSlot) {
    (Arc::new(Mutex::new(Tape::default())), Arc::new(Mutex::new(None)))
}

/// Attributes a failed execution to an invariant.
fn classify(payload: &(dyn Any + Send), monitor: Option<&Monitor>) -> Failure {
    let message = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_else(|| "a panic without a message".to_owned());
    let violation = monitor.and_then(Monitor::violation);
    let step = violation.as_ref().map(|v| v.step);
    let invariant = if let Some(violation) = violation {
        violation.invariant.to_owned()
    } else if let Some(name) = message.split("invariant `").nth(1).and_then(|r| r.split_once("` violated")) {
        name.0.to_owned()
    } else if message.starts_with("deadlock") {
        // Every task waits and nothing can wake one: a wake was lost.
        "no-lost-wakeup".to_owned()
    } else if message.contains("exceeded max_steps") {
        "step-bound".to_owned()
    } else if let Some(name) = known_invariants().into_iter().find(|name| message.contains(name)) {
        // The seed primitives' scenarios check their invariants themselves and name them.
        name.to_owned()
    } else {
        "scenario-panic".to_owned()
    };
    Failure { invariant, message, step }
}
