//! Proptest-generated concurrent scenarios of the async mutex (2–3 threads, 1–3
//! operations each), each run under shuttle's schedulers with its history checked for
//! **linearizable** against `MutexModel`; a failing scenario is shrunk to a minimal one.
//!
//! Run: `cargo test -p pipecheck-models --features shuttle --test shuttle_generated`.
#![cfg(feature = "shuttle")]

use std::sync::Arc as StdArc;

use pipecheck_core::primitive::future::block_on;
use pipecheck_core::primitive::sync::Arc;
use pipecheck_core::primitive::thread;
use pipecheck_core::{AsyncMutex, Fault, FaultSet, InvariantId};
use pipecheck_models::engine::shuttle::{DEFAULT_MAX_STEPS, PCT_DEPTHS, SchedulerKind, Shuttle};
use pipecheck_properties::linearizability::{Budget, MutexModel, MutexOp, Recorder, ensure_linearizable};
use pipecheck_properties::{Engine, FailureKind, Verdict};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestError, TestRunner};

/// The shuttle seed (proptest's runner is `TestRunner::deterministic()`: fixed too).
const SEED: u64 = 0x5eed;
/// Schedules per generated scenario and scheduler.
const SCHEDULES: usize = 50;

/// One step of a generated thread.
#[derive(Clone, Copy, Debug)]
enum Action {
    /// `lock().await`, then drop the guard.
    LockUnlock,
    /// `try_lock()`, and drop the guard if it was taken.
    TryLock,
}

fn scenarios() -> impl Strategy<Value = Vec<Vec<Action>>> {
    let action = prop_oneof![Just(Action::LockUnlock), Just(Action::TryLock)];
    proptest::collection::vec(proptest::collection::vec(action, 1..=3), 2..=3)
}

/// The generated scenario as one execution: each thread runs its actions, recording
/// them; after the joins the history must be linearizable.
fn execution(threads: Vec<Vec<Action>>, faults: FaultSet) -> pipecheck_properties::Execution {
    StdArc::new(move || {
        let recorder = Recorder::new();
        let mutex = Arc::new(AsyncMutex::with_faults((), faults));
        let handles: Vec<_> = threads
            .iter()
            .enumerate()
            .map(|(index, actions)| {
                let (mutex, actions, mut log) = (mutex.clone(), actions.clone(), recorder.thread(index));
                thread::spawn(move || {
                    for action in actions {
                        let guard = match action {
                            Action::LockUnlock => {
                                let lock = log.invoke(MutexOp::Lock);
                                let guard = block_on(mutex.lock());
                                log.respond(lock, true);
                                Some(guard)
                            }
                            Action::TryLock => {
                                let attempt = log.invoke(MutexOp::TryLock);
                                let guard = mutex.try_lock();
                                log.respond(attempt, guard.is_some());
                                guard
                            }
                        };
                        if let Some(guard) = guard {
                            let unlock = log.invoke(MutexOp::Unlock);
                            drop(guard);
                            log.respond(unlock, true);
                        }
                    }
                    log
                })
            })
            .collect();
        let logs: Vec<_> = handles.into_iter().map(|handle| handle.join().unwrap()).collect();
        ensure_linearizable(&MutexModel, &Recorder::history(logs), Budget::default());
    })
}

fn engines() -> [Shuttle; 2] {
    let engine = |kind| Shuttle { kind, seed: SEED, iterations: SCHEDULES, max_steps: DEFAULT_MAX_STEPS };
    [engine(SchedulerKind::Random), engine(SchedulerKind::Pct { depth: PCT_DEPTHS[0] })]
}

/// The verdict of every engine on `threads`: `Ok` if all pass.
fn check(threads: &[Vec<Action>], faults: FaultSet) -> Result<(), TestCaseError> {
    for engine in engines() {
        let checked = engine.check(execution(threads.to_vec(), faults));
        if checked.verdict != Verdict::Pass {
            return Err(TestCaseError::fail(format!(
                "{} (seed {SEED:#x}): {}",
                engine.name(),
                checked.verdict
            )));
        }
    }
    Ok(())
}

#[test]
fn generated_mutex_histories_are_linearizable() {
    let mut runner = TestRunner::new_with_rng(
        Config { cases: 32, failure_persistence: None, ..Config::default() },
        TestRunner::deterministic().new_rng(),
    );
    eprintln!(
        "proptest: deterministic runner, 32 scenarios; shuttle seed {SEED:#x}, {SCHEDULES} schedules each"
    );
    runner.run(&scenarios(), |threads| check(&threads, FaultSet::NONE)).unwrap();
}

#[test]
fn try_lock_fails_after_release_shrinks_to_a_minimal_scenario() {
    let mut runner = TestRunner::new_with_rng(
        Config { cases: 64, failure_persistence: None, ..Config::default() },
        TestRunner::deterministic().new_rng(),
    );
    let faults = FaultSet::NONE.with(Fault::TryLockFailsAfterRelease);
    let failure = runner.run(&scenarios(), |threads| check(&threads, faults));
    let Err(TestError::Fail(reason, minimal)) = failure else {
        panic!("the planted bug escaped: {failure:?}")
    };
    eprintln!("minimal failing scenario: {minimal:?}\n{reason}");
    // A release then a refused try_lock: two operations (plus the thread that does nothing else).
    let operations: usize = minimal.iter().map(Vec::len).sum();
    assert!(operations <= 3, "not minimal: {minimal:?}");
    let verdict = engines()[0].check(execution(minimal, faults)).verdict;
    let Verdict::Fail(FailureKind::InvariantViolated(violation)) = verdict else { panic!("{verdict:?}") };
    assert_eq!(violation.invariant, InvariantId::LINEARIZABLE);
}
