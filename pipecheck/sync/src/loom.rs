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
    use std::cell::RefCell;
    use std::fmt;
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool as StdBool;
    use std::sync::atomic::Ordering::Relaxed;

    use loom::sync::atomic::{AtomicBool, Ordering};
    pub(crate) use loom::thread::yield_now;

    use super::seqcst;

    /// A thread's park token, as std keeps one per thread.
    ///
    /// loom's own `unpark` wakes its thread from whatever blocks it: a thread unparked
    /// while it waits in `join`, on a `Mutex` or a `Condvar` returns from that wait
    /// un-notified, and loom fails on its own assertion (`rt/notify.rs`: `assertion
    /// failed: state.notified`). std's `unpark` only leaves a token that the next `park`
    /// takes. So the facade keeps the token: `unpark` sets it (a `Release` swap: what the
    /// unparker did happens before the parker returns, as std promises) and calls loom's
    /// `unpark` only while the thread is inside the facade's `park`; `park` takes the
    /// token (an `Acquire` swap) and parks in loom until it finds one. loom switches
    /// threads only at its own operations, so `parked` (outside loom's view) is exact.
    struct Parker {
        token: AtomicBool,
        parked: StdBool,
    }

    impl Parker {
        fn new() -> Arc<Parker> {
            Arc::new(Parker { token: AtomicBool::new(false), parked: StdBool::new(false) })
        }
    }

    loom::thread_local! {
        /// The calling thread's park token (set by `spawn` for the threads it starts).
        static PARKER: RefCell<Option<Arc<Parker>>> = RefCell::new(None);
    }

    fn own_parker() -> Arc<Parker> {
        PARKER.with(|parker| parker.borrow_mut().get_or_insert_with(Parker::new).clone())
    }

    /// A handle to a thread (`std::thread::Thread`'s shape): loom's, with the facade's
    /// park token.
    #[derive(Clone)]
    pub struct Thread {
        inner: loom::thread::Thread,
        parker: Arc<Parker>,
    }

    impl Thread {
        /// Wakes the thread from the facade's [`park`], or makes its next `park` return
        /// at once (`std`'s `unpark`).
        pub fn unpark(&self) {
            // A swap, not a store: loom may lose a store to a concurrent RMW
            // (`loom_atomic.rs`).
            self.parker.token.swap(true, Ordering::Release);
            if self.parker.parked.load(Relaxed) {
                self.inner.unpark();
            }
        }

        /// The thread's id.
        pub fn id(&self) -> loom::thread::ThreadId {
            self.inner.id()
        }

        /// The thread's name, if it has one.
        pub fn name(&self) -> Option<&str> {
            self.inner.name()
        }
    }

    impl fmt::Debug for Thread {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            self.inner.fmt(f)
        }
    }

    /// The calling thread's handle (`std`'s `current`).
    pub fn current() -> Thread {
        Thread { inner: loom::thread::current(), parker: own_parker() }
    }

    /// Blocks until the thread's token is set by [`Thread::unpark`], and takes it
    /// (`std`'s `park`, without spurious wakeups). An `unpark` is synchronization, so
    /// the thread may have received pending `SeqCst` accesses (`loom_seqcst.rs`).
    pub fn park() {
        let parker = own_parker();
        while !parker.token.swap(false, Ordering::Acquire) {
            parker.parked.store(true, Relaxed);
            loom::thread::park();
            parker.parked.store(false, Relaxed);
        }
        seqcst::receive(true);
    }

    /// loom's `JoinHandle`; `join` carries the thread's pending `SeqCst` accesses to the
    /// joiner (`loom_seqcst.rs`).
    #[derive(Debug)]
    pub struct JoinHandle<T> {
        inner: loom::thread::JoinHandle<(T, bool)>,
        thread: Thread,
    }

    impl<T> JoinHandle<T> {
        /// Waits for the thread to finish (`std`'s `join`).
        ///
        /// # Errors
        ///
        /// The thread's panic payload, if it panicked.
        pub fn join(self) -> std::thread::Result<T> {
            let (value, pending) = self.inner.join()?;
            seqcst::receive(pending);
            Ok(value)
        }

        /// The thread's handle.
        pub fn thread(&self) -> &Thread {
            &self.thread
        }
    }

    /// loom's `spawn` (with loom's bounds, which do not ask for `Send`); the new thread
    /// starts with its spawner's pending `SeqCst` accesses (`loom_seqcst.rs`), and its
    /// park token.
    pub fn spawn<F, T>(f: F) -> JoinHandle<T>
    where
        F: FnOnce() -> T + 'static,
        T: 'static,
    {
        let pending = seqcst::handoff();
        let parker = Parker::new();
        let own = parker.clone();
        let inner = loom::thread::spawn(move || {
            PARKER.with(|slot| *slot.borrow_mut() = Some(own));
            seqcst::receive(pending);
            let value = f();
            (value, seqcst::handoff())
        });
        let thread = Thread { inner: inner.thread().clone(), parker };
        JoinHandle { inner, thread }
    }
}

pub(super) mod hint {
    pub(crate) use loom::hint::spin_loop;
}

pub(super) mod future {
    use std::future::Future;

    use super::seqcst;

    /// loom's `block_on`. A wakeup is synchronization the facade does not see (loom's
    /// waker), so every poll starts as if it had received pending `SeqCst` accesses
    /// (`loom_seqcst.rs`).
    pub fn block_on<F: Future>(future: F) -> F::Output {
        let mut future = Box::pin(future);
        loom::future::block_on(std::future::poll_fn(move |cx| {
            seqcst::receive(true);
            future.as_mut().poll(cx)
        }))
    }
}

/// The current loom thread's id, as a number (loom's `ThreadId` prints `ThreadId(N)`).
pub(super) fn thread_number() -> Option<usize> {
    let text = format!("{:?}", loom::thread::current().id());
    let digits: String = text.chars().filter(char::is_ascii_digit).collect();
    digits.parse().ok()
}
