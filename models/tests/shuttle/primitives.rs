//! Shuttle runs of the seed primitives: each scenario of `pipecheck_models::primitives`
//! under random schedules (`check_random`) and PCT schedules (`check_pct`), plus a
//! planted-bug twin per scenario that must fail under both and name the broken invariant.
//!
//! Run: `cargo test -p pipecheck-models --features shuttle --test shuttle -- primitives::`.
use pipecheck::PlantedFault;
use pipecheck::engine::shuttle::{DEFAULT_MAX_STEPS, PCT_DEPTHS, SchedulerKind, Shuttle};
use pipecheck::must_fail::{CHILD_TEST_ENV, must_fail_in_child};
use pipecheck::{Engine, Verdict};
use pipecheck_models::find;
use pipecheck_pipe::fault;

/// Schedules per scheduler for a green model.
const ITERATIONS: usize = 1_000;
/// Schedules per scheduler for a planted-bug twin: the failing interleavings are rare
/// (PCT needs its change points inside a few-step window), so the twins search longer;
/// they stop at the first failure.
const TWIN_ITERATIONS: usize = 20_000;
/// The exploration seed.
const SEED: u64 = 0x5eed;

/// The engines: random, and PCT by its depth policy (depth 3, then depth 2: each
/// planted bug here needs one preemption in the right place, which depth 3's extra
/// change point can keep moving out of the window).
fn engines(iterations: usize) -> [Shuttle; 2] {
    let engine = |kind| Shuttle { kind, seed: SEED, iterations, max_steps: DEFAULT_MAX_STEPS };
    [engine(SchedulerKind::Random), engine(SchedulerKind::Pct { depth: PCT_DEPTHS[0] })]
}

/// Runs scenario `name` under shuttle's random and PCT schedulers; every schedule must pass.
fn schedule(name: &str, fault: Option<&'static PlantedFault>, iterations: usize) {
    let scenario = find(name).expect("a scenario of that name");
    for engine in engines(iterations) {
        let checked = engine.check(scenario.execution(fault));
        assert_eq!(checked.verdict, Verdict::Pass, "{} failed: {}", engine.name(), checked.verdict);
    }
}

/// Which engine a child process runs a planted-bug model under.
const ENGINE_ENV: &str = "PIPECHECK_SHUTTLE_ENGINE";

/// Runs scenario `name` with `fault` planted under the random and, separately, the PCT engine,
/// each in a child process (see [`must_fail_in_child`]), and asserts that each fails
/// naming the broken invariant. The child re-runs the calling test, named by its thread
/// (`primitives::async_mutex::double_admit_is_caught`: the module path in this binary).
fn schedule_must_fail(name: &str, fault: &'static PlantedFault) {
    let test = std::thread::current().name().expect("a test thread's name").to_owned();
    let scenario = find(name).expect("a scenario of that name");
    for index in 0..engines(TWIN_ITERATIONS).len() {
        let chosen = index.to_string();
        must_fail_in_child(&test, fault.breaks(), &[(ENGINE_ENV, &chosen)], || {
            let index: usize = std::env::var(ENGINE_ENV).ok().and_then(|i| i.parse().ok()).unwrap_or(0);
            engines(TWIN_ITERATIONS)[index].check(scenario.execution(Some(fault)))
        });
        if std::env::var(CHILD_TEST_ENV).is_ok() {
            return; // the child runs one engine, chosen by its parent
        }
    }
}

mod async_mutex {
    use super::*;

    #[test]
    fn admits_one_holder() {
        schedule("mutex-mutual-exclusion", None, ITERATIONS);
    }

    #[test]
    fn double_admit_is_caught() {
        schedule_must_fail("mutex-mutual-exclusion", &fault::MutexDoubleAdmit);
    }

    #[test]
    fn exit_hands_over_to_an_entrant_not_yet_queued() {
        schedule("mutex-exit-races-enter", None, ITERATIONS);
    }

    #[test]
    fn skipped_wake_on_exit_is_caught() {
        schedule_must_fail("mutex-exit-races-enter", &fault::MutexSkipWakeOnExit);
    }

    #[test]
    fn cancelled_enter_leaks_no_permit() {
        schedule("mutex-cancel-races-exit", None, ITERATIONS);
    }

    #[test]
    fn lock_dropped_at_handoff_passes_the_lock_on() {
        schedule("mutex-lock-dropped-at-handoff", None, ITERATIONS);
    }

    #[test]
    fn drop_losing_the_handoff_is_caught() {
        schedule_must_fail("mutex-lock-dropped-at-handoff", &fault::MutexDropLosesHandoff);
    }
}

mod message_channel {
    use super::*;

    #[test]
    fn close_racing_receive_loses_and_duplicates_nothing() {
        schedule("channel-close-races-receive", None, ITERATIONS);
    }

    #[test]
    fn close_dropping_a_frame_is_caught() {
        schedule_must_fail("channel-close-races-receive", &fault::CloseDropsFrame);
    }

    #[test]
    fn receive_dropped_while_close_drains_loses_nothing() {
        schedule("channel-receive-dropped-while-close-drains", None, ITERATIONS);
    }

    #[test]
    fn close_dropping_a_frame_after_a_dropped_receive_is_caught() {
        schedule_must_fail("channel-receive-dropped-while-close-drains", &fault::CloseDropsFrame);
    }
}

mod completion_source {
    use super::*;

    #[test]
    fn completion_wakes_the_waiter() {
        schedule("completion-wakes-waiter", None, ITERATIONS);
    }

