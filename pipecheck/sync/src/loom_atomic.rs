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
//! for `o` in `Relaxed` and `Release`, and the swap's result is discarded:
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
//! `SeqCst` stores stay stores: a `SeqCst` swap would acquire, which the store does
//! not; they keep loom's bug instead of hiding another one.
//!
//! Remove this file (re-export loom's atomics) once loom ships the fix: the test
//! `raw_loom_loses_a_store_to_a_concurrent_swap` in `models/tests/loom/user_lock_free.rs`
//! fails then.

use std::fmt;
use std::ops::{Deref, DerefMut};

pub use loom::sync::atomic::{Ordering, fence};

/// `store(val, order)` as loom should see it: a swap for `Relaxed` and `Release`.
macro_rules! store_as_swap {
    ($inner:expr, $val:expr, $order:expr) => {
        match $order {
            Ordering::SeqCst => $inner.store($val, Ordering::SeqCst),
            order => {
                let _previous = $inner.swap($val, order);
            }
        }
    };
}

macro_rules! atomic {
    ($(#[$doc:meta])* $name:ident, $value:ty) => {
        $(#[$doc])*
        ///
        /// loom's atomic of the same name (its methods through `Deref`), except that
        /// `store` is a `swap` (module docs).
        pub struct $name(loom::sync::atomic::$name);

        impl $name {
            /// A new atomic holding `value`.
            #[track_caller]
            pub fn new(value: $value) -> $name {
                $name(loom::sync::atomic::$name::new(value))
            }

            /// Stores `value`, as a `swap` with the same ordering (module docs).
            #[track_caller]
            pub fn store(&self, value: $value, order: Ordering) {
                store_as_swap!(self.0, value, order)
            }

            /// Consumes the atomic, returning its value.
            #[track_caller]
            pub fn into_inner(self) -> $value {
                self.0.into_inner()
            }
        }

        impl Deref for $name {
            type Target = loom::sync::atomic::$name;

            fn deref(&self) -> &Self::Target {
                &self.0
            }
        }

        impl DerefMut for $name {
            fn deref_mut(&mut self) -> &mut Self::Target {
                &mut self.0
            }
        }

        impl Default for $name {
            #[track_caller]
            fn default() -> $name {
                $name::new(Default::default())
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
                self.0.fmt(f)
            }
        }
    };
}

atomic!(
    /// A boolean shared between threads.
    AtomicBool,
    bool
);
atomic!(
    /// A `usize` shared between threads.
    AtomicUsize,
    usize
);
atomic!(
    /// A `u64` shared between threads.
    AtomicU64,
    u64
);

/// A raw pointer shared between threads: loom's `AtomicPtr` (its methods through
/// `Deref`), except that `store` is a `swap` (module docs).
pub struct AtomicPtr<T>(loom::sync::atomic::AtomicPtr<T>);

impl<T> AtomicPtr<T> {
    /// A new atomic holding `ptr`.
    #[track_caller]
    pub fn new(ptr: *mut T) -> AtomicPtr<T> {
        AtomicPtr(loom::sync::atomic::AtomicPtr::new(ptr))
    }

    /// Stores `ptr`, as a `swap` with the same ordering (module docs).
    #[track_caller]
    pub fn store(&self, ptr: *mut T, order: Ordering) {
        store_as_swap!(self.0, ptr, order)
    }

    /// Consumes the atomic, returning its pointer.
    #[track_caller]
    pub fn into_inner(self) -> *mut T {
        self.0.into_inner()
    }
}

impl<T> Deref for AtomicPtr<T> {
    type Target = loom::sync::atomic::AtomicPtr<T>;

    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl<T> DerefMut for AtomicPtr<T> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
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
        self.0.fmt(f)
    }
}
