//! thread_local 1.0.0's `ThreadLocal::get`: the fast path loaded the top-level hash
//! table `Relaxed`, so a thread may see a table another thread just allocated (when
//! `insert` grew the table) without the table's initialization happening before its
//! lookup (Amanieu/thread_local-rs#16, fixed in 1.0.1: `self.table.load(Ordering::Acquire)`).
//!
//! Reduced to what `get_or` touches: the table chain (`Table { entries, hash_bits, prev }`),
//! `lookup`, `get_fast`, `get_slow` and `insert` with its growth at 75% load, over
//! thread ids the caller passes (the crate takes them from its thread-id allocator). The
//! table starts with one entry instead of two, so that the first insert grows it.

use std::ptr;

use pipecheck::cell::UnsafeCell;
use pipecheck::prelude::*;
use pipecheck::sync::Mutex;
use pipecheck::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

/// `thread-local-own-value`: `get_or` returns the calling thread's own value.
pub const OWN_VALUE: InvariantId = InvariantId::new("thread-local-own-value");

planted_faults! {
    /// thread_local 1.0.0's `get_fast`:
    /// `let table = unsafe { &*self.table.load(Ordering::Relaxed) };`. A thread that sees
    /// the table another thread's `insert` just published (with a Release store) has no
    /// happens-before edge to the table's construction, so its `lookup` reads entries
    /// racing with their initialization; only weak memory shows it.
    GetFastRelaxedTableLoad breaks InvariantId::NO_DATA_RACE, weak_memory, caught_in(&["two-threads-get-or"]);
}

struct TableEntry<T> {
    /// Current owner of this entry, or 0 if it is empty.
    owner: AtomicUsize,
    /// The owner's value; only the owner touches it.
    data: UnsafeCell<Option<Box<T>>>,
}

struct Table<T> {
    entries: Box<[TableEntry<T>]>,
    hash_bits: usize,
    prev: Option<Box<Table<T>>>,
}

impl<T> Table<T> {
    fn new(len: usize, hash_bits: usize, prev: Option<Box<Table<T>>>) -> Table<T> {
        let entries =
            (0..len).map(|_| TableEntry { owner: AtomicUsize::new(0), data: UnsafeCell::new(None) });
        Table { entries: entries.collect(), hash_bits, prev }
    }
}

/// Per-thread values (thread_local 1.0's `ThreadLocal`).
pub struct ThreadLocal<T: Send> {
    table: AtomicPtr<Table<T>>,
    /// Serializes inserts; counts the values.
    lock: Mutex<usize>,
}

impl<T: Send> std::fmt::Debug for ThreadLocal<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ThreadLocal").finish_non_exhaustive()
    }
}

// SAFETY: an entry's data is touched only by the thread that owns the entry; tables are
// published with a Release store and read after an Acquire load (what
// GetFastRelaxedTableLoad breaks), and freed only by `Drop`.
unsafe impl<T: Send> Sync for ThreadLocal<T> {}

fn hash(id: usize, bits: usize) -> usize {
    if bits == 0 { 0 } else { id.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (usize::BITS as usize - bits) }
}

impl<T: Send> Default for ThreadLocal<T> {
    fn default() -> Self {
        let table = Box::into_raw(Box::new(Table::new(1, 0, None)));
        ThreadLocal { table: AtomicPtr::new(table), lock: Mutex::new(0) }
    }
}

impl<T: Send> ThreadLocal<T> {
    /// An empty `ThreadLocal`.
    pub fn new() -> ThreadLocal<T> {
        ThreadLocal::default()
    }

    /// The value of thread `id` (non-zero), created by `create` if it has none.
    pub fn get_or(&self, id: usize, create: impl FnOnce() -> T) -> &T {
        match self.get_fast(id) {
            Some(value) => value,
            None => self.insert(id, Box::new(create()), true),
        }
    }

    /// Finds `id`'s entry: stops at the first empty one.
    fn lookup(id: usize, table: &Table<T>) -> Option<&UnsafeCell<Option<Box<T>>>> {
        let len = table.entries.len();
        let start = hash(id, table.hash_bits);
        for i in 0..len {
            let entry = &table.entries[(start + i) % len];
            let owner = entry.owner.load(Ordering::Relaxed);
            if owner == id {
                return Some(&entry.data);
            }
            if owner == 0 {
                return None;
            }
        }
        None
    }

    fn get_fast(&self, id: usize) -> Option<&T> {
        let order = if GetFastRelaxedTableLoad.is_active() { Ordering::Relaxed } else { Ordering::Acquire };
        // SAFETY: a published table lives until `Drop`.
        let table = unsafe { &*self.table.load(order) };
        match Self::lookup(id, table) {
            // SAFETY: only thread `id` touches its entry's data, and it is set.
            Some(data) => data.with(|p| unsafe { (*p).as_deref() }).map(|v| unsafe { &*(v as *const T) }),
            None => self.get_slow(id, table),
        }
    }

