//! parking_lot 0.12.0's `RawRwLock`: a writer waiting for the last readers to leave set
//! its parked bit with a compare-and-swap whose failure ordering was `Relaxed`, so when
//! the swap failed because the last reader had just left, the writer went on owning the
//! lock without acquiring that reader's release: the reader's accesses race with the
//! writer's (Amanieu/parking_lot#323, found with ThreadSanitizer; fixed in 0.12.1 by
//! Amanieu/parking_lot#344: `Ordering::Acquire, Ordering::Acquire`).
//!
//! Reduced to the state bits this path uses (`WRITER_BIT`, `WRITER_PARKED_BIT`, the
//! reader count): `lock_shared` is the fast path only, `lock_exclusive` grabs
//! `WRITER_BIT` with the crate's compare-and-swap and yields while another writer has it,
//! and `wait_for_readers` spins no rounds before it parks (parking_lot's `SpinWait`
//! spins up to ten, which only delays the same compare-and-swap). `parking_lot_core`'s
//! `park`/`unpark_one` for the writer's key are modelled with the facade: a mutex for
//! the bucket lock (`validate` and the unpark callback run under it, as in
//! `parking_lot_core`) and a waker the parked writer blocks on.

use std::future::poll_fn;
use std::task::{Poll, Waker};

use pipecheck::cell::UnsafeCell;
use pipecheck::prelude::*;
use pipecheck::sync::Mutex;
use pipecheck::sync::atomic::{AtomicUsize, Ordering};

/// `rwlock-reader-sees-no-write`: a reader holding the read lock sees the value from
/// before any writer's lock, and the value a writer stored is there after it unlocked.
pub const NO_WRITE_UNDER_READ: InvariantId = InvariantId::new("rwlock-reader-sees-no-write");

planted_faults! {
    /// parking_lot 0.12.0's `wait_for_readers`: `compare_exchange_weak(state, state |
    /// WRITER_PARKED_BIT, Ordering::Relaxed, Ordering::Relaxed)`. When it fails because
    /// the last reader's `fetch_sub(ONE_READER, Release)` got in first, the writer reads
    /// "no readers" from the failure with `Relaxed` and owns the lock with no
    /// happens-before edge to that reader's accesses; only weak memory shows it.
    ParkedBitCasRelaxed breaks InvariantId::NO_DATA_RACE, weak_memory, caught_in(&["reader-leaves-as-writer-parks"]);
}

const WRITER_BIT: usize = 0b1000;
const WRITER_PARKED_BIT: usize = 0b0010;
const ONE_READER: usize = 0b1_0000;
const READERS_MASK: usize = !(ONE_READER - 1);

/// The writer's parking slot: `parking_lot_core`'s bucket for the key `addr + 1`,
/// holding at most one parked writer.
#[derive(Debug, Default)]
struct Slot {
    parked: bool,
    unparked: bool,
    waker: Option<Waker>,
}

/// The raw lock, with the data it guards.
#[derive(Debug)]
pub struct RawRwLock {
    state: AtomicUsize,
    bucket: Mutex<Slot>,
    data: UnsafeCell<u64>,
}

// SAFETY: `data` is read only while a read lock is held and written only while the
// write lock is held; taking the write lock acquires every earlier reader's release
// (what ParkedBitCasRelaxed breaks, and loom reports the race).
unsafe impl Sync for RawRwLock {}

impl RawRwLock {
    /// An unlocked lock guarding `data`.
    pub fn new(data: u64) -> RawRwLock {
        RawRwLock {
            state: AtomicUsize::new(0),
            bucket: Mutex::new(Slot::default()),
            data: UnsafeCell::new(data),
        }
    }

    /// Takes a read lock if no writer holds or waits for the lock (the crate's
    /// `try_lock_shared_fast`).
    pub fn try_lock_shared(&self) -> bool {
        let state = self.state.load(Ordering::Relaxed);
        if state & WRITER_BIT != 0 {
            return false;
        }
        self.state.compare_exchange(state, state + ONE_READER, Ordering::Acquire, Ordering::Relaxed).is_ok()
    }

    /// Releases a read lock; the last reader wakes a parked writer.
    pub fn unlock_shared(&self) {
        let state = self.state.fetch_sub(ONE_READER, Ordering::Release);
        if state & (READERS_MASK | WRITER_PARKED_BIT) == (ONE_READER | WRITER_PARKED_BIT) {
            self.unpark_writer();
        }
    }

    /// The data, under a read lock.
    pub fn read(&self) -> u64 {
        // SAFETY: the caller holds a read lock: no writer writes now.
        self.data.with(|p| unsafe { *p })
    }

    /// Sets the data, under the write lock.
    pub fn write(&self, value: u64) {
        // SAFETY: the caller holds the write lock, which acquired every reader's release.
        self.data.with_mut(|p| unsafe { *p = value });
    }

    /// Takes the write lock: `WRITER_BIT` first, then waits for the readers to leave.
    pub fn lock_exclusive(&self) {
        let mut state = self.state.load(Ordering::Relaxed);
        loop {
            if state & WRITER_BIT != 0 {
                pipecheck::thread::yield_now();
                state = self.state.load(Ordering::Relaxed);
                continue;
            }
            match self.state.compare_exchange_weak(
                state,
                state | WRITER_BIT,
                Ordering::Acquire,
                Ordering::Relaxed,
            ) {
                Ok(_) => break,
                Err(actual) => state = actual,
            }
        }
        self.wait_for_readers();
    }

