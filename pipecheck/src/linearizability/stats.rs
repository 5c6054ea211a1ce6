//! [`CheckReport`]: a verdict with what the search did to reach it.

use std::time::Duration;

use super::history::OpId;
use super::outcome::Linearization;
use super::overlap::RelaxedAnswer;

/// How one partition's search ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartitionVerdict {
    /// A linearization was found.
    Linearizable,
    /// None exists.
    NonLinearizable,
    /// Stopped undecided: the budget ran out, or another partition failed first.
    Undecided,
}

/// What the search of one partition did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartitionStats {
    /// The partition's key, in its `Debug` form.
    pub key: String,
    /// Its operations (those that may have taken effect).
    pub ops: usize,
    /// Configurations (linearized set, model state) explored.
    pub states: u64,
    /// Configurations reached again and pruned by the cache.
    pub cache_hits: u64,
    /// Time its search ran (on whichever thread).
    pub elapsed: Duration,
    /// How it ended.
    pub verdict: PartitionVerdict,
}

/// A verdict and its statistics, from [`check_report`](super::check_report).
///
/// # Examples
///
/// ```
/// use pipecheck::linearizability::{Budget, History, SequentialModel, check_report};
///
/// #[derive(Debug)]
/// struct Anything;
/// impl SequentialModel for Anything {
///     type State = ();
///     type Input = ();
///     type Output = ();
///     fn init(&self) {}
///     fn step(&self, _: &(), _: &(), _: &()) -> Option<()> { Some(()) }
/// }
///
/// let mut history = History::new();
/// history.complete(0, (), (), 0, 10);
/// history.complete(1, (), (), 5, 15);
/// let report = check_report(&Anything, &history, Budget::default()).unwrap();
/// assert!(report.verdict.is_linearizable());
/// assert_eq!(report.partitions.len(), 1);
/// assert!(report.states() >= 2);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckReport {
    /// The verdict.
    pub verdict: Linearization,
    /// Per partition, in the order of their first operation.
    pub partitions: Vec<PartitionStats>,
    /// Wall-clock time of the whole check.
    pub elapsed: Duration,
    /// Peak bytes held by the visited sets (what [`Budget::max_bytes`](super::Budget::max_bytes) bounds).
    pub peak_bytes: u64,
    /// For a non-linearizable history: the failing partition's partial linearizations
    /// that could not be extended, longest first, one per last operation (where every
    /// attempt failed). Empty otherwise.
    pub dead_ends: Vec<Vec<OpId>>,
    /// For a linearizable history checked under
    /// [`Criterion::PendingAware`](super::Criterion::PendingAware): the relaxed answers
    /// its linearization needs, by operation. Empty otherwise.
    pub relaxed: Vec<RelaxedAnswer>,
}

impl CheckReport {
    /// Configurations explored, over all partitions.
    pub fn states(&self) -> u64 {
        self.partitions.iter().map(|partition| partition.states).sum()
    }

    /// Cache hits, over all partitions.
    pub fn cache_hits(&self) -> u64 {
        self.partitions.iter().map(|partition| partition.cache_hits).sum()
    }
}
