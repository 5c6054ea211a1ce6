//! A buffer pool split into partitions, one per worker thread, so workers that rent
//! and return at the same time do not contend on one queue.
//!
//! Seed 002 (dotnet/aspnetcore, "Partition more ConcurrentQueues in Kestrel")
//! partitions Kestrel's `PinnedMemoryPool` per I/O thread, as its I/O queues already
//! were: "we can ensure that each partition is exclusively used by code servicing
//! sockets within that partition". On an 80-core ARM machine plaintext went from
//! 2.39M to 14.68M requests/s.
//!
//! Each [`PartitionHandle`] has a home partition. Renting pops from home first, then
//! steals from the other partitions in turn, then allocates; returning pushes onto home
//! (or discards the buffer when home is full). The pool counts what it allocated and
//! discarded, so [`PoolStats`] can show that rents and returns balance (the
//! **balanced-pool** invariant): once every rented buffer is back, `allocated ==
//! pooled + discarded`.

use std::fmt;

use crossbeam_utils::CachePadded;

use crate::fault;
use crate::seeds::primitive_event::{PrimitiveEvent, PrimitiveObserver, Probe};
use pipecheck_sync::sync::Mutex;
use pipecheck_sync::sync::atomic::{AtomicUsize, Ordering};

/// Fixed-size byte buffers in `N` partitions, each behind its own lock.
///
/// # Examples
///
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// use pipecheck_pipe::PartitionedPool;
/// let pool = PartitionedPool::new(2, 4096);
/// let home = pool.handle(0);
/// let buffer = home.rent();
/// assert_eq!(buffer.len(), 4096);
/// home.give_back(buffer);
/// let stats = pool.stats();
/// assert_eq!((stats.allocated, stats.pooled), (1, 1));
/// ```
pub struct PartitionedPool {
    partitions: Box<[CachePadded<Partition>]>,
    buffer_len: usize,
    keep_per_partition: usize,
    allocated: AtomicUsize,
    discarded: AtomicUsize,
    probe: Probe,
}

/// One partition: its buffers, and a lock-free hint of how many there are.
struct Partition {
    buffers: Mutex<Vec<Box<[u8]>>>,
    /// `buffers.len()` as of the last change, written under the lock. Renters skip
    /// partitions whose hint is 0 without locking them; a stale hint costs at most an
    /// allocation (a miss) or a lock of an empty partition, never a buffer.
    len_hint: AtomicUsize,
}

impl Partition {
    fn new() -> Partition {
        Partition { buffers: Mutex::new(Vec::new()), len_hint: AtomicUsize::new(0) }
    }

    /// Pops a buffer, reporting what it found under the lock (`index`: this partition's).
    fn pop(&self, probe: &Probe, index: usize) -> Option<Box<[u8]>> {
        if self.len_hint.load(Ordering::Relaxed) == 0 {
            return None;
        }
        let mut buffers = self.buffers.lock();
        let buffer = buffers.pop();
        self.len_hint.store(buffers.len(), Ordering::Relaxed);
        report_pop(probe, index, buffer.is_some(), buffers.len());
        buffer
    }

    /// The planted bug's steal: the list is taken out under the lock, popped outside it
    /// and put back under a second lock, overwriting whatever was returned meanwhile.
    fn steal_outside_lock(&self, probe: &Probe, index: usize) -> Option<Box<[u8]>> {
        if self.len_hint.load(Ordering::Relaxed) == 0 {
            return None;
        }
        let mut taken = std::mem::take(&mut *self.buffers.lock());
        let buffer = taken.pop();
        let mut buffers = self.buffers.lock();
        self.len_hint.store(taken.len(), Ordering::Relaxed);
        *buffers = taken;
        report_pop(probe, index, buffer.is_some(), buffers.len());
        buffer
    }
}

/// Reports a pop from partition `index` (a rent, or a miss), made under its lock, which
/// left `pooled` buffers there.
fn report_pop(probe: &Probe, index: usize, rented: bool, pooled: usize) {
    probe.emit(|pool| match rented {
        true => PrimitiveEvent::PoolRented { pool, partition: Some(index), pooled },
        false => PrimitiveEvent::PoolMissed { pool, partition: index },
    });
}

