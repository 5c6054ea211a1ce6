//! The channel's planted bugs, declared as pipecheck [`PlantedFault`]s: each names the
//! invariant whose checker must catch it, and the channel asks
//! [`PlantedFault::is_active`] where the bug is planted.

use pipecheck_core::{InvariantId, PlantedFault};
use pipecheck_models::{LARGE_SCENARIO, SMALL_SCENARIO};

use crate::invariants::{DELIVERY, WAKE};

/// The receiver registers its waker and returns `Pending` without checking `complete`
/// again: a sender that completed in between found no waker, and nobody will ever
/// wake the receiver (a lost wake-up). Breaks **oneshot-wake**.
pub static SKIP_RECHECK: PlantedFault = PlantedFault::new(
    "SkipRecheck",
    WAKE,
    "the receiver parks without re-checking `complete` after registering its waker",
)
.caught_in(&["send-races-recv", "drop-races-recv", "many-rounds"]);

/// `send` marks the channel complete (and wakes the receiver) before the value is in
/// its slot: a receiver polling in between finds it complete and empty, and is told
/// `Canceled` although the send succeeds. Breaks **oneshot-delivery**.
pub static COMPLETE_BEFORE_VALUE: PlantedFault =
    PlantedFault::new("CompleteBeforeValue", DELIVERY, "send publishes completion before storing the value")
        .caught_in(&["send-races-recv", "many-rounds"]);

/// `send` ignores that the receiver is gone: it stores the value and returns `Ok`,
/// although nobody can ever receive it (the value is lost, reported delivered). No
/// event scenario drops the receiver; only the sequential model sees it: after the
/// receiver is dropped a send must hand its value back. Breaks **linearizable**.
pub static SEND_IGNORES_CLOSED: PlantedFault = PlantedFault::new(
    "SendIgnoresClosedReceiver",
    InvariantId::LINEARIZABLE,
    "send returns Ok after the receiver was dropped, losing the value",
)
.caught_in(&[SMALL_SCENARIO, LARGE_SCENARIO]);
