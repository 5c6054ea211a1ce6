//! [`Target`]s and the engines that run them: a target's scenarios run under loom (the
//! [`loom_harness`], feature `loom`), shuttle (`engine::shuttle`, feature `shuttle`) and
//! plain threads, each failure with the command that reproduces it.

pub(crate) mod engine;
pub(crate) mod invocation;
#[cfg(feature = "loom")]
pub mod loom_harness;
pub mod must_fail;
mod scale;
mod targets;
mod verify;

pub use invocation::TestInvocation;
pub use scale::Scale;
pub use targets::{
    DEFAULT_LOOM_BOUND, EngineClass, EventScenario, GeneratedScenarios, LARGE_SCENARIO, Publish,
    SMALL_SCENARIO, Sequences, SequencesFailure, SequencesRun, TABLE_END, TABLE_START, Target, TargetError,
    TargetRun, TargetScenario, find_target, invariants_table, with_table,
};
pub use verify::{verify, verify_target};
