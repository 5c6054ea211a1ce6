//! The backend's atomics (std's or shuttle's), each operation also recorded for a
//! failure's report (`record.rs`).
//!
//! Each wrapper has std's API for the methods it offers, and forwards to the backend's
//! atomic of the same name: under shuttle the scheduling point is shuttle's own, before
//! the access, and the recording comes after it returns, on a `std` thread-local and
//! mutex (no scheduling point, no synchronization; one branch while no recording runs).
//! Every method is `#[track_caller]`, so the recorded location is the user's line.

use std::fmt;
use std::panic::Location;

#[cfg(feature = "shuttle")]
use shuttle::sync::atomic as inner;
#[cfg(not(feature = "shuttle"))]
use std::sync::atomic as inner;

pub use inner::Ordering;

use super::super::record::{AsValue, OpKind, on, record};

/// A fence; recorded.
#[inline]
#[track_caller]
pub fn fence(order: Ordering) {
    inner::fence(order);
    record(OpKind::Fence, Some(order), Location::caller());
}

/// The methods every atomic shares: `new`, `load`, `store`, `swap`, the two
/// compare-exchanges, `get_mut`, `into_inner`, and the std traits.
macro_rules! common {
    ($name:ident, $value:ty) => {
        impl $name {
            /// A new atomic holding `value`.
            #[inline]
            pub const fn new(value: $value) -> $name {
                $name(inner::$name::new(value))
            }

            /// Loads the value (`std`'s `load`).
            #[inline]
            #[track_caller]
            pub fn load(&self, order: Ordering) -> $value {
                let value = self.0.load(order);
                record(OpKind::Load { value: value.value() }, Some(order), Location::caller());
                value
            }

            /// Stores `value` (`std`'s `store`).
            #[inline]
            #[track_caller]
            pub fn store(&self, value: $value, order: Ordering) {
                self.0.store(value, order);
                record(OpKind::Store { value: value.value() }, Some(order), Location::caller());
            }

            /// Stores `value`, returning the previous one (`std`'s `swap`).
            #[inline]
            #[track_caller]
            pub fn swap(&self, value: $value, order: Ordering) -> $value {
                let old = self.0.swap(value, order);
                record(
                    OpKind::Swap { new: value.value(), old: old.value() },
                    Some(order),
                    Location::caller(),
                );
                old
            }

            /// `std`'s `compare_exchange`.
            ///
            /// # Errors
            ///
            /// The value found, when it was not `current`.
            #[inline]
            #[track_caller]
            pub fn compare_exchange(
                &self,
                current: $value,
                new: $value,
                success: Ordering,
                failure: Ordering,
            ) -> Result<$value, $value> {
                let result = self.0.compare_exchange(current, new, success, failure);
                record_cas(false, current, new, result, if result.is_ok() { success } else { failure });
                result
            }

            /// `std`'s `compare_exchange_weak`.
            ///
            /// # Errors
            ///
            /// The value found, when it was not `current` (or, in std, spuriously).
            #[inline]
            #[track_caller]
            pub fn compare_exchange_weak(
                &self,
                current: $value,
                new: $value,
                success: Ordering,
                failure: Ordering,
            ) -> Result<$value, $value> {
                let result = self.0.compare_exchange_weak(current, new, success, failure);
                record_cas(true, current, new, result, if result.is_ok() { success } else { failure });
                result
            }

            /// The value, through exclusive access (not recorded: nobody else sees it).
            #[inline]
            pub fn get_mut(&mut self) -> &mut $value {
                self.0.get_mut()
            }

            /// Consumes the atomic, returning its value (not recorded).
            #[inline]
            pub fn into_inner(self) -> $value {
                self.0.into_inner()
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.0, f)
            }
        }

        impl From<$value> for $name {
            fn from(value: $value) -> $name {
                $name::new(value)
            }
        }
    };
}

/// `fetch_<op>` methods, each recorded as [`OpKind::Fetch`].
macro_rules! fetch {
    ($name:ident, $value:ty, $($method:ident $op:literal),*) => {
        impl $name {
            $(
                #[doc = concat!("`std`'s `", stringify!($method), "`: returns the previous value.")]
                #[inline]
#[track_caller]
                pub fn $method(&self, operand: $value, order: Ordering) -> $value {
                    let old = self.0.$method(operand, order);
                    let kind = OpKind::Fetch { op: $op, operand: operand.value(), old: old.value() };
                    record(kind, Some(order), Location::caller());
                    old
                }
            )*
        }
    };
}

