//! Checker-visible access tracking for byte regions shared between threads.
//!
//! A segment's bytes are written by the writer (its free tail) while the reader reads
//! its committed front. One `UnsafeCell` over the whole buffer would make that a false
//! data race, so under loom a [`RegionTracker`] keeps one tracked cell per byte and
//! each access touches exactly the bytes it covers: disjoint accesses never conflict,
//! and any real overlap without a happens-before edge is reported by loom.
//! Under `std` and shuttle the tracker is a zero-sized no-op.

use std::ops::Range;

/// Records reads and writes of byte ranges so the model checker can find races.
#[derive(Debug)]
pub struct RegionTracker {
    #[cfg(feature = "loom")]
    cells: Box<[loom::cell::UnsafeCell<()>]>,
}

impl RegionTracker {
    /// A tracker for a region of `len` bytes.
    #[inline]
    pub fn new(len: usize) -> RegionTracker {
        #[cfg(feature = "loom")]
        {
            RegionTracker { cells: (0..len).map(|_| loom::cell::UnsafeCell::new(())).collect() }
        }
        #[cfg(not(feature = "loom"))]
        {
            let _ = len;
            RegionTracker {}
        }
    }

    /// Records a read of `range`; under loom, panics if it races with a write.
    #[inline]
    pub fn read(&self, range: Range<usize>) {
        #[cfg(feature = "loom")]
        for cell in &self.cells[range] {
            cell.with(|_| ());
        }
        #[cfg(not(feature = "loom"))]
        let _ = range;
    }

    /// Records a write of `range`; under loom, panics if it races with any access.
    #[inline]
    pub fn write(&self, range: Range<usize>) {
        #[cfg(feature = "loom")]
        for cell in &self.cells[range] {
            cell.with_mut(|_| ());
        }
        #[cfg(not(feature = "loom"))]
        let _ = range;
    }
}
