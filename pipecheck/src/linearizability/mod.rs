//! Linearizability: is a concurrent history equivalent to some sequential order of its
//! operations that respects real time (under loom: program order and spawn/join, see
//! [`Recorder`] and [`Precedence`])?
//!
//! * a [`SequentialModel`] is the sequential specification (porcupine's model; its docs
//!   state the rule for blocking operations, as for dual data structures); a
//!   [`DeterministicModel`] is one written as a single `run` function, over operation
//!   and output types that [`operations!`](crate::operations) declares from one list;
//! * a [`History`] lists each thread's operations with invocation and response stamps,
//!   recorded by a [`Recorder`] under any engine, written by hand, or read from a
//!   stream of call and return [`Event`]s; its precedence is real time (from the
//!   stamps) or causal (program order plus explicit happens-before edges, for weak
//!   memory), and each pending operation has a [`PendingPolicy`];
//! * [`check`] runs Wing & Gong's search with Lowe's memoization, per partition
//!   (P-compositionality, partitions searched concurrently), within a [`Budget`] of
//!   states, bytes and time, and answers a [`Linearization`]: linearizable, not (with
//!   the longest linearizable prefix and the operation it could not place), or unknown;
//!   [`check_report`] adds statistics per partition;
//! * [`explain`] prints a failure as a per-thread timeline, [`html::render`] draws it
//!   as a self-contained page, and [`ensure_linearizable`] raises it as a
//!   `linearizable` [`Violation`](crate::Violation);
//! * [`foreign`] reads porcupine's two history formats and simulates such logs;
//! * [`corpus`] holds histories whose verdicts are known, which the campaign checks
//!   every time so that a checker made more lenient or stricter cannot pass unseen
//!   ([`faults`] plants such checkers);
//! * an [`OpsSpec`] adds the real object and its generated operations to a model:
//!   [`check_sequences`] runs proptest sequences on one thread, and
//!   [`concurrent_execution`] / [`shrink_concurrent`] run generated 2–3-thread
//!   scenarios under any engine, checked for linearizability and shrunk.

mod allowance;
mod check;
mod concurrent;
mod deterministic;
mod ensure;
mod events;
mod history;
mod model;
mod operations;
mod ops_log;
mod ops_spec;
mod outcome;
mod partition;
mod racing;
mod recorder;
mod search;
mod seeded;
mod sequences;
mod stats;
mod timeline;
mod visited;

pub mod corpus;
pub mod faults;
pub mod foreign;
pub mod html;

pub use check::{check, check_report};

/// What `linearizable` states, as reports print it beside the id
/// ([`InvariantId::LINEARIZABLE`](pipecheck_sync::InvariantId::LINEARIZABLE)).
pub const STATEMENT: &str = "every recorded concurrent history fits a sequential order of its operations that keeps every precedence the run established (real time; under loom, happens-before)";
pub use concurrent::{
    ConcurrentConfig, ConcurrentFailure, ConcurrentShape, concurrent_execution, concurrent_scenarios,
    fixed_scenarios, run_concurrent, run_concurrent_logged, run_monitored, shrink_concurrent,
};
pub use deterministic::DeterministicModel;
pub use ensure::{HTML_DIR_VAR, ensure_linearizable};
pub use events::{Event, EventError};
pub use history::{History, HistoryError, OpId, Operation, PendingPolicy, Precedence};
pub use model::SequentialModel;
pub use ops_log::OpsLog;
pub use ops_spec::{Ends, OpsSpec, shared};
pub use outcome::{Budget, Exhausted, Linearization, NonLinearizable};
pub use recorder::{Invoked, Recorder, ThreadLog};
pub use sequences::{SequenceConfig, SequenceMismatch, SequencesPassed, check_sequences};
pub use stats::{CheckReport, PartitionStats, PartitionVerdict};
pub use timeline::{explain, timeline};
