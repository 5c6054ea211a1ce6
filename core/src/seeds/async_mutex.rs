//! An async mutex tuned for the uncontended case: one atomic read-modify-write to
//! enter, one to exit.
//!
//! Seed 004 (dotnet/runtime, "Refactor ManagedWebSocket to avoid forcing Task
//! allocations for ReceiveAsync") puts `ReceiveAsync` behind such a lock, .NET's
//! `AsyncMutex`: "a single interlocked to acquire and a single interlocked to release".
//!
//! # Algorithm
//!
//! `gate` counts the tasks that hold the lock or want it. Entering is
//! `gate.fetch_add(1)`: a previous value of 0 means the lock was free and is now held.
//! Exiting is `gate.fetch_sub(1)`: a previous value of 1 means nobody else wanted it.
//! Everything else happens in the contended path under a small queue lock:
//!
//! * an entrant that found the gate taken locks the queue and either takes a permit an
//!   exit left for it (`released`) or queues itself (FIFO) and waits;
//! * an exit that found other counted tasks locks the queue and hands the lock to the
//!   oldest queued waiter. If none is queued yet, some entrant has counted itself but not
//!   queued itself (the *decremented-but-not-queued* race), so the exit leaves the
//!   permit in `released` for it instead of losing the wakeup;
//! * a waiter whose future is dropped while queued (cancellation) leaves the queue but
//!   stays counted in the gate as `abandoned`: the next exit takes it off on the
//!   waiter's behalf. Undoing the count directly (as .NET's `OnCancellation` does)
//!   would race with an exit that has already seen it and committed to a hand-over, and
//!   could admit two holders. A waiter dropped *after* it was handed the lock exits at
//!   once, so no permit leaks either way.

use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use crossbeam_utils::CachePadded;

use crate::fault;
use crate::seeds::primitive_event::{Handover, PrimitiveEvent, PrimitiveObserver, Probe};
use pipecheck_sync::Violation;
use pipecheck_sync::cell::UnsafeCell;
use pipecheck_sync::sync::Mutex;
use pipecheck_sync::sync::atomic::{AtomicUsize, Ordering};

/// An async mutual-exclusion lock: `lock().await` yields a guard; dropping the guard
/// hands the lock to the oldest waiter.
///
/// # Examples
///
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// use pipecheck_pipe::AsyncMutex;
/// use pipecheck_sync::future::block_on;
///
/// let mutex = AsyncMutex::new(0u32);
/// block_on(async {
///     *mutex.lock().await += 1;
///     assert_eq!(*mutex.lock().await, 1);
/// });
/// ```
pub struct AsyncMutex<T> {
    /// Tasks holding or wanting the lock (queued, about to queue, or abandoned).
    gate: CachePadded<AtomicUsize>,
    queue: Mutex<WaitQueue>,
    probe: Probe,
    value: UnsafeCell<T>,
}

#[derive(Default)]
struct WaitQueue {
    /// Queued waiters, oldest first.
    waiters: VecDeque<Waiter>,
    next_ticket: u64,
    /// An exit found no queued waiter: the lock is reserved for the entrant that has
    /// counted itself in the gate but not reached the queue yet.
    released: bool,
    /// Waiters that left the queue (their future was dropped) but are still counted in
    /// the gate; exits take them off.
    abandoned: usize,
    /// A holder has released the lock (kept only for the planted bug
    /// `TryLockFailsAfterRelease`).
    exited: bool,
}

struct Waiter {
    ticket: u64,
    waker: Waker,
}

// SAFETY: the value is only reached through a guard, and the gate protocol admits one
// guard at a time (the mutual-exclusion invariant, checked by the loom and shuttle
// models), so `T: Send` suffices to share the mutex between threads.
unsafe impl<T: Send> Send for AsyncMutex<T> {}
// SAFETY: as for `Send`: shared access to the value is serialized by the gate.
unsafe impl<T: Send> Sync for AsyncMutex<T> {}

