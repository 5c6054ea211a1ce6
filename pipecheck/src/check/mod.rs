//! Invariants and verdicts, whatever the checked code: an [`Invariant<E>`](Invariant)
//! over a target's own events (or an [`FnInvariant`]: a state and a function), run
//! online by an [`EventMonitor<E>`]; an [`Engine`] runs executions (loom, shuttle,
//! plain [`Threads`]) and concludes a [`Verdict`]; [`classify`] turns a panic payload
//! into its [`FailureKind`], in one place.

pub(crate) mod engine;
mod event_monitor;
mod fifo_invariant;
mod fn_invariant;
mod invariant;
pub(crate) mod panic_hook;
mod producer_order;
mod proptest_support;
mod run_log;
mod verdict;

pub use engine::{Checked, Engine, Execution, Threads};
pub use event_monitor::{Boundary, EventMonitor, Restart, Shown};
pub use fifo_invariant::{FIFO_STATEMENT, FifoInvariant, Queued};
pub use fn_invariant::{FnInvariant, Invariants};
pub use invariant::{Invariant, ensure, first_violation};
pub use panic_hook::Capture;
pub(crate) use pipecheck_sync::Violation;
pub use producer_order::{PRODUCER_ORDER_STATEMENT, ProducerOrder, Routed};
pub use proptest_support::{Regressions, Reported, reported};
pub use run_log::{Row, RunLog};
pub use verdict::{
    ENGINE_NAMED, FailureKind, LIVELOCK_WAITS, ModelMismatch, Verdict, classify, first_line, livelock,
    panic_message,
};
