//! # oneshot — pipecheck's worked example
//!
//! A one-shot channel with a waker ([`channel`]), written on pipecheck's sync facade
//! and verified as a pipecheck [`Target`](pipecheck_models::target::Target) from
//! outside pipecheck's own crates: its own events ([`OneshotEvent`]), two invariants
//! over them ([`invariants`]), two planted faults ([`faults`]: a lost wake-up and an
//! ordering bug), and scenarios that loom and shuttle run ([`scenarios::target`]).
//! See `README.md` next to this crate for the walkthrough.

mod channel;
pub mod events;
pub mod faults;
pub mod invariants;
pub mod scenarios;

pub use channel::{Canceled, Receiver, Sender, channel, channel_observed};
pub use events::{OneshotEvent, OneshotObserver};
pub use scenarios::target;
