//! Generated concurrent scenarios of an [`OpsSpec`]: 2–3 threads with a few operations
//! each, run on the sync facade's threads with their history recorded, then checked
//! for **linearizable**.
//!
//! * [`concurrent_scenarios`] is the proptest strategy of thread lists (rejecting the
//!   splits the spec says can deadlock);
//! * [`concurrent_execution`] is one scenario as an [`Execution`] for any engine
//!   (shuttle's random and PCT schedulers, loom, plain threads), and
//!   [`run_concurrent`] its body ([`run_concurrent_logged`] also logs the operations
//!   to an [`OpsLog`] for the traces tool);
//! * [`fixed_scenarios`] draws scenarios from a seed once (a loom test's or a target's
//!   fixed list), [`shrink_concurrent`] runs generated ones through a check (e.g. every
//!   shuttle engine) and shrinks a failure to a minimal scenario.

use std::fmt;
use std::sync::Arc as StdArc;

use pipecheck_sync::thread;
use proptest::collection::vec;
use proptest::strategy::{BoxedStrategy, Strategy, ValueTree};
use proptest::test_runner::{Config, TestCaseError, TestError};

use super::ensure::ensure_linearizable;
use super::ops_log::OpsLog;
use super::ops_spec::OpsSpec;
use super::outcome::{Budget, Linearization};
use super::racing::can_race;
use super::recorder::Recorder;
use super::seeded::seeded_runner;
use crate::check::{EventMonitor, Execution};

/// The size of generated concurrent scenarios: 2 to `max_threads` threads, each with 1
/// to `max_ops` operations (as [`OpsSpec::thread_ops`] counts them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConcurrentShape {
    /// Threads, at most (at least 2).
    pub max_threads: usize,
    /// Operations per thread, at most.
    pub max_ops: usize,
}

impl ConcurrentShape {
    /// Two threads of at most two operations: small enough for loom's exhaustive search.
    pub const SMALL: ConcurrentShape = ConcurrentShape { max_threads: 2, max_ops: 2 };
    /// Up to three threads of at most four operations: for shuttle's schedulers.
    pub const LARGE: ConcurrentShape = ConcurrentShape { max_threads: 3, max_ops: 4 };
}

/// How many generated scenarios [`shrink_concurrent`] checks, of which shape, from
/// which seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConcurrentConfig {
    /// Scenarios generated (before shrinking).
    pub cases: u32,
    /// Their size.
    pub shape: ConcurrentShape,
    /// The proptest seed (printed; the same seed generates the same scenarios).
    pub seed: u64,
}

impl Default for ConcurrentConfig {
    /// 32 scenarios of [`ConcurrentShape::LARGE`] from seed `0x5eed`.
    fn default() -> ConcurrentConfig {
        ConcurrentConfig { cases: 32, shape: ConcurrentShape::LARGE, seed: 0x5eed }
    }
}

/// The minimal failing scenario of a [`shrink_concurrent`] run.
#[derive(Clone, Debug)]
pub struct ConcurrentFailure<I> {
    /// The proptest seed that generated it.
    pub seed: u64,
    /// The shrunk scenario: one list of operations per thread.
    pub threads: Vec<Vec<I>>,
    /// Why the check failed on it (the engine and its verdict).
    pub reason: String,
}

impl<I> ConcurrentFailure<I> {
    /// Operations in the minimal scenario, over all threads.
    pub fn operations(&self) -> usize {
        self.threads.iter().map(Vec::len).sum()
    }
}

impl<I: fmt::Debug> fmt::Display for ConcurrentFailure<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "minimal failing scenario {:?} (proptest seed {:#x}): {}",
            self.threads, self.seed, self.reason
        )
    }
}

impl<I: fmt::Debug> std::error::Error for ConcurrentFailure<I> {}

/// The strategy of concurrent scenarios of `spec` of size `shape`: one list of
/// operations per thread, each operation with a [role](OpsSpec::role) moved to that
/// role's thread (at most `shape.max_ops` per thread), only splits
/// [`OpsSpec::deadlock_free`] accepts.
pub fn concurrent_scenarios<S: OpsSpec>(
    spec: &S,
    shape: ConcurrentShape,
) -> BoxedStrategy<Vec<Vec<S::Input>>> {
    let (filter, pin) = (spec.clone(), spec.clone());
    vec(spec.thread_ops(shape.max_ops), 2..=shape.max_threads.max(2))
        .prop_map(move |threads| pin_roles(&pin, threads, shape.max_ops))
        .prop_filter("a correct implementation could block forever", move |threads| {
            filter.deadlock_free(threads)
        })
        .boxed()
}

