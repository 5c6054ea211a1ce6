//! **progress** under loom: a reader that spins on a flag nobody raises
//! (`SentFlagNeverRaised`) runs until loom's branch limit, and the verdict is a livelock
//! naming the spinning thread and where it spun.
use pipecheck::InvariantId;
use pipecheck::loom_harness::{check_target, expect_target_caught};
use pipecheck_models::builtin;

/// Bound 2: one writer, one spinning reader.
const BOUND: usize = 2;

#[test]
fn reader_spins_for_sent_flag() {
    check_target(&builtin::pipe(), "reader-spins-for-sent-flag", None, BOUND).unwrap();
}

#[test]
fn reader_spins_for_sent_flag_catches_sent_flag_never_raised_as_a_livelock() {
    let verdict =
        expect_target_caught(&builtin::pipe(), "reader-spins-for-sent-flag", "SentFlagNeverRaised", BOUND)
            .unwrap();
    assert_eq!(verdict.invariant, Some(InvariantId::PROGRESS), "{}", verdict.report);
    assert_eq!(verdict.kind, "livelock", "{}", verdict.report);
    assert!(verdict.report.contains("spin_wait.rs"), "{}", verdict.report);
}
