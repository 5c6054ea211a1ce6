//! [`OpsSpec`]: a [`SequentialModel`] together with the real object it specifies, so
//! that pipecheck can generate operations, run them on the real thing, and check the
//! results — one thread at a time ([`check_sequences`](super::check_sequences)) or split
//! across 2–3 threads under loom or shuttle ([`concurrent_execution`](super::concurrent_execution),
//! [`shrink_concurrent`](super::shrink_concurrent)).
//!
//! ## Blocking operations
//!
//! An operation may block on the real object (a receive on an empty channel, a lock
//! while it is held). Two rules keep the generated runs from waiting forever on a
//! *correct* implementation:
//!
//! * **one thread**: [`OpsSpec::enabled`] says whether an operation can complete in a
//!   model state; a sequence skips the operations that are not enabled where they come
//!   (nothing else could ever enable them on that one thread);
//! * **several threads**: [`OpsSpec::deadlock_free`] says whether a generated split can
//!   block forever in some schedule; the splits it rejects are never run (nor kept while
//!   shrinking). A spec whose operations never block keeps the default (`true`). A spec
//!   with blocking operations states its rule there, typically "some thread reaches an
//!   operation that enables every blocked one before any operation that may block",
//!   and can shape each thread's operations with [`OpsSpec::thread_ops`] (e.g. every
//!   acquire followed by its release).
//!
//! With a planted fault, a generated run may still deadlock: that is a finding (a lost
//! wake-up), which loom and shuttle report as such.

use std::fmt::Debug;

use proptest::collection::vec;
use proptest::strategy::{BoxedStrategy, Strategy};

use super::model::SequentialModel;

/// A sequential model, the real object it specifies, and how to generate and apply
/// operations to it.
///
/// The real object is built on pipecheck's sync facade (`pipecheck_core::primitive`),
/// so the same spec runs on `std` threads, under loom and under shuttle. A planted
/// fault is read by the real code itself, as usual
/// ([`PlantedFault::is_active`](pipecheck_core::PlantedFault::is_active)).
///
/// # Examples
///
/// A counter whose `add` returns the total, checked on sequences of adds:
///
// Under loom and shuttle the facade only works inside a model: compile only.
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// use pipecheck_core::primitive::sync::atomic::{AtomicU64, Ordering};
/// use pipecheck_properties::linearizability::{DeterministicModel, OpsSpec, SequenceConfig, check_sequences};
/// use proptest::prelude::*;
///
/// #[derive(Clone, Debug)]
/// struct Counter;
///
/// impl DeterministicModel for Counter {
///     type State = u64;
///     type Input = u64; // add this much
///     type Output = u64; // the total after the add
///     fn initial(&self) -> u64 { 0 }
///     fn run(&self, total: &u64, add: &u64) -> (u64, u64) { (total + add, total + add) }
/// }
///
/// impl OpsSpec for Counter {
///     type Real = AtomicU64;
///     fn build(&self) -> AtomicU64 { AtomicU64::new(0) }
///     fn apply(&self, real: &AtomicU64, add: &u64) -> u64 {
///         real.fetch_add(*add, Ordering::SeqCst) + add
///     }
///     fn inputs(&self) -> BoxedStrategy<u64> { (0..10u64).boxed() }
/// }
///
/// check_sequences(&Counter, &SequenceConfig { cases: 16, ..SequenceConfig::default() }).unwrap();
/// ```
///
/// # Implementer notes
///
/// * [`apply`](OpsSpec::apply) runs exactly one operation, and its output is what
///   [`step`](SequentialModel::step) checks: report errors as outputs
///   (`Err(value)` back from a send), so that they are compared too.
/// * [`apply`](OpsSpec::apply) is called from several threads on one shared real
///   object: synchronization it adds (e.g. a lock around a handle it takes out) is
///   synchronization the checked code gets for free, so keep it to handing out handles.
/// * [`enabled`](OpsSpec::enabled) must be `true` wherever the operation returns
///   without another thread's help, and [`deadlock_free`](OpsSpec::deadlock_free) must
///   reject every split that can block forever on a correct implementation; both are
///   checked by running: a wrong rule shows up as a hang (one thread) or as a deadlock
///   the engine reports (several).
pub trait OpsSpec:
    SequentialModel<Input: Send + Sync + 'static, Output: Send + 'static> + Clone + Debug + Send + Sync + 'static
{
    /// The real object under test, shared by the threads of a concurrent run.
    type Real: Send + Sync + 'static;

    /// A fresh real object, in the state [`init`](SequentialModel::init) describes.
    fn build(&self) -> Self::Real;

    /// Runs `input` on `real` and returns what it returned (it may block, e.g. through
    /// `pipecheck_core::primitive::future::block_on`).
    fn apply(&self, real: &Self::Real, input: &Self::Input) -> Self::Output;

    /// The generated operations (shrinking towards the simplest).
    fn inputs(&self) -> BoxedStrategy<Self::Input>;

    /// Whether `input` completes on one thread in `state` (the default: always). A
    /// single-thread sequence skips an operation that is not enabled where it comes.
    fn enabled(&self, state: &Self::State, input: &Self::Input) -> bool {
        let _ = (state, input);
        true
    }

    /// One thread's operations in a concurrent run, at most `max_ops` of them (the
    /// default: 1 to `max_ops` of [`inputs`](OpsSpec::inputs)).
    fn thread_ops(&self, max_ops: usize) -> BoxedStrategy<Vec<Self::Input>> {
        vec(self.inputs(), 1..=max_ops.max(1)).boxed()
    }

    /// The thread an operation must run on in a concurrent run, when it has one (the
    /// default: `None`, any thread). A structure whose types allow one caller per side,
    /// such as a single-producer single-consumer queue, gives its producer operations
    /// one role and its consumer operations another: generated scenarios then run each
    /// role's operations on thread `role`, in program order, with no lock around the
    /// structure (a lock would add the synchronization the check is looking for).
    /// [`run_concurrent`](super::run_concurrent) refuses a split that breaks it.
    fn role(&self, input: &Self::Input) -> Option<usize> {
        let _ = input;
        None
    }

    /// Whether a correct implementation runs `threads` (one list of operations per
    /// thread) to completion in every schedule (the default: `true`, for specs whose
    /// operations never block). See the module docs.
    fn deadlock_free(&self, threads: &[Vec<Self::Input>]) -> bool {
        let _ = threads;
        true
    }
}
