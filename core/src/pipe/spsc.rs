//! An unbounded single-producer/single-consumer FIFO queue of linked ring chunks.
//!
//! Modelled on .NET's `SingleProducerSingleConsumerQueue`, which seed 000 uses as the
//! pipe's segment pool: the producer (the reader, returning segments) and the consumer
//! (the writer, taking them) work at different ends and share only two counters, so
//! they do not contend. Chunks start at a configurable size and double (up to
//! [`MAX_CHUNK`]); the consumer frees a chunk once it has moved past it.
//!
//! [`Producer::len_upper_bound`] is the pool's `Count`: the producer's exact number of
//! pushes minus the consumer's published number of pops. The consumer only adds to its
//! counter, so the value can only *overestimate* the true length while a pop is in
//! flight, never underestimate it; a cap check against it can refuse a push that would
//! have fit, but can never let the queue grow past the cap.
//!
//! Handles are not `Clone`: having one [`Producer`] and one [`Consumer`] is what makes
//! the lock-free protocol sound.

use std::fmt;
use std::mem::MaybeUninit;
use std::ptr;

use crossbeam_utils::CachePadded;

use pipecheck_sync::cell::UnsafeCell;
use pipecheck_sync::sync::Arc;
use pipecheck_sync::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

/// Largest chunk, in slots.
pub const MAX_CHUNK: usize = 1024;

struct Chunk<T> {
    slots: Box<[UnsafeCell<MaybeUninit<T>>]>,
    /// The chunk after this one; set by the producer before it publishes any item there.
    next: AtomicPtr<Chunk<T>>,
}

impl<T> Chunk<T> {
    fn alloc(len: usize) -> *mut Chunk<T> {
        Box::into_raw(Box::new(Chunk {
            slots: (0..len).map(|_| UnsafeCell::new(MaybeUninit::uninit())).collect(),
            next: AtomicPtr::new(ptr::null_mut()),
        }))
    }
}

/// A position in the chain: a chunk, an index in it, and the items passed so far.
struct Cursor<T> {
    chunk: *mut Chunk<T>,
    index: usize,
    passed: usize,
}

struct Inner<T> {
    /// Items pushed so far; written only by the producer.
    pushed: CachePadded<AtomicUsize>,
    /// Items popped so far; written only by the consumer.
    popped: CachePadded<AtomicUsize>,
    /// The consumer's cursor. Lives here, not in [`Consumer`], because dropping the
    /// queue walks the chain from it.
    head: UnsafeCell<Cursor<T>>,
}

// SAFETY: the chain is only reached through `Producer` (one owner, `&mut self`) and
// `Consumer` (one owner, `&mut self`), which touch disjoint slots ordered by the
// `pushed`/`popped` release/acquire pairs; `T: Send` lets items cross threads.
unsafe impl<T: Send> Send for Inner<T> {}
// SAFETY: as for `Send`: shared access is only the two counters, which are atomics.
unsafe impl<T: Send> Sync for Inner<T> {}

/// The pushing end of an SPSC queue.
pub struct Producer<T> {
    inner: Arc<Inner<T>>,
    tail: Cursor<T>,
}

/// The popping end of an SPSC queue.
pub struct Consumer<T> {
    inner: Arc<Inner<T>>,
}

// SAFETY: the producer's cursor points into the chain, which `Inner` owns; moving the
// handle to another thread moves the only pusher with it.
unsafe impl<T: Send> Send for Producer<T> {}
// SAFETY: the consumer holds only the shared `Inner`, which is `Send + Sync`.
unsafe impl<T: Send> Send for Consumer<T> {}

/// A new empty queue whose first chunk has `first_chunk` slots.
pub fn channel<T>(first_chunk: usize) -> (Producer<T>, Consumer<T>) {
    let first = Chunk::alloc(first_chunk.clamp(1, MAX_CHUNK));
    let inner = Arc::new(Inner {
        pushed: CachePadded::new(AtomicUsize::new(0)),
        popped: CachePadded::new(AtomicUsize::new(0)),
        head: UnsafeCell::new(Cursor { chunk: first, index: 0, passed: 0 }),
    });
    let producer = Producer { inner: inner.clone(), tail: Cursor { chunk: first, index: 0, passed: 0 } };
    (producer, Consumer { inner })
}

impl<T> Producer<T> {
    /// Appends `value` at the tail.
    pub fn push(&mut self, value: T) {
        // SAFETY: [1] `tail.chunk` is alive: the consumer frees a chunk only after
        // following its `next`, and the producer always stores `next` *before* moving
        // its own tail off the chunk, so the consumer never frees the producer's chunk.
        let mut chunk = unsafe { &*self.tail.chunk };
        if self.tail.index == chunk.slots.len() {
            let next = Chunk::alloc((chunk.slots.len() * 2).min(MAX_CHUNK));
            // Published to the consumer by the `pushed` release below.
            chunk.next.store(next, Ordering::Release);
            self.tail.chunk = next;
            self.tail.index = 0;
            // SAFETY: just allocated, and freed only by the consumer after it pops past it.
            chunk = unsafe { &*next };
        }
        chunk.slots[self.tail.index].with_mut(|slot| {
            // SAFETY: [2] the slot is past `pushed`, so the consumer does not read it
            // until the release store below publishes it; only this producer writes.
            unsafe { (*slot).write(value) };
        });
        self.tail.index += 1;
        self.tail.passed += 1;
        self.inner.pushed.store(self.tail.passed, Ordering::Release);
    }

