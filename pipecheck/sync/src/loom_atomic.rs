//! loom's atomics, with every `store` performed as a `swap` of the same ordering: the
//! workaround for loom 0.7.3's lost stores (tokio-rs/loom#254 and #389, fix in #391).
//!
//! **The bug.** loom places a plain store in the modification order from the storing
//! thread's causality only, so a store and an RMW of another thread can both end up
//! "newest". loom lets a read-modify-write read any newest store (`rt/atomic.rs`,
//! `match_rmw_to_stores`), so an RMW can read the value a concurrent store overwrote,
//! even when that store happens-before it: the store is lost. A correct one-permit
//! notify (`permit.store(true, Release)` by the notifier, `permit.swap(false, Acquire)`
//! by the waiter before and after it registers its waker) deadlocks under
//! `loom::model` at its first interleaving (`models/tests/loom/user_lock_free.rs` keeps
//! that false positive reproduced).
//!
//! **The workaround.** An RMW's store is placed after the store it read
//! (`Atomic::rmw` reads a newest store, then stores with the coherence of what it
//! read), so RMWs of one atomic form a chain and none is lost. Making every store an
//! RMW puts every write of the atomic on that chain.
//!
//! **Why it hides no bug, and where it could.** `store(v, o)` becomes `swap(v, o)`
//! for `o` in `Relaxed` and `Release` (`SeqCst`: below), and the swap's result is
//! discarded:
//! * its write has exactly the store's release semantics (`Relaxed`: none;
//!   `Release`: a release, the same `sync_store` in loom);
//! * its read has the ordering's load part, which for `Relaxed` and `Release` is
//!   relaxed: it acquires nothing (loom's `sync_load` does nothing for them), so the
//!   thread gains no happens-before edge it did not have. `AcqRel` would add one, and
//!   is not used.
//! * One C++ difference remains: an RMW continues the release sequence of the store it
//!   reads (loom copies that store's clock into the new one), and a plain store of
//!   another thread does not. A reader that acquires the value of such a store is
//!   then taken as synchronized with the earlier releasing writer. That hides only a
//!   bug of the form "a relaxed or release store overwrites another thread's release
//!   store, and a reader of the new value relies on the first writer's data".
//!
//! A `SeqCst` store is a `Release` swap after the SC fence the facade's model of
//! `SeqCst` places where C11 needs one (`loom_seqcst.rs`): a `SeqCst` swap would acquire,
//! which the store does not, and a plain `SeqCst` store would keep loom's bug (a
//! one-permit notify whose `notify_one` stores `true` with `SeqCst` deadlocked).
//! Every other access of these atomics goes through that model too.
//!
//! Remove this file (re-export loom's atomics) once loom ships the fix: the test
//! `raw_loom_loses_a_store_to_a_concurrent_swap` in `models/tests/loom/user_lock_free.rs`
//! fails then.

use std::fmt;
use std::ops::{Deref, DerefMut};

pub use loom::sync::atomic::Ordering;

use super::seqcst::{Access, Mark};

/// A fence: loom's, seen by the facade's model of `SeqCst` accesses (`loom_seqcst.rs`).
pub fn fence(order: Ordering) {
    super::seqcst::fence(order);
}

/// The methods every atomic shares, each performed through the model of `SeqCst`
/// accesses (`loom_seqcst.rs`), `store` as a swap (module docs).
macro_rules! common {
    ($value:ty) => {
        /// Loads the value.
        #[track_caller]
        pub fn load(&self, order: Ordering) -> $value {
            let value = self.inner.load(self.mark.before(order, Access::Load));
            self.mark.after(order, Access::Load);
            value
        }

        /// Stores `value`, as a `swap` (module docs).
        #[track_caller]
        pub fn store(&self, value: $value, order: Ordering) {
            let _previous = self.inner.swap(value, self.mark.before(order, Access::Store));
            self.mark.after(order, Access::Store);
        }

        /// Stores `value`, returning the previous one.
        #[track_caller]
        pub fn swap(&self, value: $value, order: Ordering) -> $value {
            let previous = self.inner.swap(value, self.mark.before(order, Access::Rmw));
            self.mark.after(order, Access::Rmw);
            previous
        }

        /// `std`'s `compare_exchange`.
        ///
        /// # Errors
        ///
        /// The value found, when it was not `current`.
        #[track_caller]
        pub fn compare_exchange(
            &self,
            current: $value,
            new: $value,
            success: Ordering,
            failure: Ordering,
        ) -> Result<$value, $value> {
            let (on_success, on_failure) = self.mark.before_cas(success, failure);
            let result = self.inner.compare_exchange(current, new, on_success, on_failure);
            self.mark.after_cas(&result, success, failure);
            result
        }

        /// `std`'s `compare_exchange_weak` (under loom it fails only when the value
        /// differs).
        ///
        /// # Errors
        ///
        /// The value found, when it was not `current`.
        #[track_caller]
        pub fn compare_exchange_weak(
            &self,
            current: $value,
            new: $value,
            success: Ordering,
            failure: Ordering,
        ) -> Result<$value, $value> {
            let (on_success, on_failure) = self.mark.before_cas(success, failure);
            let result = self.inner.compare_exchange_weak(current, new, on_success, on_failure);
            self.mark.after_cas(&result, success, failure);
            result
        }

        /// `std`'s `fetch_update`: a load, then compare-exchanges until one succeeds.
        ///
        /// # Errors
        ///
        /// The value `f` returned `None` for.
        #[track_caller]
        pub fn fetch_update<F>(
            &self,
            set_order: Ordering,
            fetch_order: Ordering,
            mut f: F,
        ) -> Result<$value, $value>
        where
            F: FnMut($value) -> Option<$value>,
        {
            let mut previous = self.load(fetch_order);
            while let Some(next) = f(previous) {
                match self.compare_exchange_weak(previous, next, set_order, fetch_order) {
                    Ok(value) => return Ok(value),
                    Err(value) => previous = value,
                }
            }
            Err(previous)
        }
    };
}

