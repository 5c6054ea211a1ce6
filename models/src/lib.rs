//! # pipecheck-models
//!
//! Concurrent scenarios of the pipe, each written once as a named body over the sync
//! facade, and run by every engine: loom (exhaustive, `cargo test --features loom`),
//! shuttle (randomized and PCT, `cargo test --features shuttle`), and plain threads.
//! Every run checks the whole invariant registry of `pipecheck-properties` through a
//! [`Monitor`](pipecheck_properties::Monitor).
//!
// Under loom and shuttle the facade's primitives only work inside a model: compile, do not run.
#![cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#![cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
//! use pipecheck::{Engine, Threads, Verdict};
//!
//! // A built-in scenario, run three times on plain threads under the whole registry.
//! let scenario = pipecheck_models::find("bytes-across-segments").expect("a built-in scenario");
//! let checked = Threads { runs: 3 }.check(scenario.execution(None));
//! assert_eq!(checked.verdict, Verdict::Pass);
//! ```
//!
//! [`primitives`] holds the scenarios of the seed primitives next to the pipe (async
//! mutex, message channel, completion source, partitioned pool), observed by the same
//! monitor. [`builtin`] declares the pipe and the primitives as
//! [`Target`](pipecheck::Target)s through pipecheck's public API, as any user crate does;
//! the `pipecheck` binary of this crate is their campaign (`cargo campaign`).

pub mod primitives;
mod scenario;
pub mod scenarios;

use pipecheck::InvariantId;

pub mod builtin;

pub use scenario::Scenario;
pub use scenarios::{all, find, sequential_model};

/// Every invariant a scenario checks, with its statement: the monitor's registry (the
/// seed primitives' invariants included).
pub fn invariants() -> Vec<(InvariantId, &'static str)> {
    pipecheck_properties::statements()
}
