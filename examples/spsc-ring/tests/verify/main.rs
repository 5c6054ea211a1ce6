//! What the campaign binary's test (`verify_every_target`: both targets under every
//! engine) does not check: the stack's sequences at a capacity they fill, and the ring's
//! lost-at-close failure replayed with the sync facade's operations (shuttle).
#[cfg(feature = "shuttle")]
mod replay;
mod stack;
