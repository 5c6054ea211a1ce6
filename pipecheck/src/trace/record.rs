//! Schedulers that write down what they decide: [`Recorder`] wraps shuttle's random or
//! PCT scheduler; [`Guided`] replays a schedule exactly or follows a sparse plan of
//! deviations (for minimization). Both fill a shared [`Tape`].
//!
//! Every decision is compared with a fixed *default choice* (keep running the current
//! task; if it cannot run, or it yields, the next runnable task in id order). A
//! decision that differs from the default is a *deviation*; a deviation away from a
//! runnable, non-yielding task is a *preemption*. A schedule is determined by its
//! deviations, which is what the minimizer shrinks.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::check::RunLog;
use shuttle::scheduler::{
    DataSource, RandomDataSource, Schedule as ShuttleSchedule, Scheduler, Task, TaskId,
};

use crate::trace::schedule::{Schedule, Step};
use crate::trace::trace_file::Size;

/// The log of the running execution, kept outside shuttle so it survives a panic.
pub(crate) type MonitorSlot = Arc<Mutex<Option<Arc<dyn RunLog>>>>;

/// What one execution's scheduler decided.
#[derive(Clone, Debug, Default)]
pub(crate) struct Tape {
    /// Executions started so far (1-based number of the current one).
    pub(crate) iteration: u64,
    /// The current execution's schedule.
    pub(crate) schedule: Schedule,
    /// Its preemptions.
    pub(crate) preemptions: usize,
    /// Its deviations from the default choice: step index and task.
    pub(crate) deviations: BTreeMap<usize, usize>,
    /// For each decision: the monitor's log length when it was taken, and the task chosen
    /// (only when log tracking is on).
    pub(crate) marks: Vec<(usize, usize)>,
    /// Why an exact replay stopped: the schedule does not fit the program.
    pub(crate) mismatch: Option<String>,
    /// Decisions taken after an exact schedule ran out.
    pub(crate) overrun: usize,
}

impl Tape {
    pub(crate) fn size(&self) -> Size {
        Size { preemptions: self.preemptions, steps: self.schedule.len() }
    }
}

/// A tape shared between a scheduler (owned by shuttle's runner) and the harness.
pub(crate) type SharedTape = Arc<Mutex<Tape>>;

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn ids(runnable: &[&Task]) -> Vec<usize> {
    let mut ids: Vec<usize> = runnable.iter().map(|t| usize::from(t.id())).collect();
    ids.sort_unstable();
    ids
}

/// The default choice: the current task, unless it cannot run or yields; then the next
/// runnable task after it in id order (wrapping around).
fn default_choice(ids: &[usize], current: Option<usize>, yielding: bool) -> usize {
    match current {
        Some(c) if ids.contains(&c) && !(yielding && ids.len() > 1) => c,
        Some(c) => ids.iter().copied().find(|&t| t > c).unwrap_or(ids[0]),
        None => ids[0],
    }
}

/// Records one decision on the tape.
fn note(
    tape: &mut Tape,
    slot: Option<&MonitorSlot>,
    ids: &[usize],
    current: Option<TaskId>,
    yielding: bool,
    chosen: usize,
) {
    let current = current.map(usize::from);
    let step = tape.schedule.len();
    if current.is_some_and(|c| ids.contains(&c) && c != chosen) && !yielding {
        tape.preemptions += 1;
    }
    if chosen != default_choice(ids, current, yielding) {
        tape.deviations.insert(step, chosen);
    }
    tape.schedule.steps.push(Step::Task(chosen));
    if let Some(slot) = slot {
        // The monitor's lock is never held across a scheduling point (no shuttle
        // primitive runs under it), so this cannot block.
        let len = lock(slot).as_ref().map_or(0, |m| m.len());
        tape.marks.push((len, chosen));
    }
}

fn restart(tape: &SharedTape, seed: u64) {
    let mut tape = lock(tape);
    let iteration = tape.iteration + 1;
    *tape = Tape { iteration, schedule: Schedule { seed, steps: Vec::new() }, ..Tape::default() };
}

/// Wraps one of shuttle's schedulers and records each execution on the tape.
pub(crate) struct Recorder {
    inner: Option<Box<dyn Scheduler + Send>>,
    tape: SharedTape,
    /// The inner scheduler said there are no more executions (no run was cut short).
    finished: bool,
}