/// `threads` with each operation that has a role moved to the end of its role's thread
/// (threads added as needed), each thread cut to `max_ops` operations.
fn pin_roles<S: OpsSpec>(spec: &S, threads: Vec<Vec<S::Input>>, max_ops: usize) -> Vec<Vec<S::Input>> {
    let mut pinned: Vec<Vec<S::Input>> = vec![Vec::new(); threads.len()];
    for (index, input) in
        threads.into_iter().enumerate().flat_map(|(i, ops)| ops.into_iter().map(move |op| (i, op)))
    {
        let thread = spec.role(&input).unwrap_or(index);
        if thread >= pinned.len() {
            pinned.resize_with(thread + 1, Vec::new);
        }
        if pinned[thread].len() < max_ops {
            pinned[thread].push(input);
        }
    }
    pinned
}

/// Whether every operation with a [role](OpsSpec::role) is on that role's thread.
fn pinned<S: OpsSpec>(spec: &S, threads: &[Vec<S::Input>]) -> bool {
    threads
        .iter()
        .enumerate()
        .all(|(index, ops)| ops.iter().all(|op| spec.role(op).is_none_or(|r| r == index)))
}

/// `count` scenarios of `spec` of size `shape`, drawn once from `seed` (the same
/// every time for the same seed and proptest version): a fixed list for loom tests and
/// for a target's scenarios. Only splits whose operations can race are drawn: at least
/// two threads with operations, one of which may change the object's state (by the
/// model's [`expected`](super::SequentialModel::expected) outputs; an operation whose
/// output the model does not know counts as a change). Two readers, or a thread with
/// nothing to do, would spend an exploration on nothing.
///
/// # Panics
///
/// When proptest cannot draw a scenario (the spec rejects nearly every split, or no
/// operation of the spec changes the state).
pub fn fixed_scenarios<S: OpsSpec>(
    spec: &S,
    shape: ConcurrentShape,
    seed: u64,
    count: usize,
) -> Vec<Vec<Vec<S::Input>>> {
    let mut runner = seeded_runner(Config::default(), seed);
    let racing = spec.clone();
    let strategy = concurrent_scenarios(spec, shape)
        .prop_filter("no two operations of it can race", move |threads| can_race(&racing, threads));
    (0..count)
        .map(|_| strategy.new_tree(&mut runner).expect("a scenario the spec accepts").current())
        .collect()
}

/// One run of `threads`: takes fresh [handles](OpsSpec::handles), spawns one facade
/// thread per list (with its handle), each applying its operations in order while a
/// [`Recorder`] stamps them (and records
/// the spawn and join edges), joins them, and checks the history with
/// [`ensure_linearizable`]: in real time under shuttle and on `std` threads, by program
/// order and spawn/join under loom (see [`Recorder`]). Call it inside a loom model or a
/// shuttle test (or on `std` threads).
///
/// # Panics
///
/// With a `linearizable` [`Violation`](crate::Violation) when the history is
/// not linearizable; with a thread's own panic when one panicked; when an operation with
/// a [role](OpsSpec::role) is not on that role's thread.
pub fn run_concurrent<S: OpsSpec>(spec: &S, threads: &[Vec<S::Input>]) -> Linearization {
    run_concurrent_logged(spec, threads, &StdArc::new(OpsLog::new()))
}

/// [`run_concurrent`], logging each invocation and response to `log` (which a target
/// scenario publishes, for the traces tool's per-task table).
///
/// # Panics
///
/// As [`run_concurrent`].
pub fn run_concurrent_logged<S: OpsSpec>(
    spec: &S,
    threads: &[Vec<S::Input>],
    log: &StdArc<OpsLog>,
) -> Linearization {
    let mut main = Recorder::new().thread(threads.len());
    let forks: Vec<_> = (0..threads.len()).map(|index| (index, main.fork(index))).collect();
    let ops = log.clone();
    let logs = run_threads(spec, threads, forks, move |spec, (index, log), handle, input| {
        let call = log.invoke(input.clone());
        ops.note(Some(*index), format!("{input:?} …"));
        let output = spec.apply(handle, input);
        ops.note(Some(*index), spec.describe(input, Some(&output)));
        log.respond(call, output);
    });
    logs.into_iter().for_each(|(_, log)| main.join(log));
    ensure_linearizable(spec, &Recorder::history([main]), Budget::default())
}

