//! An `UnsafeCell` with loom's closure-based API over `std`'s cell, so call sites are
//! identical under every backend (tokio's `loom/std/unsafe_cell.rs`).

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
    pub fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        f(self.0.get())
    }

    /// Gives `f` a mutable pointer to the value; under loom the access is race-checked.
    #[inline]
    pub fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        f(self.0.get())
    }
}
