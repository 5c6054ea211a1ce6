//! An `UnsafeCell` with loom's closure-based API over `std`'s cell, so call sites are
//! identical under every backend (tokio's `loom/std/unsafe_cell.rs`). Each access is a
//! facade operation a recording keeps at detail `all` (`record.rs`).

use std::panic::Location;

use super::super::record::{OpKind, record};

/// `core::cell::UnsafeCell` with `with`/`with_mut` access, as `loom::cell::UnsafeCell`.
#[derive(Debug)]
pub struct UnsafeCell<T: ?Sized>(core::cell::UnsafeCell<T>);

impl<T> UnsafeCell<T> {
    /// Wraps `data`.
    #[inline]
    pub const fn new(data: T) -> UnsafeCell<T> {
        UnsafeCell(core::cell::UnsafeCell::new(data))
    }

    /// Unwraps the value.
    #[inline]
    pub fn into_inner(self) -> T {
        self.0.into_inner()
    }
}

impl<T: ?Sized> UnsafeCell<T> {
    /// Gives `f` a shared pointer to the value; under loom the access is race-checked.
    #[inline]
    #[track_caller]
    pub fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        record(OpKind::CellRead, None, Location::caller());
        f(self.0.get())
    }

    /// Gives `f` a mutable pointer to the value; under loom the access is race-checked.
    #[inline]
    #[track_caller]
    pub fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        record(OpKind::CellWrite, None, Location::caller());
        f(self.0.get())
    }
}
