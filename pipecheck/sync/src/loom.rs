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

/// The facade's model of `SeqCst` accesses on loom (`loom_seqcst.rs`).
#[path = "loom_seqcst.rs"]
pub(super) mod seqcst;

pub(super) mod cell {
    pub use loom::cell::UnsafeCell;
}

pub(super) mod thread {
    pub(crate) use loom::thread::yield_now;
    pub use loom::thread::{Thread, current};

    use super::seqcst;

    /// loom's `JoinHandle`; `join` carries the thread's pending `SeqCst` accesses to the
    /// joiner (`loom_seqcst.rs`).
    #[derive(Debug)]
    pub struct JoinHandle<T>(loom::thread::JoinHandle<(T, bool)>);

    impl<T> JoinHandle<T> {
        /// Waits for the thread to finish (`std`'s `join`).
        ///
        /// # Errors
        ///
        /// The thread's panic payload, if it panicked.
        pub fn join(self) -> std::thread::Result<T> {
            let (value, pending) = self.0.join()?;
            seqcst::receive(pending);
            Ok(value)
        }

        /// The thread's handle.
        pub fn thread(&self) -> &Thread {
            self.0.thread()
        }
    }

    /// loom's `spawn`; the new thread starts with its spawner's pending `SeqCst`
    /// accesses (`loom_seqcst.rs`).
    pub fn spawn<F, T>(f: F) -> JoinHandle<T>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        let pending = seqcst::handoff();
        JoinHandle(loom::thread::spawn(move || {
            seqcst::receive(pending);
            let value = f();
            (value, seqcst::handoff())
        }))
    }

    /// loom's `park`: an `unpark` is synchronization, so the thread may have received
    /// pending `SeqCst` accesses (`loom_seqcst.rs`).
    pub fn park() {
        loom::thread::park();
        seqcst::receive(true);
    }
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