/// One run of `threads` with each operation's `(input, output)` recorded to `monitor`
/// (by task `thread <i>`), whose invariants check them as they come: fixed operation
/// lists of a spec as the body of an event scenario (pipecheck-models'
/// `EventScenario`), with no linearizability check of their own.
///
/// # Examples
///
/// ```no_run
/// # fn demo<S: pipecheck::linearizability::OpsSpec>(spec: S, threads: Vec<Vec<S::Input>>) {
/// use pipecheck::EventMonitor;
/// use pipecheck::linearizability::run_monitored;
///
/// run_monitored(&spec, &threads, &EventMonitor::new(Vec::new()));
/// # }
/// ```
///
/// # Panics
///
/// With the monitor's [`Violation`](crate::Violation) at the first event an
/// invariant rejects; otherwise as [`run_concurrent`].
pub fn run_monitored<S: OpsSpec>(
    spec: &S,
    threads: &[Vec<S::Input>],
    monitor: &EventMonitor<(S::Input, S::Output)>,
) {
    const TASKS: [&str; 4] = ["thread 0", "thread 1", "thread 2", "thread 3"];
    let monitor = monitor.clone();
    run_threads(spec, threads, (0..threads.len()).collect(), move |spec, index, handle, input| {
        let output = spec.apply(handle, input);
        monitor.record_by(TASKS.get(*index).unwrap_or(&"thread"), (input.clone(), output));
    });
}

/// Spawns one facade thread per list of `threads`, each applying its operations in order
/// through its [handle](OpsSpec::handles) with `apply` and its `context` (from `contexts`,
/// one per thread), joins them, drops the handles, and returns the contexts in order. A
/// thread past the last handle has no operations and runs empty (as in a split whose
/// operations all have roles).
fn run_threads<S: OpsSpec, C: Send + 'static>(
    spec: &S,
    threads: &[Vec<S::Input>],
    contexts: Vec<C>,
    apply: impl Fn(&S, &mut C, &mut S::Handle, &S::Input) + Clone + Send + 'static,
) -> Vec<C> {
    assert!(
        pinned(spec, threads),
        "the scenario {threads:?} runs an operation off its role's thread (OpsSpec::role)"
    );
    let mut handles = spec.handles(threads.len()).into_iter();
    let spawned: Vec<_> = threads
        .iter()
        .zip(contexts)
        .map(|(inputs, mut context)| {
            let mut handle = handles.next();
            assert!(
                handle.is_some() || inputs.is_empty(),
                "OpsSpec::handles gave no handle for the thread of {inputs:?}"
            );
            let (spec, inputs, apply) = (spec.clone(), inputs.clone(), apply.clone());
            thread::spawn(move || {
                if let Some(handle) = &mut handle {
                    inputs.iter().for_each(|input| apply(&spec, &mut context, handle, input));
                }
                (context, handle)
            })
        })
        .collect();
    let joined: Vec<_> = spawned
        .into_iter()
        .map(|thread| thread.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
        .collect();
    // The handles go last, after every thread ran (as one shared object would).
    joined.into_iter().map(|(context, _handle)| context).collect()
}

/// `threads` as an [`Execution`]: [`run_concurrent`] for any engine.
///
/// # Examples
///
/// ```no_run
/// # fn demo<S: pipecheck::linearizability::OpsSpec>(spec: S, engine: &dyn pipecheck::Engine) {
/// use pipecheck::linearizability::{ConcurrentShape, concurrent_execution, fixed_scenarios};
///
/// for threads in fixed_scenarios(&spec, ConcurrentShape::LARGE, 1, 8) {
///     let checked = engine.check(concurrent_execution(spec.clone(), threads));
///     assert_eq!(checked.verdict, pipecheck::Verdict::Pass);
/// }
/// # }
/// ```
pub fn concurrent_execution<S: OpsSpec>(spec: S, threads: Vec<Vec<S::Input>>) -> Execution {
    StdArc::new(move || {
        run_concurrent(&spec, &threads);
    })
}

/// Checks `config.cases` generated scenarios of `spec` with `check` (which runs the
/// scenario under its engines and says why it failed), and shrinks the first failure
/// to a minimal scenario. Prints the seed.
///
/// # Errors
///
/// The minimal failing scenario and the reason `check` gave for it.
///
/// # Panics
///
/// When proptest gives up (the spec rejects too many splits).
pub fn shrink_concurrent<S: OpsSpec>(
    spec: &S,
    config: &ConcurrentConfig,
    check: impl Fn(&[Vec<S::Input>]) -> Result<(), String>,
) -> Result<(), ConcurrentFailure<S::Input>> {
    eprintln!(
        "shrink_concurrent({spec:?}): {} scenarios of 2-{} threads x 1-{} operations, proptest seed {:#x}",
        config.cases,
        config.shape.max_threads.max(2),
        config.shape.max_ops,
        config.seed
    );
    let mut runner = seeded_runner(
        Config { cases: config.cases, failure_persistence: None, ..Config::default() },
        config.seed,
    );
    let result = runner.run(&concurrent_scenarios(spec, config.shape), |threads| {
        check(&threads).map_err(TestCaseError::fail)
    });
    match result {
        Ok(()) => Ok(()),
        Err(TestError::Fail(reason, threads)) => {
            Err(ConcurrentFailure { seed: config.seed, threads, reason: reason.to_string() })
        }
        Err(TestError::Abort(reason)) => panic!("proptest gave up: {reason}"),
    }
}
