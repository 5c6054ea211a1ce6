//! `shuttle` backend: scheduler-controlled primitives for randomized and PCT schedules.
//!
//! Shuttle has no data-race detector; its `UnsafeCell` is the `std` one with a scheduling
//! point before every access (`shuttle_cell.rs`).

pub(super) const NAME: &str = "shuttle";

pub(super) mod sync {
    pub use shuttle::sync::Arc;
    pub(crate) use shuttle::sync::Mutex as RawMutex;
}

pub(super) mod atomic {
    pub use shuttle::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering, fence};
}

#[path = "shuttle_cell.rs"]
pub(super) mod cell;

pub(super) mod thread {
    pub use shuttle::thread::{JoinHandle, spawn, yield_now};
}

pub(super) mod hint {
    pub use shuttle::hint::spin_loop;
}

pub(super) mod future {
    pub use shuttle::future::block_on;
}