    /// The queue's length as the producer sees it: never below the true length.
    pub fn len_upper_bound(&self) -> usize {
        self.tail.passed - self.inner.popped.load(Ordering::Acquire)
    }
}

impl<T> Consumer<T> {
    /// Removes the item at the head, if any.
    pub fn pop(&mut self) -> Option<T> {
        self.pop_inspect(|_| ())
    }

    /// Removes the item at the head, calling `inspect` on it *before* its slot is
    /// published as free, so an observer's log records the pop before the producer can
    /// see the queue shrink.
    pub fn pop_inspect(&mut self, inspect: impl FnOnce(&T)) -> Option<T> {
        let inner = &*self.inner;
        inner.head.with_mut(|head| {
            // SAFETY: only the consumer touches `head`, and `&mut self` makes it unique.
            let head = unsafe { &mut *head };
            if head.passed == inner.pushed.load(Ordering::Acquire) {
                return None;
            }
            // SAFETY: `head.chunk` is alive: only this consumer frees chunks, and only
            // those it has moved past.
            let mut chunk = unsafe { &*head.chunk };
            if head.index == chunk.slots.len() {
                let next = chunk.next.load(Ordering::Acquire);
                // A memory-safety check, so in every build: `next` is dereferenced below.
                // One branch per chunk of slots, not per item. Raised as the invariant it
                // breaks (an item read before what makes it safe to read was published),
                // so a checker's verdict names it.
                if next.is_null() {
                    pipecheck_sync::Violation::new(
                        pipecheck_sync::InvariantId::NO_DATA_RACE,
                        "an item was published past a full chunk without a link",
                    )
                    .raise();
                }
                // SAFETY: [1] the chunk is drained, and the producer linked `next` before
                // publishing the item we are about to read, so it has moved its tail
                // off this chunk and will never touch it again; [2] nothing else
                // points into it.
                drop(unsafe { Box::from_raw(head.chunk) });
                head.chunk = next;
                head.index = 0;
                // SAFETY: linked by the producer and not freed (we have not passed it).
                chunk = unsafe { &*next };
            }
            let value = chunk.slots[head.index].with(|slot| {
                // SAFETY: the slot is below `pushed` (acquired above), so the producer
                // wrote it and will not touch it again; it is read exactly once, here.
                unsafe { (*slot).assume_init_read() }
            });
            head.index += 1;
            head.passed += 1;
            inspect(&value);
            inner.popped.store(head.passed, Ordering::Release);
            Some(value)
        })
    }
}

impl<T> Drop for Inner<T> {
    fn drop(&mut self) {
        let pushed = self.pushed.load(Ordering::Acquire);
        self.head.with_mut(|head| {
            // SAFETY: `&mut self`: both handles are gone, nothing else reaches the chain.
            let head = unsafe { &mut *head };
            let mut remaining = pushed - head.passed;
            let mut chunk = head.chunk;
            let mut index = head.index;
            while !chunk.is_null() {
                // SAFETY: every chunk from the head on is alive and owned by the chain.
                let owned = unsafe { Box::from_raw(chunk) };
                while remaining > 0 && index < owned.slots.len() {
                    owned.slots[index].with_mut(|slot| {
                        // SAFETY: slots between the head and `pushed` hold initialized items.
                        unsafe { (*slot).assume_init_drop() }
                    });
                    index += 1;
                    remaining -= 1;
                }
                chunk = owned.next.load(Ordering::Acquire);
                index = 0;
            }
        });
    }
}

impl<T> fmt::Debug for Producer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Producer").field("pushed", &self.tail.passed).finish()
    }
}

impl<T> fmt::Debug for Consumer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Consumer").finish_non_exhaustive()
    }
}

#[cfg(all(test, not(any(feature = "loom", feature = "shuttle"))))]
mod tests {
    use super::*;

    #[test]
    fn fifo_across_chunk_boundaries() {
        let (mut tx, mut rx) = channel(2);
        for i in 0..100 {
            tx.push(i);
        }
        assert_eq!(tx.len_upper_bound(), 100);
        for i in 0..100 {
            assert_eq!(rx.pop(), Some(i));
        }
        assert_eq!(rx.pop(), None);
        assert_eq!(tx.len_upper_bound(), 0);
    }

    #[test]
    fn interleaved_push_pop_keeps_order() {
        let (mut tx, mut rx) = channel(1);
        let mut next_out = 0;
        for i in 0..1000u32 {
            tx.push(i);
            if i.is_multiple_of(3) {
                assert_eq!(rx.pop(), Some(next_out));
                next_out += 1;
            }
        }
        while let Some(v) = rx.pop() {
            assert_eq!(v, next_out);
            next_out += 1;
        }
        assert_eq!(next_out, 1000);
    }

    #[test]
    fn drop_releases_remaining_items() {
        let item = std::sync::Arc::new(());
        let (mut tx, rx) = channel(2);
        for _ in 0..5 {
            tx.push(item.clone());
        }
        drop(tx);
        drop(rx);
        assert_eq!(std::sync::Arc::strong_count(&item), 1);
    }

    #[test]
    fn two_threads_transfer_in_order() {
        let (mut tx, mut rx) = channel(4);
        let producer = std::thread::spawn(move || {
            for i in 0..100_000u64 {
                tx.push(i);
            }
        });
        let mut expected = 0;
        while expected < 100_000 {
            if let Some(v) = rx.pop() {
                assert_eq!(v, expected);
                expected += 1;
            } else {
                std::hint::spin_loop();
            }
        }
        producer.join().unwrap();
    }
}
