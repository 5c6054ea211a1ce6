//! [`PipeOptions`]: sizes, back-pressure thresholds, pools, observer and faults.

use std::fmt;

use crate::pipe::buffer_pool::{BufferPool, DefaultBufferPool};
use crate::pipe::error::OptionsError;

use crate::pipe::observe::{Observer, PipeObserver};
use crate::pipe::{Reader, Writer};

/// Which segment pool the pipe uses. The default is the contention-reduced design.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum PoolDesign {
    /// A single-producer/single-consumer FIFO queue: the reader returns segments at
    /// one end, the writer takes them at the other, without a shared lock.
    #[default]
    Fifo,
    /// The design before seed 000: a LIFO stack behind a mutex shared by both sides.
    /// Kept for side-by-side benchmarks.
    LockedStack,
}

/// How much of each operation runs under the pipe lock. The default is the
/// contention-reduced design of seeds 000 and 001.
///
/// # Examples
///
// Under loom and shuttle the sync primitives only work inside a model: compile, do not run.
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// use pipecheck_pipe::{LockScope, PipeOptions, PoolDesign};
/// // The whole design before seed 000, for side-by-side benchmarks.
/// let (writer, reader) = PipeOptions::new()
///     .pool_design(PoolDesign::LockedStack)
///     .lock_scope(LockScope::EveryOperation)
///     .build()
///     .unwrap();
/// # drop((writer, reader));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum LockScope {
    /// `get_memory` and `advance` take no lock; buffers are rented before and returned
    /// after the lock is held, so the lock covers only the shared state.
    #[default]
    Narrow,
    /// The design before seeds 000/001: every writer and reader operation takes the
    /// pipe lock, and buffers are rented and returned (and segment objects taken and
    /// returned) while it is held. Kept for side-by-side benchmarks; it costs the
    /// default design one predictable branch in `get_memory`, `advance` and
    /// `advance_to`.
    EveryOperation,
}

/// How to build a pipe. Defaults follow System.IO.Pipelines.
///
/// # Examples
///
// Under loom and shuttle the sync primitives only work inside a model: compile, do not run.
#[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
#[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
/// use pipecheck_pipe::PipeOptions;
/// let (writer, reader) = PipeOptions::new()
///     .minimum_segment_size(512)
///     .pause_writer_threshold(8192)
///     .resume_writer_threshold(4096)
///     .build()
///     .unwrap();
/// # drop((writer, reader));
/// ```
pub struct PipeOptions {
    pub(crate) minimum_segment_size: usize,
    pub(crate) maximum_segment_size: usize,
    pub(crate) pause_writer_threshold: u64,
    pub(crate) resume_writer_threshold: u64,
    pub(crate) max_pooled_segments: usize,
    pub(crate) pool_first_chunk: usize,
    pub(crate) pool_design: PoolDesign,
    pub(crate) lock_scope: LockScope,
    pub(crate) spins_before_park: u32,
    pub(crate) batching_looks: u32,
    pub(crate) buffer_pool: Box<dyn BufferPool>,
    pub(crate) observer: Observer,
}

impl PipeOptions {
    /// Default minimum segment size: 4096 bytes.
    pub const DEFAULT_MINIMUM_SEGMENT_SIZE: usize = 4096;
    /// Default maximum segment size (segments grow up to it): 64 KiB.
    pub const DEFAULT_MAXIMUM_SEGMENT_SIZE: usize = 64 * 1024;
    /// Default pause threshold: 65,536 unconsumed bytes.
    pub const DEFAULT_PAUSE_WRITER_THRESHOLD: u64 = 65_536;
    /// Default resume threshold: 32,768 unconsumed bytes.
    pub const DEFAULT_RESUME_WRITER_THRESHOLD: u64 = 32_768;
    /// Default maximum of pooled segment objects: 256.
    pub const DEFAULT_MAX_POOLED_SEGMENTS: usize = 256;
    /// Default number of looks a short wait takes before it parks (see
    /// [`spins_before_park`](Self::spins_before_park)): 64 on `std`. Under shuttle 2, so
    /// that schedules explore both a spin that ends early and one that runs out: a lost
    /// wake-up of a paused writer shows only where the writer parks before the reader
    /// resumes it (a writer still looking sees the resume unwoken), and with more looks
    /// PCT's schedules stopped reaching that order. Under loom 0, because each look is a
    /// load, and a load of the published word may read any of its older values: loom's
    /// interleavings multiply (one look took the pipe's 142 loom models from 95 s to
    /// 472 s). The spin decides nothing (the locked wait or the lock-free read after it
    /// does), so leaving it out of loom's models changes what loom explores only by the
    /// yields; the spin's own mistakes are shuttle's and plain threads' to find.
    pub const DEFAULT_SPINS_BEFORE_PARK: u32 = if cfg!(feature = "loom") {
        0
    } else if cfg!(feature = "shuttle") {
        2
    } else {
        64
    };

