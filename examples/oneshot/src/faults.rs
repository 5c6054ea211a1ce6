//! The channel's planted bugs, declared with [`planted_faults!`](pipecheck::planted_faults):
//! each names the invariant whose checker must catch it and the scenarios that do, and
//! the channel asks [`PlantedFault::is_active`](pipecheck::PlantedFault::is_active)
//! where the bug is planted.

use pipecheck::InvariantId;
use pipecheck::{LARGE_SCENARIO, SMALL_SCENARIO};

use crate::invariants::{DELIVERY, WAKE};

pipecheck::planted_faults! {
    /// The receiver registers its waker and returns `Pending` without checking `complete`
    /// again: a sender that completed in between found no waker, and nobody will ever
    /// wake the receiver (a lost wake-up). Breaks **oneshot-wake**.
    SkipRecheck breaks WAKE, caught_in(&["send-races-recv", "drop-races-recv", "many-rounds"]);
    /// `send` marks the channel complete (and wakes the receiver) before the value is in
    /// its slot: a receiver polling in between finds it complete and empty, and is told
    /// `Canceled` although the send succeeds. Breaks **oneshot-delivery**.
    CompleteBeforeValue breaks DELIVERY, caught_in(&["send-races-recv", "many-rounds"]);
    /// `send` ignores that the receiver is gone: it stores the value and returns `Ok`,
    /// although nobody can ever receive it (the value is lost, reported delivered). No
    /// event scenario drops the receiver; only the sequential model sees it: after the
    /// receiver is dropped a send must hand its value back. Breaks **linearizable**.
    SendIgnoresClosedReceiver breaks InvariantId::LINEARIZABLE, caught_in(&[SMALL_SCENARIO, LARGE_SCENARIO]);
}
