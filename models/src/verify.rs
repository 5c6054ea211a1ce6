//! [`verify_target`]: a user's target and its sequential model checked by whichever
//! engine the features select, so that one test covers `cargo test`, `--features loom`
//! and `--features shuttle`.

use pipecheck_properties::linearizability::OpsSpec;

use crate::Target;

/// Checks `target` and `spec` under the engine the features select (the loom and shuttle
/// entry points named here exist with those features):
///
/// * **loom**: `loom_harness::check_target_all` at preemption
///   bound `loom_bound` (every scenario clean, every planted bug caught as its invariant),
///   then 12 of `spec`'s generated scenarios
///   (`loom_harness::check_generated`);
/// * **shuttle**: `engine::shuttle::check_target_all` with
///   seed 1 and 300 schedules of each scheduler (random and PCT);
/// * **std threads**: [`Target::validate`], each scenario 20 times clean, and `spec`'s
///   operation sequences on one thread
///   ([`check_sequences`](pipecheck_properties::linearizability::check_sequences)).
///
/// # Examples
///
/// ```no_run
/// # fn demo<S: pipecheck_properties::linearizability::OpsSpec>(my_target: pipecheck_models::Target, my_spec: S) {
/// #[test]
/// fn every_run_of_my_target() {
///     pipecheck_models::verify_target(&my_target, my_spec, 3);
/// }
/// # }
/// ```
///
/// # Panics
///
/// When a check fails: with the failure and how to reproduce it.
pub fn verify_target<S: OpsSpec>(target: &Target, spec: S, loom_bound: usize) {
    #[cfg(feature = "loom")]
    {
        crate::loom_harness::check_target_all(target, loom_bound);
        crate::loom_harness::check_generated(spec, 12, loom_bound);
    }
    // Not with loom too: that build only documents (feature `docs`).
    #[cfg(all(feature = "shuttle", not(feature = "loom")))]
    {
        let _ = (spec, loom_bound);
        crate::engine::shuttle::check_target_all(target, 1, 300);
    }
    #[cfg(not(any(feature = "loom", feature = "shuttle")))]
    {
        use pipecheck_properties::linearizability::{SequenceConfig, check_sequences};
        let _ = loom_bound;
        target.validate().unwrap_or_else(|error| panic!("{error}"));
        for scenario in target.all_scenarios() {
            (0..20).for_each(|_| scenario.run_once(None, &|_| {}));
        }
        check_sequences(&spec, &SequenceConfig::default()).unwrap_or_else(|mismatch| panic!("{mismatch}"));
    }
}
