//! thread_local 1.1.3's `ThreadLocal::iter`: the iterator loaded each bucket pointer
//! `Relaxed`, so it may see a bucket another thread just allocated without the
//! allocation's initialization (each entry's `present: AtomicBool::new(false)`)
//! happening before its own reads (RUSTSEC-2022-0006, Amanieu/thread_local-rs#33, fixed
//! in 1.1.4 by Amanieu/thread_local-rs#34: `bucket.load(Ordering::Acquire)`).
//!
//! Reduced to two buckets of one entry each, indexed by a thread number the caller
//! passes (the crate takes it from its thread-id allocator, with buckets of growing
//! size); insertion, allocation and iteration are the crate's.

use std::mem::MaybeUninit;
use std::ptr;

use pipecheck::cell::UnsafeCell;
use pipecheck::prelude::*;
use pipecheck::sync::Mutex;
use pipecheck::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

/// `thread-local-iter-values`: an iteration yields only values some thread inserted,
/// and after the inserting threads are joined, every one of them.
pub const ITER_VALUES: InvariantId = InvariantId::new("thread-local-iter-values");

planted_faults! {
    /// thread_local 1.1.3's `RawIter::next`: `let bucket = bucket.load(Ordering::Relaxed);`.
    /// An iterator that sees a bucket another thread allocated has no happens-before
    /// edge to the bucket's initialization, so its `present.load` races with the
    /// allocating write; only weak memory shows it (under sequential consistency the
    /// load is as good as `Acquire`).
    IterRelaxedBucketLoad breaks InvariantId::NO_DATA_RACE, weak_memory, caught_in(&["insert-races-iter"]);
}

/// Buckets, and thread numbers: thread `n` owns entry 0 of bucket `n`.
pub const BUCKETS: usize = 2;

struct Entry<T> {
    present: AtomicBool,
    value: UnsafeCell<MaybeUninit<T>>,
}

/// Per-thread values that any thread may iterate (thread_local's `ThreadLocal`).
pub struct ThreadLocal<T: Send> {
    buckets: [AtomicPtr<Entry<T>>; BUCKETS],
    lock: Mutex<()>,
}

impl<T: Send> std::fmt::Debug for ThreadLocal<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ThreadLocal").finish_non_exhaustive()
    }
}

// SAFETY: a value is written once by its own thread before `present` is stored
// (Release) and read by others only after they loaded `present` as true (Acquire); the
// buckets are published with a Release store and loaded with Acquire (what
// IterRelaxedBucketLoad breaks).
unsafe impl<T: Send + Sync> Sync for ThreadLocal<T> {}

fn allocate_bucket<T>() -> *mut Entry<T> {
    let bucket: Box<[Entry<T>]> =
        vec![Entry { present: AtomicBool::new(false), value: UnsafeCell::new(MaybeUninit::uninit()) }]
            .into_boxed_slice();
    Box::into_raw(bucket).cast::<Entry<T>>()
}

impl<T: Send> Default for ThreadLocal<T> {
    fn default() -> Self {
        ThreadLocal {
            buckets: std::array::from_fn(|_| AtomicPtr::new(ptr::null_mut())),
            lock: Mutex::new(()),
        }
    }
}

impl<T: Send> ThreadLocal<T> {
    /// An empty `ThreadLocal`.
    pub fn new() -> ThreadLocal<T> {
        ThreadLocal::default()
    }

    /// Inserts thread `thread`'s value (each thread number inserts at most once).
    pub fn insert(&self, thread: usize, data: T) {
        let guard = self.lock.lock();
        let bucket_ptr = &self.buckets[thread];
        let mut bucket = bucket_ptr.load(Ordering::Acquire);
        if bucket.is_null() {
            bucket = allocate_bucket();
            bucket_ptr.store(bucket, Ordering::Release);
        }
        drop(guard);
        // SAFETY: the bucket is allocated and never freed while `self` lives.
        let entry = unsafe { &*bucket };
        // SAFETY: only thread `thread` writes its entry, once, before `present` is set.
        entry.value.with_mut(|p| unsafe { p.write(MaybeUninit::new(data)) });
        entry.present.store(true, Ordering::Release);
    }

