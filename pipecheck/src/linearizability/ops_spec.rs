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
use std::sync::Arc;

use proptest::collection::vec;
use proptest::strategy::{BoxedStrategy, Strategy};

use super::model::SequentialModel;

/// A sequential model, the real object it specifies, and how to generate and apply
/// operations to it through each thread's handle.
///
/// The real object is built on pipecheck's sync facade (`pipecheck`),
/// so the same spec runs on `std` threads, under loom and under shuttle. A planted
/// fault is read by the real code itself, as usual
/// ([`PlantedFault::is_active`](crate::PlantedFault::is_active)).
///
/// # Examples
///
/// A counter whose `add` returns the total, checked on sequences of adds:
///
// Under loom and shuttle the facade only works inside a model: compile only.
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// use std::sync::Arc;
///
/// use pipecheck::sync::atomic::{AtomicU64, Ordering};
/// use pipecheck::linearizability::{DeterministicModel, OpsSpec, SequenceConfig, check_sequences, shared};
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
///     fn run(&self, total: &mut u64, add: &u64) -> u64 { *total += add; *total }
/// }
///
/// impl OpsSpec for Counter {
///     type Handle = Arc<AtomicU64>; // every thread shares the one counter
///     fn handles(&self, threads: usize) -> Vec<Arc<AtomicU64>> { shared(AtomicU64::new(0), threads) }
///     fn apply(&self, real: &mut Arc<AtomicU64>, add: &u64) -> u64 {
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
/// * Each thread of a run owns its [`Handle`](OpsSpec::Handle) and
///   [`apply`](OpsSpec::apply) gets it `&mut`: a spec whose operations run on any thread
///   shares one object (`Arc<T>` from [`shared`], as above); a spec with [roles](OpsSpec::role) gives
///   each role's thread its own end, with no lock around it ([`Ends`] for two roles).
///   Synchronization a handle adds is synchronization the checked code gets for free.
/// * [`enabled`](OpsSpec::enabled) must be `true` wherever the operation returns
///   without another thread's help, and [`deadlock_free`](OpsSpec::deadlock_free) must
///   reject every split that can block forever on a correct implementation; both are
///   checked by running: a wrong rule shows up as a hang (one thread) or as a deadlock
///   the engine reports (several).
pub trait OpsSpec:
    SequentialModel<Input: Send + Sync + 'static, Output: Send + 'static> + Clone + Debug + Send + Sync + 'static
{
    /// One thread's access to the real object: the object itself shared (`Arc<T>`) when
    /// operations run on any thread, or one role's own end (see [`role`](OpsSpec::role)).
    type Handle: Send + 'static;

    /// Handles to a fresh real object, in the state [`init`](SequentialModel::init)
    /// describes, for a run of `threads` threads: thread `i` gets the `i`-th. Without
    /// roles, `threads` clones of one shared object ([`shared`]); with roles, one handle per role
    /// whatever `threads` (thread `role` gets the `role`-th; a thread past the last
    /// handle must have no operations). A single-thread sequence asks for one handle and
    /// applies each operation to its role's handle.
    fn handles(&self, threads: usize) -> Vec<Self::Handle>;

    /// Runs `input` through `handle` and returns what it returned (it may block, e.g.
    /// through `pipecheck::future::block_on`).
    fn apply(&self, handle: &mut Self::Handle, input: &Self::Input) -> Self::Output;

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
    /// role's operations on thread `role`, in program order, through that thread's own
    /// [handle](OpsSpec::handles) with no lock around it (a lock would add the
    /// synchronization the check is looking for).
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

/// The handle of one thread of a spec with two [roles](OpsSpec::role), such as a
/// single-producer single-consumer queue's producer (role 0) and consumer (role 1).
///
/// # Examples
///
/// ```
/// use pipecheck::linearizability::Ends;
///
/// let ends: Vec<Ends<&str, u8>> = Ends::pair(("producer", 1));
/// assert!(matches!(ends[..], [Ends::First("producer"), Ends::Second(1)]));
/// ```
#[derive(Debug)]
pub enum Ends<A, B> {
    /// Role 0's end (thread 0).
    First(A),
    /// Role 1's end (thread 1).
    Second(B),
}

impl<A, B> Ends<A, B> {
    /// The two ends of one object as [`OpsSpec::handles`] returns them: `[First, Second]`.
    pub fn pair((first, second): (A, B)) -> Vec<Ends<A, B>> {
        vec![Ends::First(first), Ends::Second(second)]
    }
}

/// `threads` handles to one shared `object`, as [`OpsSpec::handles`] returns them for a
/// spec whose operations run on any thread.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
///
/// let handles = pipecheck::linearizability::shared(7u8, 3);
/// assert_eq!(handles.len(), 3);
/// assert!(Arc::ptr_eq(&handles[0], &handles[2]));
/// ```
pub fn shared<T>(object: T, threads: usize) -> Vec<Arc<T>> {
    let object = Arc::new(object);
    vec![object; threads]
}
