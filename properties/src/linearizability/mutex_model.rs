//! [`MutexModel`]: the async mutex as a sequential object — a lock that is free or
//! held — for linearizability checks of concurrent lock histories.
//!
//! `lock` is a *blocking* operation (see [`SequentialModel`]'s rule): enabled only
//! while the lock is free, so a `lock` that waited linearizes at the release that let
//! it in. `try_lock` never waits: it succeeds exactly when the lock is free. `unlock`
//! (dropping the guard) frees it.

use pipecheck::linearizability::SequentialModel;

/// An async-mutex operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MutexOp {
    /// `lock().await`, returning the guard.
    Lock,
    /// `try_lock()`.
    TryLock,
    /// Dropping the guard.
    Unlock,
}

/// The async mutex's sequential specification: the state is whether it is held; the
/// output is `true` for a lock taken (`Lock`, a `TryLock` that succeeded, `Unlock`)
/// and `false` for a `TryLock` refused.
///
/// # Examples
///
/// ```
/// use pipecheck_properties::linearizability::{MutexModel, MutexOp};
/// use pipecheck::linearizability::SequentialModel;
///
/// let held = MutexModel.step(&false, &MutexOp::Lock, &true).unwrap();
/// assert_eq!(MutexModel.step(&held, &MutexOp::TryLock, &false), Some(true));
/// assert_eq!(MutexModel.step(&false, &MutexOp::TryLock, &false), None); // free: must succeed
/// assert_eq!(MutexModel.step(&held, &MutexOp::Lock, &true), None); // waits while held
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct MutexModel;

impl SequentialModel for MutexModel {
    type State = bool;
    type Input = MutexOp;
    type Output = bool;

    fn init(&self) -> bool {
        false
    }

    fn step(&self, held: &bool, input: &MutexOp, output: &bool) -> Option<bool> {
        match (input, *held, *output) {
            (MutexOp::Lock, false, true) | (MutexOp::TryLock, false, true) => Some(true),
            (MutexOp::TryLock, true, false) => Some(true),
            (MutexOp::Unlock, true, true) => Some(false),
            _ => None,
        }
    }
}
