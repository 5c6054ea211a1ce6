//! The list of every invariant. Loom models, shuttle scenarios and property tests all
//! check this list, so an invariant registered here is checked everywhere at once.

use pipecheck_core::InvariantId;

use crate::invariant::{Constructor, Invariant};
use crate::invariants::*;
use crate::monitor::CheckConfig;

/// Every invariant, in README order. One line each.
const REGISTRY: &[(InvariantId, Constructor)] = &[
    (InvariantId::NO_DOUBLE_RETURN, |_| Box::new(NoDoubleReturn::default())),
    (InvariantId::FIFO_POOL, |_| Box::new(FifoPool::default())),
    (InvariantId::BOUNDED_POOL, |c| Box::new(BoundedPool::new(c.max_pooled_segments))),
    (InvariantId::NO_LOST_WAKEUP, |_| Box::new(NoLostWakeup::default())),
    (InvariantId::BYTE_EXACT, |_| Box::new(ByteExact::default())),
    (InvariantId::NO_DATA_RACE, |_| Box::new(NoDataRace::default())),
    (InvariantId::RELEASE_ONCE, |_| Box::new(ReleaseOnce::default())),
    (InvariantId::BACKPRESSURE, |c| Box::new(Backpressure::new(c))),
    (InvariantId::MONOTONIC_OFFSETS, |_| Box::new(MonotonicOffsets::default())),
    (InvariantId::TENTATIVE_CANCEL, |_| Box::new(TentativeCancel::default())),
    (InvariantId::BOUNDED_AFTER_READER_COMPLETE, |_| Box::new(BoundedAfterReaderComplete::default())),
    (InvariantId::FAILURE_CAUSE, |_| Box::new(FailureCause::default())),
    (InvariantId::MUTUAL_EXCLUSION, |_| Box::new(MutualExclusion::default())),
    (InvariantId::TOKEN_REUSE, |_| Box::new(TokenReuse::default())),
    (InvariantId::BALANCED_POOL, |_| Box::new(BalancedPool::default())),
    (InvariantId::SEGMENTS_IN_USE, |_| Box::new(SegmentsInUse::default())),
    (InvariantId::BUFFERED_LENGTH, |_| Box::new(BufferedLength::default())),
    (InvariantId::CANCEL_OBSERVED, |_| Box::new(CancelObserved::default())),
    (InvariantId::LINEARIZABLE, |_| Box::new(Linearizable)),
];

/// Further checkers of invariants listed above, one per component: the seed
/// primitives' share of an invariant the pipe has too reports under the same id.
const SHARES: &[(InvariantId, Constructor)] = &[
    (InvariantId::NO_LOST_WAKEUP, |_| Box::new(PrimitiveWakeups::default())),
    (InvariantId::BYTE_EXACT, |_| Box::new(MessageDelivery::default())),
];

/// The invariants that state a property of one run of a pipe, from its creation (or
/// its last reset) until both sides complete. At a [`PipeEvent::Reset`] the monitor
/// checks their end-of-run obligations (as [`Invariant::finish`] does at the end of a
/// run) and starts them afresh, so the pipe's next run is checked as a new pipe. The
/// others are about what a reset keeps (the segment pool, the buffer pools, the seed
/// primitives) and run on.
///
/// [`PipeEvent::Reset`]: pipecheck_core::PipeEvent::Reset
const PER_PIPE_RUN: &[InvariantId] = &[
    InvariantId::NO_LOST_WAKEUP,
    InvariantId::BYTE_EXACT,
    InvariantId::NO_DATA_RACE,
    InvariantId::RELEASE_ONCE,
    InvariantId::BACKPRESSURE,
    InvariantId::MONOTONIC_OFFSETS,
    InvariantId::TENTATIVE_CANCEL,
    InvariantId::BOUNDED_AFTER_READER_COMPLETE,
    InvariantId::FAILURE_CAUSE,
    InvariantId::SEGMENTS_IN_USE,
    InvariantId::BUFFERED_LENGTH,
    InvariantId::CANCEL_OBSERVED,
];

/// How to start `invariant` afresh at a pipe reset: the registry line that built it, if
/// it is a per-pipe-run invariant ([`PER_PIPE_RUN`]). A share reporting under the same
/// id (a seed primitive's, e.g. [`PrimitiveWakeups`]) is told apart by its statement,
/// and runs on.
pub(crate) fn restart_of(invariant: &dyn Invariant) -> Option<Constructor> {
    let id = invariant.id();
    if !PER_PIPE_RUN.contains(&id) {
        return None;
    }
    let statement = invariant.statement();
    REGISTRY
        .iter()
        .filter(|(listed, _)| *listed == id)
        .map(|(_, make)| *make)
        .find(|make| make(&CheckConfig::default()).statement() == statement)
}

/// The ids of all registered invariants, in registry order.
pub const INVARIANT_IDS: &[InvariantId] = &{
    let mut ids = [InvariantId::new(""); REGISTRY.len()];
    let mut i = 0;
    while i < REGISTRY.len() {
        ids[i] = REGISTRY[i].0;
        i += 1;
    }
    ids
};

/// A fresh instance of every registered invariant for a run with `config`.
pub fn registry(config: &CheckConfig) -> Vec<Box<dyn Invariant>> {
    REGISTRY.iter().chain(SHARES).map(|(_, make)| make(config)).collect()
}

/// The registered invariants' statements, by id: what reports print as a legend.
pub fn statements() -> Vec<(InvariantId, &'static str)> {
    REGISTRY.iter().map(|(_, make)| make(&CheckConfig::default())).map(|i| (i.id(), i.statement())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_constructor_builds_the_invariant_it_is_listed_under() {
        for (id, make) in REGISTRY.iter().chain(SHARES) {
            assert_eq!(
                make(&CheckConfig::default()).id(),
                *id,
                "the registry line for {id} builds another checker"
            );
        }
    }

    #[test]
    fn every_share_reports_under_a_registered_id() {
        for (id, _) in SHARES {
            assert!(INVARIANT_IDS.contains(id), "{id} has a share but no registry line");
        }
    }

    #[test]
    fn only_per_pipe_run_invariants_restart_at_a_reset() {
        for invariant in registry(&CheckConfig::default()) {
            let restarts = restart_of(invariant.as_ref()).map(|make| make(&CheckConfig::default()));
            let share = SHARES
                .iter()
                .any(|(_, make)| make(&CheckConfig::default()).statement() == invariant.statement());
            match restarts {
                Some(fresh) => {
                    assert!(!share, "{}: a primitive's share restarted at a pipe reset", invariant.id());
                    assert_eq!(
                        fresh.statement(),
                        invariant.statement(),
                        "{} restarts as another checker",
                        invariant.id()
                    );
                }
                None => assert!(
                    share || !PER_PIPE_RUN.contains(&invariant.id()),
                    "{} is per pipe run but does not restart",
                    invariant.id()
                ),
            }
        }
        for id in PER_PIPE_RUN {
            assert!(INVARIANT_IDS.contains(id), "{id} is listed per pipe run but not registered");
        }
    }

    #[test]
    fn ids_are_distinct() {
        for (i, id) in INVARIANT_IDS.iter().enumerate() {
            assert!(!INVARIANT_IDS[..i].contains(id), "{id} is registered twice");
        }
    }
}