macro_rules! int {
    ($(#[$doc:meta])* $name:ident, $value:ty) => {
        $(#[$doc])*
        pub struct $name(inner::$name);
        common!($name, $value);
        fetch!($name, $value, fetch_add "add", fetch_sub "sub", fetch_and "and", fetch_or "or",
            fetch_xor "xor", fetch_nand "nand", fetch_max "max", fetch_min "min");

        impl Default for $name {
            fn default() -> $name {
                $name::new(0)
            }
        }
    };
}

int!(
    /// A `usize` shared between threads: the backend's, recorded.
    AtomicUsize,
    usize
);
int!(
    /// A `u64` shared between threads: the backend's, recorded.
    AtomicU64,
    u64
);

/// A boolean shared between threads: the backend's, recorded.
pub struct AtomicBool(inner::AtomicBool);
common!(AtomicBool, bool);
fetch!(AtomicBool, bool, fetch_and "and", fetch_or "or", fetch_xor "xor", fetch_nand "nand");

impl Default for AtomicBool {
    fn default() -> AtomicBool {
        AtomicBool::new(false)
    }
}

/// A raw pointer shared between threads: the backend's, recorded (pointers as addresses).
pub struct AtomicPtr<T>(inner::AtomicPtr<T>);

impl<T> AtomicPtr<T> {
    /// A new atomic holding `ptr`.
    #[inline]
    pub const fn new(ptr: *mut T) -> AtomicPtr<T> {
        AtomicPtr(inner::AtomicPtr::new(ptr))
    }

    /// Loads the pointer (`std`'s `load`).
    #[inline]
    #[track_caller]
    pub fn load(&self, order: Ordering) -> *mut T {
        let value = self.0.load(order);
        record(OpKind::Load { value: value.value() }, Some(order), Location::caller());
        value
    }

    /// Stores `ptr` (`std`'s `store`).
    #[inline]
    #[track_caller]
    pub fn store(&self, ptr: *mut T, order: Ordering) {
        self.0.store(ptr, order);
        record(OpKind::Store { value: ptr.value() }, Some(order), Location::caller());
    }

    /// Stores `ptr`, returning the previous pointer (`std`'s `swap`).
    #[inline]
    #[track_caller]
    pub fn swap(&self, ptr: *mut T, order: Ordering) -> *mut T {
        let old = self.0.swap(ptr, order);
        record(OpKind::Swap { new: ptr.value(), old: old.value() }, Some(order), Location::caller());
        old
    }

    /// `std`'s `compare_exchange`.
    ///
    /// # Errors
    ///
    /// The pointer found, when it was not `current`.
    #[inline]
    #[track_caller]
    pub fn compare_exchange(
        &self,
        current: *mut T,
        new: *mut T,
        success: Ordering,
        failure: Ordering,
    ) -> Result<*mut T, *mut T> {
        let result = self.0.compare_exchange(current, new, success, failure);
        record_cas(false, current, new, result, if result.is_ok() { success } else { failure });
        result
    }

    /// `std`'s `compare_exchange_weak`.
    ///
    /// # Errors
    ///
    /// The pointer found, when it was not `current` (or, in std, spuriously).
    #[inline]
    #[track_caller]
    pub fn compare_exchange_weak(
        &self,
        current: *mut T,
        new: *mut T,
        success: Ordering,
        failure: Ordering,
    ) -> Result<*mut T, *mut T> {
        let result = self.0.compare_exchange_weak(current, new, success, failure);
        record_cas(true, current, new, result, if result.is_ok() { success } else { failure });
        result
    }

    /// The pointer, through exclusive access (not recorded).
    #[inline]
    pub fn get_mut(&mut self) -> &mut *mut T {
        self.0.get_mut()
    }

    /// Consumes the atomic, returning its pointer (not recorded).
    #[inline]
    pub fn into_inner(self) -> *mut T {
        self.0.into_inner()
    }
}

impl<T> Default for AtomicPtr<T> {
    fn default() -> AtomicPtr<T> {
        AtomicPtr::new(std::ptr::null_mut())
    }
}

impl<T> From<*mut T> for AtomicPtr<T> {
    fn from(ptr: *mut T) -> AtomicPtr<T> {
        AtomicPtr::new(ptr)
    }
}

impl<T> fmt::Debug for AtomicPtr<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

/// Records a compare-exchange made by the caller's caller (the `#[track_caller]` chain
/// names the user's line): `order` is the ordering that applied, success's or failure's.
#[inline]
#[track_caller]
fn record_cas<V: AsValue>(weak: bool, current: V, new: V, result: Result<V, V>, order: Ordering) {
    if on() {
        let result = result.map(AsValue::value).map_err(AsValue::value);
        let kind = OpKind::CompareExchange { weak, expected: current.value(), new: new.value(), result };
        record(kind, Some(order), Location::caller());
    }
}