impl Recorder {
    pub(crate) fn new(inner: Box<dyn Scheduler + Send>, tape: SharedTape) -> Recorder {
        Recorder { inner: Some(inner), tape, finished: false }
    }

    fn inner(&mut self) -> &mut (dyn Scheduler + Send) {
        self.inner.as_deref_mut().expect("present until drop")
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        // shuttle's RandomScheduler prints "failing seed ..." when dropped mid-execution;
        // we report the failure ourselves, so then it is leaked instead (a few hundred
        // bytes, once per failing exploration).
        if !self.finished {
            std::mem::forget(self.inner.take());
        }
    }
}

impl Scheduler for Recorder {
    fn new_execution(&mut self) -> Option<ShuttleSchedule> {
        let Some(schedule) = self.inner().new_execution() else {
            self.finished = true;
            return None;
        };
        restart(&self.tape, schedule.seed);
        Some(schedule)
    }

    fn next_task(&mut self, runnable: &[&Task], current: Option<TaskId>, yielding: bool) -> Option<TaskId> {
        let chosen = self.inner().next_task(runnable, current, yielding)?;
        note(&mut lock(&self.tape), None, &ids(runnable), current, yielding, usize::from(chosen));
        Some(chosen)
    }

    fn next_u64(&mut self) -> u64 {
        lock(&self.tape).schedule.steps.push(Step::Random);
        self.inner().next_u64()
    }
}

/// What a [`Guided`] scheduler follows.
#[derive(Clone, Debug)]
pub(crate) enum Plan {
    /// Every decision, as recorded. `strict`: stop at the first decision that does not
    /// fit (recording why); otherwise fall back to the default choice there.
    Exact { schedule: Schedule, strict: bool },
    /// Only these deviations (step index → task); the default choice everywhere else.
    Deviations { seed: u64, deviations: BTreeMap<usize, usize> },
}

/// A one-execution scheduler that follows a [`Plan`].
pub(crate) struct Guided {
    plan: Plan,
    started: bool,
    data: RandomDataSource,
    tape: SharedTape,
    slot: Option<MonitorSlot>,
}

impl Guided {
    pub(crate) fn new(plan: Plan, tape: SharedTape, slot: Option<MonitorSlot>) -> Guided {
        let seed = match &plan {
            Plan::Exact { schedule, .. } => schedule.seed,
            Plan::Deviations { seed, .. } => *seed,
        };
        Guided { plan, started: false, data: RandomDataSource::initialize(seed), tape, slot }
    }

    fn seed(&self) -> u64 {
        match &self.plan {
            Plan::Exact { schedule, .. } => schedule.seed,
            Plan::Deviations { seed, .. } => *seed,
        }
    }
}

impl Scheduler for Guided {
    fn new_execution(&mut self) -> Option<ShuttleSchedule> {
        if std::mem::replace(&mut self.started, true) {
            return None;
        }
        let seed = self.data.reinitialize();
        restart(&self.tape, self.seed());
        Some(ShuttleSchedule::new(seed))
    }

    fn next_task(&mut self, runnable: &[&Task], current: Option<TaskId>, yielding: bool) -> Option<TaskId> {
        let ids = ids(runnable);
        let mut tape = lock(&self.tape);
        let step = tape.schedule.len();
        let fallback = default_choice(&ids, current.map(usize::from), yielding);
        let chosen = match &self.plan {
            Plan::Exact { schedule, strict } => match schedule.steps.get(step) {
                Some(Step::Task(t)) if ids.contains(t) => *t,
                Some(planned) if *strict => {
                    let wanted = match planned {
                        Step::Task(t) => format!("runs task {t}"),
                        Step::Random => "draws a random value".to_owned(),
                    };
                    tape.mismatch = Some(format!(
                        "at step {} the schedule {wanted}, but the program offers tasks {ids:?}",
                        step + 1
                    ));
                    return None;
                }
                Some(_) => fallback,
                None => {
                    tape.overrun += 1;
                    fallback
                }
            },
            Plan::Deviations { deviations, .. } => {
                deviations.get(&step).copied().filter(|t| ids.contains(t)).unwrap_or(fallback)
            }
        };
        note(&mut tape, self.slot.as_ref(), &ids, current, yielding, chosen);
        Some(TaskId::from(chosen))
    }

    fn next_u64(&mut self) -> u64 {
        lock(&self.tape).schedule.steps.push(Step::Random);
        self.data.next_u64()
    }
}
