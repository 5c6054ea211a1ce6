//! [`Shuttle`]: random and PCT schedules of an execution, from a seed, and the one PCT
//! depth policy.

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Once, PoisonError};

use crate::check::engine::{conclude, timed};
use crate::check::{Checked, Engine, Execution, Verdict};
use pipecheck_sync::progress;
use pipecheck_sync::record::Recording;
use shuttle::scheduler::{PctScheduler, RandomScheduler, ReplayScheduler, RoundRobinScheduler, Scheduler};
use shuttle_engine::scheduler::serialization::deserialize_schedule;

pub use crate::target::engine::saved_schedule::REPLAY_VAR;
use crate::target::engine::saved_schedule::{CheckSite, Tape, Taping};
use shuttle::{Config, FailurePersistence, MaxSteps, Runner};

pub use super::shuttle_target::check_target_all;

/// PCT's bug depths, in the order they are tried: depth 3 (two priority change points),
/// then, with the same budget, depth 2 (one): a two-task bug can hide from depth 3's
/// extra change point.
pub const PCT_DEPTHS: [usize; 2] = [3, 2];

/// shuttle's default bound on scheduling steps per execution.
pub const DEFAULT_MAX_STEPS: usize = 200_000;

/// Which of shuttle's schedulers explores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchedulerKind {
    /// `RandomScheduler`: a uniformly random runnable task at every step.
    Random,
    /// `PctScheduler`: random priorities with `depth - 1` priority change points.
    Pct {
        /// The bug depth.
        depth: usize,
    },
}

impl SchedulerKind {
    /// The schedulers an engine of this kind tries in turn: PCT follows [`PCT_DEPTHS`]
    /// from its depth on (so `pct(depth=3)` also tries depth 2).
    pub fn policy(self) -> Vec<SchedulerKind> {
        match self {
            SchedulerKind::Random => vec![self],
            SchedulerKind::Pct { depth } => std::iter::once(depth)
                .chain(PCT_DEPTHS.into_iter().filter(|&d| d < depth))
                .map(|depth| SchedulerKind::Pct { depth })
                .collect(),
        }
    }

    /// shuttle's scheduler of this kind, made [`Quiet`].
    pub fn scheduler(self, seed: u64, iterations: usize) -> Box<dyn Scheduler + Send> {
        match self {
            SchedulerKind::Random => Box::new(Quiet::new(RandomScheduler::new_from_seed(seed, iterations))),
            SchedulerKind::Pct { depth } => {
                Box::new(Quiet::new(PctScheduler::new_from_seed(seed, depth, iterations)))
            }
        }
    }
}

impl fmt::Display for SchedulerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchedulerKind::Random => f.write_str("random"),
            SchedulerKind::Pct { depth } => write!(f, "pct(depth={depth})"),
        }
    }
}

impl FromStr for SchedulerKind {
    type Err = String;

    /// `random`, `pct` (the first of [`PCT_DEPTHS`]) or `pct(depth=N)`.
    fn from_str(s: &str) -> Result<SchedulerKind, String> {
        match s {
            "random" => Ok(SchedulerKind::Random),
            "pct" => Ok(SchedulerKind::Pct { depth: PCT_DEPTHS[0] }),
            _ => s
                .strip_prefix("pct(depth=")
                .and_then(|r| r.strip_suffix(')'))
                .and_then(|d| d.parse().ok())
                .filter(|&depth| depth > 0)
                .map(|depth| SchedulerKind::Pct { depth })
                .ok_or_else(|| {
                    format!("unknown scheduler `{s}`: expected `random`, `pct` or `pct(depth=N)`")
                }),
        }
    }
}

/// shuttle's exploration: up to `iterations` schedules per scheduler of the kind's
/// [`policy`](SchedulerKind::policy), stopping at the first failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shuttle {
    /// The scheduler.
    pub kind: SchedulerKind,
    /// The exploration seed.
    pub seed: u64,
    /// Schedules per scheduler.
    pub iterations: usize,
    /// Step bound per execution.
    pub max_steps: usize,
}

impl Engine for Shuttle {
    fn name(&self) -> String {
        match self.kind {
            SchedulerKind::Random => "shuttle-random".to_owned(),
            SchedulerKind::Pct { depth } => format!("shuttle-pct(depth={depth})"),
        }
    }