    /// Default number of looks a read that finds nothing takes while the writer streams
    /// (see [`batching_looks`](Self::batching_looks)): 8 on `std`, about 50 µs of waiting
    /// on the 2-core machine of `core/benches/PERFORMANCE.md`. 0 under loom and shuttle,
    /// where the looks would be scheduling points added to every model's reads (and, under
    /// loom, loads of the word with older values to read, as for
    /// [`DEFAULT_SPINS_BEFORE_PARK`](Self::DEFAULT_SPINS_BEFORE_PARK)); the models that
    /// check the batching wait turn it on themselves.
    pub const DEFAULT_BATCHING_LOOKS: u32 =
        if cfg!(any(feature = "loom", feature = "shuttle")) { 0 } else { 8 };

    /// The System.IO.Pipelines defaults.
    pub fn new() -> PipeOptions {
        PipeOptions {
            minimum_segment_size: Self::DEFAULT_MINIMUM_SEGMENT_SIZE,
            maximum_segment_size: Self::DEFAULT_MAXIMUM_SEGMENT_SIZE,
            pause_writer_threshold: Self::DEFAULT_PAUSE_WRITER_THRESHOLD,
            resume_writer_threshold: Self::DEFAULT_RESUME_WRITER_THRESHOLD,
            max_pooled_segments: Self::DEFAULT_MAX_POOLED_SEGMENTS,
            pool_first_chunk: 32,
            pool_design: PoolDesign::Fifo,
            lock_scope: LockScope::Narrow,
            spins_before_park: Self::DEFAULT_SPINS_BEFORE_PARK,
            batching_looks: Self::DEFAULT_BATCHING_LOOKS,
            buffer_pool: Box::new(DefaultBufferPool::new()),
            observer: Observer::default(),
        }
    }

    /// The smallest segment the writer allocates (and where growth starts).
    ///
    /// Must be at least 1: [`build`](Self::build) refuses 0 with
    /// [`OptionsError::SegmentSizes`]. .NET's `PipeOptions` accepts 0, and then
    /// `GetMemory()` with no hint rents `max(0, 0)` bytes (`Pipe.GetSegmentSize`) and
    /// hands out an empty buffer, where `PipeWriter.GetMemory` promises a non-empty one; here the
    /// mistake shows once, when the pipe is built.
    pub fn minimum_segment_size(mut self, bytes: usize) -> Self {
        self.minimum_segment_size = bytes;
        self
    }

    /// The largest segment; sizes double from the minimum up to it, and larger
    /// `get_memory` hints are refused with
    /// [`PipeError::SizeHintTooLarge`](crate::PipeError::SizeHintTooLarge).
    ///
    /// .NET has no such option: every new segment rents the larger of the minimum and
    /// the hint (`Pipe.GetSegmentSize`), so segments do not grow, and a hint above the
    /// memory pool's `MaxBufferSize` gets an array of its own from `ArrayPool`. Set the
    /// maximum to the minimum for .NET's sizes, and to the largest hint the code asks
    /// for (a whole frame, say) where it relies on large hints: every buffer the pipe
    /// allocates stays within this bound, where an allocation that fails aborts the
    /// process (.NET throws `OutOfMemoryException`).
    pub fn maximum_segment_size(mut self, bytes: usize) -> Self {
        self.maximum_segment_size = bytes;
        self
    }

    /// Flush waits while at least this many committed bytes are unexamined (as in .NET,
    /// examining a partial frame without consuming it counts); 0 disables back-pressure.
    pub fn pause_writer_threshold(mut self, bytes: u64) -> Self {
        self.pause_writer_threshold = bytes;
        self
    }

    /// A paused flush resumes once unexamined bytes drop below this; 0 acts as 1 (resume
    /// once everything is examined), since nothing is ever below 0.
    pub fn resume_writer_threshold(mut self, bytes: u64) -> Self {
        self.resume_writer_threshold = bytes;
        self
    }

