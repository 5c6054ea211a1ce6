//! `shuttle` backend: scheduler-controlled primitives for randomized and PCT schedules.
//!
//! Shuttle has no data-race detector; its `UnsafeCell` is the `std` one with a scheduling
//! point before every access (`shuttle_cell.rs`).

pub(super) const NAME: &str = "shuttle";

pub(super) mod sync {
    pub use shuttle::sync::Arc;
    pub(crate) use shuttle::sync::Mutex as RawMutex;
}

/// shuttle's atomics, each operation recorded while a recording runs (`record.rs`).
#[path = "recorded_atomic.rs"]
pub(super) mod atomic;

#[path = "shuttle_cell.rs"]
pub(super) mod cell;

pub(super) mod thread {
    use std::panic::Location;

    pub(crate) use shuttle::thread::yield_now;
    pub use shuttle::thread::{Thread, current, park};

    use crate::record::{OpKind, record};

    /// shuttle's `JoinHandle`, its `join` recorded.
    #[derive(Debug)]
    pub struct JoinHandle<T>(shuttle::thread::JoinHandle<T>);

    impl<T> JoinHandle<T> {
        /// Waits for the thread to finish (`std`'s `join`).
        ///
        /// # Errors
        ///
        /// The thread's panic payload, if it panicked.
        #[track_caller]
        pub fn join(self) -> std::thread::Result<T> {
            let child = usize::from(self.0.thread().id());
            let result = self.0.join();
            record(OpKind::Join { child: Some(child) }, None, Location::caller());
            result
        }
    }

    /// shuttle's `spawn`, recorded (with the new task's id).
    #[track_caller]
    pub fn spawn<F, T>(f: F) -> JoinHandle<T>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        let handle = shuttle::thread::spawn(f);
        let child = usize::from(handle.thread().id());
        record(OpKind::Spawn { child: Some(child) }, None, Location::caller());
        JoinHandle(handle)
    }
}

/// The running task's id, without a scheduling point (`None` outside an execution).
pub(super) fn thread_number() -> Option<usize> {
    shuttle::current::try_get_current_task().map(usize::from)
}

pub(super) mod hint {
    pub(crate) use shuttle::hint::spin_loop;
}

pub(super) mod future {
    pub use shuttle::future::block_on;
}
