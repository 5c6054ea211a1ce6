//! # pipecheck
//!
//! Concurrency verification for Rust. Write a structure once on pipecheck's sync facade
//! ([`sync`], [`cell`], [`thread`]: std's shapes, loom's API), declare what must hold
//! ([`Invariant`]), the bugs that must be caught ([`planted_faults!`]) and the runs that
//! exercise it ([`EventScenario`]) on a [`Target`]; then one command runs every
//! scenario under loom (every interleaving within a bound), shuttle (random and PCT
//! schedules) and plain threads, checks recorded histories for linearizability against
//! a sequential model ([`linearizability`]), and prints the kill matrix: each planted
//! bug caught, as the invariant it breaks, by an engine that can see it.
//!
//! A structure's library depends on [`pipecheck-sync`](pipecheck_sync) alone (the facade
//! and the planted-fault switch, re-exported here), so its users compile no checker and
//! its release build carries no planted bug.
//!
//! What a module that declares a target needs is in [`prelude`].

mod campaign;
mod check;
pub mod linearizability;
pub mod prelude;
mod target;
pub mod trace;

pub use pipecheck_sync::{
    BACKEND, InvariantId, PlantedFault, Violation, cell, future, hint, planted_faults, progress, record,
    seqcst, skip_locking_cleanup, sync, thread,
};

pub use campaign::{Campaign, verify_all};
pub use check::{
    Boundary, Capture, Checked, ENGINE_NAMED, Engine, EventMonitor, Execution, FIFO_STATEMENT, FailureKind,
    FifoInvariant, FnInvariant, Invariant, Invariants, LIVELOCK_WAITS, ModelMismatch,
    PRODUCER_ORDER_STATEMENT, ProducerOrder, Queued, Regressions, Reported, Restart, Routed, Row, RunLog,
    Shown, Threads, Verdict, classify, ensure, first_line, first_violation, livelock, panic_message,
    reported,
};
#[cfg(feature = "loom")]
pub use target::loom_harness;
pub use target::must_fail;
pub use target::{
    DEFAULT_LOOM_BOUND, EngineClass, EventScenario, GeneratedScenarios, LARGE_SCENARIO, Publish,
    SMALL_SCENARIO, Scale, Sequences, SequencesFailure, SequencesRun, TABLE_END, TABLE_START, Target,
    TargetError, TargetRun, TargetScenario, TestInvocation, find_target, invariants_table, verify,
    verify_target, with_table,
};

/// The engines: plain [`Threads`], and loom and shuttle behind their features.
pub mod engine {
    pub use crate::check::engine::*;
    #[cfg(feature = "loom")]
    pub use crate::target::engine::loom;
    #[cfg(feature = "shuttle")]
    pub use crate::target::engine::shuttle;
}
