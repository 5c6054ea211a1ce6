//! What a checked run of the channel reports: the channel's own internal events, and
//! the facts the scenario driving it records.

/// One event of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OneshotEvent {
    /// The scenario made a new channel: what follows is about it (scenarios use one
    /// channel at a time).
    NewChannel,
    /// The scenario is about to send this value.
    Sending(u64),
    /// `send` returned: `Ok` (`true`) or the value back (`false`).
    SendReturned {
        /// `send` returned `Ok`.
        ok: bool,
    },
    /// The channel: the sender completed (sent or dropped), waking a registered
    /// receiver if it found one.
    Completed {
        /// A receiver's waker was registered, and woken.
        woke: bool,
    },
    /// The channel: the receiver returned `Pending` with its waker registered.
    Parked,
    /// The receiver resolved to this value.
    Received(u64),
    /// The receiver resolved to `Canceled`.
    Canceled,
}

/// Receives a channel's internal events (`Completed`, `Parked`), e.g. a checker's
/// monitor. A channel built with [`channel`](crate::channel) has none.
pub trait OneshotObserver: Send + Sync {
    /// Called as the event happens, from the task that caused it.
    fn on_event(&self, event: OneshotEvent);
}