/// A worker's access to a [`PartitionedPool`], preferring its home partition.
///
/// # Examples
///
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// use pipecheck_pipe::PartitionedPool;
/// let pool = PartitionedPool::new(4, 64);
/// let handle = pool.handle(6); // wraps around: partition 2
/// assert_eq!(handle.home(), 2);
/// ```
#[derive(Clone, Copy)]
pub struct PartitionHandle<'a> {
    pool: &'a PartitionedPool,
    home: usize,
}

/// Counters of a [`PartitionedPool`], for the **balanced-pool** invariant.
///
/// # Examples
///
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// use pipecheck_pipe::PartitionedPool;
/// let pool = PartitionedPool::new(1, 8);
/// let buffer = pool.handle(0).rent();
/// assert_eq!(pool.stats().allocated, 1);
/// assert_eq!(pool.stats().pooled, 0); // out with the renter
/// pool.handle(0).give_back(buffer);
/// assert_eq!(pool.stats().pooled, 1);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Buffers the pool allocated because no partition had one.
    pub allocated: usize,
    /// Buffers sitting in partitions now.
    pub pooled: usize,
    /// Returned buffers the pool dropped because their home partition was full.
    pub discarded: usize,
}

impl PoolStats {
    /// Buffers rented and not yet returned: `allocated - pooled - discarded`. `None`
    /// when the counts cannot balance (more came back than went out).
    ///
    /// # Examples
    ///
    #[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
    #[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
    /// use pipecheck_pipe::PoolStats;
    /// let stats = PoolStats { allocated: 3, pooled: 2, discarded: 0 };
    /// assert_eq!(stats.outstanding(), Some(1));
    /// ```
    pub fn outstanding(&self) -> Option<usize> {
        self.allocated.checked_sub(self.pooled)?.checked_sub(self.discarded)
    }
}

impl PartitionedPool {
    /// Buffers each partition keeps by default; more returns are discarded.
    pub const DEFAULT_KEEP_PER_PARTITION: usize = 256;

    /// A pool of `partitions` (at least one) empty partitions of `buffer_len`-byte buffers.
    ///
    /// # Examples
    ///
    #[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
    #[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
    /// let pool = pipecheck_pipe::PartitionedPool::new(8, 4096);
    /// assert_eq!(pool.partitions(), 8);
    /// ```
    pub fn new(partitions: usize, buffer_len: usize) -> PartitionedPool {
        PartitionedPool::build(partitions, buffer_len)
    }

    fn build(partitions: usize, buffer_len: usize) -> PartitionedPool {
        PartitionedPool {
            partitions: (0..partitions.max(1)).map(|_| CachePadded::new(Partition::new())).collect(),
            buffer_len,
            keep_per_partition: PartitionedPool::DEFAULT_KEEP_PER_PARTITION,
            allocated: AtomicUsize::new(0),
            discarded: AtomicUsize::new(0),
            probe: Probe::default(),
        }
    }

    /// This pool, reporting its [`PrimitiveEvent`]s to `observer` (for invariant
    /// checkers: every rent, return and discard, with the partition's count).
    ///
    /// # Examples
    ///
    #[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
    #[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
    /// use std::sync::{Arc, Mutex};
    /// use pipecheck_pipe::{PartitionedPool, PrimitiveEvent, PrimitiveObserver};
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
    /// let pool = PartitionedPool::new(1, 8).observed(log.clone());
    /// pool.handle(0).give_back(pool.handle(0).rent());
    /// assert_eq!(log.0.lock().unwrap().len(), 2); // rented (allocated), returned
    /// ```
    pub fn observed(mut self, observer: std::sync::Arc<dyn PrimitiveObserver>) -> PartitionedPool {
        self.probe = Probe::new(observer);
        self
    }

    /// Sets how many buffers each partition keeps (default
    /// [`DEFAULT_KEEP_PER_PARTITION`](Self::DEFAULT_KEEP_PER_PARTITION)).
    ///
    /// # Examples
    ///
    #[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
    #[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
    /// use pipecheck_pipe::PartitionedPool;
    /// let pool = PartitionedPool::new(1, 8).keep_per_partition(0);
    /// let home = pool.handle(0);
    /// home.give_back(home.rent());
    /// assert_eq!(pool.stats().discarded, 1);
    /// ```
    pub fn keep_per_partition(mut self, buffers: usize) -> PartitionedPool {
        self.keep_per_partition = buffers;
        self
    }

    /// Number of partitions.
    ///
    /// # Examples
    ///
    #[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
    #[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
    /// assert_eq!(pipecheck_pipe::PartitionedPool::new(0, 8).partitions(), 1);
    /// ```
    pub fn partitions(&self) -> usize {
        self.partitions.len()
    }

