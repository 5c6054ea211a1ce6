//! [`InvariantId`]: the name of an invariant, as a type.
//!
//! A planted bug names the invariant it breaks ([`PlantedFault::breaks`](crate::PlantedFault::breaks)),
//! a checker names the invariant it checks, and a verdict names the invariant that
//! broke: all three are this type, so they compare as values, never as text.
//!
//! The set is open: the constants below are the invariants the engines themselves
//! report (a deadlock is `no-lost-wakeup`, a loom race `no-data-race`, a livelock
//! `progress`, a failed history check `linearizable`), and [`InvariantId::new`] names
//! any other (a target's own checker).

use std::collections::BTreeSet;
use std::fmt;
use std::sync::{Mutex, PoisonError};

/// The stable name of an invariant, e.g. `no-lost-wakeup`.
///
/// # Examples
///
/// ```
/// use pipecheck_sync::InvariantId;
///
/// const FIFO: InvariantId = InvariantId::new("fifo-order");
/// assert_eq!(FIFO.to_string(), "fifo-order");
/// assert_eq!(InvariantId::intern("fifo-order"), FIFO);
/// assert_eq!(InvariantId::NO_LOST_WAKEUP.name(), "no-lost-wakeup");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InvariantId(&'static str);

impl InvariantId {
    /// Every waiting side is woken; a lost wakeup is a deadlock.
    pub const NO_LOST_WAKEUP: InvariantId = InvariantId("no-lost-wakeup");
    /// Reader and writer never touch the same bytes at once.
    pub const NO_DATA_RACE: InvariantId = InvariantId("no-data-race");
    /// `linearizable`: every recorded concurrent history is equivalent to some sequential
    /// order of its operations that respects real time and that the object's sequential
    /// model accepts.
    pub const LINEARIZABLE: InvariantId = InvariantId("linearizable");
    /// `progress`: every execution ends within the checker's step bound; no thread
    /// keeps running in a loop that waits for something that never comes (a livelock).
    pub const PROGRESS: InvariantId = InvariantId("progress");
    /// `no-panic`: no execution panics outside a checker (an assertion of the checked
    /// code, an index out of bounds, an `unwrap` of a `None`): a bug whose symptom is a
    /// panic is declared as breaking it.
    pub const NO_PANIC: InvariantId = InvariantId("no-panic");

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
