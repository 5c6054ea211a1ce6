use spsc_ring::stack_check::target;

/// Every scenario clean and every planted bug caught as its invariant: under loom (each
/// in a child process, bound 3), under shuttle (random and PCT), or on threads.
#[test]
fn every_run_of_the_stack() {
    #[cfg(feature = "loom")]
    pipecheck_models::loom_harness::check_target_all(&target(), 3);
    #[cfg(feature = "loom")]
    pipecheck_models::loom_harness::check_generated(spsc_ring::stack_check::StackModel(12), 12, 3);
    #[cfg(feature = "shuttle")]
    pipecheck_models::engine::shuttle::check_target_all(&target(), 1, 300);
    #[cfg(not(any(feature = "loom", feature = "shuttle")))]
    super::on_threads(&target(), spsc_ring::stack_check::StackModel(3));
}