impl<T> AsyncMutex<T> {
    /// An unlocked mutex holding `value`.
    ///
    /// # Examples
    ///
    #[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
    #[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
    /// let mutex = pipecheck_pipe::AsyncMutex::new(vec![1, 2]);
    /// assert_eq!(mutex.into_inner(), vec![1, 2]);
    /// ```
    pub fn new(value: T) -> AsyncMutex<T> {
        AsyncMutex::build(value)
    }

    fn build(value: T) -> AsyncMutex<T> {
        AsyncMutex {
            gate: CachePadded::new(AtomicUsize::new(0)),
            queue: Mutex::new(WaitQueue::default()),
            probe: Probe::default(),
            value: UnsafeCell::new(value),
        }
    }

    /// This mutex, reporting its [`PrimitiveEvent`]s to `observer` (for invariant
    /// checkers: holders, hand-overs and the wakes they owe).
    ///
    /// # Examples
    ///
    #[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
    #[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
    /// use std::sync::{Arc, Mutex};
    /// use pipecheck_pipe::{AsyncMutex, PrimitiveEvent, PrimitiveObserver};
    ///
    /// #[derive(Default)]
    /// struct Log(Mutex<Vec<PrimitiveEvent>>);
    /// impl PrimitiveObserver for Log {
    ///     fn on_primitive_event(&self, event: PrimitiveEvent) {
    ///         self.0.lock().unwrap().push(event);
    ///     }
    /// }
    ///
    /// let log = Arc::new(Log::default());
    /// let mutex = AsyncMutex::new(()).observed(log.clone());
    /// drop(mutex.try_lock());
    /// assert_eq!(log.0.lock().unwrap().len(), 2); // acquired, released
    /// ```
    pub fn observed(mut self, observer: std::sync::Arc<dyn PrimitiveObserver>) -> AsyncMutex<T> {
        self.probe = Probe::new(observer);
        self
    }

    /// Unwraps the value.
    ///
    /// # Examples
    ///
    #[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
    #[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
    /// assert_eq!(pipecheck_pipe::AsyncMutex::new(3).into_inner(), 3);
    /// ```
    pub fn into_inner(self) -> T {
        self.value.into_inner()
    }

