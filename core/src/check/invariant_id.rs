//! [`InvariantId`]: the name of an invariant, as a type.
//!
//! A planted bug names the invariant it breaks ([`PlantedFault::breaks`](crate::PlantedFault::breaks)),
//! a checker names the invariant it checks, and a verdict names the invariant that
//! broke: all three are this type, so they compare as values, never as text.
//!
//! The set is open: the constants below are the invariants pipecheck itself checks,
//! and [`InvariantId::new`] names another one (a checker of a user's own code).

use std::collections::BTreeSet;
use std::fmt;
use std::sync::{Mutex, PoisonError};

/// The stable name of an invariant, e.g. `fifo-pool`.
///
/// # Examples
///
/// ```
/// use pipecheck_core::{InvariantId, fault};
///
/// assert_eq!(fault::LifoPool.breaks(), InvariantId::FIFO_POOL);
/// assert_eq!(InvariantId::FIFO_POOL.to_string(), "fifo-pool");
/// assert_eq!(InvariantId::intern("fifo-pool"), InvariantId::FIFO_POOL);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InvariantId(&'static str);

impl InvariantId {
    /// A segment is never in the pool twice, never returned while linked or being written.
    pub const NO_DOUBLE_RETURN: InvariantId = InvariantId("no-double-return");
    /// Segments are reused in the order they were returned.
    pub const FIFO_POOL: InvariantId = InvariantId("fifo-pool");
    /// The pool never holds more than its maximum.
    pub const BOUNDED_POOL: InvariantId = InvariantId("bounded-pool");
    /// Every waiting side is woken; a lost wakeup is a deadlock.
    pub const NO_LOST_WAKEUP: InvariantId = InvariantId("no-lost-wakeup");
    /// Every committed byte is read exactly once, in order.
    pub const BYTE_EXACT: InvariantId = InvariantId("byte-exact");
    /// Reader and writer never touch the same bytes at once.
    pub const NO_DATA_RACE: InvariantId = InvariantId("no-data-race");
    /// Every rented buffer is returned exactly once.
    pub const RELEASE_ONCE: InvariantId = InvariantId("release-once");
    /// Flush waits above the pause threshold and resumes below the resume threshold.
    pub const BACKPRESSURE: InvariantId = InvariantId("backpressure");
    /// Stream offsets and positions only move forward.
    pub const MONOTONIC_OFFSETS: InvariantId = InvariantId("monotonic-offsets");
    /// The async mutex admits one holder at a time.
    pub const MUTUAL_EXCLUSION: InvariantId = InvariantId("mutual-exclusion");
    /// A reusable completion source rejects stale tokens and double results.
    pub const TOKEN_REUSE: InvariantId = InvariantId("token-reuse");
    /// A partitioned pool's rents and returns balance.
    pub const BALANCED_POOL: InvariantId = InvariantId("balanced-pool");
    /// `tentative-cancel`: a canceled read needs no `advance_to` before the next read.
    pub const TENTATIVE_CANCEL: InvariantId = InvariantId("tentative-cancel");
    /// `bounded-after-reader-complete`: writes after the reader completed hold at most
    /// one segment.
    pub const BOUNDED_AFTER_READER_COMPLETE: InvariantId = InvariantId("bounded-after-reader-complete");
    /// `failure-cause`: a side completed with an error hands the other side that error.
    pub const FAILURE_CAUSE: InvariantId = InvariantId("failure-cause");
    /// `segments-in-use`: segments in use never exceed what the unconsumed bytes need
    /// plus the write head; a fully consumed segment (and the idle head, once everything
    /// is consumed) goes back in the same `advance_to`.
    pub const SEGMENTS_IN_USE: InvariantId = InvariantId("segments-in-use");
    /// `buffered-length`: the length the reader sees is committed − examined bytes.
    pub const BUFFERED_LENGTH: InvariantId = InvariantId("buffered-length");
    /// `cancel-observed`: a canceled read (or flush) is reported, by the pending read
    /// (flush) or the next.
    pub const CANCEL_OBSERVED: InvariantId = InvariantId("cancel-observed");
    /// `linearizable`: every recorded concurrent history is equivalent to some sequential
    /// order of its operations that respects real time and that the object's sequential
    /// model accepts.
    pub const LINEARIZABLE: InvariantId = InvariantId("linearizable");
    /// `progress`: every execution ends within the checker's step bound; no thread
    /// keeps running in a loop that waits for something that never comes (a livelock).
    pub const PROGRESS: InvariantId = InvariantId("progress");

    /// Names an invariant.
    pub const fn new(name: &'static str) -> InvariantId {
        InvariantId(name)
    }

    /// The id called `name`, for names read at run time (a trace header, a worker's
    /// result). Each distinct name is stored once for the life of the process.
    pub fn intern(name: &str) -> InvariantId {
        static NAMES: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
        let mut names = NAMES.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(&known) = names.get(name) {
            return InvariantId(known);
        }
        let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
        names.insert(leaked);
        InvariantId(leaked)
    }

    /// The stable name.
    pub const fn name(self) -> &'static str {
        self.0
    }
}

impl fmt::Display for InvariantId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl fmt::Debug for InvariantId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "InvariantId({})", self.0)
    }
}
