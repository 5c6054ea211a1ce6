//! The list of every invariant. Loom models, shuttle scenarios and property tests all
//! check this list, so an invariant registered here is checked everywhere at once.

use crate::invariant::{Constructor, Invariant};
use crate::invariants::*;
use crate::monitor::CheckConfig;

/// Every invariant, in README order. One line each.
const REGISTRY: &[(&str, Constructor)] = &[
    ("no-double-return", |_| Box::new(NoDoubleReturn::default())),
    ("fifo-pool", |_| Box::new(FifoPool::default())),
    ("bounded-pool", |c| Box::new(BoundedPool::new(c.max_pooled_segments))),
    ("no-lost-wakeup", |_| Box::new(NoLostWakeup::default())),
    ("byte-exact", |_| Box::new(ByteExact::default())),
    ("no-data-race", |_| Box::new(NoDataRace::default())),
    ("release-once", |_| Box::new(ReleaseOnce::default())),
    ("backpressure", |c| Box::new(Backpressure::new(c))),
    ("monotonic-offsets", |_| Box::new(MonotonicOffsets::default())),
    ("tentative-cancel", |_| Box::new(TentativeCancel::default())),
    ("bounded-after-reader-complete", |_| Box::new(BoundedAfterReaderComplete::default())),
    ("failure-cause", |_| Box::new(FailureCause::default())),
];

/// The names of all registered invariants.
pub const INVARIANT_NAMES: &[&str] = &{
    let mut names = [""; REGISTRY.len()];
    let mut i = 0;
    while i < REGISTRY.len() {
        names[i] = REGISTRY[i].0;
        i += 1;
    }
    names
};

/// A fresh instance of every registered invariant for a run with `config`.
pub fn registry(config: &CheckConfig) -> Vec<Box<dyn Invariant>> {
    REGISTRY.iter().map(|(_, make)| make(config)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_the_invariants() {
        for invariant in registry(&CheckConfig::default()) {
            assert!(INVARIANT_NAMES.contains(&invariant.name()), "{} is not in the table", invariant.name());
        }
    }
}
