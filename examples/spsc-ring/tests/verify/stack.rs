use spsc_ring::stack_check::{StackModel, target};

/// Every scenario clean and every planted bug caught as its invariant: under loom (each
/// in a child process, bound 3, 12 nodes: no Full while a pop is in flight), under
/// shuttle (random and PCT), or on threads (3 nodes: sequences that fill it).
#[test]
fn every_run_of_the_stack() {
    pipecheck_models::verify_target(&target(), StackModel(if cfg!(feature = "loom") { 12 } else { 3 }), 3);
}
