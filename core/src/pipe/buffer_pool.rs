//! Where segment memory comes from: the [`BufferPool`] trait, its lock-free default and
//! the locked pool it replaced.
//!
//! The writer rents and the reader gives back, on two threads: with a lock per size
//! class, the two serialize whenever a segment is released while the next one is
//! rented. The default pool's size classes are lock-free queues instead, so neither
//! side ever waits for the other there.

use std::fmt;
use std::sync::OnceLock;

use crossbeam_queue::ArrayQueue;

use crate::fault;
use crate::seeds::primitive_event::{PrimitiveEvent, PrimitiveObserver, Probe};
use pipecheck_sync::sync::Mutex;

/// A source of byte buffers for segments. Rented and returned outside the pipe's lock.
///
/// # Implementer notes
///
/// `rent(n)` returns a buffer of at least `n` bytes. Every rented buffer comes back
/// through `give_back` exactly once by the time both sides of the pipe complete
/// (the **release-once** invariant), so a pool that counts both can check it.
pub trait BufferPool: Send + Sync {
    /// A buffer of at least `min_len` bytes.
    fn rent(&self, min_len: usize) -> Box<[u8]>;

    /// Takes back a buffer previously rented from this pool.
    fn give_back(&self, buffer: Box<[u8]>);
}

impl<P: BufferPool + ?Sized> BufferPool for std::sync::Arc<P> {
    fn rent(&self, min_len: usize) -> Box<[u8]> {
        (**self).rent(min_len)
    }

    fn give_back(&self, buffer: Box<[u8]>) {
        (**self).give_back(buffer)
    }
}

/// Smallest size class: 2^6 = 64 bytes.
const MIN_CLASS_SHIFT: u32 = 6;
/// Size classes from 64 B to 1 MiB; larger buffers are not pooled.
const CLASSES: usize = 15;
/// Buffers kept per size class.
const KEEP_PER_CLASS: usize = 64;

/// The size class of a buffer of `len` bytes, if it is pooled.
fn class_of(len: usize) -> Option<usize> {
    let shift = len.max(1).next_power_of_two().trailing_zeros().max(MIN_CLASS_SHIFT);
    let class = (shift - MIN_CLASS_SHIFT) as usize;
    (class < CLASSES).then_some(class)
}

/// The length of every buffer of `class`.
fn class_len(class: usize) -> usize {
    1 << (class as u32 + MIN_CLASS_SHIFT)
}

/// A buffer of at least `min_len` bytes: one `take_free` finds in its size class, or a
/// new one of the class's size (of `min_len`, past the largest class). Reports
/// [`PrimitiveEvent::ClassRented`] to `probe`.
fn rent_with(probe: &Probe, min_len: usize, take_free: impl FnOnce(usize) -> Option<Box<[u8]>>) -> Box<[u8]> {
    let class = class_of(min_len);
    let buffer = match class {
        Some(class) => take_free(class).unwrap_or_else(|| vec![0; class_len(class)].into_boxed_slice()),
        None => vec![0; min_len].into_boxed_slice(),
    };
    let (class_len, len) = (class.map(class_len), buffer.len());
    probe.emit(|pool| PrimitiveEvent::ClassRented { pool, min_len, class_len, len });
    buffer
}

/// The pooled class of `buffer`: only exact class sizes go back, so a rent never hands
/// out a short buffer. Reports [`PrimitiveEvent::ClassReturned`] to `probe` (before
/// the buffer is filed, so the log shows the return before any rent of it).
fn pooled_class(probe: &Probe, buffer: &[u8]) -> Option<usize> {
    let len = buffer.len();
    let class = if fault::ClassOfNextSize.is_active() {
        // The planted bug: the class of one byte more, one class up.
        class_of(len + 1)
    } else {
        class_of(len).filter(|&class| len == class_len(class))
    };
    let class_len = class.map(class_len);
    probe.emit(|pool| PrimitiveEvent::ClassReturned { pool, len, class_len });
    class
}

/// The default pool: power-of-two size classes, each a bounded lock-free queue of free
/// buffers (crossbeam's `ArrayQueue`), so renting (the writer) and giving back (the
/// reader) never wait for each other. A class's queue is allocated by its first use:
/// a pipe touches one or two classes of the fifteen.
///
/// Its queues are plain atomics, not the facade's: under loom and shuttle a rent or a
/// return is one step, which the models do not split (the pool's own correctness is
/// crossbeam's, tested there; what the models check is how the pipe uses it).
///
/// # Examples
///
// Under loom and shuttle the sync primitives only work inside a model: compile, do not run.
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// use pipecheck_pipe::{BufferPool, DefaultBufferPool};
/// let pool = DefaultBufferPool::new();
/// let buffer = pool.rent(3000);
/// assert_eq!(buffer.len(), 4096);
/// pool.give_back(buffer);
/// assert_eq!(pool.rent(4096).len(), 4096); // the same buffer, reused
/// ```
pub struct DefaultBufferPool {
    classes: [OnceLock<ArrayQueue<Box<[u8]>>>; CLASSES],
    probe: Probe,
}

impl DefaultBufferPool {
    /// An empty pool.
    pub fn new() -> DefaultBufferPool {
        DefaultBufferPool { classes: std::array::from_fn(|_| OnceLock::new()), probe: Probe::default() }
    }

