//! A mutex that does not poison (tokio's `loom/std/mutex.rs`), over the backend's mutex,
//! optionally counting contended acquisitions (feature `contention-stats`).

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::panic::Location;

use super::backend::sync::RawMutex;
use super::record::{OpKind, record};

/// A mutual-exclusion lock whose `lock` returns the guard directly.
///
/// A panic while the lock is held does not poison it: pipecheck's state stays
/// consistent at every unlock point, and checkers report the panic itself.
pub struct Mutex<T: ?Sized> {
    #[cfg(feature = "contention-stats")]
    contended: std::sync::atomic::AtomicU64,
    #[cfg(feature = "contention-stats")]
    acquired: std::sync::atomic::AtomicU64,
    /// The last unlocker's pending `SeqCst` accesses, for the next locker (loom only:
    /// `loom_seqcst.rs`).
    #[cfg(feature = "loom")]
    seqcst: std::sync::atomic::AtomicBool,
    inner: RawMutex<T>,
}

/// The guard of a locked [`Mutex`]; unlocks on drop.
pub struct MutexGuard<'a, T: ?Sized> {
    inner: BackendGuard<'a, T>,
    /// Where it was locked: the unlock is recorded there too (`record.rs`).
    locked_at: &'static Location<'static>,
    /// The mutex's hand-over of pending `SeqCst` accesses (loom only).
    #[cfg(feature = "loom")]
    seqcst: &'a std::sync::atomic::AtomicBool,
}

#[cfg(feature = "loom")]
type BackendGuard<'a, T> = loom::sync::MutexGuard<'a, T>;
#[cfg(all(feature = "shuttle", not(feature = "loom")))]
type BackendGuard<'a, T> = shuttle::sync::MutexGuard<'a, T>;
#[cfg(not(any(feature = "loom", feature = "shuttle")))]
type BackendGuard<'a, T> = std::sync::MutexGuard<'a, T>;

impl<T> Mutex<T> {
    /// Creates an unlocked mutex holding `value`.
    pub fn new(value: T) -> Mutex<T> {
        Mutex {
            #[cfg(feature = "contention-stats")]
            contended: std::sync::atomic::AtomicU64::new(0),
            #[cfg(feature = "contention-stats")]
            acquired: std::sync::atomic::AtomicU64::new(0),
            #[cfg(feature = "loom")]
            seqcst: std::sync::atomic::AtomicBool::new(false),
            inner: RawMutex::new(value),
        }
    }
}

impl<T: ?Sized> Mutex<T> {
    /// Locks, blocking (or, under a checker, yielding) until the lock is free.
    ///
    /// The lock and its unlock are facade operations a recording keeps (`record.rs`).
    #[inline]
    #[track_caller]
    pub fn lock(&self) -> MutexGuard<'_, T> {
        #[cfg(feature = "contention-stats")]
        {
            use std::sync::atomic::Ordering::Relaxed;
            let guard = match self.inner.try_lock() {
                Ok(guard) => guard,
                Err(_) => {
                    self.contended.fetch_add(1, Relaxed);
                    self.inner.lock().unwrap_or_else(|e| e.into_inner())
                }
            };
            // Only the holder writes this counter, and the lock orders the holders, so a
            // plain load and store count exactly without a locked instruction.
            self.acquired.store(self.acquired.load(Relaxed) + 1, Relaxed);
            MutexGuard::wrap(guard, self)
        }
        #[cfg(not(feature = "contention-stats"))]
        MutexGuard::wrap(self.inner.lock().unwrap_or_else(|e| e.into_inner()), self)
    }

    /// Number of `lock` calls that found the lock held (feature `contention-stats`).
    #[cfg(feature = "contention-stats")]
    pub fn contended_acquisitions(&self) -> u64 {
        self.contended.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Number of `lock` calls so far, contended or not (feature `contention-stats`).
    #[cfg(feature = "contention-stats")]
    pub fn acquisitions(&self) -> u64 {
        self.acquired.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for Mutex<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Mutex").finish_non_exhaustive()
    }
}

impl<'a, T: ?Sized> MutexGuard<'a, T> {
    #[inline]
    #[track_caller]
    fn wrap(inner: BackendGuard<'a, T>, mutex: &'a Mutex<T>) -> Self {
        let locked_at = Location::caller();
        record(OpKind::Lock, None, locked_at);
        #[cfg(feature = "loom")]
        super::backend::seqcst::receive(mutex.seqcst.load(std::sync::atomic::Ordering::Relaxed));
        #[cfg(not(feature = "loom"))]
        let _ = mutex;
        MutexGuard {
            inner,
            locked_at,
            #[cfg(feature = "loom")]
            seqcst: &mutex.seqcst,
        }
    }
}

impl<T: ?Sized> Drop for MutexGuard<'_, T> {
    #[inline]
    fn drop(&mut self) {
        // Recorded before the backend's guard releases the lock: nothing runs between.
        record(OpKind::Unlock, None, self.locked_at);
        #[cfg(feature = "loom")]
        if super::backend::seqcst::handoff() {
            self.seqcst.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

impl<T: ?Sized> Deref for MutexGuard<'_, T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        &self.inner
    }
}

impl<T: ?Sized> DerefMut for MutexGuard<'_, T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        &mut self.inner
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}