    /// A handle whose home is partition `partition % self.partitions()`: give each
    /// worker thread its own index.
    ///
    /// # Examples
    ///
    #[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
    #[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
    /// let pool = pipecheck_pipe::PartitionedPool::new(2, 8);
    /// assert_eq!(pool.handle(1).home(), 1);
    /// ```
    pub fn handle(&self, partition: usize) -> PartitionHandle<'_> {
        PartitionHandle { pool: self, home: partition % self.partitions.len() }
    }

    /// A snapshot of the counters; exact once no thread is renting or returning.
    ///
    /// # Examples
    ///
    #[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
    #[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
    /// let pool = pipecheck_pipe::PartitionedPool::new(2, 8);
    /// assert_eq!(pool.stats().outstanding(), Some(0));
    /// ```
    pub fn stats(&self) -> PoolStats {
        PoolStats {
            allocated: self.allocated.load(Ordering::Acquire),
            pooled: self.partitions.iter().map(|p| p.buffers.lock().len()).sum(),
            discarded: self.discarded.load(Ordering::Acquire),
        }
    }
}

impl PartitionHandle<'_> {
    /// The index of this handle's home partition.
    ///
    /// # Examples
    ///
    #[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
    #[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
    /// assert_eq!(pipecheck_pipe::PartitionedPool::new(3, 8).handle(0).home(), 0);
    /// ```
    pub fn home(&self) -> usize {
        self.home
    }

    /// A buffer: from the home partition if it has one, else stolen from the next
    /// partition that has one, else newly allocated.
    ///
    /// # Examples
    ///
    #[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
    #[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
    /// let pool = pipecheck_pipe::PartitionedPool::new(2, 16);
    /// pool.handle(1).give_back(vec![7; 16].into_boxed_slice());
    /// let stolen = pool.handle(0).rent(); // home 0 is empty: steals from 1
    /// assert_eq!(stolen[0], 7);
    /// ```
    pub fn rent(&self) -> Box<[u8]> {
        let partitions = &self.pool.partitions;
        let n = partitions.len();
        let leaky_steal = fault::PartitionLeak.is_active();
        let probe = &self.pool.probe;
        for i in 0..n {
            let index = (self.home + i) % n;
            let partition = &partitions[index];
            let buffer = if i > 0 && leaky_steal {
                partition.steal_outside_lock(probe, index)
            } else {
                partition.pop(probe, index)
            };
            if let Some(buffer) = buffer {
                return buffer;
            }
        }
        self.pool.allocated.fetch_add(1, Ordering::AcqRel);
        probe.emit(|pool| PrimitiveEvent::PoolRented { pool, partition: None, pooled: 0 });
        vec![0; self.pool.buffer_len].into_boxed_slice()
    }

    /// Returns `buffer` to the home partition, or discards it when home is full.
    ///
    /// # Panics
    ///
    /// When `buffer` does not have the pool's buffer length.
    ///
    /// # Examples
    ///
    #[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
    #[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
    /// let pool = pipecheck_pipe::PartitionedPool::new(2, 16);
    /// let home = pool.handle(1);
    /// let buffer = home.rent();
    /// home.give_back(buffer);
    /// assert_eq!(pool.stats().pooled, 1);
    /// ```
    pub fn give_back(&self, buffer: Box<[u8]>) {
        assert_eq!(buffer.len(), self.pool.buffer_len, "a buffer of another pool given back");
        let home = &self.pool.partitions[self.home];
        let mut buffers = home.buffers.lock();
        let partition = self.home;
        if buffers.len() < self.pool.keep_per_partition {
            buffers.push(buffer);
            home.len_hint.store(buffers.len(), Ordering::Relaxed);
            let pooled = buffers.len();
            self.pool.probe.emit(|pool| PrimitiveEvent::PoolReturned { pool, partition, pooled });
        } else {
            drop(buffers);
            self.pool.discarded.fetch_add(1, Ordering::AcqRel);
            self.pool.probe.emit(|pool| PrimitiveEvent::PoolDiscarded { pool, partition });
        }
    }
}

impl fmt::Debug for PartitionedPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PartitionedPool")
            .field("partitions", &self.partitions.len())
            .field("buffer_len", &self.buffer_len)
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for PartitionHandle<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PartitionHandle").field("home", &self.home).finish_non_exhaustive()
    }
}
