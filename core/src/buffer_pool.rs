//! Where segment memory comes from: the [`BufferPool`] trait and its default.

use std::fmt;

use crate::primitive::sync::Mutex;

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

/// The default pool: power-of-two size classes, each a small free list.
///
/// # Examples
///
// Under loom and shuttle the sync primitives only work inside a model: compile, do not run.
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// use pipecheck_core::{BufferPool, DefaultBufferPool};
/// let pool = DefaultBufferPool::new();
/// let buffer = pool.rent(3000);
/// assert_eq!(buffer.len(), 4096);
/// pool.give_back(buffer);
/// assert_eq!(pool.rent(4096).len(), 4096); // the same buffer, reused
/// ```
pub struct DefaultBufferPool {
    classes: Vec<Mutex<Vec<Box<[u8]>>>>,
}

/// Smallest size class: 2^6 = 64 bytes.
const MIN_CLASS_SHIFT: u32 = 6;
/// Size classes from 64 B to 1 MiB; larger buffers are not pooled.
const CLASSES: usize = 15;
/// Buffers kept per size class.
const KEEP_PER_CLASS: usize = 64;

impl DefaultBufferPool {
    /// An empty pool.
    pub fn new() -> DefaultBufferPool {
        DefaultBufferPool { classes: (0..CLASSES).map(|_| Mutex::new(Vec::new())).collect() }
    }

    /// Contended acquisitions of the size classes' locks so far, summed (feature
    /// `contention-stats`).
    #[cfg(feature = "contention-stats")]
    pub fn lock_contention(&self) -> u64 {
        self.classes.iter().map(Mutex::contended_acquisitions).sum()
    }

    fn class_of(len: usize) -> Option<usize> {
        let shift = len.max(1).next_power_of_two().trailing_zeros().max(MIN_CLASS_SHIFT);
        let class = (shift - MIN_CLASS_SHIFT) as usize;
        (class < CLASSES).then_some(class)
    }
}

impl Default for DefaultBufferPool {
    fn default() -> Self {
        DefaultBufferPool::new()
    }
}

impl BufferPool for DefaultBufferPool {
    fn rent(&self, min_len: usize) -> Box<[u8]> {
        match DefaultBufferPool::class_of(min_len) {
            Some(class) => {
                if let Some(buffer) = self.classes[class].lock().pop() {
                    return buffer;
                }
                vec![0; 1 << (class as u32 + MIN_CLASS_SHIFT)].into_boxed_slice()
            }
            None => vec![0; min_len].into_boxed_slice(),
        }
    }

    fn give_back(&self, buffer: Box<[u8]>) {
        let len = buffer.len();
        if let Some(class) = DefaultBufferPool::class_of(len) {
            // Only exact class sizes go back, so `rent` never hands out a short buffer.
            if len == 1 << (class as u32 + MIN_CLASS_SHIFT) {
                let mut free = self.classes[class].lock();
                if free.len() < KEEP_PER_CLASS {
                    free.push(buffer);
                }
            }
        }
    }
}

impl fmt::Debug for DefaultBufferPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DefaultBufferPool").finish_non_exhaustive()
    }
}
