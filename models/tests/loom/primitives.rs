//! Loom models of the seed primitives: every interleaving up to the stated preemption
//! bound, for each scenario of `pipecheck_models::primitives`, under the run's
//! monitor, plus a planted-bug twin per fault that must fail and name the broken
//! invariant.
//!
//! Run: `cargo test -p pipecheck-models --features loom --test loom -- primitives::`.
use pipecheck::PlantedFault;
use pipecheck::loom_harness::{check_target, expect_target_caught};
use pipecheck_models::builtin;
use pipecheck_pipe::fault;

/// Explores scenario `name` with no planted bug.
fn explore(name: &str, bound: usize) {
    check_target(&builtin::primitives(), name, None, bound).unwrap();
}

/// Explores scenario `name` with `fault` planted, in a child process, and asserts that
/// the verdict names the invariant the fault breaks.
fn explore_must_fail(name: &str, bound: usize, fault: &'static PlantedFault) {
    expect_target_caught(&builtin::primitives(), name, fault.name(), bound).unwrap();
}

mod async_mutex {
    use super::*;

    // Bound 3: three tasks, each with one enter and one exit; about a second to explore.
    #[test]
    fn admits_one_holder() {
        explore("mutex-mutual-exclusion", 3);
    }

    #[test]
    fn double_admit_is_caught() {
        explore_must_fail("mutex-mutual-exclusion", 3, &fault::MutexDoubleAdmit);
    }

    // Bound 3: the holder's exit against the entrant's count-then-queue.
    #[test]
    fn exit_hands_over_to_an_entrant_not_yet_queued() {
        explore("mutex-exit-races-enter", 3);
    }

    #[test]
    fn skipped_wake_on_exit_is_caught() {
        explore_must_fail("mutex-exit-races-enter", 3, &fault::MutexSkipWakeOnExit);
    }

    // Bound 3: the cancellation against the holder's exit.
    #[test]
    fn cancelled_enter_leaks_no_permit() {
        explore("mutex-cancel-races-exit", 3);
    }

    // Bound 2: three tasks (holder, dropped waiter, second waiter); two preemptions put
    // the exit's hand-over between the dropped waiter's poll and its drop.
    #[test]
    fn lock_dropped_at_handoff_passes_the_lock_on() {
        explore("mutex-lock-dropped-at-handoff", 2);
    }

    #[test]
    fn drop_losing_the_handoff_is_caught() {
        explore_must_fail("mutex-lock-dropped-at-handoff", 2, &fault::MutexDropLosesHandoff);
    }
}

mod message_channel {
    use super::*;

    // Bound 2: each step goes through the pipe's lock and the async mutex, so the state
    // space grows fast (31,866 interleavings at bound 3 once the pipe was observed);
    // two preemptions still cover the receiver waiting on the pipe while the closer
    // queues behind it, and catch `CloseDropsFrame` (LOOM.md).
    #[test]
    fn close_racing_receive_loses_and_duplicates_nothing() {
        explore("channel-close-races-receive", 2);
    }

    #[test]
    fn close_dropping_a_frame_is_caught() {
        explore_must_fail("channel-close-races-receive", 2, &fault::CloseDropsFrame);
    }

    // Bound 2: three tasks and two messages through the pipe.
    #[test]
    fn receive_dropped_while_close_drains_loses_nothing() {
        explore("channel-receive-dropped-while-close-drains", 2);
    }

    #[test]
    fn close_dropping_a_frame_after_a_dropped_receive_is_caught() {
        explore_must_fail("channel-receive-dropped-while-close-drains", 2, &fault::CloseDropsFrame);
    }
}

mod completion_source {
    use super::*;

    // Bound 3: one completion against one await.
    #[test]
    fn completion_wakes_the_waiter() {
        explore("completion-wakes-waiter", 3);
    }

    #[test]
    fn lost_completion_wake_is_caught() {
        explore_must_fail("completion-wakes-waiter", 3, &fault::LostCompletionWake);
    }

    // Bound 3: the late completion against the await, reset and second completion.
    #[test]
    fn stale_tokens_are_refused() {
        explore("completion-stale-token", 3);
    }

    #[test]
    fn accepted_stale_token_is_caught() {
        explore_must_fail("completion-stale-token", 3, &fault::StaleTokenAccepted);
    }

    // Bound 2: three tasks (owner, abandoner, completer).
    #[test]
    fn abandoned_operation_then_reset() {
        explore("completion-abandoned-then-reset", 2);
    }

    #[test]
    fn late_result_of_an_abandoned_operation_accepted_is_caught() {
        explore_must_fail("completion-abandoned-then-reset", 2, &fault::StaleTokenAccepted);
    }

    // Bound 3: the old waiter's registration against the reset.
    #[test]
    fn reset_wakes_the_stale_waiter() {
        explore("completion-reset-wakes-stale-waiter", 3);
    }

    #[test]
    fn reset_stranding_its_waiter_is_caught() {
        explore_must_fail("completion-reset-wakes-stale-waiter", 3, &fault::ResetStrandsWaiter);
    }
}

mod partitioned_pool {
    use super::*;

    // Bound 3: a return to partition 0 against a steal from it.
    #[test]
    fn rents_and_returns_balance() {
        explore("pool-rents-and-returns-balance", 3);
    }

    #[test]
    fn leaked_return_is_caught() {
        explore_must_fail("pool-rents-and-returns-balance", 3, &fault::PartitionLeak);
    }
}
