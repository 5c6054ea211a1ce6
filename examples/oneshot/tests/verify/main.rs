//! The channel under every engine, in one binary: `cargo test -p oneshot` (std threads
//! and the sequential model), `--features loom` (every interleaving at preemption bound
//! 3), `--features shuttle` (random and PCT schedules, and the saved traces).
#[cfg(not(any(feature = "loom", feature = "shuttle")))]
mod channel;
#[cfg(feature = "loom")]
mod loom;
#[cfg(feature = "shuttle")]
mod shuttle;

/// Every scenario clean and every planted bug caught as its invariant: under loom (each
/// in a child process, bound 3, and 12 generated scenarios), under shuttle (random or
/// PCT), or on threads (with the model's operation sequences).
#[test]
fn every_run_of_the_channel() {
    pipecheck_models::verify_target(&oneshot::target(), oneshot::model::OneshotModel, 3);
}
