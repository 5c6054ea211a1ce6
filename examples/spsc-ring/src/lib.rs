//! # spsc-ring — weak-memory examples verified by pipecheck
//!
//! Two lock-free structures on pipecheck's sync facade, each verified as a pipecheck
//! [`Target`](pipecheck::Target) with planted bugs, at least one of which
//! only a weak-memory checker (loom) can see:
//!
//! * [`ring`]: a bounded single-producer single-consumer ring ([`ring_check`] verifies it);
//! * [`stack`]: a Treiber stack over a fixed node arena, its head tagged against ABA
//!   ([`stack_check`] verifies it).
//!
//! See `README.md` next to this crate.

mod ring;
pub mod ring_check;
pub mod stack;
pub mod stack_check;

pub use ring::{Consumer, PopError, Producer, PushError, ring};
