//! What a module that declares a [`Target`] uses, in one import:
//! `use pipecheck::prelude::*;`.
//!
//! The target and its scenarios, invariant ids and planted faults, event invariants, a
//! sequential model with its [`OpsSpec`] (and the [`operations!`](crate::operations)
//! that declares its operation types), the proptest strategies an `OpsSpec` draws its
//! inputs from, and the facade's [`Arc`] and [`thread`] that a scenario shares and spawns
//! with (std's `Arc` would hide its reference counts from loom).
//!
//! ```
//! use pipecheck::prelude::*;
//!
//! const COUNTS: InvariantId = InvariantId::new("counts");
//! let counts = FnInvariant::new(COUNTS, "every event is 1", (), |_, event: &u32| {
//!     if *event == 1 { Ok(()) } else { Err(format!("{event}")) }
//! });
//! let inputs: BoxedStrategy<u32> = prop_oneof![Just(1u32), 2..4u32].boxed();
//! let target = Target::new("counter", "a counter")
//!     .checked(counts, &[EventScenario::small("one", "records 1", |m| m.record(1))]);
//! target.validate().unwrap();
//! # drop(inputs);
//! ```

pub use pipecheck_sync::sync::Arc;
pub use pipecheck_sync::{InvariantId, PlantedFault, planted_faults, thread};
pub use proptest::prelude::{BoxedStrategy, Just, Strategy, any, prop_oneof};

pub use crate::check::{
    EventMonitor, FifoInvariant, FnInvariant, Invariant, Invariants, ProducerOrder, Queued, Routed,
};
pub use crate::linearizability::{
    DeterministicModel, Ends, OpsSpec, PendingAware, Relaxed, SequentialModel, run_concurrent, run_monitored,
    shared,
};
pub use crate::{
    EventScenario, GeneratedScenarios, LARGE_SCENARIO, SMALL_SCENARIO, Scale, Target, operations,
};