    /// The most segment objects the pool keeps; more are dropped.
    pub fn max_pooled_segments(mut self, count: usize) -> Self {
        self.max_pooled_segments = count;
        self
    }

    /// Slots in the pool queue's first ring chunk (later chunks double). Small values
    /// let model checkers reach chunk boundaries in few steps.
    pub fn pool_first_chunk(mut self, slots: usize) -> Self {
        self.pool_first_chunk = slots.max(1);
        self
    }

    /// Which segment pool design to use.
    pub fn pool_design(mut self, design: PoolDesign) -> Self {
        self.pool_design = design;
        self
    }

    /// How much of each operation runs under the pipe lock.
    pub fn lock_scope(mut self, scope: LockScope) -> Self {
        self.lock_scope = scope;
        self
    }

    /// How many times a wait that the other end is about to end yields the thread and
    /// looks again before it parks: a flush paused by back-pressure (the reader is
    /// consuming), and the first read after an `advance_to` that resumed the paused
    /// writer (the writer is about to flush). Parking and waking cost more than the
    /// work such a wait is for at 4 KiB and 64 KiB chunks (see `core/benches/PERFORMANCE.md`).
    /// Each look is one load; the yields run inside the poll, so an async task that
    /// shares its thread with others may prefer 0 (park at once). Any other read that
    /// finds nothing waits as [`batching_looks`](Self::batching_looks) says; every other
    /// wait parks at once.
    ///
    /// The looks change no outcome .NET cannot have, only how often each happens. A
    /// flush that pauses is pending in .NET when `FlushAsync` returns, and its `await`
    /// asks once more (`Pipe.GetFlushAsyncStatus`) before it registers the continuation
    /// that the reader's `AdvanceTo` schedules. The first poll of a paused flush asks up
    /// to this many times, so a reader consuming on another thread that resumes the
    /// writer meanwhile finds the flush ready at that poll, where .NET's `await` would
    /// more likely have registered its continuation already. With 0 the first poll asks
    /// once, under the lock, as .NET's `await` does.
    ///
    /// # Examples
    ///
    // Under loom and shuttle the sync primitives only work inside a model: compile, do not run.
    #[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
    #[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
    /// use pipecheck_pipe::PipeOptions;
    /// let options = PipeOptions::new().spins_before_park(0);
    /// assert_eq!(options.get_spins_before_park(), 0);
    /// # drop(options.build().unwrap());
    /// ```
    pub fn spins_before_park(mut self, looks: u32) -> Self {
        self.spins_before_park = looks;
        self
    }

    /// How many times a read that finds nothing new looks again, a short busy-wait
    /// apart, before it parks, while the writer is streaming on another thread (an
    /// `advance_to` saw bytes published after the read it ended returned them). At small
    /// chunks a reader that parks on every empty read pays, with the writer, a park and
    /// a wake-up for a few chunks each time; one that waits a few microseconds reads
    /// what the writer published meanwhile in one batch, and neither end parks (at 64 B
    /// chunks this is most of the pipe's throughput: see `core/benches/PERFORMANCE.md`).
    /// A wait that runs out stops the batching until an `advance_to` sees the writer
    /// streaming again, so an idle writer costs one wait, and a writer on the reader's
    /// own thread none (it cannot publish between a read and its `advance_to`).
    /// Each gap is about 256 spin-loop hints and a yield (about 6 µs on that machine); a
    /// look is one load. Reads without a waker (`try_read`) never wait. 0 parks at once.
    ///
    /// # Examples
    ///
    // Under loom and shuttle the sync primitives only work inside a model: compile, do not run.
    #[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
    #[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
    /// use pipecheck_pipe::PipeOptions;
    /// let options = PipeOptions::new().batching_looks(0);
    /// assert_eq!(options.get_batching_looks(), 0);
    /// # drop(options.build().unwrap());
    /// ```
    pub fn batching_looks(mut self, looks: u32) -> Self {
        self.batching_looks = looks;
        self
    }

    /// Where segment buffers are rented from.
    pub fn buffer_pool(mut self, pool: impl BufferPool + 'static) -> Self {
        self.buffer_pool = Box::new(pool);
        self
    }

    /// Receives the pipe's [`PipeEvent`](crate::PipeEvent)s, for invariant checkers.
    pub fn observer(mut self, observer: impl PipeObserver + 'static) -> Self {
        self.observer = Observer::new(Box::new(observer));
        self
    }