    /// Releases the write lock. The fast path of the crate; its slow path, reduced to
    /// what these scenarios reach: a `WRITER_PARKED_BIT` that a leaving reader's unpark
    /// has yet to clear (no thread parks on the lock's main key here).
    pub fn unlock_exclusive(&self) {
        if self.state.compare_exchange(WRITER_BIT, 0, Ordering::Release, Ordering::Relaxed).is_err() {
            self.state.fetch_and(!WRITER_BIT, Ordering::Release);
        }
    }

    fn wait_for_readers(&self) {
        let (success, failure) = if ParkedBitCasRelaxed.is_active() {
            (Ordering::Relaxed, Ordering::Relaxed)
        } else {
            (Ordering::Acquire, Ordering::Acquire)
        };
        let mut state = self.state.load(Ordering::Acquire);
        while state & READERS_MASK != 0 {
            if state & WRITER_PARKED_BIT == 0
                && let Err(actual) =
                    self.state.compare_exchange_weak(state, state | WRITER_PARKED_BIT, success, failure)
            {
                state = actual;
                continue;
            }
            let validate = || {
                let state = self.state.load(Ordering::Relaxed);
                state & READERS_MASK != 0 && state & WRITER_PARKED_BIT != 0
            };
            // Unparked or invalid: look again.
            self.park_writer(validate);
            state = self.state.load(Ordering::Acquire);
        }
    }

    /// `parking_lot_core::park` for the writer's key: under the bucket lock, parks only
    /// if `validate` holds, then sleeps until `unpark_writer`.
    fn park_writer(&self, validate: impl Fn() -> bool) {
        {
            let mut slot = self.bucket.lock();
            if !validate() {
                return;
            }
            slot.parked = true;
        }
        pipecheck::future::block_on(poll_fn(|cx| {
            let mut slot = self.bucket.lock();
            if slot.unparked {
                slot.unparked = false;
                return Poll::Ready(());
            }
            slot.waker = Some(cx.waker().clone());
            Poll::Pending
        }));
    }

    /// `unlock_shared_slow`: `parking_lot_core::unpark_one` for the writer's key, whose
    /// callback (under the bucket lock) clears `WRITER_PARKED_BIT`.
    fn unpark_writer(&self) {
        let mut slot = self.bucket.lock();
        self.state.fetch_and(!WRITER_PARKED_BIT, Ordering::Relaxed);
        if slot.parked {
            slot.parked = false;
            slot.unparked = true;
            if let Some(waker) = slot.waker.take() {
                drop(slot);
                waker.wake();
            }
        }
    }
}

/// What a run records.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// The reader, holding its read lock, saw this value.
    ReaderSaw(u64),
    /// The writer, holding the write lock, stored this value.
    WriterStored(u64),
    /// After both unlocked, the value is this.
    Final(u64),
}

fn no_write_under_read() -> FnInvariant<Option<u64>, Event> {
    let statement = "a reader holding the read lock sees the value from before the writer's lock; the writer's value stays";
    FnInvariant::new(NO_WRITE_UNDER_READ, statement, None, |stored, event: &Event| match *event {
        Event::ReaderSaw(0) => Ok(()),
        Event::ReaderSaw(v) => Err(format!("the reader, under its read lock, saw the writer's {v}")),
        Event::WriterStored(v) => {
            *stored = Some(v);
            Ok(())
        }
        Event::Final(v) if Some(v) == *stored => Ok(()),
        Event::Final(v) => Err(format!("the writer stored {stored:?}, the lock holds {v}")),
    })
}

/// A reader holds the read lock and leaves while a writer takes the write lock and
/// waits for it (Amanieu/parking_lot#323's program: readers looping on `read()` while a
/// writer writes, reduced to one of each).
fn reader_leaves_as_writer_parks(monitor: &EventMonitor<Event>) {
    let lock = Arc::new(RawRwLock::new(0));
    assert!(lock.try_lock_shared(), "nobody else holds the lock yet");
    let (other, m) = (lock.clone(), monitor.clone());
    let reader = thread::spawn(move || {
        m.record_by("reader", Event::ReaderSaw(other.read()));
        other.unlock_shared();
    });
    lock.lock_exclusive();
    lock.write(1);
    monitor.record_by("writer", Event::WriterStored(1));
    lock.unlock_exclusive();
    reader.join().expect("the reader panicked");
    assert!(lock.try_lock_shared(), "both unlocked");
    monitor.record_by("main", Event::Final(lock.read()));
    lock.unlock_shared();
}

/// The lock as a pipecheck target.
pub fn target() -> Target {
    Target::new("parking-lot-rwlock", "parking_lot 0.12.0's RwLock: a writer waiting for readers")
        .faults(ALL)
        .checked(
            no_write_under_read(),
            &[EventScenario::small(
                "reader-leaves-as-writer-parks",
                "a reader holding the read lock leaves while a writer takes the lock and waits for it",
                reader_leaves_as_writer_parks,
            )],
        )
}
