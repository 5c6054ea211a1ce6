//! [`estimate_heap_bytes`]: what a model state owns on the heap, estimated from the
//! bytes it feeds its `Hash`, for models that do not say
//! ([`SequentialModel::state_heap_bytes`](super::SequentialModel::state_heap_bytes)'s
//! default), so that [`Budget::max_bytes`](super::Budget::max_bytes) bounds the memory
//! the search really holds.
//!
//! A container hashes its length (one `usize`) and then its elements, so the bytes
//! hashed beyond the state's own size are its contents, and the `usize` writes count
//! its containers (a string ends with a 0xff byte instead). Each container is charged a minimum allocation (a B-tree node of
//! small keys and values, about 100 bytes, plus the allocator's header), and contents
//! are charged four times over (unused capacity, a tree's half-full nodes and internal
//! nodes): at least what a `Vec`, `VecDeque`, `String`, `BTreeMap` or `BTreeSet` of
//! them allocates, at most a few times more for a small `Vec`.

use std::hash::{Hash, Hasher};

/// Bytes charged per container (per `usize` the state hashes).
const PER_CONTAINER: usize = 128;

/// Bytes charged per byte of contents.
const PER_CONTENT_BYTE: usize = 4;

/// An estimate of the heap memory `state` owns (its contents and allocations beyond
/// `size_of::<S>()`), from what it feeds its `Hash`; 0 for a state that hashes no
/// length and no more bytes than its size (an integer, an `Option<i64>`, a tuple of
/// them).
///
/// # Examples
///
/// ```
/// use std::collections::BTreeMap;
/// use pipecheck::linearizability::estimate_heap_bytes;
///
/// assert_eq!(estimate_heap_bytes(&Some(7i64)), 0);
/// let map: BTreeMap<u32, u32> = (0..5).map(|k| (k, k)).collect();
/// assert!(estimate_heap_bytes(&map) >= 120); // one leaf node and its allocation header
/// ```
pub fn estimate_heap_bytes<S: Hash>(state: &S) -> usize {
    let mut counter = Counter::default();
    state.hash(&mut counter);
    let contents = counter.bytes.saturating_sub(size_of::<S>());
    if counter.lengths == 0 && contents == 0 {
        return 0;
    }
    counter.lengths * PER_CONTAINER + contents * PER_CONTENT_BYTE
}

/// A `Hasher` that only counts: bytes written, and `usize`s (container lengths).
#[derive(Debug, Default)]
struct Counter {
    bytes: usize,
    lengths: usize,
}

impl Hasher for Counter {
    fn finish(&self) -> u64 {
        0
    }

    fn write(&mut self, bytes: &[u8]) {
        self.bytes += bytes.len();
    }

    fn write_usize(&mut self, _: usize) {
        self.bytes += size_of::<usize>();
        self.lengths += 1;
    }

    fn write_u8(&mut self, byte: u8) {
        // A `str` ends with 0xff (and has no length prefix): a container too.
        self.bytes += 1;
        self.lengths += usize::from(byte == 0xff);
    }

    fn write_isize(&mut self, _: isize) {
        // Enum discriminants: inline, not a length.
        self.bytes += size_of::<isize>();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{BTreeMap, VecDeque};

    #[test]
    fn inline_states_own_nothing() {
        assert_eq!(estimate_heap_bytes(&3u32), 0);
        assert_eq!(estimate_heap_bytes(&(1u64, Some(2i64))), 0);
    }

    #[test]
    fn containers_are_charged_their_allocations() {
        let empty: BTreeMap<u32, u32> = BTreeMap::new();
        assert_eq!(estimate_heap_bytes(&empty), PER_CONTAINER);
        let map: BTreeMap<u32, u32> = (0..100).map(|k| (k, k)).collect();
        // 100 entries of 8 bytes in nodes of 11 at least half full: under 20 nodes of
        // about 100 bytes (internal ones with 12 more pointers).
        assert!(estimate_heap_bytes(&map) >= 3_000, "{}", estimate_heap_bytes(&map));
        let queue: VecDeque<u64> = (0..10).collect();
        assert!(estimate_heap_bytes(&queue) >= 80 + 16);
        assert!(estimate_heap_bytes(&String::from("abc")) >= 3);
    }
}