    /// Every value inserted so far that this iteration sees (thread_local's `iter`).
    pub fn iter_cloned(&self) -> Vec<T>
    where
        T: Clone + Sync,
    {
        let order = if IterRelaxedBucketLoad.is_active() { Ordering::Relaxed } else { Ordering::Acquire };
        let mut values = Vec::new();
        for bucket in &self.buckets {
            let bucket = bucket.load(order);
            if bucket.is_null() {
                continue;
            }
            // SAFETY: a non-null bucket is allocated and lives as long as `self`.
            let entry = unsafe { &*bucket };
            if entry.present.load(Ordering::Acquire) {
                // SAFETY: `present` was seen true (Acquire): the value is written and no
                // one writes it again.
                values.push(entry.value.with(|p| unsafe { (*p).assume_init_ref().clone() }));
            }
        }
        values
    }
}

impl<T: Send> Drop for ThreadLocal<T> {
    fn drop(&mut self) {
        for bucket in &self.buckets {
            let bucket = bucket.load(Ordering::Acquire);
            if bucket.is_null() {
                continue;
            }
            // SAFETY: the bucket came from `allocate_bucket` (a boxed slice of one entry)
            // and `&mut self` means no other thread uses it.
            let bucket = unsafe { Box::from_raw(ptr::slice_from_raw_parts_mut(bucket, 1)) };
            for entry in bucket.iter() {
                if entry.present.load(Ordering::Acquire) {
                    // SAFETY: the entry's value was written (present) and is dropped once.
                    entry.value.with_mut(|p| unsafe { (*p).assume_init_drop() });
                }
            }
        }
    }
}

/// What a run records.
#[derive(Clone, Debug)]
pub enum Event {
    /// A thread inserted its value.
    Inserted(u64),
    /// An iteration while a thread inserts yielded these values.
    Iterated(Vec<u64>),
    /// The iteration after the inserting threads were joined yielded these values.
    Final(Vec<u64>),
}

fn iter_values() -> FnInvariant<Vec<u64>, Event> {
    let statement = "an iteration yields only inserted values, and after the joins every one of them";
    FnInvariant::new(ITER_VALUES, statement, Vec::new(), |inserted, event: &Event| match event {
        Event::Inserted(v) => {
            inserted.push(*v);
            Ok(())
        }
        Event::Iterated(seen) => match seen.iter().find(|&&v| v != 2) {
            Some(v) => Err(format!("the iteration yielded {v}, which no thread inserts")),
            None => Ok(()),
        },
        Event::Final(seen) => {
            let (mut seen, mut inserted) = (seen.clone(), inserted.clone());
            seen.sort();
            inserted.sort();
            (seen == inserted)
                .then_some(())
                .ok_or(format!("inserted {inserted:?}, the final iteration saw {seen:?}"))
        }
    })
}

/// One thread inserts its value while another iterates (Amanieu/thread_local-rs#33's
/// program: one thread iterates while another calls `get_or_default`); after both are
/// joined, an iteration sees the value.
///
/// Both sides are spawned threads, the inserter first: loom 0.7.3 keeps only the last
/// access to an atomic for its partial-order reduction, and `insert` loads the bucket
/// pointer just before it stores it, which hides an earlier load by the iterator from the
/// store; with the inserter first, loom's first schedule runs the insert before the
/// iteration, and the iterator's `Relaxed` load may then read the new bucket.
fn insert_races_iter(monitor: &EventMonitor<Event>) {
    let tls = Arc::new(ThreadLocal::<u64>::new());
    let (other, m) = (tls.clone(), monitor.clone());
    let inserter = thread::spawn(move || {
        other.insert(1, 2);
        m.record_by("inserter", Event::Inserted(2));
    });
    let (other, m) = (tls.clone(), monitor.clone());
    let iterator = thread::spawn(move || m.record_by("iterator", Event::Iterated(other.iter_cloned())));
    inserter.join().expect("the inserter panicked");
    iterator.join().expect("the iterator panicked");
    monitor.record_by("main", Event::Final(tls.iter_cloned()));
}

/// `ThreadLocal`'s iterator as a pipecheck target.
pub fn target() -> Target {
    Target::new("thread-local-iter", "thread_local 1.1.3's iterator racing an insert (RUSTSEC-2022-0006)")
        .faults(ALL)
        .checked(
            iter_values(),
            &[EventScenario::small(
                "insert-races-iter",
                "a thread inserts its value while another iterates, then iterates again after the join",
                insert_races_iter,
            )],
        )
}
