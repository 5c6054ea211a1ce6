//! `loom` backend: every interleaving explored, every `UnsafeCell` access checked.

pub(super) const NAME: &str = "loom";

pub(super) mod sync {
    pub use loom::sync::Arc;
    pub(crate) use loom::sync::Mutex as RawMutex;
}

/// loom's atomics, with `store` performed as a `swap` (loom 0.7.3 can lose a store to a
/// concurrent RMW: `loom_atomic.rs`).
#[path = "loom_atomic.rs"]
pub(super) mod atomic;

pub(super) mod cell {
    pub use loom::cell::UnsafeCell;
}

pub(super) mod thread {
    pub(crate) use loom::thread::yield_now;
    pub use loom::thread::{JoinHandle, spawn};
}

pub(super) mod hint {
    pub(crate) use loom::hint::spin_loop;
}

pub(super) mod future {
    pub use loom::future::block_on;
}

/// The current loom thread's id, as a number (loom's `ThreadId` prints `ThreadId(N)`).
pub(super) fn thread_number() -> Option<usize> {
    let text = format!("{:?}", loom::thread::current().id());
    let digits: String = text.chars().filter(char::is_ascii_digit).collect();
    digits.parse().ok()
}
