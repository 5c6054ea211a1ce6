//! Loom models of the seed primitives: every interleaving up to the stated preemption
//! bound, for each scenario of `pipecheck_models::primitives`, plus a planted-bug twin
//! per scenario that must fail and name the broken invariant.
//!
//! Run: `cargo test -p pipecheck-models --features loom --test loom_primitives`.
#![cfg(feature = "loom")]

use pipecheck_core::{Fault, FaultSet};
use pipecheck_models::primitives::*;

/// Explores `body` with loom under `preemption_bound`, and reports how many
/// interleavings that took.
fn explore(preemption_bound: usize, body: fn(FaultSet), faults: FaultSet) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(preemption_bound);
    let runs = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = runs.clone();
    pipecheck_models::loom_harness::with_loom_log(|| {
        builder.check(move || {
            counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            body(faults)
        })
    });
    eprintln!(
        "loom explored {} interleavings (preemption bound {preemption_bound})",
        runs.load(std::sync::atomic::Ordering::Relaxed)
    );
}

/// Explores `body` with `fault` planted, in a child process (see
/// [`must_fail_in_child`]), and asserts that loom fails naming the broken invariant.
/// `test` is the calling test's name.
fn explore_must_fail(test: &str, preemption_bound: usize, body: fn(FaultSet), fault: Fault) {
    must_fail_in_child("loom", test, fault.breaks(), &[], || {
        explore(preemption_bound, body, FaultSet::NONE.with(fault))
    });
}

mod async_mutex {
    use super::*;

    // Bound 3: three tasks, each with one enter and one exit; about a second to explore.
    #[test]
    fn admits_one_holder() {
        explore(3, mutex_mutual_exclusion, FaultSet::NONE);
    }

    #[test]
    fn double_admit_is_caught() {
        explore_must_fail(
            "async_mutex::double_admit_is_caught",
            3,
            mutex_mutual_exclusion,
            Fault::MutexDoubleAdmit,
        );
    }

    // Bound 3: the holder's exit against the entrant's count-then-queue.
    #[test]
    fn exit_hands_over_to_an_entrant_not_yet_queued() {
        explore(3, mutex_exit_races_enter, FaultSet::NONE);
    }

    #[test]
    fn skipped_wake_on_exit_is_caught() {
        explore_must_fail(
            "async_mutex::skipped_wake_on_exit_is_caught",
            3,
            mutex_exit_races_enter,
            Fault::MutexSkipWakeOnExit,
        );
    }

    // Bound 3: the cancellation against the holder's exit.
    #[test]
    fn cancelled_enter_leaks_no_permit() {
        explore(3, mutex_cancel_races_exit, FaultSet::NONE);
    }
}

mod message_channel {
    use super::*;

    // Bound 3: each step goes through the pipe's lock and the async mutex, so the state
    // space grows fast (461 interleavings at bound 3); three preemptions cover the
    // receiver waiting on the pipe while the closer queues behind it.
    #[test]
    fn close_racing_receive_loses_and_duplicates_nothing() {
        explore(3, channel_close_races_receive, FaultSet::NONE);
    }

    #[test]
    fn close_dropping_a_frame_is_caught() {
        explore_must_fail(
            "message_channel::close_dropping_a_frame_is_caught",
            3,
            channel_close_races_receive,
            Fault::CloseDropsFrame,
        );
    }
}

mod completion_source {
    use super::*;

    // Bound 3: one completion against one await.
    #[test]
    fn completion_wakes_the_waiter() {
        explore(3, completion_wakes_waiter, FaultSet::NONE);
    }

    #[test]
    fn lost_completion_wake_is_caught() {
        explore_must_fail(
            "completion_source::lost_completion_wake_is_caught",
            3,
            completion_wakes_waiter,
            Fault::LostCompletionWake,
        );
    }

    // Bound 3: the late completion against the await, reset and second completion.
    #[test]
    fn stale_tokens_are_refused() {
        explore(3, completion_stale_token, FaultSet::NONE);
    }

    #[test]
    fn accepted_stale_token_is_caught() {
        explore_must_fail(
            "completion_source::accepted_stale_token_is_caught",
            3,
            completion_stale_token,
            Fault::StaleTokenAccepted,
        );
    }
}

mod partitioned_pool {
    use super::*;

    // Bound 3: a return to partition 0 against a steal from it.
    #[test]
    fn rents_and_returns_balance() {
        explore(3, pool_rents_and_returns_balance, FaultSet::NONE);
    }

    #[test]
    fn leaked_return_is_caught() {
        explore_must_fail(
            "partitioned_pool::leaked_return_is_caught",
            3,
            pool_rents_and_returns_balance,
            Fault::PartitionLeak,
        );
    }
}
