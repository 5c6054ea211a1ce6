//! Proptest-generated concurrent scenarios of the async mutex ([`MutexSpec`]: 2–3
//! threads of lock/try_lock–unlock sections), each run under shuttle's random and PCT
//! schedulers with its history checked for **linearizable**; a failing scenario is
//! shrunk to a minimal one ([`shrink_concurrent`]).
//!
//! Run: `cargo test -p pipecheck-models --features shuttle --test shuttle -- generated::`.
use pipecheck::InvariantId;
use pipecheck::engine::shuttle::{DEFAULT_MAX_STEPS, PCT_DEPTHS, SchedulerKind, Shuttle};
use pipecheck::linearizability::{
    ConcurrentConfig, ConcurrentShape, concurrent_execution, shrink_concurrent,
};
use pipecheck::{Engine, FailureKind, Verdict};
use pipecheck_pipe::fault;
use pipecheck_properties::linearizability::{MutexOp, MutexSpec};

/// The shuttle seed (the proptest seed is `ConcurrentConfig::seed`, printed by each run).
const SEED: u64 = 0x5eed;
/// Schedules per generated scenario and scheduler.
const SCHEDULES: usize = 50;

fn engines() -> [Shuttle; 2] {
    let engine = |kind| Shuttle { kind, seed: SEED, iterations: SCHEDULES, max_steps: DEFAULT_MAX_STEPS };
    [engine(SchedulerKind::Random), engine(SchedulerKind::Pct { depth: PCT_DEPTHS[0] })]
}

/// Every engine on `threads`: `Err` naming the first that fails.
fn check(spec: MutexSpec, threads: &[Vec<MutexOp>]) -> Result<(), String> {
    for engine in engines() {
        let checked = engine.check(concurrent_execution(spec, threads.to_vec()));
        if checked.verdict != Verdict::Pass {
            return Err(format!("{} (seed {SEED:#x}): {}", engine.name(), checked.verdict));
        }
    }
    Ok(())
}

/// 32 scenarios of up to 3 threads × 2 sections (4 operations).
fn config() -> ConcurrentConfig {
    ConcurrentConfig { cases: 32, shape: ConcurrentShape { max_threads: 3, max_ops: 4 }, seed: 0x5eed }
}

#[test]
fn generated_mutex_histories_are_linearizable() {
    eprintln!("shuttle seed {SEED:#x}, {SCHEDULES} schedules per scenario and scheduler");
    let spec = MutexSpec;
    shrink_concurrent(&spec, &config(), |threads| check(spec, threads)).unwrap();
}

#[test]
fn try_lock_fails_after_release_shrinks_to_a_minimal_scenario() {
    fault::TryLockFailsAfterRelease.activate(try_lock_fails_after_release_shrinks);
}

/// The body of the test above, with the planted bug switched on.
fn try_lock_fails_after_release_shrinks() {
    let spec = MutexSpec;
    let config = ConcurrentConfig { cases: 64, ..config() };
    let failure = shrink_concurrent(&spec, &config, |threads| check(spec, threads))
        .expect_err("the planted bug escaped");
    eprintln!("{failure}");
    // A section that releases, then a try_lock refused (and its unlock): two sections.
    assert!(failure.operations() <= 4, "not minimal: {:?}", failure.threads);
    // Some engine fails on it again, as `linearizable` (the shrunk scenario may need PCT).
    let verdict = engines()
        .iter()
        .map(|engine| engine.check(concurrent_execution(spec, failure.threads.clone())).verdict)
        .find(|verdict| *verdict != Verdict::Pass)
        .expect("the minimal scenario fails again");
    let Verdict::Fail(FailureKind::InvariantViolated(violation)) = verdict else { panic!("{verdict:?}") };
    assert_eq!(violation.invariant, InvariantId::LINEARIZABLE);
}
