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
    pub use std::thread::{JoinHandle, yield_now};

    use crate::PlantedFault;

    /// `std::thread::spawn`, carrying the planted fault switched on in this thread into
    /// the new one: loom and shuttle run every task on the thread that started the
    /// model, so the switch reaches them as it is; real threads need it handed over.
    pub fn spawn<F, T>(f: F) -> JoinHandle<T>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        let fault = PlantedFault::active_name();
        std::thread::spawn(move || PlantedFault::with_active_name(fault, f))
    }
}

pub(super) mod hint {
    pub use std::hint::spin_loop;
}

#[path = "std_block_on.rs"]
pub(super) mod future;
