//! An `UnsafeCell` whose accesses are shuttle scheduling points.
//!
//! Shuttle has no data-race detector, and it only switches tasks where a shuttle
//! primitive runs. With the `std` cell, a task that frees a slot (an atomic store, a
//! scheduling point *before* it) and then reads the slot runs both without a switch in
//! between: no schedule lets the other side overwrite the slot in that window, and a
//! "slot freed before it is read" bug escapes every schedule. Here every `with` and
//! `with_mut` switches first, exactly as shuttle's own atomics do before they touch
//! their value (`shuttle-std`'s `sync/atomic/mod.rs`: `thread::switch()`, then the
//! access).
//!
//! The switch is made with `shuttle::thread::sleep(Duration::ZERO)`: shuttle does not
//! model time, and its `sleep` is exactly `thread::switch()`, a plain scheduling point.
//! `shuttle::thread::yield_now` would be wrong here: it also requests a yield, which
//! PCT reads as "this task spins, deprioritize it", and which would reshape PCT's
//! priorities at every cell access.

use std::panic::Location;
use std::time::Duration;

use super::super::record::{OpKind, record};

/// `core::cell::UnsafeCell` with `with`/`with_mut` access, as `loom::cell::UnsafeCell`;
/// every access is a shuttle scheduling point.
#[derive(Debug)]
pub struct UnsafeCell<T: ?Sized>(core::cell::UnsafeCell<T>);

/// Lets shuttle run another task before the access that follows.
#[inline]
fn scheduling_point() {
    shuttle::thread::sleep(Duration::ZERO);
}

impl<T> UnsafeCell<T> {
    /// Wraps `data`.
    #[inline]
    pub const fn new(data: T) -> UnsafeCell<T> {
        UnsafeCell(core::cell::UnsafeCell::new(data))
    }

    /// Unwraps the value (no scheduling point: the cell is owned, nobody else sees it).
    #[inline]
    pub fn into_inner(self) -> T {
        self.0.into_inner()
    }
}

impl<T: ?Sized> UnsafeCell<T> {
    /// Gives `f` a shared pointer to the value, after a scheduling point; recorded as a
    /// cell read (`record.rs`, detail `all`).
    #[inline]
    #[track_caller]
    pub fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        scheduling_point();
        record(OpKind::CellRead, None, Location::caller());
        f(self.0.get())
    }

    /// Gives `f` a mutable pointer to the value, after a scheduling point; recorded as a
    /// cell write (`record.rs`, detail `all`).
    #[inline]
    #[track_caller]
    pub fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        scheduling_point();
        record(OpKind::CellWrite, None, Location::caller());
        f(self.0.get())
    }
}
