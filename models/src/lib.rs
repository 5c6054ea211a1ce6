//! # pipecheck-models
//!
//! Concurrent scenarios of the pipe, each written once as a named body over the sync
//! facade, and run by every engine: loom (exhaustive, `cargo test --features loom`),
//! shuttle (randomized and PCT, `cargo test --features shuttle`), and plain threads.
//! Every run checks the whole invariant registry of `pipecheck-properties` through a
//! [`Monitor`](pipecheck_properties::Monitor).
//!
//! [`primitives`] holds the scenarios of the seed primitives next to the pipe (async
//! mutex, message channel, completion source, partitioned pool), which assert their
//! invariants directly.

#[cfg(feature = "loom")]
pub mod loom_harness;
pub mod primitives;
mod scenario;
pub mod scenarios;

pub use scenario::{Scale, Scenario};
pub use scenarios::{all, find};
