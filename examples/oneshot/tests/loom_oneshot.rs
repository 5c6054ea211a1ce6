//! The channel under loom: every interleaving of the small scenarios, and each planted
//! fault caught as the invariant it breaks (in a child process: loom may abort on a
//! failure). Run with `cargo test -p oneshot --features loom --test loom_oneshot`.
#![cfg(feature = "loom")]

use pipecheck_models::loom_harness::{check_target, expect_target_caught};

/// Preemption bound of these models (measured times in `models/LOOM.md`).
const BOUND: usize = 3;

#[test]
fn send_races_recv_keeps_every_invariant() {
    check_target(&oneshot::target(), "send-races-recv", None, BOUND).unwrap();
}

#[test]
fn drop_races_recv_keeps_every_invariant() {
    check_target(&oneshot::target(), "drop-races-recv", None, BOUND).unwrap();
}

#[test]
fn skip_recheck_is_caught_as_oneshot_wake() {
    expect_target_caught(&oneshot::target(), "send-races-recv", "SkipRecheck", BOUND).unwrap();
}

#[test]
fn skip_recheck_is_caught_when_the_sender_is_dropped() {
    expect_target_caught(&oneshot::target(), "drop-races-recv", "SkipRecheck", BOUND).unwrap();
}

#[test]
fn complete_before_value_is_caught_as_oneshot_delivery() {
    expect_target_caught(&oneshot::target(), "send-races-recv", "CompleteBeforeValue", BOUND).unwrap();
}

#[test]
fn the_generated_small_scenario_is_linearizable() {
    check_target(&oneshot::target(), pipecheck_models::SMALL_SCENARIO, None, BOUND).unwrap();
}

#[test]
fn send_ignores_closed_receiver_is_caught_as_linearizable() {
    let target = oneshot::target();
    expect_target_caught(&target, pipecheck_models::SMALL_SCENARIO, "SendIgnoresClosedReceiver", BOUND)
        .unwrap();
}

/// Four more 2-thread scenarios of at most two operations each, drawn from a fixed
/// seed, each explored within the bound.
#[test]
fn fixed_generated_scenarios_are_linearizable() {
    use oneshot::model::OneshotModel;
    use pipecheck_models::loom_harness::explore;
    use pipecheck_properties::linearizability::{ConcurrentShape, fixed_scenarios, run_concurrent};
    const SEED: u64 = 0x5eed;
    for (index, threads) in
        fixed_scenarios(&OneshotModel, ConcurrentShape::SMALL, SEED, 4).into_iter().enumerate()
    {
        eprintln!("scenario {index} (proptest seed {SEED:#x}): {threads:?}");
        explore(&format!("oneshot-generated-{index}"), BOUND, move || {
            run_concurrent(&OneshotModel, &threads);
        });
    }
}

#[test]
fn unknown_names_are_typed_errors() {
    let target = oneshot::target();
    let err = check_target(&target, "no-such-scenario", None, BOUND).unwrap_err();
    assert!(err.to_string().contains("send-races-recv"), "{err}");
    let err = check_target(&target, "send-races-recv", Some("NoSuchFault"), BOUND).unwrap_err();
    assert!(err.to_string().contains("SkipRecheck"), "{err}");
}

#[test]
fn a_loom_failure_prints_the_command_that_reproduces_it_in_this_crate() {
    use pipecheck_models::must_fail::must_fail_in_child;
    const TEST: &str = "a_loom_failure_prints_the_command_that_reproduces_it_in_this_crate";
    let verdict = must_fail_in_child(TEST, oneshot::invariants::WAKE, &[], || {
        check_target(&oneshot::target(), "send-races-recv", Some("SkipRecheck"), BOUND).unwrap()
    });
    let command = format!(
        "LOOM_MAX_PREEMPTIONS={BOUND} cargo test -p oneshot --features loom --test loom_oneshot -- {TEST} --exact"
    );
    assert!(verdict.report.contains(&command), "no `{command}` in:\n{}", verdict.report);
}
