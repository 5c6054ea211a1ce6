//! # mpmc-queue — a multi-producer multi-consumer queue verified by pipecheck
//!
//! [`Queue`]: Dmitry Vyukov's bounded lock-free MPMC queue on pipecheck's sync facade,
//! verified as a pipecheck [`Target`](pipecheck::Target) ([`queue_check`]) with four
//! planted bugs, against a specification that states what the queue really promises:
//! FIFO, no value lost or duplicated, and "empty" or "full" answers that only an
//! operation in flight justifies ([`PendingAware`](pipecheck::linearizability::PendingAware)).
//!
//! See `README.md` next to this crate.

mod queue;
pub mod queue_check;

pub use queue::Queue;
