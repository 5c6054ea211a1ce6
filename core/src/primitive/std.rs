//! `std` backend: the real primitives.

pub(super) const NAME: &str = "std";

pub(super) mod sync {
    pub use std::sync::Arc;
    pub(crate) use std::sync::Mutex as RawMutex;
}

pub(super) mod atomic {
    pub use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering, fence};
}

#[path = "std_cell.rs"]
pub(super) mod cell;

pub(super) mod thread {
    pub use std::thread::{JoinHandle, spawn, yield_now};
}

pub(super) mod hint {
    pub use std::hint::spin_loop;
}

#[path = "std_block_on.rs"]
pub(super) mod future;