/// Read-modify-write methods `$($method)*` of a value type, through the model.
macro_rules! rmws {
    ($value:ty, $($method:ident)*) => {
        $(
            /// `std`'s method of the same name.
            #[track_caller]
            pub fn $method(&self, value: $value, order: Ordering) -> $value {
                let previous = self.inner.$method(value, self.mark.before(order, Access::Rmw));
                self.mark.after(order, Access::Rmw);
                previous
            }
        )*
    };
}

/// The std traits and `Deref` to loom's atomic, for what the facade does not wrap.
macro_rules! traits {
    ($name:ident, $value:ty, $default:expr) => {
        impl Deref for $name {
            type Target = loom::sync::atomic::$name;

            fn deref(&self) -> &Self::Target {
                &self.inner
            }
        }

        impl DerefMut for $name {
            fn deref_mut(&mut self) -> &mut Self::Target {
                &mut self.inner
            }
        }

        impl Default for $name {
            #[track_caller]
            fn default() -> $name {
                $name::new($default)
            }
        }

        impl From<$value> for $name {
            #[track_caller]
            fn from(value: $value) -> $name {
                $name::new(value)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.inner.fmt(f)
            }
        }
    };
}

macro_rules! atomic {
    ($(#[$doc:meta])* $name:ident, $value:ty, $($method:ident)*) => {
        $(#[$doc])*
        ///
        /// loom's atomic of the same name (its other methods through `Deref`), with
        /// `store` as a `swap` and `SeqCst` as the facade models it (module docs).
        pub struct $name {
            inner: loom::sync::atomic::$name,
            mark: Mark,
        }

        impl $name {
            /// A new atomic holding `value`.
            #[track_caller]
            pub fn new(value: $value) -> $name {
                $name { inner: loom::sync::atomic::$name::new(value), mark: Mark::new() }
            }

            /// Consumes the atomic, returning its value.
            #[track_caller]
            pub fn into_inner(self) -> $value {
                self.inner.into_inner()
            }

            common!($value);
            rmws!($value, $($method)*);
        }

        traits!($name, $value, Default::default());
    };
}

atomic!(
    /// A boolean shared between threads.
    AtomicBool,
    bool,
    fetch_and fetch_nand fetch_or fetch_xor
);
atomic!(
    /// A `usize` shared between threads.
    AtomicUsize,
    usize,
    fetch_add fetch_sub fetch_and fetch_nand fetch_or fetch_xor fetch_max fetch_min
);
atomic!(
    /// A `u64` shared between threads.
    AtomicU64,
    u64,
    fetch_add fetch_sub fetch_and fetch_nand fetch_or fetch_xor fetch_max fetch_min
);

/// A raw pointer shared between threads: loom's `AtomicPtr` (its other methods through
/// `Deref`), with `store` as a `swap` and `SeqCst` as the facade models it (module docs).
pub struct AtomicPtr<T> {
    inner: loom::sync::atomic::AtomicPtr<T>,
    mark: Mark,
}

impl<T> AtomicPtr<T> {
    /// A new atomic holding `ptr`.
    #[track_caller]
    pub fn new(ptr: *mut T) -> AtomicPtr<T> {
        AtomicPtr { inner: loom::sync::atomic::AtomicPtr::new(ptr), mark: Mark::new() }
    }

    /// Consumes the atomic, returning its pointer.
    #[track_caller]
    pub fn into_inner(self) -> *mut T {
        self.inner.into_inner()
    }

    common!(*mut T);
}

impl<T> Deref for AtomicPtr<T> {
    type Target = loom::sync::atomic::AtomicPtr<T>;

    fn deref(&self) -> &Self::Target {
        &self.inner
    }
}

impl<T> DerefMut for AtomicPtr<T> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.inner
    }
}

impl<T> Default for AtomicPtr<T> {
    #[track_caller]
    fn default() -> AtomicPtr<T> {
        AtomicPtr::new(std::ptr::null_mut())
    }
}

impl<T> From<*mut T> for AtomicPtr<T> {
    #[track_caller]
    fn from(ptr: *mut T) -> AtomicPtr<T> {
        AtomicPtr::new(ptr)
    }
}

impl<T> fmt::Debug for AtomicPtr<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}