    // Getters. The builder methods own the plain names (`minimum_segment_size(bytes)`),
    // so the getters take a `get_` prefix, as `std::process::Command::get_program` does.

    /// The minimum segment size set (default [`DEFAULT_MINIMUM_SEGMENT_SIZE`](Self::DEFAULT_MINIMUM_SEGMENT_SIZE)).
    ///
    /// # Examples
    ///
    // Under loom the default buffer pool's primitives only work inside a model.
    #[cfg_attr(not(any(feature = "loom", feature = "shuttle")), doc = "```")]
    #[cfg_attr(any(feature = "loom", feature = "shuttle"), doc = "```no_run")]
    /// use pipecheck_pipe::PipeOptions;
    /// let options = PipeOptions::new().minimum_segment_size(512);
    /// assert_eq!(options.get_minimum_segment_size(), 512);
    /// assert_eq!(options.get_pause_writer_threshold(), PipeOptions::DEFAULT_PAUSE_WRITER_THRESHOLD);
    /// ```
    pub fn get_minimum_segment_size(&self) -> usize {
        self.minimum_segment_size
    }

    /// The maximum segment size set.
    pub fn get_maximum_segment_size(&self) -> usize {
        self.maximum_segment_size
    }

    /// The pause threshold set (0: back-pressure off).
    pub fn get_pause_writer_threshold(&self) -> u64 {
        self.pause_writer_threshold
    }

    /// The resume threshold as set; a pipe built with 0 acts as if it were 1.
    pub fn get_resume_writer_threshold(&self) -> u64 {
        self.resume_writer_threshold
    }

    /// The most segment objects the pool keeps.
    pub fn get_max_pooled_segments(&self) -> usize {
        self.max_pooled_segments
    }

    /// Slots in the pool queue's first ring chunk.
    pub fn get_pool_first_chunk(&self) -> usize {
        self.pool_first_chunk
    }

    /// The segment pool design.
    pub fn get_pool_design(&self) -> PoolDesign {
        self.pool_design
    }

    /// How much of each operation runs under the pipe lock.
    pub fn get_lock_scope(&self) -> LockScope {
        self.lock_scope
    }

    /// How many looks a short wait takes before it parks.
    pub fn get_spins_before_park(&self) -> u32 {
        self.spins_before_park
    }

    /// How many looks a read that finds nothing takes while the writer streams.
    pub fn get_batching_looks(&self) -> u32 {
        self.batching_looks
    }

    /// The buffer pool segment buffers are rented from.
    pub fn get_buffer_pool(&self) -> &dyn BufferPool {
        &*self.buffer_pool
    }

    /// Whether an observer is installed.
    pub fn has_observer(&self) -> bool {
        self.observer.is_installed()
    }

    /// Builds the pipe and returns its two ends.
    ///
    /// # Errors
    ///
    /// [`OptionsError`] when the segment sizes or thresholds are inconsistent.
    pub fn build(self) -> Result<(Writer, Reader), OptionsError> {
        if self.minimum_segment_size == 0 || self.minimum_segment_size > self.maximum_segment_size {
            return Err(OptionsError::SegmentSizes {
                minimum: self.minimum_segment_size,
                maximum: self.maximum_segment_size,
            });
        }
        if self.pause_writer_threshold != 0 && self.resume_writer_threshold > self.pause_writer_threshold {
            return Err(OptionsError::Thresholds {
                pause: self.pause_writer_threshold,
                resume: self.resume_writer_threshold,
            });
        }
        Ok(crate::pipe::new_pipe(self))
    }
}

impl Default for PipeOptions {
    fn default() -> Self {
        PipeOptions::new()
    }
}

impl fmt::Debug for PipeOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PipeOptions")
            .field("minimum_segment_size", &self.minimum_segment_size)
            .field("maximum_segment_size", &self.maximum_segment_size)
            .field("pause_writer_threshold", &self.pause_writer_threshold)
            .field("resume_writer_threshold", &self.resume_writer_threshold)
            .field("max_pooled_segments", &self.max_pooled_segments)
            .field("pool_design", &self.pool_design)
            .field("lock_scope", &self.lock_scope)
            .field("spins_before_park", &self.spins_before_park)
            .field("batching_looks", &self.batching_looks)
            .field("observer", &self.observer)
            .finish_non_exhaustive()
    }
}
