//! # pipecheck-properties
//!
//! The invariants of the pipe, as code that every engine shares:
//!
//! * an [`Invariant`] is a small type with a name, a one-line statement, and a check
//!   over the [`Observation`]s of a run (pipe events plus what the scenario did);
//! * the [`registry`] lists them all; a [`Monitor`] runs the whole registry online,
//!   as a run happens, and panics with the invariant's name at the first violation —
//!   which is how loom, shuttle and proptest report it.
//!
//! Operation sequences check the pipe against a plain model: an [`Op`] sequence (from
//! proptest, a fuzzer, or split across two threads under shuttle) is applied to a real
//! pipe by the [`Driver`] and to the [`ReferenceModel`], whose results must match
//! exactly, while the monitor checks every invariant ([`machine`] has the
//! proptest-state-machine glue).
//!
//! Adding an invariant takes one small file in `src/invariants/` and one line in
//! [`registry`]; see README's "Add a new invariant".

pub mod checked;
pub mod driver;
mod hunt;
mod invariant;
pub mod invariants;
pub mod machine;
mod monitor;
mod observation;
pub mod ops;
mod outcome;
mod reference;
mod registry;

pub use checked::{CheckedReader, CheckedWriter, ReadOutcome, checked_pipe};
pub use driver::{Driver, check_sequence};
pub use hunt::{HUNT_SEQUENCE_LENGTH, Hunt, HuntFailure, PIPE_FAULTS, hunt, panic_message};
pub use invariant::{Invariant, Violation};
pub use machine::{PipeMachine, PipeTest};
pub use monitor::{CheckConfig, Entry, Monitor};
pub use observation::{Observation, Side};
pub use ops::{Op, Pos, SequenceFailure};
pub use outcome::{Outcome, ReadSummary, Step, Woken};
pub use reference::ReferenceModel;
pub use registry::{INVARIANT_NAMES, registry};

/// README's Rust examples, compiled and run as doctests (not under loom or shuttle: their
/// sync primitives only work inside a model or a shuttle test, and the examples build
/// pipes outside one).
#[cfg(all(doctest, not(any(feature = "loom", feature = "shuttle"))))]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
