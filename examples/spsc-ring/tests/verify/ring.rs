use spsc_ring::ring_check::target;

/// Every scenario clean and every planted bug caught as its invariant: under loom (each
/// in a child process, bound 3), under shuttle (random and PCT), or on threads.
#[test]
fn every_run_of_the_ring() {
    #[cfg(feature = "loom")]
    pipecheck_models::loom_harness::check_target_all(&target(), 3);
    #[cfg(feature = "loom")]
    pipecheck_models::loom_harness::check_generated(spsc_ring::ring_check::RingModel(2), 12, 3);
    #[cfg(feature = "shuttle")]
    pipecheck_models::engine::shuttle::check_target_all(&target(), 1, 300);
    #[cfg(not(any(feature = "loom", feature = "shuttle")))]
    super::on_threads(&target(), spsc_ring::ring_check::RingModel(2));
}

/// Not a false verdict: with Acquire/Release indices (no SeqCst fence), `Push(3)` may load
/// a stale `head` (Full) while the consumer's second pop loads a stale `tail` (Empty):
/// store buffering. No order of `Push 1, Push 2, Push 3 -> Full || Pop -> 1, Pop -> Empty`
/// respects program order, so the ring is linearizable only for the answers the small
/// scenarios (2 operations per thread) can see; a SeqCst fence before each side loads
/// the other's index would forbid it.
#[cfg(feature = "loom")]
#[test]
fn store_buffering_makes_full_and_empty_non_linearizable_under_c11() {
    use spsc_ring::ring_check::{Op, RingModel};
    let threads = vec![vec![Op::Push(1), Op::Push(2), Op::Push(3)], vec![Op::Pop, Op::Pop]];
    let linearizable = pipecheck_core::InvariantId::LINEARIZABLE;
    pipecheck_models::loom_harness::expect_model_caught(linearizable, 3, move || {
        drop(pipecheck_properties::linearizability::run_concurrent(&RingModel(2), &threads))
    });
}
