//! [`verify`] and [`verify_target`]: a user's target and its sequential model checked by
//! whichever engine the features select, so that one test covers `cargo test`,
//! `--features loom` and `--features shuttle`.

use crate::linearizability::OpsSpec;

use crate::target::Target;

/// Checks `target` and the sequential model it declares ([`Target::linearizable`]) under
/// the engine the features select (the loom and shuttle entry points named here exist
/// with those features):
///
/// * **loom**: `loom_harness::check_target_all` at preemption
///   each scenario's own bound ([`Target::loom_bound_for`]; every scenario clean, every
///   planted bug caught as its invariant),
///   then 12 of the model's generated scenarios
///   (`loom_harness::check_generated`), and each split declared
///   [`non_linearizable_under_c11`](crate::target::GeneratedScenarios::non_linearizable_under_c11),
///   which loom must find not linearizable (each in a child process);
/// * **shuttle**: `engine::shuttle::check_target_all` with
///   seed 1 and 300 schedules of each scheduler (random and PCT);
/// * **std threads**: [`Target::validate`], each scenario 20 times clean, and the model's
///   operation sequences on one thread
///   ([`check_sequences`](crate::linearizability::check_sequences)).
///
/// # Examples
///
/// ```no_run
/// # use pipecheck::prelude::*;
/// # fn my_target() -> Target {
/// #     let ones = FnInvariant::new(InvariantId::new("only-ones"), "every event is 1", (), |_, e: &u32| {
/// #         if *e == 1 { Ok(()) } else { Err(format!("{e}")) }
/// #     });
/// #     let scenarios = [EventScenario::small("one", "records 1", |m| m.record(1))];
/// #     Target::new("ones", "ones").checked(ones, &scenarios)
/// # }
/// #[test]
/// fn every_run_of_my_target() {
///     pipecheck::verify(&my_target());
/// }
/// ```
///
/// # Panics
///
/// When a check fails: with the failure and how to reproduce it.
pub fn verify(target: &Target) {
    verify_scenarios(target);
    if let Some(model) = &target.model_check {
        model(target.loom_bound());
    }
}

/// [`verify`] with `spec` as the sequential model instead of the one `target` declares
/// (a model sized for the engine, say; no split is checked as non-linearizable).
///
/// # Examples
///
/// ```no_run
/// # fn demo<S: pipecheck::linearizability::OpsSpec>(my_target: pipecheck::Target, my_spec: S) {
/// #[test]
/// fn every_run_of_my_target() {
///     pipecheck::verify_target(&my_target, my_spec);
/// }
/// # }
/// ```
///
/// # Panics
///
/// When a check fails: with the failure and how to reproduce it.
pub fn verify_target<S: OpsSpec>(target: &Target, spec: S) {
    verify_scenarios(target);
    check_model(target.name(), &spec, &[], target.loom_bound());
}

/// The target's scenarios and planted bugs under the engine the features select.
fn verify_scenarios(target: &Target) {
    #[cfg(feature = "loom")]
    crate::target::loom_harness::check_target_all(target);
    // Not with loom too: that build only documents (feature `docs`).
    #[cfg(all(feature = "shuttle", not(feature = "loom")))]
    crate::target::engine::shuttle::check_target_all(target, 1, 300);
    #[cfg(not(any(feature = "loom", feature = "shuttle")))]
    {
        target.validate().unwrap_or_else(|error| panic!("{error}"));
        for scenario in target.all_scenarios() {
            (0..20).for_each(|_| scenario.run_once(None, &|_| {}));
        }
    }
}

/// `spec`'s own checks under the engine the features select: under loom its generated
/// scenarios and the splits in `non_linearizable` (each must fail as `linearizable`, in
/// a child process chosen by [`CHILD_RUN_ENV`](crate::target::loom_harness::CHILD_RUN_ENV)), on
/// threads its operation sequences; nothing under shuttle (the target's scenarios ran it).
pub(crate) fn check_model<S: OpsSpec>(
    target: &str,
    spec: &S,
    non_linearizable: &[Vec<Vec<S::Input>>],
    loom_bound: usize,
) {
    #[cfg(feature = "loom")]
    {
        use std::sync::Arc;

        use crate::check::Engine as _;
        use crate::linearizability::run_concurrent;
        use pipecheck_sync::InvariantId;

        use crate::target::loom_harness::{CHILD_RUN_ENV, check_generated};
        use crate::target::must_fail::must_fail_in_child_as;

        let child = std::env::var(CHILD_RUN_ENV).ok();
        if child.is_none() {
            check_generated(spec.clone(), 12, loom_bound);
        }
        let test = std::thread::current().name().unwrap_or("<test name>").to_owned();
        for (index, threads) in non_linearizable.iter().enumerate() {
            let run = format!("{target}/non-linearizable-{index}");
            if child.as_ref().is_none_or(|child| *child == run) {
                let (spec, threads) = (spec.clone(), threads.clone());
                eprintln!("loom: {threads:?} must not be linearizable under C11:");
                let linearizable = [InvariantId::LINEARIZABLE];
                must_fail_in_child_as(&test, &linearizable, &[(CHILD_RUN_ENV, &run)], move || {
                    let body = move || drop(run_concurrent(&spec, &threads));
                    crate::target::engine::loom::Loom::with_bound(loom_bound).check(Arc::new(body))
                });
            }
        }
    }
    #[cfg(all(feature = "shuttle", not(feature = "loom")))]
    let _ = (target, spec, non_linearizable, loom_bound);
    #[cfg(not(any(feature = "loom", feature = "shuttle")))]
    {
        use crate::linearizability::{SequenceConfig, check_sequences};
        let _ = (target, non_linearizable, loom_bound);
        check_sequences(spec, &SequenceConfig::default()).unwrap_or_else(|mismatch| panic!("{mismatch}"));
    }
}
