//! # pipecheck-properties
//!
//! The invariants of the pipe, as code that every engine shares:
//!
//! * each invariant is a [`pipecheck::Invariant`] over the [`Observation`]s of a run
//!   (pipe events plus what the scenario did), named by an
//!   [`InvariantId`](pipecheck::InvariantId);
//! * the [`registry`] lists them all; a [`Monitor`] runs the whole registry online,
//!   as a run happens, and raises a typed [`Violation`](pipecheck::Violation) at the
//!   first one.
//!
//! Operation sequences check the pipe against a plain model: an [`Op`] sequence (from
//! proptest, a fuzzer, or split across two threads under shuttle) is applied to a real
//! pipe by the [`Driver`] and to the [`ReferenceModel`], whose results must match
//! exactly, while the monitor checks every invariant ([`machine`] has the
//! proptest-state-machine glue).
//!
// Under loom and shuttle the pipe's primitives only work inside a model: compile, do not run.
#![cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#![cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
//! use pipecheck_properties::{CheckConfig, Op, check_sequence};
//!
//! // Applied to a real pipe and to the reference model: the results must match, and
//! // every invariant is checked after each step and at the end of the run.
//! check_sequence(
//!     CheckConfig::default(),
//!     &[Op::GetMemory { size_hint: 4 }, Op::Advance { bytes: 4 }, Op::Flush, Op::Read],
//! );
//! ```
//!
//! Adding an invariant takes one small file in `src/invariants/` and one line in
//! [`registry`]; the whole checklist (planted bug, scenarios, corpus trace) is in the
//! README, "Add a new invariant as a property test".

pub mod checked;
pub mod driver;
mod hunt;
pub mod invariants;
pub mod linearizability;
pub mod machine;
mod monitor;
mod observation;
pub mod ops;
mod outcome;
mod reference;
mod registry;
mod run_log;

pub use checked::{
    CheckedReader, CheckedWriter, HeldRead, ReadOutcome, checked_pipe, checked_pipe_with, reset_checked,
};
pub use driver::{Driver, check_sequence};
pub use hunt::{HUNT_SEQUENCE_LENGTH, Hunt, HuntFailure, hunt, pipe_faults};
pub use machine::{PipeMachine, PipeTest};
pub use monitor::{CheckConfig, Entry, Monitor};
pub use observation::{Observation, Side};
pub use ops::{Op, Pos, SequenceFailure};
pub use outcome::{Outcome, ReadSummary, Step, Woken};
pub use reference::ReferenceModel;
pub use registry::{INVARIANT_IDS, registry, statements};
pub use run_log::describe;

/// docs/pipe.md's Rust examples, compiled and run as doctests like README's.
#[cfg(all(doctest, not(any(feature = "loom", feature = "shuttle"))))]
#[doc = include_str!("../../docs/pipe.md")]
struct PipeDocDoctests;