    /// This pool reporting its rents and returns ([`PrimitiveEvent::ClassRented`],
    /// [`PrimitiveEvent::ClassReturned`]) to `observer`, which checks
    /// **pool-size-class** on them.
    ///
    /// # Examples
    ///
    // Under loom and shuttle the sync primitives only work inside a model: compile, do not run.
    #[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
    #[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
    /// use std::sync::{Arc, Mutex};
    /// use pipecheck_pipe::{BufferPool, DefaultBufferPool, PrimitiveEvent, PrimitiveObserver};
    ///
    /// #[derive(Default)]
    /// struct Log(Mutex<Vec<PrimitiveEvent>>);
    /// impl PrimitiveObserver for Log {
    ///     fn on_primitive_event(&self, event: PrimitiveEvent) {
    ///         self.0.lock().unwrap().push(event);
    ///     }
    /// }
    /// let log = Arc::new(Log::default());
    /// let pool = DefaultBufferPool::new().observed(log.clone());
    /// pool.give_back(pool.rent(100));
    /// assert!(matches!(
    ///     log.0.lock().unwrap()[1],
    ///     PrimitiveEvent::ClassReturned { len: 128, class_len: Some(128), .. }
    /// ));
    /// ```
    pub fn observed(mut self, observer: std::sync::Arc<dyn PrimitiveObserver>) -> DefaultBufferPool {
        self.probe = Probe::new(observer);
        self
    }

    fn free_list(&self, class: usize) -> &ArrayQueue<Box<[u8]>> {
        self.classes[class].get_or_init(|| ArrayQueue::new(KEEP_PER_CLASS))
    }
}

impl Default for DefaultBufferPool {
    fn default() -> Self {
        DefaultBufferPool::new()
    }
}

impl BufferPool for DefaultBufferPool {
    fn rent(&self, min_len: usize) -> Box<[u8]> {
        rent_with(&self.probe, min_len, |class| self.classes[class].get().and_then(ArrayQueue::pop))
    }

    fn give_back(&self, buffer: Box<[u8]>) {
        if let Some(class) = pooled_class(&self.probe, &buffer) {
            // A full class drops the buffer (`push` hands it back, and it is freed here).
            let _ = self.free_list(class).push(buffer);
        }
    }
}

impl fmt::Debug for DefaultBufferPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DefaultBufferPool").finish_non_exhaustive()
    }
}

/// The pool the pipe used before [`DefaultBufferPool`] went lock-free: the same size
/// classes, each a free list behind the facade's mutex (a LIFO, so the buffer rented is
/// the one most recently given back). Kept for seed 000's A/B, whose "before" design
/// rents from it, and for anyone who wants the pool's steps modelled under loom and
/// shuttle.
///
/// # Examples
///
// Under loom and shuttle the sync primitives only work inside a model: compile, do not run.
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// use pipecheck_pipe::{BufferPool, LockedBufferPool, PipeOptions};
/// let (writer, reader) = PipeOptions::new().buffer_pool(LockedBufferPool::new()).build().unwrap();
/// # drop((writer, reader));
/// ```
pub struct LockedBufferPool {
    classes: Vec<Mutex<Vec<Box<[u8]>>>>,
    probe: Probe,
}

impl LockedBufferPool {
    /// An empty pool.
    pub fn new() -> LockedBufferPool {
        LockedBufferPool {
            classes: (0..CLASSES).map(|_| Mutex::new(Vec::new())).collect(),
            probe: Probe::default(),
        }
    }

    /// This pool reporting its rents and returns to `observer`, as
    /// [`DefaultBufferPool::observed`].
    ///
    /// # Examples
    ///
    // Under loom and shuttle the sync primitives only work inside a model: compile, do not run.
    #[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
    #[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
    /// use std::sync::Arc;
    /// use pipecheck_pipe::{BufferPool, LockedBufferPool, PrimitiveEvent, PrimitiveObserver};
    ///
    /// struct Print;
    /// impl PrimitiveObserver for Print {
    ///     fn on_primitive_event(&self, event: PrimitiveEvent) {
    ///         println!("{event:?}");
    ///     }
    /// }
    /// let pool = LockedBufferPool::new().observed(Arc::new(Print));
    /// pool.give_back(pool.rent(64));
    /// ```
    pub fn observed(mut self, observer: std::sync::Arc<dyn PrimitiveObserver>) -> LockedBufferPool {
        self.probe = Probe::new(observer);
        self
    }

    /// Contended acquisitions of the size classes' locks so far, summed (feature
    /// `contention-stats`).
    #[cfg(feature = "contention-stats")]
    pub fn lock_contention(&self) -> u64 {
        self.classes.iter().map(Mutex::contended_acquisitions).sum()
    }
}

impl Default for LockedBufferPool {
    fn default() -> Self {
        LockedBufferPool::new()
    }
}

impl BufferPool for LockedBufferPool {
    fn rent(&self, min_len: usize) -> Box<[u8]> {
        rent_with(&self.probe, min_len, |class| self.classes[class].lock().pop())
    }

    fn give_back(&self, buffer: Box<[u8]>) {
        if let Some(class) = pooled_class(&self.probe, &buffer) {
            let mut free = self.classes[class].lock();
            if free.len() < KEEP_PER_CLASS {
                free.push(buffer);
            }
        }
    }
}

impl fmt::Debug for LockedBufferPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LockedBufferPool").finish_non_exhaustive()
    }
}
