//! [`MutexSpec`]: the async mutex as an [`OpsSpec`] — generated `lock`, `try_lock` and
//! unlock operations on a real [`AsyncMutex`], checked against [`MutexModel`].
//!
//! An unlock must drop a guard some earlier operation took, possibly on another
//! thread, so the real object keeps the current guard in a slot: `lock` and a
//! successful `try_lock` put it there, `Unlock` takes it out and drops it (and returns
//! `false` when the slot is empty: a no-op for the model). The mutex has no owned guard, so the slot's guard
//! borrows a mutex leaked for the run: one small allocation per execution.

use std::fmt;
use std::sync::Arc;

use pipecheck::future::block_on;
use pipecheck::sync::Mutex;
use pipecheck_pipe::{AsyncMutex, AsyncMutexGuard};
use proptest::collection::vec;
use proptest::prelude::{Just, prop_oneof};
use proptest::strategy::{BoxedStrategy, Strategy};

use super::mutex_model::{MutexModel, MutexOp};
use pipecheck::linearizability::SequentialModel;
use pipecheck::linearizability::{OpsSpec, shared};

/// The async mutex as an [`OpsSpec`], with the planted bugs in `faults` switched on.
///
/// The model is [`MutexModel`], plus: an `Unlock` that finds no guard returns `false`
/// and changes nothing, in any state (the lock may be held by an acquire that has not
/// put its guard in the slot yet; `Lock` and `TryLock` carry the mutex's contract). `Lock` blocks while the lock is held, so one thread's sequence
/// skips it then; a concurrent thread's operations are acquire–unlock sections, which
/// cannot deadlock on a correct mutex: whoever took the lock reaches an `Unlock` next,
/// after its guard is in the slot, and that `Unlock` empties the slot (dropping this
/// guard, or a later one while this one was taken by another thread's `Unlock`).
///
/// # Examples
///
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// use pipecheck_pipe::fault;
/// use pipecheck_properties::linearizability::MutexSpec;
/// use pipecheck::linearizability::{SequenceConfig, check_sequences};
///
/// check_sequences(&MutexSpec, &SequenceConfig::default()).unwrap();
/// let planted = || check_sequences(&MutexSpec, &SequenceConfig::default());
/// let mismatch = fault::TryLockFailsAfterRelease.activate(planted).unwrap_err();
/// assert_eq!(mismatch.sequence.len(), 3); // try_lock, unlock, try_lock refused
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct MutexSpec;

/// The real object of a [`MutexSpec`], shared by every thread: a mutex and the slot of
/// its current guard.
pub struct SharedMutex {
    mutex: &'static AsyncMutex<()>,
    held: Mutex<Option<AsyncMutexGuard<'static, ()>>>,
}

impl SharedMutex {
    /// Puts a guard just taken into the slot.
    fn hold(&self, guard: AsyncMutexGuard<'static, ()>) {
        let previous = self.held.lock().replace(guard);
        assert!(previous.is_none(), "two guards at once: the mutex admitted a second holder");
    }
}

impl fmt::Debug for SharedMutex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SharedMutex").finish_non_exhaustive()
    }
}

impl SequentialModel for MutexSpec {
    type State = bool;
    type Input = MutexOp;
    type Output = bool;

    fn init(&self) -> bool {
        MutexModel.init()
    }

    fn step(&self, held: &bool, input: &MutexOp, output: &bool) -> Option<bool> {
        match (input, *held, *output) {
            (MutexOp::Unlock, held, false) => Some(held),
            _ => MutexModel.step(held, input, output),
        }
    }

    fn expected(&self, held: &bool, input: &MutexOp) -> Option<bool> {
        match input {
            MutexOp::Lock => (!held).then_some(true),
            MutexOp::TryLock => Some(!held),
            MutexOp::Unlock => Some(*held),
        }
    }
}

impl OpsSpec for MutexSpec {
    type Handle = Arc<SharedMutex>;

    fn handles(&self, threads: usize) -> Vec<Arc<SharedMutex>> {
        let mutex = Box::leak(Box::new(AsyncMutex::new(())));
        shared(SharedMutex { mutex, held: Mutex::new(None) }, threads)
    }

    fn apply(&self, real: &mut Arc<SharedMutex>, input: &MutexOp) -> bool {
        match input {
            MutexOp::Lock => {
                real.hold(block_on(real.mutex.lock()));
                true
            }
            MutexOp::TryLock => real.mutex.try_lock().map(|guard| real.hold(guard)).is_some(),
            MutexOp::Unlock => {
                let guard = real.held.lock().take();
                guard.is_some()
            }
        }
    }

    fn inputs(&self) -> BoxedStrategy<MutexOp> {
        prop_oneof![Just(MutexOp::Lock), Just(MutexOp::TryLock), Just(MutexOp::Unlock)].boxed()
    }

    fn enabled(&self, held: &bool, input: &MutexOp) -> bool {
        !(*held && *input == MutexOp::Lock)
    }

    /// Up to `max_ops / 2` sections, each an acquire (`Lock` or `TryLock`) and an `Unlock`.
    fn thread_ops(&self, max_ops: usize) -> BoxedStrategy<Vec<MutexOp>> {
        let acquire = prop_oneof![Just(MutexOp::Lock), Just(MutexOp::TryLock)];
        vec(acquire, 1..=(max_ops / 2).max(1))
            .prop_map(|acquires| acquires.into_iter().flat_map(|a| [a, MutexOp::Unlock]).collect())
            .boxed()
    }

    /// Every thread is acquire–unlock sections.
    fn deadlock_free(&self, threads: &[Vec<MutexOp>]) -> bool {
        threads.iter().all(|ops| {
            ops.len() % 2 == 0
                && ops.chunks(2).all(|s| matches!(s, [MutexOp::Lock | MutexOp::TryLock, MutexOp::Unlock]))
        })
    }
}