    /// Waits for the lock. Uncontended, the first poll takes it with one atomic
    /// read-modify-write and allocates nothing. Waiters are served in the order they
    /// queued; dropping the future before it resolves gives up the place (or, if the
    /// lock was already handed to it, passes the lock on).
    ///
    /// # Examples
    ///
    #[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
    #[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
    /// use pipecheck_pipe::AsyncMutex;
    /// use pipecheck_sync::future::block_on;
    /// let mutex = AsyncMutex::new(String::new());
    /// block_on(async { mutex.lock().await.push_str("held") });
    /// assert_eq!(mutex.into_inner(), "held");
    /// ```
    pub fn lock(&self) -> Lock<'_, T> {
        Lock { mutex: self, state: LockState::Start }
    }

    /// Takes the lock if it is free right now, without queueing.
    ///
    /// # Examples
    ///
    #[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
    #[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
    /// let mutex = pipecheck_pipe::AsyncMutex::new(());
    /// let guard = mutex.try_lock().expect("free");
    /// assert!(mutex.try_lock().is_none());
    /// drop(guard);
    /// assert!(mutex.try_lock().is_some());
    /// ```
    pub fn try_lock(&self) -> Option<AsyncMutexGuard<'_, T>> {
        if fault::TryLockFailsAfterRelease.is_active() && self.queue.lock().exited {
            // The planted bug: a free mutex refuses `try_lock` once it has been released.
            return None;
        }
        self.gate.compare_exchange(0, 1, Ordering::AcqRel, Ordering::Relaxed).ok().map(|_| self.guard(None))
    }

    /// The guard of a task just admitted (`ticket`: the queued waiter it was, if the
    /// lock was handed over), reported after the admission.
    #[inline]
    fn guard(&self, ticket: Option<u64>) -> AsyncMutexGuard<'_, T> {
        self.probe.emit(|mutex| PrimitiveEvent::MutexAcquired { mutex, ticket });
        AsyncMutexGuard { mutex: self, _access: PhantomData }
    }

    /// Releases the lock: one read-modify-write when nobody else is counted.
    #[inline]
    fn exit(&self) {
        // Reported before the release, so the next holder's admission logs after it.
        self.probe.emit(|mutex| PrimitiveEvent::MutexReleased { mutex });
        if fault::TryLockFailsAfterRelease.is_active() {
            self.queue.lock().exited = true;
        }
        if self.gate.fetch_sub(1, Ordering::AcqRel) != 1 {
            self.exit_contended();
        }
    }

    /// Hands the lock to the oldest waiter, or reserves it for an entrant on its way
    /// to the queue. Called with the lock still logically held by the exiting task.
    #[cold]
    fn exit_contended(&self) {
        let exit = self.probe.operation();
        self.probe.emit(|mutex| PrimitiveEvent::MutexExitContended { mutex, exit });
        let mut queue = self.queue.lock();
        loop {
            if let Some(waiter) = queue.waiters.pop_front() {
                // Leaving the queue is the hand-over: the waiter's next poll finds its
                // ticket gone and owns the lock. Wake it after unlocking.
                let ticket = waiter.ticket;
                self.probe.emit(|mutex| PrimitiveEvent::MutexHandedOver {
                    mutex,
                    exit,
                    to: Handover::Waiter(ticket),
                });
                drop(queue);
                waiter.waker.wake();
                self.probe.emit(|mutex| PrimitiveEvent::MutexWoke { mutex, exit, ticket });
                break;
            }
            if queue.abandoned > 0 {
                // Hand the lock to an abandoned waiter, which exits at once.
                queue.abandoned -= 1;
                self.probe.emit(|mutex| PrimitiveEvent::MutexHandedOver {
                    mutex,
                    exit,
                    to: Handover::Abandoned,
                });
                if self.gate.fetch_sub(1, Ordering::AcqRel) == 1 {
                    break;
                }
                // Others are still counted: the abandoned waiter's exit owes them a
                // hand-over in turn.
                self.probe.emit(|mutex| PrimitiveEvent::MutexExitContended { mutex, exit });
                continue;
            }
            // Some entrant has counted itself in the gate but not queued itself yet.
            if !fault::MutexSkipWakeOnExit.is_active() {
                let second = std::mem::replace(&mut queue.released, true);
                self.probe.emit(|mutex| PrimitiveEvent::MutexHandedOver {
                    mutex,
                    exit,
                    to: Handover::Reserved,
                });
                // Checked in every build, after unlocking: a panic while the queue lock is
                // held would unwind through its release and let other tasks run meanwhile.
                drop(queue);
                if second {
                    Violation::new(crate::invariant::MUTUAL_EXCLUSION, "an exit reserved a second permit")
                        .raise();
                }
            }
            break;
        }
        self.probe.emit(|mutex| PrimitiveEvent::MutexExitReturned { mutex, exit });
    }
}

impl<T: Default> Default for AsyncMutex<T> {
    fn default() -> Self {
        AsyncMutex::new(T::default())
    }
}

impl<T> fmt::Debug for AsyncMutex<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AsyncMutex").field("gate", &self.gate.load(Ordering::Relaxed)).finish_non_exhaustive()
    }
}

/// The future of [`AsyncMutex::lock`].
///
/// # Examples
///
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// use pipecheck_pipe::AsyncMutex;
/// use pipecheck_sync::future::block_on;
/// let mutex = AsyncMutex::new(1);
/// let lock = mutex.lock(); // nothing happens until it is polled
/// assert_eq!(*block_on(lock), 1);
/// ```
#[must_use = "the lock is only taken when the future is polled"]
pub struct Lock<'a, T> {
    mutex: &'a AsyncMutex<T>,
    state: LockState,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LockState {
    /// Not polled yet: not counted in the gate.
    Start,
    /// Counted and queued with this ticket.
    Queued(u64),
    /// Resolved: the guard owns the lock now.
    Done,
}

