use spsc_ring::ring_check::{RingModel, target};

/// Every scenario clean and every planted bug caught as its invariant: under loom (each
/// in a child process, bound 3), under shuttle (random and PCT), or on threads.
#[test]
fn every_run_of_the_ring() {
    pipecheck_models::verify_target(&target(), RingModel(2), 3);
}

/// Not a false verdict: with Acquire/Release indices (no SeqCst fence), `Push(3)` may load
/// a stale `head` (Full) while the second pop loads a stale `tail` (Empty): store
/// buffering, which no order of the two threads' operations explains (README).
#[cfg(feature = "loom")]
#[test]
fn store_buffering_makes_full_and_empty_non_linearizable_under_c11() {
    use spsc_ring::ring_check::Op;
    let threads = vec![vec![Op::Push(1), Op::Push(2), Op::Push(3)], vec![Op::Pop; 2]];
    let linearizable = pipecheck_core::InvariantId::LINEARIZABLE;
    pipecheck_models::loom_harness::expect_model_caught(linearizable, 3, move || {
        drop(pipecheck_properties::linearizability::run_concurrent(&RingModel(2), &threads))
    });
}
