//! The event: a flag, an announcement and a value, shared by one [`Setter`] and one
//! [`Waiter`].

use pipecheck::cell::UnsafeCell;
use pipecheck::sync::Arc;
use pipecheck::sync::atomic::{AtomicBool, Ordering};
use pipecheck::thread::{self, Thread};

use crate::check::{CheckBeforeAnnounce, ReleaseAcquire, SetterLoadRelaxed};

struct Inner {
    /// The value is in place: stored by the setter, loaded by the waiter.
    set: AtomicBool,
    /// The waiter may park: stored by the waiter, loaded by the setter.
    announced: AtomicBool,
    value: UnsafeCell<u64>,
    /// The thread that made the event, and waits on it.
    waiter: Thread,
}

impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inner")
            .field("set", &self.set)
            .field("announced", &self.announced)
            .finish_non_exhaustive()
    }
}

// SAFETY: `value` is written once, by the only `Setter`, before it stores `set`, and
// read by the only `Waiter` after it loaded `set` as `true`: the store and the load
// synchronize (their release and acquire parts), so the two accesses never race.
unsafe impl Sync for Inner {}

/// Sets the event, once.
#[derive(Debug)]
pub struct Setter(Arc<Inner>);

/// Waits for the event, once; belongs to the thread that made the event.
#[derive(Debug)]
pub struct Waiter(Arc<Inner>);

/// A new event; the calling thread is the one that will [`wait`](Waiter::wait).
///
/// # Examples
///
// Under loom and shuttle the facade's primitives only work inside a model.
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// let (setter, waiter) = parker::event();
/// let thread = std::thread::spawn(move || setter.set(7));
/// assert_eq!(waiter.wait(), 7);
/// thread.join().unwrap();
/// ```
pub fn event() -> (Setter, Waiter) {
    let inner = Arc::new(Inner {
        set: AtomicBool::new(false),
        announced: AtomicBool::new(false),
        value: UnsafeCell::new(0),
        waiter: thread::current(),
    });
    (Setter(inner.clone()), Waiter(inner))
}

/// The orderings of the handshake's stores and loads (`SeqCst`, unless a planted bug
/// weakens them).
fn store_order() -> Ordering {
    if ReleaseAcquire.is_active() { Ordering::Release } else { Ordering::SeqCst }
}

fn load_order() -> Ordering {
    if ReleaseAcquire.is_active() { Ordering::Acquire } else { Ordering::SeqCst }
}

impl Setter {
    /// Hands `value` to the waiter and wakes it if it may be parked.
    pub fn set(self, value: u64) {
        let inner = &self.0;
        // SAFETY: the waiter reads `value` only after it loaded `set` as `true`, which
        // the store below publishes; this is the only setter.
        inner.value.with_mut(|p| unsafe { *p = value });
        inner.set.store(true, store_order());
        let load = if SetterLoadRelaxed.is_active() { Ordering::Relaxed } else { load_order() };
        // The other half of the handshake: if this load misses the waiter's
        // announcement, the waiter's load of `set` (after it) sees `true`.
        if inner.announced.load(load) {
            inner.waiter.unpark();
        }
    }
}

impl Waiter {
    /// Returns the value once the event is set, parking until then.
    pub fn wait(self) -> u64 {
        let inner = &self.0;
        if CheckBeforeAnnounce.is_active() {
            if !inner.set.load(load_order()) {
                inner.announced.store(true, store_order());
                thread::park();
            }
        } else {
            inner.announced.store(true, store_order());
            while !inner.set.load(load_order()) {
                // A wakeup may be spurious: the loop checks again.
                thread::park();
            }
        }
        // SAFETY: `set` was loaded as `true` (with acquire), after the setter wrote
        // `value`; nobody writes it again.
        inner.value.with(|p| unsafe { *p })
    }
}
