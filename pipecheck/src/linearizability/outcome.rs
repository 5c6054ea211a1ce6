//! What a linearizability check concludes: [`Linearization`], within a [`Budget`].

use std::time::Duration;

use super::history::OpId;

/// How much search a check may spend before it answers [`Linearization::Unknown`].
///
/// # Examples
///
/// ```
/// use pipecheck::linearizability::Budget;
///
/// let budget = Budget::default().with_max_states(10_000);
/// assert_eq!(budget.max_states, 10_000);
/// assert!(budget.time.is_none());
/// assert_eq!(budget.max_bytes, 1 << 30);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// The most search states (linearized set and model state pairs) visited, over all
    /// partitions.
    pub max_states: u64,
    /// The most wall-clock time spent; `None` for no limit (tests and model checkers
    /// keep it `None` so that verdicts do not depend on the machine's speed).
    pub time: Option<Duration>,
    /// The most memory the visited sets may hold, over all partitions: their tables,
    /// linearized sets and states (with what
    /// [`SequentialModel::state_heap_bytes`](super::SequentialModel::state_heap_bytes)
    /// reports). A check that would exceed it answers
    /// [`Linearization::Unknown`] instead of failing to allocate.
    pub max_bytes: u64,
    /// How many partitions are searched at once; `None` for the machine's parallelism.
    pub threads: Option<usize>,
}

impl Default for Budget {
    /// Two million states, 1 GiB, no time limit, one thread per core.
    fn default() -> Self {
        Budget { max_states: 2_000_000, time: None, max_bytes: 1 << 30, threads: None }
    }
}

impl Budget {
    /// This budget with at most `max_states` states.
    pub fn with_max_states(self, max_states: u64) -> Budget {
        Budget { max_states, ..self }
    }

    /// This budget with at most `time` of search.
    pub fn with_time(self, time: Duration) -> Budget {
        Budget { time: Some(time), ..self }
    }

    /// This budget with at most `max_bytes` of visited sets.
    pub fn with_max_bytes(self, max_bytes: u64) -> Budget {
        Budget { max_bytes, ..self }
    }

    /// This budget searching at most `threads` partitions at once (at least one).
    pub fn with_threads(self, threads: usize) -> Budget {
        Budget { threads: Some(threads.max(1)), ..self }
    }

    /// No limit on states or memory (time still applies if set): for histories known
    /// to be small, and for measurements.
    pub fn unlimited() -> Budget {
        Budget { max_states: u64::MAX, max_bytes: u64::MAX, ..Budget::default() }
    }
}

/// Why a check gave up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exhausted {
    /// It visited [`Budget::max_states`] states.
    States,
    /// It ran for [`Budget::time`].
    Time,
    /// Its visited sets would have grown past [`Budget::max_bytes`].
    Memory,
    /// No linearization was found, but a pending operation that may have taken effect
    /// ([`PendingPolicy::MayHaveTakenEffect`](super::PendingPolicy), e.g. a call without
    /// a return in [`History::from_events`](super::History::from_events)) has no
    /// recorded output and the model could not say what it does
    /// ([`SequentialModel::step_pending`](super::SequentialModel::step_pending) and
    /// [`expected`](super::SequentialModel::expected) gave nothing): the failure may be
    /// an artefact of assuming it never took effect, so no verdict is given.
    PendingEffectUnknown,
}

/// A history no sequential order explains: the deepest partial linearization the
/// search reached, and the operation it could not place after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NonLinearizable {
    /// The partition (see [`SequentialModel::partition`](super::SequentialModel::partition))
    /// whose sub-history failed: its index when partitions are listed in the order of
    /// their first operation in the history (independent of how keys are numbered).
    pub partition: usize,
    /// That partition's key, in its `Debug` form.
    pub key: String,
    /// The longest sequence of operations the model accepted in an order that respects
    /// real time.
    pub longest_prefix: Vec<OpId>,
    /// After that prefix, the returned operation that must come next in real time
    /// (the earliest response among those not placed) and that the model rejects there.
    pub unplaced: OpId,
}

/// The verdict of a linearizability check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Linearization {
    /// Some sequential order of the operations, respecting real time, is accepted by the
    /// model: this one (partitions one after another; pending operations only where they
    /// took effect).
    Linearizable(Vec<OpId>),
    /// No such order exists.
    NonLinearizable(NonLinearizable),
    /// The budget ran out before the search decided.
    Unknown {
        /// Which limit was reached.
        why: Exhausted,
        /// The states visited.
        states: u64,
    },
}

impl Linearization {
    /// Whether the history was shown linearizable.
    pub fn is_linearizable(&self) -> bool {
        matches!(self, Linearization::Linearizable(_))
    }
}
