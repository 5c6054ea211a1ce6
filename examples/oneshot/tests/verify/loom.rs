//! What the campaign binary's `verify_every_target` does not check under loom: the
//! harness's typed errors and the command it prints to reproduce a failure in this crate.

use pipecheck::loom_harness::check_target;

/// Preemption bound of these models (measured times in `models/LOOM.md`).
const BOUND: usize = 3;

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
    use pipecheck::must_fail::must_fail_in_child;
    const TEST: &str = "loom::a_loom_failure_prints_the_command_that_reproduces_it_in_this_crate";
    let verdict = must_fail_in_child(TEST, oneshot::invariants::WAKE, &[], || {
        check_target(&oneshot::target(), "send-races-recv", Some("SkipRecheck"), BOUND).unwrap()
    });
    let command = format!(
        "LOOM_MAX_PREEMPTIONS={BOUND} cargo test -p oneshot --features loom --test verify -- {TEST} --exact"
    );
    assert!(verdict.report.contains(&command), "no `{command}` in:\n{}", verdict.report);
}