    #[test]
    fn lost_completion_wake_is_caught() {
        schedule_must_fail("completion-wakes-waiter", &fault::LostCompletionWake);
    }

    #[test]
    fn stale_tokens_are_refused() {
        schedule("completion-stale-token", None, ITERATIONS);
    }

    #[test]
    fn accepted_stale_token_is_caught() {
        schedule_must_fail("completion-stale-token", &fault::StaleTokenAccepted);
    }

    #[test]
    fn abandoned_operation_then_reset() {
        schedule("completion-abandoned-then-reset", None, ITERATIONS);
    }

    #[test]
    fn late_result_of_an_abandoned_operation_accepted_is_caught() {
        schedule_must_fail("completion-abandoned-then-reset", &fault::StaleTokenAccepted);
    }

    #[test]
    fn reset_wakes_the_stale_waiter() {
        schedule("completion-reset-wakes-stale-waiter", None, ITERATIONS);
    }

    #[test]
    fn reset_stranding_its_waiter_is_caught() {
        schedule_must_fail("completion-reset-wakes-stale-waiter", &fault::ResetStrandsWaiter);
    }
}

mod partitioned_pool {
    use super::*;

    #[test]
    fn rents_and_returns_balance() {
        schedule("pool-rents-and-returns-balance", None, ITERATIONS);
    }

    #[test]
    fn leaked_return_is_caught() {
        schedule_must_fail("pool-rents-and-returns-balance", &fault::PartitionLeak);
    }
}

/// The linearizability family (models/src/scenarios/linearizable.rs): recorded
/// histories checked against the sequential models of the pipe, the async mutex, the
/// completion source and the message channel.
mod linearizable {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};

    use pipecheck::InvariantId;

    use super::*;

    #[test]
    fn pipe_history_is_linearizable() {
        schedule("pipe-linearizable", None, ITERATIONS);
    }

    #[test]
    fn mutex_history_is_linearizable() {
        schedule("mutex-linearizable", None, ITERATIONS);
    }

    #[test]
    fn completion_history_is_linearizable() {
        schedule("completion-linearizable", None, ITERATIONS);
    }

    #[test]
    fn channel_history_is_linearizable() {
        schedule("channel-linearizable", None, ITERATIONS);
    }

    #[test]
    fn pipe_reread_history_is_linearizable() {
        schedule("pipe-reread-linearizable", None, ITERATIONS);
    }

    #[test]
    fn pipe_backpressure_history_is_linearizable() {
        schedule("pipe-backpressure-linearizable", None, ITERATIONS);
    }

    #[test]
    fn close_returning_while_a_receive_runs_is_caught() {
        schedule_must_fail("channel-linearizable", &fault::CloseReturnsWhileReceiving);
    }

    #[test]
    fn read_missing_a_returned_flush_is_caught() {
        schedule_must_fail("pipe-reread-linearizable", &fault::ReadSkipsPublishedEnd);
    }

    /// The kill-matrix row of the history-only planted bugs: caught as `linearizable`
    /// (above) and by no other invariant: with the history check's violation counted
    /// instead of failing, every random and PCT schedule passes every other invariant,
    /// online and at the end of the run, and some schedules do break the history.
    #[test]
    fn history_only_faults_break_no_other_invariant() {
        for (name, fault) in [
            ("channel-linearizable", &fault::CloseReturnsWhileReceiving),
            ("pipe-reread-linearizable", &fault::ReadSkipsPublishedEnd),
            ("mutex-linearizable", &fault::TryLockFailsAfterRelease),
        ] {
            let scenario = find(name).expect("a scenario of that name");
            for engine in engines(ITERATIONS) {
                let hits = Arc::new(AtomicU64::new(0));
                let execution = scenario.execution_tolerating(Some(fault), fault.breaks(), hits.clone());
                let checked = engine.check(execution);
                assert_eq!(
                    checked.verdict,
                    Verdict::Pass,
                    "{fault} under {}: {}",
                    engine.name(),
                    checked.verdict
                );
                let hits = hits.load(Ordering::Relaxed);
                println!(
                    "{fault} in {name} under {}: {hits} of {} schedules broke `{}`, none anything else",
                    engine.name(),
                    checked.executions,
                    fault.breaks()
                );
                assert!(hits > 0, "{fault} under {}: no schedule broke the history", engine.name());
            }
        }
    }

    /// The twin of the check above: a planted bug that breaks a per-event invariant
    /// (`CloseDropsFrame`, **byte-exact**) in the same scenario fails it.
    #[test]
    fn a_fault_breaking_another_invariant_is_not_tolerated() {
        let scenario = find("channel-linearizable").expect("a scenario of that name");
        let faults = Some(&fault::CloseDropsFrame);
        for engine in engines(ITERATIONS) {
            let hits = Arc::new(AtomicU64::new(0));
            let checked =
                engine.check(scenario.execution_tolerating(faults, InvariantId::LINEARIZABLE, hits));
            match &checked.verdict {
                Verdict::Fail(failure) => {
                    assert_eq!(failure.invariant(), Some(pipecheck_pipe::invariant::BYTE_EXACT), "{failure}")
                }
                other => panic!("CloseDropsFrame was not caught under {}: {other}", engine.name()),
            }
        }
    }

    #[test]
    fn try_lock_refusing_a_free_mutex_is_caught() {
        schedule_must_fail("mutex-linearizable", &fault::TryLockFailsAfterRelease);
    }
}
