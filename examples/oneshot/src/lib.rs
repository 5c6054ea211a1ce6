//! # oneshot — pipecheck's worked example
//!
//! A one-shot channel with a waker ([`channel`]), written on pipecheck's sync facade
//! and verified as a pipecheck [`Target`](pipecheck::Target) from
//! outside pipecheck's own crates: its own events ([`OneshotEvent`]), two invariants
//! over them ([`invariants`]), three planted faults ([`faults`]: a lost wake-up, an
//! ordering bug and a lost value), scenarios that loom and shuttle run
//! ([`scenarios::target`]), and a sequential model ([`model`]) with its pipecheck spec
//! ([`spec`]): proptest sequences and generated concurrent scenarios checked for
//! linearizability.
//! See `README.md` next to this crate for the walkthrough.

mod channel;
pub mod events;
pub mod faults;
pub mod invariants;
pub mod model;
pub mod scenarios;
pub mod spec;

pub use channel::{Canceled, Receiver, Sender, channel, channel_observed};
pub use events::{OneshotEvent, OneshotObserver};
pub use scenarios::target;
