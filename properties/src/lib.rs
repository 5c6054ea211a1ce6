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
//! Adding an invariant takes one small file in `src/invariants/` and one line in
//! [`registry`]; see README's "Add a new invariant".

pub mod checked;
mod invariant;
pub mod invariants;
mod monitor;
mod observation;
mod registry;

pub use checked::{CheckedReader, CheckedWriter, ReadOutcome, checked_pipe};
pub use invariant::{Invariant, Violation};
pub use monitor::{CheckConfig, Entry, Monitor};
pub use observation::{Observation, Side};
pub use registry::{INVARIANT_NAMES, registry};

/// README's Rust examples, compiled and run as doctests (not under loom or shuttle: their
/// sync primitives only work inside a model or shuttle test, and the examples build pipes
/// outside one).
#[cfg(all(doctest, not(any(feature = "loom", feature = "shuttle"))))]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
