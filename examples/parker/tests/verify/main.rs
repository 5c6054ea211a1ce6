//! What the campaign binary's `verify_every_target` does not check: under loom, that
//! the correct event's pass is exact (no caveat: every atomic access is `SeqCst`) and
//! each weak-memory bug is reported as the lost wakeup it is, by name; under shuttle,
//! that the sequentially consistent bug is caught and the weak-memory ones cannot be.
//! `cargo test -p parker --features loom --test verify` (and `--features shuttle`).
#[cfg(feature = "loom")]
mod loom {
    use pipecheck::loom_harness::{check_target, expect_target_caught};
    use pipecheck::{InvariantId, Verdict};

    /// Preemption bound of these models.
    const BOUND: usize = 3;

    #[test]
    fn the_seqcst_handshake_is_green_and_exact_under_loom() {
        let checked = check_target(&parker::check::target(), "set-races-wait", None, BOUND).unwrap();
        assert_eq!(checked.verdict, Verdict::Pass, "{}", checked.verdict);
        assert!(checked.executions > 1, "loom explored {} interleavings", checked.executions);
        assert_eq!(checked.caveat, None, "every atomic access is SeqCst: the model is exact");
    }

    #[test]
    fn release_acquire_handshake_loses_the_wakeup() {
        let verdict =
            expect_target_caught(&parker::check::target(), "set-races-wait", "ReleaseAcquire", BOUND)
                .unwrap();
        assert!(verdict.report.contains(InvariantId::NO_LOST_WAKEUP.name()), "{}", verdict.report);
    }

    #[test]
    fn relaxed_load_on_the_setter_side_loses_the_wakeup() {
        let verdict =
            expect_target_caught(&parker::check::target(), "set-races-wait", "SetterLoadRelaxed", BOUND)
                .unwrap();
        assert!(verdict.report.contains(InvariantId::NO_LOST_WAKEUP.name()), "{}", verdict.report);
    }

    #[test]
    fn checking_before_announcing_loses_the_wakeup() {
        expect_target_caught(&parker::check::target(), "set-races-wait", "CheckBeforeAnnounce", BOUND)
            .unwrap();
    }
}
