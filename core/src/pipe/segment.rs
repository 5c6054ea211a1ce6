//! A segment: a pooled object (its identity) holding a rented buffer while in use.
//!
//! The buffer's bytes are shared between the writer, which fills the free tail of the
//! writing head, and the reader, which reads the committed front of every linked
//! segment. The two ranges never overlap: the writer writes only at or after its
//! written offset, the reader reads only before the committed offset, and a flush
//! (under the pipe lock) moves the committed offset up to the written one. Every access
//! goes through [`SegmentMemory::read`]/[`SegmentMemory::write`], which report the exact
//! byte range to loom's race detector.

use std::fmt;
use std::ops::Range;
use std::ptr::NonNull;

use crate::pipe::observe::SegmentId;
use pipecheck_sync::cell::RegionTracker;

/// A segment object. Pooled without memory; given a buffer when the writer takes it.
pub(crate) struct Segment {
    pub(crate) id: SegmentId,
    /// Stream offset of the buffer's first byte.
    pub(crate) base: u64,
    pub(crate) memory: Option<SegmentMemory>,
}

impl Segment {
    pub(crate) fn new(id: SegmentId) -> Segment {
        Segment { id, base: 0, memory: None }
    }

    /// The segment's memory; only segments in use are reachable by readers and writers.
    #[inline]
    pub(crate) fn memory(&self) -> &SegmentMemory {
        self.memory.as_ref().expect("a linked segment always holds memory")
    }
}

impl fmt::Debug for Segment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Segment")
            .field("id", &self.id)
            .field("base", &self.base)
            .field("capacity", &self.memory.as_ref().map(SegmentMemory::capacity))
            .finish()
    }
}

/// A rented buffer whose disjoint byte ranges are accessed from two threads.
pub(crate) struct SegmentMemory {
    ptr: NonNull<u8>,
    /// Length of the allocation.
    allocated: usize,
    /// Bytes the pipe uses: the planned segment size, even if the pool gave more, so
    /// segment sizes do not depend on the buffer pool.
    len: usize,
    tracker: RegionTracker,
}

// SAFETY: the buffer is an owned heap allocation; which thread touches which bytes is
// governed by the pipe protocol described in the module docs.
unsafe impl Send for SegmentMemory {}
// SAFETY: shared access only hands out disjoint ranges (see `read` and `write`).
unsafe impl Sync for SegmentMemory {}

impl SegmentMemory {
    pub(crate) fn new(buffer: Box<[u8]>, usable: usize) -> SegmentMemory {
        let allocated = buffer.len();
        let len = usable.min(allocated);
        // A raw pointer, not the `Box`: a live `Box` asserts unique access to all bytes,
        // which the reader and writer sharing the buffer would violate.
        let ptr = NonNull::new(Box::into_raw(buffer).cast::<u8>()).expect("Box is non-null");
        SegmentMemory { ptr, allocated, len, tracker: RegionTracker::new(len) }
    }

    /// Bytes in the buffer.
    #[inline]
    pub(crate) fn capacity(&self) -> usize {
        self.len
    }

    /// Shared view of `range`.
    ///
    /// # Safety
    ///
    /// No one writes `range` while the returned slice lives: the range is committed
    /// (below the committed offset observed under the pipe lock), and the writer only
    /// writes at or after its written offset, which is never below committed.
    #[inline]
    pub(crate) unsafe fn read(&self, range: Range<usize>) -> &[u8] {
        // A hard check: a planted bug may compute a bad range, and it must not become UB.
        assert!(range.start <= range.end && range.end <= self.len, "segment range out of bounds");
        self.tracker.read(range.clone());
        // SAFETY: in bounds (asserted above), and no writer per the caller's contract.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr().add(range.start), range.len()) }
    }

    /// Exclusive view of `range`.
    ///
    /// # Safety
    ///
    /// The caller is the writer, `range` starts at or after its written offset (so it
    /// is above everything committed), and no other slice of `range` lives meanwhile.
    #[inline]
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn write(&self, range: Range<usize>) -> &mut [u8] {
        // A hard check: a planted bug may compute a bad range, and it must not become UB.
        assert!(range.start <= range.end && range.end <= self.len, "segment range out of bounds");
        self.tracker.write(range.clone());
        // SAFETY: in bounds (asserted above), and exclusive per the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr().add(range.start), range.len()) }
    }

    /// Gives the buffer back, for returning to its pool.
    pub(crate) fn into_buffer(self) -> Box<[u8]> {
        let mut this = std::mem::ManuallyDrop::new(self);
        let slice = std::ptr::slice_from_raw_parts_mut(this.ptr.as_ptr(), this.allocated);
        // SAFETY: `ptr`/`len` came from `Box::into_raw` in `new` and are converted back
        // exactly once (`self` is consumed and its `Drop` suppressed).
        let buffer = unsafe { Box::from_raw(slice) };
        // SAFETY: the tracker is dropped in place exactly once: `this` is never used
        // again and, being `ManuallyDrop`, never dropped as a whole. (`drop_in_place`
        // rather than `drop(ptr::read(..))`, which clippy's `drop_non_drop` rejects for
        // the zero-sized std tracker.)
        unsafe { std::ptr::drop_in_place(&mut this.tracker) };
        buffer
    }
}

impl Drop for SegmentMemory {
    fn drop(&mut self) {
        let slice = std::ptr::slice_from_raw_parts_mut(self.ptr.as_ptr(), self.allocated);
        // SAFETY: as in `into_buffer`: the allocation is freed exactly once, here. A
        // buffer dropped this way bypasses the pool, which release-once checkers see.
        drop(unsafe { Box::from_raw(slice) });
    }
}

// Outside loom and shuttle: their trackers only work inside a model.
#[cfg(all(test, not(any(feature = "loom", feature = "shuttle"))))]
mod tests {
    use super::*;

    /// The writer fills a segment up to its capacity and the reader's last chunk ends
    /// there: a capacity of 0 would make every write outgrow its head, without end.
    #[test]
    fn capacity_is_the_usable_part_of_the_buffer() {
        let memory = SegmentMemory::new(vec![0; 16].into_boxed_slice(), 8);
        assert_eq!(memory.capacity(), 8, "a 16-byte buffer rented for 8 usable bytes");
        let whole = SegmentMemory::new(vec![0; 16].into_boxed_slice(), 64);
        assert_eq!(whole.capacity(), 16, "usable bytes are capped by the buffer's length");
    }
}
