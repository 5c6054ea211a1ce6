//! Loom: generated concurrent scenarios of the async mutex ([`MutexSpec`]), every
//! interleaving within the bound, each history checked for **linearizable**; and the
//! planted `TryLockFailsAfterRelease` caught as `linearizable` (on the minimal scenario
//! that shuttle's shrinking finds, `tests/shuttle/generated.rs`, with the `try_lock` moved after
//! the same thread's release: under loom only program order and spawn/join order threads,
//! docs/invariants.md#linearizability).
//!
//! Run: `cargo test -p pipecheck-models --features loom --test loom -- generated::`.
use pipecheck::InvariantId;
use pipecheck::linearizability::{ConcurrentShape, fixed_scenarios, run_concurrent};
use pipecheck::loom_harness::{expect_model_caught, explore};
use pipecheck_pipe::fault;
use pipecheck_properties::linearizability::{MutexOp, MutexSpec};

/// Bound 2: two threads of one lock/try_lock–unlock section each (`ConcurrentShape::SMALL`);
/// see models/LOOM.md for the interleavings and times.
const BOUND: usize = 2;
/// The proptest seed of the fixed scenarios.
const SEED: u64 = 0x5eed;

#[test]
fn generated_mutex_scenarios_are_linearizable_in_every_interleaving() {
    let spec = MutexSpec;
    for (index, threads) in fixed_scenarios(&spec, ConcurrentShape::SMALL, SEED, 4).into_iter().enumerate() {
        eprintln!("scenario {index} (proptest seed {SEED:#x}): {threads:?}");
        explore(&format!("generated-mutex-{index}"), BOUND, move || {
            run_concurrent(&spec, &threads);
        });
    }
}

#[test]
fn try_lock_fails_after_release_is_caught_as_linearizable() {
    use MutexOp::{Lock, TryLock, Unlock};
    // The refused `try_lock` follows its own thread's release (program order): a release
    // on another thread would order nothing before it under loom.
    let threads = vec![vec![Lock, Unlock, TryLock, Unlock], vec![TryLock, Unlock]];
    expect_model_caught(InvariantId::LINEARIZABLE, BOUND, move || {
        fault::TryLockFailsAfterRelease.activate(|| run_concurrent(&MutexSpec, &threads));
    });
}