impl<'a, T> Future for Lock<'a, T> {
    type Output = AsyncMutexGuard<'a, T>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let mutex = this.mutex;
        match this.state {
            LockState::Start => {
                if mutex.gate.fetch_add(1, Ordering::AcqRel) == 0 {
                    this.state = LockState::Done;
                    return Poll::Ready(mutex.guard(None));
                }
                let mut queue = mutex.queue.lock();
                // The planted bug takes an empty queue to mean a free lock, although the
                // holder may still be inside.
                let double_admit = fault::MutexDoubleAdmit.is_active() && queue.waiters.is_empty();
                if std::mem::take(&mut queue.released) || double_admit {
                    drop(queue);
                    this.state = LockState::Done;
                    return Poll::Ready(mutex.guard(None));
                }
                let ticket = queue.next_ticket;
                queue.next_ticket += 1;
                queue.waiters.push_back(Waiter { ticket, waker: cx.waker().clone() });
                mutex.probe.emit(|mutex| PrimitiveEvent::MutexQueued { mutex, ticket });
                this.state = LockState::Queued(ticket);
                Poll::Pending
            }
            LockState::Queued(ticket) => {
                let mut queue = mutex.queue.lock();
                match queue.waiters.iter_mut().find(|w| w.ticket == ticket) {
                    Some(waiter) => {
                        if !waiter.waker.will_wake(cx.waker()) {
                            waiter.waker = cx.waker().clone();
                        }
                        Poll::Pending
                    }
                    None => {
                        drop(queue);
                        this.state = LockState::Done;
                        Poll::Ready(mutex.guard(Some(ticket)))
                    }
                }
            }
            LockState::Done => panic!("`Lock` polled after it resolved"),
        }
    }
}

impl<T> Drop for Lock<'_, T> {
    fn drop(&mut self) {
        let LockState::Queued(ticket) = self.state else { return };
        if pipecheck_sync::skip_locking_cleanup() {
            return;
        }
        let mutex = self.mutex;
        let mut queue = mutex.queue.lock();
        if let Some(index) = queue.waiters.iter().position(|w| w.ticket == ticket) {
            queue.waiters.remove(index);
            queue.abandoned += 1;
            mutex.probe.emit(|mutex| PrimitiveEvent::MutexAbandoned { mutex, ticket });
        } else if !fault::MutexDropLosesHandoff.is_active() {
            // An exit handed us the lock after our last poll: we hold it, so pass it on.
            drop(queue);
            mutex.probe.emit(|mutex| PrimitiveEvent::MutexAcquired { mutex, ticket: Some(ticket) });
            mutex.exit();
        } else {
            // The planted bug: the hand-over is taken for a plain dequeue, and the lock
            // stays with a future that no longer exists.
            drop(queue);
        }
        mutex.probe.emit(|mutex| PrimitiveEvent::MutexLockDropped { mutex, ticket });
    }
}

impl<T> fmt::Debug for Lock<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Lock").field("state", &self.state).finish_non_exhaustive()
    }
}

/// Exclusive access to an [`AsyncMutex`]'s value; exits the lock on drop.
///
/// # Examples
///
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// use pipecheck_pipe::AsyncMutex;
/// use pipecheck_sync::future::block_on;
/// let mutex = AsyncMutex::new(vec![]);
/// let mut guard = block_on(mutex.lock());
/// guard.push(1);
/// drop(guard); // the next waiter, if any, is woken here
/// assert_eq!(*block_on(mutex.lock()), vec![1]);
/// ```
pub struct AsyncMutexGuard<'a, T> {
    mutex: &'a AsyncMutex<T>,
    /// Auto traits as for `&mut T`: sharing the guard shares `&T`, so it needs `T: Sync`.
    _access: PhantomData<&'a mut T>,
}

impl<T> Deref for AsyncMutexGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.mutex.value.with(|value| {
            // SAFETY: this guard is the one holder the gate admitted; the value is not
            // touched by anyone else until the guard drops.
            unsafe { &*value }
        })
    }
}

impl<T> DerefMut for AsyncMutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.mutex.value.with_mut(|value| {
            // SAFETY: as in `deref`, and `&mut self` makes this borrow unique.
            unsafe { &mut *value }
        })
    }
}

impl<T> Drop for AsyncMutexGuard<'_, T> {
    fn drop(&mut self) {
        if pipecheck_sync::skip_locking_cleanup() {
            return;
        }
        self.mutex.exit();
    }
}

impl<T: fmt::Debug> fmt::Debug for AsyncMutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}
