//! The checker's budgets against what the allocator really sees: a counting global
//! allocator (per thread, so parallel tests do not mix) measures the heap a check holds
//! and frees on its own thread.
//!
//! * Memory: with states that own heap (a `BTreeMap`) and a model that does not report
//!   it, the search still stays within `Budget::max_bytes`.
//! * Time: a check does not free its largest buffers on the caller's thread before
//!   answering (the reaper thread does), so it answers when its search stops.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::BTreeMap;

use pipecheck::linearizability::{Budget, Exhausted, History, Linearization, SequentialModel, check_report};

/// The system allocator, counting this thread's live bytes, their peak, and frees.
struct Counting;

thread_local! {
    static LIVE: Cell<i64> = const { Cell::new(0) };
    static PEAK: Cell<i64> = const { Cell::new(0) };
    static LARGEST_ALLOC: Cell<usize> = const { Cell::new(0) };
    static LARGEST_FREE: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards to `System`, only counting on the side.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = LIVE.try_with(|live| {
            live.set(live.get() + layout.size() as i64);
            let _ = PEAK.try_with(|peak| peak.set(peak.get().max(live.get())));
        });
        let _ = LARGEST_ALLOC.try_with(|largest| largest.set(largest.get().max(layout.size())));
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let _ = LIVE.try_with(|live| live.set(live.get() - layout.size() as i64));
        let _ = LARGEST_FREE.try_with(|largest| largest.set(largest.get().max(layout.size())));
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// What `f` did with this thread's heap.
#[derive(Debug)]
struct Heap {
    /// The peak of live bytes above the start.
    peak: u64,
    /// The largest block allocated.
    largest_alloc: usize,
    /// The largest block freed.
    largest_free: usize,
}

/// Runs `f`; its result and what it did with this thread's heap.
fn measured<T>(f: impl FnOnce() -> T) -> (T, Heap) {
    let start = LIVE.with(Cell::get);
    PEAK.with(|peak| peak.set(start));
    LARGEST_ALLOC.with(|largest| largest.set(0));
    LARGEST_FREE.with(|largest| largest.set(0));
    let result = f();
    let heap = Heap {
        peak: (PEAK.with(Cell::get) - start).max(0) as u64,
        largest_alloc: LARGEST_ALLOC.with(Cell::get),
        largest_free: LARGEST_FREE.with(Cell::get),
    };
    (result, heap)
}

/// A set of counters, `add(k)` returning nothing: every subset of concurrent adds is a
/// different state, so the search explores (and caches) exponentially many.
#[derive(Debug)]
struct Counters;

impl SequentialModel for Counters {
    type State = BTreeMap<u32, u32>;
    type Input = Option<u32>; // add to key k; None: read the number of keys
    type Output = Option<usize>;
    fn init(&self) -> Self::State {
        BTreeMap::new()
    }
    fn step(&self, state: &Self::State, input: &Option<u32>, output: &Option<usize>) -> Option<Self::State> {
        match input {
            Some(key) => {
                let mut next = state.clone();
                *next.entry(*key).or_default() += 1;
                Some(next)
            }
            None => (*output == Some(state.len() + 100)).then(|| state.clone()),
        }
    }
}

/// [`Counters`] as a bitmask: 4-byte states without heap.
#[derive(Debug)]
struct Bits;

impl SequentialModel for Bits {
    type State = u32;
    type Input = Option<u32>;
    type Output = Option<usize>;
    fn init(&self) -> u32 {
        0
    }
    fn step(&self, state: &u32, input: &Option<u32>, output: &Option<usize>) -> Option<u32> {
        match input {
            Some(key) => Some(state | 1 << key),
            None => (*output == Some(state.count_ones() as usize + 100)).then_some(*state),
        }
    }
}

/// `adds` concurrent adds and a read no subset explains: the search exhausts its budget.
fn hard_history(adds: usize) -> History<Option<u32>, Option<usize>> {
    let mut history = History::new();
    for thread in 0..adds {
        history.complete(thread, Some(thread as u32), None, 0, 10_000);
    }
    history.complete(adds, None, Some(0), 0, 10_001);
    history
}

#[test]
fn states_with_heap_stay_within_the_memory_budget() {
    let max_bytes = 8 << 20;
    let history = hard_history(24);
    let budget = Budget::unlimited().with_max_bytes(max_bytes).with_threads(1);
    let (report, heap) = measured(|| check_report(&Counters, &history, budget).unwrap());
    let peak = heap.peak;
    assert_eq!(report.verdict, Linearization::Unknown { why: Exhausted::Memory, states: report.states() });
    assert!(report.peak_bytes <= max_bytes);
    // The search's own stack and temporaries come on top of the visited set.
    assert!(peak <= max_bytes + max_bytes / 10, "held {peak} bytes with a budget of {max_bytes}");
}

#[test]
fn a_check_does_not_free_its_visited_sets_before_answering() {
    let history = hard_history(24);
    let budget = Budget::unlimited().with_max_states(400_000).with_threads(1);
    let (report, heap) = measured(|| check_report(&Bits, &history, budget).unwrap());
    assert!(matches!(report.verdict, Linearization::Unknown { why: Exhausted::States, .. }));
    // The search frees smaller buffers as its arenas grow, and the states arena (4-byte
    // states, as they may borrow from the caller) at the end; the largest buffers, the
    // hashes and bitsets arenas, go to the reaper thread.
    assert!(heap.largest_alloc > 1 << 20, "a large visited set: {heap:?}");
    assert!(
        heap.largest_free < heap.largest_alloc,
        "the largest buffer was freed before answering: {heap:?}"
    );
}
