//! [`Visited`]: Lowe's cache of explored configurations (linearized set, model state),
//! compact and fast to probe.
//!
//! Each configuration is a bitset of the partition's operations and a model state.
//! Its hash is computed incrementally: the bitset's part is a Zobrist hash (the XOR of
//! one random word per linearized operation, updated in O(1) when an operation is
//! placed or removed), combined with an FxHash of the state. The table stores only a
//! 4-byte index into arenas holding hashes, bitsets (one contiguous `Vec<u64>`) and
//! states, so an entry costs `8 + 8 * words + size_of::<State>()` bytes plus about
//! 5 bytes of table, with no allocation per entry; the arenas' growth is charged to
//! the [`Allowance`] before it happens, so a memory budget is never overrun.

use std::hash::{BuildHasher, Hash};

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use super::allowance::Allowance;
use super::outcome::Exhausted;

/// The Zobrist word of operation `op`: SplitMix64 of its index, fixed so that runs
/// are reproducible.
pub(super) fn zobrist(op: usize) -> u64 {
    let mut z = (op as u64).wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The fewest buckets of the first table (640 bytes): rehashing it over and over as it
/// grows from a few buckets costs a small search more than the search itself.
const FIRST_BUCKETS: usize = 128;

/// The most buckets of the first table (20 KiB), whatever the partition's size.
const MAX_FIRST_BUCKETS: usize = 4096;

/// The explored configurations of one partition's search.
#[derive(Debug)]
pub(super) struct Visited<S> {
    table: HashTable<u32>,
    hashes: Vec<u64>,
    bits: Vec<u64>,
    states: Vec<S>,
    /// Words per bitset.
    words: usize,
    /// Buckets of the first table.
    first_buckets: usize,
    /// Bytes charged to the allowance so far.
    bytes: u64,
    /// Probes that found the configuration already explored.
    pub(super) hits: u64,
}

impl<S: Eq + Hash> Visited<S> {
    /// An empty cache for bitsets of `words` words, of a partition of `ops` operations.
    /// Nothing is allocated until the first insertion.
    pub(super) fn new(words: usize, ops: usize) -> Visited<S> {
        Visited {
            table: HashTable::new(),
            hashes: Vec::new(),
            bits: Vec::new(),
            states: Vec::new(),
            words,
            // Sized by the partition (searches of porcupine's 80-operation etcd histories
            // mostly visit fewer than 4 states per operation), so that a common search
            // neither rehashes nor moves its arenas.
            first_buckets: (4 * ops).next_power_of_two().clamp(FIRST_BUCKETS, MAX_FIRST_BUCKETS),
            bytes: 0,
            hits: 0,
        }
    }

    /// The hash of a configuration whose bitset hashes to `zobrist`.
    pub(super) fn hash(zobrist: u64, state: &S) -> u64 {
        zobrist ^ FxBuildHasher.hash_one(state)
    }

    /// The bytes held (charged to the allowance).
    pub(super) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Frees the cache: its states here (they may borrow from the caller), its table,
    /// hashes and bitsets on the reaper thread when large.
    pub(super) fn dispose(self) {
        let Visited { table, hashes, bits, states, bytes, .. } = self;
        drop(states);
        super::reaper::free((table, hashes, bits), bytes);
    }

    /// The state of entry `at`.
    pub(super) fn state(&self, at: u32) -> &S {
        &self.states[at as usize]
    }

    /// Inserts the configuration (`bits`, `state`) of hash `hash`: `Ok(Some(entry))` if
    /// it is new (the cache keeps the state; the search refers to it by `entry`),
    /// `Ok(None)` if it was explored before, an error if storing it would exceed the
    /// memory budget. `heap` gives the state's heap memory (asked only if it is new).
    #[inline]
    pub(super) fn insert(
        &mut self,
        hash: u64,
        bits: &[u64],
        state: S,
        heap: impl FnOnce(&S) -> usize,
        allowance: &mut Allowance<'_>,
    ) -> Result<Option<u32>, Exhausted> {
        if self.table.len() == self.table.capacity() {
            // hashbrown doubles its buckets (1 control byte and one u32 slot each) at
            // 7/8 load; charge that before `entry` grows the table. The first table has
            // `first_buckets`, which a small search never outgrows.
            let buckets = (self.table.capacity() * 8 / 7 + 1).next_power_of_two().max(self.first_buckets);
            let charge = buckets as u64 * 5;
            allowance.spend_bytes(charge)?;
            self.bytes += charge;
            let hashes = &self.hashes;
            let more = (buckets / 8 * 7).max(1) - self.table.len();
            self.table.reserve(more, |&at| hashes[at as usize]);
        }
        let Visited { table, hashes, bits: arena, states, words, first_buckets, bytes, hits } = self;
        let words = *words;
        let seen = table.find(hash, |&at| {
            let at = at as usize;
            hashes[at] == hash
                && arena[at * words..(at + 1) * words].iter().zip(bits).all(|(a, b)| a == b)
                && states[at] == state
        });
        if seen.is_some() {
            *hits += 1;
            return Ok(None);
        }
        let mut charge = heap(&state) as u64;
        if hashes.len() == hashes.capacity() {
            // Grow the arenas by half rather than doubling, so that a budget is not
            // overshot by one allocation; the first arenas hold what the first table does.
            let more = (hashes.len() / 2).max(*first_buckets / 8 * 7);
            charge += more as u64 * (8 + 8 * words + size_of::<S>()) as u64;
            allowance.spend_bytes(charge)?;
            hashes.reserve_exact(more);
            arena.reserve_exact(more * words);
            states.reserve_exact(more);
        } else if charge > 0 {
            allowance.spend_bytes(charge)?;
        }
        *bytes += charge;
        let at = hashes.len() as u32;
        hashes.push(hash);
        arena.extend_from_slice(bits);
        states.push(state);
        // The table has room (reserved above): no rehash, and `hashes` is complete.
        table.insert_unique(hash, at, |&at| hashes[at as usize]);
        Ok(Some(at))
    }
}