    #[cold]
    fn get_slow(&self, id: usize, top: &Table<T>) -> Option<&T> {
        let mut current = &top.prev;
        while let Some(table) = current {
            if let Some(data) = Self::lookup(id, table) {
                // SAFETY: only thread `id` touches its entry's data.
                let value = data.with_mut(|p| unsafe { (*p).take() })?;
                return Some(self.insert(id, value, false));
            }
            current = &table.prev;
        }
        None
    }

    #[cold]
    fn insert(&self, id: usize, data: Box<T>, new: bool) -> &T {
        let mut count = self.lock.lock();
        if new {
            *count += 1;
        }
        let table_raw = self.table.load(Ordering::Relaxed);
        // SAFETY: a published table lives until `Drop`.
        let mut table = unsafe { &*table_raw };
        if *count > table.entries.len() * 3 / 4 {
            // SAFETY: `table_raw` came from `Box::into_raw`; the new table owns it now.
            let prev = unsafe { Box::from_raw(table_raw) };
            let grown =
                Box::into_raw(Box::new(Table::new(table.entries.len() * 2, table.hash_bits + 1, Some(prev))));
            self.table.store(grown, Ordering::Release);
            // SAFETY: just published; lives until `Drop`.
            table = unsafe { &*grown };
        }
        let len = table.entries.len();
        let start = hash(id, table.hash_bits);
        for i in 0..len {
            let entry = &table.entries[(start + i) % len];
            let owner = entry.owner.load(Ordering::Relaxed);
            if owner == 0 {
                entry.owner.store(id, Ordering::Relaxed);
                // SAFETY: the entry is now `id`'s; only this thread touches its data.
                let value: *const T = entry.data.with_mut(|p| unsafe { &**(*p).insert(data) });
                // SAFETY: the box stays in the entry (moved only by this thread) until `Drop`.
                return unsafe { &*value };
            }
            if owner == id {
                // SAFETY: `id`'s own entry.
                let value: *const T =
                    entry.data.with(|p| unsafe { (*p).as_deref().expect("an owned entry has data") });
                // SAFETY: as above.
                return unsafe { &*value };
            }
        }
        unreachable!("a table at most 75% full has an empty entry")
    }
}

impl<T: Send> Drop for ThreadLocal<T> {
    fn drop(&mut self) {
        let table = self.table.swap(ptr::null_mut(), Ordering::Acquire);
        if !table.is_null() {
            // SAFETY: the top table came from `Box::into_raw`; it owns the chain.
            drop(unsafe { Box::from_raw(table) });
        }
    }
}

/// What a run records.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// Thread `id` created its value `value` and `get_or` returned `got`.
    Got {
        /// The thread id.
        id: usize,
        /// The value it created.
        value: u64,
        /// What `get_or` returned.
        got: u64,
    },
}

fn own_value() -> FnInvariant<(), Event> {
    FnInvariant::new(OWN_VALUE, "get_or returns the calling thread's own value", (), |_, event: &Event| {
        let Event::Got { id, value, got } = *event;
        (value == got).then_some(()).ok_or(format!("thread {id} created {value} but got {got}"))
    })
}

/// Two threads call `get_or` at once: one grows the table, the other's fast path looks
/// into it (thread_local's own test of concurrent `get`s, reduced to two threads).
fn two_threads_get_or(monitor: &EventMonitor<Event>) {
    let tls = Arc::new(ThreadLocal::<u64>::new());
    let (other, m) = (tls.clone(), monitor.clone());
    let thread = thread::spawn(move || {
        let got = *other.get_or(1, || 10);
        m.record_by("thread 1", Event::Got { id: 1, value: 10, got });
    });
    let got = *tls.get_or(2, || 20);
    monitor.record_by("thread 2", Event::Got { id: 2, value: 20, got });
    let again = *tls.get_or(2, || 21);
    monitor.record_by("thread 2", Event::Got { id: 2, value: 20, got: again });
    thread.join().expect("thread 1 panicked");
}

/// `ThreadLocal::get_or` as a pipecheck target.
pub fn target() -> Target {
    Target::new("thread-local-table", "thread_local 1.0.0's get fast path racing a table grow")
        .faults(ALL)
        .checked(
            own_value(),
            &[EventScenario::small(
                "two-threads-get-or",
                "two threads call get_or at once, one growing the table the other looks into",
                two_threads_get_or,
            )],
        )
}
