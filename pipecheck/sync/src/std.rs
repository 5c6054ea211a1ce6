//! `std` backend: the real primitives.

pub(super) const NAME: &str = "std";

pub(super) mod sync {
    pub use std::sync::Arc;
    pub(crate) use std::sync::Mutex as RawMutex;
}

/// std's atomics, each operation recorded while a recording runs (`record.rs`).
#[path = "recorded_atomic.rs"]
pub(super) mod atomic;

#[path = "std_cell.rs"]
pub(super) mod cell;

pub(super) mod thread {
    use std::panic::Location;

    pub use std::thread::JoinHandle;
    pub(crate) use std::thread::yield_now;
    pub use std::thread::{Thread, current, park};

    use crate::PlantedFault;
    use crate::record::{OpKind, Recording, record};

    /// `std::thread::spawn`, carrying the planted fault switched on in this thread into
    /// the new one: loom and shuttle run every task on the thread that started the
    /// model, so the switch reaches them as it is; real threads need it handed over.
    /// A facade recording running here goes along too, and the spawn is recorded.
    #[track_caller]
    pub fn spawn<F, T>(f: F) -> JoinHandle<T>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        let fault = PlantedFault::active();
        let recording = Recording::current();
        let handle = std::thread::spawn(move || {
            PlantedFault::activate_opt(fault, || Recording::run_with(recording, f))
        });
        let child = super::debug_number(&handle.thread().id());
        record(OpKind::Spawn { child }, None, Location::caller());
        handle
    }
}

pub(super) mod hint {
    pub(crate) use std::hint::spin_loop;
}

#[path = "std_block_on.rs"]
pub(super) mod future;

/// The number in a `ThreadId(N)` debug form.
fn debug_number(id: &impl std::fmt::Debug) -> Option<usize> {
    let text = format!("{id:?}");
    let digits: String = text.chars().filter(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// The current thread's id, as a number.
pub(super) fn thread_number() -> Option<usize> {
    debug_number(&std::thread::current().id())
}
