//! **progress** under shuttle: a reader that spins on a flag nobody raises
//! (`SentFlagNeverRaised`) runs until shuttle's step bound, and the verdict is a
//! livelock naming the spinning task and where it spun, not a generic step-bound
//! failure.
//!
//! Run: `cargo test -p pipecheck-models --features shuttle --test shuttle -- progress::`.

use pipecheck::InvariantId;
use pipecheck::engine::shuttle::{PCT_DEPTHS, SchedulerKind, Shuttle};
use pipecheck::{Engine, FailureKind, Verdict};
use pipecheck_models::find;
use pipecheck_models::scenarios::spin_wait::SentFlagNeverRaised;

/// A step bound well above the clean run's few hundred steps, and small enough that
/// the spin reaches it quickly.
const MAX_STEPS: usize = 5_000;

#[test]
fn a_spin_on_a_flag_never_raised_is_a_livelock_naming_the_spinner() {
    let scenario = find("reader-spins-for-sent-flag").expect("the scenario");
    for kind in [SchedulerKind::Random, SchedulerKind::Pct { depth: PCT_DEPTHS[0] }] {
        let engine = Shuttle { kind, seed: 1, iterations: 50, max_steps: MAX_STEPS };
        let clean = engine.check(scenario.execution(None));
        assert_eq!(clean.verdict, Verdict::Pass, "{}: {}", engine.name(), clean.verdict);
        let checked = engine.check(scenario.execution(Some(&SentFlagNeverRaised)));
        assert!(checked.verdict.names(InvariantId::PROGRESS), "{}: {}", engine.name(), checked.verdict);
        let Verdict::Fail(FailureKind::Livelock { spinning, .. }) = &checked.verdict else {
            panic!("{}: not a livelock: {}", engine.name(), checked.verdict)
        };
        // The reader is the scenario's main task (0); the writer finished long before.
        assert_eq!(spinning.len(), 1, "{spinning:?}");
        assert_eq!(spinning[0].thread, 0, "{spinning:?}");
        assert!(spinning[0].location.file().ends_with("spin_wait.rs"), "{spinning:?}");
        let text = checked.verdict.to_string();
        assert!(
            text.starts_with("livelock (no progress): kept running") && text.contains("thread 0 waited"),
            "{text}"
        );
    }
}