    /// Explores, or replays the schedule `PIPECHECK_SHUTTLE_REPLAY` names for this
    /// check. A failing exploration saves its schedule and prints how to replay it
    /// (see `saved_schedule`).
    ///
    /// # Panics
    ///
    /// When `SHUTTLE_RANDOM_SEED` is set: shuttle would put that seed in place of every
    /// seed given here, silently, and the seeds pipecheck reports would not reproduce.
    fn check(&self, execution: Execution) -> Checked {
        refuse_shuttle_random_seed();
        let site = CheckSite::next();
        // Counted with a std atomic, shared with the `'static` body shuttle runs.
        let executions = Arc::new(AtomicU64::new(0));
        let counted = |execution: &Execution| {
            let (execution, counter) = (execution.clone(), executions.clone());
            move || {
                counter.fetch_add(1, Ordering::Relaxed);
                execution();
            }
        };
        if let Some(encoded) = site.replay() {
            let schedule = deserialize_schedule(&encoded)
                .unwrap_or_else(|| panic!("{REPLAY_VAR}={}: not a shuttle schedule", site.path().display()));
            let body = counted(&execution);
            let (verdict, elapsed) =
                timed(|| run_with(ReplayScheduler::new_from_schedule(schedule), self.max_steps, body));
            let executions = executions.load(Ordering::Relaxed);
            if verdict == Verdict::Pass {
                eprintln!("{}: the saved schedule passes now", site.path().display());
            } else {
                eprintln!(
                    "{}: the saved schedule, replayed in {executions} execution(s): {verdict}",
                    site.path().display()
                );
            }
            return Checked { verdict, executions, elapsed, caveat: None };
        }
        let tape = Tape::default();
        let (verdict, elapsed) = timed(|| {
            for kind in self.kind.policy() {
                let scheduler = Taping::new(kind.scheduler(self.seed, self.iterations), tape.clone());
                let verdict = run_with(scheduler, self.max_steps, counted(&execution));
                if verdict != Verdict::Pass {
                    if let Some(schedule) = tape.lock().unwrap_or_else(PoisonError::into_inner).take() {
                        eprintln!("{}", site.save(&schedule));
                    }
                    return verdict;
                }
            }
            Verdict::Pass
        });
        Checked { verdict, executions: executions.load(Ordering::Relaxed), elapsed, caveat: None }
    }
}

/// Panics when `SHUTTLE_RANDOM_SEED` is set (see [`Shuttle::check`]).
fn refuse_shuttle_random_seed() {
    if std::env::var_os("SHUTTLE_RANDOM_SEED").is_some() {
        panic!(
            "SHUTTLE_RANDOM_SEED is set: shuttle would use it in place of every seed pipecheck gives it, \
             and the seeds pipecheck reports would not reproduce. Unset it; replay a failure with \
             {REPLAY_VAR}=<the saved schedule> (printed with the failure), or set the engine's seed"
        );
    }
}

/// A scheduler that is never dropped, so that it prints nothing when a run stops.
///
/// shuttle's `RandomScheduler`, dropped while an execution is under way (the run
/// failed), prints "failing seed ... set the environment variable SHUTTLE_RANDOM_SEED
/// to the seed and run `shuttle::check_random`" (shuttle-schedulers' `random.rs`). That
/// advice does not reproduce a pipecheck run: the printed seed is one execution's, not
/// the exploration's, and pipecheck's tools refuse `SHUTTLE_RANDOM_SEED` (use
/// `PIPECHECK_SHUTTLE_SEED`, or replay the saved trace). The scheduler holds no
/// resource but memory, a few hundred bytes per check, which is leaked.
#[derive(Debug)]
pub struct Quiet<S>(std::mem::ManuallyDrop<S>);

impl<S: Scheduler> Quiet<S> {
    /// Wraps `scheduler`.
    pub fn new(scheduler: S) -> Quiet<S> {
        Quiet(std::mem::ManuallyDrop::new(scheduler))
    }
}

impl<S: Scheduler> Scheduler for Quiet<S> {
    fn new_execution(&mut self) -> Option<shuttle::scheduler::Schedule> {
        self.0.new_execution()
    }

    fn next_task(
        &mut self,
        runnable_tasks: &[&shuttle::scheduler::Task],
        current_task: Option<shuttle::scheduler::TaskId>,
        is_yielding: bool,
    ) -> Option<shuttle::scheduler::TaskId> {
        self.0.next_task(runnable_tasks, current_task, is_yielding)
    }

    fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }
}

/// shuttle's configuration for our runs: no failure persistence (we report failures
/// ourselves), no warnings, a step bound.
pub fn config(max_steps: usize) -> Config {
    let mut config = Config::new();
    config.failure_persistence = FailurePersistence::None;
    config.max_steps = MaxSteps::FailAfter(max_steps);
    config.silence_warnings = true;
    config
}

/// Runs executions of `body` under `scheduler` until it stops or one fails, quietly;
/// the verdict of the run. The traces tool passes its recording and replaying
/// schedulers here.
///
/// The executions run on a thread of their own, which ends with them. A failed
/// execution can end while another of its tasks is still unwinding a panic (a
/// destructor on the unwinding path reached a scheduling point); shuttle leaks that
/// task, and the thread's panic count stays raised. On a thread that ran later
/// executions, the next clean one would fail ("a task was still unwinding a panic");
/// on a fresh thread per run, nothing carries over. A facade
/// [`Recording`] running on the calling thread records the run's operations.
pub fn run_with(
    scheduler: impl Scheduler + Send + 'static,
    max_steps: usize,
    body: impl Fn() + Send + Sync + 'static,
) -> Verdict {
    static SHUTTLE_HOOK: Once = Once::new();
    // shuttle installs its panic hook at its first execution; let it happen before the
    // checking layer's hook, so that ours wraps it and a quiet capture keeps it quiet.
    SHUTTLE_HOOK.call_once(|| {
        Runner::new(RoundRobinScheduler::new(1), config(1_000)).run(|| {});
    });
    let run = move || {
        let runner = Runner::new(scheduler, config(max_steps));
        conclude(None, move || {
            runner.run(move || {
                progress::reset();
                body();
            });
        })
    };
    // The run gets a thread of its own: the planted bug switched on here goes with it,
    // and so does a recording of the facade's operations running here.
    let fault = pipecheck_sync::PlantedFault::active();
    let recording = Recording::current();
    std::thread::scope(|scope| {
        scope
            .spawn(move || {
                pipecheck_sync::PlantedFault::activate_opt(fault, || Recording::run_with(recording, run))
            })
            .join()
    })
    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}
